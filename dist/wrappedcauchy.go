package dist

import (
	"math"
	"math/rand/v2"
)

// WrappedCauchy is the wrapped Cauchy distribution on the circle with
// location Mu and concentration Rho in [0, 1) (a Cauchy of scale
// −log ρ wrapped onto the circle; movement ecology's turning angles):
// with δ = x − μ,
//
//	p(x) = (1 − ρ²) / (2π (1 + ρ² − 2ρ cos δ)),
//
// for any real x (2π-periodic in it); ρ = 0 is uniform on the circle, ρ
// near 1 a spike at μ. Its tails are heavier than VonMises's. The
// denominator is computed as (1 − ρ)² + 4ρ sin²(δ/2) and 1 − ρ² as
// (1 − ρ)(1 + ρ), so that nothing cancels near ρ = 1 and δ = 0.
type WrappedCauchy struct {
	Mu, Rho float64
}

// LogProb returns the log density at x.
func (d WrappedCauchy) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partials of LogProb(x) with respect to (Mu, Rho) into
// dst (allocated if nil) and returns it.
func (d WrappedCauchy) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 2)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x.
func (d WrappedCauchy) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns an exact draw in (Mu − π, Mu + π): the image of a uniform
// angle under the Möbius map that takes the uniform to the wrapped
// Cauchy, μ + 2·atan((1 − ρ)/(1 + ρ)·tan(π(u − ½))).
func (d WrappedCauchy) Rand(rng *rand.Rand) float64 {
	u := openUnit(rng)
	return d.Mu + 2*math.Atan((1-d.Rho)/(1+d.Rho)*math.Tan(math.Pi*(u-0.5)))
}

// Mean returns Mu, the circular mean.
func (d WrappedCauchy) Mean() float64 { return d.Mu }

// Variance returns the circular variance 1 − ρ (E cos(x − μ) = ρ), not the
// variance of the draws as real numbers.
func (d WrappedCauchy) Variance() float64 { return 1 - d.Rho }

func (d WrappedCauchy) eval(x float64, dp []float64) (float64, float64) {
	mu, r := d.Mu, d.Rho
	if !finite(mu) || !(r >= 0 && r < 1) || math.IsNaN(x) {
		return invalid(dp)
	}
	if math.IsInf(x, 0) {
		return outside(dp)
	}
	delta := x - mu
	sh := math.Sin(0.5 * delta)
	om := 1 - r
	den := om*om + 4*r*sh*sh // 1 + ρ² − 2ρ cos δ
	sd := math.Sin(delta)
	dx := -2 * r * sd / den
	if dp != nil {
		dp[0] = -dx
		// d/dρ log(1 − ρ²) − d/dρ log den, with 2ρ − 2cos δ = −2(1 − ρ) + 4 sin²(δ/2)
		dp[1] = -2*r/(om*(1+r)) - (-2*om+4*sh*sh)/den
	}
	return densityOrOutside(math.Log(om)+math.Log1p(r)-ln2Pi-math.Log(den), dx, dp)
}
