package dist

import (
	"math"
	"math/rand/v2"
)

// AsymmetricLaplace is the asymmetric Laplace distribution in PyMC's
// parameterisation AsymmetricLaplace(b, kappa, mu): B > 0 is the rate
// (PyMC calls it the scale, but it multiplies; scipy's
// laplace_asymmetric(kappa, loc=mu, scale=1/b)), Kappa > 0 the symmetry
// (1 symmetric), Mu the location:
//
//	log p(x) = log b − log(κ + 1/κ) − b·κ·(x − μ) above μ, − (b/κ)·(μ − x) below,
//
// exponential tails of rates bκ above μ and b/κ below, P(X ≤ μ) =
// κ²/(1 + κ²). It is SkewDoubleExponential(μ, 2κ/(b(1 + κ²)), κ²/(1 + κ²)),
// kept as its own kernel so that κ far from 1 does not round τ onto 0 or
// 1. At x = μ the partials in x and μ are 0, as SkewDoubleExponential's.
type AsymmetricLaplace struct {
	B, Kappa, Mu float64
}

// LogProb returns the log density at x.
func (d AsymmetricLaplace) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partials of LogProb(x) with respect to (B, Kappa, Mu)
// into dst (allocated if nil) and returns it.
func (d AsymmetricLaplace) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 3)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x.
func (d AsymmetricLaplace) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns an exact draw: Mu + E₁/(B·Kappa) − Kappa·E₂/B for
// independent standard exponentials, the difference of the two tails.
func (d AsymmetricLaplace) Rand(rng *rand.Rand) float64 {
	return d.Mu + rng.ExpFloat64()/(d.B*d.Kappa) - d.Kappa*rng.ExpFloat64()/d.B
}

// Mean returns Mu + (1/Kappa − Kappa)/B.
func (d AsymmetricLaplace) Mean() float64 { return d.Mu + (1/d.Kappa-d.Kappa)/d.B }

// Variance returns (1/Kappa² + Kappa²)/B².
func (d AsymmetricLaplace) Variance() float64 {
	k := d.Kappa
	return (1/(k*k) + k*k) / (d.B * d.B)
}

// logKappaSum returns log(κ + 1/κ) = |log κ| + log1p(e^(−2|log κ|)) and
// its derivative in κ, (κ² − 1)/(κ(κ² + 1)).
func logKappaSum(k float64) (float64, float64) {
	l := math.Abs(logx(k))
	if k >= 1 {
		return l + math.Log1p(math.Exp(-2*l)), (1 - 1/(k*k)) / (k + 1/k)
	}
	return l + math.Log1p(math.Exp(-2*l)), (k - 1/k) / (k*k + 1)
}

func (d AsymmetricLaplace) eval(x float64, dp []float64) (float64, float64) {
	b, k, mu := d.B, d.Kappa, d.Mu
	if !positive(b) || !positive(k) || !finite(mu) || math.IsNaN(x) {
		return invalid(dp)
	}
	if math.IsInf(x, 0) {
		return outside(dp)
	}
	ls, dls := logKappaSum(k)
	u := x - mu
	var w, dwdb, dwdk, dwdx float64 // w = rate·|x − μ|
	switch {
	case u > 0:
		w, dwdb, dwdk, dwdx = b*k*u, k*u, b*u, b*k
	case u < 0:
		w, dwdb, dwdk, dwdx = -b*u/k, -u/k, b*u/(k*k), -b/k
	}
	if dp != nil {
		dp[0] = 1/b - dwdb
		dp[1] = -dls - dwdk
		dp[2] = dwdx
	}
	return densityOrOutside(logx(b)-ls-w, -dwdx, dp)
}

// asymLaplaceLogCDF is AsymmetricLaplace(b, κ, μ): below μ,
// log P(X ≤ x) = −softplus(−2·log κ) + (b/κ)(x − μ); above it,
// log P(X > x) = −softplus(2·log κ) − bκ(x − μ); the other tail of each
// by log1mexp.
func asymLaplaceLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	b, k, mu := p[0], p[1], p[2]
	lk := logx(k)
	u := x - mu
	var lt, db, dk, dmu, dx float64 // the log of the tail beyond x, and its partials
	below := u < 0
	if below {
		lt = -Softplus(-2*lk) + b*u/k
		db, dk, dmu, dx = u/k, 2/k*InvLogit(-2*lk)-b*u/(k*k), -b/k, b/k
	} else {
		lt = -Softplus(2*lk) - b*k*u
		db, dk, dmu, dx = -k*u, -2/k*InvLogit(2*lk)-b*u, b*k, -b*k
	}
	g := 1.0
	if below == upper { // the complement of the tail computed
		g = -1 / math.Expm1(-lt)
		lt = Log1mexp(-lt)
	}
	if math.IsInf(lt, -1) {
		return outside(dp)
	}
	dp[0], dp[1], dp[2] = g*db, g*dk, g*dmu
	return lt, g * dx
}
