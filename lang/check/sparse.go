package check

import (
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/stdlib"
)

// csrShape checks the shapes of csr_matrix_times_vector(m, n, w, v, u, b)
// and csr_to_dense_matrix(m, n, w, v, u): w and v hold one element per
// non-zero, u [m + 1] each row's start and then their number, b [n]. It
// returns m and n. The values of v and u are checked when the model
// compiles with its data (lang/compile).
func (c *checker) csrShape(e *ast.CallExpr, f *stdlib.Func, args []Type) (m, n Dim, ok bool) {
	m = c.dimOf(e.Args[0], args[0], f.Name+"'s rows")
	n = c.dimOf(e.Args[1], args[1], f.Name+"'s columns")
	w, v, u := args[2].Shape[0], args[3].Shape[0], args[4].Shape[0]
	ok = true
	if compareDims(w, v) == dimDiffer {
		c.errorf(e.Args[3].Pos(), "%s: `%s` has %s elements but `%s` has %s: v holds the column of each non-zero in w",
			f.Name, exprString(e.Args[3]), v, exprString(e.Args[2]), w)
		ok = false
	}
	if rows := addDim(m, one); compareDims(u, rows) == dimDiffer || offByConstant(u, rows) {
		c.errorf(e.Args[4].Pos(), "%s: `%s` has %s elements but the matrix has %s rows: u holds where each row starts in w, then size(w), %s in all",
			f.Name, exprString(e.Args[4]), u, m, rows)
		ok = false
	}
	if len(args) == 6 {
		if b := args[5].Shape[0]; compareDims(b, n) == dimDiffer {
			c.errorf(e.Args[5].Pos(), "%s: `%s` has %s elements but the matrix has %s columns", f.Name, exprString(e.Args[5]), b, n)
			ok = false
		}
	}
	return m, n, ok
}

// groupSumShape types group_sum(x, g, K): [K] for x [N], [K, m] for x
// [N, m], g having one code per row of x.
func (c *checker) groupSumShape(e *ast.CallExpr, f *stdlib.Func, args []Type) (Shape, bool) {
	k := c.dimOf(e.Args[2], args[2], f.Name+"'s group count K")
	x, g := args[0].Shape, args[1].Shape[0]
	if compareDims(x[0], g) == dimDiffer || offByConstant(x[0], g) {
		what := "elements"
		if x.Rank() == 2 {
			what = "rows"
		}
		c.errorf(e.Args[1].Pos(), "%s: `%s` has %s codes but `%s` has %s %s: g holds the group of each", f.Name, exprString(e.Args[1]), g, exprString(e.Args[0]), x[0], what)
		return nil, false
	}
	if x.Rank() == 2 {
		return Shape{k, x[1]}, true
	}
	return Shape{k}, true
}

// csrNonZeros is the size of csr_extract_w(A) and csr_extract_v(A), the
// number of non-zeros of A, known once A's values are: a derived size
// named after A, so that the two extracts of one matrix agree.
func csrNonZeros(a ast.Expr) Dim {
	return derivedDim("nnz(" + exprString(a) + ")")
}

// offByConstant reports whether two sizes that compareDims leaves to the
// data are linear in the same names and differ by a constant, so differ
// whatever the data: u declared [N] where [N + 1] is needed.
func offByConstant(a, b Dim) bool {
	if a.Known() || b.Known() {
		return false
	}
	la, okA := parseLinear(a.String())
	lb, okB := parseLinear(b.String())
	if !okA || !okB {
		return false
	}
	la.add(lb, -1)
	return la.constant() && la.c != 0
}
