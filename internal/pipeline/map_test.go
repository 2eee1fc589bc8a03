package pipeline_test

import (
	"context"
	"math"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// TestMAPAtMode: a MAP fit whose L-BFGS line search fails at the mode,
// having seen a point better by rounding alone (6e-14 in a log joint of
// −173), is converged and warns of nothing; it reported "linesearch:
// failed to converge" and converged false. The gradient there is 0 to
// the optimizer's tolerance.
func TestMAPAtMode(t *testing.T) {
	l, err := pipeline.Load("testdata/map_poisson_glm.gpp", []string{"testdata/map_poisson_glm.csv"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sgvb.Fit(context.Background(), pipeline.Target{M: l.Model}, pipeline.Latents(l.Model), sgvb.Settings{Method: sgvb.MAP, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Converged || len(res.Warnings) > 0 {
		t.Errorf("converged %v, warnings %q; want converged, no warnings", res.Converged, res.Warnings)
	}
	x := make([]float64, l.Model.Dim)
	for _, f := range res.Factors {
		copy(x[f.Offset:], f.Params[0])
	}
	grad := make([]float64, l.Model.Dim)
	lp, err := l.Model.LogJoint(x, grad)
	if err != nil || math.Abs(lp-res.ELBO) > 1e-9*math.Abs(lp) {
		t.Fatalf("log joint %v (error %v) at the estimate, the fit's %v", lp, err, res.ELBO)
	}
	for i, g := range grad {
		if math.Abs(g) > 1e-4 {
			t.Errorf("gradient[%d] = %g at the MAP", i, g)
		}
	}
}
