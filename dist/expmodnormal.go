package dist

import (
	"math"
	"math/rand/v2"
)

// ExpModNormal is the exponentially modified normal distribution (Stan's
// exp_mod_normal): the sum of a Normal(Mu, Sigma) and an independent
// Exponential(Lambda), the model of reaction times. With d = (μ − x)/σ,
// v = λσ and u = d + v,
//
//	log p(x) = log λ + v·d + v²/2 + log Q(u),
//
// Q the standard normal survival function. Where u is large (x far below
// μ, or v large) the two terms are each about u²/2 and cancel; there the
// log density is taken as log λ − d²/2 − log √(2π) − log c(u), with
// Q(u) = φ(u)/c(u) by Laplace's continued fraction c, so nothing cancels.
// The partials come through the hazard h(u) = φ(u)/Q(u) and h(u) − u, the
// latter from the continued fraction's tail where it is about 1/u.
type ExpModNormal struct {
	Mu, Sigma, Lambda float64
}

// LogProb returns the log density at x.
func (d ExpModNormal) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partials of LogProb(x) with respect to (Mu, Sigma,
// Lambda) into dst (allocated if nil) and returns it.
func (d ExpModNormal) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 3)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x.
func (d ExpModNormal) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns an exact draw: Mu + Sigma·Z + E/Lambda.
func (d ExpModNormal) Rand(rng *rand.Rand) float64 {
	return d.Mu + d.Sigma*rng.NormFloat64() + rng.ExpFloat64()/d.Lambda
}

// Mean returns Mu + 1/Lambda.
func (d ExpModNormal) Mean() float64 { return d.Mu + 1/d.Lambda }

// Variance returns Sigma² + 1/Lambda².
func (d ExpModNormal) Variance() float64 { return d.Sigma*d.Sigma + 1/(d.Lambda*d.Lambda) }

// emgTailCut is where the normal tail switches to the continued fraction.
const emgTailCut = 35

// emgLogG returns log G = v·d + v²/2 + log Q(u) for u = d + v (the
// density of ExpModNormal is λG), the hazard h = φ(u)/Q(u) and h − u.
// Below emgTailCut it is the sum itself, log Q(u) from normalTail, whose
// terms are at most about 600 there, and h − u loses at most about u²
// ulps; above, Q(u) = φ(u)/h with h = u + 1/c₂ from Laplace's continued
// fraction c₂ = u + 2/(u + 3/(u + …)), and log G = −d²/2 − log √(2π) −
// log h, in which nothing cancels.
func emgLogG(d, v float64) (lG, h, hmu float64) {
	u := d + v
	if u < emgTailCut {
		lq, h := normalTail(u)
		return v*(d+0.5*v) + lq, h, h - u
	}
	h, hmu = normalHazardCF(u)
	return -0.5*d*d - lnSqrt2Pi - math.Log(h), h, hmu
}

// normalHazardCF returns the normal hazard h = φ(u)/Q(u) and h − u for
// u ≥ emgTailCut, from the continued fraction's levels 40 down to 2.
func normalHazardCF(u float64) (h, hmu float64) {
	c2 := u
	for k := 40; k >= 2; k-- {
		c2 = u + float64(k)/c2
	}
	return u + 1/c2, 1 / c2
}

func (d ExpModNormal) eval(x float64, dp []float64) (float64, float64) {
	mu, s, lam := d.Mu, d.Sigma, d.Lambda
	if !finite(mu) || !positive(s) || !positive(lam) || math.IsNaN(x) {
		return invalid(dp)
	}
	if math.IsInf(x, 0) {
		return outside(dp)
	}
	dd := (mu - x) / s
	v := lam * s
	lG, _, hmu := emgLogG(dd, v)
	lp := logx(lam) + lG
	if math.IsInf(lp, -1) || math.IsNaN(lp) {
		return outside(dp)
	}
	gd := -dd - hmu // ∂/∂d = v − h
	gv := -hmu      // ∂/∂v = u − h
	if dp != nil {
		dp[0] = gd / s
		dp[1] = -gd*dd/s + lam*gv
		dp[2] = 1/lam + s*gv
	}
	return lp, -gd / s
}

// expModNormalLogCDF is ExpModNormal(μ, σ, λ): with G = e^(v·d + v²/2)·Q(u)
// (the density over λ),
//
//	P(X ≤ x) = Q(d) − G,  P(X > x) = Q(−d) + G,
//
// the survival a sum in log space and the CDF a difference taken as
// log Q(d) + log(1 − e^(−gap)), gap = log Q(d) − log G. For d ≥
// emgTailCut, where log Q(d) and log G are each about −d²/2, the gap is
// log(h(u)/h(d)) = log1p((v + (h(u) − u) − (h(d) − d))/h(d)) from the
// continued fractions, exact to rounding however small v is. The partials
// of F are ∂F/∂x = λG, ∂F/∂μ = −λG, ∂F/∂σ = λG·(h(u) − v) and
// ∂F/∂λ = σG·(h(u) − u).
func expModNormalLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	mu, s, lam := p[0], p[1], p[2]
	dd := (mu - x) / s
	v := lam * s
	lG, _, hmu := emgLogG(dd, v)
	var lp float64
	switch {
	case upper:
		lq, _ := normalTail(-dd)
		lp = LogAddExp(lq, lG)
	case dd >= emgTailCut:
		hd, hmud := normalHazardCF(dd)
		gap := math.Log1p((v + (hmu - hmud)) / hd)
		lp = -0.5*dd*dd - lnSqrt2Pi - math.Log(hd) + Log1mexp(gap)
	default:
		lq, _ := normalTail(dd)
		gap := lq - lG
		if !(gap > 0) {
			return outside(dp) // F underflowed: the terms agree to every digit
		}
		lp = lq + Log1mexp(gap)
	}
	if math.IsInf(lp, -1) {
		return outside(dp)
	}
	r := math.Exp(lG - lp) // G/F or G/S
	if upper {
		r = -r
	}
	dp[0] = -lam * r
	dp[1] = lam * r * (hmu + dd) // h − v = (h − u) + d
	dp[2] = s * r * hmu
	return lp, lam * r
}
