package compile

import (
	"math"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
	"github.com/gpplang/gpp/lang/check"
)

// integrate lowers integrate_1d(f, a, b, theta, x_r, x_i[, rel_tol]): f's
// body, expanded by the checker, is compiled once into a program of its own
// (autodiff.Integrand) whose inputs are x, xc and the arguments that are
// not known before the fit; arguments known before the fit are constants
// there (ints stay ints). A bound that is an infinite constant
// (positive_infinity()) is no node of the tape; a finite one is an operand,
// which may be a param. The call is one OpIntegrate node.
func (l *lowerer) integrate(ic *check.IntegralCall) value {
	e := ic.Call
	name, pos := e.Fun.Name, e.Fun.Pos()
	fn := ic.Fn.Name.Name
	var lims [2]autodiff.Limit
	ok := true
	for k, be := range [2]ast.Expr{ic.A, ic.B} {
		if c := l.info.Types[be].Const; c != nil && math.IsInf(*c, 0) {
			lims[k].Inf = int(math.Copysign(1, *c))
			continue
		}
		v := l.expr(be)
		if !v.node && !v.isInt {
			ok = false
			continue
		}
		lims[k].X = l.node(v, be.Pos())
	}
	var rel float64
	if ic.RelTol != nil {
		r, okr := l.odeKnown(ic.RelTol, name, "relative_tolerance")
		switch {
		case !okr:
			ok = false
		case !(r[0] > 0 && r[0] < 1):
			l.errorf(ic.RelTol.Pos(), "%s: relative_tolerance is %g; it must be in (0, 1)", name, r[0])
			ok = false
		default:
			rel = r[0]
		}
	}
	args := make([]value, len(ic.Args))
	for i, a := range ic.Args {
		args[i] = l.expr(a)
	}
	if !ok {
		return value{}
	}

	// f's program: x, xc, then the arguments not known before the fit.
	leads := []lead{{"x", autodiff.Scalar()}, {"xc", autodiff.Scalar()}}
	integrand, inputs, ok := fnProgram(l, e, ic.Fn, ic.Body, "integrand", leads, args, ic.Args, (*autodiff.Builder).FinishIntegrand)
	if !ok {
		return value{}
	}
	return value{id: l.b.Integrate(integrand, lims[0], lims[1], rel, inputs, fn, pos), node: true}
}
