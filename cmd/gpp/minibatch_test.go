package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const minibatchRegression = `data x1: real[N]
data x2: real[N]
data y: real[N]
param alpha: real ~ Normal(0, 5)
param beta: real[2] ~ Normal(0, 5)
param sigma: positive ~ HalfNormal(2)
y ~ Normal(alpha + beta[0] * x1 + beta[1] * x2, sigma)
`

// regressionCSV simulates n rows of y = 1 + 2 x1 − 0.5 x2 + N(0, 0.7²).
func regressionCSV(n int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 9))
	var b strings.Builder
	b.WriteString("x1,x2,y\n")
	for range n {
		x1, x2 := rng.NormFloat64(), rng.NormFloat64()
		fmt.Fprintf(&b, "%.6f,%.6f,%.6f\n", x1, x2, 1+2*x1-0.5*x2+0.7*rng.NormFloat64())
	}
	return b.String()
}

// summaryStats reads summary.csv's mean and sd by name.
func summaryStats(t *testing.T, dir string) map[string][2]float64 {
	t.Helper()
	out := map[string][2]float64{}
	for _, row := range readCSV(t, filepath.Join(dir, "summary.csv"))[1:] {
		m, err1 := strconv.ParseFloat(row[2], 64)
		sd, err2 := strconv.ParseFloat(row[3], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("summary row %v", row)
		}
		out[row[0]] = [2]float64{m, sd}
	}
	return out
}

// A regression of 20 000 rows fitted on minibatches of 200 reaches the
// full-data fit's posterior: each mean within 1.5 of the full fit's
// posterior sds, each sd within a factor 1.6, the final (full-data) ELBO
// within 2 nats. Over seeds 1–4 the minibatch fits' means were 0.1–0.85
// posterior sds off and their sds 0.70–1.33 times the full fit's: the
// iterate average keeps some of the batches' gradient noise
// (docs/inference.md, "Minibatch SGVB"). The fit records the setting in
// fit.json and draws.csv and says it on the console.
func TestFitMinibatchRegression(t *testing.T) {
	if testing.Short() {
		t.Skip("two fits of 20 000 rows")
	}
	dir := t.TempDir()
	model := writeFile(t, dir, "reg.gpp", minibatchRegression)
	csv := writeFile(t, dir, "reg.csv", regressionCSV(20000, 1))
	fullOut, mbOut := filepath.Join(dir, "full"), filepath.Join(dir, "mb")
	if code, _, stderr := runSafe(t, "fit", model, csv, "--out", fullOut, "--quiet"); code != 0 {
		t.Fatalf("full fit: exit %d: %s", code, stderr)
	}
	code, _, stderr := runSafe(t, "fit", model, csv, "--out", mbOut, "--minibatch", "N=200")
	if code != 0 {
		t.Fatalf("minibatch fit: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "SGVB on minibatches of 200 of 20000 rows (N)") {
		t.Errorf("the console does not say the fit is minibatched:\n%s", stderr)
	}
	full, mb := summaryStats(t, fullOut), summaryStats(t, mbOut)
	for _, name := range []string{"alpha", "beta[1]", "beta[2]", "sigma"} {
		f, m := full[name], mb[name]
		if math.Abs(m[0]-f[0]) > 1.5*f[1] || m[1] > 1.6*f[1] || m[1] < f[1]/1.6 {
			t.Errorf("%s: minibatch %.5f ± %.5f, full %.5f ± %.5f", name, m[0], m[1], f[0], f[1])
		}
	}
	ff, fm := readFit(t, filepath.Join(fullOut, "fit.json")), readFit(t, filepath.Join(mbOut, "fit.json"))
	if math.Abs(float64(ff.ELBO)-float64(fm.ELBO)) > 2 {
		t.Errorf("full-data ELBO: minibatch fit %.3f, full fit %.3f", float64(fm.ELBO), float64(ff.ELBO))
	}
	if fm.Settings.Minibatch != "N=200" || ff.Settings.Minibatch != "" {
		t.Errorf("fit.json minibatch settings %q (minibatch), %q (full)", fm.Settings.Minibatch, ff.Settings.Minibatch)
	}
	comments, _, _ := readStanCSV(t, filepath.Join(mbOut, "draws.csv"))
	if !containsLine(comments, "#     gpp_minibatch = N=200") {
		t.Error("draws.csv does not record the minibatch")
	}
}

// A batch of N rows or more is the full-data fit, with a note: the same
// numbers as without the flag.
func TestFitMinibatchWhole(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "reg.gpp", minibatchRegression)
	csv := writeFile(t, dir, "reg.csv", regressionCSV(30, 2))
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if code, _, stderr := runSafe(t, "fit", model, csv, "--out", a, "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	code, _, stderr := runSafe(t, "fit", model, csv, "--out", b, "--minibatch", "N=30")
	if code != 0 {
		t.Fatal(stderr)
	}
	if !strings.Contains(stderr, "note: --minibatch N=30: the batch holds all 30 rows: this is the full-data fit") {
		t.Errorf("no note:\n%s", stderr)
	}
	sa, sb := summaryStats(t, a), summaryStats(t, b)
	for name, v := range sa {
		if sb[name] != v {
			t.Errorf("%s: %v with --minibatch N=30, %v without", name, sb[name], v)
		}
	}
}

// GPFA (examples/gpfa.gpp, K = 6) on the wine data (178 rows) fitted on
// minibatches of 50 rows: its Y'Y, hoisted out of the full model's steps,
// follows each batch, and the final full-data ELBO is within 5 nats of
// the full fit's (seed 2: −2933.0 against −2929.1).
func TestFitMinibatchGPFA(t *testing.T) {
	dir := t.TempDir()
	elbo := func(extra ...string) float64 {
		out := filepath.Join(dir, fmt.Sprint(len(extra)))
		args := append([]string{"fit", "../../examples/gpfa.gpp", "../../examples/wine_std.csv", "--set", "K=6", "--seed", "2", "--quiet", "--out", out}, extra...)
		if code, _, stderr := runSafe(t, args...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		return float64(readFit(t, filepath.Join(out, "fit.json")).ELBO)
	}
	full, mb := elbo(), elbo("--minibatch", "N=50")
	t.Logf("ELBO: full fit %.2f, minibatch fit %.2f", full, mb)
	if math.Abs(full-mb) > 5 {
		t.Errorf("full-data ELBO of the minibatch fit %.2f, of the full fit %.2f", mb, full)
	}
}
