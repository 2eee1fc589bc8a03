package compile

import (
	"math"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// integClosedTol is the agreement of models written with integrate_1d and
// with the closed form (relative to max(1, |value|)): the quadrature is
// accurate to a few ulps on these smooth integrands.
const integClosedTol = 1e-12

// TestIntegrateModel compares a model whose upper bound and integrand's
// argument are params, with data passed on as x_r and an int as x_i, and
// one with an infinite bound, against the closed forms: log joint and
// gradient at random points, and LogJointValue against LogJoint.
func TestIntegrateModel(t *testing.T) {
	const head = `data y: positive[N]
param k: positive ~ LogNormal(0, 1)
param b: positive ~ LogNormal(0, 1)
`
	// ∫₀^b w[0]·exp(−k x) dx = w[0](1 − exp(−k b))/k; ∫₀^∞ x^n exp(−k x) = n!/k^(n+1)
	integral := head + `fn f(x, xc, k, w, n) = w[0] * exp(-k * x)
fn g(x, xc, k, w, n) = pow(x, n[0]) * exp(-k * x)
data w: positive[1]
let Ia = integrate_1d(f, 0, b, k, w, rep(0, 1))
let J = integrate_1d(g, 0, positive_infinity(), k, w, [2], 1e-10)
y ~ Exponential(Ia + J)
`
	closed := head + `data w: positive[1]
y ~ Exponential(w[0] * (1 - exp(-k * b)) / k + 2 / pow(k, 3))
`
	in := []data.Input{{File: "y.csv", Table: csvTable(t, "y.csv", "y", [][]float64{{0.5}, {1.5}, {0.2}})}, {File: "w.csv", Table: csvTable(t, "w.csv", "w", [][]float64{{1.7}})}}
	mi := compileSrc(t, "integral.gpp", integral, nil, in...)
	mc := compileSrc(t, "closed.gpp", closed, nil, in...)
	gi, gc := make([]float64, mi.Dim), make([]float64, mc.Dim)
	for _, x := range randomPoints(6, 4, mi.Dim) {
		li, err := mi.LogJoint(x, gi)
		if err != nil {
			t.Fatal(err)
		}
		lc, err := mc.LogJoint(x, gc)
		if err != nil {
			t.Fatal(err)
		}
		if v, err := mi.LogJointValue(x); err != nil || math.Float64bits(v) != math.Float64bits(li) {
			t.Errorf("at %v: LogJointValue %v (%v), LogJoint %v", x, v, err, li)
		}
		if math.Abs(li-lc) > integClosedTol*max(1, math.Abs(lc)) {
			t.Errorf("at %v: log joint %.17g with integrate_1d, %.17g closed form", x, li, lc)
		}
		for i := range gc {
			if math.Abs(gi[i]-gc[i]) > integClosedTol*max(1, math.Abs(gc[i])) {
				t.Errorf("at %v: gradient[%d] %.17g with integrate_1d, %.17g closed form", x, i, gi[i], gc[i])
			}
		}
	}
}

// TestIntegrateCompileErrors checks the errors found when the model
// compiles with its data and those of a fit: a non-finite integrand, a
// domain error in its body, an integral that does not converge, xc read on
// an infinite interval, and a data-only integral that fails when the
// model is built.
func TestIntegrateCompileErrors(t *testing.T) {
	y := data.Input{File: "y.csv", Table: csvTable(t, "y.csv", "y", [][]float64{{0.5}, {1.5}})}
	for _, c := range []struct {
		name, src, want string
	}{
		{"xc-infinite", "fn f(x, xc, k) = exp(-k * x) * xc\ndata y: real[N]\nparam k: positive ~ Gamma(2, 2)\ntarget += integrate_1d(f, 0, positive_infinity(), k)\n",
			"m.gpp:4:11: integrate_1d: the integrand f reads xc, which is NaN when a bound is infinite (as in Stan): write it in x alone"},
		{"data-only", "fn f(x, xc, k) = pow(x, -k)\ndata y: real[N]\nparam k: positive ~ Gamma(2, 2)\ntarget += k * integrate_1d(f, 0, 1, 2)\n",
			"m.gpp:1:18: pow: result is +Inf (arguments 1.19356e-167 and -2) (in the integrand f of integrate_1d at m.gpp:4:15, at x = 1.1935614092910181e-167, xc = -1.1935614092910181e-167)"},
		{"rel", "fn f(x, xc, k, a, b) = exp(-k * x)\ndata y: real[N]\nparam k: positive ~ Gamma(2, 2)\ntarget += integrate_1d(f, 0, 1, k, y, y, y[1])\n",
			"m.gpp:4:42: integrate_1d: relative_tolerance is 1.5; it must be in (0, 1)"},
	} {
		_, err := compileSrcErr(t, "m.gpp", c.src, nil, y)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}

	// at fit time: x^(−k) overflows at the nodes by 0 for k > 1 (not
	// integrable there); log(x − 0.6) is a domain error below 0.6; 1 − x is
	// 0 where x has rounded to 1 (xc is the distance); sin(k/x) oscillates
	// without end by 0
	for _, c := range []struct {
		name, body, want string
		x                float64
	}{
		{"non-finite", "pow(x, -k)", "m.gpp:1:18: pow: result is +Inf (arguments 1.19356e-167 and -2) (in the integrand f of integrate_1d at m.gpp:4:11, at x = 1.1935614092910181e-167, xc = -1.1935614092910181e-167)", math.Log(2)},
		{"domain", "k * log(x - 0.6)", "m.gpp:1:22: log: argument -0.1 < 0 (in the integrand f of integrate_1d at m.gpp:4:11, at x = 0.5, xc = 0.5)", 0},
		{"rounded", "pow(1 - x, k - 1.5)", "m.gpp:1:18: pow: 0 to the negative power -0.5 (in the integrand f of integrate_1d at m.gpp:4:11, at x = 1, xc = 2.6892457956968587e-23; x has rounded to the bound: near it, write the integrand in xc, the distance to it)", 0},
		{"converge", "sin(k / x)", "m.gpp:4:11: integrate_1d: the integral over [0, 1] did not converge to relative_tolerance 1.49e-08 in 10 levels", 0},
	} {
		src := "fn f(x, xc, k) = " + c.body + "\ndata y: real[N]\nparam k: positive ~ Gamma(2, 2)\ntarget += integrate_1d(f, 0, 1, k)\n"
		m := compileSrc(t, "m.gpp", src, nil, y)
		_, err := m.LogJoint([]float64{c.x}, make([]float64, 1))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestSubprogramDataHoisted fails if an integral or an algebraic solve of
// data alone is computed per evaluation rather than once when the model is
// built: each must be a data-only node, evaluated at most once in 5 calls.
func TestSubprogramDataHoisted(t *testing.T) {
	src := `fn f(x, xc, k) = exp(-k[0] * x)
fn g(y, c) = [y[0] * y[0] - c[0]]
data w: positive[1]
data y: real[N]
param s: positive ~ Gamma(2, 2)
let A = integrate_1d(f, 0, 1, w)
let r = solve_newton(g, [1], w)
y ~ Normal(A * r[0], s)
`
	in := []data.Input{{File: "y.csv", Table: csvTable(t, "y.csv", "y", [][]float64{{0.5}, {1.5}})}, {File: "w.csv", Table: csvTable(t, "w.csv", "w", [][]float64{{2}})}}
	m := compileSrc(t, "m.gpp", src, nil, in...)
	x, g := make([]float64, m.Dim), make([]float64, m.Dim)
	for range 5 {
		if _, err := m.LogJoint(x, g); err != nil {
			t.Fatal(err)
		}
	}
	// ∫₀¹ exp(−2x) dx and √2
	want := map[float64]bool{(1 - math.Exp(-2)) / 2: false, math.Sqrt2: false}
	for _, id := range m.dataNodes {
		if n := m.prog.Evals(id); n > 1 {
			t.Errorf("data-only node %v evaluated %d times in 5 calls, want at most once", id, n)
		}
		if m.prog.Evals(id) == 0 {
			continue // a constant, or a node folded into another
		}
		if v := m.prog.Value(id); len(v) == 1 {
			for w := range want {
				if math.Abs(v[0]-w) < 1e-12 {
					want[w] = true
				}
			}
		}
	}
	for w, seen := range want {
		if !seen {
			t.Errorf("no data-only node of value %.17g (the integral or the root)", w)
		}
	}
}
