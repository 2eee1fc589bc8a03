package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFitInitPath fits seeds with --init path: the console names the
// path point the fit started from (not with --quiet), fit.json records
// init "path", MAP refuses it, and ./path is a file, not the option.
func TestFitInitPath(t *testing.T) {
	d := t.TempDir()
	model, data := "../../examples/seeds.gpp", "../../examples/seeds.csv"
	out := filepath.Join(d, "fit")
	code, _, stderr := runSafe(t, "fit", model, data, "--init", "path", "--output-draws", "20", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "started from point ") || !strings.Contains(stderr, "from an L-BFGS path") {
		t.Errorf("no path start on the console:\n%s", stderr)
	}
	if ff := readFit(t, filepath.Join(out, "fit.json")); ff.Settings.Init != "path" {
		t.Errorf("fit.json records --init %q, want path", ff.Settings.Init)
	}
	code, _, stderr = runSafe(t, "fit", model, data, "--init", "path", "--output-draws", "20", "--quiet", "--out", filepath.Join(d, "quiet"))
	if code != 0 || strings.Contains(stderr, "started from") {
		t.Errorf("--quiet: exit %d, stderr:\n%s", code, stderr)
	}
	code, _, stderr = runSafe(t, "fit", model, data, "--init", "path", "--family", "map", "--out", filepath.Join(d, "map"))
	if code != 2 || !strings.Contains(stderr, "--init path") {
		t.Errorf("--family map: exit %d, stderr:\n%s", code, stderr)
	}
	code, _, stderr = runSafe(t, "fit", model, data, "--init", "./path", "--out", filepath.Join(d, "file"))
	if code != 1 || !strings.Contains(stderr, "cannot read --init file") {
		t.Errorf("--init ./path: exit %d, want 1 reading the file; stderr:\n%s", code, stderr)
	}
}

// TestFitInitLast: --init last is gpp repl's value; gpp fit says so, and
// what it takes, when no file is named last, and reads a file (or a fit's
// directory) that is, as ./last or last.
func TestFitInitLast(t *testing.T) {
	model, err := filepath.Abs(poissonModel)
	if err != nil {
		t.Fatal(err)
	}
	data, err := filepath.Abs(poissonData)
	if err != nil {
		t.Fatal(err)
	}
	d := t.TempDir()
	t.Chdir(d)
	code, _, stderr := runSafe(t, "fit", model, data, "--init", "last", "--out", "out")
	if want := "gpp: --init last: no file or directory named last; last is gpp repl's (:fit --init last starts from the session's last fit): gpp fit takes an earlier fit's output directory, its fit.json, or path\n"; code != 2 || !strings.HasPrefix(stderr, want) {
		t.Errorf("no file last: exit %d, stderr:\n%s\nwant exit 2 and %s", code, stderr, want)
	}
	if code, _, stderr := runSafe(t, "fit", model, data, "--quiet", "--iter", "200", "--out", "last"); code != 0 {
		t.Fatalf("first fit: exit %d: %s", code, stderr)
	}
	for _, init := range []string{"last", "./last", "last/fit.json"} {
		code, _, stderr := runSafe(t, "fit", model, data, "--quiet", "--iter", "200", "--init", init, "--out", "again")
		if code != 0 || strings.Contains(stderr, "repl") {
			t.Errorf("--init %s with a directory named last: exit %d, stderr:\n%s", init, code, stderr)
		}
		if ff := readFit(t, filepath.Join("again", "fit.json")); ff.Settings.Init != filepath.Join("last", "fit.json") {
			t.Errorf("--init %s: fit.json records --init %q, want last/fit.json", init, ff.Settings.Init)
		}
	}
}

// TestFitInitOverflowed: a fit whose ELBO overflowed (fit_improper.gpp:
// written for inspection, exit 1) is refused as a --init start, at its
// fit.json's elbo_se, with exit 1 and no output directory.
func TestFitInitOverflowed(t *testing.T) {
	d := t.TempDir()
	bad := filepath.Join(d, "bad")
	if code, _, stderr := runSafe(t, "fit", "testdata/fit_improper.gpp", "--output-draws", "20", "--out", bad); code != 1 {
		t.Fatalf("improper fit: exit %d, want 1: %s", code, stderr)
	}
	out := filepath.Join(d, "warm")
	code, _, stderr := runSafe(t, "fit", "testdata/fit_improper.gpp", "--init", bad, "--out", out)
	want := filepath.Join(bad, "fit.json") + `:25:3: --init: this fit failed (its ELBO's standard error overflows)`
	if code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("--init from an overflowed fit: exit %d, stderr:\n%s\nwant %q", code, stderr, want)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s was written", out)
	}
}
