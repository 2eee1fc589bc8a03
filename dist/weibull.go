package dist

import (
	"math"
	"math/rand/v2"
)

// Weibull is the Weibull distribution with shape Alpha > 0 and scale
// Sigma > 0, in Stan's parameterisation (weibull(alpha, sigma)):
//
//	log p(x) = log α − log σ + (α − 1)·log(x/σ) − (x/σ)^α,  x > 0.
//
// Alpha = 1 is Exponential(1/Sigma). It is the usual model of survival
// times: the hazard falls (Alpha < 1), stays constant (1) or rises (> 1).
type Weibull struct {
	Alpha, Sigma float64
}

// LogProb returns the log density at x.
func (d Weibull) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partials of LogProb(x) with respect to (Alpha, Sigma)
// into dst (allocated if nil) and returns it.
func (d Weibull) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 2)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x.
func (d Weibull) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns a draw by inversion: Sigma·E^(1/Alpha) for E ~ Exponential(1).
func (d Weibull) Rand(rng *rand.Rand) float64 {
	e := rng.ExpFloat64()
	x := d.Sigma * math.Pow(e, 1/d.Alpha)
	if x == 0 || math.IsInf(x, 1) {
		// E^(1/α) alone left the float64 range (α far below 1); the
		// product may still be inside it.
		x = math.Exp(logx(d.Sigma) + logx(e)/d.Alpha)
	}
	return x
}

// Mean returns Sigma·Γ(1 + 1/Alpha).
func (d Weibull) Mean() float64 { return d.Sigma * math.Gamma(1+1/d.Alpha) }

// Variance returns Sigma²·[Γ(1 + 2/Alpha) − Γ(1 + 1/Alpha)²], as
// Sigma²·Γ(1 + 1/Alpha)²·expm1(D) with D = log Γ(1 + 2/Alpha) − 2·log Γ(1 +
// 1/Alpha) from lgammaDiff2: for large Alpha the two gammas are both near 1
// and their difference, about (π²/6)/Alpha², would lose all its digits.
func (d Weibull) Variance() float64 {
	h := 1 / d.Alpha
	g := d.Sigma * math.Exp(lgamma1p(h))
	return g * g * math.Expm1(lgammaDiff2(h))
}

// lgammaDiff2 returns log Γ(1+2h) − 2·log Γ(1+h) for h > −½. The two
// terms are each about −γh and their difference about (π²/6)·h², so for
// |h| ≤ ¼ it sums the difference of lgamma1p's series term by term, where
// the linear terms cancel exactly and the logs combine into one log1p:
//
//	log1p(h²/(1+2h)) + Σ_{k≥2} (−h)ᵏ·(2ᵏ − 2)·(ζ(k) − 1)/k,
//
// whose terms fall like hᵏ.
func lgammaDiff2(h float64) float64 {
	if !(math.Abs(h) <= 0.25) {
		return lgamma1p(2*h) - 2*lgamma1p(h)
	}
	var sum float64
	p, two := 1.0, 1.0 // (−h)ᵏ and 2ᵏ
	for i, z := range zetaMinusOne {
		if i == 0 {
			p, two = h*h, 4
		} else {
			p *= -h
			two *= 2
		}
		term := p * (two - 2) * z / float64(i+2)
		sum += term
		if math.Abs(term) <= 1e-17*math.Abs(sum) {
			break
		}
	}
	return math.Log1p(h*h/(1+2*h)) + sum
}

// eval returns the log density and its derivative in x, writing the
// partials in (Alpha, Sigma) into dp unless it is nil.
func (d Weibull) eval(x float64, dp []float64) (lp, dx float64) {
	if !positive(d.Alpha) || !positive(d.Sigma) || math.IsNaN(x) {
		return invalid(dp)
	}
	if !(x > 0) || math.IsInf(x, 1) {
		return outside(dp)
	}
	// u = log(x/σ), from the quotient when it is a normal number (one
	// rounding, relative), else as log x − log σ.
	var u float64
	if q := x / d.Sigma; q >= 0x1p-1022 && q <= math.MaxFloat64 {
		u = math.Log(q)
	} else {
		u = logx(x) - logx(d.Sigma)
	}
	lp, dl := weibullCore(u, d.Alpha, d.Sigma, dp)
	return lp, dl / x
}

// weibullCore returns the Weibull log density at x = σ·e^u and its
// derivative with respect to log x, writing the partials in (α, σ) into dp
// unless it is nil. With w = (x/σ)^α = e^(αu), computed from αu rather
// than from x/σ so that it neither overflows nor underflows early:
//
//	∂/∂log x = α − 1 − αw,  ∂/∂α = 1/α + u·(1 − w),  ∂/∂σ = α·(w − 1)/σ,
//
// where w − 1 is taken by expm1 near w = 1 (x near σ, the bulk of the
// distribution for large α), so that the partials keep their digits there,
// and ∂/∂log x from w itself elsewhere (for α = 1 it is −w, which w − 1
// would round away in the left tail).
func weibullCore(u, alpha, sigma float64, dp []float64) (lp, dl float64) {
	t := alpha * u
	var w, wm1 float64 // w and w − 1
	if math.Abs(t) < 0.5 {
		wm1 = math.Expm1(t)
		w = 1 + wm1
		dl = -1 - alpha*wm1
	} else {
		w = math.Exp(t)
		wm1 = w - 1
		dl = (alpha - 1) - alpha*w // keeps a tiny w's digits (α = 1: −w)
	}
	if dp != nil {
		dp[0] = 1/alpha - u*wm1
		dp[1] = alpha * wm1 / sigma
	}
	return logx(alpha) - logx(sigma) + (alpha-1)*u - w, dl
}
