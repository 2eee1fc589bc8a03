package dist

import "math"

// SumToZeroValues writes into dst (length K ≥ 1) the zero-sum vector z of
// the K−1 unconstrained coordinates y of a sum_to_zero_vector[K] param, by
// Stan's isometric transform (2.36): z = V y with V the K×(K−1) matrix whose
// column i (1-based) is (1, …, 1, −i, 0, …, 0)/√(i(i+1)), i ones first. The
// columns are orthonormal and each sums to zero, so z sums to zero, |z| =
// |y|, and the map onto the zero-sum subspace has constant (unit) Jacobian:
// y iid Normal(0, s) is z with density ∝ exp(−|z|²/2s²) on the subspace.
func SumToZeroValues(dst, y []float64) {
	if len(dst) != len(y)+1 {
		panic("dist: SumToZeroValues: bad lengths")
	}
	clear(dst)
	acc := 0.0
	for i := len(y); i >= 1; i-- {
		n := float64(i)
		w := y[i-1] / math.Sqrt(n*(n+1))
		acc += w
		dst[i-1] += acc
		dst[i] -= n * w
	}
}

// SumToZeroCoords writes into dst (length K−1) V' z for z of length K (V
// as in SumToZeroValues): the coordinates of a zero-sum z, its inverse, and
// for any z the adjoint of the transform (the gradient in y of a function
// whose gradient in z is z).
func SumToZeroCoords(dst, z []float64) {
	if len(z) != len(dst)+1 {
		panic("dist: SumToZeroCoords: bad lengths")
	}
	s := 0.0 // z_0 + … + z_{i−1}
	for i := 1; i <= len(dst); i++ {
		n := float64(i)
		s += z[i-1]
		dst[i-1] = (s - n*z[i]) / math.Sqrt(n*(n+1))
	}
}

// sumToZeroUp applies the transform of SumToZeroValues in place to the n
// coordinates at x[off], x[off+stride], …, writing the n+1 values over them
// and the slot after: value j (j ≥ 1) is the sum of w_i over i > j minus
// j·w_j, w_i = y_i/√(i(i+1)) (1-based i); value j overwrites y_{j+1},
// read before it, so descending j needs no buffer.
func sumToZeroUp(x []float64, off, stride, n int) {
	s := 0.0
	for j := n; j >= 1; j-- {
		f := float64(j)
		w := x[off+(j-1)*stride] / math.Sqrt(f*(f+1))
		x[off+j*stride] = s - f*w
		s += w
	}
	x[off] = s
}

// sumToZeroDown applies V' in place to the n+1 values at x[off], …,
// x[off+n·stride], writing the n results over the first n slots
// (SumToZeroCoords): result i−1 reads the values up to i, ascending.
func sumToZeroDown(x []float64, off, stride, n int) {
	s := 0.0
	for i := 1; i <= n; i++ {
		f := float64(i)
		s += x[off+(i-1)*stride]
		x[off+(i-1)*stride] = (s - f*x[off+i*stride]) / math.Sqrt(f*(f+1))
	}
}

// SumToZeroMatrixValues writes into dst (M×N, row-major) the matrix Z =
// V_M Y V_N' of the (M−1)×(N−1) coordinates y (row-major) of a
// sum_to_zero_matrix[M, N] param, V_K the basis of SumToZeroValues: the
// vector transform along each row, then along each column (Stan 2.37's
// transform). Every row and column of Z sums to zero, and the map is an
// isometry (V_N ⊗ V_M has orthonormal columns): unit Jacobian.
func SumToZeroMatrixValues(dst, y []float64, m, n int) {
	if m < 1 || n < 1 || len(dst) != m*n || len(y) != (m-1)*(n-1) {
		panic("dist: SumToZeroMatrixValues: bad lengths")
	}
	for r := range m - 1 {
		copy(dst[r*n:r*n+n-1], y[r*(n-1):(r+1)*(n-1)])
		sumToZeroUp(dst, r*n, 1, n-1)
	}
	for c := range n {
		sumToZeroUp(dst, c, n, m-1)
	}
}

// SumToZeroMatrixCoords writes into dst ((M−1)×(N−1)) V_M' Z V_N of z
// (M×N): the coordinates of a zero-sum z, and for any z the adjoint of
// SumToZeroMatrixValues. scratch (len M·N) holds the partial products.
func SumToZeroMatrixCoords(dst, z, scratch []float64, m, n int) {
	if m < 1 || n < 1 || len(z) != m*n || len(scratch) != m*n || len(dst) != (m-1)*(n-1) {
		panic("dist: SumToZeroMatrixCoords: bad lengths")
	}
	copy(scratch, z)
	for c := range n {
		sumToZeroDown(scratch, c, n, m-1)
	}
	for r := range m - 1 {
		sumToZeroDown(scratch, r*n, 1, n-1)
		copy(dst[r*(n-1):(r+1)*(n-1)], scratch[r*n:r*n+n-1])
	}
}
