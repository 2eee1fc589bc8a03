package compile

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/diff/fd"

	"github.com/gpplang/gpp/data"
)

// TestBoundaryGradient fails if an elementwise op whose value is finite at
// a boundary point of its argument but whose derivative there is infinite
// (pow with an exponent below 1, sqrt, cbrt at 0; asin, acos at ±1; acosh
// at 1) lets that infinite partial reach the parameters: ar_filter's
// element [0] is the data x[0], at the boundary, and depends on no param,
// yet 0·∞ in its reverse pass made the gradient NaN and NUTS rejected the
// point (the marketing trial's pow1.gpp). The gradient must be finite and
// match central differences; d and s move no element [0].
func TestBoundaryGradient(t *testing.T) {
	const head = "data x: real[N]\ndata y: real[N]\nparam d: unit ~ Beta(2, 2)\nparam s: positive ~ Gamma(4, 2)\n"
	// x's element [0] is at the op's boundary (±8 for asin and acos, read
	// through /8)
	at0 := []float64{0, 1, 0.5, 2, 1.5}
	at1 := []float64{1, 1.5, 1.2, 2, 1.5}
	for _, c := range []struct {
		name string
		xs   []float64
		line string
	}{
		{"pow", at0, "y ~ Normal(pow(ar_filter(d, x), s), 0.3)"},
		{"caret", at0, "y ~ Normal(ar_filter(d, x) ^ s, 0.3)"},
		{"pow data exponent", at0, "y ~ Normal(s * pow(ar_filter(d, x), 0.5), 0.3)"},
		{"pow exponent 0", at0, "y ~ Normal(s * pow(ar_filter(d, x), s - s), 0.3)"},
		{"sqrt", at0, "y ~ Normal(s * sqrt(ar_filter(d, x)), 0.3)"},
		{"cbrt", at0, "y ~ Normal(s * cbrt(ar_filter(d, x)), 0.3)"},
		{"asin", []float64{8, 0.2, 0.1, 0.3, 0.2}, "y ~ Normal(s * asin(ar_filter(d, x) / 8), 0.3)"},
		{"acos", []float64{-8, 0.2, 0.1, 0.3, 0.2}, "y ~ Normal(s * acos(ar_filter(d, x) / 8), 0.3)"},
		{"acosh", at1, "y ~ Normal(s * acosh(ar_filter(d, x)), 0.3)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ys := []float64{0, 1.1, 0.9, 2.4, 2.2}
			rows := make([][]float64, len(c.xs))
			for i := range rows {
				rows[i] = []float64{c.xs[i], ys[i]}
			}
			m := compileSrc(t, "b.gpp", head+c.line+"\n", nil, data.Input{File: "b.csv", Table: csvTable(t, "b.csv", "x,y", rows)})
			for _, at := range [][]float64{{-0.4, -0.3}, {0.2, 0.1}, {0.9, -1.2}} {
				grad := make([]float64, m.Dim)
				lp, err := m.LogJoint(at, grad)
				if err != nil || math.IsNaN(lp) || math.IsInf(lp, 0) {
					t.Fatalf("at %v: log joint %v, %v", at, lp, err)
				}
				f := func(x []float64) float64 {
					v, _ := m.LogJoint(x, make([]float64, len(x)))
					return v
				}
				want := fd.Gradient(nil, f, at, &fd.Settings{Formula: fd.Central, Step: 1e-6})
				for i := range want {
					if math.IsNaN(grad[i]) || math.IsInf(grad[i], 0) {
						t.Fatalf("at %v: d/dx[%d] (%s) = %v, finite differences %.10g", at, i, m.LatentOf(i), grad[i], want[i])
					}
					if err := math.Abs(grad[i]-want[i]) / math.Max(1, math.Abs(want[i])); err > gradTol {
						t.Errorf("at %v: d/dx[%d] (%s) = %.10g, finite differences %.10g (rel. error %.2g)", at, i, m.LatentOf(i), grad[i], want[i], err)
					}
				}
			}
		})
	}
}
