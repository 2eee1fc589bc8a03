package compile

import (
	"testing"

	"github.com/gpplang/gpp/data"
)

// rep_matrix(x, n, m) is the [n, m] matrix of x: the model with it equals
// the one with the product of ones that it replaces, in log joint and
// gradient; its sizes may come from the data.
func TestRepMatrix(t *testing.T) {
	in := data.Input{File: "d.json", JSON: map[string]*data.Array{
		"Y": {Name: "Y", Shape: []int{3, 2}, Values: []float64{1, 2, 3, 4, 5, 6}},
	}}
	const decls = "data Y: real[N, D]\nparam mu: real ~ Normal(0, 1)\nparam s: positive ~ Gamma(2, 2)\n"
	a := compileSrc(t, "a.gpp", decls+"Y ~ Normal(rep_matrix(mu, N, D), s)\ntarget += sum(rep_matrix(2, 2, 3)) * mu\n", nil, in)
	b := compileSrc(t, "b.gpp", decls+"Y ~ Normal(mu * rep(1, N) * rep(1, D)', s)\ntarget += 12 * mu\n", nil, in)
	for _, x := range [][]float64{{0.3, 0.1}, {-1, 1.5}} {
		g1, g2 := make([]float64, 2), make([]float64, 2)
		v1, err1 := a.LogJoint(x, g1)
		v2, err2 := b.LogJoint(x, g2)
		if err1 != nil || err2 != nil || v1 != v2 || g1[0] != g2[0] || g1[1] != g2[1] {
			t.Errorf("at %v: %v %v (%v), want %v %v (%v)", x, v1, g1, err1, v2, g2, err2)
		}
	}
	checkGradient(t, a, 3, 1)
}
