package dist

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
)

// betaNegBinomialRefTol bounds BetaNegBinomial's log mass and partials
// against mpmath at 40 digits, relative to max(1, |value|).
const betaNegBinomialRefTol = 1e-12

// TestBetaNegBinomialReference checks BetaNegBinomial's log mass and its
// partials in r, alpha and beta against mpmath (lgamma(k + r) −
// lgamma(k + 1) − lgamma(r) + lbeta(alpha + r, beta + k) − lbeta(alpha,
// beta) and the digamma sums, 40 digits): small and large arguments, a
// far tail, and shapes 1e7 where the lgamma differences computed apart
// lose their digits.
func TestBetaNegBinomialReference(t *testing.T) {
	for _, r := range [][8]float64{
		{2.0, 5.0, 3.0, 0.0, -0.87546873735389993563, -0.37896825396825396825, 0.13055555555555555556, -0.23611111111111111111},
		{2.0, 5.0, 3.0, 4.0, -3.1302631665115971497, 0.55319957819957819958, -0.22060994560994560995, 0.36272338772338772339},
		{0.5, 1.5, 0.8, 17.0, -7.6864668100531441906, 2.2594348900903590948, -1.9738826617743554091, 1.4556771824275069527},
		{10.0, 2.5, 7.0, 100.0, -6.4174558817827019847, 0.15024465103114514463, -0.79934954839596303477, 0.21397576454904846957},
		{100000.0, 300000.0, 200000.0, 7.0, -45338.344841691480181, -0.40540719348336315953, 0.10534909904979578734, -0.18229839059404552463},
		{3.0, 10000000.0, 20000000.0, 5.0, -2.2786401021550460431, -0.0057551458109664638822, 3.3333334444444259259e-8, -1.666666055555699074e-8},
		{0.01, 0.3, 0.02, 1000.0, -16.486594746257618771, 97.176851020308727391, -10.06051777275623706, 47.272736852900801742},
	} {
		d := BetaNegBinomial{r[0], r[1], r[2]}
		s := d.Score(nil, r[3])
		for i, got := range append([]float64{d.LogProb(r[3])}, s...) {
			want := r[4+i]
			tol := betaNegBinomialRefTol * max(1, math.Abs(want))
			if i == 2 || i == 3 {
				tol = betaNegBinomialRefTol * max(1e-6, math.Abs(want)) // the small partials of large shapes keep relative digits
			}
			if math.Abs(got-want) > tol {
				t.Errorf("BetaNegBinomial(%v, %v, %v) at %v: %s = %.17g, mpmath %.17g", r[0], r[1], r[2], r[3], []string{"log p", "∂r", "∂alpha", "∂beta"}[i], got, want)
			}
		}
	}
}

// TestBetaNegBinomialPartialsFD checks the partials against central
// differences of the log mass at random parameters and counts.
func TestBetaNegBinomialPartialsFD(t *testing.T) {
	for _, p := range [][3]float64{{2, 5, 3}, {0.3, 1.2, 0.4}, {40, 12, 80}} {
		for _, k := range []float64{0, 1, 9, 250} {
			dp := make([]float64, 3)
			BetaNegBinomial{p[0], p[1], p[2]}.eval(k, dp)
			want := fd.Gradient(nil, func(q []float64) float64 {
				return BetaNegBinomial{q[0], q[1], q[2]}.LogProb(k)
			}, p[:], &fd.Settings{Formula: fd.Central, Step: 1e-6})
			for i := range dp {
				if math.Abs(dp[i]-want[i]) > partialTol*max(1, math.Abs(want[i])) {
					t.Errorf("BetaNegBinomial(%v) at %v: partial %d = %.10g, finite difference %.10g", p, k, i, dp[i], want[i])
				}
			}
		}
	}
}
