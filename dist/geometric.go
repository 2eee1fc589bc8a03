package dist

import (
	"math"
	"math/rand/v2"
)

// Geometric is the number of Bernoulli(P) trials up to and including the
// first success, PyMC's and scipy's convention: support 1, 2, …, mass
// P(k) = P(1 − P)^(k−1), mean 1/P. (Some texts count the failures before
// the success, from 0: that count is this one minus 1.) P is in (0, 1];
// at P = 1 every draw is 1.
type Geometric struct {
	P float64
}

// LogProb returns the log mass at k.
func (d Geometric) LogProb(k float64) float64 {
	lp, _ := d.eval(k, nil)
	return lp
}

// Score writes the partial of LogProb(k) with respect to P into dst
// (allocated if nil) and returns it.
func (d Geometric) Score(dst []float64, k float64) []float64 {
	dst = scoreDst(dst, 1)
	d.eval(k, dst)
	return dst
}

// Rand returns a draw by inversion: 1 + ⌊log U / log(1 − P)⌋ for U
// uniform on (0, 1], whose tail P(X > k) = (1 − P)^k is the family's.
func (d Geometric) Rand(rng *rand.Rand) float64 {
	p := d.P
	if !(p > 0 && p <= 1) {
		return math.NaN()
	}
	u := 1 - rng.Float64()
	return 1 + math.Floor(math.Log(u)/math.Log1p(-p))
}

// Mean returns 1/P.
func (d Geometric) Mean() float64 { return 1 / d.P }

// Variance returns (1 − P)/P².
func (d Geometric) Variance() float64 { return (1 - d.P) / (d.P * d.P) }

// eval computes log P + (k − 1)·log1p(−P) and its partial
// (1 − kP)/(P(1 − P)), which does not cancel at the mode as
// 1/P − (k − 1)/(1 − P) would.
func (d Geometric) eval(k float64, dp []float64) (lp, dx float64) {
	p := d.P
	if !(p > 0 && p <= 1) || math.IsNaN(k) {
		return invalid(dp)
	}
	if !isCount(k) || k < 1 || (p == 1 && k > 1) {
		return outside(dp)
	}
	if k == 1 {
		if dp != nil {
			dp[0] = 1 / p
		}
		return logx(p), 0
	}
	if dp != nil {
		dp[0] = (1 - k*p) / (p * (1 - p))
	}
	return logx(p) + (k-1)*math.Log1p(-p), 0
}

// geometricLogCDF is log P(X ≤ k) = log(1 − (1 − p)^k), by log1mexp of
// t = −k·log1p(−p), and log P(X > k) = k·log1p(−p), at k = ⌊x⌋, with
// their partials in p: k/((1 − p)·expm1(t)) and −k/(1 − p).
func geometricLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	if x < 1 {
		return belowSupport(dp, upper)
	}
	k, pr := math.Floor(x), p[0]
	if pr == 1 { // every draw is 1
		return aboveSupport(dp, upper)
	}
	l := math.Log1p(-pr)
	if upper {
		dp[0] = -k / (1 - pr)
		return k * l, 0
	}
	t := -k * l
	dp[0] = k / ((1 - pr) * math.Expm1(t))
	return Log1mexp(t), 0
}
