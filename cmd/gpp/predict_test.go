package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// predictSE is how many Monte Carlo standard errors a predicted moment may
// be from its value.
const predictSE = 4.5

const (
	regressionModel = "../../examples/regression.gpp"
	regressionData  = "../../examples/wine_std.csv"
)

// fitInto fits model to data into dir/name with the flags given and
// returns the output directory.
func fitInto(t *testing.T, dir, name, model, data string, flags ...string) string {
	t.Helper()
	out := filepath.Join(dir, name)
	args := append([]string{"fit", model, data, "--quiet", "--out", out}, flags...)
	if code, _, stderr := runSafe(t, args...); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	return out
}

// fitRegression fits examples/regression.gpp into dir/fit with the flags
// given and returns the output directory.
func fitRegression(t *testing.T, dir string, flags ...string) string {
	t.Helper()
	return fitInto(t, dir, "fit", regressionModel, regressionData, flags...)
}

// drawLines returns the rows of a draws.csv after its header, as text,
// and the header's cells.
func drawLines(t *testing.T, path string) (header []string, rows []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "#"):
		case header == nil:
			header = strings.Split(line, ",")
		default:
			rows = append(rows, line)
		}
	}
	return header, rows
}

// TestPredictRegression fits examples/regression.gpp and predicts at four
// new rows of (alcohol, color_intensity) with testdata/predict_new.gpp,
// whose data leave out the observed proline:
//
//   - in every draw, mu_new is alpha + x·beta at that draw's params;
//   - E[mu_new_i] = E[alpha] + x_i·E[beta] under q: the predictions' mean
//     (20000 draws, seed 7) against the fit's draws' means (4000 draws,
//     seed 1), independent samples, so the difference has standard error
//     √(var/20000 + var/4000) with var the variance of mu_new_i under q;
//   - y_new adds the noise: (y_new − mu_new)/sigma is standard normal in
//     each draw, so its mean square is 1 within √(2/n), and
//     var(y_new) − var(mu_new) = E[sigma²] within the variance
//     estimate's error var(y_new)·√(2/n);
//   - draws.csv says it holds predictions, log_p__ is NaN, and no fit.json,
//     elbo.csv or loo.csv is written.
func TestPredictRegression(t *testing.T) {
	dir := t.TempDir()
	fit := fitRegression(t, dir, "--output-draws", "4000")
	out := filepath.Join(dir, "pred")
	code, stdout, stderr := runSafe(t, "predict", fit, "testdata/predict_new.gpp", "testdata/predict_new.csv",
		"--seed", "7", "--output-draws", "20000", "--quiet", "--out", out)
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, stderr)
	}
	// the model adds outputs to the fit's: the warning that it is
	// another model (TestPredictOtherModel), and nothing else
	if lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "is not the model of the fit at") {
		t.Errorf("stderr %q, want the other model's warning alone", stderr)
	}
	if !strings.Contains(stdout, "predicted    20000 draws of q in "+filepath.Join(fit, "fit.json")+" (seed 7)") {
		t.Errorf("stdout:\n%s", stdout)
	}
	if got := dirEntries(t, out); !slices.Equal(got, []string{"draws.csv", "summary.csv"}) {
		t.Errorf("%s holds %v, want draws.csv summary.csv", out, got)
	}
	comments, header, rows := readStanCSV(t, filepath.Join(out, "draws.csv"))
	if c := strings.Join(comments, "\n"); !strings.Contains(c, "# method = generate_quantities") || !strings.Contains(c, "# PREDICTIONS:") {
		t.Errorf("draws.csv does not say it holds predictions:\n%s", c)
	}
	col := columns(header)
	draws := rows[1:]
	if len(draws) != 20000 {
		t.Fatalf("%d draws, want 20000", len(draws))
	}
	xs := [][2]float64{{0, 0}, {1, 0}, {0, 1}, {2, -1}} // testdata/predict_new.csv
	for d, r := range draws {
		if !math.IsNaN(r[col["log_p__"]]) {
			t.Fatalf("draw %d: log_p__ = %v, want NaN (not evaluated)", d, r[col["log_p__"]])
		}
		for i, x := range xs {
			want := r[col["alpha"]] + x[0]*r[col["beta.1"]] + x[1]*r[col["beta.2"]]
			if got := r[col[elemCol("mu_new", i)]]; math.Abs(got-want) > 1e-5*(1+math.Abs(want)) {
				t.Fatalf("draw %d: mu_new[%d] = %v, want alpha + x·beta = %v", d, i+1, got, want)
			}
		}
	}
	_, fheader, frows := readStanCSV(t, filepath.Join(fit, "draws.csv"))
	fcol := columns(fheader)
	fdraws := frows[1:]
	fitMean := func(name string) float64 { return mean(column(fdraws, fcol[name])) }
	n, nFit := float64(len(draws)), float64(len(fdraws))
	for i, x := range xs {
		mu := column(draws, col[elemCol("mu_new", i)])
		want := fitMean("alpha") + x[0]*fitMean("beta.1") + x[1]*fitMean("beta.2")
		v := variance(mu)
		if se := math.Sqrt(v/n + v/nFit); math.Abs(mean(mu)-want) > predictSE*se {
			t.Errorf("E[mu_new[%d]] = %.5g, want E[alpha] + x·E[beta] = %.5g (se %.2g)", i+1, mean(mu), want, se)
		}
		y := column(draws, col[elemCol("y_new", i)])
		ms, s2 := 0.0, 0.0
		for d, r := range draws {
			s := r[col["sigma"]]
			ms += (y[d] - mu[d]) * (y[d] - mu[d]) / (s * s) / n
			s2 += s * s / n
		}
		if math.Abs(ms-1) > predictSE*math.Sqrt(2/n) {
			t.Errorf("y_new[%d]: mean of ((y_new − mu_new)/sigma)² = %.4g, want 1", i+1, ms)
		}
		vy := variance(y)
		if extra := vy - v; math.Abs(extra-s2) > predictSE*vy*math.Sqrt(2/n) {
			t.Errorf("var(y_new[%d]) − var(mu_new[%d]) = %.4g, want E[sigma²] = %.4g", i+1, i+1, extra, s2)
		}
	}
}

// elemCol is draws.csv's column of element i (0-based) of a vector.
func elemCol(name string, i int) string { return name + "." + string(rune('1'+i)) }

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func variance(xs []float64) float64 {
	m, s := mean(xs), 0.0
	for _, x := range xs {
		s += (x - m) * (x - m)
	}
	return s / float64(len(xs)-1)
}

// column returns column c of rows.
func column(rows [][]float64, c int) []float64 {
	out := make([]float64, len(rows))
	for i, r := range rows {
		out[i] = r[c]
	}
	return out
}

// sameDraws checks that the predictions' draws.csv at pred has the fit's
// rows at fit, every column but log_p__ (NaN in the predictions).
func sameDraws(t *testing.T, fit, pred string) {
	t.Helper()
	fh, frows := drawLines(t, fit)
	ph, prows := drawLines(t, pred)
	if !slices.Equal(fh, ph) {
		t.Fatalf("columns %v, the fit's %v", ph, fh)
	}
	if len(frows) != len(prows) {
		t.Fatalf("%d rows, the fit's %d", len(prows), len(frows))
	}
	lp := slices.Index(fh, "log_p__")
	for i := range frows {
		f, p := strings.Split(frows[i], ","), strings.Split(prows[i], ",")
		if i > 0 && p[lp] != "NaN" {
			t.Fatalf("row %d: log_p__ = %s, want NaN", i, p[lp])
		}
		f[lp], p[lp] = "", ""
		if !slices.Equal(f, p) {
			t.Fatalf("row %d differs from the fit's:\n%s\n%s", i, prows[i], frows[i])
		}
	}
}

// Predicting with the fitted model and its data, by default (the fit's
// seed and number of draws), gives the fit's draws: the same draws of q
// and the same outputs, proline_rep's replicates included. With a mixture
// of restarts (its fit.json holds restarts, not factors), the draws come
// from the mixture as the fit's did, restart__ column and R̂ included.
func TestPredictReproducesFit(t *testing.T) {
	for _, restarts := range []string{"1", "2"} {
		t.Run("restarts="+restarts, func(t *testing.T) {
			dir := t.TempDir()
			fit := fitRegression(t, dir, "--restarts", restarts, "--output-draws", "300")
			out := filepath.Join(dir, "pred")
			code, stdout, stderr := runSafe(t, "predict", filepath.Join(fit, "fit.json"), regressionModel, regressionData, "--quiet", "--out", out)
			if code != 0 {
				t.Fatalf("predict: exit %d: %s", code, stderr)
			}
			sameDraws(t, filepath.Join(fit, "draws.csv"), filepath.Join(out, "draws.csv"))
			if restarts == "2" && (!strings.Contains(stdout, "R̂") || !strings.Contains(stdout, "draws of the mixture of 2 restarts")) {
				t.Errorf("stdout does not show the mixture:\n%s", stdout)
			}
		})
	}
}

// The same seed gives the same files; another seed other draws.
func TestPredictSeeded(t *testing.T) {
	dir := t.TempDir()
	fit := fitRegression(t, dir, "--output-draws", "50")
	out := filepath.Join(dir, "pred")
	files := func(seed string) (draws, summary []byte) {
		code, _, stderr := runSafe(t, "predict", fit, "testdata/predict_new.gpp", "testdata/predict_new.csv", "--seed", seed, "--quiet", "--out", out)
		if code != 0 {
			t.Fatalf("predict: exit %d: %s", code, stderr)
		}
		d, _ := os.ReadFile(filepath.Join(out, "draws.csv"))
		s, _ := os.ReadFile(filepath.Join(out, "summary.csv"))
		return d, s
	}
	d1, s1 := files("5")
	d2, s2 := files("5")
	if !bytes.Equal(d1, d2) || !bytes.Equal(s1, s2) {
		t.Error("two predictions with --seed 5 differ")
	}
	d3, _ := files("6")
	if bytes.Equal(d1, d3) {
		t.Error("--seed 5 and --seed 6 give the same draws")
	}
}

// A prediction that fails leaves the output directory as it was: an error
// before any file is written creates no directory, and one at the commit
// (a directory in the way of draws.csv) leaves the earlier summary.csv,
// no temporary file and no lock.
func TestPredictNoHalfWrittenFiles(t *testing.T) {
	dir := t.TempDir()
	fit := fitRegression(t, dir, "--output-draws", "50")
	out := filepath.Join(dir, "pred")
	code, _, stderr := runSafe(t, "predict", fit, "testdata/predict_shape.gpp", "testdata/predict_new.csv", "--quiet", "--out", out)
	if code != exitError || !strings.Contains(stderr, "predict_shape.gpp:8:7: param beta is real[3] here") {
		t.Errorf("exit %d, stderr %q; want 1 and the shape error", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s exists after a failed prediction: %v", out, err)
	}

	if err := os.MkdirAll(filepath.Join(out, "draws.csv"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, out, "summary.csv", "old\n")
	code, _, stderr = runSafe(t, "predict", fit, "testdata/predict_new.gpp", "testdata/predict_new.csv", "--quiet", "--out", out)
	if code != exitError || !strings.Contains(stderr, "it is a directory") || !strings.Contains(stderr, "no output written") {
		t.Errorf("exit %d, stderr %q; want 1, the directory in the way and no output written", code, stderr)
	}
	if got := dirEntries(t, out); !slices.Equal(got, []string{"draws.csv", "summary.csv"}) {
		t.Errorf("%s holds %v, want only draws.csv (the directory) and the old summary.csv", out, got)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "summary.csv")); string(b) != "old\n" {
		t.Errorf("summary.csv is %q, want the old one", b)
	}
}

// A varying intercept per group (examples/varying.gpp's z: real[J, 2])
// has the fit's shape whatever the new rows: predictions at new x for
// groups of the fit need no y; a J that differs from the fit's is the
// shape error, with the fit's --set named.
func TestPredictVarying(t *testing.T) {
	dir := t.TempDir()
	fit := filepath.Join(dir, "fit")
	if code, _, stderr := runSafe(t, "fit", "../../examples/varying.gpp", "../../examples/varying.csv", "--quiet", "--iter", "300",
		"--output-draws", "20", "--set", "J=40", "--out", fit); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	src, err := os.ReadFile("../../examples/varying.gpp")
	if err != nil {
		t.Fatal(err)
	}
	model := writeFile(t, dir, "varying_new.gpp", string(src)+"output y_new ~ Normal(alpha + b[g, 0] + b[g, 1] .* x, sigma)\n")
	data := writeFile(t, dir, "new.csv", "g,x\n0,0.5\n29,-1\n")
	out := filepath.Join(dir, "pred")
	code, stdout, stderr := runSafe(t, "predict", fit, model, data, "--set", "J=40", "--quiet", "--out", out)
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "y_new[1]") {
		t.Errorf("stdout:\n%s", stdout)
	}
	code, _, stderr = runSafe(t, "predict", fit, model, data, "--set", "J=30", "--quiet", "--out", out)
	if code != exitError || !strings.Contains(stderr, "param z is real[30, 2] here, but the fit at "+filepath.Join(fit, "fit.json")+" has z: real[40, 2]") ||
		!strings.Contains(stderr, "(the fit was run with --set J=40)") {
		t.Errorf("J=30: exit %d, stderr %q; want the shape error naming the fit's --set", code, stderr)
	}

	// A const the fit set (J = 41, not the model's 40) is the fit's
	// unless this run sets it: the params' shapes are made of it.
	fit41 := filepath.Join(dir, "fit41")
	if code, _, stderr := runSafe(t, "fit", "../../examples/varying.gpp", "../../examples/varying.csv", "--quiet", "--iter", "300",
		"--output-draws", "20", "--set", "J=41", "--out", fit41); code != 0 {
		t.Fatalf("fit J=41: exit %d: %s", code, stderr)
	}
	code, _, stderr = runSafe(t, "predict", fit41, model, data, "--out", out)
	if code != 0 || !strings.Contains(stderr, "--set J=41 from the fit") {
		t.Errorf("predict of the J=41 fit without --set: exit %d, stderr %q; want J=41 from the fit", code, stderr)
	}
}

// Predicting GPFA on its own positional data file: Y, which only the
// likelihood reads, takes every column of wine_std.csv as in the fit, so
// that D (W's shape) is bound and the draws are the fit's.
func TestPredictGPFAOwnData(t *testing.T) {
	dir := t.TempDir()
	model, data := "../../examples/gpfa.gpp", "../../examples/wine_std.csv"
	fit := filepath.Join(dir, "fit")
	if code, _, stderr := runSafe(t, "fit", model, data, "--set", "K=3", "--iter", "300", "--output-draws", "50", "--quiet", "--out", fit); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	out := filepath.Join(dir, "pred")
	if code, _, stderr := runSafe(t, "predict", fit, model, data, "--quiet", "--out", out); code != 0 {
		t.Fatalf("predict: exit %d: %s", code, stderr)
	}
	sameDraws(t, filepath.Join(fit, "draws.csv"), filepath.Join(out, "draws.csv"))
}

// A group count given to the fit by --set as scalar data (data S: int,
// which sizes a param) is the fit's in predict when the new data do not
// give it, as a size bound from labels or ids is: the fit's draws of u
// have its shape, so a note says so and the draws are --set S=3's. Other
// scalar data (c, read by an output) is not carried over: the error at
// its declaration, when predict lacks it, ends with the fit's value.
func TestPredictScalarDataSet(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "g.gpp", `data g: int[N]
data y: real[N]
data S: int
data c: real
param mu: real ~ Normal(0, 5)
param u: real[S] ~ Normal(0, 1)
y ~ Normal(mu + u[g], 1)
output m = mu + c
`)
	data := writeFile(t, dir, "d.csv", "g,y\n0,1.5\n1,-0.5\n2,0.3\n0,1.1\n")
	fit := filepath.Join(dir, "fit")
	if code, _, stderr := runSafe(t, "fit", model, data, "--set", "S=3", "--set", "c=2", "--quiet", "--iter", "200", "--output-draws", "20", "--out", fit); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	newData := writeFile(t, dir, "new.csv", "g\n2\n")
	out := filepath.Join(dir, "pred")
	code, _, stderr := runSafe(t, "predict", fit, model, newData, "--quiet", "--out", out)
	if code != exitError || !strings.Contains(stderr, "g.gpp:4:6: no data for `c` (real)") || !strings.Contains(stderr, "(the fit was run with --set c=2)") || strings.Contains(stderr, "`S`") {
		t.Errorf("predict without S and c: exit %d, stderr %q; want the error at c naming the fit's --set, none at S", code, stderr)
	}
	code, _, stderr = runSafe(t, "predict", fit, model, newData, "--set", "c=2", "--out", out)
	if note := "--set S=3 from the fit (the size of param u's shape there; the new data do not bind it)"; code != 0 || !strings.Contains(stderr, note) {
		t.Fatalf("predict with c alone: exit %d, stderr %q; want the note %q", code, stderr, note)
	}
	got := readFile(t, filepath.Join(out, "draws.csv"))
	code, stdout, stderr := runSafe(t, "predict", fit, model, newData, "--set", "S=3", "--set", "c=2", "--quiet", "--out", out)
	if code != 0 || !strings.Contains(stdout, "y[0]") || strings.Contains(stderr, "the fit was run with") {
		t.Errorf("predict with --set S=3: exit %d, stdout\n%s\nstderr %q", code, stdout, stderr)
	}
	if want := readFile(t, filepath.Join(out, "draws.csv")); draws(got) != draws(want) {
		t.Errorf("draws with S from the fit differ from --set S=3's:\n%.400s\nwant\n%.400s", got, want)
	}
}

// TestPredictOverflowed: a fit whose ELBO overflowed (fit_improper.gpp:
// written for inspection, exit 1) is refused by gpp predict, at its
// fit.json's elbo_se, with exit 1 and no output directory: its q
// approximates no posterior.
func TestPredictOverflowed(t *testing.T) {
	d := t.TempDir()
	bad := filepath.Join(d, "bad")
	if code, _, stderr := runSafe(t, "fit", "testdata/fit_improper.gpp", "--output-draws", "20", "--out", bad); code != 1 {
		t.Fatalf("improper fit: exit %d, want 1: %s", code, stderr)
	}
	out := filepath.Join(d, "pred")
	code, _, stderr := runSafe(t, "predict", bad, "testdata/fit_improper.gpp", "--out", out)
	want := filepath.Join(bad, "fit.json") + `:25:3: predict: this fit failed (its ELBO's standard error overflows): its outputs were written for inspection only, not to predict from`
	if code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("predict from an overflowed fit: exit %d, stderr:\n%s\nwant %q", code, stderr, want)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s was written", out)
	}
}

// TestStepOutputsPredictAndRepl: the step functions of params that only
// outputs may call (rank, sort_indices_*, floor; language.md §3,
// Conditions) are evaluated at each draw by gpp fit, again alike by gpp
// predict on the fit, and as queries in gpp repl.
func TestStepOutputsPredictAndRepl(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "rk.gpp", `param dk: real[3] ~ Normal(0, 1)
let d = append_row(0, dk)
output rk = rank(d, 0)
output ri = sort_indices_desc(d)
output fl = floor(3 * dk)
`)
	fit := filepath.Join(dir, "fit")
	if code, _, stderr := runSafe(t, "fit", model, "--output-draws", "200", "--quiet", "--out", fit); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	out := filepath.Join(dir, "pred")
	if code, _, stderr := runSafe(t, "predict", filepath.Join(fit, "fit.json"), model, "--quiet", "--out", out); code != 0 {
		t.Fatalf("predict: exit %d: %s", code, stderr)
	}
	sameDraws(t, filepath.Join(fit, "draws.csv"), filepath.Join(out, "draws.csv"))
	var b bytes.Buffer
	if code := run([]string{"repl", model, "--history", "-"}, strings.NewReader(":fit --quiet\nrank(d, 0)\nsort_indices_asc(d)\nmean(floor(dk[0]) >= 0)\n"), &b, &b); code != 0 {
		t.Fatalf("repl: exit %d:\n%s", code, b.String())
	}
	for _, want := range []string{"rank(d, 0)  ", "\n[3]  ", ">>> mean(floor(dk[0]) >= 0)\n0."} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("repl transcript lacks %q:\n%s", want, b.String())
		}
	}
}
