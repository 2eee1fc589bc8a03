package dist

import "math"

// Cholesky factors of correlation matrices (a declared
// cholesky_factor_corr[K]) and the LKJ distribution on them, after the Stan
// reference manual ("Cholesky factors of correlation matrices") and
// Lewandowski, Kurowicka & Joe (2009), "Generating random correlation
// matrices based on vines and extended onion method".
//
// Coordinates. A K×K factor L has K(K−1)/2 unconstrained coordinates y,
// one per entry below the diagonal, row by row (L[1,0], L[2,0], L[2,1],
// L[3,0], …), Stan's order. z = tanh(y) are canonical partial
// correlations, and row i of L is
//
//	L[i,j] = z_ij·q_j (j < i),  L[i,i] = q_i,  q_0 = 1,  q_{j+1} = q_j·sech(y_ij),
//
// where q_j² = 1 − Σ_{k<j} L[i,k]² (the product keeps the small norms
// left at the end of a row without cancellation). L[0,0] = 1 and the
// entries above the diagonal are 0.

// CholCorrSize returns the number of coordinates of a K×K factor,
// K(K−1)/2.
func CholCorrSize(k int) int { return k * (k - 1) / 2 }

// CholCorrEntry returns the entry L[i, j] (i > j) whose partial
// correlation coordinate c is: c = i(i−1)/2 + j.
func CholCorrEntry(c int) (i, j int) {
	i = 1
	for c >= i {
		c -= i
		i++
	}
	return i, c
}

// CholCorrValues writes the factor L (K×K, row-major) of the coordinates y
// (len CholCorrSize(K)) into dst (len K·K).
func CholCorrValues(dst, y []float64, k int) {
	if len(dst) != k*k || len(y) != CholCorrSize(k) {
		panic("dist: CholCorrValues: bad lengths")
	}
	clear(dst)
	if k == 0 {
		return
	}
	dst[0] = 1
	c := 0
	for i := 1; i < k; i++ {
		row := dst[i*k : i*k+k]
		q := 1.0
		for j := range i {
			row[j] = math.Tanh(y[c]) * q
			q *= sech(y[c])
			c++
		}
		row[i] = q
	}
}

// CholCorrGrad adds to ay the gradient with respect to y of Σ g_ij·L_ij,
// for the factor l = CholCorrValues(y) and its adjoint g (both K×K). It
// walks each row back from its diagonal, where q_j² = Σ_{k≥j} L[i,k]²:
//
//	∂/∂y_ij = g_ij·q_j·sech²(y_ij) − ḡ_{j+1}·q_{j+1}·tanh(y_ij),
//	ḡ_j = g_ij·tanh(y_ij) + ḡ_{j+1}·sech(y_ij),  ḡ_i = g_ii,
//
// with ḡ_j the adjoint of q_j.
func CholCorrGrad(ay, y, l, g []float64, k int) {
	c := CholCorrSize(k)
	for i := k - 1; i >= 1; i-- {
		row, grow := l[i*k:i*k+k], g[i*k:i*k+k]
		qn := row[i]
		r := qn * qn
		gq := grow[i]
		c -= i
		for j := i - 1; j >= 0; j-- {
			yy := y[c+j]
			t, s := math.Tanh(yy), sech(yy)
			r += row[j] * row[j]
			q := math.Sqrt(r)
			ay[c+j] += grow[j]*q*s*s - gq*qn*t
			gq = grow[j]*t + gq*s
			qn = q
		}
	}
}

// sech is 1/cosh(y), 0 past |y| ≈ 710.
func sech(y float64) float64 { return 1 / math.Cosh(y) }

// logSech2 is log sech²(y) = log(1 − tanh²(y)), for every y without
// underflow: 2·(log 2 − |y| − log1p(e^{−2|y|})).
func logSech2(y float64) float64 {
	a := math.Abs(y)
	return 2 * (math.Ln2 - a - math.Log1p(math.Exp(-2*a)))
}

// CholCorrLogJac returns the log absolute Jacobian determinant of the map
// from the coordinates y to the entries of L below the diagonal (Stan's
// cholesky_corr_constrain): Σ_{i>j} [log(1 − z_ij²) + ½·log(1 − Σ_{k<j}
// L[i,k]²)], which with 1 − Σ_{k<j} L[i,k]² = Π_{k<j} (1 − z_ik²) is the
// separable sum Σ_{i>k} (i − k + 1)/2 · log sech²(y_ik).
func CholCorrLogJac(y []float64, k int) float64 {
	s, c := 0.0, 0
	for i := 1; i < k; i++ {
		for j := range i {
			s += 0.5 * float64(i-j+1) * logSech2(y[c])
			c++
		}
	}
	return s
}

// CholCorrLogJacGrad adds g·∂CholCorrLogJac/∂y to ay: the derivative of
// log sech²(y) is −2·tanh(y).
func CholCorrLogJacGrad(ay, y []float64, k int, g float64) {
	c := 0
	for i := 1; i < k; i++ {
		for j := range i {
			ay[c] -= g * float64(i-j+1) * math.Tanh(y[c])
			c++
		}
	}
}

// LKJLogNorm returns log c_K(η), the log of the LKJ normalising constant
// ∫ det(R)^{η−1} dR over K×K correlation matrices (LKJ 2009, eq. 16):
//
//	log c_K(η) = Σ_{k=1}^{K−1} (K − k)·[(2η − 2 + K − k)·log 2 + log B(β_k, β_k)],  β_k = η + (K − k − 1)/2,
//
// and its derivative in η, Σ (K − k)·[2·log 2 + 2·(ψ(β_k) − ψ(2β_k))].
// For K = 2 it is log(2^{2η−1}·B(η, η)), the mass of (1 − r²)^{η−1} on
// (−1, 1).
func LKJLogNorm(eta float64, k int) (logc, dlogc float64) {
	for kk := 1; kk < k; kk++ {
		m := float64(k - kk)
		b := eta + 0.5*float64(k-kk-1)
		logc += m * ((2*eta-2+m)*math.Ln2 + LogBeta(b, b))
		dlogc += m * (2*math.Ln2 + 2*(Digamma(b)-Digamma(2*b)))
	}
	return logc, dlogc
}

// LKJCorrCholeskyLogPDF returns the log density of the K×K factor l
// (row-major) under LKJCorrCholesky(η), with respect to Lebesgue measure
// on its entries below the diagonal (Stan's lkj_corr_cholesky):
//
//	Σ_{i=1}^{K−1} (K − i − 1 + 2(η − 1))·log L[i,i] − log c_K(η)
//
// (0-based i; the density of R = LL' is det(R)^{η−1}/c_K(η), and the
// map L → R has Jacobian Π L[i,i]^{K−i−1}). It also returns the partial
// in η.
func LKJCorrCholeskyLogPDF(l []float64, k int, eta float64) (lp, deta float64) {
	logc, dlogc := LKJLogNorm(eta, k)
	sumLog := 0.0
	for i := 1; i < k; i++ {
		d := math.Log(l[i*k+i])
		lp += float64(k-i-1) * d
		sumLog += d
	}
	lp += 2*(eta-1)*sumLog - logc
	return lp, 2*sumLog - dlogc
}

// Correlation matrices (a declared corr_matrix[K]) and LKJCorr, after the
// Stan reference manual ("Correlation matrices"). Ω = L L' for the factor
// L of the same K(K−1)/2 coordinates y (CholCorrValues).

// CorrMatrixValues writes the correlation matrix Ω = L L' (K×K,
// row-major) of the coordinates y into dst, and L into l (both len K·K).
// Ω is exactly symmetric with an exact unit diagonal.
func CorrMatrixValues(dst, l, y []float64, k int) {
	CholCorrValues(l, y, k)
	CorrFromChol(dst, l, k)
}

// CorrFromChol writes L L' for a factor l with rows of unit norm into dst:
// Σ_{m≤j} L[i,m]·L[j,m] for j < i, mirrored above the diagonal, and 1 on it.
func CorrFromChol(dst, l []float64, k int) {
	if len(dst) != k*k || len(l) != k*k {
		panic("dist: CorrFromChol: bad lengths")
	}
	for i := range k {
		dst[i*k+i] = 1
		for j := range i {
			s := 0.0
			for m := 0; m <= j; m++ {
				s += l[i*k+m] * l[j*k+m]
			}
			dst[i*k+j], dst[j*k+i] = s, s
		}
	}
}

// CorrFromCholGrad adds to al the gradient with respect to l of
// Σ g_ij·Ω_ij for Ω = CorrFromChol(l) off the diagonal; the diagonal is 1
// for every factor of unit rows, so it passes no gradient.
func CorrFromCholGrad(al, l, g []float64, k int) {
	for i := range k {
		for j := range i {
			gs := g[i*k+j] + g[j*k+i]
			for m := 0; m <= j; m++ {
				al[i*k+m] += gs * l[j*k+m]
				al[j*k+m] += gs * l[i*k+m]
			}
		}
	}
}

// CorrMatrixLogJac returns the log absolute Jacobian determinant of the
// map from the coordinates y to the entries of Ω below the diagonal: that
// of y → L (CholCorrLogJac) plus that of L → L L', Σ_{i≥1} (K − i − 1)·log
// L[i,i] (0-based; LKJ 2009). With log L[i,i] = ½·Σ_{m<i} log sech²(y_im)
// it is the separable sum Σ_{i>m} (K − m)/2 · log sech²(y_im).
func CorrMatrixLogJac(y []float64, k int) float64 {
	s, c := 0.0, 0
	for i := 1; i < k; i++ {
		for m := range i {
			s += 0.5 * float64(k-m) * logSech2(y[c])
			c++
		}
	}
	return s
}

// CorrMatrixLogJacGrad adds g·∂CorrMatrixLogJac/∂y to ay.
func CorrMatrixLogJacGrad(ay, y []float64, k int, g float64) {
	c := 0
	for i := 1; i < k; i++ {
		for m := range i {
			ay[c] -= g * float64(k-m) * math.Tanh(y[c])
			c++
		}
	}
}

// LKJCorrLogPDF returns the log density of the K×K correlation matrix
// Ω = L L' under LKJCorr(η), with respect to Lebesgue measure on its
// entries below the diagonal (Stan's lkj_corr), from its factor l:
//
//	(η − 1)·log det Ω − log c_K(η) = 2(η − 1)·Σ_{i≥1} log L[i,i] − log c_K(η),
//
// and the partial in η.
func LKJCorrLogPDF(l []float64, k int, eta float64) (lp, deta float64) {
	logc, dlogc := LKJLogNorm(eta, k)
	sumLog := 0.0
	for i := 1; i < k; i++ {
		sumLog += math.Log(l[i*k+i])
	}
	return 2*(eta-1)*sumLog - logc, 2*sumLog - dlogc
}
