package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/reftest"
)

// dirMultModel is testdata/fit_fullrank_dirmult.gpp: p ~ Dirichlet(1)
// with counts (12, 30, 5, 20), posterior Dirichlet(13, 31, 6, 21), and an
// independent mu with posterior Normal(1, 1/√2).
const dirMultModel = "testdata/fit_fullrank_dirmult.gpp"

// Tolerances of the --fullrank simplex fits against the exact Dirichlet:
// the logistic normal on the stick-breaking coordinates is not the
// Dirichlet, and a default fit stops at its convergence rule (measured at
// seed 1: means within 1.1 %, sds within 3.7 %).
const (
	dirMultMeanTol = 0.03 // relative, of the means
	dirMultSDTol   = 0.08 // relative, of the sds
)

// TestFitFullRankSimplex fits the Dirichlet-multinomial model with p's
// full-rank factor on its 3 stick-breaking coordinates, alone (--fullrank
// p) and joint with mu (--fullrank p+mu), seeded: the summary reports p as
// its 4 values, with the exact posterior means and sds; every draw in
// draws.csv sums to 1; fit.json holds p's factor (fullrank, simplex, shape
// [4], 3 means); --init from it starts a fit without warnings, and gpp
// predict evaluates outputs of p at its draws.
func TestFitFullRankSimplex(t *testing.T) {
	alpha := []float64{13, 31, 6, 21}
	a0 := 71.0
	d := t.TempDir()
	pred := filepath.Join(d, "pred.gpp")
	src, err := os.ReadFile(dirMultModel)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pred, append(src, "output s = sum(p)\noutput r = p[1] / p[0]\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, fr := range []string{"p", "p+mu"} {
		out := filepath.Join(d, fr)
		code, _, stderr := runSafe(t, "fit", dirMultModel, "--fullrank", fr, "--quiet", "--seed", "1", "--out", out)
		if code != 0 {
			t.Fatalf("--fullrank %s: exit %d: %s", fr, code, stderr)
		}
		var names []string
		for _, row := range reftest.ReadCSV(t, filepath.Join(out, "summary.csv"))[1:] {
			name := row[0]
			m, _ := strconv.ParseFloat(row[2], 64)
			s, _ := strconv.ParseFloat(row[3], 64)
			if strings.HasPrefix(name, "p[") {
				names = append(names, name)
				i := len(names) - 1
				wm, ws := alpha[i]/a0, math.Sqrt(alpha[i]*(a0-alpha[i])/(a0*a0*(a0+1)))
				t.Logf("--fullrank %s: %s %s mean %.4f sd %.4f (exact %.4f %.4f)", fr, name, row[1], m, s, wm, ws)
				if row[1] != "fullrank" || math.Abs(m/wm-1) > dirMultMeanTol || math.Abs(s/ws-1) > dirMultSDTol {
					t.Errorf("--fullrank %s: %s: %s mean %.4f sd %.4f, exact %.4f %.4f", fr, name, row[1], m, s, wm, ws)
				}
			}
			if name == "mu" && fr == "p+mu" && (row[1] != "fullrank" || math.Abs(m-1) > 0.1 || math.Abs(s*math.Sqrt2-1) > 0.1) {
				t.Errorf("--fullrank p+mu: mu %s mean %.4f sd %.4f, exact 1 and 0.707", row[1], m, s)
			}
		}
		if strings.Join(names, " ") != "p[0] p[1] p[2] p[3]" {
			t.Fatalf("--fullrank %s: summary rows of p: %v", fr, names)
		}
		_, head, rows := readStanCSV(t, filepath.Join(out, "draws.csv"))
		col := columns(head)
		for _, row := range rows {
			s := 0.0
			for i := 1; i <= 4; i++ {
				c, ok := col["p."+strconv.Itoa(i)]
				if !ok {
					t.Fatalf("draws.csv has no column p.%d: %v", i, head)
				}
				s += row[c]
			}
			if math.Abs(s-1) > 5e-6 { // each value written to 6 significant digits
				t.Fatalf("--fullrank %s: a draw of p sums to %g", fr, s)
			}
		}
		f := savedFactor(t, out, "p")
		if mean, _ := f.Params.Get("mean"); f.Family != "fullrank" || f.Support != "simplex" || len(f.Shape) != 1 || f.Shape[0] != 4 || len(mean) != 3 {
			t.Errorf("--fullrank %s: fit.json factor p: %+v", fr, f)
		}
		code, _, stderr = runSafe(t, "fit", dirMultModel, "--fullrank", fr, "--quiet", "--seed", "2",
			"--init", filepath.Join(out, "fit.json"), "--out", filepath.Join(d, fr+"-init"))
		if code != 0 || strings.Contains(stderr, "warning") {
			t.Errorf("--fullrank %s --init: exit %d: %s", fr, code, stderr)
		}
		pout := filepath.Join(d, fr+"-pred")
		code, _, stderr = runSafe(t, "predict", out, pred, "--quiet", "--seed", "1", "--out", pout)
		if code != 0 {
			t.Fatalf("predict from --fullrank %s: exit %d: %s", fr, code, stderr)
		}
		for _, row := range reftest.ReadCSV(t, filepath.Join(pout, "summary.csv"))[1:] {
			m, _ := strconv.ParseFloat(row[2], 64)
			switch row[0] {
			case "s":
				if math.Abs(m-1) > 1e-12 {
					t.Errorf("predict from --fullrank %s: sum(p) has mean %g", fr, m)
				}
			case "r": // E[p2/p1] = α2/(α1 − 1) under the Dirichlet
				if want := alpha[1] / (alpha[0] - 1); math.Abs(m/want-1) > 0.1 {
					t.Errorf("predict from --fullrank %s: p[1] / p[0] has mean %.4f, exact %.4f", fr, m, want)
				}
			}
		}
	}
}
