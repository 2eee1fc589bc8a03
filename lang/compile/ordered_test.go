package compile

import (
	"math"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
)

// An ordered[K] param's values are x_0 = u_0, x_k = x_{k−1} + exp(u_k)
// from its coordinates; the log joint is the iid prior at x plus log K!
// (scalar arguments) plus the OrderedLogistic likelihood, with no Jacobian;
// and its gradient matches finite differences.
func TestOrderedParam(t *testing.T) {
	const src = `data x: real[N]
data y: int[N]
param beta: real ~ Normal(0, 2)
param c: ordered[3] ~ Normal(0, 5)
y ~ OrderedLogistic(beta * x, c)
output cv = c
`
	xs := []float64{-1.2, 0.3, 0.8, 2.1, -0.4}
	ys := []float64{0, 1, 2, 3, 1}
	rows := make([][]float64, len(xs))
	for i := range xs {
		rows[i] = []float64{xs[i], ys[i]}
	}
	m := compileSrc(t, "ord.gpp", src, nil, data.Input{File: "d.csv", Table: csvTable(t, "d.csv", "x,y", rows)})
	if l := m.Latents[1]; l.Support != dist.Ordered || l.Size != 3 || l.Offset != 1 {
		t.Fatalf("latent c: %+v", l)
	}
	u := []float64{0.7, -0.5, math.Log(1.5), math.Log(0.25)} // beta, then c's coordinates
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	lp, outs, err := ev.Eval(u)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{-0.5, 1, 1.25}
	for k, v := range outs[0] {
		if math.Abs(v-want[k]) > 1e-15 {
			t.Errorf("c[%d] = %.17g, want %.17g", k, v, want[k])
		}
	}
	beta := u[0]
	ref := dist.Normal{Mu: 0, Sigma: 2}.LogProb(beta) + math.Log(6)
	for _, v := range want {
		ref += dist.Normal{Mu: 0, Sigma: 5}.LogProb(v)
	}
	for i := range xs {
		l, _ := dist.OrderedLogProb(int(ys[i]), beta*xs[i], want, false, nil)
		ref += l
	}
	if math.Abs(lp-ref) > 1e-12*math.Abs(ref) {
		t.Errorf("log joint %.17g, want %.17g", lp, ref)
	}
	checkGradient(t, m, 1, 1)
}

// With element-varying data arguments no normaliser is added.
func TestOrderedPriorVarying(t *testing.T) {
	const src = `param c: ordered[2] ~ Normal([0, 1], 5)
`
	m := compileSrc(t, "ord.gpp", src, nil)
	lp, err := m.LogJoint([]float64{0.5, 0}, make([]float64, 2))
	if err != nil {
		t.Fatal(err)
	}
	ref := dist.Normal{Mu: 0, Sigma: 5}.LogProb(0.5) + dist.Normal{Mu: 1, Sigma: 5}.LogProb(1.5)
	if math.Abs(lp-ref) > 1e-13 {
		t.Errorf("log joint %.17g, want %.17g (no normaliser)", lp, ref)
	}
}

// A ~ on an ordered or positive_ordered param whole is normalised as the
// declared prior is: log K! with scalar arguments, nothing with arguments
// per element. Before, the statement form left out log K!, and the two
// spellings of one model had ELBOs log 3! = 1.79 apart.
func TestOrderedTildeNormaliser(t *testing.T) {
	for _, c := range []struct{ name, declared, tilde string }{
		{"ordered", "param c: ordered[3] ~ Normal(0, 5)\n", "param c: ordered[3]\nc ~ Normal(0, 5)\n"},
		{"positive_ordered", "param c: positive_ordered[3] ~ Gamma(2, 1)\n", "param c: positive_ordered[3]\nc ~ Gamma(2, 1)\n"},
		{"varying", "param c: ordered[3] ~ Normal([0, 1, 2], 5)\n", "param c: ordered[3]\nc ~ Normal([0, 1, 2], 5)\n"},
	} {
		wantSameLogJoint(t, c.name, compileSrc(t, "a.gpp", c.tilde, nil), compileSrc(t, "b.gpp", c.declared, nil))
	}
	// and only on the param whole: elements get none, as in Stan
	plain := compileSrc(t, "c.gpp", "param c: ordered[3]\nc[0] ~ Normal(0, 5)\nc[1:3] ~ Normal(0, 5)\n", nil)
	whole := compileSrc(t, "d.gpp", "param c: ordered[3]\nc ~ Normal(0, 5)\n", nil)
	z := []float64{0.1, 0.4, -1.2}
	a, _ := plain.LogJoint(z, make([]float64, 3))
	b, _ := whole.LogJoint(z, make([]float64, 3))
	if d := b - a; math.Abs(d-math.Log(6)) > 1e-12 {
		t.Errorf("whole minus elementwise: %.17g, want log 3! = %.17g", d, math.Log(6))
	}
}
