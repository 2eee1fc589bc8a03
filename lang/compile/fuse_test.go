package compile

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/lang/ast"
)

const fuseHead = `data N: int
data links: int[E, 2]
const K = 3
param r: positive[K] ~ Gamma(1, 1)
param W: positive[N, K] ~ Gamma(1, 1)
param V: positive[N, K] ~ Gamma(1, 1)
`

// Every order and grouping of rowsum(W[i] .* W[j] .* r') lowers to the
// fused node and computes what the unfused product (through a let, which
// the pattern does not see) computes; products that do not fit fall back.
func TestRowSumProdLowering(t *testing.T) {
	links, _ := epmData(t, 7, 3)
	inputs := []data.Input{{Name: "links", File: "links.csv", Table: links}}
	sets := map[string]string{"N": "7"}
	for _, c := range []struct {
		name, prod string
		fused      bool
	}{
		{"w-w-r", "W[links[, 0]] .* W[links[, 1]] .* r'", true},
		{"r-w-w", "r' .* W[links[, 0]] .* W[links[, 1]]", true},
		{"w-r-w", "W[links[, 0]] .* r' .* W[links[, 1]]", true},
		{"grouped-right", "W[links[, 0]] .* (W[links[, 1]] .* r')", true},
		{"grouped-parens", "((r') .* (W[links[, 0]])) .* W[links[, 1]]", true},
		{"two-matrices", "W[links[, 0]] .* V[links[, 1]]", true},
		{"three-matrices", "W[links[, 0]] .* W[links[, 1]] .* V[links[, 0]]", false},
		{"scalar-weight", "W[links[, 0]] .* 2.0 .* W[links[, 1]]", false},
		{"four-factors", "W[links[, 0]] .* W[links[, 1]] .* r' .* r'", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			fused := compileSrc(t, "fused.gpp", fuseHead+"let rate = rowsum("+c.prod+")\ntarget += sum(log1mexp(rate) + rate)\n", sets, inputs...)
			plain := compileSrc(t, "plain.gpp", fuseHead+"let p = "+c.prod+"\nlet rate = rowsum(p)\ntarget += sum(log1mexp(rate) + rate)\n", sets, inputs...)
			rng := rand.New(rand.NewPCG(1, 2))
			x := make([]float64, fused.Dim)
			for i := range x {
				x[i] = -1 + 0.5*rng.NormFloat64()
			}
			g1, g2 := make([]float64, len(x)), make([]float64, len(x))
			v1, err1 := fused.LogJoint(x, g1)
			v2, err2 := plain.LogJoint(x, g2)
			if err1 != nil || err2 != nil {
				t.Fatalf("errors %v, %v", err1, err2)
			}
			if math.Abs(v1-v2) > 1e-12*math.Abs(v2) {
				t.Errorf("log joint %.17g, unfused %.17g", v1, v2)
			}
			for i := range g1 {
				if math.Abs(g1[i]-g2[i]) > 1e-12*max(1, math.Abs(g2[i])) {
					t.Errorf("d/d%s %.17g, unfused %.17g", fused.LatentOf(i), g1[i], g2[i])
				}
			}
			checkGradient(t, fused, 7, 0.5)
			// An overflowing product tells which node computed it: the
			// fused rowsum, at the position of the call, or a product.
			big := append([]float64(nil), x...)
			for i := 3; i < len(big); i++ {
				big[i] = 400 // W, V = e^400
			}
			_, err := fused.LogJoint(big, g1)
			var e *ast.Error
			if !errors.As(err, &e) {
				t.Fatalf("overflow: got %v, want a positioned error", err)
			}
			if got := strings.HasPrefix(err.Error(), "fused.gpp:7:12: rowsum: result is +Inf"); got != c.fused {
				t.Errorf("overflow error %q; fused %v", err, c.fused)
			}
		})
	}
}

// A prepared density keeps the kernel path's positioned diagnostics: a
// gamma shape that underflows to 0 (the square of a floored latent) is
// named with its element.
func TestPreparedDensityNaNProvenance(t *testing.T) {
	m := compileSrc(t, "m.gpp", "param a: positive[3] ~ Gamma(1, 1)\nparam W: positive[3, 2] ~ Gamma(a .* a, 1)\n", nil)
	x := []float64{0.1, -800, 0.3, 0, 0, 0, 0, 0, 0}
	_, err := m.LogJoint(x, make([]float64, len(x)))
	if want := "m.gpp:2:27: Gamma: shape must be > 0 (got 0, element [1, 0])"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
}

// A positive latent whose coordinate underflows (e^-800 = 0) is floored at
// the least normal, so a density taking it as a parameter stays valid, and
// the gradient stays finite.
func TestPositiveLatentFloor(t *testing.T) {
	m := compileSrc(t, "m.gpp", "param a: positive[3] ~ Gamma(1, 1)\nparam W: positive[3, 2] ~ Gamma(a, 1)\n", nil)
	x := []float64{0.1, -800, 0.3, 0, -900, 0, 0, 0, 0}
	g := make([]float64, len(x))
	lp, err := m.LogJoint(x, g)
	if err != nil || math.IsNaN(lp) || math.IsInf(lp, 0) {
		t.Fatalf("log joint %v, %v; want a finite value", lp, err)
	}
	for i, v := range g {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Errorf("gradient[%d] = %v", i, v)
		}
	}
}
