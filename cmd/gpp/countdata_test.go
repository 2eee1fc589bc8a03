package main

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gpplang/gpp/internal/reftest"
)

// TestFitUnsignedTrials: Binomial trials declared `int[N]` (Stan's int,
// no bound) fit as with int<lower=0>: with p ~ Beta(1, 1) and 7 successes
// in 12 trials the posterior is Beta(8, 6), mean 8/14 and sd
// sqrt(8·6/(14²·15)), which the beta factor family holds exactly.
func TestFitUnsignedTrials(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runSafe(t, "fit", "testdata/check_count_unsigned.gpp", "testdata/fit_count_unsigned.csv", "--quiet", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows := reftest.ReadCSV(t, filepath.Join(out, "summary.csv"))
	if len(rows) < 2 || rows[1][0] != "p" {
		t.Fatalf("summary %v", rows)
	}
	mean, err1 := strconv.ParseFloat(rows[1][2], 64)
	sd, err2 := strconv.ParseFloat(rows[1][3], 64)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	const wantMean, wantSD = 8.0 / 14, 0.12778 // sqrt(48/2940)
	if d := mean - wantMean; d > 0.02 || d < -0.02 {
		t.Errorf("mean of p %.4g, want %.4g", mean, wantMean)
	}
	if d := sd - wantSD; d > 0.02 || d < -0.02 {
		t.Errorf("sd of p %.4g, want %.4g", sd, wantSD)
	}
}
