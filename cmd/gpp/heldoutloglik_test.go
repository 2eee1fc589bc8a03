package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// heldOutModel is a Gamma–Poisson whose log_lik scores held-out counts
// y_new that no ~ observes, as a calibration scores new inputs' data.
const heldOutModel = `data y: int<lower=0>[N]
data y_new: int<lower=0>[M]
param lambda: positive ~ Gamma(2, 0.5)
y ~ Poisson(lambda)
output log_lik = logpdf(y_new, Poisson(lambda))
`

// TestHeldOutLogLikNotLOO: a log_lik of data that no ~ observes is no
// PSIS-LOO (its weights 1/p(y_i | θ) hold only for the likelihood's
// observations): gpp fit and gpp sample print its held-out lppd with a
// note naming y_new, write lppd.csv (checkLPPDFile: each term from
// draws.csv's log_lik) and no loo.csv, and fit.json has no loo; gpp
// compare and gpp kfold refuse it, saying why, and --moment-match too.
func TestHeldOutLogLikNotLOO(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "ho.gpp", heldOutModel)
	newData := writeFile(t, dir, "new.csv", "y_new\n4\n2\n7\n3\n5\n")
	const note = "log_lik reads y_new, which no ~ observes: held-out lppd, not PSIS-LOO"
	fit := filepath.Join(dir, "f")
	code, stdout, stderr := runSafe(t, "fit", model, poissonData, newData, "--quiet", "--out", fit)
	if code != exitOK || !strings.Contains(stdout, "held-out     lppd ") || !strings.Contains(stdout, note) ||
		strings.Contains(stdout, "elpd_loo") || !strings.Contains(stdout, "written      "+fit+": summary.csv draws.csv elbo.csv fit.json lppd.csv\n") {
		t.Fatalf("fit: exit %d, stdout:\n%s\nstderr: %s", code, stdout, stderr)
	}
	if names := checkLPPDFile(t, fit, 1); len(names) != 5 {
		t.Errorf("fit's lppd.csv has %d elements, want y_new's 5", len(names))
	}
	if _, err := os.Stat(filepath.Join(fit, looFile)); err == nil {
		t.Errorf("fit wrote %s for a log_lik of held-out data", looFile)
	}
	if ff := readText(t, filepath.Join(fit, fitFileName)); strings.Contains(ff, "loo") {
		t.Errorf("fit.json mentions loo:\n%s", ff)
	}

	sample := filepath.Join(dir, "s")
	code, stdout, stderr = runSafe(t, "sample", model, poissonData, newData, "--quiet", "--chains", "2", "--warmup", "100", "--draws", "100", "--out", sample)
	if code != exitOK || !strings.Contains(stdout, "held-out     lppd ") || !strings.Contains(stdout, note) || strings.Contains(stdout, "elpd_loo") ||
		strings.Contains(stderr, "p_loo") || !strings.Contains(stdout, "written      "+sample+": summary.csv draws.csv coords.csv lppd.csv\n") {
		t.Fatalf("sample: exit %d, stdout:\n%s\nstderr: %s", code, stdout, stderr)
	}
	checkLPPDFile(t, sample, 0)

	// the same model's LOO of the observed y, to compare against
	withLOO := writeFile(t, dir, "loo.gpp", strings.Replace(heldOutModel, "logpdf(y_new,", "logpdf(y,", 1))
	loo := filepath.Join(dir, "loo")
	if code, stdout, stderr := runSafe(t, "fit", withLOO, poissonData, newData, "--quiet", "--out", loo); code != exitOK || !strings.Contains(stdout, "elpd_loo") || strings.Contains(stdout, "held-out") {
		t.Fatalf("fit with log_lik of y: exit %d, stdout:\n%s\nstderr: %s", code, stdout, stderr)
	}
	for _, d := range []string{fit, sample, filepath.Join(fit, lppdFile)} {
		code, stdout, stderr = runSafe(t, "compare", d, loo)
		if want := "is a held-out lppd, not PSIS-LOO"; code != exitError || !strings.Contains(stderr, want) || stdout != "" {
			t.Errorf("compare %s: exit %d, stdout %q, stderr %q, want exit 1 and %q", d, code, stdout, stderr, want)
		}
	}

	code, _, stderr = runSafe(t, "kfold", model, poissonData, newData, "--quiet", "--out", filepath.Join(dir, "k"))
	if want := "log_lik reads y_new, which no ~ observes: K-fold"; code != exitError || !strings.Contains(stderr, want) || !strings.Contains(stderr, "ho.gpp:5:8") {
		t.Errorf("kfold: exit %d, stderr %q, want exit 1 and %q at ho.gpp:5:8", code, stderr, want)
	}
	code, _, stderr = runSafe(t, "fit", model, poissonData, newData, "--moment-match", "--quiet", "--out", filepath.Join(dir, "mm"))
	if want := "--moment-match refines PSIS-LOO, which this model has none of: " + note; code != exitError || !strings.Contains(stderr, want) {
		t.Errorf("fit --moment-match: exit %d, stderr %q, want exit 1 and %q", code, stderr, want)
	}
}
