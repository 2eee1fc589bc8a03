package dist

import (
	"math"
	"math/rand/v2"
)

// Moyal is the Moyal distribution with location Mu and scale Sigma > 0
// (PyMC's Moyal(mu, sigma), scipy's moyal), an approximation of the Landau
// energy-loss distribution: with z = (x − μ)/σ,
//
//	log p(x) = −log σ − log √(2π) − (z + e^(−z))/2,
//
// and Z = (X − μ)/σ is −log N² for N standard normal, so that
// F(x) = P(|N| > e^(−z/2)) = erfc(e^(−z/2)/√2).
type Moyal struct {
	Mu, Sigma float64
}

// LogProb returns the log density at x.
func (d Moyal) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partials of LogProb(x) with respect to (Mu, Sigma) into
// dst (allocated if nil) and returns it.
func (d Moyal) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 2)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x.
func (d Moyal) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns an exact draw: Mu − 2·Sigma·log|N| for N standard normal.
func (d Moyal) Rand(rng *rand.Rand) float64 {
	for {
		if n := rng.NormFloat64(); n != 0 {
			return d.Mu - 2*d.Sigma*math.Log(math.Abs(n))
		}
	}
}

// Mean returns Mu + Sigma·(γ + log 2).
func (d Moyal) Mean() float64 { return d.Mu + d.Sigma*(eulerGamma+math.Ln2) }

// Variance returns π²·Sigma²/2.
func (d Moyal) Variance() float64 { return math.Pi * math.Pi * d.Sigma * d.Sigma / 2 }

func (d Moyal) eval(x float64, dp []float64) (float64, float64) {
	mu, s := d.Mu, d.Sigma
	if !finite(mu) || !positive(s) || math.IsNaN(x) {
		return invalid(dp)
	}
	if math.IsInf(x, 0) {
		return outside(dp)
	}
	z := (x - mu) / s
	e := math.Exp(-z)
	if math.IsInf(e, 1) {
		return outside(dp) // the density underflows far below μ
	}
	g := (1 - e) / (2 * s) // −∂ log p/∂x
	if dp != nil {
		dp[0] = g
		dp[1] = -1/s + z*g
	}
	return densityOrOutside(-logx(s)-lnSqrt2Pi-0.5*(z+e), -g, dp)
}

// moyalLogCDF is Moyal(μ, σ): with t = e^(−z/2), log P(X ≤ x) =
// log 2 + log Q(t) and log P(X > x) = log erf(t/√2), the latter as
// log1p(−2Q(t)) for t > 1 and from its series, −z/2 + log √(2/π) − t²/6,
// where t is below 1e-8 (or underflows).
func moyalLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	mu, s := p[0], p[1]
	z := (x - mu) / s
	t := math.Exp(-0.5 * z)
	var lp, gz float64 // gz = ∂lp/∂z
	switch {
	case !upper:
		if math.IsInf(t, 1) {
			return outside(dp)
		}
		lq, h := normalTail(t)
		lp, gz = math.Ln2+lq, 0.5*h*t
	case t < 1e-8:
		const halfLog2OverPi = -0.22579135264472743236 // log √(2/π)
		lp, gz = -0.5*z+halfLog2OverPi-t*t/6, -0.5+t*t/6
	default:
		if t > 1 {
			lq, _ := normalTail(t)
			lp = math.Log1p(-2 * math.Exp(lq))
		} else {
			lp = math.Log(math.Erf(t / math.Sqrt2))
		}
		// ∂/∂z = 2φ(t)/erf · (−t/2)
		gz = -math.Exp(math.Log(t) - 0.5*t*t - lnSqrt2Pi - lp)
	}
	if math.IsInf(lp, -1) {
		return outside(dp)
	}
	dp[0] = -gz / s
	dp[1] = -gz * z / s
	return lp, gz / s
}
