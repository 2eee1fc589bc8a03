package check

import (
	"strings"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/stdlib"
)

// Algebraic equations (language.md §3, *Algebraic equations*).
// solve_newton(f, y_guess, args...) (or solve_powell, and their _tol
// forms) names a user function f(y, args...), the system: the checker
// expands its body once, with y a real vector of y_guess's length and each
// further parameter bound to its argument, and checks that it returns a
// vector as long as y. The compiler compiles that body into a program of
// its own, which the solver evaluates (autodiff.System), as for an ODE's
// right-hand side (ode.go).

// AlgebraCall is a checked call of solve_newton, solve_powell or their
// _tol forms.
type AlgebraCall struct {
	Call *ast.CallExpr
	Fn   *ast.FnDecl
	// Guess is y_guess; Step (scaling_step or rel_tol), FTol and MaxSteps
	// are the _tol forms' settings (nil without: Stan's defaults).
	Guess, Step, FTol, MaxSteps ast.Expr
	// Args are the arguments passed on to f after y.
	Args []ast.Expr
	// Body is f's body expanded for the call: Body.Binds[0] is y (its
	// Value y_guess), then one per argument, then the local lets.
	Body *Inline
}

// algebraCall checks a call of an algebraic solver (f its table entry).
func (c *checker) algebraCall(e *ast.CallExpr, f *stdlib.Func) Type {
	c.info.Calls[e] = f
	name := f.Name
	types, fd, fixed := c.solverArgs(e, f, "f(y, ...)", "that returns the system's value")
	if fd == nil {
		return invalid
	}
	guess := types[1]
	call := &AlgebraCall{Call: e, Fn: fd.decl, Guess: e.Args[1], Args: e.Args[fixed:]}
	if fixed == 5 {
		call.Step, call.FTol, call.MaxSteps = e.Args[2], e.Args[3], e.Args[4]
	}
	d := fd.decl
	if !c.fnArity(e, name, d, "y", "y", 1, len(call.Args)) {
		return invalid
	}
	if !fd.ok {
		return invalid
	}
	// f(y, args...): y a real vector, a value of the solve that no
	// analysis can know before the fit.
	yType := Type{Elem: Real, Shape: guess.Shape, Support: dist.Real}
	argTypes := append([]Type{yType}, types[fixed:]...)
	values := append([]ast.Expr{call.Guess}, call.Args...)
	in, body := c.expandFn(e, name, d, "system", "compare y only, or data", 1, argTypes, values)
	if in == nil {
		return invalid
	}
	call.Body = in
	if body.Shape.Rank() != 1 || compareDims(body.Shape[0], guess.Shape[0]) == dimDiffer {
		c.errorf(e.Args[0].Pos(), "the system %s returns %s; %s needs a vector as long as y_guess %s (one equation per unknown)",
			d.Name.Name, body.Shape.describe(), name, guess.Shape)
		return invalid
	}
	c.info.Algebras[e] = call
	return Type{Elem: Real, Support: dist.Real, Shape: Shape{guess.Shape[0]}, DataOnly: guess.DataOnly && allData(types[fixed:])}
}

// removedAlgebra reports a call of Stan's removed algebra_solver(f,
// y_guess, theta, x_r, x_i [, rel_tol, f_tol, max_steps]) (or
// algebra_solver_newton) with the call to write instead: f(y, theta, x_r,
// x_i) serves as it is, the arguments after y_guess being passed on.
func (c *checker) removedAlgebra(e *ast.CallExpr) Type {
	for _, a := range e.Args[1:] {
		c.expr(a)
	}
	name := "solve_powell"
	if e.Fun.Name == "algebra_solver_newton" {
		name = "solve_newton"
	}
	order := []int{0, 1, 2, 3, 4}
	if len(e.Args) == 8 {
		name += "_tol"
		order = []int{0, 1, 5, 6, 7, 2, 3, 4}
	}
	args := make([]string, len(order))
	for i, k := range order {
		args[i] = exprString(e.Args[k])
	}
	c.errorf(e.Fun.NamePos, "%s is Stan's removed interface: write %s(%s) (the system fn %s(y, theta, x_r, x_i) serves as it is: the arguments after y_guess are passed on to it)",
		e.Fun.Name, name, strings.Join(args, ", "), exprString(e.Args[0]))
	return invalid
}
