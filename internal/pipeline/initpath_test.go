package pipeline_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// ratsGramsModel is Rats as Stan's rats.stan writes it, in grams
// (ratsModel is the same model in units of 100 g): the posterior's
// alpha_c, 240 ± 2.6, is some 90 posterior sds from q's default start at
// 0.
const ratsGramsModel = `data x: real[T]
data y: real[N, T]
param alpha_c: real ~ Normal(0, 1000)
param beta_c: real ~ Normal(0, 100)
param sigma_alpha: positive ~ HalfNormal(100)
param sigma_beta: positive ~ HalfNormal(10)
param sigma_y: positive ~ HalfNormal(100)
param alpha: real[N] ~ Normal(alpha_c, sigma_alpha)
param beta: real[N] ~ Normal(beta_c, sigma_beta)
y ~ Normal(alpha + beta * (x - mean(x))', sigma_y)
output alpha0 = alpha_c - beta_c * mean(x)
`

// TestInitPathRats fits Rats in grams from the default start, which
// ends the default 10 000 steps with alpha_c near 20 (the reason
// Settings.InitPath exists), and from the L-BFGS path, mean-field and
// full-rank, which must fit it as TestBUGSRats's fits of the model in
// units of 100 g do: every mean within 0.3 posterior sd (full-rank 0.15)
// and sds within the same bounds as there.
func TestInitPathRats(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model three times")
	}
	x, y := ratsData()
	mean, sd := ratsReference(x, y)
	names := []string{"alpha_c", "beta_c", "sigma_alpha", "sigma_beta", "sigma_y", "alpha0", "alpha[1]", "beta[1]"}
	dat := mustJSON(t, map[string]any{"x": x, "y": y})
	def := fitSource(t, ratsGramsModel, "rats.json", dat, sgvb.Settings{Seed: 1})
	if d := math.Abs(def["alpha_c"].mean - mean[0]); d < 20*sd[0] {
		t.Errorf("default start: alpha_c %.4g is within 20 posterior sds of %.4g: the default start now fits Rats in grams (update docs/inference.md)", def["alpha_c"].mean, mean[0])
	}
	mf := fitSource(t, ratsGramsModel, "rats.json", dat, sgvb.Settings{Seed: 1, InitPath: true})
	compareSome(t, "path mean-field", mf, names, mean, sd, []int{0, 1, 2, 5, 6, 7}, 0.3, 0.8, 1.15)
	compareSome(t, "path mean-field", mf, names, mean, sd, []int{3, 4}, 1.5, 0.7, 1.15)
	all := []string{"alpha_c", "beta_c", "sigma_alpha", "sigma_beta", "sigma_y", "alpha", "beta"}
	fr := fitSource(t, ratsGramsModel, "rats.json", dat, sgvb.Settings{Seed: 1, InitPath: true, FullRankGroups: [][]string{all}})
	compareSome(t, "path full-rank", fr, names, mean, sd, []int{0, 1, 2, 3, 5, 6, 7}, 0.15, 0.85, 1.15)
	compareSome(t, "path full-rank", fr, names, mean, sd, []int{4}, 0.15, 0.7, 1.15)
}

// eightSchoolsCentred is eight schools in the centred form, whose log
// joint grows without bound as tau → 0 with the thetas at mu.
const eightSchoolsCentred = `data J: int
data y: real[J]
data sigma: positive[J]
param mu: real ~ Normal(0, 5)
param tau: positive ~ Cauchy(0, 5)
param theta: real[J] ~ Normal(mu, tau)
y ~ Normal(theta, sigma)
`

// TestInitPathChoosesBestELBO checks on centred eight schools that the
// start is the scored path point with the highest ELBO estimate, that
// the points are in path order and include its two ends, and that the
// start is not the path's last point: the smoothed path converges in 34
// iterations, and at its later points q with the Hessian's diagonal
// spreads scores far lower (the last −835 ± 710) than at point 11
// (−44 ± 6), so a start taken from the end of the path, as from plain
// L-BFGS, fails.
func TestInitPathChoosesBestELBO(t *testing.T) {
	dir := t.TempDir()
	mpath, dpath := filepath.Join(dir, "model.gpp"), filepath.Join(dir, "data.json")
	if err := os.WriteFile(mpath, []byte(eightSchoolsCentred), 0o644); err != nil {
		t.Fatal(err)
	}
	dat := mustJSON(t, map[string]any{"J": 8, "y": []float64{28, 8, -3, 7, -1, 1, 18, 12}, "sigma": []float64{15, 10, 16, 11, 9, 11, 10, 18}})
	if err := os.WriteFile(dpath, dat, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := pipeline.Load(mpath, []string{dpath}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sgvb.Fit(context.Background(), pipeline.Target{M: l.Model}, pipeline.Latents(l.Model), sgvb.Settings{Seed: 1, InitPath: true, MaxIter: 200})
	if err != nil {
		t.Fatal(err)
	}
	ps := res.Path
	if ps == nil {
		t.Fatal("Result.Path is nil with InitPath")
	}
	t.Logf("path: %d iterations, converged %v; start at point %d, ELBO %.4g ± %.2g", ps.Iterates, ps.Converged, ps.Iterate, ps.ELBO, ps.SE)
	if len(ps.Points) != ps.Scored || ps.Scored < 2 || ps.Scored > sgvb.PathPoints {
		t.Fatalf("%d points recorded, %d scored (at most %d)", len(ps.Points), ps.Scored, sgvb.PathPoints)
	}
	if first, last := ps.Points[0].Iterate, ps.Points[len(ps.Points)-1].Iterate; first != 0 || last != ps.Iterates {
		t.Errorf("scored points run from %d to %d, want 0 to %d", first, last, ps.Iterates)
	}
	best := 0
	for i, p := range ps.Points {
		t.Logf("point %3d: ELBO %.4g ± %.2g", p.Iterate, p.ELBO, p.SE)
		if i > 0 && p.Iterate <= ps.Points[i-1].Iterate {
			t.Errorf("points out of path order: %d after %d", p.Iterate, ps.Points[i-1].Iterate)
		}
		if p.ELBO > ps.Points[best].ELBO {
			best = i
		}
	}
	if b := ps.Points[best]; b.Iterate != ps.Iterate || b.ELBO != ps.ELBO {
		t.Errorf("start at point %d (ELBO %.6g), but point %d has the best ELBO %.6g", ps.Iterate, ps.ELBO, b.Iterate, b.ELBO)
	}
	if ps.Iterate == ps.Iterates {
		t.Errorf("start at the path's last point %d: the funnel's end was not passed over", ps.Iterate)
	}
	// without the option there is no path, and the two starts differ
	def, err := sgvb.Fit(context.Background(), pipeline.Target{M: l.Model}, pipeline.Latents(l.Model), sgvb.Settings{Seed: 1, MaxIter: 200})
	if err != nil {
		t.Fatal(err)
	}
	if def.Path != nil {
		t.Error("Result.Path set without InitPath")
	}
	if def.Factors[0].Params[0][0] == res.Factors[0].Params[0][0] {
		t.Error("mu ends the same after 200 steps from the default start and from the path")
	}
}
