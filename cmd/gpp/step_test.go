package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/reftest"
)

// TestFitStepOutputs fits testdata/fit_step.gpp, whose outputs compare
// the param with constants and a replicate with the data, and reads
// draws.csv: every draw's 0/1 values agree with the comparisons computed
// from the same row, are written as ints, and summary.csv's mean of each
// is the share of draws where it holds, a posterior probability.
func TestFitStepOutputs(t *testing.T) {
	out := t.TempDir()
	code, _, stderr := runSafe(t, "fit", "testdata/fit_step.gpp", "testdata/fit_predictive.csv", "--quiet", "--seed", "1",
		"--output-draws", "400", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	y := []float64{3, 5, 2, 7, 4, 0, 6, 9} // testdata/fit_predictive.csv
	_, header, rows := readStanCSV(t, filepath.Join(out, "draws.csv"))
	col := columns(header)
	b2f := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	held := map[string]float64{}
	for d, r := range rows {
		lambda := r[col["lambda"]]
		if math.Abs(lambda-3.5) > 1e-4 && math.Abs(lambda-3) > 1e-4 && math.Abs(lambda-4) > 1e-4 { // clear of draws.csv's rounding
			band := lambda > 3 && lambda < 4
			for name, want := range map[string]float64{"big": b2f(lambda > 3.5), "band": b2f(band), "outside": b2f(!band)} {
				if got := r[col[name]]; got != want {
					t.Errorf("draw %d: %s = %v at lambda = %v, want %v", d, name, got, lambda, want)
				}
			}
		}
		n, most := 0.0, 0.0
		for i := range y {
			rep := r[col["y_rep."+strconv.Itoa(i+1)]]
			n += b2f(rep > y[i])
			most = max(most, rep)
		}
		if got := r[col["exceed"]]; math.Abs(got-n/8) > 1e-12 {
			t.Errorf("draw %d: exceed = %v, want %v", d, got, n/8)
		}
		if got := r[col["p_max"]]; got != b2f(most >= 9) {
			t.Errorf("draw %d: p_max = %v, largest replicate %v", d, got, most)
		}
		if d > 0 { // row 0 is q's mean
			for _, name := range []string{"big", "band", "outside", "p_max"} {
				held[name] += r[col[name]]
			}
		}
	}
	// The 0/1 columns are written as ints.
	raw, err := os.ReadFile(filepath.Join(out, "draws.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "lp__") {
			continue
		}
		cells := strings.Split(line, ",")
		for _, name := range []string{"big", "band", "outside", "p_max"} {
			if c := cells[col[name]]; c != "0" && c != "1" {
				t.Fatalf("%s written as %q in %q, want 0 or 1", name, c, line)
			}
		}
	}
	sum := reftest.ReadCSV(t, filepath.Join(out, "summary.csv"))
	draws := float64(len(rows) - 1)
	for _, r := range sum[1:] {
		n, ok := held[r[0]]
		if !ok {
			continue
		}
		mean, err := strconv.ParseFloat(r[2], 64)
		if err != nil || math.Abs(mean-n/draws) > 1e-9 {
			t.Errorf("summary.csv: mean of %s %q, want the share of draws where it holds, %v", r[0], r[2], n/draws)
		}
		delete(held, r[0])
	}
	if len(held) != 0 {
		t.Errorf("summary.csv lacks %v", held)
	}
}

// A comparison on a param typed at the REPL's prompt is evaluated over the
// draws of q, as an output is: mean(mu > c) is P(mu > c) under q, which
// for q's normal factor is Φ((mean - c)/sd). A let holding one may not
// feed the log joint.
func TestReplStepQuery(t *testing.T) {
	r, _, errb := newTestRepl()
	typeIn(r, "data y: int<lower=0>[N]", "param mu: real ~ Normal(0, 1)", "y ~ Poisson(exp(mu))",
		":data testdata/repl_counts.csv", ":fit --quiet --seed 1 --output-draws 4000")
	if r.fit == nil {
		t.Fatalf("no fit; errors:\n%s", errb.String())
	}
	errb.Reset() // the fit's warnings
	f := r.fit.res.Factor("mu")
	c := math.Round(f.Mean()[0]*10) / 10 // near the mean: a probability far from 0 and 1
	want := 0.5 * math.Erfc(-(f.Mean()[0]-c)/f.SD()[0]/math.Sqrt2)
	var out bytes.Buffer
	r.out = &out
	typeIn(r, "mean(mu > "+strconv.FormatFloat(c, 'f', 1, 64)+")", "mu > 0 && mu < 100")
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || errb.Len() > 0 {
		t.Fatalf("output:\n%s\nerrors:\n%s", out.String(), errb.String())
	}
	got, err := strconv.ParseFloat(lines[0], 64)
	if err != nil || want < 0.1 || want > 0.9 || math.Abs(got-want) > 0.03 {
		t.Errorf("mean(mu > %g) = %q, want about %.3f", c, lines[0], want)
	}
	if fields := strings.Fields(lines[2]); len(fields) != 12 || strings.Join(fields[:7], " ") != "mu > 0 && mu < 100" || fields[7] != "1" {
		t.Errorf("mu > 0 && mu < 100 printed %q, want a mean of 1", lines[2])
	}
	typeIn(r, "let z = mu > 0", "target += z")
	if !strings.Contains(errb.String(), "in an output it is allowed") {
		t.Errorf("errors:\n%s", errb.String())
	}
}
