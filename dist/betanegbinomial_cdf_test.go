package dist

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
)

// Tolerances of the BetaNegBinomial log CDF tests.
const (
	// bnbCDFTol bounds both log tails against mpmath, relative to
	// max(1, |log P|)·(1 + log10(k+1)): each mass rounds to a few eps of
	// its log-gamma terms and the ratios of a direct sum add an ulp a term.
	bnbCDFTol = 1e-12
	// bnbPartialTol bounds the partials against mpmath's, relative to
	// max(1, |partial|).
	bnbPartialTol = 1e-10
	// bnbFDTol is the agreement of the partials with central differences
	// of step 1e-5 relative, relative to max(1, |partial|): the log tail
	// rounds to eps times its log-gamma terms, about k·log k (2.4e4 at k =
	// 3000), which a step of 5e-7 (b = 0.05) turns into 1e-5; farther out
	// TestBetaNegBinomialLogCDFReference checks the partials.
	bnbFDTol = 2e-5
)

// TestBetaNegBinomialLogCDFReference checks both log tails and the
// partials of log P(Y > k) against testdata/betanegbinomial_cdf.csv
// (mpmath at 40 digits, betanegbinomial_cdf.py): heavy tails (a = 0.05,
// 0.5), r from 1e-6 to 1e4, b from 1e-5 to 60, k from 0 to 1.2e8.
func TestBetaNegBinomialLogCDFReference(t *testing.T) {
	rows := readRefCSV(t, "testdata/betanegbinomial_cdf.csv", 9)
	if len(rows) < 150 {
		t.Fatalf("%d reference rows, want at least 150", len(rows))
	}
	lcdf, _ := LogCDF("BetaNegBinomial", false)
	lccdf, _ := LogCDF("BetaNegBinomial", true)
	var worst [5]float64
	for _, row := range rows {
		p, k := row[:3], row[3]
		scale := 1 + math.Log10(k+1)
		for i, lt := range []Kernel{lcdf, lccdf} {
			dp := make([]float64, 3)
			got, _ := lt(k, p, dp)
			want := row[4+i]
			e := math.Abs(got-want) / math.Max(1, math.Abs(want)) / scale
			if want != 0 && math.Abs(want) < 1 { // a log near 0 holds its relative digits too
				e = math.Max(e, math.Abs(got/want-1)/scale)
			}
			worst[i] = math.Max(worst[i], e)
			if !(e <= bnbCDFTol) {
				t.Errorf("BetaNegBinomial%v: log P(Y %s %v) = %.17g, mpmath %.17g", p, []string{"≤", ">"}[i], k, got, want)
			}
			if i == 0 {
				continue
			}
			for j := range dp {
				e := math.Abs(dp[j]-row[6+j]) / math.Max(1, math.Abs(row[6+j]))
				worst[2+j] = math.Max(worst[2+j], e)
				if !(e <= bnbPartialTol) {
					t.Errorf("BetaNegBinomial%v: ∂ log P(Y > %v)/∂p%d = %.17g, mpmath %.17g", p, k, j, dp[j], row[6+j])
				}
			}
		}
	}
	t.Logf("worst relative error: log CDF %.3g, log CCDF %.3g; partials %.3g, %.3g, %.3g", worst[0], worst[1], worst[2], worst[3], worst[4])
}

// TestBetaNegBinomialLogCDFPartialsFD checks the partials of both log
// tails in r, a and b against central differences, across the regimes of
// the scheme: lower sums, the complement, direct masses before the
// transformed series, and the series alone for k ≥ 4·max(r, b).
func TestBetaNegBinomialLogCDFPartialsFD(t *testing.T) {
	count := 0
	for _, upper := range []bool{false, true} {
		lt, _ := LogCDF("BetaNegBinomial", upper)
		for _, r := range []float64{0.01, 0.7, 3, 80} {
			for _, a := range []float64{0.3, 2, 15} {
				for _, b := range []float64{0.05, 1.5, 40} {
					for _, k := range []float64{0, 2, 29, 500, 3000} {
						p := []float64{r, a, b}
						dp := make([]float64, 3)
						lp, _ := lt(k, p, dp)
						if lp == 0 || math.IsInf(lp, -1) || math.Abs(lp) < 1e-9 {
							continue // a log within 1e-9 of 0 has no relative digits for a step
						}
						for i := range p {
							f := func(v float64) float64 {
								q := []float64{r, a, b}
								q[i] = v
								l, _ := lt(k, q, make([]float64, 3))
								return l
							}
							want := fd.Derivative(f, p[i], &fd.Settings{Formula: fd.Central, Step: 1e-5 * p[i]})
							if e := math.Abs(dp[i]-want) / math.Max(1, math.Abs(dp[i])); !(e <= bnbFDTol) {
								t.Errorf("BetaNegBinomial%v upper %v at %v: partial %d = %.10g, finite difference %.10g", p, upper, k, i, dp[i], want)
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

// TestBetaNegBinomialTailsComplement checks P(Y ≤ k) + P(Y > k) = 1 and
// the upper tail against the masses summed directly where that converges
// (a = 6: the masses fall like j^−7), and that a heavy tail (a = 0.5) far
// out keeps its digits: P(Y > k) ≈ C·k^−a, so the ratio of the tails at k
// and 100k tends to 100^a = 10.
func TestBetaNegBinomialTailsComplement(t *testing.T) {
	lc, _ := LogCDF("BetaNegBinomial", false)
	lcc, _ := LogCDF("BetaNegBinomial", true)
	dp := make([]float64, 3)
	for _, p := range [][]float64{{0.5, 0.5, 0.5}, {2.5, 6, 3.2}, {1e-6, 0.5, 0.5}, {40, 1.5, 60}, {1000, 0.8, 0.3}} {
		for _, k := range []float64{0, 1, 10, 100, 1e4, 1e8} {
			l, _ := lc(k, p, dp)
			u, _ := lcc(k, p, dp)
			if s := math.Exp(l) + math.Exp(u); math.Abs(s-1) > 4e-15*(1+math.Log10(k+1)) {
				t.Errorf("BetaNegBinomial%v at %v: P(Y ≤ k) + P(Y > k) = %.17g", p, k, s)
			}
		}
	}
	p := []float64{2.5, 6, 3.2}
	d := BetaNegBinomial{p[0], p[1], p[2]}
	for _, k := range []float64{0, 5, 40} {
		sum := 0.0
		for j := 1e5; j > k; j-- { // smallest first; the rest past 1e5 is below 1e-25
			sum += math.Exp(d.LogProb(j))
		}
		if u, _ := lcc(k, p, dp); math.Abs(u-math.Log(sum)) > 1e-13*math.Abs(u) {
			t.Errorf("BetaNegBinomial%v: log P(Y > %v) = %.17g, summed %.17g", p, k, u, math.Log(sum))
		}
	}
	q := []float64{0.5, 0.5, 0.5}
	u1, _ := lcc(1e8, q, dp)
	u2, _ := lcc(1e10, q, dp)
	if r := math.Exp(u1 - u2); math.Abs(r-10) > 1e-3 {
		t.Errorf("BetaNegBinomial%v: P(Y > 1e8)/P(Y > 1e10) = %.10g, want about 10", q, r)
	}
}

// TestBetaNegBinomialLogCDFAllocs: the kernel allocates nothing.
func TestBetaNegBinomialLogCDFAllocs(t *testing.T) {
	for _, upper := range []bool{false, true} {
		k, _ := LogCDF("BetaNegBinomial", upper)
		p, dp := []float64{2.5, 0.5, 3.2}, make([]float64, 3)
		if n := testing.AllocsPerRun(20, func() { k(7, p, dp) }); n != 0 {
			t.Errorf("upper %v: %v allocations per call", upper, n)
		}
	}
}

// BenchmarkBetaNegBinomialLogCCDF times log P(Y > k) with its partials in
// the heavy-tailed regime a = 0.5: k = 3 (masses 4..30, then the series),
// k = 1e6 (the series alone) and r = 1000 (4000 masses first).
func BenchmarkBetaNegBinomialLogCCDF(b *testing.B) {
	lcc, _ := LogCDF("BetaNegBinomial", true)
	dp := make([]float64, 3)
	for _, c := range []struct {
		name string
		k    float64
		p    []float64
	}{{"k=3", 3, []float64{2.5, 0.5, 3.2}}, {"k=1e6", 1e6, []float64{2.5, 0.5, 3.2}}, {"r=1000", 3, []float64{1000, 0.5, 3.2}}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				lcc(c.k, c.p, dp)
			}
		})
	}
}

// TestBetaNegBinomialHugeCount checks both tails against the closed form
// of BetaNegBinomial(1, 1, 1), whose masses 1/((j+1)(j+2)) telescope to
// P(Y > k) = 1/(k+2), out to counts past 2^53, where k + 1 rounds to k
// (a loop over j ≤ m never ended there).
func TestBetaNegBinomialHugeCount(t *testing.T) {
	lc, _ := LogCDF("BetaNegBinomial", false)
	lcc, _ := LogCDF("BetaNegBinomial", true)
	p, dp := []float64{1, 1, 1}, make([]float64, 3)
	for _, k := range []float64{0, 5, 1e6, 1 << 53, 1e17, 1e300} {
		want := -math.Log(k + 2)
		if u, _ := lcc(k, p, dp); math.Abs(u-want) > 1e-13*math.Abs(want) {
			t.Errorf("log P(Y > %g) = %.17g, want %.17g", k, u, want)
		}
		want = math.Log1p(-1 / (k + 2))
		if l, _ := lc(k, p, dp); math.Abs(l-want) > 1e-13*math.Abs(want) {
			t.Errorf("log P(Y ≤ %g) = %.17g, want %.17g", k, l, want)
		}
	}
}
