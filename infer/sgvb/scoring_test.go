package sgvb

import (
	"context"
	"math"
	"slices"
	"strings"
	"sync/atomic"
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

// TestScoringInterrupted: an interrupt as the final estimate starts cuts
// its draws short (none is evaluated): q is marked interrupted, without
// k̂, its ELBO the last evaluation's. One as k̂ near 0.7 is to be
// estimated again from ParetoKDraws skips that estimate: q keeps the
// PSISDraws draws' ELBO and k̂, is marked interrupted and says so.
func TestScoringInterrupted(t *testing.T) {
	tg := studentTarget{8}
	lat := []Latent{{Name: "x", Size: 3, Shape: []int{3}, Support: dist.Real}}
	s := Settings{Seed: 1, Workers: 2, ParetoKDraws: -1}
	r1, err := Fit(context.Background(), tg, lat, s)
	if err != nil {
		t.Fatal(err)
	}
	if !(r1.ParetoK >= KBandLow && r1.ParetoK <= KBandHigh) {
		t.Fatalf("k̂ %v: the test wants one in the band", r1.ParetoK)
	}
	after := new(atomic.Int64) // log joints evaluated after the cancel
	fit := func(at bool) *Result {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		s := s
		s.ParetoKDraws = 0 // 10 000
		s.Scoring = func(n int, _ time.Duration, elbo bool) {
			if elbo == at {
				cancel()
			}
		}
		after.Store(0)
		r, err := Fit(ctx, cancelCounted{tg, ctx, after}, lat, s)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := fit(true)
	if n := after.Load(); n != 0 {
		t.Errorf("cancelled as the final estimate starts: %d of its draws evaluated after the cancel, want none", n)
	}
	last := r.Trace[len(r.Trace)-1]
	if !r.Interrupted || !math.IsNaN(r.ParetoK) || r.ParetoKDraws != 0 || !sameBits(r.ELBO, last.ELBO) {
		t.Errorf("cancelled as the final estimate starts: interrupted %v, k̂ %v from %d draws, ELBO %v (last evaluation %v); want interrupted, no k̂, the last evaluation's",
			r.Interrupted, r.ParetoK, r.ParetoKDraws, r.ELBO, last.ELBO)
	}
	r = fit(false)
	if !r.Interrupted || !sameBits(r.ParetoK, r1.ParetoK) || r.ParetoKDraws != 1000 || !sameBits(r.ELBO, r1.ELBO) {
		t.Errorf("cancelled as k̂ is estimated again: interrupted %v, k̂ %v from %d draws, ELBO %v; want interrupted, the 1000 draws' k̂ %v and ELBO %v",
			r.Interrupted, r.ParetoK, r.ParetoKDraws, r.ELBO, r1.ParetoK, r1.ELBO)
	}
	if !slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.Contains(w, "was skipped") }) {
		t.Errorf("warnings %q: none says the estimate from 10 000 draws was skipped", r.Warnings)
	}
}

// cancelCounted counts the log joints evaluated once ctx is cancelled.
type cancelCounted struct {
	t     Target
	ctx   context.Context
	after *atomic.Int64
}

func (c cancelCounted) LogJoint(x, grad []float64) (float64, error) {
	if c.ctx.Err() != nil {
		c.after.Add(1)
	}
	return c.t.LogJoint(x, grad)
}

func (c cancelCounted) Clone() Target { return cancelCounted{c.t.Clone(), c.ctx, c.after} }

// TestStepped: Stepped counts every step, 1, 2, ... on, each ELBO
// evaluation (Progress) coming after its step; the fit is the same
// without it.
func TestStepped(t *testing.T) {
	nn := &normalNormal{y: []float64{1.2, 0.3, 2.5, 1.9, 0.7}, sigma: 1, m0: 0, s0: 10}
	lat := []Latent{{Name: "mu", Size: 1, Shape: []int{}, Support: dist.Real}}
	last, evals := 0, 0
	s := Settings{Seed: 1, Workers: 1, EvalEvery: 20, MaxIter: 200, Tol: -1, PSISDraws: -1,
		Progress: func(p Progress) {
			evals++
			if p.Iter != last {
				t.Errorf("evaluation at iteration %d after %d steps", p.Iter, last)
			}
		},
		Stepped: func(n int) {
			if n != last+1 {
				t.Errorf("Stepped(%d) after Stepped(%d)", n, last)
			}
			last = n
		}}
	r, err := Fit(context.Background(), nn, lat, s)
	if err != nil {
		t.Fatal(err)
	}
	if last != 200 || evals != 10 {
		t.Errorf("%d steps and %d evaluations, want 200 and 10", last, evals)
	}
	s.Stepped, s.Progress = nil, nil
	r0, err := Fit(context.Background(), nn, lat, s)
	if err != nil {
		t.Fatal(err)
	}
	if r.ELBO != r0.ELBO || r.Mean()[0] != r0.Mean()[0] {
		t.Errorf("with Stepped ELBO %v, mean %v; without %v, %v", r.ELBO, r.Mean(), r0.ELBO, r0.Mean())
	}
}
