package compile

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// renewalHead declares a renewal model's data and params: R from a walk
// on its log, a simplex generation interval w and a positive seed I0.
const renewalHead = `data cases: int[T]
data S: int
param logR: real[T] ~ Normal(0, 0.5)
param w: simplex[S] ~ Dirichlet(rep(2.0, S))
param I0: positive[S] ~ LogNormal(2, 0.5)
let R = exp(logR)
`

// TestRenewalUnrolled: renewal(R, w, I0) and the same recursion unrolled
// into one let per day, I_t = R[t] * (w[0] * I_{t-1} + ... + w[S-1] *
// I_{t-S}) with I0's elements before day 0, give the same log joint at
// random points, all of R, w and I0 params; the renewal form's gradient
// agrees with central differences.
func TestRenewalUnrolled(t *testing.T) {
	const T, S = 8, 3
	rng := rand.New(rand.NewPCG(5, 5))
	cv := make([]float64, T)
	for i := range cv {
		cv[i] = float64(rng.IntN(30))
	}
	in := data.Input{File: "d.json", JSON: map[string]*data.Array{
		"cases": {Name: "cases", Shape: []int{T}, Values: cv, Int: true},
		"S":     {Name: "S", Shape: []int{}, Values: []float64{S}, Int: true},
	}}
	ren := compileSrc(t, "ren.gpp", renewalHead+"cases ~ Poisson(renewal(R, w, I0))\n", nil, in)
	var b strings.Builder
	b.WriteString(renewalHead)
	at := func(u int) string {
		if u < 0 {
			return fmt.Sprintf("I0[%d]", S+u)
		}
		return fmt.Sprintf("I_%d", u)
	}
	var all []string
	for t := range T {
		var terms []string
		for s := 1; s <= S; s++ {
			terms = append(terms, fmt.Sprintf("w[%d] * %s", s-1, at(t-s)))
		}
		fmt.Fprintf(&b, "let I_%d = R[%d] * (%s)\n", t, t, strings.Join(terms, " + "))
		all = append(all, at(t))
	}
	fmt.Fprintf(&b, "cases ~ Poisson([%s])\n", strings.Join(all, ", "))
	unrolled := compileSrc(t, "unrolled.gpp", b.String(), nil, in)
	if ren.Dim != unrolled.Dim {
		t.Fatalf("dims %d and %d", ren.Dim, unrolled.Dim)
	}
	x, g := make([]float64, ren.Dim), make([]float64, ren.Dim)
	for range 5 {
		fillNormal(x, rng, 0, 0.4)
		a, err1 := ren.LogJoint(x, g)
		c, err2 := unrolled.LogJoint(x, g)
		if err1 != nil || err2 != nil || math.Abs(a-c) > 1e-10*math.Abs(c) {
			t.Errorf("at %v: log joint %v (%v) by renewal, %v (%v) unrolled", x, a, err1, c, err2)
		}
	}
	checkGradient(t, ren, 11, 0.4)
}
