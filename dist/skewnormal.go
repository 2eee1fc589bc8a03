package dist

import (
	"math"
	"math/rand/v2"
)

// SkewNormal is the skew normal distribution with location Xi, scale
// Omega > 0 and shape Alpha (Stan's skew_normal): with z = (x − ξ)/ω,
//
//	log p(x) = log 2 − log ω + log φ(z) + log Φ(αz),
//
// log Φ(αz) from normalTail, which keeps its digits (and those of its
// derivative, the hazard φ/Φ) far into the lower tail, where αz is −40 and
// Φ is 1e-350. Alpha = 0 is Normal(ξ, ω). Its log CDF, Φ(z) − 2·T(z, α)
// with Owen's T function, is in skewnormal_cdf.go.
type SkewNormal struct {
	Xi, Omega, Alpha float64
}

// LogProb returns the log density at x.
func (d SkewNormal) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partials of LogProb(x) with respect to (Xi, Omega,
// Alpha) into dst (allocated if nil) and returns it.
func (d SkewNormal) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 3)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x.
func (d SkewNormal) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns an exact draw: with δ = α/√(1 + α²) and independent
// standard normals U, V, the variable δ·|U| + √(1 − δ²)·V is standard skew
// normal (Azzalini's representation).
func (d SkewNormal) Rand(rng *rand.Rand) float64 {
	delta := d.delta()
	u, v := math.Abs(rng.NormFloat64()), rng.NormFloat64()
	return d.Xi + d.Omega*(delta*u+math.Sqrt((1-delta)*(1+delta))*v)
}

func (d SkewNormal) delta() float64 { return d.Alpha / math.Hypot(1, d.Alpha) }

// Mean returns Xi + Omega·δ·√(2/π).
func (d SkewNormal) Mean() float64 { return d.Xi + d.Omega*d.delta()*math.Sqrt(2/math.Pi) }

// Variance returns Omega²·(1 − 2δ²/π).
func (d SkewNormal) Variance() float64 {
	delta := d.delta()
	return d.Omega * d.Omega * (1 - 2*delta*delta/math.Pi)
}

func (d SkewNormal) eval(x float64, dp []float64) (float64, float64) {
	xi, om, a := d.Xi, d.Omega, d.Alpha
	if !finite(xi) || !positive(om) || !finite(a) || math.IsNaN(x) {
		return invalid(dp)
	}
	if math.IsInf(x, 0) {
		return outside(dp)
	}
	z := (x - xi) / om
	lphi, h := normalTail(-a * z) // log Φ(αz) and φ(αz)/Φ(αz)
	lp := math.Ln2 - lnSqrt2Pi - logx(om) - 0.5*z*z + lphi
	g := a*h - z // ∂lp/∂z
	if math.IsInf(lp, -1) {
		return outside(dp)
	}
	if dp != nil {
		dp[2] = z * h
	}
	return locScaleDensity(z, om, g, dp, lp)
}
