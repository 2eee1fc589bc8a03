package bridge

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// BenchmarkEstimate estimates the evidence of a 20-dimensional normal with
// independent coordinates from 4 chains of 1000 independent draws: 2000
// proposal draws through the cheap log density, the bulk ESS of 20
// coordinates and the iteration. The figure is the method's own cost.
func BenchmarkEstimate(b *testing.B) { benchmarkEstimate(b, Normal) }

// BenchmarkEstimateWarp3 is BenchmarkEstimate by warp3: 2000 more log
// density calls at the posterior draws' reflections and 2000 at the
// proposal draws'.
func BenchmarkEstimateWarp3(b *testing.B) { benchmarkEstimate(b, Warp3) }

func benchmarkEstimate(b *testing.B, m Method) {
	const dim, nc, n = 20, 4, 1000
	sd := make([]float64, dim)
	logC := 0.0
	for k := range sd {
		sd[k] = 1 + 0.1*float64(k)
		logC -= 0.5*math.Log(2*math.Pi) + math.Log(sd[k])
	}
	logp := func(x []float64) (float64, error) {
		lp := logC
		for k, v := range x {
			lp -= 0.5 * (v / sd[k]) * (v / sd[k])
		}
		return lp, nil
	}
	rng := rand.New(rand.NewPCG(1, 2))
	chains := make([]Chain, nc)
	for c := range chains {
		chains[c] = Chain{Draws: make([]float64, n*dim), LogP: make([]float64, n)}
		for i := 0; i < n; i++ {
			x := chains[c].Draws[i*dim : (i+1)*dim]
			for k := range x {
				x[k] = sd[k] * rng.NormFloat64()
			}
			chains[c].LogP[i], _ = logp(x)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		r, err := Estimate(context.Background(), chains, dim, logp, Settings{Seed: 1, Method: m})
		if err != nil {
			b.Fatal(err)
		}
		if math.Abs(r.LogZ) > 4*r.SE {
			b.Fatalf("log Ẑ = %v, truth 0, SE %v", r.LogZ, r.SE)
		}
	}
}
