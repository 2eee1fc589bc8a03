package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A positive param at 1e200 under HalfNormal(1), whose log density −s²/2
// overflows: gpp logprob writes lp__ -inf (as Stan's log_prob) with a nan
// gradient and says so; the errors of gpp logprob, gpp fit --init and gpp
// sample --init name the value 1e+200, not its log coordinate 460.517;
// and gpp fit blames the --init start, not the default one.
func TestHalfNormalOverflow(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "hn.gpp", "param s: positive ~ HalfNormal(1)\noutput o = s\n")
	init := writeFile(t, dir, "hn.json", `{"s": 1e200}`)
	const named = "HalfNormal: log density is -Inf at value 1e+200 (sigma 1)"
	code, stdout, stderr := runSafe(t, "logprob", model, "--params", init)
	if code != exitOK || !strings.HasSuffix(stdout, "lp__,g_1\n-inf,nan\n") ||
		!strings.Contains(stderr, "the log density is -inf at point 1 of "+init+", and its gradient, not defined there, is written nan") || !strings.Contains(stderr, named) {
		t.Errorf("logprob: exit %d\n%s%s", code, stdout, stderr)
	}
	code, _, stderr = runSafe(t, "fit", model, "--init", init, "--out", filepath.Join(dir, "f"))
	if code != exitError || !strings.Contains(stderr, named) || strings.Contains(stderr, "460.5") ||
		!strings.Contains(stderr, "fails at the start that --init "+init+" gives") || strings.Contains(stderr, "default start") {
		t.Errorf("fit --init: exit %d\n%s", code, stderr)
	}
	code, _, stderr = runSafe(t, "sample", model, "--init", init, "--out", filepath.Join(dir, "s"))
	if !strings.Contains(stderr, named) || strings.Contains(stderr, "460.5") {
		t.Errorf("sample --init: exit %d\n%s", code, stderr)
	}
}
