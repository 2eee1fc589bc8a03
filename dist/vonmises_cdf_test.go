package dist

import (
	"math"
	"testing"
)

// Tolerances of VonMises's log CDF against mpmath: the values relative to
// themselves (they keep their relative digits in both tails), the partials
// relative to max(|partial|, contGradFloor·the case's largest partial).
const (
	vmCDFTol  = 2e-13
	vmGradTol = 1e-11
)

// TestVonMisesLogCDFReference checks log F and log(1 − F) of VonMises on
// [−π, π] and their partials in y, μ and κ against
// testdata/vonmises_cdf.csv (mpmath quadrature at 60 digits,
// vonmises_cdf_ref.py): κ from 1e-8 to 1e5, μ outside (−π, π] too, values
// near both ends and near the mode, log probabilities down to −4e5 and up
// to −1e-80000. Where both probabilities are above 1e-300 they add to 1.
func TestVonMisesLogCDFReference(t *testing.T) {
	rows := readRefCSV(t, "testdata/vonmises_cdf.csv", 11)
	if len(rows) < 400 {
		t.Fatalf("%d reference rows, want at least 400", len(rows))
	}
	var worstV, worstG float64
	for _, r := range rows {
		y, p := r[0], []float64{r[1], r[2]}
		var got [2]float64
		for k, upper := range []bool{false, true} {
			kern, _ := LogCDF("VonMises", upper)
			dp := make([]float64, 2)
			v, dx := kern(y, p, dp)
			got[k] = v
			want := r[3+k]
			wg := r[5+3*k : 8+3*k]
			e := relErr(v, want)
			if want == 0 { // log(1 − 1e-80000)
				e = math.Abs(v) / 1e-300
			}
			worstV = math.Max(worstV, e)
			if !(e <= vmCDFTol) {
				t.Errorf("VonMises(%g, %g) upper %v at %g: %.17g, mpmath %.17g (relative error %.2g)", p[0], p[1], upper, y, v, want, e)
			}
			gs := []float64{dx, dp[0], dp[1]}
			var scale float64
			for _, w := range wg {
				scale = math.Max(scale, math.Abs(w))
			}
			for i, w := range wg {
				e := math.Abs(gs[i]-w) / math.Max(math.Abs(w), contGradFloor*scale)
				if w == 0 && gs[i] == 0 {
					e = 0
				}
				worstG = math.Max(worstG, e)
				if !(e <= vmGradTol) {
					t.Errorf("VonMises(%g, %g) upper %v at %g: partial %d %.17g, mpmath %.17g (relative error %.2g)", p[0], p[1], upper, y, i, gs[i], w, e)
				}
			}
		}
		if got[0] > -690 && got[1] > -690 {
			// (log I₀(κ) − κ is within 5e-14 of mpmath, TestContinuousReference)
			if s := math.Exp(got[0]) + math.Exp(got[1]); math.Abs(s-1) > 1e-14 {
				t.Errorf("VonMises(%g, %g) at %g: F + (1 − F) = %.17g", p[0], p[1], y, s)
			}
		}
	}
	t.Logf("worst relative error of a value %.2g, of a partial %.2g", worstV, worstG)
}

// TestVonMisesLogCDFLimits: the CDF is on [−π, π] (0 below, 1 above, the
// float64s ±math.Pi just inside), is
// a half at the mode when μ is 0, is (y + π)/2π as κ → 0, and mirrors:
// F(y; μ) = 1 − F(−y; −μ).
func TestVonMisesLogCDFLimits(t *testing.T) {
	lo, _ := LogCDF("VonMises", false)
	up, _ := LogCDF("VonMises", true)
	dp := make([]float64, 2)
	below, above := math.Nextafter(-math.Pi, -4), math.Nextafter(math.Pi, 4)
	for _, c := range []struct{ x, lo, up float64 }{
		{below, math.Inf(-1), 0},
		{-4, math.Inf(-1), 0},
		{above, 0, math.Inf(-1)},
		{10, 0, math.Inf(-1)},
	} {
		for _, mu := range []float64{0, 2, -7} {
			if v, dx := lo(c.x, []float64{mu, 3}, dp); v != c.lo || dx != 0 || dp[0] != 0 || dp[1] != 0 {
				t.Errorf("VonMises(%g, 3) log CDF at %g: %v %v %v, want %v and zero partials", mu, c.x, v, dx, dp, c.lo)
			}
			if v, dx := up(c.x, []float64{mu, 3}, dp); v != c.up || dx != 0 || dp[0] != 0 || dp[1] != 0 {
				t.Errorf("VonMises(%g, 3) log CCDF at %g: %v %v %v, want %v and zero partials", mu, c.x, v, dx, dp, c.up)
			}
		}
	}
	// The ends are π's: float64's ±π lie π − math.Pi inside them, where
	// the density is p(±π).
	for _, mu := range []float64{0, 2, -7} {
		lp := VonMises{mu, 3}.LogProb(math.Pi) + math.Log(piLo)
		if v, _ := lo(-math.Pi, []float64{mu, 3}, dp); relErr(v, lp) > 1e-12 {
			t.Errorf("VonMises(%g, 3) log CDF at −math.Pi: %.17g, want %.17g", mu, v, lp)
		}
		if v, _ := up(math.Pi, []float64{mu, 3}, dp); relErr(v, lp) > 1e-12 {
			t.Errorf("VonMises(%g, 3) log CCDF at math.Pi: %.17g, want %.17g", mu, v, lp)
		}
	}
	for _, k := range []float64{1e-8, 0.3, 30, 1e5} {
		if v, _ := lo(0, []float64{0, k}, dp); relErr(v, -math.Ln2) > 1e-14 {
			t.Errorf("VonMises(0, %g) log CDF at 0: %.17g, want log ½", k, v)
		}
		for _, y := range []float64{-3, -1.2, 0.4, 2.5} {
			for _, mu := range []float64{-2, 0.5, 3} {
				a, _ := lo(y, []float64{mu, k}, dp)
				b, _ := up(-y, []float64{-mu, k}, dp)
				if relErr(a, b) > 1e-14 {
					t.Errorf("VonMises(%g, %g) log CDF at %g %.17g, mirrored %.17g", mu, k, y, a, b)
				}
			}
		}
	}
	for _, y := range []float64{-3.1, -1, 0, 2, 3.1} {
		want := math.Log((y + math.Pi) / (2 * math.Pi))
		if v, _ := lo(y, []float64{1.3, 1e-12}, dp); relErr(v, want) > 1e-11 {
			t.Errorf("VonMises(1.3, 1e-12) log CDF at %g: %.17g, uniform's %.17g", y, v, want)
		}
	}
}

// BenchmarkVonMisesLogCDF times the log CDF and its partials, from the
// lower tail to the upper, at a moderate and a large concentration.
func BenchmarkVonMisesLogCDF(b *testing.B) {
	k, _ := LogCDF("VonMises", false)
	dp := make([]float64, 2)
	for _, kappa := range []float64{2, 1e4} {
		p := []float64{0.3, kappa}
		b.Run(ftoa(kappa), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				k(-3+0.7*float64(i%9), p, dp)
			}
		})
	}
}

// TestVonMisesLogCDFExtremes: no NaN, no log probability above 0 and no
// infinite partial from locations at the ends of float64, concentrations
// from the smallest float64 to 1e20, and values at the ends of [−π, π].
// (Above κ ≈ 1e16 the quadrature's first piece, at least 1e-17 of its
// range, is wider than the integrand's width 1/κ there, so the values lose
// digits, and past about 1e22 the partials come out NaN.)
func TestVonMisesLogCDFExtremes(t *testing.T) {
	xs := []float64{-math.Pi, -3.14159, -1, -1e-300, 0, 1e-300, 0.5, 3.14159, math.Pi}
	mus := []float64{-1e10, -7, -math.Pi, -1e-300, 0, 0.5, 3.14159, math.Pi, 1e10}
	ks := []float64{5e-324, 1e-300, 1e-8, 1, 1e5, 1e10, 1e20}
	for _, upper := range []bool{false, true} {
		k, _ := LogCDF("VonMises", upper)
		for _, x := range xs {
			for _, mu := range mus {
				for _, kappa := range ks {
					dp := make([]float64, 2)
					v, dx := k(x, []float64{mu, kappa}, dp)
					for _, g := range append([]float64{v, dx}, dp...) {
						if math.IsNaN(g) || math.IsInf(g, 1) || (g != v && math.IsInf(g, 0)) {
							t.Errorf("VonMises(%g, %g) upper %v at %g: %v, partials %v %v", mu, kappa, upper, x, v, dx, dp)
							break
						}
					}
					if v > 0 {
						t.Errorf("VonMises(%g, %g) upper %v at %g: log P = %v", mu, kappa, upper, x, v)
					}
				}
			}
		}
	}
}
