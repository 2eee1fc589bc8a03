package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/lang/autodiff"
)

// TestDataValueOutsideSupportBeforeFit: a test result coded 2 for a
// Bernoulli inside logpdf, in both of log_mix's components (a diagnostic
// accuracy trial's Hui–Walter model), fails for any params: gpp fit
// reports it before fitting (no 50 failed steps), and gpp check and gpp
// fit say no start helps, not --init.
func TestDataValueOutsideSupportBeforeFit(t *testing.T) {
	dir := t.TempDir()
	m := writeFile(t, dir, "hw.gpp", "data t1: int[N]\nparam prev: unit ~ Beta(1, 1)\nparam se: unit ~ Beta(20, 4)\nparam sp: unit ~ Beta(20, 2)\n"+
		"target += sum(log_mix(prev, logpdf(t1, Bernoulli(se)), logpdf(t1, Bernoulli(1 - sp))))\n")
	d := writeFile(t, dir, "d.csv", "t1\n0\n1\n2\n0\n")
	const want = "hw.gpp:5:29: log density is -Inf: value 2 outside the support of Bernoulli (element [2]); the value is t1's at "
	code, _, stderr := runSafe(t, "check", m, d)
	if code != exitError || !strings.Contains(stderr, want) || !strings.Contains(stderr, dataOnlyNote) || strings.Contains(stderr, startNote) {
		t.Errorf("check: exit %d; stderr\n%s", code, stderr)
	}
	out := filepath.Join(dir, "out")
	code, _, stderr = runSafe(t, "fit", m, d, "--quiet", "--out", out)
	if code != exitError || !strings.Contains(stderr, want) || !strings.Contains(stderr, autodiff.DataValueNote) || !strings.Contains(stderr, dataOnlyNote) ||
		strings.Contains(stderr, "--init FILE") || strings.Contains(stderr, "stopped at iteration") {
		t.Errorf("fit: exit %d; stderr\n%s", code, stderr)
	}
	if entries := dirEntries(t, out); len(entries) > 0 {
		t.Errorf("fit wrote %v", entries)
	}
}
