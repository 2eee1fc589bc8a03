package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
)

// Tolerances of the ODE tests. The solver's error control bounds the local
// error of each step against abs + rel·|y|; the global error over a few
// dozen steps stays within a small multiple of it.
const (
	odeTightTol  = 1e-10 // rel and abs tolerances of the accuracy tests
	odeValueTol  = 1e-8  // values against closed forms at odeTightTol
	odeSensTol   = 1e-8  // sensitivities against closed forms at odeTightTol
	odeFDTol     = 1e-5  // sensitivities against central differences of the solve
	odeDefaultOK = 1e-5  // values against closed forms at Stan's defaults (1e-6)
)

// decayRHS is f(t, y, k) = −k·y for y [d] and a scalar k.
func decayRHS(t *testing.T, d int) *RHS {
	t.Helper()
	b := NewBuilder()
	b.Input("t", Scalar(), testPos)
	y := b.Input("y", Vector(d), testPos)
	k := b.Input("k", Scalar(), testPos)
	r, err := b.FinishRHS(b.Neg(b.Mul(k, y, testPos), testPos), testPos)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// oscillatorRHS is f(t, y, w) = (y[1], −w²·y[0]): x” = −w² x.
func oscillatorRHS(t *testing.T) *RHS {
	t.Helper()
	b := NewBuilder()
	b.Input("t", Scalar(), testPos)
	y := b.Input("y", Vector(2), testPos)
	w := b.Input("w", Scalar(), testPos)
	f := b.Stack([]ID{b.Elem(y, 1, testPos), b.Neg(b.Mul(b.Square(w, testPos), b.Elem(y, 0, testPos), testPos), testPos)}, testPos)
	r, err := b.FinishRHS(f, testPos)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// odeProgram builds sum(w .* ode(...)) with y0 and the args inputs (or
// constants where data[i]), and returns the program and the ODE node.
func odeProgram(t testing.TB, rhs *RHS, ts []float64, tol ODETol, vals [][]float64, shapes []Shape, data []bool, w []float64) (*Program, ID, []float64) {
	t.Helper()
	b := NewBuilder()
	ids, x := testOperands(b, vals, shapes, data)
	name := "ode_rk45"
	if tol.Method == ODERosW {
		name = "ode_bdf"
	}
	out := b.ODE(rhs, ids[0], 0, ts, tol, ids[1:], name, "f", testPos)
	s := b.Shape(out)
	if w == nil {
		w = make([]float64, s.Len())
		for i := range w {
			w[i] = 1
		}
	}
	p, err := b.Finish(b.Sum(b.Mul(out, b.Const(w, s, testPos), testPos), testPos), out)
	if err != nil {
		t.Fatal(err)
	}
	return p, out, x
}

// testOperands returns an operand of b for each of vals: an input, or a
// constant where data[i]; x holds the inputs' values, in order.
func testOperands(b *Builder, vals [][]float64, shapes []Shape, data []bool) (ids []ID, x []float64) {
	ids = make([]ID, len(vals))
	for i, v := range vals {
		if data[i] {
			ids[i] = b.Const(v, shapes[i], testPos)
		} else {
			ids[i] = b.Input("x", shapes[i], testPos)
			x = append(x, v...)
		}
	}
	return ids, x
}

// TestODEDecayAndOscillator checks the solutions against the closed forms
// y0·exp(−k t) and x0 cos(wt) + v0/w sin(wt), at tight tolerances and at
// Stan's defaults, and the gradient against the closed-form derivatives.
func TestODEDecayAndOscillator(t *testing.T) {
	ts := []float64{0.1, 0.5, 1, 2.5, 4, 7.25, 10}
	tight := ODETol{Rel: odeTightTol, Abs: odeTightTol}
	for _, c := range []struct {
		tol  ODETol
		vtol float64
	}{{tight, odeValueTol}, {ODETol{}, odeDefaultOK}} {
		// decay: y0 [2], k; sum of the outputs
		y0, k := []float64{1.5, -0.7}, 0.8
		p, out, x := odeProgram(t, decayRHS(t, 2), ts, c.tol, [][]float64{y0, {k}}, []Shape{Vector(2), Scalar()}, []bool{false, false}, nil)
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
				if d := math.Abs(v[i*2+j] - y0[j]*e); d > c.vtol {
					t.Errorf("decay tol %v: y[%d][%d] = %.15g, want %.15g", c.tol, i, j, v[i*2+j], y0[j]*e)
				}
				dy0[j] += e
				dk += -ti * y0[j] * e
			}
		}
		if c.tol == tight {
			for j := range y0 {
				if d := math.Abs(g[j] - dy0[j]); d > odeSensTol {
					t.Errorf("decay: ∂/∂y0[%d] = %.15g, want %.15g", j, g[j], dy0[j])
				}
			}
			if d := math.Abs(g[2] - dk); d > odeSensTol {
				t.Errorf("decay: ∂/∂k = %.15g, want %.15g", g[2], dk)
			}
		}

		// oscillator: weights pick x(t) alone
		x0, v0, om := 1.2, -0.4, 1.7
		wts := make([]float64, 2*len(ts))
		for i := range ts {
			wts[2*i] = 1
		}
		p, out, x = odeProgram(t, oscillatorRHS(t), ts, c.tol, [][]float64{{x0, v0}, {om}}, []Shape{Vector(2), Scalar()}, []bool{false, false}, wts)
		g = make([]float64, p.Dim())
		if _, err := p.LogJoint(x, g); err != nil {
			t.Fatal(err)
		}
		v = p.Value(out)
		var dx0, dv0, dw float64
		for i, ti := range ts {
			cs, sn := math.Cos(om*ti), math.Sin(om*ti)
			want := []float64{x0*cs + v0/om*sn, -x0*om*sn + v0*cs}
			for j := range want {
				if d := math.Abs(v[i*2+j] - want[j]); d > c.vtol*max(1, math.Abs(want[j])) {
					t.Errorf("oscillator tol %v: y[%d][%d] = %.15g, want %.15g", c.tol, i, j, v[i*2+j], want[j])
				}
			}
			dx0 += cs
			dv0 += sn / om
			dw += -x0*ti*sn - v0/(om*om)*sn + v0/om*ti*cs
		}
		if c.tol == tight {
			for j, want := range []float64{dx0, dv0, dw} {
				if d := math.Abs(g[j] - want); d > odeSensTol*max(1, math.Abs(want)) {
					t.Errorf("oscillator: gradient[%d] = %.15g, want %.15g", j, g[j], want)
				}
			}
		}
	}
}

// lotkaVolterraRHS is f(t, y, th) = (th0 y0 − th1 y0 y1, th3 y0 y1 − th2 y1)
// with th [4].
func lotkaVolterraRHS(t testing.TB) *RHS {
	t.Helper()
	b := NewBuilder()
	b.Input("t", Scalar(), testPos)
	y := b.Input("y", Vector(2), testPos)
	th := b.Input("theta", Vector(4), testPos)
	u, v := b.Elem(y, 0, testPos), b.Elem(y, 1, testPos)
	uv := b.Mul(u, v, testPos)
	th0, th1, th2, th3 := b.Elem(th, 0, testPos), b.Elem(th, 1, testPos), b.Elem(th, 2, testPos), b.Elem(th, 3, testPos)
	f := b.Stack([]ID{
		b.Sub(b.Mul(th0, u, testPos), b.Mul(th1, uv, testPos), testPos),
		b.Sub(b.Mul(th3, uv, testPos), b.Mul(th2, v, testPos), testPos),
	}, testPos)
	r, err := b.FinishRHS(f, testPos)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestODEGradFD checks the op's gradient, a random weighted sum of a
// Lotka–Volterra solution, against central differences of the whole
// solve (gonum/diff/fd) with y0 and theta inputs, and with each of them
// data in turn (no sensitivities for data).
func TestODEGradFD(t *testing.T) {
	ts := []float64{0.5, 1, 2, 3.5, 5, 8}
	tol := ODETol{Rel: 1e-12, Abs: 1e-12}
	rng := rand.New(rand.NewPCG(7, 11))
	w := make([]float64, 2*len(ts))
	for i := range w {
		w[i] = -1 + 2*rng.Float64()
	}
	y0, th := []float64{10, 5}, []float64{0.55, 0.028, 0.8, 0.024}
	for _, data := range [][]bool{{false, false}, {true, false}, {false, true}} {
		p, _, x := odeProgram(t, lotkaVolterraRHS(t), ts, tol, [][]float64{y0, th}, []Shape{Vector(2), Vector(4)}, data, w)
		checkGradFD(t, p, x, 1e-5, fmt.Sprintf("data %v", data))
	}
}

// checkZeroAllocsClone checks that p's value and gradient at x allocate
// nothing once warm (over runs evaluations) and that a clone of p and a
// second evaluation give the same numbers; it returns the value.
func checkZeroAllocsClone(t *testing.T, p *Program, x []float64, runs int) float64 {
	t.Helper()
	g1, g2, g3 := make([]float64, p.Dim()), make([]float64, p.Dim()), make([]float64, p.Dim())
	v1, err := p.LogJoint(x, g1)
	if err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(runs, func() { p.LogJoint(x, g2) }); a != 0 {
		t.Errorf("%v allocations per LogJoint, want 0", a)
	}
	v3, err := p.Clone().LogJoint(x, g3)
	if err != nil || v3 != v1 {
		t.Errorf("clone: %v, %v; want %v", v3, err, v1)
	}
	for i := range g1 {
		if g1[i] != g2[i] || g1[i] != g3[i] {
			t.Fatalf("gradient[%d]: %v, again %v, clone %v", i, g1[i], g2[i], g3[i])
		}
	}
	return v1
}

// checkGradFD checks p's gradient at x against central differences of
// its value with step h, to odeFDTol relative to max(1, |fd|); label
// starts each error.
func checkGradFD(t *testing.T, p *Program, x []float64, h float64, label string) {
	t.Helper()
	g := make([]float64, p.Dim())
	if _, err := p.LogJoint(x, g); err != nil {
		t.Fatal(err)
	}
	f := func(x []float64) float64 {
		v, err := p.Forward(x)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	want := fd.Gradient(nil, f, x, &fd.Settings{Formula: fd.Central, Step: h})
	for i := range want {
		if d := math.Abs(g[i] - want[i]); d > odeFDTol*max(1, math.Abs(want[i])) {
			t.Errorf("%s: grad[%d] = %.10g, fd %.10g", label, i, g[i], want[i])
		}
	}
}

// TestODEZeroAllocs checks that a steady-state value and gradient of an
// ODE allocate nothing, that a clone gives the same numbers, and that a
// data-only solve is done once, by Finish.
func TestODEZeroAllocs(t *testing.T) {
	ts := []float64{1, 2, 3, 4, 5}
	p, _, x := odeProgram(t, lotkaVolterraRHS(t), ts, ODETol{}, [][]float64{{10, 5}, {0.55, 0.028, 0.8, 0.024}}, []Shape{Vector(2), Vector(4)}, []bool{false, false}, nil)
	checkZeroAllocsClone(t, p, x, 10)

	// all data: evaluated once
	p, out, _ := odeProgram(t, decayRHS(t, 1), ts, ODETol{}, [][]float64{{2}, {0.5}}, []Shape{Vector(1), Scalar()}, []bool{true, true}, nil)
	if got, want := p.Value(out)[4], 2*math.Exp(-2.5); math.Abs(got-want) > odeDefaultOK {
		t.Errorf("data-only solve: y(5) = %v, want %v", got, want)
	}
}

// TestODEErrors checks the builder's errors and the solve's failures: the
// step limit, a solution that blows up (y' = y², from y0 = 1, at t = 1),
// and a domain error in f's body at the starting state.
func TestODEErrors(t *testing.T) {
	rhs := decayRHS(t, 1)
	for _, c := range []struct {
		ts   []float64
		want string
	}{
		{[]float64{1, 1}, "ts[1] = 1 is not > ts[0] = 1"},
		{[]float64{0}, "ts[0] = 0 is not > t0 = 0"},
		{nil, "no output times"},
	} {
		b := NewBuilder()
		y0 := b.Input("y0", Vector(1), testPos)
		k := b.Input("k", Scalar(), testPos)
		b.ODE(rhs, y0, 0, c.ts, ODETol{}, []ID{k}, "ode_rk45", "f", testPos)
		if err := b.Err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ts %v: %v, want %q", c.ts, err, c.want)
		}
	}
	b := NewBuilder()
	b.ODE(rhs, b.Input("y0", Vector(2), testPos), 0, []float64{1}, ODETol{}, []ID{b.Input("k", Scalar(), testPos)}, "ode_rk45", "f", testPos)
	if err := b.Err(); err == nil || !strings.Contains(err.Error(), "y0 is [2]") {
		t.Errorf("y0 [2]: %v", err)
	}

	solve := func(rhs *RHS, y0, k float64, ts []float64, tol ODETol) error {
		p, _, x := odeProgram(t, rhs, ts, tol, [][]float64{{y0}, {k}}, []Shape{Vector(1), Scalar()}, []bool{false, false}, nil)
		_, err := p.LogJoint(x, make([]float64, p.Dim()))
		return err
	}
	// the step limit: a fast decay over a long span
	err := solve(rhs, 1, 50, []float64{1000}, ODETol{MaxSteps: 100})
	if err == nil || !strings.Contains(err.Error(), "test.gpp:1:1: ode_rk45: max_num_steps 100 reached at t = ") {
		t.Errorf("step limit: %v", err)
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
	err = solve(sqr, 1, 1, []float64{0.5, 2}, ODETol{})
	if err == nil || !strings.Contains(err.Error(), "ode_rk45: the step size fell to") || !strings.Contains(err.Error(), "at t = 1 before ts[1] = 2") {
		t.Errorf("blow-up: %v", err)
	}
	// log of a negative k, at the start
	lg := NewBuilder()
	lg.Input("t", Scalar(), testPos)
	y = lg.Input("y", Vector(1), testPos)
	kk = lg.Input("k", Scalar(), testPos)
	bodyPos := testPos
	bodyPos.Col = 9
	lgr, err := lg.FinishRHS(lg.Mul(lg.Log(kk, bodyPos), y, testPos), testPos)
	if err != nil {
		t.Fatal(err)
	}
	err = solve(lgr, 1, -2, []float64{1}, ODETol{})
	if err == nil || !strings.HasPrefix(err.Error(), "test.gpp:1:9: log: argument -2 < 0") || !strings.Contains(err.Error(), "in the right-hand side f of ode_rk45 at test.gpp:1:1, at t = 0)") {
		t.Errorf("log(-2): %v", err)
	}
	// the right-hand side's shape
	bad := NewBuilder()
	bad.Input("t", Scalar(), testPos)
	bad.Input("y", Vector(3), testPos)
	if _, err := bad.FinishRHS(bad.Scalar(1, testPos), testPos); err == nil || !strings.Contains(err.Error(), "it must be a vector [3]") {
		t.Errorf("scalar f: %v", err)
	}
}

// TestODEClonesConcurrent evaluates clones of one ODE program at different
// points from parallel goroutines (as sgvb's workers do) and checks each
// value and gradient against the same point evaluated alone: under -race
// it also finds any solver state the clones share.
func TestODEClonesConcurrent(t *testing.T) {
	ts := []float64{0.5, 1, 2, 3.5, 5}
	p, _, _ := odeProgram(t, lotkaVolterraRHS(t), ts, ODETol{}, [][]float64{{10, 5}, {0.55, 0.028, 0.8, 0.024}}, []Shape{Vector(2), Vector(4)}, []bool{false, false}, nil)
	const workers, rounds = 4, 20
	points := make([][]float64, workers)
	wantV := make([]float64, workers)
	wantG := make([][]float64, workers)
	for w := range points {
		s := 1 + 0.05*float64(w)
		points[w] = []float64{10 * s, 5 / s, 0.55 * s, 0.028, 0.8 / s, 0.024 * s}
		wantG[w] = make([]float64, p.Dim())
		v, err := p.LogJoint(points[w], wantG[w])
		if err != nil {
			t.Fatal(err)
		}
		wantV[w] = v
	}
	clones := make([]*Program, workers)
	for w := range clones {
		clones[w] = p.Clone()
	}
	errs := make(chan error, workers)
	for w := range clones {
		go func() {
			g := make([]float64, p.Dim())
			for range rounds {
				v, err := clones[w].LogJoint(points[w], g)
				if err != nil {
					errs <- err
					return
				}
				if v != wantV[w] {
					errs <- fmt.Errorf("worker %d: value %v, alone %v", w, v, wantV[w])
					return
				}
				for i := range g {
					if g[i] != wantG[w][i] {
						errs <- fmt.Errorf("worker %d: gradient[%d] %v, alone %v", w, i, g[i], wantG[w][i])
						return
					}
				}
			}
			errs <- nil
		}()
	}
	for range clones {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestDormandPrinceTableau checks the solver's coefficients against the
// order conditions: each stage's weights sum to its node c_i; the result's
// weights b (dpA's last row) meet the quadrature conditions Σ b_i c_i^(q−1)
// = 1/q to q = 5 and Σ b_i a_ij c_j = 1/6, Σ b_i c_i a_ij c_j = 1/8,
// Σ b_i a_ij c_j² = 1/12 (order 4 and 5 trees); the embedded weights
// b̂ = b − e meet the quadrature conditions to q = 4 and Σ b̂_i a_ij c_j =
// 1/6, and Σ e = 0 (a 5(4) pair).
func TestDormandPrinceTableau(t *testing.T) {
	const tol = 1e-15
	a := func(i, j int) float64 { // stage i's weight of stage j, 0-based
		if i == 0 || j >= i {
			return 0
		}
		return dpA[i-1][j]
	}
	for i := 1; i < 7; i++ {
		s := 0.0
		for j := range i {
			s += a(i, j)
		}
		if math.Abs(s-dpC[i]) > tol {
			t.Errorf("stage %d: weights sum to %.17g, c = %.17g", i, s, dpC[i])
		}
	}
	var b, bh [7]float64
	for i := range 6 {
		b[i] = dpA[5][i]
	}
	sumE := 0.0
	for i := range b {
		bh[i] = b[i] - dpE[i]
		sumE += dpE[i]
	}
	if math.Abs(sumE) > tol {
		t.Errorf("Σ e = %g, want 0", sumE)
	}
	quad := func(w [7]float64, q int) float64 {
		s := 0.0
		for i := range w {
			s += w[i] * math.Pow(dpC[i], float64(q-1))
		}
		return s
	}
	// Σ_i w_i g(c_i) Σ_j a_ij c_j^p
	tree := func(w [7]float64, ci, p int) float64 {
		s := 0.0
		for i := range w {
			in := 0.0
			for j := range 7 {
				in += a(i, j) * math.Pow(dpC[j], float64(p))
			}
			s += w[i] * math.Pow(dpC[i], float64(ci)) * in
		}
		return s
	}
	for q := 1; q <= 5; q++ {
		if got := quad(b, q); math.Abs(got-1/float64(q)) > tol {
			t.Errorf("Σ b c^%d = %.17g, want 1/%d", q-1, got, q)
		}
		if q <= 4 {
			if got := quad(bh, q); math.Abs(got-1/float64(q)) > tol {
				t.Errorf("Σ b̂ c^%d = %.17g, want 1/%d", q-1, got, q)
			}
		}
	}
	for _, c := range []struct {
		name  string
		w     [7]float64
		ci, p int
		want  float64
	}{
		{"Σ b a c", b, 0, 1, 1.0 / 6}, {"Σ b c a c", b, 1, 1, 1.0 / 8}, {"Σ b a c²", b, 0, 2, 1.0 / 12},
		{"Σ b c² a c", b, 2, 1, 1.0 / 10}, {"Σ b a c³", b, 0, 3, 1.0 / 20}, {"Σ b c a c²", b, 1, 2, 1.0 / 15},
		{"Σ b̂ a c", bh, 0, 1, 1.0 / 6}, {"Σ b̂ c a c", bh, 1, 1, 1.0 / 8}, {"Σ b̂ a c²", bh, 0, 2, 1.0 / 12},
	} {
		if got := tree(c.w, c.ci, c.p); math.Abs(got-c.want) > tol {
			t.Errorf("%s = %.17g, want %.17g", c.name, got, c.want)
		}
	}
}
