package dist

import (
	"math"
	"math/rand/v2"
)

// Logistic is the logistic distribution with location Mu and scale
// Sigma > 0 (Stan's logistic): with z = (x − μ)/σ,
//
//	log p(x) = −|z| − log σ − 2·log1p(e^(−|z|)),
//
// the symmetric form, which neither overflows nor loses the tail's digits.
// ∂/∂z = −tanh(z/2).
type Logistic struct {
	Mu, Sigma float64
}

// LogProb returns the log density at x.
func (d Logistic) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partials of LogProb(x) with respect to (Mu, Sigma) into
// dst (allocated if nil) and returns it.
func (d Logistic) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 2)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x.
func (d Logistic) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns a draw by inversion: Mu + Sigma·logit(U), with logit(U) =
// log U − log1p(−U) for U in (0, 1).
func (d Logistic) Rand(rng *rand.Rand) float64 {
	u := openUnit(rng)
	return d.Mu + d.Sigma*(math.Log(u)-math.Log1p(-u))
}

// Mean returns Mu.
func (d Logistic) Mean() float64 { return d.Mu }

// Variance returns Sigma²·π²/3.
func (d Logistic) Variance() float64 { return d.Sigma * d.Sigma * math.Pi * math.Pi / 3 }

func (d Logistic) eval(x float64, dp []float64) (float64, float64) {
	if !finite(d.Mu) || !positive(d.Sigma) || math.IsNaN(x) {
		return invalid(dp)
	}
	if math.IsInf(x, 0) {
		return outside(dp)
	}
	z := (x - d.Mu) / d.Sigma
	az := math.Abs(z)
	lp := -az - logx(d.Sigma) - 2*math.Log1p(math.Exp(-az))
	g := -math.Tanh(z / 2) // ∂/∂z
	return locScaleDensity(z, d.Sigma, g, dp, lp)
}

// locScaleDensity returns lp and its partial in x of a location-scale
// density at z = (x − μ)/σ, given g = ∂lp/∂z without the −log σ term, and
// writes the partials in (μ, σ) into dp unless it is nil.
func locScaleDensity(z, sigma, g float64, dp []float64, lp float64) (float64, float64) {
	if dp != nil {
		dp[0] = -g / sigma
		dp[1] = -(1 + g*z) / sigma
	}
	return densityOrOutside(lp, g/sigma, dp)
}

// densityOrOutside returns lp and dx, or outside's −Inf and zero partials
// where lp underflowed to −Inf (a value that far out has partials of
// ±Inf or NaN, which the kernels' convention replaces by 0).
func densityOrOutside(lp, dx float64, dp []float64) (float64, float64) {
	if math.IsInf(lp, -1) {
		return outside(dp)
	}
	return lp, dx
}

// openUnit returns a uniform draw in the open interval (0, 1).
func openUnit(rng *rand.Rand) float64 {
	for {
		if u := rng.Float64(); u > 0 {
			return u
		}
	}
}

// logisticLogCDF is Logistic(μ, σ): log P(W > w) = −softplus(w) for
// w = ±(x − μ)/σ, its derivative −InvLogit(w).
func logisticLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	sgn := sign(upper)
	w := sgn * (x - p[0]) / p[1]
	return locScale(w, sgn, p[1], 1, dp, -Softplus(w), -InvLogit(w))
}

// Gumbel is the Gumbel (type I extreme value) distribution with location
// Mu and scale Beta > 0 (Stan's gumbel): with z = (x − μ)/β,
//
//	log p(x) = −log β − z − e^(−z),
//
// the law of the maximum of many light-tailed draws. ∂/∂z = expm1(−z).
type Gumbel struct {
	Mu, Beta float64
}

// LogProb returns the log density at x.
func (d Gumbel) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partials of LogProb(x) with respect to (Mu, Beta) into
// dst (allocated if nil) and returns it.
func (d Gumbel) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 2)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x.
func (d Gumbel) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns a draw by inversion: Mu − Beta·log E for E ~ Exponential(1).
func (d Gumbel) Rand(rng *rand.Rand) float64 {
	return d.Mu - d.Beta*math.Log(rng.ExpFloat64())
}

// eulerGamma is the Euler–Mascheroni constant γ.
const eulerGamma = 0.57721566490153286060651209008240243

// Mean returns Mu + γ·Beta.
func (d Gumbel) Mean() float64 { return d.Mu + eulerGamma*d.Beta }

// Variance returns π²·Beta²/6.
func (d Gumbel) Variance() float64 { return math.Pi * math.Pi * d.Beta * d.Beta / 6 }

func (d Gumbel) eval(x float64, dp []float64) (float64, float64) {
	if !finite(d.Mu) || !positive(d.Beta) || math.IsNaN(x) {
		return invalid(dp)
	}
	if math.IsInf(x, 0) {
		return outside(dp)
	}
	z := (x - d.Mu) / d.Beta
	e := math.Exp(-z)
	if math.IsInf(e, 1) {
		return outside(dp) // the density underflows: e^(−z) > 1e308
	}
	return locScaleDensity(z, d.Beta, math.Expm1(-z), dp, -logx(d.Beta)-z-e)
}

// gumbelLogCDF is Gumbel(μ, β): log P(X ≤ x) = −e^(−z), log P(X > x) =
// log(1 − exp(−e^(−z))) by Log1mexp, for z = (x − μ)/β.
func gumbelLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	beta := p[1]
	z := (x - p[0]) / beta
	t := math.Exp(-z)
	var lp, g float64 // g = ∂lp/∂z
	switch {
	case !upper:
		lp, g = -t, t
		if math.IsInf(t, 1) {
			return outside(dp)
		}
	case math.IsInf(t, 1):
		clear(dp)
		return 0, 0
	case t == 0:
		// log(1 − exp(−t)) = log t + log1p(−t/2 + …): at t = 0 by underflow
		// it is −z itself.
		lp, g = -z, -1
	default:
		lp, g = Log1mexp(t), -t/math.Expm1(t)
	}
	dp[0] = -g / beta
	dp[1] = -g * z / beta
	return lp, g / beta
}
