package pipeline_test

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"gonum.org/v1/gonum/diff/fd"
)

// categoricalModel has 12 observations of 4 categories, counts (2, 6, 1,
// 3): p's posterior is Dirichlet(3, 7, 2, 4).
const categoricalModel = `param p: simplex[4] ~ Dirichlet([1, 1, 1, 1])
let y = [0, 1, 1, 3, 2, 1, 0, 1, 3, 3, 1, 1]
y ~ Categorical(p)
`

// The log joint of a compiled categorical model as a function of p's 3
// stick-breaking coordinates y, with the transform's log Jacobian (what a
// full-rank factor of p differentiates: the model's gradient in log p,
// plus 1 for the Jacobian, carried to y by dist.StickBreakGrad), against
// finite differences; and a seeded fit with --fullrank p's factor reaches
// the exact posterior's means and sds.
func TestFullRankSimplexCategorical(t *testing.T) {
	path := t.TempDir() + "/cat.gpp"
	if err := os.WriteFile(path, []byte(categoricalModel), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := pipeline.Load(path, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := l.Model
	if m.Dim != 4 {
		t.Fatalf("%d coordinates, want p's 4 logs", m.Dim)
	}
	lx, g := make([]float64, 4), make([]float64, 4)
	f := func(y []float64) float64 {
		dist.StickBreakLog(lx, y)
		lp, err := m.LogJoint(lx, g)
		if err != nil {
			t.Fatal(err)
		}
		return lp + dist.StickBreakLogJac(lx)
	}
	rng := rand.New(rand.NewPCG(4, 4))
	for range 5 {
		y := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		want := fd.Gradient(nil, f, y, &fd.Settings{Formula: fd.Central})
		f(y)
		for i := range g {
			g[i]++ // ∂ Σ log x / ∂ log x_i
		}
		dist.StickBreakGrad(g, lx)
		for i := range want {
			if math.Abs(g[i]-want[i]) > 1e-6*(1+math.Abs(want[i])) {
				t.Errorf("y = %v: ∂/∂y_%d = %.9g, finite differences %.9g", y, i, g[i], want[i])
			}
		}
	}
	res, err := sgvb.Fit(context.Background(), pipeline.Target{M: m}, pipeline.Latents(m),
		sgvb.Settings{Seed: 1, Families: map[string]sgvb.Family{"p": sgvb.FamilyFullRank}})
	if err != nil {
		t.Fatal(err)
	}
	fac := res.Factor("p")
	mean, sd := fac.Mean(), fac.SD()
	alpha, a0 := []float64{3, 7, 2, 4}, 16.0
	for i, a := range alpha {
		wm, ws := a/a0, math.Sqrt(a*(a0-a)/(a0*a0*(a0+1)))
		t.Logf("p[%d]: mean %.4f sd %.4f, exact %.4f %.4f", i, mean[i], sd[i], wm, ws)
		// a logistic normal against a Dirichlet of small counts: measured
		// within 1.3 % (means) and 3.1 % (sds) at seed 1
		if fac.Family != sgvb.FamilyFullRank || math.Abs(mean[i]/wm-1) > 0.03 || math.Abs(sd[i]/ws-1) > 0.06 {
			t.Errorf("p[%d]: %v mean %.4f sd %.4f, exact %.4f %.4f", i, fac.Family, mean[i], sd[i], wm, ws)
		}
	}
}
