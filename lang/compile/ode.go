package compile

import (
	"errors"
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
		rel, okr := l.odeKnown(oc.RelTol, name, "rel_tol")
		abs, oka := l.odeKnown(oc.AbsTol, name, "abs_tol")
		steps, oks := l.odeKnown(oc.MaxSteps, name, "max_num_steps")
		ok2 = okr && oka && oks
		for _, s := range []struct {
			what string
			at   ast.Expr
			v    []float64
		}{{"rel_tol", oc.RelTol, rel}, {"abs_tol", oc.AbsTol, abs}} {
			if ok2 && !(s.v[0] > 0 && s.v[0] < math.Inf(1)) {
				l.errorf(s.at.Pos(), "%s: %s is %g; it must be finite and > 0", name, s.what, s.v[0])
				ok2 = false
			}
		}
		if ok2 && !(steps[0] >= 1 && steps[0] <= math.MaxInt32) {
			l.errorf(oc.MaxSteps.Pos(), "%s: max_num_steps is %g; it must be a positive int (at most %d)", name, steps[0], math.MaxInt32)
			ok2 = false
		}
		if ok2 {
			tol.Rel, tol.Abs, tol.MaxSteps = rel[0], abs[0], int(steps[0])
		}
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
	sb := autodiff.NewBuilder()
	in := oc.Body
	l.env[in.Binds[0].Sym] = value{id: sb.Input("t", autodiff.Scalar(), pos), node: true}
	l.env[in.Binds[1].Sym] = value{id: sb.Input("y", autodiff.Vector(d), pos), node: true}
	where := fmt.Sprintf(" (in the right-hand side %s of %s at %s)", fn, name, pos)
	f, inputs, ok := l.fnBody(sb, in, 2, len(oc.Fn.Params), args, oc.Args, where)
	if !ok {
		return value{}
	}
	rhs, err := sb.FinishRHS(f, e.Args[0].Pos())
	if err != nil {
		l.subErr(err, pos, where)
		return value{}
	}
	return value{id: l.b.ODE(rhs, y0, t0[0], ts, tol, inputs, name, fn, pos), node: true}
}

// fnBody lowers the body of in, a user function expanded for an ODE or
// algebraic solver, into sb, whose inputs for the first lead parameters
// (t and y, or y) the caller has bound: each argument not known before the
// fit becomes an input of sb (inputs are their values on the model's
// tape, in order), a known one a constant there (ints stay ints, for sizes
// and indices). np is the function's parameter count; where is appended
// to the errors found in the body. It returns the body's value in sb.
func (l *lowerer) fnBody(sb *autodiff.Builder, in *check.Inline, lead, np int, args []value, argExprs []ast.Expr, where string) (autodiff.ID, []autodiff.ID, bool) {
	var inputs []autodiff.ID
	for i, v := range args {
		sym := in.Binds[lead+i].Sym
		a := argExprs[i]
		switch {
		case v.isInt && v.rows == nil:
			l.env[sym] = value{ints: v.ints, shape: v.shape, isInt: true, at: v.at, data: v.data}
		case !v.node:
			return 0, nil, false // an error was reported
		default:
			s := l.b.Shape(v.id)
			if vals, ok := l.b.Known(v.id); ok {
				l.env[sym] = value{id: sb.Const(vals, s, a.Pos()), node: true}
				continue
			}
			l.env[sym] = value{id: sb.Input(sym.Name, s, a.Pos()), node: true}
			inputs = append(inputs, v.id)
		}
	}
	nerr := len(l.errs)
	// The body's nodes are sb's: nothing of the model's build (its data
	// nodes, a loop lowered as vectors, the logpdf terms an evaluator
	// watches) may record them.
	b, vec, dataNodes, inTarget := l.b, l.vec, l.dataNodes, l.inTarget
	l.b, l.vec, l.inTarget = sb, nil, false
	for _, bind := range in.Binds[np:] {
		l.env[bind.Sym] = l.expr(bind.Value)
	}
	f := l.node(l.expr(in.Body), in.Body.Pos())
	l.b, l.vec, l.dataNodes, l.inTarget = b, vec, dataNodes, inTarget
	for _, err := range l.errs[nerr:] {
		err.Msg += where
	}
	return f, inputs, len(l.errs) == nerr
}

// subErr reports err, from finishing a function's program, with where
// appended.
func (l *lowerer) subErr(err error, pos ast.Pos, where string) {
	var list ast.ErrorList
	var one *ast.Error
	switch {
	case errors.As(err, &list):
		for _, x := range list {
			l.errorf(x.Pos, "%s%s", x.Msg, where)
		}
	case errors.As(err, &one):
		l.errorf(one.Pos, "%s%s", one.Msg, where)
	default:
		l.errorf(pos, "%s%s", err, where)
	}
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
