package main

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestAgainstReadings: the reading of an element takes both the practical
// tolerance and the Monte Carlo errors into account, whatever sampler
// gave the numbers: an sd ratio of 0.8 is "q too narrow" with 2000
// effective draws and not with 20 (its relative error then ~0.16), a mean
// 0.5 sd off is "q shifted" when its error is small, and a difference
// below the tolerance is "agrees" however precise the draws.
func TestAgainstReadings(t *testing.T) {
	precise := mcmcStats{mcse: 0.01, essBulk: 2000, essTail: 2000}
	noisy := mcmcStats{mcse: 0.3, essBulk: 20, essTail: 20}
	for _, c := range []struct {
		name           string
		qm, qs, qDraws float64
		mc             mcmcStats
		want           string
		flagged        bool
	}{
		{"narrow", 0, 0.8, 4000, precise, "q too narrow", true},
		{"narrow noisy", 0, 0.8, 4000, noisy, "within Monte Carlo error", false},
		{"narrow, few q draws", 0, 0.8, 20, precise, "within Monte Carlo error", false},
		{"wide", 0, 1.3, 4000, precise, "q too wide", true},
		{"shifted", 0.5, 1, 4000, precise, "q shifted above", true},
		{"shifted below and narrow", -0.5, 0.5, 4000, precise, "q shifted below, q too narrow", true},
		{"shifted noisy", 0.5, 1, 4000, noisy, "within Monte Carlo error", false},
		{"agrees", 0.05, 1.05, 4000, precise, "agrees", false},
		{"agrees noisy", 0.05, 1.05, 4000, noisy, "agrees", false},
		{"constant", 0, 1, 4000, precise, "not compared", false},
	} {
		s := 1.0
		if c.name == "constant" {
			s = 0
		}
		r := againstElem("x", c.qm, c.qs, c.qDraws, 0, s, c.mc)
		if !strings.HasPrefix(r.reading, c.want) || r.flagged != c.flagged {
			t.Errorf("%s: reading %q (flagged %v), want %q (flagged %v)", c.name, r.reading, r.flagged, c.want, c.flagged)
		}
	}
	// z's error: the two means' errors over NUTS's sd
	r := againstElem("x", 1, 2, 100, 0, 4, mcmcStats{mcse: 0.3, essBulk: 50, essTail: 80})
	if want := math.Sqrt(0.09+4.0/100) / 4; math.Abs(r.seZ-want) > 1e-15 || r.z != 0.25 || r.ratio != 0.5 {
		t.Errorf("z %v ± %v, ratio %v; want 0.25 ± %v, 0.5", r.z, r.seZ, r.ratio, want)
	}
	if want := 0.5 * math.Sqrt(1.0/100+1.0/200); math.Abs(r.seRatio-want) > 1e-15 {
		t.Errorf("the sd ratio's error %v, want %v (from the smaller ESS, 50)", r.seRatio, want)
	}
}

// TestAgainstDraws: the fit's summary counts its output draws, and fewer
// when they were resampled from weighted candidates (--psis-resample).
func TestAgainstDraws(t *testing.T) {
	ff := &fitFile{}
	ff.Settings.OutputDraws = 1000
	if got := againstDraws(ff); got != 1000 {
		t.Errorf("%v draws, want the 1000 output draws", got)
	}
	ff.Resample = &fitResample{ESS: 250}
	if got := againstDraws(ff); got != 1000 {
		t.Errorf("%v draws with draws not resampled, want 1000", got)
	}
	ff.Resample.Resampled = true
	if got := againstDraws(ff); got != 200 {
		t.Errorf("%v draws resampled from candidates of ESS 250, want 1/(1/1000 + 1/250) = 200", got)
	}
}

// TestAgainstSummary: the summary line counts the elements within 0.1 sd,
// takes the median sd ratio and names the worst flagged elements first.
func TestAgainstSummary(t *testing.T) {
	rows := []againstRow{
		{name: "a", z: 0.05, ratio: 0.5, flagged: true},
		{name: "b", z: 0.02, ratio: 0.9},
		{name: "c", z: 1.5, ratio: 1, flagged: true},
		{name: "d", z: -0.2, ratio: 1.2},
	}
	got := againstSummary(rows)
	want := "2 of 4 elements within 0.1 sd of NUTS's mean, median sd ratio 0.95; 2 differ, the worst: c (z 1.5, sd ratio 1), a (z 0.05, sd ratio 0.5)"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestSampleAgainstCorrelated compares mean-field and full-rank fits of a
// regression on an uncentred x (intercept and slope correlated -0.976 a
// posteriori: exact sds 1.328 and 0.0836) with NUTS. A mean-field q's
// marginal sds are about √(1 − ρ²) ≈ 0.22 of the posterior's: both
// coefficients read "q too narrow"; a full-rank q's are the posterior's (the
// fit's sds are within 2 % of the exact ones): neither is too narrow or
// too wide. Needs a correct infer/nuts (the sds of the draws).
func TestSampleAgainstCorrelated(t *testing.T) {
	dir := t.TempDir()
	model, data := "testdata/against_reg.gpp", "testdata/against_reg.csv"
	for _, f := range []struct{ out, flag string }{{"mf", ""}, {"fr", "all"}} {
		args := []string{"fit", model, data, "--quiet", "--out", filepath.Join(dir, f.out)}
		if f.flag != "" {
			args = append(args, "--fullrank", f.flag)
		}
		if code, _, stderr := runGpp(args...); code != exitOK {
			t.Fatalf("fit %s: exit %d:\n%s", f.out, code, stderr)
		}
	}
	for _, c := range []struct {
		fit, against string
		lo, hi       float64
	}{{"mf", "mf", 0, 0.5}, {"fr", "fr/summary.csv", 0.8, 1.25}} {
		out := filepath.Join(dir, "s-"+c.fit)
		code, stdout, stderr := runGpp("sample", model, data, "--quiet", "--seed", "2", "--out", out, "--against", filepath.Join(dir, c.against))
		if code != exitOK {
			t.Fatalf("sample --against %s: exit %d:\n%s", c.against, code, stderr)
		}
		if !strings.Contains(stdout, "against      ") {
			t.Errorf("sample --against %s printed no summary line:\n%s", c.against, stdout)
		}
		rows := readCSVRows(t, filepath.Join(out, againstFile))
		if len(rows) != 2 {
			t.Fatalf("%s: against.csv has %d rows, want 2 (a, b)", c.fit, len(rows))
		}
		for _, r := range rows {
			ratio := parseNum(t, r["sd_ratio"])
			t.Logf("%s %s: z %s, sd ratio %s, %s", c.fit, r["name"], r["z"], r["sd_ratio"], r["reading"])
			if !(ratio > c.lo && ratio < c.hi) {
				t.Errorf("%s %s: sd ratio %v, want in (%v, %v)", c.fit, r["name"], ratio, c.lo, c.hi)
			}
			narrow := strings.Contains(r["reading"], "too narrow")
			if want := c.fit == "mf"; narrow != want || strings.Contains(r["reading"], "too wide") {
				t.Errorf("%s %s: reading %q, want too narrow: %v", c.fit, r["name"], r["reading"], want)
			}
		}
	}
}

// TestSampleAgainstStale: a sample without --against into a directory that
// a sample with it wrote removes the earlier against.csv, which would be
// read as the new draws' comparison.
func TestSampleAgainstStale(t *testing.T) {
	dir := t.TempDir()
	fit, out := filepath.Join(dir, "fit"), filepath.Join(dir, "s")
	if code, _, stderr := runGpp("fit", poissonModel, poissonData, "--quiet", "--out", fit); code != exitOK {
		t.Fatalf("fit: exit %d:\n%s", code, stderr)
	}
	short := []string{"sample", poissonModel, poissonData, "--quiet", "--chains", "2", "--warmup", "50", "--draws", "50", "--out", out}
	if code, _, stderr := runGpp(append(short, "--against", fit)...); code != exitOK {
		t.Fatalf("sample --against: exit %d:\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, againstFile)); err != nil {
		t.Fatalf("no against.csv: %v", err)
	}
	if code, _, stderr := runGpp(short...); code != exitOK {
		t.Fatalf("sample: exit %d:\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, againstFile)); err == nil {
		t.Errorf("the earlier against.csv was left in %s", out)
	}
	// --out may not be the fit's own directory
	if code, _, stderr := runGpp(append(short[:len(short)-1], fit, "--against", fit)...); code != exitError || !strings.Contains(stderr, "the fit's own directory") {
		t.Errorf("--out the fit's directory: exit %d, stderr:\n%s", code, stderr)
	}
}

// readCSVRows reads a CSV file with a header into one map per row.
func readCSVRows(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, r := range rows[1:] {
		m := map[string]string{}
		for j, h := range rows[0] {
			m[h] = r[j]
		}
		out = append(out, m)
	}
	return out
}

// parseNum parses a number as formatNum writes it.
func parseNum(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v
}
