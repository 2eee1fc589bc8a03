package compile

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// An int built from int data by a built-in or arithmetic (max(k), sum(k),
// k + 1) indexes, bounds a slice and a loop as a literal does: the model
// is the one with the values written in. Before, the checker accepted it
// and the compiler refused it ("index must be int data").
func TestIntCallsIndex(t *testing.T) {
	in := data.Input{File: "d.json", JSON: map[string]*data.Array{
		"y": {Name: "y", Shape: []int{5}, Values: []float64{1, 2, 3, 4, 5}},
		"k": {Name: "k", Shape: []int{2}, Values: []float64{1, 2}, Int: true},
	}}
	const decls = "data y: real[N]\ndata k: int[M]\nparam mu: real ~ Normal(0, 1)\n"
	computed := compileSrc(t, "c.gpp", decls+`y[max(k)] ~ Normal(mu, 1)
y[0:sum(k)] ~ Normal(mu, 2)
y[k + 1] ~ Normal(mu, 3)
for i in 0:min(k) {
    y[abs(-i) + 3] ~ Normal(mu, 4)
}
`, nil, in)
	literal := compileSrc(t, "l.gpp", decls+`y[2] ~ Normal(mu, 1)
y[0:3] ~ Normal(mu, 2)
y[[2, 3]] ~ Normal(mu, 3)
for i in 0:1 {
    y[i + 3] ~ Normal(mu, 4)
}
`, nil, in)
	for _, x := range []float64{-1, 0.3, 2} {
		g1, g2 := make([]float64, 1), make([]float64, 1)
		v1, err1 := computed.LogJoint([]float64{x}, g1)
		v2, err2 := literal.LogJoint([]float64{x}, g2)
		if err1 != nil || err2 != nil || v1 != v2 || g1[0] != g2[0] {
			t.Errorf("mu = %g: %v, %v (%v) against %v, %v (%v)", x, v1, g1, err1, v2, g2, err2)
		}
	}
	_, err := compileSrcErr(t, "e.gpp", decls+"y[sum(k) + 5] ~ Normal(mu, 1)\n", nil, in)
	if err == nil || !strings.Contains(err.Error(), "e.gpp:4:3: index 8 out of range [0, 5) along axis 0 of `y` (indices are 0-based)") {
		t.Errorf("an index out of range: %v", err)
	}
}
