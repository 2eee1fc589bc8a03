package dist

import (
	"math"
	"math/rand/v2"
	"testing"
)

// dirMultRefTol bounds DirichletMultinomial.LogProb's difference from
// mpmath at 40 digits, relative to max(1, |value|, log m!), the largest of
// the terms that cancel (m the total).
const dirMultRefTol = 1e-14

// DirichletMultinomial.LogProb matches reference values computed with
// mpmath (lgamma(a0) − lgamma(m + a0) + Σ (lgamma(y + α) − lgamma(α)) +
// lgamma(m + 1) − Σ lgamma(y + 1) at 40 digits): small and large
// concentrations (α = 1e9, where the lgamma differences computed apart
// lose 8 digits) and tiny ones (α = 1e-12), zero counts, one category,
// a zero total.
func TestDirichletMultinomialReference(t *testing.T) {
	for _, c := range []struct {
		alpha, y []float64
		want     float64
	}{
		{[]float64{1.5, 0.3, 2}, []float64{3, 0, 7}, -2.5201327377592339608},
		{[]float64{0.01, 0.02}, []float64{5, 1}, -4.8754030267515436787},
		{[]float64{1e6, 2e6, 3e6}, []float64{1, 2, 3}, -1.9740820260216485161},
		{[]float64{2.5}, []float64{4}, 0},
		{[]float64{1, 1, 1, 1}, []float64{0, 0, 0, 0}, 0},
		{[]float64{1e9, 1e9}, []float64{10, 0}, -6.931471783099453201},
		{[]float64{0.5, 4, 7.5}, []float64{120, 33, 800}, -16.170126335854756336},
		// tiny concentrations: α + y − 1 would round α away (3e-6 of the
		// value, before LogRisingFactorial); a0 = 0.5 + 1e-12 rounds, so
		// the last, a difference of two lgamma differences of about 6.6,
		// keeps its digits only to 1e-15 of them
		{[]float64{1e-12, 2.5, 3e-12}, []float64{1, 4, 0}, -27.893385380401013684},
		{[]float64{1e-12, 1e-12}, []float64{3, 0}, -0.69314718056144530942},
		{[]float64{1e-12, 2e-12, 5e-13}, []float64{1, 2, 7}, -56.851277436980353772},
		{[]float64{1e-12, 0.5}, []float64{0, 6}, -3.756421356418972087e-12},
	} {
		got := DirichletMultinomial{Alpha: c.alpha}.LogProb(c.y)
		var m float64
		for _, v := range c.y {
			m += v
		}
		lm, _ := math.Lgamma(m + 1)
		t.Logf("alpha %v, y %v: error %.2g", c.alpha, c.y, got-c.want)
		if math.Abs(got-c.want) > dirMultRefTol*max(1, math.Abs(c.want), lm) {
			t.Errorf("alpha %v, y %v: LogProb = %.17g, want %.17g", c.alpha, c.y, got, c.want)
		}
	}
	if lp := (DirichletMultinomial{Alpha: []float64{1, 2}}).LogProb([]float64{1.5, 2}); !math.IsInf(lp, -1) {
		t.Errorf("a count 1.5: LogProb = %v, want -Inf", lp)
	}
}

// The probabilities of all count vectors of a total sum to 1, and
// DirichletMultinomial.Rand's frequencies match them (a chi-square
// statistic below its 0.999 quantile).
func TestDirichletMultinomialRand(t *testing.T) {
	d := DirichletMultinomial{Alpha: []float64{0.7, 2, 1.2}}
	const m = 6
	var p []float64
	var total float64
	for a := 0.0; a <= m; a++ {
		for b := 0.0; a+b <= m; b++ {
			v := math.Exp(d.LogProb([]float64{a, b, m - a - b}))
			p = append(p, v)
			total += v
		}
	}
	if math.Abs(total-1) > 1e-13 {
		t.Errorf("the probabilities of the 28 count vectors of total 6 sum to %.17g", total)
	}
	rng := rand.New(rand.NewPCG(4, 2))
	const n = 100000
	freq := make([]float64, len(p))
	y := make([]float64, 3)
	for range n {
		d.Rand(y, m, rng)
		a, b := int(y[0]), int(y[1])
		freq[a*(2*m+3-a)/2+b]++ // the index of (a, b) in the loops above
	}
	var chi2 float64
	for i, f := range freq {
		chi2 += (f - n*p[i]) * (f - n*p[i]) / (n * p[i])
	}
	// 27 degrees of freedom: the 0.999 quantile is 55.5
	if chi2 > 55.5 {
		t.Errorf("chi-square %.1f of the draws' frequencies, above the 0.999 quantile 55.5 of 27 df", chi2)
	}
}
