package compile

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"gonum.org/v1/gonum/diff/fd"
)

// Tolerances of the algebraic solver model tests: the solvers polish a
// root to rounding, so a model through a solve has the log joint and
// gradient of its closed form to about 1e-13 (algClosedTol, relative to
// max(1, |value|)); central differences of step 1e-6 carry about 1e-9
// (algFDTol).
const (
	algClosedTol = 1e-10
	algFDTol     = 1e-6
)

// sqrtData are observations of sqrt(theta) = 1.5 with noise 0.3.
func sqrtData(t testing.TB) data.Input {
	rng := rand.New(rand.NewPCG(3, 3))
	rows := make([][]float64, 20)
	for i := range rows {
		rows[i] = []float64{1.5 + 0.3*rng.NormFloat64()}
	}
	return data.Input{File: "y.csv", Table: csvTable(t, "y.csv", "y_obs", rows)}
}

const sqrtHead = `data y_obs: real[N]
param theta: positive ~ LogNormal(0, 1)
param s: positive ~ LogNormal(-1, 0.5)
`

// TestAlgebraSqrtModel checks a model whose mean is the root of
// y² − θ = 0 (sqrt θ) against the same model written with sqrt: equal
// log joint and gradient, with each solver and its _tol form, the
// function in its expression and block forms (with a let and a data
// argument); and the gradient against central differences.
func TestAlgebraSqrtModel(t *testing.T) {
	in := sqrtData(t)
	mc := compileSrc(t, "closed.gpp", sqrtHead+"y_obs ~ Normal(sqrt(theta), s)\n", nil, in)
	fns := []string{
		"fn root(y, theta) = square(y) - theta\n",
		"fn root(y, theta) {\n  let y2 = y .* y\n  return y2 - theta\n}\n",
	}
	calls := []string{
		"solve_newton(root, [1], theta)",
		"solve_newton_tol(root, [1], 1e-3, 1e-8, 50, theta)",
		"solve_powell(root, [1], theta)",
		"solve_powell_tol(root, [1], 1e-12, 1e-10, 100, theta)",
		"solve_newton(root, [theta], theta)", // a param guess: no gradient through it
	}
	for _, fn := range fns {
		for _, call := range calls {
			src := sqrtHead + fn + "let r = " + call + "\ny_obs ~ Normal(r[0], s)\n"
			m := compileSrc(t, "solve.gpp", src, nil, in)
			g, gc := make([]float64, m.Dim), make([]float64, mc.Dim)
			for _, x := range randomPoints(4, 4, m.Dim) {
				l, err := m.LogJoint(x, g)
				if err != nil {
					t.Fatalf("%s: %v", call, err)
				}
				lc, _ := mc.LogJoint(x, gc)
				if math.Abs(l-lc) > algClosedTol*max(1, math.Abs(lc)) {
					t.Errorf("%s at %v: log joint %.15g, sqrt %.15g", call, x, l, lc)
				}
				for i := range g {
					if math.Abs(g[i]-gc[i]) > algClosedTol*max(1, math.Abs(gc[i])) {
						t.Errorf("%s at %v: gradient[%d] %.15g, sqrt %.15g", call, x, i, g[i], gc[i])
					}
				}
				want := fd.Gradient(nil, func(x []float64) float64 {
					v, err := m.LogJointValue(x)
					if err != nil {
						t.Fatal(err)
					}
					return v
				}, x, &fd.Settings{Formula: fd.Central, Step: 1e-6})
				for i := range want {
					if math.Abs(g[i]-want[i]) > algFDTol*max(1, math.Abs(want[i])) {
						t.Errorf("%s at %v: gradient[%d] %.12g, central differences %.12g", call, x, i, g[i], want[i])
					}
				}
			}
		}
	}
}

// TestAlgebraUsersGuide is the Stan user's guide's system, y0 − θ0 and
// y0·y1 − θ1 with θ a param, passed a data vector and an int it ignores
// (Stan's x_r and x_i): root (θ0, θ1/θ0), against the closed form; a
// solve in a loop against the loop unrolled; zero allocations.
func TestAlgebraUsersGuide(t *testing.T) {
	const head = `fn system(y, theta, x_r, x_i) = [y[0] - theta[0], y[0] * y[1] - theta[1] + 0 * x_r[x_i]]
data x_r: real[2]
param theta: positive[2] ~ LogNormal(0, 1)
param mu: real[2] ~ Normal(0, 1)
`
	solved := head + "let ys = solve_powell(system, [1, 1], theta, x_r, 1)\nmu ~ Normal(ys, 1)\n"
	closed := head + "mu ~ Normal([theta[0], theta[1] / theta[0]], 1)\n"
	in := data.Input{File: "x.csv", Table: csvTable(t, "x.csv", "x_r", [][]float64{{1}, {2}})}
	ms := compileSrc(t, "ug.gpp", solved, nil, in)
	mc := compileSrc(t, "closed.gpp", closed, nil, in)
	g, gc := make([]float64, ms.Dim), make([]float64, mc.Dim)
	for _, x := range randomPoints(6, 4, ms.Dim) {
		l, err := ms.LogJoint(x, g)
		if err != nil {
			t.Fatal(err)
		}
		lc, _ := mc.LogJoint(x, gc)
		if math.Abs(l-lc) > algClosedTol*max(1, math.Abs(lc)) {
			t.Errorf("at %v: log joint %.15g, closed form %.15g", x, l, lc)
		}
		for i := range g {
			if math.Abs(g[i]-gc[i]) > algClosedTol*max(1, math.Abs(gc[i])) {
				t.Errorf("at %v: gradient[%d] %.15g, closed form %.15g", x, i, g[i], gc[i])
			}
		}
	}
	x := randomPoints(6, 1, ms.Dim)[0]
	if a := testing.AllocsPerRun(10, func() { ms.LogJoint(x, g) }); a != 0 {
		t.Errorf("%v allocations per LogJoint, want 0", a)
	}

	const lhead = `fn system(y, theta) = [y[0] - theta[0], y[0] * y[1] - theta[1]]
param theta: positive[2, 2] ~ LogNormal(0, 1)
param mu: real[2, 2] ~ Normal(0, 1)
`
	loop := lhead + "for i in 0:2 {\n  mu[i] ~ Normal(solve_newton(system, [1, 1], theta[i]), 1)\n}\n"
	unrolled := lhead + "mu[0] ~ Normal(solve_newton(system, [1, 1], theta[0]), 1)\nmu[1] ~ Normal(solve_newton(system, [1, 1], theta[1]), 1)\n"
	ml := compileSrc(t, "loop.gpp", loop, nil)
	mu := compileSrc(t, "unrolled.gpp", unrolled, nil)
	sameAsUnrolled(t, ml, mu, randomPoints(7, 3, ml.Dim))
}

// TestAlgebraCompileErrors checks the settings' errors found when the
// model compiles, and the fit-time failures: the step limit and a domain
// error in f's body, each at its position with the call named.
func TestAlgebraCompileErrors(t *testing.T) {
	const fn = "fn f(y, k) = square(y) - k\nparam k: positive ~ Gamma(2, 2)\n"
	for _, c := range []struct{ name, src, want string }{
		{"scaling-step", fn + "let y = solve_newton_tol(f, [1], 0, 1e-6, 100, k)\ntarget += sum(y)\n",
			"m.gpp:3:34: solve_newton_tol: scaling_step is 0; it must be finite and > 0"},
		{"rel-tol", fn + "let y = solve_powell_tol(f, [1], -1, 1e-6, 100, k)\ntarget += sum(y)\n",
			"m.gpp:3:34: solve_powell_tol: rel_tol is -1; it must be finite and > 0"},
		{"f-tol", fn + "let y = solve_powell_tol(f, [1], 1e-10, 0, 100, k)\ntarget += sum(y)\n",
			"m.gpp:3:41: solve_powell_tol: f_tol is 0; it must be finite and > 0"},
		{"max-steps", fn + "let y = solve_newton_tol(f, [1], 1e-3, 1e-6, 0, k)\ntarget += sum(y)\n",
			"m.gpp:3:46: solve_newton_tol: max_steps is 0; it must be a positive int (at most 2147483647)"},
	} {
		_, err := compileSrcErr(t, "m.gpp", c.src, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	// too few steps at fit time: y² = k from 1 with k = 1e6
	m := compileSrc(t, "m.gpp", fn+"let y = solve_newton_tol(f, [1], 1e-3, 1e-6, 3, k)\ntarget += sum(y)\n", nil)
	_, err := m.LogJoint([]float64{math.Log(1e6)}, make([]float64, 1))
	want := "m.gpp:3:9: solve_newton_tol: max_steps 3 reached without a root of f: ‖f‖∞ = "
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "more steps with solve_newton_tol(f, y_guess, scaling_step, f_tol, max_steps, ...)") {
		t.Errorf("step limit: %v, want %q", err, want)
	}
	m = compileSrc(t, "m.gpp", fn+"let y = solve_powell_tol(f, [1], 1e-10, 1e-6, 3, k)\ntarget += sum(y)\n", nil)
	_, err = m.LogJoint([]float64{math.Log(1e6)}, make([]float64, 1))
	if want := "m.gpp:3:9: solve_powell_tol: max_steps 3 reached"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("powell step limit: %v, want %q", err, want)
	}
	// a domain error in f's body at the guess
	m = compileSrc(t, "m.gpp", "fn f(y, k) = log(k) - y\nparam k: real ~ Normal(0, 1)\nlet y = solve_powell(f, [1], k)\ntarget += sum(y)\n", nil)
	_, err = m.LogJoint([]float64{-2}, make([]float64, 1))
	want = "m.gpp:1:14: log: argument -2 < 0 (in the system f of solve_powell at m.gpp:3:9, at y_guess)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("log(-2) in f: %v, want %q", err, want)
	}
}

// TestAlgebraKinetics is the steady state of a chain of reactions: A
// made at k_in and turned into B at the saturating rate k0·A/(1 + A), B
// into C at k1·B², C removed at k2·C. Its root, A = r/(1 − r) with
// r = k_in/k0, B = sqrt(k_in/k1), C = k_in/k2, is far from the guess
// when r nears 1 or k2 is small; both solvers against the closed form, in
// value and gradient, over rates that span e±8.
func TestAlgebraKinetics(t *testing.T) {
	const head = `fn chain(y, k_in, k) {
  let v0 = k[0] * y[0] / (1 + y[0])
  let v1 = k[1] * square(y[1])
  return [k_in - v0, v0 - v1, v1 - k[2] * y[2]]
}
const k_in = 1.5
param d: positive ~ LogNormal(-1, 1)
param k12: positive[2] ~ LogNormal(0, 1)
param mu: real[3] ~ Normal(0, 1)
let k = [k_in * (1 + d), k12[0], k12[1]]
`
	mc := compileSrc(t, "closed.gpp", head+"mu ~ Normal([1 / d, sqrt(k_in / k[1]), k_in / k[2]], 1)\n", nil)
	gc := make([]float64, mc.Dim)
	for _, call := range []string{"solve_newton(chain, [1, 1, 1], k_in, k)", "solve_powell(chain, [1, 1, 1], k_in, k)"} {
		m := compileSrc(t, "chain.gpp", head+"mu ~ Normal("+call+", 1)\n", nil)
		g := make([]float64, m.Dim)
		pts := randomPoints(8, 4, m.Dim)
		// a grid of log d, log k1 and log k2 over ±8: A = 1/d and C up
		// to e⁸ from the guess 1
		for _, a := range []float64{-8, -4, 0, 4, 8} {
			for _, b := range []float64{-8, 0, 8} {
				for _, c := range []float64{-8, 0, 8} {
					pts = append(pts, []float64{a, b, c, 0.5, -0.5, 1})
				}
			}
		}
		for _, x := range pts {
			l, err := m.LogJoint(x, g)
			if err != nil {
				t.Fatalf("%s at %v: %v", call, x, err)
			}
			lc, _ := mc.LogJoint(x, gc)
			if math.Abs(l-lc) > algClosedTol*max(1, math.Abs(lc)) {
				t.Errorf("%s at %v: log joint %.15g, closed form %.15g", call, x, l, lc)
			}
			// normwise: the adjoint of C = k_in/k2 (up to e⁸) flows through
			// the linear solve J_yᵀ λ = ȳ into every component, so each
			// carries its rounding, relative to the largest
			scale := 1.0
			for _, v := range gc {
				scale = max(scale, math.Abs(v))
			}
			for i := range g {
				if math.Abs(g[i]-gc[i]) > algClosedTol*scale {
					t.Errorf("%s at %v: gradient[%d] %.15g, closed form %.15g", call, x, i, g[i], gc[i])
				}
			}
		}
	}
}
