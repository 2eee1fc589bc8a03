package compile

import (
	"math"
	"slices"
	"testing"
)

// A covariate with a model of its own (x ~ D, and x read in y's mean) has
// its missing cells fitted as x_missing, and every read of x, the ~ on it,
// a let, an expression in a loop and an output, is the mixed value: the log
// joint and its gradient at (params, missing values) are those of the model
// on the data with the cells filled in by those values, bit for bit, at
// several points (a let computed once would keep the first point's value).
func TestMissingCovariateFilledIn(t *testing.T) {
	const head = "data x: real[N]\ndata y: real[N]\nparam mx: real ~ Normal(0, 5)\nparam sx: positive ~ HalfNormal(2)\nparam a: real ~ Normal(0, 2)\nparam b: real ~ Normal(0, 2)\nparam s: positive ~ HalfNormal(2)\n"
	for _, c := range []struct {
		name, src        string
		withNull, filled string
		value            func(float64) float64 // a missing value from its coordinate
	}{
		{"whole", head + "x ~ Normal(mx, sx)\ny ~ Normal(a + b * x, s)\noutput Z = x\n",
			`{"x": [1.2, null, 0.3, null], "y": [2.1, 0.5, 0.9, 3.1]}`, `{"x": [1.2, %v, 0.3, %v], "y": [2.1, 0.5, 0.9, 3.1]}`,
			func(v float64) float64 { return v }},
		{"let and loop", head + "let mu = a + b * x\nfor i in 0:N {\n  x[i] ~ Normal(mx, sx)\n  y[i] ~ Normal(mu[i], s)\n}\noutput Z = x - mean(x)\n",
			`{"x": [null, 1.2, 0.3, null], "y": [2.1, 0.5, 0.9, 3.1]}`, `{"x": [%v, 1.2, 0.3, %v], "y": [2.1, 0.5, 0.9, 3.1]}`,
			func(v float64) float64 { return v }},
		{"positive, in a function", "data x: positive[N]\ndata y: real[N]\nparam mx: real ~ Normal(0, 5)\nparam sx: positive ~ HalfNormal(2)\nparam a: real ~ Normal(0, 2)\nparam b: real ~ Normal(0, 2)\nparam s: positive ~ HalfNormal(2)\nx ~ LogNormal(mx, sx)\nfor i in 0:N {\n  y[i] ~ Normal(a + b * log(x[i]), s)\n}\noutput Z = x\n",
			`{"x": [1.2, null, 0.3, null], "y": [2.1, 0.5, 0.9, 3.1]}`, `{"x": [1.2, %v, 0.3, %v], "y": [2.1, 0.5, 0.9, 3.1]}`,
			math.Exp},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := compileSrc(t, "m.gpp", c.src, nil, jsonData(t, c.withNull))
			if len(m.Latents) != 6 || m.Dim != 7 || m.Latents[5].Name != "x_missing" || m.Latents[5].Offset != 5 {
				t.Fatalf("latents %+v, dim %d: want 5 params and x_missing of 2", m.Latents, m.Dim)
			}
			checkGradient(t, m, 7, 0.5)
			ev, err := m.NewEvaluator()
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range [][]float64{{0.2, -0.3, 0.5, 1.1, -0.4, 0.7, -1.3}, {-1, 0.5, 0.01, -0.6, 0.3, 2.5, 0.2}, {0.4, 0.1, -0.2, 0.9, -1.1, -0.8, 0.05}} {
				v1, v2 := c.value(x[5]), c.value(x[6])
				full := compileSrc(t, "m.gpp", c.src, nil, jsonData(t, fmtFloats(c.filled, v1, v2)))
				g, gf := make([]float64, 7), make([]float64, 5)
				lp, err := m.LogJoint(x, g)
				if err != nil {
					t.Fatal(err)
				}
				lpf, err := full.LogJoint(x[:5], gf)
				if err != nil {
					t.Fatal(err)
				}
				if lp != lpf || !slices.Equal(g[:5], gf) {
					t.Errorf("at %v: log joint %.17g, gradient %v; with the cells filled in %.17g, %v", x, lp, g[:5], lpf, gf)
				}
				_, outs, err := ev.Eval(x)
				if err != nil {
					t.Fatal(err)
				}
				evf, err := full.NewEvaluator()
				if err != nil {
					t.Fatal(err)
				}
				_, outsf, err := evf.Eval(x[:5])
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(outs[0], outsf[0]) {
					t.Errorf("at %v: output Z = %v, with the cells filled in %v", x, outs[0], outsf[0])
				}
			}
		})
	}
}

// Without missing cells the covariate's model compiles from the checker's
// Info itself, as before the feature; with them, from the Info checked
// again with x typed as changing with the fit.
func TestMissingCovariateInfo(t *testing.T) {
	const src = "data x: real[N]\ndata y: real[N]\nparam m: real ~ Normal(0, 5)\nparam b: real ~ Normal(0, 2)\nx ~ Normal(m, 1)\nlet mu = 2 * x\ny ~ Normal(b * mu, 1)\n"
	whole := compileSrc(t, "m.gpp", src, nil, jsonData(t, `{"x": [1, 2], "y": [0.5, 1]}`))
	part := compileSrc(t, "m.gpp", src, nil, jsonData(t, `{"x": [1, null], "y": [0.5, 1]}`))
	onlyData := func(m *Model) bool {
		mu := m.info.Lookup("mu")
		return mu.Type.DataOnly
	}
	if !onlyData(whole) {
		t.Errorf("mu is not data only with x whole")
	}
	if onlyData(part) {
		t.Errorf("mu is data only with a cell of x missing")
	}
	if whole.info.DataVar("x").Missing == nil || part.info.DataVar("x").Missing == nil || !part.info.DataVar("x").ReadAt.IsValid() {
		t.Errorf("x's missing values are not fitted: %+v", part.info.DataVar("x"))
	}
}

// PSIS-LOO leaves the imputed cells out of a log_lik over the covariate
// (output log_lik = logpdf(x, ...)), as for observed data, but not out of
// one over the response y, whose mean reads x: y is observed at every
// row. A response's own missing cells are left out either way.
func TestMissingCovariateLogLik(t *testing.T) {
	const head = "data x: real[N]\ndata y: real[N]\nparam m: real ~ Normal(0, 5)\nparam b: real ~ Normal(0, 2)\nx ~ Normal(m, 1)\nlet mu = b * x\ny ~ Normal(mu, 1)\n"
	for _, c := range []struct {
		name, out, data string
		want            []int
	}{
		{"over y", "output log_lik = logpdf(y, Normal(mu, 1))\n", `{"x": [1, null, 2, null], "y": [0.5, 1, 2, 3]}`, nil},
		{"over x", "output log_lik = logpdf(x, Normal(m, 1))\n", `{"x": [1, null, 2, null], "y": [0.5, 1, 2, 3]}`, []int{1, 3}},
		{"over y, missing too", "output log_lik = logpdf(y, Normal(mu, 1))\n", `{"x": [1, null, 2, null], "y": [0.5, 1, null, 3]}`, []int{2}},
		{"over x, y missing too", "output log_lik = logpdf(x, Normal(m, 1))\n", `{"x": [1, null, 2, null], "y": [0.5, 1, null, 3]}`, []int{1, 2, 3}},
		// y read in an expression too (a target += here; an autoregression's
		// y[t-1]) is still the response: every y is an observation
		{"over y, y read too", "target += -0.001 * sum(square(y))\noutput log_lik = logpdf(y, Normal(mu, 1))\n", `{"x": [1, null, 2, null], "y": [0.5, 1, 2, 3]}`, nil},
		// y read through another output: still the response
		{"over y, through an output", "output e = y - mu\noutput log_lik = -0.5 * square(e)\n", `{"x": [1, null, 2, null], "y": [0.5, 1, 2, 3]}`, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := compileSrc(t, "m.gpp", head+c.out, nil, jsonData(t, c.data))
			var got []int
			for k := range m.ImputedCells("log_lik", []int{4}) {
				got = append(got, k)
			}
			slices.Sort(got)
			if !slices.Equal(got, c.want) {
				t.Errorf("imputed cells %v, want %v", got, c.want)
			}
		})
	}
}
