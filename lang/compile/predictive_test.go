package compile

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// Predictive outputs (output y ~ D(args)) draw from D at the arguments'
// values of every evaluation: the draws have D's mean and variance per
// element, broadcast like logpdf, repeat for a seed and are new at every
// evaluation even when the arguments are data.
func TestPredictiveOutputs(t *testing.T) {
	x := &data.Array{Name: "x", Shape: []int{3}, Values: []float64{-1, 0, 1.5}}
	in := data.Input{File: "d.json", JSON: map[string]*data.Array{"x": x}}
	src := `data x: real[N]
param b: real
param s: positive
target += -b * b - s
output cnt ~ Poisson(exp(b * x))
output grid ~ Normal(x, exp(x'))
output fixed ~ Normal(x, 1)
output total = sum(cnt)
`
	m := compileSrc(t, "p.gpp", src, nil, in)
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]int{}
	for i, o := range m.Outputs {
		names[o.Name] = i
	}
	if sh := m.Outputs[names["grid"]].Shape; len(sh) != 2 || sh[0] != 3 || sh[1] != 3 {
		t.Fatalf("grid has shape %v, want [3 3] (column x against row x')", sh)
	}
	coords := []float64{0.7, math.Log(2)} // b = 0.7, log s
	if _, outs, err := ev.Eval(coords); err != nil || !math.IsNaN(outs[names["cnt"]][0]) {
		t.Fatalf("without a stream: %v, %v; want NaN draws", outs, err)
	}

	draw := func(seed uint64, n int) [][][]float64 {
		ev.SetRand(rand.New(rand.NewPCG(seed, 3)))
		var all [][][]float64
		for range n {
			_, outs, err := ev.Eval(coords)
			if err != nil {
				t.Fatal(err)
			}
			cp := make([][]float64, len(outs))
			for i, o := range outs {
				cp[i] = append([]float64(nil), o...)
			}
			all = append(all, cp)
		}
		return all
	}
	const n = 20000
	all := draw(1, n)
	// moments per element against D's
	check := func(name string, k int, mean, variance float64) {
		t.Helper()
		var s, s2 float64
		for _, d := range all {
			v := d[names[name]][k]
			s += v
			s2 += v * v
		}
		mu := s / n
		v := s2/n - mu*mu
		se := math.Sqrt(variance / n)
		if math.Abs(mu-mean) > 5*se || math.Abs(v/variance-1) > 0.05 {
			t.Errorf("%s[%d]: mean %.4f variance %.4f, want %.4f and %.4f", name, k, mu, v, mean, variance)
		}
	}
	for k, xv := range x.Values {
		rate := math.Exp(0.7 * xv)
		check("cnt", k, rate, rate)
		check("fixed", k, xv, 1)
		for j, xs := range x.Values {
			check("grid", 3*k+j, xv, math.Exp(2*xs))
		}
	}
	// a later output sees this draw's replicate; counts are integers
	for _, d := range all[:100] {
		c := d[names["cnt"]]
		if got := d[names["total"]][0]; got != c[0]+c[1]+c[2] {
			t.Fatalf("total = %g, the draw's counts %v", got, c)
		}
		for _, v := range c {
			if v != math.Trunc(v) || v < 0 {
				t.Fatalf("Poisson draw %g", v)
			}
		}
	}
	// the same seed repeats the draws; successive evaluations differ
	again := draw(1, 2)
	for i := range again {
		for o := range again[i] {
			for k := range again[i][o] {
				if again[i][o][k] != all[i][o][k] {
					t.Fatalf("seed 1 drew %v, then %v", all[i], again[i])
				}
			}
		}
	}
	if all[0][names["fixed"]][0] == all[1][names["fixed"]][0] {
		t.Error("data-only arguments: the same draw at two evaluations")
	}
}

// A draw whose argument leaves its parameter's support is NaN, and the
// output's error says where.
func TestPredictiveBadArgument(t *testing.T) {
	m := compileSrc(t, "p.gpp", "param b: real\ntarget += -b * b\noutput y ~ Poisson(exp(b))\n", nil, data.Input{})
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	ev.SetRand(rand.New(rand.NewPCG(1, 1)))
	_, outs, err := ev.Eval([]float64{-800}) // exp(-800) underflows to 0
	if err != nil || !math.IsNaN(outs[0][0]) {
		t.Fatalf("outs %v, err %v; want a NaN draw", outs, err)
	}
	if oe := ev.OutputErr(); oe == nil || !strings.Contains(oe.Error(), "p.gpp:3:10: Poisson draw: rate = 0 is not a valid positive parameter") {
		t.Errorf("OutputErr = %v, want an error at line 3", oe)
	}
}

// checkReplicateMoments evaluates ev at coords draws times and checks, for
// each output named in names (in order, the model's first outputs) and
// each of its elements k, the sample mean against means[o][k] (5 standard
// errors) and the sample variance against vars[o][k] (5 %).
func checkReplicateMoments(t *testing.T, ev *Evaluator, coords []float64, draws int, names []string, means, vars [][]float64) {
	t.Helper()
	sum, sum2 := make([][]float64, len(names)), make([][]float64, len(names))
	for o := range names {
		sum[o], sum2[o] = make([]float64, len(means[o])), make([]float64, len(means[o]))
	}
	for range draws {
		_, outs, err := ev.Eval(coords)
		if err != nil {
			t.Fatal(err)
		}
		for o := range names {
			for k, v := range outs[o] {
				sum[o][k] += v
				sum2[o][k] += v * v
			}
		}
	}
	n := float64(draws)
	for o, name := range names {
		for k := range means[o] {
			mu := sum[o][k] / n
			v := sum2[o][k]/n - mu*mu
			if se := math.Sqrt(vars[o][k] / n); math.Abs(mu-means[o][k]) > 5*se || math.Abs(v/vars[o][k]-1) > 0.05 {
				t.Errorf("%s[%d]: mean %.4f variance %.4f, want %.4f and %.4f", name, k, mu, v, means[o][k], vars[o][k])
			}
		}
	}
}

// A data value outside its family's support (no value of the params can
// make its density finite) is an error before any fit: at its data cell
// when the data is the whole left side of ~ (the binder checks the
// supports the checker recorded), else at the statement, naming the
// element (Finish checks the densities' data values). A value the family's
// support holds but the arguments may not (Binomial's k against n) is left
// to the fit.
func TestDataOutsideSupport(t *testing.T) {
	for _, c := range []struct{ name, src, values, want string }{
		{"bernoulli", "data y: int[N]\nparam p: unit\ny ~ Bernoulli(p)\n", "0 2 1", "<input>: y: value 2 is not 0 or 1, as y ~ Bernoulli at d.gpp:3:5 needs"},
		{"poisson", "data y: int[N]\nparam l: positive\ny ~ Poisson(l)\n", "3 -1 1", "<input>: y: value -1 is not a non-negative integer, as y ~ Poisson at d.gpp:3:5 needs"},
		{"gamma", "data y: real[N]\nparam l: positive\ny ~ Gamma(2, l)\n", "0.5 1 0", "<input>: y: value 0 is not > 0, as y ~ Gamma at d.gpp:3:5 needs"},
		{"exponential at 0", "data y: real[N]\nparam l: positive\ny ~ Exponential(l)\n", "0.5 1 0", ""},
		{"binomial not a count", "data y: int[N]\nparam p: unit\ny ~ Binomial(2, p)\n", "0 -1 1", "<input>: y: value -1 is not a non-negative integer, as y ~ Binomial at d.gpp:3:5 needs"},
		{"binomial within counts", "data y: int[N]\nparam p: unit\ny ~ Binomial(2, p)\n", "0 3 1", ""},
		{"a slice: at Finish", "data y: int[N]\nparam p: unit\ny[0:2] ~ Bernoulli(p)\n", "0 2 1", "d.gpp:3:10: data value 2 outside the support of Bernoulli (element [1])"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var vals []float64
			for _, f := range strings.Fields(c.values) {
				v, _ := strconv.ParseFloat(f, 64)
				vals = append(vals, v)
			}
			y := &data.Array{Name: "y", Shape: []int{len(vals)}, Values: vals, Int: !strings.Contains(c.src, "real")}
			got := ""
			if _, err := compileSrcErr(t, "d.gpp", c.src, nil, data.Input{File: "d.json", JSON: map[string]*data.Array{"y": y}}); err != nil {
				got = err.Error()
			}
			if got != c.want {
				t.Errorf("error %q, want %q", got, c.want)
			}
		})
	}
}
