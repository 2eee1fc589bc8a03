package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/pipeline"
)

// nbMixModel is an explicit gamma–Poisson mixture, a latent u per
// observation that log_lik reads; nbMarginalModel is the same model with
// u integrated out (a negative binomial).
const (
	nbMixModel = `data x: real[N]
data y: int[N]
param b0: real ~ Normal(0, 2)
param b1: real ~ Normal(0, 2)
param phi: positive ~ Gamma(2, 0.5)
param u: positive[N] ~ Gamma(phi, phi)
y ~ Poisson(exp(b0 + b1 * x) .* u)
output log_lik = logpdf(y, Poisson(exp(b0 + b1 * x) .* u))
`
	nbMarginalModel = `data x: real[N]
data y: int[N]
param b0: real ~ Normal(0, 2)
param b1: real ~ Normal(0, 2)
param phi: positive ~ Gamma(2, 0.5)
y ~ NegBinomialLog(b0 + b1 * x, phi)
output log_lik = logpdf(y, NegBinomialLog(b0 + b1 * x, phi))
`
)

// nbMixData writes n rows of negative binomial counts, drawn as their
// gamma–Poisson mixture from a seeded source.
func nbMixData(t *testing.T, dir string, n int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 11))
	var b strings.Builder
	b.WriteString("x,y\n")
	for range n {
		x := rng.NormFloat64()
		u := gammaDraw(rng, 2) / 2 // Gamma(2, 2): mean 1
		fmt.Fprintf(&b, "%.4f,%d\n", x, poissonDraw(rng, math.Exp(1+0.7*x)*u))
	}
	return writeFile(t, dir, "nb.csv", b.String())
}

// TestLOOConditional: a fit and a sample of the explicit mixture warn
// that their elpd_loo is unreliable as log_lik reads u (naming log_lik's line and the
// negative binomial that integrates u out), do not send the user to gpp
// kfold, and record per_observation_params in loo.csv; gpp compare warns of such
// a fit and footnotes its row. The negative binomial model gets none of
// this.
func TestLOOConditional(t *testing.T) {
	dir := t.TempDir()
	mix := writeFile(t, dir, "nbmix.gpp", nbMixModel)
	nb := writeFile(t, dir, "nb2.gpp", nbMarginalModel)
	data := nbMixData(t, dir, 60)
	runs := []struct {
		name  string
		args  []string
		model string
		cond  bool
	}{
		{"mix-fit", []string{"fit", mix, data, "--quiet"}, mix, true},
		{"mix-sample", []string{"sample", mix, data, "--quiet", "--chains", "2", "--warmup", "200", "--draws", "200"}, mix, true},
		{"nb-fit", []string{"fit", nb, data, "--quiet"}, nb, false},
	}
	for _, r := range runs {
		out := filepath.Join(dir, r.name)
		code, _, stderr := runGpp(append(r.args, "--out", out)...)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", r.name, code, stderr)
		}
		warned := strings.Contains(stderr, "log_lik (") && strings.Contains(stderr, "reads u (declared at")
		if warned != r.cond {
			t.Errorf("%s: conditional warning %v, want %v:\n%s", r.name, warned, r.cond, stderr)
		}
		b, err := os.ReadFile(filepath.Join(out, looFile))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(b), "\n"+looCondComment+"u\n"); got != r.cond {
			t.Errorf("%s: loo.csv records per_observation_params = u: %v, want %v:\n%.300s", r.name, got, r.cond, b)
		}
		if !r.cond {
			continue
		}
		for _, want := range []string{"log_lik (" + mix + ":8:8) reads u (declared at " + mix + ":6:7)", "NegBinomial(exp(b0 + b1 * x), phi) in place of the Poisson"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%s: the warning lacks %q:\n%s", r.name, want, stderr)
			}
		}
		var loo string // the LOO warning
		for _, line := range strings.Split(stderr, "\n") {
			if strings.Contains(line, "warning: LOO") {
				loo += line
			}
		}
		for _, bad := range []string{"K-fold cross-validation (gpp kfold", "--moment-match moves the draws", "--fullrank all", "Pareto k̂ above 0.7"} {
			if strings.Contains(loo, bad) {
				t.Errorf("%s: the warning still advises %q:\n%s", r.name, bad, stderr)
			}
		}
	}
	code, stdout, stderr := runGpp("compare", filepath.Join(dir, "nb-fit"), filepath.Join(dir, "mix-fit"), filepath.Join(dir, "mix-sample"))
	if code != exitOK {
		t.Fatalf("compare: exit %d: %s", code, stderr)
	}
	for _, fit := range []string{"mix-fit", "mix-sample"} {
		if !strings.Contains(stderr, filepath.Join(dir, fit)+": its log_lik reads u, a param with an element per observation") {
			t.Errorf("compare does not warn of %s:\n%s", fit, stderr)
		}
		if !strings.Contains(stdout, filepath.Join(dir, fit)+" *") {
			t.Errorf("compare does not footnote %s's row:\n%s", fit, stdout)
		}
	}
	if strings.Contains(stderr, "nb-fit: its log_lik reads") || strings.Contains(stdout, "nb-fit *") {
		t.Errorf("compare marks the negative binomial fit:\n%s%s", stdout, stderr)
	}
	if !strings.Contains(stdout, "* log_lik reads a param with an element per observation") {
		t.Errorf("compare has no footnote:\n%s", stdout)
	}
}

// TestLOOConditionalGeneric: a per-observation param that is no gamma
// multiplier of a Poisson rate gets the generic advice; one that log_lik
// does not read gets no warning.
func TestLOOConditionalGeneric(t *testing.T) {
	dir := t.TempDir()
	data := nbMixData(t, dir, 40)
	generic := writeFile(t, dir, "ln.gpp", `data x: real[N]
data y: int[N]
param b0: real ~ Normal(0, 2)
param sigma: positive ~ Exponential(1)
param e: real[N] ~ Normal(0, sigma)
y ~ PoissonLog(b0 + x + e)
output log_lik = logpdf(y, PoissonLog(b0 + x + e))
`)
	code, _, stderr := runGpp("fit", generic, data, "--quiet", "--out", filepath.Join(dir, "g"))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "reads e (declared at") || !strings.Contains(stderr, "where e integrates out of each observation's distribution in closed form") || !strings.Contains(stderr, "read it as e[area]") {
		t.Errorf("no generic conditional warning:\n%s", stderr)
	}
	if strings.Contains(stderr, "NegBinomial(") {
		t.Errorf("a negative binomial offered for a normal effect:\n%s", stderr)
	}
	unread := writeFile(t, dir, "unread.gpp", `data x: real[N]
data y: int[N]
param b0: real ~ Normal(0, 2)
param e: real[N] ~ Normal(0, 1)
y ~ PoissonLog(b0 + x)
output log_lik = logpdf(y, PoissonLog(b0 + x))
`)
	code, _, stderr = runGpp("fit", unread, data, "--quiet", "--out", filepath.Join(dir, "u"))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stderr, "a param with an element per observation") {
		t.Errorf("a param log_lik does not read makes LOO conditional:\n%s", stderr)
	}
}

// TestReplLOOConditional: :fit warns of a LOO whose log_lik reads u as gpp fit
// does.
func TestReplLOOConditional(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "nbmix.gpp", nbMixModel)
	data := nbMixData(t, dir, 40)
	r, _, errb := newTestRepl()
	typeIn(r, ":load "+model, ":data "+data, ":fit --quiet")
	if !strings.Contains(errb.String(), "reads u (declared at") {
		t.Errorf(":fit does not warn of the conditional LOO:\n%s", errb)
	}
}

// TestGammaPoissonForm: the negative binomial that integrates a Gamma(a,
// b) multiplier of a Poisson rate out is written as the model would take
// it: NegBinomial(m, a) for a = b, m .* a / b otherwise, m parenthesised
// only where it is an operator's.
func TestGammaPoissonForm(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, dir, "d.csv", "t,x,y\n1.5,0.1,2\n2,0.2,0\n0.5,-1,1\n")
	for _, c := range []struct{ prior, rate, want string }{
		{"Gamma(phi, phi)", "u .* t", "NegBinomial(t, phi) in place"},
		{"Gamma(alpha, beta)", "t .* u", "NegBinomial(t .* alpha / beta, alpha) in place"},
		{"Gamma(alpha, beta)", "u .* exp(b0 + x)", "NegBinomial(exp(b0 + x) .* alpha / beta, alpha) in place"},
		{"Gamma(alpha, beta)", "(t + 1) .* u", "NegBinomial((t + 1) .* alpha / beta, alpha) in place"},
	} {
		src := "data t: positive[N]\ndata x: real[N]\ndata y: int[N]\nparam phi: positive ~ Gamma(2, 1)\n" +
			"param alpha: positive ~ Exponential(1)\nparam beta: positive ~ Exponential(1)\nparam b0: real ~ Normal(0, 1)\n" +
			"param u: positive[N] ~ " + c.prior + "\ny ~ Poisson(" + c.rate + ")\noutput log_lik = logpdf(y, Poisson(" + c.rate + "))\n"
		l, err := pipeline.Load(writeFile(t, dir, "m.gpp", src), []string{data}, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.rate, err)
		}
		cond := looConditional(l)
		if len(cond) != 1 || !strings.Contains(cond[0].marginal, c.want) {
			t.Errorf("%s with u ~ %s: %+v, want the form %q", c.rate, c.prior, cond, c.want)
		}
	}
}

// A sum_to_zero_vector[N] (an ICAR's area effects) read by log_lik is a
// param with an element per observation as a real[N] is, also where other
// data index the observations (the edges naming the last area), so that
// the model on one row fewer does not compile: looConditional finds it on
// one row more.
func TestLOOConditionalSumToZero(t *testing.T) {
	dir := t.TempDir()
	obs := writeFile(t, dir, "y.csv", "y,log_E\n3,1.1\n5,1.4\n2,0.9\n4,1.2\n")
	edges := writeFile(t, dir, "edges.csv", "node1,node2\n0,1\n1,2\n2,3\n3,0\n0,2\n")
	for _, c := range []struct{ name, decl, prior string }{
		{"icar", "param phi: sum_to_zero_vector[N]", "target += -0.5 * dot_self(phi[node1] - phi[node2])\n"},
		{"icar real", "param phi: real[N]", "target += -0.5 * dot_self(phi[node1] - phi[node2])\nphi ~ Normal(0, 3)\n"},
		{"no edges read", "param phi: sum_to_zero_vector[N]", "phi ~ Normal(0, 1)\n"},
	} {
		src := "data node1: int[E]\ndata node2: int[E]\ndata y: int<lower=0>[N]\ndata log_E: real[N]\n" +
			"param beta0: real ~ Normal(0, 5)\n" + c.decl + "\n" + c.prior +
			"y ~ PoissonLog(log_E + beta0 + phi)\noutput log_lik = logpdf(y, PoissonLog(log_E + beta0 + phi))\n"
		model := writeFile(t, dir, "m.gpp", src)
		l, err := pipeline.Load(model, []string{obs, edges}, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		cond := looConditional(l)
		if len(cond) != 1 || cond[0].name != "phi" {
			t.Errorf("%s: per-observation params %v, want phi", c.name, cond)
		}
	}
}

// spatialLoad loads an area model over 6 observations: y, log_E and x
// per row, area naming each row's area (0..5, or every area three times
// over with rows: the 12-row file), node1 and node2 a ring's edges, W and
// D a proper CAR's weights and degrees (W real[N, N], which gpp kfold
// cannot cut into rows).
func spatialLoad(t *testing.T, dir, src string, shared bool) *pipeline.Loaded {
	t.Helper()
	rows := "y,log_E,x,area\n3,1.1,0.2,0\n5,1.4,-0.3,1\n2,0.9,0.5,2\n4,1.2,0.1,3\n6,1.5,-1,4\n1,0.8,0.7,5\n"
	if shared {
		rows = "y,log_E,x,area\n3,1.1,0.2,0\n5,1.4,-0.3,1\n2,0.9,0.5,0\n4,1.2,0.1,1\n6,1.5,-1,0\n1,0.8,0.7,1\n"
	}
	obs := writeFile(t, dir, "y.csv", rows)
	edges := writeFile(t, dir, "edges.csv", "node1,node2\n0,1\n1,2\n2,3\n3,4\n4,5\n5,0\n")
	ring := `[[0,1,0,0,0,1],[1,0,1,0,0,0],[0,1,0,1,0,0],[0,0,1,0,1,0],[0,0,0,1,0,1],[1,0,0,0,1,0]]`
	w := `{"A": 6, "W": ` + ring + `, "D": [2,2,2,2,2,2], "Wn": ` + ring + `, "Dn": [2,2,2,2,2,2]}`
	if shared {
		w = `{"A": 2, "W": [[0,1],[1,0]], "D": [1,1], "Wn": ` + ring + `, "Dn": [2,2,2,2,2,2]}`
		edges = writeFile(t, dir, "edges.csv", "node1,node2\n0,1\n")
	}
	extra := writeFile(t, dir, "w.json", w)
	l, err := pipeline.Load(writeFile(t, dir, "m.gpp", src), []string{obs, edges, extra}, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	return l
}

// An area effect read through an index of its own (phi[area], one area
// per observation) is per observation as phi: sum_to_zero_vector[N] is
// (the trial's icar_k.gpp: the same elpd_loo −297.134 as icar.gpp); as is
// a proper CAR's phi: real[N] ~ MvNormalPrec, whose W: real[N, N] gpp
// kfold cannot cut into rows. An index that gives each element three
// observations is not. The warning says that a coupling prior sends
// phi[i] back to its conditional given the others, not its prior, and
// advises K-fold with an index of its own, not integrating phi out.
func TestLOOConditionalSpatial(t *testing.T) {
	dir := t.TempDir()
	head := "data A: int\ndata area: int[N]\ndata node1: int[E]\ndata node2: int[E]\ndata W: real[A, A]\ndata D: real[A]\n" +
		"data y: int<lower=0>[N]\ndata log_E: real[N]\ndata x: real[N]\nparam beta0: real ~ Normal(0, 1)\n"
	icar := "target += -0.5 * dot_self(phi[node1] - phi[node2])\n"
	for _, c := range []struct {
		name, body string
		shared     bool
		want, not  []string
	}{
		{"icar", "param phi: sum_to_zero_vector[N]\n" + icar + "output log_lik = logpdf(y, PoissonLog(log_E + beta0 + phi))\n", false,
			[]string{"reads phi (declared at", "a param with an element per observation", "sends phi[i] back to its conditional given the other elements", "read it as phi[area]", "gpp kfold and --reloo refuse"},
			[]string{"phi[i] back to its prior", "integrates out"}},
		{"icar_k", "param phi: sum_to_zero_vector[A]\n" + icar + "output log_lik = logpdf(y, PoissonLog(log_E + beta0 + phi[area]))\n", false,
			[]string{"read through the index area (phi[area])", "sends phi[area[i]] back to its conditional", "gpp kfold estimates the elpd"},
			[]string{"refuse", "integrated out", "an element per observation"}},
		{"icar_k through a let", "param phi: sum_to_zero_vector[A]\n" + icar + "let eta = log_E + beta0 + phi[area]\noutput log_lik = logpdf(y, PoissonLog(eta))\n", false,
			[]string{"read through the index area (phi[area])"}, nil},
		{"iid indexed", "param phi: real[A] ~ Normal(0, 1)\noutput log_lik = logpdf(y, PoissonLog(log_E + beta0 + phi[area]))\n", false,
			[]string{"sends phi[area[i]] back to its prior", "gpp kfold estimates the elpd"}, []string{"conditional"}},
		{"car", "data Wn: real[N, N]\ndata Dn: real[N]\nparam tau: positive ~ Gamma(2, 2)\nparam phi: real[N] ~ MvNormalPrec(0, tau * (diag(Dn) - 0.5 * Wn))\noutput log_lik = logpdf(y, PoissonLog(log_E + beta0 + phi))\n", false,
			[]string{"reads phi (declared at", "sends phi[i] back to its conditional given the other elements"}, nil},
		{"bym2", "param theta: real[N] ~ Normal(0, 1)\nparam phi: sum_to_zero_vector[N]\n" + icar + "output log_lik = logpdf(y, PoissonLog(log_E + beta0 + theta + phi))\n", false,
			[]string{"m.gpp:11:7), phi (declared at ", "m.gpp:12:7), params", "sends theta[i] back to its prior, and phi[i] back to its conditional", "read it as theta[area], phi[area]"}, nil},
		{"three per area", "param phi: real[A] ~ Normal(0, 1)\noutput log_lik = logpdf(y, PoissonLog(log_E + beta0 + phi[area]))\n", true, nil, nil},
	} {
		l := spatialLoad(t, dir, head+c.body, c.shared)
		w := looConditionalWarning(looConditional(l))
		if c.want == nil && w != "" {
			t.Errorf("%s: a per-observation warning where each element has three observations:\n%s", c.name, w)
		}
		if c.want != nil && w == "" {
			t.Errorf("%s: no per-observation warning", c.name)
			continue
		}
		for _, s := range c.want {
			if !strings.Contains(w, s) {
				t.Errorf("%s: warning lacks %q:\n%s", c.name, s, w)
			}
		}
		for _, s := range c.not {
			if strings.Contains(w, s) {
				t.Errorf("%s: warning has %q:\n%s", c.name, s, w)
			}
		}
	}
}

// A param of as many elements as the observations but not sized by their
// count (K = N = 4 here) is not per observation where the model compiles
// on fewer rows, whose shapes say so (K does not change with N).
func TestLOOConditionalSameLength(t *testing.T) {
	dir := t.TempDir()
	obs := writeFile(t, dir, "y.csv", "y,log_E\n3,1.1\n5,1.4\n2,0.9\n4,1.2\n")
	k := writeFile(t, dir, "k.json", `{"K": 4}`)
	src := "data K: int\ndata y: int<lower=0>[N]\ndata log_E: real[N]\nparam b: real[K] ~ Normal(0, 1)\n" +
		"output log_lik = logpdf(y, PoissonLog(log_E + sum(b)))\n"
	l, err := pipeline.Load(writeFile(t, dir, "m.gpp", src), []string{obs, k}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cond := looConditional(l); len(cond) != 0 {
		t.Errorf("b: real[K] with K = N taken for a param per observation: %+v", cond)
	}
}
