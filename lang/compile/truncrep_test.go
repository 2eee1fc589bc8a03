package compile

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
)

// truncRepKS is the Kolmogorov–Smirnov critical value at the 0.1 % level
// for n draws.
func truncRepKS(n int) float64 { return 1.95 / math.Sqrt(float64(n)) }

// normalTruncKS returns the KS statistic of draws xs against Normal(mu,
// sigma) truncated to [lo, hi], its CDF from dist's log survival function
// (S(lo) − S(x)) / (S(lo) − S(hi)), which keeps its digits in the upper
// tail and wherever the interval's mass is not tiny.
func normalTruncKS(xs []float64, mu, sigma, lo, hi float64) float64 {
	sf, _ := dist.LogCDF("Normal", true)
	p, dp := []float64{mu, sigma}, make([]float64, 2)
	slo, _ := sf(lo, p, dp)
	shi, _ := sf(hi, p, dp)
	xs = slices.Clone(xs)
	slices.Sort(xs)
	n := float64(len(xs))
	d := 0.0
	for k, x := range xs {
		sx, _ := sf(x, p, dp)
		f := -math.Expm1(sx-slo) / -math.Expm1(shi-slo)
		d = max(d, math.Abs(f-float64(k)/n), math.Abs(f-float64(k+1)/n))
	}
	return d
}

// TestTruncatedReplicates: output y ~ D(args) T[L, U] draws from D
// truncated to [L, U], each element to its own bounds (data, expressions
// of params, one end open), far in a tail too: every draw lies in its
// interval, the far-tail Normal and a two-sided one pass a KS test against
// the truncated CDF, a truncated Poisson has its truncated mean, and a
// seed repeats the draws.
func TestTruncatedReplicates(t *testing.T) {
	x := &data.Array{Name: "x", Shape: []int{3}, Values: []float64{-1, 0, 1.5}}
	lo := &data.Array{Name: "lo", Shape: []int{3}, Values: []float64{-2, 0.5, 1}}
	in := data.Input{File: "d.json", JSON: map[string]*data.Array{"x": x, "lo": lo}}
	src := `data x: real[N]
data lo: real[N]
param b: real
param s: positive
target += -b * b - s
output far ~ Normal(b, 1) T[b + 8, ]
output each ~ Normal(x, s) T[lo, lo + 0.25]
output low ~ Gamma(2, 1) T[, 0.5]
output cnt ~ Poisson(exp(b)) T[2, 5]
output cnts ~ Poisson(exp(b * x)) T[1, ]
`
	m := compileSrc(t, "p.gpp", src, nil, in)
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	b, s := 0.7, 2.0
	coords := []float64{b, math.Log(s)}
	const n = 4000
	draw := func(seed uint64) [][][]float64 {
		ev.SetRand(rand.New(rand.NewPCG(seed, 85)))
		all := make([][][]float64, n)
		for i := range all {
			_, outs, err := ev.Eval(coords)
			if err != nil || ev.OutputErr() != nil {
				t.Fatalf("draw %d: %v, %v", i, err, ev.OutputErr())
			}
			for _, o := range outs {
				all[i] = append(all[i], slices.Clone(o))
			}
		}
		return all
	}
	all := draw(1)
	col := func(o, k int) []float64 {
		v := make([]float64, n)
		for i := range all {
			v[i] = all[i][o][k]
		}
		return v
	}
	inside := func(name string, xs []float64, l, u float64, integer bool) {
		t.Helper()
		for _, v := range xs {
			if !(v >= l && v <= u) || integer && v != math.Trunc(v) {
				t.Fatalf("%s: draw %g outside [%g, %g]", name, v, l, u)
			}
		}
	}
	far := col(0, 0)
	inside("far", far, b+8, math.Inf(1), false)
	if d := normalTruncKS(far, b, 1, b+8, math.Inf(1)); d > truncRepKS(n) {
		t.Errorf("far: KS %.4f > %.4f", d, truncRepKS(n))
	}
	for k := range 3 {
		xs := col(1, k)
		inside("each", xs, lo.Values[k], lo.Values[k]+0.25, false)
		if d := normalTruncKS(xs, x.Values[k], s, lo.Values[k], lo.Values[k]+0.25); d > truncRepKS(n) {
			t.Errorf("each[%d]: KS %.4f > %.4f", k, d, truncRepKS(n))
		}
	}
	inside("low", col(2, 0), 0, 0.5, false)
	// Poisson(e^0.7) on {2, …, 5}: its mean from the pmf
	rate := math.Exp(b)
	var z, m1 float64
	for k := 2; k <= 5; k++ {
		lg, _ := math.Lgamma(float64(k + 1))
		pk := math.Exp(float64(k)*math.Log(rate) - rate - lg)
		z, m1 = z+pk, m1+float64(k)*pk
	}
	cnt := col(3, 0)
	inside("cnt", cnt, 2, 5, true)
	mean, sq := 0.0, 0.0
	for _, v := range cnt {
		mean += v / n
		sq += v * v / n
	}
	if se := math.Sqrt((sq - mean*mean) / n); math.Abs(mean-m1/z) > 5*se {
		t.Errorf("cnt: mean %.4f, want %.4f ± %.4f", mean, m1/z, 5*se)
	}
	for k := range 3 {
		inside("cnts", col(4, k), 1, math.Inf(1), true)
	}
	again := draw(1)
	for i := range 20 {
		for o := range again[i] {
			if !slices.Equal(again[i][o], all[i][o]) {
				t.Fatalf("seed 1 drew %v, then %v", all[i][o], again[i][o])
			}
		}
	}
}

// TestTruncatedReplicateErrors: bounds out of order at a draw, or an
// interval without mass, make the draw NaN and the output's error says
// why at the replicate.
func TestTruncatedReplicateErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"param b: real\ntarget += -b * b\noutput y ~ Normal(0, 1) T[b, 1]\n", "p.gpp:3:10: Normal draw: T[L, U] needs L < U; found L = 2, U = 1"},
		{"param b: real\ntarget += -b * b\noutput y ~ Beta(2, 2) T[b, b + 1]\n", "p.gpp:3:10: Beta draw: Beta puts no mass in [2, 3] that gpp can represent"},
		{"data L: int\ndata U: int\nparam b: real\ntarget += -b * b\noutput y ~ Poisson(exp(b)) T[L, U]\n", "p.gpp:5:10: Poisson draw: T[L, U] needs L ≤ U; found L = 3, U = 1"},
	} {
		in := data.Input{File: "d.json", JSON: map[string]*data.Array{
			"L": {Name: "L", Values: []float64{3}}, "U": {Name: "U", Values: []float64{1}}}}
		m := compileSrc(t, "p.gpp", c.src, nil, in)
		ev, err := m.NewEvaluator()
		if err != nil {
			t.Fatal(err)
		}
		ev.SetRand(rand.New(rand.NewPCG(1, 1)))
		_, outs, err := ev.Eval([]float64{2})
		if err != nil || !math.IsNaN(outs[0][0]) {
			t.Fatalf("%s: outs %v, err %v; want a NaN draw", c.src, outs, err)
		}
		if oe := ev.OutputErr(); oe == nil || !strings.Contains(oe.Error(), c.want) {
			t.Errorf("%s: OutputErr = %v, want %q", c.src, oe, c.want)
		}
	}
}

// TestPredictDrawsTruncated: gpp predict draws left-out data that a
// truncated ~ observes from the truncated likelihood, whole and element by
// element in a loop: every draw lies in its element's bounds and each
// element passes a KS test against Normal(a + b·x, s) truncated there.
func TestPredictDrawsTruncated(t *testing.T) {
	const head = `data x: real[N]
data y: real[N]
param a: real ~ Normal(0, 1)
param b: real ~ Normal(0, 1)
param s: positive ~ Gamma(2, 2)
`
	xs := []float64{-1, 0, 2}
	in := []data.Input{{File: "new.csv", Table: csvTable(t, "new.csv", "x", [][]float64{{xs[0]}, {xs[1]}, {xs[2]}})}}
	a, b, s := 0.5, 2.0, 0.3
	coords := []float64{a, b, math.Log(s)}
	const n = 3000
	for _, c := range []struct {
		body, at string
		lo, hi   func(x float64) float64
	}{
		{"y ~ Normal(a + b * x, s) T[0, ]\n", "m.gpp:6:1",
			func(float64) float64 { return 0 }, func(float64) float64 { return math.Inf(1) }},
		{"for i in 0:N {\n  y[i] ~ Normal(a + b * x[i], s) T[a + b * x[i] + 2 * s, x[i] + 4]\n}\n", "m.gpp:7:3",
			func(x float64) float64 { return a + b*x + 2*s }, func(x float64) float64 { return x + 4 }},
	} {
		m, err := compilePredictSrc(t, head+c.body, in, nil, PredictOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.body, err)
		}
		if len(m.Outputs) != 1 || m.Outputs[0].Name != "y" || len(m.Drawn) != 1 || !strings.Contains(m.Drawn[0], "drawn from its likelihood at each draw ("+c.at+")") {
			t.Fatalf("%s: outputs %v, Drawn %q, notes %q", c.body, m.Outputs, m.Drawn, m.Notes)
		}
		ev, err := m.NewEvaluator()
		if err != nil {
			t.Fatal(err)
		}
		ev.SetRand(rand.New(rand.NewPCG(3, 4)))
		ev.SetDrawRand(rand.New(rand.NewPCG(7, 8)))
		draws := make([][]float64, len(xs))
		for range n {
			_, outs, err := ev.Eval(coords)
			if err != nil || ev.OutputErr() != nil {
				t.Fatalf("%s: %v, %v", c.body, err, ev.OutputErr())
			}
			for k, v := range outs[0] {
				draws[k] = append(draws[k], v)
			}
		}
		for k, x := range xs {
			lo, hi := c.lo(x), c.hi(x)
			for _, v := range draws[k] {
				if !(v >= lo && v <= hi) {
					t.Fatalf("%s: y[%d] = %g outside [%g, %g]", c.body, k, v, lo, hi)
				}
			}
			if d := normalTruncKS(draws[k], a+b*x, s, lo, hi); d > truncRepKS(n) {
				t.Errorf("%s: y[%d]: KS %.4f > %.4f", c.body, k, d, truncRepKS(n))
			}
		}
	}
}
