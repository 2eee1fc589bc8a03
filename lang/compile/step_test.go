package compile

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
)

// stepModel has outputs that compare params, with data, with each other
// and with a replicate.
const stepModel = `data y: int<lower=0>[N]
data t: positive[N]
data x: real[N, K]
param mu: real ~ Normal(0, 1)
param sigma: positive ~ Gamma(2, 2)
param theta: unit[K] ~ Beta(1, 1)
param B: real[N, K] ~ Normal(0, 1)
param lambda: positive ~ Gamma(2, 0.5)
y ~ Poisson(lambda * t)
x ~ Normal(B, sigma)
let up = mu > 0
output pos = mu > 0
output both = mu > 0 && sigma < 1
output either = mu > 0 || sigma < 1
output n_big = sum(theta > 0.5)
output flag = !(mu > 0)
output nbig = !(theta > 0.5)
output cells = B > theta'
output above = x <= B
output eq = B == x
output up2 = up
output y_rep ~ Poisson(lambda * t)
output exceed = mean(y_rep > y)
output fixed = sum(y > 2)
output sc = N > 100 && B[N, 0] > 0
output dyn = mu > 0 && N > 2
output lneg = log(mu) < 0
output lne = log(mu) != 7
`

func stepInput() data.Input {
	return data.Input{File: "d.json", JSON: map[string]*data.Array{
		"y": {Name: "y", Shape: []int{3}, Values: []float64{0, 4, 2}, Int: true},
		"t": {Name: "t", Shape: []int{3}, Values: []float64{1, 2, 0.5}},
		"x": {Name: "x", Shape: []int{3, 2}, Values: []float64{0.3, -1, 0, 2, -0.5, 0.25}},
	}}
}

// Outputs that compare params are int 0/1 values computed at every draw:
// checked here per draw against the same comparisons computed directly
// from the draw's params, with broadcasting, short-circuits, NaN (IEEE:
// false except !=, with OutputErr naming the NaN) and the posterior
// predictive p-value mean(y_rep > y). The log joint and its gradient are
// those of the model without the outputs.
func TestStepOutputs(t *testing.T) {
	m := compileSrc(t, "s.gpp", stepModel, nil, stepInput())
	lines := strings.Split(stepModel, "\n")
	var bareLines []string
	for _, l := range lines {
		if !strings.HasPrefix(l, "output") && !strings.HasPrefix(l, "let") {
			bareLines = append(bareLines, l)
		}
	}
	bare := compileSrc(t, "b.gpp", strings.Join(bareLines, "\n"), nil, stepInput())
	if m.Dim != bare.Dim {
		t.Fatalf("dimensions %d and %d", m.Dim, bare.Dim)
	}
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	ev.SetRand(rand.New(rand.NewPCG(7, 8)))
	out := map[string]int{}
	for i, o := range m.Outputs {
		out[o.Name] = i
	}
	if sh := m.Outputs[out["cells"]].Shape; len(sh) != 2 || sh[0] != 3 || sh[1] != 2 {
		t.Fatalf("cells has shape %v, want [3 2]", sh)
	}
	lat := map[string]Latent{}
	for _, l := range m.Latents {
		lat[l.Name] = l
	}
	value := func(c []float64, name string) []float64 {
		l := lat[name]
		v := make([]float64, l.Size)
		for k := range v {
			z := c[l.Offset+k]
			switch l.Support {
			case dist.Positive:
				z = math.Exp(z)
			case dist.Unit:
				z = 1 / (1 + math.Exp(-z))
			}
			v[k] = z
		}
		return v
	}
	b2f := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	y := []float64{0, 4, 2}
	xs := []float64{0.3, -1, 0, 2, -0.5, 0.25}
	rng := rand.New(rand.NewPCG(1, 2))
	c := make([]float64, m.Dim)
	for draw := range 200 {
		fillNormal(c, rng, 0, 1)
		if draw%7 == 0 { // B equal to x somewhere, mu exactly 0
			c[lat["B"].Offset+2], c[lat["mu"].Offset] = 0, 0
		}
		lp, outs, err := ev.Eval(c)
		if err != nil {
			t.Fatal(err)
		}
		g1, g2 := make([]float64, m.Dim), make([]float64, m.Dim)
		lp1, err1 := m.LogJoint(c, g1)
		lp2, err2 := bare.LogJoint(c, g2)
		if err1 != nil || err2 != nil || lp1 != lp2 || lp != lp1 {
			t.Fatalf("draw %d: log joint %v (%v), evaluator %v, without the outputs %v (%v)", draw, lp1, err1, lp, lp2, err2)
		}
		for i := range g1 {
			if g1[i] != g2[i] {
				t.Fatalf("draw %d: gradient[%d] %v, without the outputs %v", draw, i, g1[i], g2[i])
			}
		}
		mu, sigma := value(c, "mu")[0], value(c, "sigma")[0]
		theta, bv := value(c, "theta"), value(c, "B")
		get := func(name string) []float64 { return outs[out[name]] }
		scalar := map[string]float64{
			"pos":    b2f(mu > 0),
			"both":   b2f(mu > 0 && sigma < 1),
			"either": b2f(mu > 0 || sigma < 1),
			"n_big":  b2f(theta[0] > 0.5) + b2f(theta[1] > 0.5),
			"flag":   b2f(!(mu > 0)),
			"up2":    b2f(mu > 0),
			"fixed":  1, // one count above 2
			"sc":     0,
			"dyn":    b2f(mu > 0),
			"lneg":   b2f(math.Log(mu) < 0), // NaN for mu < 0: false; -Inf at 0
			"lne":    b2f(math.Log(mu) != 7),
		}
		for name, want := range scalar {
			if got := get(name); len(got) != 1 || got[0] != want {
				t.Errorf("draw %d (mu %g, sigma %g, theta %v): %s = %v, want %v", draw, mu, sigma, theta, name, got, want)
			}
		}
		for k := range 6 {
			i, j := k/2, k%2
			cells := b2f(bv[k] > theta[j])
			above := b2f(xs[k] <= bv[k])
			eq := b2f(bv[k] == xs[k])
			if got := get("cells")[k]; got != cells {
				t.Errorf("draw %d: cells[%d, %d] = %v, want %v", draw, i, j, got, cells)
			}
			if got := get("above")[k]; got != above {
				t.Errorf("draw %d: above[%d, %d] = %v, want %v", draw, i, j, got, above)
			}
			if got := get("eq")[k]; got != eq {
				t.Errorf("draw %d: eq[%d, %d] = %v, want %v", draw, i, j, got, eq)
			}
		}
		for j := range 2 {
			if got := get("nbig")[j]; got != b2f(!(theta[j] > 0.5)) {
				t.Errorf("draw %d: nbig[%d] = %v, theta %v", draw, j, got, theta)
			}
		}
		rep, n := get("y_rep"), 0.0
		for i := range y {
			n += b2f(rep[i] > y[i])
		}
		if got := get("exceed")[0]; got != n/3 {
			t.Errorf("draw %d: exceed = %v, want %v (y_rep %v)", draw, got, n/3, rep)
		}
		// log(0) = −Inf under a comparison is a value the output takes
		// in (−Inf < 0 is 1), a NaN is not (OutputErr)
		if err := ev.OutputErr(); (mu < 0) != (err != nil) || err != nil && !strings.HasPrefix(err.Error(), "s.gpp:27:15:") {
			t.Errorf("draw %d (mu %g): OutputErr %v, want one at log(mu) of line 27 exactly when mu < 0", draw, mu, err)
		}
	}
	checkGradient(t, m, 5, 1)
}

// Compile time: a comparison of data is still a constant, an int that can
// index; a NaN in it is still an error (a condition could not use it).
func TestStepOutputsData(t *testing.T) {
	in := data.Input{File: "d.json", JSON: map[string]*data.Array{
		"x": {Name: "x", Shape: []int{3}, Values: []float64{1, -1, 2}},
	}}
	m := compileSrc(t, "d.gpp", "data x: real[N]\nparam mu: real ~ Normal(0, 1)\noutput i = x[(x[2] > 0) + 1]\noutput p = (mu > 0) + sum(x > 0)\n", nil, in)
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	_, outs, err := ev.Eval([]float64{-0.5})
	if err != nil || outs[0][0] != 2 || outs[1][0] != 2 {
		t.Errorf("outputs %v (%v), want [[2] [2]]", outs, err)
	}
	_, err = compileSrcErr(t, "n.gpp", "data x: real[N]\nparam mu: real ~ Normal(0, 1)\noutput p = mu > 0 && sum(log(x) > 0) > 0\n", nil, in)
	if want := "n.gpp:3:26: `log(x)` is NaN with these data (element 1)"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
}
