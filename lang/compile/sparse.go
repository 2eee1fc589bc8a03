package compile

import (
	"fmt"
	"slices"

	"github.com/gpplang/gpp/internal/onebased"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
)

// csrCall lowers Stan's compressed sparse row functions: the product
// csr_matrix_times_vector and csr_to_dense_matrix, whose column indices v
// and row starts u (0-based) are ints known when the model compiles,
// checked here at their data cells; csr_extract_w, csr_extract_v and
// csr_extract_u of a matrix of data or constants, computed here; and
// group_sum, a product with a 0/1 sparse matrix. ok is false for another
// function.
func (l *lowerer) csrCall(e *ast.CallExpr, name string, pos ast.Pos) (v value, ok bool) {
	switch name {
	case "csr_extract_w", "csr_extract_v", "csr_extract_u":
		return l.csrExtract(e, name, pos), true
	case "group_sum":
		return l.groupSum(e, pos), true
	case "csr_matrix_times_vector", "csr_to_dense_matrix":
	default:
		return value{}, false
	}
	m, ok1 := l.constInt(e.Args[0], name+"'s rows")
	n, ok2 := l.constInt(e.Args[1], name+"'s columns")
	w := l.node(l.expr(e.Args[2]), e.Args[2].Pos())
	cols := l.knownInts(e.Args[3], l.expr(e.Args[3]))
	starts := l.knownInts(e.Args[4], l.expr(e.Args[4]))
	if !ok1 || !ok2 || !l.csrPattern(e, name, m, n, l.b.Shape(w).Len(), cols, starts) {
		return value{}, true
	}
	if name == "csr_to_dense_matrix" {
		return value{id: l.b.CSRToDense(w, n, cols.ints, starts.ints, pos), node: true}, true
	}
	x := l.node(l.expr(e.Args[5]), e.Args[5].Pos())
	if k := l.b.Shape(x).Len(); k != n {
		l.errorf(e.Args[5].Pos(), "%s: b has %d elements but the matrix has %d columns", name, k, n)
		return value{}, true
	}
	return value{id: l.b.CSRMatVec(w, x, cols.ints, starts.ints, pos), node: true}, true
}

// csrPattern reports whether the column indices v and row starts u of an
// m × n matrix with nnz non-zeros are valid: u has m + 1 elements, starts
// at 0, does not decrease and ends at nnz; v has nnz elements, each in
// [0, n). The first fault of each is reported at its data cell where it
// has one, else at the argument, naming the element; Stan's 1-based
// values are recognised and the shift named.
func (l *lowerer) csrPattern(e *ast.CallExpr, name string, m, n, nnz int, v, u value) bool {
	if !v.isInt || !u.isInt {
		for i, x := range []value{v, u} {
			if !x.isInt {
				l.errorf(e.Args[3+i].Pos(), "%s: %s must be int data or constants", name, [...]string{"v", "u"}[i])
			}
		}
		return false
	}
	ok := true
	switch us := u.ints; {
	case len(us) != m+1:
		l.errorf(e.Args[4].Pos(), "%s: u has %d elements but the matrix has %d rows: u holds where each row starts in w, then size(w), m + 1 = %d in all", name, len(us), m, m+1)
		ok = false
	case us[0] != 0:
		hint := ""
		if us[0] == 1 {
			hint = "; Stan's u counts from 1: pass u - 1"
		}
		l.csrElemErr(e, 4, u, 0, hint, "%s: u[0] = %d, but the first row starts at 0 (u is 0-based)", name, us[0])
		ok = false
	default:
		for i := 1; i <= m; i++ {
			if us[i] < us[i-1] {
				l.csrElemErr(e, 4, u, i, "", "%s: u[%d] = %d is less than u[%d] = %d: the rows' starts must not decrease", name, i, us[i], i-1, us[i-1])
				ok = false
				break
			}
		}
		if ok && us[m] != nnz {
			l.csrElemErr(e, 4, u, m, "", "%s: u[%d] = %d, but the last element of u is size(w) = %d", name, m, us[m], nnz)
			ok = false
		}
	}
	vs := v.ints
	if len(vs) != nnz {
		l.errorf(e.Args[3].Pos(), "%s: v has %d elements but w has %d: v holds the column of each non-zero", name, len(vs), nnz)
		return false
	}
	for k, c := range vs {
		if c >= 0 && c < n {
			continue
		}
		lo, hi := vs[0], vs[0]
		for _, c := range vs {
			lo, hi = min(lo, c), max(hi, c)
		}
		hint := ""
		if lo >= 1 && hi == n {
			hint = fmt.Sprintf("; column indices are 0-based and these run from %d to %d, as Stan's 1-based ones do: pass v - 1", lo, hi)
		}
		l.csrElemErr(e, 3, v, k, hint, "%s: v[%d] = %d is out of range [0, %d) as a column index", name, k, c, n)
		return false
	}
	return ok
}

// csrElemErr reports a fault of element k of argument i of call e (its
// lowered value x), followed by hint: at the element's data cell, with
// where it is used, when it has one; else at the argument.
func (l *lowerer) csrElemErr(e *ast.CallExpr, i int, x value, k int, hint, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if x.at != nil && x.atExpr == "" { // a computed argument's cells hold other values
		if at := x.at(k); at.Line > 0 {
			l.errorf(at, "%s (used at %s)%s", msg, e.Args[i].Pos(), hint)
			return
		}
	}
	l.errorf(e.Args[i].Pos(), "%s%s", msg, hint)
}

// csrExtract computes csr_extract_w (the non-zeros row by row, ints of an
// int matrix), csr_extract_v (their 0-based columns) or csr_extract_u (the
// 0-based start of each row, then the count) of a matrix known when the
// model compiles.
func (l *lowerer) csrExtract(e *ast.CallExpr, name string, pos ast.Pos) value {
	x := l.expr(e.Args[0])
	vals, ok := l.knownValues(x)
	if !ok {
		l.errorf(e.Args[0].Pos(), "%s needs values known when the model compiles (data and constants)", name)
		return value{}
	}
	var rows, cols int
	switch {
	case x.isInt && len(x.shape) == 2:
		rows, cols = x.shape[0], x.shape[1]
	case x.node:
		s := l.b.Shape(x.id)
		rows, cols = s.Rows, s.Cols
	default:
		l.errorf(e.Args[0].Pos(), "%s expects a matrix", name)
		return value{}
	}
	var w []float64
	var v []int
	u := []int{0}
	for i := 0; i < rows; i++ {
		for j, a := range vals[i*cols : i*cols+cols] {
			if a != 0 {
				w, v = append(w, a), append(v, j)
			}
		}
		u = append(u, len(v))
	}
	switch name {
	case "csr_extract_v":
		return value{ints: v, shape: []int{len(v)}, isInt: true}
	case "csr_extract_u":
		return value{ints: u, shape: []int{len(u)}, isInt: true}
	}
	if w == nil {
		w = []float64{}
	}
	return l.knownInts(e, value{id: l.b.Const(w, autodiff.Vector(len(w)), pos), node: true})
}

// groupSum lowers group_sum(x, g, K): K and the codes g are known when the
// model compiles; a code out of [0, K) is reported at its data cell, with
// the shift to make when the codes look 1-based.
func (l *lowerer) groupSum(e *ast.CallExpr, pos ast.Pos) value {
	const name = "group_sum"
	x := l.node(l.expr(e.Args[0]), e.Args[0].Pos())
	g := l.knownInts(e.Args[1], l.expr(e.Args[1]))
	k, ok := l.constInt(e.Args[2], name+"'s group count K")
	if !g.isInt {
		l.errorf(e.Args[1].Pos(), "%s: g must be int data or constants", name)
		return value{}
	}
	if !ok {
		return value{}
	}
	s := l.b.Shape(x)
	if s.Rank == 0 {
		return value{} // the checker made x a vector or a matrix: an error was reported already
	}
	n, what := s.Len(), "elements"
	if s.Rank == 2 {
		n, what = s.Rows, "rows"
	}
	if len(g.ints) != n {
		l.errorf(e.Args[1].Pos(), "%s: g has %d codes but x has %d %s: g holds the group of each", name, len(g.ints), n, what)
		return value{}
	}
	for i, c := range g.ints {
		if c >= 0 && c < k {
			continue
		}
		hint := ""
		if lo, hi := slices.Min(g.ints), slices.Max(g.ints); onebased.Is(lo, hi, len(g.ints), k) {
			hint = "; group codes are 0-based and " + onebased.Span(lo, k) + ": pass g - 1"
		}
		l.csrElemErr(e, 1, g, i, hint, "%s: g[%d] = %d is out of range [0, %d) as a group code", name, i, c, k)
		return value{}
	}
	return l.knownInts(e, value{id: l.b.GroupSum(x, g.ints, k, pos), node: true})
}
