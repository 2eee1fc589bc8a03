package pipeline_test

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/internal/reftest"
	"github.com/gpplang/gpp/internal/shareddata"
	"github.com/gpplang/gpp/lang/compile"
)

// refTol is how far a fitted posterior mean may lie from the NUTS reference
// mean, in reference posterior standard deviations (issue: 0.5 sd).
const refTol = 0.5

type refRow struct{ mean, sd float64 }

func readReference(t *testing.T, path string) map[string]refRow {
	t.Helper()
	rows := reftest.ReadCSV(t, path)
	out := map[string]refRow{}
	for _, r := range rows[1:] {
		m, _ := strconv.ParseFloat(r[1], 64)
		s, _ := strconv.ParseFloat(r[2], 64)
		out[r[0]] = refRow{m, s}
	}
	return out
}

// posteriorSummary fits the model and returns the mean and sd over draws
// of every latent and output element, keyed by Stan's 1-based names
// (theta[1], beta[2], tau).
func posteriorSummary(t *testing.T, model, dataDir string, s sgvb.Settings) map[string]refRow {
	t.Helper()
	dataPath := shareddata.Path(t, "posteriordb", dataDir, "data.json")
	return fitSummary(t, filepath.Join("../../examples/posteriordb", model), []string{dataPath}, s)
}

// fitSummary loads model with its data files, fits it with s, and returns
// the mean and sd over 4000 draws of q of every latent and output element
// (a replicate drawn at each), keyed by Stan's 1-based names.
func fitSummary(t *testing.T, model string, dataArgs []string, s sgvb.Settings) map[string]refRow {
	t.Helper()
	l, err := pipeline.Load(model, dataArgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sgvb.Fit(context.Background(), pipeline.Target{M: l.Model}, pipeline.Latents(l.Model), s)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d iterations, converged %v, ELBO %.3f, Pareto k %.2f", model, res.Iterations, res.Converged, res.ELBO, res.ParetoK)
	ev, err := l.Model.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	const draws = 4000
	rng := rand.New(rand.NewPCG(7, 7))
	ev.SetRand(rand.New(rand.NewPCG(7, 8))) // the replicates' stream
	x := make([]float64, l.Model.Dim)
	z := make([]float64, l.Model.Dim)
	sum, sum2 := map[string]float64{}, map[string]float64{}
	add := func(name string, v float64) { sum[name] += v; sum2[name] += v * v }
	for d := 0; d < draws; d++ {
		res.SampleCoords(rng, x)
		res.Natural(z, x)
		for _, lat := range l.Model.Latents {
			for k := 0; k < lat.Size; k++ {
				add(compile.StanName(lat.Name, lat.Shape, k), z[lat.Offset+k])
			}
		}
		_, outs, err := ev.Eval(x)
		if err != nil {
			t.Fatal(err)
		}
		for i, o := range l.Model.Outputs {
			for k, v := range outs[i] {
				add(compile.StanName(o.Name, o.Shape, k), v)
			}
		}
	}
	out := map[string]refRow{}
	for name, s := range sum {
		m := s / draws
		out[name] = refRow{m, math.Sqrt(math.Max(0, sum2[name]/draws-m*m))}
	}
	return out
}

// comparePosterior checks every posterior mean of the fit against the NUTS
// reference and returns the fit's and the reference's summaries.
func comparePosterior(t *testing.T, model, dataDir string, s sgvb.Settings) (got, ref map[string]refRow) {
	ref = readReference(t, shareddata.Path(t, "posteriordb", dataDir, "reference_summary.csv"))
	got = posteriorSummary(t, model, dataDir, s)
	for name, r := range ref {
		g, ok := got[name]
		if !ok {
			t.Errorf("%s: not in the fit", name)
			continue
		}
		z := math.Abs(g.mean-r.mean) / r.sd
		t.Logf("%-9s mean %9.4f (NUTS %9.4f, %.2f sd off)  sd %8.4f (NUTS %8.4f, ratio %.2f)", name, g.mean, r.mean, z, g.sd, r.sd, g.sd/r.sd)
		if z > refTol {
			t.Errorf("%s: posterior mean %.4f is %.2f reference sd from the NUTS mean %.4f (tolerance %.1f sd)", name, g.mean, z, r.mean, refTol)
		}
	}
	return got, ref
}

func TestEightSchoolsNonCentered(t *testing.T) {
	comparePosterior(t, "eight_schools_noncentered.gpp", "eight_schools-eight_schools_noncentered", sgvb.Settings{Seed: 1})
}

// TestKidIQ fits kidiq with the gamma factor of sigma written as (log
// shape, log mean), the default since 2026-11-22: it reaches the NUTS sd of
// sigma. With the paper's softplus, sigma's factor is still 4.3–4.6× too
// wide after 10⁴ steps and its mean 0.35–2 NUTS sd off, depending on the
// random stream. (beta's sds are too small under any mean-field q: their
// posterior correlation is −0.99.)
//
// It takes 8 draws per step and η = 1. Along that −0.99 ridge the ELBO is
// so flat (0.5 NUTS sd of beta[1] costs about 0.1 nats) that the fit's
// location on it is set by how far the steps have drifted when the ELBO
// rule stops, which no ELBO-based stop can see. beta[1]'s mean, seeds 1–5:
// with one draw at η = 1, 0.35–0.80 NUTS sd off (converged in 2900–3400
// steps); at the default η = 0.3, 0.79–1.09 off with one draw (5500–6700
// steps) and 0.36–0.57 with 8; with 8 draws at η = 1, 0.02–0.15 off,
// converged in 2700–3000 steps.
func TestKidIQ(t *testing.T) {
	got, ref := comparePosterior(t, "kidiq_momiq.gpp", "kidiq-kidscore_momiq", sgvb.Settings{Seed: 1, DrawsPerStep: 8, StepSize: 1})
	if r := got["sigma"].sd / ref["sigma"].sd; !(r > 0.8 && r < 1.25) {
		t.Errorf("sigma: sd ratio to NUTS %.2f, want within [0.8, 1.25]", r)
	}
}

// TestKidIQFullRank fits kidiq with a full-rank factor for beta
// (Settings.Families, gpp fit --fullrank beta) and otherwise the defaults:
// one draw per step at η = 0.3, where TestKidIQ's mean-field fit needs 8
// draws at η = 1 to get along beta's ridge. The full-rank factor's
// natural-gradient steps walk it (beta[1] 25.5–26.0 over seeds 1–3, NUTS
// 25.92 ± 5.97; under AdaDelta, until 2026-11-22, 16.9–19.6, more than
// 1 sd short), and its sds match NUTS's where the mean-field factor's are
// 7 times too small (the conditional sds of a posterior with correlation
// −0.99).
func TestKidIQFullRank(t *testing.T) {
	s := sgvb.Settings{Seed: 1, Families: map[string]sgvb.Family{"beta": sgvb.FamilyFullRank}}
	got, ref := comparePosterior(t, "kidiq_momiq.gpp", "kidiq-kidscore_momiq", s)
	for _, name := range []string{"beta[1]", "beta[2]", "sigma"} {
		if r := got[name].sd / ref[name].sd; !(r > 0.8 && r < 1.25) {
			t.Errorf("%s: sd ratio to NUTS %.2f, want within [0.8, 1.25]", name, r)
		}
	}
}
