package autodiff

import (
	"fmt"
	"math"

	"github.com/gpplang/gpp/lang/ast"
)

// MvNormalCholesky returns Σ_r log N(y_r | mu_r, L L') for the rows y_r of
// y, given the lower Cholesky factor L [d, d] of the covariance (Stan's
// multi_normal_cholesky):
//
//	−n·d/2·log 2π − n·Σ_i log L_ii − ½·Σ_r ‖L⁻¹(y_r − mu_r)‖²
//
// through one triangular solve, O(n·d²), with no factorisation. y is a
// vector [d] (n = 1) or a matrix [n, d] of independent rows; mu a scalar,
// a vector [d] or a row [1, d] shared by every row, or a matrix [n, d],
// row r for y_r. Only the lower triangle of L is read, as Stan's
// mdivide_left_tri_low reads it: the entries above the diagonal are
// ignored and get no adjoint. A diagonal entry that is not > 0 (or not
// finite) fails the evaluation with an error at pos.
func (b *Builder) MvNormalCholesky(y, mu, l ID, pos ast.Pos) ID {
	return b.mvNormalCholesky(y, mu, l, false, pos)
}

// MvNormalCholeskyRows is MvNormalCholesky per row: the log density of
// each row of y [n, d], a vector [n] (X[i] ~ MvNormalCholesky(mu, L) in a
// loop lowered as vectors, whose terms are the rows'), so that a row whose
// term is not finite is found as the unrolled loop's would be.
func (b *Builder) MvNormalCholeskyRows(y, mu, l ID, pos ast.Pos) ID {
	return b.mvNormalCholesky(y, mu, l, true, pos)
}

// mvNormalCholesky adds an OpMvNormalChol node; perRow (i1 = 1) keeps a
// term per row of y instead of their sum.
func (b *Builder) mvNormalCholesky(y, mu, l ID, perRow bool, pos ast.Pos) ID {
	args, ok := b.operands(y, mu, l)
	if !ok {
		return b.invalid(pos)
	}
	ys, ms, ls := b.shapeOf(args[0]), b.shapeOf(args[1]), b.shapeOf(args[2])
	if ls.Rank != 2 || ls.Rows != ls.Cols || ls.Rows == 0 {
		return b.fail(pos, "MvNormalCholesky: L must be a square matrix [d, d], d ≥ 1, got %s", ls)
	}
	d := ls.Rows
	rows := 1
	switch {
	case ys.Rank == 1 && ys.Rows == d:
	case ys.Rank == 2 && ys.Cols == d:
		rows = ys.Rows
	default:
		return b.fail(pos, "MvNormalCholesky: the value must be a vector [%d] or a matrix [n, %d], got %s", d, d, ys)
	}
	switch {
	case ms.Rank == 0:
	case ms.Rank == 1 && ms.Rows == d:
	case ms.Rank == 2 && ms.Cols == d && (ms.Rows == 1 || ys.Rank == 2 && ms.Rows == rows):
	default:
		return b.fail(pos, "MvNormalCholesky: mu must be a scalar, a vector [%d], a row [1, %d] or a matrix of the value's shape, got %s", d, d, ms)
	}
	// scratch: the solved rows U = (y − mu) L⁻ᵀ, then V = U L⁻¹ and Vᵀ U
	nd := node{op: OpMvNormalChol, args: args, shape: Scalar(), pos: pos, i0: rows, nscr: 2*rows*d + d*d}
	if perRow {
		nd.shape, nd.i1 = Vector(rows), 1
	}
	return b.push(nd)
}

// mvCholScratch splits an MvNormalCholesky node's scratch into U and V
// (n×d) and W (d×d).
func (p *Program) mvCholScratch(n *node) (u, v, w []float64) {
	d := p.arg(n, 2).shape.Rows
	nd := n.i0 * d
	s := p.s(n)
	return s[:nd], s[nd : 2*nd], s[2*nd : 2*nd+d*d]
}

// cholDiagBad returns the first i whose L_ii is not > 0 and finite, or −1.
func cholDiagBad(l []float64, d int) int {
	for i := 0; i < d; i++ {
		if v := l[i*d+i]; !(v > 0) || math.IsInf(v, 1) {
			return i
		}
	}
	return -1
}

// evalMvNormalChol is OpMvNormalChol's forward rule; false when a diagonal
// entry of L is not > 0.
func (p *Program) evalMvNormalChol(n *node) bool {
	y, mu, l := p.arg(n, 0), p.arg(n, 1), p.arg(n, 2)
	d, rows := l.shape.Rows, n.i0
	lv := p.v(l)
	if i := cholDiagBad(lv, d); i >= 0 {
		p.fail = i + 1
		return false
	}
	u, _, _ := p.mvCholScratch(n)
	yv, mv := p.v(y), p.v(mu)
	rstep, cstep := mvSteps(mu.shape, d)
	for r := 0; r < rows; r++ {
		for j := 0; j < d; j++ {
			u[r*d+j] = yv[r*d+j] - mv[r*rstep+j*cstep]
		}
	}
	solveLowerRows(lv, d, u, rows) // row r: L⁻¹ (y_r − mu_r)
	logDiag := 0.0
	for i := 0; i < d; i++ {
		logDiag += math.Log(lv[i*d+i])
	}
	if n.i1 == 1 { // a term per row
		z := p.v(n)
		for r := range z {
			ur := u[r*d : r*d+d]
			z[r] = -0.5*float64(d)*log2Pi - logDiag - 0.5*dot(ur, ur)
		}
		return true
	}
	nr := float64(rows)
	p.v(n)[0] = -0.5*nr*float64(d)*log2Pi - nr*logDiag - 0.5*dot(u, u)
	return true
}

// gradMvNormalChol: with u_r = L⁻¹(y_r − mu_r) and v_r = L⁻ᵀ u_r, y_r gets
// −v_r and mu_r +v_r (summed where mu is shared), and L gets
// tril(Σ_r v_r u_rᵀ) − n·diag(1/L_ii): from d(L⁻¹) = −L⁻¹ dL L⁻¹,
// d(−½‖u‖²) = v' dL u. Each row's terms are scaled by its adjoint g_r
// (one g for the sum).
func (p *Program) gradMvNormalChol(n *node, g []float64) {
	y, mu, l := p.arg(n, 0), p.arg(n, 1), p.arg(n, 2)
	d, rows := l.shape.Rows, n.i0
	lv := p.v(l)
	u, v, w := p.mvCholScratch(n)
	copy(v, u)
	solveUpperRows(lv, d, v, rows) // row r: (L⁻ᵀ u_r)'
	gsum := 0.0                    // Σ_r g_r
	for r := 0; r < rows; r++ {
		gr := g[min(r, len(g)-1)]
		gsum += gr
		for j := range v[r*d : r*d+d] {
			v[r*d+j] *= gr
		}
	}
	if y.aoff >= 0 {
		ay := p.a(y)
		for k, x := range v {
			ay[k] -= x
		}
	}
	if mu.aoff >= 0 {
		am := p.a(mu)
		rstep, cstep := mvSteps(mu.shape, d)
		for r := 0; r < rows; r++ {
			for j := 0; j < d; j++ {
				am[r*rstep+j*cstep] += v[r*d+j]
			}
		}
	}
	if l.aoff >= 0 {
		gemm(true, false, d, d, rows, 1, v, d, u, d, 0, w, d) // Σ_r g_r v_r u_r'
		al := p.a(l)
		for i := 0; i < d; i++ {
			for j := 0; j < i; j++ {
				al[i*d+j] += w[i*d+j]
			}
			al[i*d+i] += w[i*d+i] - gsum/lv[i*d+i]
		}
	}
}

// solveLowerRows overwrites each row x of the rows×d matrix u with L⁻¹x,
// by forward substitution on the lower triangle of l: a contiguous dot
// product per element, which for the small d of effects' priors beats
// BLAS's triangular solve with a right-hand side per row (a call per row
// or a strided one).
func solveLowerRows(l []float64, d int, u []float64, rows int) {
	for r := 0; r < rows; r++ {
		x := u[r*d : r*d+d]
		for j := range x {
			x[j] = (x[j] - dot(l[j*d:j*d+j], x)) / l[j*d+j]
		}
	}
}

// solveUpperRows overwrites each row x of the rows×d matrix v with L⁻ᵀx,
// by back substitution reading the lower triangle of l row by row.
func solveUpperRows(l []float64, d int, v []float64, rows int) {
	for r := 0; r < rows; r++ {
		x := v[r*d : r*d+d]
		for j := d - 1; j >= 0; j-- {
			x[j] /= l[j*d+j]
			xj, row := x[j], l[j*d:j*d+j]
			xs := x[:len(row)]
			for k, lk := range row {
				xs[k] -= lk * xj
			}
		}
	}
}

// mvCholError describes a failed or non-finite MvNormalCholesky node.
func (p *Program) mvCholError(n *node) error {
	y, mu, l := p.arg(n, 0), p.arg(n, 1), p.arg(n, 2)
	d := l.shape.Rows
	if why := cholFactorBad(p.v(l), d); why != "" {
		return ast.Errorf(n.pos, "MvNormalCholesky: %s", why)
	}
	if n.i1 == 1 { // a term per row: the first that is not finite, alone
		r := max(firstBad(p.v(n)), 0)
		yr := p.v(y)[r*d : r*d+d]
		mr := p.v(mu)
		if rstep, _ := mvSteps(mu.shape, d); rstep > 0 {
			mr = mr[r*rstep : r*rstep+d]
		}
		mshape := mu.shape
		if mshape.Rank == 2 {
			mshape = Vector(d)
		}
		if k := firstBad(mr); k >= 0 {
			return ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("MvNormalCholesky: mu is %s", kind(mr[k])), elemPart(mshape, k)))
		}
		if k := firstBad(yr); k >= 0 {
			return ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("MvNormalCholesky: the value is %s", kind(yr[k])), elemPart(Vector(d), k)))
		}
		return ast.Errorf(n.pos, "MvNormalCholesky: log density is %s", kind(p.v(n)[r]))
	}
	if k := firstBad(p.v(mu)); k >= 0 {
		return ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("MvNormalCholesky: mu is %s", kind(p.v(mu)[k])), elemPart(mu.shape, k)))
	}
	if k := firstBad(p.v(y)); k >= 0 {
		return ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("MvNormalCholesky: the value is %s", kind(p.v(y)[k])), elemPart(y.shape, k)))
	}
	return ast.Errorf(n.pos, "MvNormalCholesky: log density is %s", kind(p.v(n)[0]))
}

// cholFactorBad says why the lower triangle of l [d, d] is not a Cholesky
// factor (a diagonal entry not > 0, an entry not finite), or "".
func cholFactorBad(l []float64, d int) string {
	if i := cholDiagBad(l, d); i >= 0 {
		return fmt.Sprintf("the diagonal of L must be > 0 (got %s at L[%d, %d])", short(l[i*d+i], 0), i, i)
	}
	for i := 0; i < d; i++ {
		for j := 0; j < i; j++ {
			if v := l[i*d+j]; math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Sprintf("L[%d, %d] is %g, not finite", i, j, v)
			}
		}
	}
	return ""
}
