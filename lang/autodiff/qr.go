package autodiff

import (
	"fmt"
	"math"

	"github.com/gpplang/gpp/lang/ast"
	"gonum.org/v1/gonum/lapack/gonum"
)

// Stan's QR and SVD factors and chol2inv. The QR factors are Householder
// reflections (LAPACK's unblocked dgeqr2 and dorg2r, so a step allocates
// nothing), signed as Stan signs them: R's diagonal non-negative. The
// thin factors have a reverse sweep (full rank); the fat ones, whose
// extra columns of Q are not a function of A, are for data (the checker
// refuses a param argument). The singular vectors come from
// singular_values' Jacobi SVD and have a reverse sweep (distinct, non-zero
// singular values).

// QR forms: the i0 of an OpQR node.
const (
	QRThinQ = iota // Q [m, k], k = min(m, n) (Stan's qr_thin_Q)
	QRThinR        // R [k, n] (qr_thin_R)
	QRFatQ         // Q [m, m] (qr_Q)
	QRFatR         // R [m, n], zero below row k (qr_R)
)

var qrNames = [...]string{"qr_thin_Q", "qr_thin_R", "qr_Q", "qr_R"}

// qrParts splits an OpQR node's scratch for A [m, n], k = min(m, n):
// the factored A (R above the diagonal, the reflectors below), tau, the
// work of dgeqr2 and dorg2r, Q (m × qc: k columns, or m for the fat Q),
// and the reverse sweep's buffers.
func qrParts(scr []float64, m, n, qc int) (f, tau, work, q, rest []float64) {
	k := min(m, n)
	o := 0
	next := func(l int) []float64 { s := scr[o : o+l]; o += l; return s }
	f, tau, work, q = next(m*n), next(k), next(max(m, n)), next(m*qc)
	return f, tau, work, q, scr[o:]
}

// qrGradWork is the reverse sweep's scratch for A [m, n]: R̄ in full, Q̄'
// and B [m, k], M and Rᵀ [k, k].
func qrGradWork(m, n int) int {
	k := min(m, n)
	return k*n + 2*m*k + 2*k*k
}

// QR returns one factor of the QR decomposition of A [m, n] (form is
// QRThinQ, QRThinR, QRFatQ or QRFatR), with R's diagonal non-negative
// as Stan makes it. The thin factors' derivative needs A of full rank
// min(m, n); an A without it is an error where the log joint reads a
// param's factor.
func (b *Builder) QR(form int, a ID, pos ast.Pos) ID {
	args, ok := b.operands(a)
	if !ok {
		return b.invalid(pos)
	}
	s := b.shapeOf(args[0])
	if s.Rank == 0 { // a vector is a column [n, 1], as the tape keeps to_matrix(x, n, 1)
		return b.fail(pos, "%s: needs a matrix, got %s", qrNames[form], s)
	}
	m, n := s.Rows, s.Cols
	k := min(m, n)
	var shape Shape
	qc := k
	switch form {
	case QRThinQ:
		shape = Matrix(m, k)
	case QRThinR:
		shape = Matrix(k, n)
	case QRFatQ:
		shape, qc = Matrix(m, m), m
	case QRFatR:
		shape = Matrix(m, n)
	}
	nscr := m*n + k + max(m, n) + m*qc
	if form == QRThinQ || form == QRThinR {
		nscr += qrGradWork(m, n)
	}
	return b.push(node{op: OpQR, args: args, shape: shape, pos: pos, i0: form, nscr: nscr})
}

// qrSign is the sign Stan gives row i of R and column i of Q: −1 where
// the Householder factorisation f (n columns) left R[i, i] negative.
func qrSign(f []float64, n, i int) float64 {
	if f[i*n+i] < 0 {
		return -1
	}
	return 1
}

// qrRankTol is the relative size below which a diagonal element of R
// counts as zero: A is rank-deficient to rounding, R⁻¹ (which the thin
// factors' derivative needs) does not exist in floating point.
func qrRankTol(m, n int) float64 { return float64(max(m, n)) * 0x1p-52 }

// evalQR factors A by Householder reflections and writes the node's
// factor; a thin factor in the log joint of a param's matrix that is
// rank-deficient fails with fail = j + 1 for the zero diagonal element
// R[j, j] (an output's factor needs no derivative and is computed).
func (p *Program) evalQR(n *node, z []float64) bool {
	a := p.arg(n, 0)
	m, nc := a.shape.Rows, a.shape.Cols
	k := min(m, nc)
	qc := k
	if n.i0 == QRFatQ {
		qc = m
	}
	f, tau, work, q, _ := qrParts(p.s(n), m, nc, qc)
	copy(f, p.v(a))
	for _, x := range f {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			for i := range z {
				z[i] = math.NaN()
			}
			return true // the NaN is reported at z, naming the argument
		}
	}
	if k == 0 { // an empty A: no reflectors (LAPACK refuses a zero leading dimension)
		clear(z)
		if n.i0 == QRFatQ {
			for i := 0; i < m; i++ {
				z[i*m+i] = 1
			}
		}
		return true
	}
	impl := gonum.Implementation{}
	impl.Dgeqr2(m, nc, f, nc, tau, work)
	if n.i0 == QRThinR || n.i0 == QRFatR {
		clear(z)
		for i := 0; i < k; i++ {
			sg := qrSign(f, nc, i)
			for j := i; j < nc; j++ {
				z[i*nc+j] = sg * f[i*nc+j]
			}
		}
	}
	if n.i0 == QRThinQ || n.i0 == QRThinR {
		top := 0.0
		for i := 0; i < k; i++ {
			top = max(top, math.Abs(f[i*nc+i]))
		}
		if a.aoff >= 0 && n.joint { // the log joint's gradient needs R⁻¹
			for i := 0; i < k; i++ {
				if !(math.Abs(f[i*nc+i]) > qrRankTol(m, nc)*top) {
					p.fail = i + 1
					return false
				}
			}
		}
	}
	if n.i0 == QRFatR || n.i0 == QRThinR && a.aoff < 0 {
		return true // Q only for the reverse sweep
	}
	// Q: the reflectors in its first k columns, then dorg2r
	clear(q)
	for i := 0; i < m; i++ {
		for j := 0; j < min(i, k); j++ {
			q[i*qc+j] = f[i*nc+j]
		}
	}
	impl.Dorg2r(m, qc, k, q, qc, tau, work)
	for j := 0; j < k; j++ {
		if qrSign(f, nc, j) < 0 {
			for i := 0; i < m; i++ {
				q[i*qc+j] = -q[i*qc+j]
			}
		}
	}
	if n.i0 == QRThinQ || n.i0 == QRFatQ {
		copy(z, q)
	}
	return true
}

// gradQR adds A's adjoint for a thin factor (Liao, Liu, Wang and Xiang
// 2019, "Differentiable programming tensor networks", eq. 6 and its wide
// case; Walter and Lehmann 2018): for m ≥ n,
// Ā = (Q̄ + Q copyltu(M)) R⁻ᵀ with M = R R̄ᵀ − Q̄ᵀ Q and copyltu(M) the
// symmetric matrix of M's lower triangle. For m < n, A = [X Y] and
// R = [U V] with X = Q U: X̄ is that formula at (Q, U) with Q̄ + Y V̄ᵀ
// for Q̄, and Ȳ = Q V̄. One of Q̄ and R̄ is zero (the node is one factor).
func (p *Program) gradQR(n *node, g []float64) {
	a := p.arg(n, 0)
	if a.aoff < 0 || n.i0 == QRFatQ || n.i0 == QRFatR { // the fat forms take data (the checker)
		return
	}
	m, nc := a.shape.Rows, a.shape.Cols
	k := min(m, nc)
	if k == 0 { // an empty factor: nothing flows back
		return
	}
	f, _, _, q, rest := qrParts(p.s(n), m, nc, k)
	rb, qb, bb := rest[:k*nc], rest[k*nc:k*nc+m*k], rest[k*nc+m*k:k*nc+2*m*k]
	mm, rt := rest[k*nc+2*m*k:k*nc+2*m*k+k*k], rest[k*nc+2*m*k+k*k:k*nc+2*m*k+2*k*k]
	// R's leading k×k block, transposed into rt (lower), with Stan's signs
	clear(rt)
	for i := 0; i < k; i++ {
		sg := qrSign(f, nc, i)
		for j := i; j < k; j++ {
			rt[j*k+i] = sg * f[i*nc+j]
		}
	}
	clear(rb)
	clear(qb)
	if n.i0 == QRThinQ {
		copy(qb, g)
	} else {
		copy(rb, g)
	}
	aa, av := p.a(a), p.v(a)
	if nc > k && n.i0 == QRThinR { // Q̄ += Y V̄ᵀ, Ȳ = Q V̄
		for i := 0; i < m; i++ {
			for j := 0; j < k; j++ {
				s := 0.0
				for c := k; c < nc; c++ {
					s += av[i*nc+c] * rb[j*nc+c]
				}
				qb[i*k+j] += s
			}
			for c := k; c < nc; c++ {
				s := 0.0
				for j := 0; j < k; j++ {
					s += q[i*k+j] * rb[j*nc+c]
				}
				aa[i*nc+c] += s
			}
		}
	}
	// M = U Ūᵀ − Q̄ᵀ Q, with U = rtᵀ and Ū R̄'s leading block
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			s := 0.0
			for l := i; l < k; l++ { // U is upper triangular
				s += rt[l*k+i] * rb[j*nc+l]
			}
			mm[i*k+j] = s
		}
	}
	gemm(true, false, k, k, m, -1, qb, k, q, k, 1, mm, k)
	for i := 0; i < k; i++ { // copyltu
		for j := i + 1; j < k; j++ {
			mm[i*k+j] = mm[j*k+i]
		}
	}
	copy(bb, qb)
	gemm(false, false, m, k, k, 1, q, k, mm, k, 1, bb, k) // B = Q̄ + Q copyltu(M)
	trsm(true, false, rt, k, bb, m)                       // B U⁻ᵀ: X Uᵀ = B
	for i := 0; i < m; i++ {
		for j := 0; j < k; j++ {
			aa[i*nc+j] += bb[i*k+j]
		}
	}
}

// SVDVectors returns the left (v false: U [m, k]) or right (v true:
// V [n, k]) singular vectors of A [m, n], k = min(m, n), as columns in
// the order of singular_values (descending). Each pair is signed so that
// the largest element of u (the first of equal magnitude) is positive;
// a singular value of zero gets a unit u orthogonal to the others. The
// derivative needs distinct, non-zero singular values.
func (b *Builder) SVDVectors(v bool, a ID, pos ast.Pos) ID {
	args, ok := b.operands(a)
	if !ok {
		return b.invalid(pos)
	}
	s := b.shapeOf(args[0])
	if s.Rank == 0 { // a vector is a column [n, 1], as the tape keeps to_matrix(x, n, 1)
		return b.fail(pos, "%s: needs a matrix, got %s", [...]string{"svd_U", "svd_V"}[b2i(v)], s)
	}
	r, k := max(s.Rows, s.Cols), min(s.Rows, s.Cols)
	shape := Matrix(s.Rows, k)
	if v {
		shape = Matrix(s.Cols, k)
	}
	// svdParts, then a residual [r], the pairs' signs [k], and the
	// reverse sweep's Ū, P [r, k] and V̄, M1, M2 [k, k]
	nscr := r*k + k*k + 3*k + r + k + 2*r*k + 3*k*k
	return b.push(node{op: OpSVDVec, args: args, shape: shape, pos: pos, i0: b2i(v), nscr: nscr})
}

func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}

// svdVecParts splits an OpSVDVec node's scratch past svdParts.
func svdVecParts(scr []float64, r, k int) (res, sgn, ub, pm, vb, m1, m2 []float64) {
	o := r*k + k*k + 3*k
	next := func(l int) []float64 { s := scr[o : o+l]; o += l; return s }
	return next(r), next(k), next(r * k), next(r * k), next(k * k), next(k * k), next(k * k)
}

// evalSVDVectors runs singular_values' Jacobi SVD and writes U or V.
func (p *Program) evalSVDVectors(n *node, z []float64) bool {
	a := p.arg(n, 0)
	m, nc := a.shape.Rows, a.shape.Cols
	r, k := max(m, nc), min(m, nc)
	w, v, perm, _, sig, ok := p.svdFactor(n)
	if !ok {
		return false
	}
	res, sgn, _, _, _, _, _ := svdVecParts(p.s(n), r, k)
	top := 0.0
	for _, s := range sig {
		top = max(top, s)
	}
	// w's columns of zero (or rounding-level) singular values: a unit
	// vector orthogonal to the others, from the basis vector e_i that
	// leaves the largest residual (Gram-Schmidt, twice)
	tol := float64(r) * 0x1p-52 * top
	for j := 0; j < k; j++ {
		if sig[j] > tol {
			continue
		}
		best, bestNorm := 0, -1.0
		for i := 0; i < r; i++ {
			clear(res)
			res[i] = 1
			if nr := orthoResidual(res, w, r, k, j, sig, tol); nr > bestNorm+1e-12 {
				best, bestNorm = i, nr
			}
		}
		clear(res)
		res[best] = 1
		nr := orthoResidual(res, w, r, k, j, sig, tol)
		for i := 0; i < r; i++ {
			w[i*k+j] = res[i] / nr
		}
	}
	u, vv := w, v // A = u Σ vvᵀ
	if m < nc {
		u, vv = v, w
	}
	out, rows := u, m
	if n.i0 == 1 {
		out, rows = vv, nc
	}
	for l, jf := range perm {
		j := int(jf)
		sgn[l] = colSign(u, m, k, j)
		for i := 0; i < rows; i++ {
			z[i*k+l] = sgn[l] * out[i*k+j]
		}
	}
	return true
}

// svdDegenerate returns 0 when the singular values sig (descending
// in the order perm) are distinct and, with zero a concern (a
// non-square A, whose singular vectors' derivative divides by σ),
// non-zero, all to tol; else 2 + 2l for the l-th and next being equal,
// 3 + 2l for the l-th being zero (svdDegenerateMsg says which). The
// value is fine there; the gradient is not finite.
func svdDegenerate(sig, perm []float64, tol float64, zero bool) int {
	for l, j := range perm {
		s := sig[int(j)]
		if zero && !(s > tol) {
			return 3 + 2*l
		}
		if l+1 < len(perm) && !(s-sig[int(perm[l+1])] > tol) {
			return 2 + 2*l
		}
	}
	return 0
}

// svdGradError explains a gradient of OpSVDVec node n that is not
// finite by its singular values, or returns "" if they are distinct and
// non-zero.
func (p *Program) svdGradError(n *node) string {
	a := p.arg(n, 0)
	r, k := max(a.shape.Rows, a.shape.Cols), min(a.shape.Rows, a.shape.Cols)
	_, _, perm, _, sig := svdParts(p.s(n), r, k)
	top := 0.0
	for _, s := range sig {
		top = max(top, s)
	}
	f := svdDegenerate(sig, perm, float64(r)*0x1p-52*top, r > k)
	if f == 0 {
		return ""
	}
	return svdDegenerateMsg(p.label(n), f, sig, perm)
}

// svdDegenerateMsg explains svdDegenerate's f for the singular values
// sig in the order perm.
func svdDegenerateMsg(name string, f int, sig, perm []float64) string {
	l := (f - 2) / 2
	s := short(sig[int(perm[l])])
	if f%2 == 1 {
		return fmt.Sprintf("%s: singular value %d (%s) is zero to rounding, so the singular vectors have no derivative: a param's matrix needs distinct, non-zero singular values", name, l, s)
	}
	return fmt.Sprintf("%s: singular values %d and %d are equal to rounding (%s and %s), so the singular vectors have no derivative: a param's matrix needs distinct, non-zero singular values",
		name, l, l+1, s, short(sig[int(perm[l+1])]))
}

// orthoResidual removes from x [r] its components along the columns l ≠ j
// of w (r × k) that are set (σ_l above tol, or completed already: l < j),
// twice, and returns the norm of what is left.
func orthoResidual(x, w []float64, r, k, j int, sig []float64, tol float64) float64 {
	for pass := 0; pass < 2; pass++ {
		for l := 0; l < k; l++ {
			if l == j || sig[l] <= tol && l > j {
				continue
			}
			d := 0.0
			for i := 0; i < r; i++ {
				d += w[i*k+l] * x[i]
			}
			for i := 0; i < r; i++ {
				x[i] -= d * w[i*k+l]
			}
		}
	}
	s := 0.0
	for _, v := range x[:r] {
		s += v * v
	}
	return math.Sqrt(s)
}

// gradSVDVectors adds A's adjoint for U or V (Townsend 2016,
// "Differentiating the singular value decomposition"), in the tall
// orientation T = W Σ Vᵀ (T = A, or Aᵀ when A is wide; W [r, k], V
// [k, k] orthogonal) with adjoints W̄ and V̄:
// T̄ = [W (J Σ + Σ K) + (I − W Wᵀ) W̄ Σ⁻¹] Vᵀ, J = F ∘ (WᵀW̄ − W̄ᵀW),
// K = F ∘ (VᵀV̄ − V̄ᵀV), F_ij = 1/(σ_j² − σ_i²) off the diagonal, 0 on
// it. Equal or zero singular values give a gradient that is not finite.
func (p *Program) gradSVDVectors(n *node, g []float64) {
	a := p.arg(n, 0)
	if a.aoff < 0 {
		return
	}
	m, nc := a.shape.Rows, a.shape.Cols
	r, k := max(m, nc), min(m, nc)
	scr := p.s(n)
	w, v, perm, _, sig := svdParts(scr, r, k)
	_, sgn, ub, pm, vb, m1, m2 := svdVecParts(scr, r, k)
	clear(ub)
	clear(vb)
	// the output's columns back to W's or V's, unsigned: A's U is W when
	// A is tall, V when wide
	toW := (n.i0 == 0) == (m >= nc)
	for l, jf := range perm {
		j := int(jf)
		if toW {
			for i := 0; i < r; i++ {
				ub[i*k+j] = sgn[l] * g[i*k+l]
			}
		} else {
			for i := 0; i < k; i++ {
				vb[i*k+j] = sgn[l] * g[i*k+l]
			}
		}
	}
	gemm(true, false, k, k, r, 1, w, k, ub, k, 0, m1, k) // Wᵀ W̄
	gemm(true, false, k, k, k, 1, v, k, vb, k, 0, m2, k) // Vᵀ V̄
	// D = J Σ + Σ K − (Wᵀ W̄) Σ⁻¹ into pm's leading k×k (pm is free yet)
	d := pm[:k*k]
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			x := -m1[i*k+j] / sig[j]
			if i != j {
				f := 1 / ((sig[j] - sig[i]) * (sig[j] + sig[i]))
				x += f*(m1[i*k+j]-m1[j*k+i])*sig[j] + sig[i]*f*(m2[i*k+j]-m2[j*k+i])
			}
			d[i*k+j] = x
		}
	}
	copy(m2, d) // m2 = D; pm = W D + W̄ Σ⁻¹
	for i := 0; i < r; i++ {
		for j := 0; j < k; j++ {
			pm[i*k+j] = ub[i*k+j] / sig[j]
		}
	}
	gemm(false, false, r, k, k, 1, w, k, m2, k, 1, pm, k)
	ga := p.a(a)
	if m >= nc { // Ā += P Vᵀ
		gemm(false, true, r, k, k, 1, pm, k, v, k, 1, ga, nc)
		return
	}
	gemm(false, true, k, r, k, 1, v, k, pm, k, 1, ga, nc) // Ā += (P Vᵀ)ᵀ = V Pᵀ
}

// Chol2Inv returns (L Lᵀ)⁻¹ from a lower-triangular L with a positive
// diagonal (Stan's chol2inv), by cholInverse. A non-zero element above
// the diagonal, or a diagonal element that is not positive, is an error
// at the call.
func (b *Builder) Chol2Inv(l ID, pos ast.Pos) ID {
	args, ok := b.operands(l)
	if !ok {
		return b.invalid(pos)
	}
	if !b.square(OpChol2Inv, "factor", args[0], pos) {
		return b.invalid(pos)
	}
	d := b.shapeOf(args[0]).Rows
	return b.push(node{op: OpChol2Inv, args: args, shape: Matrix(d, d), pos: pos, nscr: 2 * d * d}) // gradChol2Inv's products
}

// evalChol2Inv: fail is i + 1 for a diagonal element L[i, i] ≤ 0 and
// −(i·d + j + 1) for a non-zero L[i, j] above the diagonal.
func (p *Program) evalChol2Inv(n *node, z []float64) bool {
	a := p.arg(n, 0)
	d := a.shape.Rows
	lv := p.v(a)
	for i := 0; i < d; i++ {
		if !(lv[i*d+i] > 0) || math.IsInf(lv[i*d+i], 0) {
			p.fail = i + 1
			return false
		}
		for j := i + 1; j < d; j++ {
			if lv[i*d+j] != 0 {
				p.fail = -(i*d + j + 1)
				return false
			}
		}
	}
	cholInverse(z, lv, d)
	return true
}

// gradChol2Inv: Z = (L Lᵀ)⁻¹, so Z̄ = G gives the adjoint of A = L Lᵀ as
// −Z G Z, and L's as (Ā + Āᵀ) L on and below the diagonal.
func (p *Program) gradChol2Inv(n *node, g []float64) {
	a := p.arg(n, 0)
	if a.aoff < 0 {
		return
	}
	d := a.shape.Rows
	z, lv, al := p.v(n), p.v(a), p.a(a)
	t, u := p.s(n)[:d*d], p.s(n)[d*d:2*d*d]
	gemm(false, false, d, d, d, 1, z, d, g, d, 0, t, d)  // Z G
	gemm(false, false, d, d, d, -1, t, d, z, d, 0, u, d) // Ā = −Z G Z
	for i := 0; i < d; i++ {
		for j := 0; j <= i; j++ {
			s := 0.0
			for c := j; c < d; c++ { // L[c, j] = 0 for c < j
				s += (u[i*d+c] + u[c*d+i]) * lv[c*d+j]
			}
			al[i*d+j] += s
		}
	}
}
