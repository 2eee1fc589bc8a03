package compile

import (
	"math"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// zipCounts are the counts of the zero-inflated Poisson tests: zeros, some
// from the inflation, and positive counts.
var zipCounts = []float64{0, 3, 0, 0, 1, 5, 0, 2, 0, 4}

// zipInput binds the counts y and, for the reference model, the indices of
// the zeros and of the positive counts.
func zipInput() data.Input {
	var zeros, pos []float64
	for i, v := range zipCounts {
		if v == 0 {
			zeros = append(zeros, float64(i))
		} else {
			pos = append(pos, float64(i))
		}
	}
	arr := func(name string, v []float64) *data.Array {
		return &data.Array{Name: name, Shape: []int{len(v)}, Values: v, Int: true}
	}
	return data.Input{File: "zip.json", JSON: map[string]*data.Array{
		"y": arr("y", zipCounts), "zeros": arr("zeros", zeros), "pos": arr("pos", pos),
	}}
}

const zipHead = `data y: int<lower=0>[N]
data zeros: int<lower=0>[Z]
data pos: int<lower=0>[P]
param theta: unit ~ Beta(2, 2)
param lambda: positive ~ Gamma(2, 0.5)
`

// zipIf is the zero-inflated Poisson as a Stan user writes it: a branch per
// observation on whether the count is 0.
const zipIf = zipHead + `for i in 0:N {
    if y[i] == 0 {
        target += log(theta + (1 - theta) * exp(-lambda))
    } else {
        target += log1p(-theta)
        y[i] ~ Poisson(lambda)
    }
}
`

// zipSets is the same density without if: target += over the index sets
// of the zeros and the positive counts, precomputed in the data.
const zipSets = zipHead + `target += Z * log(theta + (1 - theta) * exp(-lambda))
target += P * log1p(-theta)
y[pos] ~ Poisson(lambda)
`

// The zero-inflated Poisson written with if has the log joint and the
// gradient of the same density written over index sets, and of the density
// computed by hand; the gradient agrees with finite differences.
func TestZeroInflatedPoissonIf(t *testing.T) {
	m := compileSrc(t, "zip.gpp", zipIf, nil, zipInput())
	ref := compileSrc(t, "zip_sets.gpp", zipSets, nil, zipInput())
	// By hand, in the coordinates: theta = inv_logit(x0), lambda = exp(x1).
	hand := func(x []float64) float64 {
		th, la := 1/(1+math.Exp(-x[0])), math.Exp(x[1])
		lp := math.Log(6) + math.Log(th) + math.Log1p(-th) // Beta(2, 2)
		lp += 2*math.Log(0.5) + math.Log(la) - 0.5*la      // Gamma(2, 0.5)
		for _, y := range zipCounts {
			if y == 0 {
				lp += math.Log(th + (1-th)*math.Exp(-la))
				continue
			}
			lg, _ := math.Lgamma(y + 1)
			lp += math.Log1p(-th) + y*math.Log(la) - la - lg
		}
		return lp
	}
	for _, x := range [][]float64{{0, 0}, {-1.5, 1.2}, {2, -0.7}, {0.3, 2.5}} {
		sameLogJoint(t, m, ref, "the density over index sets", x, logJointTol, logJointTol)
		got, err := m.LogJoint(x, make([]float64, 2))
		if err != nil {
			t.Fatal(err)
		}
		if want := hand(x); math.Abs(got-want) > logJointTol*math.Abs(want) {
			t.Errorf("at %v: log joint %.17g, by hand %.17g", x, got, want)
		}
	}
	checkGradient(t, m, 11, 1)
}

// Conditions of every kind, evaluated when the model compiles: real data,
// loop variables, constants, else-if chains, && and || that short-circuit
// (x[i - 1] is never read at i = 0), !, and comparisons as 0/1 values. The
// log joint is checked against the terms the branches taken add, computed
// here, and the gradient against finite differences.
func TestIfBranchesTaken(t *testing.T) {
	x := []float64{0.5, -1.2, 2.0, 0.0, -0.3, 3.1}
	g := []float64{0, 1, 1, 2, 0, 2}
	in := data.Input{File: "d.json", JSON: map[string]*data.Array{
		"x": {Name: "x", Shape: []int{len(x)}, Values: x},
		"g": {Name: "g", Shape: []int{len(g)}, Values: g, Int: true},
	}}
	src := `data x: real[N]
data g: int<lower=0>[N]
const K = 2
param mu: real
param s: positive
for i in 0:N {
    if x[i] > 1.5 {
        target += mu
    } else if x[i] >= 0 && !(g[i] == 0) {
        target += 2 * mu
    } else if i > 0 && x[i - 1] < 0 || g[i] == K {
        let d = x[i] - mu
        target -= d * d / s
    } else {
        target += log(s)
    }
}
target += sum(x < 0) * s
target += sum(g != 1 && x > -1) * mu * mu
if K > 1 {
    target += 10 * s
}
if N < 3 {
    target += 1000 * mu
}
`
	m := compileSrc(t, "if.gpp", src, nil, in)
	want := func(c []float64) float64 {
		mu, s := c[0], math.Exp(c[1])
		lp := 0.0
		for i := range x {
			switch {
			case x[i] > 1.5:
				lp += mu
			case x[i] >= 0 && g[i] != 0:
				lp += 2 * mu
			case i > 0 && x[i-1] < 0 || g[i] == 2:
				lp -= (x[i] - mu) * (x[i] - mu) / s
			default:
				lp += math.Log(s)
			}
		}
		neg, both := 0.0, 0.0
		for i := range x {
			if x[i] < 0 {
				neg++
			}
			if g[i] != 1 && x[i] > -1 {
				both++
			}
		}
		return lp + neg*s + both*mu*mu + 10*s
	}
	for _, c := range [][]float64{{0, 0}, {1.3, -0.4}, {-2, 1}} {
		got, err := m.LogJoint(c, make([]float64, 2))
		if err != nil {
			t.Fatal(err)
		}
		if w := want(c); math.Abs(got-w) > logJointTol*math.Max(1, math.Abs(w)) {
			t.Errorf("at %v: log joint %.17g, want %.17g", c, got, w)
		}
	}
	checkGradient(t, m, 12, 1)
}

// A condition that cannot be known when the model compiles is an error at
// the condition: NaN from the data, and a density (which the compiler does
// not evaluate before the fit). An index out of range in a branch not
// taken is no error.
func TestIfConditionErrors(t *testing.T) {
	in := data.Input{File: "d.json", JSON: map[string]*data.Array{
		"x": {Name: "x", Shape: []int{3}, Values: []float64{1, -1, 2}},
	}}
	for _, c := range []struct{ body, want string }{
		{"for i in 0:N {\n    if log(x[i]) > 0 {\n        target += mu\n    }\n}\n",
			"c.gpp:7:8: `log(x[i])` is NaN with these data"},
		{"if logpdf(x[0], Normal(0, 1)) > -1 {\n    target += mu\n}\n",
			"c.gpp:6:4: `logpdf(x[0], Normal(0, 1))` cannot be evaluated before the fit"},
		{"let m = sum(log(x) > 0)\n",
			"c.gpp:6:13: `log(x)` is NaN with these data (element 1)"},
	} {
		src := "data x: real[N]\nparam mu: real ~ Normal(0, 1)\n\n\n\n" + c.body
		_, err := compileSrcErr(t, "c.gpp", src, nil, in)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: got error %v, want %q", c.body, err, c.want)
		}
	}
	// Not taken: x[3] is out of range, and x[i - 1] at i = 0.
	m := compileSrc(t, "ok.gpp", `data x: real[N]
param mu: real ~ Normal(0, 1)
for i in 0:N {
    if i > 0 && x[i - 1] > 0 {
        target += mu
    }
    if i == 99 {
        target += x[3]
    }
}
`, nil, in)
	lp, err := m.LogJoint([]float64{0.5}, make([]float64, 1))
	if want := -0.5*0.25 - 0.5*math.Log(2*math.Pi) + 0.5; err != nil || math.Abs(lp-want) > 1e-12 {
		t.Errorf("log joint %v (%v), want %v", lp, err, want)
	}
}
