package main

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/reftest"
)

// TestFitGolfGammaHint fits Stan's golf putting model as Stan writes it.
// From the default start its gamma factor (an exponential at first) draws
// scales so small that 2 * Phi(z) - 1 rounds to 1, and at seed 3 the fit
// stops at its non-finite steps (seeds 1 and 2 recover through rollbacks,
// to Gelman's sigma): the error ends with the hint to start narrower. Both
// remedies it names fit sigma at Gelman's 0.0267 (1.53°).
func TestFitGolfGammaHint(t *testing.T) {
	d := t.TempDir()
	model, data := "testdata/golf.gpp", "testdata/golf.csv"
	code, _, stderr := runSafe(t, "fit", model, data, "--seed", "3", "--quiet", "--out", filepath.Join(d, "default"))
	if code != exitError || !strings.Contains(stderr, "Binomial: log density is -Inf at value 1346 (n 1443, p 1,") || !strings.Contains(stderr, gammaBadNote) {
		t.Errorf("default start: exit %d, stderr %q; want 1, the positioned error and the hint", code, stderr)
	}
	for _, flag := range [][]string{{"--init", "path"}, {"--family", "lognormal"}} {
		out := filepath.Join(d, flag[1])
		args := append([]string{"fit", model, data, "--quiet", "--out", out}, flag...)
		code, _, stderr := runSafe(t, args...)
		if code != 0 || strings.Contains(stderr, "hint:") {
			t.Fatalf("%v: exit %d, stderr %q; want 0 and no hint", flag, code, stderr)
		}
		m := math.NaN()
		for _, row := range reftest.ReadCSV(t, filepath.Join(out, "summary.csv"))[1:] {
			if row[0] == "sigma" {
				m, _ = strconv.ParseFloat(row[2], 64)
			}
		}
		if !(m > 0.0262 && m < 0.0272) {
			t.Errorf("%v: sigma's mean %g, want 0.0267 ± 0.0005 (Gelman's posterior sd is 0.0004)", flag, m)
		}
	}
}
