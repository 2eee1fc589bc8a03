package pipeline_test

import (
	"context"
	"math"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// Two workers lend the helper to the compiled log joint (its products are
// shared by rows) and still give the numbers of one worker, for the
// low-rank GPFA likelihood (D = 50, K = 10) and the dense one (D = 42,
// K = 40).
func TestTeamCompiledSameNumbers(t *testing.T) {
	if testing.Short() {
		t.Skip("fits the example model")
	}
	for _, sz := range []struct{ d, k int }{{50, 10}, {42, 40}} {
		l := gpfaLoaded(t, 200, sz.d, sz.k)
		var params [][][]float64
		for _, w := range []int{1, 2} {
			s := fitSettings(60)
			s.StepSize, s.Workers = 0.3, w
			var tgt sgvb.Target = pipeline.Target{M: l.Model}
			if _, ok := tgt.(sgvb.TeamTarget); !ok {
				t.Fatal("pipeline.Target is not an sgvb.TeamTarget")
			}
			r, err := sgvb.Fit(context.Background(), tgt, pipeline.Latents(l.Model), s)
			if err != nil {
				t.Fatal(err)
			}
			var ps [][]float64
			for _, f := range r.Factors {
				ps = append(ps, f.Params...)
			}
			params = append(params, ps)
		}
		for i := range params[0] {
			for j, v := range params[0][i] {
				if w := params[1][i][j]; math.Float64bits(v) != math.Float64bits(w) {
					t.Fatalf("D=%d K=%d: parameter %d[%d] is %v with one worker, %v with two", sz.d, sz.k, i, j, v, w)
				}
			}
		}
	}
}
