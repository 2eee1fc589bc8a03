package compile

import (
	"fmt"
	"strings"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
)

// Indices that change with the draws (language.md §4): an output may
// index by a value drawn or computed per draw (Stan's generated
// quantities: year[s] with s ~ Categorical(...), x[sort_indices_desc(d)[0]]).
// The checker lets such an index only where the log joint does not read
// it, so these nodes are evaluated per draw and never differentiated;
// autodiff.GatherAt checks each index value when it is evaluated.

// indexAt lowers e, an index expression of x with at least one index that
// changes with the draws: the first axis, then the second (of a matrix),
// each picked by GatherAt where its index is a node and as index does
// where it is known.
func (l *lowerer) indexAt(e *ast.IndexExpr, x value) value {
	b := l.b
	id := l.node(x, e.X.Pos())
	sh := b.Shape(id)
	if sh.Rank == 0 || len(e.Indices) > sh.Rank {
		l.errorf(e.Lbrack, "cannot index %s with %d indices", sh, len(e.Indices))
		return value{}
	}
	what := "`" + ast.FormatExpr(e) + "`"
	if l.outputName != "" && !strings.HasPrefix(l.outputName, "__") { // not the REPL's query
		what = fmt.Sprintf("output `%s`: %s", l.outputName, what)
	}
	// axisAt picks along the first axis of v by the index ix.
	vectorIdx := 0 // how many indices are vectors (two pair: refused)
	axisAt := func(v autodiff.ID, ix ast.Expr, axis int) (autodiff.ID, bool) {
		if t := l.info.Types[ix]; t.Shape.Rank() == 1 {
			vectorIdx++
		}
		if _, isSlice := ix.(*ast.SliceExpr); !isSlice && !l.info.Types[ix].DataOnly {
			i := l.node(l.expr(ix), ix.Pos())
			return b.GatherAt(v, i, what, ix.Pos()), true
		}
		s, ok := l.resolve(ix)
		if !ok {
			return v, false
		}
		n := b.Shape(v).Rows
		switch s.kind {
		case selOne:
			if !l.oneInRange(e, s, n, axis) {
				return v, false
			}
			if b.Shape(v).Rank == 1 {
				return b.Elem(v, s.one, s.pos), true
			}
			return b.Row(v, s.one, s.pos), true
		case selRange:
			hi := s.hi
			if hi < 0 {
				hi = n
			}
			return b.Slice(v, s.lo, hi, s.pos), true
		case selMany:
			if !l.inRange(e, s, n, axis) {
				return v, false
			}
			return l.gatherSel(v, s), true
		}
		return v, true
	}
	rows, ok := axisAt(id, e.Indices[0], 0)
	if !ok {
		return value{}
	}
	if len(e.Indices) == 1 {
		return value{id: l.asTyped(e, rows, e.Lbrack), node: true}
	}
	c := e.Indices[1]
	if b.Shape(rows).Rank == 1 { // the first index was a scalar: a row
		out, ok := axisAt(rows, c, 1)
		if !ok {
			return value{}
		}
		return value{id: l.asTyped(e, out, c.Pos()), node: true}
	}
	// Columns of the rows picked: rows of the transpose, transposed back.
	t := b.Transpose(rows, c.Pos())
	cols, ok := axisAt(t, c, 1)
	if !ok {
		return value{}
	}
	if vectorIdx == 2 {
		l.errorf(c.Pos(), "a paired gather `%s` (the elements %s[r[k], c[k]]) cannot have an index that changes with the draws; index one element at a time", ast.FormatExpr(e), ast.FormatExpr(e.X))
		return value{}
	}
	if b.Shape(cols).Rank == 1 { // one column of the rows
		return value{id: l.asTyped(e, cols, c.Pos()), node: true}
	}
	return value{id: l.asTyped(e, b.Transpose(cols, c.Pos()), c.Pos()), node: true}
}
