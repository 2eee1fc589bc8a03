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
// low-rank factor).
//
// An arrowhead (a group of more than one latent) is the same factor over
// the chain, its first latent, then g global elements (the others) whose
// rows of C are dense: C_ij for every j < i. The formulas above hold for
// any strictly lower C, so draws, log q and the adjoint run over the
// band of a chain row and over the whole of a global row, O(nK + ng); in
// theta the global rows' C_ij follow the band, at arIdx.

// MaxBand is the largest bandwidth K of a banded factor.
const MaxBand = 64

// MaxArrow is the largest number of global elements an arrowhead factor
// (a banded group of more than one latent) holds after its chain.
const MaxArrow = 16

// bdIdx returns the slot (relative to poff) of C_ik (1 ≤ k ≤ K) of chain
// element i in a banded block of n elements and bandwidth K.
func bdIdx(n, K, i, k int) int { return 2*n + i*K + k - 1 }

// arIdx returns the slot (relative to poff) of C_{nc+r, j} (j < nc + r) of
// global element r of an arrowhead block of n elements, nc of them in the
// chain, and bandwidth K: the dense rows follow the chain's band.
func arIdx(n, K, nc, r, j int) int { return 2*n + nc*K + r*nc + r*(r-1)/2 + j }

// bandedNP returns the number of parameters of a banded block of n
// elements, g of them global, and bandwidth K.
func bandedNP(n, K, g int) int {
	nc := n - g
	return 2*n + nc*K + g*nc + g*(g-1)/2
}

// BandedParamNames returns the parameter names of a FamilyBanded factor
// of bandwidth K with g global elements, in the order of its Params: the
// mean, then the diagonals of the precision's Cholesky factor L,
// "band[0]" its diagonal and "band[k]" of chain element i L_{i,i−k} (0 for
// i < k and for the globals), then "arrow[r]" the row of L of global r
// (L_{nc+r, j} for j < nc + r, 0 after).
func BandedParamNames(K, g int) []string {
	out := []string{"mean"}
	for k := range K + 1 {
		out = append(out, fmt.Sprintf("band[%d]", k))
	}
	for r := range g {
		out = append(out, fmt.Sprintf("arrow[%d]", r))
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
// w = U⁻ᵀε in its d slots: w_j = ε_j − Σ_{i>j} C_ij w_i, over the band
// and the global rows.
func (b *block) bandedSample(val []float64, rng *rand.Rand, x, aux []float64) {
	n, K, p, g := b.n, b.band, b.poff, b.glob
	nc := n - g
	e, w := aux[p:p+n], aux[p+n:p+2*n]
	for i := range e {
		e[i] = rng.NormFloat64()
	}
	for j := n - 1; j >= 0; j-- {
		v := e[j]
		for k := 1; k <= K && j+k < nc; k++ {
			v -= val[p+bdIdx(n, K, j+k, k)] * w[j+k]
		}
		for r := max(j-nc+1, 0); r < g; r++ {
			v -= val[p+arIdx(n, K, nc, r, j)] * w[nc+r]
		}
		w[j] = v
		x[b.at(j)] = val[p+j] + v/val[p+n+j]
	}
}

// bandedLogq returns log q(z) at x: Σ log d_i − ½|Lᵀ(x−μ)|² − n·½log 2π,
// less Σx over the logs of positive latents and the logit Jacobians.
func (b *block) bandedLogq(val, x []float64) float64 {
	n, K, p, g := b.n, b.band, b.poff, b.glob
	nc := n - g
	lq := -float64(n) * halfLog2Pi
	for j := range n {
		d := val[p+n+j]
		e := d * (x[b.at(j)] - val[p+j])
		for k := 1; k <= K && j+k < nc; k++ {
			i := j + k
			e += val[p+n+i] * val[p+bdIdx(n, K, i, k)] * (x[b.at(i)] - val[p+i])
		}
		for r := max(j-nc+1, 0); r < g; r++ {
			i := nc + r
			e += val[p+n+i] * val[p+arIdx(n, K, nc, r, j)] * (x[b.at(i)] - val[p+i])
		}
		lq += math.Log(d) - 0.5*e*e
		lq -= b.logJacAt(x, j)
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
// λ = U⁻¹D⁻¹h takes n of aux's C slots (there are at least n). A row of
// C is the band for a chain element, every earlier element for a global
// one: ∂f/∂C_ij = −w_i λ_j either way.
func (b *block) bandedBackprop(val []float64, stl bool, g, aux, grad []float64) {
	n, K, p, ng := b.n, b.band, b.poff, b.glob
	nc := n - ng
	e, w, lam := aux[p:p+n], aux[p+n:p+2*n], aux[p+2*n:p+3*n]
	for i := range n {
		h := g[b.at(i)]
		d := val[p+n+i]
		if stl { // Λu = Lε = D(ε + Cε)
			v := e[i]
			if i < nc {
				for k := 1; k <= K && k <= i; k++ {
					v += val[p+bdIdx(n, K, i, k)] * e[i-k]
				}
			} else {
				row := val[p+arIdx(n, K, nc, i-nc, 0) : p+arIdx(n, K, nc, i-nc, i)]
				for j, c := range row {
					v += c * e[j]
				}
			}
			h += d * v
			if b.logAt(i) {
				h++
			}
		}
		grad[p+i] += h
		grad[p+n+i] -= h * w[i] / (d * d)
		v := h / d
		if i < nc {
			for k := 1; k <= K && k <= i; k++ {
				v -= val[p+bdIdx(n, K, i, k)] * lam[i-k]
			}
			lam[i] = v
			for k := 1; k <= K && k <= i; k++ {
				grad[p+bdIdx(n, K, i, k)] -= w[i] * lam[i-k]
			}
			continue
		}
		a := p + arIdx(n, K, nc, i-nc, 0)
		for j, c := range val[a : a+i] {
			v -= c * lam[j]
		}
		lam[i] = v
		gr := grad[a : a+i]
		for j := range gr {
			gr[j] -= w[i] * lam[j]
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

// bandedCov is the part of Σ = (LLᵀ)⁻¹ a banded factor's recursion
// computes: Σ_ij for chain elements |i − j| ≤ K apart, and every Σ_ij
// with a global element j.
type bandedCov struct {
	n, K, g int
	s       []float64 // s[i*(K+1)+m] = Σ_{i,i+m} (chain), then s[n(K+1)+i*g+r] = Σ_{i,nc+r}
}

// at returns Σ_ab, which must be within the recursion's pattern.
func (c *bandedCov) at(a, b int) float64 {
	if a > b {
		a, b = b, a
	}
	if nc := c.n - c.g; b >= nc {
		return c.s[c.n*(c.K+1)+a*c.g+b-nc]
	}
	return c.s[a*(c.K+1)+b-a]
}

func (c *bandedCov) set(a, b int, v float64) {
	if nc := c.n - c.g; b >= nc {
		c.s[c.n*(c.K+1)+a*c.g+b-nc] = v
		return
	}
	c.s[a*(c.K+1)+b-a] = v
}

// bandedVar returns the part of Λ⁻¹ = (LLᵀ)⁻¹ of a banded factor's
// pattern, L = D(I + C) of n elements (the last g global) and bandwidth K
// given by d and c(i, j) = C_ij (j < i, within the pattern), by the
// recursion of Takahashi et al.: LᵀΣ = L⁻¹ is lower-triangular with
// diagonal 1/L_ii, so for j ≥ i, Σ_ij = (δ_ij/L_ii − Σ_{m>i} L_mi Σ_mj)/L_ii
// over the m with L_mi ≠ 0 (the band below i and the globals), from the
// last row up, the diagonal last: every Σ_mj it reads is in the pattern
// (an arrowhead has no fill-in). O(n(K+g)²) time.
func bandedVar(n, K, g int, d []float64, c func(i, j int) float64) *bandedCov {
	cv := &bandedCov{n: n, K: K, g: g, s: make([]float64, n*(K+1)+n*g)}
	nc := n - g
	// lmi returns L_mi for m > i in the pattern.
	lmi := func(m, i int) float64 { return d[m] * c(m, i) }
	row := func(i, j int) float64 { // Σ_ij (j ≥ i) from the rows below
		t := 0.0
		if j == i {
			t = 1 / d[i]
		}
		for m := i + 1; m <= i+K && m < nc; m++ {
			t -= lmi(m, i) * cv.at(m, j)
		}
		for m := max(i+1, nc); m < n; m++ {
			t -= lmi(m, i) * cv.at(m, j)
		}
		return t / d[i]
	}
	for i := n - 1; i >= 0; i-- {
		for j := n - 1; j >= max(i+1, nc); j-- {
			cv.set(i, j, row(i, j))
		}
		for j := min(i+K, nc-1); j > i; j-- {
			cv.set(i, j, row(i, j))
		}
		cv.set(i, i, row(i, i))
	}
	return cv
}

// bandedCovOf returns the recursion's Σ of a banded factor from its
// Params (mean, band[0] … band[K], arrow[0] … arrow[g−1]).
func bandedCovOf(p [][]float64, K int) *bandedCov {
	n, g := len(p[0]), len(p)-K-2
	nc := n - g
	d := p[1]
	return bandedVar(n, K, g, d, func(i, j int) float64 {
		if i < nc {
			return p[1+i-j][i] / d[i]
		}
		return p[K+2+i-nc][j] / d[i]
	})
}

// bandedSDs returns the marginal sds of a banded factor's coordinates from
// its Params (mean, band[0] … band[K]: one latent's, no globals).
func bandedSDs(p [][]float64) []float64 {
	return bandedSDsK(p, len(p)-2)
}

// bandedSDsK returns the marginal sds of a banded factor of bandwidth K
// from its Params.
func bandedSDsK(p [][]float64, K int) []float64 {
	cv := bandedCovOf(p, K)
	v := make([]float64, cv.n)
	for i := range v {
		v[i] = math.Sqrt(cv.at(i, i))
	}
	return v
}

// bandedSDsVal returns the marginal sds of banded block b from the step
// cache's constrained parameters val.
func (b *block) bandedSDsVal(val []float64) []float64 {
	n, K, p, g := b.n, b.band, b.poff, b.glob
	nc := n - g
	cv := bandedVar(n, K, g, val[p+n:p+2*n], func(i, j int) float64 {
		if i < nc {
			return val[p+bdIdx(n, K, i, i-j)]
		}
		return val[p+arIdx(n, K, nc, i-nc, j)]
	})
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Sqrt(cv.at(i, i))
	}
	return v
}

// bandedParams writes a banded block's Params from theta.
func (b *block) bandedParams(th []float64) [][]float64 {
	n, K, g := b.n, b.band, b.glob
	nc := n - g
	out := make([][]float64, K+2+g)
	out[0] = append([]float64(nil), th[:n]...)
	out[1] = make([]float64, n)
	for i := range n {
		out[1][i] = math.Exp(th[n+i])
	}
	for k := 1; k <= K; k++ {
		col := make([]float64, n)
		for i := k; i < nc; i++ {
			col[i] = out[1][i] * th[bdIdx(n, K, i, k)]
		}
		out[1+k] = col
	}
	for r := range g {
		row := make([]float64, n)
		for j := range nc + r {
			row[j] = out[1][nc+r] * th[arIdx(n, K, nc, r, j)]
		}
		out[K+2+r] = row
	}
	return out
}

// bandedTheta writes theta from a banded block's Params (the inverse of
// bandedParams).
func (b *block) bandedTheta(p [][]float64, th []float64) {
	n, K, g := b.n, b.band, b.glob
	nc := n - g
	copy(th[:n], p[0])
	clear(th[2*n : b.np()])
	for i := range n {
		d := math.Max(p[1][i], minParam)
		th[n+i] = math.Log(d)
		if i >= nc {
			if r := K + 2 + i - nc; r < len(p) {
				for j := range i {
					th[arIdx(n, K, nc, i-nc, j)] = p[r][j] / d
				}
			}
			continue
		}
		for k := 1; k <= K && k <= i && 1+k < len(p); k++ {
			th[bdIdx(n, K, i, k)] = p[1+k][i] / d
		}
	}
}
