package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestFitNamesFirstStepError: a fit that recovers from failing steps
// names the first failure, with its position, once: in the live
// "rollback:" line of the rollback it led to (gpp fit), and in the
// warnings that count skipped steps and left-out ELBO draws (the REPL's
// :fit, positioned in the session's model, as gpp fit's fit_bad_steps golden).
func TestFitNamesFirstStepError(t *testing.T) {
	_, _, stderr := runSafe(t, "fit", "testdata/fit_start_ran.gpp", "testdata/fit_start_ran.csv", "--out", filepath.Join(t.TempDir(), "out"))
	want := "rollback: at iteration 119, after 62 steps with a non-finite log joint or gradient (the last 2 in a row; the first: testdata/fit_start_ran.gpp:8:11: log: argument -"
	if !strings.Contains(stderr, want) || strings.Count(stderr, "; the first: ") != 2 { // the live line and the warning
		t.Errorf("want the first rollback's line, once, to name the first error %q:\n%s", want, stderr)
	}

	var out, errb bytes.Buffer
	run([]string{"repl", "--history", "-", "testdata/fit_bad_steps.gpp", "testdata/fit_bad_steps.csv"}, strings.NewReader(":fit\n:quit\n"), &out, &errb)
	all := out.String() + errb.String()
	for _, w := range []string{
		"warning: 18 steps had a non-finite log joint or gradient and were skipped (the first: <repl>:8:11: log: argument -",
		"warning: 31 ELBO draws had a non-finite log joint (the first: <repl>:8:11: log: argument -",
	} {
		if strings.Count(all, w) != 1 {
			t.Errorf("want %q once:\n%s", w, all)
		}
	}
}
