package epm

import (
	"math"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
)

// pointFit is a fit whose q has the given means (point factors) and the
// predictions p.
func pointFit(W, r, p []float64, n, k int) *FitResult {
	return &FitResult{P: p, Result: &sgvb.Result{Factors: []sgvb.Factor{
		{Name: "W", Family: sgvb.FamilyPoint, Size: n * k, Shape: []int{n, k}, Params: [][]float64{W}},
		{Name: "r", Family: sgvb.FamilyPoint, Size: k, Shape: []int{k}, Params: [][]float64{r}},
	}}}
}

// Two fits with the same two blocks of nodes as communities, in another
// order and with the scale shared differently between r and W, match
// completely; a fit that merges the blocks into one community matches
// neither (cosine 1/√2); a switched-off community does not count.
func TestCommunityOverlap(t *testing.T) {
	const n, k = 10, 3
	W1, W2, W3 := make([]float64, n*k), make([]float64, n*k), make([]float64, n*k)
	for i := 0; i < n; i++ {
		b := i / 5 // block 0 or 1
		W1[i*k+b] = 1
		W2[i*k+1-b] = 0.5 // blocks swapped, W halved, r ×4
		W3[i*k] = 1
		W1[i*k+2], W2[i*k+2], W3[i*k+2] = 1e-3, 1e-3, 1e-3 // switched off
	}
	p := []float64{0.1, 0.2, 0.3, 0.4}
	fits := []*FitResult{
		pointFit(W1, []float64{1, 1, 1}, p, n, k),
		pointFit(W2, []float64{4, 4, 1}, []float64{0.2, 0.4, 0.6, 0.8}, n, k),
		pointFit(W3, []float64{1, 1, 1}, []float64{0.4, 0.3, 0.2, 0.1}, n, k),
	}
	got := CommunityOverlap(fits, n, k)
	if len(got) != 3 {
		t.Fatalf("%d pairs, want 3", len(got))
	}
	want := []Overlap{
		{A: 0, B: 1, Active: 2, Matched: 2, BestCosine: 1, PredCorr: 1},
		{A: 0, B: 2, Active: 2, Matched: 0, BestCosine: 1 / math.Sqrt2, PredCorr: -1},
		{A: 1, B: 2, Active: 2, Matched: 0, BestCosine: 1 / math.Sqrt2, PredCorr: -1},
	}
	for i, w := range want {
		g := got[i]
		if g.A != w.A || g.B != w.B || g.Active != w.Active || g.Matched != w.Matched ||
			math.Abs(g.BestCosine-w.BestCosine) > 1e-12 || math.Abs(g.PredCorr-w.PredCorr) > 1e-12 {
			t.Errorf("pair %d: %+v, want %+v", i, g, w)
		}
	}
}
