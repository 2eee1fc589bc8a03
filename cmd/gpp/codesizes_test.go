package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/fitfile"
)

// codeSizesModel is a varying-intercept model over numeric subject ids
// 0..S-1, written as in Stan with the group count S declared as data.
const codeSizesModel = `data S: int
data subj: int<lower=0, upper=S-1>[N]
data y: real[N]
param mu: real ~ Normal(0, 5)
param tau: positive ~ HalfNormal(1)
param sigma: positive ~ HalfNormal(1)
param z: real[S] ~ Normal(0, 1)
y ~ Normal(mu + tau * z[subj], sigma)
output m = mu + tau * z[subj]
`

// TestFitCodeSizes: a column of numeric ids 0..7 binds S = 8 with no
// --set (a note says so), the fit the same, byte for byte, as with --set
// S=8, its summary of z[0] .. z[7]; fit.json records S. gpp predict and
// gpp logprob on new data holding a few of the groups (ids 1 and 3) keep
// the fit's S, giving what --set S=8 gives, where the new ids alone would
// make S 4 and the params smaller than the fit's; so does predict over
// a sample, whose coords.csv records S. A fit given --set S=8 recorded
// no size, and predict from it without --set is the error that names the
// fit's; an id past the fit's groups is an error without --new-levels.
func TestFitCodeSizes(t *testing.T) {
	d := t.TempDir()
	model := writeFile(t, d, "m.gpp", codeSizesModel)
	var rows strings.Builder
	rows.WriteString("subj,y\n")
	for i := range 40 {
		k := (i * 3) % 8
		fmt.Fprintf(&rows, "%d,%.3f\n", k, 0.3*float64(k)-1+0.2*float64(i%5))
	}
	csv := writeFile(t, d, "d.csv", rows.String())
	fit := func(out string, extra ...string) (string, string) {
		t.Helper()
		args := append([]string{"fit", model, csv, "--quiet", "--iter", "300", "--output-draws", "50", "--out", out}, extra...)
		code, _, stderr := runSafe(t, args...)
		if code != 0 {
			t.Fatalf("gpp %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
		return readFile(t, filepath.Join(out, "summary.csv")), stderr
	}
	inferred, set := filepath.Join(d, "fit"), filepath.Join(d, "fit-set")
	sum, stderr := fit(inferred)
	if note := "note: " + csv + ": S = 8 from the largest value of subj (7) + 1\n"; !strings.Contains(stderr, note) {
		t.Errorf("stderr:\n%s\nwant the note %q", stderr, note)
	}
	if !strings.Contains(sum, "\nz[7],") || strings.Contains(sum, "\nz[8],") {
		t.Errorf("summary.csv:\n%s\nwant z[0] .. z[7]", sum)
	}
	if sumSet, stderrSet := fit(set, "--set", "S=8"); sumSet != sum || strings.Contains(stderrSet, "S = 8") {
		t.Errorf("with --set S=8 (stderr %q) summary.csv:\n%s\nwant\n%s", stderrSet, sumSet, sum)
	}
	var ff fitfile.File
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(inferred, fitFileName))), &ff); err != nil {
		t.Fatal(err)
	}
	if ff.Sizes["S"] != 8 || len(ff.Sizes) != 1 {
		t.Errorf("fit.json sizes %v, want S 8", ff.Sizes)
	}

	newData := writeFile(t, d, "new.csv", "subj,y\n3,0.1\n1,-0.4\n3,0.2\n")
	predict := func(fit, out string, extra ...string) (string, string) {
		t.Helper()
		args := append([]string{"predict", fit, model, newData, "--quiet", "--out", out}, extra...)
		code, _, stderr := runSafe(t, args...)
		if code != 0 {
			t.Fatalf("gpp %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
		return draws(readFile(t, filepath.Join(out, "draws.csv"))), stderr
	}
	got, stderr := predict(inferred, filepath.Join(d, "p"))
	want, _ := predict(set, filepath.Join(d, "p-set"), "--set", "S=8")
	if got != want {
		t.Errorf("predict on ids 1, 3 differs from --set S=8's:\n%.400s\nwant\n%.400s", got, want)
	}
	if note := "S = 8 from the fit (the largest value of its ids; here subj's is 3)"; !strings.Contains(stderr, note) {
		t.Errorf("predict stderr:\n%s\nwant %q", stderr, note)
	}
	logprob := func(extra ...string) string {
		t.Helper()
		args := append([]string{"logprob", model, newData, "--params", filepath.Join(inferred, "draws.csv")}, extra...)
		code, stdout, stderr := runSafe(t, args...)
		if code != 0 {
			t.Fatalf("gpp %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
		return stdout
	}
	if got, want := logprob(), logprob("--set", "S=8"); got != want {
		t.Errorf("logprob on ids 1, 3 differs from --set S=8's:\n%.400s\nwant\n%.400s", got, want)
	}
	// a sample records S in coords.csv, and predict over its draws keeps it
	smp := filepath.Join(d, "sample")
	if code, _, stderr := runSafe(t, "sample", model, csv, "--quiet", "--chains", "1", "--warmup", "60", "--draws", "20", "--out", smp); code != 0 {
		t.Fatalf("gpp sample: exit %d: %s", code, stderr)
	}
	if coords := readFile(t, filepath.Join(smp, coordsFile)); !strings.Contains(coords, "\n# size S = 8\n") {
		t.Errorf("coords.csv has no line %q:\n%.600s", "# size S = 8", coords)
	}
	// so does a --fixed-param run's (drawsHeader.recordData)
	fixed := filepath.Join(d, "fixed")
	if code, _, stderr := runSafe(t, "sample", model, csv, "--quiet", "--fixed-param", "--chains", "1", "--draws", "5", "--out", fixed); code != 0 {
		t.Fatalf("gpp sample --fixed-param: exit %d: %s", code, stderr)
	}
	if coords := readFile(t, filepath.Join(fixed, coordsFile)); !strings.Contains(coords, "\n# size S = 8\n") {
		t.Errorf("--fixed-param: coords.csv has no line %q:\n%.600s", "# size S = 8", coords)
	}
	got, _ = predict(smp, filepath.Join(d, "ps"))
	want, _ = predict(smp, filepath.Join(d, "ps-set"), "--set", "S=8")
	if got != want {
		t.Errorf("predict over the sample on ids 1, 3 differs from --set S=8's:\n%.400s\nwant\n%.400s", got, want)
	}
	// a fit given --set S=8 recorded no size, and the new ids give none:
	// S is the fit's, read off z's shape there
	code, _, stderr := runSafe(t, "predict", set, model, newData, "--out", filepath.Join(d, "p-unset"))
	if want := "--set S=8 from the fit (the size of param z's shape there"; code != 0 || !strings.Contains(stderr, want) {
		t.Errorf("predict from the --set fit without --set: exit %d, stderr:\n%s\nwant 0 and %q", code, stderr, want)
	}
	past := writeFile(t, d, "past.csv", "subj\n9\n")
	code, _, stderr = runSafe(t, "predict", inferred, model, past, "--quiet", "--out", filepath.Join(d, "p-past"))
	if want := "param z is real[10] here, but the fit at " + filepath.Join(inferred, fitFileName) + " has z: real[8]"; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("an id past the fit's groups: exit %d, stderr:\n%s\nwant 1 and %q", code, stderr, want)
	}
}
