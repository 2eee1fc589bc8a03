package dist

import (
	"math"
	"math/rand/v2"
)

// NegBinomial is the negative binomial distribution in the mean–dispersion
// parameterisation (Stan's neg_binomial_2): mean Mu ≥ 0 (0 the point
// mass at 0) and dispersion Phi > 0, variance Mu + Mu²/Phi, mass
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
	if !nonNegative(mu) || !positive(phi) || math.IsNaN(k) {
		return invalid(dp)
	}
	if !isCount(k) {
		return outside(dp)
	}
	if mu == 0 {
		return negBinomialZeroMean(k, dp)
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

// negBinomialZeroMean is NegBinomial at mean 0, the point mass at 0 (as
// Poisson's rate 0): log mass 0 at 0, with the partials −1 in μ (the
// limit of the positive means') and 0 in φ; −Inf above.
func negBinomialZeroMean(k float64, dp []float64) (float64, float64) {
	if k > 0 {
		return outside(dp)
	}
	if dp != nil {
		dp[0], dp[1] = -1, 0
	}
	return 0, 0
}

// NegBinomialLog is the negative binomial distribution with mean e^Eta and
// dispersion Phi (Stan's neg_binomial_2_log), evaluated on the
// linear-predictor scale for count regressions: where e^Eta is a normal
// float64 it is NegBinomial(e^Eta, Phi) (whose rounding of e^Eta costs no
// more than η's own), and beyond, where e^Eta underflows or overflows, the
// mass is taken from log(μ/(μ+φ)) = −softplus(log φ − η) and
// log(φ/(μ+φ)) = −softplus(η − log φ), so that the log mass of a count
// under a mean of e^−800 or e^800 stays finite.
type NegBinomialLog struct {
	Eta, Phi float64
}

// LogProb returns the log mass at the count k.
func (d NegBinomialLog) LogProb(k float64) float64 {
	lp, _ := d.eval(k, nil)
	return lp
}

// Score writes the partials of LogProb(k) with respect to (Eta, Phi) into
// dst (allocated if nil) and returns it.
func (d NegBinomialLog) Score(dst []float64, k float64) []float64 {
	dst = scoreDst(dst, 2)
	d.eval(k, dst)
	return dst
}

// Rand returns a draw: Poisson(e^(Eta + log G − log Phi)) with
// G ~ Gamma(Phi, 1), the rate formed from its log. A rate beyond the
// largest float64 gives +Inf.
func (d NegBinomialLog) Rand(rng *rand.Rand) float64 {
	if !finite(d.Eta) || !positive(d.Phi) {
		return math.NaN()
	}
	lg := SampleGammaLog(d.Phi, rng)
	lam := math.Exp(lg + d.Eta - math.Log(d.Phi))
	if math.IsInf(lam, 1) {
		return lam
	}
	return samplePoisson(lam, rng)
}

// Mean returns e^Eta.
func (d NegBinomialLog) Mean() float64 { return math.Exp(d.Eta) }

// Variance returns μ + μ²/Phi, μ = e^Eta.
func (d NegBinomialLog) Variance() float64 {
	mu := math.Exp(d.Eta)
	return mu + mu*mu/d.Phi
}

// nbLogMean returns e^η and whether NegBinomialLog takes NegBinomial's
// kernel there: e^η a normal float64 and e^η + φ finite.
func nbLogMean(eta, phi float64) (mu float64, direct bool) {
	mu = math.Exp(eta)
	return mu, mu >= 0x1p-1022 && positive(mu+phi)
}

func (d NegBinomialLog) eval(k float64, dp []float64) (lp, dx float64) {
	eta, phi := d.Eta, d.Phi
	if !finite(eta) || !positive(phi) || math.IsNaN(k) {
		return invalid(dp)
	}
	if !isCount(k) {
		return outside(dp)
	}
	mu, direct := nbLogMean(eta, phi)
	if direct {
		lp, _ = NegBinomial{mu, phi}.eval(k, dp)
		if dp != nil {
			// φ/(μ+φ)·(k−μ), not NegBinomial's partial times μ, so
			// that the ratio does not round twice.
			dp[0] = phi / (mu + phi) * (k - mu)
		}
		return lp, 0
	}
	return negBinomialLogTail(k, eta, phi, dp)
}

// negBinomialLogTail is NegBinomialLog's mass where e^η underflows or
// overflows: log Γ(k+φ) − log Γ(k+1) − log Γ(φ) − k·softplus(log φ − η)
// − φ·softplus(η − log φ), with partials k·x − φ·y in η, x = φ/(μ+φ) and
// y = μ/(μ+φ) formed as σ(±(log φ − η)), and ψ(k+φ) − ψ(φ) − softplus(η −
// log φ) + y − k·x/φ in φ.
func negBinomialLogTail(k, eta, phi float64, dp []float64) (lp, dx float64) {
	lphi := math.Log(phi)
	nly := Softplus(lphi - eta) // −log y = log(1 + φ/μ)
	nlx := Softplus(eta - lphi) // −log x = log(1 + μ/φ)
	if k == 0 {
		lp = -phi * nlx
	} else {
		// log Γ(k+φ) − log Γ(k+1) − log Γ(φ) from rising factorials,
		// whose log-gammas would cancel: log Γ(k+φ) with log Γ(φ) for
		// large φ, with log Γ(k+1) for large k and φ < 1.
		var lc float64
		if phi < 1 {
			lg, _ := math.Lgamma(phi)
			lc = -lrising(k+phi, 1-phi) - lg
		} else {
			lg, _ := math.Lgamma(k + 1)
			lc = lrising(phi, k) - lg
		}
		lp = lc - k*nly - phi*nlx
	}
	if math.IsInf(lp, -1) {
		return outside(dp)
	}
	if dp != nil {
		x, y := InvLogit(lphi-eta), InvLogit(eta-lphi)
		dp[0] = k*x - phi*y
		var dpsi float64
		if k > 0 {
			dpsi = digammaDiff(phi, k)
		}
		dp[1] = dpsi - nlx + y - k*x/phi
	}
	return lp, 0
}
