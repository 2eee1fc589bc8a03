package compile

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// loopTol bounds the relative difference of a loop lowered as vectors
// from the same loop unrolled: the terms are summed in another order.
const loopTol = 1e-12

// loopData returns n rows of synthetic data for the loop models: reals x,
// y, group ids g (< 20) and h (< 15), counts c with zeros, and a matrix X
// [n, 3].
func loopData(n int) data.Input {
	in := glmmInput(n)
	r := rand.New(rand.NewPCG(uint64(n), 11))
	c, xm := make([]float64, n), make([]float64, 3*n)
	for i := range c {
		if r.Float64() < 0.6 {
			c[i] = float64(r.IntN(5))
		}
	}
	for i := range xm {
		xm[i] = r.NormFloat64()
	}
	in.JSON["c"] = &data.Array{Name: "c", Shape: []int{n}, Values: c}
	in.JSON["X"] = &data.Array{Name: "X", Shape: []int{n, 3}, Values: xm}
	return in
}

const loopHead = `
data N: int
data G: int
data H: int
data x: real[N]
data y: real[N]
data g: int<lower=0, upper=G-1>[N]
data h: int<lower=0, upper=H-1>[N]
data c: int<lower=0>[N]
data X: real[N, 3]
param a: real ~ Normal(0, 5)
param b: real ~ Normal(0, 5)
param s: positive ~ Exponential(1)
param u: real[G] ~ Normal(0, 1)
param beta: real[3] ~ Normal(0, 1)
param theta: unit ~ Beta(1, 1)
`

// loopModels are loop bodies that are lowered as vectors.
var loopModels = []struct{ name, body string }{
	{"regression", `for i in 0:N {
    y[i] ~ Normal(a + b * x[i], s)
}`},
	// interp is elementwise in x, its table shared by the rows (fp a param)
	{"interp", `for i in 0:N {
    y[i] ~ Normal(a + interp(b * x[i], [-1.0, 0.0, 1.5], beta), s)
}`},
	{"glmm", `for i in 0:N {
    y[i] ~ Normal(a + b * x[i] + u[g[i]], s * exp(0.1 * u[h[i]]))
}`},
	{"let", `for i in 0:N {
    let mu = a + b * x[i] * x[i]
    let z = (y[i] - mu) / s
    target += -0.5 * z * z - log(s)
}`},
	{"zip", `for i in 0:N {
    let lam = exp(a + b * x[i])
    if c[i] == 0 {
        target += log(theta + (1 - theta) * exp(-lam))
    } else {
        target += log1p(-theta)
        c[i] ~ Poisson(lam)
    }
}`},
	{"elseif", `for i in 2:N {
    let mu = a + u[g[i]]
    if x[i] < -0.5 {
        y[i] ~ Normal(mu, s)
    } else if x[i] < 0.5 {
        y[i] ~ StudentT(4, mu, s)
    } else {
        y[i] ~ Cauchy(mu, s)
        target -= 0.1 * s
    }
}`},
	{"rows", `for i in 0:N {
    y[i] ~ Normal(X[i, 0] * beta[0] + X[i, 1] * beta[1] + X[i, 2] * beta[2], s)
}`},
	{"survival", `for i in 0:N {
    let lam = exp(a + b * x[i])
    if c[i] == 0 {
        target += logccdf(exp(y[i]), Weibull(s, lam))
    } else {
        exp(y[i]) ~ Weibull(s, lam)
    }
}`},
	{"dot", `for i in 0:N {
    y[i] ~ Normal(a + dot_product(X[i], beta), s)
    target += 0.01 * dot_product(beta, X[i]) * x[i]
}`},
	{"branch-lets", `for i in 0:N {
    let mu = a + b * x[i]
    if c[i] == 0 {
        let z = mu * 2
        target += -z * z
    } else {
        let w = mu - 1
        if c[i] > 2 {
            let v = w * s
            y[i] ~ Normal(v, s)
        }
        y[i] ~ Normal(w, s)
    }
    if x[i] > 0 {
        let z = mu + u[h[i]]
        y[i] ~ Normal(z, s)
    } else if x[i] > -10 {
        y[i] ~ Normal(mu, s)
    }
}`},
	{"nested", `for i in 0:N {
    let mi = a + b * x[i]
    for j in 0:3 {
        X[i, j] ~ Normal(mi + beta[j], s)
    }
}`},
	{"nested-if", `for j in 0:3 {
    for i in 0:N {
        if c[i] > 0 {
            target += logpdf(X[i, j], Normal(beta[j] * x[i], s))
        } else {
            for k in 1:3 {
                target += 0.01 * beta[k] * X[i, k] * X[i, j]
            }
        }
    }
}`},
	{"param-lhs", `for k in 0:G {
    u[k] ~ Normal(a, s)
}`},
	// lags: a row index shifted by an int constant, of data and of a
	// param (an AR(1) prior), directly and through a let
	{"lag", `for i in 1:N {
    y[i] ~ Normal(a + b * y[i - 1], s)
}`},
	{"lag-let", `for i in 2:N {
    let prev = y[i - 1]
    let mu = a + b * prev + 0.1 * x[i - 2] + 0.2 * x[i + 0]
    y[i] ~ Normal(mu, s)
}`},
	{"lag-param", `for k in 1:G {
    u[k] ~ Normal(0.5 * u[k - 1] + beta[0], s)
}`},
	{"lead", `for i in 0:N-1 {
    y[i] ~ Normal(a + b * x[1 + i] + u[g[i + 1]], s)
}`},
	// Stan's int % and %/% of the row: a weekday's effect, a week's,
	// negative operands (truncated toward 0), a circular neighbour
	{"mod", `for i in 0:N {
    y[i] ~ Normal(a + u[i % 7] + 0.1 * (i %/% 7) + b * (c[i] % 2) + u[((i - 150) % G + 20) % G] + 0.01 * ((150 - i) %/% -7), s)
}`},
	{"mod-if", `for i in 0:N {
    if i % 7 == 0 {
        y[i] ~ Normal(a, s)
    } else {
        y[i] ~ Normal(b + u[i %/% 15 % G], s)
    }
}`},
	{"mod-param", `for k in 0:G {
    u[k] ~ Normal(0.5 * u[(k + 1) % G] + beta[g[k] %/% (G %/% 3 + 1)], s)
}`},
}

// compileLoop compiles head+body with loops lowered as vectors (vec) and
// unrolled.
func compileLoop(t testing.TB, src string, in data.Input) (vec, unrolled *Model) {
	t.Helper()
	vec = compileSrc(t, "loop.gpp", src, nil, in)
	unrollLoops = true
	defer func() { unrollLoops = false }()
	unrolled = compileSrc(t, "loop.gpp", src, nil, in)
	return vec, unrolled
}

// closeRel reports whether a and b agree within tol relative to the
// larger of their magnitudes and 1.
func closeRel(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func TestLoopAsVectorsMatchesUnrolled(t *testing.T) {
	for _, m := range loopModels {
		t.Run(m.name, func(t *testing.T) {
			src := loopHead + m.body + "\n"
			vec, unr := compileLoop(t, src, loopData(300))
			if vec.prog.Len() >= unr.prog.Len()/2 {
				t.Errorf("loop not lowered as vectors: %d nodes, %d unrolled", vec.prog.Len(), unr.prog.Len())
			}
			gv, gu := make([]float64, vec.Dim), make([]float64, unr.Dim)
			for seed := range uint64(3) {
				x := randomPoint(vec, seed)
				lv, err := vec.LogJoint(x, gv)
				if err != nil {
					t.Fatal(err)
				}
				lu, err := unr.LogJoint(x, gu)
				if err != nil {
					t.Fatal(err)
				}
				if !closeRel(lv, lu, loopTol) {
					t.Errorf("seed %d: log joint %.17g as vectors, %.17g unrolled", seed, lv, lu)
				}
				for k := range gv {
					if !closeRel(gv[k], gu[k], loopTol) {
						t.Errorf("seed %d: gradient[%d] %.17g as vectors, %.17g unrolled", seed, k, gv[k], gu[k])
					}
				}
			}
		})
	}
}

// TestLoopAsVectorsNodesConstant checks that the tape of a vectorised loop
// does not grow with the loop's length.
func TestLoopAsVectorsNodesConstant(t *testing.T) {
	for _, m := range loopModels {
		src := loopHead + m.body + "\n"
		small := compileSrc(t, "loop.gpp", src, nil, loopData(40))
		large := compileSrc(t, "loop.gpp", src, nil, loopData(4000))
		if small.prog.Len() != large.prog.Len() {
			t.Errorf("%s: %d nodes at N = 40, %d at N = 4000", m.name, small.prog.Len(), large.prog.Len())
		}
	}
}

// TestLoopAsVectorsBitForBit checks that the GLMM's loop is the same tape
// as its vectorised form: the same log joint and gradient, bit for bit.
func TestLoopAsVectorsBitForBit(t *testing.T) {
	in := glmmInput(400)
	loop := compileSrc(t, "loop.gpp", glmmLoop, nil, in)
	vec := compileSrc(t, "vec.gpp", glmmVec, nil, in)
	// The loop's bounds, 0 and N, are two more nodes.
	if loop.prog.Len() != vec.prog.Len()+2 {
		t.Errorf("%d nodes in the loop form, %d in the vectorised", loop.prog.Len(), vec.prog.Len())
	}
	gl, gv := make([]float64, loop.Dim), make([]float64, vec.Dim)
	for seed := range uint64(3) {
		x := randomPoint(loop, seed)
		ll, err1 := loop.LogJoint(x, gl)
		lv, err2 := vec.LogJoint(x, gv)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if ll != lv {
			t.Errorf("seed %d: log joint %.17g as a loop, %.17g vectorised", seed, ll, lv)
		}
		for k := range gl {
			if gl[k] != gv[k] {
				t.Errorf("seed %d: gradient[%d] %.17g as a loop, %.17g vectorised", seed, k, gl[k], gv[k])
			}
		}
	}
}

// TestLoopUnrolledFallback checks that loops that are not elementwise —
// a condition on the loop variable, a nested loop, a non-elementwise
// call, an index shifted by a param-dependent or non-constant amount —
// are still unrolled (their tape grows with N) and agree with the
// unrolled build.
func TestLoopUnrolledFallback(t *testing.T) {
	for _, body := range []string{
		"for i in 1:N {\n    y[i] ~ Normal(a + b * y[i - c[i] * 0 - 1 + c[i] * 0], s)\n}",
		"for i in 1:N {\n    y[i] ~ Normal(a + b * x[i], s)\n    if i > 0 && y[i - 1] > 0 {\n        target += 0.1 * a\n    }\n}",
		// a vector per iteration where looprows.go lowers none: a slice
		// of a row, an element at an index computed from the row
		"for i in 0:N {\n    y[i] ~ Normal(prod(X[i, 0:2]), s)\n}",
		"for i in 0:N {\n    let v = X[i] .* beta\n    y[i] ~ Normal(v[c[i] - c[i]], s)\n}",
		"for i in 0:N {\n    if x[i] < 0.5 && N > 3 {\n        y[i] ~ Normal(a, s)\n    }\n}",
		"for i in 0:N {\n    for j in 0:c[i] {\n        target += 0.01 * j * a * X[i, 0]\n    }\n}",
	} {
		src := loopHead + body + "\n"
		small := compileSrc(t, "loop.gpp", src, nil, loopData(40))
		large := compileSrc(t, "loop.gpp", src, nil, loopData(400))
		if small.prog.Len() >= large.prog.Len() {
			t.Errorf("%s\nnot unrolled: %d nodes at N = 40, %d at N = 400", body, small.prog.Len(), large.prog.Len())
		}
		vec, unr := compileLoop(t, src, loopData(100))
		x := randomPoint(vec, 5)
		gv, gu := make([]float64, vec.Dim), make([]float64, unr.Dim)
		lv, err1 := vec.LogJoint(x, gv)
		lu, err2 := unr.LogJoint(x, gu)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !closeRel(lv, lu, loopTol) {
			t.Errorf("%s\nlog joint %.17g, %.17g unrolled", body, lv, lu)
		}
	}
}

// TestLoopAsVectorsErrors checks that a NaN or a bad value in some
// iteration, a gradient that is not finite, and an index out of range, are reported as the unrolled loop
// reports them: at the same position, with the same words.
func TestLoopAsVectorsErrors(t *testing.T) {
	for _, body := range []string{
		"for i in 0:N {\n    target += log(x[i] - a)\n}",
		"for i in 0:N {\n    let z = sqrt(x[i] - a)\n    y[i] ~ Normal(z, s)\n}",
		"for i in 0:N {\n    y[i] ~ Normal(a, exp(900 * b * x[i]))\n}",
		"for i in 0:N {\n    if c[i] > 0 {\n        c[i] ~ Poisson(exp(a + 9000 * b * x[i]))\n    }\n}",
		// A gradient that is not finite: log's at 5e-324 where c[i] is 0
		// (sqrt's at 0 counts as 0, TestBoundaryGradient).
		"for i in 0:N {\n    target += log(c[i] * s + 5e-324)\n}",
	} {
		src := loopHead + body + "\n"
		vec, unr := compileLoop(t, src, loopData(50))
		x := randomPoint(vec, 1)
		x[0], x[1] = 0.3, -0.5 // a, b
		_, err1 := vec.LogJoint(x, make([]float64, vec.Dim))
		_, err2 := unr.LogJoint(x, make([]float64, unr.Dim))
		if err1 == nil || err2 == nil {
			t.Fatalf("%s\nno error: %v, %v unrolled", body, err1, err2)
		}
		t.Log(err1)
		if err1.Error() != err2.Error() {
			t.Errorf("%s\nerror as vectors:\n  %v\nunrolled:\n  %v", body, err1, err2)
		}
	}
	// A gradient not finite in several rows, +Inf in some, −Inf in others
	// (found by FuzzLoopLowering): the unrolled loop's reverse sweep meets
	// the last such row first, and so must the rows'.
	srcg := fuzzLoopHead + "for i in 0:N {\n    z[i] ~ Bernoulli(inv_logit(log(c[i] * s + 5e-324)))\n}\n"
	vec, unr := compileLoop(t, srcg, fuzzLoopData(23))
	x := randomPoint(vec, 0)
	_, err1 := vec.LogJoint(x, make([]float64, vec.Dim))
	_, err2 := unr.LogJoint(x, make([]float64, unr.Dim))
	t.Log(err1)
	if err1 == nil || err2 == nil || err1.Error() != err2.Error() {
		t.Errorf("gradient not finite as vectors:\n  %v\nunrolled:\n  %v", err1, err2)
	}
	// A lag that runs off the start (x[i - 1] at i = 0) or a lead off the
	// end, of data and of a param: the unrolled loop's error, at its
	// iteration.
	for _, body := range []string{
		"for i in 0:N {\n    y[i] ~ Normal(a + b * x[i - 1], s)\n}",
		"for i in 0:N {\n    y[i] ~ Normal(a + b * x[i + 2], s)\n}",
		"for k in 0:G {\n    u[k] ~ Normal(0.5 * u[k - 1], s)\n}",
		// a row index % a divisor read from the row, 0 in some row
		"for i in 0:N {\n    y[i] ~ Normal(a + u[i % c[i]], s)\n}",
		"for i in 0:N {\n    y[i] ~ Normal(a + u[(i + 3) %/% c[i]], s)\n}",
		"for i in 0:N {\n    y[i] ~ Normal(a + u[i % 20] + u[i %/% 2], s)\n}",
	} {
		_, err1 := compileSrcErr(t, "m.gpp", loopHead+body+"\n", nil, loopData(50))
		unrollLoops = true
		_, err2 := compileSrcErr(t, "m.gpp", loopHead+body+"\n", nil, loopData(50))
		unrollLoops = false
		t.Log(err1)
		if err1 == nil || err2 == nil || err1.Error() != err2.Error() {
			t.Errorf("%s\nindex out of range as vectors:\n  %v\nunrolled:\n  %v", body, err1, err2)
		}
	}
	// A condition that is NaN in some iteration, found when compiling.
	src0 := loopHead + "for i in 0:N {\n    if log(x[i]) > 0 {\n        y[i] ~ Normal(a, s)\n    }\n}\n"
	_, err1 = compileSrcErr(t, "m.gpp", src0, nil, loopData(50))
	unrollLoops = true
	_, err2 = compileSrcErr(t, "m.gpp", src0, nil, loopData(50))
	unrollLoops = false
	t.Log(err1)
	if err1 == nil || err2 == nil || err1.Error() != err2.Error() {
		t.Errorf("NaN condition as vectors:\n  %v\nunrolled:\n  %v", err1, err2)
	}
	// A density's argument of data alone out of its support in some row
	// of a branch (found by FuzzLoopLowering): named without the
	// element, which is the branch's row, not the loop's iteration.
	src2 := fuzzLoopHead + "for i in 0:N {\n    if c[i] > 2 {\n        z[i] ~ Poisson(p[i] - 1)\n    }\n}\n"
	_, err1 = compileSrcErr(t, "m.gpp", src2, nil, fuzzLoopData(400))
	unrollLoops = true
	_, err2 = compileSrcErr(t, "m.gpp", src2, nil, fuzzLoopData(400))
	unrollLoops = false
	t.Log(err1)
	if err1 == nil || err2 == nil || err1.Error() != err2.Error() {
		t.Errorf("data argument out of support as vectors:\n  %v\nunrolled:\n  %v", err1, err2)
	}
	// Two row indices, the second out of range from j = 3 on.
	src1 := loopHead + "for i in 0:N {\n    for j in 0:4 {\n        target += X[i, j] * a\n    }\n}\n"
	_, err1 = compileSrcErr(t, "m.gpp", src1, nil, loopData(50))
	unrollLoops = true
	_, err2 = compileSrcErr(t, "m.gpp", src1, nil, loopData(50))
	unrollLoops = false
	t.Log(err1)
	if err1 == nil || err2 == nil || err1.Error() != err2.Error() {
		t.Errorf("X[i, j] out of range as vectors:\n  %v\nunrolled:\n  %v", err1, err2)
	}
	// An index out of range in iteration 7, found when compiling.
	src := "data N: int\ndata g: int[N]\nparam u: real[3] ~ Normal(0, 1)\nfor i in 0:N {\n    target += u[g[i]]\n}\n"
	gv := make([]float64, 10)
	gv[7] = 3
	in := data.Input{File: "d.json", JSON: map[string]*data.Array{
		"N": {Name: "N", Values: []float64{10}},
		"g": {Name: "g", Shape: []int{10}, Values: gv},
	}}
	_, err1 = compileSrcErr(t, "m.gpp", src, nil, in)
	unrollLoops = true
	_, err2 = compileSrcErr(t, "m.gpp", src, nil, in)
	unrollLoops = false
	t.Log(err1)
	if err1 == nil || err2 == nil || err1.Error() != err2.Error() {
		t.Errorf("index out of range as vectors:\n  %v\nunrolled:\n  %v", err1, err2)
	}
	// Stan's 1-based ids, u[g[i]]: either way the error is at the cell
	// of the first id out of range, with the advice u[g] gets.
	in.JSON["g"].Values = []float64{1, 2, 3, 1, 2, 3, 1, 2, 3, 1}
	_, err1 = compileSrcErr(t, "m.gpp", src, nil, in)
	unrollLoops = true
	_, err2 = compileSrcErr(t, "m.gpp", src, nil, in)
	unrollLoops = false
	t.Log(err1)
	if err1 == nil || err2 == nil || err1.Error() != err2.Error() ||
		!strings.Contains(err1.Error(), "3 is out of range [0, 3) as an index along axis 0 of `u` (used at m.gpp:5:17, at i = 2); indices are 0-based and these run from 1 to 3, as Stan's 1-based ids do") {
		t.Errorf("1-based ids in a loop as vectors:\n  %v\nunrolled:\n  %v", err1, err2)
	}
}
