package model

import (
	"math"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// NUTS's density of a unit param with a Beta prior (the marketing trial's
// pow1: `param d: unit ~ Beta(2, 2)`, the Jacobian log σ(u) + log σ(−u)
// included) is finite and analytic however far out u = logit d is: at
// u = ±800, where d rounds to 0 or 1, its gradient was ∞·0 and the sampler
// rejected the point. The value: (a−1)·log σ(u) + (b−1)·log σ(−u) −
// log B(a, b) + log σ(u) + log σ(−u); the gradient a·σ(−u) − b·σ(u).
func TestUnitBetaPriorDensityFarOut(t *testing.T) {
	const a, b = 2.0, 2.0
	m, err := Compile("pow.gpp", []byte("data y: real[N]\nparam d: unit ~ Beta(2, 2)\ny ~ Normal(d, 1)\n"), DataValues(map[string]any{"y": []float64{0.2, 0.4}}))
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []float64{-800, -740, 40, 800} {
		g := make([]float64, 1)
		lp, err := m.LogDensityGradient([]float64{u}, g)
		if err != nil {
			t.Fatalf("u = %v: %v", u, err)
		}
		d := dist.InvLogit(u)
		lik := -math.Log(2*math.Pi) - 0.5*((0.2-d)*(0.2-d)+(0.4-d)*(0.4-d))
		ls, lsm := -dist.Softplus(-u), -dist.Softplus(u)
		want := (a-1)*ls + (b-1)*lsm - dist.LogBeta(a, b) + ls + lsm + lik
		// the likelihood's ∂/∂u, (0.6 − 2d)·d(1−d), is 0 to rounding this far out
		wantG := a*dist.InvLogit(-u) - b*dist.InvLogit(u) + (0.6-2*d)*d*(1-d)
		if math.Abs(lp-want) > 1e-12*math.Abs(want) || math.Abs(g[0]-wantG) > 1e-12*max(1, math.Abs(wantG)) {
			t.Errorf("u = %v: log density %.17g, gradient %.17g; analytic %.17g, %.17g", u, lp, g[0], want, wantG)
		}
	}
}
