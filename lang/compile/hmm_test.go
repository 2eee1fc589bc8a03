package compile

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/data"
)

// hmmOneStateTol bounds the difference of a one-state HMM's log joint
// and gradient from the iid model's, relative to max(1, |value|).
const hmmOneStateTol = 1e-12

// A hidden Markov model with one state (K = 1) is iid observations:
// hmm_marginal of logpdf(y, Normal(mu', sigma)) with mu real[1], a vector
// [N] (language.md §5, rule 4) read as log_omega [N, 1], has the log joint
// and gradient of sum(logpdf(y, Normal(mu, sigma))), and
// hmm_hidden_state_prob puts the one state at probability 1 in every row
// of its [N, 1]; the gradient also against finite differences.
func TestHMMOneState(t *testing.T) {
	const head = `data y: real[N]
param mu: real[1] ~ Normal(0, 3)
param sigma: positive ~ HalfNormal(2)
`
	hmm := head + `let lo = logpdf(y, Normal(mu', sigma))
target += hmm_marginal(lo, I(1), rep(1, 1))
output p = hmm_hidden_state_prob(lo, I(1), rep(1, 1))
`
	iid := head + "target += sum(logpdf(y, Normal(mu, sigma)))\n"
	rng := rand.New(rand.NewPCG(2026, 1))
	rows := make([][]float64, 40)
	for i := range rows {
		rows[i] = []float64{1.5 + 0.8*rng.NormFloat64()}
	}
	in := data.Input{File: "y.csv", Table: csvTable(t, "y.csv", "y", rows)}
	mh := compileSrc(t, "hmm1.gpp", hmm, nil, in)
	mi := compileSrc(t, "iid.gpp", iid, nil, in)
	if mh.Dim != mi.Dim {
		t.Fatalf("dimension %d with hmm_marginal, %d iid", mh.Dim, mi.Dim)
	}
	gh, gi := make([]float64, mh.Dim), make([]float64, mi.Dim)
	for _, x := range randomPoints(5, 4, mh.Dim) {
		lh, err := mh.LogJoint(x, gh)
		if err != nil {
			t.Fatal(err)
		}
		li, err := mi.LogJoint(x, gi)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(lh-li) > hmmOneStateTol*max(1, math.Abs(li)) {
			t.Errorf("at %v: log joint %.17g with hmm_marginal, %.17g iid", x, lh, li)
		}
		for k := range gh {
			if math.Abs(gh[k]-gi[k]) > hmmOneStateTol*max(1, math.Abs(gi[k])) {
				t.Errorf("at %v: gradient[%d] %.17g with hmm_marginal, %.17g iid", x, k, gh[k], gi[k])
			}
		}
	}
	checkGradient(t, mh, 11, 0.5)
	ev, err := mh.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	_, outs, err := ev.Eval(randomPoints(6, 1, mh.Dim)[0])
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(mh.Outputs[0].Shape); got != "[40 1]" {
		t.Fatalf("p has shape %s, want [40 1]", got)
	}
	for i, v := range outs[0] {
		if math.Abs(v-1) > hmmOneStateTol {
			t.Errorf("p[%d, 0] = %.17g, want 1", i, v)
		}
	}
}
