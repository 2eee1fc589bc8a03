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

// TestHMMLooLogLik checks the log_lik that docs/language.md (Hidden Markov
// models) gives for LOO of an HMM, -rowlogsumexp(log(ps) - lo) with ps =
// hmm_hidden_state_prob(lo, A, rho), against log p(y) − log p(y_−t) by
// enumerating every path of a T = 4, K = 2 model: since y_t is
// independent of the rest given z_t, p(y_−t) / p(y) = Σ_k p(z_t = k | y)
// / p(y_t | z_t = k).
func TestHMMLooLogLik(t *testing.T) {
	const src = `data y: real[N]
data A: simplex[2, 2]
data rho: simplex[2]
param mu: real[2] ~ Normal(0, 3)
param sigma: positive ~ HalfNormal(2)
let lo = logpdf(y, Normal(mu', sigma))
target += hmm_marginal(lo, A, rho)
let ps = hmm_hidden_state_prob(lo, A, rho)
output log_lik = -rowlogsumexp(log(ps) - lo)
output mixture = rowlogsumexp(lo + log(ps))
output lo_out = lo
`
	const n, k = 4, 2
	ys := []float64{-0.7, 1.9, 0.4, 2.6}
	rows := make([][]float64, n)
	for i, v := range ys {
		rows[i] = []float64{v}
	}
	gamma, rho := []float64{0.85, 0.15, 0.3, 0.7}, []float64{0.6, 0.4}
	ar := map[string]*data.Array{"A": {Name: "A", Shape: []int{k, k}, Values: gamma}, "rho": {Name: "rho", Shape: []int{k}, Values: rho}}
	m := compileSrc(t, "loo.gpp", src, nil, data.Input{File: "y.csv", Table: csvTable(t, "y.csv", "y", rows)}, data.Input{File: "ar.json", JSON: ar})
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range randomPoints(7, 3, m.Dim) {
		_, outs, err := ev.Eval(x)
		if err != nil {
			t.Fatal(err)
		}
		ll, mix, lo := outs[0], outs[1], outs[2]
		// logp(skip) is log Σ over paths of p(z, y), leaving out y_skip's term
		logp := func(skip int) float64 {
			terms := make([]float64, 0, 1<<n)
			for path := range 1 << n {
				z := func(t int) int { return path >> t & 1 }
				s := math.Log(rho[z(0)])
				for t := range n {
					if t > 0 {
						s += math.Log(gamma[z(t-1)*k+z(t)])
					}
					if t != skip {
						s += lo[t*k+z(t)]
					}
				}
				terms = append(terms, s)
			}
			return logSumExpRef(terms)
		}
		all := logp(-1)
		for tt := range n {
			want := all - logp(tt)
			if math.Abs(ll[tt]-want) > 1e-12*max(1, math.Abs(want)) {
				t.Errorf("at %v: log_lik[%d] = %.17g, want log p(y) − log p(y_−t) = %.17g", x, tt, ll[tt], want)
			}
			if math.Abs(mix[tt]-want) < 1e-6 { // the mixture form counts y_t twice
				t.Errorf("at %v: the mixture form rowlogsumexp(lo + log(ps)) gives %.17g = log p(y_t | y_−t)", x, mix[tt])
			}
		}
	}
}

// logSumExpRef is log Σ exp(x), for the tests' brute-force sums.
func logSumExpRef(x []float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = max(m, v)
	}
	s := 0.0
	for _, v := range x {
		s += math.Exp(v - m)
	}
	return m + math.Log(s)
}
