package autodiff

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// Tile sizes for gemm: gonum's Dgemm starts goroutines (and allocates) when
// the output has 4 or more 64×64 blocks, so products are tiled into blocks
// it runs serially.
const (
	gemmRows = 64
	gemmCols = 192
)

func trans(t bool) blas.Transpose {
	if t {
		return blas.Trans
	}
	return blas.NoTrans
}

// parMinWork is the least number of multiply-adds of a product that
// Program.gemm shares with a team: a hand-off costs about a µs, some 2000
// multiply-adds.
const parMinWork = 8192

// gemm is the package's gemm, its rows shared with p's team when the
// product is large enough and the team has goroutines to spare.
func (p *Program) gemm(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if p.team != nil && m >= 2 && m*n*k >= parMinWork && p.team.Size() > 1 {
		p.gt = gemmTask{tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc}
		p.team.Run(&p.gt)
		p.gt = gemmTask{}
		return
	}
	gemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// gemmTask is a gemm whose parts are ranges of rows of c.
type gemmTask struct {
	tA, tB  bool
	m, n, k int
	alpha   float64
	a       []float64
	lda     int
	b       []float64
	ldb     int
	beta    float64
	c       []float64
	ldc     int
}

// RunPart computes rows [i·m/parts, (i+1)·m/parts) of c.
func (g *gemmTask) RunPart(i, parts int) {
	lo, hi := i*g.m/parts, (i+1)*g.m/parts
	if lo == hi {
		return
	}
	var a []float64 // op(a)'s rows lo…, as in gemm
	if g.tA {
		a = g.a[lo:]
	} else {
		a = g.a[lo*g.lda:]
	}
	gemm(g.tA, g.tB, hi-lo, g.n, g.k, g.alpha, a, g.lda, g.b, g.ldb, g.beta, g.c[lo*g.ldc:], g.ldc)
}

// gemm sets c = alpha op(a) op(b) + beta c for an m×n c, op(a) m×k and
// op(b) k×n, all row-major.
func gemm(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		scaleC(m, n, beta, c, ldc)
		return
	}
	impl := blas64.Implementation()
	for i0 := 0; i0 < m; i0 += gemmRows {
		mi := min(gemmRows, m-i0)
		var as []float64 // op(a)'s rows i0…: a's columns when tA (a[i0*lda:] may be past a's end)
		if tA {
			as = a[i0:]
		} else {
			as = a[i0*lda:]
		}
		for j0 := 0; j0 < n; j0 += gemmCols {
			nj := min(gemmCols, n-j0)
			bs := b[j0:]
			if tB {
				bs = b[j0*ldb:]
			}
			inner := nj // gemmSmall's inner loop: a row of c, or of a for a·bᵀ
			if !tA && tB {
				inner = k
			}
			if gemmSmallOK && inner <= smallGemmLen {
				gemmSmall(tA, tB, mi, nj, k, alpha, as, lda, bs, ldb, beta, c[i0*ldc+j0:], ldc)
				continue
			}
			impl.Dgemm(trans(tA), trans(tB), mi, nj, k, alpha, as, lda, bs, ldb, beta, c[i0*ldc+j0:], ldc)
		}
	}
}

// smallGemmLen is the longest inner loop that gemmSmall takes over from
// gonum's Dgemm: a row of c for the forms that add rows of op(b) (all but
// a·bᵀ), a row of a for a·bᵀ, which takes dot products. Dgemm calls an
// assembly kernel per such loop, whose call costs more than a short
// loop's work: a [N, 1] × [1, 3] product (cultivar's alcohol * B[0]') is
// 3N kernel calls of one or three multiply-adds.
const smallGemmLen = 8

// gemmSmall is gonum's Dgemm (c = alpha op(a) op(b) + beta c, serial, as
// gemm's tiles always are) written out in Go for short inner loops: the
// same operations in the same order as gonum's serial kernels
// (dgemmSerial*, with f64.AxpyUnitary, AxpyInc and DotUnitary's four
// partial sums), so the same bits (TestGemmSmallMatchesGonum), without a
// call per row. float64(x*y) keeps a product from being fused into an FMA,
// as gonum's SSE2 kernels do not fuse.
func gemmSmall(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if (alpha == 0 || k == 0) && beta == 1 {
		return
	}
	if beta != 1 {
		scaleC(m, n, beta, c, ldc)
	}
	switch {
	case !tA && !tB:
		for i := 0; i < m; i++ {
			cr := c[i*ldc : i*ldc+n]
			for l, v := range a[i*lda : i*lda+k] {
				if t := alpha * v; t != 0 {
					for j, x := range b[l*ldb : l*ldb+n] {
						cr[j] += float64(t * x)
					}
				}
			}
		}
	case tA && !tB:
		for l := 0; l < k; l++ {
			br := b[l*ldb : l*ldb+n]
			for i, v := range a[l*lda : l*lda+m] {
				if t := alpha * v; t != 0 {
					cr := c[i*ldc : i*ldc+n]
					for j, x := range br {
						cr[j] += float64(t * x)
					}
				}
			}
		}
	case !tA && tB && k == 1: // an outer product: dotUnitary of one element is 0 + x·y
		for i := 0; i < m; i++ {
			av := a[i*lda]
			cr := c[i*ldc : i*ldc+n]
			for j := range cr {
				cr[j] += float64(alpha * (0 + float64(av*b[j*ldb])))
			}
		}
	case !tA && tB:
		for i := 0; i < m; i++ {
			ar := a[i*lda : i*lda+k]
			cr := c[i*ldc : i*ldc+n]
			for j := range cr {
				cr[j] += float64(alpha * dotUnitary(ar, b[j*ldb:j*ldb+k]))
			}
		}
	default:
		for l := 0; l < k; l++ {
			for i, v := range a[l*lda : l*lda+m] {
				if t := alpha * v; t != 0 {
					cr := c[i*ldc : i*ldc+n]
					for j := range cr {
						cr[j] += float64(t * b[l+j*ldb])
					}
				}
			}
		}
	}
}

// scaleC sets the m×n matrix c to beta c; beta 0 clears it, as BLAS does
// (0·NaN would stay NaN).
func scaleC(m, n int, beta float64, c []float64, ldc int) {
	for i := 0; i < m; i++ {
		cr := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(cr)
			continue
		}
		for j := range cr {
			cr[j] *= beta
		}
	}
}

// dotUnitary is gonum's f64.DotUnitary on amd64: four partial sums over
// the elements by their index mod 4, the tail added to the first, then
// (s0 + s2) + (s1 + s3).
func dotUnitary(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += float64(x[i] * y[i])
		s1 += float64(x[i+1] * y[i+1])
		s2 += float64(x[i+2] * y[i+2])
		s3 += float64(x[i+3] * y[i+3])
	}
	for ; i < len(x); i++ {
		s0 += float64(x[i] * y[i])
	}
	return (s0 + s2) + (s1 + s3)
}

// syrk sets the r×r matrix c to X X' (tX false, X r×k) or X' X (tX true,
// X k×r), computing one triangle and mirroring it.
func syrk(tX bool, r, k int, x []float64, ldx int, c []float64) {
	if r == 0 {
		return
	}
	if k == 0 {
		clear(c[:r*r])
		return
	}
	// gonum's Dsyrk (v0.17) scales the old lower triangle by beta = 0
	// where x is transposed, so a NaN left there by a failed pass would
	// stay: clear it.
	clear(c[:r*r])
	blas64.Implementation().Dsyrk(blas.Lower, trans(tX), r, k, 1, x, ldx, 0, c, r)
	for i := 0; i < r; i++ {
		for j := i + 1; j < r; j++ {
			c[i*r+j] = c[j*r+i]
		}
	}
}

// gramTask is the Gram product X X' (X r×k, k ≥ 1) of evalMatMul cut into
// ranges of rows of its lower triangle, each part mirroring its rows into
// the upper one. Each element is the dot product that gonum's Dsyrk forms
// for it (alpha·Ddot of the two rows, alpha = 1, beta = 0, the dot's
// operands in Dsyrk's order), so the numbers are syrk's bit for bit
// however the rows are shared (TestGramTaskSameBits).
type gramTask struct {
	r, k int
	x    []float64
	ldx  int
	c    []float64
}

// gramRow returns the first row of part i of parts: the rows are cut so
// that each part has about the same share of the triangle's r(r+1)/2
// elements (row i has i+1).
func gramRow(r, i, parts int) int {
	if i >= parts {
		return r
	}
	return int(math.Sqrt(float64(r) * float64(r) * float64(i) / float64(parts)))
}

func (t *gramTask) RunPart(i, parts int) {
	lo, hi := gramRow(t.r, i, parts), gramRow(t.r, i+1, parts)
	impl := blas64.Implementation()
	r, k, x, c := t.r, t.k, t.x, t.c
	for a := lo; a < hi; a++ {
		xa := x[a*t.ldx : a*t.ldx+k]
		for b := 0; b <= a; b++ {
			v := impl.Ddot(k, x[b*t.ldx:b*t.ldx+k], 1, xa, 1)
			c[a*r+b] = v
			c[b*r+a] = v
		}
	}
}

// trsm solves op(L) X = B (left) or X op(L) = B (right) in place of the
// d×m (left) or m×d (right) matrix b, for a lower triangular d×d l.
func trsm(right, tL bool, l []float64, d int, b []float64, m int) {
	if d == 0 || m == 0 {
		return
	}
	side, rows, cols := blas.Left, d, m
	if right {
		side, rows, cols = blas.Right, m, d
	}
	blas64.Implementation().Dtrsm(side, blas.Lower, trans(tL), blas.NonUnit, rows, cols, 1, l, d, b, cols)
}

// trmm sets b = op(L) b (left) or b op(L) (right) for a lower triangular l.
func trmm(right, tL bool, l []float64, d int, b []float64, m int) {
	if d == 0 || m == 0 {
		return
	}
	side, rows, cols := blas.Left, d, m
	if right {
		side, rows, cols = blas.Right, m, d
	}
	blas64.Implementation().Dtrmm(side, blas.Lower, trans(tL), blas.NonUnit, rows, cols, 1, l, d, b, cols)
}

// asymmetric returns the first pair i > j where the d×d matrix a is not
// symmetric, beyond rounding: |a_ij − a_ji| > 1e-8 times the entry's scale
// max(√|a_ii a_jj|, |a_ij|, |a_ji|) (for a covariance, |a_ij| ≤ √(a_ii a_jj)).
// ok is false then. chol, logdet, solve and MvNormalRows take a symmetric
// matrix, as Stan's do; they used to symmetrise silently.
func asymmetric(a []float64, d int) (i, j int, ok bool) {
	for i := 1; i < d; i++ {
		for j := 0; j < i; j++ {
			x, y := a[i*d+j], a[j*d+i]
			if x == y {
				continue
			}
			scale := max(math.Sqrt(math.Abs(a[i*d+i]*a[j*d+j])), math.Abs(x), math.Abs(y))
			if math.Abs(x-y) > 1e-8*scale {
				return i, j, false
			}
		}
	}
	return 0, 0, true
}

// symLower writes the lower triangle of (a + a')/2 into l and zeros above.
func symLower(l, a []float64, d int) {
	for i := 0; i < d; i++ {
		for j := 0; j < i; j++ {
			l[i*d+j] = 0.5 * (a[i*d+j] + a[j*d+i])
		}
		l[i*d+i] = a[i*d+i]
		clear(l[i*d+i+1 : i*d+d])
	}
}

// cholesky factors the symmetric matrix whose lower triangle is in l, in
// place, leaving the lower factor L (upper triangle untouched, usually 0).
// It returns 0, or the order k of the first leading minor that is not
// positive definite.
func cholesky(l []float64, d int) int {
	for j := 0; j < d; j++ {
		rj := l[j*d : j*d+j]
		s := l[j*d+j] - dot(rj, rj)
		if !(s > 0) || math.IsInf(s, 0) {
			return j + 1
		}
		ljj := math.Sqrt(s)
		l[j*d+j] = ljj
		for i := j + 1; i < d; i++ {
			ri := l[i*d : i*d+j]
			l[i*d+j] = (l[i*d+j] - dot(ri, rj)) / ljj
		}
	}
	return 0
}

func dot(x, y []float64) float64 {
	y = y[:len(x)]
	s := 0.0
	for i, v := range x {
		s += v * y[i]
	}
	return s
}

// logDetChol returns log det(L L') = 2 Σ log L_ii.
func logDetChol(l []float64, d int) float64 {
	s := 0.0
	for i := 0; i < d; i++ {
		s += math.Log(l[i*d+i])
	}
	return 2 * s
}

// cholSolve overwrites the d×m matrix b with (L L')⁻¹ b.
func cholSolve(l []float64, d int, b []float64, m int) {
	trsm(false, false, l, d, b, m)
	trsm(false, true, l, d, b, m)
}

// potriMax is the largest order inverted by LAPACK's dpotri (L⁻¹ by dtrtri,
// then L⁻ᵀ L⁻¹ by dlauum: 2d³/3 flops against d³ for two triangular solves
// with the identity); above it dlauum's products are big enough for gonum's
// Dgemm to go parallel, which allocates.
const potriMax = 4 * 64

// cholInverse sets ci = (L L')⁻¹ from the lower factor L (only its lower
// triangle is read).
func cholInverse(ci, l []float64, d int) {
	if d <= potriMax {
		copy(ci[:d*d], l[:d*d])
		if _, ok := lapack64.Potri(blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: d, Stride: d, Data: ci}); ok {
			for i := 0; i < d; i++ {
				for j := i + 1; j < d; j++ {
					ci[i*d+j] = ci[j*d+i]
				}
			}
			return
		}
	}
	clear(ci[:d*d])
	for i := 0; i < d; i++ {
		ci[i*d+i] = 1
	}
	cholSolve(l, d, ci, d)
}

// cholGrad adds to ga the adjoint of A for L = chol(sym(A)) given the
// adjoint gl of L (only its lower triangle counts), using w (d×d) as
// scratch:
//
//	P = Φ(L' tril(gl)),  S = L⁻ᵀ P L⁻¹,  ga += (S + S')/2
//
// where Φ keeps the lower triangle and halves the diagonal.
func cholGrad(ga, gl, l, w []float64, d int) {
	for i := 0; i < d; i++ {
		copy(w[i*d:i*d+i+1], gl[i*d:i*d+i+1])
		clear(w[i*d+i+1 : i*d+d])
	}
	trmm(false, true, l, d, w, d) // w = L' tril(gl)
	for i := 0; i < d; i++ {
		w[i*d+i] *= 0.5
		clear(w[i*d+i+1 : i*d+d])
	}
	trsm(false, true, l, d, w, d) // w = L⁻ᵀ w
	trsm(true, false, l, d, w, d) // w = w L⁻¹
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			ga[i*d+j] += 0.5 * (w[i*d+j] + w[j*d+i])
		}
	}
}

// luFactor overwrites the d×d matrix a with its LU factors under partial
// pivoting, P A = L U (L unit lower triangular below the diagonal, U on
// and above it), and records in piv the row swapped into each position.
// It returns the sign of the permutation and 1 + the index of the first
// zero pivot (0 when A is not singular).
func luFactor(a []float64, d int, piv []float64) (sign float64, zero int) {
	sign = 1
	for k := 0; k < d; k++ {
		p := k
		for i := k + 1; i < d; i++ {
			if math.Abs(a[i*d+k]) > math.Abs(a[p*d+k]) {
				p = i
			}
		}
		piv[k] = float64(p)
		if p != k {
			for j := 0; j < d; j++ {
				a[k*d+j], a[p*d+j] = a[p*d+j], a[k*d+j]
			}
			sign = -sign
		}
		pk := a[k*d+k]
		if pk == 0 {
			if zero == 0 {
				zero = k + 1
			}
			continue
		}
		for i := k + 1; i < d; i++ {
			f := a[i*d+k] / pk
			a[i*d+k] = f
			if f != 0 {
				for j := k + 1; j < d; j++ {
					a[i*d+j] -= f * a[k*d+j]
				}
			}
		}
	}
	return sign, zero
}

// luSolve overwrites the d×m matrix b with A⁻¹ b from luFactor's factors
// and pivots of a non-singular A.
func luSolve(lu []float64, d int, piv []float64, b []float64, m int) {
	for k := 0; k < d; k++ {
		if p := int(piv[k]); p != k {
			for j := 0; j < m; j++ {
				b[k*m+j], b[p*m+j] = b[p*m+j], b[k*m+j]
			}
		}
	}
	for i := 0; i < d; i++ { // L y = P b, L unit lower
		for k := 0; k < i; k++ {
			if f := lu[i*d+k]; f != 0 {
				for j := 0; j < m; j++ {
					b[i*m+j] -= f * b[k*m+j]
				}
			}
		}
	}
	for i := d - 1; i >= 0; i-- { // U x = y
		for k := i + 1; k < d; k++ {
			if f := lu[i*d+k]; f != 0 {
				for j := 0; j < m; j++ {
					b[i*m+j] -= f * b[k*m+j]
				}
			}
		}
		u := lu[i*d+i]
		for j := 0; j < m; j++ {
			b[i*m+j] /= u
		}
	}
}

// luInverse sets inv = A⁻¹ from the factors.
func luInverse(inv, lu []float64, d int, piv []float64) {
	clear(inv[:d*d])
	for i := 0; i < d; i++ {
		inv[i*d+i] = 1
	}
	luSolve(lu, d, piv, inv, d)
}

// evalLU evaluates OpInverse, OpDeterminant and OpLogAbsDet into z, with
// the factors, the pivots and (for the reverse sweep) the inverse in
// scratch [lu | inv | piv]; it reports false, with p.fail the zero
// pivot's position, when A is singular and the value needs its inverse
// or is −∞ (the determinant of a singular matrix is 0).
func (p *Program) evalLU(n *node, z []float64) bool {
	a := p.arg(n, 0)
	d := a.shape.Rows
	scr := p.s(n)
	lu, inv, piv := scr[:d*d], scr[d*d:2*d*d], scr[2*d*d:]
	copy(lu, p.v(a))
	sign, zero := luFactor(lu, d, piv)
	if zero > 0 && n.op != OpDeterminant {
		p.fail = zero
		return false
	}
	switch n.op {
	case OpInverse:
		luInverse(z, lu, d, piv)
	case OpDeterminant:
		det := sign
		for i := 0; i < d; i++ {
			det *= lu[i*d+i]
		}
		z[0] = det
		if zero == 0 {
			luInverse(inv, lu, d, piv)
		}
	case OpLogAbsDet:
		s := 0.0
		for i := 0; i < d; i++ {
			s += math.Log(math.Abs(lu[i*d+i]))
		}
		z[0] = s
		luInverse(inv, lu, d, piv)
	}
	return true
}

// gradLU adds the adjoints of OpInverse (−Zᵀ G Zᵀ for Z = A⁻¹),
// OpDeterminant (g det A · A⁻ᵀ; NaN for a singular A, whose adjugate is
// not computed) and OpLogAbsDet (g A⁻ᵀ).
func (p *Program) gradLU(n *node, g []float64) {
	a := p.arg(n, 0)
	if a.aoff < 0 {
		return
	}
	d := a.shape.Rows
	scr := p.s(n)
	ga := p.a(a)
	switch n.op {
	case OpInverse:
		z, t := p.v(n), scr[d*d:2*d*d]
		p.gemm(true, false, d, d, d, 1, z, d, g, d, 0, t, d)   // t = Zᵀ G
		p.gemm(false, true, d, d, d, -1, t, d, z, d, 1, ga, d) // ga −= t Zᵀ
	case OpDeterminant, OpLogAbsDet:
		c := g[0]
		if n.op == OpDeterminant {
			c *= p.v(n)[0]
		}
		inv := scr[d*d : 2*d*d]
		if n.op == OpDeterminant && p.v(n)[0] == 0 {
			c = math.NaN()
		}
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				ga[i*d+j] += c * inv[j*d+i]
			}
		}
	}
}
