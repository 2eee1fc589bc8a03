package check

import (
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/stdlib"
)

// interpShape types interp(x, xp, fp): x's shape, the table's grid xp and
// values fp having one element per point, at least one; a literal xp
// of constants strictly increasing. That data's xp increases is checked
// when the model compiles with it (lang/compile).
func (c *checker) interpShape(e *ast.CallExpr, f *stdlib.Func, args []Type) (Shape, bool) {
	xp, fp := args[1].Shape[0], args[2].Shape[0]
	if compareDims(xp, fp) == dimDiffer || offByConstant(xp, fp) {
		c.errorf(e.Args[2].Pos(), "%s: `%s` has %s elements but `%s` has %s: fp holds the table's value at each point of xp",
			f.Name, exprString(e.Args[2]), fp, exprString(e.Args[1]), xp)
		return nil, false
	}
	if xp.Known() && xp.N == 0 {
		c.errorf(e.Args[1].Pos(), "%s: `%s` has no elements: the table needs at least one point", f.Name, exprString(e.Args[1]))
		return nil, false
	}
	if lit, ok := ast.Unparen(e.Args[1]).(*ast.VectorLit); ok {
		for k := 1; k < len(lit.Elems); k++ {
			a, b := c.info.Types[lit.Elems[k-1]].Const, c.info.Types[lit.Elems[k]].Const
			if a != nil && b != nil && !(*b > *a) {
				c.errorf(lit.Elems[k].Pos(), "%s: xp's element [%d] is %g, not greater than the one before it, %g: the points of interp's xp must be strictly increasing", f.Name, k, *b, *a)
				return nil, false
			}
		}
	}
	return args[0].Shape, true
}
