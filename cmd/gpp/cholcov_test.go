package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gpplang/gpp/internal/reftest"
)

// cholCovModel is testdata/check_chol_cov.gpp's model: pairs with
// y ~ MvNormalCholesky(mu, L), L a cholesky_factor_cov[2] without a prior.
const cholCovModel = "testdata/check_chol_cov.gpp"

// cholCovSDs bounds the distance of each recovered covariance entry from
// the truth, in posterior sds.
const cholCovSDs = 4

// TestFitCholCov fits 300 pairs simulated with sds (2, 0.5) and
// correlation −0.6, the covariance [[4, −0.6], [−0.6, 0.25]], and reads
// the fit's files: the summary's Sigma = L L' is within cholCovSDs
// posterior sds of the truth entry by entry; L is reported as its 2×2
// factor with the zero above the diagonal, in every draw of draws.csv
// too, with a positive diagonal; fit.json holds L's normal factor on its
// three coordinates (support cholesky_factor_cov, shape [3]).
func TestFitCholCov(t *testing.T) {
	d := t.TempDir()
	dataFile, out := filepath.Join(d, "pairs.json"), filepath.Join(d, "out")
	writeCorrData(t, dataFile, 300, -0.6, 5)
	if code, _, stderr := runSafe(t, "fit", cholCovModel, dataFile, "--quiet", "--seed", "1", "--out", out); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	mean := checkCovRecovered(t, out)
	if mean["L[0, 1]"] != 0 || !(mean["L[0, 0]"] > 0) || !(mean["L[1, 1]"] > 0) {
		t.Errorf("summary: L = [[%g, %g], [%g, %g]]", mean["L[0, 0]"], mean["L[0, 1]"], mean["L[1, 0]"], mean["L[1, 1]"])
	}
	_, head, rows := readStanCSV(t, filepath.Join(out, "draws.csv"))
	col := columns(head)
	for _, name := range []string{"L.1.1", "L.2.1", "L.1.2", "L.2.2"} {
		if _, ok := col[name]; !ok {
			t.Fatalf("draws.csv has no column %s: %v", name, head)
		}
	}
	for _, row := range rows {
		if v := func(name string) float64 { return row[col[name]] }; v("L.1.2") != 0 || !(v("L.1.1") > 0) || !(v("L.2.2") > 0) {
			t.Fatalf("a draw of L: [[%g, %g], [%g, %g]]", v("L.1.1"), v("L.1.2"), v("L.2.1"), v("L.2.2"))
		}
	}
	if f := savedFactor(t, out, "L"); f.Family != "normal" || f.Support != "cholesky_factor_cov" || len(f.Shape) != 1 || f.Shape[0] != 3 {
		t.Errorf("fit.json factor L: %+v", f)
	}
}

// checkCovRecovered checks that the summary in dir has each entry of
// Sigma within cholCovSDs posterior sds of the truth [[4, −0.6], [−0.6,
// 0.25]], and returns the summary's means by name.
func checkCovRecovered(t *testing.T, dir string) map[string]float64 {
	t.Helper()
	mean, sd := map[string]float64{}, map[string]float64{}
	for _, row := range reftest.ReadCSV(t, filepath.Join(dir, "summary.csv"))[1:] {
		mean[row[0]], _ = strconv.ParseFloat(row[2], 64)
		sd[row[0]], _ = strconv.ParseFloat(row[3], 64)
	}
	for name, truth := range map[string]float64{"Sigma[0, 0]": 4, "Sigma[1, 0]": -0.6, "Sigma[0, 1]": -0.6, "Sigma[1, 1]": 0.25} {
		if s, ok := sd[name]; !ok || !(s > 0) || math.Abs(mean[name]-truth) > cholCovSDs*s {
			t.Errorf("summary: %s = %g ± %g, truth %g", name, mean[name], s, truth)
		}
	}
	return mean
}

// TestFitCovMatrix fits the pairs of TestFitCholCov with a cov_matrix[2]
// param Sigma in MvNormalRows: the summary recovers the covariance entry
// by entry, every draw of Sigma in draws.csv is symmetric with a positive
// diagonal and determinant, and fit.json holds Sigma's normal factor on
// its three coordinates (support cov_matrix).
func TestFitCovMatrix(t *testing.T) {
	d := t.TempDir()
	model, dataFile, out := filepath.Join(d, "cov.gpp"), filepath.Join(d, "pairs.json"), filepath.Join(d, "out")
	src := "data y: real[N, 2]\nparam mu: real[2] ~ Normal(0, 5)\nparam Sigma: cov_matrix[2]\ny ~ MvNormalRows(mu', Sigma)\n"
	if err := os.WriteFile(model, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	writeCorrData(t, dataFile, 300, -0.6, 5)
	if code, _, stderr := runSafe(t, "fit", model, dataFile, "--quiet", "--seed", "1", "--out", out); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	checkCovRecovered(t, out)
	_, head, rows := readStanCSV(t, filepath.Join(out, "draws.csv"))
	col := columns(head)
	for _, row := range rows {
		v := func(name string) float64 { return row[col[name]] }
		if a, b, c := v("Sigma.1.1"), v("Sigma.2.1"), v("Sigma.2.2"); v("Sigma.1.2") != b || !(a > 0) || !(c > 0) || !(a*c-b*b > 0) {
			t.Fatalf("a draw of Sigma: [[%g, %g], [%g, %g]]", a, v("Sigma.1.2"), b, c)
		}
	}
	if f := savedFactor(t, out, "Sigma"); f.Family != "normal" || f.Support != "cov_matrix" || len(f.Shape) != 1 || f.Shape[0] != 3 {
		t.Errorf("fit.json factor Sigma: %+v", f)
	}
}
