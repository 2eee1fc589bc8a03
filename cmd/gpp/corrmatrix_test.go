package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corrMatrixModel is testdata/check_corr_matrix.gpp's model.
const corrMatrixModel = "testdata/check_corr_matrix.gpp"

// writeCorrData writes n pairs drawn from a bivariate normal with means
// (1, −2), sds (2, 0.5) and correlation rho as {"y": [[..], ..]}.
func writeCorrData(t *testing.T, path string, n int, rho float64, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	rows := make([]string, n)
	for i := range rows {
		a, b := r.NormFloat64(), r.NormFloat64()
		y0 := 1 + 2*a
		y1 := -2 + 0.5*(rho*a+math.Sqrt(1-rho*rho)*b)
		rows[i] = fmt.Sprintf("[%.6g, %.6g]", y0, y1)
	}
	if err := os.WriteFile(path, []byte(`{"y": [`+strings.Join(rows, ", ")+"]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFitCorrMatrix fits correlated pairs simulated with correlation −0.6
// and reads the fit's files: the summary recovers the correlation's sign
// and rough size, reports Omega as its 2×2 matrix (unit diagonal,
// symmetric, equal to the output rho) and chol(Omega) as its factor;
// every draw of Omega in draws.csv is symmetric with a unit diagonal;
// fit.json holds Omega's normal factor on its one coordinate (support
// corr_matrix, shape [1]); and --init from it warm-starts a second fit.
func TestFitCorrMatrix(t *testing.T) {
	d := t.TempDir()
	dataFile := filepath.Join(d, "pairs.json")
	writeCorrData(t, dataFile, 200, -0.6, 3)
	first, second := filepath.Join(d, "first"), filepath.Join(d, "second")
	if code, _, stderr := runSafe(t, "fit", corrMatrixModel, dataFile, "--quiet", "--seed", "1", "--out", first); code != 0 {
		t.Fatalf("first fit: exit %d: %s", code, stderr)
	}
	m := summaryMeans(t, first)
	if m["Omega[0, 0]"] != 1 || m["Omega[1, 1]"] != 1 || m["Omega[0, 1]"] != m["Omega[1, 0]"] ||
		math.Abs(m["Omega[1, 0]"]-m["rho"]) > 1e-12 || !(m["rho"] < -0.4 && m["rho"] > -0.8) {
		t.Errorf("summary: Omega = [[%g, %g], [%g, %g]], rho %g (truth −0.6)", m["Omega[0, 0]"], m["Omega[0, 1]"], m["Omega[1, 0]"], m["Omega[1, 1]"], m["rho"])
	}
	if m["L[0, 0]"] != 1 || m["L[0, 1]"] != 0 || math.Abs(m["L[1, 0]"]-m["rho"]) > 1e-12 {
		t.Errorf("summary: chol(Omega) = [[%g, %g], [%g, %g]]", m["L[0, 0]"], m["L[0, 1]"], m["L[1, 0]"], m["L[1, 1]"])
	}
	_, head, rows := readStanCSV(t, filepath.Join(first, "draws.csv"))
	col := columns(head)
	for _, name := range []string{"Omega.1.1", "Omega.2.1", "Omega.1.2", "Omega.2.2"} {
		if _, ok := col[name]; !ok {
			t.Fatalf("draws.csv has no column %s: %v", name, head)
		}
	}
	for _, row := range rows {
		v := func(name string) float64 { return row[col[name]] }
		if v("Omega.1.1") != 1 || v("Omega.2.2") != 1 || v("Omega.1.2") != v("Omega.2.1") || !(math.Abs(v("Omega.2.1")) < 1) {
			t.Fatalf("a draw of Omega: [[%g, %g], [%g, %g]]", v("Omega.1.1"), v("Omega.1.2"), v("Omega.2.1"), v("Omega.2.2"))
		}
	}
	if f := savedFactor(t, first, "Omega"); f.Family != "normal" || f.Support != "corr_matrix" || len(f.Shape) != 1 || f.Shape[0] != 1 {
		t.Errorf("fit.json factor Omega: %+v", f)
	}
	refitFrom(t, first, second, corrMatrixModel, dataFile)
}

// TestReplCorrMatrix: after a :fit, mean(Omega) is the K×K correlation
// matrix's (from draws), :show Omega lists the factor of its coordinate by
// the entry of its factor it makes, and chol(Omega) evaluates.
func TestReplCorrMatrix(t *testing.T) {
	r, out, errb := newTestRepl()
	typeIn(r, "param Omega: corr_matrix[2] ~ LKJCorr(2)", ":fit --quiet --seed 1 --iter 300")
	if r.fit == nil {
		t.Fatalf("no fit; errors:\n%s", errb.String())
	}
	for _, c := range []struct{ in, want string }{
		{"mean(Omega)", "[[1, "},
		{"Omega", "Omega[1, 1]"},
		{"mean(chol(Omega))", "[[1, 0],\n"},
		{":show Omega", "atanh Omega[1, 0]  normal"},
	} {
		out.Reset()
		errb.Reset()
		typeIn(r, c.in)
		if note := "gpp: note: the posterior mean of each of the 4 elements"; !strings.Contains(out.String(), c.want) || errb.Len() > 0 && !(c.in == "mean(chol(Omega))" && strings.HasPrefix(errb.String(), note)) {
			t.Errorf("%s: output %q, errors %q; want it to contain %q", c.in, out.String(), errb.String(), c.want)
		}
	}
}
