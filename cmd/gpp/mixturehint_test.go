package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/compile"
	"github.com/gpplang/gpp/lang/parser"
)

// TestMixtureCall: a target that sums components depending on params
// (directly or through lets) is a mixture; one over data only, an
// output's, and a zero-inflated log_mix with one constant component are
// not.
func TestMixtureCall(t *testing.T) {
	const head = "data y: real[N]\nparam w: simplex[2] ~ Dirichlet(1)\nparam mu: ordered[2] ~ Normal(0, 5)\nparam th: unit ~ Beta(1, 1)\nparam lam: positive ~ Gamma(2, 1)\n"
	for _, c := range []struct {
		body string
		want string // the call's name, "" for none
	}{
		{"let lp = log(w)' + logpdf(y, Normal(mu', 1))\nlet ll = rowlogsumexp(lp)\ntarget += sum(ll)\n", "rowlogsumexp"},
		{"target += sum(log_mix(th, logpdf(y, Normal(mu[0], 1)), logpdf(y, Normal(mu[1], 1))))\n", "log_mix"},
		{"target += logsumexp(log(w) + [logpdf(y[0], Normal(mu[0], 1)), logpdf(y[0], Normal(mu[1], 1))]')\n", "logsumexp"},
		{"target += sum(log_mix(th, 0, logpdf(y, Poisson(lam))))\n", ""},
		{"target += sum(log_mix(0.3, logpdf(y, Normal(mu[0], 1)), logpdf(y, Normal(mu[1], 1))))\n", "log_mix"},
		{"let d = rowlogsumexp([y, y]')\ntarget += sum(logpdf(d, Normal(mu[0], 1)))\n", ""},
		{"y ~ Normal(mu[0], 1)\noutput p = exp(log(w)' - rowlogsumexp(log(w)'))\n", ""},
	} {
		f, err := parser.ParseFile("m.gpp", []byte(head+c.body))
		if err != nil {
			t.Fatalf("%q: %v", c.body, err)
		}
		got := ""
		if call := mixtureCall(f, nil); call != nil {
			got = call.Fun.Name
		}
		if got != c.want {
			t.Errorf("%q: mixtureCall = %q, want %q", c.body, got, c.want)
		}
	}
}

// TestGridSumNotMixture: with the checker's shapes, a rowlogsumexp that
// sums a count out over a grid of constants (an N-mixture: the columns
// differ only by Nv', the params are columns [S] broadcast across them)
// is no mixture, while one whose columns hold params of their own
// (mu', log(w)', a matrix param, a matrix product) still is.
func TestGridSumNotMixture(t *testing.T) {
	const head = "const Kmax = 20\ndata y: int[S, J]\ndata x: real[S]\ndata z: real[S, 3]\ndata D: real[3, 3]\nparam a: real[2] ~ Normal(0, 2)\nparam c: real ~ Normal(0, 2)\n" +
		"param w: simplex[3] ~ Dirichlet(1)\nparam mu: real[3] ~ Normal(0, 5)\nparam B: real[S, 3] ~ Normal(0, 1)\n" +
		"let lam = exp(a[0] + a[1] * x)\nlet p = inv_logit(c + 0 * y)\nlet Nv = linspaced_int_array(Kmax + 1, 0, Kmax)\n"
	for _, c := range []struct {
		body  string
		mixed bool
	}{
		{"let lp = logpdf(Nv', Poisson(lam)) + logpdf(y[:, 0], Binomial(Nv', p[:, 0])) + logpdf(y[:, 1], Binomial(Nv', p[:, 1]))\ntarget += sum(rowlogsumexp(lp))\n", false},
		{"target += sum(rowlogsumexp(logpdf(Nv', Poisson(lam .* exp(c)))))\n", false},
		// a let read twice is the grid both times
		{"let lpN = logpdf(Nv', Poisson(lam))\ntarget += sum(rowlogsumexp(lpN + logpdf(y[:, 0], Binomial(Nv', p[:, 0])) + 0 * lpN))\n", false},
		{"let lp = log(w)' + logpdf(x, Normal(mu', 1))\ntarget += sum(rowlogsumexp(lp))\n", true},
		{"target += sum(rowlogsumexp(logpdf(z, Normal(x, exp(mu')))))\n", true},
		{"target += sum(rowlogsumexp(logpdf(z, Normal(B, 1))))\n", true},
		{"target += sum(rowlogsumexp(logpdf(z, Normal(lam * [1, 2, 3]', 1))))\n", false},
		{"target += sum(rowlogsumexp(logpdf(z, Normal(x * mu', 1))))\n", true},
		// columns of B * D mix B's columns, a combination of params each
		{"target += sum(rowlogsumexp(logpdf(z, Normal(B * D, 1))))\n", true},
	} {
		f, err := parser.ParseFile("m.gpp", []byte(head+c.body))
		if err != nil {
			t.Fatalf("%q: %v", c.body, err)
		}
		info, err := check.Check(f, &check.Config{})
		if err != nil {
			t.Fatalf("%q: %v", c.body, err)
		}
		if mixtureCall(f, nil) == nil {
			t.Fatalf("%q: no sum over components by the syntax", c.body)
		}
		if got := mixtureCall(f, info) != nil; got != c.mixed {
			t.Errorf("%q: a mixture %v, want %v", c.body, got, c.mixed)
		}
	}
}

// TestMixtureHintCLI: a single fit of a two-component mixture points to
// --restarts beside the mean-field hint; its fit with restarts and a
// fit of a single normal do not.
func TestMixtureHintCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("fits models")
	}
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("y\n")
	for i := range 40 {
		fmt.Fprintf(&b, "%.3f\n", float64(4*(i%2)-2)+0.5*math.Sin(float64(i)))
	}
	data := writeFile(t, dir, "y.csv", b.String())
	mixture := writeFile(t, dir, "mix.gpp", "data y: real[N]\nparam w: simplex[2] ~ Dirichlet(2)\nparam mu: ordered[2] ~ Normal(0, 5)\n"+
		"param sigma: positive[2] ~ Gamma(2, 2)\nlet lp = log(w)' + logpdf(y, Normal(mu', sigma'))\ntarget += sum(rowlogsumexp(lp))\n")
	normal := writeFile(t, dir, "n.gpp", "data y: real[N]\nparam mu: real ~ Normal(0, 5)\nparam sigma: positive ~ Gamma(2, 2)\ny ~ Normal(mu, sigma)\n")
	fit := func(model, out string, flags ...string) string {
		args := append([]string{"fit", model, data, "--quiet", "--seed", "1", "--out", filepath.Join(dir, out)}, flags...)
		code, _, stderr := runSafe(t, args...)
		if code != 0 {
			t.Fatalf("%s %v: exit %d\n%s", model, flags, code, stderr)
		}
		return stderr
	}
	const hint = "hint: the model is a mixture (rowlogsumexp at "
	if stderr := fit(mixture, "one"); !strings.Contains(stderr, hint) || !strings.Contains(stderr, "gpp fit --restarts 4 fits from 4 starts") {
		t.Errorf("single fit of a mixture: want the hint; stderr\n%s", stderr)
	}
	if stderr := fit(mixture, "r2", "--restarts", "2"); strings.Contains(stderr, hint) {
		t.Errorf("restarts: want no hint; stderr\n%s", stderr)
	}
	if stderr := fit(normal, "n"); strings.Contains(stderr, "the model is a mixture") {
		t.Errorf("a normal: want no hint; stderr\n%s", stderr)
	}
	// A fit whose Pareto k̂ raises no alarm is not told (a converged
	// zero-inflated count's log_sum_exp was, at every fit); MAP, with no
	// k̂, is.
	l, err := pipeline.Load(mixture, []string{data}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		method sgvb.Method
		k, ess float64
		want   bool
	}{{sgvb.SGVB, 0.3, 0.9, false}, {sgvb.SGVB, 0.95, 0.05, true}, {sgvb.MAP, math.NaN(), math.NaN(), true}} {
		if got := mixtureHint(sgvb.Settings{Method: c.method}, l, &sgvb.Result{}, nil, c.k, c.ess) != ""; got != c.want {
			t.Errorf("%v, k̂ %v: hint %v, want %v", c.method, c.k, got, c.want)
		}
	}
}

// TestDegenerateScaleHintCLI: a normal fitted to 20 equal values drives
// sigma toward 0 without converging, and the hint names the unbounded
// likelihood after the warning; the same model on spread data does not
// get it.
func TestDegenerateScaleHintCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	dir := t.TempDir()
	model := writeFile(t, dir, "n.gpp", "data y: real[N]\nparam mu: real ~ Normal(0, 5)\nparam sigma: positive ~ HalfNormal(2)\ny ~ Normal(mu, sigma)\n")
	equal, spread := "y\n", "y\n"
	for i := range 20 {
		equal += "2.5\n"
		spread += fmt.Sprintf("%.3f\n", 2.5+math.Sin(float64(i)))
	}
	fit := func(data, out string) string {
		code, _, stderr := runSafe(t, "fit", model, writeFile(t, dir, out+".csv", data), "--quiet", "--seed", "1", "--out", filepath.Join(dir, out))
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", out, code, stderr)
		}
		return stderr
	}
	const hint = "hint: sigma's q mean collapsed to "
	stderr := fit(equal, "equal")
	w, h := strings.Index(stderr, "warning: did not converge"), strings.Index(stderr, hint)
	if w < 0 || h < w || !strings.Contains(stderr, "the likelihood is likely unbounded as sigma → 0") {
		t.Errorf("equal values: want the hint after the warning; stderr\n%s", stderr)
	}
	if stderr := fit(spread, "spread"); strings.Contains(stderr, hint) {
		t.Errorf("spread values: want no hint; stderr\n%s", stderr)
	}
}

// TestDegenerateScaleHint: the hint needs the element far below its
// prior's mean, the fit unconverged and its ELBO still rising by several
// standard errors; a flat trace, a converged fit or an element near its
// prior's mean get none.
func TestDegenerateScaleHint(t *testing.T) {
	m := &compile.Model{Latents: []compile.Latent{{Name: "sigma", Support: dist.Positive, Size: 1, Init: []float64{1.6}}}}
	factor := func(mean float64) []sgvb.Factor { // gamma of shape 100
		return []sgvb.Factor{{Name: "sigma", Family: sgvb.FamilyGamma, Support: dist.Positive, Size: 1, Params: [][]float64{{100}, {100 / mean}}}}
	}
	trace := func(step float64) []sgvb.TracePoint {
		tr := make([]sgvb.TracePoint, 6)
		for i := range tr {
			tr[i] = sgvb.TracePoint{Iter: 100 * (i + 1), ELBO: 500 + step*float64(i), SE: 0.1}
		}
		return tr
	}
	// 0.3 nats a window (3 SEs) but 3 over the run's second half
	slowRise := make([]sgvb.TracePoint, 21)
	for i := range slowRise {
		slowRise[i] = sgvb.TracePoint{Iter: 100 * (i + 1), ELBO: 500 + 0.06*float64(i), SE: 0.1}
	}
	s := sgvb.Settings{Window: 5}
	for _, c := range []struct {
		name string
		r    *sgvb.Result
		want bool
	}{
		{"collapsing", &sgvb.Result{Dim: 2, Factors: factor(0.001), Trace: trace(2)}, true},
		{"flat", &sgvb.Result{Dim: 2, Factors: factor(0.001), Trace: trace(0)}, false},
		{"converged", &sgvb.Result{Dim: 2, Factors: factor(0.001), Trace: trace(2), Converged: true}, false},
		{"near the prior", &sgvb.Result{Dim: 2, Factors: factor(0.5), Trace: trace(2)}, false},
		{"rising over the run", &sgvb.Result{Dim: 2, Factors: factor(0.001), Trace: slowRise}, true},
	} {
		got := degenerateScaleHint(s, m, c.r, nil, nil)
		if (got != "") != c.want || c.want && !strings.Contains(got, "sigma's q mean collapsed to 0.001, 1600 times below its prior's mean 1.6") {
			t.Errorf("%s: hint %q, want one: %v", c.name, got, c.want)
		}
	}
}

// TestDegenerateScaleHintScales: of two collapsed scales the hint names the
// observed data's sigma (observedScales), not the group scale before it.
func TestDegenerateScaleHintScales(t *testing.T) {
	l, err := pipeline.ParseSource("m.gpp", []byte("data g: int[N]\ndata y: real[N]\nparam s_g: positive ~ HalfNormal(1)\nparam s_e: positive[2] ~ HalfNormal(1)\nparam z: real[2] ~ Normal(0, 1)\ny ~ Normal(s_g * z[g], s_e[g])\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	scales := observedScales(l.File, l.Info)
	if !scales["s_e"] || scales["s_g"] || scales["z"] || len(scales) != 1 {
		t.Fatalf("observedScales = %v, want s_e alone", scales)
	}
	m := &compile.Model{Latents: []compile.Latent{{Name: "s_g", Support: dist.Positive, Size: 1, Init: []float64{0.8}}, {Name: "s_e", Support: dist.Positive, Size: 2, Init: []float64{0.8, 0.8}}}}
	gamma := func(name string, means ...float64) sgvb.Factor {
		f := sgvb.Factor{Name: name, Family: sgvb.FamilyGamma, Support: dist.Positive, Size: len(means), Shape: []int{len(means)}, Params: [][]float64{{}, {}}}
		for _, mean := range means {
			f.Params[0], f.Params[1] = append(f.Params[0], 100), append(f.Params[1], 100/mean)
		}
		return f
	}
	tr := make([]sgvb.TracePoint, 6)
	for i := range tr {
		tr[i] = sgvb.TracePoint{Iter: 100 * (i + 1), ELBO: 500 + 2*float64(i), SE: 0.1}
	}
	s := sgvb.Settings{Window: 5}
	r := &sgvb.Result{Dim: 3, Factors: []sgvb.Factor{gamma("s_g", 0.001), gamma("s_e", 0.2, 0.005)}, Trace: tr}
	if got := degenerateScaleHint(s, m, r, nil, scales); !strings.HasPrefix(got, "s_e[1]'s q mean collapsed") {
		t.Errorf("hint %q, want one of s_e[1]", got)
	}
	r.Factors[1] = gamma("s_e", 0.2, 0.5)
	if got := degenerateScaleHint(s, m, r, nil, scales); got != "" {
		t.Errorf("hint %q with no observed scale collapsed, want none", got)
	}
}

// TestMixtureCallExamples: of the bundled examples only mixture.gpp is a
// mixture (cultivar.gpp's rowlogsumexp is in an output), so the hint
// leaves the others' fits as they were.
func TestMixtureCallExamples(t *testing.T) {
	paths, err := filepath.Glob("../../examples/*.gpp")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(p, src)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		info, err := check.Check(f, &check.Config{})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if got, want := mixtureCall(f, info) != nil, filepath.Base(p) == "mixture.gpp"; got != want {
			t.Errorf("%s: a mixture: %v, want %v", p, got, want)
		}
	}
}

// TestMixesData: a mixture whose components read data, directly or
// through lets, mixes the likelihood; one whose components read params
// alone is a mixture prior (a spike-and-slab's).
func TestMixesData(t *testing.T) {
	const head = "data y: real[N]\ndata X: real[N, P]\nparam w: unit ~ Beta(1, 9)\nparam beta: real[P]\nparam mu: ordered[2] ~ Normal(0, 5)\n"
	for _, c := range []struct {
		body string
		want bool
	}{
		{"target += sum(log_mix(w, logpdf(y, Normal(mu[0], 1)), logpdf(y, Normal(mu[1], 1))))\n", true},
		{"let m = X * beta\ntarget += sum(log_mix(w, logpdf(m, Normal(mu[0], 1)), logpdf(m, Normal(mu[1], 1))))\n", true},
		{"target += sum(log_mix(w, logpdf(beta, Normal(0, 2)), logpdf(beta, Normal(0, 0.02))))\ny ~ Normal(X * beta, 1)\n", false},
		{"let ls = logpdf(beta, Normal(0, 2))\nlet lp = logpdf(beta, Normal(0, 0.02))\ntarget += sum(log_mix(w, ls, lp))\ny ~ Normal(X * beta, 1)\n", false},
		{"target += log_sum_exp(log(w) + logpdf(mu[0], Normal(0, 1)), log1m(w) + logpdf(mu[0], Normal(3, 1)))\n", false},
	} {
		f, err := parser.ParseFile("m.gpp", []byte(head+c.body))
		if err != nil {
			t.Fatalf("%q: %v", c.body, err)
		}
		call := mixtureCall(f, nil)
		if call == nil {
			t.Fatalf("%q: no mixture call", c.body)
		}
		if got := mixesData(f, call); got != c.want {
			t.Errorf("%q: mixesData = %v, want %v", c.body, got, c.want)
		}
	}
}

// TestMixturePriorHintCLI: a single fit of a spike-and-slab regression
// (log_mix over the coefficients' densities) is told that mean-field
// VI is poor at such a prior, and pointed at NUTS rather than at
// --restarts or at clusters sharing the data.
func TestMixturePriorHintCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("fits models")
	}
	dir := t.TempDir()
	// 4 rows, 42 coordinates, 10 per observed value: the restarts hint of p ≫ n is not given to a mixture
	data := writeFile(t, dir, "ss.csv", sparseRegressionCSV(rand.New(rand.NewPCG(1, 2)), 4, 40))
	model := writeFile(t, dir, "ss.gpp", "data y: real[N]\ndata X: real[N, P]\nparam sigma: positive ~ HalfNormal(2)\nparam w: unit ~ Beta(1, 9)\nparam beta: real[P]\n"+
		"target += sum(log_mix(w, logpdf(beta, Normal(0, 2)), logpdf(beta, Normal(0, 0.02))))\ny ~ Normal(X * beta, sigma)\n")
	code, _, stderr := runSafe(t, "fit", model, data, "--quiet", "--seed", "1", "--out", filepath.Join(dir, "o"))
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "hint: log_mix at ") || !strings.Contains(stderr, "mixes densities of params alone, not of data") ||
		!strings.Contains(stderr, "gpp sample (NUTS)") || strings.Contains(stderr, "sharing the data") || strings.Contains(stderr, "observed values") {
		t.Errorf("spike-and-slab: want the prior-mixture hint; stderr\n%s", stderr)
	}
}

// TestOutlierMixtureHint: a log_mix of an observation model and a broad
// density of outliers about the same location (a radiocarbon sequence's)
// is told that which observations q calls outliers is the local optimum,
// not of clusters merged or split; a mixture of two locations keeps the
// clusters' hint.
func TestOutlierMixtureHint(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, dir, "y.csv", "y\n1.2\n0.8\n1.1\n9.5\n0.9\n1.0\n")
	const head = "data y: real[N]\nparam mu: ordered[2] ~ Normal(0, 5)\nparam s: positive ~ Gamma(2, 2)\n"
	for _, c := range []struct {
		name, body, want, not string
	}{
		{"outliers", "target += sum(log_mix(0.05, logpdf(y, Normal(mu[0], sqrt(square(s) + 100))), logpdf(y, Normal(mu[0], s))))\n",
			"the model is an outlier mixture (log_mix at ", "clusters merged"},
		{"outliers, StudentT", "target += sum(log_mix(0.1, logpdf(y, StudentT(1, mu[1], s)), logpdf(y, Normal(mu[1], s))))\n",
			"densities of y about the same mu[1], with another spread", "clusters merged"},
		{"clusters", "target += sum(log_mix(0.3, logpdf(y, Normal(mu[0], s)), logpdf(y, Normal(mu[1], s))))\n",
			"two clusters merged into one", "outlier"},
	} {
		model := writeFile(t, dir, "m.gpp", head+c.body)
		l, err := pipeline.Load(model, []string{data}, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := mixtureHint(sgvb.Settings{Method: sgvb.MAP}, l, &sgvb.Result{}, nil, math.NaN(), math.NaN())
		if !strings.Contains(got, c.want) || strings.Contains(got, c.not) {
			t.Errorf("%s: hint %q, want %q and not %q", c.name, got, c.want, c.not)
		}
	}
}
