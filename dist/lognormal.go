package dist

import (
	"math"
	"math/rand/v2"
)

// LogNormal is the distribution of eʸ for y ~ Normal(Mu, Sigma), Sigma > 0.
type LogNormal struct {
	Mu, Sigma float64
}

// LogProb returns the log density at x.
func (d LogNormal) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partials of LogProb(x) with respect to (Mu, Sigma) into
// dst (allocated if nil) and returns it.
func (d LogNormal) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 2)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x.
func (d LogNormal) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns a draw.
func (d LogNormal) Rand(rng *rand.Rand) float64 {
	return math.Exp(d.Mu + d.Sigma*rng.NormFloat64())
}

// Mean returns exp(Mu + Sigma²/2).
func (d LogNormal) Mean() float64 { return math.Exp(d.Mu + 0.5*d.Sigma*d.Sigma) }

// Variance returns (exp(Sigma²) − 1)·exp(2Mu + Sigma²).
func (d LogNormal) Variance() float64 {
	s2 := d.Sigma * d.Sigma
	return math.Expm1(s2) * math.Exp(2*d.Mu+s2)
}

func (d LogNormal) eval(x float64, dp []float64) (lp, dx float64) {
	if !finite(d.Mu) || !positive(d.Sigma) || math.IsNaN(x) {
		return invalid(dp)
	}
	if !(x > 0) || math.IsInf(x, 1) {
		return outside(dp)
	}
	y := logx(x)
	z := (y - d.Mu) / d.Sigma
	if dp != nil {
		dp[0] = z / d.Sigma
		dp[1] = (z*z - 1) / d.Sigma
	}
	return -y - logx(d.Sigma) - lnSqrt2Pi - 0.5*z*z, -(1 + z/d.Sigma) / x
}
