package compile

import (
	"math"
	"testing"

	"github.com/gpplang/gpp/dist"
	"gonum.org/v1/gonum/diff/fd"
)

// betaLogit is the Beta(a, b) log density of x = σ(u) and its derivative
// in u, written from log x = −log(1 + e^−u) and log(1 − x) = −log(1 + e^u).
func betaLogit(a, b, u float64) (lp, du float64) {
	lp = -(a-1)*dist.Softplus(-u) - (b-1)*dist.Softplus(u) - dist.LogBeta(a, b)
	return lp, (a-1)*dist.InvLogit(-u) - (b-1)*dist.InvLogit(u)
}

// A Beta prior on a unit param has a finite log density and gradient in
// its coordinate u = logit d however far out u is, equal to the analytic
// ones: where σ(u) rounds to 0 or 1 (or is kept a subnormal inside), Beta's
// ∂/∂d overflowed and the chain rule through dd/du gave ∞·0 or an error
// (the marketing trial's pow1: NUTS rejected such points). In the normal
// range the gradient, a's partial included, is the finite differences'.
func TestUnitBetaPriorFarOut(t *testing.T) {
	const a, b = 2.0, 3.0
	m := compileSrc(t, "u.gpp", "param d: unit ~ Beta(2, 3)\n", nil)
	for _, u := range []float64{-800, -745, -710, -40, -3, 0.5, 30, 37, 40, 800} {
		g := make([]float64, m.Dim)
		lp, err := m.LogJoint([]float64{u}, g)
		if err != nil {
			t.Fatalf("u = %v: %v", u, err)
		}
		want, wantDu := betaLogit(a, b, u)
		if math.Abs(lp-want) > 1e-12*max(1, math.Abs(want)) || math.Abs(g[0]-wantDu) > 1e-12*max(1, math.Abs(wantDu)) {
			t.Errorf("u = %v: log density %.17g, gradient %.17g; analytic %.17g, %.17g", u, lp, g[0], want, wantDu)
		}
	}
	// a param shape: its partial (dp) and the value's, against fd
	m = compileSrc(t, "ua.gpp", "param a: positive ~ Gamma(2, 1)\nparam d: unit ~ Beta(a, 3)\n", nil)
	f := func(x []float64) float64 {
		v, _ := m.LogJoint(x, make([]float64, len(x)))
		return v
	}
	for _, x := range [][]float64{{0.3, -2}, {-0.5, 1.5}, {1.2, 0.1}} {
		g := make([]float64, m.Dim)
		if _, err := m.LogJoint(x, g); err != nil {
			t.Fatal(err)
		}
		want := fd.Gradient(nil, f, x, &fd.Settings{Formula: fd.Central, Step: 1e-6})
		for i := range g {
			if math.Abs(g[i]-want[i]) > 1e-6*max(1, math.Abs(want[i])) {
				t.Errorf("at %v: d/dx[%d] = %.10g, finite differences %.10g", x, i, g[i], want[i])
			}
		}
	}
	// far out with a param shape: finite, the analytic partial in u
	for _, u := range []float64{-800, 800} {
		g := make([]float64, m.Dim)
		la := math.Log(1.5)
		lp, err := m.LogJoint([]float64{la, u}, g)
		if err != nil || math.IsInf(lp, 0) || math.IsNaN(lp) {
			t.Fatalf("a = 1.5, u = %v: %v, %v", u, lp, err)
		}
		_, wantDu := betaLogit(1.5, b, u)
		if math.Abs(g[1]-wantDu) > 1e-12*max(1, math.Abs(wantDu)) || math.IsNaN(g[0]) || math.IsInf(g[0], 0) {
			t.Errorf("a = 1.5, u = %v: gradient %v, want ∂/∂u %v", u, g, wantDu)
		}
	}
}
