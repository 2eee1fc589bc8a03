package dist

import (
	"math"
	"math/rand/v2"
)

// DiscreteWeibull is PyMC's discrete Weibull (Nakagawa and Osaki 1975)
// on the counts 0, 1, …: P(X ≥ k) = Q^(k^Beta), so the mass is
// P(k) = Q^(k^Beta) − Q^((k+1)^Beta), with Q in (0, 1) and Beta > 0.
type DiscreteWeibull struct {
	Q, Beta float64
}

// LogProb returns the log mass at k.
func (d DiscreteWeibull) LogProb(k float64) float64 {
	lp, _ := d.eval(k, nil)
	return lp
}

// Score writes the partials of LogProb(k) in Q and Beta into dst
// (allocated if nil) and returns it.
func (d DiscreteWeibull) Score(dst []float64, k float64) []float64 {
	dst = scoreDst(dst, 2)
	d.eval(k, dst)
	return dst
}

// Rand returns a draw by inversion, ⌊(log U / log Q)^(1/Beta)⌋ for U
// uniform on (0, 1]: the continuous T = (log U / log Q)^(1/Beta) has
// P(T ≥ t) = Q^(t^Beta), so P(⌊T⌋ ≥ k) = Q^(k^Beta), the family's tail.
func (d DiscreteWeibull) Rand(rng *rand.Rand) float64 {
	if !d.valid() {
		return math.NaN()
	}
	u := 1 - rng.Float64()
	return math.Floor(math.Pow(math.Log(u)/math.Log(d.Q), 1/d.Beta))
}

// dwMaxTerms caps the sums of Mean and Variance.
const dwMaxTerms = 10_000_000

// Mean returns Σ_{k≥1} Q^(k^Beta), summed until the terms fall below
// 1e-17 of the sum (NaN if that takes more than ten million terms: Q
// near 1 with a small Beta).
func (d DiscreteWeibull) Mean() float64 {
	m, _ := d.moments()
	return m
}

// Variance returns E[X²] − E[X]², E[X²] = Σ_{k≥1} (2k − 1)·Q^(k^Beta),
// summed as Mean is.
func (d DiscreteWeibull) Variance() float64 {
	m, m2 := d.moments()
	return m2 - m*m
}

func (d DiscreteWeibull) moments() (m, m2 float64) {
	l := math.Log(d.Q)
	for k := 1.0; k <= dwMaxTerms; k++ {
		s := math.Exp(math.Pow(k, d.Beta) * l) // P(X ≥ k)
		m += s
		m2 += (2*k - 1) * s
		if (2*k-1)*s < 1e-17*m2 {
			return m, m2
		}
	}
	return math.NaN(), math.NaN()
}

func (d DiscreteWeibull) valid() bool { return d.Q > 0 && d.Q < 1 && positive(d.Beta) }

// eval computes the log mass in log space: with L = log Q, u = k^β,
// w = (k+1)^β and δ = w − u (as u·expm1(β·log1p(1/k)), which does not
// cancel at large k), log P(k) = u·L + log1mexp(−δ·L). Its partials:
// ∂/∂Q = (u − δ/expm1(−δL))/Q and ∂/∂β = L·u·log k − L·δ′/expm1(−δL),
// δ′ = ∂δ/∂β = δ·log k + w·log1p(1/k) (0 at k = 0).
func (d DiscreteWeibull) eval(k float64, dp []float64) (lp, dx float64) {
	if !d.valid() || math.IsNaN(k) {
		return invalid(dp)
	}
	if !isCount(k) {
		return outside(dp)
	}
	q, b := d.Q, d.Beta
	l := math.Log(q)
	u, w, delta, lk, l1k := 0.0, 1.0, 1.0, 0.0, 0.0
	if k > 0 {
		lk, l1k = math.Log(k), math.Log1p(1/k)
		u = math.Pow(k, b)
		w = math.Pow(k+1, b)
		delta = u * math.Expm1(b*l1k)
	}
	a := -delta * l // > 0
	lp = u*l + Log1mexp(a)
	if math.IsInf(lp, -1) {
		return outside(dp)
	}
	if dp != nil {
		e := math.Expm1(a)
		dp[0] = (u - delta/e) / q
		dp[1] = l*u*lk - l*(delta*lk+w*l1k)/e
	}
	return lp, 0
}

// discreteWeibullLogCDF is log P(X > k) = w·L and log P(X ≤ k) =
// log1mexp(−w·L) at k = ⌊x⌋, w = (k+1)^β, L = log Q, with their partials
// in Q and β (∂w/∂β = w·log(k+1)).
func discreteWeibullLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	if x < 0 {
		return belowSupport(dp, upper)
	}
	q, b := p[0], p[1] // LogCDF checked 0 < q < 1 and b > 0
	k := math.Floor(x)
	l, lk1 := math.Log(q), math.Log1p(k)
	w := math.Pow(k+1, b)
	if upper {
		dp[0] = w / q
		dp[1] = l * w * lk1
		return w * l, 0
	}
	a := -w * l
	e := math.Expm1(a)
	dp[0] = -w / (q * e)
	dp[1] = -l * w * lk1 / e
	return Log1mexp(a), 0
}
