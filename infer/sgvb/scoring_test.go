package sgvb

import (
	"context"
	"testing"
	"time"

	"github.com/gpplang/gpp/dist"
)

// TestScoring: Settings.Scoring is called once as the final estimate
// starts, with PSISDraws and the fit's time so far, after the last
// Progress; not for a fit without a final estimate (PSISDraws < 0).
func TestScoring(t *testing.T) {
	nn := &normalNormal{y: []float64{1.2, 0.3, 2.5, 1.9, 0.7}, sigma: 1, m0: 0, s0: 10}
	lat := []Latent{{Name: "mu", Size: 1, Shape: []int{}, Support: dist.Real}}
	var calls []int
	lastEval, scoredAfter := 0, -1
	s := Settings{Seed: 1, Workers: 1, PSISDraws: 500, ParetoKDraws: 500,
		Progress: func(p Progress) { lastEval = p.Iter },
		Scoring: func(n int, elapsed time.Duration, elbo bool) {
			if !elbo {
				n = -n // a k̂-only round
			}
			calls = append(calls, n)
			scoredAfter = lastEval
			if elapsed <= 0 {
				t.Errorf("elapsed %v", elapsed)
			}
		}}
	r, err := Fit(context.Background(), nn, lat, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || calls[0] != 500 || scoredAfter != r.Trace[len(r.Trace)-1].Iter {
		t.Errorf("Scoring called with %v after evaluation %d; want once with 500 after the last (%d)", calls, scoredAfter, r.Trace[len(r.Trace)-1].Iter)
	}
	calls = nil
	s.PSISDraws = -1
	if _, err := Fit(context.Background(), nn, lat, s); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 0 {
		t.Errorf("without a final estimate Scoring is called with %v", calls)
	}
}
