package check_test

import (
	"testing"

	"github.com/gpplang/gpp/dist"
)

// icdf's errors, each at what it blames: a constant p outside [0, 1], a
// family without a quantile (the message lists those with one), the
// distribution first (alone too), a second argument that is not one, a
// multivariate family, and arguments that do not broadcast with p.
func TestICDFErrors(t *testing.T) {
	const head = "data y: real[3]\ndata p: real[N]\nparam mu: real\nparam s: positive\n"
	for _, c := range []struct{ src, want string }{
		{"output o = icdf(1.5, Normal(mu, s))\n", "m.gpp:5:17: icdf's p must be in [0, 1]; `1.5` is 1.5 (a probability: the 1.5% point is icdf(0.015, ...))"},
		{"output o = icdf(-0.25 * 2, Exponential(s))\n", "m.gpp:5:17: icdf's p must be in [0, 1]; `-0.25 * 2` is -0.5"},
		{"output o = icdf(0.5, SkewNormal(mu, s, 2))\n", "m.gpp:5:22: icdf knows Normal, LogNormal, StudentT, Exponential, Gamma, Weibull, Uniform, Logistic, Cauchy, Gumbel; not SkewNormal"},
		{"output o = icdf(Normal(mu, s), 0.5)\n", "m.gpp:5:17: icdf takes the probability first: icdf(p, Normal(...))"},
		{"output o = icdf(Normal(mu, s))\n", "m.gpp:5:17: icdf takes the probability first: icdf(p, Normal(...))"}, // one error, not Normal's as a value too
		{"output o = icdf(0.5, s)\n", "m.gpp:5:22: icdf's second argument must be a distribution such as Normal(mu, sigma)"},
		{"output o = icdf(0.5, MvNormal(y, I(3)))\n", "m.gpp:5:22: icdf knows Normal, LogNormal, StudentT, Exponential, Gamma, Weibull, Uniform, Logistic, Cauchy, Gumbel; not MvNormal"},
		{"param t: real ~ Normal(0, icdf(0, Exponential(2)))\n", "m.gpp:5:27: Normal expects a positive argument 2 (sigma); `icdf(0, Exponential(2))` is non-negative (icdf's values are those of its distribution's draws: `Exponential(2)`)"},
		{"output o = icdf(y, Normal(mu, [1, 2]))\n", "m.gpp:5:31: Normal argument 2 (sigma): `[1, 2]` is [2], which does not broadcast with `y` [3]"},
	} {
		wantOneError(t, head+c.src, c.want)
	}
}

// icdf's type: p's shape broadcast with the arguments', the support of its
// family's draws for a positive family, data-only when p and the arguments are.
func TestICDFType(t *testing.T) {
	src := "data y: real[N]\nparam mu: real\nparam s: positive\nlet a1 = icdf(0.9, Normal(mu, s))\nlet a2 = icdf(y, Gamma(2, s))\nlet a3 = icdf(0.5, Exponential(exp(y)))\nlet a4 = icdf(y, Normal(0, [1, 2]'))\nlet a5 = icdf(y, Exponential(s))\nlet a6 = icdf(0.5, Exponential(s))\n"
	f, info := checkSource(t, "m.gpp", src, nil)
	for _, c := range []struct {
		expr, shape string
		sup         dist.Support
		data        bool
	}{
		{"icdf(0.9, Normal(mu, s))", "scalar", dist.Real, false},
		{"icdf(y, Gamma(2, s))", "[N]", dist.Positive, false},
		{"icdf(0.5, Exponential(exp(y)))", "[N]", dist.Positive, true},
		{"icdf(y, Normal(0, [1, 2]'))", "[N, 2]", dist.Real, true},
		{"icdf(y, Exponential(s))", "[N]", dist.NonNegative, false},
		{"icdf(0.5, Exponential(s))", "scalar", dist.Positive, false}, // a constant p > 0: above 0
	} {
		tp := info.Types[findExpr(t, f, src, c.expr)]
		if got := tp.Shape.String(); got != c.shape || tp.DataOnly != c.data || tp.Support != c.sup {
			t.Errorf("%s: shape %s, support %v, data-only %v; want %s, %v, %v", c.expr, got, tp.Support, tp.DataOnly, c.shape, c.sup, c.data)
		}
	}
}
