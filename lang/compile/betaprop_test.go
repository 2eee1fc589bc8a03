package compile

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
)

// BetaProportion(m, k) is Beta(m .* k, (1 - m) .* k) through the compiled
// model, in log joint and gradient: as a likelihood with a mean per
// observation and a scalar precision (the hoisted path), with a precision
// per observation (the kernel's), in logpdf, logcdf and logccdf, as data
// truncated to an interval with a param bound, and as a prior.
func TestBetaProportionIsBeta(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"x": [-1.2, 0.3, 0.8, 2.1], "y": [0.12, 0.55, 0.61, 0.93], "w": [1, 2, 0.5, 3]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: js}
	const decls = "data x: real[4]\ndata y: real<lower=0, upper=1>[4]\ndata w: positive[4]\nparam b0: real\nparam b1: real\nparam k: positive\nlet m = inv_logit(b0 + b1 * x)\n"
	for _, c := range []struct{ name, prop, beta string }{
		{"likelihood, scalar precision", "y ~ BetaProportion(m, k)\n", "y ~ Beta(m .* k, (1 - m) .* k)\n"},
		{"likelihood, precision per observation", "y ~ BetaProportion(m, k * w)\n", "y ~ Beta(m .* (k * w), (1 - m) .* (k * w))\n"},
		{"scalar mean", "y ~ BetaProportion(inv_logit(b0), k)\n", "y ~ Beta(inv_logit(b0) * k, (1 - inv_logit(b0)) * k)\n"},
		{"logpdf", "target += sum(logpdf(y, BetaProportion(m, k)))\n", "target += sum(logpdf(y, Beta(m .* k, (1 - m) .* k)))\n"},
		{"logcdf", "target += sum(logcdf(y, BetaProportion(m, k)))\n", "target += sum(logcdf(y, Beta(m .* k, (1 - m) .* k)))\n"},
		{"logccdf", "target += sum(logccdf(y, BetaProportion(m, k)))\n", "target += sum(logccdf(y, Beta(m .* k, (1 - m) .* k)))\n"},
		{"truncated data", "y ~ BetaProportion(m, k) T[0.05, inv_logit(b1 + 3)]\n", "y ~ Beta(m .* k, (1 - m) .* k) T[0.05, inv_logit(b1 + 3)]\n"},
		{"prior", "param p: unit ~ BetaProportion(0.3, 10)\ny ~ BetaProportion(m, k)\n", "param p: unit ~ Beta(3, 7)\ny ~ BetaProportion(m, k)\n"},
		{"prior on [0, 1]", "param p: real<lower=0, upper=1> ~ BetaProportion(0.3, 10)\ny ~ BetaProportion(m, k)\n", "param p: real<lower=0, upper=1> ~ Beta(3, 7)\ny ~ BetaProportion(m, k)\n"},
		{"truncated prior", "param p: real<lower=0.1, upper=0.6> ~ BetaProportion(0.3, 10)\ny ~ BetaProportion(m, k)\n", "param p: real<lower=0.1, upper=0.6> ~ Beta(3, 7)\ny ~ BetaProportion(m, k)\n"},
	} {
		prop := compileSrc(t, "a.gpp", decls+c.prop, nil, in)
		beta := compileSrc(t, "b.gpp", decls+c.beta, nil, in)
		if strings.Contains(c.name, "prior") { // a fourth coordinate, started at the prior mean
			wantSameLogJointAt(t, c.name, prop, beta, [][]float64{{0.1, 0.4, -1.2, 0.4}, {-0.5, 0.9, 0.3, -1.1}})
			pl, bl := prop.Latents[len(prop.Latents)-1], beta.Latents[len(beta.Latents)-1]
			if pl.Name != "p" || len(pl.Init) != 1 || len(bl.Init) != 1 || pl.Init[0] != bl.Init[0] || pl.Support != bl.Support {
				t.Errorf("%s: latent %s init %v support %v, Beta's %v %v", c.name, pl.Name, pl.Init, pl.Support, bl.Init, bl.Support)
			}
			continue
		}
		wantSameLogJoint(t, "BetaProportion: "+c.name, prop, beta)
	}
}

// BetaProportion replicates (output y_rep ~ BetaProportion(mu, kappa)) have
// mean mu and variance mu(1 − mu)/(1 + kappa) per element, a mean per
// element and one precision, small and large.
func TestBetaProportionPredictive(t *testing.T) {
	m := compileSrc(t, "p.gpp", `param b: real
target += -b * b
output y_rep ~ BetaProportion(inv_logit(rep(b, 3) + [-1, 0, 1]), 2)
output z_rep ~ BetaProportion(inv_logit(rep(b, 2)), 300)
`, nil, data.Input{})
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	ev.SetRand(rand.New(rand.NewPCG(31, 1)))
	const b = 0.4
	var means, vars [][]float64
	for _, c := range []struct {
		etas  []float64
		kappa float64
	}{{[]float64{b - 1, b, b + 1}, 2}, {[]float64{b, b}, 300}} {
		var mu, v []float64
		for _, eta := range c.etas {
			p := 1 / (1 + math.Exp(-eta))
			mu, v = append(mu, p), append(v, p*(1-p)/(1+c.kappa))
		}
		means, vars = append(means, mu), append(vars, v)
	}
	checkReplicateMoments(t, ev, []float64{b}, 20000, []string{"y_rep", "z_rep"}, means, vars)
}

// BenchmarkBetaRegression times the log joint and gradient of a beta
// regression over 10⁴ observations, a mean inv_logit(b0 + b1 * x) per
// observation and one precision near 20, written with BetaProportion (its
// hoisted kernel) and with Beta's shapes (two elementwise products and the
// Beta kernel per observation, the only way before BetaProportion). ns per
// observation.
func BenchmarkBetaRegression(b *testing.B) {
	const n = 10000
	rng := rand.New(rand.NewPCG(3, 5))
	rows := make([][]float64, n)
	for i := range rows {
		x := rng.NormFloat64()
		mu := 1 / (1 + math.Exp(0.5-1.2*x))
		rows[i] = []float64{x, min(max(dist.BetaProportion{Mu: mu, Kappa: 20}.Rand(rng), 1e-9), 1-1e-9)}
	}
	in := data.Input{File: "d.csv", Table: csvTable(b, "d.csv", "x,y", rows)}
	const decls = "data x: real[N]\ndata y: real<lower=0, upper=1>[N]\nparam b0: real\nparam b1: real\nparam k: positive\nlet m = inv_logit(b0 + b1 * x)\n"
	z := []float64{-0.5, 1.2, math.Log(20)}
	for _, c := range []struct{ name, src string }{
		{"BetaProportion", "y ~ BetaProportion(m, k)\n"},
		{"Beta", "y ~ Beta(m .* k, (1 - m) .* k)\n"},
	} {
		m := compileSrc(b, "b.gpp", decls+c.src, nil, in)
		grad := make([]float64, m.Dim)
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := m.LogJoint(z, grad); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/obs")
		})
	}
}
