package nuts

import (
	"context"
	"math"
	"sync/atomic"
	"testing"
)

// TestFixedParam: the fixed_param sampler keeps each chain at its start in
// each of Draws/Thin kept draws, with lp__ and accept_stat__ 0, calls
// Progress at every iteration (no warm-up), needs no density and accepts a
// start with no coordinates; NUTS still refuses that.
func TestFixedParam(t *testing.T) {
	inits := [][]float64{{1, -2}, {0.5, 3}}
	var calls atomic.Int64
	s := Settings{Chains: 2, Warmup: 50, Draws: 9, Thin: 2, Seed: 1, FixedParam: true,
		Progress: func(_, _ int, warmup bool) {
			if warmup {
				t.Error("a warm-up iteration")
			}
			calls.Add(1)
		}}
	res, err := Sample(context.Background(), nil, inits, s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Dim != 2 || res.Interrupted || calls.Load() != 2*9 {
		t.Fatalf("Dim %d, interrupted %v, %d iterations: want 2, false, 18", res.Dim, res.Interrupted, calls.Load())
	}
	for c, ch := range res.Chains {
		if len(ch.LogP) != 4 || len(ch.Draws) != 4*2 {
			t.Fatalf("chain %d: %d draws, want 9/2 = 4", c, len(ch.LogP))
		}
		for i := range ch.LogP {
			if ch.Draws[2*i] != inits[c][0] || ch.Draws[2*i+1] != inits[c][1] || ch.LogP[i] != 0 || ch.Accept[i] != 0 {
				t.Errorf("chain %d draw %d: %v lp %v accept %v, want %v, 0, 0", c, i, ch.Draws[2*i:2*i+2], ch.LogP[i], ch.Accept[i], inits[c])
			}
		}
	}
	res, err = Sample(context.Background(), nil, [][]float64{{}, {}}, s)
	if err != nil || res.Dim != 0 || len(res.Chains[0].LogP) != 4 {
		t.Errorf("no coordinates: %v, want 4 draws of none", err)
	}
	s.FixedParam = false
	if _, err := Sample(context.Background(), []Density{nil, nil}, [][]float64{{}, {}}, s); err == nil {
		t.Errorf("NUTS with no coordinates: no error")
	}
}

// TestFixedParamBadStart: a start that is not finite is an error; a
// cancelled context returns the draws kept, marked interrupted.
func TestFixedParamBadStart(t *testing.T) {
	s := Settings{Chains: 1, Draws: 10, FixedParam: true}
	if _, err := Sample(context.Background(), nil, [][]float64{{math.NaN()}}, s); err == nil {
		t.Errorf("a NaN start: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.Progress = func(_, iter int, _ bool) {
		if iter == 3 {
			cancel()
		}
	}
	res, err := Sample(ctx, nil, [][]float64{{1}}, s)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || len(res.Chains[0].LogP) != 3 {
		t.Errorf("cancelled at iteration 3: interrupted %v, %d draws; want 3 draws, interrupted", res.Interrupted, len(res.Chains[0].LogP))
	}
}
