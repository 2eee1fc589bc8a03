package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/reftest"
)

// radiocarbonTruth are the calendar ages the dates of
// testdata/radiocarbon_dates.json were simulated at.
var radiocarbonTruth = []float64{2210, 2645, 3080, 3355, 3815, 4270}

// radiocarbonExact returns the exact posterior mean and sd of each date of
// testdata/radiocarbon_interp.gpp: the dates are independent, each
// t ~ Uniform(2000, 4480) with y ~ Normal(c(t), sqrt(s² + e(t)²)), c and e
// the curve's columns interpolated by a linear scan, summed on a grid of
// 0.25 years.
func radiocarbonExact(t *testing.T) (mean, sd []float64) {
	t.Helper()
	rows := reftest.ReadCSV(t, "testdata/radiocarbon_curve.csv")
	var xp, fp, ep []float64
	for _, r := range rows[1:] {
		for i, dst := range []*[]float64{&xp, &fp, &ep} {
			v, err := strconv.ParseFloat(r[i], 64)
			if err != nil {
				t.Fatal(err)
			}
			*dst = append(*dst, v)
		}
	}
	raw, err := os.ReadFile("testdata/radiocarbon_dates.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct{ Y, S []float64 }
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	at := func(f []float64, x float64) float64 {
		for j := 0; j+1 < len(xp); j++ {
			if xp[j] <= x && x < xp[j+1] {
				return f[j] + (x-xp[j])/(xp[j+1]-xp[j])*(f[j+1]-f[j])
			}
		}
		return f[len(f)-1]
	}
	for i, y := range d.Y {
		var w, m1, m2 float64
		for k := 0; k <= 4*2480; k++ {
			x := 2000 + float64(k)/4
			v := d.S[i]*d.S[i] + at(ep, x)*at(ep, x)
			r := y - at(fp, x)
			p := math.Exp(-r*r/(2*v)) / math.Sqrt(v)
			w, m1, m2 = w+p, m1+p*x, m2+p*x*x
		}
		mu := m1 / w
		mean, sd = append(mean, mu), append(sd, math.Sqrt(m2/w-mu*mu))
	}
	return mean, sd
}

// TestInterpRadiocarbon: calibrating six radiocarbon dates through
// interp(t, calBP, c14) on an uneven synthetic curve, gpp sample (NUTS
// across the curve's kinks) and gpp fit agree with each date's exact
// posterior (a grid), which covers the date's true age: NUTS's means
// within 4 Monte Carlo standard errors and its sds within 10%, with no
// divergent transition, the fit's means within 0.15 sd and its sds within
// 15%.
func TestInterpRadiocarbon(t *testing.T) {
	mean, sd := radiocarbonExact(t)
	for i, m := range mean {
		if math.Abs(m-radiocarbonTruth[i]) > 3*sd[i] {
			t.Errorf("date %d: exact posterior %.1f ± %.1f, truth %g", i, m, sd[i], radiocarbonTruth[i])
		}
	}
	files := []string{"testdata/radiocarbon_interp.gpp", "testdata/radiocarbon_curve.csv", "testdata/radiocarbon_dates.json"}
	for _, cmd := range []string{"sample", "fit"} {
		out := filepath.Join(t.TempDir(), cmd)
		args := append(append([]string{cmd}, files...), "--quiet", "--out", out)
		if code, _, stderr := runSafe(t, args...); code != 0 {
			t.Fatalf("gpp %s: exit %d\n%s", cmd, code, stderr)
		}
		got := readSummaryCSV(t, filepath.Join(out, "summary.csv"))
		if cmd == "sample" {
			if n := divergences(t, filepath.Join(out, "draws.csv")); n != 0 {
				t.Errorf("sample: %d divergent transitions at the curve's kinks", n)
			}
		}
		for i := range mean {
			row := got[fmt.Sprintf("t[%d]", i)]
			meanTol, sdTol := 0.15*sd[i], 0.15
			if cmd == "sample" {
				meanTol, sdTol = 4*row["mcse_mean"], 0.10
			}
			if d := math.Abs(row["mean"] - mean[i]); !(d <= meanTol) {
				t.Errorf("%s: t[%d] mean %.1f, exact %.1f (off by %.2g, more than %.2g)", cmd, i, row["mean"], mean[i], d, meanTol)
			}
			if r := row["sd"] / sd[i]; !(math.Abs(r-1) <= sdTol) {
				t.Errorf("%s: t[%d] sd %.2f, exact %.2f", cmd, i, row["sd"], sd[i])
			}
		}
	}
}

// TestInterpMinibatch: interp of subsampled rows, its table other data,
// is elementwise and fits under --minibatch (the slope b, 3 in the
// simulation, recovered); a table read from the subsampled rows is
// refused at the call.
func TestInterpMinibatch(t *testing.T) {
	dir := t.TempDir()
	xp, fp := []float64{0, 1, 2, 4, 8}, []float64{0, 0.5, 0.7, 0.9, 1}
	var rows strings.Builder
	rows.WriteString("dose,y\n")
	for i := range 2000 {
		d := 8 * float64(i) / 2000
		e := 0.3 * math.Sin(float64(i)*12.9898) // deterministic noise
		j := 0
		for j+2 < len(xp) && d >= xp[j+1] {
			j++
		}
		fmt.Fprintf(&rows, "%g,%g\n", d, 3*(fp[j]+(d-xp[j])/(xp[j+1]-xp[j])*(fp[j+1]-fp[j]))+e)
	}
	csv := writeFile(t, dir, "rows.csv", rows.String())
	table := writeFile(t, dir, "table.json", `{"xp": [0, 1, 2, 4, 8], "fp": [0, 0.5, 0.7, 0.9, 1]}`)
	head := "data dose: real[N]\ndata y: real[N]\nparam b: real ~ Normal(0, 5)\nparam s: positive ~ HalfNormal(1)\n"
	model := writeFile(t, dir, "m.gpp", head+"data xp: real[G]\ndata fp: real[G]\ny ~ Normal(b * interp(dose, xp, fp), s)\n")
	out := filepath.Join(dir, "out")
	if code, _, stderr := runSafe(t, "fit", model, csv, table, "--minibatch", "N=200", "--quiet", "--out", out); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if b := summaryRows(t, out)["b"]; math.Abs(b[0]-3) > 0.05 {
		t.Errorf("b = %.3f ± %.3f, want 3", b[0], b[1])
	}
	bad := writeFile(t, dir, "bad.gpp", head+"y ~ Normal(b * interp(dose, dose, y), s)\n")
	code, _, stderr := runSafe(t, "fit", bad, csv, "--minibatch", "N=200", "--quiet", "--out", filepath.Join(dir, "bad"))
	if code != 1 || !strings.Contains(stderr, "bad.gpp:5:16: --minibatch N: interp of a value read from the subsampled rows mixes the rows") {
		t.Errorf("a table of the subsampled rows: exit %d\n%s", code, stderr)
	}
}

// divergences counts the divergent transitions in a draws.csv.
func divergences(t *testing.T, path string) int {
	t.Helper()
	n := 0
	for _, row := range readDrawsCSV(t, path) {
		d, ok := row["divergent__"]
		if !ok {
			t.Fatalf("%s: no divergent__ column", path)
		}
		if d != 0 {
			n++
		}
	}
	return n
}
