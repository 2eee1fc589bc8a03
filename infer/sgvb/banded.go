package sgvb

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Banded-precision factors (FamilyBanded, Settings.Band): a Gauss–Markov
// q for a chain of latent states (Archer et al. 2015, "Black box
// variational inference for state space models"). q(x) = N(μ, Λ⁻¹) with
// the precision Λ = LLᵀ, L lower-triangular with bandwidth K: the exact
// posterior of a linear-Gaussian state-space model is of this family
// (K = 1 for an AR(1) or a random walk), and the posterior of a
// non-linear one is often close to it. The engine holds L as D(I + C)
// with D = diag(d), d > 0, and C strictly lower with C_ik (k = 1…K) on
// the k-th subdiagonal: L_{i,i−k} = d_i C_ik. Rescaling element i by s_i
// rescales d_i by 1/s_i and leaves C as it is, so the optimizer's
// per-coordinate steps of C do not depend on the posterior's scale (the
// low-rank factor's C = D⁻¹B for the same reason); d is held as its log,
// since a random walk's d runs from 1 to 100s over a fit. With U = I + C
// (unit lower, banded):
//
//	x = μ + D⁻¹U⁻ᵀε                 (one banded back-substitution, O(nK))
//	log q(x) = Σ log d_i − ½|Lᵀ(x−μ)|² − n·½log 2π
//	H = n·½log(2πe) − Σ log d_i     (det U = 1)
//
// and, for a draw with w = U⁻ᵀε (u = x − μ = D⁻¹w) and h = ∂f/∂x, the
// pathwise gradient by the adjoint of the back-substitution: with
// g = D⁻¹h and λ = U⁻¹g (a forward substitution),
//
//	∂f/∂μ_i = h_i,  ∂f/∂d_i = −h_i u_i/d_i,  ∂f/∂C_ik = −w_i λ_{i−k}
//
// (dw = −U⁻ᵀ dUᵀ w, so gᵀdw = −λᵀ dUᵀ w). STL adds −∂log q/∂x = Λu = Lε
// to h. theta holds the n means, the n log d_i, then C row by row (C_ik at
// bdIdx(n, K, i, k); the slots of C_ik with k > i are kept at 0). The
// steps are the optimizer's, per coordinate; no control variate (as the
// low-rank factor). A banded group has one latent: the marginal of part
// of the chain is not banded.

// MaxBand is the largest bandwidth K of a banded factor.
const MaxBand = 64

// bdIdx returns the slot (relative to poff) of C_ik (1 ≤ k ≤ K) in a
// banded block of n elements and bandwidth K.
func bdIdx(n, K, i, k int) int { return 2*n + i*K + k - 1 }

// BandedParamNames returns the parameter names of a FamilyBanded factor
// of bandwidth K, in the order of Factor.Params: the mean, then the
// diagonals of the precision's Cholesky factor L, "band[0]" its diagonal
// and "band[k]" of element i L_{i,i−k} (0 for i < k).
func BandedParamNames(K int) []string {
	out := []string{"mean"}
	for k := range K + 1 {
		out = append(out, fmt.Sprintf("band[%d]", k))
	}
	return out
}

// CheckBand returns why a banded factor of bandwidth K is not allowed, or
// nil.
func CheckBand(K int) error {
	if K < 1 || K > MaxBand {
		return fmt.Errorf("a banded factor needs a bandwidth from 1 to %d, got %d", MaxBand, K)
	}
	return nil
}

// bandedSample draws x = μ + D⁻¹U⁻ᵀε, recording ε in aux's mean slots and
// w = U⁻ᵀε in its d slots.
func (b *block) bandedSample(val []float64, rng *rand.Rand, x, aux []float64) {
	n, K, p := b.n, b.band, b.poff
	e, w := aux[p:p+n], aux[p+n:p+2*n]
	for i := range e {
		e[i] = rng.NormFloat64()
	}
	for i := n - 1; i >= 0; i-- {
		v := e[i]
		for k := 1; k <= K && i+k < n; k++ {
			v -= val[p+bdIdx(n, K, i+k, k)] * w[i+k]
		}
		w[i] = v
		x[b.at(i)] = val[p+i] + v/val[p+n+i]
	}
}

// bandedLogq returns log q(z) at x: Σ log d_i − ½|Lᵀ(x−μ)|² − n·½log 2π,
// less Σx over the logs of positive latents and the logit Jacobians.
func (b *block) bandedLogq(val, x []float64) float64 {
	n, K, p := b.n, b.band, b.poff
	lq := -float64(n) * halfLog2Pi
	for j := range n {
		d := val[p+n+j]
		e := d * (x[b.at(j)] - val[p+j])
		for k := 1; k <= K && j+k < n; k++ {
			i := j + k
			e += val[p+n+i] * val[p+bdIdx(n, K, i, k)] * (x[b.at(i)] - val[p+i])
		}
		lq += math.Log(d) - 0.5*e*e
		if b.logAt(j) {
			lq -= x[b.at(j)]
		}
		if b.logitAt(j) {
			jac, _ := logitJac(x[b.at(j)])
			lq -= jac
		}
	}
	return lq
}

// bandedEntropy returns n·½log(2πe) − Σ log d_i, plus the means of the
// logs of positive latents.
func (b *block) bandedEntropy(val []float64) float64 {
	n, p := b.n, b.poff
	h := float64(n) * halfLog2PiE
	for i := range n {
		h -= math.Log(val[p+n+i])
		if b.logAt(i) {
			h += val[p+i]
		}
	}
	return h
}

// bandedEntropyGrad adds the entropy's gradient into grad: −1/d_i, and 1
// for the mean of a positive latent's log.
func (b *block) bandedEntropyGrad(val, grad []float64) {
	n, p := b.n, b.poff
	for i := range n {
		grad[p+n+i] -= 1 / val[p+n+i]
		if b.logAt(i) {
			grad[p+i]++
		}
	}
}

// bandedBackprop is backprop for a banded block (the whole block, no
// control variate), from the ε and w that bandedSample recorded in aux;
// λ = U⁻¹D⁻¹h takes aux's C slots (n·K ≥ n of them).
func (b *block) bandedBackprop(val []float64, stl bool, g, aux, grad []float64) {
	n, K, p := b.n, b.band, b.poff
	e, w, lam := aux[p:p+n], aux[p+n:p+2*n], aux[p+2*n:p+3*n]
	for i := range n {
		h := g[b.at(i)]
		d := val[p+n+i]
		if stl { // Λu = Lε = D(ε + Cε)
			v := e[i]
			for k := 1; k <= K && k <= i; k++ {
				v += val[p+bdIdx(n, K, i, k)] * e[i-k]
			}
			h += d * v
			if b.logAt(i) {
				h++
			}
		}
		grad[p+i] += h
		grad[p+n+i] -= h * w[i] / (d * d)
		v := h / d
		for k := 1; k <= K && k <= i; k++ {
			v -= val[p+bdIdx(n, K, i, k)] * lam[i-k]
		}
		lam[i] = v
		for k := 1; k <= K && k <= i; k++ {
			grad[p+bdIdx(n, K, i, k)] -= w[i] * lam[i-k]
		}
	}
}

// bandedFill sets the step cache of a banded block: d = e^θ, the rest as
// it is.
func (c *stepCache) bandedFill(b *block, th []float64) {
	n, p := b.n, b.poff
	for j := p; j < p+b.np(); j++ {
		c.val[j], c.dval[j] = th[j], 1
	}
	for j := p + n; j < p+2*n; j++ {
		c.val[j] = math.Exp(th[j])
		c.dval[j] = c.val[j]
	}
}

// bandedVar writes the diagonal of Λ⁻¹ = (LLᵀ)⁻¹ into v, L = D(I + C) of
// bandwidth K given by d and c(i, k) = C_ik, by the recursion of Takahashi
// et al.: LᵀΣ = L⁻¹ is lower-triangular with diagonal 1/L_ii, so for
// j ≥ i, Σ_ij = (δ_ij/L_ii − Σ_{m=i+1}^{i+K} L_mi Σ_mj)/L_ii, from the last
// row up within the band: O(nK²) time, n(K+1) scratch in s.
func bandedVar(n, K int, d []float64, c func(i, k int) float64, s, v []float64) {
	// s[i*(K+1)+m] = Σ_{i,i+m}, 0 ≤ m ≤ K.
	at := func(a, b int) float64 {
		if a > b {
			a, b = b, a
		}
		return s[a*(K+1)+b-a]
	}
	for i := n - 1; i >= 0; i-- {
		lii := d[i]
		for j := min(i+K, n-1); j >= i; j-- {
			t := 0.0
			if j == i {
				t = 1 / lii
			}
			for m := i + 1; m <= i+K && m < n; m++ {
				t -= d[m] * c(m, m-i) * at(m, j)
			}
			s[i*(K+1)+j-i] = t / lii
		}
		v[i] = s[i*(K+1)]
	}
}

// bandedSDs returns the marginal sds of a banded factor's coordinates from
// its Params (mean, band[0] … band[K]).
func bandedSDs(p [][]float64) []float64 {
	n, K := len(p[0]), len(p)-2
	s, v := make([]float64, n*(K+1)), make([]float64, n)
	d := p[1]
	bandedVar(n, K, d, func(i, k int) float64 { return p[1+k][i] / d[i] }, s, v)
	for i := range v {
		v[i] = math.Sqrt(v[i])
	}
	return v
}

// bandedSDsVal returns the marginal sds of banded block b from the step
// cache's constrained parameters val.
func (b *block) bandedSDsVal(val []float64) []float64 {
	n, K, p := b.n, b.band, b.poff
	s, v := make([]float64, n*(K+1)), make([]float64, n)
	bandedVar(n, K, val[p+n:p+2*n], func(i, k int) float64 { return val[p+bdIdx(n, K, i, k)] }, s, v)
	for i := range v {
		v[i] = math.Sqrt(v[i])
	}
	return v
}

// bandedParams writes a banded block's Params from theta.
func (b *block) bandedParams(th []float64) [][]float64 {
	n, K := b.n, b.band
	out := make([][]float64, K+2)
	out[0] = append([]float64(nil), th[:n]...)
	out[1] = make([]float64, n)
	for i := range n {
		out[1][i] = math.Exp(th[n+i])
	}
	for k := 1; k <= K; k++ {
		col := make([]float64, n)
		for i := k; i < n; i++ {
			col[i] = out[1][i] * th[bdIdx(n, K, i, k)]
		}
		out[1+k] = col
	}
	return out
}

// bandedTheta writes theta from a banded block's Params (the inverse of
// bandedParams).
func (b *block) bandedTheta(p [][]float64, th []float64) {
	n, K := b.n, b.band
	copy(th[:n], p[0])
	clear(th[2*n:])
	for i := range n {
		d := math.Max(p[1][i], minParam)
		th[n+i] = math.Log(d)
		for k := 1; k <= K && k <= i && 1+k < len(p); k++ {
			th[bdIdx(n, K, i, k)] = p[1+k][i] / d
		}
	}
}
