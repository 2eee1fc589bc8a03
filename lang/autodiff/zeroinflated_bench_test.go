package autodiff

import (
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// BenchmarkCountMixtures times one Forward+Backward of a count likelihood
// over 2400 counts shaped like a user trial's homicide data (two thirds 0,
// the rest 1–16) with a mean per count and scalar psi and phi (and psi
// per count), for NegBinomial and the zero-inflated and hurdle families
// built on it and on Poisson; ns/elem is the time per count
// (docs/performance.md, Zero-inflated and hurdle counts).
func BenchmarkCountMixtures(b *testing.B) {
	const n = 2400
	r := rand.New(rand.NewPCG(5, 6))
	counts, means, psis := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range counts {
		if r.IntN(3) == 0 {
			counts[i] = float64(1 + min(r.IntN(4)*r.IntN(5), 15))
		}
		means[i] = 0.3 + 3*r.Float64()
		psis[i] = 0.4 + 0.5*r.Float64()
	}
	y := dhConst(Vector(n), counts)
	mu := dhIn(Vector(n), means)
	psi, phi := dhIn(Scalar(), []float64{0.65}), dhIn(Scalar(), []float64{1.65})
	for _, c := range []struct {
		name, family string
		ops          []dhOperand
	}{
		{"NegBinomial", "NegBinomial", []dhOperand{y, mu, phi}},
		{"ZeroInflatedNegBinomial", "ZeroInflatedNegBinomial", []dhOperand{y, psi, mu, phi}},
		{"ZeroInflatedNegBinomial-psi-per-count", "ZeroInflatedNegBinomial", []dhOperand{y, dhIn(Vector(n), psis), mu, phi}},
		{"HurdleNegBinomial", "HurdleNegBinomial", []dhOperand{y, psi, mu, phi}},
		{"Poisson", "Poisson", []dhOperand{y, mu}},
		{"ZeroInflatedPoisson", "ZeroInflatedPoisson", []dhOperand{y, psi, mu}},
		{"HurdlePoisson", "HurdlePoisson", []dhOperand{y, psi, mu}},
	} {
		u, _ := dist.LookupUnivariate(c.family)
		b.Run(c.name, func(b *testing.B) {
			p, _, x := buildDataCase(b, *u, c.ops, false)
			grad := make([]float64, len(x))
			for b.Loop() {
				if _, err := p.LogJoint(x, grad); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/elem")
		})
	}
}
