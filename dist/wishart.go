package dist

import (
	"math"
	"math/rand/v2"
)

// The Wishart and inverse Wishart distributions on K×K covariance
// matrices (a declared cov_matrix[K]) and on their Cholesky factors (a
// declared cholesky_factor_cov[K]), after the Stan functions reference
// ("Wishart distribution", "Inverse Wishart distribution", and their
// Cholesky parameterisations) and Bartlett (1933) for the draws. Every
// density is normalised, log multivariate gamma included.
//
// Everything is computed from lower Cholesky factors: X = L_X L_X' and
// S = L_S L_S' (only the lower triangles of lx and ls are read). With
// (A, B) = (L_S, L_X) for the Wishart and (L_X, L_S) for the inverse
// Wishart, both log densities are
//
//	c_B·Σ log B_ii − c_A·Σ log A_ii − ½‖A⁻¹B‖²_F − ν·K/2·log 2 − log Γ_K(ν/2),
//
// with c_B = ν − K − 1, c_A = ν (Wishart: tr(S⁻¹X) = ‖L_S⁻¹L_X‖²) and
// c_B = ν, c_A = ν + K + 1 (inverse Wishart: tr(S X⁻¹) = ‖L_X⁻¹L_S‖²).
// The density of the factor L_X itself (Stan's wishart_cholesky,
// inv_wishart_cholesky) adds the log Jacobian of L_X → L_X L_X',
// K·log 2 + Σ_i (K − i)·log L_X[i,i] (0-based i).

// LogMvGamma returns log Γ_K(a) = K(K−1)/4·log π + Σ_{j=0}^{K−1} log Γ(a −
// j/2), the log multivariate gamma function (a > (K − 1)/2), and its
// derivative in a, Σ_j ψ(a − j/2).
func LogMvGamma(a float64, k int) (lg, dlg float64) {
	lg = 0.25 * float64(k*(k-1)) * math.Log(math.Pi)
	for j := range k {
		v, _ := math.Lgamma(a - 0.5*float64(j))
		lg += v
		dlg += Digamma(a - 0.5*float64(j))
	}
	return lg, dlg
}

// WishartForm says which of the four densities a Wishart evaluation is.
type WishartForm struct {
	// Inverse selects the inverse Wishart.
	Inverse bool
	// Chol makes it the density of the factor L_X rather than of X.
	Chol bool
}

// Name returns Wishart, InvWishart, WishartCholesky or
// InvWishartCholesky.
func (f WishartForm) Name() string {
	s := "Wishart"
	if f.Inverse {
		s = "InvWishart"
	}
	if f.Chol {
		s += "Cholesky"
	}
	return s
}

// factors returns (A, B) and the coefficients (c_A, c_B) of the density's
// log-diagonal terms.
func (f WishartForm) factors(lx, ls []float64, k int, nu float64) (a, b []float64, ca, cb float64) {
	kf := float64(k)
	if f.Inverse {
		return lx, ls, nu + kf + 1, nu
	}
	return ls, lx, nu, nu - kf - 1
}

// sumLogDiag returns Σ_i log L_ii.
func sumLogDiag(l []float64, k int) float64 {
	s := 0.0
	for i := range k {
		s += math.Log(l[i*k+i])
	}
	return s
}

// WishartLogPDF returns the log density of the form f at the K×K factor
// lx given ν and the factor ls of the scale matrix (both row-major, lower
// triangles read), and its partial in ν. m (len K·K) receives M = A⁻¹B,
// lower triangular, which WishartGrad reads. It does not allocate; ν must
// be > K − 1 and the diagonals positive (else the result is not finite).
func WishartLogPDF(f WishartForm, lx, ls []float64, k int, nu float64, m []float64) (lp, dnu float64) {
	a, b, ca, cb := f.factors(lx, ls, k, nu)
	solveLowerTri(m, a, b, k)
	ss := 0.0
	for i := range k {
		for _, v := range m[i*k : i*k+i+1] {
			ss += v * v
		}
	}
	la, lb := sumLogDiag(a, k), sumLogDiag(b, k)
	kf := float64(k)
	lg, dlg := LogMvGamma(0.5*nu, k)
	lp = cb*lb - ca*la - 0.5*ss - 0.5*nu*kf*math.Ln2 - lg
	dnu = lb - la - 0.5*kf*math.Ln2 - 0.5*dlg
	if f.Chol {
		lp += kf * math.Ln2
		for i := range k {
			lp += float64(k-i) * math.Log(lx[i*k+i])
		}
	}
	return lp, dnu
}

// WishartGrad adds g·∂/∂L_X to alx and g·∂/∂L_S to als (their lower
// triangles; either may be nil), after WishartLogPDF left M = A⁻¹B in m.
// w (len K·K) is scratch. With N = A⁻ᵀM, the trace term −½‖M‖² has
// gradient tril(N Mᵀ) in A and −tril(N) in B.
func WishartGrad(f WishartForm, alx, als, lx, ls []float64, k int, nu float64, m, w []float64, g float64) {
	a, b, ca, cb := f.factors(lx, ls, k, nu)
	aa, ab := als, alx
	if f.Inverse {
		aa, ab = alx, als
	}
	// w = N = A⁻ᵀ M by back substitution, column by column (M is lower).
	copy(w, m[:k*k])
	for i := range k {
		clear(w[i*k+i+1 : i*k+k])
	}
	for j := range k {
		for i := k - 1; i >= 0; i-- {
			s := w[i*k+j]
			for r := i + 1; r < k; r++ {
				s -= a[r*k+i] * w[r*k+j]
			}
			w[i*k+j] = s / a[i*k+i]
		}
	}
	if ab != nil {
		for i := range k {
			for j := 0; j < i; j++ {
				ab[i*k+j] -= g * w[i*k+j]
			}
			ab[i*k+i] += g * (cb/b[i*k+i] - w[i*k+i])
		}
	}
	if aa != nil {
		for i := range k {
			for j := 0; j <= i; j++ {
				s := 0.0 // (N Mᵀ)_ij = Σ_r N_ir M_jr, M_jr = 0 for r > j
				for r := 0; r <= j; r++ {
					s += w[i*k+r] * m[j*k+r]
				}
				if i == j {
					s -= ca / a[i*k+i]
				}
				aa[i*k+j] += g * s
			}
		}
	}
	if f.Chol && alx != nil {
		for i := range k {
			alx[i*k+i] += g * float64(k-i) / lx[i*k+i]
		}
	}
}

// solveLowerTri sets m = A⁻¹B for lower triangular A and B (their lower
// triangles read), which is lower triangular; m's upper triangle is
// zeroed.
func solveLowerTri(m, a, b []float64, k int) {
	for i := range k {
		for j := 0; j <= i; j++ {
			s := b[i*k+j]
			for r := j; r < i; r++ {
				s -= a[i*k+r] * m[r*k+j]
			}
			m[i*k+j] = s / a[i*k+i]
		}
		clear(m[i*k+i+1 : i*k+k])
	}
}

// WishartRand writes a draw from the form f given ν and the factor ls of
// the scale matrix into dst (K×K, row-major): X, exactly symmetric, or
// for a Cholesky form its lower factor L_X. By Bartlett's decomposition,
// the lower triangular T with T_ii² ~ χ²(ν − i) (0-based) and standard
// normals below the diagonal makes L_S T the factor of a Wishart(ν, S)
// draw; an inverse Wishart draw is (L_S T⁻ᵀ)(L_S T⁻ᵀ)ᵀ, since its inverse
// is Wishart(ν, S⁻¹) with factor L_S⁻ᵀ T. t and u (len K·K each) are
// scratch. It takes K(K−1)/2 normals and K gamma variates from rng,
// whatever the arguments, and does not allocate.
func WishartRand(f WishartForm, dst, ls []float64, k int, nu float64, t, u []float64, rng *rand.Rand) {
	clear(t[:k*k])
	for i := range k {
		for j := range i {
			t[i*k+j] = rng.NormFloat64()
		}
		// χ²(ν − i) = 2·Gamma((ν − i)/2, 1)
		t[i*k+i] = math.Sqrt2 * math.Exp(0.5*SampleGammaLog(0.5*(nu-float64(i)), rng))
	}
	if !f.Inverse {
		// u = L_S T, lower triangular: the factor of the draw
		for i := range k {
			for j := 0; j <= i; j++ {
				s := 0.0
				for r := j; r <= i; r++ {
					s += ls[i*k+r] * t[r*k+j]
				}
				u[i*k+j] = s
			}
			clear(u[i*k+i+1 : i*k+k])
		}
		if f.Chol {
			copy(dst, u[:k*k])
			return
		}
		CovFromChol(dst, u, k)
		return
	}
	// u = (L_S T⁻ᵀ)ᵀ = T⁻¹ L_Sᵀ, row i of u is column i of L_S T⁻ᵀ: a
	// forward substitution on each column of L_Sᵀ (row c of L_S).
	for c := range k {
		for i := range k {
			s := 0.0 // (L_Sᵀ)_ic = L_S[c, i], zero for i > c
			if i <= c {
				s = ls[c*k+i]
			}
			for r := range i {
				s -= t[i*k+r] * u[r*k+c]
			}
			u[i*k+c] = s / t[i*k+i]
		}
	}
	// X = uᵀu
	for i := range k {
		for j := 0; j <= i; j++ {
			s := 0.0
			for r := range k {
				s += u[r*k+i] * u[r*k+j]
			}
			dst[i*k+j], dst[j*k+i] = s, s
		}
	}
	if f.Chol {
		// its lower factor, in place (X is positive definite unless a draw
		// degenerates, which leaves NaN)
		cholInPlace(dst, k)
	}
}

// cholInPlace overwrites the symmetric matrix x with its lower Cholesky
// factor, zeros above the diagonal; a leading minor that is not positive
// makes the whole result NaN.
func cholInPlace(x []float64, k int) {
	if CholLower(x, k) > 0 {
		for i := range x[:k*k] {
			x[i] = math.NaN()
		}
	}
}

// CholLower overwrites the lower triangle of the symmetric k×k matrix x
// (row-major; only the lower triangle is read) with its lower Cholesky
// factor and zeros above the diagonal. It returns 0, or j when the leading
// j×j minor is not positive definite or not finite (x is then partly
// overwritten).
func CholLower(x []float64, k int) int {
	for j := range k {
		s := x[j*k+j]
		for r := range j {
			s -= x[j*k+r] * x[j*k+r]
		}
		if !(s > 0) || math.IsInf(s, 0) {
			return j + 1
		}
		d := math.Sqrt(s)
		x[j*k+j] = d
		for i := j + 1; i < k; i++ {
			s := x[i*k+j]
			for r := range j {
				s -= x[i*k+r] * x[j*k+r]
			}
			x[i*k+j] = s / d
		}
	}
	for i := range k {
		clear(x[i*k+i+1 : i*k+k])
	}
	return 0
}
