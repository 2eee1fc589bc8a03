package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexPerDrawOutputs: an output indexing data by a value drawn per
// draw (Stan's generated quantities, year[s] with s ~ Categorical) is
// evaluated at every draw by gpp fit and gpp sample, alike by gpp predict
// on the fit, and as a REPL query; an index out of range at some draws is
// a warning naming the output, the value and the range, that output NaN
// there; the log joint reading such an index is refused at the index.
func TestIndexPerDrawOutputs(t *testing.T) {
	dir := t.TempDir()
	const src = `data year: real[N]
data y: int[N]
param e: positive ~ Gamma(1, 1)
y ~ Poisson(e)
output s ~ Categorical(softmax(rep(0, N)))
output s_year = year[s]
output pair = year[[s, 0]]
`
	model := writeFile(t, dir, "m.gpp", src)
	data := writeFile(t, dir, "d.csv", "year,y\n1990,3\n1991,4\n1992,2\n1993,5\n")
	years := []float64{1990, 1991, 1992, 1993}
	perDraw := func(what, path string) {
		t.Helper()
		rows := readDrawsCSV(t, path)
		seen := map[float64]bool{}
		for i, r := range rows {
			s := r["s"]
			if s < 0 || s > 3 || r["s_year"] != years[int(s)] || r["pair.1"] != years[int(s)] || r["pair.2"] != 1990 {
				t.Fatalf("%s row %d: s %v, s_year %v, pair %v %v", what, i, s, r["s_year"], r["pair.1"], r["pair.2"])
			}
			seen[s] = true
		}
		if len(seen) != 4 {
			t.Errorf("%s: s took the values %v, want all 4", what, seen)
		}
	}
	fit := filepath.Join(dir, "fit")
	if code, _, stderr := runSafe(t, "fit", model, data, "--output-draws", "200", "--quiet", "--out", fit); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	perDraw("fit", filepath.Join(fit, "draws.csv"))
	pred := filepath.Join(dir, "pred")
	if code, _, stderr := runSafe(t, "predict", filepath.Join(fit, "fit.json"), model, data, "--quiet", "--out", pred); code != 0 {
		t.Fatalf("predict: exit %d: %s", code, stderr)
	}
	sameDraws(t, filepath.Join(fit, "draws.csv"), filepath.Join(pred, "draws.csv"))
	smp := filepath.Join(dir, "smp")
	if code, _, stderr := runSafe(t, "sample", model, data, "--chains", "1", "--warmup", "100", "--draws", "100", "--quiet", "--out", smp); code != 0 {
		t.Fatalf("sample: exit %d: %s", code, stderr)
	}
	perDraw("sample", filepath.Join(smp, "draws.csv"))

	var b bytes.Buffer
	if code := run([]string{"repl", model, data, "--history", "-"}, strings.NewReader(":fit --quiet\nmean(year[s] == s_year)\n"), &b, &b); code != 0 {
		t.Fatalf("repl: exit %d:\n%s", code, b.String())
	}
	if want := ">>> mean(year[s] == s_year)\n1\n"; !strings.Contains(b.String(), want) {
		t.Errorf("repl transcript lacks %q:\n%s", want, b.String())
	}

	bad := writeFile(t, dir, "bad.gpp", strings.Replace(src, "year[s]", "year[s + 1]", 1))
	code, _, stderr := runSafe(t, "fit", bad, data, "--output-draws", "200", "--out", filepath.Join(dir, "badfit"))
	if want := "bad.gpp:6:22: output `s_year`: `year[s + 1]`: index 4 out of range [0, 4) at this draw; indices are 0-based: the last is 3"; code != 0 || !strings.Contains(stderr, want) {
		t.Errorf("fit of bad.gpp: exit %d, stderr lacks %q:\n%s", code, want, stderr)
	}

	joint := writeFile(t, dir, "joint.gpp", src+"target += year[e > 2]\n")
	code, _, stderr = runSafe(t, "fit", joint, data, "--out", filepath.Join(dir, "jointfit"))
	if want := "joint.gpp:8:16: an index must be known before the fit (data, constants, loop variables and lets of them); `e > 2` depends on the param `e`, whose value changes with the draws"; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("fit of joint.gpp: exit %d, stderr lacks %q:\n%s", code, want, stderr)
	}
}
