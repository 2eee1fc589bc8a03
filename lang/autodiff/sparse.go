package autodiff

import (
	"github.com/gpplang/gpp/lang/ast"
)

// CSRMatVec returns A x for the m × n sparse matrix A in compressed sparse
// row form (Stan's csr_matrix_times_vector): w [nnz] holds its non-zeros
// row by row, v[k] the 0-based column of w[k], and row i's entries are
// w[u[i]:u[i+1]], so u has m + 1 elements, u[0] = 0 and u[m] = nnz. A
// column repeated in a row adds. w and x may be inputs; v and u are fixed,
// so a value and its gradient cost O(nnz) and allocate nothing. The
// compiler checks v and u with their data's positions first; a pattern
// that is not valid here is a programmer's error, reported at pos.
func (b *Builder) CSRMatVec(w, x ID, v, u []int, pos ast.Pos) ID {
	return b.csr(w, x, v, u, 0, Vector(max(len(u)-1, 0)), pos)
}

// CSRToDense returns the m × n matrix of the compressed sparse row form
// w, v, u of an m × n matrix, as for CSRMatVec (Stan's
// csr_to_dense_matrix), repeated columns adding. It is the product S w
// for the 0/1 matrix S [m·n, nnz] that puts each non-zero in its cell, so
// one op serves both, and w may be an input.
func (b *Builder) CSRToDense(w ID, n int, v, u []int, pos ast.Pos) ID {
	m := len(u) - 1
	if m < 0 || n < 0 || !csrValid(v, u, n) {
		return b.fail(pos, "csr_to_dense_matrix: invalid sparsity pattern for a [%d, %d] matrix", m, n)
	}
	if !b.fits(m, n) { // before S's m·n + 1 row starts are made
		return b.fail(pos, "csr_to_dense_matrix: a %v value"+tooBigMsg, Matrix(m, n), MaxElements, MaxElements>>27)
	}
	// S's rows are the cells, row-major; each cell lists its entries in
	// their order in w.
	cell := make([]int, len(v))
	for i := 0; i < m; i++ {
		for k := u[i]; k < u[i+1]; k++ {
			cell[k] = i*n + v[k]
		}
	}
	ones, sv, su := onesPattern(m*n, len(v), func(k int) int { return cell[k] })
	z := b.csr(b.Const(ones, Vector(len(v)), pos), w, sv, su, 1, Vector(m*n), pos)
	return b.Reshape(z, Matrix(m, n), pos)
}

// onesPattern returns the compressed sparse row form w, v, u of the 0/1
// matrix of rows rows whose E entries are each a 1 in column e of row
// row(e): v lists the columns row by row, each row's in increasing order
// (a stable counting sort), u where each row starts (CSRToDense's and
// GroupSum's S).
func onesPattern(rows, E int, row func(e int) int) (w []float64, v, u []int) {
	u = make([]int, rows+1)
	for e := range E {
		u[row(e)+1]++
	}
	for r := 1; r < len(u); r++ {
		u[r] += u[r-1]
	}
	v, next := make([]int, E), append([]int(nil), u[:rows]...)
	for e := range E {
		r := row(e)
		v[next[r]] = e
		next[r]++
	}
	w = make([]float64, E)
	for e := range w {
		w[e] = 1
	}
	return w, v, u
}

// GroupSum returns the sums of x's elements (x [n]) or rows (x [n, m])
// by group: element (or row) k of the result [k] (or [k, m]) is the sum
// of those i with g[i] = k, 0 where there is none (JAX's segment_sum, R's
// rowsum). g has n codes, each in [0, k), fixed when the model compiles,
// which checks them at their data cells first; a code out of range here is
// a programmer's error, reported at pos. It is the product S x of the 0/1
// matrix S [k·m, n·m] whose row (c, j) picks x's elements (i, j) with
// g[i] = c, one csr node built here once, so a value costs O(n·m), its
// gradient is a gather of the result's adjoint, and neither allocates.
func (b *Builder) GroupSum(x ID, g []int, k int, pos ast.Pos) ID {
	args, ok := b.operands(x)
	if !ok {
		return b.invalid(pos)
	}
	sx := b.shapeOf(args[0])
	n, m := sx.Len(), 1
	if sx.Rank == 2 {
		n, m = sx.Rows, sx.Cols
	}
	switch {
	case sx.Rank == 0:
		return b.fail(pos, "group_sum: x is a scalar; it must be a vector or a matrix")
	case len(g) != n:
		return b.fail(pos, "group_sum: g has %d codes but x has %d rows", len(g), n)
	case k < 0:
		return b.fail(pos, "group_sum: %d groups", k)
	}
	out := Vector(k)
	if sx.Rank == 2 {
		out = Matrix(k, m)
	}
	if !b.fits(k, m) { // before the pattern's k·m + 1 row starts are made
		return b.fail(pos, "group_sum: a %v value"+tooBigMsg, out, MaxElements, MaxElements>>27)
	}
	for i, c := range g {
		if c < 0 || c >= k {
			return b.fail(pos, "group_sum: g[%d] = %d is out of range [0, %d)", i, c, k)
		}
	}
	// S's row (c, j) lists x's elements (i, j) of group c in row order.
	ones, v, u := onesPattern(k*m, n*m, func(e int) int { return g[e/m]*m + e%m })
	return b.csr(b.Const(ones, Vector(n*m), pos), x, v, u, 2, out, pos)
}

// csr pushes the product node of shape out (len(u) - 1 elements); form 1
// labels it csr_to_dense_matrix, form 2 group_sum (whose x may be a
// matrix, read as its elements).
func (b *Builder) csr(w, x ID, v, u []int, form int, out Shape, pos ast.Pos) ID {
	args, ok := b.operands(w, x)
	if !ok {
		return b.invalid(pos)
	}
	sw, sx := b.shapeOf(args[0]), b.shapeOf(args[1])
	name := csrNames[form]
	if form == 2 && sx.Rank == 2 {
		sx = Vector(sx.Len())
	}
	switch {
	case sw.Rank == 2 || sx.Rank == 2:
		return b.fail(pos, "%s: w is %s and b %s; both must be vectors", name, sw, sx)
	case len(u) == 0 || !csrValid(v, u, sx.Len()):
		return b.fail(pos, "%s: invalid sparsity pattern for %d columns", name, sx.Len())
	case sw.Len() != len(v):
		return b.fail(pos, "%s: w has %d elements, v %d", name, sw.Len(), len(v))
	}
	return b.push(node{op: OpCSRMatVec, args: args, shape: out, pos: pos, i0: form,
		idx: append([]int(nil), v...), idy: append([]int(nil), u...)})
}

// csrNames are the functions the forms of the csr node implement.
var csrNames = [...]string{"csr_matrix_times_vector", "csr_to_dense_matrix", "group_sum"}

// csrValid reports whether v and u are a compressed sparse row pattern
// with n columns: u starts at 0, does not decrease and ends at len(v), and
// every column is in [0, n).
func csrValid(v, u []int, n int) bool {
	if len(u) == 0 || u[0] != 0 || u[len(u)-1] != len(v) {
		return false
	}
	for i := 1; i < len(u); i++ {
		if u[i] < u[i-1] {
			return false
		}
	}
	for _, c := range v {
		if c < 0 || c >= n {
			return false
		}
	}
	return true
}

// evalCSR computes z_i = Σ_{k in row i} w_k x_{v_k}.
func (p *Program) evalCSR(n *node, z []float64) {
	w, x := p.v(p.arg(n, 0)), p.v(p.arg(n, 1))
	v, u := n.idx, n.idy
	for i := range z {
		s := 0.0
		for k := u[i]; k < u[i+1]; k++ {
			s += w[k] * x[v[k]]
		}
		z[i] = s
	}
}

// gradCSR adds w̄_k += ḡ_i x_{v_k} and x̄_{v_k} += ḡ_i w_k for each entry
// k of row i (a scatter into x̄), to the operands that have adjoints.
func (p *Program) gradCSR(n *node, g []float64) {
	wn, xn := p.arg(n, 0), p.arg(n, 1)
	w, x := p.v(wn), p.v(xn)
	v, u := n.idx, n.idy
	if wn.aoff >= 0 {
		aw := p.a(wn)
		for i, gi := range g {
			for k := u[i]; k < u[i+1]; k++ {
				aw[k] += gi * x[v[k]]
			}
		}
	}
	if xn.aoff >= 0 {
		ax := p.a(xn)
		for i, gi := range g {
			for k := u[i]; k < u[i+1]; k++ {
				ax[v[k]] += gi * w[k]
			}
		}
	}
}
