package compile

import (
	"errors"
	"fmt"
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
			g1 := make([]float64, len(x))
			sameLogJoint(t, fused, plain, "unfused", x, 1e-12, 1e-12)
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

// Factor-analysis covariances W * W' + v I(D), written in any of the usual
// ways (through a let), take the low-rank Gaussian path when K ≤ 3D/4 and
// compute what the dense path computes; a non-positive v is reported at
// the likelihood with its value.
func TestLowRankGaussianLowering(t *testing.T) {
	y := gpfaData(t, 20, 4, 8)
	model := func(k int, v, cov string) string {
		return fmt.Sprintf("data Y: real[N, D]\nconst K = %d\nparam s: real ~ Normal(1, 1)\nparam W: positive[D, K] ~ Gamma(1, 1)\n"+
			"let v = %s\nlet C = %s\nY ~ MvNormalRows(0, C)\n", k, v, cov)
	}
	for _, c := range []struct {
		name, cov string
		k         int
		lowRank   bool
	}{
		{"times", "W * W' + I(D) * v", 2, true},
		{"scale-first", "v * I(D) + W * W'", 2, true},
		{"elementwise", "(W * W') + (I(D) .* v)", 2, true},
		{"divided", "W * W' + I(D) / v", 2, true},
		{"k = 3D/4", "W * W' + I(D) * v", 3, true},
		{"k = D", "W * W' + I(D) * v", 4, false},
		{"not isotropic", "W * W' + I(D) * v + 0 * I(D)", 2, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := data.Input{File: "y.csv", Table: y}
			m := compileSrc(t, "fa.gpp", model(c.k, "s * s + 0.2", c.cov), nil, in)
			dense := compileSrc(t, "fa.gpp", model(c.k, "s * s + 0.2", c.cov+" + 0 * I(D)"), nil, in)
			rng := rand.New(rand.NewPCG(3, 4))
			x := make([]float64, m.Dim)
			fillNormal(x, rng, 0, 0.5)
			sameLogJoint(t, m, dense, "dense", x, 1e-12, 1e-10)
			checkGradient(t, m, 9, 0.5)
			g1 := make([]float64, len(x))

			bad := compileSrc(t, "fa.gpp", model(c.k, "s", c.cov), nil, in)
			for i := range x {
				if bad.LatentOf(i) == "s" {
					x[i] = -0.5 // C is not positive definite
				}
			}
			_, err := bad.LogJoint(x, g1)
			if err == nil {
				t.Fatal("v < 0: no error")
			}
			wantLR := "fa.gpp:7:5: MvNormalRows: covariance matrix W W' + s I is not positive definite: s = "
			if got := strings.HasPrefix(err.Error(), wantLR); got != c.lowRank {
				t.Errorf("error %q; low-rank %v", err, c.lowRank)
			}
		})
	}
}

// sameLogJoint checks that m and ref (named refName in messages) give the
// same log joint at x, to relative tolV, and the same gradient, to tolG
// relative to max(1, |ref's|); a NaN fails (tolerances 0: bit for bit).
func sameLogJoint(t *testing.T, m, ref *Model, refName string, x []float64, tolV, tolG float64) {
	t.Helper()
	g1, g2 := make([]float64, len(x)), make([]float64, len(x))
	v1, err1 := m.LogJoint(x, g1)
	v2, err2 := ref.LogJoint(x, g2)
	if err1 != nil || err2 != nil {
		t.Fatalf("errors %v, %v", err1, err2)
	}
	if !(math.Abs(v1-v2) <= tolV*math.Abs(v2)) {
		t.Errorf("log joint %.17g, %s %.17g", v1, refName, v2)
	}
	for i := range g1 {
		if !(math.Abs(g1[i]-g2[i]) <= tolG*max(1, math.Abs(g2[i]))) {
			t.Errorf("d/d%s %.17g, %s %.17g", m.LatentOf(i), g1[i], refName, g2[i])
		}
	}
}
