package dist

import (
	"math"
	"math/rand/v2"
)

// SkewDoubleExponential is the skew double exponential (asymmetric
// Laplace) distribution with location Mu, scale Sigma > 0 and skewness
// Tau in (0, 1) (Stan's skew_double_exponential):
//
//	log p(x) = log 2 + log τ + log(1 − τ) − log σ − (2/σ)·((1 − τ)(μ − x) if x < μ, else τ(x − μ)),
//
// the likelihood of quantile regression: μ is the τ-quantile, P(X ≤ μ) = τ.
// At the kink x = μ the partials in x and μ are 0, as Stan's are (its
// sign(0) = 0), the subgradient Laplace's kernel also takes there.
type SkewDoubleExponential struct {
	Mu, Sigma, Tau float64
}

// LogProb returns the log density at x.
func (d SkewDoubleExponential) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partials of LogProb(x) with respect to (Mu, Sigma, Tau)
// into dst (allocated if nil) and returns it.
func (d SkewDoubleExponential) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 3)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x.
func (d SkewDoubleExponential) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns a draw by inversion: with U uniform on (0, 1), below μ
// (probability τ) μ + σ/(2(1 − τ))·log(U/τ), above it
// μ − σ/(2τ)·log((1 − U)/(1 − τ)).
func (d SkewDoubleExponential) Rand(rng *rand.Rand) float64 {
	u, t := openUnit(rng), d.Tau
	if u < t {
		return d.Mu + d.Sigma/(2*(1-t))*(math.Log(u)-math.Log(t))
	}
	return d.Mu - d.Sigma/(2*t)*(math.Log1p(-u)-math.Log1p(-t))
}

// sdeScales returns the means σ/(2(1 − τ)) and σ/(2τ) of the exponential
// distances below and above μ.
func (d SkewDoubleExponential) sdeScales() (lo, hi float64) {
	return d.Sigma / (2 * (1 - d.Tau)), d.Sigma / (2 * d.Tau)
}

// Mean returns μ + σ(1 − 2τ)/(2τ(1 − τ)).
func (d SkewDoubleExponential) Mean() float64 {
	lo, hi := d.sdeScales()
	return d.Mu - d.Tau*lo + (1-d.Tau)*hi
}

// Variance returns τ·lo² + (1 − τ)·hi² + τ(1 − τ)(lo + hi)², lo and hi
// the exponential scales below and above μ.
func (d SkewDoubleExponential) Variance() float64 {
	lo, hi := d.sdeScales()
	t := d.Tau
	return t*lo*lo + (1-t)*hi*hi + t*(1-t)*(lo+hi)*(lo+hi)
}

func (d SkewDoubleExponential) eval(x float64, dp []float64) (float64, float64) {
	mu, s, t := d.Mu, d.Sigma, d.Tau
	if !finite(mu) || !positive(s) || !(t > 0 && t < 1) || math.IsNaN(x) {
		return invalid(dp)
	}
	if math.IsInf(x, 0) {
		return outside(dp)
	}
	// w = (1 − τ)(μ − x) or τ(x − μ) ≥ 0; g = ∂w/∂x; gt = ∂w/∂τ
	var w, g, gt float64
	switch {
	case x < mu:
		w, g, gt = (1-t)*(mu-x), -(1 - t), -(mu - x)
	case x > mu:
		w, g, gt = t*(x-mu), t, x-mu
	}
	lp := math.Ln2 + math.Log(t) + math.Log1p(-t) - logx(s) - 2*w/s
	if dp != nil {
		dp[0] = 2 * g / s
		dp[1] = (2*w/s - 1) / s
		dp[2] = (1-2*t)/(t*(1-t)) - 2*gt/s
	}
	return densityOrOutside(lp, -2*g/s, dp)
}

// skewDoubleExpLogCDF is SkewDoubleExponential(μ, σ, τ)'s log CDF or log
// survival function. Below μ, P(X ≤ x) = τ·e^(−b) with b = 2(1 − τ)(μ − x)/σ,
// and above it P(X > x) = (1 − τ)·e^(−a) with a = 2τ(x − μ)/σ; the other
// side's probability is a sum of two positive terms, −expm1(−b) +
// (1 − τ)e^(−b) (or −expm1(−a) + τe^(−a)), or log1p of minus the first
// where that is below ½, and its partials −P/(1 − P) times the first's.
func skewDoubleExpLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	mu, s, t := p[0], p[1], p[2]
	// The closed-form side: log P(near) with its partials in (x, μ, σ, τ).
	var ln float64
	var g [4]float64
	below := x < mu
	if below { // log P(X ≤ x) = log τ − 2(1 − τ)(μ − x)/σ
		d := mu - x
		b := 2 * (1 - t) * d / s
		ln = math.Log(t) - b
		g = [4]float64{2 * (1 - t) / s, -2 * (1 - t) / s, b / s, 1/t + 2*d/s}
	} else { // log P(X > x) = log(1 − τ) − 2τ(x − μ)/σ
		d := x - mu
		a := 2 * t * d / s
		ln = math.Log1p(-t) - a
		g = [4]float64{-2 * t / s, 2 * t / s, a / s, -1/(1-t) - 2*d/s}
	}
	if math.IsInf(ln, -1) { // x at ∓∞, or so far out that P underflowed
		if below == upper {
			clear(dp)
			return 0, 0
		}
		return outside(dp)
	}
	if below != upper { // the side asked for is the closed-form one
		dp[0], dp[1], dp[2] = g[1], g[2], g[3]
		return ln, g[0]
	}
	// the other side: 1 − e^(ln)
	var lf float64
	if ln < -math.Ln2 {
		lf = math.Log1p(-math.Exp(ln))
	} else {
		// 1 − τe^(−b) = −expm1(−b) + (1 − τ)e^(−b), 1 − (1 − τ)e^(−a) =
		// −expm1(−a) + τe^(−a)
		e, q := 2*(1-t)*(mu-x)/s, 1-t
		if !below {
			e, q = 2*t*(x-mu)/s, t
		}
		lf = math.Log(-math.Expm1(-e) + q*math.Exp(-e))
	}
	r := -math.Exp(ln - lf) // d log(1 − P) = −P/(1 − P)·d log P
	if r == 0 {             // P underflowed: its partials may be ±Inf
		clear(dp)
		return lf, 0
	}
	dp[0], dp[1], dp[2] = r*g[1], r*g[2], r*g[3]
	return lf, r * g[0]
}
