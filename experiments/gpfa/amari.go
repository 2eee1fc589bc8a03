package gpfa

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// AmariIndex is the performance index of Amari, Cichocki & Yang (1996) of a
// K×K matrix P, normalised to [0, 1]:
//
//	A(P) = 1/(2K(K−1)) · [ Σ_i (Σ_j |p_ij| / max_j |p_ij| − 1)
//	                      + Σ_j (Σ_i |p_ij| / max_i |p_ij| − 1) ].
//
// It is 0 exactly when P is a scaled permutation matrix (one non-zero entry
// in every row and every column) and 1 when every entry of P has the same
// magnitude. A zero row or column counts as the worst case for that row or
// column (its term is K − 1). K must be ≥ 2.
func AmariIndex(p *mat.Dense) float64 {
	r, c := p.Dims()
	if r != c || r < 2 {
		panic(fmt.Sprintf("gpfa: AmariIndex needs a square matrix with K ≥ 2, got %d×%d", r, c))
	}
	k := r
	term := func(get func(j int) float64) float64 {
		sum, mx := 0.0, 0.0
		for j := 0; j < k; j++ {
			v := math.Abs(get(j))
			sum += v
			mx = math.Max(mx, v)
		}
		if !(mx > 0) || math.IsInf(sum, 0) || math.IsNaN(sum) {
			return float64(k - 1)
		}
		return sum/mx - 1
	}
	total := 0.0
	for i := 0; i < k; i++ {
		total += term(func(j int) float64 { return p.At(i, j) })
		total += term(func(j int) float64 { return p.At(j, i) })
	}
	return total / float64(2*k*(k-1))
}

// AmariError is the loading-recovery error used for the synthetic GPFA
// experiment: the Amari index (AmariIndex, normalised to [0, 1]) of the K×K
// matrix P = pinv(W)·Ŵ, where W is the true D×K loading matrix and Ŵ the
// estimate (the posterior mean E[W]). P holds the least-squares coordinates
// of each estimated factor in the basis of the true factors, so the error
// is 0 exactly when Ŵ = W·Π·Λ for a permutation Π and a non-singular
// diagonal scaling Λ (invariant to permuting, rescaling and sign-flipping
// the estimated factors), and grows as estimated factors mix true ones. The
// pseudo-inverse is taken of the true W (full column rank in the
// experiment), not of Ŵ, whose switched-off factors make it ill-conditioned.
// Ŵ must have as many columns as W.
func AmariError(wTrue, wHat *mat.Dense) float64 {
	d, k := wTrue.Dims()
	d2, k2 := wHat.Dims()
	if d != d2 || k != k2 {
		panic(fmt.Sprintf("gpfa: AmariError: W is %d×%d but Ŵ is %d×%d", d, k, d2, k2))
	}
	var pinv mat.Dense
	pseudoInverse(&pinv, wTrue)
	var p mat.Dense
	p.Mul(&pinv, wHat)
	return AmariIndex(&p)
}

// pseudoInverse writes the Moore–Penrose pseudo-inverse of a (D×K, D ≥ K)
// into dst (K×D) via the SVD, dropping singular values below
// max(D,K)·ε·σ_max.
func pseudoInverse(dst *mat.Dense, a *mat.Dense) {
	r, c := a.Dims()
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDThin) {
		panic("gpfa: SVD failed")
	}
	s := svd.Values(nil)
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	tol := float64(max(r, c)) * 2.220446049250313e-16 * s[0]
	// pinv = V diag(1/s) Uᵀ
	vs := mat.NewDense(c, len(s), nil)
	for j := range s {
		inv := 0.0
		if s[j] > tol {
			inv = 1 / s[j]
		}
		for i := 0; i < c; i++ {
			vs.Set(i, j, v.At(i, j)*inv)
		}
	}
	dst.Reset()
	dst.Mul(vs, u.T())
}
