package dist

import "math"

// LogScale returns the family u evaluated at log x instead of x: its Kernel
// takes l = log x and returns log p(x) (the density of x, no Jacobian) and
// ∂ log p/∂l = x·∂ log p/∂x. The compiler uses it for the prior of a positive
// latent, whose coordinate is log x: the families with a density that
// diverges or vanishes at 0 (Gamma, Exponential, InvGamma, LogNormal,
// Weibull, HalfNormal, HalfCauchy) have exact log-space kernels, so a draw
// whose x underflows to 0 (gamma shapes far below 1) still has a finite log
// density and gradient (gamma_numerics.md §7). Other families are evaluated
// at x = exp(l).
func LogScale(u *Univariate) Univariate {
	v := *u
	v.LogArg = true
	v.Prepared = logPrepared[u.Name] // nil where there is none
	v.Hoisted = nil                  // the natural scale's
	v.DataHoisted = nil
	if k, ok := logKernels[u.Name]; ok {
		v.Kernel = k
		return v
	}
	kern := u.Kernel
	v.Kernel = func(l float64, p, dp []float64) (float64, float64) {
		x := math.Exp(l)
		lp, dx := kern(x, p, dp)
		return lp, dx * x
	}
	return v
}

// logKernels are the exact log-space kernels, by family name.
var logKernels = map[string]Kernel{
	"Gamma":       gammaLogKernel,
	"Exponential": exponentialLogKernel,
	"InvGamma":    invGammaLogKernel,
	"LogNormal":   logNormalLogKernel,
	"Weibull":     weibullLogKernel,
	"HalfNormal":  halfNormalLogKernel,
	"HalfCauchy":  halfCauchyLogKernel,
}

// logPrepared are the prepared forms of the log-space kernels, by name.
var logPrepared = map[string]Prepared{
	"Gamma": gammaLogPrepared{},
}

// badParams fills dp with NaN and returns NaN results, the convention for an
// invalid parameter.
func badParams(dp []float64) (float64, float64) {
	for i := range dp {
		dp[i] = math.NaN()
	}
	return math.NaN(), math.NaN()
}

func validScale(v float64) bool { return v > 0 && !math.IsInf(v, 1) }

// gammaLogKernel: Gamma(shape a, rate b) at x = e^l.
func gammaLogKernel(l float64, p, dp []float64) (float64, float64) {
	a, b := p[0], p[1]
	if !validScale(a) || !validScale(b) || math.IsNaN(l) {
		return badParams(dp)
	}
	x := math.Exp(l)
	if a >= gammaLoaderShape {
		return gammaLogLargeDP(a, b, l, x, dp), (a - 1) - b*x
	}
	lg, _ := math.Lgamma(a)
	logb := logx(b)
	if dp != nil {
		dp[0] = logb - Digamma(a) + l
		dp[1] = a/b - x
	}
	return a*logb - lg + (a-1)*l - b*x, (a - 1) - b*x
}

// exponentialLogKernel: Exponential(rate) at x = e^l.
func exponentialLogKernel(l float64, p, dp []float64) (float64, float64) {
	r := p[0]
	if !validScale(r) || math.IsNaN(l) {
		return badParams(dp)
	}
	x := math.Exp(l)
	if dp != nil {
		dp[0] = 1/r - x
	}
	return logx(r) - r*x, -r * x
}

// invGammaLogKernel: InvGamma(shape a, scale s) at x = e^l.
func invGammaLogKernel(l float64, p, dp []float64) (float64, float64) {
	a, s := p[0], p[1]
	if !validScale(a) || !validScale(s) || math.IsNaN(l) {
		return badParams(dp)
	}
	ix := math.Exp(-l) // 1/x
	if a >= gammaLoaderShape {
		return invGammaLogLarge(a, s, l, math.Exp(l), dp), -(a + 1) + s*ix
	}
	lg, _ := math.Lgamma(a)
	logs := logx(s)
	if dp != nil {
		dp[0] = logs - Digamma(a) - l
		dp[1] = a/s - ix
	}
	return a*logs - lg - (a+1)*l - s*ix, -(a + 1) + s*ix
}

// logNormalLogKernel: LogNormal(mu, sigma) at x = e^l.
func logNormalLogKernel(l float64, p, dp []float64) (float64, float64) {
	mu, sigma := p[0], p[1]
	if !validScale(sigma) || math.IsNaN(mu) || math.IsInf(mu, 0) || math.IsNaN(l) {
		return badParams(dp)
	}
	z := (l - mu) / sigma
	if dp != nil {
		dp[0] = z / sigma
		dp[1] = (z*z - 1) / sigma
	}
	return -l - logx(sigma) - 0.5*log2Pi - 0.5*z*z, -1 - z/sigma
}

// weibullLogKernel: Weibull(shape alpha, scale sigma) at x = e^l. Its log
// density is a function of log x already, so it stays exact where x
// underflows (alpha < 1 puts mass there).
func weibullLogKernel(l float64, p, dp []float64) (float64, float64) {
	alpha, sigma := p[0], p[1]
	if !validScale(alpha) || !validScale(sigma) || math.IsNaN(l) {
		return badParams(dp)
	}
	return weibullCore(l-logx(sigma), alpha, sigma, dp)
}

// halfNormalLogKernel: HalfNormal(sigma) at x = e^l.
func halfNormalLogKernel(l float64, p, dp []float64) (float64, float64) {
	sigma := p[0]
	if !validScale(sigma) || math.IsNaN(l) {
		return badParams(dp)
	}
	x := math.Exp(l)
	z := x / sigma
	if dp != nil {
		dp[0] = (z*z - 1) / sigma
	}
	return 0.5*logx(2/math.Pi) - logx(sigma) - 0.5*z*z, -z * z
}

// halfCauchyLogKernel: HalfCauchy(sigma) at x = e^l.
func halfCauchyLogKernel(l float64, p, dp []float64) (float64, float64) {
	sigma := p[0]
	if !validScale(sigma) || math.IsNaN(l) {
		return badParams(dp)
	}
	x := math.Exp(l)
	z := x / sigma
	q := z * z / (1 + z*z)
	if dp != nil {
		dp[0] = (2*q - 1) / sigma
	}
	return logx(2/math.Pi) - logx(sigma) - math.Log1p(z*z), -2 * q
}

// log2Pi is log(2π).
const log2Pi = 1.837877066409345483560659472811235279722794947275566825634
