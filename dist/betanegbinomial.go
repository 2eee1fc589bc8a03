package dist

import (
	"math"
	"math/rand/v2"
)

// BetaNegBinomial is the beta negative binomial distribution (Stan's
// beta_neg_binomial, Stan 2.36): the number of failures before the R-th
// success, R > 0, when the success probability is drawn from Beta(A, B),
// A, B > 0, with mass
//
//	Γ(k + R) / (k! Γ(R)) · B(A + R, B + k) / B(A, B)
//
// on the counts k, mean R·B/(A − 1) for A > 1: counts with heavier tails
// than NegBinomial's. Values that are not counts have log mass −Inf.
type BetaNegBinomial struct {
	R, A, B float64
}

// LogProb returns the log mass at k.
func (d BetaNegBinomial) LogProb(k float64) float64 {
	lp, _ := d.eval(k, nil)
	return lp
}

// Score writes the partials of LogProb(k) with respect to (R, A, B) into
// dst (allocated if nil) and returns it.
func (d BetaNegBinomial) Score(dst []float64, k float64) []float64 {
	dst = scoreDst(dst, 3)
	d.eval(k, dst)
	return dst
}

// Rand returns a draw: Poisson(λ) with λ = g_R·g_B/g_A for independent
// g_s ~ Gamma(s, 1), which is Gamma(R, rate p/(1 − p)) for p = g_A/(g_A
// + g_B) ~ Beta(A, B), without forming p (a p that rounds to 1 would make
// the rate infinite).
func (d BetaNegBinomial) Rand(rng *rand.Rand) float64 {
	if !positive(d.R) || !positive(d.A) || !positive(d.B) {
		return math.NaN()
	}
	lam := math.Exp(SampleGammaLog(d.R, rng) + SampleGammaLog(d.B, rng) - SampleGammaLog(d.A, rng))
	return samplePoisson(lam, rng)
}

// Mean returns R·B/(A − 1), +Inf for A ≤ 1.
func (d BetaNegBinomial) Mean() float64 {
	if d.A <= 1 {
		return math.Inf(1)
	}
	return d.R * d.B / (d.A - 1)
}

// eval computes the log mass as T(k, R) + [log Γ(A+R) − log Γ(A)] +
// [log Γ(B+k) − log Γ(B)] − [log Γ(A+B+R+k) − log Γ(A+B)], T(m, s) = log
// Γ(m+s) − log Γ(m+1) − log Γ(s) (lbetaRatio) and each bracket a log
// rising factorial (lrising), so that large arguments keep the digits of
// the differences; and the partials
//
//	∂R: ψ(k+R) − ψ(R) − [ψ(A+B+R+k) − ψ(A+R)]
//	∂A: ψ(A+R) − ψ(A) − [ψ(A+B+R+k) − ψ(A+B)]
//	∂B: ψ(B+k) − ψ(B) − [ψ(A+B+R+k) − ψ(A+B)]
//
// each difference by digammaDiff.
func (d BetaNegBinomial) eval(k float64, dp []float64) (lp, dx float64) {
	r, a, b := d.R, d.A, d.B
	if !positive(r) || !positive(a) || !positive(b) || math.IsNaN(k) {
		return invalid(dp)
	}
	if !isCount(k) {
		return outside(dp)
	}
	lp = lbetaRatio(k, r) + lrising(a, r) + lrising(b, k) - lrising(a+b, r+k)
	if dp != nil {
		all := digammaDiff(a+b, r+k)
		dp[0] = digammaDiff(r, k) - digammaDiff(a+r, b+k)
		dp[1] = digammaDiff(a, r) - all
		dp[2] = digammaDiff(b, k) - all
	}
	return lp, 0
}

// Variance returns R·B·(R + A − 1)·(B + A − 1)/((A − 2)·(A − 1)²), +Inf
// for A ≤ 2.
func (d BetaNegBinomial) Variance() float64 {
	if d.A <= 2 {
		return math.Inf(1)
	}
	return d.R * d.B * (d.R + d.A - 1) * (d.B + d.A - 1) / ((d.A - 2) * (d.A - 1) * (d.A - 1))
}
