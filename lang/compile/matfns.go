package compile

import (
	"fmt"
	"math"
	"slices"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
	"gonum.org/v1/gonum/mat"
)

// matCall lowers the matrix and array built-ins whose ints are read when
// the model compiles: matrix_power's exponent, to_matrix's sizes, and the
// index functions of data (sort_indices_asc, sort_indices_desc, rank),
// which give ints; reverse is a gather; quantile of data is a constant
// (of params, a node).
// ok is false for another function.
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
	case "quantile":
		return l.quantile(e), true
	case "sort_indices_asc", "sort_indices_desc", "rank":
		x := l.expr(e.Args[0])
		vals, known := l.knownValues(x)
		var xi autodiff.ID
		n := len(vals)
		if !known { // of params, in an output (the checker refuses it elsewhere)
			xi = l.node(x, e.Args[0].Pos())
			n = l.b.Shape(xi).Len()
		}
		s := 0
		if name == "rank" {
			var ok bool
			if s, ok = l.constInt(e.Args[1], "rank's index"); !ok {
				return value{}, true
			}
			if s >= n {
				l.errorf(e.Args[1].Pos(), "rank: index %d is out of range for length %d (s counts from 0)", s, n)
				return value{}, true
			}
		}
		switch {
		case !known && name == "rank":
			return value{id: l.b.Rank(xi, s, pos), node: true}, true
		case !known:
			return value{id: l.b.SortIndices(xi, name == "sort_indices_desc", pos), node: true}, true
		}
		if name == "rank" {
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

// qrForms maps the QR functions to their autodiff form.
var qrForms = map[string]int{"qr_thin_Q": autodiff.QRThinQ, "qr_thin_R": autodiff.QRThinR, "qr_Q": autodiff.QRFatQ, "qr_R": autodiff.QRFatR}

// generalizedInverse returns the Moore-Penrose inverse of A [m, n] of full
// rank as Stan computes it: inverse(A) when square, (AᵀA)⁻¹Aᵀ when tall,
// Aᵀ(AAᵀ)⁻¹ = (solve(AAᵀ, A))ᵀ when wide; the LU or Cholesky solve fails,
// at the call, for a rank-deficient A.
//
// A known before the fit (data, constants) gets the Moore-Penrose inverse
// of any rank instead, as Stan's does, from its SVD: V Σ⁺ Uᵀ, singular
// values below max(m, n)·ε·σ_max counted as zero (numpy's pinv rule).
func generalizedInverse(b *autodiff.Builder, a autodiff.ID, pos ast.Pos) autodiff.ID {
	s := b.Shape(a)
	if s.Rank == 1 { // a single column (to_matrix(x, n, 1)) as the tape holds it
		s = autodiff.Matrix(s.Rows, 1)
		a = b.Reshape(a, s, pos)
	}
	if vals, ok := b.Known(a); ok && s.Rank == 2 && s.Len() > 0 {
		if pinv, ok := pseudoInverse(vals, s.Rows, s.Cols); ok {
			return b.Const(pinv, autodiff.Matrix(s.Cols, s.Rows), pos)
		}
	}
	defer b.InCall(" (in generalized_inverse, which needs a param's matrix of full rank)")()
	switch {
	case s.Rank != 2 || s.Rows == s.Cols:
		return b.LU(autodiff.OpInverse, a, pos)
	case s.Rows > s.Cols:
		at := b.Transpose(a, pos)
		return b.Solve(b.MatMul(at, a, pos), at, pos)
	}
	// a single row's transpose is a vector, and A Aᵀ with it: keep the
	// Gram matrix [m, m] and the result [n, m] matrices
	gram := b.Reshape(b.MatMul(a, b.Transpose(a, pos), pos), autodiff.Matrix(s.Rows, s.Rows), pos)
	return b.Reshape(b.Transpose(b.Solve(gram, a, pos), pos), autodiff.Matrix(s.Cols, s.Rows), pos)
}

// pseudoInverse returns the Moore-Penrose inverse [n, m] of the m×n
// matrix a by its SVD; ok is false when the SVD fails (a non-finite a).
func pseudoInverse(a []float64, m, n int) ([]float64, bool) {
	var svd mat.SVD
	if !svd.Factorize(mat.NewDense(m, n, slices.Clone(a)), mat.SVDThin) {
		return nil, false
	}
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	sig := svd.Values(nil)
	tol := float64(max(m, n)) * 0x1p-52 * sig[0]
	out := make([]float64, n*m)
	for k, sk := range sig {
		if !(sk > tol) {
			continue
		}
		for i := 0; i < n; i++ {
			vik := v.At(i, k) / sk
			for j := 0; j < m; j++ {
				out[i*m+j] += vik * u.At(j, k)
			}
		}
	}
	return out, true
}

// symmetrizeLower returns the symmetric matrix of A's lower triangle, a
// gather of A's elements: [i, j] is A[max(i, j), min(i, j)].
func symmetrizeLower(b *autodiff.Builder, a autodiff.ID, pos ast.Pos) autodiff.ID {
	s := b.Shape(a)
	if !s.IsSquare() {
		return b.Trace(a, pos) // the checker took care; the builder reports it
	}
	n := s.Rows
	idx := make([]int, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			idx[i*n+j] = max(i, j)*n + min(i, j)
		}
	}
	flat := b.Gather(b.Reshape(a, autodiff.Vector(n*n), pos), idx, pos)
	return b.Reshape(flat, autodiff.Matrix(n, n), pos)
}

// quantile lowers quantile(x, p) of data to its constant value: R's type
// 7 (Hyndman and Fan 1996), as Stan's, h = (n − 1) p into the sorted x,
// linear between its neighbours. x must not be empty or hold NaN, and p
// must lie in [0, 1]. Of params (in an output: the checker refuses it
// elsewhere) it is autodiff's Quantile, evaluated at each draw.
func (l *lowerer) quantile(e *ast.CallExpr) value {
	xv := l.expr(e.Args[0])
	x, ok1 := l.knownValues(xv)
	pv := l.expr(e.Args[1])
	p, ok2 := l.knownValues(pv)
	pos := e.Pos()
	switch {
	case !ok1 || !ok2:
		xi, pi := l.node(xv, e.Args[0].Pos()), l.node(pv, e.Args[1].Pos())
		return value{id: l.b.Quantile(xi, pi, pos), node: true}
	case len(x) == 0:
		l.errorf(e.Args[0].Pos(), "quantile: x has no elements")
		return value{}
	}
	for i, v := range x {
		if math.IsNaN(v) {
			l.errorf(e.Args[0].Pos(), "quantile: x[%d] is NaN", i)
			return value{}
		}
	}
	sorted := slices.Clone(x)
	slices.Sort(sorted)
	out := make([]float64, len(p))
	for i, pi := range p {
		if !(pi >= 0 && pi <= 1) {
			l.errorf(e.Args[1].Pos(), "quantile: p %s is outside [0, 1]", elemNote(pi, i, len(p)))
			return value{}
		}
		out[i] = autodiff.SortedQuantile(sorted, pi)
	}
	shape := autodiff.Scalar()
	if pv.isInt && len(pv.shape) == 1 || pv.node && l.b.Shape(pv.id).Rank == 1 {
		shape = autodiff.Vector(len(p))
	}
	return value{id: l.b.Const(out, shape, pos), node: true}
}

// elemNote writes v, and its index when p is a vector of n > 1 values.
func elemNote(v float64, i, n int) string {
	if n > 1 {
		return fmt.Sprintf("%g (element %d)", v, i)
	}
	return fmt.Sprintf("%g", v)
}
