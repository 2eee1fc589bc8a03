package compile

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/gpplang/gpp/internal/onebased"
	"github.com/gpplang/gpp/internal/textenc"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
	"github.com/gpplang/gpp/lang/check"
)

// sel is one resolved index position.
type sel struct {
	kind int // selFull, selRange, selOne, selMany
	lo   int
	hi   int // -1: to the end
	one  int
	many []int
	at   func(k int) ast.Pos // where many[k] is in its data file (nil: unknown)
	// atExpr is the expression computed from the cells at locates, whose
	// value many[k] is (value.atExpr; "" for the cells' own values).
	atExpr string
	cells  func(k int) string // value.cells
	pos    ast.Pos
	// data and rows: ints of the subsampled int data data, at these
	// offsets of its batch values (value.rows), in a minibatch build.
	data string
	rows []int
	// row marks, in a vectorised loop, a selMany of one index per
	// iteration (vecFor): checked as the unrolled loop's scalar indices.
	row bool
	// mat is the shape [r, c] of an int matrix index of a vector, whose
	// many lists it row by row: the result takes this shape.
	mat []int
}

// gatherSel gathers the elements (rows) s.many of id; where they are int
// data read unchanged, with their cells (Builder.GatherData), so that an
// error at a value computed from a row names the row's index (xi[gauge]'s
// gauge) with its other cells. Not for label-coded data: the row's note
// gives a cell's value, and a code (gauge = 0) is not what the file holds
// (Severn).
func (l *lowerer) gatherSel(id autodiff.ID, s sel) autodiff.ID {
	if a := l.data[s.data]; s.at != nil && s.data != "" && s.atExpr == "" && (a == nil || a.Levels == nil || len(a.Levels.Labels) == 0) {
		return l.b.GatherData(id, s.many, s.data, s.at, s.pos)
	}
	return l.b.Gather(id, s.many, s.pos)
}

// inRange reports whether every index of a selMany is in [0, n). The
// first that is not is reported at its data cell when it has one, naming
// where it indexes, else at the index expression.
func (l *lowerer) inRange(e *ast.IndexExpr, s sel, n, axis int) bool {
	for k, i := range s.many {
		if i >= 0 && i < n {
			continue
		}
		hint := oneBasedHint(s.many, n)
		if hint != "" { // zeroBased reads every index expression: only for a hint
			hint = cmp.Or(l.zeroBased(e, axis), hint)
		}
		if s.atExpr != "" && hint != "" { // computed ids: "minus 1" may undo the model's own + 1
			hint = "; indices are 0-based"
		}
		if h := l.labelIndexHint(e, axis, s); h != "" {
			hint = h
		}
		row := 0
		if s.row { // one index per row of a loop lowered as vectors
			row = k
		}
		switch {
		case s.cells != nil:
			l.rowErrorf(row, s.at(k), "`%s`: `%s` is %d in row %d (%s), out of range [0, %d) as an index (used at %s)%s",
				ast.FormatExpr(e), s.atExpr, i, k, s.cells(k), n, s.pos, hint)
		case s.at != nil:
			l.rowErrorf(row, s.at(k), "%s out of range [0, %d) as an index (used at %s)%s", indexIs(s.atExpr, i), n, s.pos, hint)
		default:
			l.rowErrorf(row, s.pos, "`%s`: index %d out of range [0, %d) (element %d of the index vector)%s", ast.FormatExpr(e), i, n, k, hint)
		}
		return false
	}
	l.oneBasedIndexNote(e, s, n, axis)
	return true
}

// oneBasedIndexNote notes int data read unchanged as the index of a
// param's axis whose size is given as data (z[fam], param z: real[J])
// when its values never take 0 and run to exactly n − 1 as Stan's 1-based
// ids do: element 0 is then read by no row and fitted from its prior
// alone, with no error (a typologist's ids 1..40 with J = 41, 2026-12-02;
// J = 40 is an error at the id 40, which names the ids). Only in the fit's
// first build, once per index.
func (l *lowerer) oneBasedIndexNote(e *ast.IndexExpr, s sel, n, axis int) {
	if e == nil || l.info == nil || l.noteUnrolled == nil || s.data == "" || s.atExpr != "" || len(s.many) < 2 || n < 2 {
		return
	}
	id, ok := e.X.(*ast.Ident)
	if !ok {
		return
	}
	sym := l.info.Uses[id]
	if sym == nil || sym.Kind != check.Param {
		return
	}
	decl, ok := sym.Decl.(*ast.ParamDecl)
	if !ok || decl.Type == nil || axis >= len(decl.Type.Dims) {
		return
	}
	size, ok := decl.Type.Dims[axis].(*ast.Ident)
	if !ok || l.data[size.Name] == nil {
		return // a size written in the model, not given with the data
	}
	lo, hi := slices.Min(s.many), slices.Max(s.many)
	if lo < 1 || hi != n-1 || !onebased.Is(lo, hi, len(s.many), hi) || l.zeroBased(e, axis) != "" {
		return // other ids of the axis hold 0: an edge list's node2 (zeroBased)
	}
	msg := fmt.Sprintf("%s: `%s` never takes the value 0 as the index of %s (%s = %d): %s, so element 0 of %s is read by no row and fitted from its prior alone; if they are, index %s[%s - 1] and give %s = %d, or give 0-based ids",
		e.Indices[axis].Pos(), s.data, id.Name, size.Name, n, onebased.Span(lo, hi), id.Name, id.Name, s.data, size.Name, n-1)
	if !slices.Contains(l.notes, msg) {
		l.notes = append(l.notes, msg)
	}
}

// oneBasedHint says, of an index vector that looks like Stan's 1-based
// ids into an axis of size n (onebased.Is), that it does and how to
// shift it; of any other it says nothing.
func oneBasedHint(many []int, n int) string {
	lo, hi := many[0], many[0]
	for _, i := range many {
		lo, hi = min(lo, i), max(hi, i)
	}
	if !onebased.Is(lo, hi, len(many), n) {
		return ""
	}
	return "; indices are 0-based and " + onebased.Span(lo, n) + ": index with the ids minus 1 (`x[ids - 1]`) or give 0-based ids"
}

// zeroBased returns, where other int data indexing axis of e.X anywhere
// in the model hold a 0, showing the ids of that axis 0-based, the hint
// that says so, naming them: an edge list's second column (node1 < node2
// keeps every 0 out of node2) alone looks 1-based, but its first column,
// or a held-out list, has the 0. Advice to shift the ids by 1 would then
// be wrong: the id out of range is a typo, or one column of ids was
// shifted and not the other. Only the data read as that axis's index
// count (`b` in a[b[c]], not `c`; not another axis's ids, a 0-based year
// beside 1-based counties); it runs only on the way to an error. "" where
// none does.
func (l *lowerer) zeroBased(e *ast.IndexExpr, axis int) string {
	holdsZero := func(name string) bool {
		a := l.data[name]
		return a != nil && a.Int && slices.Contains(a.Values, 0)
	}
	if e == nil || l.info == nil {
		return ""
	}
	x := ast.FormatExpr(e.X)
	var best *ast.IndexExpr
	var name string
	for expr := range l.info.Types {
		ix, ok := expr.(*ast.IndexExpr)
		if !ok || ix == e || axis >= len(ix.Indices) || ast.FormatExpr(ix.X) != x {
			continue
		}
		l.info.VisitReads(ix.Indices[axis], false, func(sym *check.Symbol) bool {
			if sym.Kind == check.Data && holdsZero(sym.Name) {
				// the first in the source, whatever the map's order
				if best == nil || ix.Pos().Before(best.Pos()) {
					best, name = ix, sym.Name
				}
				return true
			}
			return false
		})
	}
	if best == nil {
		return ""
	}
	return fmt.Sprintf("; indices are 0-based, and `%s`, which indexes this axis too (at %s), holds a 0, so these are not 1-based ids: a typo, or ids shifted in one column and not in the other?", name, best.Pos())
}

// oneInRange reports whether a single index s along the given axis of e.X,
// of size n, is in [0, n); if not, it reports the index at its position,
// naming what it indexes and saying indices count from 0 (a loop written
// for i in 1:N+1, from Stan's 1-based for (i in 1:N), ends here).
func (l *lowerer) oneInRange(e *ast.IndexExpr, s sel, n, axis int) bool {
	return l.oneInRangeRow(e, s, n, axis, 0)
}

// oneInRangeRow is oneInRange for the index of row k of a loop lowered as
// vectors (vecIndexInRange), whose error names that row's iteration.
func (l *lowerer) oneInRangeRow(e *ast.IndexExpr, s sel, n, axis, k int) bool {
	if s.kind != selOne || s.one >= 0 && s.one < n {
		return true
	}
	if s.cells != nil { // computed from two cells, report[i] - onset[i]: both named
		it := l.iterText(k)
		if it != "" {
			it = "," + it
		}
		l.rowError(k, s.at(0), fmt.Sprintf("`%s`: `%s` is %d (%s), out of range [0, %d) as an index along axis %d of `%s` (used at %s%s); indices are 0-based",
			ast.FormatExpr(e), s.atExpr, s.one, s.cells(0), n, axis, ast.FormatExpr(e.X), s.pos, it))
		return false
	}
	if s.at != nil { // an int read from data, g[i]: at its cell
		var ids []int
		if a := l.data[s.data]; a != nil && len(a.Shape) == 1 {
			ids = make([]int, len(a.Values))
			for j, v := range a.Values {
				ids[j] = int(v)
			}
		}
		l.dataIndexError(e, s.one, n, axis, k, s.at(0), s.atExpr, s.pos, ids)
		return false
	}
	l.rowErrorf(k, s.pos, "index %d out of range [0, %d) along axis %d of `%s` (indices are 0-based)",
		s.one, n, axis, ast.FormatExpr(e.X))
	return false
}

// dataIndexError reports index i, out of range [0, n) along axis of e.X
// in row k of a loop, at its data cell, naming where it is used, with the
// advice on Stan's 1-based ids when the ids it is one of look like them
// (oneBasedHint), as the vectorised form's error at its cell gives.
func (l *lowerer) dataIndexError(e *ast.IndexExpr, i, n, axis, k int, cell ast.Pos, atExpr string, used ast.Pos, ids []int) {
	hint := ""
	if len(ids) > 0 {
		hint = oneBasedHint(ids, n)
	}
	if hint != "" { // zeroBased reads every index expression: only for a hint
		hint = cmp.Or(l.zeroBased(e, axis), hint)
	}
	if hint == "" {
		hint = "; indices are 0-based"
	}
	it := l.iterText(k)
	if it != "" {
		it = "," + it
	}
	l.rowError(k, cell, fmt.Sprintf("%s out of range [0, %d) as an index along axis %d of `%s` (used at %s%s)%s",
		indexIs(atExpr, i), n, axis, ast.FormatExpr(e.X), used, it, hint))
}

// indexIs opens the error of index i at a data cell: "30 is" for the
// cell's own value, "`site + 1` is 30 at this cell, which is" for an index
// computed from it (value.atExpr).
func indexIs(atExpr string, i int) string {
	if atExpr == "" {
		return fmt.Sprintf("%d is", i)
	}
	return fmt.Sprintf("`%s` is %d at this cell, which is", atExpr, i)
}

const (
	selFull = iota
	selRange
	selOne
	selMany
)

// resolve evaluates one index expression; indices are always int data.
func (l *lowerer) resolve(e ast.Expr) (sel, bool) {
	if s, ok := e.(*ast.SliceExpr); ok {
		r := sel{kind: selRange, hi: -1, pos: s.Pos()}
		if s.Lo == nil && s.Hi == nil {
			r.kind = selFull
			return r, true
		}
		if s.Lo != nil {
			v := l.expr(s.Lo)
			if !v.isInt || len(v.ints) != 1 {
				l.errorf(s.Lo.Pos(), "slice bound must be an int")
				return r, false
			}
			r.lo = v.ints[0]
		}
		if s.Hi != nil {
			v := l.expr(s.Hi)
			if !v.isInt || len(v.ints) != 1 {
				l.errorf(s.Hi.Pos(), "slice bound must be an int")
				return r, false
			}
			r.hi = v.ints[0]
		}
		return r, true
	}
	failed := l.failed()
	v := l.expr(e)
	if !v.isInt {
		if l.failed() == failed { // else the index failed, and said why
			l.errorf(e.Pos(), "index must be int data")
		}
		return sel{}, false
	}
	if len(v.shape) == 0 {
		return sel{kind: selOne, one: v.ints[0], at: v.at, atExpr: v.atExpr, cells: v.cells, pos: e.Pos(), data: v.data, rows: v.rows}, true
	}
	if len(v.shape) != 1 {
		l.errorf(e.Pos(), "an index must be an int scalar or vector")
		return sel{}, false
	}
	return sel{kind: selMany, many: v.ints, at: v.at, atExpr: v.atExpr, cells: v.cells, pos: e.Pos(), data: v.data, rows: v.rows, row: l.vec != nil && l.depends(e)}, true
}

// resolveMatrix evaluates an int matrix index of a vector (NumPy's
// x[idx]): its elements row by row, as a vector index's, and its shape.
func (l *lowerer) resolveMatrix(e ast.Expr) (sel, bool) {
	failed := l.failed()
	v := l.expr(e)
	if !v.isInt || len(v.shape) != 2 {
		if l.failed() == failed {
			l.errorf(e.Pos(), "index must be an int matrix of data")
		}
		return sel{}, false
	}
	if v.rows != nil {
		l.errorf(e.Pos(), "--minibatch: an int matrix index read from the subsampled rows is not supported: index by its columns, or fit the full data")
		return sel{}, false
	}
	return sel{kind: selMany, many: v.ints, at: v.at, atExpr: v.atExpr, pos: e.Pos(), data: v.data, mat: v.shape}, true
}

// index lowers X[i], X[i, j], slices and gathers.
func (l *lowerer) index(e *ast.IndexExpr) value {
	if l.vec != nil && l.depends(e) && l.rowVecScan().rowElem(e) {
		return l.rowElem(e) // v[0] of a vector per iteration (looprows.go)
	}
	var read []bool // the cells of a datum with missing ones (skipmissing.go)
	if id, ok := e.X.(*ast.Ident); ok && l.missRead != nil {
		if read = l.missRead[l.info.Uses[id]]; read != nil {
			l.missIdx = id
		}
	}
	x := l.expr(e.X)
	l.missIdx = nil
	if !x.node && !x.isInt && l.failed() > 0 || x.node && l.b.Failed(x.id) {
		// X failed (an ODE's bad times, a matrix product's sizes known
		// only with the data) and said why: its stand-in scalar would
		// only add an error about its shape
		return value{}
	}
	if l.info.DynamicIndex(e) != nil {
		return l.indexAt(e, x)
	}
	sels := make([]sel, len(e.Indices))
	for i, ix := range e.Indices {
		resolve := l.resolve
		if len(e.Indices) == 1 && l.info.Types[ix].Shape.Rank() == 2 && !(l.vec != nil && l.depends(e)) {
			resolve = l.resolveMatrix // x[idx] of a vector x (the checker's)
		}
		s, ok := resolve(ix)
		if !ok {
			return value{}
		}
		sels[i] = s
	}
	if read != nil {
		markRead(read, l.data[l.info.Uses[e.X.(*ast.Ident)].Name].Shape, sels)
	}
	for _, s := range sels {
		if s.rows != nil && (x.isInt || s.kind == selOne && len(sels) == 2 && sels[0].kind != selOne) {
			// int data picked by the batch's ints would be fixed on the
			// Go side; a column picked per row is not a gather
			l.errorf(s.pos, "--minibatch %s: an index read from the subsampled rows picks from %s here in a way the batch cannot follow (int data picked by it are fixed when compiling, and so is a column picked per row): pick rows of params or real data by it (u[g], u[g[i]], X[g[i], j])", l.batch.size, ast.FormatExpr(e.X))
			return value{}
		}
	}
	if !l.rowsInRange(e, x, sels) {
		return value{}
	}
	if len(sels) == 2 && sels[0].row && sels[1].row {
		return l.cells(e, x, sels[0], sels[1])
	}
	if pairedSels(sels) {
		return l.paired(e, x, sels[0], sels[1])
	}
	if x.isInt {
		return l.indexInts(x, sels, e)
	}
	id := l.node(x, e.X.Pos())
	b := l.b
	sh := b.Shape(id)
	if m := sels[0].mat; m != nil {
		if sh.Rank != 1 {
			l.errorf(e.Indices[0].Pos(), "an int matrix indexes a vector only, not %s", sh)
			return value{}
		}
		if !l.inRange(e, sels[0], sh.Rows, 0) {
			return value{}
		}
		return value{id: b.Reshape(l.gatherSel(id, sels[0]), autodiff.Matrix(m[0], m[1]), e.Lbrack), node: true}
	}
	if sh.Rank > 0 && !l.oneInRange(e, sels[0], sh.Rows, 0) ||
		sh.Rank == 2 && len(sels) == 2 && !l.oneInRange(e, sels[1], sh.Cols, 1) {
		return value{}
	}
	apply := func(v autodiff.ID, s sel) autodiff.ID { // along the first axis
		switch s.kind {
		case selOne:
			if s.rows != nil { // the batch's: a gather of one, refreshed
				g := b.GatherSub(v, []int{s.one}, s.data, s.rows, s.pos)
				if b.Shape(v).Rank == 1 {
					return b.Elem(g, 0, s.pos)
				}
				return b.Row(g, 0, s.pos)
			}
			if b.Shape(v).Rank == 1 {
				return b.Elem(v, s.one, s.pos)
			}
			return b.Row(v, s.one, s.pos)
		case selRange:
			hi := s.hi
			if hi < 0 {
				hi = b.Shape(v).Rows
			}
			return b.Slice(v, s.lo, hi, s.pos)
		case selMany:
			if sh := b.Shape(v); s.row && sh.Rank > 0 && identityRows(s, sh.Rows) {
				return v // x[i] over the whole axis
			}
			if sh := b.Shape(v); sh.Rank > 0 {
				// One out of range is reported at its data cell where it
				// has one, else at the index, naming the indexing as
				// written (the builder's own error, "gather: ...", is
				// not returned: build returns the lowerer's errors first).
				l.inRange(e, s, sh.Rows, 0)
			}
			if s.rows != nil {
				return b.GatherSub(v, s.many, s.data, s.rows, s.pos)
			}
			return l.gatherSel(v, s)
		}
		return v
	}
	if len(sels) == 1 {
		return value{id: l.asTyped(e, apply(id, sels[0]), e.Lbrack), node: true}
	}
	if sh.Rank != 2 {
		l.errorf(e.Lbrack, "two indices need a matrix, got %s", sh)
		return value{}
	}
	r, c := sels[0], sels[1]
	if r.kind == selOne {
		return value{id: apply(apply(id, r), c), node: true}
	}
	rows := apply(id, r)
	switch c.kind {
	case selOne:
		return value{id: b.Col(rows, c.one, c.pos), node: true}
	case selFull:
		return value{id: rows, node: true}
	}
	// A set of columns: select rows of the transpose. Transposing back a
	// single row gives a vector, which the columns' matrix [n, 1] must not
	// become (asTyped).
	t := b.Transpose(rows, c.pos)
	return value{id: l.asTyped(e, b.Transpose(apply(t, c), c.pos), c.pos), node: true}
}

// pairedSels reports whether sels index a matrix by two int vectors
// (not a vectorised loop's row indices, which cells pairs): NumPy's
// paired gather A[r, c], the elements A[r[k], c[k]].
func pairedSels(sels []sel) bool {
	return len(sels) == 2 && sels[0].kind == selMany && sels[1].kind == selMany && !sels[0].row && !sels[1].row
}

// paired lowers the paired gather A[r, c] of two int vectors of equal
// length, the vector of the elements A[r[k], c[k]] (language.md §4;
// Stan's block of rows r and columns c is A[r][:, c]): as the vectorised
// loop's A[r[i], c[i]] (cells), one Gather of A's elements at the flat
// indices r[k]·m + c[k], computed here, once; int data are picked on the
// Go side, so the result can index. An index out of range is reported at
// its data cell, as the one-axis gather's is.
func (l *lowerer) paired(e *ast.IndexExpr, x value, r, c sel) value {
	if r.rows != nil || c.rows != nil {
		s := r
		if s.rows == nil {
			s = c
		}
		l.errorf(s.pos, "--minibatch %s: a paired gather `%s` by the subsampled rows is not supported (the tape fixes its indices when the model compiles): fit the full data", l.batch.size, ast.FormatExpr(e))
		return value{}
	}
	if !x.isInt {
		x = value{id: l.node(x, e.X.Pos()), node: true}
	}
	dims := l.valueDims(x)
	if len(dims) != 2 {
		l.errorf(e.Lbrack, "two indices need a matrix")
		return value{}
	}
	if !l.pairedOK(e, r, c, dims[0], dims[1]) {
		return value{}
	}
	return l.cells(e, x, r, c)
}

// pairedOK reports whether the index vectors r and c of the paired gather
// e, of a matrix [rows, cols], have equal lengths (an error names both
// when they differ: lengths the checker could not compare) and every
// index is in range (reported at its data cell, as inRange does).
func (l *lowerer) pairedOK(e *ast.IndexExpr, r, c sel, rows, cols int) bool {
	if len(r.many) != len(c.many) {
		ri, ci := ast.FormatExpr(e.Indices[0]), ast.FormatExpr(e.Indices[1])
		x := ast.FormatExpr(e.X)
		l.errorf(c.pos, "paired gather `%s`: the index vectors have different lengths, %d for `%s` and %d for `%s`; `%s` is the vector of the elements %s[%s[k], %s[k]], so they must be as long (for the block of rows %s and columns %s, Stan's multi-index, write `%s[%s][:, %s]`)",
			ast.FormatExpr(e), len(r.many), ri, len(c.many), ci, ast.FormatExpr(e), x, ri, ci, ri, ci, x, ri, ci)
		return false
	}
	return l.inRange(e, r, rows, 0) && l.inRange(e, c, cols, 1)
}

// asTyped gives the node id, lowered from e, the rank the checker gave e
// (language.md §4–5). The builder's transpose turns any row [1, n] into the
// vector [n], but a slice or a gather of one column keeps its axis, and a
// matrix whose rows number 1 only with these data (W [N, K] with N = 1)
// stays a matrix: a vector [n] then becomes the column [n, 1], or the row
// [1, n] when the checker knows the rows are 1; a row or a column the
// checker types as a vector becomes one.
func (l *lowerer) asTyped(e ast.Expr, id autodiff.ID, pos ast.Pos) autodiff.ID {
	t, ok := l.info.Types[e]
	if !ok || !t.Valid() {
		return id
	}
	s := l.b.Shape(id)
	switch want := t.Shape; {
	case s.Rank == 1 && want.Rank() == 2:
		if want[0].N == 1 && want[1].N != 1 {
			return l.b.Reshape(id, autodiff.Matrix(1, s.Rows), pos)
		}
		return l.b.Reshape(id, autodiff.Matrix(s.Rows, 1), pos)
	case s.Rank == 2 && want.Rank() == 1 && (s.Rows == 1 || s.Cols == 1):
		return l.b.Reshape(id, autodiff.Vector(s.Len()), pos)
	}
	return id
}

// transposeInts lowers x' for ints known when compiling, on the Go side,
// so that the result can still index (k' for int data k, to_vector(M')):
// a vector [n] gives the row [1, n], a matrix [r, c] the matrix [c, r], or
// the vector [c] when the checker typed e as one (r is 1).
func (l *lowerer) transposeInts(e *ast.TransposeExpr, x value) value {
	switch len(x.shape) {
	case 0:
		return x
	case 1:
		src := make([]int, x.shape[0])
		for k := range src {
			src[k] = k
		}
		return intsFrom(x, src, []int{1, x.shape[0]})
	}
	r, c := x.shape[0], x.shape[1]
	src := make([]int, 0, r*c)
	for j := 0; j < c; j++ {
		for i := 0; i < r; i++ {
			src = append(src, i*c+j)
		}
	}
	shape := []int{c, r}
	if t, ok := l.info.Types[e]; ok && t.Shape.Rank() == 1 {
		shape = []int{c}
	}
	return intsFrom(x, src, shape)
}

// indexInts indexes int data on the Go side, so the result can serve as an
// index itself (EPM's links[, 0]).
func (l *lowerer) indexInts(x value, sels []sel, e *ast.IndexExpr) value {
	src, shape, ok := l.pick(x.shape, sels, e)
	if !ok {
		return value{}
	}
	if m := sels[0].mat; m != nil && len(sels) == 1 {
		shape = m // x[idx] takes the int matrix idx's shape
	}
	out := make([]int, len(src))
	for k, i := range src {
		out[k] = x.ints[i]
	}
	var at func(k int) ast.Pos
	if x.at != nil {
		at = func(k int) ast.Pos { return x.at(src[k]) }
	}
	return value{ints: out, shape: shape, isInt: true, at: at, atExpr: x.atExpr, data: x.data, rows: pickRows(x.rows, src)}
}

// pick resolves the selections sels of an array of the given shape, known
// before the fit: it returns, row-major, the element of the array that
// each element of the result comes from, and the result's shape.
func (l *lowerer) pick(xshape []int, sels []sel, e *ast.IndexExpr) (src, shape []int, ok bool) {
	if len(sels) == 2 && sels[0].row && sels[1].row && len(xshape) == 2 {
		// X[i, j] in a loop lowered as vectors: one element per row.
		if !l.vecIndexInRange(e, sels[0], xshape[0], 0) || !l.vecIndexInRange(e, sels[1], xshape[1], 1) {
			return nil, nil, false
		}
		return rowCells(sels[0], sels[1], xshape[1]), []int{len(sels[0].many)}, true
	}
	if pairedSels(sels) && len(xshape) == 2 && e != nil {
		// A[r, c] of int or real data: the elements A[r[k], c[k]].
		if !l.pairedOK(e, sels[0], sels[1], xshape[0], xshape[1]) {
			return nil, nil, false
		}
		return rowCells(sels[0], sels[1], xshape[1]), []int{len(sels[0].many)}, true
	}
	rows, cols := 1, 1
	switch len(xshape) {
	case 1:
		rows = xshape[0]
	case 2:
		rows, cols = xshape[0], xshape[1]
	default:
		l.errorf(e.Lbrack, "cannot index a scalar")
		return nil, nil, false
	}
	one := func(s sel, n, axis int) ([]int, bool, bool) { // indices, keeps axis, ok
		switch s.kind {
		case selOne:
			if !l.oneInRange(e, s, n, axis) {
				return nil, false, false
			}
			return []int{s.one}, false, true
		case selMany:
			if !l.inRange(e, s, n, axis) {
				return nil, false, false
			}
			return s.many, true, true
		}
		lo, hi := 0, n
		if s.kind == selRange {
			lo = s.lo
			if s.hi >= 0 {
				hi = s.hi
			}
		}
		if lo < 0 || hi < lo || hi > n {
			l.errorf(s.pos, "slice [%d:%d] out of range [0, %d]", lo, hi, n)
			return nil, false, false
		}
		idx := make([]int, hi-lo)
		for i := range idx {
			idx[i] = lo + i
		}
		return idx, true, true
	}
	ri, rkeep, ok := one(sels[0], rows, 0)
	if !ok {
		return nil, nil, false
	}
	ci, ckeep := []int{0}, false
	if len(xshape) == 2 {
		ci, ckeep = make([]int, cols), true
		for j := range ci {
			ci[j] = j
		}
		if len(sels) == 2 {
			if ci, ckeep, ok = one(sels[1], cols, 1); !ok {
				return nil, nil, false
			}
		}
	}
	src = make([]int, 0, len(ri)*len(ci))
	for _, i := range ri {
		for _, j := range ci {
			src = append(src, i*cols+j)
		}
	}
	switch {
	case rkeep && ckeep:
		shape = []int{len(ri), len(ci)}
	case rkeep:
		shape = []int{len(ri)}
	case ckeep:
		shape = []int{len(ci)}
	}
	return src, shape, true
}

// labelIndexHint explains an index computed from data coded from labels
// (u[subj - 1] with subj the labels P01 ... P30, coded from 0 as gpp codes
// them): the codes are already the indices, as an R user used to 1-based
// factor codes may not expect. "" when the index is no such computation.
func (l *lowerer) labelIndexHint(e *ast.IndexExpr, axis int, s sel) string {
	if e == nil || l.info == nil || s.atExpr == "" || axis >= len(e.Indices) {
		return ""
	}
	hint := ""
	l.info.VisitReads(e.Indices[axis], false, func(sym *check.Symbol) bool {
		a := l.data[sym.Name]
		if sym.Kind != check.Data || a == nil || a.Levels == nil || len(a.Levels.Labels) == 0 {
			return false
		}
		lv := a.Levels
		last := len(lv.Labels) - 1
		hint = fmt.Sprintf("; `%s` holds labels, which gpp codes as the indices themselves (%s is %d, …, %s is %d): index with `%s` as it is",
			sym.Name, textenc.QuoteLabel(lv.Labels[0]), lv.First, textenc.QuoteLabel(lv.Labels[last]), lv.First+last, sym.Name)
		return true
	})
	return hint
}
