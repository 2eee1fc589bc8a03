package dist

import (
	"math"
	"math/rand/v2"
)

// NegBinomial is the negative binomial distribution in the mean–dispersion
// parameterisation (Stan's neg_binomial_2): mean Mu > 0 and dispersion
// Phi > 0, variance Mu + Mu²/Phi, mass
// C(k+Phi−1, k)·(Mu/(Mu+Phi))^k·(Phi/(Mu+Phi))^Phi on the counts 0, 1, ….
// It is the Poisson(λ) mixture with λ ~ Gamma(Phi, Phi/Mu); Phi → ∞ gives
// Poisson(Mu).
type NegBinomial struct {
	Mu, Phi float64
}

// LogProb returns the log mass at the count k.
func (d NegBinomial) LogProb(k float64) float64 {
	lp, _ := d.eval(k, nil)
	return lp
}

// Score writes the partials of LogProb(k) with respect to (Mu, Phi) into dst
// (allocated if nil) and returns it.
func (d NegBinomial) Score(dst []float64, k float64) []float64 {
	dst = scoreDst(dst, 2)
	d.eval(k, dst)
	return dst
}

// Rand returns a draw: Poisson(Mu·G/Phi) with G ~ Gamma(Phi, 1). A rate
// beyond the largest float64 gives +Inf (the count overflows too), not the
// NaN of Poisson(+Inf).
func (d NegBinomial) Rand(rng *rand.Rand) float64 {
	lg := SampleGammaLog(d.Phi, rng)
	lam := math.Exp(lg + math.Log(d.Mu) - math.Log(d.Phi))
	if math.IsInf(lam, 1) && positive(d.Mu) && positive(d.Phi) {
		return lam
	}
	return samplePoisson(lam, rng)
}

// Mean returns Mu.
func (d NegBinomial) Mean() float64 { return d.Mu }

// Variance returns Mu + Mu²/Phi.
func (d NegBinomial) Variance() float64 { return d.Mu + d.Mu*d.Mu/d.Phi }

func (d NegBinomial) eval(k float64, dp []float64) (lp, dx float64) {
	mu, phi := d.Mu, d.Phi
	if !positive(mu) || !positive(phi) || math.IsNaN(k) {
		return invalid(dp)
	}
	if !isCount(k) {
		return outside(dp)
	}
	// Written with log1p(mu/phi) so that large phi (the Poisson limit) keeps
	// its accuracy.
	l1p := math.Log1p(mu / phi)
	switch {
	case k == 0:
		lp = -phi * l1p
	case k+phi >= stirlingMin:
		// The log-gammas, of order (k+φ)·log(k+φ), nearly cancel with
		// each other and the log terms for large φ or k: Loader's
		// binomial form, with C(k+φ−1, k) = φ/(k+φ)·C(k+φ, k).
		s := (k + phi) / (mu + phi)
		lp = logBinomRaw(phi, k, s*phi, s*mu) - math.Log1p(k/phi)
	default:
		lg1, _ := math.Lgamma(k + phi)
		lg2, _ := math.Lgamma(k + 1)
		lg3, _ := math.Lgamma(phi)
		lp = lg1 - lg2 - lg3 + k*(logx(mu)-logx(mu+phi)) - phi*l1p
	}
	if dp != nil {
		// k/μ − (k+φ)/(μ+φ) without cancelling near k = μ.
		dp[0] = phi / (mu + phi) * (k - mu) / mu
		var dpsi float64
		if k > 0 {
			dpsi = digammaDiff(phi, k)
		}
		dp[1] = dpsi - l1p + (mu-k)/(mu+phi)
	}
	return lp, 0
}
