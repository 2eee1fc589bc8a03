package pipeline_test

import (
	"context"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// TestControlVariateKeepsSmallShapes fits a gamma–Poisson factorisation
// (testdata/pf_small.gpp: the first 100 documents and 200 words of a
// topic-model trial's simulated 500 × 1000 counts, 1025 nonzero cells,
// K = 8, 2400 gamma factors) with the default estimator, stl-cv, at the
// seed where its control variate's plain running coefficient, pulled far
// below 0 by a small shape's tail draws, drove one shape to 0.0017 and
// the ELBO to −5538 ± 170 (seeds 2–8 end at −5100 to −5139). With the
// coefficient kept within [0, 2cw] of its d²-weighted mean below shape 1
// (cvCoef) every shape stays above 0.01.
func TestControlVariateKeepsSmallShapes(t *testing.T) {
	if testing.Short() {
		t.Skip("fits 2400 gamma factors")
	}
	l, err := pipeline.Load("testdata/pf_small.gpp", []string{"testdata/pf_small.csv"}, map[string]string{"N": "100", "V": "200"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := sgvb.Fit(context.Background(), pipeline.Target{M: l.Model}, pipeline.Latents(l.Model), sgvb.Settings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d iterations, converged %v, ELBO %.1f ± %.2g", r.Iterations, r.Converged, r.ELBO, r.ELBOSE)
	small := 0
	for _, f := range r.Factors {
		if f.Family != sgvb.FamilyGamma {
			t.Fatalf("%s: family %v, want gamma", f.Name, f.Family)
		}
		for i, a := range f.Params[0] {
			if a < 0.01 {
				small++
				t.Errorf("%s element %d: shape %.3g", f.Name, i, a)
			}
		}
	}
	if small > 0 {
		t.Errorf("%d shapes below 0.01", small)
	}
}
