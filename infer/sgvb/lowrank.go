package sgvb

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Low-rank-plus-diagonal factors (FamilyLowRank, Settings.Rank): a joint
// group's q is x = μ + Bε₁ + d⊙ε₂ with B of n×R, d > 0, ε₁ ~ N(0, I_R)
// and ε₂ ~ N(0, I_n), so Σ = BBᵀ + D², D = diag(d) (Pyro's
// AutoLowRankMultivariateNormal). The engine holds B as D·C, so that
// Σ = D(I + CCᵀ)D and x = μ + d⊙(Cε₁ + ε₂): row i of C is element i's
// loadings in units of its own scale d_i. The optimizer's per-coordinate
// steps then move a loading by the same relative amount whether the
// element's posterior sd is 0.01 or 10; on B itself, with AdaDelta's
// default step, fits of examples/varying.gpp wandered by hundreds of nats
// and at rank 1 ended below mean-field. Nothing of n×n is ever formed:
// with K = I_R + CᵀC (R×R, factored once a step in fillRange),
//
//	log det Σ = 2Σ log d_i + log det K            (determinant lemma)
//	Σ⁻¹       = D⁻¹(I − C K⁻¹ Cᵀ)D⁻¹              (Woodbury)
//	∂½log det K/∂C = C K⁻¹
//
// so a draw, its log density and its STL gradient cost O(nR), the
// entropy's gradient O(nR²), and a step O(nR + R³).
//
// theta holds the n means, the n raw d_i behind a softplus (as every sd of
// the engine: the optimizer moves d as it moves a normal factor's sd, a
// warm start from a normal factor carries over as it is, and d keeps
// minParam's floor through clamp), then C row by row (C_ik at
// lrIdx(n, R, i, k)). The steps are the optimizer's (Settings.Optimizer),
// per coordinate: the natural gradient of this family has no cheap closed
// form. Only C's are then rescaled, row by row (lowRankScaleC).
// Factor.Params and Group.Params report B = D·C.
//
// C starts at small random entries (initLowRank), not at 0: at C = 0 the
// draw does not depend on ε₁, so the pathwise gradient E[h ε₁ᵀ] of C and
// the entropy's C K⁻¹ both vanish, and C = 0 is a stationary point that
// only the gradient's noise would leave.

// MaxLowRank is the most entries n·R of a low-rank factor's B. The engine
// keeps about 15 vectors as long as theta (theta, its gradient, step,
// backup, the optimizer's state, one gradient per draw, the step cache,
// each worker's aux), so 10⁶ entries use about 120 MB.
const MaxLowRank = 1 << 20

// lowRankInitC is the sd of C's entries at the start.
const lowRankInitC = 0.1

// lrIdx returns the slot (relative to poff) of C_ik in a low-rank block of
// n elements and rank r.
func lrIdx(n, r, i, k int) int { return 2*n + i*r + k }

// LowRankParamNames returns the parameter names of a FamilyLowRank factor
// of rank r, in the order of Factor.Params: the mean, d (the sqrt of Σ's diagonal part),
// then the columns B[1] … B[r] of B.
func LowRankParamNames(r int) []string {
	out := []string{"mean", "d"}
	for k := range r {
		out = append(out, fmt.Sprintf("B[%d]", k+1))
	}
	return out
}

// CheckLowRank returns why a low-rank factor of n elements and rank r is
// not allowed, or nil.
func CheckLowRank(n, r int) error {
	if r < 1 {
		return fmt.Errorf("a low-rank factor needs a rank ≥ 1, got %d", r)
	}
	if n*min(r, n) > MaxLowRank {
		return fmt.Errorf("%d elements at rank %d: a low-rank factor has at most %d entries n·R in B (MaxLowRank)", n, r, MaxLowRank)
	}
	return nil
}

// lowRankScratch returns the scratch of a low-rank block of rank r: K's
// Cholesky factor (r×r, lower), K⁻¹ (r×r), log det K, and r values.
func lowRankScratch(r int) []float64 { return make([]float64, 2*r*r+1+r) }

// lrParts splits b.lr (lowRankScratch's layout).
func (b *block) lrParts() (chol, kinv []float64, logdet *float64, tmp []float64) {
	r := b.rank
	s := b.lr
	return s[:r*r], s[r*r : 2*r*r], &s[2*r*r], s[2*r*r+1:]
}

// lowRankFill writes K = I + CᵀC's Cholesky factor and log det into b.lr
// from the constrained parameters val. A K that is not positive definite
// in floating point (it is in exact arithmetic) gets a NaN log det, which
// the step's finiteness checks reject.
func (b *block) lowRankFill(val []float64) {
	n, r, p := b.n, b.rank, b.poff
	chol, _, logdet, _ := b.lrParts()
	clear(chol)
	for i := range n {
		row := val[p+lrIdx(n, r, i, 0) : p+lrIdx(n, r, i, 0)+r]
		for a := range r {
			ca := row[a]
			c := chol[a*r : a*r+a+1]
			for k := range c {
				c[k] += ca * row[k]
			}
		}
	}
	ld := 0.0
	for j := range r {
		chol[j*r+j]++
		v := chol[j*r+j]
		for k := range j {
			v -= chol[j*r+k] * chol[j*r+k]
		}
		if !(v > 0) {
			*logdet = math.NaN()
			return
		}
		v = math.Sqrt(v)
		chol[j*r+j] = v
		ld += 2 * math.Log(v)
		for i := j + 1; i < r; i++ {
			s := chol[i*r+j]
			for k := range j {
				s -= chol[i*r+k] * chol[j*r+k]
			}
			chol[i*r+j] = s / v
		}
	}
	*logdet = ld
}

// cholSolve solves K s = t in place (t becomes s) with K's Cholesky factor
// chol (r×r, lower).
func cholSolve(chol, t []float64, r int) {
	for i := range r {
		s := t[i]
		for k := range i {
			s -= chol[i*r+k] * t[k]
		}
		t[i] = s / chol[i*r+i]
	}
	for i := r - 1; i >= 0; i-- {
		s := t[i]
		for k := i + 1; k < r; k++ {
			s -= chol[k*r+i] * t[k]
		}
		t[i] = s / chol[i*r+i]
	}
}

// lrAux returns where a draw of low-rank block b keeps ε₁ and r values of
// scratch in aux, its slots past the means' (which hold ε₂): n + n·r
// slots, enough for both when r ≤ n, as in a fit's blocks. A member's
// factor read on its own (Result.prepare) may have r > n; its scratch is
// then nil.
func (b *block) lrAux(aux []float64) (e1, s []float64) {
	r := b.rank
	a := aux[b.poff+b.n : b.poff+b.np()]
	if 2*r <= len(a) {
		return a[:r], a[r : 2*r]
	}
	return a[:r], nil
}

// lowRankSample draws x = μ + d⊙(Cε₁ + ε₂), ε₁ first, recording ε₂ in
// aux's mean slots and ε₁ where lrAux says.
func (b *block) lowRankSample(val []float64, rng *rand.Rand, x, aux []float64) {
	n, r, p := b.n, b.rank, b.poff
	e1, _ := b.lrAux(aux)
	for k := range e1 {
		e1[k] = rng.NormFloat64()
	}
	for i := range n {
		e := rng.NormFloat64()
		aux[p+i] = e
		o := p + lrIdx(n, r, i, 0)
		for k, ck := range val[o : o+r] {
			e += ck * e1[k]
		}
		x[b.at(i)] = val[p+i] + val[p+n+i]*e
	}
}

// lowRankSolve returns (x−μ)ᵀΣ⁻¹(x−μ) and leaves s = K⁻¹Cᵀu in s (r
// values), u = D⁻¹(x−μ), from which (Σ⁻¹(x−μ))_i = (u_i − c_iᵀs)/d_i.
func (b *block) lowRankSolve(val, x, s []float64) float64 {
	n, r, p := b.n, b.rank, b.poff
	chol, _, _, _ := b.lrParts()
	clear(s)
	q := 0.0
	for i := range n {
		u := (x[b.at(i)] - val[p+i]) / val[p+n+i]
		q += u * u
		o := p + lrIdx(n, r, i, 0)
		for k, ck := range val[o : o+r] {
			s[k] += ck * u
		}
	}
	// s holds t = Cᵀu; tᵀK⁻¹t = |y|² with y = L⁻¹t (K = LLᵀ), the
	// forward half of the solve.
	for i := range r {
		v := s[i]
		for k := range i {
			v -= chol[i*r+k] * s[k]
		}
		s[i] = v / chol[i*r+i]
	}
	yy := 0.0
	for k := range r {
		yy += s[k] * s[k]
	}
	for i := r - 1; i >= 0; i-- {
		v := s[i]
		for k := i + 1; k < r; k++ {
			v -= chol[k*r+i] * s[k]
		}
		s[i] = v / chol[i*r+i]
	}
	return q - yy
}

// lowRankLogq returns log q(z) at x: −½(x−μ)ᵀΣ⁻¹(x−μ) − ½log det Σ −
// n·½log 2π, less Σx over the logs of positive latents (the density of
// z = eˣ). aux, when not nil, lends r slots of scratch (lrAux; the draw's
// record is not needed: x carries it).
func (b *block) lowRankLogq(val, x, aux []float64) float64 {
	n, r, p := b.n, b.rank, b.poff
	var s []float64
	if aux != nil {
		_, s = b.lrAux(aux)
	}
	if s == nil {
		s = make([]float64, r)
	}
	_, _, logdet, _ := b.lrParts()
	lq := -0.5*b.lowRankSolve(val, x, s) - 0.5**logdet - float64(n)*halfLog2Pi
	for i := range n {
		lq -= math.Log(val[p+n+i])
		lq -= b.logJacAt(x, i)
	}
	return lq
}

// lowRankEntropy returns n·½log(2πe) + Σ log d_i + ½ log det K, plus the
// means of the logs of positive latents.
func (b *block) lowRankEntropy(val []float64) float64 {
	n, p := b.n, b.poff
	_, _, logdet, _ := b.lrParts()
	h := float64(n)*halfLog2PiE + 0.5**logdet
	for i := range n {
		h += math.Log(val[p+n+i])
		if b.logAt(i) {
			h += val[p+i]
		}
	}
	return h
}

// lowRankEntropyGrad adds the entropy's gradient with respect to μ, d and
// C into grad: 1 for the mean of a positive latent's log, 1/d_i, and
// (C K⁻¹)_i = K⁻¹c_i.
func (b *block) lowRankEntropyGrad(val, grad []float64) {
	n, r, p := b.n, b.rank, b.poff
	chol, _, _, tmp := b.lrParts()
	for i := range n {
		o := p + lrIdx(n, r, i, 0)
		copy(tmp, val[o:o+r])
		cholSolve(chol, tmp, r)
		for a := range r {
			grad[o+a] += tmp[a]
		}
		grad[p+n+i] += 1 / val[p+n+i]
		if b.logAt(i) {
			grad[p+i]++
		}
	}
}

// lowRankBackprop is backprop for a low-rank block (the whole block, no
// control variate): with h = ∂log p/∂x (for STL plus Σ⁻¹(x−μ), and 1 for
// the log of a positive latent: less ∂log q/∂x), ∂/∂μ_i = h_i,
// ∂/∂d_i = h_i(x_i − μ_i)/d_i and ∂/∂C_ik = h_i d_i ε₁ₖ.
func (b *block) lowRankBackprop(val []float64, stl bool, x, g, aux, grad []float64) {
	n, r, p := b.n, b.rank, b.poff
	e1, s := b.lrAux(aux) // r ≤ n in a fit: s is not nil
	if stl {
		b.lowRankSolve(val, x, s)
	}
	for i := range n {
		h := g[b.at(i)]
		d := val[p+n+i]
		u := (x[b.at(i)] - val[p+i]) / d
		o := p + lrIdx(n, r, i, 0)
		if stl {
			v := u
			for k, ck := range val[o : o+r] {
				v -= ck * s[k]
			}
			h += v / d
			if b.logAt(i) {
				h++
			}
		}
		grad[p+i] += h
		grad[p+n+i] += h * u
		hd := h * d
		gc := grad[o : o+r]
		for k := range gc {
			gc[k] += hd * e1[k]
		}
	}
}

// initLowRank writes a low-rank block's C: independent
// N(0, lowRankInitC²) entries from rng (see the comment at the top of the
// file).
func (b *block) initLowRank(th []float64, rng *rand.Rand) {
	for j := 2 * b.n; j < len(th); j++ {
		th[j] = lowRankInitC * rng.NormFloat64()
	}
}

// lowRankRows returns the params (mean, d, columns of B) of elements
// [lo, lo+m) of low-rank params p: exactly their marginal, which is of the
// same family.
func lowRankRows(p [][]float64, lo, m int) [][]float64 {
	out := make([][]float64, len(p))
	for j := range p {
		out[j] = append([]float64(nil), p[j][lo:lo+m]...)
	}
	return out
}

// lowRankScaleC multiplies the optimizer's step of row i of C in delta by
// (1 + |C_i|²)^¼, the square root of element i's marginal sd in units of
// d_i (θ holds C as it is). AdaDelta's steps have an absolute size: where
// C's gradient is mostly noise, about η√ε per step whatever C's scale.
// A nearly degenerate posterior (correlation −0.997 between an intercept
// and a slope) needs |C_i| ≈ 18, which C crossed at that pace for tens of
// thousands of steps while the fit's tolerance declared it converged
// 0.1–0.3 nats short. Steps relative to the whole sd, (1 + |C_i|²)^½, were
// faster still but unstable at R ≥ 2 (C and d trade scale freely there:
// C grew past 50 with d shrinking, 0.3–0.8 nats lost); the square root of
// that is the measured compromise (docs/inference.md). Where |C_i| ≪ 1
// the factor is about 1 and the step is the optimizer's.
func (b *block) lowRankScaleC(theta, delta []float64) {
	n, r, p := b.n, b.rank, b.poff
	for i := range n {
		j := p + lrIdx(n, r, i, 0)
		s := 1.0
		for _, c := range theta[j : j+r] {
			s += c * c
		}
		s = math.Sqrt(math.Sqrt(s))
		for k := j; k < j+r; k++ {
			delta[k] *= s
		}
	}
}
