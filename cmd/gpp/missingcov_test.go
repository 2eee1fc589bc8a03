package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A covariate with a model of its own (testdata/fit_missing_covariate.gpp:
// x ~ Normal(mx, sx), y's mean reads x) is fitted with its NA as the latent
// x_missing, by SGVB and by NUTS: a note says so, summary.csv and draws.csv
// have it, and PSIS-LOO over y keeps all 5 rows (y is observed at the one
// whose x is imputed). The same data under a model that reads x in an if
// condition is an error at the cell that names the condition.
func TestMissingCovariateCLI(t *testing.T) {
	const model, csv = "testdata/fit_missing_covariate.gpp", "testdata/fit_missing_covariate.csv"
	const note = "gpp: note: x: 1 missing value (" + csv + " line 3) is fitted as the latent x_missing"
	d := t.TempDir()
	for _, cmd := range []string{"fit", "sample"} {
		out := filepath.Join(d, cmd)
		args := []string{cmd, model, csv, "--quiet", "--out", out}
		if cmd == "sample" {
			args = append(args, "--chains", "1")
		}
		code, _, stderr := runSafe(t, args...)
		if code != 0 || !strings.Contains(stderr, note) {
			t.Fatalf("%s: exit %d, stderr:\n%s\nwant the note %q", cmd, code, stderr, note)
		}
		summary, err := os.ReadFile(filepath.Join(out, "summary.csv"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(summary), "\nx_missing[0],") {
			t.Errorf("%s: summary.csv has no x_missing[0]:\n%s", cmd, summary)
		}
		draws, err := os.ReadFile(filepath.Join(out, "draws.csv"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(draws), "x_missing.1") {
			t.Errorf("%s: draws.csv has no column x_missing.1", cmd)
		}
		loo, err := os.ReadFile(filepath.Join(out, "loo.csv"))
		if err != nil {
			t.Fatal(err)
		}
		if rows := strings.Count(string(loo), "\nlog_lik["); rows != 5 {
			t.Errorf("%s: loo.csv has %d observations, want 5 (y is observed at every row):\n%s", cmd, rows, loo)
		}
	}
	code, _, stderr := runSafe(t, "check", "testdata/check_missing_covariate_if.gpp", csv)
	want := csv + ":3:1: column \"x\": \"NA\" is read as a missing value: `x` is a covariate (read at testdata/check_missing_covariate_if.gpp:8:4) with a model of its own"
	if code != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "testdata/check_missing_covariate_if.gpp:8:9: a comparison needs operands known before the fit") {
		t.Errorf("if condition: exit %d, stderr:\n%s\nwant 1 and %q, at the comparison", code, stderr, want)
	}
}

// An output that reads an imputed cell of a covariate changes with the
// draws: gpp check does not warn that it is not finite in every draw, as
// it does of an output of data and constants alone, though log(x[1]) is
// not finite where the fit starts x_missing[1].
func TestMissingCovariateOutputNotFixed(t *testing.T) {
	src, err := os.ReadFile("testdata/fit_missing_covariate.gpp")
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(t.TempDir(), "m.gpp")
	if err := os.WriteFile(model, append(src, "output lx = log(x[1] - 1000)\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runSafe(t, "check", model, "testdata/fit_missing_covariate.csv")
	if code != 0 || strings.Contains(stderr, "not finite in every draw") {
		t.Errorf("exit %d, stderr:\n%s\nwant 0 and no warning on lx", code, stderr)
	}
}
