package check

import (
	"fmt"
	"math"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/stdlib"
)

// Ordinary differential equations (language.md §3, *Ordinary
// differential equations*). ode_rk45(f, y0, t0, ts, args...) (or
// ode_bdf, and their _tol forms: they differ in the solver) names a user
// function f(t, y, args...), the right-hand side: the checker expands its
// body once, with t a real scalar, y a real vector of y0's length and each
// further parameter bound to its argument, and checks that it returns a
// vector as long as y. The compiler compiles that body into a program of
// its own, which the solver evaluates (autodiff.RHS).

// ODECall is a checked call of ode_rk45, ode_bdf or their _tol forms.
type ODECall struct {
	Call *ast.CallExpr
	Fn   *ast.FnDecl
	// Y0, T0 and Ts are the call's arguments; RelTol, AbsTol and MaxSteps
	// those of ode_rk45_tol or ode_bdf_tol (nil without: Stan's defaults).
	Y0, T0, Ts               ast.Expr
	RelTol, AbsTol, MaxSteps ast.Expr
	// Args are the arguments passed on to f after t and y.
	Args []ast.Expr
	// Body is f's body expanded for the call: Body.Binds[0] and [1] are
	// t and y (their Values are t0 and y0, for the analyses that follow a
	// let to what it reads; the compiler binds them to the solver's
	// inputs), then one per argument, then the local lets.
	Body *Inline
}

// odeRefused are Stan's ODE and algebraic solvers that gpp does not have
// (removed interfaces among them), each with what to write instead.
var odeRefused = map[string]string{
	"ode_adams":           "gpp has no Adams–Moulton solver (ode_adams): use ode_rk45, or ode_bdf for a stiff system",
	"ode_adams_tol":       "gpp has no Adams–Moulton solver (ode_adams_tol): use ode_rk45_tol, or ode_bdf_tol for a stiff system",
	"ode_ckrk":            "gpp has no Cash–Karp solver (ode_ckrk): use ode_rk45, or ode_bdf for a stiff system",
	"ode_ckrk_tol":        "gpp has no Cash–Karp solver (ode_ckrk_tol): use ode_rk45_tol, or ode_bdf_tol for a stiff system",
	"ode_adjoint_tol_ctl": "gpp has no adjoint ODE solver (ode_adjoint_tol_ctl): use ode_bdf_tol (or ode_rk45_tol), whose gradient is by forward sensitivities",
	"integrate_ode":       "integrate_ode is Stan's removed interface (its first name): write ode_rk45(f, y0, t0, ts, args...) with fn f(t, y, args...) returning a vector (the result is a matrix [T, D], a row per output time)",
	"integrate_ode_rk45":  "integrate_ode_rk45 is Stan's removed interface: write ode_rk45(f, y0, t0, ts, args...) with fn f(t, y, args...) returning a vector (the result is a matrix [T, D], a row per output time)",
	"integrate_ode_bdf":   "integrate_ode_bdf is Stan's removed interface: write ode_bdf(f, y0, t0, ts, args...) with fn f(t, y, args...) returning a vector (the result is a matrix [T, D], a row per output time)",
	"integrate_ode_adams": "integrate_ode_adams is Stan's removed interface: write ode_rk45(f, y0, t0, ts, args...) (or ode_bdf for a stiff system) with fn f(t, y, args...) returning a vector",
	// Stan's deprecated algebraic solvers (f(y, theta, x_r, x_i)).
	"algebra_solver":        "algebra_solver is Stan's removed interface: write solve_powell(f, y_guess, theta, x_r, x_i) with fn f(y, theta, x_r, x_i) returning a vector (the arguments after y_guess are passed on as they are, any number of any shape; its rel_tol, f_tol and max_steps go to solve_powell_tol(f, y_guess, rel_tol, f_tol, max_steps, args...))",
	"algebra_solver_newton": "algebra_solver_newton is Stan's removed interface: write solve_newton(f, y_guess, theta, x_r, x_i) with fn f(y, theta, x_r, x_i) returning a vector (the arguments after y_guess are passed on as they are, any number of any shape; its scaling_step, f_tol and max_steps go to solve_newton_tol(f, y_guess, scaling_step, f_tol, max_steps, args...))",
}

// odeCall checks a call of an ODE solver (f its table entry).
func (c *checker) odeCall(e *ast.CallExpr, f *stdlib.Func) Type {
	c.info.Calls[e] = f
	name := f.Name
	types, fd, fixed := c.solverArgs(e, f, "f(t, y, ...)", "that returns the derivative of y")
	if fd == nil {
		return invalid
	}
	y0, t0, ts := types[1], types[2], types[3]
	if !c.odeTimes(name, e.Args[3], t0) {
		return invalid
	}
	call := &ODECall{Call: e, Fn: fd.decl, Y0: e.Args[1], T0: e.Args[2], Ts: e.Args[3], Args: e.Args[fixed:]}
	if fixed == 7 {
		call.RelTol, call.AbsTol, call.MaxSteps = e.Args[4], e.Args[5], e.Args[6]
	}
	d := fd.decl
	if !c.fnArity(e, name, d, "t, y", "t and y", 2, len(call.Args)) {
		return invalid
	}
	if !fd.ok {
		return invalid
	}
	// f(t, y, args...): t a real scalar and y a real vector, values of the
	// solve that no analysis can know before the fit.
	tType := Type{Elem: Real, Support: dist.Real}
	yType := Type{Elem: Real, Shape: y0.Shape, Support: dist.Real}
	argTypes := append([]Type{tType, yType}, types[fixed:]...)
	values := append([]ast.Expr{call.T0, call.Y0}, call.Args...)
	in, body := c.expandFn(e, name, d, "right-hand side", "compare t or y only, or data", 2, argTypes, values)
	if in == nil {
		return invalid
	}
	call.Body = in
	if body.Shape.Rank() != 1 || compareDims(body.Shape[0], y0.Shape[0]) == dimDiffer {
		c.errorf(e.Args[0].Pos(), "the right-hand side %s returns %s; %s needs a vector as long as y0 %s (the derivative of each element of y)",
			d.Name.Name, body.Shape.describe(), name, y0.Shape)
		return invalid
	}
	c.info.ODEs[e] = call
	return Type{Elem: Real, Support: dist.Real, Shape: Shape{ts.Shape[0], y0.Shape[0]}, DataOnly: y0.DataOnly && t0.DataOnly && allData(types[fixed:])}
}

// rankOf is the rank of a set of one rank.
func rankOf(r stdlib.Ranks) int {
	for k := range 3 {
		if r.Has(k) {
			return k
		}
	}
	return -1
}

// odeTimes checks output times written as a vector of constants (and a
// constant t0) now: finite, increasing from t0. Others are checked when
// the model compiles with its data.
func (c *checker) odeTimes(name string, tse ast.Expr, t0 Type) bool {
	lit, isLit := ast.Unparen(tse).(*ast.VectorLit)
	if !isLit || t0.Const == nil {
		return true
	}
	prev := *t0.Const
	for i, x := range lit.Elems {
		v := c.info.Types[x].Const
		if v == nil {
			return true
		}
		if *v > prev && !math.IsInf(*v, 0) {
			prev = *v
			continue
		}
		what := fmt.Sprintf("ts[%d] = %g", i-1, prev)
		if i == 0 {
			what = fmt.Sprintf("t0 = %g", prev)
		}
		c.errorf(x.Pos(), "%s: the output times must be finite and increase from t0: ts[%d] = %g is not > %s", name, i, *v, what)
		return false
	}
	return true
}
