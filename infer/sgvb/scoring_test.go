package sgvb

import (
	"context"
	"testing"
	"time"

	"github.com/gpplang/gpp/dist"
)

// TestScoring: Settings.Scoring is called once as the final estimate
// starts, with PSISDraws and the fit's time so far, after the last
// Progress, and so in a Laplace fit; not for a fit without a final
// estimate (PSISDraws < 0).
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
	// a Laplace fit's final estimate is every fit's
	calls = nil
	sl := s
	sl.Method, sl.Progress = Laplace, nil
	if _, err := Fit(context.Background(), nn, lat, sl); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || calls[0] != 500 {
		t.Errorf("a Laplace fit called Scoring with %v; want once with 500", calls)
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

// TestStepping: Settings.Stepping is called after each of the first
// EvalEvery steps, with the steps taken 1, 2, …, growing times within the
// fit's, and not after the first Progress; the fit is the same without it.
func TestStepping(t *testing.T) {
	nn := &normalNormal{y: []float64{1.2, 0.3, 2.5, 1.9, 0.7}, sigma: 1, m0: 0, s0: 10}
	lat := []Latent{{Name: "mu", Size: 1, Shape: []int{}, Support: dist.Real}}
	var steps []int
	evals := 0
	var lastStepping time.Duration
	s := Settings{Seed: 1, Workers: 1, EvalEvery: 20, MaxIter: 200, PSISDraws: -1,
		Progress: func(Progress) { evals++ },
		Stepping: func(n int, stepping, elapsed time.Duration) {
			if evals > 0 {
				t.Errorf("Stepping(%d) after a Progress", n)
			}
			if stepping < lastStepping || stepping > elapsed {
				t.Errorf("Stepping(%d): stepping %v after %v, elapsed %v", n, stepping, lastStepping, elapsed)
			}
			lastStepping = stepping
			steps = append(steps, n)
		}}
	r, err := Fit(context.Background(), nn, lat, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 20 || steps[0] != 1 || steps[19] != 20 {
		t.Errorf("Stepping called with steps %v, want 1 to 20", steps)
	}
	s.Stepping = nil
	r0, err := Fit(context.Background(), nn, lat, s)
	if err != nil {
		t.Fatal(err)
	}
	if r.ELBO != r0.ELBO || r.Mean()[0] != r0.Mean()[0] {
		t.Errorf("with Stepping ELBO %v, mean %v; without %v, %v", r.ELBO, r.Mean(), r0.ELBO, r0.Mean())
	}
}
