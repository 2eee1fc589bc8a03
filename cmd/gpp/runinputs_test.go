package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fitLOO fits looModel to a few numbers into dir/name (fitInto), a fit
// that writes a loo.csv, and returns that directory.
func fitLOO(t *testing.T, dir, name string) string {
	t.Helper()
	model := writeFile(t, dir, "loo.gpp", looModel)
	data := writeFile(t, dir, "y.csv", "y\n1.2\n-0.3\n2.5\n0.7\n1.9\n-1.1\n0.4\n3.0\n")
	return fitInto(t, dir, name, model, data, "--iter", "200", "--seed", "1")
}

// dirSums returns each file of dir with the sha256 of its contents.
func dirSums(t *testing.T, dir string) []string {
	t.Helper()
	var sums []string
	for _, name := range dirEntries(t, dir) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		sums = append(sums, name+" "+hex.EncodeToString(sum[:]))
	}
	return sums
}

// TestSummaryOutClash: gpp summary --out refuses the draws file it reads
// and every file of the fit whose directory holds it (fit.json lists
// them), before writing anything, and leaves the fit as it was; a file of
// another name there is written.
func TestSummaryOutClash(t *testing.T) {
	fit := fitLOO(t, t.TempDir(), "fit")
	before := dirSums(t, fit)
	for _, tc := range []struct{ arg, out string }{
		{filepath.Join(fit, drawsFile), filepath.Join(fit, drawsFile)},
		{fit, filepath.Join(fit, fitFileName)},
		{fit, filepath.Join(fit, summaryFile)},
		{fit, filepath.Join(fit, elboFile)},
		{fit, filepath.Join(fit, looFile)},
	} {
		code, stdout, stderr := runSafe(t, "summary", tc.arg, "--out", tc.out)
		want := "--out " + tc.out + " would overwrite an input"
		if code != exitError || stdout != "" || !strings.Contains(stderr, want) {
			t.Errorf("summary %s --out %s: exit %d, stdout %q, stderr:\n%s\nwant exit 1, nothing on stdout and %q", tc.arg, tc.out, code, stdout, stderr, want)
		}
		if after := dirSums(t, fit); !slices.Equal(after, before) {
			t.Fatalf("summary %s --out %s changed the fit: %v, was %v", tc.arg, tc.out, after, before)
		}
	}
	other := filepath.Join(fit, "again.csv")
	if code, _, stderr := runSafe(t, "summary", fit, "--out", other); code != exitOK {
		t.Errorf("summary --out %s: exit %d:\n%s", other, code, stderr)
	}
}

// TestCompareOutClash: gpp compare --csv and --plot refuse every file
// that compare reads (a fit's loo.csv and fit.json) and every other file
// of a compared fit, and leave the fits as they were.
func TestCompareOutClash(t *testing.T) {
	dir := t.TempDir()
	a, b := fitLOO(t, dir, "a"), fitLOO(t, dir, "b")
	beforeA, beforeB := dirSums(t, a), dirSums(t, b)
	for _, tc := range []struct{ flag, out string }{
		{"--csv", filepath.Join(a, fitFileName)},
		{"--csv", filepath.Join(a, looFile)},
		{"--csv", filepath.Join(a, drawsFile)},
		{"--csv", filepath.Join(b, summaryFile)},
		{"--plot", filepath.Join(b, fitFileName) + ".png"}, // not an input: written below
	} {
		code, stdout, stderr := runSafe(t, "compare", a, b, tc.flag, tc.out)
		if strings.HasSuffix(tc.out, ".png") {
			if code != exitOK {
				t.Errorf("compare %s %s: exit %d:\n%s", tc.flag, tc.out, code, stderr)
			}
			os.Remove(tc.out)
			continue
		}
		want := tc.flag + " " + tc.out + " would overwrite an input"
		if code != exitError || stdout != "" || !strings.Contains(stderr, want) {
			t.Errorf("compare %s %s: exit %d, stdout %q, stderr:\n%s\nwant exit 1, nothing on stdout and %q", tc.flag, tc.out, code, stdout, stderr, want)
		}
	}
	if after := dirSums(t, a); !slices.Equal(after, beforeA) {
		t.Errorf("compare changed %s: %v, was %v", a, after, beforeA)
	}
	if after := dirSums(t, b); !slices.Equal(after, beforeB) {
		t.Errorf("compare changed %s: %v, was %v", b, after, beforeB)
	}
}

// TestRefitKeepsUserFiles: a second fit into a fit's directory removes
// only the files that the first fit's fit.json lists and the second does
// not write; a user's files there of gpp's names that the first fit never
// wrote (loo.csv of a model without log_lik, coords.csv, intervals.png)
// stay.
func TestRefitKeepsUserFiles(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	args := []string{"fit", poissonModel, poissonData, "--quiet", "--iter", "200", "--seed", "1", "--out", out}
	if code, _, stderr := runSafe(t, append(args, "--plots")...); code != exitOK {
		t.Fatalf("the first fit: exit %d:\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, elboPlot)); err != nil {
		t.Fatalf("the first fit wrote no %s: %v", elboPlot, err)
	}
	mine := map[string]string{looFile: "mine\n", coordsFile: "mine\n", "notes.txt": "mine\n"}
	for name, content := range mine {
		writeFile(t, out, name, content)
	}
	if code, _, stderr := runSafe(t, args...); code != exitOK {
		t.Fatalf("the second fit: exit %d:\n%s", code, stderr)
	}
	for name, content := range mine {
		if b, err := os.ReadFile(filepath.Join(out, name)); err != nil || string(b) != content {
			t.Errorf("the user's %s: %q, %v; want it kept", name, b, err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, elboPlot)); err == nil {
		t.Errorf("the first fit's %s is left: the second fit has no --plots", elboPlot)
	}
}

// TestSummaryPlotsClash: gpp summary --plots refuses a plot that the fit
// in its directory lists (fit.json holds its sha256), but writes into a
// gpp sample's directory, which lists none, again and again: its plots
// are no input (the second run was refused, "would overwrite an input").
func TestSummaryPlotsClash(t *testing.T) {
	dir := t.TempDir()
	fit := fitInto(t, dir, "fit", poissonModel, poissonData, "--iter", "200", "--seed", "1", "--plots")
	if _, err := os.Stat(filepath.Join(fit, intervalsPlot)); err != nil {
		t.Fatalf("the fit wrote no %s: %v", intervalsPlot, err)
	}
	before := dirSums(t, fit)
	code, _, stderr := runSafe(t, "summary", fit, "--plots", fit)
	if want := "--plots " + filepath.Join(fit, intervalsPlot) + " would overwrite an input"; code != exitError || !strings.Contains(stderr, want) {
		t.Errorf("summary --plots into the fit: exit %d, stderr:\n%s\nwant exit 1 and %q", code, stderr, want)
	}
	if after := dirSums(t, fit); !slices.Equal(after, before) {
		t.Errorf("summary --plots changed the fit: %v, was %v", after, before)
	}
	s := filepath.Join(dir, "sample")
	if code, _, stderr := runSafe(t, "sample", poissonModel, poissonData, "--quiet", "--chains", "2", "--warmup", "100", "--draws", "100", "--out", s); code != exitOK {
		t.Fatalf("sample: exit %d:\n%s", code, stderr)
	}
	for i := range 2 {
		if code, _, stderr := runSafe(t, "summary", s, "--plots", s); code != exitOK {
			t.Errorf("summary --plots into the sample's directory, run %d: exit %d:\n%s", i+1, code, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(s, tracePlot)); err != nil {
		t.Errorf("no %s: %v", tracePlot, err)
	}
}
