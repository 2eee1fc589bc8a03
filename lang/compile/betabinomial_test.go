package compile

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// BetaBinomial(n, a, b) through the compiled model is its log mass written
// out, lchoose(n, y) + lbeta(y + a, n − y + b) − lbeta(a, b), in log joint
// and gradient: shapes per observation and scalar, in logpdf; its logcdf
// and logccdf are the masses of their tails summed by logsumexp; data
// truncated above is the mass over the log CDF at the bound.
func TestBetaBinomialIsWrittenOut(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"x": [-1.2, 0.3, 0.8, 2.1], "y": [0, 3, 2, 17], "n": [4, 5, 2, 30]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: js}
	const decls = "data x: real[4]\ndata y: int<lower=0>[4]\ndata n: int<lower=0>[4]\nparam b0: real\nparam b1: real\nparam kappa: positive\nlet mu = inv_logit(b0 + b1 * x)\n"
	for _, c := range []struct{ name, bb, ref string }{
		{"shapes per observation", "y ~ BetaBinomial(n, mu * kappa, (1 - mu) * kappa)\n",
			"target += sum(lchoose(n, y) + lbeta(y + mu * kappa, n - y + (1 - mu) * kappa) - lbeta(mu * kappa, (1 - mu) * kappa))\n"},
		{"scalar shapes", "y ~ BetaBinomial(n, exp(b0), kappa)\n",
			"target += sum(lchoose(n, y) + lbeta(y + exp(b0), n - y + kappa) - lbeta(exp(b0), kappa))\n"},
		{"logpdf", "target += sum(logpdf(y, BetaBinomial(n, mu * kappa, (1 - mu) * kappa)))\n",
			"target += sum(lchoose(n, y) + lbeta(y + mu * kappa, n - y + (1 - mu) * kappa) - lbeta(mu * kappa, (1 - mu) * kappa))\n"},
		{"logcdf", "target += logcdf(y[1], BetaBinomial(n[1], exp(b0), kappa))\n",
			"target += logsumexp(logpdf([0, 1, 2, 3], BetaBinomial(n[1], exp(b0), kappa)))\n"},
		{"logccdf", "target += logccdf(y[1], BetaBinomial(n[1], exp(b0), kappa))\n",
			"target += logsumexp(logpdf([4, 5], BetaBinomial(n[1], exp(b0), kappa)))\n"},
		{"truncated data", "y[1] ~ BetaBinomial(n[1], exp(b0), kappa) T[, 4]\n",
			"y[1] ~ BetaBinomial(n[1], exp(b0), kappa)\ntarget += -logsumexp(logpdf([0, 1, 2, 3, 4], BetaBinomial(n[1], exp(b0), kappa)))\n"},
	} {
		a := compileSrc(t, "a.gpp", decls+c.bb, nil, in)
		b := compileSrc(t, "b.gpp", decls+c.ref, nil, in)
		wantSameLogJoint(t, "BetaBinomial: "+c.name, a, b)
	}
}

// BetaBinomial replicates (output y_rep ~ BetaBinomial(n, a, b)) have mean
// n·a/(a+b) and variance n·a·b·(a+b+n)/((a+b)²(a+b+1)) per element.
func TestBetaBinomialPredictive(t *testing.T) {
	m := compileSrc(t, "p.gpp", `param b: real
target += -b * b
output y_rep ~ BetaBinomial([3, 10, 40], exp(rep(b, 3)), 2)
`, nil, data.Input{})
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	ev.SetRand(rand.New(rand.NewPCG(31, 3)))
	const b = 0.4
	var mu, v []float64
	a := 1.4918246976412703 // exp(0.4)
	for _, n := range []float64{3, 10, 40} {
		s := a + 2
		mu, v = append(mu, n*a/s), append(v, n*a*2*(s+n)/(s*s*(s+1)))
	}
	checkReplicateMoments(t, ev, []float64{b}, 20000, []string{"y_rep"}, [][]float64{mu}, [][]float64{v})
}
