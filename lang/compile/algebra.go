package compile

import (
	"fmt"
	"math"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
	"github.com/gpplang/gpp/lang/check"
)

// algebra lowers solve_newton(f, y_guess, args...) (or solve_powell, or
// their _tol forms): f's body, expanded by the checker, is compiled once
// into a program of its own (autodiff.System) whose inputs are y and the
// arguments that are not known before the fit, as an ODE's right-hand
// side is (ode). The call is one OpAlgebraSolve node of the tape, of
// y_guess and those arguments.
func (l *lowerer) algebra(ac *check.AlgebraCall) value {
	e := ac.Call
	name, pos := e.Fun.Name, e.Fun.Pos()
	fn := ac.Fn.Name.Name
	guess := l.node(l.expr(ac.Guess), ac.Guess.Pos())
	var tol autodiff.AlgebraTol
	stepName := "scaling_step"
	if name == "solve_powell" || name == "solve_powell_tol" {
		tol.Method, stepName = autodiff.AlgebraPowell, "rel_tol"
	}
	ok := true
	if ac.Step != nil {
		step, oks := l.odeKnown(ac.Step, name, stepName)
		ftol, okf := l.odeKnown(ac.FTol, name, "f_tol")
		steps, okm := l.odeKnown(ac.MaxSteps, name, "max_steps")
		ok = oks && okf && okm
		for _, s := range []struct {
			what string
			at   ast.Expr
			v    []float64
		}{{stepName, ac.Step, step}, {"f_tol", ac.FTol, ftol}} {
			if ok && !(s.v[0] > 0 && s.v[0] < math.Inf(1)) {
				l.errorf(s.at.Pos(), "%s: %s is %g; it must be finite and > 0", name, s.what, s.v[0])
				ok = false
			}
		}
		if ok && !(steps[0] >= 1 && steps[0] <= math.MaxInt32) {
			l.errorf(ac.MaxSteps.Pos(), "%s: max_steps is %g; it must be a positive int (at most %d)", name, steps[0], math.MaxInt32)
			ok = false
		}
		if ok {
			tol.Step, tol.FTol, tol.MaxSteps = step[0], ftol[0], int(steps[0])
		}
	}
	args := make([]value, len(ac.Args))
	for i, a := range ac.Args {
		args[i] = l.expr(a)
	}
	if !ok {
		return value{}
	}
	d := l.b.Shape(guess).Len()
	if d == 0 {
		l.errorf(ac.Guess.Pos(), "%s: y_guess has no elements", name)
		return value{}
	}
	// f's program: y, then the arguments not known before the fit.
	sb := autodiff.NewBuilder()
	in := ac.Body
	l.env[in.Binds[0].Sym] = value{id: sb.Input("y", autodiff.Vector(d), pos), node: true}
	where := fmt.Sprintf(" (in the system %s of %s at %s)", fn, name, pos)
	f, inputs, ok := l.fnBody(sb, in, 1, len(ac.Fn.Params), args, ac.Args, where)
	if !ok {
		return value{}
	}
	sys, err := sb.FinishSystem(f, e.Args[0].Pos())
	if err != nil {
		l.subErr(err, pos, where)
		return value{}
	}
	return value{id: l.b.AlgebraSolve(sys, guess, tol, inputs, name, fn, pos), node: true}
}
