package nuts

import (
	"math/rand/v2"
	"testing"
	"time"
)

// sink keeps the benchmarked densities' values alive.
var sink float64

// counted counts the gradient evaluations of a Density.
type counted struct {
	Density
	n *int
}

func (c counted) LogDensity(x, g []float64) (float64, error) {
	*c.n++
	return c.Density.LogDensity(x, g)
}

// BenchmarkNUTS runs NUTS transitions on a 100-D standard normal (unit
// metric, step 0.3, ~15 gradients a transition) and reports the sampler's
// own time per gradient evaluation: the transition's time less the
// density's, measured on the same points.
func BenchmarkNUTS(b *testing.B) {
	const d = 100
	sd := make([]float64, d)
	x0 := make([]float64, d)
	for i := range sd {
		sd[i] = 1
		x0[i] = 0.1
	}
	n := 0
	dens := counted{diagNormal{sd}, &n}
	c := newChain(dens, x0, Settings{MaxDepth: 10, StepSize: 0.3, Metric: UnitE}, rand.New(rand.NewPCG(1, 2)))
	for i := 0; i < 100; i++ {
		c.transition()
	}
	n = 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.transition()
	}
	b.StopTimer()
	total := b.Elapsed()
	grads := n
	// The density alone, as many times.
	g := make([]float64, d)
	t0 := time.Now()
	for i := 0; i < grads; i++ {
		v, _ := diagNormal{sd}.LogDensity(c.z.q, g)
		sink += v
	}
	dens0 := time.Since(t0)
	b.ReportMetric(float64(grads)/float64(b.N), "grads/op")
	b.ReportMetric(float64(total.Nanoseconds())/float64(grads), "ns/grad")
	b.ReportMetric(float64((total-dens0).Nanoseconds())/float64(grads), "overhead-ns/grad")
}

// BenchmarkDensity100 is the density of BenchmarkNUTS alone.
func BenchmarkDensity100(b *testing.B) {
	const d = 100
	sd := make([]float64, d)
	x := make([]float64, d)
	for i := range sd {
		sd[i] = 1
		x[i] = 0.1
	}
	g := make([]float64, d)
	for i := 0; i < b.N; i++ {
		v, _ := diagNormal{sd}.LogDensity(x, g)
		sink += v
	}
}
