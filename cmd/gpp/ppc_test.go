package main

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/pipeline"
	"gonum.org/v1/plot/vg"
)

// TestFindReplicates: which replicate outputs get a predictive check, and
// against which data: the same distribution expression as a top-level ~
// on the data whole, or a name y_rep, y_pred or y_sim, and in either case
// the data's shape; int data with an int replicate are counts; missing
// cells are left out of the observed values.
func TestFindReplicates(t *testing.T) {
	d := t.TempDir()
	real := writeFile(t, d, "real.csv", "y,x\n1.5,0.1\n2.5,0.2\n0.5,0.3\n")
	counts := writeFile(t, d, "counts.csv", "c\n3\n0\n2\n5\n")
	missing := writeFile(t, d, "missing.csv", "y,x\n1.5,0.1\nNA,0.2\n0.5,0.3\n")
	const head = "data y: real[N]\ndata x: real[N]\nparam mu: real ~ Normal(0, 1)\nparam s: positive ~ HalfNormal(1)\n"
	const counting = "data c: int<lower=0>[M]\nparam lambda: positive ~ Gamma(2, 0.5)\nc ~ Poisson(lambda)\n"
	for _, tc := range []struct {
		name, model, data string
		want              string // data:output[:count], space-separated
	}{
		{"same expression", head + "y ~ Normal(mu + x, s)\noutput yy ~ Normal(mu + x, s)\n", real, "y:yy"},
		{"same expression, spaced otherwise", head + "y ~ Normal(mu+x,s)\noutput yy ~ Normal(mu + x,  s)\n", real, "y:yy"},
		{"another expression", head + "y ~ Normal(mu + x, s)\noutput yy ~ Normal(mu + x, 2 * s)\n", real, ""},
		{"named y_rep", head + "y ~ Normal(mu + x, s)\noutput y_rep ~ Normal(mu + x, 2 * s)\n", real, "y:y_rep"},
		{"named y_pred, y in a loop", head + "for i in 0:N { y[i] ~ Normal(mu + x[i], s) }\noutput y_pred ~ Normal(mu + x, s)\n", real, "y:y_pred"},
		{"named y_sim", head + "y ~ Normal(mu + x, s)\noutput y_sim ~ Normal(mu + x, s)\n", real, "y:y_sim"},
		{"named after another data", head + "y ~ Normal(mu + x, s)\noutput x_rep ~ Normal(mu + x, 2 * s)\n", real, "x:x_rep"},
		{"a scalar is no replicate of y", head + "y ~ Normal(mu + x, s)\noutput y_rep ~ Normal(mu, s)\n", real, ""},
		{"another shape", head + "y ~ Normal(mu + x, s)\noutput y_rep ~ Normal(mu + x[0:2], s)\n", real, ""},
		{"a row of the same size", head + "y ~ Normal(mu + x, s)\noutput y_rep ~ Normal(mu + x', s)\n", real, ""},
		{"not a replicate", head + "y ~ Normal(mu + x, s)\noutput y_rep = mu + x\n", real, ""},
		{"a truncated ~ is no mirror of an untruncated replicate", head + "y ~ Normal(mu + x, s) T[0, ]\noutput yy ~ Normal(mu + x, s)\n", real, ""},
		{"nor of another truncation", head + "y ~ Normal(mu + x, s) T[0, ]\noutput yy ~ Normal(mu + x, s) T[0, 10]\n", real, ""},
		{"a truncated ~ and its truncated replicate", head + "y ~ Normal(mu + x, s) T[0, ]\noutput yy ~ Normal(mu + x, s) T[0,  ]\n", real, "y:yy"},
		{"the first of two", head + "y ~ Normal(mu + x, s)\noutput a ~ Normal(mu + x, s)\noutput b ~ Normal(mu + x, s)\n", real, "y:a"},
		{"a name beats an earlier expression", head + "y ~ Normal(mu + x, s)\nx ~ Normal(mu + x, s)\noutput x_rep ~ Normal(mu + x, s)\n", real, "x:x_rep"},
		{"counts", counting + "output c_rep ~ Poisson(rep(lambda, M))\n", counts, "c:c_rep:count"},
		{"counts, a real replicate", counting + "output c_rep ~ Normal(rep(lambda, M), 1)\n", counts, "c:c_rep"},
		{"missing cells", head + "y ~ Normal(mu + x, s)\noutput y_rep ~ Normal(mu + x, s)\n", missing, "y:y_rep"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := writeFile(t, d, "m.gpp", tc.model)
			l, err := pipeline.Load(model, []string{tc.data}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range findReplicates(l) {
				s := m.data + ":" + m.output
				if m.count {
					s += ":count"
				}
				got = append(got, s)
				wantObs := map[string][]float64{real: {1.5, 2.5, 0.5}, counts: {3, 0, 2, 5}, missing: {1.5, 0.5}}[tc.data]
				if m.data == "x" {
					wantObs = []float64{0.1, 0.2, 0.3}
				}
				if !slices.Equal(m.obs, wantObs) || m.missing != map[bool]int{true: 1}[tc.data == missing && m.data == "y"] {
					t.Errorf("%s: observed %v (%d missing), want %v", s, m.obs, m.missing, wantObs)
				}
			}
			if g := strings.Join(got, " "); g != tc.want {
				t.Errorf("matches %q, want %q", g, tc.want)
			}
		})
	}
}

// TestSilverman: Silverman's rule as R's bw.nrd0 computes it.
func TestSilverman(t *testing.T) {
	for _, tc := range []struct {
		x    []float64
		want float64
	}{
		// bw.nrd0(1:5): the IQR/1.34 = 2/1.34 is below the sd.
		{[]float64{1, 2, 3, 4, 5}, 0.9 * (2 / 1.34) * math.Pow(5, -0.2)},
		// the sd below the IQR/1.34: sd(c(0, 0, 10, 10)) = 5.7735, IQR 10
		{[]float64{0, 0, 10, 10}, 0.9 * math.Sqrt(100.0/3) * math.Pow(4, -0.2)},
		// IQR 0: the sd
		{[]float64{0, 1, 1, 1, 1, 1, 5}, 0.9 * math.Sqrt((30.0-100.0/7)/6) * math.Pow(7, -0.2)},
		// no spread: the magnitude
		{[]float64{3, 3, 3}, 0.9 * 3 * math.Pow(3, -0.2)},
	} {
		if got := silverman(tc.x); math.Abs(got-tc.want) > 1e-12*tc.want {
			t.Errorf("silverman(%v) = %.15g, want %.15g", tc.x, got, tc.want)
		}
	}
	// R: bw.nrd0(1:5) prints 0.9736.
	if got := silverman([]float64{1, 2, 3, 4, 5}); math.Abs(got-0.9736) > 5e-5 {
		t.Errorf("silverman(1:5) = %g, R's bw.nrd0 0.9736", got)
	}
}

// kdeTol is the largest difference allowed between the binned KDE and the
// exact sum of kernels (relative to the density's peak).
const kdeTol = 2e-3

// TestKDE: the binned kernel density estimate integrates to 1, agrees
// with the exact sum of Gaussian kernels, and for normal samples with the
// normal density smoothed by the kernel, N(0, 1 + h²).
func TestKDE(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, g = 20000, 512
	x := make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	sorted := slices.Sorted(slices.Values(x))
	h := silverman(sorted)
	lo, hi := sorted[0]-6*h, sorted[n-1]+6*h
	dst := make([]float64, g)
	kde(dst, lo, hi, x, h)
	step := (hi - lo) / (g - 1)
	integral := 0.0
	for i, y := range dst {
		w := step
		if i == 0 || i == g-1 {
			w /= 2
		}
		integral += w * y
	}
	if math.Abs(integral-1) > 1e-3 {
		t.Errorf("the KDE integrates to %g", integral)
	}
	sd := math.Sqrt(1 + h*h)
	worstNormal, worstExact := 0.0, 0.0
	for i, y := range dst {
		u := lo + float64(i)*step
		want := math.Exp(-u*u/(2*sd*sd)) / (sd * math.Sqrt(2*math.Pi))
		worstNormal = max(worstNormal, math.Abs(y-want))
		if i%8 == 0 { // the exact estimate at every 8th point
			exact := 0.0
			for _, v := range x {
				z := (u - v) / h
				exact += math.Exp(-z*z/2) / (h * math.Sqrt(2*math.Pi))
			}
			worstExact = max(worstExact, math.Abs(y-exact/n))
		}
	}
	peak := 1 / math.Sqrt(2*math.Pi)
	if worstExact > kdeTol*peak {
		t.Errorf("binned KDE differs from the exact one by up to %g", worstExact)
	}
	// Sampling noise of the estimate: sd √(f(u)·0.28/(n h)) ≈ 0.006 at the peak.
	if worstNormal > 0.02 {
		t.Errorf("KDE of N(0, 1) samples differs from N(0, 1 + h²) by up to %g", worstNormal)
	}
	t.Logf("h %.4g, ∫ %.6f, |binned − exact| ≤ %.2g, |KDE − normal| ≤ %.3g", h, integral, worstExact, worstNormal)

	// Values off the grid add nothing: two values, one outside, give half
	// the mass.
	kde(dst, -5, 5, []float64{0, 100}, 0.5)
	half := 0.0
	for _, y := range dst {
		half += y * 10 / (g - 1)
	}
	if math.Abs(half-0.5) > 1e-3 {
		t.Errorf("one of two values on the grid: ∫ = %g, want 0.5", half)
	}
}

// TestCountValues: counts per value, exactly, and the replicates'
// median and 5–95 % quantiles of those counts.
func TestCountValues(t *testing.T) {
	got := countValues([]float64{0, 2, 2, 3, 7, -1, 2.5, math.NaN(), 2}, 0, 4)
	if want := []float64{1, 0, 3, 1, 0}; !slices.Equal(got, want) {
		t.Errorf("countValues = %v, want %v", got, want)
	}
	// 21 draws: draw d has d values equal to 1 and 20 − d equal to 0, so
	// the count of 1 runs 0..20 (median 10, 5 % 1, 95 % 19 by R's type 7)
	// and of 0 20..0; one draw of NaNs is left out.
	var rep [][]float64
	for d := range 21 {
		r := make([]float64, 20)
		for i := range d {
			r[i] = 1
		}
		rep = append(rep, r)
	}
	nans := make([]float64, 20)
	for i := range nans {
		nans[i] = math.NaN()
	}
	rep = append(rep, nans)
	med, q5, q95, n := countBands(replicatesOf(rep), 0, 2)
	if !slices.Equal(med, []float64{10, 10, 0}) || !slices.Equal(q5, []float64{1, 1, 0}) || !slices.Equal(q95, []float64{19, 19, 0}) || n != 21 {
		t.Errorf("countBands: median %v, 5 %% %v, 95 %% %v of %d draws", med, q5, q95, n)
	}
	lo, hi, ok := countRange(ppcMatch{obs: []float64{1, 4}, count: true}, replicatesOf(rep))
	if !ok || lo != 0 || hi != 4 {
		t.Errorf("countRange = %d..%d (%v), want 0..4", lo, hi, ok)
	}
	if _, _, ok := countRange(ppcMatch{obs: []float64{0, 200}, count: true}, replicates{}); ok {
		t.Error("201 values get bars")
	}
	if _, _, ok := countRange(ppcMatch{obs: []float64{0, 2}}, replicates{}); ok {
		t.Error("real data get bars")
	}
}

// TestPPCStats: each draw's mean and sd, and the tail share.
func TestPPCStats(t *testing.T) {
	nan := math.NaN()
	means, sds := ppcStats(replicatesOf([][]float64{{1, 2, 3}, {2, nan, 6}, {5, nan, math.Inf(1)}}))
	if !slices.Equal(means, []float64{2, 4}) || !slices.Equal(sds, []float64{1, math.Sqrt(8)}) {
		t.Errorf("ppcStats: means %v, sds %v", means, sds)
	}
	if got := tailShare([]float64{1, 2, 3, 4}, 3); got != 0.5 {
		t.Errorf("tailShare = %g, want 0.5", got)
	}
}

// ppcModel is a regression with a replicate of its data and a Poisson
// model with one of its counts, in one file: both get a check.
const ppcModel = `data x: real[N]
data y: real[N]
data c: int<lower=0>[N]
param a: real ~ Normal(0, 2)
param b: real ~ Normal(0, 2)
param s: positive ~ HalfNormal(1)
param lambda: positive ~ Gamma(2, 0.5)
y ~ Normal(a + b * x, s)
c ~ Poisson(lambda)
output y_rep ~ Normal(a + b * x, s)
output c_rep ~ Poisson(rep(lambda, N))
output fit_ = mean(y_rep)
`

// ppcData writes the data of ppcModel: n rows.
func ppcData(t *testing.T, dir string, n int) string {
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	b.WriteString("x,y,c\n")
	for range n {
		x := rng.NormFloat64()
		fmt.Fprintf(&b, "%.4f,%.4f,%d\n", x, 1+2*x+0.5*rng.NormFloat64(), rng.IntN(5))
	}
	return writeFile(t, dir, "ppc.csv", b.String())
}

// TestFitPPCPlots: gpp fit --plots writes ppc_y.png and ppc_stat_y.png
// for each data that a replicate mirrors, as PNGs of the check's size,
// lists them in fit.json and on the console, renders them alike for one
// seed, and a fit without --plots removes them. --prior --plots writes
// the checks alone.
func TestFitPPCPlots(t *testing.T) {
	d := t.TempDir()
	model := writeFile(t, d, "ppc.gpp", ppcModel)
	dataFile := ppcData(t, d, 60)
	out := filepath.Join(d, "out")
	fit := func(out string, args ...string) string {
		t.Helper()
		args = append([]string{"fit", model, dataFile, "--quiet", "--iter", "300", "--output-draws", "100", "--out", out}, args...)
		code, stdout, stderr := runSafe(t, args...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		return stdout
	}
	stdout := fit(out, "--plots")
	checks := []string{"ppc_y.png", "ppc_stat_y.png", "ppc_c.png", "ppc_stat_c.png"}
	if !strings.Contains(stdout, "elbo.png intervals.png "+strings.Join(checks, " ")+"\n") {
		t.Errorf("stdout:\n%s", stdout)
	}
	if got := readFit(t, filepath.Join(out, "fit.json")).Files; strings.Join(got, " ") != "summary.csv draws.csv elbo.csv fit.json elbo.png intervals.png "+strings.Join(checks, " ") {
		t.Errorf("fit.json files: %v", got)
	}
	wantW, wantH := int(math.Round(float64((plotWidth+ppcLegend)/vg.Inch)*plotDPI)), int(math.Round(float64(plotHeight/vg.Inch)*plotDPI))
	for _, name := range checks {
		if b := decodePNG(t, filepath.Join(out, name)).Bounds(); b.Dx() != wantW || b.Dy() != wantH {
			t.Errorf("%s: %d×%d, want %d×%d", name, b.Dx(), b.Dy(), wantW, wantH)
		}
	}

	// The same seed draws the same pictures.
	again := filepath.Join(d, "again")
	fit(again, "--plots")
	for _, name := range checks {
		a, _ := os.ReadFile(filepath.Join(out, name))
		b, _ := os.ReadFile(filepath.Join(again, name))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two fits with one seed", name)
		}
	}

	// A fit without --plots removes them.
	fit(out)
	if got := strings.Join(dirEntries(t, out), " "); got != "draws.csv elbo.csv fit.json summary.csv" {
		t.Errorf("after a fit without --plots: %s", got)
	}

	// Predictions: held-out data given get the checks, data left out
	// (drawn) none.
	pred := filepath.Join(d, "pred")
	if code, _, stderr := runSafe(t, "predict", out, model, dataFile, "--plots", "--quiet", "--out", pred); code != 0 {
		t.Fatalf("predict: exit %d: %s", code, stderr)
	}
	if got := strings.Join(dirEntries(t, pred), " "); got != "draws.csv ppc_c.png ppc_stat_c.png ppc_stat_y.png ppc_y.png summary.csv" {
		t.Errorf("predict --plots wrote %s", got)
	}
	xOnly := writeFile(t, d, "x.csv", "x\n0.5\n1.5\n-1\n")
	pred = filepath.Join(d, "pred-x")
	if code, _, stderr := runSafe(t, "predict", out, model, xOnly, "--plots", "--quiet", "--out", pred); code != 0 {
		t.Fatalf("predict: exit %d: %s", code, stderr)
	}
	if got := strings.Join(dirEntries(t, pred), " "); got != "draws.csv summary.csv" {
		t.Errorf("predict --plots without y and c wrote %s", got)
	}

	// Prior predictive checks.
	prior := filepath.Join(d, "prior")
	code, stdout, stderr := runSafe(t, "fit", model, dataFile, "--prior", "--plots", "--quiet", "--output-draws", "100", "--out", prior)
	if code != 0 {
		t.Fatalf("--prior: exit %d: %s", code, stderr)
	}
	if got := strings.Join(dirEntries(t, prior), " "); got != "draws.csv intervals.png ppc_c.png ppc_stat_c.png ppc_stat_y.png ppc_y.png summary.csv" {
		t.Errorf("--prior --plots wrote %s\n%s", got, stdout)
	}
	if !strings.Contains(stdout, "intervals.png") {
		t.Errorf("--prior --plots: the written line does not list intervals.png:\n%s", stdout)
	}
}

// TestPPCNames: the files of the checks, a name two checks would take
// going to the first.
func TestPPCNames(t *testing.T) {
	got := ppcNames([]ppcMatch{{data: "y"}, {data: "stat_y"}, {data: "z"}})
	if want := "ppc_y.png ppc_stat_y.png ppc_stat_stat_y.png ppc_z.png ppc_stat_z.png"; strings.Join(got, " ") != want {
		t.Errorf("ppcNames = %v, want %s", got, want)
	}
	for _, n := range got {
		if !outputName.MatchString(n) {
			t.Errorf("%s is not an output name: a later fit would not remove it", n)
		}
	}
}

// replicatesOf is the replicates whose draw d is rows[d].
func replicatesOf(rows [][]float64) replicates {
	r := replicates{cols: make([][]float64, len(rows[0])), n: len(rows)}
	for j := range r.cols {
		for _, row := range rows {
			r.cols[j] = append(r.cols[j], row[j])
		}
	}
	return r
}

// TestPPCScalarReplicateWarned: a replicate named y_rep that draws a
// scalar for vector data y gets no predictive check, and gpp fit, gpp
// sample and gpp fit --prior with --plots print the checker's warning
// that says why, at the output.
func TestPPCScalarReplicateWarned(t *testing.T) {
	d := t.TempDir()
	model := writeFile(t, d, "m.gpp", "data y: real[N]\nparam mu: real ~ Normal(0, 10)\nparam sigma: positive ~ Gamma(2, 1)\ny ~ Normal(mu, sigma)\noutput y_rep ~ Normal(mu, sigma)\n")
	data := writeFile(t, d, "y.csv", "y\n1.2\n0.3\n2.5\n1.7\n")
	const warning = "m.gpp:5:8: warning: output `y_rep ~ Normal(mu, sigma)` draws a scalar, but it mirrors y [N]"
	for _, args := range [][]string{
		{"fit", "--iter", "200"},
		{"sample", "--chains", "1", "--warmup", "100", "--draws", "50"},
		{"fit", "--prior", "--output-draws", "50"},
	} {
		out := filepath.Join(d, args[0]+strconv.Itoa(len(args)))
		full := append(append(args[:1:1], model, data, "--plots", "--quiet", "--out", out), args[1:]...)
		code, _, stderr := runSafe(t, full...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		if !strings.Contains(stderr, warning) {
			t.Errorf("%v: stderr lacks the warning:\n%s", args, stderr)
		}
		if slices.ContainsFunc(dirEntries(t, out), func(name string) bool { return strings.HasPrefix(name, "ppc_") }) {
			t.Errorf("%v wrote %v", args, dirEntries(t, out))
		}
	}
}
