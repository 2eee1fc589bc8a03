package main

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gpplang/gpp/internal/reftest"
)

// laplaceCLITol is the tolerance of a Laplace fit's mean and covariance,
// read back from fit.json (17 significant digits), against the exact
// posterior where it is normal.
const laplaceCLITol = 1e-6

// regPosterior returns the exact posterior mean and covariance of beta in
// testdata/resample_reg.gpp: y ~ N(beta₀x1 + beta₁x2, 1), beta ~ N(0, 10²).
func regPosterior(t *testing.T) ([]float64, *mat.SymDense) {
	t.Helper()
	rows := reftest.ReadCSV(t, "testdata/resample_reg.csv")
	P := mat.NewSymDense(2, []float64{0.01, 0, 0, 0.01})
	v := mat.NewVecDense(2, nil)
	for _, r := range rows[1:] {
		var x [3]float64
		for i := range x {
			f, err := strconv.ParseFloat(r[i], 64)
			if err != nil {
				t.Fatal(err)
			}
			x[i] = f
		}
		for i := range 2 {
			v.SetVec(i, v.AtVec(i)+x[i]*x[2])
			for j := i; j < 2; j++ {
				P.SetSym(i, j, P.At(i, j)+x[i]*x[j])
			}
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(P) {
		t.Fatal("posterior precision not positive definite")
	}
	var S mat.SymDense
	if err := ch.InverseTo(&S); err != nil {
		t.Fatal(err)
	}
	var m mat.VecDense
	m.MulVec(&S, v)
	return []float64{m.AtVec(0), m.AtVec(1)}, &S
}

// laplaceFactor returns the mean and covariance LLᵀ of the full-rank
// factor of beta in a fit.json.
func laplaceFactor(t *testing.T, ff map[string]any) ([]float64, [2][2]float64) {
	t.Helper()
	fs := ff["factors"].([]any)
	if len(fs) != 1 {
		t.Fatalf("factors %v, want beta's", fs)
	}
	f := fs[0].(map[string]any)
	if f["family"] != "fullrank" {
		t.Fatalf("beta's family %v, want fullrank", f["family"])
	}
	p := f["params"].(map[string]any)
	vec := func(name string) []float64 {
		var out []float64
		for _, v := range p[name].([]any) {
			out = append(out, v.(float64))
		}
		return out
	}
	L := [2][]float64{vec("L[1]"), vec("L[2]")} // columns
	var cov [2][2]float64
	for i := range 2 {
		for j := range 2 {
			for k := range 2 {
				cov[i][j] += L[k][i] * L[k][j]
			}
		}
	}
	return vec("mean"), cov
}

// laplaceRow matches a summary table's row of beta[1] whose family is laplace.
var laplaceRow = regexp.MustCompile(`(?m)^beta\[1\] +laplace +`)

// TestFitLaplace: where the posterior is normal (a regression with a known
// noise sd) the Laplace fit is the posterior itself, mean, sds and
// correlation; log_p__ − log_g__ is the same at every draw (k̂ −∞); the
// outputs say laplace, carry loo.csv, and fit.json starts another fit
// (--init) and gpp predict.
func TestFitLaplace(t *testing.T) {
	const model, data = "testdata/resample_reg.gpp", "testdata/resample_reg.csv"
	d := t.TempDir()
	first := filepath.Join(d, "first")
	code, stdout, stderr := runSafe(t, "fit", model, data, "--family", "laplace", "--quiet", "--output-draws", "200", "--out", first)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "Pareto k̂") || !strings.Contains(stdout, "(converged)") {
		t.Errorf("summary lacks k̂ or convergence:\n%s", stdout)
	}
	if files := strings.Join(dirEntries(t, first), " "); files != "draws.csv elbo.csv fit.json loo.csv summary.csv" {
		t.Errorf("files %s", files)
	}
	// the summary names the method, as MAP's "point"; fit.json keeps the
	// full-rank factor that --init, predict and --against read (laplaceFactor)
	if !laplaceRow.MatchString(stdout) || !strings.Contains(stdout, "\nELBO  ") || !strings.Contains(stdout, "(of q = N(mode, (-H)^-1), from its draws)") {
		t.Errorf("console summary lacks the laplace family or its ELBO's reading:\n%s", stdout)
	}
	for _, r := range reftest.ReadCSV(t, filepath.Join(first, "summary.csv"))[1:] {
		if strings.HasPrefix(r[0], "beta[") && r[1] != "laplace" {
			t.Errorf("summary.csv: %s's family %q, want laplace", r[0], r[1])
		}
	}
	ff := readJSONObject(t, filepath.Join(first, "fit.json"))
	if ff["method"] != "laplace" || ff["converged"] != true {
		t.Errorf("fit.json: method %v, converged %v", ff["method"], ff["converged"])
	}
	if k, _ := ff["pareto_k"].(string); k != "-inf" {
		t.Errorf("fit.json: pareto_k %v, want -inf (p/q constant)", ff["pareto_k"])
	}
	m, S := regPosterior(t)
	mean, cov := laplaceFactor(t, ff)
	for i := range 2 {
		if math.Abs(mean[i]-m[i]) > laplaceCLITol {
			t.Errorf("mean[%d] %.9g, want %.9g", i, mean[i], m[i])
		}
		if sd, want := math.Sqrt(cov[i][i]), math.Sqrt(S.At(i, i)); math.Abs(sd-want) > laplaceCLITol {
			t.Errorf("sd[%d] %.9g, want %.9g", i, sd, want)
		}
	}
	if c, want := cov[0][1]/math.Sqrt(cov[0][0]*cov[1][1]), S.At(0, 1)/math.Sqrt(S.At(0, 0)*S.At(1, 1)); math.Abs(c-want) > laplaceCLITol {
		t.Errorf("correlation %.9g, want %.9g", c, want)
	}

	comments, header, rows := readStanCSV(t, filepath.Join(first, "draws.csv"))
	for _, c := range []string{"# method = laplace", "#     jacobian = 1"} {
		if !containsLine(comments, c) {
			t.Errorf("draws.csv lacks %q", c)
		}
	}
	if header[1] != "log_p__" || header[2] != "log_g__" || len(rows) != 201 {
		t.Fatalf("draws.csv header %v, %d rows", header[:3], len(rows))
	}
	// q is the posterior: log p − log q is log p(y) at every draw
	lw0 := rows[1][1] - rows[1][2]
	for _, r := range rows[2:] {
		if lw := r[1] - r[2]; math.Abs(lw-lw0) > 1e-6 {
			t.Fatalf("log_p__ - log_g__ %.9g and %.9g: want one value", lw0, lw)
		}
	}

	// --init from it: L-BFGS starts at the mode, and the fit is the same
	second := filepath.Join(d, "second")
	if code, _, stderr := runSafe(t, "fit", model, data, "--family", "laplace", "--quiet", "--init", first, "--out", second); code != 0 || strings.Contains(stderr, "warning") {
		t.Fatalf("--init: exit %d: %s", code, stderr)
	}
	ff2 := readJSONObject(t, filepath.Join(second, "fit.json"))
	mean2, cov2 := laplaceFactor(t, ff2)
	for i := range 2 {
		if math.Abs(mean2[i]-mean[i]) > laplaceCLITol || math.Abs(cov2[i][i]-cov[i][i]) > laplaceCLITol {
			t.Errorf("--init: element %d mean %.9g var %.9g, first fit %.9g, %.9g", i, mean2[i], cov2[i][i], mean[i], cov[i][i])
		}
	}
	if it, it1 := ff2["iterations"].(float64), ff["iterations"].(float64); !(it < it1) {
		t.Errorf("--init from the mode: %v L-BFGS iterations, as many as from the default start (%v)", it, it1)
	}
	// and SGVB from it
	if code, _, stderr := runSafe(t, "fit", model, data, "--fullrank", "beta", "--quiet", "--iter", "200", "--init", first, "--out", filepath.Join(d, "sgvb")); code != 0 || strings.Contains(stderr, "warning: --init") {
		t.Errorf("SGVB --init from a Laplace fit: exit %d: %s", code, stderr)
	}
	if code, stdout, stderr := runSafe(t, "predict", first, model, data, "--quiet", "--out", filepath.Join(d, "pred")); code != 0 || !laplaceRow.MatchString(stdout) {
		t.Errorf("predict: exit %d: %s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := runSafe(t, "compare", first, second); code != 0 || strings.Count(stdout, model+" (Laplace)") != 2 {
		t.Errorf("compare: exit %d, want both fits marked (Laplace): %s%s", code, stdout, stderr)
	}
}

// TestFitLaplaceSkewed: a Laplace fit of a posterior far from normal on
// the unconstrained scale (eight schools: log tau) is flagged by k̂ above
// 0.7, its warning printed (testdata/laplace_eight_schools.json is
// posteriordb's eight_schools data).
func TestFitLaplaceSkewed(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runSafe(t, "fit", "../../examples/posteriordb/eight_schools_noncentered.gpp",
		"testdata/laplace_eight_schools.json", "--family", "laplace", "--quiet", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	k, _ := readJSONObject(t, filepath.Join(out, "fit.json"))["pareto_k"].(float64)
	if !(k > 0.7) || !strings.Contains(stderr, "Pareto k̂") || !strings.Contains(stdout, "unreliable") {
		t.Errorf("k̂ %v, want > 0.7 with a warning:\n%s\n%s", k, stdout, stderr)
	}
}

// laplaceNUTSTol is how far, in NUTS posterior sds, a Laplace fit's means
// may be from NUTS's on a posterior near normal in the unconstrained
// coordinates, and laplaceNUTSSDTol the relative difference of its sds:
// the approximation's own error there is O(skewness/√n), about 0.05 sd on
// examples/ordinal's 200 rows, plus the Monte Carlo error of both
// summaries (NUTS's mcse about 0.02 sd, 1000 Laplace draws' 0.03 sd).
// Measured: means within 0.09 sd, sds within 5 %.
const (
	laplaceNUTSTol   = 0.25
	laplaceNUTSSDTol = 0.15
)

// ordinalNearNUTS fits examples/ordinal by --family family into fitDir,
// runs gpp sample --against it (and sampleArgs) into nutsDir, and fails t
// where the fit's mean of beta or a cutpoint is more than meanTol NUTS sds
// from NUTS's or its sd differs from NUTS's by more than sdTol relatively.
func ordinalNearNUTS(t *testing.T, family, fitDir, nutsDir string, meanTol, sdTol float64, sampleArgs ...string) {
	t.Helper()
	const model, data = "../../examples/ordinal.gpp", "../../examples/ordinal.csv"
	if code, _, stderr := runSafe(t, "fit", model, data, "--family", family, "--quiet", "--out", fitDir); code != 0 || strings.Contains(stderr, "warning") {
		t.Fatalf("fit --family %s: exit %d: %s", family, code, stderr)
	}
	args := append([]string{"sample", model, data, "--quiet", "--draws", "500", "--warmup", "300", "--against", fitDir, "--out", nutsDir}, sampleArgs...)
	if code, _, stderr := runSafe(t, args...); code != 0 {
		t.Fatalf("sample --against %v: exit %d: %s", sampleArgs, code, stderr)
	}
	got, want := summaryStats(t, fitDir), summaryStats(t, nutsDir)
	for _, name := range []string{"beta", "c[0]", "c[1]", "c[2]"} {
		g, w := got[name], want[name]
		if math.Abs(g[0]-w[0]) > meanTol*w[1] || math.Abs(g[1]/w[1]-1) > sdTol {
			t.Errorf("%s: %s mean %.4g sd %.4g, NUTS %.4g %.4g", name, family, g[0], g[1], w[0], w[1])
		}
	}
}

// TestFitLaplaceOrdered: an ordered-logistic model's cutpoints (ordered[3])
// fit by --family laplace by their coordinates (c_0 and the log
// increments) in the joint normal; its means and sds are NUTS's within
// laplaceNUTSTol and laplaceNUTSSDTol, and its fit.json starts gpp sample
// (--init, --against), another Laplace fit and gpp predict.
func TestFitLaplaceOrdered(t *testing.T) {
	const model, data = "../../examples/ordinal.gpp", "../../examples/ordinal.csv"
	d := t.TempDir()
	lap, nuts := filepath.Join(d, "laplace"), filepath.Join(d, "nuts")
	ordinalNearNUTS(t, "laplace", lap, nuts, laplaceNUTSTol, laplaceNUTSSDTol, "--init", lap)
	ff := readJSONObject(t, filepath.Join(lap, "fit.json"))
	if gs, _ := ff["groups"].([]any); len(gs) != 1 {
		t.Errorf("fit.json: %d groups, want the one joint normal", len(gs))
	}
	if _, err := os.Stat(filepath.Join(nuts, "against.csv")); err != nil {
		t.Errorf("sample --against: %v", err)
	}
	if code, _, stderr := runSafe(t, "fit", model, data, "--family", "laplace", "--quiet", "--init", lap, "--out", filepath.Join(d, "again")); code != 0 || strings.Contains(stderr, "warning") {
		t.Errorf("--init: exit %d: %s", code, stderr)
	}
	if code, stdout, stderr := runSafe(t, "predict", lap, model, data, "--quiet", "--out", filepath.Join(d, "pred")); code != 0 || !strings.Contains(stdout, "c[2]  ") {
		t.Errorf("predict: exit %d: %s%s", code, stdout, stderr)
	}
}
