package dist

import (
	"math"
	"math/rand/v2"
)

// Uniform is the uniform distribution on [Lo, Hi], Lo < Hi finite. Values
// outside [Lo, Hi] have log density −Inf.
type Uniform struct {
	Lo, Hi float64
}

// LogProb returns the log density at x.
func (d Uniform) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partials of LogProb(x) with respect to (Lo, Hi) into dst
// (allocated if nil) and returns it.
func (d Uniform) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 2)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x: 0.
func (d Uniform) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns a draw: Lo + (Hi−Lo)·u, or where Hi − Lo overflows (an
// interval wider than MaxFloat64) Lo·(1−u) + Hi·u, which stays finite.
func (d Uniform) Rand(rng *rand.Rand) float64 {
	u := rng.Float64()
	if w := d.Hi - d.Lo; !math.IsInf(w, 0) {
		return d.Lo + w*u
	}
	return d.Lo*(1-u) + d.Hi*u
}

// Mean returns (Lo+Hi)/2.
func (d Uniform) Mean() float64 { return 0.5 * (d.Lo + d.Hi) }

// Variance returns (Hi−Lo)²/12.
func (d Uniform) Variance() float64 { w := d.Hi - d.Lo; return w * w / 12 }

func (d Uniform) eval(x float64, dp []float64) (lp, dx float64) {
	if !finite(d.Lo) || !finite(d.Hi) || !(d.Lo < d.Hi) || math.IsNaN(x) {
		return invalid(dp)
	}
	if x < d.Lo || x > d.Hi {
		return outside(dp)
	}
	w := d.Hi - d.Lo
	if dp != nil {
		dp[0] = 1 / w
		dp[1] = -1 / w
	}
	return -logx(w), 0
}
