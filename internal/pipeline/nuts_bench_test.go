package pipeline_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// The cost of NUTS on the bundled models of the vi-nuts experiment, as gpp
// sample runs them (docs/performance.md, "The NUTS sampler's own cost"):
// per gradient of the unconstrained density, and per gradient of a short
// NUTS chain, the sampler's own part apart; each also in CPU time, which a
// shared machine's load moves less than wall time. Run with
//
//	go test -run '^$' -bench 'NUTSGradient|NUTSChain' ./internal/pipeline/

// nutsModels are the models of the vi-nuts experiment that
// docs/results/vi_nuts.md found slow to sample.
var nutsModels = []struct {
	name, model string
	data        []string
}{
	{"cultivar", "cultivar.gpp", []string{"wine_std.csv", "cultivar=../../examples/wine_cultivar.csv"}},
	{"survival", "survival.gpp", []string{"survival.csv"}},
	{"sv", "sv.gpp", []string{"sv.csv"}},
	{"varying", "varying.gpp", []string{"varying.csv"}},
}

// nutsStart returns the unconstrained density of the model through t and
// chain 0's random start of gpp sample --seed 2.
func nutsStart(b *testing.B, t sgvb.Target, lat []sgvb.Latent) (*sgvb.Unconstrained, []float64) {
	u, err := sgvb.NewUnconstrained(t, lat)
	if err != nil {
		b.Fatal(err)
	}
	x := make([]float64, u.Dim())
	if err := u.Init(rand.New(rand.NewPCG(2, 0x696e697473212121)), x); err != nil {
		b.Fatal(err)
	}
	return u, x
}

// BenchmarkNUTSGradient is one gradient of the unconstrained density at a
// chain's start.
func BenchmarkNUTSGradient(b *testing.B) {
	for _, m := range nutsModels {
		l := loadExample(&testing.T{}, m.model, m.data, nil)
		b.Run(m.name, func(b *testing.B) {
			u, x := nutsStart(b, pipeline.Target{M: l.Model}, pipeline.Latents(l.Model))
			g := make([]float64, len(x))
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				if _, err := u.LogDensity(x, g); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// gradCounter counts the gradients a chain takes.
type gradCounter struct {
	d *sgvb.Unconstrained
	n int
}

func (c *gradCounter) LogDensity(x, g []float64) (float64, error) {
	c.n++
	return c.d.LogDensity(x, g)
}

// BenchmarkNUTSChain runs one chain of 150 warm-up and 100 kept iterations
// (seed 2) and reports the time per gradient and the
// sampler's own part of it (the chain's time less that of its gradients,
// timed again at the start point).
func BenchmarkNUTSChain(b *testing.B) {
	for _, m := range nutsModels {
		l := loadExample(&testing.T{}, m.model, m.data, nil)
		b.Run(m.name, func(b *testing.B) {
			u, x := nutsStart(b, pipeline.Target{M: l.Model}, pipeline.Latents(l.Model))
			s := nuts.Settings{Chains: 1, Warmup: 150, Draws: 100, Seed: 2}
			grads := 0
			var chain time.Duration
			cpu0 := cpuTime()
			for b.Loop() {
				c := &gradCounter{d: u}
				t0 := time.Now()
				if _, err := nuts.Sample(context.Background(), []nuts.Density{c}, [][]float64{x}, s); err != nil {
					b.Fatal(err)
				}
				chain += time.Since(t0)
				grads += c.n
			}
			cpu := cpuTime() - cpu0
			g := make([]float64, len(x))
			cpu0 = cpuTime()
			for range grads {
				u.LogDensity(x, g)
			}
			dens := cpuTime() - cpu0
			b.ReportMetric(float64(grads)/float64(b.N), "grads/op")
			b.ReportMetric(float64(chain.Nanoseconds())/float64(grads), "ns/grad")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(grads), "cpu-ns/grad")
			b.ReportMetric(float64((cpu-dens).Nanoseconds())/float64(grads), "overhead-cpu-ns/grad")
		})
	}
}
