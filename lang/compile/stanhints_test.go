package compile

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// The form the checker gives for Stan's neg_binomial(alpha, beta),
// NegBinomial(alpha / beta, alpha), is Stan's density: C(y + alpha − 1,
// y) (beta / (1 + beta))^alpha (1 + beta)^−y written out, log joint and
// gradient, so the hint is an exact equivalent, not a rename.
func TestStanNegBinomialHintForm(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"y": [0, 3, 1, 40, 7]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: js}
	const head = "data y: int<lower=0>[5]\nparam la: real\nparam lb: real\nparam c: real ~ Normal(0, 1)\nlet alpha = exp(la)\nlet beta = exp(lb)\n"
	hint := compileSrc(t, "hint.gpp", head+"y ~ NegBinomial(alpha / beta, alpha)\n", nil, in)
	stan := compileSrc(t, "stan.gpp", head+"target += sum(lchoose(y + alpha - 1, y) + alpha * log(beta / (1 + beta)) - y * log1p(beta))\n", nil, in)
	wantSameLogJoint(t, "neg_binomial(alpha, beta)", hint, stan)
}
