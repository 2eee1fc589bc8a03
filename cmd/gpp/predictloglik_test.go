package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// logLikTol is how far an evaluated log_lik may be from the log density
// computed here from the same draw's params, relative to 1 + its size:
// draws.csv writes six significant digits, so the params read back and
// log_lik itself are rounded at 5e-6 relative, and the log densities here
// move by at most about 10 times that.
const logLikTol = 1e-4

// TestPredictLeavesOutLogLik: a model with output log_lik = logpdf(y,
// ...), gpp's way to LOO, predicts on new data without y as PyMC's
// set_data + sample_posterior_predictive does:
//
//   - from a fit: log_lik is left out with a note naming it and why, and
//     every other column (mu_new, y_new, the drawn proline) is the same,
//     bit for bit, as that of the same model without log_lik;
//   - given proline (the fit's own data), log_lik is evaluated: each
//     column is the normal log density of proline_i at that draw's
//     alpha + beta·x_i and sigma (the out-of-sample log predictive density
//     on held-out y);
//   - with --draw none and log_lik the only output, nothing is left to
//     predict: an error at the output, exit 1, nothing written;
//   - an output that reads log_lik is left out with it.
func TestPredictLeavesOutLogLik(t *testing.T) {
	dir := t.TempDir()
	fit := fitRegression(t, dir)
	base := readText(t, "testdata/predict_new.gpp")
	const ll = "output log_lik = logpdf(proline, Normal(mu, sigma))\n"
	withLL := writeFile(t, dir, "ll.gpp", strings.Replace(base, "output mu_new", ll+"output mu_new", 1))
	pred := func(model, data, out string, flags ...string) string {
		t.Helper()
		code, _, stderr := runSafe(t, append([]string{"predict", fit, model, data, "--seed", "5", "--output-draws", "300", "--out", filepath.Join(dir, out)}, flags...)...)
		if code != exitOK {
			t.Fatalf("predict %s: exit %d: %s", model, code, stderr)
		}
		return stderr
	}
	stderr := pred(withLL, "testdata/predict_new.csv", "ll")
	const note = "gpp: note: output log_lik reads proline, which the new data do not give: left out\n"
	if strings.Count(stderr, note) != 1 {
		t.Errorf("stderr %q lacks the note %q (once)", stderr, note)
	}
	pred("testdata/predict_new.gpp", "testdata/predict_new.csv", "base")
	h, rows := drawLines(t, filepath.Join(dir, "ll", drawsFile))
	bh, brows := drawLines(t, filepath.Join(dir, "base", drawsFile))
	if !slices.Equal(h, bh) || slices.ContainsFunc(h, func(c string) bool { return strings.HasPrefix(c, "log_lik") }) {
		t.Fatalf("columns %v, want those without log_lik %v", h, bh)
	}
	if !slices.Equal(rows, brows) || len(rows) != 301 { // the mean's row, then the draws
		for i := range min(len(rows), len(brows)) {
			if rows[i] != brows[i] {
				t.Errorf("row %d: %s, without log_lik %s", i, rows[i], brows[i])
				break
			}
		}
		t.Fatalf("predictions differ from those of the model without log_lik (%d and %d rows)", len(rows), len(brows))
	}

	// proline given: log_lik is its log density at each draw
	code, stdout, stderr := runSafe(t, "predict", fit, withLL, regressionData, "--seed", "5", "--output-draws", "300", "--out", filepath.Join(dir, "given"), "--quiet")
	if code != exitOK || strings.Contains(stderr, "left out") {
		t.Errorf("proline given: exit %d, stderr: %s", code, stderr)
	}
	_, gh, grows := readStanCSV(t, filepath.Join(dir, "given", drawsFile))
	col := columns(gh)
	_, wh, wine := readStanCSV(t, regressionData)
	wc := columns(wh)
	if _, ok := col["log_lik.1"]; !ok || len(grows) != 301 {
		t.Fatalf("proline given: no log_lik in %v", gh)
	}
	// and the held-out lppd sums log mean_s exp(log_lik[i]) over i
	lppd, n := 0.0, 0
	for i := 0; ; i++ {
		c, ok := col[fmt.Sprintf("log_lik.%d", i+1)]
		if !ok {
			break
		}
		terms := make([]float64, 0, len(grows)-1)
		for _, r := range grows[1:] { // the draws, not the mean's row
			terms = append(terms, r[c])
		}
		lppd += floats.LogSumExp(terms) - math.Log(float64(len(terms)))
		n++
	}
	var got float64
	var elems int
	if _, err := fmt.Sscanf(stdout[strings.Index(stdout, "held-out     lppd "):], "held-out     lppd %g ± %g over the %d elements", &got, new(float64), &elems); err != nil || elems != n || n != len(wine) || math.Abs(got-lppd) > 1e-4*math.Abs(lppd) {
		t.Errorf("held-out line %q (%v): lppd %v over %d, want %.6g over %d (the draws' log_lik)", stdout, err, got, elems, lppd, n)
	}
	for _, r := range grows[1:] {
		for i := range 3 {
			x := wine[i]
			mu := r[col["alpha"]] + r[col["beta.1"]]*x[wc["alcohol"]] + r[col["beta.2"]]*x[wc["color_intensity"]]
			s := r[col["sigma"]]
			z := (x[wc["proline"]] - mu) / s
			want := -0.5*z*z - math.Log(s) - 0.5*math.Log(2*math.Pi)
			if got := r[col[elemCol("log_lik", i)]]; math.Abs(got-want) > logLikTol*(1+math.Abs(want)) {
				t.Fatalf("log_lik[%d] = %v, want log Normal(proline | mu, sigma) = %v", i+1, got, want)
			}
		}
	}

	// a later output that reads log_lik goes with it
	sum := writeFile(t, dir, "sum.gpp", strings.Replace(base, "output mu_new", ll+"output elpd = sum(log_lik)\noutput mu_new", 1))
	stderr = pred(sum, "testdata/predict_new.csv", "sum")
	if !strings.Contains(stderr, "gpp: note: output elpd reads output log_lik, which is left out: left out\n") {
		t.Errorf("stderr %q lacks the note on elpd", stderr)
	}
	if sh, srows := drawLines(t, filepath.Join(dir, "sum", drawsFile)); !slices.Equal(sh, bh) || !slices.Equal(srows, brows) {
		t.Errorf("with elpd: columns %v, want %v, or other rows", sh, bh)
	}

	// nothing left to predict
	only := writeFile(t, dir, "only.gpp", strings.Replace(strings.Replace(base, "output mu_new = mu", ll, 1), "output y_new ~ Normal(mu, sigma)", "", 1))
	out := filepath.Join(dir, "none")
	code, _, stderr = runSafe(t, "predict", fit, only, "testdata/predict_new.csv", "--draw", "none", "--out", out)
	if want := only + ":14:1: nothing to predict: output log_lik reads proline, which the new data do not give, and no other output or drawn data remain"; code != exitError || !strings.Contains(stderr, want) {
		t.Errorf("nothing left: exit %d, stderr %q, want %q", code, stderr, want)
	}
	if _, err := os.Stat(filepath.Join(out, drawsFile)); err == nil {
		t.Errorf("nothing left, yet %s written", drawsFile)
	}
	// given proline, a covariate that only log_lik reads is needed
	cov := writeFile(t, dir, "cov.gpp", strings.Replace(readText(t, withLL), "output mu_new = mu", "output mu_new = alpha + beta[0] * alcohol", 1))
	cov = writeFile(t, dir, "cov.gpp", strings.Replace(readText(t, cov), "output y_new ~ Normal(mu, sigma)", "", 1))
	code, _, stderr = runSafe(t, "predict", fit, cov, "alcohol=testdata/predict_new.csv", "proline=testdata/predict_new.csv:alcohol", "--out", filepath.Join(dir, "cov"))
	if want := "no data for `color_intensity`"; code != exitError || !strings.Contains(stderr, want) || !strings.Contains(stderr, "gpp predict reads it for output log_lik ("+cov+":14:1): give it, or leave output log_lik out") {
		t.Errorf("a covariate left out: exit %d, stderr %q", code, stderr)
	}
}

// TestPredictSampleLeavesOutLogLik: from a gpp sample, the Poisson
// model with output log_lik = logpdf(y, Poisson(lambda)) on new data
// without y (--set N=3, y drawn) leaves log_lik out with its note, its
// rows the same bit for bit as those of the model without it; given y,
// log_lik[i] is log Poisson(y_i | lambda) at each draw.
func TestPredictSampleLeavesOutLogLik(t *testing.T) {
	dir := t.TempDir()
	s := filepath.Join(dir, "s")
	if code, _, stderr := runGpp("sample", poissonModel, poissonData, "--quiet", "--chains", "2", "--warmup", "50", "--draws", "30", "--out", s); code != exitOK {
		t.Fatalf("sample: exit %d:\n%s", code, stderr)
	}
	withLL := writeFile(t, dir, "ll.gpp", readText(t, poissonModel)+"output log_lik = logpdf(y, Poisson(lambda))\n")
	code, _, stderr := runGpp("predict", s, withLL, "--set", "N=3", "--out", filepath.Join(dir, "ll"))
	if code != exitOK || !strings.Contains(stderr, "gpp: note: output log_lik reads y, which the new data do not give: left out\n") {
		t.Fatalf("predict: exit %d:\n%s", code, stderr)
	}
	if code, _, stderr := runGpp("predict", s, poissonModel, "--set", "N=3", "--quiet", "--out", filepath.Join(dir, "base")); code != exitOK {
		t.Fatalf("predict without log_lik: exit %d:\n%s", code, stderr)
	}
	h, rows := drawLines(t, filepath.Join(dir, "ll", drawsFile))
	bh, brows := drawLines(t, filepath.Join(dir, "base", drawsFile))
	if want := "chain__,draw__,lambda,twice,y.1,y.2,y.3"; strings.Join(h, ",") != want || !slices.Equal(h, bh) {
		t.Fatalf("header %v (without log_lik %v), want %s", h, bh, want)
	}
	if !slices.Equal(rows, brows) || len(rows) != 60 {
		t.Fatalf("predictions differ from those of the model without log_lik (%d and %d rows)", len(rows), len(brows))
	}

	// y given
	if code, _, stderr := runGpp("predict", s, withLL, poissonData, "--quiet", "--out", filepath.Join(dir, "given")); code != exitOK {
		t.Fatalf("y given: exit %d:\n%s", code, stderr)
	}
	_, gh, grows := readStanCSV(t, filepath.Join(dir, "given", drawsFile))
	_, _, ys := readStanCSV(t, poissonData)
	col := columns(gh)
	if _, ok := col["log_lik.1"]; !ok {
		t.Fatalf("y given: no log_lik in %v", gh)
	}
	for _, r := range grows {
		lam := r[col["lambda"]]
		for i := range 3 {
			y := ys[i][0]
			lg, _ := math.Lgamma(y + 1)
			want := y*math.Log(lam) - lam - lg
			if got := r[col[elemCol("log_lik", i)]]; math.Abs(got-want) > logLikTol*(1+math.Abs(want)) {
				t.Fatalf("log_lik[%d] = %v, want log Poisson(%v | %v) = %v", i+1, got, y, lam, want)
			}
		}
	}
}

// TestHeldOutLine: the held-out line sums log mean_s exp(log_lik[i]) over
// the elements, with the standard error √n sd of the terms; an element
// whose term is not finite is named in place of the sum, not dropped
// silently.
func TestHeldOutLine(t *testing.T) {
	ll := variable{name: looOutput, output: true, shape: []int{2}, elems: []int{0, 1}, first: 1}
	mk := func(a, b []float64) *drawSet {
		return &drawSet{vars: []variable{{name: "mu", shape: []int{}}, ll}, cols: [][]float64{{0, 0}, a, b}}
	}
	// terms log((e^-1 + e^-3)/2) and log((e^-2 + e^-2)/2) = -2
	t1 := math.Log((math.Exp(-1) + math.Exp(-3)) / 2)
	sum, se := t1-2, math.Sqrt(2)*math.Abs(t1+2)/math.Sqrt(2)
	want := fmt.Sprintf("held-out     lppd %.6g ± %.2g over the 2 elements of log_lik (mean %.4g each)", sum, se, sum/2)
	if got := heldOutLine(mk([]float64{-1, -3}, []float64{-2, -2})); !strings.HasPrefix(got, want) {
		t.Errorf("got %q, want %q...", got, want)
	}
	for _, c := range []struct {
		b    []float64
		want string
	}{
		{[]float64{math.NaN(), -2}, "held-out     lppd not computed: log_lik[1] is NaN or +Inf at 1 of 2 draws"},
		{[]float64{math.Inf(-1), math.Inf(-1)}, "held-out     lppd -Inf: log_lik[1] is -Inf at every draw"},
		{[]float64{math.Inf(-1), -2}, "held-out     lppd "}, // one draw of density 0: finite
	} {
		if got := heldOutLine(mk([]float64{-1, -3}, c.b)); !strings.HasPrefix(got, c.want) || c.want == "held-out     lppd " && strings.Contains(got, "Inf") {
			t.Errorf("log_lik[1] draws %v: %q, want %q...", c.b, got, c.want)
		}
	}
	if got := heldOutLine(&drawSet{vars: []variable{{name: "mu"}}, cols: [][]float64{{0}}}); got != "" {
		t.Errorf("no log_lik: %q, want none", got)
	}
}
