package dist

import (
	"math"
	"math/rand/v2"
)

// Rice is the Rice distribution with noncentrality Nu ≥ 0 and scale
// Sigma > 0 (PyMC's Rice(nu, sigma), scipy's rice(nu/sigma, scale=sigma)):
// the length of a 2-vector of independent normals of scale σ whose mean has
// length ν. With z = xν/σ² and log I₀(z) − z from VonMises's logBesselI0,
//
//	log p(x) = log x − 2·log σ − (x − ν)²/(2σ²) + (log I₀(z) − z),  x > 0,
//
// so that neither e^z nor the two quadratic terms it cancels are formed;
// the partials use A = I₁(z)/I₀(z) and 1 − A from the same call
// (x² + ν² − 2Axν = (x − ν)² + 2xν(1 − A), nothing cancels). ν = 0 is
// Rayleigh(σ).
type Rice struct {
	Nu, Sigma float64
}

// LogProb returns the log density at x.
func (d Rice) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partials of LogProb(x) with respect to (Nu, Sigma) into
// dst (allocated if nil) and returns it.
func (d Rice) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 2)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x.
func (d Rice) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns an exact draw: the length of (ν + σN₁, σN₂).
func (d Rice) Rand(rng *rand.Rand) float64 {
	return math.Hypot(d.Nu+d.Sigma*rng.NormFloat64(), d.Sigma*rng.NormFloat64())
}

// Mean returns σ·√(π/2)·L_{1/2}(−ν²/(2σ²)), the Laguerre function
// e^(−q/2)·((1 + q)·I₀(q/2) + q·I₁(q/2)) at q = ν²/(2σ²).
func (d Rice) Mean() float64 {
	q := d.Nu * d.Nu / (2 * d.Sigma * d.Sigma)
	l0, a := 0.0, 0.0
	if q > 0 {
		l0, a, _ = logBesselI0(q / 2)
	}
	return d.Sigma * math.Sqrt(math.Pi/2) * math.Exp(l0) * ((1 + q) + q*a)
}

// Variance returns 2σ² + ν² − Mean².
func (d Rice) Variance() float64 {
	m := d.Mean()
	return 2*d.Sigma*d.Sigma + d.Nu*d.Nu - m*m
}

func (d Rice) eval(x float64, dp []float64) (float64, float64) {
	nu, s := d.Nu, d.Sigma
	if !(nu >= 0 && nu < math.Inf(1)) || !positive(s) || math.IsNaN(x) {
		return invalid(dp)
	}
	if !(x > 0) || math.IsInf(x, 1) {
		return outside(dp)
	}
	s2 := s * s
	z := x * nu / s2
	l0, oma := 0.0, 1.0 // log I₀(z) − z and 1 − I₁/I₀ at z = 0
	if z > 0 {
		l0, _, oma = logBesselI0(z)
	}
	r := (x - nu) / s
	if dp != nil {
		dp[0] = ((x - nu) - x*oma) / s2
		dp[1] = (r*r + 2*(x/s)*(nu/s)*oma - 2) / s
	}
	lp := logx(x) - 2*logx(s) - 0.5*r*r + l0
	return densityOrOutside(lp, 1/x+(nu-x-nu*oma)/s2, dp)
}
