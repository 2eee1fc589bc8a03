package compile

import (
	"slices"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
)

// matCall lowers the matrix and array built-ins whose ints are read when
// the model compiles: matrix_power's exponent, to_matrix's sizes, and the
// index functions of data (sort_indices_asc, sort_indices_desc, rank),
// which give ints; reverse is a gather. ok is false for another function.
func (l *lowerer) matCall(e *ast.CallExpr, name string, pos ast.Pos) (v value, ok bool) {
	switch name {
	case "reverse":
		x := l.expr(e.Args[0])
		if x.isInt { // int data and constants stay ints
			r := slices.Clone(x.ints)
			slices.Reverse(r)
			return value{ints: r, shape: x.shape, isInt: true}, true
		}
		id := l.node(x, e.Args[0].Pos())
		n := l.b.Shape(id).Len()
		idx := make([]int, n)
		for i := range idx {
			idx[i] = n - 1 - i
		}
		return value{id: l.b.Gather(id, idx, pos), node: true}, true
	case "matrix_power":
		k, ok := l.constInt(e.Args[1], name+"'s exponent")
		if !ok {
			return value{}, true
		}
		a := l.node(l.expr(e.Args[0]), e.Args[0].Pos())
		return value{id: l.matrixPower(a, k, pos), node: true}, true
	case "to_matrix":
		m, ok1 := l.constInt(e.Args[1], name+"'s rows")
		n, ok2 := l.constInt(e.Args[2], name+"'s columns")
		if !ok1 || !ok2 {
			return value{}, true
		}
		x := l.node(l.expr(e.Args[0]), e.Args[0].Pos())
		b := l.b
		s := b.Shape(x)
		if s.Len() != m*n {
			l.errorf(e.Args[0].Pos(), "to_matrix: x has %d elements but [%d, %d] holds %d", s.Len(), m, n, m*n)
			return value{}, true
		}
		if s.Rank == 2 { // its elements column by column, as to_vector reads them
			x = b.Transpose(x, pos)
		}
		// column-major: the row-major [n, m] of the elements, transposed
		return l.knownInts(e, value{id: b.Transpose(b.Reshape(x, autodiff.Matrix(n, m), pos), pos), node: true}), true
	case "sort_indices_asc", "sort_indices_desc", "rank":
		vals, ok := l.knownValues(l.expr(e.Args[0]))
		if !ok {
			l.errorf(e.Args[0].Pos(), "%s needs values known when the model compiles (data and constants)", name)
			return value{}, true
		}
		if name == "rank" {
			s, ok := l.constInt(e.Args[1], "rank's index")
			if !ok {
				return value{}, true
			}
			if s >= len(vals) {
				l.errorf(e.Args[1].Pos(), "rank: index %d is out of range for length %d (s counts from 0)", s, len(vals))
				return value{}, true
			}
			r := 0
			for _, x := range vals {
				if x < vals[s] {
					r++
				}
			}
			return intScalar(r), true
		}
		idx := make([]int, len(vals))
		for i := range idx {
			idx[i] = i
		}
		desc := name == "sort_indices_desc"
		slices.SortStableFunc(idx, func(i, j int) int {
			a, b := vals[i], vals[j]
			if desc {
				a, b = b, a
			}
			switch {
			case a < b:
				return -1
			case a > b:
				return 1
			}
			return 0
		})
		return value{ints: idx, shape: []int{len(idx)}, isInt: true}, true
	}
	return value{}, false
}

// constInt returns the non-negative int that e, an int scalar known when
// the model compiles, holds; else it reports an error naming what.
func (l *lowerer) constInt(e ast.Expr, what string) (int, bool) {
	v := l.expr(e)
	if !v.isInt || len(v.ints) != 1 || v.ints[0] < 0 {
		l.errorf(e.Pos(), "%s needs a non-negative int constant, size or int data", what)
		return 0, false
	}
	return v.ints[0], true
}

// matrixPower returns Aᵏ by binary powering: the squares A, A², A⁴, …
// and the product of those of k's set bits, about 2 log₂ k products.
func (l *lowerer) matrixPower(a autodiff.ID, k int, pos ast.Pos) autodiff.ID {
	b := l.b
	s := b.Shape(a)
	if s.Rank != 2 || s.Rows != s.Cols {
		return b.MatMul(a, a, pos) // the checker took care; the builder reports it
	}
	if k == 0 {
		return b.Identity(s.Rows, pos)
	}
	var acc autodiff.ID
	have := false
	for sq := a; ; {
		if k&1 == 1 {
			if have {
				acc = b.MatMul(acc, sq, pos)
			} else {
				acc, have = sq, true
			}
		}
		k >>= 1
		if k == 0 {
			return acc
		}
		sq = b.MatMul(sq, sq, pos)
	}
}
