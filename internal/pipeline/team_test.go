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
// low-rank GPFA likelihood (D = 50, K = 10), the dense one (D = 42,
// K = 40) and the EPM's RowSumProd (needs the shared data).
func TestTeamCompiledSameNumbers(t *testing.T) {
	if testing.Short() {
		t.Skip("fits the example model")
	}
	for _, c := range sgvbModels {
		t.Run(c.name, func(t *testing.T) { teamSameNumbers(t, c.load(t), c.eta) })
	}
}

// teamSameNumbers fits l for 60 steps on one and on two workers and wants
// the same parameters, bit for bit.
func teamSameNumbers(t *testing.T, l *pipeline.Loaded, eta float64) {
	var params [][][]float64
	for _, w := range []int{1, 2} {
		s := fitSettings(60)
		s.StepSize, s.Workers = eta, w
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
				t.Fatalf("parameter %d[%d] is %v with one worker, %v with two", i, j, v, w)
			}
		}
	}
}
