package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// lineIndex returns the index of the first of lines that starts with
// prefix, or -1.
func lineIndex(lines []string, prefix string) int {
	for i, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return i
		}
	}
	return -1
}

// TestFitMostlyNonFiniteFails: a fit whose draws of q mostly leave the
// model's domain (testdata/fit_domain.gpp, q at its start after 5
// iterations, 3 in 4 of its draws outside) fails with exit 1 and writes
// nothing, its cause first: the positioned domain error, the count, the
// fit's warnings, the hint to guard the expression, the failure. It
// exited 0 with a summary of the few finite draws, the cause the last of
// its notices after a hint about gamma shapes (fit_domain.golden holds
// the whole text).
func TestFitMostlyNonFiniteFails(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runSafe(t, "fit", "testdata/fit_domain.gpp", "--iter", "5", "--quiet", "--out", out)
	if code != exitError {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitError, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("--out %s exists (%v): a failed fit writes nothing", out, err)
	}
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "testdata/fit_domain.gpp:5:11: log: argument -") {
		t.Errorf("the first line is %q, want the positioned domain error", lines[0])
	}
	count := lineIndex(lines, "gpp: ")
	m := regexp.MustCompile(`^gpp: (\d+) of 1000 output draws of q had a non-finite log joint \(the first's error above\): more than half`).FindStringSubmatch(lines[count])
	if m == nil {
		t.Fatalf("the first gpp: line is %q, want the count of non-finite draws", lines[count])
	}
	if n, _ := strconv.Atoi(m[1]); n <= 500 {
		t.Errorf("%d bad draws, not more than half", n)
	}
	warn, hint := lineIndex(lines, "gpp: warning: "), lineIndex(lines, "gpp: hint: ")
	if !(count < warn && warn < hint && hint == len(lines)-2) {
		t.Errorf("count at line %d, the first warning at %d, the hint at %d of %d: want the cause, the count, the warnings, the hint, the failure", count, warn, hint, len(lines))
	}
	if !strings.Contains(lines[hint], "guard the expression the error names") || strings.Contains(stderr, "gamma") {
		t.Errorf("hint %q: want the guard, and no hint on q's shape", lines[hint])
	}
	if last := lines[len(lines)-1]; last != "gpp: the fit failed: no output written" {
		t.Errorf("the last line is %q", last)
	}
}

// TestFitFewNonFiniteDrawsWritten: a fit with a few draws outside the
// model's domain (|x| < 0.2, 2 sds of q's start) writes its outputs as
// before, with a warning that counts them.
func TestFitFewNonFiniteDrawsWritten(t *testing.T) {
	d := t.TempDir()
	model := filepath.Join(d, "few.gpp")
	if err := os.WriteFile(model, []byte("param x: real ~ Normal(0, 1)\ntarget += log(0.04 - x * x)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(d, "out")
	code, _, stderr := runSafe(t, "fit", model, "--iter", "5", "--quiet", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "summary.csv")); err != nil {
		t.Error(err)
	}
	m := regexp.MustCompile(`gpp: warning: (\d+) of 1000 output draws had a non-finite log joint or output`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no warning of the non-finite draws:\n%s", stderr)
	}
	if n, _ := strconv.Atoi(m[1]); n == 0 || n > 500 {
		t.Errorf("%d bad draws, want a few", n)
	}
}

// TestReplFitMostlyNonFiniteFails: :fit fails as gpp fit does, and the
// session keeps no fit.
func TestReplFitMostlyNonFiniteFails(t *testing.T) {
	var out, errb bytes.Buffer
	run([]string{"repl", "--history", "-", "testdata/fit_domain.gpp"}, strings.NewReader(":fit --iter 5\n:quit\n"), &out, &errb)
	all := out.String() + errb.String()
	i := strings.Index(all, "log: argument -")
	j := strings.Index(all, "output draws of q had a non-finite log joint")
	k := strings.Index(all, "the fit failed; the session keeps its previous fit, if any")
	if !(i >= 0 && i < j && j < k) {
		t.Errorf("want the domain error, the count, the failure in order:\n%s", all)
	}
	if strings.Contains(all, "family") { // the summary's header
		t.Errorf("a summary was printed:\n%s", all)
	}
}

// TestInitPathSmoothingNote: --init path on a model whose log density is
// finite at the start but not a smoothing sd around it (it failed there
// with the domain error) says how far the smoothing shrank.
func TestInitPathSmoothingNote(t *testing.T) {
	_, _, stderr := runSafe(t, "fit", "testdata/fit_domain.gpp", "--init", "path", "--iter", "5", "--out", filepath.Join(t.TempDir(), "out"))
	if !strings.Contains(stderr, "started from point 1 of the L-BFGS path (1 iterations, 2 points scored): ELBO estimate ") ||
		!strings.Contains(stderr, "; the log density smoothed by sd 0.015625, as sd 1 was not finite around the start\n") {
		t.Errorf("no note of the path's smoothing:\n%s", stderr)
	}
}

// TestFitAtStartFails: a fit whose every step fails (--step-size 1e308:
// each leaves where the log density is finite, and the guard goes back
// to the start until its rollbacks run out) fails with exit 1, writes
// nothing and says why and which flag to change. It exited 0 with the
// start q as its answer (a mean of 0.0007 where the posterior's is 1.22).
func TestFitAtStartFails(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runSafe(t, "fit", poissonModel, poissonData, "--step-size", "1e308", "--quiet", "--out", out)
	if code != exitError || stdout != "" {
		t.Fatalf("exit %d, want %d; stdout:\n%s\nstderr:\n%s", code, exitError, stdout, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("--out %s exists (%v): a failed fit writes nothing", out, err)
	}
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "gpp: no step of the fit moved q for good: after 300 iterations") || !strings.Contains(lines[0], "q is still its start") {
		t.Errorf("the first line is %q, want the cause", lines[0])
	}
	if hint := lines[len(lines)-2]; !strings.HasPrefix(hint, "gpp: hint: --step-size 1e+308 is too large for this model") {
		t.Errorf("hint %q: want --step-size named", hint)
	}
	if last := lines[len(lines)-1]; last != "gpp: the fit failed: no output written" {
		t.Errorf("the last line is %q", last)
	}
}
