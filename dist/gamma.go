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
	if a >= gammaLoaderShape {
		return gammaLogLargeDP(a, b, lx, x, dp), (a-1)/x - b
	}
	lg, _ := math.Lgamma(a)
	if dp != nil {
		dp[0] = lb - Digamma(a) + lx
		dp[1] = a/b - x
	}
	return a*lb - lg + (a-1)*lx - b*x, (a-1)/x - b
}

// gammaLoaderShape is the shape from which the Gamma and InvGamma log
// densities take Loader's form (gammaLogLarge). Below it the plain sum
// a·log b − log Γ(a) + (a−1)·log x − b·x loses less than 1e-12 absolute (5e-13
// at a = 1000 near the mode, against mpmath); above, its terms of about
// a·log a cancel to a result of about −½·log a, and the loss grows with
// them: 2e-11 at a = 1e4, 8e-10 at 1e6, 1e-5 at 1e10.
const gammaLoaderShape = 1000

// gammaLogLarge returns the Gamma(a, rate b) log density at x (lx = log x)
// and its partial in a, for a ≥ gammaLoaderShape. See gammaLogLargeM.
func gammaLogLarge(a, b, lx, x float64) (lp, da float64) {
	m, lo := twoProd(b, x)
	return gammaLogLargeM(a, logx(b), lx, m, lo)
}

// gammaLogLargeDP is gammaLogLarge that writes the partials in (a, b) into
// dp (unless nil) and returns the log density.
func gammaLogLargeDP(a, b, lx, x float64, dp []float64) float64 {
	lp, da := gammaLogLarge(a, b, lx, x)
	if dp != nil {
		dp[0], dp[1] = da, a/b-x
	}
	return lp
}

// invGammaLogLarge returns the InvGamma(a, scale s) log density at x (lx =
// log x) for a ≥ gammaLoaderShape and writes its partials in (a, s) into dp
// (unless nil): the Gamma(a, s) density of 1/x times 1/x², with s/x to
// twice the working precision (twoQuo).
func invGammaLogLarge(a, s, lx, x float64, dp []float64) float64 {
	m, lo := twoQuo(s, x)
	lp, da := gammaLogLargeM(a, logx(s), -lx, m, lo)
	if dp != nil {
		dp[0], dp[1] = da, a/s-1/x
	}
	return lp - 2*lx
}

// gammaLogLargeM returns the Gamma(a, rate b) log density at x and its
// partial in a from lb = log b, lx = log x and b·x = m + lo (lo the
// rounding error of the product m): log b plus the Poisson(b·x) log mass
// at a−1 in Loader's form (the grouping of R's dgamma), and log(b·x) − ψ(a)
// as log(m/a) − (ψ(a) − log a), which keeps the relative accuracy of a
// partial of order 1/√a. lo enters to first order: the density's relative
// sensitivity to b·x is a−1−b·x, about √a, so without it an exact x would
// lose as much as a rounded one (3e-11 at a = 1e10, three sd from the
// mode). Where b·x under- or overflows, or is so far below a that (a−1)/(b·x)
// overflows (a subnormal b·x, as a rate floored at the least normal makes),
// the terms no longer cancel and the plain sum is used; the first-order term
// would be 0·∞ there.
func gammaLogLargeM(a, lb, lx, m, lo float64) (lp, da float64) {
	k := a - 1
	r := k / m
	if !(m > 0 && m < math.Inf(1)) || math.IsInf(r, 1) {
		lg, _ := math.Lgamma(a)
		return a*lb - lg + (a-1)*lx - m, lb - Digamma(a) + lx
	}
	return lb + logPoissonRaw(k, m) - lo*(1-r), logMinusDigamma(lb+lx, m, a) + lo/m
}
