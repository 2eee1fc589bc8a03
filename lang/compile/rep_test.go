package compile

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/data"
)

// rep(x, n) is the model written with x repeated by hand: the same log
// joint and gradient (x's adjoint summed over the copies), an int rep
// indexes, and a replicate of rep(lambda, N) has N independent draws.
func TestRepForms(t *testing.T) {
	const decls = "const K = 2\nparam a: real\nparam s: positive\nparam v: real[2]\n"
	for _, c := range []struct{ name, rep, ref string }{
		{"param", "v ~ Normal(rep(a, 2), 1)", "v[0] ~ Normal(a, 1)\nv[1] ~ Normal(a, 1)"},
		{"constant", "v ~ Normal(0, rep(2.5, K))", "v ~ Normal(0, 2.5)"},
		{"weighted", "target += sum(rep(s, 3) .* [1, 2, 3])", "target += 6 * s"},
		{"index", "target += v[rep(1, 2)][0] + sum(v[rep(0, K)])", "target += v[1] + 2 * v[0]"},
		{"length an expression", "target += sum(rep(a * s, K + 1))", "target += 3 * a * s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := compileSrc(t, "a.gpp", decls+c.rep+"\n", nil)
			ref := compileSrc(t, "b.gpp", decls+c.ref+"\n", nil)
			for _, x := range [][]float64{{0.3, -0.2, 1.1, -0.4}, {-1.5, 0.7, 0.2, 2.5}} {
				sameLogJoint(t, m, ref, "the model written out", x, logJointTol, logJointTol)
			}
			checkGradient(t, m, 4, 0.5)
		})
	}
}

func TestRepReplicate(t *testing.T) {
	y := &data.Array{Name: "y", Shape: []int{4}, Values: []float64{3, 1, 4, 1}}
	in := data.Input{File: "d.json", JSON: map[string]*data.Array{"y": y}}
	src := `data y: int<lower=0>[N]
param lambda: positive ~ Gamma(2, 0.5)
y ~ Poisson(lambda)
output y_rep ~ Poisson(rep(lambda, N))
`
	m := compileSrc(t, "r.gpp", src, nil, in)
	if sh := m.Outputs[0].Shape; len(sh) != 1 || sh[0] != 4 {
		t.Fatalf("y_rep has shape %v, want [4]", sh)
	}
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	ev.SetRand(rand.New(rand.NewPCG(1, 2)))
	// λ = 3: each element Poisson(3), and the elements independent
	const n = 20000
	coords := []float64{math.Log(3)}
	var s, s2, s01 [4]float64
	for range n {
		_, outs, err := ev.Eval(coords)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range outs[0] {
			s[k] += v
			s2[k] += v * v
		}
		s01[0] += outs[0][0] * outs[0][1]
	}
	for k := range s {
		mu, v := s[k]/n, s2[k]/n-(s[k]/n)*(s[k]/n)
		if math.Abs(mu-3) > 5*math.Sqrt(3.0/n) || math.Abs(v/3-1) > 0.05 {
			t.Errorf("y_rep[%d]: mean %.4f variance %.4f, want 3 and 3", k, mu, v)
		}
	}
	if cov := s01[0]/n - s[0]/n*s[1]/n; math.Abs(cov) > 5*3/math.Sqrt(n) {
		t.Errorf("y_rep[0] and y_rep[1] covary (%.4f): one draw repeated, not N draws", cov)
	}
}
