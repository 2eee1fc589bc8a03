package compile

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// Multinomial(theta) through the compiled model is its log mass written
// out, lgamma(m + 1) − Σ lgamma(y + 1) + Σ y .* log(theta) per row of
// counts of total m, in log joint and gradient: one vector of counts, rows
// of counts under a shared simplex, rows under a simplex each (data); and
// MultinomialLogit(eta) is Multinomial(softmax(eta)).
func TestMultinomialIsWrittenOut(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"y": [3, 0, 5], "Y": [[1, 2, 3], [0, 0, 4]], "P": [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: js}
	const simplex = "data y: int<lower=0>[3]\ndata Y: int<lower=0>[2, 3]\ndata P: simplex[2, 3]\nparam theta: simplex[3]\n"
	const logit = "data y: int<lower=0>[3]\ndata Y: int<lower=0>[2, 3]\ndata P: simplex[2, 3]\nparam eta: real[3]\n"
	for _, c := range []struct{ name, decls, m, ref string }{
		{"vector", simplex, "y ~ Multinomial(theta)\n",
			"target += lgamma(sum(y) + 1) - sum(lgamma(y + 1)) + sum(y .* log(theta))\n"},
		{"rows, shared theta", simplex, "Y ~ Multinomial(theta)\n",
			"target += sum(lgamma(Y * rep(1, 3) + 1)) - sum(lgamma(Y + 1)) + sum(Y .* (rep(1, 2) * log(theta)'))\n"},
		{"rows, a theta each", simplex, "Y ~ Multinomial(P)\ny ~ Multinomial(theta)\n",
			"target += sum(lgamma(Y * rep(1, 3) + 1)) - sum(lgamma(Y + 1)) + sum(Y .* log(P))\ny ~ Multinomial(theta)\n"},
		{"logit, vector", logit, "y ~ MultinomialLogit(eta)\n", "y ~ Multinomial(softmax(eta))\n"},
		{"logit, rows", logit, "Y ~ MultinomialLogit(eta)\n", "Y ~ Multinomial(softmax(eta))\n"},
	} {
		a := compileSrc(t, "a.gpp", c.decls+c.m, nil, in)
		b := compileSrc(t, "b.gpp", c.decls+c.ref, nil, in)
		wantSameLogJoint(t, "Multinomial: "+c.name, a, b)
	}
}
