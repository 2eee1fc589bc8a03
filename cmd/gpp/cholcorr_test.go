package main

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// TestFitCholCorr fits examples/varying.gpp and reads its files: the
// summary and draws.csv report L as its 2×2 factor (the upper entry 0, the
// first row (1, 0), every row of unit norm, to the 6 digits written, in every draw), fit.json holds
// L's normal factor on its one coordinate (support cholesky_factor_corr,
// shape [1]), and --init from it warm-starts a second fit without
// warnings, where the first ended.
func TestFitCholCorr(t *testing.T) {
	d := t.TempDir()
	first, second := filepath.Join(d, "first"), filepath.Join(d, "second")
	model, dataFile := "../../examples/varying.gpp", "../../examples/varying.csv"
	if code, _, stderr := runSafe(t, "fit", model, dataFile, "--quiet", "--seed", "1", "--out", first); code != 0 {
		t.Fatalf("first fit: exit %d: %s", code, stderr)
	}
	m := summaryMeans(t, first)
	if m["L[0, 0]"] != 1 || m["L[0, 1]"] != 0 || !(m["L[1, 0]"] > 0.2) || math.Abs(m["L[1, 0]"]-m["rho"]) > 1e-12 {
		t.Errorf("summary: L = [[%g, %g], [%g, %g]], rho %g", m["L[0, 0]"], m["L[0, 1]"], m["L[1, 0]"], m["L[1, 1]"], m["rho"])
	}
	_, head, rows := readStanCSV(t, filepath.Join(first, "draws.csv"))
	col := columns(head)
	for _, name := range []string{"L.1.1", "L.2.1", "L.1.2", "L.2.2"} {
		if _, ok := col[name]; !ok {
			t.Fatalf("draws.csv has no column %s: %v", name, head)
		}
	}
	for _, row := range rows {
		v := func(name string) float64 { return row[col[name]] }
		if v("L.1.1") != 1 || v("L.1.2") != 0 || math.Abs(v("L.2.1")*v("L.2.1")+v("L.2.2")*v("L.2.2")-1) > 1e-5 { // draws.csv keeps 6 digits
			t.Fatalf("a draw of L: [[%g, %g], [%g, %g]]", v("L.1.1"), v("L.1.2"), v("L.2.1"), v("L.2.2"))
		}
	}
	if f := savedFactor(t, first, "L"); f.Family != "normal" || f.Support != "cholesky_factor_corr" || len(f.Shape) != 1 || f.Shape[0] != 1 {
		t.Errorf("fit.json factor L: %+v", f)
	}
	refitFrom(t, first, second, model, dataFile)
}

// TestReplCholCorr: after a :fit, L and mean(L) are the K×K factor's
// (from draws, not the moments of its coordinates' factor), and :show L
// lists the factor of its coordinate by the entry it makes.
func TestReplCholCorr(t *testing.T) {
	r, out, errb := newTestRepl()
	typeIn(r, "param L: cholesky_factor_corr[2] ~ LKJCorrCholesky(2)", ":fit --quiet --seed 1 --iter 300")
	if r.fit == nil {
		t.Fatalf("no fit; errors:\n%s", errb.String())
	}
	for _, c := range []struct{ in, want string }{
		{"mean(L)", "[[1, 0],\n"},
		{"L", "L[1, 1]"},
		{":show L", "atanh L[1, 0]  normal"},
	} {
		out.Reset()
		errb.Reset()
		typeIn(r, c.in)
		if !strings.Contains(out.String(), c.want) || errb.Len() > 0 {
			t.Errorf("%s: output %q, errors %q; want it to contain %q", c.in, out.String(), errb.String(), c.want)
		}
	}
}
