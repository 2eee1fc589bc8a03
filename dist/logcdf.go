package dist

import "math"

// Log CDFs for censored data: log P(X ≤ x) and log P(X > x) of a family,
// with their partial derivatives, as kernels like the densities' (censored
// survival times, detection limits, counts reported as "k or more"). Each
// keeps its digits far out in the tail it computes, where 1 − CDF rounds to
// 0, so a censoring point 40 standard deviations out still has a finite log
// probability and gradient.

// LogCDF returns the kernel of log P(X ≤ x) (upper false) or log P(X > x)
// (upper true) of the family name, whose parameters are its density's, or
// ok false for a family without one. The kernel's value partial is that of
// the log probability in x (0 for a discrete family, whose x counts as the
// count ⌊x⌋). A parameter outside its support, or a NaN value, gives NaN,
// as the densities' kernels do; P = 0 beyond an end of the support (log
// −Inf, zero partials) is outside it, as a density there.
func LogCDF(name string, upper bool) (k Kernel, ok bool) {
	f, ok := logCDFs[name]
	u, known := LookupUnivariate(name)
	if !ok || !known {
		return nil, false
	}
	return func(x float64, p, dp []float64) (float64, float64) {
		for i, v := range p {
			if _, ok := u.Params[i].Support.Admits(v); !ok {
				return invalid(dp)
			}
		}
		switch {
		case math.IsNaN(x):
			return invalid(dp)
		case math.IsInf(x, 1): // P(X ≤ ∞) = 1, P(X > ∞) = 0
			return aboveSupport(dp, upper)
		case math.IsInf(x, -1):
			return belowSupport(dp, upper)
		}
		return f(x, p, dp, upper)
	}, true
}

// LogCDFNames lists the families LogCDF knows, in the order of the docs.
func LogCDFNames() []string {
	return []string{"Normal", "HalfNormal", "LogNormal", "Cauchy", "HalfCauchy", "StudentT", "Laplace",
		"Exponential", "Weibull", "Gamma", "InvGamma", "Beta", "BetaProportion", "Uniform",
		"Logistic", "Gumbel", "ChiSquare", "InvChiSquare", "ScaledInvChiSquare", "Rayleigh", "Pareto",
		"ParetoType2", "Frechet", "GEV", "GeneralizedPareto", "LogLogistic", "ExpModNormal", "SkewNormal",
		"VonMises", "SkewDoubleExponential", "Wald", "Kumaraswamy", "LogitNormal", "AsymmetricLaplace", "Moyal", "Poisson", "PoissonLog", "Bernoulli", "BernoulliLogit", "Binomial", "BinomialLogit", "BetaBinomial",
		"NegBinomial", "NegBinomialLog", "BetaNegBinomial",
		"ZeroInflatedPoisson", "ZeroInflatedNegBinomial", "HurdlePoisson", "HurdleNegBinomial",
		"ZeroInflatedBinomial", "HurdleGamma", "HurdleLogNormal",
		"Geometric", "DiscreteUniform", "DiscreteWeibull"}
}

// logCDF is a family's log CDF (upper false) or log survival function
// (upper true) at x, with the parameter partials in dp and the value
// partial returned.
type logCDF func(x float64, p, dp []float64, upper bool) (lp, dx float64)

var logCDFs = map[string]logCDF{
	"Normal":      normalLogCDF,
	"LogNormal":   logNormalLogCDF,
	"Cauchy":      cauchyLogCDF,
	"Laplace":     laplaceLogCDF,
	"Exponential": exponentialLogCDF,
	"Weibull":     weibullLogCDF,
	"Gamma":       gammaLogCDFKernel,
	"Poisson":     poissonLogCDF,

	// logcdf_more.go
	"HalfNormal":     halfNormalLogCDF,
	"HalfCauchy":     halfCauchyLogCDF,
	"StudentT":       studentTLogCDF,
	"InvGamma":       invGammaLogCDF,
	"Beta":           betaLogCDF,
	"BetaProportion": betaPropLogCDF,
	"Uniform":        uniformLogCDF,
	"PoissonLog":     poissonLogLogCDF,
	"Bernoulli":      bernoulliLogCDF,
	"BernoulliLogit": bernoulliLogitLogCDF,
	"Binomial":       binomialLogCDF,
	"BinomialLogit":  binomialLogitLogCDF,
	"BetaBinomial":   betaBinomialLogCDF,
	"NegBinomial":    negBinomialLogCDF,
	"NegBinomialLog": negBinomialLogLogCDF,

	"BetaNegBinomial": betaNegBinomialLogCDF, // betanegbinomial_cdf.go

	"Geometric":       geometricLogCDF,       // geometric.go
	"DiscreteUniform": discreteUniformLogCDF, // discreteuniform.go
	"DiscreteWeibull": discreteWeibullLogCDF, // discreteweibull.go

	// logistic.go, chisquare.go, pareto.go, frechet.go
	"Logistic":              logisticLogCDF,
	"Gumbel":                gumbelLogCDF,
	"ChiSquare":             chiSquareLogCDF,
	"InvChiSquare":          invChiSquareLogCDF,
	"ScaledInvChiSquare":    scaledInvChiSquareLogCDF,
	"Rayleigh":              rayleighLogCDF,
	"Pareto":                paretoLogCDF,
	"ParetoType2":           paretoType2LogCDF,
	"Frechet":               frechetLogCDF,
	"GEV":                   gevLogCDF,               // gev.go
	"GeneralizedPareto":     generalizedParetoLogCDF, // gev.go
	"LogLogistic":           logLogisticLogCDF,
	"ExpModNormal":          expModNormalLogCDF,  // expmodnormal.go
	"SkewNormal":            skewNormalLogCDF,    // skewnormal_cdf.go
	"VonMises":              vonMisesLogCDF,      // vonmises_cdf.go
	"SkewDoubleExponential": skewDoubleExpLogCDF, // skewdoubleexp.go
	"Wald":                  waldLogCDF,          // wald.go
	"Kumaraswamy":           kumaraswamyLogCDF,   // kumaraswamy.go
	"LogitNormal":           logitNormalLogCDF,   // logitnormal.go
	"AsymmetricLaplace":     asymLaplaceLogCDF,   // asymlaplace.go
	"Moyal":                 moyalLogCDF,         // moyal.go

	// zeroinflated_more.go
	"ZeroInflatedPoisson":     zeroInflatedLogCDF(poissonLogCDF),
	"ZeroInflatedNegBinomial": zeroInflatedLogCDF(negBinomialLogCDF),
	"ZeroInflatedBinomial":    zeroInflatedLogCDF(binomialLogCDF),
	"HurdlePoisson":           hurdleLogCDF(poissonLogCDF),
	"HurdleNegBinomial":       hurdleLogCDF(negBinomialLogCDF),
	"HurdleGamma":             hurdleLogCDF(gammaLogCDFKernel),
	"HurdleLogNormal":         hurdleLogCDF(logNormalLogCDF),
}

// NormalLogSurvival returns log P(Z > z) for a standard normal Z: from
// erfc up to z = 35, past which erfc nears underflow, and from Laplace's
// continued fraction P(Z > z) = φ(z)/(z + 1/(z + 2/(z + 3/(z + …)))) there.
func NormalLogSurvival(z float64) float64 {
	lq, _ := normalTail(z)
	return lq
}

// normalTail returns log P(Z > z) and the hazard φ(z)/P(Z > z), its
// derivative's negative. Past z = 35 the hazard is the continued fraction
// itself, so it does not come from two logs of about z²/2 that cancel.
func normalTail(z float64) (lq, h float64) {
	const lnSqrt2Pi = 0.91893853320467274178 // log √(2π)
	switch {
	case math.IsNaN(z):
		return z, z
	case z < 0:
		lq = math.Log1p(-0.5 * math.Erfc(-z/math.Sqrt2))
		return lq, math.Exp(-0.5*z*z - lnSqrt2Pi - lq)
	case z < 35:
		lq = math.Log(0.5 * math.Erfc(z/math.Sqrt2))
		return lq, math.Exp(-0.5*z*z - lnSqrt2Pi - lq)
	case math.IsInf(z, 1):
		return math.Inf(-1), z
	}
	cf := z // the fraction from its 40th level up; at z ≥ 35 ten would do
	for k := 40; k >= 1; k-- {
		cf = z + float64(k)/cf
	}
	return -0.5*z*z - lnSqrt2Pi - math.Log(cf), cf
}

// locScale returns the log probability lp = log P(W > w) of a
// location-scale family at w = sgn·(x − mu)/sigma (sgn +1 for the upper
// tail, −1 for the lower), and fills dp with the partials in mu and sigma
// from g = d lp/dw by the chain rule; the value partial is returned, scaled
// by dwdx (1/x for a family on log x).
func locScale(w, sgn, sigma, dwdx float64, dp []float64, lp, g float64) (float64, float64) {
	dp[0] = -g * sgn / sigma
	dp[1] = -g * w / sigma
	return lp, g * sgn / sigma * dwdx
}

func normalLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	sgn := sign(upper)
	w := sgn * (x - p[0]) / p[1]
	lq, h := normalTail(w)
	return locScale(w, sgn, p[1], 1, dp, lq, -h)
}

func logNormalLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	if x <= 0 {
		return belowSupport(dp, upper)
	}
	sgn := sign(upper)
	w := sgn * (math.Log(x) - p[0]) / p[1]
	lq, h := normalTail(w)
	return locScale(w, sgn, p[1], 1/x, dp, lq, -h)
}

func cauchyLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	sgn := sign(upper)
	w := sgn * (x - p[0]) / p[1]
	// P(W > w) = atan2(1, w)/π, which keeps its digits as w → ∞ (≈ 1/(πw));
	// below 0 it is 1 − atan2(1, −w)/π, through log1p as w → −∞.
	t := math.Atan2(1, w)
	lp := math.Log(t / math.Pi)
	if w < 0 {
		lp = math.Log1p(-math.Atan2(1, -w) / math.Pi)
	}
	return locScale(w, sgn, p[1], 1, dp, lp, -1/((1+w*w)*t))
}

func laplaceLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	sgn := sign(upper)
	w := sgn * (x - p[0]) / p[1]
	if w >= 0 { // P(W > w) = e^(−w)/2
		return locScale(w, sgn, p[1], 1, dp, -math.Ln2-w, -1)
	}
	e := 0.5 * math.Exp(w) // P(W > w) = 1 − e^w/2
	return locScale(w, sgn, p[1], 1, dp, math.Log1p(-e), -e/(1-e))
}

// survivalOf returns log P and d log P/dt for P = e^(−t) (upper) or
// P = 1 − e^(−t) (lower), t ≥ 0: the exponential and Weibull families.
func survivalOf(t float64, upper bool) (lp, g float64) {
	if upper {
		return -t, -1
	}
	return Log1mexp(t), 1 / math.Expm1(t)
}

func exponentialLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	if x <= 0 {
		return belowSupport(dp, upper)
	}
	lp, g := survivalOf(p[0]*x, upper)
	dp[0] = g * x
	return lp, g * p[0]
}

func weibullLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	if x <= 0 {
		return belowSupport(dp, upper)
	}
	k, s := p[0], p[1]
	lr := math.Log(x / s)
	t := math.Exp(k * lr) // (x/s)^k
	lp, g := survivalOf(t, upper)
	dp[0] = g * t * lr
	dp[1] = -g * k * t / s
	return lp, g * k * t / x
}

// gammaLogCDFKernel is Gamma(shape a, rate b): log P(a, bx) or log Q(a, bx).
// The shape partial comes from the branch that holds the smaller of P and
// Q to full relative accuracy, the series for P or the continued fraction
// for Q (gamma_grad.go), and from ∂P/∂a divided by the other, which is
// then at least about 0.3.
func gammaLogCDFKernel(x float64, p, dp []float64, upper bool) (float64, float64) {
	if x <= 0 {
		return belowSupport(dp, upper)
	}
	a, b := p[0], p[1]
	y := b * x
	switch { // b·x overflowed or underflowed
	case math.IsInf(y, 1):
		return aboveSupport(dp, upper)
	case y == 0:
		return belowSupport(dp, upper)
	}
	ly := logx(y)
	lga, lga1 := lgammaPair(a)
	// d log P/d log y = y·p(y)/P, with the opposite sign for Q, from the
	// branch that computed P or Q: a/S or 1/C, not a difference of y and
	// log Q, which are both 1e10 at y = 1e10.
	lp, gl := gammaLogCDF(a, ly, !upper, lga, lga1)
	if upper && a < 1 && y <= 1 {
		// Q from its alternating series keeps only its absolute digits
		// where it is near 1 (log Q(0.5, 3e-10) = −1.95e-5); there it is
		// 1 − P from P's series.
		if lP, _ := gammaLogCDF(a, ly, true, lga, lga1); lP < -math.Ln2 {
			lp = Log1mexp(-lP)
		}
	}
	gy := gl / y
	dp[1] = gy * x
	var ga float64
	switch series := useGammaSeries(a, y); {
	case series && !upper:
		s, ds, _ := gammaSeriesD(a, y)
		ga = ly - Digamma(a+1) + ds/s
	case !series && upper:
		l := ly - Digamma(a)
		f, df, _ := gammaCFD(a, y, l)
		ga = l - df/f
	default: // the other side's function is not small
		ga = GammaDPDA(a, y) / math.Exp(lp)
		if upper {
			ga = -ga
		}
	}
	dp[0] = ga
	return lp, gy * b
}

// poissonLogCDF is P(Y ≤ k) = Q(k+1, rate) or P(Y > k) = P(k+1, rate) for
// the count k = x; d/d rate is ∓ the mass at k over it.
func poissonLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	if x < 0 {
		return belowSupport(dp, upper)
	}
	k, r := math.Floor(x), p[0]
	if r == 0 { // all mass at 0: P(X ≤ x) = 1, whose log's right derivative is −1 at k = 0
		if upper {
			return outside(dp)
		}
		dp[0] = 0
		if k == 0 {
			dp[0] = -1
		}
		return 0, 0
	}
	lp := GammaLogCDF(k+1, r, !upper)
	lk, _ := math.Lgamma(k + 1)
	g := math.Exp(k*math.Log(r) - r - lk - lp)
	if !upper {
		g = -g
	}
	dp[0] = g
	return lp, 0
}

// aboveSupport is a value at or above the top of the support, or +Inf:
// P(X ≤ x) = 1 and P(X > x) = 0 (outside, as a density there).
func aboveSupport(dp []float64, upper bool) (float64, float64) {
	if upper {
		return outside(dp)
	}
	clear(dp)
	return 0, 0
}

// belowSupport is a value below the support: P(X ≤ x) = 0 (outside, as a
// density there) and P(X > x) = 1.
func belowSupport(dp []float64, upper bool) (float64, float64) {
	if !upper {
		return outside(dp)
	}
	clear(dp)
	return 0, 0
}

func sign(upper bool) float64 {
	if upper {
		return 1
	}
	return -1
}
