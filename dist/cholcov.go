package dist

import "math"

// Cholesky factors of covariance matrices (a declared
// cholesky_factor_cov[K]), after the Stan reference manual ("Cholesky
// factors of covariance matrices").
//
// Coordinates. A K×K factor L has K(K+1)/2 unconstrained coordinates y,
// one per entry on or below the diagonal, row by row (L[0,0], L[1,0],
// L[1,1], L[2,0], …), Stan's order:
//
//	L[i,j] = y_ij (j < i),  L[i,i] = exp(y_ii),
//
// and the entries above the diagonal are 0. The log absolute Jacobian
// determinant of y → L (its entries on and below the diagonal) is
// Σ_i y_ii = Σ_i log L[i,i].

// CholCovSize returns the number of coordinates of a K×K factor,
// K(K+1)/2.
func CholCovSize(k int) int { return k * (k + 1) / 2 }

// CholCovEntry returns the entry L[i, j] (i ≥ j) whose coordinate c is:
// c = i(i+1)/2 + j.
func CholCovEntry(c int) (i, j int) {
	for c > i {
		i++
		c -= i
	}
	return i, c
}

// CholCovValues writes the factor L (K×K, row-major) of the coordinates y
// (len CholCovSize(K)) into dst (len K·K).
func CholCovValues(dst, y []float64, k int) {
	if len(dst) != k*k || len(y) != CholCovSize(k) {
		panic("dist: CholCovValues: bad lengths")
	}
	clear(dst)
	c := 0
	for i := range k {
		row := dst[i*k : i*k+k]
		copy(row[:i], y[c:c+i])
		row[i] = math.Exp(y[c+i])
		c += i + 1
	}
}

// CholCovGrad adds to ay the gradient with respect to y of Σ g_ij·L_ij,
// for the factor l = CholCovValues(y) and its adjoint g (both K×K):
// g_ij below the diagonal, g_ii·L_ii on it.
func CholCovGrad(ay, l, g []float64, k int) {
	c := 0
	for i := range k {
		for j := range i {
			ay[c+j] += g[i*k+j]
		}
		ay[c+i] += g[i*k+i] * l[i*k+i]
		c += i + 1
	}
}

// CholCovLogJac returns the log absolute Jacobian determinant of the map
// from the coordinates y to the entries of L on and below the diagonal,
// Σ_i y_ii.
func CholCovLogJac(y []float64, k int) float64 {
	s, c := 0.0, 0
	for i := range k {
		s += y[c+i]
		c += i + 1
	}
	return s
}

// CholCovLogJacGrad adds g·∂CholCovLogJac/∂y to ay: g at each diagonal
// coordinate.
func CholCovLogJacGrad(ay []float64, k int, g float64) {
	c := 0
	for i := range k {
		ay[c+i] += g
		c += i + 1
	}
}

// Covariance matrices (a declared cov_matrix[K]), after the Stan
// reference manual ("Covariance matrices"): Σ = L L' for the factor L of
// the same K(K+1)/2 coordinates y (CholCovValues).

// CovMatrixValues writes the covariance matrix Σ = L L' (K×K, row-major)
// of the coordinates y into dst, and L into l (both len K·K). Σ is
// exactly symmetric.
func CovMatrixValues(dst, l, y []float64, k int) {
	CholCovValues(l, y, k)
	CovFromChol(dst, l, k)
}

// CovFromChol writes L L' for a lower-triangular l into dst:
// Σ_{m≤j} L[i,m]·L[j,m] for j ≤ i, mirrored above the diagonal.
func CovFromChol(dst, l []float64, k int) {
	if len(dst) != k*k || len(l) != k*k {
		panic("dist: CovFromChol: bad lengths")
	}
	for i := range k {
		for j := 0; j <= i; j++ {
			s := 0.0
			for m := 0; m <= j; m++ {
				s += l[i*k+m] * l[j*k+m]
			}
			dst[i*k+j], dst[j*k+i] = s, s
		}
	}
}

// CovFromCholGrad adds to al the gradient with respect to l of
// Σ g_ij·Σ_ij for Σ = CovFromChol(l).
func CovFromCholGrad(al, l, g []float64, k int) {
	for i := range k {
		for j := range i {
			gs := g[i*k+j] + g[j*k+i]
			for m := 0; m <= j; m++ {
				al[i*k+m] += gs * l[j*k+m]
				al[j*k+m] += gs * l[i*k+m]
			}
		}
		for m := 0; m <= i; m++ {
			al[i*k+m] += 2 * g[i*k+i] * l[i*k+m]
		}
	}
}

// CovMatrixLogJac returns the log absolute Jacobian determinant of the
// map from the coordinates y to the entries of Σ on and below the
// diagonal: that of y → L (CholCovLogJac) plus that of L → L L',
// K·log 2 + Σ_i (K − i)·log L[i,i] (0-based; Stan's K·log 2 + Σ (K − i
// + 1)·log L_ii with 1-based i), that is K·log 2 + Σ_i (K − i + 1)·y_ii.
func CovMatrixLogJac(y []float64, k int) float64 {
	s, c := float64(k)*math.Ln2, 0
	for i := range k {
		s += float64(k-i+1) * y[c+i]
		c += i + 1
	}
	return s
}

// CovMatrixLogJacGrad adds g·∂CovMatrixLogJac/∂y to ay.
func CovMatrixLogJacGrad(ay []float64, k int, g float64) {
	c := 0
	for i := range k {
		ay[c+i] += g * float64(k-i+1)
		c += i + 1
	}
}
