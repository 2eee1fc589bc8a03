package autodiff

// The renewal equation, OpRenewal (Cori et al.'s latent infections): with
// R [T], the generation-interval weights w [S] (w_0 the weight of lag 1)
// and the seed I0 [S] (I0_{S−1} the most recent, at t = −1),
//
//	I_t = R_t C_t,  C_t = Σ_{s=1..S} w_{s−1} J_{t−s},  J_u = I_u (u ≥ 0), I0_{S+u} (u < 0)
//
// forward in time in O(T·S). The reverse pass runs t from T−1 down,
// carrying the adjoint Ĩ_t of I_t in full (its own ḡ_t and every later
// step's share through C) in the scratch:
//
//	λ_t = R_t Ĩ_t (the adjoint of C_t),  R̄_t = Ĩ_t C_t,
//	w̄_{s−1} += λ_t J_{t−s},  Ĩ_{t−s} (or Ī0_{S+t−s}) += λ_t w_{s−1}
//
// recomputing C_t on the way: one pass in O(T·S), nothing allocated.

// renewal writes to I [T] the renewal equation's series from R, w and I0.
func renewal(I, R, w, I0 []float64) {
	S := len(w)
	for t := range I {
		c, k := 0.0, min(S, t) // lags 1..k reach the series, k+1..S the seed
		for s := 1; s <= k; s++ {
			c += w[s-1] * I[t-s]
		}
		for s := k + 1; s <= S; s++ {
			c += w[s-1] * I0[S+t-s]
		}
		I[t] = R[t] * c
	}
}

// gradRenewal adds the contributions of n's adjoint g to the adjoints of
// R, w and I0.
func (p *Program) gradRenewal(n *node, g []float64) {
	rn, wn, in := p.arg(n, 0), p.arg(n, 1), p.arg(n, 2)
	R, w, I0, I := p.v(rn), p.v(wn), p.v(in), p.v(n)
	var aR, aw, aI0 []float64
	if rn.aoff >= 0 {
		aR = p.a(rn)
	}
	if wn.aoff >= 0 {
		aw = p.a(wn)
	}
	if in.aoff >= 0 {
		aI0 = p.a(in)
	}
	acc := p.s(n) // Ĩ
	copy(acc, g)
	S := len(w)
	for t := len(I) - 1; t >= 0; t-- {
		lam, c, k := R[t]*acc[t], 0.0, min(S, t)
		for s := 1; s <= k; s++ {
			j := I[t-s]
			c += w[s-1] * j
			acc[t-s] += lam * w[s-1]
			if aw != nil {
				aw[s-1] += lam * j
			}
		}
		for s := k + 1; s <= S; s++ {
			j := I0[S+t-s]
			c += w[s-1] * j
			if aw != nil {
				aw[s-1] += lam * j
			}
			if aI0 != nil {
				aI0[S+t-s] += lam * w[s-1]
			}
		}
		if aR != nil {
			aR[t] += acc[t] * c
		}
	}
}
