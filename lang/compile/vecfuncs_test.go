package compile

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// vecFuncsModel uses every vector and matrix built-in with a Stan name, as
// outputs (their values) and in the log density (their gradients).
const vecFuncsModel = `param x: real[4] ~ Normal(0, 1)
param z: real[4] ~ Normal(0, 1)
param A: real[3, 2] ~ Normal(0, 1)
param S: real[2, 2] ~ Normal(0, 1)
param B: real[3, 1] ~ Normal(0, 1)
output softmax_x = softmax(x)
output log_softmax_x = log_softmax(x)
output dot = dot_product(x, z)
output dot_row = dot_product(x', z)
output dot_x = dot_self(x)
output cross = crossprod(A)
output tcross = tcrossprod(A)
output qf = quad_form(S, x[0:2])
output qf_mat = quad_form(S, A')
output head_x = head(x, 3)
output tail_x = tail(x, 3)
output seg = segment(x, 1, 2)
output head_A = head(A, 2)
output tail_A = tail(A, 1)
output tovec = to_vector(A)
output tovec_row = to_vector(x')
output rows = append_row(x, z)
output rows_scalar = append_row(2.5, x)
output rows_after = append_row(x, S[0, 1])
output rows_mat = append_row(A, S)
output rows_vec = append_row(A[:, 0], B)
output cols = append_col(A, x[0:3])
output cols_vec = append_col(x, z)
target += sum(square(softmax(x) + 0.3)) + sum(square(log_softmax(x))) / 10 + square(dot_product(x, z))
target += dot_product(x', z) * S[0, 0] + dot_self(x) * S[1, 0] + sum(square(crossprod(A))) + sum(tcrossprod(A) .* [1, 2, 3]')
target += square(quad_form(S, x[0:2])) + sum(square(quad_form(S, A')))
target += sum(square(head(x, 3)) .* tail(z, 3)) + sum(square(segment(x, 1, 2) + 1)) + sum(head(A, 2) .* tail(A, 2))
target += sum(square(to_vector(A)) .* [1, 2, 3, 4, 5, 6]) + sum(to_vector(x') .* z)
target += sum(square(append_row(x, z)) .* [1, 2, 3, 4, 5, 6, 7, 8]) + sum(square(append_row(S[1, 1], x)) .* append_row(z, 1))
target += sum(square(append_row(A, S)) .* append_row(A, S)) + sum(square(append_col(A, x[0:3])) .* append_col(z[1:4], A))
target += sum(square(append_row(A[:, 0], B))) + sum(append_col(x, z) .* append_col(z, x) .* append_col(x, x))
`

// TestVecFuncs checks each function's value against a direct computation
// and the log density's gradient against finite differences.
func TestVecFuncs(t *testing.T) {
	m := compileSrc(t, "vec.gpp", vecFuncsModel, nil)
	if m.Dim != 21 {
		t.Fatalf("Dim = %d, want 21", m.Dim)
	}
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range [][]float64{
		{0.3, -1.2, 2.1, 0.5, 1, -0.4, 0.2, 1.3, 0.7, -0.8, 1.1, 0.4, -1.5, 0.6, 1.2, -0.3, 0.9, 2, 0.1, -0.7, 1.4},
		{700, -700, 0, 699.5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}, // softmax without overflow
	} {
		x, z, a, s := p[0:4], p[4:8], p[8:14], p[14:18]
		want := vecFuncsWant(x, z, a, s, p[18:21])
		_, outs, err := ev.Eval(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(outs) != len(want) {
			t.Fatalf("%d outputs, want %d", len(outs), len(want))
		}
		for i, w := range want {
			name := m.Outputs[i].Name
			if fmt.Sprint(m.Outputs[i].Shape) != fmt.Sprint(w.shape) {
				t.Errorf("%s has shape %v, want %v", name, m.Outputs[i].Shape, w.shape)
			}
			if len(outs[i]) != len(w.vals) {
				t.Errorf("%s = %v, want %v", name, outs[i], w.vals)
				continue
			}
			for k, v := range w.vals {
				if g := outs[i][k]; !(math.Abs(g-v) <= 1e-13*math.Max(1, math.Abs(v))) {
					t.Errorf("at %v: %s[%d] = %.17g, want %.17g", p[:4], name, k, g, v)
				}
			}
		}
	}
	checkGradient(t, m, 5, 1)
}

type vecOut struct {
	shape []int
	vals  []float64
}

// vecFuncsWant computes vecFuncsModel's outputs directly; a and s are
// row-major; bcol is B.
func vecFuncsWant(x, z, a, s, bcol []float64) []vecOut {
	mx := math.Inf(-1)
	for _, v := range x {
		mx = math.Max(mx, v)
	}
	var se float64
	for _, v := range x {
		se += math.Exp(v - mx)
	}
	lse := mx + math.Log(se)
	sm, lsm := make([]float64, 4), make([]float64, 4)
	for i, v := range x {
		sm[i], lsm[i] = math.Exp(v-lse), v-lse
	}
	var dot, dotx float64
	for i := range x {
		dot += x[i] * z[i]
		dotx += x[i] * x[i]
	}
	at := func(m []float64, cols, i, j int) float64 { return m[i*cols+j] }
	cross := make([]float64, 4) // A' A, [2, 2]
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			for k := 0; k < 3; k++ {
				cross[i*2+j] += at(a, 2, k, i) * at(a, 2, k, j)
			}
		}
	}
	tcross := make([]float64, 9) // A A', [3, 3]
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			for k := 0; k < 2; k++ {
				tcross[i*3+j] += at(a, 2, i, k) * at(a, 2, j, k)
			}
		}
	}
	var qf float64
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			qf += x[i] * at(s, 2, i, j) * x[j]
		}
	}
	qfm := make([]float64, 9) // (A')' S A' = A S A', [3, 3]
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			for k := 0; k < 2; k++ {
				for l := 0; l < 2; l++ {
					qfm[i*3+j] += at(a, 2, i, k) * at(s, 2, k, l) * at(a, 2, j, l)
				}
			}
		}
	}
	cat := func(xs ...[]float64) []float64 {
		var out []float64
		for _, x := range xs {
			out = append(out, x...)
		}
		return out
	}
	col0 := []float64{a[0], a[2], a[4]}
	cols := make([]float64, 0, 9) // [A, x[0:3]]
	colsVec := make([]float64, 0, 8)
	for i := 0; i < 3; i++ {
		cols = append(cols, a[2*i], a[2*i+1], x[i])
	}
	for i := 0; i < 4; i++ {
		colsVec = append(colsVec, x[i], z[i])
	}
	return []vecOut{
		{[]int{4}, sm},
		{[]int{4}, lsm},
		{nil, []float64{dot}},
		{nil, []float64{dot}},
		{nil, []float64{dotx}},
		{[]int{2, 2}, cross},
		{[]int{3, 3}, tcross},
		{nil, []float64{qf}},
		{[]int{3, 3}, qfm},
		{[]int{3}, x[0:3]},
		{[]int{3}, x[1:4]},
		{[]int{2}, x[1:3]},
		{[]int{2, 2}, a[0:4]},
		{[]int{1, 2}, a[4:6]},
		{[]int{6}, []float64{a[0], a[2], a[4], a[1], a[3], a[5]}},
		{[]int{4}, x},
		{[]int{8}, cat(x, z)},
		{[]int{5}, cat([]float64{2.5}, x)},
		{[]int{5}, cat(x, s[1:2])},
		{[]int{5, 2}, cat(a, s)},
		{[]int{6, 1}, cat(col0, bcol)},
		{[]int{3, 3}, cols},
		{[]int{4, 2}, colsVec},
	}
}

// TestVecFuncsInts: head, tail, segment, to_vector, append_row and
// append_col of int data stay ints known before the fit, so that they can
// index; an index out of range among them is reported where it came from.
func TestVecFuncsInts(t *testing.T) {
	in := data.Input{File: "d.json", JSON: map[string]*data.Array{
		"y": {Name: "y", Shape: []int{4}, Values: []float64{10, 11, 12, 13}},
		"k": {Name: "k", Shape: []int{4}, Values: []float64{3, 0, 2, 1}, Int: true},
		"M": {Name: "M", Shape: []int{2, 2}, Values: []float64{0, 1, 2, 3}, Int: true},
	}}
	const decls = "data y: real[N]\ndata k: int[N]\ndata M: int[2, 2]\nparam mu: real ~ Normal(0, 1)\n"
	m := compileSrc(t, "ints.gpp", decls+`output a = y[head(k, 2)]
output b = y[tail(k, 3)]
output c = y[segment(k, 1, 2)]
output d = y[to_vector(M)]
output e = y[append_row(head(k, 1), 2)]
output f = y[append_row(M, M)[3, 0]]
output g = y[append_col(k, k)[1, 1]] + mu
output h = y[to_vector(head(M, 1))]
`, nil, in)
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	_, outs, err := ev.Eval([]float64{0.5})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{{13, 10}, {10, 12, 11}, {10, 12}, {10, 12, 11, 13}, {13, 12}, {12}, {10.5}, {10, 11}}
	if fmt.Sprint(outs) != fmt.Sprint(want) {
		t.Errorf("outputs %v, want %v", outs, want)
	}
	_, err = compileSrcErr(t, "bad.gpp", decls+"output a = y[append_row(k, 4)]\n", nil, in)
	if err == nil || !strings.Contains(err.Error(), "bad.gpp:5:28: 4 is out of range [0, 4) as an index") {
		t.Errorf("error %v, want index 4 out of range at the 4", err)
	}
	_, err = compileSrcErr(t, "bad.gpp", decls+"output a = y[segment(k, 2, 3)]\n", nil, in)
	if err == nil || !strings.Contains(err.Error(), "bad.gpp:5:28: segment: 3 elements from 2 are out of range: `k` has 4") {
		t.Errorf("error %v, want the segment out of k's range at its length", err)
	}
}

// TestSoftmaxCategorical: softmax(x) is a simplex, so Categorical takes it;
// the model equals the one with CategoricalLogit(x) to rounding.
func TestSoftmaxCategorical(t *testing.T) {
	in := data.Input{File: "d.json", JSON: map[string]*data.Array{
		"y": {Name: "y", Shape: []int{5}, Values: []float64{0, 2, 1, 2, 2}, Int: true},
	}}
	const decls = "data y: int[N]\nparam x: real[3] ~ Normal(0, 2)\n"
	a := compileSrc(t, "a.gpp", decls+"y ~ Categorical(softmax(x))\n", nil, in)
	b := compileSrc(t, "b.gpp", decls+"y ~ CategoricalLogit(x)\n", nil, in)
	for _, x := range [][]float64{{0.3, -1, 2}, {40, -30, 0}} {
		g1, g2 := make([]float64, 3), make([]float64, 3)
		v1, err1 := a.LogJoint(x, g1)
		v2, err2 := b.LogJoint(x, g2)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if math.Abs(v1-v2) > 1e-12*math.Max(1, math.Abs(v2)) {
			t.Errorf("at %v: log joint %.17g, CategoricalLogit's %.17g", x, v1, v2)
		}
		for i := range g1 {
			if math.Abs(g1[i]-g2[i]) > 1e-9*math.Max(1, math.Abs(g2[i])) {
				t.Errorf("at %v: gradient %v, CategoricalLogit's %v", x, g1, g2)
				break
			}
		}
	}
	checkGradient(t, a, 7, 1)
}

// TestAppendDataCell: a data value outside a density's support, read
// through append_row or append_col, is reported at its cell in the file.
func TestAppendDataCell(t *testing.T) {
	arrays, err := data.ReadJSON("d.json", strings.NewReader(`{"a": [1, 2], "b": [3, -1]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: arrays}
	const decls = "data a: real[2]\ndata b: real[2]\nparam r: positive ~ Gamma(2, 2)\n"
	for _, like := range []string{"append_row(a, b)", "append_col(a, b)", "append_row(b', a')", "append_col(b, 2 * a)"} {
		_, err := compileSrcErr(t, "m.gpp", decls+like+" ~ Exponential(r)\n", nil, in)
		if err == nil || !strings.Contains(err.Error(), "d.json:1:24: b: value -1 is not >= 0") {
			t.Errorf("%s: error %v, want it at b[1]'s cell", like, err)
		}
	}
	// Int data are appended when the model compiles.
	arrays, err = data.ReadJSON("d.json", strings.NewReader(`{"k": [1, 2], "j": [3, -1]}`))
	if err != nil {
		t.Fatal(err)
	}
	in = data.Input{File: "d.json", JSON: arrays}
	_, err = compileSrcErr(t, "m.gpp", "data k: int[2]\ndata j: int[2]\nparam r: positive ~ Gamma(2, 2)\nappend_row(k, j) ~ Poisson(r)\n", nil, in)
	if err == nil || !strings.Contains(err.Error(), "d.json:1:24: append_row(k, j): value -1 is not") {
		t.Errorf("error %v, want it at j[1]'s cell", err)
	}
}
