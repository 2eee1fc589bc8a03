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
	if dp != nil {
		dp[0] = lx + digammaDiff(a, b)
		dp[1] = l1x + digammaDiff(b, a)
	}
	return betaLogDensity(a, b, x, lx, l1x), (a-1)/x - (b-1)/(1-x)
}

// betaLogDensity returns the Beta(a, b) log density at x, given lx = log x
// and l1x = log(1−x). For a, b > 2 it is log(a+b−1) plus the Binomial(a+b−2,
// x) log mass at a−1 in Loader's form (the grouping of R's dbeta): at large
// shapes the plain sum's terms (a−1)·log x, (b−1)·log(1−x) and log B(a, b)
// cancel by many orders of magnitude, and Loader's form keeps the absolute
// accuracy of the result. The rounding errors of n·x and n·(1−x) enter to
// first order, as in gammaLogLargeM. Where x is so close to 0 that
// (a−1)/(n·x) overflows (a subnormal x, as a value kept just inside (0, 1)
// can be), the terms no longer cancel and the plain sum is used.
func betaLogDensity(a, b, x, lx, l1x float64) float64 {
	plain := func() float64 { return (a-1)*lx + (b-1)*l1x - LogBeta(a, b) }
	if a <= 2 || b <= 2 {
		return plain()
	}
	k, j := a-1, b-1
	n := k + j
	t := 1 - x
	mx, mxlo := twoProd(n, x)
	my, mylo := twoProd(n, t)
	mylo += n * ((1 - t) - x) // 1 − x = t + ((1 − t) − x), both exact for 0 < x < 1
	rx, ry := k/mx, j/my
	if math.IsInf(rx, 1) || math.IsInf(ry, 1) {
		return plain()
	}
	return logx(a+b-1) + logBinomRaw(k, j, mx, my) - mxlo*(1-rx) - mylo*(1-ry)
}
