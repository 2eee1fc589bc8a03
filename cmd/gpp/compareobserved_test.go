package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/internal/fitfile"
)

// observedModel observes y alone: x, in a file of its own, is a covariate.
const observedModel = `data N: int
data x: real[N]
data y: real[N]
param a: real ~ Normal(0, 2)
param b: real ~ Normal(0, 2)
param s: positive ~ HalfNormal(1)
y ~ Normal(a + b * x, s)
output log_lik = logpdf(y, Normal(a + b * x, s))
`

// TestCompareObservedByHash: fit.json and a sample's draws.csv record the
// sha256 of the observed y's values, and gpp compare tells the same
// observations by them: fits that read the same y beside other covariate
// files compare without a warning (the MRP trial's fit with a states.csv
// and one without it warned), a fit of another y is warned of by name,
// and a fit.json without the hashes (an older one) falls back to the
// check of the data files.
func TestCompareObservedByHash(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "m.gpp", observedModel)
	y1 := writeFile(t, dir, "y1.csv", "y\n0.1\n1.2\n1.9\n3.2\n3.8\n5.1\n")
	// y1's values written otherwise (1.20, JSON): the same observations
	y1b := writeFile(t, dir, "y1.json", `{"y": [0.1, 1.20, 1.9, 3.2, 3.8, 5.1]}`)
	y2 := writeFile(t, dir, "y2.csv", "y\n0.1\n1.2\n1.9\n3.2\n3.8\n5.2\n")
	x1 := writeFile(t, dir, "x1.csv", "x\n0\n1\n2\n3\n4\n5\n")
	x2 := writeFile(t, dir, "x2.csv", "x\n0\n1\n2\n3\n4\n6\n")
	fit := func(name string, files ...string) string {
		out := filepath.Join(dir, name)
		args := append([]string{"fit", model}, files...)
		if code, _, stderr := runSafe(t, append(args, "--quiet", "--iter", "300", "--out", out)...); code != exitOK {
			t.Fatalf("fit %s: exit %d:\n%s", name, code, stderr)
		}
		return out
	}
	a := fit("a", y1, x1)
	b := fit("b", y1b, x2)
	c := fit("c", y2, x1)
	s := filepath.Join(dir, "s")
	if code, _, stderr := runSafe(t, "sample", model, y1, x2, "--chains", "1", "--warmup", "100", "--draws", "100", "--quiet", "--out", s); code != exitOK {
		t.Fatalf("sample: exit %d:\n%s", code, stderr)
	}
	want := fitfile.ObservedHashes([]string{"y"}, map[string]*data.Array{"y": {Shape: []int{6}, Values: []float64{0.1, 1.2, 1.9, 3.2, 3.8, 5.1}}})
	ff, err := readFitMeta(filepath.Join(a, fitFileName), sources{})
	if err != nil || ff == nil || len(ff.ObservedSHA256) != 1 || ff.ObservedSHA256["y"] != want["y"] {
		t.Errorf("fit.json's observed_sha256 %v (%v), want %v", ff, err, want)
	}
	if meta := readSampleMeta(filepath.Join(s, drawsFile), sources{}); meta == nil || len(meta.ObservedSHA256) != 1 || meta.ObservedSHA256["y"] != want["y"] {
		t.Errorf("the sample's observed_sha256 read back as %v, want %v", meta, want)
	}
	compare := func(x, y string) string {
		code, stdout, stderr := runSafe(t, "compare", x, y)
		if code != exitOK {
			t.Fatalf("compare %s %s: exit %d:\n%s%s", x, y, code, stdout, stderr)
		}
		return stderr
	}
	for _, other := range []string{b, s} {
		if e := compare(a, other); strings.Contains(e, "the same data") || strings.Contains(e, "the same observations") {
			t.Errorf("compare %s %s, of the same y beside other covariates: a warning:\n%s", a, other, e)
		}
	}
	if e, w := compare(a, c), "warning: "+a+" and "+c+" observe other values of y: LOO compares fits of the same observations"; !strings.Contains(e, w) {
		t.Errorf("compare of fits of two ys: want %q:\n%s", w, e)
	}
	// an older fit.json: no observed_sha256, so the files decide
	old := filepath.Join(dir, "old")
	if err := os.CopyFS(old, os.DirFS(b)); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(old, fitFileName))
	if err != nil {
		t.Fatal(err)
	}
	src = regexp.MustCompile(`(?s)"observed_sha256": \{.*?\},\s*`).ReplaceAll(src, nil)
	if strings.Contains(string(src), "observed_sha256") {
		t.Fatalf("observed_sha256 left in fit.json:\n%s", src)
	}
	writeFile(t, old, fitFileName, string(src))
	if e, w := compare(a, old), "warning: "+a+" read "+y1+" "+x1+", "+old+" read "+y1b+" "+x2+": LOO compares fits of the same data"; !strings.Contains(e, w) {
		t.Errorf("compare with a fit.json without observed_sha256: want %q:\n%s", w, e)
	}
}

// TestCompareResidualObserved: a ~ on a residual (y - (a + b * x) ~ D)
// records x as observed, and a fit of y ~ D(a + b * x) records it as a
// covariate (covariate_sha256, in fit.json and a sample's draws.csv):
// the energy trial's AR-on-residual fit and its iid fit of the same
// train.csv were warned to "observe other values of x". The same x
// compares without a warning; another x, read by the fit that does not
// observe it, is still a difference; and fits observing no name in
// common (y and z) differ in both.
func TestCompareResidualObserved(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "m.gpp", observedModel)
	resid := writeFile(t, dir, "r.gpp", `data N: int
data x: real[N]
data y: real[N]
param a: real ~ Normal(0, 2)
param b: real ~ Normal(0, 2)
param s: positive ~ HalfNormal(1)
let r = y - (a + b * x)
r ~ Normal(0, s)
output log_lik = logpdf(r, Normal(0, s))
`)
	y1 := writeFile(t, dir, "y1.csv", "y\n0.1\n1.2\n1.9\n3.2\n3.8\n5.1\n")
	x1 := writeFile(t, dir, "x1.csv", "x\n0\n1\n2\n3\n4\n5\n")
	x2 := writeFile(t, dir, "x2.csv", "x\n0\n1\n2\n3\n4\n6\n")
	run := func(name string, args ...string) string {
		out := filepath.Join(dir, name)
		if code, _, stderr := runSafe(t, append(args, "--quiet", "--out", out)...); code != exitOK {
			t.Fatalf("%s: exit %d:\n%s", name, code, stderr)
		}
		return out
	}
	r := run("r", "fit", resid, y1, x1, "--iter", "300")
	same := run("same", "sample", model, y1, x1, "--chains", "1", "--warmup", "100", "--draws", "100")
	other := run("other", "fit", model, y1, x2, "--iter", "300")
	ff, err := readFitMeta(filepath.Join(r, fitFileName), sources{})
	if err != nil || ff == nil || len(ff.ObservedSHA256) != 2 || ff.ObservedSHA256["x"] == "" {
		t.Fatalf("the residual fit's observed_sha256: %v (%v), want x and y", ff, err)
	}
	meta := readSampleMeta(filepath.Join(same, drawsFile), sources{})
	if meta == nil || meta.CovariateSHA256["x"] != ff.ObservedSHA256["x"] || meta.ObservedSHA256["x"] != "" {
		t.Fatalf("the sample's covariate_sha256 read back as %v, want x as the residual fit's %s", meta, ff.ObservedSHA256["x"])
	}
	compare := func(x, y string) string {
		code, stdout, stderr := runSafe(t, "compare", x, y)
		if code != exitOK {
			t.Fatalf("compare %s %s: exit %d:\n%s%s", x, y, code, stdout, stderr)
		}
		return stderr
	}
	if e := compare(r, same); strings.Contains(e, "the same observations") || strings.Contains(e, "the same data") {
		t.Errorf("compare of a residual fit and a fit of the same y and x: a warning:\n%s", e)
	}
	for _, p := range [][2]string{{other, r}, {r, other}} {
		if e, w := compare(p[0], p[1]), "warning: "+p[0]+" and "+p[1]+" observe other values of x:"; !strings.Contains(e, w) {
			t.Errorf("compare of fits reading other xs: want %q:\n%s", w, e)
		}
	}
	if d, known := otherObservations(map[string]string{"y": "1"}, map[string]string{"x": "2"}, map[string]string{"z": "3"}, map[string]string{"x": "2"}); !known || strings.Join(d, " ") != "y z" {
		t.Errorf("fits observing y and z: differ %v (known %v), want y z", d, known)
	}
}
