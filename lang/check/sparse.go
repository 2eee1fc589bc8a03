package check

import (
	"fmt"
	"strings"

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
	c.groupSumBound(e, f)
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

// groupSumBound warns at group_sum(x, g, K) whose codes g are data
// declared with an upper bound of another size than K − 1: a census's
// counts by state, group_sum(count, cage, S) with cage declared
// upper=A-1, sum by age into S groups, A..S−1 of them empty where A < S
// and codes past K − 1 an error where A > S; two size names are warned
// of even where the data give them one value. A bound that differs from
// K − 1 by a constant alone (upper=K, 1-based codes) is left to the
// codes' check when the model compiles. It names the data of g's length
// whose bound is K − 1 (the column meant, often).
func (c *checker) groupSumBound(e *ast.CallExpr, f *stdlib.Func) {
	id, ok := ast.Unparen(e.Args[1]).(*ast.Ident)
	if !ok || c.info.Uses[id] == nil || c.info.Uses[id].Kind != Data {
		return
	}
	d := c.info.DataVar(id.Name)
	if d == nil || d.UpperExpr == nil || d.ElemBounds || len(d.Dims) != 1 {
		return
	}
	kText := ast.FormatExpr(e.Args[2])
	up, ok1 := parseLinear(ast.FormatExpr(d.UpperExpr))
	k, ok2 := parseLinear(kText)
	if !ok1 || !ok2 {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			if _, giveUp := r.(errNotLinear); !giveUp {
				panic(r)
			}
		}
	}() // a coefficient past 2^31 (linear.add): no warning
	diff := linear{coef: map[string]int64{}}
	diff.add(up, 1)
	diff.add(k, -1)
	if diff.constant() {
		return
	}
	want := linear{coef: map[string]int64{}} // K − 1
	want.add(k, 1)
	want.c--
	count := linear{coef: map[string]int64{}} // the groups g's bound makes
	count.add(up, 1)
	count.c++
	var alts []string
	for _, o := range c.info.Data {
		if o == d || o.UpperExpr == nil || o.ElemBounds || len(o.Dims) != 1 || o.Dims[0] != d.Dims[0] {
			continue
		}
		if l, ok := parseLinear(ast.FormatExpr(o.UpperExpr)); ok {
			l.add(want, -1)
			if l.constant() && l.c == 0 {
				alts = append(alts, "`"+o.Name+"`")
			}
		}
	}
	fix := fmt.Sprintf("pass %s as the count", count)
	if len(alts) > 0 {
		fix = fmt.Sprintf("group by %s (upper=%s), or %s", strings.Join(alts, " or "), want, fix)
	}
	c.info.Warnings = append(c.info.Warnings, ast.Errorf(e.Args[1].Pos(),
		"%s(%s, %s, %s): `%s` is declared with upper=%s (%s), so its codes count %s groups, but %s counts %s: where %s < %s, groups %s to %s are empty (sums of 0), and where %s > %s, a code past %s is an error; %s (even where the data make the two equal, each names its own groups)",
		f.Name, exprString(e.Args[0]), id.Name, kText, id.Name, ast.FormatExpr(d.UpperExpr), d.Pos, count, f.Name, kText, count, kText, count, want, count, kText, want, fix))
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
