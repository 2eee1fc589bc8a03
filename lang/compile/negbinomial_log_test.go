package compile

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// NegBinomialLog(eta, phi) through the compiled model is NegBinomial(exp(eta),
// phi) and the log mass written out with softplus, in log joint and
// gradient: as a likelihood with a linear predictor per observation and a
// scalar dispersion (the hoisted path), a dispersion per observation (the
// kernel's), a scalar predictor, in logpdf, logcdf and logccdf, and as data
// truncated above.
func TestNegBinomialLogIsNegBinomial(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"x": [-1.2, 0.3, 0.8, 2.1], "y": [0, 3, 2, 17], "w": [1, 2, 0.5, 3]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: js}
	const decls = "data x: real[4]\ndata y: int<lower=0>[4]\ndata w: positive[4]\nparam b0: real\nparam b1: real\nparam phi: positive\nlet eta = b0 + b1 * x\n"
	const written = "target += sum(lgamma(y + phi) - lgamma(y + 1) - lgamma(phi) - y .* softplus(log(phi) - eta) - phi * softplus(eta - log(phi)))\n"
	for _, c := range []struct{ name, log, ref string }{
		{"likelihood, scalar dispersion", "y ~ NegBinomialLog(eta, phi)\n", "y ~ NegBinomial(exp(eta), phi)\n"},
		{"written out", "y ~ NegBinomialLog(eta, phi)\n", written},
		{"dispersion per observation", "y ~ NegBinomialLog(eta, phi * w)\n", "y ~ NegBinomial(exp(eta), phi * w)\n"},
		{"scalar predictor", "y ~ NegBinomialLog(b0, phi)\n", "y ~ NegBinomial(exp(b0), phi)\n"},
		{"logpdf", "target += sum(logpdf(y, NegBinomialLog(eta, phi)))\n", "target += sum(logpdf(y, NegBinomial(exp(eta), phi)))\n"},
		{"logcdf", "target += sum(logcdf(y, NegBinomialLog(eta, phi)))\n", "target += sum(logcdf(y, NegBinomial(exp(eta), phi)))\n"},
		{"logccdf", "target += sum(logccdf(y, NegBinomialLog(eta, phi)))\n", "target += sum(logccdf(y, NegBinomial(exp(eta), phi)))\n"},
		{"truncated data", "y ~ NegBinomialLog(eta, phi) T[, 40]\n", "y ~ NegBinomial(exp(eta), phi) T[, 40]\n"},
	} {
		a := compileSrc(t, "a.gpp", decls+c.log, nil, in)
		b := compileSrc(t, "b.gpp", decls+c.ref, nil, in)
		wantSameLogJoint(t, "NegBinomialLog: "+c.name, a, b)
	}
}

// NegBinomialLog replicates (output y_rep ~ NegBinomialLog(eta, phi)) have
// mean exp(eta) and variance mu + mu²/phi per element.
func TestNegBinomialLogPredictive(t *testing.T) {
	m := compileSrc(t, "p.gpp", `param b: real
target += -b * b
output y_rep ~ NegBinomialLog(rep(b, 3) + [-1, 0, 1], 2)
output z_rep ~ NegBinomialLog(rep(b, 2) + 2, 50)
`, nil, data.Input{})
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	ev.SetRand(rand.New(rand.NewPCG(31, 2)))
	const b = 0.4
	var means, vars [][]float64
	for _, c := range []struct {
		etas []float64
		phi  float64
	}{{[]float64{b - 1, b, b + 1}, 2}, {[]float64{b + 2, b + 2}, 50}} {
		var mu, v []float64
		for _, eta := range c.etas {
			m := math.Exp(eta)
			mu, v = append(mu, m), append(v, m+m*m/c.phi)
		}
		means, vars = append(means, mu), append(vars, v)
	}
	checkReplicateMoments(t, ev, []float64{b}, 20000, []string{"y_rep", "z_rep"}, means, vars)
}
