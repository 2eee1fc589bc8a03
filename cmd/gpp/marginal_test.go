package main

import (
	"math"
	"strings"
	"testing"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/compile"
)

// maHead declares what the models of TestNormalMarginals share.
const maHead = `data N: int
data y: real[N]
data se: positive[N]
data x: real[N]
data g: int<lower=0, upper=N-1>[N]
data c: int[N]
param mu: real ~ Normal(0, 2)
param tau: positive ~ HalfNormal(1)
`

// TestNormalMarginals: a vector theta, centred (declared prior or a ~
// statement) or the let of a non-centred z, whose only use in the log
// density is y ~ Normal(theta, s) gets the marginal and the outputs that
// draw theta, with mu and tau as written (expressions, a loc of 0 left
// out) and outputs free to read theta; theta in two observations, in a
// Poisson likelihood or a target +=, indexed or scaled (also by a let), in its own s, z read
// elsewhere, a y of another shape, a scale of data, and a prior or
// observation of another family get none.
func TestNormalMarginals(t *testing.T) {
	const yes = "y ~ Normal(theta, se)\n"
	for _, c := range []struct {
		name, src string
		want      []string // the marginal, then the outputs; nil for none
	}{
		{"centred", "param theta: real[N] ~ Normal(mu, tau)\n" + yes + "output ll = logpdf(y, Normal(theta, se))\n",
			[]string{"y ~ Normal(mu, sqrt(square(se) + square(tau)))",
				"let prec = 1 / square(se) + 1 / square(tau) and output theta ~ Normal((y / square(se) + mu / square(tau)) / prec, 1 / sqrt(prec))"}},
		{"centred statement", "param theta: real[N]\ntheta ~ Normal(mu, tau)\n" + yes,
			[]string{"y ~ Normal(mu, sqrt(square(se) + square(tau)))", "output theta ~ Normal((y / square(se) + mu / square(tau)) / prec"}},
		{"non-centred", "param z: real[N] ~ Normal(0, 1)\nlet theta = mu + tau * z\n" + yes + "output theta\n",
			[]string{"y ~ Normal(mu, sqrt(square(se) + square(tau)))", "output theta ~ Normal((y / square(se) + mu / square(tau)) / prec, 1 / sqrt(prec))"}},
		{"non-centred the other way round", "param z: real[N] ~ Normal(0, 1)\nlet theta = (z * tau) + mu\n" + yes,
			[]string{"y ~ Normal(mu, sqrt(square(se) + square(tau)))", "output theta ~ Normal((y / square(se) + mu / square(tau)) / prec"}},
		{"expressions", "param b: real ~ Normal(0, 1)\nparam ls: real ~ Normal(0, 1)\nparam theta: real[N] ~ Normal(mu + b * x, exp(ls))\ny ~ Normal(theta, 2 * se)\n",
			[]string{"y ~ Normal(mu + b * x, sqrt(square(2 * se) + square(exp(ls))))",
				"let prec = 1 / square(2 * se) + 1 / square(exp(ls)) and output theta ~ Normal((y / square(2 * se) + (mu + b * x) / square(exp(ls))) / prec, 1 / sqrt(prec))"}},
		{"no location", "param z: real[N] ~ Normal(0, 1)\nlet theta = tau * z\n" + yes,
			[]string{"y ~ Normal(0, sqrt(square(se) + square(tau)))", "output theta ~ Normal(y / square(se) / prec, 1 / sqrt(prec))"}},
		{"prec taken", "data prec: real\nparam theta: real[N] ~ Normal(mu, tau)\n" + yes,
			[]string{"y ~ Normal(mu,", "let theta_prec = 1 / square(se) + 1 / square(tau) and output theta ~ Normal((y / square(se) + mu / square(tau)) / theta_prec"}},
		{"a slice of y", "param theta: real[3] ~ Normal(mu, tau)\ny[:3] ~ Normal(theta, se[:3])\n",
			[]string{"y[:3] ~ Normal(mu, sqrt(square(se[:3]) + square(tau)))", "output theta ~ Normal((y[:3] / square(se[:3]) + mu / square(tau)) / prec"}},
		{"two observations", "param theta: real[N] ~ Normal(mu, tau)\n" + yes + "x ~ Normal(theta, 1)\n", nil},
		{"Poisson", "param theta: real[N] ~ Normal(mu, tau)\nc ~ Poisson(exp(theta))\n", nil},
		{"target", "param theta: real[N] ~ Normal(mu, tau)\n" + yes + "target += -sum(square(theta))\n", nil},
		{"through a let", "param theta: real[N] ~ Normal(mu, tau)\nlet t2 = 2 * theta\n" + yes + "x ~ Normal(t2, 1)\n", nil},
		{"indexed", "param theta: real[N] ~ Normal(mu, tau)\ny ~ Normal(theta[g], se)\n", nil},
		{"scaled by a let", "param theta: real[N] ~ Normal(mu, tau)\nlet t2 = 2 * theta\ny ~ Normal(t2, se)\n", nil},
		{"scaled", "param theta: real[N] ~ Normal(mu, tau)\ny ~ Normal(2 * theta, se)\n", nil},
		{"s reads theta", "param theta: real[N] ~ Normal(mu, tau)\ny ~ Normal(theta, se + square(theta))\n", nil},
		{"z elsewhere", "param z: real[N] ~ Normal(0, 1)\nlet theta = mu + tau * z\n" + yes + "x ~ Normal(z, 1)\n", nil},
		{"matrix y", "data Y: real[N, 2]\nparam theta: real[N] ~ Normal(mu, tau)\nY ~ Normal(theta, 1)\n", nil},
		{"scale of data", "param theta: real[N] ~ Normal(mu, 0.5)\n" + yes, nil},
		{"Student-t prior", "param theta: real[N] ~ StudentT(3, mu, tau)\n" + yes, nil},
		{"Cauchy observation", "param theta: real[N] ~ Normal(mu, tau)\ny ~ Cauchy(theta, se)\n", nil},
	} {
		file, info := checkedSrc(t, maHead+c.src)
		ms := normalMarginals(file, info)
		if c.want == nil {
			if len(ms) != 0 {
				t.Errorf("%s: found %s, want none", c.name, ms[0].form)
			}
			continue
		}
		if len(ms) != 1 {
			t.Errorf("%s: %d found, want 1", c.name, len(ms))
			continue
		}
		if m := ms[0]; !strings.Contains(m.form, c.want[0]) || !strings.Contains(m.outputs, c.want[1]) {
			t.Errorf("%s: marginal\n%s\noutputs\n%s\nwant them to contain\n%s\n%s", c.name, m.form, m.outputs, c.want[0], c.want[1])
		}
	}
}

// TestMarginalHints: the hint on a centred meta-analysis names theta's
// prior, the observation and the marginal with what it replaces; that of
// the non-centred form names the let, and the short output theta the
// outputs replace; none for a k̂ of 0.7 or less.
func TestMarginalHints(t *testing.T) {
	file, info := checkedSrc(t, maHead+"param theta: real[N] ~ Normal(mu, tau)\ny ~ Normal(theta, se)\n")
	hs, covered := marginalHints(file, info, 0.9, math.NaN())
	wantHints(t, hs, []string{"theta's prior Normal(mu, tau) and y ~ Normal(theta, se) at 10:1, theta's only use in the log density, make a normal–normal hierarchy that integrates out in closed form (a random-effects meta-analysis): " +
		"whether theta is centred or non-centred, q understates mu's sd and cuts off tau's upper tail, which neither form mends, and --fullrank all only in part; " +
		"the marginal, y ~ Normal(mu, sqrt(square(se) + square(tau))) in place of param theta and the statement at 10:1, leaves q without theta's elements and fits much better, " +
		"and let prec = 1 / square(se) + 1 / square(tau) and output theta ~ Normal((y / square(se) + mu / square(tau)) / prec, 1 / sqrt(prec)) draws theta from its exact conditional given the params; " +
		"where a small tau matters, gpp sample of the marginal is quick (docs/language.md, Random-effects meta-analysis: integrate the study effects out)"})
	if len(covered) != 1 || !covered[info.Latent("theta")] {
		t.Errorf("covered %v, want theta", covered)
	}
	for _, k := range []float64{0.7, math.NaN()} {
		if hs, covered := marginalHints(file, info, k, math.NaN()); hs != nil || covered != nil {
			t.Errorf("k̂ %v: %q, want none", k, hs)
		}
	}
	file, info = checkedSrc(t, maHead+"param z: real[N]\nz ~ Normal(0, 1)\nlet theta = tau * z\ny ~ Normal(theta, se)\noutput theta\n")
	hs, _ = marginalHints(file, info, 0.9, math.NaN())
	wantHints(t, hs, []string{"z's prior, the statement z ~ Normal(0, 1) at 10:1, the let theta at 11:1 and y ~ Normal(theta, se) at 12:1, theta's only use in the log density, " +
		"make a normal–normal hierarchy that integrates out in closed form (a random-effects meta-analysis): whether theta is centred or non-centred, q cuts off tau's upper tail, which neither form mends,"})
	wantHints(t, hs, []string{"the marginal, y ~ Normal(0, sqrt(square(se) + square(tau))) in place of param z (and the statement at 10:1), the let at 11:1 and the statement at 12:1, " +
		"leaves q without theta's elements and fits much better, and let prec = 1 / square(se) + 1 / square(tau) and output theta ~ Normal(y / square(se) / prec, 1 / sqrt(prec)) draws theta from its exact conditional given the params (in place of the output theta at 13:1);"})
}

// TestMarginalParameterisationHints: gpp fit's hints on a meta-analysis
// give the marginal hint in place of the centred (or non-centred) one,
// and the mean-field hint points back to it; a second centred param
// beside it keeps its own hint, after the marginal one.
func TestMarginalParameterisationHints(t *testing.T) {
	m := &compile.Model{Latents: []compile.Latent{
		{Name: "mu", Support: dist.Real, Size: 1},
		{Name: "theta", Support: dist.Real, Size: 8},
	}}
	for _, src := range []string{
		"param theta: real[N] ~ Normal(mu, tau)\ny ~ Normal(theta, se)\n",
		"param theta_z: real[N] ~ Normal(0, 1)\nlet theta = mu + tau * theta_z\ny ~ Normal(theta, se)\n",
	} {
		file, info := checkedSrc(t, maHead+src)
		l := &pipeline.Loaded{File: file, Info: info, Model: m}
		wantHints(t, parameterisationHints(sgvb.Settings{}, l, "", 1.1, math.NaN(), nil, "", "", false), []string{
			"make a normal–normal hierarchy that integrates out in closed form",
			"--fullrank all (9 elements) fits them jointly, as Stan's fullrank ADVI: keep the fit with the higher ELBO (docs/inference.md, Full-rank factors); but the marginal (above) is the larger cure here: fit it first",
		})
	}
	file, info := checkedSrc(t, maHead+"param theta: real[N] ~ Normal(mu, tau)\nparam a: real[N] ~ Normal(0, tau)\ny ~ Normal(theta, se)\nx ~ Normal(a, 1)\nc ~ Poisson(exp(a))\n")
	l := &pipeline.Loaded{File: file, Info: info, Model: m}
	wantHints(t, parameterisationHints(sgvb.Settings{}, l, "", 1.1, math.NaN(), nil, "", "", false), []string{
		"theta's prior Normal(mu, tau) and y ~ Normal(theta, se) at 11:1, theta's only use in the log density, make a normal–normal hierarchy",
		"a's prior Normal(0, tau) has a scale that depends on params (a centred hierarchy)",
		"but the marginal (above) is the larger cure here: fit it first",
	})
}
