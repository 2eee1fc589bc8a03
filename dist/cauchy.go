package dist

import (
	"math"
	"math/rand/v2"
)

// Cauchy is the Cauchy distribution with location Mu and scale Sigma > 0.
type Cauchy struct {
	Mu, Sigma float64
}

// LogProb returns the log density at x.
func (d Cauchy) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partials of LogProb(x) with respect to (Mu, Sigma) into
// dst (allocated if nil) and returns it.
func (d Cauchy) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 2)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x.
func (d Cauchy) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns a draw.
func (d Cauchy) Rand(rng *rand.Rand) float64 {
	return d.Mu + d.Sigma*math.Tan(math.Pi*(uniformOpen(rng)-0.5))
}

// Mean returns NaN: the Cauchy mean is undefined.
func (d Cauchy) Mean() float64 { return math.NaN() }

// Variance returns NaN: the Cauchy variance is undefined.
func (d Cauchy) Variance() float64 { return math.NaN() }

func (d Cauchy) eval(x float64, dp []float64) (lp, dx float64) {
	if !finite(d.Mu) || !positive(d.Sigma) || math.IsNaN(x) {
		return invalid(dp)
	}
	if math.IsInf(x, 0) {
		return outside(dp)
	}
	z := (x - d.Mu) / d.Sigma
	lp, dz, ds := cauchyCore(z, d.Sigma)
	if dp != nil {
		dp[0] = -dz
		dp[1] = ds
	}
	return lp - lnPi, dz
}

// cauchyCore returns −log σ − log(1+z²) and its derivatives with respect to
// x = μ + σz (at fixed σ) and to σ (at fixed x), written with
// w = 1/(1+z²) so that huge |z| neither overflows nor gives Inf/Inf.
func cauchyCore(z, sigma float64) (lp, dx, dsigma float64) {
	return cauchyCoreLog(z, sigma, logx(sigma))
}

// cauchyCoreLog is cauchyCore given logSigma = log σ.
func cauchyCoreLog(z, sigma, logSigma float64) (lp, dx, dsigma float64) {
	var l1p float64
	if math.Abs(z) > 1e8 {
		l1p = 2*logx(math.Abs(z)) + math.Log1p(1/(z*z))
	} else {
		l1p = math.Log1p(z * z)
	}
	w := 1 / (1 + z*z)
	return -logSigma - l1p, -2 * z * w / sigma, (1 - 2*w) / sigma
}
