package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/reftest"
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
	for _, row := range reftest.ReadCSV(t, filepath.Join(dir, "summary.csv"))[1:] {
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
// full-data fit's posterior: each mean within half of the full fit's
// posterior sd, each sd within 20 %, the final (full-data) ELBO within
// 0.5 nats. Over seeds 1–3 (on other simulated data) the minibatch fits'
// means were within 0.16 posterior sds and their sds 0.94–1.06 times the
// full fit's; before the step-size halvings (--anneal 0), 0.1–0.85 sds
// and 0.70–1.33 (docs/inference.md, "Minibatch SGVB"). The fit records the
// setting in fit.json and draws.csv and says it on the console, and its
// ELBO trace (elbo.csv, the progress lines) is named the batches'.
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
	for _, name := range []string{"alpha", "beta[0]", "beta[1]", "sigma"} {
		f, m := full[name], mb[name]
		if math.Abs(m[0]-f[0]) > 0.5*f[1] || m[1] > 1.2*f[1] || m[1] < f[1]/1.2 {
			t.Errorf("%s: minibatch %.5f ± %.5f, full %.5f ± %.5f", name, m[0], m[1], f[0], f[1])
		}
	}
	ff, fm := readFit(t, filepath.Join(fullOut, "fit.json")), readFit(t, filepath.Join(mbOut, "fit.json"))
	t.Logf("full-data ELBO: minibatch fit %.3f, full fit %.3f", float64(fm.ELBO), float64(ff.ELBO))
	if math.Abs(float64(ff.ELBO)-float64(fm.ELBO)) > 0.5 {
		t.Errorf("full-data ELBO: minibatch fit %.3f, full fit %.3f", float64(fm.ELBO), float64(ff.ELBO))
	}
	if fm.Settings.Minibatch != "N=200" || ff.Settings.Minibatch != "" || fm.Settings.Anneal != defaultAnneal || ff.Settings.Anneal != 0 {
		t.Errorf("fit.json minibatch settings %q, anneal %d (minibatch), %q, %d (full)", fm.Settings.Minibatch, fm.Settings.Anneal, ff.Settings.Minibatch, ff.Settings.Anneal)
	}
	comments, _, _ := readStanCSV(t, filepath.Join(mbOut, "draws.csv"))
	if !containsLine(comments, "#     gpp_minibatch = N=200") {
		t.Error("draws.csv does not record the minibatch")
	}
	// the trace is the batches' estimates, and says so, beside the full
	// fit's plain one
	for dir, want := range map[string]string{mbOut: "iter,batch_elbo,se,seconds", fullOut: "iter,elbo,se,seconds"} {
		if h := reftest.ReadCSV(t, filepath.Join(dir, "elbo.csv"))[0]; strings.Join(h, ",") != want {
			t.Errorf("%s/elbo.csv header %v, want %s", filepath.Base(dir), h, want)
		}
	}
	if !strings.Contains(stderr, "batch ELBO ") {
		t.Errorf("the progress lines do not say their ELBO is the batches':\n%s", stderr)
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

const minibatchGLMM = `const G = 20
data x: real[N]
data y: real[N]
data g: int<lower=0>[N]
param mu: real ~ Normal(0, 5)
param b: real ~ Normal(0, 5)
param tau: positive ~ HalfNormal(2)
param u: real[G] ~ Normal(mu, tau)
param s: positive ~ HalfNormal(2)
y ~ Normal(u[g] + b * x, s)
`

// glmmCSV simulates n rows of y = u[g] + 2x + N(0, 0.7²) in 20 groups
// with levels u ~ N(1, 0.5²).
func glmmCSV(n int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 10))
	var u [20]float64
	for j := range u {
		u[j] = 1 + 0.5*rng.NormFloat64()
	}
	var b strings.Builder
	b.WriteString("x,y,g\n")
	for range n {
		g, x := rng.IntN(len(u)), rng.NormFloat64()
		fmt.Fprintf(&b, "%.6f,%.6f,%d\n", x, u[g]+2*x+0.7*rng.NormFloat64(), g)
	}
	return b.String()
}

// A regression with group effects u[g], g int data of the rows, fitted on
// minibatches of 500 of 20 000 rows: the gather's indices follow each
// batch, and the fit reaches the full-data fit's posterior, each group
// level's mean within half of the full fit's posterior sd and its sd
// within 20 % (seeds 1–3 measured: within 0.24 sds and 0.92–1.08; with
// --anneal 0, within 0.75 sds and 0.72–1.45: docs/inference.md).
func TestFitMinibatchGLMM(t *testing.T) {
	if testing.Short() {
		t.Skip("two fits of 20 000 rows")
	}
	dir := t.TempDir()
	model := writeFile(t, dir, "glmm.gpp", minibatchGLMM)
	csv := writeFile(t, dir, "glmm.csv", glmmCSV(20000, 1))
	fullOut, mbOut := filepath.Join(dir, "full"), filepath.Join(dir, "mb")
	if code, _, stderr := runSafe(t, "fit", model, csv, "--out", fullOut, "--quiet"); code != 0 {
		t.Fatalf("full fit: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runSafe(t, "fit", model, csv, "--out", mbOut, "--minibatch", "N=500", "--quiet"); code != 0 {
		t.Fatalf("minibatch fit: exit %d: %s", code, stderr)
	}
	full, mb := summaryStats(t, fullOut), summaryStats(t, mbOut)
	names := []string{"mu", "b", "tau", "s"}
	for j := range 20 {
		names = append(names, fmt.Sprintf("u[%d]", j))
	}
	for _, name := range names {
		f, m := full[name], mb[name]
		if f[1] == 0 || math.Abs(m[0]-f[0]) > 0.5*f[1] || m[1] > 1.2*f[1] || m[1] < f[1]/1.2 {
			t.Errorf("%s: minibatch %.5f ± %.5f, full %.5f ± %.5f", name, m[0], m[1], f[0], f[1])
		}
	}
}

// The GLMM written as a loop over the rows, fitted on minibatches, is the
// vectorised model's fit: the batch model lowers the loop as vectors, to
// the same tape, so the summaries are equal to the last digit.
func TestFitMinibatchLoopForm(t *testing.T) {
	dir := t.TempDir()
	loop := strings.Replace(minibatchGLMM, "y ~ Normal(u[g] + b * x, s)\n", "for i in 0:N {\n  y[i] ~ Normal(u[g[i]] + b * x[i], s)\n}\n", 1)
	if loop == minibatchGLMM {
		t.Fatal("the loop form was not made")
	}
	csv := writeFile(t, dir, "glmm.csv", glmmCSV(2000, 2))
	var sums [2]string
	for k, src := range []string{minibatchGLMM, loop} {
		model := writeFile(t, dir, fmt.Sprintf("m%d.gpp", k), src)
		out := filepath.Join(dir, fmt.Sprint(k))
		if code, _, stderr := runSafe(t, "fit", model, csv, "--out", out, "--minibatch", "N=100", "--iter", "4000", "--seed", "3", "--quiet"); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		b, err := os.ReadFile(filepath.Join(out, "summary.csv"))
		if err != nil {
			t.Fatal(err)
		}
		sums[k] = string(b)
	}
	if sums[0] != sums[1] {
		t.Errorf("summary of the vectorised model:\n%s\nof the loop:\n%s", sums[0], sums[1])
	}
}

// A classifier written per row, softmax of one row's scores under
// Categorical in a loop over the rows, is accepted, and its minibatch fit
// is the vectorised example's (CategoricalLogit of the [N, K] scores): the
// batch log joints agree to rounding, so the same seed gives the same fit.
func TestFitMinibatchRowForm(t *testing.T) {
	dir := t.TempDir()
	const head = "data alcohol: real[N]\ndata flavanoids: real[N]\ndata color_intensity: real[N]\ndata cultivar: int<lower=0, upper=2>[N]\nparam alpha: real[3] ~ Normal(0, 2)\nparam B: real[3, 3] ~ Normal(0, 2)\n"
	models := []string{
		head + "cultivar ~ CategoricalLogit(alpha' + alcohol * B[0]' + flavanoids * B[1]' + color_intensity * B[2]')\n",
		head + "for i in 0:N {\n  let xi = [alcohol[i], flavanoids[i], color_intensity[i]]\n  cultivar[i] ~ Categorical(softmax(alpha + B' * xi))\n}\n",
	}
	var sums [2]map[string][2]float64
	for k, src := range models {
		model := writeFile(t, dir, fmt.Sprintf("m%d.gpp", k), src)
		out := filepath.Join(dir, fmt.Sprint(k))
		if code, _, stderr := runSafe(t, "fit", model, "../../examples/wine_std.csv", "cultivar=../../examples/wine_cultivar.csv",
			"--out", out, "--minibatch", "N=40", "--iter", "3000", "--seed", "2", "--quiet"); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		sums[k] = summaryStats(t, out)
	}
	if len(sums[0]) != 12 {
		t.Fatalf("%d rows in the summary, want 12", len(sums[0]))
	}
	for name, v := range sums[0] {
		l := sums[1][name]
		if math.Abs(l[0]-v[0]) > 1e-4*(1+math.Abs(v[0])) || math.Abs(l[1]-v[1]) > 1e-4*v[1] {
			t.Errorf("%s: %v as a loop, %v vectorised", name, l, v)
		}
	}
}
