package compile

import (
	"fmt"
	"math"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
	"github.com/gpplang/gpp/lang/check"
)

// ode lowers ode_rk45(f, y0, t0, ts, args...) (or ode_rk45_tol, or
// ode_bdf and ode_bdf_tol, the stiff solver autodiff.ODERosW): f's
// body, expanded by the checker, is compiled once into a program of its
// own (autodiff.RHS) whose inputs are t, y and the arguments that are not
// known before the fit; arguments known before the fit are constants
// there (ints stay ints, for sizes and indices), so the solver carries no
// sensitivities for them. The call is one OpODE node of the tape, of y0
// and those arguments.
func (l *lowerer) ode(oc *check.ODECall) value {
	e := oc.Call
	name, pos := e.Fun.Name, e.Fun.Pos()
	fn := oc.Fn.Name.Name
	y0 := l.node(l.expr(oc.Y0), oc.Y0.Pos())
	t0, ok0 := l.odeKnown(oc.T0, name, "t0")
	tsv := l.expr(oc.Ts)
	ts, ok1 := l.odeKnown(oc.Ts, name, "ts")
	var tol autodiff.ODETol
	if name == "ode_bdf" || name == "ode_bdf_tol" {
		tol.Method = autodiff.ODERosW
	}
	ok2 := true
	if oc.RelTol != nil {
		var t [2]float64
		t, tol.MaxSteps, ok2 = l.solverTols(name, [2]ast.Expr{oc.RelTol, oc.AbsTol}, oc.MaxSteps, [3]string{"rel_tol", "abs_tol", "max_num_steps"})
		tol.Rel, tol.Abs = t[0], t[1]
	}
	args := make([]value, len(oc.Args))
	for i, a := range oc.Args {
		args[i] = l.expr(a)
	}
	if !ok0 || !ok1 || !ok2 || !l.odeTimes(oc, name, t0[0], ts, tsv) {
		return value{}
	}
	d := l.b.Shape(y0).Len()
	if d == 0 {
		l.errorf(oc.Y0.Pos(), "%s: y0 has no elements", name)
		return value{}
	}

	// f's program: t, y, then the arguments not known before the fit.
	leads := []lead{{"t", autodiff.Scalar()}, {"y", autodiff.Vector(d)}}
	rhs, inputs, ok := fnProgram(l, e, oc.Fn, oc.Body, "right-hand side", leads, args, oc.Args, (*autodiff.Builder).FinishRHS)
	if !ok {
		return value{}
	}
	return value{id: l.b.ODE(rhs, y0, t0[0], ts, tol, inputs, name, fn, pos), node: true}
}

// solverTols returns the values of a solver's settings, arguments the
// checker found known before the fit: two tolerances (finite and > 0) and
// a count of steps (a positive int), named in errors by what.
func (l *lowerer) solverTols(name string, tols [2]ast.Expr, steps ast.Expr, what [3]string) ([2]float64, int, bool) {
	var t [2]float64
	t0, ok0 := l.odeKnown(tols[0], name, what[0])
	t1, ok1 := l.odeKnown(tols[1], name, what[1])
	n, okn := l.odeKnown(steps, name, what[2])
	if !ok0 || !ok1 || !okn {
		return t, 0, false
	}
	for k, v := range [2][]float64{t0, t1} {
		if !(v[0] > 0 && v[0] < math.Inf(1)) {
			l.errorf(tols[k].Pos(), "%s: %s is %g; it must be finite and > 0", name, what[k], v[0])
			return t, 0, false
		}
		t[k] = v[0]
	}
	if !(n[0] >= 1 && n[0] <= math.MaxInt32) {
		l.errorf(steps.Pos(), "%s: %s is %g; it must be a positive int (at most %d)", name, what[2], n[0], math.MaxInt32)
		return t, 0, false
	}
	return t, int(n[0]), true
}

// odeKnown returns the values of e, an argument of an ODE call that the
// checker found known before the fit.
func (l *lowerer) odeKnown(e ast.Expr, name, what string) ([]float64, bool) {
	v, ok := l.knownValues(l.expr(e))
	if !ok {
		l.errorf(e.Pos(), "%s: %s is not known before the fit", name, what)
		return nil, false
	}
	return v, true
}

// odeTimes checks that t0 is finite and the output times ts finite and
// increasing from t0, naming the first bad one at its data cell when it
// has one.
func (l *lowerer) odeTimes(oc *check.ODECall, name string, t0 float64, ts []float64, tsv value) bool {
	if math.IsNaN(t0) || math.IsInf(t0, 0) {
		l.errorf(oc.T0.Pos(), "%s: t0 is %g; it must be finite", name, t0)
		return false
	}
	if len(ts) == 0 {
		l.errorf(oc.Ts.Pos(), "%s: ts has no output times", name)
		return false
	}
	prev := t0
	for i, t := range ts {
		if t > prev && !math.IsInf(t, 0) {
			prev = t
			continue
		}
		what := fmt.Sprintf("ts[%d] = %g", i-1, prev)
		if i == 0 {
			what = fmt.Sprintf("t0 = %g", t0)
		}
		at, cell := oc.Ts.Pos(), ""
		if tsv.node {
			if data, p, ok := l.b.Cell(tsv.id, i); ok {
				cell = fmt.Sprintf(" (%s at %s)", data, p)
			}
		}
		l.errorf(at, "%s: the output times must be finite and increase from t0: ts[%d] = %g%s is not > %s", name, i, t, cell, what)
		return false
	}
	return true
}
