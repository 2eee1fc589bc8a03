package main

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// TestSampleEvidenceWarp3: gpp sample --evidence --evidence-method warp3
// estimates the log evidence of a Poisson rate under a Gamma(2, 0.5) prior
// (its posterior Gamma(8, 5.5), skewed on the log scale) within 4 standard
// errors of the closed form, as the default normal method does from the
// same draws with a third of its se (0.00084 against 0.0026), and says
// which in evidence.json and on the console; the flag
// without --evidence, or with another method, is a usage error.
func TestSampleEvidenceWarp3(t *testing.T) {
	if testing.Short() {
		t.Skip("samples")
	}
	dir := t.TempDir()
	model, data, logZ := evidencePoisson(t, dir)
	se := map[string]float64{}
	for _, tc := range []struct {
		method, proposal, line string
	}{
		{"normal", "a normal fitted to the first half of each chain", "bridge sampling: 2000 posterior draws"},
		{"warp3", "warp3: a normal fitted to the first half of each chain, the posterior warped to symmetry", "bridge sampling, warp3: 2000 posterior draws warped to symmetry"},
	} {
		out := filepath.Join(dir, tc.method)
		code, stdout, stderr := runGpp("sample", model, data, "--quiet", "--evidence", "--evidence-method", tc.method, "--out", out)
		if code != exitOK {
			t.Fatalf("%s: exit %d:\n%s", tc.method, code, stderr)
		}
		s := readEvidenceJSON(t, filepath.Join(out, evidenceFile))
		t.Logf("%s: exact %.5f; bridge %.5f ± %.2g (%d iterations)", tc.method, logZ, s.LogEvidence, s.SE, s.Iterations)
		if !(math.Abs(float64(s.LogEvidence)-logZ) < 4*float64(s.SE)) || !(s.SE < 0.02) || s.Method != "bridge sampling" || s.Proposal != tc.proposal || s.PosteriorDraws != 2000 || s.Draws != 2000 {
			t.Errorf("%s: %+v, exact %.5f", tc.method, s, logZ)
		}
		if !strings.Contains(stdout, "log evidence ") || !strings.Contains(stdout, tc.line) {
			t.Errorf("%s: stdout:\n%s", tc.method, stdout)
		}
		se[tc.method] = float64(s.SE)
	}
	if !(se["warp3"] < se["normal"]/2) {
		t.Errorf("se: warp3 %.2g, normal %.2g: warp3 should be well below on a skewed posterior", se["warp3"], se["normal"])
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--evidence-method", "warp3"}, "--evidence-method needs --evidence"},
		{[]string{"--evidence", "--evidence-method", "warp"}, `--evidence-method "warp": want normal or warp3`},
	} {
		args := append([]string{"sample", model, data, "--quiet", "--out", filepath.Join(dir, "bad")}, tc.args...)
		if code, _, stderr := runGpp(args...); code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, want %d and %q:\n%s", tc.args, code, exitUsage, tc.want, stderr)
		}
	}
}
