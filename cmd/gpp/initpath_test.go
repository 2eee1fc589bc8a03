package main

import (
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
