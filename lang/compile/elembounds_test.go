package compile

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// elemData is the bounds c = (0.5, 2, -1.5), U = (3, 4, 0) per element,
// B = [[0, 1], [2, 3]] and the scalar L = -2.
func elemData() data.Input {
	return data.Input{File: "d.json", JSON: map[string]*data.Array{
		"c": {Name: "c", Shape: []int{3}, Values: []float64{0.5, 2, -1.5}},
		"U": {Name: "U", Shape: []int{3}, Values: []float64{3, 4, 0}},
		"B": {Name: "B", Shape: []int{2, 2}, Values: []float64{0, 1, 2, 3}},
		"L": {Name: "L", Shape: []int{}, Values: []float64{-2}},
	}}
}

// A param with a bound per element compiles, element by element, to the
// scalar bounded params with those elements' bounds: the same map from
// the factor's coordinates, the same log Jacobian, and the same log joint
// and gradient, bit for bit. A param's Jacobian Σ log|scale_i| is one
// constant, summed as the scalar params' constants are when it comes
// first: so each pair has one param with two bounds (lower- or
// upper-bounded ones have none), declared first.
func TestElemBoundsMatchScalars(t *testing.T) {
	const decls = "data c: real[3]\ndata U: real[3]\ndata B: real[2, 2]\ndata L: real\n"
	elems := func(name, bound string) string { // param name0: real<bound with c[0]>, ...
		var b strings.Builder
		for i := range 3 {
			k := strconv.Itoa(i)
			b.WriteString("param " + name + k + ": real<" + strings.NewReplacer("c", "c["+k+"]", "U", "U["+k+"]").Replace(bound) + ">\n")
		}
		return b.String()
	}
	const body = "x[0] * y[1] + square(x[1] - w[0]) + x[2] * w[1] + y[0] - y[2] * w[2] + m[0, 1] * m[1, 0] - m[0, 0] + m[1, 1]"
	scalarBody := strings.NewReplacer("[0, 0]", "00", "[0, 1]", "01", "[1, 0]", "10", "[1, 1]", "11", "[0]", "0", "[1]", "1", "[2]", "2").Replace(body)
	mElems := "param m00: real<lower=B[0, 0]>\nparam m01: real<lower=B[0, 1]>\nparam m10: real<lower=B[1, 0]>\nparam m11: real<lower=B[1, 1]>\n"
	for _, x := range []string{"lower=c, upper=U", "lower=L, upper=U", "lower=-5, upper=c"} {
		vec := compileSrc(t, "v.gpp", decls+"param x: real<"+x+">[3]\nparam y: real<lower=c>[3]\nparam w: real<upper=U>[3]\nparam m: real<lower=B>[2, 2]\ntarget += "+body+"\n", nil, elemData())
		sca := compileSrc(t, "s.gpp", decls+elems("x", x)+elems("y", "lower=c")+elems("w", "upper=U")+mElems+"target += "+scalarBody+"\n", nil, elemData())
		if vec.Dim != sca.Dim {
			t.Fatalf("%s: dim %d, with scalar params %d", x, vec.Dim, sca.Dim)
		}
		k := 0
		for _, l := range vec.Latents {
			if l.Loc != 0 || l.Scale != 0 || len(l.LocV) != l.Size || len(l.ScaleV) != l.Size {
				t.Errorf("%s: loc %v scale %v, locs %v scales %v: want the map per element", l.Name, l.Loc, l.Scale, l.LocV, l.ScaleV)
				continue
			}
			for i := range l.Size {
				s := sca.Latents[k]
				k++
				if l.LocV[i] != s.Loc || l.ScaleV[i] != s.Scale || l.Support != s.Support || l.Family != s.Family {
					t.Errorf("%s element %d: loc %v scale %v %v %s, as the scalar %s: %v %v %v %s",
						l.Name, i, l.LocV[i], l.ScaleV[i], l.Support, l.Family, s.Name, s.Loc, s.Scale, s.Support, s.Family)
				}
			}
		}
		for _, at := range [][]float64{make([]float64, vec.Dim), spread(vec.Dim, 1.3), spread(vec.Dim, 25), spread(vec.Dim, -25)} {
			g1, g2 := make([]float64, len(at)), make([]float64, len(at))
			v1, err1 := vec.LogJoint(at, g1)
			v2, err2 := sca.LogJoint(at, g2)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s at %v: %v, %v", x, at, err1, err2)
			}
			if v1 != v2 {
				t.Errorf("%s at %v: log joint %.17g, with scalar params %.17g", x, at, v1, v2)
			}
			for i := range g1 {
				if g1[i] != g2[i] {
					t.Errorf("%s at %v: grad[%d] %.17g, with scalar params %.17g", x, at, i, g1[i], g2[i])
				}
			}
		}
		checkGradient(t, vec, 11, 1)
	}
}

// spread returns n coordinates alternating in sign and growing from a.
func spread(n int, a float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = a * float64(i%3+1) / 2
		if i%2 == 1 {
			x[i] = -x[i]
		}
	}
	return x
}

// A prior on a param with a bound per element is truncated to each
// element's bounds: its normaliser, the Jacobian and the densities add up
// to those of the scalar params (to rounding: the terms are summed in
// another order), and its mean starts each element whose bounds hold it.
func TestElemBoundsPrior(t *testing.T) {
	const decls = "data c: real[3]\ndata U: real[3]\n"
	sca := compileSrc(t, "s.gpp", decls+`param x0: real<lower=c[0], upper=U[0]> ~ Normal(1, 2)
param x1: real<lower=c[1], upper=U[1]> ~ Normal(1, 2)
param x2: real<lower=c[2], upper=U[2]> ~ Normal(1, 2)
param y0: real<lower=c[0]> ~ Gamma(3, 2)
param y1: real<lower=c[1]> ~ Gamma(3, 2)
param y2: real<lower=c[2]> ~ Gamma(3, 2)
param w0: real<upper=U[0]> ~ Normal(2.5, 1)
param w1: real<upper=U[1]> ~ Normal(2.5, 1)
param w2: real<upper=U[2]> ~ Normal(2.5, 1)
target += x0 * y1 + w2
`, nil, withC(elemData(), []float64{0.5, 2, 0.001}))
	vec := compileSrc(t, "v.gpp", decls+`param x: real<lower=c, upper=U>[3] ~ Normal(1, 2)
param y: real<lower=c>[3] ~ Gamma(3, 2)
param w: real<upper=U>[3] ~ Normal(2.5, 1)
target += x[0] * y[1] + w[2]
`, nil, withC(elemData(), []float64{0.5, 2, 0.001}))
	for _, x := range [][]float64{make([]float64, vec.Dim), spread(vec.Dim, 1.3), spread(vec.Dim, -4)} {
		g1, g2 := make([]float64, len(x)), make([]float64, len(x))
		v1, err1 := vec.LogJoint(x, g1)
		v2, err2 := sca.LogJoint(x, g2)
		if err1 != nil || err2 != nil {
			t.Fatalf("at %v: %v, %v", x, err1, err2)
		}
		if math.Abs(v1-v2) > 1e-12*max(1, math.Abs(v2)) {
			t.Errorf("at %v: log joint %.17g, with scalar params %.17g", x, v1, v2)
		}
		for i := range g1 {
			if math.Abs(g1[i]-g2[i]) > 1e-12*max(1, math.Abs(g2[i])) {
				t.Errorf("at %v: grad[%d] %.17g, with scalar params %.17g", x, i, g1[i], g2[i])
			}
		}
	}
	k := 0
	for _, l := range vec.Latents {
		for i := range l.Size {
			s := sca.Latents[k]
			k++
			switch {
			case s.Init == nil && !math.IsNaN(l.Init[i]):
				t.Errorf("%s[%d] starts at %v, the scalar %s at the default", l.Name, i, l.Init[i], s.Name)
			case s.Init != nil && l.Init[i] != s.Init[0]:
				t.Errorf("%s[%d] starts at %v, the scalar %s at %v", l.Name, i, l.Init[i], s.Name, s.Init[0])
			}
		}
	}
	checkGradient(t, vec, 5, 1)
}

// withC returns in with c's values replaced, and U's last one 1.
func withC(in data.Input, c []float64) data.Input {
	in.JSON["c"].Values = c
	in.JSON["U"].Values[2] = 1
	return in
}

// Bounds per element that the data make invalid, or that a prior puts no
// mass on, are errors at the bound or the prior that name the element.
func TestElemBoundsErrors(t *testing.T) {
	const decls = "data c: real[3]\ndata U: real[3]\ndata L: real\n"
	for _, c := range []struct {
		src, want string
		c         []float64
	}{
		{"param x: real<lower=c, upper=U>[3]\ntarget += sum(x)\n", "e.gpp:4:30: the upper bound of `x` is not above its lower bound at element [2]: `U` is 1 there and `c` is 5 (with this data)",
			[]float64{0.5, 2, 5}},
		{"param x: real<lower=L, upper=U>[3]\ntarget += sum(x)\n", "e.gpp:4:30: the upper bound of `x` is not above its lower bound at element [1]: `U` is 4 there and `L` is 9 (with this data)",
			nil},
		{"param x: real<lower=c * 1e308 * 10>[3]\ntarget += sum(x)\n", "e.gpp:4:21: the lower bound `c * 1e308 * 10` of `x` is +Inf at element [0] (with this data): a param's bound must be finite",
			nil},
		{"param x: real<lower=L * 5e307, upper=U * 3e307>[3]\ntarget += sum(x)\n", "e.gpp:4:38: the bounds -1e+308 and 8.999999999999999e+307 of `x` at element [0] are too far apart: upper − lower overflows a double",
			nil},
		{"param x: real<lower=c>[3] ~ Gamma(2, 1)\ntarget += sum(x)\n", "e.gpp:4:29: Gamma(2, 1) puts no mass on part of the bounds (-1.5, ∞) of x[2] (with this data): it is 0 outside (0, ∞)",
			nil},
		{"param x: real<lower=c, upper=U>[3] ~ Uniform(-1, 10)\ntarget += sum(x)\n", "e.gpp:4:38: Uniform(-1, 10) puts no mass on part of the bounds (-1.5, 0) of x[2] (with this data): it is 0 outside (-1, 10)",
			nil},
		{"param x: real<lower=c>[M + 1] ~ Normal(0, 1)\ntarget += sum(x)\n", "e.gpp:3:21: the lower bound `c` of `x` is [3] with this data, not of `x`'s shape [4]: a bound per element needs one per element",
			nil},
	} {
		in := elemData()
		if c.c != nil {
			in = withC(in, c.c)
		}
		if strings.Contains(c.src, "lower=L,") {
			in.JSON["L"].Values[0] = 9
			in.JSON["U"].Values = []float64{10, 4, 12}
		}
		src := decls + c.src
		if strings.Contains(c.src, "[M + 1]") { // a size the checker cannot compare
			src = "data c: real[M]\ndata L: real\n" + c.src
		}
		_, err := compileSrcErr(t, "e.gpp", src, nil, in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got %v\nwant %s", c.src, err, c.want)
		}
	}
}
