package dist

import (
	"math"
	"math/rand/v2"
)

// Skellam is the difference X1 − X2 of independent Poisson(Mu1) and
// Poisson(Mu2) counts (goal differences): support all integers, mass
// P(k) = e^−(Mu1+Mu2)·(Mu1/Mu2)^(k/2)·I_|k|(2√(Mu1·Mu2)), mean Mu1 − Mu2
// and variance Mu1 + Mu2. It has no log CDF.
type Skellam struct {
	Mu1, Mu2 float64
}

// LogProb returns the log mass at k.
func (d Skellam) LogProb(k float64) float64 {
	lp, _ := d.eval(k, nil)
	return lp
}

// Score writes the partials of LogProb(k) in Mu1 and Mu2 into dst
// (allocated if nil) and returns it.
func (d Skellam) Score(dst []float64, k float64) []float64 {
	dst = scoreDst(dst, 2)
	d.eval(k, dst)
	return dst
}

// Rand returns a draw: the difference of a Poisson(Mu1) and a
// Poisson(Mu2) draw, in that order.
func (d Skellam) Rand(rng *rand.Rand) float64 {
	if !positive(d.Mu1) || !positive(d.Mu2) {
		return math.NaN()
	}
	a := samplePoisson(d.Mu1, rng)
	return a - samplePoisson(d.Mu2, rng)
}

// Mean returns Mu1 − Mu2.
func (d Skellam) Mean() float64 { return d.Mu1 - d.Mu2 }

// Variance returns Mu1 + Mu2.
func (d Skellam) Variance() float64 { return d.Mu1 + d.Mu2 }

// eval computes −(μ1 + μ2) + (k/2)·log(μ1/μ2) + log I_|k|(z), z =
// 2√μ1·√μ2 (the product of the roots, which does not underflow where
// μ1·μ2 would), by the log Bessel function of log_modified_bessel_first_kind
// (power series, or Hankel's expansion for large z, so no overflow). With
// ρ = z·(log I_v)′(z) = v + z·I_{v+1}(z)/I_v(z) (the recurrence), the
// partials are ∂/∂μ1 = −1 + (k + ρ)/(2μ1) and ∂/∂μ2 = −1 + (ρ − k)/(2μ2),
// since ∂z/∂μ1 = z/(2μ1). The ratio comes from the derivative that the
// Bessel function gives from its own sum, or, where z·dz − v would cancel
// (z small beside v), from log I_{v+1} − log I_v; k ± v is formed exactly,
// and no I_v itself is formed.
func (d Skellam) eval(k float64, dp []float64) (lp, dx float64) {
	m1, m2 := d.Mu1, d.Mu2
	if !positive(m1) || !positive(m2) || math.IsNaN(k) {
		return invalid(dp)
	}
	if !finite(k) || k != math.Trunc(k) {
		return outside(dp)
	}
	z := 2 * math.Sqrt(m1) * math.Sqrt(m2)
	lb, _, dz := logBesselI(math.Abs(k), z, dp != nil)
	lp = -(m1 + m2) + k/2*(logx(m1)-logx(m2)) + lb
	if math.IsInf(lp, -1) { // I_|k|(z) underflowed: z = 0 in floats
		return outside(dp)
	}
	if dp != nil {
		v := math.Abs(k)
		zr := z*dz - v // z·I_{v+1}(z)/I_v(z)
		if zr < v {
			// z·dz − v cancels where z is small beside v (zr ≈ z²/(2v)):
			// the ratio from the two logs instead, to 1e-16 of log I
			zr = z * math.Exp(logBesselIValue(v+1, z)-lb)
		}
		a, b := zr, zr // k + ρ and ρ − k, ρ = v + zr
		if k >= 0 {
			a += 2 * v
		} else {
			b += 2 * v
		}
		dp[0] = -1 + a/(2*m1)
		dp[1] = -1 + b/(2*m2)
	}
	return lp, 0
}

// logBesselIValue is log I_v(z) without its partials.
func logBesselIValue(v, z float64) float64 {
	l, _, _ := logBesselI(v, z, false)
	return l
}
