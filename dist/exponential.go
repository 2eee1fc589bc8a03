package dist

import (
	"math"
	"math/rand/v2"
)

// Exponential is the exponential distribution with rate Rate > 0. Its density
// is finite at 0, so its support is NonNegative and 0 is a valid value.
type Exponential struct {
	Rate float64
}

// LogProb returns the log density at x.
func (d Exponential) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partial of LogProb(x) with respect to Rate into dst
// (allocated if nil) and returns it.
func (d Exponential) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 1)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x.
func (d Exponential) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns a draw.
func (d Exponential) Rand(rng *rand.Rand) float64 { return rng.ExpFloat64() / d.Rate }

// Mean returns 1/Rate.
func (d Exponential) Mean() float64 { return 1 / d.Rate }

// Variance returns 1/Rate².
func (d Exponential) Variance() float64 { return 1 / (d.Rate * d.Rate) }

func (d Exponential) eval(x float64, dp []float64) (lp, dx float64) {
	if !positive(d.Rate) || math.IsNaN(x) {
		return invalid(dp)
	}
	if x < 0 || math.IsInf(x, 1) {
		return outside(dp)
	}
	if dp != nil {
		dp[0] = 1/d.Rate - x
	}
	return logx(d.Rate) - d.Rate*x, -d.Rate
}
