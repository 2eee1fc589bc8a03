package compile

import (
	"fmt"
	"math"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
)

// interp lowers interp(x, xp, fp): the grid xp is known when the model
// compiles and must be finite and strictly increasing, its first fault
// reported at its data cell when it has one (else at the argument, naming
// the element); fp has one value per point of xp.
func (l *lowerer) interp(e *ast.CallExpr, pos ast.Pos) value {
	const name = "interp"
	xv, xpv, fpv := l.expr(e.Args[0]), l.expr(e.Args[1]), l.expr(e.Args[2])
	for _, v := range []value{xv, xpv, fpv} {
		if !v.node && !v.isInt {
			return value{} // an error was reported already
		}
	}
	x, xp, fp := l.node(xv, e.Args[0].Pos()), l.node(xpv, e.Args[1].Pos()), l.node(fpv, e.Args[2].Pos())
	vals, ok := l.knownValues(xpv)
	if !ok {
		l.errorf(e.Args[1].Pos(), "%s: xp must be known before the fit (data, constants or a let of them)", name)
		return value{}
	}
	n, m := len(vals), l.b.Shape(fp).Len()
	switch {
	case n != m:
		l.errorf(e.Args[2].Pos(), "%s: `%s` has %d elements but `%s` has %d: fp holds the table's value at each point of xp", name, ast.FormatExpr(e.Args[2]), m, ast.FormatExpr(e.Args[1]), n)
		return value{}
	case n == 0:
		l.errorf(e.Args[1].Pos(), "%s: `%s` has no elements: the table needs at least one point", name, ast.FormatExpr(e.Args[1]))
		return value{}
	}
	if k := autodiff.InterpUnordered(vals); k >= 0 {
		why := "not finite"
		if v := vals[k]; k > 0 && !math.IsNaN(v) && !math.IsInf(v, 0) {
			why = fmt.Sprintf("not greater than the point before it, %g", vals[k-1])
		}
		const need = "must be finite and strictly increasing (sort the table by xp, and drop repeated points)"
		if data, at, ok := l.b.Cell(xp, k); ok {
			l.errorf(at, "%s: value %g is %s: interp at %s reads it as a table's xp, whose points %s", data, vals[k], why, e.Args[1].Pos(), need)
			return value{}
		}
		l.errorf(e.Args[1].Pos(), "%s: `%s` element [%d] is %g, %s: the points of interp's xp %s", name, ast.FormatExpr(e.Args[1]), k, vals[k], why, need)
		return value{}
	}
	return value{id: l.b.Interp(x, xp, fp, pos), node: true}
}
