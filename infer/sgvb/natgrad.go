package sgvb

import "math"

// Full-rank factors follow the natural gradient of the ELBO, not the
// optimizer's per-coordinate rule. For q = N(μ, CCᵀ), C lower triangular,
// the Fisher information is block diagonal in μ and C, and the natural
// gradient is Σ·∇_μ for the mean and C·H̄ for C, where H̄ is the lower
// triangle of CᵀG (G = ∇_C, the gradient over C's lower entries) with its
// diagonal halved (Tan 2021, "Analytic natural gradient updates for
// Cholesky factor in Gaussian variational approximation"). Both are
// invariant to affine maps of x, so a step moves q by a fraction of its
// own scale whatever the target's scales and correlations: AdaDelta's
// per-entry steps instead moved each of C's n(n−1)/2 entries by about the
// diagonal's step, so that C's rows grew with n and fits of more than a
// few elements diverged.
//
// A step with step size η is μ ← μ + ρ Σ∇_μ and C ← C·M, where M has ρH̄
// below the diagonal and exp(ρH̄_ii) on it (first-order equal to C + ρCH̄,
// and it keeps the diagonal positive), ρ = natRate·η/n. The 1/n: with one
// draw, H's estimate is about εεᵀ at the start, of norm n where its mean
// has norm √n, and the multiplicative rule is stable for ρ ≲ 1/n (ρ = η/10
// diverged from n = 20 on). A trust region cuts ρ so that neither ‖ρH̄‖_F
// (C's change relative to itself) nor ‖ρCᵀ∇_μ‖ (the mean's move in units
// of q's own spread) exceeds natMaxStep.
const (
	natRate    = 1.0
	natMaxStep = 0.2
)

// tri is the index of (i, j), j ≤ i, in a packed lower triangle.
func tri(i, j int) int { return i*(i+1)/2 + j }

// natScratch returns the scratch a full-rank block of n elements needs for
// its natural-gradient step: C, G (then C·M) and H packed, and n for Cᵀ∇_μ.
func natScratch(n int) []float64 { return make([]float64, 3*tri(n, 0)+n) }

// natDelta writes into delta the natural-gradient step of full-rank block b
// with step size eta, from the parameters theta and their gradient grad
// (the engine's layout: means, raw diagonal behind a softplus, entries
// below the diagonal). It uses b.nat as scratch and does not allocate; its
// cost is about n³/3 multiply-adds.
func (b *block) natDelta(theta, grad, delta []float64, eta float64) {
	n, p := b.n, b.poff
	nt := tri(n, 0)
	c, g, h, u := b.nat[:nt], b.nat[nt:2*nt], b.nat[2*nt:3*nt], b.nat[3*nt:3*nt+n]
	for i := range n {
		for j := range i {
			c[tri(i, j)] = theta[p+lowIdx(n, i, j)]
			g[tri(i, j)] = grad[p+lowIdx(n, i, j)]
		}
		r := theta[p+n+i]
		c[tri(i, i)] = softplus(r)
		g[tri(i, i)] = grad[p+n+i] / sigmoid(r) // ∂/∂C_ii from ∂/∂raw
	}
	// u = Cᵀ∇_μ and H = CᵀG on and below the diagonal: H_ij = Σ_{k≥i} C_ki
	// G_kj, summed over the rows k of C and G (contiguous when packed).
	clear(u)
	clear(h)
	for k := range n {
		ck, gk := c[tri(k, 0):tri(k, k)+1], g[tri(k, 0):tri(k, k)+1]
		mk := grad[p+k]
		for i, cki := range ck {
			u[i] += cki * mk
			hi := h[tri(i, 0) : tri(i, i)+1]
			for j := range hi {
				hi[j] += cki * gk[j]
			}
		}
	}
	nu, nh := 0.0, 0.0
	for i := range n {
		nu += u[i] * u[i]
		h[tri(i, i)] /= 2
		for _, v := range h[tri(i, 0) : tri(i, i)+1] {
			nh += v * v
		}
	}
	rho := natRate * eta / float64(n)
	rm, rc := min(rho, natMaxStep/math.Sqrt(nu)), min(rho, natMaxStep/math.Sqrt(nh))
	// the mean: ρ C u
	for i := range n {
		s := 0.0
		for j, cij := range c[tri(i, 0) : tri(i, i)+1] {
			s += cij * u[j]
		}
		delta[p+i] = rm * s
	}
	// C·M into g, M = ρH̄ below the diagonal and exp(ρH̄_ii) on it:
	// (CM)_ij = Σ_{j≤k≤i} C_ik M_kj, summed over the rows k of M.
	for i := range h {
		h[i] *= rc
	}
	for k := range n {
		h[tri(k, k)] = math.Exp(h[tri(k, k)])
	}
	clear(g)
	for i := range n {
		gi := g[tri(i, 0) : tri(i, i)+1]
		for k, cik := range c[tri(i, 0) : tri(i, i)+1] {
			for j, mkj := range h[tri(k, 0) : tri(k, k)+1] {
				gi[j] += cik * mkj
			}
		}
	}
	for i := range n {
		for j := range i {
			delta[p+lowIdx(n, i, j)] = g[tri(i, j)] - c[tri(i, j)]
		}
		delta[p+n+i] = softplusInv(g[tri(i, i)]) - theta[p+n+i]
	}
}
