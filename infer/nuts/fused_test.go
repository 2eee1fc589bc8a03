package nuts

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// The fused leapfrog step and tree leaf (diagonal and unit metrics) give
// the plain path's chain bit for bit: draws, lp__, accept_stat__, energy,
// tree depths, divergences, the adapted step size and metric, on Neal's
// funnel (divergences, deep trees) and on a normal with scales over three
// orders of magnitude (a metric far from the identity).
func TestFusedLeapfrog(t *testing.T) {
	sd := []float64{0.01, 0.3, 1, 4, 10}
	for _, c := range []struct {
		name string
		dens Density
		d    int
	}{{"funnel", funnel{}, 10}, {"normal", diagNormal{sd}, len(sd)}} {
		for _, metric := range []Metric{DiagE, UnitE} {
			t.Run(c.name+"/"+metric.String(), func(t *testing.T) {
				s := Settings{Warmup: 300, Draws: 200, Metric: metric, Seed: 9}.withDefaults()
				x0 := make([]float64, c.d)
				for i := range x0 {
					x0[i] = 0.3 - 0.1*float64(i)
				}
				var out [2]Chain
				for k, fused := range []bool{true, false} {
					ch := newChain(c.dens, x0, s, rand.New(rand.NewPCG(s.Seed, stream(0))))
					if !ch.fused {
						t.Fatalf("a %v chain does not take the fused path", metric)
					}
					ch.fused = fused
					ch.run(context.Background(), 0, &out[k])
				}
				f, p := &out[0], &out[1]
				same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
				if !same(f.StepSize, p.StepSize) {
					t.Errorf("step size: fused %v, plain %v", f.StepSize, p.StepSize)
				}
				for i := range f.InvMetric {
					if !same(f.InvMetric[i], p.InvMetric[i]) {
						t.Fatalf("inverse metric %d: fused %v, plain %v", i, f.InvMetric[i], p.InvMetric[i])
					}
				}
				div := 0
				for i := range f.LogP {
					if !same(f.LogP[i], p.LogP[i]) || !same(f.Accept[i], p.Accept[i]) || !same(f.Energy[i], p.Energy[i]) ||
						f.Depth[i] != p.Depth[i] || f.Leapfrogs[i] != p.Leapfrogs[i] || f.Divergent[i] != p.Divergent[i] {
						t.Fatalf("draw %d: fused lp %v accept %v energy %v depth %d, plain %v %v %v %d", i,
							f.LogP[i], f.Accept[i], f.Energy[i], f.Depth[i], p.LogP[i], p.Accept[i], p.Energy[i], p.Depth[i])
					}
					if f.Divergent[i] {
						div++
					}
				}
				for i := range f.Draws {
					if !same(f.Draws[i], p.Draws[i]) {
						t.Fatalf("draw coordinate %d: fused %v, plain %v", i, f.Draws[i], p.Draws[i])
					}
				}
				t.Logf("%d divergences", div)
			})
		}
	}
}
