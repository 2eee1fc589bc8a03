package pipeline_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// A Pathfinder path scores its iterates' ELBO draws on Settings.Workers
// goroutines, each on its own clone of the compiled model, and gives the
// numbers of one worker bit for bit: q, the trace of ELBO estimates, the
// path's summary, the final ELBO and k̂ (examples/regression.gpp, one
// path).
func TestPathfinderWorkersSameNumbers(t *testing.T) {
	if testing.Short() {
		t.Skip("fits the example model")
	}
	l, err := pipeline.Load("../../examples/regression.gpp", []string{"../../examples/wine_std.csv"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ref *sgvb.Result
	for _, w := range []int{1, 2, 3} {
		s := sgvb.Settings{Method: sgvb.Pathfinder, Seed: 5, Workers: w, PSISDraws: 200}
		r, err := sgvb.Fit(context.Background(), pipeline.Target{M: l.Model}, pipeline.Latents(l.Model), s)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Trace) < 2 || r.Pathfinder == nil || r.Pathfinder.Scored < 2 {
			t.Fatalf("workers %d: a path of %d scored iterates", w, len(r.Trace))
		}
		if ref == nil {
			ref = r
			continue
		}
		sameResult(t, fmt.Sprintf("workers 1 and %d", w), ref, r)
	}
}
