package compile

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// iterData is the data of TestLoopErrorsNameIteration's models: six rows,
// each vector bad in the rows its comment gives.
func iterData() data.Input {
	vec := func(name string, v ...float64) *data.Array {
		return &data.Array{Name: name, Shape: []int{len(v)}, Values: v}
	}
	return data.Input{JSON: map[string]*data.Array{
		"N": {Name: "N", Values: []float64{6}},
		"x": vec("x", 1, 2, 3, -7, -8, 1),   // x + 6 < 0 in rows 3, 4
		"z": vec("z", 1, -9, 3, 2, 1, 1),    // z + 6 < 0 in row 1
		"c": vec("c", 1, 0, 1, 1, 0, 1),     // c * s = 0 in rows 1, 4
		"d": vec("d", 1, 1, 0, 1, 1, 1),     // d * s = 0 in row 2
		"w": vec("w", 2, 0.5, 3, 1, 0.5, 2), // d/da (a + 5e-324)^(w - 1) infinite at a = 0 in rows 1, 4
		"k": vec("k", 0, 1, 1, 0, 0, 1),     // the branch of each row
		"X": {Name: "X", Shape: []int{6, 3}, Values: []float64{
			1, 1, 1, 1, 1, 1, 1, 1, 1,
			1, -9, 1, // row 3, column 1
			-9, 1, 1, // row 4, column 0
			1, 1, -9, // row 5, column 2
		}},
	}}
}

// TestLoopErrorsNameIteration: a run-time error in a loop names the
// iteration that failed, the same one whether the loop is lowered as
// vectors or unrolled: for a value, the first failing iteration in loop
// order (whichever statement fails in it); for a gradient, the last, which
// the reverse sweep meets first. Each model fails in several rows, of
// several statements, so that the vector form's first failing node is not
// the one to name.
func TestLoopErrorsNameIteration(t *testing.T) {
	const head = `data N: int
data x: real[N]
data z: real[N]
data c: real[N]
data d: real[N]
data w: real[N]
data k: int[N]
data X: real[N, 3]
param a: real ~ Normal(0, 1)
param s: positive ~ Exponential(1)
`
	for _, tc := range []struct {
		name, body string
		a          float64 // the point's a (s is 1)
		want       string
	}{
		// log(x + 6) fails in rows 3 and 4, first in the tape;
		// sqrt(z + 6) in row 1, which the loop reaches first.
		{"value", "for i in 0:N {\n  target += log(x[i] - a)\n  target += sqrt(z[i] - a)\n}", -6,
			"m.gpp:13:13: sqrt: argument -3 < 0 at i = 1"},
		{"nested", "for i in 0:N {\n  for j in 0:3 {\n    target += log(X[i, j] - a)\n  }\n}", -6,
			"m.gpp:13:15: log: argument -3 < 0 at i = 3, j = 1"},
		// Each row's branch: the first failing row is row 1's, of
		// the second branch.
		{"branches", "for i in 0:N {\n  if k[i] == 0 {\n    target += log(x[i] - a)\n  } else {\n    target += log(z[i] - a)\n  }\n}", -6,
			"m.gpp:15:15: log: argument -3 < 0 at i = 1"},
		// A term the same in every row fails in the first iteration,
		// before the row term's row 3.
		{"same term", "for i in 0:N {\n  target += log(x[i] - a)\n  target += log(a + 5)\n}", -6,
			"m.gpp:13:13: log: argument -1 < 0 at i = 0"},
		// Gradients: log's at the smallest subnormal, 1/5e-324 = +Inf (a
		// derivative that overflows; sqrt's at 0 counts as 0, see
		// TestBoundaryGradient), in rows 1 and 4 of the first statement,
		// row 2 of the second: the last is row 4.
		{"gradient", "for i in 0:N {\n  target += log(c[i] * s + 5e-324)\n  target += log(d[i] * s + 5e-324)\n}", 0,
			"m.gpp:12:13: log: gradient is +Inf with respect to argument 1 (value 5e-324) at i = 4"},
		// A term the same in every row: the unrolled loop's last
		// iteration's copy of it is met first.
		{"same term gradient", "for i in 0:N {\n  target += log(c[i] * s + 5e-324)\n  target += log(a + 5e-324)\n}", 0,
			"m.gpp:13:13: log: gradient is +Inf with respect to argument 1 (value 5e-324) at i = 5"},
		// with respect to a, read by every row: rows 1 and 4
		{"gradient of a param", "for i in 0:N {\n  target += pow(a + 5e-324, w[i] - 1)\n}", 0,
			"m.gpp:12:13: pow: gradient is -Inf with respect to argument 1 (value 5e-324) at i = 4"},
		// A vector per iteration, lowered as the rows' matrix
		// (looprows.go): X[i] - a fails in rows 3, 4 and 5; the error
		// names row 3's element as the unrolled loop's vector does.
		{"row vector", "for i in 0:N {\n  target += log_sum_exp(log(X[i] - a))\n}", 0,
			"m.gpp:12:25: log: argument -9 < 0 (element [1]) at i = 3"},
		{"row of a row vector", "for i in 0:N {\n  let v = softmax(X[i]) .* sqrt(X[i]' - a)'\n  target += sum(v)\n}", 0,
			"m.gpp:12:28: sqrt: argument -9 < 0 (element [0, 1]) at i = 3"},
		{"row vector, later statement", "for i in 0:N {\n  target += sum(log(X[i] - a))\n  target += log(z[i] - a)\n}", 0,
			"m.gpp:13:13: log: argument -9 < 0 at i = 1"},
		{"row vector gradient", "for i in 0:N {\n  target += dot_product(log(square(X[i] - 1) * s + 5e-324), X[i])\n}", 0,
			"m.gpp:12:25: log: gradient is +Inf with respect to argument 1 (value 5e-324, element [0]) at i = 5"},
		// softmax underflows to 0 at row 4's observed category 0; the
		// rows' Categorical names that row, and the element of its theta
		{"categorical", "for i in 0:N {\n  k[i] ~ Categorical(softmax(X[i] * 100 * (a + 1)))\n}", 0,
			"m.gpp:12:10: Categorical: theta must be in (0, 1] at an observed category (got 0, element [0]) at i = 4"},
		{"categorical, later statement", "for i in 0:N {\n  k[i] ~ Categorical(softmax(X[i] * 100 * (a + 1)))\n  target += log(z[i] + 8.5 + a)\n}", 0,
			"m.gpp:13:13: log: argument -0.5 < 0 at i = 1"},
		{"nested gradient", "for i in 0:N {\n  for j in 0:2 {\n    target += log((c[i] + j) * s + 5e-324)\n  }\n}", 0,
			"m.gpp:13:15: log: gradient is +Inf with respect to argument 1 (value 5e-324) at i = 4, j = 0"},
		// The forms looprows.go lowers as the rows' matrix: an element
		// of a row, a row's max, its running sums, a row under MvNormal.
		{"element of a row", "for i in 0:N {\n  let v = log(X[i] - a)\n  target += v[1] + max(v)\n}", 0,
			"m.gpp:12:11: log: argument -9 < 0 (element [1]) at i = 3"},
		// |z| * 1e307 three times overflows in row 1 (9e307 twice)
		{"running sums", "for i in 0:N {\n  target += -0.1 * sum(cumsum(X[i] * (abs(z[i]) * (a + 1)) * 1e307))\n}", 0,
			"m.gpp:12:24: cumsum: result is +Inf (element [1]) at i = 1"},
		{"mvnormal mean", "for i in 0:N {\n  X[i] ~ MvNormal(sqrt(X[i] - a), I(3) * s)\n}", 0,
			"m.gpp:12:19: sqrt: argument -9 < 0 (element [1]) at i = 3"},
		// the centred row's outer product overflows in row 1 (8.1e154²)
		{"mvnormal outer", "for i in 0:N {\n  X[i] ~ MvNormal(X[i] * square(z[i]) * 1e153 * (a + 1), I(3) * s)\n}", 0,
			"m.gpp:12:10: outer: result is +Inf (element [0, 0]) at i = 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := head + tc.body + "\n"
			var errs [2]error
			for f, unroll := range []bool{false, true} {
				unrollLoops = unroll
				m, err := compileSrcErr(t, "m.gpp", src, nil, iterData())
				unrollLoops = false
				if err != nil {
					t.Fatal(err)
				}
				x := make([]float64, m.Dim)
				x[0] = tc.a // a; s = exp(0) = 1
				_, errs[f] = m.LogJoint(x, make([]float64, m.Dim))
				// The value alone (the ELBO's and k̂'s estimates) fails
				// where the value does, with the same error.
				if _, verr := m.LogJointValue(x); !strings.Contains(tc.want, "gradient") && (verr == nil || verr.Error() != tc.want) {
					t.Errorf("unrolled %v: LogJointValue's error\n  %v\nwant:\n  %s", unroll, verr, tc.want)
				}
			}
			if errs[0] == nil || errs[1] == nil {
				t.Fatalf("no error: %v as vectors, %v unrolled", errs[0], errs[1])
			}
			if errs[0].Error() != tc.want || errs[1].Error() != tc.want {
				t.Errorf("error as vectors:\n  %v\nunrolled:\n  %v\nwant:\n  %s", errs[0], errs[1], tc.want)
			}
		})
	}
}

// TestVectorErrorNamesElement: a vectorised statement outside any loop
// names the failing element, and no iteration.
func TestVectorErrorNamesElement(t *testing.T) {
	src := "data N: int\ndata x: real[N]\nparam a: real ~ Normal(0, 1)\ntarget += log(x - a)\n"
	in := data.Input{JSON: map[string]*data.Array{
		"N": {Name: "N", Values: []float64{4}},
		"x": {Name: "x", Shape: []int{4}, Values: []float64{1, 2, -3, -4}},
	}}
	m, err := compileSrcErr(t, "m.gpp", src, nil, in)
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.LogJoint([]float64{0}, make([]float64, 1))
	const want = "m.gpp:4:11: log: argument -3 < 0 (element [2])"
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
	if err != nil && strings.Contains(err.Error(), " at ") {
		t.Errorf("an iteration named outside a loop: %v", err)
	}
}

// TestMinibatchLoopErrorNoIteration: a batch build's loop over the rows
// runs over the batch, whose k-th row is not the data's: its errors name
// no iteration, where the full model's name the data's.
func TestMinibatchLoopErrorNoIteration(t *testing.T) {
	const n = 12
	src := "data N: int\ndata x: real[N]\nparam a: real ~ Normal(0, 1)\nfor i in 0:N {\n  target += log(x[i] - a)\n}\n"
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = 1
	}
	xs[7] = -1
	in := data.Input{JSON: map[string]*data.Array{
		"N": {Name: "N", Values: []float64{n}},
		"x": {Name: "x", Shape: []int{n}, Values: xs},
	}}
	m, err := compileSrcErr(t, "m.gpp", src, nil, in)
	if err != nil {
		t.Fatal(err)
	}
	x, g := []float64{0}, make([]float64, 1)
	if _, err := m.LogJoint(x, g); err == nil || !strings.HasSuffix(err.Error(), " at i = 7") {
		t.Errorf("full model: error %v, want one at i = 7", err)
	}
	bt, err := m.Minibatch("N", 4)
	if err != nil {
		t.Fatal(err)
	}
	for s := uint64(0); ; s++ {
		bt.SetBatch(s, 1)
		if rows := bt.Rows(); rows[0] == 7 || rows[1] == 7 || rows[2] == 7 {
			break // row 7 is not the batch's row 7
		}
	}
	if _, err := bt.LogJoint(x, g); err == nil || strings.Contains(err.Error(), " at i = ") {
		t.Errorf("batch: error %v, want one naming no iteration", err)
	}
}

// TestLoopCompileErrorsNameIteration: an error found when compiling a
// loop's body (an index out of range, a NaN condition, a data argument
// outside its support, a category that is not one) names the iteration it
// is found in, as a fit-time error does, the same whether the loop is
// lowered as vectors or unrolled: the unrolled loop's first failing one.
func TestLoopCompileErrorsNameIteration(t *testing.T) {
	const head = `data N: int
data x: real[N]
data z: real[N]
data k: int[N]
data X: real[N, 3]
param a: real ~ Normal(0, 1)
param s: positive ~ Exponential(1)
param u: real[3] ~ Normal(0, 1)
`
	in := iterData()
	in.JSON["k"].Int = true
	for _, tc := range []struct{ name, body, want string }{
		// k + 2 passes u's 3 elements where k is 1: rows 1, 2 and 5
		{"index", "for i in 0:N {\n  target += u[k[i] + 2]\n}",
			"m.gpp:10:15: index 3 out of range [0, 3) along axis 0 of `u` (indices are 0-based) at i = 1"},
		{"second index", "for i in 0:N {\n  for j in 0:4 {\n    target += X[i, j] * a\n  }\n}",
			"m.gpp:11:20: index 3 out of range [0, 3) along axis 1 of `X` (indices are 0-based) at i = 0, j = 3"},
		// x + z is NaN in no row; log(x) in rows 3 and 4
		{"NaN condition", "for i in 0:N {\n  if log(x[i]) > 0 {\n    target += a\n  }\n}",
			"m.gpp:10:6: `log(x[i])` is NaN with these data, which no comparison or condition can use at i = 3"},
		// inv_logit(|z| * 100) rounds to 1 in every row, which Bernoulli
		// takes (Stan's theta in [0, 1]); the branch k == 0 takes rows 0,
		// 3 and 4, where the mass of 0 is 0
		{"data argument", "for i in 0:N {\n  if k[i] == 0 {\n    k[i] ~ Bernoulli(inv_logit(abs(z[i]) * 100))\n  }\n}",
			"m.gpp:11:12: Bernoulli: log density is -Inf at value 0 (p 1) at i = 0"},
		{"data argument 0", "for i in 0:N {\n  if k[i] == 1 {\n    k[i] ~ Bernoulli(inv_logit(z[i] * 100))\n  }\n}",
			"m.gpp:11:12: Bernoulli: log density is -Inf at value 1 (p 0) at i = 1"},
		// a data argument outside even the closed [0, 1]: 1.5 in row 1
		{"data argument above 1", "for i in 0:N {\n  if k[i] == 1 {\n    k[i] ~ Binomial(1, z[i] * z[i] / 54)\n  }\n}",
			"m.gpp:11:12: Binomial: p must be in [0, 1] (got 1.5) at i = 1"},
		// category 3 * k of 3 categories: rows 1, 2 and 5
		{"category", "for i in 0:N {\n  3 * k[i] ~ CategoricalLogit(X[i] * a)\n}",
			"m.gpp:10:14: CategoricalLogit: value 3 is not a category 0..2 at i = 1"},
		// a data factor of a positive argument, checked when the model
		// compiles: x² − 1 is 0 in rows 0 and 5 (it named an element, not the
		// iteration, as vectors)
		{"positive data factor", "for i in 0:N {\n  z[i] ~ Normal(0, s * (x[i] * x[i] - 1))\n}",
			"m.gpp:10:24: `(x[i] * x[i] - 1)` is 0, not > 0: it scales a positive distribution argument, and depends on the data alone, so no fit can change it at i = 0"},
		// of a non-negative argument (Poisson's rate), 0 passes: x + 7 is 0
		// in row 3, −1 in row 4
		{"non-negative data factor", "for i in 0:N {\n  k[i] ~ Poisson(s * (x[i] + 7))\n}",
			"m.gpp:10:22: `(x[i] + 7)` is -1, not >= 0: it scales a non-negative distribution argument, and depends on the data alone, so no fit can change it at i = 4"},
		// a divisor of a non-negative argument must be > 0: x + 7 is 0 in
		// row 3 (the message named the argument's support, as a factor's)
		{"data divisor", "for i in 0:N {\n  k[i] ~ Poisson(s / (x[i] + 7))\n}",
			"m.gpp:10:22: `(x[i] + 7)` is 0, not > 0: it divides a distribution argument, and depends on the data alone, so no fit can change it at i = 3"},
		// an element of a vector per iteration past its end: the first
		{"element of a row", "for i in 0:N {\n  let v = X[i] * a\n  target += v[k[0] + 3]\n}",
			"m.gpp:11:15: index 3 out of range [0, 3) along axis 0 of `v` (indices are 0-based) at i = 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := head + tc.body + "\n"
			var errs [2]error
			for f, unroll := range []bool{false, true} {
				unrollLoops = unroll
				_, errs[f] = compileSrcErr(t, "m.gpp", src, nil, in)
				unrollLoops = false
			}
			if errs[0] == nil || errs[1] == nil {
				t.Fatalf("no error: %v as vectors, %v unrolled", errs[0], errs[1])
			}
			if errs[0].Error() != tc.want || errs[1].Error() != tc.want {
				t.Errorf("error as vectors:\n  %v\nunrolled:\n  %v\nwant:\n  %s", errs[0], errs[1], tc.want)
			}
		})
	}
}

// TestLoopCategoricalGradientRow: a Categorical of a vector per row whose
// probability at the observed category is denormal in rows 1 and 3 (its
// log's gradient 1/theta is +Inf) names the last such row, and the element
// within the row's vector, as the unrolled loop's reverse sweep does.
func TestLoopCategoricalGradientRow(t *testing.T) {
	src := `data N: int
data X: real[N, 3]
data k: int[N]
param a: real ~ Normal(0, 1)
for i in 0:N {
  k[i] ~ Categorical(softmax(X[i] * (a + 1)))
}
`
	in := data.Input{JSON: map[string]*data.Array{
		"N": {Name: "N", Values: []float64{6}},
		"k": {Name: "k", Shape: []int{6}, Values: []float64{0, 0, 0, 0, 0, 0}, Int: true},
		"X": {Name: "X", Shape: []int{6, 3}, Values: []float64{
			0, 1, 1,
			0, 720, 1, // softmax's element 0 is about e^-720, denormal
			0, 1, 1,
			0, 1, 725,
			0, 1, 1,
			0, 1, 2,
		}},
	}}
	const want = "m.gpp:6:10: Categorical: gradient is +Inf with respect to theta (value 1.36931e-315, element [0]) at i = 3"
	for _, unroll := range []bool{false, true} {
		unrollLoops = unroll
		m, err := compileSrcErr(t, "m.gpp", src, nil, in)
		unrollLoops = false
		if err != nil {
			t.Fatal(err)
		}
		x := make([]float64, m.Dim)
		if _, err := m.LogJoint(x, make([]float64, m.Dim)); err == nil || err.Error() != want {
			t.Errorf("unrolled %v: error %v, want %s", unroll, err, want)
		}
	}
}

// TestLoopRowOverflowNamed: a sum of a row's products that overflows
// (rows 1 and 3 hold 1e308) is the unrolled loop's sum's error, and a
// product that overflows names its argument order and element, whether
// the loop is lowered as vectors (a dot product as the rows' sums of
// products, a row's sum as a rowsum) or unrolled.
func TestLoopRowOverflowNamed(t *testing.T) {
	in := data.Input{JSON: map[string]*data.Array{
		"N": {Name: "N", Values: []float64{4}},
		"X": {Name: "X", Shape: []int{4, 3}, Values: []float64{
			1, 1, 1,
			1e308, 1e308, 1,
			1, 1, 1,
			1e308, 1e308, 1,
		}},
	}}
	for _, tc := range []struct{ body, want string }{
		{"target += dot_product(X[i], beta)", "m.gpp:6:13: sum: result is +Inf at i = 1"},
		{"target += sum(X[i] .* beta)", "m.gpp:6:13: sum: result is +Inf at i = 1"},
		{"target += dot_product(beta * 1e8, X[i])", "m.gpp:6:13: mul: result is +Inf (arguments 1e+08 and 1e+308, element [0]) at i = 1"},
		{"target += sum(X[i]' * B)", "m.gpp:6:23: matmul: result is +Inf (element [0, 0]) at i = 1"},
		{"target += max(X[i] .* beta * 2)", "m.gpp:6:30: mul: result is +Inf (arguments 1e+308 and 2, element [0]) at i = 1"},
	} {
		src := "data N: int\ndata X: real[N, 3]\nparam B: real[3, 2] ~ Normal(0, 1)\nparam beta: real[3] ~ Normal(0, 1)\nfor i in 0:N {\n  " + tc.body + "\n}\n"
		for _, unroll := range []bool{false, true} {
			unrollLoops = unroll
			m, err := compileSrcErr(t, "m.gpp", src, nil, in)
			unrollLoops = false
			if err != nil {
				t.Fatal(err)
			}
			x := make([]float64, m.Dim)
			for j := range x {
				x[j] = 1
			}
			if _, err := m.LogJoint(x, make([]float64, m.Dim)); err == nil || err.Error() != tc.want {
				t.Errorf("%s, unrolled %v: error %v, want %s", tc.body, unroll, err, tc.want)
			}
		}
	}
}

// TestLoopMultinomialErrorsNameRow: Y[i] ~ Multinomial(theta) over a
// loop's rows, one node over the count rows when lowered as vectors, names
// the row that fails and the element within its theta as the unrolled
// loop does: a probability that underflows to 0 at a positive count (rows
// 1 and 4) names the first such row, unless a later statement fails in an
// earlier row; one that is denormal there (its log's gradient is +Inf, row
// 2) names that row and element.
func TestLoopMultinomialErrorsNameRow(t *testing.T) {
	const head = `data N: int
data X: real[N, 3]
data Y: int<lower=0>[N, 3]
param a: real ~ Normal(0, 1)
`
	in := data.Input{JSON: map[string]*data.Array{
		"N": {Name: "N", Values: []float64{6}},
		"Y": {Name: "Y", Shape: []int{6, 3}, Int: true, Values: []float64{
			1, 0, 2,
			0, 3, 1,
			2, 2, 0,
			1, 1, 1,
			0, 0, 4,
			3, 0, 0,
		}},
		"X": {Name: "X", Shape: []int{6, 3}, Values: []float64{
			0, 0, 0,
			0, -9, 0, // theta[1] = 0 at count 3 (times 100)
			0, 1, 720, // theta[0] denormal at count 2
			0, 0, 0,
			0, 0, -9, // theta[2] = 0 at count 4
			0, 0, 0,
		}},
	}}
	for _, tc := range []struct{ name, body, want string }{
		{"value", "for i in 0:N {\n  Y[i] ~ Multinomial(softmax(X[i] * 100 * (a + 1)))\n}",
			"m.gpp:6:10: Multinomial: theta must be in (0, 1] at a category with a positive count (got 0, element [1]) at i = 1"},
		{"value, later statement", "for i in 0:N {\n  Y[i] ~ Multinomial(softmax(X[i] * 100 * (a + 1)))\n  target += log(Y[i, 1] - 0.5 + a)\n}",
			"m.gpp:7:13: log: argument -0.5 < 0 at i = 0"},
		{"gradient", "for i in 0:N {\n  Y[i] ~ Multinomial(softmax(X[i] * (a + 1)))\n}",
			"m.gpp:6:10: Multinomial: gradient is +Inf with respect to theta (value 2.03223e-313, element [0]) at i = 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, unroll := range []bool{false, true} {
				unrollLoops = unroll
				m, err := compileSrcErr(t, "m.gpp", head+tc.body+"\n", nil, in)
				unrollLoops = false
				if err != nil {
					t.Fatal(err)
				}
				x := make([]float64, m.Dim)
				if _, err := m.LogJoint(x, make([]float64, m.Dim)); err == nil || err.Error() != tc.want {
					t.Errorf("unrolled %v: error %v, want %s", unroll, err, tc.want)
				}
			}
		})
	}
}

// TestLoopMultinomialDataState: the row loop's Multinomial and
// MultinomialLogit of data counts, lowered as the rows' matrix or
// unrolled, prepare log y! per count and (log m!, m) per row once at
// Finish: 6·3 + 2·6 values.
func TestLoopMultinomialDataState(t *testing.T) {
	const src = `data N: int
data X: real[N, 3]
data Y: int<lower=0>[N, 3]
param a: real ~ Normal(0, 1)
for i in 0:N {
  Y[i] ~ %s(%s)
}
`
	in := data.Input{JSON: map[string]*data.Array{
		"N": {Name: "N", Values: []float64{6}},
		"Y": {Name: "Y", Shape: []int{6, 3}, Int: true, Values: []float64{1, 0, 2, 0, 3, 1, 2, 2, 0, 1, 1, 1, 0, 0, 4, 3, 0, 0}},
		"X": {Name: "X", Shape: []int{6, 3}, Values: []float64{0, 1, 2, 0, -1, 0, 0, 1, 1, 0, 0, 0, 2, 0, -1, 0, 0, 1}},
	}}
	for _, c := range [][2]string{{"Multinomial", "softmax(X[i] * a)"}, {"MultinomialLogit", "X[i] * a"}} {
		for _, unroll := range []bool{false, true} {
			unrollLoops = unroll
			m, err := compileSrcErr(t, "m.gpp", fmt.Sprintf(src, c[0], c[1]), nil, in)
			unrollLoops = false
			if err != nil {
				t.Fatal(err)
			}
			if got := m.prog.DataStates(); got != 6*3+2*6 {
				t.Errorf("%s (unrolled %v): %d data-state values, want %d", c[0], unroll, got, 6*3+2*6)
			}
		}
	}
}

// TestLoopDirichletErrorsNameRow: W[i] ~ Dirichlet(alpha) over a loop's
// rows, lowered as the rows' matrix, names the row and the element within
// it that fails as the unrolled loop does: alpha = exp(100·X[i])
// underflows to 0 in rows 3 (element 1), 4 and 5, where lgamma(alpha) is
// +Inf; a shared alpha that does fails in the first row, before a later
// statement's row 3.
func TestLoopDirichletErrorsNameRow(t *testing.T) {
	const head = `data N: int
data X: real[N, 3]
data Q: simplex[N, 3]
param a: real ~ Normal(0, 1)
`
	in := iterData()
	q := make([]float64, 18)
	for k := range q {
		q[k] = float64(k%3+1) / 6
	}
	in.JSON["Q"] = &data.Array{Name: "Q", Shape: []int{6, 3}, Values: q}
	for _, tc := range []struct{ name, body, want string }{
		{"per-row alpha", "for i in 0:N {\n  Q[i] ~ Dirichlet(exp(X[i] * 100 * (a + 1)))\n}",
			"m.gpp:6:10: lgamma: argument 0 is a pole (element [1]) at i = 3"},
		{"shared alpha", "for i in 0:N {\n  Q[i] ~ Dirichlet([1, 2, exp(-1000 * (a + 1))])\n  target += log(X[i, 1] + 8.5 + a)\n}",
			"m.gpp:6:10: lgamma: argument 0 is a pole (element [2]) at i = 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, unroll := range []bool{false, true} {
				unrollLoops = unroll
				m, err := compileSrcErr(t, "m.gpp", head+tc.body+"\n", nil, in)
				unrollLoops = false
				if err != nil {
					t.Fatal(err)
				}
				x := make([]float64, m.Dim)
				if _, err := m.LogJoint(x, make([]float64, m.Dim)); err == nil || err.Error() != tc.want {
					t.Errorf("unrolled %v: error %v, want %s", unroll, err, tc.want)
				}
			}
		})
	}
}
