package pipeline_test

import (
	"context"
	"math"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// TestVectorLitPrior runs a model whose prior scales are a vector literal,
// `param beta: real[2] ~ Normal(0, [1, 10])`, through the whole pipeline.
// Its log joint and gradient are checked exactly; then, with no data, the
// posterior is the prior, which a normal q matches, so the fit must find
// means near 0 and sds near 1 and 10.
func TestVectorLitPrior(t *testing.T) {
	l, err := pipeline.ParseSource("prior.gpp", []byte("param beta: real[2] ~ Normal(0, [1, 10])\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Bind(nil, nil); err != nil {
		t.Fatal(err)
	}
	x, grad := []float64{0.5, -3}, make([]float64, 2)
	lp, err := l.Model.LogJoint(x, grad)
	if err != nil {
		t.Fatal(err)
	}
	// log N(0.5 | 0, 1) + log N(-3 | 0, 10), and its gradient -x / sd².
	want := -0.5*0.5*0.5 - 0.5*(3.0/10)*(3.0/10) - math.Log(10) - math.Log(2*math.Pi)
	if math.Abs(lp-want) > 1e-14 {
		t.Errorf("log joint %.17g, want %.17g", lp, want)
	}
	if math.Abs(grad[0]+0.5) > 1e-15 || math.Abs(grad[1]-0.03) > 1e-15 {
		t.Errorf("gradient %v, want [-0.5 0.03]", grad)
	}
	if testing.Short() {
		t.Skip("fits a model")
	}
	res, err := sgvb.Fit(context.Background(), pipeline.Target{M: l.Model}, pipeline.Latents(l.Model), sgvb.Settings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	f := res.Factor("beta")
	mean, sd := f.Mean(), f.SD()
	t.Logf("%d iterations: q means %.4g, sds %.4g", res.Iterations, mean, sd)
	for i, s := range []float64{1, 10} {
		if math.Abs(mean[i]) > 0.1*s || math.Abs(sd[i]-s) > 0.1*s {
			t.Errorf("beta[%d]: q mean %.4g sd %.4g, want 0 and %g (within %g)", i, mean[i], sd[i], s, 0.1*s)
		}
	}
}
