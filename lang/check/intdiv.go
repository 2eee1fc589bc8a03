package check

import (
	"math"

	"github.com/gpplang/gpp/lang/ast"
)

// intDivisions warns at each `/` of two ints (data, consts, sizes, loop
// variables, int arithmetic of them): gpp's `/` divides as reals, where
// Stan's int / int truncates (Stan's N / 2 is 3 for N = 7, gpp's 3.5), so
// a ported model changes meaning without a word. Two literals (1 / 2) are
// written as meant, and two constants that divide exactly read the same
// either way: neither is warned of, nor a real operand (1.0 * r / n, the
// way the warning gives to say a proportion is meant).
func (c *checker) intDivisions() {
	ast.Inspect(c.file, func(n ast.Node) bool {
		e, ok := n.(*ast.BinaryExpr)
		if !ok || e.Op != ast.Div {
			return true
		}
		x, okx := c.info.Types[e.X]
		y, oky := c.info.Types[e.Y]
		if !okx || !oky || x.Elem != Int || y.Elem != Int {
			return true
		}
		_, litX := ast.Unparen(e.X).(*ast.NumberLit)
		_, litY := ast.Unparen(e.Y).(*ast.NumberLit)
		if litX && litY {
			return true
		}
		if x.Const != nil && y.Const != nil && *y.Const != 0 && math.Mod(*x.Const, *y.Const) == 0 {
			return true
		}
		if y.Const != nil && *y.Const != 0 && c.constFactorDivides(e.X, *y.Const) {
			return true // 36500 * N / 7300 is 5 * N either way
		}
		s := exprString(e)
		c.info.Warnings = append(c.info.Warnings, ast.Errorf(e.OpPos,
			"`%s` of two ints is real division in gpp, where Stan's truncates to an int (7 / 2 is 3.5 here, 3 in Stan): write %s %%/%% %s for Stan's integer division, an int, or 1.0 * %s where the real quotient is meant (a proportion), which is not warned of",
			s, exprString(e.X), exprString(e.Y), s))
		return true
	})
}

// constFactorDivides reports whether x is a product one of whose factors
// is a constant that d divides exactly: x / d is then an int either way.
func (c *checker) constFactorDivides(x ast.Expr, d float64) bool {
	b, ok := ast.Unparen(x).(*ast.BinaryExpr)
	if !ok || b.Op != ast.Mul {
		return false
	}
	for _, f := range []ast.Expr{b.X, b.Y} {
		if t, ok := c.info.Types[f]; ok && t.Elem == Int && t.Const != nil && math.Mod(*t.Const, d) == 0 {
			return true
		}
		if c.constFactorDivides(f, d) {
			return true
		}
	}
	return false
}
