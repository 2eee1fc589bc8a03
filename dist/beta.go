package dist

import (
	"math"
	"math/rand/v2"
)

// Beta is the beta distribution with shapes A > 0 and B > 0 on the open
// interval (0, 1); 0 and 1 are outside the support.
type Beta struct {
	A, B float64
}

// LogProb returns the log density at x.
func (d Beta) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partials of LogProb(x) with respect to (A, B) into dst
// (allocated if nil) and returns it.
func (d Beta) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 2)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x.
func (d Beta) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns a draw, built from two gamma draws in log space.
func (d Beta) Rand(rng *rand.Rand) float64 {
	la := SampleGammaLog(d.A, rng)
	return InvLogit(la - SampleGammaLog(d.B, rng))
}

// Mean returns A/(A+B).
func (d Beta) Mean() float64 { return d.A / (d.A + d.B) }

// Variance returns A·B/((A+B)²(A+B+1)).
func (d Beta) Variance() float64 {
	s := d.A + d.B
	return d.A * d.B / (s * s * (s + 1))
}

func (d Beta) eval(x float64, dp []float64) (lp, dx float64) {
	a, b := d.A, d.B
	if !positive(a) || !positive(b) || math.IsNaN(x) {
		return invalid(dp)
	}
	if !(x > 0 && x < 1) {
		return outside(dp)
	}
	lx, l1x := logx(x), math.Log1p(-x)
	lga, _ := math.Lgamma(a)
	lgb, _ := math.Lgamma(b)
	lgab, _ := math.Lgamma(a + b)
	if dp != nil {
		pab := Digamma(a + b)
		dp[0] = lx - Digamma(a) + pab
		dp[1] = l1x - Digamma(b) + pab
	}
	return (a-1)*lx + (b-1)*l1x - lga - lgb + lgab, (a-1)/x - (b-1)/(1-x)
}
