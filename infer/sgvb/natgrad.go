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
// diverged from n = 20 on). Below natMaxStep's 5 elements ρ is
// natMaxStep·η instead (natRho): at the optimum a one-draw step still
// moves q by about √ρ of its own spread in every direction, so the
// iterates of a small factor at ρ = η/2 (n = 2) or η (n = 1) jittered by
// half of q's sds, and their average moved between the stop rule's
// evaluations by more than its tolerance. BDA's bioassay (alpha, beta
// under Normal(0, 10) and Normal(0, 50), --fullrank all) ran all 10⁴
// steps "not converged" at seeds 3 and 7 and stopped at the others with
// ELBOs −7.24 to −7.35 and beta's sd 4.7–5.2; at ρ ≤ 0.2 all of seeds
// 1–8 converge in 1400–6600 steps at −7.09 to −7.22 (TestFullRankSmall,
// TestFullRankAutoBioassay).
// A trust region cuts ρ so that neither ‖ρH̄‖_F
// (C's change relative to itself) nor ‖ρCᵀ∇_μ‖ (the mean's move in units
// of q's own spread) exceeds natMaxStep.
//
// Where the trust region cuts most steps, a step is a normalised one of
// size natMaxStep whatever ρ is, and the step-size decay d(t) in η never
// reaches it: q keeps moving by steps of that size. On GPFA's 88 elements
// (--fullrank all, examples/gpfa.gpp) it cut 75–100 % of the steps
// throughout, and the log loadings of switched-off factors random-walked
// down their long left tail to a mean of −84 and an sd of 39 (a loading
// under a gamma prior of shape a ≈ 0.1 and little data: the best normal
// on its log has sd about 1/√a ≈ 3), where a few draws of e^x are huge:
// the final ELBO estimate was −6.5·10¹³. So once the trust region has cut
// more than half of the steps between each of the last natPersist ELBO
// evaluations (natRegime), its radius decays as η does, natMaxStep·d(t).
// Where it cuts only the outliers it stays natMaxStep: cutting those more
// often biases q, as clipping a skewed gradient's tail biases its mean
// (TestLogitJointFit's mu moved by 0.01–0.05 of its sd over 8 seeds with
// the radius always decaying).
//
// Below the diagonal, G is the draws' mean of h_s ε_sᵀ (h_s the pathwise
// derivative ∂/∂x of draw s, ε_s its standard normal), so there H is the
// mean of u_s ε_sᵀ with u_s = Cᵀh_s: natDelta works from the draws' vectors,
// which backprop records, in about 1.5·S·n² multiply-adds for S draws
// instead of the n³/3 of forming CᵀG and C·M densely. G's diagonal, which
// also carries the entropy term of the non-STL estimator, comes from the
// step's gradient.
const (
	natRate    = 1.0
	natMaxStep = 0.2
	natPersist = 3 // see natRegime
)

// natRho returns the natural-gradient step's rate ρ for step size eta and
// a factor of n elements: natRate·η/n, at most natMaxStep·η (a step of
// one draw moves q by no more than the trust region's radius of its own
// spread on average, where 1/n alone allows a factor of one or two
// elements half of it or all).
func natRho(eta float64, n int) float64 {
	return min(natRate*eta/float64(n), natMaxStep*eta)
}

// natScratch returns the scratch a full-rank block of n elements needs for
// its natural-gradient step with S draws per step: C's diagonal, Cᵀ∇_μ, H̄'s
// diagonal (then M's), a row of C·M, u_s = Cᵀh_s, an S×S sum of ε_s ε_tᵀ,
// and the draws' record (natRec).
func natScratch(n, S int) []float64 { return make([]float64, 4*n+S*(3*n+S)) }

// natParts splits b.nat (natScratch's layout).
func (b *block) natParts() (cd, v, hd, acc, u, pp, rec []float64) {
	n, S, s := b.n, b.natS, b.nat
	cd, v, hd, acc, s = s[:n], s[n:2*n], s[2*n:3*n], s[3*n:4*n], s[4*n:]
	u, pp, rec = s[:S*n], s[S*n:S*n+S*S], s[S*n+S*S:]
	return
}

// natRec returns where backprop records draw d's h (n values) and ε (n
// values) for the natural-gradient step; nil for other blocks.
func (b *block) natRec(d int) []float64 {
	if b.fam != FamilyFullRank {
		return nil
	}
	rec := b.nat[len(b.nat)-2*b.n*b.natS:]
	return rec[2*b.n*d : 2*b.n*(d+1)]
}

// natDelta writes into delta the natural-gradient step of full-rank block b
// with step size eta, from the parameters theta, their gradient grad (the
// engine's layout: means, raw diagonal behind a softplus, entries below the
// diagonal, row by row) and the draws' record (natRec); decay is the
// step-size decay that eta includes, which the trust region follows while
// b.natDecays (natRegime). It does not allocate.
func (b *block) natDelta(theta, grad, delta []float64, eta, decay float64) {
	n, p, S := b.n, b.poff, b.natS
	cd, v, hd, acc, u, pp, rec := b.natParts()
	row := func(i int) []float64 { // C's row i below the diagonal
		o := p + lowIdx(n, i, 0)
		return theta[o : o+i]
	}
	for i := range n {
		cd[i] = softplus(theta[p+n+i])
	}
	// v = Cᵀ∇_μ and u_s = Cᵀh_s, summed over the rows k of C.
	clear(v)
	clear(u)
	for k := range n {
		lk, ck := row(k), cd[k]
		mk := grad[p+k]
		for i, c := range lk {
			v[i] += c * mk
		}
		v[k] += ck * mk
		for s := range S {
			us, hk := u[s*n:(s+1)*n], rec[2*n*s+k]
			for i, c := range lk {
				us[i] += c * hk
			}
			us[k] += ck * hk
		}
	}
	// H̄ and its norm. H̄_ij = mean_s u_si ε_sj below the diagonal, whose
	// squares sum to mean_{s,t} Σ_i u_si u_ti Σ_{j<i} ε_sj ε_tj (pp holds the
	// inner sums); H̄_ii = ½(C_ii G_ii + Σ_{k>i} C_ki G_ki), the sum from the
	// draws.
	invS := 1 / float64(S)
	nu, nd, nl := 0.0, 0.0, 0.0
	clear(pp)
	for i := range n {
		nu += v[i] * v[i]
		t := 0.0
		for s := range S {
			t += (u[s*n+i] - cd[i]*rec[2*n*s+i]) * rec[2*n*s+n+i]
		}
		gii := grad[p+n+i] / sigmoid(theta[p+n+i]) // ∂/∂C_ii from ∂/∂raw
		hd[i] = (t*invS + cd[i]*gii) / 2
		nd += hd[i] * hd[i]
		for s := range S {
			q, us, es := pp[s*S:(s+1)*S], u[s*n+i], rec[2*n*s+n+i]
			for t := range S {
				nl += us * u[t*n+i] * q[t]
				q[t] += es * rec[2*n*t+n+i]
			}
		}
	}
	nh := nd + nl*invS*invS
	rho := natRho(eta, n)
	trust := natMaxStep
	if b.natDecays {
		trust *= decay
	}
	rm, rc := min(rho, trust/math.Sqrt(nu)), min(rho, trust/math.Sqrt(nh))
	b.natSteps++
	if rc < rho {
		b.natCut++
	}
	// the mean: ρ C v
	for i := range n {
		s := cd[i] * v[i]
		for j, c := range row(i) {
			s += c * v[j]
		}
		delta[p+i] = rm * s
	}
	// C·M, M = ρH̄ below the diagonal and exp(ρH̄_jj) on it:
	// (CM)_ij = C_ij M_jj + ρ mean_s ε_sj Σ_{j<k≤i} C_ik u_sk, the inner sum
	// running down row i from its diagonal, one draw at a time.
	for j := range n {
		hd[j] = math.Exp(rc * hd[j])
	}
	r := rc * invS
	for i := range n {
		li := row(i)
		ai := acc[:len(li)]
		clear(ai)
		for s := range S {
			us, es := u[s*n:s*n+len(li)], rec[2*n*s+n:2*n*s+n+len(li)]
			w := cd[i] * u[s*n+i]
			for j := len(li) - 1; j >= 0; j-- {
				ai[j] += es[j] * w
				w += li[j] * us[j]
			}
		}
		for j, cij := range li {
			delta[p+lowIdx(n, i, j)] = cij*hd[j] + r*ai[j] - cij
		}
		delta[p+n+i] = softplusInv(cd[i]*hd[i]) - theta[p+n+i]
	}
}

// natRegime decides, at an ELBO evaluation, whether full-rank block b's
// trust region decays with the step size until the next one: when it cut
// more than half of b's steps in each of the last natPersist intervals
// between evaluations, the steps are normalised ones of the trust
// region's size, which the decay of η no longer reaches (see the comment
// on natRate); otherwise it cuts only outliers, or the large steps of
// a fit's start, and stays as it is.
func (b *block) natRegime() {
	if 2*b.natCut > b.natSteps {
		b.natHeavy++
	} else {
		b.natHeavy = 0
	}
	b.natDecays = b.natHeavy >= natPersist
	b.natCut, b.natSteps = 0, 0
}
