package compile

import (
	"math"
	"slices"
	"testing"

	"github.com/gpplang/gpp/data"
)

// A prior's mean is a param's start (Latent.Init) element by element when
// its arguments are constants of the model's text, vectors and matrices
// too, broadcast to the param's shape; an argument of data is not one.
func TestPriorMeanConstVector(t *testing.T) {
	nan := math.NaN()
	in := data.Input{File: "d.json", JSON: map[string]*data.Array{
		"d": {Name: "d", Shape: []int{2}, Values: []float64{1, 2}},
	}}
	for _, c := range []struct {
		src  string
		want []float64 // nil: the default start
	}{
		{"param b: real ~ Normal(3, 1)", []float64{3}},
		{"param b: real[3] ~ Normal([4, 0, 0], [2, 1, 1])", []float64{4, 0, 0}},
		{"param b: real[3] ~ Normal(-[1, 2, 3] + 0.5, 1)", []float64{-0.5, -1.5, -2.5}},
		{"const m = 2\nparam b: real[2] ~ Normal([m, -m] * 2, 1)", []float64{4, -4}},
		{"const m = 2\nparam b: real[2] ~ StudentT(3, [m, 1] / [4, 2], 1)", []float64{0.5, 0.5}},
		{"param b: real[2] ~ Normal(log([1, exp(2)]), 1)", []float64{0, 2}},
		{"param g: positive[2] ~ Gamma([2, 3], [1, 2])", []float64{2, 1.5}},
		{"param g: positive[2] ~ Exponential([1, 0.5])", []float64{1, 2}},
		{"param M: real[2, 3] ~ Normal([1, 2, 3]', 1)", []float64{1, 2, 3, 1, 2, 3}},
		{"param M: real[2, 3] ~ Normal([1, 2], 1)", []float64{1, 1, 1, 2, 2, 2}},
		{"param M: real[2, 2] ~ Normal([[1, 2], [3, 4]], 1)", []float64{1, 2, 3, 4}},
		{"param M: real[2, 2] ~ Normal([[1, 2], [3, 4]]', 1)", []float64{1, 3, 2, 4}},
		// b = (m − lower) / (upper − lower); 20 is outside: that element's default
		{"param u: real<lower=0, upper=10>[2] ~ Normal([5, 20], 1)", []float64{0.5, nan}},
		{"param g: real<lower=1>[2] ~ Normal([0, 3], 1)", []float64{nan, 2}},
		{"param g: real<lower=1>[2] ~ Normal([0, 1], 1)", nil},
		{"data d: real[2]\nparam b: real[2] ~ Normal(d, 1)", nil},
		{"data d: real[2]\nparam b: real[2] ~ Normal([4, d[0]], 1)", nil},
		{"param b: real[3] ~ Normal(rep(4, 3), 1)", nil},
		{"param b: real[2, 2] ~ Normal([[1, 2], [3, 4]] * [[1, 0], [0, 1]], 1)", nil},
	} {
		m := compileSrc(t, "p.gpp", c.src+"\n", nil, in)
		got := m.Latents[len(m.Latents)-1].Init
		if !slices.EqualFunc(got, c.want, func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }) || (got == nil) != (c.want == nil) {
			t.Errorf("%s: start %v, want %v", c.src, got, c.want)
		}
	}
}
