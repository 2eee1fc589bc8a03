package dist

import (
	"math"
	"math/rand/v2"
)

// Wald is the Wald (inverse Gaussian) distribution with mean Mu > 0 and
// shape Lambda > 0 (PyMC's Wald(mu, lam), brms's inverse.gaussian, scipy's
// invgauss(mu/lambda, scale=lambda)), the first-passage time of a Brownian
// motion with drift: with t = (x − μ)/μ,
//
//	log p(x) = ½·log λ − log √(2π) − (3/2)·log x − λ·t·(t/x)/2,  x > 0,
//
// the quadratic term as a product so that it overflows only when the
// density underflows.
type Wald struct {
	Mu, Lambda float64
}

// LogProb returns the log density at x.
func (d Wald) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partials of LogProb(x) with respect to (Mu, Lambda)
// into dst (allocated if nil) and returns it.
func (d Wald) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 2)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x.
func (d Wald) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns an exact draw by Michael, Schucany and Haas (1976): with
// w = μ·N²/(2λ) for N standard normal, the smaller root of the quadratic
// is x₁ = μ/(1 + w + √(w(w + 2))) (written without the cancellation of
// μ(1 + w − √(w(w + 2)))), taken with probability μ/(μ + x₁), else the
// larger, μ²/x₁.
func (d Wald) Rand(rng *rand.Rand) float64 {
	n := rng.NormFloat64()
	w := d.Mu * n * n / (2 * d.Lambda)
	r := 1 + w + math.Sqrt(w*(w+2)) // μ/x₁, x₂/μ
	if math.IsInf(r, 1) {
		r = 2 * w // w past 1e154: 1 + w + √(w(w + 2)) = 2w + 2 − O(1/w)
	}
	// μ/(μ + x₁) = r/(r + 1)
	if rng.Float64()*(r+1) <= r {
		return d.Mu / r
	}
	return d.Mu * r
}

// Mean returns Mu.
func (d Wald) Mean() float64 { return d.Mu }

// Variance returns Mu³/Lambda.
func (d Wald) Variance() float64 { return d.Mu * d.Mu / d.Lambda * d.Mu }

func (d Wald) eval(x float64, dp []float64) (float64, float64) {
	mu, lam := d.Mu, d.Lambda
	if !positive(mu) || !positive(lam) || math.IsNaN(x) {
		return invalid(dp)
	}
	if !(x > 0) || math.IsInf(x, 1) {
		return outside(dp)
	}
	t := (x - mu) / mu
	q := t * (t / x) // (x − μ)²/(μ²x)
	if math.IsInf(q, 1) {
		return outside(dp)
	}
	if dp != nil {
		dp[0] = lam * t / (mu * mu)
		dp[1] = 0.5/lam - 0.5*q
	}
	// ∂/∂x of (x − μ)²/(μ²x) is 1/μ² − 1/x² = (x − μ)(x + μ)/(μ²x²)
	dq := (t / x) * ((x + mu) / (mu * x))
	lp := 0.5*logx(lam) - lnSqrt2Pi - 1.5*logx(x) - 0.5*lam*q
	return densityOrOutside(lp, -1.5/x-0.5*lam*dq, dp)
}

// waldLogCDF is Wald(μ, λ): with s = √(λ/x), a = s·(x/μ − 1) and
// b = s·(x/μ + 1),
//
//	F(x) = Φ(a) + e^(2λ/μ)·Φ(−b) = Φ(a) + φ(a)·m(b),
//	1 − F(x) = φ(a)·(m(a) − m(b)),
//
// m = Q/φ the Mills ratio (1/hazard), since b² − a² = 4λ/μ: the factor
// e^(2λ/μ) that overflows naively is never formed. The lower tail adds
// two positive terms in log space; the upper is Q(a) − φ(a)·m(b) for
// a < 0, where Q(a) ≥ ½ dominates, and φ(a)·(m(a) − m(b)) above. The
// partials: ∂F/∂μ = −(2λ/μ²)·φ(a)m(b), ∂F/∂λ = φ(a)·(2m(b)/μ − s/λ),
// ∂F/∂x = p(x).
func waldLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	if x <= 0 {
		return belowSupport(dp, upper)
	}
	mu, lam := p[0], p[1]
	s := math.Sqrt(lam / x)
	if lam/x == 0 || math.IsInf(s, 1) {
		s = math.Sqrt(lam) / math.Sqrt(x)
	}
	a := s * ((x - mu) / mu)
	b := s * ((x + mu) / mu)
	lphiA := -0.5*a*a - lnSqrt2Pi
	_, hb := normalTail(b)
	lT2 := lphiA - math.Log(hb) // log φ(a)m(b)
	var lp float64
	if !upper {
		lPhiA, _ := normalTail(-a) // log Φ(a)
		lp = LogAddExp(lPhiA, lT2)
	} else {
		lQA, ha := normalTail(a)
		if a < 0 {
			lp = lQA + Log1mexp(lQA-lT2)
		} else {
			// m(a) − m(b) = (h(b) − h(a))/(h(a)h(b))
			lp = lphiA + math.Log((hb-ha)/(ha*hb))
		}
	}
	if math.IsInf(lp, -1) || math.IsNaN(lp) {
		return outside(dp)
	}
	pd, _ := Wald{mu, lam}.eval(x, nil)
	g := math.Exp(lT2 - lp)      // φ(a)m(b)/P
	gphi := math.Exp(lphiA - lp) // φ(a)/P
	gx := math.Exp(pd - lp)      // p(x)/P
	sg := 1.0
	if upper {
		sg = -1
	}
	dp[0] = -sg * 2 * lam / (mu * mu) * g
	dp[1] = sg * (2/mu*g - s/lam*gphi)
	return lp, sg * gx
}
