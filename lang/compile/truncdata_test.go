package compile

import (
	"math"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
)

// truncInput is the data of the truncated-data tests: y in [0, 3], lo a
// lower bound per element of y, pos positive, k counts in [1, 8].
func truncInput(t *testing.T) data.Input {
	t.Helper()
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"y": [0.3, 1.2, 2.5, 0.8, 1.9], "lo": [0, 0.1, -1, 0.5, 0],
		"pos": [0.4, 1.1, 2.9, 0.7, 1.6], "k": [1, 3, 2, 5, 8]}`))
	if err != nil {
		t.Fatal(err)
	}
	return data.Input{File: "d.json", JSON: js}
}

const truncDecls = "data y: real[N]\ndata lo: real[N]\ndata pos: positive[N]\ndata k: int<lower=0>[N]\nparam mu: real\nparam s: positive\nparam c: real\n"

// TestTruncDataSameLogJoint holds y ~ D(args) T[L, U] to the log joint and
// gradient of the same model written by hand, Σ log p(y) − N log(F(U) −
// F(L)) (a discrete D: F(U) − F(L − 1)), with bounds of constants, data
// per element and params, arguments per element, and either bound
// missing.
func TestTruncDataSameLogJoint(t *testing.T) {
	in := truncInput(t)
	for _, c := range []struct{ name, trunc, plain string }{
		{"Normal, lower", "y ~ Normal(mu, s) T[0, ]",
			"target += sum(logpdf(y, Normal(mu, s))) - N * logccdf(0, Normal(mu, s))"},
		{"Normal, upper", "y ~ Normal(mu, s) T[, 3]",
			"target += sum(logpdf(y, Normal(mu, s))) - N * logcdf(3, Normal(mu, s))"},
		{"Normal, both", "y ~ Normal(mu, s) T[-1, 3]",
			"target += sum(logpdf(y, Normal(mu, s))) - N * log(exp(logcdf(3, Normal(mu, s))) - exp(logcdf(-1, Normal(mu, s))))"},
		{"Normal, bounds of a param", "y ~ Normal(mu, s) T[c - 5, exp(c) + 5]",
			"target += sum(logpdf(y, Normal(mu, s))) - N * log(exp(logcdf(exp(c) + 5, Normal(mu, s))) - exp(logcdf(c - 5, Normal(mu, s))))"},
		{"Normal, a lower bound per element", "y ~ Normal(mu, s) T[lo, ]",
			"target += sum(logpdf(y, Normal(mu, s))) - sum(logccdf(lo, Normal(mu, s)))"},
		{"Normal, arguments per element", "y ~ Normal(mu * lo, s) T[0, 4]",
			"target += sum(logpdf(y, Normal(mu * lo, s))) - sum(log(exp(logcdf(4, Normal(mu * lo, s))) - exp(logcdf(0, Normal(mu * lo, s)))))"},
		{"Gamma, both", "pos ~ Gamma(s, exp(c)) T[0.2, 3]",
			"target += sum(logpdf(pos, Gamma(s, exp(c)))) - N * log(exp(logcdf(3, Gamma(s, exp(c)))) - exp(logcdf(0.2, Gamma(s, exp(c)))))"},
		{"Poisson, both: the mass of L included", "k ~ Poisson(s) T[1, 8]",
			"target += sum(logpdf(k, Poisson(s))) - N * log(exp(logcdf(8, Poisson(s))) - exp(logcdf(0, Poisson(s))))"},
		{"Poisson, lower: P(X ≥ L)", "k ~ Poisson(s) T[1, ]",
			"target += sum(logpdf(k, Poisson(s))) - N * logccdf(0, Poisson(s))"},
		{"Poisson, upper", "k ~ Poisson(exp(c)) T[, 10]",
			"target += sum(logpdf(k, Poisson(exp(c)))) - N * logcdf(10, Poisson(exp(c)))"},
		{"StudentT, both", "y ~ StudentT(s + 1, mu, exp(c)) T[-0.5, 3]",
			"target += sum(logpdf(y, StudentT(s + 1, mu, exp(c)))) - N * log(exp(logcdf(3, StudentT(s + 1, mu, exp(c)))) - exp(logcdf(-0.5, StudentT(s + 1, mu, exp(c)))))"},
		{"Beta of a computed left side, lower", "pos / 3 ~ Beta(s, exp(c)) T[0.1, ]",
			"target += sum(logpdf(pos / 3, Beta(s, exp(c)))) - N * logccdf(0.1, Beta(s, exp(c)))"},
		{"Poisson from 0: F(−1) = 0", "k ~ Poisson(s) T[0, 8]",
			"target += sum(logpdf(k, Poisson(s))) - N * logcdf(8, Poisson(s))"},
		{"VonMises, both (its CDF on [−π, π])", "y ~ VonMises(mu, s) T[-0.5, 3.1]",
			"target += sum(logpdf(y, VonMises(mu, s))) - N * log(exp(logcdf(3.1, VonMises(mu, s))) - exp(logcdf(-0.5, VonMises(mu, s))))"},
	} {
		trunc := compileSrc(t, "a.gpp", truncDecls+c.trunc+"\n", nil, in)
		plain := compileSrc(t, "b.gpp", truncDecls+c.plain+"\n", nil, in)
		wantSameLogJoint(t, c.name, trunc, plain)
	}
}

// TestTruncDataFarTail: bounds 40 standard deviations out, where F(U) −
// F(L) is below what a float64 holds, keep the normaliser's digits (the
// values from mpmath at 40 digits), from either tail; and a Poisson count
// far above its rate.
func TestTruncDataFarTail(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"x": 4.05, "nx": -4.05, "n": 31}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: js}
	const decls = "data x: real\ndata nx: real\ndata n: int<lower=0>\nparam mu: real ~ Normal(0, 1)\n"
	for _, c := range []struct {
		name, trunc, plain string
		logP               float64
	}{
		{"P(Z > 40)", "x ~ Normal(0, 0.1) T[4, ]", "x ~ Normal(0, 0.1)", -804.6084420137537881666},
		{"P(40 < Z < 45)", "x ~ Normal(0, 0.1) T[4, 4.5]", "x ~ Normal(0, 0.1)", -804.6084420137537881666},
		{"P(40 < Z < 40.5)", "x ~ Normal(0, 0.1) T[4, 4.05]", "x ~ Normal(0, 0.1)", -804.6084420155503210069},
		{"P(-40.5 < Z < -40)", "nx ~ Normal(0, 0.1) T[-4.05, -4]", "nx ~ Normal(0, 0.1)", -804.6084420155503210069},
		{"P(Z < -40)", "nx ~ Normal(0, 0.1) T[, -4]", "nx ~ Normal(0, 0.1)", -804.6084420137537881666},
		{"Poisson(1): P(X ≥ 30)", "n ~ Poisson(1) T[30, ]", "n ~ Poisson(1)", -75.62548110599408386173},
		{"Poisson(1): P(30 ≤ X ≤ 35)", "n ~ Poisson(1) T[30, 35]", "n ~ Poisson(1)", -75.62548110670331817267},
	} {
		trunc := compileSrc(t, "a.gpp", decls+c.trunc+"\n", nil, in)
		plain := compileSrc(t, "b.gpp", decls+c.plain+"\n", nil, in)
		z := []float64{0.3}
		a, errA := trunc.LogJoint(z, make([]float64, 1))
		b, errB := plain.LogJoint(z, make([]float64, 1))
		if errA != nil || errB != nil {
			t.Fatalf("%s: %v, %v", c.name, errA, errB)
		}
		if got := b - a; math.Abs(got-c.logP) > 1e-13*math.Abs(c.logP) {
			t.Errorf("%s: log P = %.17g, want %.17g", c.name, got, c.logP)
		}
	}
}

// TestTruncDataGradient checks the gradient of truncated data against
// central differences, with params in the arguments and in the bounds,
// per element and far out in a tail.
func TestTruncDataGradient(t *testing.T) {
	in := truncInput(t)
	for _, src := range []string{
		"param a: positive\ny ~ Normal(mu, s) T[-a, 3 + a]\n",
		"param a: positive\ny ~ Normal(mu, s) T[lo - a, ]\n",
		"param a: positive\ny ~ Normal(mu - 6, s / 4) T[-a, 3 + exp(c)]\n", // the lower tail of a normal far below y
		"param a: positive\ny ~ Normal(mu + 6, s / 4) T[-a, 3 + exp(c)]\n", // and the upper
		"pos ~ Gamma(s, exp(c)) T[0.1, 3 + mu * mu]\n",
		"y ~ Cauchy(mu, s) T[, 3 + exp(c)]\n",
		"param a: positive\ny ~ SkewNormal(mu, s, 3 * c - 1) T[-a, 3 + a]\n", // Owen's T in both bounds
		"k ~ Poisson(s * pos + 1) T[1, 9]\n",
		"param a: positive\ny ~ VonMises(mu, 3 * s) T[-3 + 0.1 * a, 3]\n", // kappa's partial by the sin²-weighted quadrature
		"param a: positive\npos ~ Wald(s, exp(c)) T[0.1 * a, 3 + a]\n",    // PyMC's families: both bounds params
		"param a: positive\ny ~ AsymmetricLaplace(s, exp(c), mu) T[-a, 3 + a]\n",
		"param a: positive\ny ~ Moyal(mu, s) T[-a, 3 + exp(c)]\n",
		"param a: positive\npos / 3 ~ Kumaraswamy(s, exp(c)) T[0.05 * a, ]\n",
		"param a: positive\npos / 3 ~ LogitNormal(mu, s) T[, 0.99 - 0.01 * inv_logit(a)]\n",
	} {
		m := compileSrc(t, "g.gpp", truncDecls+src, nil, in)
		checkGradient(t, m, 7, 0.5)
	}
}

// TestTruncDataErrors: values outside the bounds known before the fit are
// errors at their data cell (or at the T of a computed value), L ≥ U at
// the bound; a bound of params that moves past a value makes the log joint
// an error at the T.
func TestTruncDataErrors(t *testing.T) {
	in := truncInput(t)
	for _, c := range []struct{ src, want string }{
		{"y ~ Normal(mu, s) T[0, 2]", "d.json:1:18: y: value 2.5 is above the upper bound 2 of T[...] at e.gpp:8:19, where its density is 0"},
		{"y ~ Normal(mu, s) T[0.5, ]", "d.json:1:8: y: value 0.3 is below the lower bound 0.5 of T[...] at e.gpp:8:19"},
		{"y[1:N] ~ Normal(mu, s) T[1, ]", "d.json:1:23: y: value 0.8 is below the lower bound 1 of T[...] at e.gpp:8:24"},
		{"y - 1 ~ Normal(mu, s) T[0, ]", "e.gpp:8:23: `y - 1` (element 0) is -0.7, below the lower bound 0 of T[...]"},
		{"y ~ Normal(mu, s) T[lo, 0.5]", "T[L, U] needs L < U; found L = 0.5, U = 0.5 (element 3)"},
		{"k ~ Poisson(s) T[2, ]", "d.json:2:43: k: value 1 is below the lower bound 2"},
	} {
		_, err := compileSrcErr(t, "e.gpp", truncDecls+c.src+"\n", nil, in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.src, err, c.want)
		}
	}
	m := compileSrc(t, "f.gpp", truncDecls+"y ~ Normal(0, 1) T[c, ]\n", nil, in)
	if _, err := m.LogJoint([]float64{0, 0, 0.2}, make([]float64, 3)); err != nil {
		t.Errorf("c = 0.2 below every y: %v", err)
	}
	_, err := m.LogJoint([]float64{0, 0, 0.5}, make([]float64, 3))
	if err == nil || !strings.Contains(err.Error(), "f.gpp:8:18") || !strings.Contains(err.Error(), "Normal T[L, ]") {
		t.Errorf("c = 0.5 above y[0] = 0.3: error %v, want one at the T naming Normal T[L, ]", err)
	}
}

// TestTruncNormaliserZero: a truncation whose normaliser P(L ≤ X ≤ U) is 0
// in float64 at the draw (a user trial's Normal(−325.5, 10⁻³⁰⁰) above 0.8,
// which underflows) is an error at the T naming the probability, the
// interval and the arguments, not the kernel's placeholder value 0, which
// no y has; a y outside bounds of params is named with the bound it
// passes, at its data cell.
func TestTruncNormaliserZero(t *testing.T) {
	in := truncInput(t)
	tiny := math.Log(1e-300) // s's unconstrained coordinate
	for _, c := range []struct {
		src  string
		p    []float64 // mu, log s, c
		want string
	}{
		{"y ~ Normal(mu, s) T[0.2, ]", []float64{-325.5, tiny, 0}, "f.gpp:8:19: Normal T[L, ]: the truncation's normaliser P(X >= 0.2), Normal's mass on [0.2, +Inf) at these arguments, is 0 or underflows to 0, so its log is -Inf (mu -325.5, sigma 1e-300, L 0.2)"},
		{"y ~ Normal(mu, s) T[, 3]", []float64{325.5, tiny, 0}, "Normal T[, U]: the truncation's normaliser P(X <= 3), Normal's mass on (-Inf, 3] at these arguments, is 0 or underflows to 0, so its log is -Inf (mu 325.5, sigma 1e-300, U 3)"},
		{"y ~ Normal(mu, s) T[0, 3]", []float64{325.5, tiny, 0}, "Normal T[L, U]: the truncation's normaliser P(0 <= X <= 3), Normal's mass on [0, 3] at these arguments, is 0 or underflows to 0"},
		{"y ~ Normal(mu, s) T[0, 3]", []float64{-325.5, tiny, 0}, "Normal T[L, U]: the truncation's normaliser P(0 <= X <= 3)"},
		{"y ~ Normal(mu, s) T[c, 3]", []float64{0, 0, 0.5}, "f.gpp:8:19: Normal T[L, U]: value 0.3 is below the lower bound 0.5, where the truncated density is 0 (mu 0, sigma 1, L 0.5, U 3, element [0]); the value is y's at d.json:1:8"},
		{"y ~ Normal(mu, s) T[-1, c]", []float64{0, 0, 2}, "Normal T[L, U]: value 2.5 is above the upper bound 2, where the truncated density is 0 (mu 0, sigma 1, L -1, U 2, element [2]); the value is y's at d.json:1:18"},
	} {
		m := compileSrc(t, "f.gpp", truncDecls+c.src+"\n", nil, in)
		_, err := m.LogJoint(c.p, make([]float64, 3))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "at value") {
			t.Errorf("%s at %v: error %v, want %q", c.src, c.p, err, c.want)
		}
	}
}

// TestTruncExplain holds truncNorm.explain to each form of the bounds, a
// count family's and bounds out of order, and to "" where the mass is not
// 0, so that the generic message stays.
func TestTruncExplain(t *testing.T) {
	norm := func(name string, lo, hi bool) *truncNorm {
		u, _ := dist.LookupUnivariate(name)
		lower, _ := dist.LogCDF(name, false)
		upper, _ := dist.LogCDF(name, true)
		return &truncNorm{family: name, lower: lower, upper: upper, na: len(u.Params), hasLo: lo, hasHi: hi, discrete: u.Support.Discrete()}
	}
	for _, c := range []struct {
		k    *truncNorm
		p    []float64
		want string
	}{
		{norm("Binomial", true, false), []float64{10, 0.5, 11}, "the truncation's normaliser P(X >= 11), Binomial's mass on [11, +Inf) at these arguments, is 0 or underflows to 0, so its log is -Inf"},
		{norm("Poisson", false, true), []float64{1e300, 3}, "P(X <= 3), Poisson's mass on (-Inf, 3]"},
		{norm("Poisson", true, true), []float64{1e300, 1, 5}, "P(1 <= X <= 5), Poisson's mass on [1, 5]"},
		{norm("Normal", true, true), []float64{0, 1, 1e300, 2e300}, "P(1e+300 <= X <= 2e+300)"},
		{norm("Normal", true, true), []float64{0, 1, 2, 2}, "T[L, U] needs L < U; found L = 2, U = 2"},
		{norm("Normal", true, false), []float64{0, 1, 2}, ""},
		{norm("Poisson", true, true), []float64{2, 1, 5}, ""},
	} {
		dp := make([]float64, len(c.p))
		lp, _ := c.k.kernel(0, c.p, dp)
		got, ofValue := c.k.explain(0, c.p, lp)
		if got != c.want && !(c.want != "" && strings.Contains(got, c.want)) || ofValue {
			t.Errorf("%s %s at %v (kernel %g): %q, %v, want %q", c.k.family, c.k.label(), c.p, lp, got, ofValue, c.want)
		}
	}
}
