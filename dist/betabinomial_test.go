package dist

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
)

// Tolerances of the BetaBinomial tests.
const (
	// bbRefUlps bounds the log mass against mpmath in units of eps times
	// the size of its terms, 1 + |log p| + the largest |T(m, s)| of
	// lbetaRatio: they cancel to a far smaller log mass where n and a + b
	// are both large (n = b = 1e12, a = 3: log p = −1.674 from terms of
	// 1.4e12, 3e-3 off), as in Stan's lbeta form; up to n = 1e6 the
	// error is within 5 eps of the terms.
	bbRefUlps = 16
	// bbPartialUlps bounds the partials against mpmath in units of eps
	// times the size of their two digamma differences.
	bbPartialUlps = 16
	// bbCDFTol bounds the log tails against mpmath's sums, relative to
	// max(1, |log P|): each log mass rounds to eps times its terms, about
	// log C(n, k), 1e-12 absolute at n = 1000 (as the masses themselves
	// do, within bbRefUlps), and the ratios of the sum add an ulp a term.
	bbCDFTol = 1e-11
	// bbFDTol is the agreement of the partials with central differences
	// of step 1e-4 relative, relative to max(1, |partial|): at a = 1e-3
	// the difference's truncation error, ψ''(a)·h²/6, is 3e-6, and at
	// shapes of 1e7 its rounding, eps·|log p terms|/h, about as much.
	bbFDTol = 2e-5
)

// TestBetaBinomialReference checks BetaBinomial's log mass, partials and
// log tails against testdata/betabinomial.csv (mpmath at 50 digits, the
// partials from its digammas, the tails summed mass by mass; see
// betabinomial.py) for n from 0 to 1e12, shapes from 1e-300 to 1e12.
func TestBetaBinomialReference(t *testing.T) {
	rows := readRefCSV(t, "testdata/betabinomial.csv", 9)
	if len(rows) < 800 {
		t.Fatalf("%d reference rows, want at least 800", len(rows))
	}
	lcdf, _ := LogCDF("BetaBinomial", false)
	lccdf, _ := LogCDF("BetaBinomial", true)
	var worst [5]float64
	ntails := 0
	for _, r := range rows {
		n, a, b, k := r[0], r[1], r[2], r[3]
		d := BetaBinomial{n, a, b}
		lp, s := d.LogProb(k), d.Score(nil, k)
		terms := math.Max(math.Abs(lbetaRatio(k, a)), math.Max(math.Abs(lbetaRatio(n-k, b)), math.Abs(lbetaRatio(n, a+b))))
		e := math.Abs(lp-r[4]) / (eps * (1 + math.Abs(r[4]) + terms))
		worst[0] = math.Max(worst[0], e)
		if !(e <= bbRefUlps) {
			t.Errorf("BetaBinomial(%v, %v, %v) at %v: log p = %.17g, mpmath %.17g (%.3g eps·scale)", n, a, b, k, lp, r[4], e)
		}
		dn := math.Abs(digammaDiff(a+b, n))
		for i, scale := range []float64{math.Abs(digammaDiff(a, k)) + dn, math.Abs(digammaDiff(b, n-k)) + dn} {
			e := math.Abs(s[1+i]-r[5+i]) / (eps * math.Max(scale, math.SmallestNonzeroFloat64))
			if n == 0 { // 0 exactly; mpmath's digammas leave 1e-50
				e = math.Abs(s[1+i]-r[5+i]) / eps
			}
			worst[1+i] = math.Max(worst[1+i], e)
			if !(e <= bbPartialUlps) {
				t.Errorf("BetaBinomial(%v, %v, %v) at %v: partial %d = %.17g, mpmath %.17g (%.3g eps·scale)", n, a, b, k, 1+i, s[1+i], r[5+i], e)
			}
		}
		if math.IsNaN(r[7]) {
			continue
		}
		ntails++
		dp := make([]float64, 3)
		for i, lt := range []Kernel{lcdf, lccdf} {
			got, _ := lt(k, []float64{n, a, b}, dp)
			want := r[7+i]
			e := math.Abs(got-want) / math.Max(1, math.Abs(want))
			worst[3+i] = math.Max(worst[3+i], e)
			if !(e <= bbCDFTol) {
				t.Errorf("BetaBinomial(%v, %v, %v): log P(Y %s %v) = %.17g, mpmath %.17g", n, a, b, []string{"≤", ">"}[i], k, got, want)
			}
		}
	}
	if ntails < 300 {
		t.Errorf("%d tail references, want at least 300", ntails)
	}
	t.Logf("worst error / (eps·scale): log mass %.3g, ∂/∂a %.3g, ∂/∂b %.3g; log tails relative %.3g, %.3g",
		worst[0], worst[1], worst[2], worst[3], worst[4])
}

// TestBetaBinomialPartialsFD checks the partials of the log mass and of
// both log tails in a and b against central differences, over n up to
// 1e6 and shapes from 1e-3 to 1e7.
func TestBetaBinomialPartialsFD(t *testing.T) {
	lc, _ := LogCDF("BetaBinomial", false)
	lcc, _ := LogCDF("BetaBinomial", true)
	fns := []struct {
		name string
		f    func(p []float64, k float64, dp []float64) float64
	}{
		{"log mass", func(p []float64, k float64, dp []float64) float64 {
			lp, _ := BetaBinomial{p[0], p[1], p[2]}.eval(k, dp)
			return lp
		}},
		{"logcdf", func(p []float64, k float64, dp []float64) float64 { l, _ := lc(k, p, dp); return l }},
		{"logccdf", func(p []float64, k float64, dp []float64) float64 { l, _ := lcc(k, p, dp); return l }},
	}
	count := 0
	for _, n := range []float64{1, 7, 60, 1e6} {
		for _, a := range []float64{1e-3, 0.6, 4, 300, 1e7} {
			for _, b := range []float64{1e-3, 1.3, 25, 1e7} {
				for _, k := range []float64{0, 1, math.Floor(n / 2), n - 1} {
					if n > 1e4 && min(a, b) < 0.5 {
						// log p rounds to 1e-9 absolute, which a step of
						// 1e-7 cannot resolve; TestBetaBinomialReference
						// checks these partials
						continue
					}
					for fi, fn := range fns {
						if fi > 0 && n > 1e4 {
							continue // the tails sum up to n terms
						}
						dp := make([]float64, 3)
						lp := fn.f([]float64{n, a, b}, k, dp)
						if math.IsInf(lp, -1) || lp == 0 {
							continue
						}
						for i := 1; i < 3; i++ {
							x := []float64{n, a, b}[i]
							g := func(v float64) float64 {
								q := []float64{n, a, b}
								q[i] = v
								return fn.f(q, k, make([]float64, 3))
							}
							want := fd.Derivative(g, x, &fd.Settings{Formula: fd.Central, Step: 1e-4 * x})
							if e := math.Abs(dp[i]-want) / math.Max(1, math.Abs(dp[i])); !(e <= bbFDTol) {
								t.Errorf("BetaBinomial(%v, %v, %v) %s at %v: partial %d = %.10g, finite difference %.10g", n, a, b, fn.name, k, i, dp[i], want)
							}
							count++
						}
					}
				}
			}
		}
	}
	if count < 500 {
		t.Errorf("%d partials checked, want at least 500", count)
	}
}

// TestBetaBinomialTailsSum checks both log tails against the masses summed
// directly, and that they make up 1; and the binomial limit: shapes a·s,
// b·s with s → ∞ give Binomial(n, a/(a+b)).
func TestBetaBinomialTailsSum(t *testing.T) {
	lc, _ := LogCDF("BetaBinomial", false)
	lcc, _ := LogCDF("BetaBinomial", true)
	dp := make([]float64, 3)
	for _, p := range [][]float64{{12, 0.4, 0.6}, {30, 2, 5}, {50, 40, 1.5}, {200, 0.02, 0.03}, {9, 1e5, 3e5}} {
		d := BetaBinomial{p[0], p[1], p[2]}
		cum := 0.0
		for k := 0.0; k < p[0]; k++ {
			cum += math.Exp(d.LogProb(k))
			got, _ := lc(k, p, dp)
			if !close(got, math.Log(cum), 1e-12) {
				t.Errorf("BetaBinomial%v: log P(Y ≤ %v) = %.15g, summed %.15g", p, k, got, math.Log(cum))
			}
			up, _ := lcc(k, p, dp)
			if s := math.Exp(got) + math.Exp(up); math.Abs(s-1) > 1e-12 {
				t.Errorf("BetaBinomial%v at %v: P(Y ≤ k) + P(Y > k) = %.15g", p, k, s)
			}
		}
	}
	for _, k := range []float64{0, 3, 10, 20} {
		bb, bin := (BetaBinomial{20, 0.3e12, 0.7e12}).LogProb(k), (Binomial{20, 0.3}).LogProb(k)
		if !close(bb, bin, 1e-9) {
			t.Errorf("BetaBinomial(20, 0.3e12, 0.7e12) at %v: %.15g, Binomial(20, 0.3) %.15g", k, bb, bin)
		}
	}
	for _, c := range []struct{ n, a, b, k float64 }{{5, 1, 1, 6}, {5, 1, 1, -1}, {5, 1, 1, 2.5}} {
		if lp := (BetaBinomial{c.n, c.a, c.b}).LogProb(c.k); !math.IsInf(lp, -1) {
			t.Errorf("BetaBinomial(%v, %v, %v) at %v: %v, want −Inf", c.n, c.a, c.b, c.k, lp)
		}
	}
	for _, c := range []struct{ n, a, b float64 }{{-1, 1, 1}, {2.5, 1, 1}, {5, 0, 1}, {5, 1, math.Inf(1)}} {
		if lp := (BetaBinomial{c.n, c.a, c.b}).LogProb(1); !math.IsNaN(lp) {
			t.Errorf("BetaBinomial(%v, %v, %v) at 1: %v, want NaN", c.n, c.a, c.b, lp)
		}
	}
}
