package compile

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/data"
)

// observedInput is n rows of a covariate x and 0/1 outcomes y.
func observedInput(n int) data.Input {
	r := rand.New(rand.NewPCG(uint64(n), 5))
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = r.NormFloat64()
		if r.Float64() < 0.4 {
			y[i] = 1
		}
	}
	return data.Input{File: "d.json", JSON: map[string]*data.Array{
		"x": {Name: "x", Shape: []int{n}, Values: x},
		"y": {Name: "y", Shape: []int{n}, Values: y, Int: true},
	}}
}

// TestEvaluatorObserved: an evaluator reports each ~ of 0/1 data under
// BernoulliLogit or Bernoulli with the observations paired with the
// argument, the same whether the ~ is vectorised, in a loop lowered as
// vectors, in a loop unrolled or split by an if (its branches' rows, each
// branch a statement), and for a logpdf of such a family on the data in a
// target += (Stan's target += bernoulli_logit_lpmf(y | eta)), alone, in a
// sum or in a loop; a ~ on a param or under another family, and a logpdf
// in an output (log_lik), are not reported, a scalar argument is repeated per observation, and keeping
// the arguments leaves the log joint bit for bit as the fit's.
func TestEvaluatorObserved(t *testing.T) {
	const head = `data x: real[N]
data y: int<lower=0, upper=1>[N]
param a: real ~ Normal(0, 1)
param b: real ~ Normal(0, 1)
param p: unit ~ Beta(2, 2)
`
	const n = 50
	in := observedInput(n)
	xs, ys := in.JSON["x"].Values, in.JSON["y"].Values
	forms := []struct {
		name, body string
		link       func(float64) float64 // the argument from the predictor a + b x
		stmts      int                   // ~ statements reported
		sorted     bool                  // rows out of order (the branches')
	}{
		{"vectorised", "y ~ BernoulliLogit(a + b * x)\n", nil, 1, false},
		{"loop", "for i in 0:N {\n    y[i] ~ BernoulliLogit(a + b * x[i])\n}\n", nil, 1, false},
		{"link", "for i in 0:N {\n    y[i] ~ Bernoulli(inv_logit(a + b * x[i]))\n}\n", invLogitRef, 1, false},
		{"branches", "for i in 0:N {\n    if x[i] > 0 {\n        y[i] ~ BernoulliLogit(a + b * x[i])\n    } else {\n        y[i] ~ BernoulliLogit(a + b * x[i])\n    }\n}\n", nil, 2, true},
		{"others", "b ~ Normal(0, 2)\ny ~ Poisson(exp(a + b * x))\ny ~ BernoulliLogit(a + b * x)\n", nil, 1, false},
		{"logpdf", "target += logpdf(y, BernoulliLogit(a + b * x))\n", nil, 1, false},
		{"logpdf summed", "target += 2 * sum(logpdf(y, BernoulliLogit(a + b * x))) / 2\n", nil, 1, false},
		{"logpdf loop", "for i in 0:N {\n    target += logpdf(y[i], Bernoulli(inv_logit(a + b * x[i])))\n}\n", invLogitRef, 1, false},
		{"logpdf branches", "for i in 0:N {\n    if x[i] > 0 {\n        target += logpdf(y[i], BernoulliLogit(a + b * x[i]))\n    } else {\n        y[i] ~ BernoulliLogit(a + b * x[i])\n    }\n}\n", nil, 2, true},
		{"logpdf in an output", "output ll = logpdf(y, BernoulliLogit(a + b * x))\ntarget += logpdf(x, Normal(0, 1))\ny ~ BernoulliLogit(a + b * x)\n", nil, 1, false},
	}
	for _, f := range forms {
		for _, unroll := range []bool{false, true} {
			unrollLoops = unroll
			m := compileSrc(t, "o.gpp", head+f.body, nil, in)
			ev, err := m.NewEvaluator() // each build reads unrollLoops
			unrollLoops = false
			if err != nil {
				t.Fatal(err)
			}
			x := randomPoints(3, 1, m.Dim)[0]
			lp, _, err := ev.Eval(x)
			if err != nil {
				t.Fatal(err)
			}
			if lj, _ := m.LogJoint(x, make([]float64, m.Dim)); lj != lp {
				t.Errorf("%s (unrolled %v): evaluator's log joint %.17g, the fit's %.17g", f.name, unroll, lp, lj)
			}
			obs := ev.Observed()
			if len(obs) != f.stmts {
				t.Fatalf("%s (unrolled %v): %d statements observed, want %d", f.name, unroll, len(obs), f.stmts)
			}
			// pair each observation with its row: by order, or (branches) by
			// x's sign and the order within the branch
			var rows []int
			for _, pos := range []bool{true, false}[:f.stmts] {
				for i := range n {
					if f.stmts == 1 || (xs[i] > 0) == pos {
						rows = append(rows, i)
					}
				}
			}
			k := 0
			for _, o := range obs {
				if len(o.Y) != len(o.Arg) {
					t.Fatalf("%s: %d observations, %d arguments", f.name, len(o.Y), len(o.Arg))
				}
				for j := range o.Y {
					i := rows[k]
					k++
					want := x[0] + x[1]*xs[i]
					if f.link != nil {
						want = f.link(want)
					}
					if o.Y[j] != ys[i] || math.Abs(o.Arg[j]-want) > 1e-13*math.Max(1, math.Abs(want)) {
						t.Errorf("%s (unrolled %v): observation %d is (%g, %.17g), want row %d (%g, %.17g)", f.name, unroll, j, o.Y[j], o.Arg[j], i, ys[i], want)
					}
				}
			}
			if k != n {
				t.Errorf("%s (unrolled %v): %d observations, want %d", f.name, unroll, k, n)
			}
		}
	}
	// A unit param's probability, shared by every observation.
	m := compileSrc(t, "o.gpp", head+"y ~ Bernoulli(p)\n", nil, in)
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	x := randomPoints(4, 1, m.Dim)[0]
	if _, _, err := ev.Eval(x); err != nil {
		t.Fatal(err)
	}
	obs := ev.Observed()
	p := invLogitRef(x[2])
	if len(obs) != 1 || len(obs[0].Arg) != n || math.Abs(obs[0].Arg[n-1]-p) > 1e-15 || obs[0].Y[n-1] != ys[n-1] {
		t.Errorf("Bernoulli(p): observed %+v, want %d pairs (y, %g)", obs, n, p)
	}
}

// invLogitRef is 1 / (1 + e^−v).
func invLogitRef(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
