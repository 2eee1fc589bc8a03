package compile

import (
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// plusGroupHead is language.md's plus-group population up to its
// abundance N: survival s[t] from the year's temperature, N0 and the
// recruitment R.
const plusGroupHead = `data y: int[T]
data temp: real[T]
param N0: positive ~ Gamma(2, 0.01)
param R: positive ~ Gamma(2, 0.05)
param b0: real ~ Normal(0, 2)
param b1: real ~ Normal(0, 1)
let s = inv_logit(b0 + b1 * temp)
`

// plusGroupInput reads examples/plusgroup.csv.
func plusGroupInput(t *testing.T) data.Input {
	t.Helper()
	f, err := os.Open("../../examples/plusgroup.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab, err := data.ReadCSV("plusgroup.csv", f)
	if err != nil {
		t.Fatal(err)
	}
	return data.Input{File: "plusgroup.csv", Table: tab}
}

// TestTVFilterPlusGroup: the plus group N[t] = s[t] N[t-1] + R by
// tv_filter and by its closed form in a loop, N[t] = exp(L[t]) (N0 + R Σ_{u=1..t}
// exp(−L[u])) with L the running sum of log s[1:], have the same log joint
// (to rounding: the two sum in different orders) at random points, and the
// tv_filter form's gradient agrees with central differences; a matrix of
// series with a shared a and with one per element is checked likewise.
func TestTVFilterPlusGroup(t *testing.T) {
	in := plusGroupInput(t)
	filter := compileSrc(t, "filter.gpp", plusGroupHead+`let N = tv_filter(s, append_row(N0, rep(R, T - 1)))
y ~ Poisson(N)
`, nil, in)
	loop := compileSrc(t, "loop.gpp", plusGroupHead+`let L = cumsum(append_row(0, log(s[1:])))
let C = cumsum(append_row(0, exp(-L[1:])))
for t in 0:T {
  y[t] ~ Poisson(exp(L[t]) * (N0 + R * C[t]))
}
`, nil, in)
	if filter.Dim != 4 || loop.Dim != 4 {
		t.Fatalf("dims %d and %d, want 4", filter.Dim, loop.Dim)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	x, g := make([]float64, 4), make([]float64, 4)
	for range 5 {
		fillNormal(x, rng, 0, 0.5)
		x[0], x[1] = math.Log(100+100*rng.Float64()), math.Log(20+40*rng.Float64()) // N0, R on their logs
		a, err1 := filter.LogJoint(x, g)
		b, err2 := loop.LogJoint(x, g)
		if err1 != nil || err2 != nil || math.Abs(a-b) > 1e-9*math.Abs(b) {
			t.Errorf("at %v: log joint %v (%v) by tv_filter, %v (%v) by the loop", x, a, err1, b, err2)
		}
	}
	checkGradient(t, filter, 8, 0.5)

	const T, K = 12, 3
	rng = rand.New(rand.NewPCG(9, 9))
	yv := make([]float64, T*K)
	fillNormal(yv, rng, 0, 1)
	mat := data.Input{File: "d.json", JSON: map[string]*data.Array{"Y": {Name: "Y", Shape: []int{T, K}, Values: yv}}}
	m := compileSrc(t, "m.gpp", `data Y: real[T, K]
param a: real[T] ~ Normal(0, 0.5)
param A: real<lower=-1, upper=1>[T, K] ~ Uniform(-1, 1)
param Z: real[T, K] ~ Normal(0, 1)
param tau: positive ~ HalfNormal(1)
Y ~ Normal(tv_filter(a, Z) + tv_filter(A, Z), tau)
`, nil, mat)
	checkGradient(t, m, 10, 0.5)
}

// TestARFilterPhiTooLong: ar_filter's phi [p] with p ≥ T coefficients for
// T steps, sizes known only from the data, is an error at phi's position
// that names tv_filter; p = T − 1 and a single coefficient are not.
func TestARFilterPhiTooLong(t *testing.T) {
	src := `data x: real[P]
data y: real[T]
param phi: real[P] ~ Normal(0, 0.3)
param z: real[T] ~ Normal(0, 1)
y ~ Normal(ar_filter(phi, z), 1)
`
	in := func(p, n int) data.Input {
		return data.Input{File: "d.json", JSON: map[string]*data.Array{
			"x": {Name: "x", Shape: []int{p}, Values: make([]float64, p)},
			"y": {Name: "y", Shape: []int{n}, Values: make([]float64, n)},
		}}
	}
	for _, c := range []struct {
		p, n int
		want string // "" for none
	}{
		{5, 5, "x.gpp:5:22: ar_filter reads `phi` [5] as the coefficients of an AR(5) filter, h[t] = e[t] + phi[0] * h[t-1] + ... + phi[p-1] * h[t-p], and e has 5 time steps; for a coefficient per time step, h[t] = a[t] * h[t-1] + e[t], write tv_filter(a, e)"},
		{7, 5, "x.gpp:5:22: ar_filter reads `phi` [7] as the coefficients of an AR(7) filter"},
		{2, 1, "and e has 1 time step;"},
		{4, 5, ""},
		{1, 1, ""},
	} {
		_, err := compileSrcErr(t, "x.gpp", src, nil, in(c.p, c.n))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("p = %d, T = %d: %v", c.p, c.n, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("p = %d, T = %d: error %v, want %q", c.p, c.n, err, c.want)
		}
	}
}
