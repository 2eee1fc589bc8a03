package main

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/reftest"
)

// Models of the fixed_param sampler's tests.
const (
	fixedModel = "testdata/fixed_mu.gpp"  // mu, sigma; output y ~ Normal(mu, sigma)
	fixedInit  = "testdata/fixed_mu.json" // mu 3, sigma 2
	simModel   = "testdata/sim_reg.gpp"   // no params: y_sim ~ Normal(1 + 0.5 x, 1)
	simData    = "testdata/sim_x.csv"     // x = -1, 0, 1, 2
)

// fixedSigmas is how many standard errors a Monte Carlo estimate may be
// off its true value in these tests (a false alarm about once in 15 000
// for one estimate).
const fixedSigmas = 4

// TestFixedParamMoments: gpp sample --fixed-param holds mu and sigma at the
// values of the init file in every draw, and y ~ Normal(mu, sigma), drawn
// afresh at each, has their mean and sd within Monte Carlo error (the
// draws independent: se of the mean sigma/√n, of the sd about
// sigma/√(2n)); draws.csv has CmdStan's fixed_param columns, lp__ and
// accept_stat__ 0 and no other sampler column.
func TestFixedParamMoments(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s")
	code, _, stderr := runGpp("sample", fixedModel, "--fixed-param", "--init", fixedInit, "--seed", "7", "--quiet", "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	src := readText(t, filepath.Join(out, drawsFile))
	if !strings.Contains(src, "\n#     algorithm = fixed_param\n") {
		t.Errorf("draws.csv does not say algorithm = fixed_param")
	}
	header, _, _ := strings.Cut(stripComments(src), "\n")
	if want := "chain__,draw__,lp__,accept_stat__,mu,sigma,y"; header != want {
		t.Errorf("draws.csv's columns are %s, want %s", header, want)
	}
	rows := readDrawsCSV(t, filepath.Join(out, drawsFile))
	if len(rows) != 4*1000 {
		t.Fatalf("%d draws, want 4 chains × 1000", len(rows))
	}
	const mu, sigma = 3.0, 2.0
	var sum, sq float64
	for i, r := range rows {
		if r["mu"] != mu || r["sigma"] != sigma || r["lp__"] != 0 || r["accept_stat__"] != 0 {
			t.Fatalf("draw %d: mu %v sigma %v lp__ %v accept_stat__ %v, want %v, %v, 0, 0", i+1, r["mu"], r["sigma"], r["lp__"], r["accept_stat__"], mu, sigma)
		}
		sum += r["y"]
	}
	n := float64(len(rows))
	mean := sum / n
	for _, r := range rows {
		sq += (r["y"] - mean) * (r["y"] - mean)
	}
	sd := math.Sqrt(sq / (n - 1))
	if se := sigma / math.Sqrt(n); math.Abs(mean-mu) > fixedSigmas*se {
		t.Errorf("y's mean %.4f, want %v within %d × %.4f", mean, mu, fixedSigmas, se)
	}
	if se := sigma / math.Sqrt(2*n); math.Abs(sd-sigma) > fixedSigmas*se {
		t.Errorf("y's sd %.4f, want %v within %d × %.4f", sd, sigma, fixedSigmas, se)
	}
	// the chains' y are draws of one distribution: R̂ near 1 in summary.csv
	sum2 := reftest.ReadCSVMaps(t, filepath.Join(out, summaryFile))
	for _, r := range sum2 {
		if r["name"] == "y" {
			if rh, _ := strconv.ParseFloat(r["rhat"], 64); !(rh < 1.01) {
				t.Errorf("y's R̂ %v, want below 1.01 for independent draws", r["rhat"])
			}
		}
	}
}

// TestFixedParamDeterministic: the fixed_param sampler's draws.csv and
// summary.csv are the same for a seed with one worker and two, and differ
// for another seed.
func TestFixedParamDeterministic(t *testing.T) {
	dir := t.TempDir()
	var draws, sums []string
	for i, c := range []struct{ workers, seed string }{{"1", "3"}, {"2", "3"}, {"1", "4"}} {
		out := filepath.Join(dir, strconv.Itoa(i))
		code, _, stderr := runGpp("sample", simModel, simData, "--draws", "50", "--workers", c.workers, "--seed", c.seed, "--quiet", "--out", out)
		if code != exitOK {
			t.Fatalf("exit %d:\n%s", code, stderr)
		}
		d, s := readText(t, filepath.Join(out, drawsFile)), readText(t, filepath.Join(out, summaryFile))
		draws, sums = append(draws, withoutTimes(d)), append(sums, s)
	}
	if draws[0] != draws[1] || sums[0] != sums[1] {
		t.Errorf("--workers 1 and 2 with the same seed wrote different draws.csv or summary.csv")
	}
	if draws[0] == draws[2] {
		t.Errorf("seeds 3 and 4 wrote the same draws.csv")
	}
}

// TestFixedParamDefaultStart: --fixed-param without --init holds each
// chain at gpp sample's random start (its own per chain), and says so.
func TestFixedParamDefaultStart(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s")
	code, stdout, stderr := runGpp("sample", fixedModel, "--fixed-param", "--chains", "2", "--draws", "20", "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	if !strings.Contains(stdout+stderr, "gpp sample's default start") {
		t.Errorf("the output does not say where the params are held:\n%s%s", stdout, stderr)
	}
	rows := readDrawsCSV(t, filepath.Join(out, drawsFile))
	first := map[float64]float64{} // chain → its mu
	for _, r := range rows {
		c := r["chain__"]
		if v, ok := first[c]; ok && v != r["mu"] {
			t.Fatalf("chain %v moved: mu %v then %v", c, v, r["mu"])
		}
		first[c] = r["mu"]
	}
	if len(first) != 2 || first[1] == first[2] {
		t.Errorf("the chains' mu %v: want two chains at two random starts", first)
	}
	// Held apart, mu has no within-chain spread: no ESS or Monte Carlo
	// error, and no R̂ (nuts.Diagnose's +Inf, which would say the chains
	// disagree, is NaN where the sampler holds the param by design), in
	// summary.csv, the table, gpp summary of draws.csv, whose R̂ warning
	// names no param (y, drawn at each chain's params, may differ), and
	// gpp predict of the sample.
	mu := readSummaryCSV(t, filepath.Join(out, summaryFile))["mu"]
	for _, k := range []string{"rhat", "ess_bulk", "ess_tail", "mcse_mean", "mcse_sd"} {
		if !math.IsNaN(mu[k]) {
			t.Errorf("mu's %s is %v, want NaN for a param the chains hold", k, mu[k])
		}
	}
	code, sumOut, stderr := runGpp("summary", filepath.Join(out, drawsFile))
	if code != exitOK {
		t.Fatalf("summary: exit %d:\n%s", code, stderr)
	}
	for what, table := range map[string]string{"sample": stdout, "summary": sumOut} {
		if r := tableRows(table)["mu"]; len(r) == 0 || r[len(r)-1] != "NaN" {
			t.Errorf("gpp %s's row of mu %v, want R̂ NaN:\n%s", what, r, table)
		}
	}
	for _, l := range strings.Split(sumOut, "\n") {
		if strings.Contains(l, "R̂ above") && (strings.Contains(l, "mu ") || strings.Contains(l, "sigma ")) {
			t.Errorf("gpp summary of the fixed_param draws warns of a held param's R̂: %s", l)
		}
	}
	// gpp predict of the sample (its coords.csv) knows it from draws.csv.
	p := filepath.Join(filepath.Dir(out), "p")
	if code, _, stderr := runGpp("predict", out, fixedModel, "--quiet", "--out", p); code != exitOK {
		t.Fatalf("predict: exit %d:\n%s", code, stderr)
	}
	if r := readSummaryCSV(t, filepath.Join(p, summaryFile))["mu"]["rhat"]; !math.IsNaN(r) {
		t.Errorf("gpp predict's R̂ of mu %v, want NaN for a param the sample held", r)
	}
}

// TestFixedParamPredict: gpp predict reads a --fixed-param sample's
// coords.csv (every draw at the fixed params), and gives a clear error for
// a sample of a model with no params, whose outputs need no draws.
func TestFixedParamPredict(t *testing.T) {
	dir := t.TempDir()
	s := filepath.Join(dir, "s")
	if code, _, stderr := runGpp("sample", fixedModel, "--fixed-param", "--init", fixedInit, "--draws", "50", "--quiet", "--out", s); code != exitOK {
		t.Fatalf("sample: exit %d:\n%s", code, stderr)
	}
	p := filepath.Join(dir, "p")
	if code, _, stderr := runGpp("predict", s, fixedModel, "--quiet", "--out", p); code != exitOK {
		t.Fatalf("predict: exit %d:\n%s", code, stderr)
	}
	for _, r := range readDrawsCSV(t, filepath.Join(p, drawsFile)) {
		if r["mu"] != 3 || r["sigma"] != 2 {
			t.Fatalf("predict's draw at mu %v sigma %v, want the fixed 3 and 2", r["mu"], r["sigma"])
		}
	}
	s2 := filepath.Join(dir, "s2")
	if code, _, stderr := runGpp("sample", simModel, simData, "--draws", "20", "--quiet", "--out", s2); code != exitOK {
		t.Fatalf("sample: exit %d:\n%s", code, stderr)
	}
	code, _, stderr := runGpp("predict", s2, simModel, simData, "--quiet", "--out", filepath.Join(dir, "p2"))
	if code != exitError || !strings.Contains(stderr, "has no params to draw: its outputs need no fit or sample, gpp sample draws them") {
		t.Errorf("predict of a model with no params: exit %d, stderr:\n%s", code, stderr)
	}
}

// TestFitPriorNoParams: gpp fit --prior on a model with no params writes
// the draws of its outputs, which vary from draw to draw.
func TestFitPriorNoParams(t *testing.T) {
	out := filepath.Join(t.TempDir(), "p")
	code, _, stderr := runGpp("fit", simModel, simData, "--prior", "--output-draws", "300", "--quiet", "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	rows := readDrawsCSV(t, filepath.Join(out, drawsFile))[1:] // after the row of the means, as a fit's
	if len(rows) != 300 {
		t.Fatalf("%d draws, want 300", len(rows))
	}
	distinct := map[float64]bool{}
	var sum float64
	for _, r := range rows {
		distinct[r["y_sim.4"]] = true
		sum += r["y_sim.4"]
	}
	if len(distinct) < 250 {
		t.Errorf("y_sim.4 took %d values in %d draws: not drawn afresh", len(distinct), len(rows))
	}
	// y_sim[3] (column y_sim.4) ~ Normal(1 + 0.5 × 2, 1)
	if m, se := sum/float64(len(rows)), 1/math.Sqrt(float64(len(rows))); math.Abs(m-2) > fixedSigmas*se {
		t.Errorf("y_sim[3]'s mean %.3f, want 2 within %d × %.3f", m, fixedSigmas, se)
	}
}
