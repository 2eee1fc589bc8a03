package pipeline_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// BenchmarkPMFFit times SGVB steps of examples/pmf.gpp on the bundled digits
// and mask (300 images × 64 pixels, K = 10), as examples/README.md fits it:
// the default settings (two workers, the ELBO monitor every 100 steps) but
// for a fixed number of steps and no convergence test. It runs fits of 200
// and 1200 steps and reports their difference per step: ms/step and
// allocs/step (0: a step allocates nothing). See docs/performance.md.
func BenchmarkPMFFit(b *testing.B) {
	l, err := pipeline.Load("../../examples/pmf.gpp", []string{pmfCounts, "train=" + pmfMask}, nil)
	if err != nil {
		b.Fatal(err)
	}
	fit := func(iters int) (time.Duration, uint64) {
		s := sgvb.Settings{Seed: 1, MaxIter: iters, Tol: -1, PSISDraws: -1}
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		t0 := time.Now()
		r, err := sgvb.Fit(context.Background(), pipeline.Target{M: l.Model}, pipeline.Latents(l.Model), s)
		dt := time.Since(t0)
		runtime.ReadMemStats(&m1)
		if err != nil {
			b.Fatal(err)
		}
		if r.Iterations != iters {
			b.Fatalf("fit ran %d iterations, want %d", r.Iterations, iters)
		}
		return dt, m1.Mallocs - m0.Mallocs
	}
	const short, long = 200, 1200
	var dt time.Duration
	var allocs int64
	for b.Loop() {
		t2, a2 := fit(long)
		t1, a1 := fit(short)
		dt += t2 - t1
		allocs += int64(a2) - int64(a1)
	}
	steps := float64(b.N * (long - short))
	b.ReportMetric(dt.Seconds()*1e3/steps, "ms/step")
	b.ReportMetric(float64(allocs)/steps, "allocs/step")
}
