package nuts

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// ar1Chains returns m chains of n draws of the AR(1) series
// y_t = rho·y_{t−1} + e_t, e_t ~ N(0, 1), from its stationary law.
func ar1Chains(m, n int, rho float64, seed uint64) [][]float64 {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([][]float64, m)
	sd := 1 / (1 - rho*rho)
	for c := range out {
		y := r.NormFloat64() * sd
		out[c] = make([]float64, n)
		for i := range out[c] {
			y = rho*y + r.NormFloat64()
			out[c][i] = y
		}
	}
	return out
}

// BenchmarkDiagnostics times the diagnostics of one quantity (R̂, bulk
// and tail ESS, the MCSE of the mean, sd and quantiles, the MAD) by
// Diagnose, as gpp sample computes them for each column, on 4 chains of a strongly autocorrelated AR(1)
// series (ρ = 0.99, τ ≈ 200: Geyer's sequence runs to a lag of several
// hundred).
func BenchmarkDiagnostics(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		x := ar1Chains(4, n, 0.99, 1)
		b.Run(fmt.Sprintf("4x%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				d := Diagnose(x)
				sink += d.Rhat + d.ESSBulk + d.ESSTail + d.MCSEMean + d.MCSESD + d.MCSEQuantile[1] + d.MAD
			}
		})
	}
}

// BenchmarkESS times the plain ESS (the autocovariances and Geyer's
// sequence alone) on the series of BenchmarkDiagnostics.
func BenchmarkESS(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		x := ar1Chains(4, n, 0.99, 1)
		b.Run(fmt.Sprintf("4x%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				sink += ESS(x)
			}
		})
	}
}
