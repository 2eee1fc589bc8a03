package dist

import (
	"math"
	"math/rand/v2"
)

// HalfNormal is the normal distribution with mean 0 and standard deviation
// Sigma > 0 folded onto [0, ∞). Its density is finite at 0, so its support is
// NonNegative and 0 is a valid value.
type HalfNormal struct {
	Sigma float64
}

// LogProb returns the log density at x.
func (d HalfNormal) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partial of LogProb(x) with respect to Sigma into dst
// (allocated if nil) and returns it.
func (d HalfNormal) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 1)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x (the
// right derivative at 0).
func (d HalfNormal) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns a draw.
func (d HalfNormal) Rand(rng *rand.Rand) float64 { return d.Sigma * math.Abs(rng.NormFloat64()) }

// Mean returns Sigma·√(2/π).
func (d HalfNormal) Mean() float64 { return d.Sigma * math.Sqrt(2/math.Pi) }

// Variance returns Sigma²·(1 − 2/π).
func (d HalfNormal) Variance() float64 { return d.Sigma * d.Sigma * (1 - 2/math.Pi) }

func (d HalfNormal) eval(x float64, dp []float64) (lp, dx float64) {
	if !positive(d.Sigma) || math.IsNaN(x) {
		return invalid(dp)
	}
	if x < 0 || math.IsInf(x, 1) {
		return outside(dp)
	}
	z := x / d.Sigma
	if dp != nil {
		dp[0] = (z*z - 1) / d.Sigma
	}
	return math.Ln2 - lnSqrt2Pi - logx(d.Sigma) - 0.5*z*z, -z / d.Sigma
}
