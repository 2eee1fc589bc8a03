package compile

import (
	"fmt"
	"github.com/gpplang/gpp/dist"
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
// output's error says where; a Poisson rate of 0 is in its support and
// draws 0.
func TestPredictiveBadArgument(t *testing.T) {
	m := compileSrc(t, "p.gpp", "param b: real\ntarget += -b * b\noutput y ~ Gamma(2, exp(b))\noutput z ~ Poisson(exp(b))\n", nil, data.Input{})
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	ev.SetRand(rand.New(rand.NewPCG(1, 1)))
	_, outs, err := ev.Eval([]float64{-800}) // exp(-800) underflows to 0
	if err != nil || !math.IsNaN(outs[0][0]) || outs[1][0] != 0 {
		t.Fatalf("outs %v, err %v; want a NaN draw, then 0", outs, err)
	}
	if oe := ev.OutputErr(); oe == nil || !strings.Contains(oe.Error(), "p.gpp:3:10: Gamma draw: rate = 0 is not a valid positive parameter") {
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
// element (Finish checks the densities' data values). A count above its
// data bound (Binomial's k against n, a scalar or one per element) is an
// error too, as no fit can change either.
func TestDataOutsideSupport(t *testing.T) {
	for _, c := range []struct{ name, src, values, want string }{
		{"bernoulli", "data y: int[N]\nparam p: unit\ny ~ Bernoulli(p)\n", "0 2 1", "<input>: y: value 2 is not 0 or 1, as y ~ Bernoulli at d.gpp:3:5 needs"},
		{"poisson", "data y: int[N]\nparam l: positive\ny ~ Poisson(l)\n", "3 -1 1", "<input>: y: value -1 is not a non-negative integer, as y ~ Poisson at d.gpp:3:5 needs"},
		{"gamma", "data y: real[N]\nparam l: positive\ny ~ Gamma(2, l)\n", "0.5 1 0", "<input>: y: value 0 is not > 0, as y ~ Gamma at d.gpp:3:5 needs; for amounts with exact zeros (rainfall with dry days), use HurdleGamma(psi, alpha, beta), a Gamma(alpha, beta) value with probability psi = P(y > 0), else exactly 0"},
		{"gamma below 0", "data y: real[N]\nparam l: positive\ny ~ Gamma(2, l)\n", "0.5 1 -1", "<input>: y: value -1 is not > 0, as y ~ Gamma at d.gpp:3:5 needs"},
		{"lognormal at 0", "data y: real[N]\nparam l: real\ny ~ LogNormal(l, 1)\n", "0.5 1 0", "<input>: y: value 0 is not > 0, as y ~ LogNormal at d.gpp:3:5 needs; for amounts with exact zeros (rainfall with dry days), use HurdleLogNormal(psi, mu, sigma), a LogNormal(mu, sigma) value with probability psi = P(y > 0), else exactly 0"},
		{"weibull at 0: no hurdle", "data y: real[N]\nparam l: positive\ny ~ Weibull(2, l)\n", "0.5 1 0", "<input>: y: value 0 is not > 0, as y ~ Weibull at d.gpp:3:5 needs"},
		{"exponential at 0", "data y: real[N]\nparam l: positive\ny ~ Exponential(l)\n", "0.5 1 0", ""},
		{"binomial not a count", "data y: int[N]\nparam p: unit\ny ~ Binomial(2, p)\n", "0 -1 1", "<input>: y: value -1 is not a non-negative integer, as y ~ Binomial at d.gpp:3:5 needs"},
		{"binomial above n", "data y: int[N]\nparam p: unit\ny ~ Binomial(2, p)\n", "0 3 1", "d.gpp:3:5: data value 3 outside the support of Binomial: not <= n = 2 (element [1])"},
		{"binomial within n", "data y: int[N]\nparam p: unit\ny ~ Binomial(3, p)\n", "0 3 1", ""},
		{"binomial logit above n per element", "data y: int[N]\nparam e: real\ny ~ BinomialLogit([4, 2, 5], e)\n", "0 3 1", "d.gpp:3:5: data value 3 outside the support of BinomialLogit: not <= n = 2 (element [1])"},
		{"binomial logit at n per element", "data y: int[N]\nparam e: real\ny ~ BinomialLogit([1, 3, 1], e)\n", "0 3 1", ""},
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

// Categorical and ordinal replicates: an int per row of CategoricalLogit's
// [N, K] log-odds (a scalar from a shared row), one per element of the
// ordered families' eta, with the probabilities the likelihood gives at
// the evaluation's values; later outputs see the draw.
func TestPredictiveCategories(t *testing.T) {
	X := &data.Array{Name: "X", Shape: []int{3, 2}, Values: []float64{1, 0, 0, 1, -1, 2}}
	x := &data.Array{Name: "x", Shape: []int{3}, Values: []float64{-1, 0, 2}}
	y := &data.Array{Name: "y", Shape: []int{3}, Values: []float64{0, 2, 1}, Int: true}
	in := data.Input{File: "d.json", JSON: map[string]*data.Array{"X": X, "x": x, "y": y}}
	src := `data X: real[N, 2]
data x: real[N]
data y: int<lower=0, upper=2>[N]
param B: real[2, 3] ~ Normal(0, 1)
param b: real ~ Normal(0, 1)
y ~ CategoricalLogit(X * B)
output eta = X * B
output y_rep ~ CategoricalLogit(X * B)
output acc = mean(y_rep == y)
output one ~ CategoricalLogit(B[1])
output o_rep ~ OrderedLogistic(x * b, [-1, 0.5])
output p_rep ~ OrderedProbit(b, [-1, 0.5]')
`
	m := compileSrc(t, "c.gpp", src, nil, in)
	want := map[string]string{"eta": "[3 3]", "y_rep": "[3]", "acc": "[]", "one": "[]", "o_rep": "[3]", "p_rep": "[]"}
	for _, o := range m.Outputs {
		if got := fmt.Sprint(o.Shape); got != want[o.Name] {
			t.Errorf("%s: shape %s, want %s", o.Name, got, want[o.Name])
		}
	}
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	ev.SetRand(rand.New(rand.NewPCG(5, 6)))
	coords := []float64{0.3, -1.2, 0.8, 1.5, 0.1, -0.4, 0.9}
	const n = 40000
	counts := map[string][][]float64{"y_rep": make([][]float64, 3), "one": make([][]float64, 1), "o_rep": make([][]float64, 3), "p_rep": make([][]float64, 1)}
	for _, c := range counts {
		for i := range c {
			c[i] = make([]float64, 3)
		}
	}
	var eta, bv []float64
	for range n {
		_, outs, err := ev.Eval(coords)
		if err == nil {
			err = ev.OutputErr()
		}
		if err != nil {
			t.Fatal(err)
		}
		eta = outs[0]
		hits := 0.0
		for i, v := range outs[1] {
			if v == y.Values[i] {
				hits++
			}
		}
		if outs[2][0] != hits/3 {
			t.Fatalf("acc = %v with y_rep %v", outs[2][0], outs[1])
		}
		for o, name := range map[int]string{1: "y_rep", 3: "one", 4: "o_rep", 5: "p_rep"} {
			for i, v := range outs[o] {
				if v != math.Trunc(v) || v < 0 || v > 2 {
					t.Fatalf("%s[%d] = %v, not a category 0..2", name, i, v)
				}
				counts[name][i][int(v)]++
			}
		}
	}
	// B is row-major in the coordinates: B[1] is row 1, b the last.
	bv = coords[6:]
	softmax := func(e []float64) []float64 {
		m := max(e[0], e[1], e[2])
		s := math.Exp(e[0]-m) + math.Exp(e[1]-m) + math.Exp(e[2]-m)
		return []float64{math.Exp(e[0]-m) / s, math.Exp(e[1]-m) / s, math.Exp(e[2]-m) / s}
	}
	ordered := func(e float64, probit bool) []float64 {
		p := make([]float64, 3)
		for k := range p {
			lp, _ := dist.OrderedLogProb(k, e, []float64{-1, 0.5}, probit, nil)
			p[k] = math.Exp(lp)
		}
		return p
	}
	probs := map[string][][]float64{
		"y_rep": {softmax(eta[0:3]), softmax(eta[3:6]), softmax(eta[6:9])},
		"one":   {softmax(coords[3:6])},
		"o_rep": {ordered(-bv[0], false), ordered(0, false), ordered(2*bv[0], false)},
		"p_rep": {ordered(bv[0], true)},
	}
	for name, rows := range counts {
		for i, c := range rows {
			chi2 := 0.0
			for k, p := range probs[name][i] {
				e := n * p
				chi2 += (c[k] - e) * (c[k] - e) / e
			}
			if chi2 > 13.816 { // the 0.999 quantile on 2 df
				t.Errorf("%s[%d]: counts %v against probabilities %v: chi-square %.2f", name, i, c, probs[name][i], chi2)
			}
		}
	}
}

// An ordinal replicate whose cutpoints are not increasing at an evaluation
// is NaN, with an error at the output; the other replicates are drawn.
func TestPredictiveOrderedBadCutpoints(t *testing.T) {
	theta := &data.Array{Name: "theta", Shape: []int{3}, Values: []float64{0.2, 0.3, 0.5}}
	in := data.Input{File: "d.json", JSON: map[string]*data.Array{"theta": theta}}
	src := "data theta: simplex[3]\nparam a: real\ntarget += -a * a\noutput r ~ OrderedLogistic(a, [0, exp(a) - 2])\noutput s ~ Categorical(theta)\n"
	m := compileSrc(t, "b.gpp", src, nil, in)
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	ev.SetRand(rand.New(rand.NewPCG(1, 1)))
	_, outs, err := ev.Eval([]float64{0}) // cutpoints [0, -1]
	if err != nil || !math.IsNaN(outs[0][0]) || math.IsNaN(outs[1][0]) {
		t.Fatalf("outs %v, err %v; want a NaN draw, then a category", outs, err)
	}
	if oe := ev.OutputErr(); oe == nil || !strings.Contains(oe.Error(), "b.gpp:4:10: OrderedLogistic draw: the cutpoints must be strictly increasing: c[1] = -1 is not above c[0] = 0") {
		t.Errorf("OutputErr = %v", oe)
	}
	if _, outs, _ = ev.Eval([]float64{1}); math.IsNaN(outs[0][0]) || ev.OutputErr() != nil {
		t.Errorf("cutpoints [0, e - 2]: %v, %v", outs, ev.OutputErr())
	}
}
