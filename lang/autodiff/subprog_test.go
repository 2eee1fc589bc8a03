package autodiff

import (
	"math"
	"testing"
)

// TestSubProgramArgs checks the argument checks that the ops evaluating a
// sub-program share (checkArgs), with each op's name for its function,
// and the failure of f that has no position in its body (a value not
// finite), which inBody places at the call with the call's context.
func TestSubProgramArgs(t *testing.T) {
	errOf := func(b *Builder) string {
		t.Helper()
		if err := b.Err(); err != nil {
			return err.Error()
		}
		return "<nil>"
	}
	rhs := decayRHS(t, 1)
	b := NewBuilder()
	b.ODE(rhs, b.Input("y0", Vector(1), testPos), 0, []float64{1}, ODETol{}, nil, "ode_rk45", "f", testPos)
	if got, want := errOf(b), "test.gpp:1:1: ode_rk45: 0 arguments for a right-hand side of 1"; got != want {
		t.Errorf("ODE count: %s, want %s", got, want)
	}
	b = NewBuilder()
	b.ODE(rhs, b.Input("y0", Vector(1), testPos), 0, []float64{1}, ODETol{}, []ID{b.Input("k", Vector(2), testPos)}, "ode_rk45", "f", testPos)
	if got, want := errOf(b), "test.gpp:1:1: ode_rk45: argument 1 is [2]; the right-hand side was built for scalar"; got != want {
		t.Errorf("ODE shape: %s, want %s", got, want)
	}
	b = NewBuilder()
	b.AlgebraSolve(ugSystem(t), b.Input("g", Vector(2), testPos), AlgebraTol{}, []ID{b.Input("a", Vector(2), testPos), b.Input("c", Vector(2), testPos)}, "solve_newton", "f", testPos)
	if got, want := errOf(b), "test.gpp:1:1: solve_newton: 2 arguments for a system of 1"; got != want {
		t.Errorf("system count: %s, want %s", got, want)
	}
	b = NewBuilder()
	b.AlgebraSolve(ugSystem(t), b.Input("g", Vector(2), testPos), AlgebraTol{}, []ID{b.Input("a", Vector(3), testPos)}, "solve_powell", "f", testPos)
	if got, want := errOf(b), "test.gpp:1:1: solve_powell: argument 1 is [3]; the system was built for [2]"; got != want {
		t.Errorf("system shape: %s, want %s", got, want)
	}
	in := integrandOf(t, []Shape{Scalar()}, powBody)
	b = NewBuilder()
	b.Integrate(in, Limit{X: b.Scalar(0, testPos)}, Limit{Inf: 1}, 0, nil, "f", testPos)
	if got, want := errOf(b), "test.gpp:1:1: integrate_1d: 0 arguments for an integrand of 1"; got != want {
		t.Errorf("integrand count: %s, want %s", got, want)
	}

	// f = log(y) − a at y_guess = 5e-324 (the smallest subnormal, where
	// sqrt(0)'s partial would count as 0): J_y = 1/y is +Inf, no domain error
	b = NewBuilder()
	y := b.Input("y", Vector(1), testPos)
	a := b.Input("a", Vector(1), testPos)
	dv, err := b.FinishSystem(b.Sub(b.Log(y, testPos), a, testPos), testPos)
	if err != nil {
		t.Fatal(err)
	}
	p, _, x := algProgram(t, dv, []float64{5e-324}, AlgebraTol{}, [][]float64{{1}}, []Shape{Vector(1)}, []bool{false}, []float64{0})
	_, err = p.LogJoint(x, make([]float64, p.Dim()))
	if got, want := errString(err), "test.gpp:1:1: solve_newton: ∂f[0]/∂y[0] is +Inf (in the system f of solve_newton at test.gpp:1:1, at y_guess)"; got != want {
		t.Errorf("J_y not finite: %s, want %s", got, want)
	}
	// f = y − log(a) at a = 5e-324: ∂f/∂a is −Inf
	b = NewBuilder()
	y = b.Input("y", Vector(1), testPos)
	a = b.Input("a", Vector(1), testPos)
	sa, err := b.FinishSystem(b.Sub(y, b.Log(a, testPos), testPos), testPos)
	if err != nil {
		t.Fatal(err)
	}
	p, _, x = algProgram(t, sa, []float64{1}, AlgebraTol{}, [][]float64{{5e-324}}, []Shape{Vector(1)}, []bool{false}, []float64{1})
	_, err = p.LogJoint(x, make([]float64, p.Dim()))
	if got, want := errString(err), "test.gpp:1:1: solve_newton: the derivative of f[0] in the arguments is -Inf (in the system f of solve_newton at test.gpp:1:1, at y_guess)"; got != want {
		t.Errorf("J_θ not finite: %s, want %s", got, want)
	}
	// ∂/∂a log(a)·x at a = 5e-324 is +Inf, at the first node (x = xc = 0.5)
	sq := integrandOf(t, []Shape{Scalar()}, func(b *Builder, x, xc ID, a []ID) ID { return b.Mul(b.Log(a[0], testPos), x, testPos) })
	p, x, err = integProgram(t, sq, 0, 1, [2]bool{}, 0, []float64{5e-324})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Forward(x)
	if got, want := errString(err), "test.gpp:1:1: integrate_1d: the integrand's derivative in its arguments is +Inf (in the integrand f of integrate_1d at test.gpp:1:1, at x = 0.5, xc = 0.5)"; got != want {
		t.Errorf("derivative not finite: %s, want %s", got, want)
	}
}

// TestSubProgramConstant checks a function whose value depends on no
// input (y' = 2, f(y) = y − 3 with a constant): its reverse sweeps give
// zero derivatives, the solutions y0 + 2t and 3.
func TestSubProgramConstant(t *testing.T) {
	b := NewBuilder()
	b.Input("t", Scalar(), testPos)
	b.Input("y", Vector(1), testPos)
	rhs, err := b.FinishRHS(b.Const([]float64{2}, Vector(1), testPos), testPos)
	if err != nil {
		t.Fatal(err)
	}
	p, _, x := odeProgram(t, rhs, []float64{1, 2}, ODETol{}, [][]float64{{0.5}}, []Shape{Vector(1)}, []bool{false}, nil)
	g := make([]float64, p.Dim())
	v, err := p.LogJoint(x, g)
	if err != nil || math.Abs(v-(2.5+4.5)) > 1e-12 || g[0] != 2 {
		t.Errorf("y' = 2: %g, ∂/∂y0 %v, %v; want 7, 2", v, g, err)
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
