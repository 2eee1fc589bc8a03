package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
)

// robertsonRHS is Robertson's chemical kinetics with the rates k [3]:
// y0' = −k0 y0 + k2 y1 y2, y1' = k0 y0 − k1 y1² − k2 y1 y2, y2' = k1 y1².
func robertsonRHS(t testing.TB) *RHS {
	t.Helper()
	b := NewBuilder()
	b.Input("t", Scalar(), testPos)
	y := b.Input("y", Vector(3), testPos)
	k := b.Input("k", Vector(3), testPos)
	y0, y1, y2 := b.Elem(y, 0, testPos), b.Elem(y, 1, testPos), b.Elem(y, 2, testPos)
	k0, k1, k2 := b.Elem(k, 0, testPos), b.Elem(k, 1, testPos), b.Elem(k, 2, testPos)
	a := b.Mul(k0, y0, testPos)
	c := b.Mul(k1, b.Square(y1, testPos), testPos)
	e := b.Mul(k2, b.Mul(y1, y2, testPos), testPos)
	f := b.Stack([]ID{b.Sub(e, a, testPos), b.Sub(b.Sub(a, c, testPos), e, testPos), c}, testPos)
	r, err := b.FinishRHS(f, testPos)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Robertson's problem with Hairer and Wanner's rates (Solving ODEs II,
// IV.1) from y(0) = (1, 0, 0), and its solution at t = 40 as they give it
// (which an rk45 solve at rel_tol 1e-13 and this solver at 1e-12 both
// reproduce within 2e-13).
var (
	robertsonK   = []float64{0.04, 3e7, 1e4}
	robertsonY40 = []float64{0.7158270687193267, 9.185534764557338e-06, 0.2841637457458968}
)

// TestODEStiffRobertson solves Robertson's problem to t = 40 with the
// stiff solver at Stan's ode_bdf defaults (1e-10) and at rel_tol 1e-6,
// abs_tol 1e-10, without sensitivities and with them (y0 and the rates
// inputs), checks y(40) against Hairer and Wanner's values and counts the
// steps against ode_rk45's at the same settings; then goes on to t = 4e5,
// where it checks that y1 + y2 + y3 stays 1 and that the two settings
// agree.
func TestODEStiffRobertson(t *testing.T) {
	ts := []float64{0.4, 4, 40}
	for _, c := range []struct {
		tol      ODETol
		relErr   float64 // of each component of y(40)
		maxSteps int
	}{
		{ODETol{Method: ODERosW}, 1e-9, 8000},
		{ODETol{Rel: 1e-6, Abs: 1e-10, Method: ODERosW}, 1e-6, 1000},
	} {
		for _, data := range [][]bool{{true, true}, {false, false}} {
			p, out, x := odeProgram(t, robertsonRHS(t), ts, c.tol, [][]float64{{1, 0, 0}, robertsonK}, []Shape{Vector(3), Vector(3)}, data, nil)
			if _, err := p.LogJoint(x, make([]float64, p.Dim())); err != nil {
				t.Fatal(err)
			}
			v, steps := p.Value(out)[6:], p.odes[0].steps
			for i, want := range robertsonY40 {
				if d := math.Abs(v[i] - want); !(d <= c.relErr*want) {
					t.Errorf("tol %v, sensitivities %v: y%d(40) = %.16g, want %.16g (relative error %.2g > %g)", c.tol, !data[1], i+1, v[i], want, d/want, c.relErr)
				}
			}
			if steps > c.maxSteps {
				t.Errorf("tol %v, sensitivities %v: %d steps, want at most %d", c.tol, !data[1], steps, c.maxSteps)
			}
			if c.tol.Rel == 1e-6 { // ode_rk45, whose step stability bounds
				rk := c.tol
				rk.Method = ODERK45
				p, _, x := odeProgram(t, robertsonRHS(t), ts, rk, [][]float64{{1, 0, 0}, robertsonK}, []Shape{Vector(3), Vector(3)}, data, nil)
				if _, err := p.LogJoint(x, make([]float64, p.Dim())); err != nil {
					t.Fatal(err)
				}
				t.Logf("sensitivities %v: %d steps, ode_rk45 %d", !data[1], steps, p.odes[0].steps)
				if p.odes[0].steps < 20*steps {
					t.Errorf("sensitivities %v: ode_rk45 took %d steps, the stiff solver %d: want 20 times as many", !data[1], p.odes[0].steps, steps)
				}
			} else {
				t.Logf("sensitivities %v: %d steps", !data[1], steps)
			}
		}
	}

	// to t = 4e5: y1 has fallen to 0.5 %
	ts = []float64{40, 4e3, 4e5}
	var ends [][]float64
	for _, c := range []struct {
		tol      ODETol
		maxSteps int
	}{{ODETol{Method: ODERosW}, 15000}, {ODETol{Rel: 1e-6, Abs: 1e-10, Method: ODERosW}, 1500}} {
		p, out, x := odeProgram(t, robertsonRHS(t), ts, c.tol, [][]float64{{1, 0, 0}, robertsonK}, []Shape{Vector(3), Vector(3)}, []bool{true, false}, nil)
		if _, err := p.LogJoint(x, make([]float64, p.Dim())); err != nil {
			t.Fatal(err)
		}
		v := p.Value(out)
		for i := range ts {
			if s := v[3*i] + v[3*i+1] + v[3*i+2]; math.Abs(s-1) > 1e-12 {
				t.Errorf("tol %v: y1 + y2 + y3 = %.16g at t = %g", c.tol, s, ts[i])
			}
		}
		t.Logf("tol %v: y(4e5) = %.10g, %d steps", c.tol, v[6:], p.odes[0].steps)
		if p.odes[0].steps > c.maxSteps {
			t.Errorf("tol %v: %d steps to 4e5, want at most %d", c.tol, p.odes[0].steps, c.maxSteps)
		}
		ends = append(ends, v[6:])
	}
	// the global error at rel_tol 1e-6 over 4e5 time units: 1.3e-6 of y1
	for i := range 3 {
		if d := math.Abs(ends[1][i] - ends[0][i]); d > 5e-6*ends[0][i] {
			t.Errorf("y%d(4e5): %.10g at 1e-6, %.10g at 1e-10", i+1, ends[1][i], ends[0][i])
		}
	}
}

// TestODEStiffLinear solves y' = −lam (y − cos t), lam = 1000, y(0) = 0,
// whose solution is lam (lam cos t + sin t)/(lam² + 1) − lam²/(lam² + 1)
// e^(−lam t), with lam an input: the values and ∂y/∂lam (of the closed
// form, by central differences) at the output times, and the steps
// against ode_rk45's.
func TestODEStiffLinear(t *testing.T) {
	b := NewBuilder()
	tt := b.Input("t", Scalar(), testPos)
	y := b.Input("y", Vector(1), testPos)
	lam := b.Input("lam", Scalar(), testPos)
	rhs, err := b.FinishRHS(b.Neg(b.Mul(lam, b.Sub(y, b.Unary(OpCos, tt, testPos), testPos), testPos), testPos), testPos)
	if err != nil {
		t.Fatal(err)
	}
	closed := func(l, t float64) float64 {
		return l*(l*math.Cos(t)+math.Sin(t))/(l*l+1) - l*l/(l*l+1)*math.Exp(-l*t)
	}
	const l = 1000.0
	ts := []float64{0.001, 0.01, 0.1, 1, 5, 10}
	steps := map[ODEMethod]int{}
	for _, m := range []ODEMethod{ODERosW, ODERK45} {
		tol := ODETol{Rel: 1e-6, Abs: 1e-6, Method: m}
		for i := range ts {
			w := make([]float64, len(ts)) // picks y(ts[i])
			w[i] = 1
			p, _, x := odeProgram(t, rhs, ts, tol, [][]float64{{0}, {l}}, []Shape{Vector(1), Scalar()}, []bool{true, false}, w)
			g := make([]float64, 1)
			v, err := p.LogJoint(x, g)
			if err != nil {
				t.Fatal(err)
			}
			want := closed(l, ts[i])
			dwant := fd.Derivative(func(l float64) float64 { return closed(l, ts[i]) }, l, &fd.Settings{Formula: fd.Central, Step: 1e-3})
			if m == ODERosW && (math.Abs(v-want) > 1e-6 || l*math.Abs(g[0]-dwant) > 1e-5) {
				t.Errorf("method %d: y(%g) = %.12g, ∂/∂lam %.8g; want %.12g, %.8g", m, ts[i], v, g[0], want, dwant)
			}
			steps[m] = p.odes[0].steps
		}
	}
	t.Logf("steps: stiff %d, rk45 %d", steps[ODERosW], steps[ODERK45])
	if steps[ODERosW] > 300 || steps[ODERK45] < 10*steps[ODERosW] {
		t.Errorf("steps: stiff %d, rk45 %d; want at most 300, and a tenth of rk45's", steps[ODERosW], steps[ODERK45])
	}
}

// TestODEStiffDecay checks the stiff solver against the closed form
// y0·exp(−k t) of the decay and its derivatives in y0 and k, at Stan's
// ode_bdf defaults.
func TestODEStiffDecay(t *testing.T) {
	ts := []float64{0.1, 0.5, 1, 2.5, 4, 7.25, 10}
	y0, k := []float64{1.5, -0.7}, 0.8
	p, out, x := odeProgram(t, decayRHS(t, 2), ts, ODETol{Method: ODERosW}, [][]float64{y0, {k}}, []Shape{Vector(2), Scalar()}, []bool{false, false}, nil)
	g := make([]float64, p.Dim())
	if _, err := p.LogJoint(x, g); err != nil {
		t.Fatal(err)
	}
	v := p.Value(out)
	var dk float64
	dy0 := make([]float64, 2)
	for i, ti := range ts {
		e := math.Exp(-k * ti)
		for j := range y0 {
			if d := math.Abs(v[i*2+j] - y0[j]*e); d > odeValueTol {
				t.Errorf("y[%d][%d] = %.15g, want %.15g", i, j, v[i*2+j], y0[j]*e)
			}
			dy0[j] += e
			dk += -ti * y0[j] * e
		}
	}
	for j := range y0 {
		if d := math.Abs(g[j] - dy0[j]); d > odeSensTol {
			t.Errorf("∂/∂y0[%d] = %.15g, want %.15g", j, g[j], dy0[j])
		}
	}
	if d := math.Abs(g[2] - dk); d > odeSensTol {
		t.Errorf("∂/∂k = %.15g, want %.15g", g[2], dk)
	}
}

// TestODEStiffGradFD checks the gradient of a random weighted sum of
// Robertson's solution in the rates (and in y0 on Lotka–Volterra's, a
// non-stiff system) against central differences of the whole solve, each
// rate's step relative to it (they span 0.04 to 3e7).
func TestODEStiffGradFD(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 17))
	ts := []float64{0.4, 4, 40}
	w := make([]float64, 3*len(ts))
	for i := range w {
		w[i] = -1 + 2*rng.Float64()
	}
	tol := ODETol{Rel: 1e-10, Abs: 1e-14, Method: ODERosW}
	p, _, x := odeProgram(t, robertsonRHS(t), ts, tol, [][]float64{{1, 0, 0}, robertsonK}, []Shape{Vector(3), Vector(3)}, []bool{true, false}, w)
	g := make([]float64, p.Dim())
	if _, err := p.LogJoint(x, g); err != nil {
		t.Fatal(err)
	}
	for i := range x {
		xi := x[i]
		want := fd.Derivative(func(s float64) float64 {
			x[i] = s
			v, err := p.Forward(x)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}, xi, &fd.Settings{Formula: fd.Central, Step: 1e-4 * xi})
		x[i] = xi
		t.Logf("∂/∂k%d = %.10g, fd %.10g (%d steps)", i+1, g[i], want, p.odes[0].steps)
		if d := math.Abs(g[i] - want); d > odeFDTol*math.Abs(want) {
			t.Errorf("∂/∂k%d = %.10g, fd %.10g", i+1, g[i], want)
		}
	}

	ts = []float64{0.5, 1, 2, 3.5, 5, 8}
	w = make([]float64, 2*len(ts))
	for i := range w {
		w[i] = -1 + 2*rng.Float64()
	}
	tol = ODETol{Rel: 1e-10, Abs: 1e-10, Method: ODERosW}
	for _, data := range [][]bool{{false, false}, {false, true}} {
		p, _, x := odeProgram(t, lotkaVolterraRHS(t), ts, tol, [][]float64{{10, 5}, {0.55, 0.028, 0.8, 0.024}}, []Shape{Vector(2), Vector(4)}, data, w)
		checkGradFD(t, p, x, 1e-4, fmt.Sprintf("Lotka–Volterra, data %v", data))
		t.Logf("Lotka–Volterra: %d steps", p.odes[0].steps)
	}
}

// orderRHS is f(t, y, th) = (−2 th0 t y0², th1 y1 (1 − y1)), from y(0) =
// (1, 0.5): y0 = 1/(1 + th0 t²), y1 = 1/(1 + exp(−th1 t)). It depends on
// t, and its Jacobian is not constant.
func orderRHS(t *testing.T) *RHS {
	t.Helper()
	b := NewBuilder()
	tt := b.Input("t", Scalar(), testPos)
	y := b.Input("y", Vector(2), testPos)
	th := b.Input("theta", Vector(2), testPos)
	y0, y1 := b.Elem(y, 0, testPos), b.Elem(y, 1, testPos)
	f0 := b.Mul(b.Mul(b.Scalar(-2, testPos), b.Elem(th, 0, testPos), testPos), b.Mul(tt, b.Square(y0, testPos), testPos), testPos)
	f1 := b.Mul(b.Elem(th, 1, testPos), b.Mul(y1, b.Sub(b.Scalar(1, testPos), y1, testPos), testPos), testPos)
	r, err := b.FinishRHS(b.Stack([]ID{f0, f1}, testPos), testPos)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRosenbrockWOrder takes fixed steps of the stiff solver to t = 1 on
// orderRHS and checks the order of convergence of y and of its
// sensitivities to theta: 3 with J_y exact, and 3 still with J_y replaced
// by J_y + E and by 0 (a W-method's order does not depend on the matrix),
// and 2 for the embedded solution.
func TestRosenbrockWOrder(t *testing.T) {
	th := []float64{0.8, 1.5}
	exact := func(tt float64) []float64 {
		e := math.Exp(-th[1] * tt)
		a := 1 + th[0]*tt*tt
		return []float64{1 / a, 1 / (1 + e), -tt * tt / (a * a), 0, 0, tt * e / ((1 + e) * (1 + e))}
	}
	p, _, x := odeProgram(t, orderRHS(t), []float64{1}, ODETol{Method: ODERosW}, [][]float64{{1, 0.5}, th}, []Shape{Vector(2), Vector(2)}, []bool{true, false}, nil)
	if _, err := p.LogJoint(x, make([]float64, p.Dim())); err != nil { // sets the args in r.x
		t.Fatal(err)
	}
	r := p.odes[0]
	// solve takes n steps, the matrix J_y + jac (nil: 0), and returns the
	// largest error of y and of S at t = 1.
	solve := func(n int, perturb []float64, zero, embedded bool) (float64, float64) {
		clear(r.z)
		r.z[0], r.z[1] = 1, 0.5
		h, tt := 1/float64(n), 0.0
		for range n {
			if err := r.rhs(tt, r.z, r.k[0], true); err != nil {
				t.Fatal(err)
			}
			copy(r.jw, r.jy)
			for i := range r.jw {
				if zero {
					r.jw[i] = 0
				} else if perturb != nil {
					r.jw[i] += perturb[i]
				}
			}
			if _, err := r.stiffStep(tt, h); err != nil {
				t.Fatal(err)
			}
			if embedded {
				for s, e := range rosW.e {
					axpy(-e, r.k[1+s], r.znew)
				}
			}
			r.z, r.znew = r.znew, r.z
			tt += h
		}
		want := exact(1)
		ey, es := 0.0, 0.0
		for i, w := range want {
			if i < 2 {
				ey = max(ey, math.Abs(r.z[i]-w))
			} else {
				es = max(es, math.Abs(r.z[i]-w))
			}
		}
		return ey, es
	}
	for _, c := range []struct {
		name     string
		perturb  []float64
		zero     bool
		embedded bool
		order    float64
	}{
		{"exact J", nil, false, false, 3},
		{"J + E", []float64{0.7, -0.3, 0.4, 1.1}, false, false, 3},
		{"J = 0", nil, true, false, 3},
		{"embedded", nil, false, true, 2},
		{"embedded, J + E", []float64{0.7, -0.3, 0.4, 1.1}, false, true, 2},
	} {
		ey1, es1 := solve(40, c.perturb, c.zero, c.embedded)
		ey2, es2 := solve(80, c.perturb, c.zero, c.embedded)
		oy, os := math.Log2(ey1/ey2), math.Log2(es1/es2)
		t.Logf("%s: errors %.3g → %.3g (order %.2f), sensitivities %.3g → %.3g (order %.2f)", c.name, ey1, ey2, oy, es1, es2, os)
		if math.Abs(oy-c.order) > rosOrderTol || math.Abs(os-c.order) > rosOrderTol {
			t.Errorf("%s: observed orders %.2f (y) and %.2f (S), want %g", c.name, oy, os, c.order)
		}
	}
}

// rosOrderTol is how far an observed order of convergence (log2 of the
// ratio of the errors at 40 and 80 steps) may be from the method's.
const rosOrderTol = 0.25

// TestODEStiffZeroAllocsAndErrors checks that a steady-state value and
// gradient with the stiff solver allocate nothing, that a clone gives the
// same numbers, and its failures: the step limit, a solution that blows
// up, and the stop flag, named as ode_bdf's.
func TestODEStiffZeroAllocsAndErrors(t *testing.T) {
	ts := []float64{0.4, 4, 40}
	p, _, x := odeProgram(t, robertsonRHS(t), ts, ODETol{Rel: 1e-6, Abs: 1e-10, Method: ODERosW}, [][]float64{{1, 0, 0}, robertsonK}, []Shape{Vector(3), Vector(3)}, []bool{false, false}, nil)
	v1, g2 := checkZeroAllocsClone(t, p, x, 5), make([]float64, p.Dim())

	solve := func(rhs *RHS, k float64, ts []float64, tol ODETol) error {
		tol.Method = ODERosW
		p, _, x := odeProgram(t, rhs, ts, tol, [][]float64{{1}, {k}}, []Shape{Vector(1), Scalar()}, []bool{false, false}, nil)
		_, err := p.LogJoint(x, make([]float64, p.Dim()))
		return err
	}
	// the step limit
	err := solve(decayRHS(t, 1), 50, []float64{1000}, ODETol{MaxSteps: 10})
	if want := "test.gpp:1:1: ode_bdf: max_num_steps 10 reached at t = "; err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "(raise max_num_steps with ode_bdf_tol, or rescale the system)") {
		t.Errorf("step limit: %v, want %q", err, want)
	}
	// blow-up: y' = k y² from 1 with k = 1 reaches ∞ at t = 1
	sq := NewBuilder()
	sq.Input("t", Scalar(), testPos)
	y := sq.Input("y", Vector(1), testPos)
	kk := sq.Input("k", Scalar(), testPos)
	sqr, err := sq.FinishRHS(sq.Mul(kk, sq.Square(y, testPos), testPos), testPos)
	if err != nil {
		t.Fatal(err)
	}
	err = solve(sqr, 1, []float64{0.5, 2}, ODETol{})
	if err == nil || !strings.Contains(err.Error(), "ode_bdf: the step size fell to") || !strings.Contains(err.Error(), "before ts[1] = 2") || !strings.Contains(err.Error(), "(it may blow up)") {
		t.Errorf("blow-up: %v", err)
	}
	// the stop flag: read before the first step, and the same solve
	// goes through once it is cleared
	var stop atomic.Bool
	stop.Store(true)
	p.SetStop(&stop)
	if _, err := p.LogJoint(x, g2); err == nil || !strings.Contains(err.Error(), "ode_bdf: interrupted at t = 0 before ts[0] = 0.4") {
		t.Errorf("stop flag set: %v", err)
	}
	stop.Store(false)
	if v, err := p.LogJoint(x, g2); err != nil || v != v1 {
		t.Errorf("stop flag cleared: %v, %v; want %v", v, err, v1)
	}
}

// pkRHS is f(t, y, ka, ke) = (−ka y0, ka y0 − ke y1): a one-compartment
// model with first-order absorption.
func pkRHS(tb testing.TB) *RHS {
	b := NewBuilder()
	b.Input("t", Scalar(), testPos)
	y := b.Input("y", Vector(2), testPos)
	ka := b.Input("ka", Scalar(), testPos)
	ke := b.Input("ke", Scalar(), testPos)
	a := b.Mul(ka, b.Elem(y, 0, testPos), testPos)
	r, err := b.FinishRHS(b.Stack([]ID{b.Neg(a, testPos), b.Sub(a, b.Mul(ke, b.Elem(y, 1, testPos), testPos), testPos)}, testPos), testPos)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// BenchmarkODEStiff times one value and gradient of a weighted sum of an
// ODE's solution with each solver, reporting its steps: Robertson's
// problem to t = 40 (stiff; sensitivities to the 3 rates), a
// pharmacokinetic model with ka = 100, ke = 0.2 to t = 24 (stiff after the
// absorption), and Lotka–Volterra (not stiff; sensitivities to y0 and the
// 4 rates), each at rel_tol 1e-6 and abs_tol 1e-10 (abs 1e-6 for the
// others) and at ode_bdf's defaults 1e-10.
func BenchmarkODEStiff(b *testing.B) {
	for _, c := range []struct {
		name   string
		rhs    *RHS
		ts     []float64
		vals   [][]float64
		shapes []Shape
		data   []bool
		abs    float64
	}{
		{"robertson", robertsonRHS(b), []float64{0.4, 4, 40}, [][]float64{{1, 0, 0}, robertsonK}, []Shape{Vector(3), Vector(3)}, []bool{true, false}, 1e-10},
		{"pk", pkRHS(b), []float64{0.05, 0.1, 0.2, 0.5, 1, 2, 4, 8, 12, 24}, [][]float64{{100, 0}, {100}, {0.2}}, []Shape{Vector(2), Scalar(), Scalar()}, []bool{true, false, false}, 1e-6},
		{"lotka-volterra", lotkaVolterraRHS(b), []float64{1, 2, 4, 8, 12, 16, 20}, [][]float64{{10, 5}, {0.55, 0.028, 0.8, 0.024}}, []Shape{Vector(2), Vector(4)}, []bool{false, false}, 1e-6},
	} {
		for _, tol := range []ODETol{{Rel: 1e-6, Abs: c.abs}, {Rel: 1e-6, Abs: c.abs, Method: ODERosW}, {Rel: 1e-10, Abs: 1e-10}, {Method: ODERosW}} {
			name := "rk45"
			if tol.Method == ODERosW {
				name = "bdf"
			}
			b.Run(fmt.Sprintf("%s/%s/rel=%g", c.name, name, tol.Rel), func(b *testing.B) {
				p, _, x := odeProgram(b, c.rhs, c.ts, tol, c.vals, c.shapes, c.data, nil)
				g := make([]float64, p.Dim())
				b.ReportAllocs()
				for b.Loop() {
					if _, err := p.LogJoint(x, g); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(p.odes[0].steps), "steps")
			})
		}
	}
}

// Messages name a stiff solve's node ode_bdf, a non-stiff one's ode_rk45
// (the op is the same): a gradient that is not finite says which call.
func TestODELabel(t *testing.T) {
	for _, c := range []struct {
		m    ODEMethod
		want string
	}{{ODERosW, "ode_bdf"}, {ODERK45, "ode_rk45"}} {
		p, _, _ := odeProgram(t, decayRHS(t, 2), []float64{1}, ODETol{Method: c.m}, [][]float64{{1, 1}, {0.5}}, []Shape{Vector(2), Scalar()}, []bool{false, false}, nil)
		found := false
		for i := range p.nodes {
			if n := &p.nodes[i]; n.op == OpODE {
				found = true
				if got := p.label(n); got != c.want {
					t.Errorf("label %q, want %q", got, c.want)
				}
			}
		}
		if !found {
			t.Fatal("no ODE node")
		}
	}
}
