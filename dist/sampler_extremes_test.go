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
