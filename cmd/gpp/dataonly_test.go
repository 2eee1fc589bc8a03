package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/lang/autodiff"
)

// TestDataValueOutsideSupportBeforeFit: a test result coded 2 for a
// Bernoulli inside logpdf, in both of log_mix's components (a diagnostic
// accuracy trial's Hui–Walter model), fails for any params: gpp fit
// reports it before fitting (no 50 failed steps), and gpp check and gpp
// fit say no start helps, not --init.
func TestDataValueOutsideSupportBeforeFit(t *testing.T) {
	dir := t.TempDir()
	m := writeFile(t, dir, "hw.gpp", "data t1: int[N]\nparam prev: unit ~ Beta(1, 1)\nparam se: unit ~ Beta(20, 4)\nparam sp: unit ~ Beta(20, 2)\n"+
		"target += sum(log_mix(prev, logpdf(t1, Bernoulli(se)), logpdf(t1, Bernoulli(1 - sp))))\n")
	d := writeFile(t, dir, "d.csv", "t1\n0\n1\n2\n0\n")
	const want = "hw.gpp:5:29: log density is -Inf: value 2 outside the support of Bernoulli (element [2]); the value is t1's at "
	code, _, stderr := runSafe(t, "check", m, d)
	if code != exitError || !strings.Contains(stderr, want) || !strings.Contains(stderr, dataOnlyNote) || strings.Contains(stderr, startNote) {
		t.Errorf("check: exit %d; stderr\n%s", code, stderr)
	}
	out := filepath.Join(dir, "out")
	code, _, stderr = runSafe(t, "fit", m, d, "--quiet", "--out", out)
	if code != exitError || !strings.Contains(stderr, want) || !strings.Contains(stderr, autodiff.DataValueNote) || !strings.Contains(stderr, dataOnlyNote) ||
		strings.Contains(stderr, "--init FILE") || strings.Contains(stderr, "stopped at iteration") {
		t.Errorf("fit: exit %d; stderr\n%s", code, stderr)
	}
	if entries := dirEntries(t, out); len(entries) > 0 {
		t.Errorf("fit wrote %v", entries)
	}
}

// TestHMMDataOnlyRowBeforeFit: a count of −1 makes every state's Poisson
// log density −Inf in that row of hmm_marginal's log_omega (given as is or
// transposed), so the likelihood is 0 for any params: gpp check and gpp
// fit name the row and the data cell, say no start helps and do not fit.
func TestHMMDataOnlyRowBeforeFit(t *testing.T) {
	dir := t.TempDir()
	const head = "data y: int[N]\nconst K = 2\nparam lambda: positive_ordered[K] ~ Gamma(2, 0.2)\nparam A: simplex[K, K] ~ Dirichlet(rep(1, K))\nparam rho: simplex[K] ~ Dirichlet(rep(1, K))\n"
	d := writeFile(t, dir, "d.csv", "y\n2\n5\n-1\n3\n")
	for name, body := range map[string]string{
		"hmm.gpp":  "let lo = logpdf(y, Poisson(lambda'))\ntarget += hmm_marginal(lo, A, rho)\n",
		"hmmt.gpp": "let lo = logpdf(y', Poisson(lambda))\ntarget += hmm_marginal(lo', A, rho)\n",
	} {
		m := writeFile(t, dir, name, head+body)
		want := name + ":7:11: hmm_marginal: every state's log density in row 2 of log_omega is -Inf"
		code, _, stderr := runSafe(t, "check", m, d)
		if code != exitError || !strings.Contains(stderr, want) || !strings.Contains(stderr, "d.csv:4:1") ||
			!strings.Contains(stderr, dataOnlyNote) || strings.Contains(stderr, startNote) {
			t.Errorf("%s: check: exit %d; stderr\n%s", name, code, stderr)
		}
		out := filepath.Join(dir, "out"+name)
		code, _, stderr = runSafe(t, "fit", m, d, "--quiet", "--out", out)
		if code != exitError || !strings.Contains(stderr, want) || !strings.Contains(stderr, dataOnlyNote) ||
			strings.Contains(stderr, "--init FILE") || strings.Contains(stderr, "stopped at iteration") {
			t.Errorf("%s: fit: exit %d; stderr\n%s", name, code, stderr)
		}
	}
}

// TestHMMGammaNotStochastic: a Gamma computed from a positive[K, K] param
// (which gpp check cannot refuse as it refuses the param itself) has rows
// that do not sum to 1 wherever a fit starts: gpp check and gpp fit say
// so and that no start helps, not --init, and do not fit. A Gamma of data
// whose row does not sum to 1 names the data cell.
func TestHMMGammaNotStochastic(t *testing.T) {
	dir := t.TempDir()
	m := writeFile(t, dir, "g.gpp", "data y: real[N]\nparam mu: ordered[2] ~ Normal(0, 3)\nparam B: positive[2, 2] ~ Gamma(2, 2)\n"+
		"let G = 2 * B\ntarget += hmm_marginal(logpdf(y, Normal(mu', 1)), G, rep(0.5, 2))\n")
	d := writeFile(t, dir, "d.csv", "y\n0.1\n1.2\n-0.3\n2.2\n")
	const want = "g.gpp:5:11: hmm_marginal: row 0 of Gamma sums to 4, not 1"
	code, _, stderr := runSafe(t, "check", m, d)
	if code != exitError || !strings.Contains(stderr, want) || !strings.Contains(stderr, autodiff.HMMSumNote) ||
		!strings.Contains(stderr, noStartNote) || strings.Contains(stderr, startNote) {
		t.Errorf("check: exit %d; stderr\n%s", code, stderr)
	}
	code, _, stderr = runSafe(t, "fit", m, d, "--quiet", "--out", filepath.Join(dir, "out"))
	if code != exitError || !strings.Contains(stderr, want) || !strings.Contains(stderr, noStartNote) ||
		strings.Contains(stderr, "--init FILE") || strings.Contains(stderr, "stopped at iteration") {
		t.Errorf("fit: exit %d; stderr\n%s", code, stderr)
	}
	md := writeFile(t, dir, "gd.gpp", "data y: real[N]\ndata A: positive[2, 2]\nparam mu: ordered[2] ~ Normal(0, 3)\n"+
		"target += hmm_marginal(logpdf(y, Normal(mu', 1)), A, rep(0.5, 2))\n")
	dj := writeFile(t, dir, "d.json", `{"y":[0.1,1.2,-0.3,2.2],"A":[[0.9,0.2],[0.1,0.9]]}`)
	code, _, stderr = runSafe(t, "check", md, dj)
	if code != exitError || !strings.Contains(stderr, "gd.gpp:4:11: hmm_marginal: row 0 of Gamma sums to 1.1") ||
		!strings.Contains(stderr, "Gamma[0, 1] is A's at "+dj+":1:") || strings.Contains(stderr, autodiff.HMMSumNote) {
		t.Errorf("check data: exit %d; stderr\n%s", code, stderr)
	}
}

// TestZeroExposureBeforeFit: a Poisson rate exp(b0 + b1 * x) .* pop with
// pop 0 in a row whose count is above 0 is 0 for any params, so its log
// density is −Inf whatever they are: gpp check and gpp fit name pop's
// cell as the rate's cause (a criminologist's trial named y's alone, then
// fitted 50 failed steps), say no start helps and do not fit. A zero
// exposure with a count of 0 is no error, nor is a rate whose factor a
// param scales (for a logpdf too).
func TestZeroExposureBeforeFit(t *testing.T) {
	dir := t.TempDir()
	m := writeFile(t, dir, "rate.gpp", "data y: int[N]\ndata pop: real<lower=0>[N]\ndata x: real[N]\nparam b0: real ~ Normal(0, 1)\nparam b1: real ~ Normal(0, 1)\n"+
		"y ~ Poisson(exp(b0 + b1 * x) .* pop)\n")
	d := writeFile(t, dir, "d.csv", "y,x,pop\n3,0.5,10\n4,-0.2,0\n1,0.1,5\n")
	want := "rate 0, element [1]); the value is y's at " + d + ":3:1; rate is 0 because pop is 0 at " + d + ":3:"
	code, _, stderr := runSafe(t, "check", m, d)
	if code != exitError || !strings.Contains(stderr, want) || !strings.Contains(stderr, dataOnlyNote) || strings.Contains(stderr, startNote) {
		t.Errorf("check: exit %d; stderr\n%s", code, stderr)
	}
	out := filepath.Join(dir, "out")
	code, _, stderr = runSafe(t, "fit", m, d, "--quiet", "--out", out)
	if code != exitError || !strings.Contains(stderr, want) || !strings.Contains(stderr, autodiff.DataValueNote) ||
		strings.Contains(stderr, "--init FILE") || strings.Contains(stderr, "stopped at iteration") {
		t.Errorf("fit: exit %d; stderr\n%s", code, stderr)
	}
	// the factor that is 0 is named, not another of the product's
	open := writeFile(t, dir, "open.gpp", "data y: int[N]\ndata pop: real<lower=0>[N]\ndata open: real<lower=0>[N]\ndata x: real[N]\nparam b0: real ~ Normal(0, 1)\nparam b1: real ~ Normal(0, 1)\n"+
		"y ~ Poisson(exp(b0 + b1 * x) .* pop .* open)\n")
	d2 := writeFile(t, dir, "d2.csv", "y,x,pop,open\n3,0.5,10,1\n4,-0.2,7,0\n1,0.1,5,1\n")
	if code, _, stderr := runSafe(t, "check", open, d2); code != exitError || !strings.Contains(stderr, "rate is 0 because open is 0 at "+d2+":3:") || !strings.Contains(stderr, dataOnlyNote) {
		t.Errorf("open 0: exit %d; stderr\n%s", code, stderr)
	}
	// a count of 0 at the zero exposure: Poisson(0) at 0 is finite
	ok := writeFile(t, dir, "ok.csv", "y,x,pop\n3,0.5,10\n0,-0.2,0\n1,0.1,5\n")
	if code, _, stderr := runSafe(t, "check", m, ok); code != exitOK {
		t.Errorf("a zero count at a zero exposure: exit %d; stderr\n%s", code, stderr)
	}
	// a factor a param scales: the rate's 0 is not the data's alone
	scaled := writeFile(t, dir, "scaled.gpp", "data y: int[N]\ndata pop: real<lower=0>[N]\ndata x: real[N]\nparam b0: real ~ Normal(0, 1)\nparam b1: real ~ Normal(0, 1)\n"+
		"target += sum(logpdf(y, NegBinomial(exp(b0 + b1 * x) .* pop, exp(b1))))\n")
	if code, _, stderr := runSafe(t, "check", scaled, d); code != exitError || !strings.Contains(stderr, "NegBinomial: log density is -Inf at value 4 (mu 0, phi 1") ||
		strings.Contains(stderr, autodiff.DataValueNote) || strings.Contains(stderr, dataOnlyNote) {
		t.Errorf("a dispersion of the params: exit %d; stderr\n%s", code, stderr)
	}
	// the same rate in a logpdf
	lp := writeFile(t, dir, "lp.gpp", "data y: int[N]\ndata pop: real<lower=0>[N]\ndata x: real[N]\nparam b0: real ~ Normal(0, 1)\nparam b1: real ~ Normal(0, 1)\n"+
		"target += sum(logpdf(y, Poisson(exp(b0 + b1 * x) .* pop)))\n")
	if code, _, stderr := runSafe(t, "check", lp, d); code != exitError || !strings.Contains(stderr, "rate is 0 because pop is 0 at "+d+":3:") || !strings.Contains(stderr, dataOnlyNote) {
		t.Errorf("logpdf: exit %d; stderr\n%s", code, stderr)
	}
}
