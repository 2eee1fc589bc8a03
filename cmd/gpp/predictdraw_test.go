package main

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPredictDrawsObserved fits examples/regression.gpp and predicts with
// testdata/predict_new.gpp on new rows of (alcohol, color_intensity) that
// leave out the observed proline, which predict then draws from its
// likelihood proline ~ Normal(mu, sigma) at each draw of q (PyMC's
// set_data + sample_posterior_predictive, no y_rep written):
//
//   - draws.csv's columns are the params, the outputs, then proline.1 ..
//     proline.4, and summary.csv's rows the same;
//   - stderr has the note naming the ~ statement's position;
//   - proline_i's mean is E[alpha] + x_i·E[beta] (the fit's 4000 draws),
//     within the Monte Carlo error of both samples, and its variance is
//     E[sigma²] + var(alpha + x_i·beta) under q (x'Σx), from the fit's
//     draws too, within the variance estimates' errors;
//   - --draw none leaves proline out and every other column as it was,
//     and --draw names only data left out.
func TestPredictDrawsObserved(t *testing.T) {
	dir := t.TempDir()
	fit := fitRegression(t, dir, "--output-draws", "4000")
	out := filepath.Join(dir, "pred")
	code, _, stderr := runSafe(t, "predict", fit, "testdata/predict_new.gpp", "testdata/predict_new.csv",
		"--seed", "7", "--output-draws", "20000", "--out", out)
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, stderr)
	}
	const note = "gpp: note: proline is not in the data: drawn from its likelihood at each draw (testdata/predict_new.gpp:12:1), as a posterior predictive\n"
	if !strings.Contains(stderr, note) {
		t.Errorf("stderr %q lacks the note %q", stderr, note)
	}
	_, header, rows := readStanCSV(t, filepath.Join(out, "draws.csv"))
	var names []string
	for _, h := range header {
		if !strings.HasSuffix(h, "__") {
			names = append(names, h)
		}
	}
	want := []string{"alpha", "beta.1", "beta.2", "sigma", "mu_new.1", "mu_new.2", "mu_new.3", "mu_new.4",
		"y_new.1", "y_new.2", "y_new.3", "y_new.4", "proline.1", "proline.2", "proline.3", "proline.4"}
	if !slices.Equal(names, want) {
		t.Fatalf("draws.csv columns %v, want %v", names, want)
	}
	_, sheader, srows := readSummaryNames(t, filepath.Join(out, "summary.csv"))
	if sw := []string{"proline[0]", "proline[1]", "proline[2]", "proline[3]"}; !slices.Equal(srows[len(srows)-4:], sw) || len(sheader) == 0 {
		t.Errorf("summary.csv's last rows %v, want %v", srows[len(srows)-4:], sw)
	}

	col := columns(header)
	draws := rows[1:]
	_, fheader, frows := readStanCSV(t, filepath.Join(fit, "draws.csv"))
	fcol := columns(fheader)
	fdraws := frows[1:]
	n, nFit := float64(len(draws)), float64(len(fdraws))
	xs := [][2]float64{{0, 0}, {1, 0}, {0, 1}, {2, -1}} // testdata/predict_new.csv
	s2 := make([]float64, len(fdraws))
	for d, r := range fdraws {
		s2[d] = r[fcol["sigma"]] * r[fcol["sigma"]]
	}
	for i, x := range xs {
		mu := make([]float64, len(fdraws)) // alpha + x·beta at the fit's draws
		for d, r := range fdraws {
			mu[d] = r[fcol["alpha"]] + x[0]*r[fcol["beta.1"]] + x[1]*r[fcol["beta.2"]]
		}
		y := column(draws, col[elemCol("proline", i)])
		wantMean, wantVar := mean(mu), mean(s2)+variance(mu)
		if se := math.Sqrt(wantVar/n + variance(mu)/nFit); math.Abs(mean(y)-wantMean) > predictSE*se {
			t.Errorf("E[proline[%d]] = %.4g, want E[alpha] + x·E[beta] = %.4g (se %.2g)", i+1, mean(y), wantMean, se)
		}
		// the variance of y's sample variance, and of the fit's estimates
		// of E[sigma²] and var(mu)
		se := math.Sqrt(2*wantVar*wantVar/n + variance(s2)/nFit + 2*variance(mu)*variance(mu)/nFit)
		if math.Abs(variance(y)-wantVar) > predictSE*se {
			t.Errorf("var(proline[%d]) = %.4g, want E[sigma²] + x'Σx = %.4g (se %.2g)", i+1, variance(y), wantVar, se)
		}
	}

	// --draw none: no proline, and every other column as it was (the
	// data's draws have a stream of their own)
	out2 := filepath.Join(dir, "pred2")
	code, _, stderr = runSafe(t, "predict", fit, "testdata/predict_new.gpp", "testdata/predict_new.csv", "--draw", "none",
		"--seed", "7", "--output-draws", "20000", "--quiet", "--out", out2)
	if code != 0 {
		t.Fatalf("--draw none: exit %d: %s", code, stderr)
	}
	_, h2, rows2 := readStanCSV(t, filepath.Join(out2, "draws.csv"))
	if slices.Contains(h2, "proline.1") || len(h2) != len(header)-4 || len(rows2) != len(rows) {
		t.Fatalf("--draw none: draws.csv has %v, want the columns without proline", h2)
	}
	for i, r := range rows2 {
		for c, v := range r {
			if w := rows[i][col[h2[c]]]; v != w && !(math.IsNaN(v) && math.IsNaN(w)) {
				t.Fatalf("--draw none: row %d's %s is %v, %v when proline is drawn", i, h2[c], v, w)
			}
		}
	}
	code, _, stderr = runSafe(t, "predict", fit, "testdata/predict_new.gpp", "testdata/predict_new.csv", "--draw", "alcohol", "--quiet", "--out", out2)
	if code != exitError || !strings.Contains(stderr, "--draw alcohol: alcohol is in the data given; predict draws only the data left out") {
		t.Errorf("--draw alcohol: exit %d, stderr %q", code, stderr)
	}
}

// readSummaryNames returns summary.csv's header and the names of its rows.
func readSummaryNames(t *testing.T, path string) (comments, header, names []string) {
	t.Helper()
	h, lines := drawLines(t, path)
	for _, l := range lines {
		names = append(names, strings.Trim(strings.SplitN(l, ",", 2)[0], `"`))
	}
	return nil, h, names
}

// TestPredictDrawsGPFA: GPFA (examples/gpfa.gpp) predicted with no data
// at all: its outcome Y [N, D], which only the likelihood Y ~
// MvNormalRows(0, W W' + I/prec) reads, is drawn with N = 4 rows from
// --set (D, W's shape, too), written as draws.csv's Y.i.j after the output
// cov, and each row's second moments are E[cov] (each draw's Y row has
// covariance cov at that draw), within Monte Carlo error.
func TestPredictDrawsGPFA(t *testing.T) {
	dir := t.TempDir()
	model, data := "../../examples/gpfa.gpp", "../../examples/wine_std.csv"
	fit := filepath.Join(dir, "fit")
	if code, _, stderr := runSafe(t, "fit", model, data, "--set", "K=3", "--iter", "300", "--output-draws", "50", "--quiet", "--out", fit); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	out := filepath.Join(dir, "pred")
	const n, rows, d = 4000, 4, 13
	code, _, stderr := runSafe(t, "predict", fit, model, "--set", "N=4", "--set", "D=13", "--output-draws", "4000", "--out", out)
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "gpp: note: Y is not in the data: drawn from its likelihood at each draw (../../examples/gpfa.gpp:") {
		t.Errorf("stderr %q lacks the note", stderr)
	}
	_, header, all := readStanCSV(t, filepath.Join(out, "draws.csv"))
	col := columns(header)
	first := slices.Index(header, "Y.1.1")
	if first < 0 || header[first-1] != fmt.Sprintf("cov.%d.%d", d, d) || len(header) < first+rows*d || header[first+1] != "Y.2.1" ||
		header[first+rows*d-1] != fmt.Sprintf("Y.%d.%d", rows, d) {
		t.Fatalf("draws.csv's columns from Y.1.1: %v, want Y.1.1 .. Y.%d.%d after cov", header[max(first-1, 0):], rows, d)
	}
	draws := all[1:]
	for j := 1; j <= d; j += 4 {
		var m2, cv, m4 float64
		for _, r := range draws {
			c := r[col[fmt.Sprintf("cov.%d.%d", j, j)]]
			cv += c / n
			for i := 1; i <= rows; i++ {
				y := r[col[fmt.Sprintf("Y.%d.%d", i, j)]]
				m2 += y * y / (n * rows)
				m4 += y * y * y * y / (n * rows)
			}
		}
		if se := math.Sqrt((m4 - m2*m2) / (n * rows)); math.Abs(m2-cv) > predictSE*se {
			t.Errorf("E[Y[, %d]²] = %.4g, want E[cov[%d, %d]] = %.4g (se %.2g)", j, m2, j, j, cv, se)
		}
	}
}

// TestPredictPlotsNothingToCheck checks that predict --plots says why it
// wrote no plot when the held-out y is left out (drawn) rather than given,
// in the same words from a fit and from a sample.
func TestPredictPlotsNothingToCheck(t *testing.T) {
	dir := t.TempDir()
	fit := fitRegression(t, dir)
	sample := filepath.Join(dir, "sample")
	if code, _, stderr := runSafe(t, "sample", regressionModel, regressionData, "--chains", "2", "--warmup", "150", "--draws", "50", "--quiet", "--out", sample); code != 0 {
		t.Fatalf("sample: exit %d: %s", code, stderr)
	}
	const want = "gpp: note: --plots: no predictive check to draw: no data that the new data give (held-out y, two or more values) is mirrored by a replicate output (output y_rep ~ D(...)); data drawn because the new data leave them out have no observed values to check\n"
	for i, from := range []string{fit, sample} {
		out := filepath.Join(dir, fmt.Sprint("pred", i))
		code, _, stderr := runSafe(t, "predict", from, "testdata/predict_new.gpp", "testdata/predict_new.csv", "--plots", "--out", out)
		if code != 0 {
			t.Fatalf("predict %s: exit %d: %s", from, code, stderr)
		}
		if !strings.Contains(stderr, want) {
			t.Errorf("predict %s: stderr %q lacks the note that --plots drew nothing, and why", from, stderr)
		}
		if pngs, _ := filepath.Glob(filepath.Join(out, "*.png")); len(pngs) > 0 {
			t.Errorf("predict %s: plots written: %v", from, pngs)
		}
	}
}

// TestPredictUndrawnInputWarning: new data that leave out a covariate of
// y's ~ (as well as y) leave y undrawn, the one thing predict is mostly
// for: a warning names the input and the data not drawn (it was a note
// among the others), the run still writes the outputs that need neither
// (exit 0); --draw none asks for the outputs alone, without the warning.
func TestPredictUndrawnInputWarning(t *testing.T) {
	d := t.TempDir()
	model := writeFile(t, d, "m.gpp", "data x: real[N]\ndata y: int<lower=0>[N]\nparam a: real ~ Normal(0, 1)\nparam b: real ~ Normal(0, 1)\ny ~ PoissonLog(a + b * x)\noutput a_out = a\n")
	csv := writeFile(t, d, "d.csv", "x,y\n0.1,3\n-0.4,1\n0.9,4\n")
	fit := filepath.Join(d, "fit")
	if code, _, stderr := runSafe(t, "fit", model, csv, "--seed", "1", "--quiet", "--out", fit); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	noX := writeFile(t, d, "nox.csv", "y\nNA\nNA\n")
	const warn = "gpp: warning: y has 2 missing values in the data and they are not drawn: its ~ at "
	for _, c := range []struct {
		args []string
		warn bool
	}{{nil, true}, {[]string{"--draw", "none"}, false}} {
		out := filepath.Join(d, fmt.Sprint("pred", c.warn))
		code, _, stderr := runSafe(t, append([]string{"predict", fit, model, noX, "--out", out}, c.args...)...)
		if code != 0 {
			t.Fatalf("predict %v: exit %d: %s", c.args, code, stderr)
		}
		if got := strings.Contains(stderr, warn) && strings.Contains(stderr, "reads x, which is not in the data either: give x to draw y"); got != c.warn {
			t.Errorf("predict %v: the warning %v, want %v:\n%s", c.args, got, c.warn, stderr)
		}
		if strings.Contains(stderr, "note: y has 2 missing values") {
			t.Errorf("predict %v: y's undrawn reason is still a note:\n%s", c.args, stderr)
		}
		_, header, _ := readStanCSV(t, filepath.Join(out, "draws.csv"))
		if !slices.Contains(header, "a_out") || slices.Contains(header, "y.1") {
			t.Errorf("predict %v: draws.csv columns %v, want a_out and no y", c.args, header)
		}
	}
}
