package autodiff

import (
	"math"

	"github.com/gpplang/gpp/dist"
)

// Test kernels: the dist package provides the real ones.

var testNormal = dist.Univariate{
	Name:    "Normal",
	Params:  []dist.Param{{Name: "mu", Support: dist.Real}, {Name: "sigma", Support: dist.Positive}},
	Support: dist.Real,
	Kernel:  normalKernel,
}

var testGamma = dist.Univariate{
	Name:    "Gamma",
	Params:  []dist.Param{{Name: "shape", Support: dist.Positive}, {Name: "rate", Support: dist.Positive}},
	Support: dist.Positive,
	Kernel:  gammaKernel,
}

func normalKernel(x float64, p, dp []float64) (float64, float64) {
	mu, sigma := p[0], p[1]
	if !(sigma > 0) {
		dp[0], dp[1] = math.NaN(), math.NaN()
		return math.NaN(), math.NaN()
	}
	z := (x - mu) / sigma
	dp[0] = z / sigma
	dp[1] = (z*z - 1) / sigma
	return -0.5*log2Pi - math.Log(sigma) - 0.5*z*z, -z / sigma
}

func gammaKernel(x float64, p, dp []float64) (float64, float64) {
	a, b := p[0], p[1]
	if !(a > 0) || !(b > 0) {
		dp[0], dp[1] = math.NaN(), math.NaN()
		return math.NaN(), math.NaN()
	}
	if !(x > 0) {
		dp[0], dp[1] = 0, 0
		return math.Inf(-1), 0
	}
	lga, _ := math.Lgamma(a)
	lx, lb := math.Log(x), math.Log(b)
	dp[0] = lb - digamma(a) + lx
	dp[1] = a/b - x
	return a*lb - lga + (a-1)*lx - b*x, (a-1)/x - b
}

// gammaPrepared is the prepared form of gammaKernel: state is
// [valid, a log b - lgamma(a), log b - digamma(a), a/b].
type gammaPrepared struct{}

func (gammaPrepared) StateLen() int { return 4 }

func (gammaPrepared) Prepare(p, s []float64) {
	a, b := p[0], p[1]
	if !(a > 0) || !(b > 0) {
		s[0] = 0
		return
	}
	lga, _ := math.Lgamma(a)
	lb := math.Log(b)
	s[0], s[1], s[2], s[3] = 1, a*lb-lga, lb-digamma(a), a/b
}

func (gammaPrepared) Eval(x float64, p, s, dp []float64) (float64, float64) {
	if s[0] == 0 {
		dp[0], dp[1] = math.NaN(), math.NaN()
		return math.NaN(), math.NaN()
	}
	if !(x > 0) {
		dp[0], dp[1] = 0, 0
		return math.Inf(-1), 0
	}
	a, b := p[0], p[1]
	lx := math.Log(x)
	dp[0] = s[2] + lx
	dp[1] = s[3] - x
	return s[1] + (a-1)*lx - b*x, (a-1)/x - b
}

// testGammaLog is Gamma evaluated at l = log x (as dist.LogScale makes it):
// log p(x), d/dl, d/d(shape, rate).
var testGammaLog = dist.Univariate{
	Name:    "Gamma",
	Params:  testGamma.Params,
	Support: dist.Real,
	Kernel: func(l float64, p, dp []float64) (float64, float64) {
		x := math.Exp(l)
		lp, dx := gammaKernel(x, p, dp)
		return lp, dx * x
	},
}

// gammaLogPrepared is the prepared form of testGammaLog, with EvalLog.
type gammaLogPrepared struct{}

func (gammaLogPrepared) StateLen() int          { return 4 }
func (gammaLogPrepared) Prepare(p, s []float64) { gammaPrepared{}.Prepare(p, s) }

func (k gammaLogPrepared) Eval(l float64, p, s, dp []float64) (float64, float64) {
	return k.EvalLog(l, math.Exp(l), p, s, dp)
}

func (gammaLogPrepared) EvalLog(l, x float64, p, s, dp []float64) (float64, float64) {
	lp, dx := gammaPrepared{}.Eval(x, p, s, dp)
	return lp, dx * x
}
