package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/reftest"
)

const (
	missingModel = "testdata/fit_missing.gpp"
	missingData  = "testdata/fit_missing.csv" // y missing at lines 5 and 9
)

// Missing data through the output files and back: fit.json and draws.csv
// name each missing value's cell; --init warm-starts y_missing from
// fit.json (its first ELBO close to where the first fit ended); the
// output ybar, which reads y, is the mean of the observed cells and the
// fitted ones at each draw; gpp predict on data without missing values
// ignores the fitted y_missing, and on data with them, which ybar reads,
// is an error at the first missing cell.
func TestMissingRoundTrip(t *testing.T) {
	d := t.TempDir()
	first, second := filepath.Join(d, "first"), filepath.Join(d, "second")
	if code, _, stderr := runSafe(t, "fit", missingModel, missingData, "--quiet", "--output-draws", "200", "--out", first); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	ff := readFit(t, filepath.Join(first, "fit.json"))
	wantCells := []string{missingData + ":5:5", missingData + ":9:6"}
	if len(ff.Missing) != 1 || ff.Missing[0].Latent != "y_missing" || ff.Missing[0].Data != "y" || !slices.Equal(ff.Missing[0].Cells, wantCells) {
		t.Errorf("fit.json missing: %+v, want y_missing at %v", ff.Missing, wantCells)
	}
	raw, err := os.ReadFile(filepath.Join(first, "draws.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "# y_missing = y at " + strings.Join(wantCells, ", ") + "\n"; !strings.Contains(string(raw), want) {
		t.Errorf("draws.csv has no line %q", want)
	}
	header, rows := drawLines(t, filepath.Join(first, "draws.csv"))
	col := columns(header)
	observed := []float64{1.32, 2.01, -0.55, 1.61, -2.02, 2.73, 5.04, -0.27}
	var sum float64
	for _, v := range observed {
		sum += v
	}
	for _, row := range rows {
		cells := strings.Split(row, ",")
		num := func(name string) float64 {
			v, err := strconv.ParseFloat(cells[col[name]], 64)
			if err != nil {
				t.Fatalf("column %s: %v", name, err)
			}
			return v
		}
		want := (sum + num("y_missing.1") + num("y_missing.2")) / 10
		if got := num("ybar"); math.Abs(got-want) > 1e-5*(1+math.Abs(want)) { // draws.csv has 6 digits
			t.Fatalf("ybar %g at a draw, want the mean of y filled in by y_missing, %g", got, want)
		}
	}

	code, _, stderr := runSafe(t, "fit", missingModel, missingData, "--quiet", "--iter", "100", "--tol", "0", "--output-draws", "20",
		"--init", filepath.Join(first, "fit.json"), "--out", second)
	if code != 0 || strings.Contains(stderr, "warning: --init") || strings.Contains(stderr, "matches no latent") {
		t.Fatalf("fit --init: exit %d: %s", code, stderr)
	}
	cold, final, warm := warmStart(t, first, second)
	if math.Abs(warm-final) > 0.2*math.Abs(cold-final) {
		t.Errorf("warm start ELBO %g is not close to the first fit's final %g (cold start %g)", warm, final, cold)
	}

	complete := filepath.Join(d, "complete.csv")
	src, _ := os.ReadFile(missingData)
	filled := strings.NewReplacer("1.2,NA", "1.2,3.4", "-0.2,\n", "-0.2,0.6\n").Replace(string(src))
	if err := os.WriteFile(complete, []byte(filled), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runSafe(t, "predict", first, missingModel, complete, "--quiet", "--out", filepath.Join(d, "p1")); code != 0 {
		t.Errorf("predict on complete data: exit %d: %s", code, stderr)
	}
	// Observed data given with missing cells: those are drawn, and an
	// output that reads y, which has no value there, is left out.
	code, _, stderr = runSafe(t, "predict", first, missingModel, missingData, "--out", filepath.Join(d, "p2"))
	for _, want := range []string{"note: output ybar reads y, which the new data give with 2 missing values: left out",
		"note: y has 2 missing values in the data: they are drawn from its likelihood at each draw"} {
		if code != 0 || !strings.Contains(stderr, want) {
			t.Errorf("predict on data with missing values: exit %d, stderr:\n%s\nwant:\n%s", code, stderr, want)
		}
	}
	// A covariate that a draw reads must be whole: predict fits nothing.
	cov := writeFile(t, d, "cov.gpp", `data x: real[N]
data y: real[N]
param a: real ~ Normal(0, 5)
param b: real ~ Normal(0, 5)
param s: positive ~ Exponential(1)
param mx: real ~ Normal(0, 5)
x ~ Normal(mx, 1)
y ~ Normal(a + b * x, s)
`)
	covFit := filepath.Join(d, "covfit")
	if code, _, stderr := runSafe(t, "fit", cov, complete, "--quiet", "--iter", "100", "--tol", "0", "--out", covFit); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	holed := writeFile(t, d, "holed.csv", "x\n0.1\nNA\n")
	code, _, stderr = runSafe(t, "predict", covFit, cov, holed, "--quiet", "--out", filepath.Join(d, "p3"))
	if want := "holed.csv:3:1: `x` has a missing value, and gpp predict reads it for the draw of y (" + cov + ":8:1) but fits nothing: give it without missing values (gpp fit's draws of them are the columns x_missing[k] of its draws.csv)"; code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("predict on a covariate with a missing value: exit %d, stderr:\n%s\nwant:\n%s", code, stderr, want)
	}
}

// TestMissingLOO: a log_lik of y's shape has an element at each of y's
// missing cells, whose value the fit imputes: PSIS-LOO leaves them out
// (loo.csv lists the observed elements only, named as they are in y), and
// its elpd_loo is that of a fit of the observed rows alone, to Monte Carlo
// and fit error.
func TestMissingLOO(t *testing.T) {
	d := t.TempDir()
	src, err := os.ReadFile(missingModel)
	if err != nil {
		t.Fatal(err)
	}
	model := writeFile(t, d, "m.gpp", string(src)+"output log_lik = logpdf(y, Normal(a + b * x, s))\n")
	raw, err := os.ReadFile(missingData)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string // the rows without a missing y
	for i, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		if i == 0 || !strings.HasSuffix(line, ",") && !strings.HasSuffix(line, ",NA") {
			kept = append(kept, line)
		}
	}
	observed := writeFile(t, d, "obs.csv", strings.Join(kept, "\n")+"\n")
	all, obs := filepath.Join(d, "all"), filepath.Join(d, "obs")
	for _, run := range [][]string{{missingData, all}, {observed, obs}} {
		if code, _, stderr := runSafe(t, "fit", model, run[0], "--quiet", "--output-draws", "4000", "--out", run[1]); code != 0 {
			t.Fatalf("fit %s: exit %d: %s", run[0], code, stderr)
		}
	}
	eAll, names := looElpd(t, all)
	eObs, namesObs := looElpd(t, obs)
	if len(names) != len(kept)-1 || len(namesObs) != len(kept)-1 {
		t.Fatalf("loo.csv rows: %d with missing cells, %d of the observed rows; want %d each", len(names), len(namesObs), len(kept)-1)
	}
	for _, n := range names {
		if n == "log_lik[3]" || n == "log_lik[7]" { // lines 5 and 9: y's elements 3 and 7, 0-based
			t.Errorf("loo.csv lists %s, an imputed value", n)
		}
	}
	t.Logf("elpd_loo %.3f with the missing rows imputed, %.3f without them", eAll, eObs)
	if math.Abs(eAll-eObs) > 0.5 {
		t.Errorf("elpd_loo %.3f with the missing rows imputed, %.3f on the observed rows alone", eAll, eObs)
	}
}

// A joint factor (--fullrank all, with and without --rank) holds the
// params with the missing values y_missing; gpp predict, whose model lays
// out no y_missing, draws the params from the group's marginal, keeping
// their correlation: with x near 11 the intercept and slope are almost
// perfectly anticorrelated, and a + 11·b has an sd 20 times smaller than
// independent draws of them would give (the group was dropped for the
// members' own marginals before). The sd of mu11 in predict's draws must
// match the fit's within 20% (1000 draws each: an sd's error is about 2%).
func TestMissingPredictKeepsJoint(t *testing.T) {
	d := t.TempDir()
	var b strings.Builder
	b.WriteString("x,y\n")
	for i := range 40 {
		x := 10 + 2*float64(i)/39
		y := fmt.Sprintf("%.4f", 1+0.5*x+0.3*math.Sin(7*float64(i)))
		if i%5 == 0 {
			y = "NA"
		}
		fmt.Fprintf(&b, "%.4f,%s\n", x, y)
	}
	data := writeFile(t, d, "unc.csv", b.String())
	newData := writeFile(t, d, "new.csv", "x\n11\n")
	model := writeFile(t, d, "unc.gpp", `data x: real[N]
data y: real[N]
param a: real ~ Normal(0, 10)
param b: real ~ Normal(0, 10)
param s: real<lower=0> ~ Exponential(1)
y ~ Normal(a + b * x, s)
output mu11 = a + b * 11
`)
	sd := func(dir string) float64 {
		header, rows := drawLines(t, filepath.Join(dir, "draws.csv"))
		c := columns(header)["mu11"]
		var xs []float64
		for _, row := range rows[1:] { // row 1 is q's mean
			v, err := strconv.ParseFloat(strings.Split(row, ",")[c], 64)
			if err != nil {
				t.Fatal(err)
			}
			xs = append(xs, v)
		}
		return math.Sqrt(variance(xs))
	}
	for _, flags := range [][]string{{"--fullrank", "all"}, {"--fullrank", "all", "--rank", "2"}} {
		fit, pred := filepath.Join(d, "fit"), filepath.Join(d, "pred")
		args := append([]string{"fit", model, data, "--quiet", "--out", fit}, flags...)
		if code, _, stderr := runSafe(t, args...); code != 0 {
			t.Fatalf("fit %v: exit %d: %s", flags, code, stderr)
		}
		if code, _, stderr := runSafe(t, "predict", fit, model, newData, "--quiet", "--out", pred); code != 0 {
			t.Fatalf("predict %v: exit %d: %s", flags, code, stderr)
		}
		sf, sp := sd(fit), sd(pred)
		t.Logf("%v: sd of a + 11 b %.4f in the fit's draws, %.4f in predict's", flags, sf, sp)
		if sp > 1.2*sf || sp < sf/1.2 {
			t.Errorf("%v: sd of a + 11 b %.4g in predict's draws, %.4g in the fit's: the params' joint factor was not kept", flags, sp, sf)
		}
	}
}

// TestMissingLOOExact: y_i ~ Normal(mu, 1), mu ~ Normal(0, 10), with 20 of
// 30 outcomes missing, where LOO is exact in closed form: leaving out y_i,
// mu's posterior from the other n − 1 observed y is normal with precision
// 1/100 + n − 1 and mean their sum over it, so elpd_i = log N(y_i | m_−i,
// √(1 + v_−i)), over the observed rows only. The mean-field q's factors
// of y_missing are independent of mu's, which the posterior's are not
// (and q's mu is √3 times too narrow): weighting q's draws of both left
// p(y_missing | mu)/q(y_missing) in the weights, and elpd_loo came out
// −17.016 against −17.542 exact at this seed (−16.85 to −17.15 over seeds
// 1–8) before LOO redrew the missing values from their model. gpp draws
// each LOO draw's y_missing from y's ~ at its mu, so its weight is p(mu,
// observed y)/q(mu): elpd_loo must match to 0.03 (−17.518 to −17.558 over
// seeds 1–8).
func TestMissingLOOExact(t *testing.T) {
	d := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 11))
	var lines, obs []string
	var y []float64
	for i := range 30 {
		v := 1 + rng.NormFloat64()
		if i%3 != 0 {
			lines = append(lines, "")
			continue
		}
		lines = append(lines, strconv.FormatFloat(v, 'f', 4, 64))
		w, _ := strconv.ParseFloat(lines[i], 64)
		y = append(y, w)
		obs = append(obs, lines[i])
	}
	model := writeFile(t, d, "m.gpp", "data y: real[N]\nparam mu: real ~ Normal(0, 10)\ny ~ Normal(mu, 1)\noutput log_lik = logpdf(y, Normal(mu, 1))\n")
	csv := writeFile(t, d, "y.csv", "y\n"+strings.Join(lines, "\n")+"\n")
	sum := 0.0
	for _, v := range y {
		sum += v
	}
	n := float64(len(y))
	exact := 0.0
	for _, v := range y {
		prec := 0.01 + n - 1
		m, sd := (sum-v)/prec, math.Sqrt(1+1/prec)
		z := (v - m) / sd
		exact += -0.5*z*z - math.Log(sd) - 0.5*math.Log(2*math.Pi)
	}
	out := filepath.Join(d, "o")
	if code, _, stderr := runSafe(t, "fit", model, csv, "--quiet", "--seed", "3", "--output-draws", "4000", "--out", out); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	rows := reftest.ReadCSV(t, filepath.Join(out, "loo.csv"))[2:]
	if len(rows) != len(y) {
		t.Fatalf("loo.csv has %d observations, want %d", len(rows), len(y))
	}
	got := 0.0
	for _, r := range rows {
		v, _ := strconv.ParseFloat(r[1], 64)
		got += v
	}
	t.Logf("elpd_loo %.4f, exact %.4f", got, exact)
	if math.Abs(got-exact) > 0.03 {
		t.Errorf("elpd_loo %.4f, exact %.4f", got, exact)
	}
}

// Int data observed only by ~ with missing cells: gpp fit leaves them out
// of the likelihood and says so in a note; the fit is that of the data
// without those rows (the same log joint, so the same seed gives the same
// means to rounding), and loo.csv lists no log_lik element at a missing
// cell, its elpd_loo that of the rows observed. --minibatch and gpp kfold
// refuse such data.
func TestLeftOutCountsCLI(t *testing.T) {
	d := t.TempDir()
	model := writeFile(t, d, "m.gpp", `data N: int
data x: real[N]
data y: int<lower=0>[N]
param a: real ~ Normal(0, 2)
param b: real ~ Normal(0, 2)
y ~ PoissonLog(a + b * x)
output log_lik = logpdf(y, PoissonLog(a + b * x))
`)
	xs := []float64{0.1, -0.4, 0.9, 1.3, -1.1, 0.2, 0.5, -0.3, 0.8, -0.7}
	ys := []string{"3", "NA", "1", "7", "NA", "2", "4", "1", "5", "NA"}
	r := leftOutFits(t, d, model, "y", xs, ys)
	withNA, stderr := r.withNA, r.stderr
	note := "all.csv lines 3, 6, 11) are left out of the likelihood (int data observed only by ~)"
	if !strings.Contains(stderr, note) {
		t.Errorf("stderr has no note %q:\n%s", note, stderr)
	}
	r.checkSameFit(t, "a", "b")
	if code, _, stderr := runSafe(t, "fit", model, withNA, "--minibatch", "N=4", "--out", filepath.Join(d, "mb")); code != 1 || !strings.Contains(stderr, "left out of the likelihood, which a minibatch fit does not do") {
		t.Errorf("--minibatch: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runSafe(t, "kfold", model, withNA, "--folds", "2", "--out", filepath.Join(d, "kf")); code != 1 || !strings.Contains(stderr, "all.csv:3:") || !strings.Contains(stderr, "left out of the likelihood") {
		t.Errorf("kfold: exit %d: %s", code, stderr)
	}
}

// looElpd returns the sum of loo.csv's pointwise elpd_loo in dir and the
// names of its rows, failing the test on a value that does not parse.
func looElpd(t *testing.T, dir string) (float64, []string) {
	t.Helper()
	sum, names := 0.0, []string{}
	for _, r := range reftest.ReadCSV(t, filepath.Join(dir, "loo.csv"))[2:] {
		v, err := strconv.ParseFloat(r[1], 64)
		if err != nil {
			t.Fatalf("%s/loo.csv: %v", dir, err)
		}
		sum += v
		names = append(names, r[0])
	}
	return sum, names
}

// Real data observed by HurdleGamma with missing cells (a rainfall
// series with NA days): gpp fit leaves them out of the likelihood, not
// fitted as a positive latent that could never be 0 (which counted each
// NA day as a wet one and pushed the wet-day intercept up), and says so
// and why in a note; the fit is that of the complete cases (the same log
// joint, so the same seed gives the same means to rounding) and loo.csv
// has no row at a missing cell, its elpd_loo theirs. Where the data is
// also read in an expression, the missing cells are an error that says
// why; a Gamma given a 0 names HurdleGamma and what its psi is.
func TestLeftOutZeroMassCLI(t *testing.T) {
	d := t.TempDir()
	const src = `data N: int
data x: real[N]
data rain: real<lower=0>[N]
param a: real ~ Normal(0, 2)
param b: real ~ Normal(0, 2)
param k: positive ~ Gamma(2, 2)
let psi = inv_logit(a + b * x)
rain ~ HurdleGamma(psi, k, k / exp(a - b * x))
output log_lik = logpdf(rain, HurdleGamma(psi, k, k / exp(a - b * x)))
`
	model := writeFile(t, d, "m.gpp", src)
	xs := []float64{0.1, -0.4, 0.9, 1.3, -1.1, 0.2, 0.5, -0.3, 0.8, -0.7}
	ys := []string{"2.5", "NA", "0", "7.1", "NA", "0", "0.4", "0", "1.9", "NA"}
	r := leftOutFits(t, d, model, "rain", xs, ys)
	withNA, observed, stderr := r.withNA, r.observed, r.stderr
	note := "rain: 3 missing values (" + withNA + " lines 3, 6, 11) are left out of the likelihood (not fitted: HurdleGamma's value is exactly 0 with probability 1 − psi"
	if !strings.Contains(stderr, note) || strings.Contains(stderr, "rain_missing") {
		t.Errorf("stderr has no note %q, or names a latent rain_missing:\n%s", note, stderr)
	}
	r.checkSameFit(t, "a", "b", "k")

	// also read in an expression: no value to read in a missing cell
	read := writeFile(t, d, "read.gpp", src+"output wet = rain > 0\n")
	code, _, stderr := runSafe(t, "fit", read, withNA, "--out", filepath.Join(d, "read"))
	if why := "whose value is exactly 0 with probability 1 − psi: a fitted missing value, continuous, could never be 0"; code != 1 || !strings.Contains(stderr, why) || !strings.Contains(stderr, "an output reads `rain`") {
		t.Errorf("rain read by an output: exit %d, want 1 and %q:\n%s", code, why, stderr)
	}

	// a Gamma likelihood given a dry day's 0
	gamma := writeFile(t, d, "gamma.gpp", "data N: int\ndata x: real[N]\ndata rain: real<lower=0>[N]\nparam k: positive ~ Gamma(2, 2)\nrain ~ Gamma(k, k)\n")
	code, _, stderr = runSafe(t, "check", gamma, observed)
	if hint := "rain: value 0 is not > 0, as rain ~ Gamma at " + gamma + ":5:8 needs; for amounts with exact zeros (rainfall with dry days), use HurdleGamma(psi, alpha, beta), a Gamma(alpha, beta) value with probability psi = P(rain > 0), else exactly 0"; code != 1 || !strings.Contains(stderr, hint) {
		t.Errorf("Gamma at 0: exit %d, want 1 and %q:\n%s", code, hint, stderr)
	}
	// the same, y[n] ~ in a loop (the check when the model compiles)
	loop := writeFile(t, d, "loop.gpp", "data N: int\ndata x: real[N]\ndata rain: real<lower=0>[N]\nparam k: positive ~ Gamma(2, 2)\nfor n in 0:N {\n  rain[n] ~ Gamma(k, k)\n}\n")
	code, _, stderr = runSafe(t, "check", loop, observed)
	if hint := "rain: value 0 is not > 0, as Gamma at " + loop + ":6:13 needs; for amounts with exact zeros (rainfall with dry days), use HurdleGamma(psi, alpha, beta), a Gamma(alpha, beta) value with probability psi = P(rain > 0), else exactly 0"; code != 1 || !strings.Contains(stderr, hint) {
		t.Errorf("Gamma at 0 in a loop: exit %d, want 1 and %q:\n%s", code, hint, stderr)
	}
}

// leftOutRun is what leftOutFits made: the fits' directories, the data
// files and the first fit's stderr.
type leftOutRun struct {
	outAll, outObs   string // the fits with every row, and with the observed rows alone
	withNA, observed string // their data files
	stderr           string // the first fit's
	kept             int    // observed rows
	missing          []int  // the missing rows' indices
}

// checkSameFit checks that the fit with the missing cells left out is
// the observed rows' (the same log joint at the same seed): params'
// means to rounding, and loo.csv with a row per observed row, none at a
// missing one, and the same elpd_loo.
func (r leftOutRun) checkSameFit(t *testing.T, params ...string) {
	t.Helper()
	mAll, mObs := summaryMeans(t, r.outAll), summaryMeans(t, r.outObs)
	for _, p := range params {
		if _, ok := mAll[p]; !ok {
			t.Fatalf("no mean of %s in %s/summary.csv", p, r.outAll)
		}
		if math.Abs(mAll[p]-mObs[p]) > 1e-9*max(1, math.Abs(mObs[p])) {
			t.Errorf("mean of %s %v with the missing cells left out, %v on the observed rows", p, mAll[p], mObs[p])
		}
	}
	eAll, names := looElpd(t, r.outAll)
	eObs, _ := looElpd(t, r.outObs)
	for _, i := range r.missing {
		if n := fmt.Sprintf("%s[%d]", looOutput, i); slices.Contains(names, n) {
			t.Errorf("loo.csv lists %s, a missing cell", n)
		}
	}
	if len(names) != r.kept || math.Abs(eAll-eObs) > 1e-6*math.Abs(eObs) {
		t.Errorf("loo.csv: %d rows, elpd_loo %v; the observed rows': %d, %v", len(names), eAll, r.kept, eObs)
	}
}

// leftOutFits writes the rows (xs[i], ys[i]) under the header "x,NAME"
// (ys[i] "NA" where missing) to all.csv, and the observed rows alone to
// obs.csv, in d, and fits model to each at seed 3, into d/all and d/obs.
func leftOutFits(t *testing.T, d, model, name string, xs []float64, ys []string) leftOutRun {
	t.Helper()
	all, obs := []string{"x," + name}, []string{"x," + name}
	var missing []int
	for i, x := range xs {
		all = append(all, fmt.Sprintf("%g,%s", x, ys[i]))
		if ys[i] != "NA" {
			obs = append(obs, fmt.Sprintf("%g,%s", x, ys[i]))
		} else {
			missing = append(missing, i)
		}
	}
	r := leftOutRun{kept: len(obs) - 1, missing: missing, outAll: filepath.Join(d, "all"), outObs: filepath.Join(d, "obs")}
	r.withNA = writeFile(t, d, "all.csv", strings.Join(all, "\n")+"\n")
	r.observed = writeFile(t, d, "obs.csv", strings.Join(obs, "\n")+"\n")
	code, _, stderr := runSafe(t, "fit", model, r.withNA, "--seed", "3", "--out", r.outAll)
	if code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	r.stderr = stderr
	if code, _, e := runSafe(t, "fit", model, r.observed, "--seed", "3", "--out", r.outObs); code != 0 {
		t.Fatalf("fit of the observed rows: exit %d: %s", code, e)
	}
	return r
}

// Real data whose missing cells are leaves (observed by one ~ and read
// nowhere else): gpp fit sums them out of the likelihood and says so in a
// note, its fit that of the observed rows (the same log joint, so the
// same seed gives the same means to rounding, and loo.csv no row at a
// missing cell), and still reports them, as PyMC's imputed values: the
// columns y_missing.k of draws.csv and rows y_missing[k] of summary.csv,
// drawn from the ~ at each draw of q, so their means are E_q[a + b x] at
// those rows; gpp sample writes them too.
func TestLeftOutRealCLI(t *testing.T) {
	d := t.TempDir()
	model := writeFile(t, d, "m.gpp", `data N: int
data x: real[N]
data y: real[N]
param a: real ~ Normal(0, 2)
param b: real ~ Normal(0, 2)
param s: positive ~ Gamma(2, 2)
y ~ Normal(a + b * x, s)
output log_lik = logpdf(y, Normal(a + b * x, s))
`)
	xs := []float64{0.1, -0.4, 0.9, 1.3, -1.1, 0.2, 0.5, -0.3, 0.8, -0.7}
	ys := []string{"0.3", "NA", "1.2", "1.9", "NA", "0.2", "0.8", "-0.1", "1.1", "NA"}
	r := leftOutFits(t, d, model, "y", xs, ys)
	note := "all.csv lines 3, 6, 11) are left out of the likelihood (summed out, observed by one ~ and read nowhere else: each term integrates to 1; drawn from that ~ at each draw as the output y_missing)"
	if !strings.Contains(r.stderr, note) {
		t.Errorf("stderr has no note %q:\n%s", note, r.stderr)
	}
	r.checkSameFit(t, "a", "b", "s")
	_, head, rows := readStanCSV(t, filepath.Join(r.outAll, "draws.csv"))
	col := columns(head)
	means := summaryMeans(t, r.outAll)
	for k, i := range r.missing {
		c, ok := col[fmt.Sprintf("y_missing.%d", k+1)]
		if !ok {
			t.Fatalf("draws.csv has no column y_missing.%d: %v", k+1, head)
		}
		var sum, sq, n float64
		for _, row := range rows {
			v := row[c]
			sum, sq, n = sum+v, sq+v*v, n+1
		}
		mean, sd := sum/n, math.Sqrt(sq/n-(sum/n)*(sum/n))
		want := means["a"] + means["b"]*xs[i]
		if m, ok := means[fmt.Sprintf("y_missing[%d]", k)]; !ok || math.Abs(m-mean) > 5*sd/math.Sqrt(n) {
			t.Errorf("summary.csv y_missing[%d] %v (present %v), draws' mean %v", k, m, ok, mean)
		}
		if math.Abs(mean-want) > 5*sd/math.Sqrt(n) || !(sd > means["s"]/2) {
			t.Errorf("y_missing[%d] (x = %v): mean %v, sd %v over %v draws; want the mean %v of a + b x, the sd at least s's", k, xs[i], mean, sd, n, want)
		}
	}
	out := filepath.Join(d, "nuts")
	if code, _, stderr := runSafe(t, "sample", model, r.withNA, "--seed", "3", "--draws", "200", "--warmup", "200", "--out", out); code != 0 {
		t.Fatalf("sample: exit %d: %s", code, stderr)
	}
	if _, ok := summaryMeans(t, out)["y_missing[2]"]; !ok {
		t.Errorf("gpp sample's summary.csv has no y_missing[2]")
	}
}

// TestLeafUndrawnNote: where the model declares y_missing itself, the
// summed-out cells of y are not drawn as that output, and the note on
// them no longer says they are (it said so beside the note saying not).
func TestLeafUndrawnNote(t *testing.T) {
	d := t.TempDir()
	model := writeFile(t, d, "m.gpp", `data N: int
data y: real[N]
param mu: real ~ Normal(0, 10)
param s: positive ~ Gamma(2, 2)
y ~ Normal(mu, s)
output y_missing = mu
`)
	csv := writeFile(t, d, "y.csv", "y\n1.2\n0.5\nNA\n2.0\n1.1\n")
	code, _, stderr := runSafe(t, "fit", model, csv, "--seed", "2", "--out", filepath.Join(d, "o"))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"note: y: 1 missing value (" + csv + " line 4) is left out of the likelihood (summed out, observed by one ~ and read nowhere else: each term integrates to 1)\n",
		"note: y has 1 missing value in the data, summed out of the likelihood, and it is not drawn: the model declares y_missing at " + model + ":6:8",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr has no %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "as the output y_missing") {
		t.Errorf("a note says y's cells are drawn as the model's own y_missing:\n%s", stderr)
	}
}

// TestSkippedCellsNotRecorded: a missing cell that no ~ that runs observes
// (y[idx] ~ ... with idx leaving row 4 out) fits no latent, and fit.json's
// missing cells are those y_missing holds alone (it recorded both, for a
// latent of one element); the note says why the cell is unread.
func TestSkippedCellsNotRecorded(t *testing.T) {
	d := t.TempDir()
	model := writeFile(t, d, "m.gpp", "data y: real[N]\ndata idx: int[M]\nparam mu: real ~ Normal(0, 10)\ny[idx] ~ Normal(mu, 1)\n")
	y := writeFile(t, d, "y.csv", "y\n1.2\n0.5\nNA\n2.0\nNA\n")
	idx := writeFile(t, d, "idx.csv", "idx\n0\n1\n2\n3\n")
	out := filepath.Join(d, "o")
	code, _, stderr := runSafe(t, "fit", model, "y="+y, "idx="+idx, "--seed", "2", "--quiet", "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if want := "y: 1 missing value (" + y + " line 6) is read by no statement that runs (no ~ that runs observes it: an if on data skips it there, or an index leaves it out)"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "fit.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ff struct {
		Missing []struct {
			Latent string   `json:"latent"`
			Cells  []string `json:"cells"`
		} `json:"missing"`
	}
	if err := json.Unmarshal(b, &ff); err != nil {
		t.Fatal(err)
	}
	if len(ff.Missing) != 1 || ff.Missing[0].Latent != "y_missing" || len(ff.Missing[0].Cells) != 1 || ff.Missing[0].Cells[0] != y+":4:1" {
		t.Errorf("fit.json's missing cells %+v, want y_missing at %s:4:1 alone", ff.Missing, y)
	}
}

// TestPriorLeafDrawn: gpp fit --prior draws a leaf's missing cells too
// (y_missing from its ~ at each prior draw), where they were NaN in every
// draw (the prior's evaluator had no stream for them).
func TestPriorLeafDrawn(t *testing.T) {
	d := t.TempDir()
	model := writeFile(t, d, "m.gpp", "data y: real[N]\nparam mu: real ~ Normal(0, 10)\ny ~ Normal(mu, 1)\n")
	csv := writeFile(t, d, "y.csv", "y\n1.2\n0.5\nNA\n2.0\n")
	out := filepath.Join(d, "o")
	if code, _, stderr := runSafe(t, "fit", model, csv, "--prior", "--seed", "2", "--out", out); code != exitOK || strings.Contains(stderr, "NaN") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m, ok := summaryMeans(t, out)["y_missing[0]"]
	if !ok || math.IsNaN(m) || math.Abs(m) > 2 { // mu's prior mean 0, sd ≈ 10/√1000 over the draws
		t.Errorf("--prior's y_missing[0] mean %v (present %v), want a finite value near 0", m, ok)
	}
}

// TestIntLeftOutDrawn: gpp fit and gpp sample draw the missing counts of
// int data left out of the likelihood (future weeks' NA rows) as the
// output y_missing, ints, and say so; every other column of draws.csv is
// that of the hand-masked model (target += sum(M .* logpdf(...)), whose
// log joint is the same bit for bit) with the same seed, so that drawing
// them moves no other draw; a fit without missing counts has no
// y_missing.
func TestIntLeftOutDrawn(t *testing.T) {
	d := t.TempDir()
	const head = "data N: int\ndata x: real[N]\ndata y: int<lower=0>[N]\nparam a: real ~ Normal(0, 1)\nparam b: real ~ Normal(0, 1)\noutput r ~ Normal(a, 1)\n"
	model := writeFile(t, d, "m.gpp", head+"y ~ PoissonLog(a + b * x)\n")
	masked := writeFile(t, d, "masked.gpp", head+"data M: real[N]\ntarget += sum(M .* logpdf(y, PoissonLog(a + b * x)))\n")
	withNA := writeFile(t, d, "na.csv", "x,y\n0.1,3\n-0.4,NA\n0.9,1\n1.3,7\n-1.1,NA\n0.2,2\n")
	filled := writeFile(t, d, "filled.csv", "x,y,M\n0.1,3,1\n-0.4,0,0\n0.9,1,1\n1.3,7,1\n-1.1,0,0\n0.2,2,1\n")
	for _, cmd := range []string{"fit", "sample"} {
		args := []string{"--seed", "4", "--quiet"}
		if cmd == "sample" {
			args = append(args, "--draws", "100", "--warmup", "100")
		}
		run := func(model, data, out string) []map[string]float64 {
			t.Helper()
			code, _, stderr := runSafe(t, append([]string{cmd, model, data, "--out", filepath.Join(d, out)}, args...)...)
			if code != exitOK {
				t.Fatalf("%s: exit %d: %s", cmd, code, stderr)
			}
			if data == withNA {
				if want := "note: y: 2 missing values (" + withNA + " lines 3, 6) are left out of the likelihood (int data observed only by ~) and drawn from its ~ at each draw as the output y_missing\n"; !strings.Contains(stderr, want) {
					t.Errorf("%s: stderr lacks %q:\n%s", cmd, want, stderr)
				}
			}
			return readDrawsCSV(t, filepath.Join(d, out, "draws.csv"))
		}
		got, ref := run(model, withNA, cmd+"-na"), run(masked, filled, cmd+"-masked")
		if len(got) != len(ref) {
			t.Fatalf("%s: %d draws, the masked model's %d", cmd, len(got), len(ref))
		}
		for i := range got {
			for _, k := range []string{"y_missing.1", "y_missing.2"} {
				if v, ok := got[i][k]; !ok || v != math.Trunc(v) || v < 0 {
					t.Fatalf("%s: draw %d: %s = %v (present %v), want a count", cmd, i, k, v, ok)
				}
			}
			for k, v := range ref[i] {
				if got[i][k] != v && !(math.IsNaN(v) && math.IsNaN(got[i][k])) {
					t.Fatalf("%s: draw %d: %s = %v, the masked model's %v", cmd, i, k, got[i][k], v)
				}
			}
			if _, ok := ref[i]["y_missing.1"]; ok || len(got[i]) != len(ref[i])+2 {
				t.Fatalf("%s: columns %d, the masked model's %d: want y_missing's 2 more", cmd, len(got[i]), len(ref[i]))
			}
		}
	}
}

// A choice model's NA holdout choices (CategoricalLogit) are left out of
// the likelihood as missing counts are and drawn as choice_missing, each
// a class 0..2; every other column of draws.csv is the hand-masked
// model's with the same seed, and loo.csv lists the observed rows only,
// each elpd_loo the masked model's for that row.
func TestCategoricalLeftOutDrawn(t *testing.T) {
	d := t.TempDir()
	src, err := os.ReadFile("testdata/fit_choice_na.gpp")
	if err != nil {
		t.Fatal(err)
	}
	masked := writeFile(t, d, "masked.gpp", strings.Replace(string(src),
		"choice ~ CategoricalLogit(asc' + bp * price)",
		"data M: real[N]\ntarget += sum(M .* logpdf(choice, CategoricalLogit(asc' + bp * price)))", 1))
	csv, err := os.ReadFile("testdata/fit_choice_na.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	var missing []string // the log_lik elements at NA choices
	for i, ln := range lines {
		switch {
		case i == 0:
			lines[i] = ln + ",M"
		case strings.HasSuffix(ln, ",NA"):
			lines[i] = strings.TrimSuffix(ln, "NA") + "0,0"
			missing = append(missing, fmt.Sprintf("log_lik[%d]", i-1))
		default:
			lines[i] = ln + ",1"
		}
	}
	filled := writeFile(t, d, "filled.csv", strings.Join(lines, "\n")+"\n")
	for _, cmd := range []string{"fit", "sample"} {
		args := []string{"--seed", "4", "--quiet"}
		if cmd == "sample" {
			args = append(args, "--draws", "100", "--warmup", "100")
		}
		run := func(model, data, out string) []map[string]float64 {
			t.Helper()
			code, _, stderr := runSafe(t, append([]string{cmd, model, data, "--out", filepath.Join(d, out)}, args...)...)
			if code != exitOK {
				t.Fatalf("%s: exit %d: %s", cmd, code, stderr)
			}
			return readDrawsCSV(t, filepath.Join(d, out, "draws.csv"))
		}
		got, ref := run("testdata/fit_choice_na.gpp", "testdata/fit_choice_na.csv", cmd+"-na"), run(masked, filled, cmd+"-masked")
		if len(got) != len(ref) || len(missing) != 4 {
			t.Fatalf("%s: %d draws, the masked model's %d; %d NA rows", cmd, len(got), len(ref), len(missing))
		}
		for i := range got {
			for k := range len(missing) {
				name := fmt.Sprintf("choice_missing.%d", k+1)
				if v, ok := got[i][name]; !ok || v != math.Trunc(v) || v < 0 || v > 2 {
					t.Fatalf("%s: draw %d: %s = %v (present %v), want a class 0..2", cmd, i, name, v, ok)
				}
			}
			for k, v := range ref[i] {
				if got[i][k] != v && !(math.IsNaN(v) && math.IsNaN(got[i][k])) {
					t.Fatalf("%s: draw %d: %s = %v, the masked model's %v", cmd, i, k, got[i][k], v)
				}
			}
			if len(got[i]) != len(ref[i])+len(missing) {
				t.Fatalf("%s: columns %d, the masked model's %d: want choice_missing's %d more", cmd, len(got[i]), len(ref[i]), len(missing))
			}
		}
		looOf := func(out string) map[string]float64 {
			m := map[string]float64{}
			for _, r := range reftest.ReadCSV(t, filepath.Join(d, out, "loo.csv"))[2:] {
				v, err := strconv.ParseFloat(r[1], 64)
				if err != nil {
					t.Fatal(err)
				}
				m[r[0]] = v
			}
			return m
		}
		gl, rl := looOf(cmd+"-na"), looOf(cmd+"-masked")
		if len(gl) != len(rl)-len(missing) {
			t.Fatalf("%s: loo.csv has %d rows, the masked model's %d less the %d NA rows", cmd, len(gl), len(rl), len(missing))
		}
		for _, name := range missing {
			if _, ok := gl[name]; ok {
				t.Errorf("%s: loo.csv has %s, an NA choice", cmd, name)
			}
		}
		for name, v := range gl {
			if rl[name] != v {
				t.Errorf("%s: loo.csv %s elpd_loo %v, the masked model's %v", cmd, name, v, rl[name])
			}
		}
	}
}
