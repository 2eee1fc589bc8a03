package dist

import (
	"math"
	"math/rand/v2"
)

// InvGamma is the inverse-gamma distribution with shape Shape > 0 and scale
// Scale > 0: the distribution of Scale/y for y ~ Gamma(Shape, 1), density
// Scale^Shape·x^(−Shape−1)·e^(−Scale/x)/Γ(Shape) on x > 0.
type InvGamma struct {
	Shape, Scale float64
}

// LogProb returns the log density at x.
func (d InvGamma) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partials of LogProb(x) with respect to (Shape, Scale)
// into dst (allocated if nil) and returns it.
func (d InvGamma) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 2)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x.
func (d InvGamma) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns a draw.
func (d InvGamma) Rand(rng *rand.Rand) float64 {
	return math.Exp(math.Log(d.Scale) - SampleGammaLog(d.Shape, rng))
}

// Mean returns Scale/(Shape−1) for Shape > 1 and +Inf otherwise.
func (d InvGamma) Mean() float64 {
	if d.Shape > 1 {
		return d.Scale / (d.Shape - 1)
	}
	return math.Inf(1)
}

// Variance returns Scale²/((Shape−1)²(Shape−2)) for Shape > 2, +Inf for
// 1 < Shape ≤ 2 and NaN otherwise.
func (d InvGamma) Variance() float64 {
	a := d.Shape
	switch {
	case a > 2:
		return d.Scale * d.Scale / ((a - 1) * (a - 1) * (a - 2))
	case a > 1:
		return math.Inf(1)
	}
	return math.NaN()
}

func (d InvGamma) eval(x float64, dp []float64) (lp, dx float64) {
	a, s := d.Shape, d.Scale
	if !positive(a) || !positive(s) || math.IsNaN(x) {
		return invalid(dp)
	}
	if !(x > 0) || math.IsInf(x, 1) {
		return outside(dp)
	}
	lx, ls := logx(x), logx(s)
	if a >= gammaLoaderShape {
		return invGammaLogLarge(a, s, lx, x, dp), (s/x - (a + 1)) / x
	}
	lg, _ := math.Lgamma(a)
	if dp != nil {
		dp[0] = ls - Digamma(a) - lx
		dp[1] = a/s - 1/x
	}
	return a*ls - lg - (a+1)*lx - s/x, (s/x - (a + 1)) / x
}
