package compile

import (
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
		var t [2]float64
		t, tol.MaxSteps, ok = l.solverTols(name, [2]ast.Expr{ac.Step, ac.FTol}, ac.MaxSteps, [3]string{stepName, "f_tol", "max_steps"})
		tol.Step, tol.FTol = t[0], t[1]
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
	leads := []lead{{"y", autodiff.Vector(d)}}
	sys, inputs, ok := fnProgram(l, e, ac.Fn, ac.Body, "system", leads, args, ac.Args, (*autodiff.Builder).FinishSystem)
	if !ok {
		return value{}
	}
	return value{id: l.b.AlgebraSolve(sys, guess, tol, inputs, name, fn, pos), node: true}
}
