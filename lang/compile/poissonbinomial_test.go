package compile

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
)

// pbTol bounds the log joint of PoissonBinomial against its references,
// relative to max(1, |value|).
const pbTol = 1e-12

// PoissonBinomial(theta) in the log joint is dist.PoissonBinomial summed
// over the counts, theta = inv_logit(a) shared (a vector or a row) or
// inv_logit(A) a row per count, for a scalar count, in a loop over the
// counts, and as logpdf, logcdf and logccdf per count; with all
// probabilities equal it is Binomial(N, p)'s. The gradient matches finite
// differences and a step allocates nothing.
func TestPoissonBinomial(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"y": [0, 2, 4, 1], "c": 3}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: js}
	y := []int{0, 2, 4, 1}
	const decls = "data y: int[4]\ndata c: int\nparam a: real[4]\nparam A: real[4, 4]\nparam b: real\n"
	inv := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	theta := func(x []float64, off int) []float64 {
		th := make([]float64, 4)
		for j := range th {
			th[j] = inv(x[off+j])
		}
		return th
	}
	shared := func(f func(d dist.PoissonBinomial, y float64) float64, ys []int) func(x []float64) float64 {
		return func(x []float64) float64 {
			s := 0.0
			for _, v := range ys {
				s += f(dist.PoissonBinomial{Theta: theta(x, 0)}, float64(v))
			}
			return s
		}
	}
	perRow := func(x []float64) float64 {
		s := 0.0
		for i, v := range y {
			s += dist.PoissonBinomial{Theta: theta(x, 4+4*i)}.LogProb(float64(v))
		}
		return s
	}
	binom := func(x []float64) float64 { // Binomial(4, inv_logit(b)), b the last coordinate
		p := inv(x[len(x)-1])
		s := 0.0
		for _, v := range y {
			lc, _ := math.Lgamma(5)
			l1, _ := math.Lgamma(float64(v) + 1)
			l2, _ := math.Lgamma(float64(4-v) + 1)
			s += lc - l1 - l2 + float64(v)*math.Log(p) + float64(4-v)*math.Log1p(-p)
		}
		return s
	}
	lp := dist.PoissonBinomial.LogProb
	for _, c := range []struct {
		name, src string
		want      func(x []float64) float64
	}{
		{"shared vector", "y ~ PoissonBinomial(inv_logit(a))\n", shared(lp, y)},
		{"shared row", "y ~ PoissonBinomial(inv_logit(a'))\n", shared(lp, y)},
		{"a row each", "y ~ PoissonBinomial(inv_logit(A))\n", perRow},
		{"scalar count", "c ~ PoissonBinomial(inv_logit(a))\n", shared(lp, []int{3})},
		{"a loop", "for i in 0:4 {\n  y[i] ~ PoissonBinomial(inv_logit(A[i]))\n}\n", perRow},
		{"logpdf", "target += sum(logpdf(y, PoissonBinomial(inv_logit(A))))\n", perRow},
		{"logcdf", "target += sum(logcdf(y, PoissonBinomial(inv_logit(a))))\n", shared(dist.PoissonBinomial.LogCDF, y)},
		{"logccdf", "target += logccdf(c, PoissonBinomial(inv_logit(a)))\n", shared(dist.PoissonBinomial.LogCCDF, []int{3})},
		{"equal probabilities are Binomial", "y ~ PoissonBinomial(rep(inv_logit(b), 4))\n", binom},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkLogJoint(t, compileSrc(t, "pb.gpp", decls+c.src, nil, in), c.want, "reference", pbTol, 1.5)
		})
	}
	// logpdf keeps a term per count: [4] of y [4], a scalar of c
	m := compileSrc(t, "pb.gpp", decls+"output lp = logpdf(y, PoissonBinomial(inv_logit(A)))\noutput lc = logccdf(c, PoissonBinomial(inv_logit(a)))\noutput r ~ PoissonBinomial(inv_logit(A))\noutput r1 ~ PoissonBinomial(inv_logit(a))\n", nil, in)
	for i, want := range []string{"[4]", "[]", "[4]", "[]"} {
		if got := fmt.Sprint(m.Outputs[i].Shape); got != want {
			t.Errorf("%s: shape %s, want %s", m.Outputs[i].Name, got, want)
		}
	}
}

// PoissonBinomial replicates: a draw per row of theta, with mean Σθ and
// variance Σθ(1 − θ) over 40 000 draws (within 5 standard errors, the
// variance's by the normal approximation, which a bounded count's lighter
// tails keep conservative).
func TestPredictivePoissonBinomial(t *testing.T) {
	m := compileSrc(t, "pb.gpp", `param a: real ~ Normal(0, 1)
output r ~ PoissonBinomial(append_row([0.1, 0.5, 0.9, 0.3]', [0.99, 0.01, 0.5, 0.5]'))
`, nil)
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	ev.SetRand(rand.New(rand.NewPCG(8, 1)))
	const draws = 40000
	var s, ss [2]float64
	for range draws {
		_, outs, err := ev.Eval([]float64{0})
		if err == nil {
			err = ev.OutputErr()
		}
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range outs[0] {
			s[i] += v
			ss[i] += v * v
		}
	}
	for i, th := range [][]float64{{0.1, 0.5, 0.9, 0.3}, {0.99, 0.01, 0.5, 0.5}} {
		mean, vr := 0.0, 0.0
		for _, p := range th {
			mean += p
			vr += p * (1 - p)
		}
		gm := s[i] / draws
		gv := ss[i]/draws - gm*gm
		if math.Abs(gm-mean) > 5*math.Sqrt(vr/draws) {
			t.Errorf("row %d: mean %.4f, want %.4f", i, gm, mean)
		}
		if math.Abs(gv-vr) > 5*vr*math.Sqrt(2.0/draws) {
			t.Errorf("row %d: variance %.4f, want %.4f", i, gv, vr)
		}
	}
}

// A count of data above the number of trials is an error at its data
// cell, naming the ~ and N, when the model compiles.
func TestPoissonBinomialDataError(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"y": [0, 5, 2]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = compileSrcErr(t, "pb.gpp", "data y: int[3]\nparam a: real[4] ~ Normal(0, 1)\ny ~ PoissonBinomial(inv_logit(a))\n", nil, data.Input{File: "d.json", JSON: js})
	const want = "d.json:1:11: y: value 5 is not a count of successes 0..4, as PoissonBinomial at pb.gpp:3:5 needs (theta has 4 trials)"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// BenchmarkPoissonBinomial times a log joint and gradient of 1000 counts
// of 50 trials, theta shared by all counts (one forward pass, a backward
// pass per distinct count) or a row of theta [1000, 50] per count: the
// figures docs/language.md quotes.
func BenchmarkPoissonBinomial(b *testing.B) {
	rng := rand.New(rand.NewPCG(4, 9))
	var sb strings.Builder
	sb.WriteString(`{"y": [`)
	for i := range 1000 {
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprint(&sb, rng.IntN(51))
	}
	sb.WriteString(`]}`)
	js, err := data.ReadJSON("d.json", strings.NewReader(sb.String()))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, src string }{
		{"shared", "param a: real[50] ~ Normal(0, 1)\ny ~ PoissonBinomial(inv_logit(a))\n"},
		{"row each", "param A: real[1000, 50] ~ Normal(0, 1)\ny ~ PoissonBinomial(inv_logit(A))\n"},
	} {
		b.Run(c.name, func(b *testing.B) {
			m := compileSrc(b, "pb.gpp", "data y: int[1000]\n"+c.src, nil, data.Input{File: "d.json", JSON: js})
			x, g := make([]float64, m.Dim), make([]float64, m.Dim)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.LogJoint(x, g); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
