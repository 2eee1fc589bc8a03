package dist

import (
	"math"
	"testing"
)

// hypergeometricRefTol bounds Hypergeometric's log mass against mpmath,
// relative to max(1, |value|, log C(A + B, N)), the largest of the terms
// that cancel.
const hypergeometricRefTol = 1e-14

// TestHypergeometricReference checks the log mass against mpmath's log
// binomial coefficients at 40 digits, up to urns of 5e6 (where the three
// log binomial coefficients, about 2.5e6, cancel to the mass's −7: 1.8e-11
// absolute error, where the log-gammas of the factorials, each about 7e7,
// would leave 1e-8), and the support's ends: outside them −Inf, an N
// above A + B NaN.
func TestHypergeometricReference(t *testing.T) {
	for _, c := range [][5]float64{
		{5.0, 10.0, 8.0, 2.0, -1.2237754316221157056},
		{10.0, 20.0, 15.0, 10.0, -6.9013664930286028096},
		{3.0, 3.0, 4.0, 0.0, -2.1690537003695230609},
		{1000.0, 5000.0, 7000.0, 400.0, -4.2421911466358211089},
		{1000000.0, 3000000.0, 2000000.0, 600000.0, -7.001564135792965375},
		{7.0, 7.0, 0.0, 7.0, 0.0},
	} {
		got := Hypergeometric{c[0], c[1], c[2]}.LogProb(c[3])
		scale := -math.Log1p(c[1]+c[2]) - LogBeta(c[1]+c[2]-c[0]+1, c[0]+1)
		if math.Abs(got-c[4]) > hypergeometricRefTol*max(1, math.Abs(c[4]), scale) {
			t.Errorf("Hypergeometric(%v, %v, %v) at %v: log p = %.17g, mpmath %.17g", c[0], c[1], c[2], c[3], got, c[4])
		}
	}
	d := Hypergeometric{5, 3, 4} // support max(0, 5 − 4) = 1 .. min(3, 5) = 3
	for _, k := range []float64{0, 4, 1.5} {
		if lp := d.LogProb(k); !math.IsInf(lp, -1) {
			t.Errorf("Hypergeometric(5, 3, 4) at %v: log p = %v, want -Inf", k, lp)
		}
	}
	var total float64
	for k := 1.0; k <= 3; k++ {
		total += math.Exp(d.LogProb(k))
	}
	if math.Abs(total-1) > 1e-14 {
		t.Errorf("Hypergeometric(5, 3, 4): masses sum to %.17g", total)
	}
	if lp := (Hypergeometric{8, 3, 4}).LogProb(3); !math.IsNaN(lp) {
		t.Errorf("N = 8 > A + B = 7: log p = %v, want NaN", lp)
	}
}
