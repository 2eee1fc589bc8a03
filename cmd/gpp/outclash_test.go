package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvidenceOutClash: gpp fit and gpp sample with --evidence refuse an
// --out whose evidence.json is their data file, which the output would
// overwrite, and leave the directory as it was.
func TestEvidenceOutClash(t *testing.T) {
	const data = `{"y": [3, 5, 2, 4, 6, 1, 3, 4]}`
	dir := t.TempDir()
	path := writeFile(t, dir, evidenceFile, data)
	before := dirEntries(t, dir)
	want := "--out " + dir + ": the data file " + path + " would be overwritten by the output " + evidenceFile
	for _, cmd := range [][]string{{"fit"}, {"sample", "--chains", "1", "--warmup", "10", "--draws", "10"}} {
		args := append(cmd, poissonModel, path, "--evidence", "--out", dir)
		code, stdout, stderr := runSafe(t, args...)
		if code != exitError || stdout != "" || !strings.Contains(stderr, want) {
			t.Errorf("%s: exit %d, stdout %q, stderr:\n%s\nwant exit 1, nothing on stdout and a note:\n%s", cmd[0], code, stdout, stderr, want)
		}
		if after := dirEntries(t, dir); strings.Join(after, " ") != strings.Join(before, " ") {
			t.Errorf("%s: %s changed: %v, was %v", cmd[0], dir, after, before)
		}
	}
	if b, _ := os.ReadFile(path); string(b) != data {
		t.Errorf("the data file changed")
	}
}

// TestSampleStaleClash: a gpp sample into the directory of an earlier one
// refuses a data file there named as an optional output of that sample
// (staleInDir), which it would otherwise remove as stale after
// reading it.
func TestSampleStaleClash(t *testing.T) {
	counts, err := os.ReadFile(poissonData)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "s")
	short := []string{"--chains", "1", "--warmup", "10", "--draws", "10", "--quiet", "--out", dir}
	if code, _, stderr := runSafe(t, append([]string{"sample", poissonModel, poissonData}, short...)...); code != exitOK {
		t.Fatalf("the first sample: exit %d:\n%s", code, stderr)
	}
	for _, name := range []string{looFile, profileFile} {
		path := writeFile(t, dir, name, string(counts))
		want := "--out " + dir + ": the data file " + path + " would be removed, as a file that the earlier run there wrote (" + name + ")"
		code, stdout, stderr := runSafe(t, append([]string{"sample", poissonModel, path}, short...)...)
		if code != exitError || stdout != "" || !strings.Contains(stderr, want) {
			t.Errorf("%s: exit %d, stdout %q, stderr:\n%s\nwant exit 1, nothing on stdout and a note:\n%s", name, code, stdout, stderr, want)
		}
		if b, _ := os.ReadFile(path); string(b) != string(counts) {
			t.Errorf("%s: the data file changed or went", name)
		}
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFixedParamProfileNoClash: gpp sample --fixed-param --profile writes
// no profile.csv (a note says why), so a data file of that name in --out
// is no clash, and it stays.
func TestFixedParamProfileNoClash(t *testing.T) {
	counts, err := os.ReadFile(poissonData)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := writeFile(t, dir, profileFile, string(counts))
	code, _, stderr := runSafe(t, "sample", poissonModel, path, "--fixed-param", "--profile", "--chains", "1", "--draws", "10", "--out", dir)
	if code != exitOK || !strings.Contains(stderr, "nothing to profile and no "+profileFile) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 0 and the note that nothing is profiled", code, stderr)
	}
	if b, _ := os.ReadFile(path); string(b) != string(counts) {
		t.Errorf("the data file changed or went")
	}
}

// TestSamplePlotsModelClash: gpp sample --plots refuses an --out where its
// model file has the name of one of the plots (energy.png among them), which
// the plot would overwrite, and leaves the model as it was.
func TestSamplePlotsModelClash(t *testing.T) {
	src, err := os.ReadFile(poissonModel)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{tracePlot, energyPlot} {
		path := writeFile(t, dir, name, string(src))
		want := "--out " + dir + ": the model " + path + " would be overwritten by the output " + name
		code, stdout, stderr := runSafe(t, "sample", path, poissonData, "--plots", "--chains", "1", "--warmup", "10", "--draws", "10", "--out", dir)
		if code != exitError || stdout != "" || !strings.Contains(stderr, want) {
			t.Errorf("%s: exit %d, stdout %q, stderr:\n%s\nwant exit 1, nothing on stdout and a note:\n%s", name, code, stdout, stderr, want)
		}
		if b, _ := os.ReadFile(path); string(b) != string(src) {
			t.Errorf("%s: the model file changed", name)
		}
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
	}
}
