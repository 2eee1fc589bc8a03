package pipeline_test

import (
	"fmt"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
)

// TestCultivarExample fits examples/cultivar.gpp (CategoricalLogit on three
// wine measurements) with the defaults and checks that the posterior mean
// class probabilities (the output p) put most wines in their cultivar: 167
// of 178 (94 %) with seed 1; the test asks for 90 %, and that every row of
// p sums to 1.
func TestCultivarExample(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	const labels = "../../examples/wine_cultivar.csv"
	got := fitSummary(t, "../../examples/cultivar.gpp", []string{"../../examples/wine_std.csv", "cultivar=" + labels},
		sgvb.Settings{Seed: 1})
	y := readColumn(t, labels, "cultivar")
	right := 0
	for i, c := range y {
		best, sum := 0, 0.0
		for k := range 3 {
			p := got[fmt.Sprintf("p[%d,%d]", i+1, k+1)].mean
			sum += p
			if p > got[fmt.Sprintf("p[%d,%d]", i+1, best+1)].mean {
				best = k
			}
		}
		if sum < 1-1e-9 || sum > 1+1e-9 {
			t.Fatalf("p row %d sums to %.12g", i+1, sum)
		}
		if best == int(c) {
			right++
		}
	}
	t.Logf("%d of %d wines in their cultivar", right, len(y))
	if float64(right) < 0.9*float64(len(y)) {
		t.Errorf("%d of %d wines in their cultivar, want at least 90 %%", right, len(y))
	}
}
