package check

import (
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/stdlib"
)

// gpCross checks the points of a covariance function's two-input form,
// f(x1, x2, alpha, rho, ...): x1 [n1] or [n1, d] and x2 [n2] or [n2, d],
// points of one dimension (a vector's points have one coordinate, as a
// column [n, 1]), give [n1, n2]. A dimension that only the data show to
// differ is the compiler's error, at x2 too.
func (c *checker) gpCross(e *ast.CallExpr, f *stdlib.Func, args []Type) (Shape, bool) {
	a, b := args[0].Shape, args[1].Shape
	n1, d1 := a.matrix()
	n2, d2 := b.matrix()
	if compareDims(d1, d2) == dimDiffer {
		c.errorf(e.Args[1].Pos(), "%s: the points of x2 (`%s`, %s) are of dimension %s but those of x1 (`%s`, %s) of dimension %s; x1 and x2 need points of one dimension (a vector's are of dimension 1)",
			f.Name, exprString(e.Args[1]), b, d2, exprString(e.Args[0]), a, d1)
		return nil, false
	}
	if !c.gpRho(e, f, args, 3, d1) {
		return nil, false
	}
	return Shape{n1, n2}, true
}

// gpRho checks a vector rho (argument i, ARD: a length-scale per
// coordinate) against the dimension d of the points; a length that only
// the data show to differ is the compiler's error.
func (c *checker) gpRho(e *ast.CallExpr, f *stdlib.Func, args []Type, i int, d Dim) bool {
	r := args[i].Shape
	if r.Rank() != 1 || compareDims(r[0], d) != dimDiffer {
		return true
	}
	c.errorf(e.Args[i].Pos(), "%s: `%s` is %s but the points of `%s` (%s) are of dimension %s; a vector rho has one length-scale per coordinate (a vector's points have 1)",
		f.Name, exprString(e.Args[i]), r, exprString(e.Args[0]), args[0].Shape, d)
	return false
}
