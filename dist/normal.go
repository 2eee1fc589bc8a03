package dist

import (
	"math"
	"math/rand/v2"
)

// Normal is the normal distribution with mean Mu and standard deviation
// Sigma > 0.
type Normal struct {
	Mu, Sigma float64
}

// LogProb returns the log density at x.
func (d Normal) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partials of LogProb(x) with respect to (Mu, Sigma) into
// dst (allocated if nil) and returns it.
func (d Normal) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 2)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x.
func (d Normal) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns a draw.
func (d Normal) Rand(rng *rand.Rand) float64 { return d.Mu + d.Sigma*rng.NormFloat64() }

// Mean returns Mu.
func (d Normal) Mean() float64 { return d.Mu }

// Variance returns Sigma².
func (d Normal) Variance() float64 { return d.Sigma * d.Sigma }

// eval returns the log density and its derivative in x, writing the
// parameter partials into dp unless it is nil. Every family has one; the
// registry's kernels call it.
func (d Normal) eval(x float64, dp []float64) (lp, dx float64) {
	if !finite(d.Mu) || !positive(d.Sigma) || math.IsNaN(x) {
		return invalid(dp)
	}
	if math.IsInf(x, 0) {
		return outside(dp)
	}
	z := (x - d.Mu) / d.Sigma
	if dp != nil {
		dp[0] = z / d.Sigma
		dp[1] = (z*z - 1) / d.Sigma
	}
	return -0.5*z*z - logx(d.Sigma) - lnSqrt2Pi, -z / d.Sigma
}
