package compile

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
)

// dirMultTol bounds the difference of the log joint of
// DirichletMultinomial from dist.DirichletMultinomial's sum over the rows,
// relative to max(1, |value|).
const dirMultTol = 1e-12

// DirichletMultinomial(alpha) in the log joint is
// dist.DirichletMultinomial summed over the rows of counts, with alpha =
// exp(a) (a real param, so no Jacobian enters) shared as a vector or a
// row, one per row, and for a vector of counts; with the number of trials
// given; written in a loop over the rows; and logpdf is the term per row.
// The gradient matches finite differences.
func TestDirichletMultinomial(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"y": [3, 0, 5], "Y": [[1, 2, 3], [0, 0, 4], [7, 1, 0], [0, 0, 0]], "m": [6, 4, 8, 0]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: js}
	y := []float64{3, 0, 5}
	Y := []float64{1, 2, 3, 0, 0, 4, 7, 1, 0, 0, 0, 0}
	const decls = "data y: int<lower=0>[3]\ndata Y: int<lower=0>[4, 3]\ndata m: int<lower=0>[4]\nparam a: real[3]\nparam A: real[4, 3]\n"
	// x: a [3], A [4, 3]
	ref := func(alpha func(r int, x []float64) []float64, counts []float64) func(x []float64) float64 {
		return func(x []float64) float64 {
			var lp float64
			for r := range len(counts) / 3 {
				lp += dist.DirichletMultinomial{Alpha: alpha(r, x)}.LogProb(counts[3*r : 3*r+3])
			}
			return lp
		}
	}
	shared := func(_ int, x []float64) []float64 {
		return []float64{math.Exp(x[0]), math.Exp(x[1]), math.Exp(x[2])}
	}
	perRow := func(r int, x []float64) []float64 {
		return []float64{math.Exp(x[3+3*r]), math.Exp(x[4+3*r]), math.Exp(x[5+3*r])}
	}
	big := func(_ int, x []float64) []float64 {
		return []float64{1e7 * math.Exp(x[0]), 1e7 * math.Exp(x[1]), 1e7 * math.Exp(x[2])}
	}
	tiny := func(_ int, x []float64) []float64 {
		return []float64{1e-12 * math.Exp(x[0]), 1e-12 * math.Exp(x[1]), 1e-12 * math.Exp(x[2])}
	}
	for _, c := range []struct {
		name, src string
		want      func(x []float64) float64
	}{
		{"rows, shared vector", "Y ~ DirichletMultinomial(exp(a))\n", ref(shared, Y)},
		{"rows, shared row", "Y ~ DirichletMultinomial(exp(a)')\n", ref(shared, Y)},
		{"rows, a row each", "Y ~ DirichletMultinomial(exp(A))\n", ref(perRow, Y)},
		{"rows, totals given", "Y ~ DirichletMultinomial(exp(A), m)\n", ref(perRow, Y)},
		{"vector", "y ~ DirichletMultinomial(exp(a))\n", ref(shared, y)},
		{"vector, row alpha, total given", "y ~ DirichletMultinomial(exp(a)', 8)\n", ref(shared, y)},
		{"a loop over the rows", "for i in 0:4 {\n  Y[i] ~ DirichletMultinomial(exp(a))\n}\n", ref(shared, Y)},
		{"a loop, a row each", "for i in 0:4 {\n  Y[i] ~ DirichletMultinomial(exp(A[i]))\n}\n", ref(perRow, Y)},
		{"logpdf per row", "target += sum(logpdf(Y, DirichletMultinomial(exp(A))))\n", ref(perRow, Y)},
		{"large alpha", "Y ~ DirichletMultinomial(1e7 * exp(a))\n", ref(big, Y)},
		{"tiny alpha", "Y ~ DirichletMultinomial(1e-12 * exp(a))\n", ref(tiny, Y)},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkLogJoint(t, compileSrc(t, "dm.gpp", decls+c.src, nil, in), c.want, "dist.DirichletMultinomial", dirMultTol, 0.8)
		})
	}
	// logpdf keeps a term per row: [4] of Y [4, 3], a scalar of y [3]
	m := compileSrc(t, "dm.gpp", decls+"output lp = logpdf(Y, DirichletMultinomial(exp(A)))\noutput lp1 = logpdf(y, DirichletMultinomial(exp(a)))\n", nil, in)
	for i, want := range []string{"[4]", "[]"} {
		if got := fmt.Sprint(m.Outputs[i].Shape); got != want {
			t.Errorf("%s: shape %s, want %s", m.Outputs[i].Name, got, want)
		}
	}
}

// checkLogJoint checks m's log joint at three draws of its coordinates
// (normal, sd scale, a fixed seed) against want, named ref in failures,
// within tol·max(1, |want|); its gradient against finite differences; and
// that a call allocates nothing.
func checkLogJoint(t *testing.T, m *Model, want func(x []float64) float64, ref string, tol, scale float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 17))
	x, g := make([]float64, m.Dim), make([]float64, m.Dim)
	for trial := range 3 {
		fillNormal(x, rng, 0, scale)
		got, err := m.LogJoint(x, g)
		if err != nil {
			t.Fatal(err)
		}
		if w := want(x); math.Abs(got-w) > tol*max(1, math.Abs(w)) {
			t.Errorf("trial %d: log joint %.17g, %s %.17g", trial, got, ref, w)
		}
	}
	checkGradient(t, m, 9, scale)
	if a := testing.AllocsPerRun(10, func() { m.LogJoint(x, g) }); a != 0 {
		t.Errorf("LogJoint allocates %v times per call, want 0", a)
	}
}

// DirichletMultinomial replicates: from a shared alpha and a scalar n one
// vector of counts, from a vector n a row per element (each row its own
// theta); the draws' mean is n alpha / a0 and the variance of a count n p
// (1 − p) (n + a0) / (1 + a0), the overdispersion that sets it apart from
// Multinomial's n p (1 − p).
func TestPredictiveDirichletMultinomial(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"n": [10, 10]}`))
	if err != nil {
		t.Fatal(err)
	}
	m := compileSrc(t, "dm.gpp", `data n: int<lower=0>[2]
param a: real ~ Normal(0, 1)
output y1 ~ DirichletMultinomial(exp(a) * [1, 2, 1], 10)
output Y2 ~ DirichletMultinomial([1, 2, 1], n)
`, nil, data.Input{File: "d.json", JSON: js})
	want := map[string]string{"y1": "[3]", "Y2": "[2 3]"}
	for _, o := range m.Outputs {
		if got := fmt.Sprint(o.Shape); got != want[o.Name] {
			t.Errorf("%s: shape %s, want %s", o.Name, got, want[o.Name])
		}
	}
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	ev.SetRand(rand.New(rand.NewPCG(8, 1)))
	const draws = 40000
	var s1, s11 [3]float64
	var s2, s22 [6]float64
	var cross float64 // Y2[0, 1] · Y2[1, 1]: rows with their own theta are independent
	for range draws {
		_, outs, err := ev.Eval([]float64{0})
		if err == nil {
			err = ev.OutputErr()
		}
		if err != nil {
			t.Fatal(err)
		}
		var tot float64
		for i, v := range outs[0] {
			s1[i] += v
			s11[i] += v * v
			tot += v
		}
		if tot != 10 {
			t.Fatalf("a draw %v of total %g, want 10", outs[0], tot)
		}
		for i, v := range outs[1] {
			s2[i] += v
			s22[i] += v * v
		}
		cross += outs[1][1] * outs[1][4]
	}
	const sds = 5
	p := []float64{0.25, 0.5, 0.25}
	const n, a0 = 10.0, 4.0
	for i := range 6 {
		k := i % 3
		mean, vr := n*p[k], n*p[k]*(1-p[k])*(n+a0)/(1+a0)
		s, ss := s2[i], s22[i]
		if i < 3 {
			s, ss = s1[i], s11[i]
		}
		if got := s / draws; math.Abs(got-mean) > sds*math.Sqrt(vr/draws) {
			t.Errorf("draw element %d: mean %.4f, want %.4f", i, got, mean)
		}
		// the sd of a sample variance, bounded through the count's range [0, n]
		if got := ss/draws - (s/draws)*(s/draws); math.Abs(got-vr) > sds*n*math.Sqrt(vr/draws) {
			t.Errorf("draw element %d: variance %.4f, want %.4f (Multinomial's %.4f)", i, got, vr, n*p[k]*(1-p[k]))
		}
	}
	// independent rows: E[a b] = 25, with variance (7 + 25)² − 25² = 399;
	// a theta shared by the rows would give n² E[theta²] = 30
	if got, want := cross/draws, 25.0; math.Abs(got-want) > sds*math.Sqrt(399.0/draws) {
		t.Errorf("E[Y2[0, 1] Y2[1, 1]] = %.3f, want %.3f for rows with their own theta", got, want)
	}
}

// BetaNegBinomial(r, alpha, beta) through the compiled model is
// dist.BetaNegBinomial summed over the counts, its arguments exp of real
// params (no Jacobian), alpha shared and r per element; the gradient
// matches finite differences, and a replicate has the counts' shape.
func TestBetaNegBinomial(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"y": [0, 3, 1, 40, 7]}`))
	if err != nil {
		t.Fatal(err)
	}
	y := []float64{0, 3, 1, 40, 7}
	m := compileSrc(t, "bnb.gpp", `data y: int<lower=0>[5]
param r: real[5]
param a: real
param b: real
y ~ BetaNegBinomial(exp(r), exp(a), exp(b))
output y_rep ~ BetaNegBinomial(exp(r), exp(a), exp(b))
`, nil, data.Input{File: "d.json", JSON: js})
	if got := fmt.Sprint(m.Outputs[0].Shape); got != "[5]" {
		t.Errorf("y_rep: shape %s, want [5]", got)
	}
	rng := rand.New(rand.NewPCG(1, 5))
	x, g := make([]float64, m.Dim), make([]float64, m.Dim)
	for trial := range 3 {
		fillNormal(x, rng, 0.5, 0.7)
		got, err := m.LogJoint(x, g)
		if err != nil {
			t.Fatal(err)
		}
		var want float64
		for i, k := range y {
			want += dist.BetaNegBinomial{R: math.Exp(x[i]), A: math.Exp(x[5]), B: math.Exp(x[6])}.LogProb(k)
		}
		if math.Abs(got-want) > dirMultTol*max(1, math.Abs(want)) {
			t.Errorf("trial %d: log joint %.17g, dist.BetaNegBinomial %.17g", trial, got, want)
		}
	}
	checkGradient(t, m, 2, 0.7)
}

// logcdf and logccdf of BetaNegBinomial through the compiled model: the
// log CDF is the masses 0..y summed by logsumexp, the log CCDF that sum's
// complement by log1mexp (both near enough to 1 to keep 1e-12 here), in
// log joint and gradient; data truncated above is the mass over the log
// CDF at the bound; and a vector of censoring counts with per-element r
// has a gradient that matches finite differences.
func TestBetaNegBinomialLogCDF(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"y": [0, 3, 1, 40, 7], "x": [-1.2, 0.3, 0.8]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: js}
	const decls = "data y: int<lower=0>[5]\ndata x: real[3]\nparam b0: real\nparam b1: real\nparam c: real\n"
	const bnb = "BetaNegBinomial(exp(b0), exp(b1) + 0.5, exp(c))"
	for _, c := range []plainCase{
		{"logcdf", "target += logcdf(y[1], " + bnb + ")\n",
			"target += logsumexp(logpdf([0, 1, 2, 3], " + bnb + "))\n"},
		{"logccdf", "target += logccdf(y[1], " + bnb + ")\n",
			"target += log1mexp(-logsumexp(logpdf([0, 1, 2, 3], " + bnb + ")))\n"},
		{"truncated data", "y[1] ~ " + bnb + " T[, 5]\n",
			"y[1] ~ " + bnb + "\ntarget += -logsumexp(logpdf([0, 1, 2, 3, 4, 5], " + bnb + "))\n"},
	} {
		wantSamePlain(t, decls, in, nil, c)
	}
	m := compileSrc(t, "bnbcens.gpp", `data y: int<lower=0>[5]
param r: real[5]
param a: real
param b: real
target += sum(logccdf(y, BetaNegBinomial(exp(r), exp(a), exp(b))))
target += sum(logcdf(y, BetaNegBinomial(exp(r), exp(a), exp(b))))
`, nil, in)
	checkGradient(t, m, 2, 0.7)
}

// Hypergeometric(N, a, b) of int data through the compiled model is
// dist.Hypergeometric summed over the counts (with a param elsewhere, so
// the model has one), and its replicate's mean is N a / (a + b).
func TestHypergeometric(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"y": [2, 0, 5], "n": [5, 3, 9], "a": 7}`))
	if err != nil {
		t.Fatal(err)
	}
	m := compileSrc(t, "hg.gpp", `data y: int<lower=0>[3]
data n: int<lower=0>[3]
data a: int<lower=0>
param mu: real ~ Normal(0, 1)
y ~ Hypergeometric(n, a, 6)
output y_rep ~ Hypergeometric(n, a, 6)
`, nil, data.Input{File: "d.json", JSON: js})
	got, err := m.LogJoint([]float64{0}, make([]float64, 1))
	if err != nil {
		t.Fatal(err)
	}
	want := dist.Normal{Mu: 0, Sigma: 1}.LogProb(0)
	for i, k := range []float64{2, 0, 5} {
		want += dist.Hypergeometric{N: []float64{5, 3, 9}[i], A: 7, B: 6}.LogProb(k)
	}
	if math.Abs(got-want) > dirMultTol*max(1, math.Abs(want)) {
		t.Errorf("log joint %.17g, want %.17g", got, want)
	}
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	ev.SetRand(rand.New(rand.NewPCG(3, 3)))
	const draws = 20000
	var s [3]float64
	for range draws {
		_, outs, err := ev.Eval([]float64{0})
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range outs[0] {
			s[i] += v
		}
	}
	for i, n := range []float64{5, 3, 9} {
		d := dist.Hypergeometric{N: n, A: 7, B: 6}
		if got := s[i] / draws; math.Abs(got-d.Mean()) > 5*math.Sqrt(d.Variance()/draws) {
			t.Errorf("y_rep[%d]: mean %.4f, want %.4f", i, got, d.Mean())
		}
	}
}
