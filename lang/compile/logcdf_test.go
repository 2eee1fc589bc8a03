package compile

import (
	"math"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/lang/autodiff"
)

// TestLogCDFNode checks logcdf and logccdf through the compiled model: each
// against the same log probability written out with other nodes, in value
// and gradient, with data, params and broadcasting in either position.
func TestLogCDFNode(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"tc": [3.0, 0.5, 2.2], "k": [0, 2, 5]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: js}
	const decls = "data tc: positive[3]\ndata k: int<lower=0>[3]\nparam a: positive\nparam s: positive\nparam c: positive\n"
	for _, c := range []plainCase{
		{"Weibull survival", "target += logccdf(tc, Weibull(a, s))\n", "target += -sum(pow(tc / s, a))\n"},
		{"Weibull CDF", "target += logcdf(tc, Weibull(a, s))\n", "target += sum(log1mexp(pow(tc / s, a)))\n"},
		{"Exponential survival of a param", "target += logccdf(c, Exponential(a))\n", "target += -a * c\n"},
		{"Exponential CDF, rate per element", "target += logcdf(tc, Exponential(a * [1, 2, 3]))\n", "target += sum(log1mexp(a * [1, 2, 3] .* tc))\n"},
		{"Poisson CDF", "target += logcdf(k, Poisson(a))\n",
			"target += log(exp(-a)) + log(exp(-a) * (1 + a + a ^ 2 / 2)) + log(exp(-a) * (1 + a + a ^ 2 / 2 + a ^ 3 / 6 + a ^ 4 / 24 + a ^ 5 / 120))\n"},
		{"Poisson survival", "target += logccdf(k[1], Poisson(a))\n", "target += log1p(-exp(-a) * (1 + a + a ^ 2 / 2))\n"},
		{"LogNormal survival is Normal's of the log", "target += logccdf(tc, LogNormal(log(a), s))\n", "target += logccdf(log(tc), Normal(log(a), s))\n"},
		{"HalfNormal survival is twice Normal's", "target += logccdf(tc, HalfNormal(s))\n", "target += sum(log(2) + logccdf(tc, Normal(0, s)))\n"},
		{"HalfCauchy CDF", "target += logcdf(tc, HalfCauchy(s))\n", "target += sum(log(2 / 3.141592653589793 * atan(tc / s)))\n"},
		{"StudentT with one degree of freedom is Cauchy", "target += logccdf(tc, StudentT(1, a, s))\n", "target += logccdf(tc, Cauchy(a, s))\n"},
		{"InvGamma survival, shape 1", "target += logccdf(tc, InvGamma(1, s))\n", "target += sum(log1mexp(s / tc))\n"},
		{"Uniform CDF", "target += logcdf(tc, Uniform(0, 10 * a))\n", "target += sum(log(tc / (10 * a)))\n"},
		{"Bernoulli CDF, 1 and above certain", "target += logcdf(k, Bernoulli(inv_logit(a)))\n", "target += log1p(-inv_logit(a))\n"},
		{"BernoulliLogit survival", "target += logccdf(k[0], BernoulliLogit(a))\n", "target += log(inv_logit(a))\n"},
		{"Binomial CDF", "target += logcdf(k, Binomial(5, inv_logit(c)))\n",
			"target += 5 * log1p(-inv_logit(c)) + log((1 - inv_logit(c)) ^ 5 + 5 * inv_logit(c) * (1 - inv_logit(c)) ^ 4 + 10 * inv_logit(c) ^ 2 * (1 - inv_logit(c)) ^ 3)\n"},
		{"BinomialLogit survival is Binomial's", "target += logccdf(k, BinomialLogit(6, c))\n", "target += logccdf(k, Binomial(6, inv_logit(c)))\n"},
		{"NegBinomial at 0", "target += logcdf(k[0], NegBinomial(a, s))\n", "target += -s * log1p(a / s)\n"},
		{"PoissonLog is Poisson", "target += logccdf(k, PoissonLog(log(a)))\n", "target += logccdf(k, Poisson(a))\n"},
	} {
		wantSamePlain(t, decls, in, nil, c)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

// wantSameLogJoint holds a and plain, two ways of writing one model, to
// the same log joint and gradient (near) at two points of its three
// coordinates.
func wantSameLogJoint(t *testing.T, name string, a, plain *Model) {
	t.Helper()
	wantSameLogJointAt(t, name, a, plain, [][]float64{{0.1, 0.4, -1.2}, {-0.5, 0.9, 0.3}})
}

// plainCase is a model's statements f and the same quantity written
// plainly with older built-ins ("" where there is none).
type plainCase struct{ name, f, plain string }

// wantSamePlain compiles decls+c.f and decls+c.plain and holds them to the
// same log joint and gradient at the points zs (wantSameLogJoint's for
// nil); it returns c.f's model for further checks.
func wantSamePlain(t *testing.T, decls string, in data.Input, zs [][]float64, c plainCase) *Model {
	t.Helper()
	m := compileSrc(t, "a.gpp", decls+c.f, nil, in)
	if c.plain == "" {
		return m
	}
	plain := compileSrc(t, "b.gpp", decls+c.plain, nil, in)
	if zs == nil {
		wantSameLogJoint(t, c.name, m, plain)
	} else {
		wantSameLogJointAt(t, c.name, m, plain, zs)
	}
	return m
}

// srcWant is a model's statements and the error they must give.
type srcWant struct{ src, want string }

// wantFitErrors compiles name with decls+c.src for each case and holds
// the log joint at the origin to fail with exactly c.want: a domain error
// found at fit time, positioned at its call.
func wantFitErrors(t *testing.T, name, decls string, in data.Input, cases []srcWant) {
	t.Helper()
	for _, c := range cases {
		m := compileSrc(t, name, decls+c.src, nil, in)
		_, err := m.LogJoint(make([]float64, m.Dim), make([]float64, m.Dim))
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: error %v, want %q", strings.TrimSpace(c.src), err, c.want)
		}
	}
}

// wantCompileErrors holds name with decls+c.src to fail to compile with an
// error that contains c.want, for each case.
func wantCompileErrors(t *testing.T, name, decls string, in data.Input, cases []srcWant) {
	t.Helper()
	for _, c := range cases {
		_, err := compileSrcErr(t, name, decls+c.src, nil, in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", strings.TrimSpace(c.src), err, c.want)
		}
	}
}

// wantSameLogJointAt is wantSameLogJoint at the points zs.
func wantSameLogJointAt(t *testing.T, name string, a, plain *Model, zs [][]float64) {
	t.Helper()
	for _, z := range zs {
		ga, gb := make([]float64, len(z)), make([]float64, len(z))
		va, errA := a.LogJoint(z, ga)
		vb, errB := plain.LogJoint(z, gb)
		if errA != nil || errB != nil || !near(va, vb) {
			t.Errorf("%s at %v: %.17g against %.17g (errors %v, %v)", name, z, va, vb, errA, errB)
			continue
		}
		for i := range ga {
			if !near(ga[i], gb[i]) {
				t.Errorf("%s at %v: gradient %v against %v", name, z, ga, gb)
				break
			}
		}
	}
}

// TestLogCDFStudentTGradient: a right-censored Student t likelihood whose
// degrees of freedom are a param, the partial in nu from the incomplete
// beta function's differentiated continued fraction, against central
// differences of the whole log joint.
func TestLogCDFStudentTGradient(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"y": [0.3, -1.2, 2.5], "t_cens": [4.0, 25.0, 1e4]}`))
	if err != nil {
		t.Fatal(err)
	}
	m := compileSrc(t, "t.gpp", `data y: real[3]
data t_cens: real[3]
param nu: positive ~ Gamma(2, 0.1)
param mu: real ~ Normal(0, 5)
param s: positive ~ HalfNormal(2)
y ~ StudentT(nu, mu, s)
target += logccdf(t_cens, StudentT(nu, mu, s))
target += logcdf(-t_cens, StudentT(nu, mu, s))
`, nil, data.Input{File: "d.json", JSON: js})
	checkGradient(t, m, 7, 1)
}

// TestLogCDFAtSupportEnds: a log CDF at an end of the closed support
// where its probability is 0 (logcdf at 0 of a positive family, logccdf at
// a Binomial's n) is a value in an output, written without an output
// error, as is an infinity computed from it; one strictly outside the
// support, or a NaN made from such infinities, is still reported, and in
// the log joint log 0 is an error at the logcdf that says which end.
func TestLogCDFAtSupportEnds(t *testing.T) {
	const decls = "param k: positive ~ Gamma(2, 2)\nparam p: unit ~ Beta(2, 2)\n"
	for _, c := range []struct{ name, src, want string }{
		{"Weibull at 0", "output a = logcdf(0, Weibull(k, 1.5))\noutput b = logccdf(0, Weibull(k, 1.5))\n", ""},
		{"of data alone", "output a = logcdf(0, Gamma(2, 3))\n", ""},
		{"Beta at 0 and 1", "output a = logcdf([0, 1], Beta(k, 2))\noutput b = logccdf([0, 1], Beta(k, 2))\n", ""},
		{"Uniform at its bounds", "output a = logcdf(-1, Uniform(-1, k))\noutput b = logccdf(k, Uniform(-1, k))\n", ""},
		{"Pareto at y_min", "output a = logcdf(k, Pareto(k, 2))\n", ""},
		{"Binomial at n", "output a = logccdf(5, Binomial(5, p))\noutput b = logccdf(1, Bernoulli(p))\n", ""},
		{"an infinity computed from one", "output a = 2 * logcdf(0, Exponential(k)) + 1\noutput b = sum(logcdf([0, 0], Exponential(k)))\n", ""},
		{"below the support", "output a = logcdf(-1, Weibull(k, 1.5))\n",
			"m.gpp:3:12: log probability is -Inf: value -1 outside the support of logcdf(Weibull)"},
		{"below Pareto's y_min", "output a = logcdf(k / 2, Pareto(k, 2))\n",
			"m.gpp:3:12: logcdf(Pareto): log probability is -Inf at value 0.5 (y_min 1, alpha 2)"},
		{"a NaN from two", "output a = logcdf(0, Exponential(k)) - logcdf(0, Gamma(k, 1))\n",
			"m.gpp:3:38: sub: result is NaN (arguments -Inf and -Inf)"},
	} {
		m := compileSrc(t, "m.gpp", decls+c.src, nil)
		ev, err := m.NewEvaluator()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		_, outs, err := ev.Eval([]float64{0, 0}) // k = 1, p = 1/2
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := ""
		if err := ev.OutputErr(); err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%s: output error %q, want %q", c.name, got, c.want)
		}
		if c.want == "" && !math.IsInf(outs[0][0], -1) {
			t.Errorf("%s: output %v, want -Inf first", c.name, outs[0])
		}
	}
	const branch = "; a log 0 is a value only where a later function takes it in (log_diff_exp(a, it) is a), not in the log joint or a product (0 times it is NaN): give such rows a branch of their own (if L[i] == 0 {...} in a loop; docs/language.md, Censored data)"
	// added to the log joint through sums alone, a log 0 at an end that no
	// param moves is -Inf for any params: the data's, not the start's
	const dataErr = "; the log joint adds it as it is, and " + autodiff.DataValueNote
	for _, c := range []struct{ src, want string }{
		{"target += logcdf(0, Weibull(k, 1.5))\n", "m.gpp:3:11: log probability is -Inf: value 0 is the lower end of the support of logcdf(Weibull), where P(X <= x) is 0" + dataErr},
		{"target += logccdf(5, Binomial(5, p))\n", "m.gpp:3:11: log probability is -Inf: value 5 is the upper end of the support of logccdf(Binomial), where P(X > x) is 0" + dataErr},
		{"target += logcdf(-2, Exponential(k))\n", "m.gpp:3:11: log probability is -Inf: value -2 outside the support of logcdf(Exponential); " + autodiff.DataValueNote},
		// a log 0 that a later node does not take in is blamed, not that node
		{"target += 2 + logcdf(0, Weibull(k, 1.5))\n", "m.gpp:3:15: log probability is -Inf: value 0 is the lower end of the support of logcdf(Weibull), where P(X <= x) is 0" + dataErr},
		// a product: -Inf or NaN for any params, which a branch mends
		{"target += 0 * logcdf(0, Weibull(k, 1.5))\n", "m.gpp:3:15: log probability is -Inf: value 0 is the lower end of the support of logcdf(Weibull), where P(X <= x) is 0; " + autodiff.ProductZeroNote + branch},
		// an end that a param moves: another start may help
		{"target += logcdf(0, Uniform(k - 1, 3))\n", "m.gpp:3:11: log probability is -Inf: value 0 is the lower end of the support of logcdf(Uniform), where P(X <= x) is 0" + branch},
		{"target += log_diff_exp(logcdf(0, Weibull(k, 1.5)), logcdf(0, Weibull(k, 1.5)))\n", "m.gpp:3:24: log probability is -Inf: value 0 is the lower end of the support of logcdf(Weibull), where P(X <= x) is 0" + branch},
		// a later failure that does not read the log 0 is its own
		{"target += log_sum_exp(logcdf(0, Weibull(k, 1.5)), logcdf(2, Weibull(k, 1.5)))\ntarget += log(k - 3)\n", "m.gpp:4:11: log: argument -2 < 0"},
	} {
		m := compileSrc(t, "m.gpp", decls+c.src, nil)
		if _, err := m.LogJoint([]float64{0, 0}, make([]float64, 2)); err == nil || err.Error() != c.want {
			t.Errorf("%s: log joint error %v, want %s", strings.TrimSpace(c.src), err, c.want)
		}
		if _, err := m.LogJointValue([]float64{0, 0}); err == nil || err.Error() != c.want {
			t.Errorf("%s: value-only log joint error %v, want %s", strings.TrimSpace(c.src), err, c.want)
		}
		// the output draws' pass (ForwardAll) blames the log CDF too
		ev, err := m.NewEvaluator()
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := ev.Eval([]float64{0, 0}); err == nil || err.Error() != c.want {
			t.Errorf("%s: Evaluator's log joint error %v, want %s", strings.TrimSpace(c.src), err, c.want)
		}
	}
}

// TestLogCDFZeroTakenIn checks that a log 0 at the end of a log CDF's
// support (logcdf(0, Weibull(k, s)), −Inf with zero partials) that a later
// function takes in is a value of the log joint, as in Stan: the
// interval-censored log_diff_exp(logcdf(U, D), logcdf(L, D)) over all rows
// at once, some with L = 0, gives the log joint and gradient of the loop
// that gives those rows log F(U), and its gradient matches finite
// differences; log_sum_exp and exp take one in too.
func TestLogCDFZeroTakenIn(t *testing.T) {
	const vector = intervalHead + `target += sum(log_diff_exp(logcdf(U, Weibull(k, s)), logcdf(L, Weibull(k, s))))
`
	in := intervalInput(40) // a quarter of the intervals from 0
	loop := compileSrc(t, "ic.gpp", intervalCensored, nil, in)
	vec := compileSrc(t, "vec.gpp", vector, nil, in)
	for seed := range uint64(3) {
		x := randomPoint(loop, seed)
		gl, gv := make([]float64, 2), make([]float64, 2)
		want, err1 := loop.LogJoint(x, gl)
		got, err2 := vec.LogJoint(x, gv)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if math.Abs(got-want) > 1e-12*math.Abs(want) {
			t.Errorf("seed %d: log joint %.15g, the loop's %.15g", seed, got, want)
		}
		for i := range gl {
			if math.Abs(gv[i]-gl[i]) > 1e-10*math.Max(1, math.Abs(gl[i])) {
				t.Errorf("seed %d: d/dx[%d] %.15g, the loop's %.15g", seed, i, gv[i], gl[i])
			}
		}
		if v, err := vec.LogJointValue(x); err != nil || v != got {
			t.Errorf("seed %d: value-only log joint %v (%v), want %v", seed, v, err, got)
		}
	}
	checkGradient(t, vec, 4, 0.5)

	const decls = "param k: positive ~ Gamma(2, 2)\n"
	for _, c := range []struct{ src, same string }{
		{"target += log_sum_exp(logcdf(0, Weibull(k, 1.5)), logcdf(2, Weibull(k, 1.5)))\n", "target += logcdf(2, Weibull(k, 1.5))\n"},
		{"target += log(1 - exp(logcdf(0, Weibull(k, 1.5))) + exp(logcdf(2, Weibull(k, 1.5))))\n", "target += log1p(exp(logcdf(2, Weibull(k, 1.5))))\n"},
	} {
		m := compileSrc(t, "m.gpp", decls+c.src, nil)
		ref := compileSrc(t, "ref.gpp", decls+c.same, nil)
		for _, x := range []float64{-0.5, 0, 0.7} {
			g, gr := make([]float64, 1), make([]float64, 1)
			v, err := m.LogJoint([]float64{x}, g)
			w, _ := ref.LogJoint([]float64{x}, gr)
			if err != nil || math.Abs(v-w) > 1e-13*math.Abs(w) || math.Abs(g[0]-gr[0]) > 1e-12*math.Max(1, math.Abs(gr[0])) {
				t.Errorf("%s at %g: %v, %v (%v), want %v, %v", strings.TrimSpace(c.src), x, v, g[0], err, w, gr[0])
			}
		}
	}
}

// TestLogCDFZeroLaterFailure checks that a failure after a log CDF's log 0
// of the log joint, in a row that the log 0 is not of and by a node that
// does not read it, is blamed where it is, by Forward and ForwardJoint
// alike: log(U[i] * k - 1.5) fails at i = 0, the log 0 is at i = 3.
func TestLogCDFZeroLaterFailure(t *testing.T) {
	const src = intervalHead + `for i in 0:N {
  target += logcdf(3 - L[i], Weibull(k, s))
  target += log(U[i] * k - 1.5)
}
`
	m := compileSrc(t, "ic.gpp", src, nil, intervalInput(8))
	x := []float64{0.1, 0.2}
	const want = "ic.gpp:8:13: log: argument -0.394829 < 0 at i = 0"
	if _, err := m.LogJoint(x, make([]float64, 2)); err == nil || err.Error() != want {
		t.Errorf("log joint error %v, want %s", err, want)
	}
	if _, err := m.LogJointValue(x); err == nil || err.Error() != want {
		t.Errorf("value-only log joint error %v, want %s", err, want)
	}
}
