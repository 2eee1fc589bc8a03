package nuts

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestSaveWarmup: SaveWarmup keeps Warmup/Thin warm-up iterations with
// the step size each was made with, and changes nothing else.
func TestSaveWarmup(t *testing.T) {
	sd := []float64{1, 2, 3}
	run := func(save bool) *Result {
		s := Settings{Chains: 2, Warmup: 100, Draws: 60, Thin: 3, Seed: 5, Workers: 1, SaveWarmup: save}
		r, err := Sample(context.Background(), replicate(diagNormal{sd}, 2), jittered(2, sd, 1), s)
		if err != nil {
			t.Fatal(err)
		}
		zeroTimes(r)
		return r
	}
	plain, saved := run(false), run(true)
	g := make([]float64, 3)
	for c := range saved.Chains {
		w := saved.Chains[c].Warm
		if w == nil || len(w.LogP) != 100/3 || len(w.StepSizes) != 100/3 || len(w.Draws) != 3*(100/3) {
			t.Fatalf("chain %d: Warm = %+v, want %d draws", c, w, 100/3)
		}
		for k, lp := range w.LogP {
			if v, _ := (diagNormal{sd}).LogDensity(w.Draws[3*k:3*k+3], g); v != lp {
				t.Fatalf("chain %d warm-up draw %d: lp__ %v, density %v", c, k, lp, v)
			}
		}
		if slices.Min(w.StepSizes) == slices.Max(w.StepSizes) {
			t.Errorf("chain %d: the warm-up step size never changed: %v", c, w.StepSizes)
		}
		saved.Chains[c].Warm = nil
		if plain.Chains[c].Warm != nil {
			t.Errorf("chain %d: Warm without SaveWarmup", c)
		}
	}
	if !reflect.DeepEqual(plain, saved) {
		t.Error("SaveWarmup changed the kept draws")
	}
}

// TestNoAdaptFromAdapted: a run from an adapted run's step size and
// inverse metric with NoAdapt keeps both through its warm-up, and is
// deterministic; with Warmup 0 it is the same run without the warm-up.
func TestNoAdaptFromAdapted(t *testing.T) {
	sd := []float64{1, 2, 3}
	ctx := context.Background()
	for _, metric := range []Metric{DiagE, DenseE} {
		base := Settings{Chains: 1, Warmup: 300, Draws: 50, Seed: 3, Workers: 1, Metric: metric}
		a, err := Sample(ctx, replicate(diagNormal{sd}, 1), jittered(1, sd, 2), base)
		if err != nil {
			t.Fatal(err)
		}
		eps, minv := a.Chains[0].StepSize, a.Chains[0].InvMetric
		if eps == 1 {
			t.Fatalf("%v: the step size was not adapted", metric)
		}
		again := base
		again.StepSize, again.InvMetric, again.NoAdapt, again.Warmup, again.SaveWarmup = eps, [][]float64{minv}, true, 20, true
		run := func(s Settings) *Result {
			r, err := Sample(ctx, replicate(diagNormal{sd}, 1), jittered(1, sd, 2), s)
			if err != nil {
				t.Fatal(err)
			}
			zeroTimes(r)
			return r
		}
		b := run(again)
		ch := b.Chains[0]
		if ch.StepSize != eps || !slices.Equal(ch.InvMetric, minv) {
			t.Errorf("%v: NoAdapt ended at step size %v metric %v, want %v %v", metric, ch.StepSize, ch.InvMetric, eps, minv)
		}
		for k, e := range ch.Warm.StepSizes {
			if e != eps {
				t.Fatalf("%v: warm-up iteration %d had step size %v, want %v", metric, k+1, e, eps)
			}
		}
		if !reflect.DeepEqual(b, run(again)) {
			t.Errorf("%v: two NoAdapt runs differ", metric)
		}
		// Warmup 0 is no adaptation as well: the same step size and metric.
		again.Warmup, again.NoAdapt, again.SaveWarmup = 0, false, false
		c := run(again).Chains[0]
		if c.StepSize != eps || !slices.Equal(c.InvMetric, minv) {
			t.Errorf("%v: Warmup 0 ended at step size %v metric %v, want %v %v", metric, c.StepSize, c.InvMetric, eps, minv)
		}
		// The metric is used: the unit metric gives other draws.
		again.InvMetric = nil
		if reflect.DeepEqual(run(again).Chains[0].Draws, c.Draws) {
			t.Errorf("%v: the inverse metric did not change the draws", metric)
		}
	}
}

// TestNoAdaptKeepsWarmupOut: with NoAdapt the warm-up iterations are not
// kept as draws.
func TestNoAdaptKeepsWarmupOut(t *testing.T) {
	sd := []float64{1, 2}
	s := Settings{Chains: 1, Warmup: 30, Draws: 40, Seed: 3, Workers: 1, NoAdapt: true}
	r, err := Sample(context.Background(), replicate(diagNormal{sd}, 1), jittered(1, sd, 2), s)
	if err != nil {
		t.Fatal(err)
	}
	s.Warmup, s.Draws = 0, 70
	all, err := Sample(context.Background(), replicate(diagNormal{sd}, 1), jittered(1, sd, 2), s)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.Chains[0].Draws, all.Chains[0].Draws[2*30:]; !slices.Equal(got, want) {
		t.Error("NoAdapt's draws are not the iterations after its warm-up")
	}
}

// TestInvMetricErrors: each malformed InvMetric (its length, a non-positive
// or asymmetric entry, not positive definite, for the unit metric, a count
// other than 1 or Chains) is an error saying what is wrong, naming the
// chain when there are several.
func TestInvMetricErrors(t *testing.T) {
	sd := []float64{1, 2}
	for _, c := range []struct {
		metric Metric
		m      [][]float64
		chains int
		want   string
	}{
		{DiagE, [][]float64{{1}}, 1, "diagonal inverse metric has 1 entries, want 2"},
		{DiagE, [][]float64{{1, 0}}, 1, "entry 1 is 0: want a positive"},
		{DiagE, [][]float64{{1, -1}}, 1, "entry 1 is -1"},
		{DenseE, [][]float64{{1, 0, 0}}, 1, "dense inverse metric has 3 entries, want 2×2"},
		{DenseE, [][]float64{{1, 0.5, 0.4, 1}}, 1, "not symmetric: [0, 1] is 0.5, [1, 0] 0.4"},
		{DenseE, [][]float64{{1, 2, 2, 1}}, 1, "not positive definite"},
		{UnitE, [][]float64{{1, 1}}, 1, "with the unit metric"},
		{DiagE, [][]float64{{1, 1}, {1, 1}}, 3, "2 inverse metrics for 3 chains"},
		{DiagE, [][]float64{{1, 1}, {1, 0}}, 2, "nuts: chain 1: diagonal inverse metric entry 1 is 0"},
	} {
		s := Settings{Chains: c.chains, Warmup: 10, Draws: 10, Metric: c.metric, InvMetric: c.m}
		_, err := Sample(context.Background(), replicate(diagNormal{sd}, c.chains), jittered(c.chains, sd, 1), s)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %v: error %v, want %q", c.metric, c.m, err, c.want)
		}
	}
}
