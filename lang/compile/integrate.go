package compile

import (
	"errors"
	"fmt"
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
	sb := autodiff.NewBuilder()
	in := ic.Body
	l.env[in.Binds[0].Sym] = value{id: sb.Input("x", autodiff.Scalar(), pos), node: true}
	l.env[in.Binds[1].Sym] = value{id: sb.Input("xc", autodiff.Scalar(), pos), node: true}
	var inputs []autodiff.ID
	for i, v := range args {
		sym := in.Binds[2+i].Sym
		a := ic.Args[i]
		switch {
		case v.isInt && v.rows == nil:
			l.env[sym] = value{ints: v.ints, shape: v.shape, isInt: true, at: v.at, data: v.data}
		case !v.node:
			return value{} // an error was reported
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
	where := fmt.Sprintf(" (in the integrand %s of %s at %s)", fn, name, pos)
	nerr := len(l.errs)
	// The body's nodes are sb's (see ode).
	b, vec, dataNodes, inTarget := l.b, l.vec, l.dataNodes, l.inTarget
	l.b, l.vec, l.inTarget = sb, nil, false
	for _, bind := range in.Binds[len(ic.Fn.Params):] {
		l.env[bind.Sym] = l.expr(bind.Value)
	}
	f := l.node(l.expr(in.Body), in.Body.Pos())
	l.b, l.vec, l.dataNodes, l.inTarget = b, vec, dataNodes, inTarget
	for _, err := range l.errs[nerr:] {
		err.Msg += where
	}
	if len(l.errs) > nerr {
		return value{}
	}
	integrand, err := sb.FinishIntegrand(f, e.Args[0].Pos())
	if err != nil {
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
		return value{}
	}
	return value{id: l.b.Integrate(integrand, lims[0], lims[1], rel, inputs, fn, pos), node: true}
}
