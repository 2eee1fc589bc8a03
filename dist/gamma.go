package dist

import (
	"math"
	"math/rand/v2"
)

// Gamma is the gamma distribution with shape Shape > 0 and rate Rate > 0:
// density Rate^Shape·x^(Shape−1)·e^(−Rate·x)/Γ(Shape) on x > 0. x = 0 is
// outside the support (log density −Inf) whatever the shape.
type Gamma struct {
	Shape, Rate float64
}

// LogProb returns the log density at x.
func (d Gamma) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partials of LogProb(x) with respect to (Shape, Rate) into
// dst (allocated if nil) and returns it.
func (d Gamma) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 2)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x.
func (d Gamma) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns a draw (0 if it underflows; SampleGammaLog keeps the log).
func (d Gamma) Rand(rng *rand.Rand) float64 {
	return math.Exp(SampleGammaLog(d.Shape, rng) - math.Log(d.Rate))
}

// Mean returns Shape/Rate.
func (d Gamma) Mean() float64 { return d.Shape / d.Rate }

// Variance returns Shape/Rate².
func (d Gamma) Variance() float64 { return d.Shape / (d.Rate * d.Rate) }

func (d Gamma) eval(x float64, dp []float64) (lp, dx float64) {
	a, b := d.Shape, d.Rate
	if !positive(a) || !positive(b) || math.IsNaN(x) {
		return invalid(dp)
	}
	if !(x > 0) || math.IsInf(x, 1) {
		return outside(dp)
	}
	lx, lb := logx(x), logx(b)
	lg, _ := math.Lgamma(a)
	if dp != nil {
		dp[0] = lb - Digamma(a) + lx
		dp[1] = a/b - x
	}
	return a*lb - lg + (a-1)*lx - b*x, (a-1)/x - b
}
