package compile

import (
	"math"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
)

// A positive_ordered[K] param's values are x_0 = exp(u_0), x_k = x_{k−1} +
// exp(u_k) from its coordinates; the log joint is the iid prior at x plus
// log K! (scalar arguments) with no Jacobian, and its gradient matches
// finite differences.
func TestPositiveOrderedParam(t *testing.T) {
	const src = `data y: int[N]
param lambda: positive_ordered[3] ~ Gamma(2, 0.5)
y ~ Poisson(lambda[2])
output lv = lambda
`
	ys := []float64{3, 5, 2, 4}
	rows := make([][]float64, len(ys))
	for i := range ys {
		rows[i] = []float64{ys[i]}
	}
	m := compileSrc(t, "po.gpp", src, nil, data.Input{File: "d.csv", Table: csvTable(t, "d.csv", "y", rows)})
	if l := m.Latents[0]; l.Support != dist.PositiveOrdered || l.Size != 3 || l.Family != "gamma" {
		t.Fatalf("latent lambda: %+v", l)
	}
	u := []float64{math.Log(1.5), math.Log(0.25), math.Log(2)}
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	lp, outs, err := ev.Eval(u)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1.5, 1.75, 3.75}
	for k, v := range outs[0] {
		if math.Abs(v-want[k]) > 1e-15 {
			t.Errorf("lambda[%d] = %.17g, want %.17g", k, v, want[k])
		}
	}
	ref := math.Log(6)
	for _, v := range want {
		ref += dist.Gamma{Shape: 2, Rate: 0.5}.LogProb(v)
	}
	for _, y := range ys {
		ref += dist.Poisson{Rate: want[2]}.LogProb(y)
	}
	if math.Abs(lp-ref) > 1e-12*math.Abs(ref) {
		t.Errorf("log joint %.17g, want %.17g", lp, ref)
	}
	checkGradient(t, m, 1, 1)
}

// A prior wider than the positive half line is normalised there as a
// positive param's is, and then by log K!: a Normal centred at 0 by
// K·log 2 (mass ½ per element), another from its constant arguments.
// Arguments that vary with data get no normaliser of the order.
func TestPositiveOrderedPriors(t *testing.T) {
	u := []float64{math.Log(0.5), math.Log(1.5)}
	x := []float64{0.5, 2}
	for _, c := range []struct {
		prior string
		ref   func() float64
	}{
		{"Normal(0, 2)", func() float64 {
			return dist.Normal{Mu: 0, Sigma: 2}.LogProb(x[0]) + dist.Normal{Mu: 0, Sigma: 2}.LogProb(x[1]) + 2*math.Ln2 + math.Log(2)
		}},
		{"Normal(1, 5)", func() float64 {
			logP := dist.NormalLogSurvival((0 - 1) / 5.0) // P(x > 0) per element
			return dist.Normal{Mu: 1, Sigma: 5}.LogProb(x[0]) + dist.Normal{Mu: 1, Sigma: 5}.LogProb(x[1]) - 2*logP + math.Log(2)
		}},
		{"Gamma(2, 1)\nc[0] ~ Normal(0, 3)", func() float64 { // a ~ on an element truncates that ~ alone
			return dist.Gamma{Shape: 2, Rate: 1}.LogProb(x[0]) + dist.Gamma{Shape: 2, Rate: 1}.LogProb(x[1]) + math.Log(2) +
				dist.Normal{Mu: 0, Sigma: 3}.LogProb(x[0]) + math.Ln2
		}},
		{"Exponential([1, 0.5])", func() float64 {
			return dist.Exponential{Rate: 1}.LogProb(x[0]) + dist.Exponential{Rate: 0.5}.LogProb(x[1])
		}},
	} {
		m := compileSrc(t, "po.gpp", "param c: positive_ordered[2] ~ "+c.prior+"\n", nil)
		lp, err := m.LogJoint(u, make([]float64, 2))
		if err != nil {
			t.Fatal(err)
		}
		if ref := c.ref(); math.Abs(lp-ref) > 1e-13*math.Max(1, math.Abs(ref)) {
			t.Errorf("%s: log joint %.17g, want %.17g", c.prior, lp, ref)
		}
	}
}

// x_0 stays positive where exp(u_0) underflows, and every element stays
// above the one before it where an increment is below an ulp of it.
func TestPositiveOrderedExtremes(t *testing.T) {
	x := make([]float64, 3)
	dist.PositiveOrderedValues(x, []float64{-800, -900, 40})
	if !(x[0] > 0 && x[1] > x[0] && x[2] > x[1]) {
		t.Errorf("values %v: not positive and increasing", x)
	}
	u := []float64{3, -60, 1}
	dist.PositiveOrderedValues(u, u) // in place
	if want := math.Exp(3); !(u[0] == want && u[1] > u[0] && u[2] > u[1]) {
		t.Errorf("in place: %v", u)
	}
}
