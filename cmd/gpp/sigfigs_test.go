package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSigFigs: --sig-figs sets the printed table's digits in gpp fit, as
// gpp summary's does (a course trial's intercept 154.42 printed as 154),
// and summary.csv is the same with or without it; 0 and 16 are usage
// errors.
func TestSigFigs(t *testing.T) {
	d := t.TempDir()
	model, data := filepath.Join("..", "..", "examples", "regression.gpp"), filepath.Join("..", "..", "examples", "wine_std.csv")
	fit := func(out string, more ...string) string {
		t.Helper()
		code, stdout, stderr := runGpp(append([]string{"fit", model, data, "--quiet", "--out", filepath.Join(d, out)}, more...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", more, code, stderr)
		}
		return stdout
	}
	three, six := fit("a"), fit("b", "--sig-figs", "6")
	row := func(out, name string) []string {
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) > 3 && f[0] == name {
				return f
			}
		}
		t.Fatalf("no row %s in:\n%s", name, out)
		return nil
	}
	if a, b := row(three, "sigma"), row(six, "sigma"); len(strings.Trim(a[2], "0.")) != 3 || len(strings.Trim(b[2], "0.")) != 6 || !strings.HasPrefix(strings.ReplaceAll(b[2], ".", ""), strings.ReplaceAll(a[2], ".", "")[:2]) {
		t.Errorf("sigma's mean %s at 3 and %s at 6 significant digits", a[2], b[2])
	}
	if readFile(t, filepath.Join(d, "a", summaryFile)) != readFile(t, filepath.Join(d, "b", summaryFile)) {
		t.Errorf("summary.csv depends on --sig-figs")
	}
	for _, bad := range []string{"0", "16"} {
		code, _, stderr := runGpp("fit", model, data, "--quiet", "--out", filepath.Join(d, "c"), "--sig-figs", bad)
		if code != 2 || !strings.Contains(stderr, "--sig-figs "+bad+": give 1 to 15 significant digits") {
			t.Errorf("--sig-figs %s: exit %d, %s", bad, code, stderr)
		}
	}
}

// TestReplSampleSigFigs: the REPL's :sample takes gpp sample's flags, and
// its table follows --sig-figs as gpp sample's does (it printed 3 digits
// whatever the flag said).
func TestReplSampleSigFigs(t *testing.T) {
	const flags = "--chains 1 --warmup 200 --draws 200 --seed 3"
	r, _, errb, three := sampleSession(t, flags)
	if r.sample == nil {
		t.Fatalf("no sample; errors:\n%s", errb)
	}
	_, _, _, six := sampleSession(t, flags+" --sig-figs 6")
	mean := func(printed string) string {
		for _, l := range strings.Split(printed, "\n") {
			if f := strings.Fields(l); len(f) > 3 && f[0] == "lambda" {
				return f[1]
			}
		}
		t.Fatalf("no row lambda in:\n%s", printed)
		return ""
	}
	c := r.sample.run.sd.ds.vars[0].first // lambda
	m := r.sample.run.st[c].mean
	if a, b := mean(three), mean(six); a != numSig(m, 3) || b != numSig(m, 6) {
		t.Errorf("lambda's mean %s at 3 and %s at 6 significant digits, want %s and %s", a, b, numSig(m, 3), numSig(m, 6))
	}
}

// TestNumSig: a number below 10⁶ with more digits than sig prints whole
// (a year's mean 1891, not 1.89e+03), including one that rounds up to
// 10^sig (999.7 at 3 digits: 1000, not 1e+03); others keep sig digits.
func TestNumSig(t *testing.T) {
	for _, c := range []struct {
		v    float64
		sig  int
		want string
	}{
		{1890.6, 3, "1891"},
		{-6617.4, 3, "-6617"},
		{999.7, 3, "1000"},
		{99.96, 3, "100"},
		{999.4, 3, "999"},
		{123.456, 3, "123"},
		{1890.6, 6, "1890.6"},
		{1.5e6 + 0.5, 3, "1.5e+06"},
		{0.0012345, 3, "0.00123"},
		{42, 3, "42"},
	} {
		if got := numSig(c.v, c.sig); got != c.want {
			t.Errorf("numSig(%g, %d) = %q, want %q", c.v, c.sig, got, c.want)
		}
	}
}
