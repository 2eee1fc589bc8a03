package main

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/reftest"
)

// pathfinderCLITol is how far, in posterior sds, a single Pathfinder
// path's mean may be from the exact posterior's on testdata/resample_reg
// (a normal posterior in 2 dimensions), and pathfinderCLISDTol the
// relative error of its sds. Its Σ is L-BFGS's inverse-Hessian estimate,
// not the Hessian, but on 2 coordinates of a quadratic log density the
// chosen iterate's pairs pin it down: measured, the mean and sds are the
// posterior's to 10⁻⁴ (in sds, and relative).
const (
	pathfinderCLITol   = 1e-3
	pathfinderCLISDTol = 1e-3
)

// pathfinderRow matches a summary table's row of beta[1] whose family is
// pathfinder.
var pathfinderRow = regexp.MustCompile(`(?m)^beta\[1\] +pathfinder +`)

// TestFitPathfinder: one path (--restarts 1) on a normal posterior is
// near the exact posterior; its outputs say pathfinder (summary, fit.json,
// draws.csv's CmdStan header, elbo.csv's ELBO estimate per iterate, the
// console's line on the chosen iterate), fit.json starts gpp predict, and
// a second run of the seed writes the same draws.
func TestFitPathfinder(t *testing.T) {
	const model, data = "testdata/resample_reg.gpp", "testdata/resample_reg.csv"
	d := t.TempDir()
	first := filepath.Join(d, "first")
	code, stdout, stderr := runSafe(t, "fit", model, data, "--family", "pathfinder", "--restarts", "1", "--psis-resample=false", "--output-draws", "200", "--out", first)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !pathfinderRow.MatchString(stdout) || !strings.Contains(stdout, "(of q, the normal at iterate ") {
		t.Errorf("console summary lacks the pathfinder family or its ELBO's reading:\n%s", stdout)
	}
	if !strings.Contains(stderr, "Pathfinder: one path, each L-BFGS") || !regexp.MustCompile(`Pathfinder: L-BFGS \(\d+ iterations, converged\), best of \d+ normals along the path: iterate \d+`).MatchString(stderr) {
		t.Errorf("console lacks the method's lines:\n%s", stderr)
	}
	ff := readJSONObject(t, filepath.Join(first, "fit.json"))
	if it, _ := ff["pathfinder_iterate"].(float64); ff["method"] != "pathfinder" || !(it >= 1) || !(ff["pathfinder_iterates"].(float64) >= it) {
		t.Errorf("fit.json: method %v, pathfinder_iterate %v of %v", ff["method"], ff["pathfinder_iterate"], ff["pathfinder_iterates"])
	}
	m, S := regPosterior(t)
	mean, cov := laplaceFactor(t, ff)
	for i := range 2 {
		sd, want := math.Sqrt(cov[i][i]), math.Sqrt(S.At(i, i))
		if math.Abs(mean[i]-m[i]) > pathfinderCLITol*want || math.Abs(sd/want-1) > pathfinderCLISDTol {
			t.Errorf("beta[%d]: mean %.5g sd %.5g, the posterior's %.5g %.5g", i+1, mean[i], sd, m[i], want)
		}
	}
	comments, _, rows := readStanCSV(t, filepath.Join(first, "draws.csv"))
	for _, c := range []string{"# method = pathfinder", "#     history_size = 5", "#     num_elbo_draws = 25", "#     num_paths = 1", "#     psis_resample = 0"} {
		if !containsLine(comments, c) {
			t.Errorf("draws.csv lacks %q", c)
		}
	}
	elbo := reftest.ReadCSV(t, filepath.Join(first, "elbo.csv"))
	if strings.Join(elbo[0], ",") != "iter,elbo_estimate,se,seconds" || len(elbo) < 3 {
		t.Errorf("elbo.csv: %v", elbo)
	}
	second := filepath.Join(d, "second")
	if code, _, stderr := runSafe(t, "fit", model, data, "--family", "pathfinder", "--restarts", "1", "--psis-resample=false", "--output-draws", "200", "--quiet", "--out", second); code != 0 {
		t.Fatalf("second fit: exit %d: %s", code, stderr)
	}
	if _, _, rows2 := readStanCSV(t, filepath.Join(second, "draws.csv")); !slices.EqualFunc(rows, rows2, slices.Equal) {
		t.Error("two fits of one seed wrote different draws")
	}
	if code, stdout, stderr := runSafe(t, "predict", first, model, data, "--quiet", "--out", filepath.Join(d, "pred")); code != 0 || !pathfinderRow.MatchString(stdout) {
		t.Errorf("predict: exit %d: %s%s", code, stdout, stderr)
	}
}

// TestFitPathfinderPaths: --family pathfinder's default is Stan's
// multi-path one, 4 paths mixed with --psis-resample, and the output says
// so (fit.json's restarts and psis_resample, draws.csv's num_paths).
func TestFitPathfinderPaths(t *testing.T) {
	const model, data = "testdata/resample_reg.gpp", "testdata/resample_reg.csv"
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runSafe(t, "fit", model, data, "--family", "pathfinder", "--output-draws", "200", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "Pathfinder: 4 paths") || !strings.Contains(stdout, "resampled ") {
		t.Errorf("not 4 paths resampled:\n%s\n%s", stdout, stderr)
	}
	ff := readJSONObject(t, filepath.Join(out, "fit.json"))
	if rs, _ := ff["restarts"].([]any); len(rs) != 4 || ff["psis_resample"] == nil {
		t.Errorf("fit.json: restarts %v, psis_resample %v", ff["restarts"], ff["psis_resample"])
	}
	// the mixture's q is no one path's iterate: each path names its own
	if _, ok := ff["pathfinder_iterate"]; ok {
		t.Errorf("fit.json: the mixture has pathfinder_iterate %v", ff["pathfinder_iterate"])
	}
	if rs, _ := ff["restarts"].([]any); len(rs) > 0 {
		if it, _ := rs[0].(map[string]any)["pathfinder_iterate"].(float64); !(it >= 1) {
			t.Errorf("fit.json: restart 0 lacks its pathfinder_iterate: %v", rs[0])
		}
	}
	// too few draws for the default paths says where the 4 came from
	if code, _, stderr := runSafe(t, "fit", model, data, "--family", "pathfinder", "--output-draws", "5", "--out", filepath.Join(t.TempDir(), "few")); code != 2 || !strings.Contains(stderr, "--family pathfinder runs 4 paths unless --restarts says otherwise") {
		t.Errorf("--output-draws 5: exit %d: %s", code, stderr)
	}
	comments, _, _ := readStanCSV(t, filepath.Join(out, "draws.csv"))
	if !containsLine(comments, "#     num_paths = 4") || !containsLine(comments, "#     psis_resample = 1") {
		t.Error("draws.csv lacks num_paths = 4 and psis_resample = 1")
	}
	// one path is not resampled unless asked, as Stan's num_paths = 1
	one := filepath.Join(t.TempDir(), "one")
	if code, stdout, stderr = runSafe(t, "fit", model, data, "--family", "pathfinder", "--restarts", "1", "--output-draws", "200", "--out", one); code != 0 {
		t.Fatalf("--restarts 1: exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout, "resampled ") {
		t.Errorf("--restarts 1 resampled:\n%s", stdout)
	}
	comments, _, _ = readStanCSV(t, filepath.Join(one, "draws.csv"))
	if !containsLine(comments, "#     num_paths = 1") || !containsLine(comments, "#     psis_resample = 0") {
		t.Error("--restarts 1: draws.csv lacks num_paths = 1 and psis_resample = 0")
	}
}

// pathfinderNUTSTol is how far, in NUTS posterior sds, Pathfinder's
// means (4 paths, resampled) may be from NUTS's on examples/ordinal, and
// pathfinderNUTSSDTol the relative difference of its sds, as Laplace's
// (laplaceNUTSTol): the Monte Carlo error of both summaries is some 0.03
// sd. Measured against gpp sample's default run (seed 1): means within
// 0.03 sd, sds within 4 % (docs/inference.md).
const (
	pathfinderNUTSTol   = 0.25
	pathfinderNUTSSDTol = 0.15
)

// TestFitPathfinderOrdinal: on an ordered-logistic model (an ordered
// param by its coordinates in the joint normal) Pathfinder's means and
// sds are NUTS's within pathfinderNUTSTol and pathfinderNUTSSDTol, and
// gpp sample --against reads its fit.json.
func TestFitPathfinderOrdinal(t *testing.T) {
	d := t.TempDir()
	ordinalNearNUTS(t, "pathfinder", filepath.Join(d, "pf"), filepath.Join(d, "nuts"), pathfinderNUTSTol, pathfinderNUTSSDTol)
}

// gpp sbc fits each simulation by one Pathfinder path with --family
// pathfinder, and its help says it takes that family (and laplace), as it
// does.
func TestSBCPathfinder(t *testing.T) {
	_, help, _ := runSafe(t, "sbc", "--help")
	if !regexp.MustCompile(`(?s)--family string\n[^-]*laplace, or\n\s*pathfinder`).MatchString(help) {
		t.Errorf("sbc --help's --family does not name pathfinder:\n%s", help)
	}
	d := t.TempDir()
	model := writeFile(t, d, "m.gpp", "data y: real[N]\nparam mu: real ~ Normal(0, 1)\nparam s: positive ~ Gamma(2, 2)\ny ~ Normal(mu, s)\n")
	code, stdout, stderr := runSafe(t, "sbc", model, "--set", "N=5", "--sims", "3", "--output-draws", "20", "--family", "pathfinder", "--out", filepath.Join(d, "sbc"))
	if code != 0 || !strings.Contains(stdout, "simulations  3") {
		t.Fatalf("exit %d:\n%s%s", code, stdout, stderr)
	}
	// each fit is described as what it is, not as SGVB's factors
	if !strings.Contains(stderr, "3 simulations, each one Pathfinder path") {
		t.Errorf("sbc's start line does not describe a Pathfinder fit:\n%s", stderr)
	}
}

// A fold whose q misses its posterior is warned of with advice that the
// fit can take: --fullrank all for SGVB, not for --family laplace or
// pathfinder, whose q is one joint normal already and which refuse it.
func TestKfoldWarningHint(t *testing.T) {
	su := &kfoldSetup{n: 2, k: 2, fold: []int{0, 1}}
	res := []foldResult{{k: 1.2}, {k: 0.3}, {k: 0.3}}
	tot := kfoldTotals{kI: []float64{0.1, 0.1}}
	for _, c := range []struct{ method, closer, want, not string }{
		{"gamma", "--fullrank all", "--fullrank all may help", ""},
		{"pathfinder", "--fullrank all", "the default SGVB fit", "--fullrank"},
		{"laplace", "--fullrank all", "the default SGVB fit", "--fullrank"},
		{kfoldFullRankAll, "", "q is a joint normal already; --nuts may do better", "--fullrank"},
		// --fullrank all that left a param past sgvb.MaxFullRank apart
		{kfoldFullRankAll, "--fullrank all --rank 10", "(--fullrank all --rank 10 may help)", "joint normal already"},
		{kfoldLowRankAll, "--fullrank all --rank 10", "a larger --rank", "--fullrank"},
	} {
		w := strings.Join(kfoldWarnings(su, res, tot, 100, c.method, c.closer), "\n")
		if !strings.Contains(w, "fold 1: the Pareto k̂") || !strings.Contains(w, c.want) || (c.not != "" && strings.Contains(w, c.not)) {
			t.Errorf("%s: warnings %q: want %q, not %q", c.method, w, c.want, c.not)
		}
	}
}

// gpp kfold --family pathfinder fits each fold by one Pathfinder path and
// says so, not "a fit of normal factors" (SGVB's description of these
// latents); kfold.json records the method.
func TestKfoldPathfinder(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("y\n")
	for i := range 12 {
		fmt.Fprintf(&b, "%.3f\n", 1+math.Sin(float64(i)))
	}
	data := writeFile(t, dir, "y.csv", b.String())
	model := writeFile(t, dir, "norm.gpp", kfoldNormal)
	out := filepath.Join(dir, "kf")
	code, _, stderr := runSafe(t, "kfold", model, data, "--family", "pathfinder", "--folds", "2", "--output-draws", "200", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "each fold one Pathfinder path") {
		t.Errorf("kfold does not say how it fits each fold:\n%s", stderr)
	}
	if kf := readJSONObject(t, filepath.Join(out, "kfold.json")); fmt.Sprint(kf["method"]) != "pathfinder" {
		t.Errorf("kfold.json: method %v", kf["method"])
	}
}
