package check

import (
	"math"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/stdlib"
)

// One-dimensional integrals (language.md §3, *One-dimensional
// integrals*). integrate_1d(f, a, b, theta, x_r, x_i) (Stan's, with an
// optional relative_tolerance after x_i) names a user function f(x, xc,
// theta, x_r, x_i), the integrand: the checker expands its body once, with
// x and xc real scalars (x's range that of [a, b]) and the further
// parameters bound to the call's arguments, and checks that it returns a
// scalar. x_r and x_i may be left out, f then taking as many parameters
// as the call passes on. The compiler compiles the body into a program of
// its own, which the quadrature evaluates (autodiff.Integrand).

// IntegralCall is a checked call of integrate_1d.
type IntegralCall struct {
	Call *ast.CallExpr
	Fn   *ast.FnDecl
	// A and B are the bounds, RelTol the relative tolerance (nil: Stan's
	// default).
	A, B, RelTol ast.Expr
	// Args are the arguments passed on to f after x and xc (theta, x_r,
	// x_i, as many as the call has).
	Args []ast.Expr
	// Body is f's body expanded for the call: Body.Binds[0] and [1] are x
	// and xc (their Values a and b), then one per argument, then the
	// local lets.
	Body *Inline
}

// integrateCall checks a call of integrate_1d (f its table entry).
func (c *checker) integrateCall(e *ast.CallExpr, f *stdlib.Func) Type {
	c.info.Calls[e] = f
	name := f.Name
	if len(e.Args) < 4 || len(e.Args) > 7 {
		for _, a := range e.Args[min(1, len(e.Args)):] {
			c.expr(a)
		}
		c.errorf(e.Rparen, "%s takes 4 to 7 arguments, %s (x_r, x_i and relative_tolerance may be left out, from the end); found %d", name, f.Signature(), len(e.Args))
		return invalid
	}
	types, fd := c.fnCallArgs(e, name, "f(x, xc, theta, x_r, x_i)", "that returns the integrand's value")
	if fd == nil {
		return invalid
	}
	ok := true
	call := &IntegralCall{Call: e, Fn: fd.decl, A: e.Args[1], B: e.Args[2], Args: e.Args[3:min(len(e.Args), 6)]}
	for i, spec := range f.Args[1:3] {
		if a := types[i+1]; a.Shape.Rank() != 0 {
			c.errorf(e.Args[i+1].Pos(), "%s expects a scalar as argument %d (%s); `%s` is %s", name, i+2, spec.Name, exprString(e.Args[i+1]), a.Shape.describe())
			ok = false
		}
	}
	if len(e.Args) == 7 {
		call.RelTol = e.Args[6]
		switch t := types[6]; {
		case t.Shape.Rank() != 0:
			c.errorf(call.RelTol.Pos(), "%s expects a scalar as argument 7 (relative_tolerance); `%s` is %s", name, exprString(call.RelTol), t.Shape.describe())
			ok = false
		case !t.DataOnly:
			c.errorf(call.RelTol.Pos(), "%s needs argument 7 (relative_tolerance) known before the fit (data, constants and lets of them); `%s` %s: %s",
				name, exprString(call.RelTol), c.dependsOnParam(call.RelTol), f.Args[6].Data)
			ok = false
		case t.Const != nil && !(*t.Const > 0 && *t.Const < 1):
			c.errorf(call.RelTol.Pos(), "%s: relative_tolerance is %g; it must be in (0, 1)", name, *t.Const)
			ok = false
		}
	}
	if !ok {
		return invalid
	}
	lo, hi := c.rangeOf(call.A, types[1]).norm(), c.rangeOf(call.B, types[2]).norm()
	if ca, cb := types[1].Const, types[2].Const; ca != nil && cb != nil && !(*ca <= *cb && !(math.IsInf(*ca, 0) && *ca == *cb)) {
		c.errorf(e.Fun.NamePos, "%s: the bounds must have a ≤ b, not both the same infinity; they are %g and %g", name, *ca, *cb)
		return invalid
	}
	d := fd.decl
	if want := 2 + len(call.Args); len(d.Params) != want {
		passed := [...]string{"", "theta", "theta and x_r", "theta, x_r and x_i"}[len(call.Args)]
		c.errorf(e.Args[0].Pos(), "%s calls %s(x, xc, ...) with %s after x and xc (%s); %s takes %d after them, %s (declared at %s)",
			name, d.Name.Name, plural(len(call.Args), "argument"), passed, d.Name.Name, max(len(d.Params)-2, 0), fnSignature(d), d.Name.NamePos)
		return invalid
	}
	if !fd.ok {
		return invalid
	}
	// f(x, xc, ...): x in [a, b] (away from a bound at 0, which the
	// quadrature's nodes never reach), xc real; values of the quadrature
	// that no analysis can know before the fit.
	xr := Interval{Lo: lo.Lo, Hi: hi.Hi, LoIn: lo.LoIn && lo.Lo != 0, HiIn: hi.HiIn && hi.Hi != 0, Known: lo.Known && hi.Known}
	xType := Type{Elem: Real, Support: intervalSupport(Real, xr), Range: xr}
	xcType := Type{Elem: Real, Support: dist.Real}
	argTypes := append([]Type{xType, xcType}, types[3:3+len(call.Args)]...)
	values := append([]ast.Expr{call.A, call.B}, call.Args...)
	in, body := c.expandFn(e, name, d, "integrand", "compare x or xc only (Stan's if (x > 0.5)), or data", 2, argTypes, values)
	if in == nil {
		return invalid
	}
	call.Body = in
	if body.Shape.Rank() != 0 {
		c.errorf(e.Args[0].Pos(), "the integrand %s returns %s; %s needs a scalar, the integrand's value at x", d.Name.Name, body.Shape.describe(), name)
		return invalid
	}
	c.info.Integrals[e] = call
	t := Type{Elem: Real, Support: dist.Real, DataOnly: types[1].DataOnly && types[2].DataOnly && allData(types[3:3+len(call.Args)])}
	// A positive integrand over an interval known to be non-empty has a
	// positive integral; a non-negative one a non-negative integral.
	switch s := body.Support; {
	case (s == dist.Positive || s == dist.Unit) && lo.Hi < hi.Lo:
		t.Support = dist.Positive
	case s == dist.Positive || s == dist.Unit || s == dist.NonNegative:
		t.Support = dist.NonNegative
	}
	return t
}
