package compile

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/data"
)

// categoricalInput is the data of the categorical tests: N = 6
// observations of K = 3 classes and P = 2 covariates.
func categoricalInput(y []float64) data.Input {
	return data.Input{File: "d.json", JSON: map[string]*data.Array{
		"y": {Name: "y", Shape: []int{len(y)}, Values: y, Int: true},
		"X": {Name: "X", Shape: []int{6, 2}, Values: []float64{
			1, -0.5, 1, 0.3, 1, 1.2, 1, -1.1, 1, 0.7, 1, 2.0}},
	}}
}

var categoricalY = []float64{0, 2, 1, 1, 0, 2}

const categoricalDecls = `data y: int[N]
data X: real[N, P]
const K = 3
`

// The log joint and gradient of each categorical form equal the closed
// form written out here, and the gradient agrees with finite differences.
// The coordinates of a simplex param are log theta, so for Categorical the
// log joint is Σ_n x[y_n] (per row: x[n, y_n]) and its gradient the counts.
func TestCategoricalLogJoint(t *testing.T) {
	xs := categoricalInput(categoricalY).JSON["X"].Values
	const n, p, k = 6, 2, 3
	// logSoftmax returns log softmax(eta)[c] and adds w·(1{j = c} − softmax_j)
	// to g[j].
	logSoftmax := func(eta []float64, c int, w float64, g []float64) float64 {
		z := 0.0
		for _, e := range eta {
			z += math.Exp(e)
		}
		for j, e := range eta {
			d := -math.Exp(e) / z
			if j == c {
				d++
			}
			g[j] += w * d
		}
		return eta[c] - math.Log(z)
	}
	// the log joint of y under one shared simplex theta (x holds log theta:
	// the model's coordinates of theta's log values)
	sharedTheta := func(x, g []float64) float64 {
		lp := 0.0
		for _, yi := range categoricalY {
			lp += x[int(yi)]
			g[int(yi)]++
		}
		return lp
	}
	for _, c := range []struct {
		name, model string
		closed      func(x, g []float64) float64 // the log joint, its gradient into g
	}{
		{"regression", "param B: real[P, K]\ny ~ CategoricalLogit(X * B)\n",
			func(b, g []float64) float64 {
				lp := 0.0
				for i, yi := range categoricalY {
					eta, ge := make([]float64, k), make([]float64, k)
					for j := range k {
						for q := range p {
							eta[j] += xs[i*p+q] * b[q*k+j]
						}
					}
					lp += logSoftmax(eta, int(yi), 1, ge)
					for q := range p {
						for j := range k {
							g[q*k+j] += xs[i*p+q] * ge[j]
						}
					}
				}
				return lp
			}},
		{"shared-logit", "param a: real[K]\ny ~ CategoricalLogit(a)\n",
			func(a, g []float64) float64 {
				lp := 0.0
				for _, yi := range categoricalY {
					lp += logSoftmax(a, int(yi), 1, g)
				}
				return lp
			}},
		{"simplex", "param theta: simplex[K]\ny ~ Categorical(theta)\n", sharedTheta},
		{"simplex-rows", "param rows: simplex[N, K]\ny ~ Categorical(rows)\n",
			func(x, g []float64) float64 {
				lp := 0.0
				for i, yi := range categoricalY {
					lp += x[i*k+int(yi)]
					g[i*k+int(yi)]++
				}
				return lp
			}},
		{"loop", "param theta: simplex[K]\nfor i in 0:N {\n  y[i] ~ Categorical(theta)\n}\n", sharedTheta},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := compileSrc(t, "c.gpp", categoricalDecls+c.model, nil, categoricalInput(categoricalY))
			rng := rand.New(rand.NewPCG(61, 1))
			x := make([]float64, m.Dim)
			for range 3 {
				fillNormal(x, rng, -1, 1)
				grad, want := make([]float64, m.Dim), make([]float64, m.Dim)
				lp, err := m.LogJoint(x, grad)
				if err != nil {
					t.Fatal(err)
				}
				wlp := c.closed(x, want)
				if math.Abs(lp-wlp) > closedFormTol*max(1, math.Abs(wlp)) {
					t.Errorf("log joint %.17g, closed form %.17g", lp, wlp)
				}
				for i := range want {
					if math.Abs(grad[i]-want[i]) > closedFormTol*max(1, math.Abs(want[i])) {
						t.Errorf("d/d%s = %.17g, closed form %.17g", m.LatentOf(i), grad[i], want[i])
					}
				}
			}
			checkGradient(t, m, 62, 1)
		})
	}
}

// A category outside 0..K−1 is a compile error (Finish checks the data
// values of the log joint's densities) at the distribution, naming the
// element.
func TestCategoricalOutOfRange(t *testing.T) {
	for _, c := range []struct {
		model, want string
	}{
		{"param theta: simplex[K]\ny ~ Categorical(theta)\n", "c.gpp:5:5: Categorical: value 3 is not a category 0..2 (element [4])"},
		{"param B: real[P, K]\ny ~ CategoricalLogit(X * B)\n", "c.gpp:5:5: CategoricalLogit: value 3 is not a category 0..2 (element [4])"},
	} {
		y := append([]float64(nil), categoricalY...)
		y[4] = 3
		_, err := compileSrcErr(t, "c.gpp", categoricalDecls+c.model, nil, categoricalInput(y))
		if err == nil || err.Error() != c.want {
			t.Errorf("error %v, want %s", err, c.want)
		}
	}
	// Stan's 1-based categories, 1..K: the error says so and how to shift.
	y := make([]float64, len(categoricalY))
	for i, v := range categoricalY {
		y[i] = v + 1
	}
	_, err := compileSrcErr(t, "c.gpp", categoricalDecls+"param theta: simplex[K]\ny ~ Categorical(theta)\n", nil, categoricalInput(y))
	want := "c.gpp:5:5: Categorical: value 3 is not a category 0..2 (element [1]); categories are 0-based and these run from 1 to 3, as Stan's 1-based ids do: give the value minus 1 (`y - 1 ~ Categorical(theta)`) or 0-based categories"
	if err == nil || err.Error() != want {
		t.Errorf("1-based: error %v,\nwant %s", err, want)
	}
}
