package main

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// killAfterEnv makes the helper (helperEnv "fit-kill") kill itself with
// SIGKILL after that many renames of its commit (commitRenamed).
const killAfterEnv = "GPP_TEST_KILL_AFTER"

// killAfterRenames sets commitRenamed to kill the process after k renames.
func killAfterRenames(k int) {
	n := 0
	commitRenamed = func(string) {
		if n++; n == k {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // the signal is on its way
		}
	}
}

// looFixture writes looModel and 12 observations into dir.
func looFixture(t *testing.T, dir string) (model, data string) {
	t.Helper()
	model = writeFile(t, dir, "loo.gpp", looModel)
	data = writeFile(t, dir, "y.csv", "y\n1.2\n0.4\n2.9\n1.7\n-0.3\n1.1\n2.2\n0.8\n1.9\n3.4\n0.1\n1.5\n")
	return model, data
}

// gppNames lists the files in dir named as a gpp output (anyOutputName).
func gppNames(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, n := range dirEntries(t, dir) {
		if anyOutputName.MatchString(n) {
			out = append(out, n)
		}
	}
	return out
}

// checkManifest fails unless dir's fit.json lists exactly the gpp outputs
// in dir and each of them (but fit.json) has the sha256 it records; it
// returns the fit's seed.
func checkManifest(t *testing.T, dir string) int {
	t.Helper()
	ff := readFit(t, filepath.Join(dir, fitFileName))
	listed, present := slices.Sorted(slices.Values(ff.Files)), gppNames(t, dir)
	if strings.Join(listed, " ") != strings.Join(present, " ") {
		t.Errorf("fit.json lists %v, the directory holds %v", listed, present)
	}
	for _, n := range ff.Files {
		if n == fitFileName {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Errorf("%s: %v", n, err)
			continue
		}
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != ff.FileSHA256[n] {
			t.Errorf("%s is not the file that fit.json lists (sha256 %s, fit.json %q)", n, hex.EncodeToString(sum[:]), ff.FileSHA256[n])
		}
	}
	return int(ff.Settings.Seed)
}

// TestOutDirOtherCommandsFiles: a fit written where a gpp sample wrote
// removes the sample's files that it does not write (its loo.csv and
// coords.csv, of another model), so that gpp compare finds no loo.csv
// there instead of ranking the sample's; a sample written where that fit
// wrote removes the fit's fit.json and elbo.csv. Files that gpp does not
// name are left alone.
func TestOutDirOtherCommandsFiles(t *testing.T) {
	dir := t.TempDir()
	model, data := looFixture(t, dir)
	out := filepath.Join(dir, "out")
	sample := []string{"sample", model, data, "--chains", "1", "--warmup", "50", "--draws", "50", "--quiet", "--out", out}
	if code, _, stderr := runSafe(t, sample...); code != exitOK {
		t.Fatalf("sample: exit %d:\n%s", code, stderr)
	}
	if got := gppNames(t, out); !slices.Contains(got, looFile) || !slices.Contains(got, coordsFile) {
		t.Fatalf("the sample wrote %v, want loo.csv and coords.csv among them", got)
	}
	writeFile(t, out, "notes.txt", "mine")
	if code, _, stderr := runSafe(t, "fit", poissonModel, poissonData, "--quiet", "--iter", "100", "--output-draws", "20", "--out", out); code != exitOK {
		t.Fatalf("fit: exit %d:\n%s", code, stderr)
	}
	if got := strings.Join(dirEntries(t, out), " "); got != "draws.csv elbo.csv fit.json notes.txt summary.csv" {
		t.Errorf("after the fit: %s", got)
	}
	checkManifest(t, out)
	code, stdout, stderr := runSafe(t, "compare", out, out)
	if want := out + " has no " + looFile; code != exitError || stdout != "" || !strings.Contains(stderr, want) {
		t.Errorf("compare: exit %d, stdout %q, stderr:\n%s\nwant exit 1 and %q", code, stdout, stderr, want)
	}
	if code, _, stderr := runSafe(t, sample...); code != exitOK {
		t.Fatalf("the second sample: exit %d:\n%s", code, stderr)
	}
	if got := strings.Join(dirEntries(t, out), " "); got != "coords.csv draws.csv loo.csv notes.txt summary.csv" {
		t.Errorf("after the second sample: %s", got)
	}
}

// TestOutDirOrphans: a run that locks its output directory removes the
// temporary files that a killed run left there (.NAME.tmp-N, .NAME.old-N
// of a gpp output NAME), and no file of another name.
func TestOutDirOrphans(t *testing.T) {
	out := t.TempDir()
	orphans := []string{".draws.csv.tmp-123456", ".fit.json.old-42", ".loo.csv.tmp-7", ".trace.png.tmp-99"}
	kept := []string{".notes.txt.tmp-1", ".draws.csv.tmp-x", "draws.csv.tmp-5"}
	for _, n := range append(slices.Clone(orphans), kept...) {
		writeFile(t, out, n, "left")
	}
	if code, _, stderr := runSafe(t, "fit", poissonModel, poissonData, "--quiet", "--iter", "100", "--output-draws", "20", "--out", out); code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	got := dirEntries(t, out)
	for _, n := range orphans {
		if slices.Contains(got, n) {
			t.Errorf("%s left", n)
		}
	}
	for _, n := range kept {
		if !slices.Contains(got, n) {
			t.Errorf("%s removed", n)
		}
	}
}

// TestOutDirKilledCommit kills gpp fit (SIGKILL, in a helper process)
// after each rename of its commit over an earlier fit with another seed.
// A directory with a fit.json holds exactly the files it lists, of its own
// run (their sha256 as it records); until the last rename there is none,
// and gpp compare calls the directory incomplete. The next fit removes the
// killed one's temporary files.
func TestOutDirKilledCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs gpp fit in 7 processes")
	}
	dir := t.TempDir()
	model, data := looFixture(t, dir)
	out := filepath.Join(dir, "out")
	args := []string{model, data, "--quiet", "--iter", "200", "--output-draws", "50", "--plots", "--out", out}
	fit := func(seed int) {
		t.Helper()
		if code, _, stderr := runSafe(t, append([]string{"fit", "--seed", strconv.Itoa(seed)}, args...)...); code != exitOK {
			t.Fatalf("fit: exit %d:\n%s", code, stderr)
		}
	}
	fit(1)
	n := len(readFit(t, filepath.Join(out, fitFileName)).Files)
	if n < 5 {
		t.Fatalf("the fit wrote %d files, want 5 or more", n)
	}
	for _, k := range []int{1, 2, n - 2, n - 1, n} {
		fit(1)
		cmd := exec.Command(os.Args[0], append([]string{"--seed", "2"}, args...)...)
		cmd.Env = append(os.Environ(), helperEnv+"=fit-kill", killAfterEnv+"="+strconv.Itoa(k))
		outb, _ := cmd.CombinedOutput()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("k = %d: gpp was not killed: %v\n%s", k, cmd.ProcessState, outb)
		}
		_, err := os.Stat(filepath.Join(out, fitFileName))
		switch {
		case k < n && err == nil:
			t.Errorf("k = %d: a fit.json after %d of %d renames", k, k, n)
		case k == n && err != nil:
			t.Errorf("k = %d: no fit.json after every rename: %v", k, err)
		case err == nil:
			if seed := checkManifest(t, out); seed != 2 {
				t.Errorf("k = %d: fit.json of seed %d, want 2", k, seed)
			}
		}
		if k < n && slices.Contains(dirEntries(t, out), looFile) {
			code, stdout, stderr := runSafe(t, "compare", out, out)
			if want := out + " is incomplete"; code != exitError || stdout != "" || !strings.Contains(stderr, want) {
				t.Errorf("k = %d: compare: exit %d, stdout %q, stderr:\n%s\nwant exit 1 and %q", k, code, stdout, stderr, want)
			}
		}
	}
	fit(3)
	checkManifest(t, out)
	for _, e := range dirEntries(t, out) {
		if orphanName.MatchString(e) {
			t.Errorf("%s left after the next fit", e)
		}
	}
}

// TestCommitManifestLast: a commit renames fit.json after every other file
// of its set, in whatever order they were staged, and moves the old one
// aside before the first.
func TestCommitManifestLast(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, fitFileName, `{"format": "gpp-fit/1"}`)
	s := &staged{dir: dir}
	for _, n := range []string{fitFileName, drawsFile, summaryFile} {
		if err := s.write(n, func(w io.Writer) error { _, err := io.WriteString(w, "new "+n); return err }); err != nil {
			t.Fatal(err)
		}
	}
	var order []string
	defer func() { commitRenamed = nil }()
	commitRenamed = func(final string) {
		b, _ := os.ReadFile(filepath.Join(dir, fitFileName))
		if filepath.Base(final) != fitFileName && len(b) > 0 {
			t.Errorf("fit.json there (%q) when %s was renamed", b, filepath.Base(final))
		}
		order = append(order, filepath.Base(final))
	}
	if err := s.commit(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(order, " "); got != "draws.csv summary.csv fit.json" {
		t.Errorf("renamed %s, want draws.csv summary.csv fit.json", got)
	}
}

// TestCompareChangedLOO: gpp compare refuses a loo.csv that its fit.json
// lists with another sha256 (another fit's, copied over it).
func TestCompareChangedLOO(t *testing.T) {
	dir := t.TempDir()
	model, data := looFixture(t, dir)
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for i, out := range []string{a, b} {
		if code, _, stderr := runSafe(t, "fit", model, data, "--seed", strconv.Itoa(i+1), "--quiet", "--iter", "200", "--output-draws", "50", "--out", out); code != exitOK {
			t.Fatalf("fit: exit %d:\n%s", code, stderr)
		}
	}
	if code, _, stderr := runSafe(t, "compare", a, b); code != exitOK {
		t.Fatalf("compare: exit %d:\n%s", code, stderr)
	}
	other, err := os.ReadFile(filepath.Join(b, looFile))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, a, looFile, string(other))
	code, stdout, stderr := runSafe(t, "compare", a, b)
	if want := filepath.Join(a, looFile) + ": not the file that the fit in " + a + " wrote"; code != exitError || stdout != "" || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 1 and %q", code, stdout, stderr, want)
	}
}
