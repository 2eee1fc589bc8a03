package autodiff

import (
	"math"

	"github.com/gpplang/gpp/lang/ast"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"
)

// Stan's matrix functions beyond factorisations: the matrix exponential
// (linear ODEs, compartment models), sorting, and the symmetric
// eigendecomposition and singular values. Each keeps what its reverse
// sweep needs in the node's scratch, so a step allocates nothing.

// pade13 are the coefficients b_0 … b_13 of the [13/13] Padé approximant
// of exp (Higham 2005, "The scaling and squaring method for the matrix
// exponential revisited", SIAM J. Matrix Anal. Appl. 26(4), table 2.3).
var pade13 = [14]float64{
	64764752532480000, 32382376266240000, 7771770303897600, 1187353796428800,
	129060195264000, 10559470521600, 670442572800, 33522128640,
	1323241920, 40840800, 960960, 16380, 182, 1,
}

// theta13 is the largest 1-norm of 2⁻ˢA for which the [13/13] approximant
// has backward error below the unit roundoff (Higham 2005, table 2.3).
const theta13 = 5.371920351148152

// expmWork is the scratch expm needs for an n×n matrix.
func expmWork(n int) int { return 7*n*n + n }

// norm1 returns the 1-norm (largest column sum of magnitudes) of the n×n
// matrix a.
func norm1(a []float64, n int) float64 {
	m := 0.0
	for j := 0; j < n; j++ {
		s := 0.0
		for i := 0; i < n; i++ {
			s += math.Abs(a[i*n+j])
		}
		if !(s <= m) { // a NaN column wins
			m = s
		}
	}
	return m
}

// expm sets z = exp(a) for the n×n matrix a by scaling and squaring:
// exp(A) = r(2⁻ˢA)^(2ˢ) with r the [13/13] Padé approximant, s the least
// that brings the 1-norm to theta13 (Higham 2005, algorithm 2.3, with its
// largest degree only). w holds expmWork(n) values. A non-finite a gives
// a NaN z.
func expm(z, a []float64, n int, w []float64) {
	nn := n * n
	if n == 0 {
		return
	}
	norm := norm1(a, n)
	if math.IsNaN(norm) || math.IsInf(norm, 0) {
		for i := range z[:nn] {
			z[i] = math.NaN()
		}
		return
	}
	a1, a2, a4, a6, u, v, t := w[:nn], w[nn:2*nn], w[2*nn:3*nn], w[3*nn:4*nn], w[4*nn:5*nn], w[5*nn:6*nn], w[6*nn:7*nn]
	piv := w[7*nn : 7*nn+n]
	s := 0
	if norm > theta13 {
		s = int(math.Ceil(math.Log2(norm / theta13)))
	}
	scale := math.Ldexp(1, -s)
	for i, x := range a[:nn] {
		a1[i] = x * scale
	}
	gemm(false, false, n, n, n, 1, a1, n, a1, n, 0, a2, n)
	gemm(false, false, n, n, n, 1, a2, n, a2, n, 0, a4, n)
	gemm(false, false, n, n, n, 1, a4, n, a2, n, 0, a6, n)
	b := &pade13
	// U = A [A6 (b13 A6 + b11 A4 + b9 A2) + b7 A6 + b5 A4 + b3 A2 + b1 I]
	for i := range t {
		t[i] = b[13]*a6[i] + b[11]*a4[i] + b[9]*a2[i]
	}
	gemm(false, false, n, n, n, 1, a6, n, t, n, 0, v, n)
	for i := range v {
		v[i] += b[7]*a6[i] + b[5]*a4[i] + b[3]*a2[i]
	}
	for i := 0; i < n; i++ {
		v[i*n+i] += b[1]
	}
	gemm(false, false, n, n, n, 1, a1, n, v, n, 0, u, n)
	// V = A6 (b12 A6 + b10 A4 + b8 A2) + b6 A6 + b4 A4 + b2 A2 + b0 I
	for i := range t {
		t[i] = b[12]*a6[i] + b[10]*a4[i] + b[8]*a2[i]
	}
	gemm(false, false, n, n, n, 1, a6, n, t, n, 0, v, n)
	for i := range v {
		v[i] += b[6]*a6[i] + b[4]*a4[i] + b[2]*a2[i]
	}
	for i := 0; i < n; i++ {
		v[i*n+i] += b[0]
	}
	// r = (V − U)⁻¹ (V + U)
	for i := range v {
		z[i] = v[i] + u[i]
		v[i] -= u[i]
	}
	if _, zero := luFactor(v, n, piv); zero > 0 {
		for i := range z[:nn] {
			z[i] = math.NaN()
		}
		return
	}
	luSolve(v, n, piv, z, n)
	for ; s > 0; s-- {
		gemm(false, false, n, n, n, 1, z, n, z, n, 0, t, n)
		copy(z[:nn], t)
	}
}

// expmGradWork is the scratch gradExpm needs for an n×n matrix.
func expmGradWork(n int) int { return 8*n*n + expmWork(2*n) }

// gradExpm adds to ga the adjoint of A for Z = exp(A) given Z's adjoint g:
// the Fréchet derivative of exp at Aᵀ in the direction G, read off the
// upper right block of exp([[Aᵀ, G], [0, Aᵀ]]) (Najfeld and Havel 1995;
// Higham, "Functions of Matrices" 2008, thm. 3.6 and eq. 10.43). G is
// scaled to A's norm first, L being linear in G, so that the block's
// scaling suits A.
func gradExpm(ga, g, a []float64, n int, w []float64) {
	na, ng := norm1(a, n), norm1(g, n)
	if ng == 0 {
		return
	}
	c := 1.0
	if na > 0 && !math.IsInf(ng, 0) && !math.IsNaN(ng) {
		c = na / ng
	}
	m := 2 * n
	blk, e := w[:m*m], w[m*m:2*m*m]
	clear(blk)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			at := a[j*n+i]
			blk[i*m+j] = at
			blk[(n+i)*m+n+j] = at
			blk[i*m+n+j] = c * g[i*n+j]
		}
	}
	expm(e, blk, m, w[2*m*m:])
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			ga[i*n+j] += e[i*m+n+j] / c
		}
	}
}

// MatrixExp returns exp(A) of a square matrix (Stan's matrix_exp).
func (b *Builder) MatrixExp(a ID, pos ast.Pos) ID {
	args, ok := b.operands(a)
	if !ok {
		return b.invalid(pos)
	}
	if !b.square(OpMatrixExp, "matrix", args[0], pos) {
		return b.invalid(pos)
	}
	n := b.shapeOf(args[0]).Rows
	// expmGradWork covers the forward pass's expmWork
	return b.push(node{op: OpMatrixExp, args: args, shape: Matrix(n, n), pos: pos, nscr: expmGradWork(n)})
}

// Sort returns the elements of the vector x in ascending order, or
// descending when desc is set (Stan's sort_asc and sort_desc); ties keep
// their order. The derivative follows the permutation.
func (b *Builder) Sort(x ID, desc bool, pos ast.Pos) ID {
	args, ok := b.operands(x)
	if !ok {
		return b.invalid(pos)
	}
	s := b.shapeOf(args[0])
	if s.Rank != 1 {
		return b.fail(pos, "sort: needs a vector, got %s", s)
	}
	i0 := 0
	if desc {
		i0 = 1
	}
	return b.push(node{op: OpSort, args: args, shape: s, pos: pos, i0: i0, nscr: 2 * s.Rows})
}

// SortIndices returns the 0-based indices that sort the vector x
// ascending, or descending when desc is set, ties in index order (Stan's
// sort_indices_asc and sort_indices_desc, counting from 0). The indices
// are a step function of x: the node has no derivative, and the checker
// lets it read params only in outputs.
func (b *Builder) SortIndices(x ID, desc bool, pos ast.Pos) ID {
	return b.sortIndex(x, sortIndexMode(desc), 0, pos)
}

// Rank returns the number of elements of the vector x less than x[s]
// (Stan's rank, s counting from 0): a scalar step function of x, with no
// derivative, as SortIndices.
func (b *Builder) Rank(x ID, s int, pos ast.Pos) ID {
	return b.sortIndex(x, rankMode, s, pos)
}

// The modes of OpSortIndex (its i0), and their names.
const (
	ascMode = iota
	descMode
	rankMode
)

var sortIndexNames = [...]string{"sort_indices_asc", "sort_indices_desc", "rank"}

func sortIndexMode(desc bool) int {
	if desc {
		return descMode
	}
	return ascMode
}

func (b *Builder) sortIndex(x ID, mode, s int, pos ast.Pos) ID {
	args, ok := b.operands(x)
	if !ok {
		return b.invalid(pos)
	}
	xs := b.shapeOf(args[0])
	name := sortIndexNames[mode]
	if xs.Rank != 1 {
		return b.fail(pos, "%s: needs a vector, got %s", name, xs)
	}
	if mode != rankMode {
		return b.push(node{op: OpSortIndex, args: args, shape: xs, pos: pos, i0: mode, nscr: xs.Rows})
	}
	if s < 0 || s >= xs.Rows {
		return b.fail(pos, "rank: index %d is out of range for length %d (s counts from 0)", s, xs.Rows)
	}
	return b.push(node{op: OpSortIndex, args: args, shape: Scalar(), pos: pos, i0: rankMode, i1: s})
}

// evalSortIndex is OpSortIndex's forward rule: z gets the sorting
// permutation of x (scr holds len(x) values for the merge), or the rank
// of x[n.i1].
func evalSortIndex(n *node, x, scr, z []float64) {
	if n.i0 == rankMode {
		r, xs := 0, x[n.i1]
		for _, v := range x {
			if v < xs {
				r++
			}
		}
		z[0] = float64(r)
		return
	}
	sortPerm(z, scr, x, n.i0 == descMode)
}

// sortPerm sets perm to the stable ordering of x, ascending or descending:
// x[perm[0]], x[perm[1]], … is sorted. The indices are held as float64s
// (scratch is float64); tmp has len(x) values. A bottom-up merge sort, so
// nothing is allocated.
func sortPerm(perm, tmp, x []float64, desc bool) {
	n := len(x)
	for i := range perm[:n] {
		perm[i] = float64(i)
	}
	before := func(i, j float64) bool { // i goes strictly before j
		if desc {
			return x[int(i)] > x[int(j)]
		}
		return x[int(i)] < x[int(j)]
	}
	for w := 1; w < n; w *= 2 {
		for lo := 0; lo < n; lo += 2 * w {
			mid, hi := min(lo+w, n), min(lo+2*w, n)
			i, j, k := lo, mid, lo
			for i < mid && j < hi {
				if before(perm[j], perm[i]) {
					tmp[k] = perm[j]
					j++
				} else {
					tmp[k] = perm[i]
					i++
				}
				k++
			}
			k += copy(tmp[k:], perm[i:mid])
			copy(tmp[k:], perm[j:hi])
		}
		copy(perm[:n], tmp[:n])
	}
}

// symEigen sets w to the eigenvalues, ascending, and the columns of v to
// the eigenvectors of the symmetric n×n matrix whose lower triangle is in
// v, each eigenvector signed so that its largest element (the first of
// equal magnitude) is positive, which makes the result a function of A.
// work holds lwork values. It reports false when LAPACK's QR iteration
// does not converge.
func symEigen(v, w []float64, n int, work []float64) bool {
	if n == 0 {
		return true
	}
	if !(gonum.Implementation{}).Dsyev(lapack.EVCompute, blas.Lower, n, v, n, w, work, len(work)) {
		return false
	}
	for j := 0; j < n; j++ {
		if colSign(v, n, n, j) < 0 {
			for i := 0; i < n; i++ {
				v[i*n+j] = -v[i*n+j]
			}
		}
	}
	return true
}

// colSign returns the sign (±1) of the largest element, the first of
// equal magnitude, of column j of the rows × ld matrix a: the sign rule
// that makes eigenvectors and singular vectors functions of A.
func colSign(a []float64, rows, ld, j int) float64 {
	big := 0
	for i := 1; i < rows; i++ {
		if math.Abs(a[i*ld+j]) > math.Abs(a[big*ld+j]) {
			big = i
		}
	}
	if rows > 0 && a[big*ld+j] < 0 {
		return -1
	}
	return 1
}

// syevWork is LAPACK's least work size for dsyev of order n. The least,
// not the optimal: with it dsytrd and dorgtr run unblocked, whereas their
// blocked forms (n past about 128) call gonum's Dgemm on blocks large
// enough for it to start goroutines, which allocates at every step.
func syevWork(n int) int { return max(1, 3*n-1) }

// EigenSym returns the eigenvalues (op OpEigvalsSym, a vector, ascending)
// or the eigenvectors (OpEigvecsSym, a matrix whose column j belongs to
// eigenvalue j) of the symmetric matrix A (Stan's eigenvalues_sym and
// eigenvectors_sym). A must be symmetric (as for chol); the derivative is
// that of a function of sym(A) = (A + Aᵀ)/2. The eigenvectors' derivative
// needs distinct eigenvalues.
func (b *Builder) EigenSym(op Op, a ID, pos ast.Pos) ID {
	args, ok := b.operands(a)
	if !ok {
		return b.invalid(pos)
	}
	if !b.square(op, "matrix", args[0], pos) {
		return b.invalid(pos)
	}
	n := b.shapeOf(args[0]).Rows
	shape := Vector(n)
	if op == OpEigvecsSym {
		shape = Matrix(n, n)
	}
	// [vectors | values | work]; the reverse sweep also needs one n×n
	// product (two for the eigenvectors), which reuse the work
	nscr := n*n + n + max(syevWork(n), 2*n*n)
	return b.push(node{op: op, args: args, shape: shape, pos: pos, nscr: nscr})
}

// evalEigenSym evaluates OpEigvalsSym and OpEigvecsSym: scratch holds
// [vectors n² | values n | work].
func (p *Program) evalEigenSym(n *node, z []float64) bool {
	a := p.arg(n, 0)
	d := a.shape.Rows
	if i, j, ok := asymmetric(p.v(a), d); !ok {
		p.fail = -(i*d + j + 1)
		return false
	}
	scr := p.s(n)
	vec, val, work := scr[:d*d], scr[d*d:d*d+d], scr[d*d+d:d*d+d+syevWork(d)]
	symLower(vec, p.v(a), d)
	if !symEigen(vec, val, d, work) {
		p.fail = 1
		return false
	}
	if n.op == OpEigvalsSym {
		copy(z, val)
	} else {
		copy(z, vec)
	}
	return true
}

// gradEigenSym adds A's adjoint: for the eigenvalues V diag(g) Vᵀ (dλ_i =
// v_iᵀ dA v_i); for the eigenvectors V (F ∘ (Vᵀ G)) Vᵀ with F_ij =
// 1/(λ_j − λ_i) off the diagonal and 0 on it (dV = V (F ∘ (Vᵀ dA V))),
// symmetrised, A entering through sym(A).
func (p *Program) gradEigenSym(n *node, g []float64) {
	a := p.arg(n, 0)
	if a.aoff < 0 {
		return
	}
	d := a.shape.Rows
	scr := p.s(n)
	vec, val := scr[:d*d], scr[d*d:d*d+d]
	ga := p.a(a)
	t := scr[d*d+d : 2*d*d+d]
	if n.op == OpEigvalsSym {
		for i := 0; i < d; i++ { // t = V diag(g)
			for k := 0; k < d; k++ {
				t[i*d+k] = vec[i*d+k] * g[k]
			}
		}
		gemm(false, true, d, d, d, 1, t, d, vec, d, 1, ga, d) // ga += t Vᵀ
		return
	}
	u := scr[2*d*d+d : 3*d*d+d]
	gemm(true, false, d, d, d, 1, vec, d, g, d, 0, t, d) // t = Vᵀ G
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			if i == j {
				t[i*d+j] = 0
			} else {
				t[i*d+j] /= val[j] - val[i]
			}
		}
	}
	gemm(false, false, d, d, d, 1, vec, d, t, d, 0, u, d) // u = V (F ∘ t)
	gemm(false, true, d, d, d, 1, u, d, vec, d, 0, t, d)  // t = u Vᵀ
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			ga[i*d+j] += 0.5 * (t[i*d+j] + t[j*d+i])
		}
	}
}

// SingularValues returns the min(m, n) singular values of A [m, n], in
// descending order (Stan's singular_values). The derivative, dσ_i =
// u_iᵀ dA v_i, needs distinct, non-zero singular values.
func (b *Builder) SingularValues(a ID, pos ast.Pos) ID {
	args, ok := b.operands(a)
	if !ok {
		return b.invalid(pos)
	}
	s := b.shapeOf(args[0])
	if s.Rank == 0 { // a vector is a column [n, 1], as the tape keeps to_matrix(x, n, 1)
		return b.fail(pos, "singular_values: needs a matrix, got %s", s)
	}
	r, k := max(s.Rows, s.Cols), min(s.Rows, s.Cols)
	return b.push(node{op: OpSingularVal, args: args, shape: Vector(k), pos: pos, nscr: r*k + k*k + 3*k})
}

// jacobiSVD computes the thin SVD of the r×k matrix w (r ≥ k, row-major)
// by one-sided Jacobi rotations (Hestenes 1958; Demmel and Veselić 1992,
// whose relative accuracy LAPACK's dgesvj also has): plane rotations of
// pairs of columns, accumulated in the k×k matrix v (set to them), until
// every pair is orthogonal to rounding. On return w's columns are
// U Σ (σ_j = ‖w_j‖) and A = w vᵀ. Nothing is allocated, as gonum's
// blocked dgesvd would above order 128. It reports whether the rotations
// ended within maxSweeps sweeps (svdSweeps: random matrices of order 300
// take 14, tall ones of 10⁵ rows fewer); w must be finite, as a NaN never
// stops rotating.
func jacobiSVD(w []float64, r, k int, v []float64, maxSweeps int) bool {
	clear(v[:k*k])
	for i := 0; i < k; i++ {
		v[i*k+i] = 1
	}
	const tol = 1e-15
	for sweep := 0; sweep < maxSweeps; sweep++ {
		rotated := false
		for p := 0; p < k-1; p++ {
			for q := p + 1; q < k; q++ {
				alpha, beta, gamma := 0.0, 0.0, 0.0
				for i := 0; i < r; i++ {
					x, y := w[i*k+p], w[i*k+q]
					alpha += x * x
					beta += y * y
					gamma += x * y
				}
				if gamma == 0 || math.Abs(gamma) <= tol*math.Sqrt(alpha*beta) {
					continue
				}
				rotated = true
				zeta := (beta - alpha) / (2 * gamma)
				t := 1 / (math.Abs(zeta) + math.Sqrt(1+zeta*zeta))
				if zeta < 0 {
					t = -t
				}
				c := 1 / math.Sqrt(1+t*t)
				sn := c * t
				for i := 0; i < r; i++ {
					x, y := w[i*k+p], w[i*k+q]
					w[i*k+p], w[i*k+q] = c*x-sn*y, sn*x+c*y
				}
				for i := 0; i < k; i++ {
					x, y := v[i*k+p], v[i*k+q]
					v[i*k+p], v[i*k+q] = c*x-sn*y, sn*x+c*y
				}
			}
		}
		if !rotated {
			return true
		}
	}
	return false
}

// svdScale returns the power of two by which singular_values divides a
// matrix before its rotations: 0 while the largest element is within
// 2^±200 (the squared norms of up to 2^100 rows and their products stay
// finite and normal), else that element's binary exponent.
func svdScale(a []float64) int {
	mx := 0.0
	for _, x := range a {
		mx = max(mx, math.Abs(x))
	}
	if mx == 0 || mx >= 0x1p-200 && mx <= 0x1p200 {
		return 0
	}
	_, e := math.Frexp(mx)
	return e
}

// svdSweeps bounds jacobiSVD's sweeps: past it the iteration is reported
// as not converged.
const svdSweeps = 60

// svdParts splits OpSingularVal's scratch: w (r×k, the tall orientation's
// U after evaluation), v (k×k), the permutation that sorts the values
// descending, merge room, and the values in w's column order.
func svdParts(scr []float64, r, k int) (w, v, perm, tmp, sig []float64) {
	return scr[:r*k], scr[r*k : r*k+k*k], scr[r*k+k*k : r*k+k*k+k], scr[r*k+k*k+k : r*k+k*k+2*k], scr[r*k+k*k+2*k : r*k+k*k+3*k]
}

func (p *Program) evalSingularValues(n *node, z []float64) bool {
	a := p.arg(n, 0)
	k := min(a.shape.Rows, a.shape.Cols)
	_, _, perm, _, sig, ok := p.svdFactor(n)
	if !ok {
		return false
	}
	for i, j := range perm[:k] {
		z[i] = sig[int(j)]
	}
	return true
}

// svdFactor runs the Jacobi SVD of node n's argument into the node's
// scratch (svdParts): the unit columns of the tall orientation's U in
// w (a zero column for a zero value), V in v, the values and their
// descending order; false (p.fail set) for a non-finite element or no
// convergence.
func (p *Program) svdFactor(n *node) (w, v, perm, tmp, sig []float64, ok bool) {
	a := p.arg(n, 0)
	m, nc := a.shape.Rows, a.shape.Cols
	r, k := max(m, nc), min(m, nc)
	w, v, perm, tmp, sig = svdParts(p.s(n), r, k)
	av := p.v(a)
	for i, x := range av {
		if math.IsNaN(x) || math.IsInf(x, 0) { // named at once (forwardError), not 60 sweeps of NaN
			p.fail = -(i + 1)
			return nil, nil, nil, nil, nil, false
		}
	}
	// A matrix whose largest element is far from 1 is scaled by a power
	// of two (exactly) first, so that the columns' squared norms and
	// their products neither overflow nor underflow; others are not
	// scaled, which keeps their values bit for bit.
	e := svdScale(av)
	if m >= nc {
		for i, x := range av {
			w[i] = math.Ldexp(x, -e)
		}
	} else { // the SVD of Aᵀ: A = V Σ Uᵀ
		for i := 0; i < m; i++ {
			for j := 0; j < nc; j++ {
				w[j*k+i] = math.Ldexp(av[i*nc+j], -e)
			}
		}
	}
	if !jacobiSVD(w, r, k, v, svdSweeps) {
		p.fail = 1
		return nil, nil, nil, nil, nil, false
	}
	for j := 0; j < k; j++ {
		s := 0.0
		for i := 0; i < r; i++ {
			s += w[i*k+j] * w[i*k+j]
		}
		s = math.Sqrt(s)
		sig[j] = math.Ldexp(s, e)
		if s > 0 {
			for i := 0; i < r; i++ {
				w[i*k+j] /= s
			}
		}
	}
	sortPerm(perm, tmp, sig, true)
	return w, v, perm, tmp, sig, true
}

// gradSingularValues adds U diag(g) Vᵀ to A's adjoint, column perm[l] of
// the factors belonging to the l-th largest value.
func (p *Program) gradSingularValues(n *node, g []float64) {
	a := p.arg(n, 0)
	if a.aoff < 0 {
		return
	}
	m, nc := a.shape.Rows, a.shape.Cols
	r, k := max(m, nc), min(m, nc)
	w, v, perm, _, _ := svdParts(p.s(n), r, k)
	u, vv := w, v // A = u diag(σ) vvᵀ; in the wide case A = v diag(σ) wᵀ
	if m < nc {
		u, vv = v, w
	}
	ga := p.a(a)
	for l, jf := range perm {
		j, gl := int(jf), g[l]
		if gl == 0 {
			continue
		}
		for i := 0; i < m; i++ {
			ui := gl * u[i*k+j]
			if ui == 0 {
				continue
			}
			row := ga[i*nc : i*nc+nc]
			for c := range row {
				row[c] += ui * vv[c*k+j]
			}
		}
	}
}
