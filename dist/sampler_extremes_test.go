package dist

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestDiscreteSamplersLargeMeans checks the mean and the variance of the
// Poisson (PTRS) and binomial (BTRS) samplers within mcSE standard errors
// at means up to 1e18, where the acceptance test's log mass is a small
// difference of terms of size mean·log(mean). The draws are standardised
// by the exact mean and standard deviation before the moments are taken.
func TestDiscreteSamplersLargeMeans(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	z := make([]float64, momentDraws)
	check := func(name string, mean, sd float64, draw func() float64) {
		t.Helper()
		for i := range z {
			z[i] = (draw() - mean) / sd
		}
		checkMean(t, name+" mean", z, 0)
		checkVariance(t, name+" variance", z, 1)
	}
	for _, lam := range []float64{1e6, 1e9, 1e12, 1e15, 1e16, 1e17, 1e18} {
		check(fmt.Sprintf("Poisson(%g)", lam), lam, math.Sqrt(lam), func() float64 { return samplePoisson(lam, rng) })
	}
	for _, c := range []struct{ n, p float64 }{
		{1e9, 0.3}, {1e12, 0.3}, {1e15, 0.3}, {1e16, 0.3}, {1e17, 0.3}, {1e18, 0.5}, {1e17, 1e-15}, {1e16, 0.999},
	} {
		mean := c.n * c.p
		sd := math.Sqrt(c.n * c.p * (1 - c.p))
		check(fmt.Sprintf("Binomial(%g, %g)", c.n, c.p), mean, sd, func() float64 { return sampleBinomial(c.n, c.p, rng) })
	}
}

// TestSamplersExtremeParameters draws from each sampler at extreme valid
// parameters: no draw may be NaN, and a draw may be infinite only where
// the distribution puts mass beyond the largest float64 (overflow true to
// the distribution). The test finishing at all shows that no rejection
// loop runs forever there.
func TestSamplersExtremeParameters(t *testing.T) {
	const draws = 2000
	big := math.MaxFloat64
	rng := rand.New(rand.NewPCG(33, 34))
	for _, c := range []struct {
		name     string
		d        interface{ Rand(*rand.Rand) float64 }
		overflow bool // draws beyond MaxFloat64 have positive probability
	}{
		{"Poisson(1e-300)", Poisson{1e-300}, false},
		{"Poisson(9.999999)", Poisson{9.999999}, false},
		{"Poisson(1e300)", Poisson{1e300}, false},
		{"Poisson(MaxFloat64)", Poisson{big}, false},
		{"Binomial(1e300, 0.5)", Binomial{1e300, 0.5}, false},
		{"Binomial(MaxFloat64, 0.5)", Binomial{big, 0.5}, false},
		{"Binomial(1e300, 1e-299)", Binomial{1e300, 1e-299}, false},
		{"Binomial(1e17, 1e-16)", Binomial{1e17, 1e-16}, false},
		{"Binomial(1, 1e-300)", Binomial{1, 1e-300}, false},
		{"Binomial(1e9, 1-1e-12)", Binomial{1e9, 1 - 1e-12}, false},
		{"NegBinomial(1e300, 1e-3)", NegBinomial{1e300, 1e-3}, true},
		{"NegBinomial(5, 1e300)", NegBinomial{5, 1e300}, false},
		{"NegBinomial(1e308, 1)", NegBinomial{1e308, 1}, true},
		{"NegBinomial(MaxFloat64, MaxFloat64)", NegBinomial{big, big}, true},
		{"NegBinomialLog(-800, 2)", NegBinomialLog{-800, 2}, false},
		{"NegBinomialLog(700, 1e-3)", NegBinomialLog{700, 1e-3}, true},
		{"NegBinomialLog(800, 1)", NegBinomialLog{800, 1}, true},
		{"NegBinomialLog(3, 1e300)", NegBinomialLog{3, 1e300}, false},
		{"BetaBinomial(1e300, 1e-300, 1e-300)", BetaBinomial{1e300, 1e-300, 1e-300}, false},
		{"BetaBinomial(1e17, 1e300, 1e300)", BetaBinomial{1e17, 1e300, 1e300}, false},
		{"BetaBinomial(MaxFloat64, 0.5, 0.5)", BetaBinomial{big, 0.5, 0.5}, false},
		{"Beta(1e-300, 1e-300)", Beta{1e-300, 1e-300}, false},
		{"Beta(1e300, 1e300)", Beta{1e300, 1e300}, false},
		{"Beta(1e-300, 1e300)", Beta{1e-300, 1e300}, false},
		{"StudentT(1e-3, 0, 1)", StudentT{1e-3, 0, 1}, true},
		{"StudentT(MaxFloat64, 0, 1)", StudentT{big, 0, 1}, false},
		{"InvGamma(1e-3, 1)", InvGamma{1e-3, 1}, true},
		{"InvGamma(1e300, 1)", InvGamma{1e300, 1}, false},
		{"LogNormal(0, 1e3)", LogNormal{0, 1e3}, true},
		{"Gamma(2, 1e-300)", Gamma{2, 1e-300}, false},
		{"Exponential(1e-300)", Exponential{1e-300}, false},
		{"Normal(0, 1e300)", Normal{0, 1e300}, false},
		{"HalfNormal(1e300)", HalfNormal{1e300}, false},
		{"Cauchy(0, 1e300)", Cauchy{0, 1e300}, true},
		{"Laplace(0, 1e300)", Laplace{0, 1e300}, false},
		{"Weibull(1e-3, 1)", Weibull{1e-3, 1}, true},
		{"Weibull(1e-3, 1e-300)", Weibull{1e-3, 1e-300}, true},
		{"Weibull(1e3, 1e300)", Weibull{1e3, 1e300}, false},
		{"Weibull(MaxFloat64, 1)", Weibull{big, 1}, false},
		{"HalfCauchy(1e300)", HalfCauchy{1e300}, true},
		{"BernoulliLogit(-1e300)", BernoulliLogit{-1e300}, false},
		{"PoissonLog(-1e300)", PoissonLog{-1e300}, false},
		{"PoissonLog(-745)", PoissonLog{-745}, false},
		{"PoissonLog(709)", PoissonLog{709}, false},
		{"BinomialLogit(1e9, 1e300)", BinomialLogit{1e9, 1e300}, false},
		{"BinomialLogit(1e17, -36)", BinomialLogit{1e17, -36}, false},
		{"BinomialLogit(1e17, 36)", BinomialLogit{1e17, 36}, false},
		{"BinomialLogit(MaxFloat64, 0)", BinomialLogit{big, 0}, false},
		{"Uniform(-MaxFloat64, MaxFloat64)", Uniform{-big, big}, false},
		{"Bernoulli(1)", Bernoulli{1}, false},
	} {
		for range draws {
			v := c.d.Rand(rng)
			if math.IsNaN(v) || (math.IsInf(v, 0) && !c.overflow) {
				t.Errorf("%s: draw %v", c.name, v)
				break
			}
		}
	}
	for _, a := range [][]float64{{1e-300, 1e-300}, {1e300, 1e300, 1}, {1e-3, 1e-3, 1e-3}, {big, big}} {
		for range draws {
			x := Dirichlet{a}.Rand(nil, rng)
			var s float64
			for _, v := range x {
				s += v
				if !(v >= 0 && v <= 1) {
					t.Fatalf("Dirichlet(%v): draw %v", a, x)
				}
			}
			if math.Abs(s-1) > 1e-15*float64(len(x)) {
				t.Fatalf("Dirichlet(%v): draw %v sums to %v", a, x, s)
			}
		}
	}
}
