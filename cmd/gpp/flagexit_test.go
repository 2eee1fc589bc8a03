package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFlagNameExitCodes pins the exit-code contract that README.md and
// gpp fit --help state for flags: a well-formed value naming what the
// model lacks is bad input, checked against the model (exit 1, as --set
// nosuch=1); a value malformed whatever the model is a bad command line
// (exit 2). Neither writes --out.
func TestFlagNameExitCodes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--fullrank", "nosuch"}, exitError, "--fullrank nosuch: the model has no param nosuch"},
		{[]string{"--draws-params", "nosuch"}, exitError, "the model has no param or output nosuch"},
		{[]string{"--plots", "--plot-params", "nosuch"}, exitError, "--plot-params: the draws have no nosuch"},
		{[]string{"--minibatch", "X=2"}, exitError, "--minibatch X: X is not a size of the model's data"},
		{[]string{"--set", "nosuch=1"}, exitError, "the model has no constant `nosuch`"},
		{[]string{"--minibatch", "N=0"}, exitUsage, "the batch size must be at least 1"},
		{[]string{"--minibatch", "N"}, exitUsage, "want N=B"},
		{[]string{"--percentiles", "50,50"}, exitUsage, "50 is given twice"},
	} {
		out := filepath.Join(t.TempDir(), "out")
		args := append([]string{"fit", poissonModel, poissonData, "--quiet", "--iter", "100", "--out", out}, tc.args...)
		code, _, stderr := runSafe(t, args...)
		if code != tc.code || !strings.Contains(stderr, tc.msg) {
			t.Errorf("fit %v: exit %d, stderr:\n%s\nwant exit %d and %q", tc.args, code, stderr, tc.code, tc.msg)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("fit %v wrote %s", tc.args, out)
		}
	}
}
