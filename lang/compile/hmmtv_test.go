package compile

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/data"
)

// A time-varying Gamma through the language: the [N − 1, 4] that
// append_col builds from per-step probabilities (inv_logit of a covariate
// of the step arrived at) passes the checker and compiles, and
// hmm_marginal's value is the forward algorithm run with that step's
// matrix, written here apart in log space from the outputs' params; the
// log joint's gradient against finite differences.
func TestHMMTimeVaryingCompiled(t *testing.T) {
	const src = `data y: real[N]
data x: real[N]
param mu: ordered[2] ~ Normal(0, 3)
param a: real[2] ~ Normal(0, 1.5)
param b: real[2] ~ Normal(0, 1)
let p01 = inv_logit(a[0] + b[0] * x[1:N])
let p10 = inv_logit(a[1] + b[1] * x[1:N])
let G = append_col(append_col(1 - p01, p01), append_col(p10, 1 - p10))
let lo = logpdf(y, Normal(mu', 1))
target += hmm_marginal(lo, G, rep(0.5, 2))
output lp = hmm_marginal(lo, G, rep(0.5, 2))
output m = mu
output aa = a
output bb = b
`
	rng := rand.New(rand.NewPCG(2026, 7))
	rows := make([][]float64, 30)
	for i := range rows {
		rows[i] = []float64{2*rng.Float64() - 1 + 1.5*float64(i%5/3), math.Cos(float64(i) / 3)}
	}
	m := compileSrc(t, "hmmtv.gpp", src, nil, data.Input{File: "d.csv", Table: csvTable(t, "d.csv", "y,x", rows)})
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	lse := func(u, v float64) float64 { return math.Max(u, v) + math.Log1p(math.Exp(-math.Abs(u-v))) }
	for _, x := range randomPoints(3, 4, m.Dim) {
		_, outs, err := ev.Eval(x)
		if err != nil {
			t.Fatal(err)
		}
		mu, a, b, rho := outs[1], outs[2], outs[3], []float64{0.5, 0.5}
		le := func(v float64, k int) float64 { return -0.5*(v-mu[k])*(v-mu[k]) - 0.5*math.Log(2*math.Pi) }
		l0, l1 := math.Log(rho[0])+le(rows[0][0], 0), math.Log(rho[1])+le(rows[0][0], 1)
		for t := 1; t < len(rows); t++ {
			xt := rows[t][1]
			p01 := 1 / (1 + math.Exp(-(a[0] + b[0]*xt)))
			p10 := 1 / (1 + math.Exp(-(a[1] + b[1]*xt)))
			l0, l1 = lse(l0+math.Log1p(-p01), l1+math.Log(p10))+le(rows[t][0], 0), lse(l0+math.Log(p01), l1+math.Log1p(-p10))+le(rows[t][0], 1)
		}
		if want := lse(l0, l1); math.Abs(outs[0][0]-want) > 1e-10*max(1, math.Abs(want)) {
			t.Errorf("at %v: hmm_marginal %.15g, forward algorithm %.15g", x, outs[0][0], want)
		}
	}
	checkGradient(t, m, 13, 0.5)
}
