package compile

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// boundsData is y = (0.5, 2, -1.5) and the scalars L = -2, U = 3.
func boundsData() data.Input {
	return data.Input{File: "d.json", JSON: map[string]*data.Array{
		"y": {Name: "y", Shape: []int{3}, Values: []float64{0.5, 2, -1.5}},
		"L": {Name: "L", Shape: []int{}, Values: []float64{-2}},
		"U": {Name: "U", Shape: []int{}, Values: []float64{3}},
	}}
}

// A param whose bounds are data (or computed from data) compiles to the
// model with those values written as constants: the same map from the
// factor's coordinate, the same truncation normaliser, the same log joint
// and gradient, bit for bit.
func TestDataBoundsMatchConstants(t *testing.T) {
	const decls = "data y: real[N]\ndata L: real\ndata U: real\n"
	const body = "target += x[0] * lam * d + square(x[1] - lam) + w\n"
	withData := compileSrc(t, "d.gpp", decls+`param x: real<lower=L, upper=U>[2] ~ Normal(0, 1)
param lam: real<lower=max(y)> ~ Gamma(2, 1)
param d: real<upper=min(y) + 1> ~ Normal(0, 1)
param w: real<lower=L, upper=max(y)> ~ Uniform(L, U)
`+body, nil, boundsData())
	constant := compileSrc(t, "c.gpp", decls+`param x: real<lower=-2, upper=3>[2] ~ Normal(0, 1)
param lam: real<lower=2> ~ Gamma(2, 1)
param d: real<upper=-0.5> ~ Normal(0, 1)
param w: real<lower=-2, upper=2> ~ Uniform(-2, 3)
`+body, nil, boundsData())
	for i, l := range withData.Latents {
		c := constant.Latents[i]
		if l.Loc != c.Loc || l.Scale != c.Scale || l.Support != c.Support || l.Family != c.Family {
			t.Errorf("%s: loc %v scale %v %v %s, want %v %v %v %s", l.Name, l.Loc, l.Scale, l.Support, l.Family, c.Loc, c.Scale, c.Support, c.Family)
		}
	}
	for _, x := range [][]float64{{0, 0, 0, 0, 0}, {1.5, -2, 0.3, -1, 2}, {-30, 30, 5, -5, 0.1}} {
		g1, g2 := make([]float64, len(x)), make([]float64, len(x))
		v1, err1 := withData.LogJoint(x, g1)
		v2, err2 := constant.LogJoint(x, g2)
		if err1 != nil || err2 != nil {
			t.Fatalf("at %v: %v, %v", x, err1, err2)
		}
		if v1 != v2 {
			t.Errorf("at %v: log joint %.17g, with constant bounds %.17g", x, v1, v2)
		}
		for i := range g1 {
			if g1[i] != g2[i] {
				t.Errorf("at %v: grad[%d] %.17g, with constant bounds %.17g", x, i, g1[i], g2[i])
			}
		}
	}
	checkGradient(t, withData, 7, 1)
}

// Bounds of data that the data make invalid, and priors whose support
// does not hold the bounds the data give, are errors at their position
// when the model compiles with the data.
func TestDataBoundsErrors(t *testing.T) {
	for _, c := range []struct {
		src, want string
	}{
		{"data y: real[N]\ndata U: real\nparam x: real<lower=max(y), upper=U> ~ Normal(0, 1)\ntarget += x\n",
			"e.gpp:3:35: the upper bound of `x` is not above its lower bound: `U` is 3 and `max(y)` is 3 (with this data)"},
		{"data y: real[N]\nparam x: real<lower=-1, upper=min(y)>\ntarget += x\n",
			"e.gpp:2:31: the upper bound of `x` is not above its lower bound: `min(y)` is -1.5 and `-1` is -1 (with this data)"},
		{"data y: real[N]\nparam x: real<lower=min(y)> ~ Gamma(2, 1)\ntarget += x\n",
			"e.gpp:2:31: Gamma(2, 1) puts no mass on part of the bounds (-1.5, ∞) of x (with this data): it is 0 outside (0, ∞)"},
		{"data y: real[N]\ndata L: real\nparam x: real<lower=L, upper=max(y)> ~ Uniform(0, 10)\ntarget += x\n",
			"e.gpp:3:40: Uniform(0, 10) puts no mass on part of the bounds (-2, 2) of x (with this data): it is 0 outside (0, 10)"},
		{"data y: real[N]\ndata L: real\nparam x: real<lower=L * 5e307, upper=max(y) * 5e307>\ntarget += x\n",
			"e.gpp:3:38: the bounds -1e+308 and 1e+308 of `x` are too far apart: upper − lower overflows a double"},
		{"data y: real[N]\ndata L: real\nparam x: real<lower=L * 1e308 * 10>\ntarget += x\n",
			"e.gpp:3:21: the lower bound `L * 1e308 * 10` of `x` is -Inf: a param's bound must be finite"},
	} {
		in := boundsData()
		in.JSON["U"].Values[0] = 3
		if strings.Contains(c.src, "upper=U") {
			in.JSON["y"].Values = []float64{0.5, 3, -1.5}
		}
		_, err := compileSrcErr(t, "e.gpp", c.src, nil, in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got %v\nwant %s", c.src, err, c.want)
		}
	}
}
