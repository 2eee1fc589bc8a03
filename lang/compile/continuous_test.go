package compile

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// TestContinuousFamiliesLogJoint compiles y ~ D(args) and the log CDFs of
// Logistic, Gumbel, ChiSquare, InvChiSquare, ScaledInvChiSquare, Rayleigh,
// Pareto, ParetoType2, Frechet, GEV, GeneralizedPareto and LogLogistic,
// and PyMC's Wald, Kumaraswamy, LogitNormal, AsymmetricLaplace, Moyal and
// Rice, against the same log density written out with target += (Stan's
// and the textbooks' formulas), in value and gradient, with params in every
// argument position.
func TestContinuousFamiliesLogJoint(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"y": [-1.3, 0.4, 2.9], "tc": [3.0, 0.5, 2.2]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: js}
	const decls = "data y: real[3]\ndata tc: positive[3]\nparam a: positive\nparam s: positive\nparam c: positive\n"
	for _, c := range []struct{ name, dist, plain string }{
		{"Logistic", "y ~ Logistic(log(a), s)\n",
			"target += sum(-(y - log(a)) / s - log(s) - 2 * log1p(exp(-(y - log(a)) / s)))\n"},
		{"Gumbel", "y ~ Gumbel(log(a), s)\n",
			"target += sum(-log(s) - (y - log(a)) / s - exp(-(y - log(a)) / s))\n"},
		{"ChiSquare", "tc ~ ChiSquare(a)\n",
			"target += sum(-a / 2 * log(2) - lgamma(a / 2) + (a / 2 - 1) * log(tc) - tc / 2)\n"},
		{"InvChiSquare", "tc ~ InvChiSquare(a)\n",
			"target += sum(-a / 2 * log(2) - lgamma(a / 2) - (a / 2 + 1) * log(tc) - 0.5 / tc)\n"},
		{"ScaledInvChiSquare", "tc ~ ScaledInvChiSquare(a, s)\n",
			"target += sum(a / 2 * log(a / 2) - lgamma(a / 2) + a * log(s) - (a / 2 + 1) * log(tc) - a * s ^ 2 / (2 * tc))\n"},
		{"Rayleigh", "tc ~ Rayleigh(s)\n", "target += sum(log(tc) - 2 * log(s) - tc ^ 2 / (2 * s ^ 2))\n"},
		{"Pareto", "tc ~ Pareto(0.4, a)\n", "target += sum(log(a) + a * log(0.4) - (a + 1) * log(tc))\n"},
		{"Pareto with a param minimum", "target += logpdf(tc[0], Pareto(c / (1 + c), a))\n",
			"target += log(a) + a * log(c / (1 + c)) - (a + 1) * log(tc[0])\n"},
		{"ParetoType2", "y ~ ParetoType2(-2 - c, s, a)\n",
			"target += sum(log(a) - log(s) - (a + 1) * log1p((y + 2 + c) / s))\n"},
		{"Frechet", "tc ~ Frechet(a, s)\n",
			"target += sum(log(a) - log(s) - (1 + a) * log(tc / s) - pow(tc / s, -a))\n"},
		{"LogLogistic", "tc ~ LogLogistic(a, s)\n",
			"target += sum(log(s) - log(a) + (s - 1) * log(tc / a) - 2 * log1p(pow(tc / a, s)))\n"},
		{"SkewNormal", "y ~ SkewNormal(log(a), s, c - 1)\n",
			"target += sum(log(2) - log(s) - 0.5 * ((y - log(a)) / s) ^ 2 - 0.9189385332046728 + log(Phi((c - 1) * (y - log(a)) / s)))\n"},
		{"ExpModNormal", "y ~ ExpModNormal(log(a), s, c)\n",
			"target += sum(log(c) + c / 2 * (2 * log(a) + c * s ^ 2 - 2 * y) + log(Phi((y - log(a) - c * s ^ 2) / s)))\n"},
		{"ExpModNormal CDF", "target += logcdf(y, ExpModNormal(log(a), s, c))\n",
			"target += sum(log(Phi((y - log(a)) / s) - exp(-c * (y - log(a)) + c ^ 2 * s ^ 2 / 2) .* Phi((y - log(a)) / s - c * s)))\n"},
		{"ExpModNormal survival", "target += logccdf(y, ExpModNormal(log(a), s, c))\n",
			"target += sum(log(1 - Phi((y - log(a)) / s) + exp(-c * (y - log(a)) + c ^ 2 * s ^ 2 / 2) .* Phi((y - log(a)) / s - c * s)))\n"},
		{"SkewNormal CDF at alpha = 0 is Normal's", "target += logcdf(y, SkewNormal(log(a), s, 0)) + logccdf(c, SkewNormal(1, s, 0))\n",
			"target += logcdf(y, Normal(log(a), s)) + logccdf(c, Normal(1, s))\n"},
		{"SkewNormal survival mirrors its CDF", "target += logccdf(y, SkewNormal(log(a), s, c - 1))\n",
			"target += logcdf(-y, SkewNormal(-log(a), s, 1 - c))\n"},
		{"VonMises (I0 by its series to k = 15)", "y ~ VonMises(log(a), s)\n",
			"target += sum(s * cos(y - log(a))) - 3 * log(2 * 3.141592653589793) - 3 * log(1 + (s / 2) ^ 2 / 1.0 + (s / 2) ^ 4 / 4.0 + (s / 2) ^ 6 / 36.0 + (s / 2) ^ 8 / 576.0 + (s / 2) ^ 10 / 14400.0 + (s / 2) ^ 12 / 518400.0 + (s / 2) ^ 14 / 25401600.0 + (s / 2) ^ 16 / 1625702400.0 + (s / 2) ^ 18 / 131681894400.0 + (s / 2) ^ 20 / 13168189440000.0 + (s / 2) ^ 22 / 1593350922240000.0 + (s / 2) ^ 24 / 2.2944253280256e+17 + (s / 2) ^ 26 / 3.877578804363264e+19 + (s / 2) ^ 28 / 7.600054456551997e+21 + (s / 2) ^ 30 / 1.7100122527241995e+24)\n"},
		// (1 − τ)(μ − y) below μ and τ(y − μ) above are |y − μ|/2 + (τ − ½)(y − μ)
		{"SkewDoubleExponential", "y ~ SkewDoubleExponential(log(a), s, inv_logit(c - 1))\n",
			"target += sum(log(2) + log(inv_logit(c - 1)) + log1m(inv_logit(c - 1)) - log(s) - 2 / s * (abs(y - log(a)) / 2 + (inv_logit(c - 1) - 0.5) * (y - log(a))))\n"},
		{"SkewDoubleExponential CDF and survival", "target += logcdf(y, SkewDoubleExponential(log(a), s, inv_logit(c - 1))) + logccdf(tc, SkewDoubleExponential(log(a), s, inv_logit(c - 1)))\n",
			"target += sum(log(0.5 * (1 - ((y - log(a)) / abs(y - log(a)))) .* inv_logit(c - 1) .* exp(-2 * (1 - inv_logit(c - 1)) * (log(a) - y) / s) + 0.5 * (1 + ((y - log(a)) / abs(y - log(a)))) .* (1 - (1 - inv_logit(c - 1)) * exp(-2 * inv_logit(c - 1) * (y - log(a)) / s)))) + sum(log(1 - (0.5 * (1 - ((tc - log(a)) / abs(tc - log(a)))) .* inv_logit(c - 1) .* exp(-2 * (1 - inv_logit(c - 1)) * (log(a) - tc) / s) + 0.5 * (1 + ((tc - log(a)) / abs(tc - log(a)))) .* (1 - (1 - inv_logit(c - 1)) * exp(-2 * inv_logit(c - 1) * (tc - log(a)) / s)))))\n"},
		// PyMC's families by their textbook densities and CDFs
		{"Wald", "tc ~ Wald(a, s)\n",
			"target += sum(0.5 * log(s) - 0.5 * log(2 * 3.141592653589793) - 1.5 * log(tc) - s * (tc - a) ^ 2 / (2 * a ^ 2 * tc))\n"},
		{"Wald CDF and survival", "target += logcdf(tc, Wald(a, s)) + logccdf(tc, Wald(a, s))\n",
			"target += sum(log(Phi(sqrt(s / tc) .* (tc / a - 1)) + exp(2 * s / a) * Phi(-sqrt(s / tc) .* (tc / a + 1)))) + sum(log1m(Phi(sqrt(s / tc) .* (tc / a - 1)) + exp(2 * s / a) * Phi(-sqrt(s / tc) .* (tc / a + 1))))\n"},
		{"Kumaraswamy", "target += logpdf(inv_logit(y), Kumaraswamy(a, s)) + logccdf(inv_logit(y), Kumaraswamy(a, s)) + logcdf(inv_logit(y), Kumaraswamy(a, s))\n",
			"target += sum(log(a) + log(s) + (a - 1) * log(inv_logit(y)) + (s - 1) * log1m(inv_logit(y) ^ a)) + sum(s * log1m(inv_logit(y) ^ a)) + sum(log1m((1 - inv_logit(y) ^ a) ^ s))\n"},
		{"LogitNormal", "target += logpdf(inv_logit(y), LogitNormal(c, s)) + logcdf(inv_logit(y), LogitNormal(c, s))\n",
			"target += sum(logpdf(y, Normal(c, s)) - log(inv_logit(y)) - log1m(inv_logit(y))) + sum(log(Phi((y - c) / s)))\n"},
		// fmax(y − c, 0) above c, fmin(y − c, 0) below: each side's term
		{"AsymmetricLaplace", "y ~ AsymmetricLaplace(a, s, c)\n",
			"target += sum(log(a) - log(s + 1 / s) - a * (s * fmax(y - c, 0) - fmin(y - c, 0) / s))\n"},
		{"AsymmetricLaplace CDF", "target += logcdf(y, AsymmetricLaplace(a, s, c)) + logccdf(y, AsymmetricLaplace(a, s, c))\n",
			"target += sum(log(s ^ 2 / (1 + s ^ 2) * exp(a / s * fmin(y - c, 0)) + (1 - exp(-a * s * fmax(y - c, 0))) / (1 + s ^ 2))) + sum(log1m(s ^ 2 / (1 + s ^ 2) * exp(a / s * fmin(y - c, 0)) + (1 - exp(-a * s * fmax(y - c, 0))) / (1 + s ^ 2)))\n"},
		{"Moyal", "y ~ Moyal(log(a), s)\ntarget += logcdf(y, Moyal(log(a), s)) + logccdf(y, Moyal(log(a), s))\n",
			"target += sum(-log(s) - 0.5 * log(2 * 3.141592653589793) - ((y - log(a)) / s + exp(-(y - log(a)) / s)) / 2) + sum(log(erfc(exp(-(y - log(a)) / (2 * s)) / sqrt(2)))) + sum(log(erf(exp(-(y - log(a)) / (2 * s)) / sqrt(2))))\n"},
		{"Rice", "tc ~ Rice(a, s)\n",
			"target += sum(log(tc) - 2 * log(s) - (tc ^ 2 + a ^ 2) / (2 * s ^ 2) + log_modified_bessel_first_kind(0, tc * a / s ^ 2))\n"},
		{"Logistic CDF", "target += logcdf(y, Logistic(log(a), s))\n", "target += sum(log_inv_logit((y - log(a)) / s))\n"},
		{"Gumbel survival", "target += logccdf(y, Gumbel(log(a), s))\n", "target += sum(log1mexp(exp(-(y - log(a)) / s)))\n"},
		{"ChiSquare with 2 degrees of freedom is Exponential(1/2)", "target += logccdf(tc, ChiSquare(2)) + logcdf(c, ChiSquare(2))\n",
			"target += logccdf(tc, Exponential(0.5)) + logcdf(c, Exponential(0.5))\n"},
		{"ChiSquare CDF is Gamma's", "target += logcdf(tc, ChiSquare(a))\n", "target += logcdf(tc, Gamma(a / 2, 0.5))\n"},
		{"InvChiSquare survival is InvGamma's", "target += logccdf(tc, InvChiSquare(a))\n", "target += logccdf(tc, InvGamma(a / 2, 0.5))\n"},
		{"ScaledInvChiSquare CDF is InvGamma's", "target += logcdf(tc, ScaledInvChiSquare(a, s))\n",
			"target += logcdf(tc, InvGamma(a / 2, a * s ^ 2 / 2))\n"},
		{"Rayleigh survival", "target += logccdf(tc, Rayleigh(s))\n", "target += -sum(tc ^ 2) / (2 * s ^ 2)\n"},
		{"Pareto survival", "target += logccdf(tc, Pareto(0.4, a))\n", "target += sum(-a * log(tc / 0.4))\n"},
		{"ParetoType2 CDF", "target += logcdf(y, ParetoType2(-2 - c, s, a))\n",
			"target += sum(log1mexp(a * log1p((y + 2 + c) / s)))\n"},
		{"Frechet CDF", "target += logcdf(tc, Frechet(a, s))\n", "target += -sum(pow(tc / s, -a))\n"},
		{"LogLogistic survival", "target += logccdf(tc, LogLogistic(a, s))\n", "target += -sum(log1p(pow(tc / a, s)))\n"},
		// GEV and GeneralizedPareto by scipy's genextreme and genpareto
		// forms, (1 + xi z)^(−1/xi) written with pow, xi from c
		{"GEV", "y ~ GEV(log(a), s + 3, 0.2 * inv_logit(c) - 0.1)\ntarget += logcdf(y, GEV(log(a), s + 3, 0.2 * inv_logit(c) - 0.1)) + logccdf(tc, GEV(log(a), s + 3, 0.2 * inv_logit(c) - 0.1))\n",
			"target += sum(-log(s + 3) - (1 + 1 / (0.2 * inv_logit(c) - 0.1)) * log1p((0.2 * inv_logit(c) - 0.1) * (y - log(a)) / (s + 3)) - pow(1 + (0.2 * inv_logit(c) - 0.1) * (y - log(a)) / (s + 3), -1 / (0.2 * inv_logit(c) - 0.1)))" +
				" - sum(pow(1 + (0.2 * inv_logit(c) - 0.1) * (y - log(a)) / (s + 3), -1 / (0.2 * inv_logit(c) - 0.1)))" +
				" + sum(log1m(exp(-pow(1 + (0.2 * inv_logit(c) - 0.1) * (tc - log(a)) / (s + 3), -1 / (0.2 * inv_logit(c) - 0.1)))))\n"},
		{"GeneralizedPareto", "tc ~ GeneralizedPareto(0.2 - a, s + 1, 0.2 * inv_logit(c) - 0.1)\ntarget += logccdf(tc, GeneralizedPareto(0.2 - a, s + 1, 0.2 * inv_logit(c) - 0.1)) + logcdf(tc, GeneralizedPareto(0.2 - a, s + 1, 0.2 * inv_logit(c) - 0.1))\n",
			"target += sum(-log(s + 1) - (1 + 1 / (0.2 * inv_logit(c) - 0.1)) * log1p((0.2 * inv_logit(c) - 0.1) * (tc - 0.2 + a) / (s + 1)))" +
				" - sum(log1p((0.2 * inv_logit(c) - 0.1) * (tc - 0.2 + a) / (s + 1))) / (0.2 * inv_logit(c) - 0.1)" +
				" + sum(log1m(pow(1 + (0.2 * inv_logit(c) - 0.1) * (tc - 0.2 + a) / (s + 1), -1 / (0.2 * inv_logit(c) - 0.1))))\n"},
	} {
		d := compileSrc(t, "a.gpp", decls+c.dist, nil, in)
		plain := compileSrc(t, "b.gpp", decls+c.plain, nil, in)
		wantSameLogJoint(t, c.name, d, plain)
	}
}

// TestContinuousFamiliesPredictive: replicates (output y_rep ~ D(...)) of
// the new families have their means and variances, the arguments
// broadcast (a location per element).
func TestContinuousFamiliesPredictive(t *testing.T) {
	m := compileSrc(t, "p.gpp", `param b: real
target += -b * b
output g_rep ~ Gumbel(rep(b, 3) + [-1, 0, 1], 2)
output l_rep ~ LogLogistic(2, 9)
output p_rep ~ ParetoType2(b, 1.5, 9)
output c_rep ~ ScaledInvChiSquare(12, 0.7)
output v_rep ~ GEV(b, 2, 0.1)
output q_rep ~ GeneralizedPareto(b, 1.5, -0.2)
`, nil, data.Input{})
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	ev.SetRand(rand.New(rand.NewPCG(31, 2)))
	const b = 0.4
	const gamma = 0.5772156649015329
	var gm, gv []float64
	for _, d := range []float64{-1, 0, 1} {
		gm, gv = append(gm, b+d+2*gamma), append(gv, math.Pi*math.Pi*4/6)
	}
	bb := math.Pi / 9 // LogLogistic: mean αb/sin b, variance α²(2b/sin 2b − b²/sin² b)
	lm, lv := 2*bb/math.Sin(bb), 4*(2*bb/math.Sin(2*bb)-bb*bb/(math.Sin(bb)*math.Sin(bb)))
	// ParetoType2(μ, λ, α): μ + λ/(α − 1), λ²α/((α − 1)²(α − 2)); the scaled
	// inverse chi-square: νs²/(ν − 2), 2ν²s⁴/((ν − 2)²(ν − 4)).
	s2 := 0.49
	// GEV(μ, σ, ξ): μ + σ(Γ(1 − ξ) − 1)/ξ, σ²(Γ(1 − 2ξ) − Γ(1 − ξ)²)/ξ²;
	// GeneralizedPareto: μ + σ/(1 − ξ), σ²/((1 − ξ)²(1 − 2ξ)).
	g1, g2 := math.Gamma(0.9), math.Gamma(0.8)
	checkReplicateMoments(t, ev, []float64{b}, 20000, []string{"g_rep", "l_rep", "p_rep", "c_rep", "v_rep", "q_rep"},
		[][]float64{gm, {lm}, {b + 1.5/8}, {12 * s2 / 10}, {b + 2*(g1-1)/0.1}, {b + 1.5/1.2}},
		[][]float64{gv, {lv}, {2.25 * 9 / (64 * 7)}, {2 * 144 * s2 * s2 / (100 * 8)}, {4 * (g2 - g1*g1) / 0.01}, {2.25 / (1.44 * 1.4)}})
}

// TestTruncatedPriorNewFamilies: a prior wider than its param's bounds is
// normalised from the family's log CDF kernels where truncate.go has no
// closed form of its own (the families added after it), as a
// logpdf − log P target += would: `real<lower=1> ~ Pareto(1, 3)` was refused
// ("truncating Pareto … is not supported"), and a Pareto prior on a
// positive param drew below y_min and failed the fit.
func TestTruncatedPriorNewFamilies(t *testing.T) {
	for _, c := range []struct{ name, bounds, dist, logP string }{
		{"Logistic", "real<lower=2>", "Logistic(0, 1)", "logccdf(2, Logistic(0, 1))"},
		{"Pareto", "real<lower=1>", "Pareto(1, 3)", "0"},
		{"Gumbel", "real<lower=-1, upper=3>", "Gumbel(0.5, 2)", "log(exp(logcdf(3, Gumbel(0.5, 2))) - exp(logcdf(-1, Gumbel(0.5, 2))))"},
		{"ChiSquare", "real<lower=0, upper=4>", "ChiSquare(3)", "logcdf(4, ChiSquare(3))"},
		{"VonMises", "real<lower=-1, upper=2>", "VonMises(2.5, 3)", "log(exp(logcdf(2, VonMises(2.5, 3))) - exp(logcdf(-1, VonMises(2.5, 3))))"},
		{"VonMises on [−π, π]", "real<lower=-3.14159, upper=3.14159>", "VonMises(-7, 0.5)", "log1m(exp(logcdf(-3.14159, VonMises(-7, 0.5))) + exp(logccdf(3.14159, VonMises(-7, 0.5))))"},
	} {
		decl := compileSrc(t, "a.gpp", "param x: "+c.bounds+"[3] ~ "+c.dist+"\n", nil)
		plain := compileSrc(t, "b.gpp", "param x: "+c.bounds+"[3]\ntarget += sum(logpdf(x, "+c.dist+")) - 3 * "+c.logP+"\n", nil)
		wantSameLogJoint(t, c.name, decl, plain)
	}
	// Pareto's support starts at y_min: a prior of it on a param whose
	// values go lower is an error at the prior, one on higher values is
	// normalised there (Pareto(1, 3) above 2 is Pareto(2, 3): log P = 3·log ½).
	for _, c := range []struct{ src, want string }{
		// The error says where the prior is 0 and how to declare the param,
		// and "with this data" only where the data take part.
		{"param x: positive ~ Pareto(1, 3)\n", "a.gpp:1:21: Pareto(1, 3) puts no mass on part of the positive support of x: it is 0 outside (1, ∞); declare x real<lower=1>"},
		{"param x: real ~ ParetoType2(0, 1, 2)\n", "a.gpp:1:17: ParetoType2(0, 1, 2) puts no mass on part of the real support of x: it is 0 outside (0, ∞); declare x real<lower=0>"},
		// VonMises's density is periodic and its CDF on [−π, π] (Stan's)
		{"param x: positive ~ VonMises(0, 1)\n", "a.gpp:1:21: VonMises can be truncated only within [−π, π], where its CDF is (as in Stan), not to the positive support of x"},
		{"param x: real<lower=-4, upper=0> ~ VonMises(0, 1)\n", "a.gpp:1:36: VonMises can be truncated only within [−π, π], where its CDF is (as in Stan), not to the bounds (-4, 0) of x"},
		{"const m = 2\nparam x: real<lower=1> ~ Pareto(m, 3)\n", "a.gpp:2:26: Pareto(m, 3) puts no mass on part of the bounds (1, ∞) of x: it is 0 outside (2, ∞); declare x real<lower=m>"},
	} {
		if _, err := compileSrcErr(t, "a.gpp", c.src, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.src, err, c.want)
		}
	}
	wantSameLogJoint(t, "Pareto above y_min",
		compileSrc(t, "a.gpp", "param x: real<lower=2>[3] ~ Pareto(1, 3)\n", nil),
		compileSrc(t, "b.gpp", "param x: real<lower=2>[3]\ntarget += sum(logpdf(x, Pareto(1, 3))) - 9 * log(0.5)\n", nil))
}
