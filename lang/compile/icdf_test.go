package compile

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// TestICDFNode checks icdf through the compiled model: each family's
// quantile against the same quantile written out with other built-ins,
// in value and gradient, with p data or a param, broadcasting in either
// position and in a loop.
func TestICDFNode(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"p": [0.01, 0.5, 0.99865]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: js}
	const decls = "data p: real[3]\nparam a: positive\nparam s: positive\nparam c: real\n"
	sq := func(e string) string { return "target += -0.5 * sum((" + e + " - 1) .* (" + e + " - 1))\n" }
	for _, cs := range []plainCase{
		{"Normal", sq("icdf(p, Normal(c, s))"), sq("(c + s * inv_Phi(p))")},
		{"LogNormal", sq("icdf(p, LogNormal(c, s))"), sq("exp(c + s * inv_Phi(p))")},
		{"Exponential, rate per element", sq("icdf(p, Exponential(a * [1, 2, 3]))"), sq("(-log1m(p) / (a * [1, 2, 3]))")},
		{"Gamma with shape 1 is Exponential", sq("icdf(p, Gamma(1, a))"), sq("(-log1m(p) / a)")},
		{"Weibull", sq("icdf(p, Weibull(a, s))"), sq("(s * pow(-log1m(p), 1 / a))")},
		{"Uniform", sq("icdf(p, Uniform(c, c + s))"), sq("(c + s * p)")},
		{"Logistic", sq("icdf(p, Logistic(c, s))"), sq("(c + s * logit(p))")},
		{"Cauchy", sq("icdf(p, Cauchy(c, s))"), sq("(c + s * tan(3.141592653589793 * (p - 0.5)))")},
		{"StudentT with one degree of freedom is Cauchy", sq("icdf(p, StudentT(1, c, s))"), sq("icdf(p, Cauchy(c, s))")},
		{"Gumbel", sq("icdf(p, Gumbel(c, s))"), sq("(c - s * log(-log(p)))")},
		{"p a param", "target += icdf(inv_logit(c), Normal(a, s))\n", "target += a + s * inv_Phi(inv_logit(c))\n"},
		{"a column p against row arguments", "target += -0.01 * sum(icdf(p, Normal([c, a]', s)))\n",
			"target += -0.01 * (sum(c + s * inv_Phi(p)) + sum(a + s * inv_Phi(p)))\n"},
		{"in a loop", "for i in 0:3 {\n  target += -0.5 * (icdf(p[i], Logistic(c, s)) - 1) ^ 2\n}\n", sq("(c + s * logit(p))")},
	} {
		wantSamePlain(t, decls, in, nil, cs)
	}
	// p outside [0, 1] at fit time (data), and a quantile that is not finite
	js, err = data.ReadJSON("e.json", strings.NewReader(`{"p": [0.5, 1.5, 0]}`))
	if err != nil {
		t.Fatal(err)
	}
	wantFitErrors(t, "a.gpp", "data p: real[3]\nparam c: real\n", data.Input{File: "e.json", JSON: js}, []srcWant{
		{"target += icdf(p[1], Normal(c, 1))\n", `a.gpp:3:11: icdf(Normal): p = 1.5 is outside [0, 1] (mu 0, sigma 1); the value is p's at e.json:1:13`},
		{"target += icdf(p[2], Normal(c, 1))\n", `a.gpp:3:11: icdf(Normal): the quantile at p = 0 is -Inf, the end of Normal's support (the outputs and the log density hold finite values only) (mu 0, sigma 1); the value is p's at e.json:1:18`},
	})
}
