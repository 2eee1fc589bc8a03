package compile

import (
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
)

// vecCall lowers the vector and matrix built-ins with Stan's names, and
// reports false for any other call. Those that rearrange elements (head,
// tail, segment, to_vector, append_row, append_col) keep ints known when
// compiling, so that their result can index; the others are compositions
// of tape ops.
func (l *lowerer) vecCall(e *ast.CallExpr, name string, pos ast.Pos) (value, bool) {
	switch name {
	case "head", "tail", "segment":
		return l.segment(e, name, pos), true
	case "to_vector":
		return l.toVector(e, pos), true
	case "diff":
		return l.diff(e, pos), true
	case "append_row", "append_col":
		return l.appendCall(e, name == "append_col", pos), true
	case "softmax", "log_softmax", "dot_product", "dot_self", "crossprod", "tcrossprod", "quad_form":
	default:
		return value{}, false
	}
	args := make([]autodiff.ID, len(e.Args))
	for i, a := range e.Args {
		args[i] = l.node(l.expr(a), a.Pos())
	}
	b := l.b
	// asColumn views a row [1, n] as the vector [n].
	asColumn := func(x autodiff.ID) autodiff.ID {
		if b.Shape(x).Rank == 2 {
			return b.Transpose(x, pos)
		}
		return x
	}
	var id autodiff.ID
	switch name {
	case "softmax", "log_softmax": // exp(x - max - log Σ exp(x - max)): logsumexp subtracts the max
		x := args[0]
		var lse autodiff.ID
		if s := b.Shape(x); s.Rank == 2 && s.Rows != 1 { // a matrix: each row's, as a loop's softmax(M[i])
			lse = b.RowLogSumExp(x, pos)
		} else {
			lse = b.LogSumExp(x, pos)
		}
		id = b.Sub(x, lse, pos)
		if name == "softmax" {
			id = b.Exp(id, pos)
		}
	case "dot_product":
		id = b.Sum(b.Mul(asColumn(args[0]), asColumn(args[1]), pos), pos)
	case "dot_self":
		id = b.Sum(b.Square(args[0], pos), pos)
	case "crossprod": // A' A: MatMul folds the transpose into a Gram product
		id = b.MatMul(b.Transpose(args[0], pos), args[0], pos)
	case "tcrossprod":
		id = b.MatMul(args[0], b.Transpose(args[0], pos), pos)
	case "quad_form": // v' (A v)
		av := b.MatMul(args[0], args[1], pos)
		if b.Shape(args[1]).Rank == 1 {
			id = b.Sum(b.Mul(args[1], av, pos), pos)
		} else {
			id = b.MatMul(b.Transpose(args[1], pos), av, pos)
		}
	}
	return l.knownInts(e, value{id: id, node: true}), true
}

// knownSize returns the int argument e, known when compiling, or reports
// it and returns -1.
func (l *lowerer) knownSize(e ast.Expr, fn, what string) int {
	v := l.expr(e)
	if !v.isInt || len(v.ints) != 1 || v.ints[0] < 0 {
		l.errorf(e.Pos(), "%s needs a non-negative int %s known before the fit", fn, what)
		return -1
	}
	return v.ints[0]
}

// segment lowers head(x, k), tail(x, k) and segment(x, i, k): the slice
// x[lo:lo+k] of elements (rows).
func (l *lowerer) segment(e *ast.CallExpr, name string, pos ast.Pos) value {
	x := l.expr(e.Args[0])
	last := e.Args[len(e.Args)-1]
	k := l.knownSize(last, name, "length")
	lo := 0
	if name == "segment" {
		lo = l.knownSize(e.Args[1], name, "start")
	}
	if k < 0 || lo < 0 {
		return value{}
	}
	var n int
	if x.isInt {
		n = x.shape[0]
	} else {
		n = l.b.Shape(l.node(x, e.Args[0].Pos())).Rows
	}
	if name == "tail" {
		lo = n - k
	}
	if lo < 0 || lo+k > n {
		l.errorf(last.Pos(), "%s: %d elements from %d are out of range: `%s` has %d", name, k, max(lo, 0), ast.FormatExpr(e.Args[0]), n)
		return value{}
	}
	if x.isInt {
		src, shape, ok := l.pick(x.shape, []sel{{kind: selRange, lo: lo, hi: lo + k, pos: pos}}, nil)
		if !ok {
			return value{}
		}
		return intsFrom(x, src, shape)
	}
	return value{id: l.b.Slice(l.node(x, e.Args[0].Pos()), lo, lo+k, pos), node: true}
}

// diff lowers diff(x) and diff(x, d) to existing nodes: d times, the
// slice of the last n − 1 elements less the slice of the first n − 1
// (x[1:] - x[:n-1]), so its gradient is theirs and a step of the fit
// allocates nothing more. The checker took d as a constant int ≥ 1; n,
// known only now when it is a data size, must exceed it.
func (l *lowerer) diff(e *ast.CallExpr, pos ast.Pos) value {
	d := 1
	if len(e.Args) == 2 {
		if d = l.knownSize(e.Args[1], "diff", "order"); d < 1 {
			return value{}
		}
	}
	x := l.node(l.expr(e.Args[0]), e.Args[0].Pos())
	n := l.b.Shape(x).Rows
	if d >= n {
		l.errorf(e.Args[len(e.Args)-1].Pos(), "diff of order %d needs more than %d elements: `%s` has %d, so it has no differences of that order", d, d, ast.FormatExpr(e.Args[0]), n)
		return value{}
	}
	for ; d > 0; d-- {
		x = l.b.Sub(l.b.Slice(x, 1, n, pos), l.b.Slice(x, 0, n-1, pos), pos)
		n--
	}
	return value{id: x, node: true}
}

// intsFrom is the int value whose element k is x's element src[k].
func intsFrom(x value, src, shape []int) value {
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

// pickRows returns the batch offsets of the ints picked by src from ints
// whose offsets are rows (nil: none).
func pickRows(rows, src []int) []int {
	if rows == nil {
		return nil
	}
	out := make([]int, len(src))
	for k, i := range src {
		out[k] = rows[i]
	}
	return out
}

// toVector lowers to_vector(x): a matrix's elements column by column, as
// Stan stores them; a row or a column's in order; a vector as it is.
func (l *lowerer) toVector(e *ast.CallExpr, pos ast.Pos) value {
	x := l.expr(e.Args[0])
	if x.isInt {
		if len(x.shape) != 2 {
			return x
		}
		r, c := x.shape[0], x.shape[1]
		src := make([]int, 0, r*c)
		for j := 0; j < c; j++ {
			for i := 0; i < r; i++ {
				src = append(src, i*c+j)
			}
		}
		return intsFrom(x, src, []int{r * c})
	}
	id := l.node(x, e.Args[0].Pos())
	if s := l.b.Shape(id); s.Rank == 2 && s.Rows > 1 && s.Cols > 1 {
		id = l.b.Transpose(id, pos) // row-major of A' is column-major of A
	}
	return value{id: l.b.Flatten(id, pos), node: true}
}

// matDims returns the rows and columns of v viewed as a matrix: a vector
// a column, a scalar [1, 1].
func matDims(v value) (rows, cols int) {
	switch len(v.shape) {
	case 0:
		return 1, 1
	case 1:
		return v.shape[0], 1
	}
	return v.shape[0], v.shape[1]
}

// appendCall lowers append_row(x, y) and (cols) append_col(x, y). Two ints
// known when compiling are joined here, so the result can index.
func (l *lowerer) appendCall(e *ast.CallExpr, cols bool, pos ast.Pos) value {
	x, y := l.expr(e.Args[0]), l.expr(e.Args[1])
	if !x.isInt || !y.isInt {
		return value{id: l.b.Concat(l.node(x, e.Args[0].Pos()), l.node(y, e.Args[1].Pos()), cols, pos), node: true}
	}
	rx, cx := matDims(x)
	ry, cy := matDims(y)
	ints := make([]int, 0, len(x.ints)+len(y.ints))
	from := make([]int, 0, cap(ints)) // where each element comes from: k < len(x.ints) is x's
	var shape []int
	if cols {
		if rx != ry {
			l.errorf(pos, "append_col: %d rows against %d", rx, ry)
			return value{}
		}
		for i := 0; i < rx; i++ {
			for j := 0; j < cx; j++ {
				from = append(from, i*cx+j)
			}
			for j := 0; j < cy; j++ {
				from = append(from, len(x.ints)+i*cy+j)
			}
		}
		shape = []int{rx, cx + cy}
	} else {
		if cx != cy {
			l.errorf(pos, "append_row: %d columns against %d", cx, cy)
			return value{}
		}
		for k := range len(x.ints) + len(y.ints) {
			from = append(from, k)
		}
		shape = []int{rx + ry}
		if len(x.shape) == 2 || len(y.shape) == 2 {
			shape = []int{rx + ry, cx}
		}
	}
	for _, k := range from {
		if k < len(x.ints) {
			ints = append(ints, x.ints[k])
		} else {
			ints = append(ints, y.ints[k-len(x.ints)])
		}
	}
	at := func(k int) ast.Pos {
		src, v, arg := from[k], x, e.Args[0]
		if src >= len(x.ints) {
			src, v, arg = src-len(x.ints), y, e.Args[1]
		}
		if v.at != nil {
			return v.at(src)
		}
		return arg.Pos()
	}
	name := x.data // names the values in an error at their cells
	if name == "" || y.data != name {
		name = ast.FormatExpr(e)
	}
	return value{ints: ints, shape: shape, isInt: true, at: at, atExpr: joinedAt(x, y, e), data: name}
}
