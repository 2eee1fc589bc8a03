package dist

import (
	"math"
	"math/rand/v2"
)

// HalfCauchy is the Cauchy distribution with location 0 and scale Sigma > 0
// folded onto [0, ∞). Its density is finite at 0, so its support is
// NonNegative and 0 is a valid value.
type HalfCauchy struct {
	Sigma float64
}

// LogProb returns the log density at x.
func (d HalfCauchy) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partial of LogProb(x) with respect to Sigma into dst
// (allocated if nil) and returns it.
func (d HalfCauchy) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 1)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x.
func (d HalfCauchy) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns a draw.
func (d HalfCauchy) Rand(rng *rand.Rand) float64 {
	return d.Sigma * math.Tan(0.5*math.Pi*uniformOpen(rng))
}

// Mean returns +Inf.
func (d HalfCauchy) Mean() float64 { return math.Inf(1) }

// Variance returns +Inf.
func (d HalfCauchy) Variance() float64 { return math.Inf(1) }

func (d HalfCauchy) eval(x float64, dp []float64) (lp, dx float64) {
	if !positive(d.Sigma) || math.IsNaN(x) {
		return invalid(dp)
	}
	if x < 0 || math.IsInf(x, 1) {
		return outside(dp)
	}
	lp, dx, ds := cauchyCore(x/d.Sigma, d.Sigma)
	if dp != nil {
		dp[0] = ds
	}
	return lp + math.Ln2 - lnPi, dx
}
