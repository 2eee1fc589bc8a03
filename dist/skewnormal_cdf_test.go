package dist

import (
	"math"
	"testing"
)

// skewCDFTol bounds SkewNormal's log CDF and log CCDF against mpmath,
// relative to the value (which keeps its relative digits in both tails).
const skewCDFTol = 2e-13

// TestSkewNormalLogCDFReference checks log P(X ≤ z) and log P(X > z) for
// X ~ SkewNormal(0, 1, α) against testdata/skewnormal_cdf.csv (mpmath,
// skewnormal_cdf_ref.py): z from −40 to 40 and α from −1000 to 1000,
// values down to −2e6 (the lower tail at α = 50) and up to −1e-350, and
// 150 random points with |z| in [1e-8, 40] and |α| in [1e-8, 50]. Where
// both probabilities are above 1e-300 their sum is 1.
func TestSkewNormalLogCDFReference(t *testing.T) {
	rows := readRefCSV(t, "testdata/skewnormal_cdf.csv", 4)
	if len(rows) < 250 {
		t.Fatalf("%d reference rows, want at least 250", len(rows))
	}
	var worst float64
	for _, r := range rows {
		z, p := r[0], []float64{0, 1, r[1]}
		var got [2]float64
		for k, upper := range []bool{false, true} {
			kern, _ := LogCDF("SkewNormal", upper)
			got[k], _ = kern(z, p, make([]float64, 3))
			want := r[2+k]
			e := relErr(got[k], want)
			if want == 0 { // log(1 − 1e-400)
				e = math.Abs(got[k]) / 1e-300
			}
			worst = math.Max(worst, e)
			if !(e <= skewCDFTol) {
				t.Errorf("SkewNormal(0, 1, %g) upper %v at %g: %.17g, mpmath %.17g (relative error %.2g)", r[1], upper, z, got[k], want, e)
			}
		}
		if got[0] > -690 && got[1] > -690 {
			if s := math.Exp(got[0]) + math.Exp(got[1]); math.Abs(s-1) > 4e-16 {
				t.Errorf("SkewNormal(0, 1, %g) at %g: P(X ≤ z) + P(X > z) = %.17g", r[1], z, s)
			}
		}
	}
	t.Logf("worst relative error %.2g", worst)
}

// TestSkewNormalLogCDFLimits: α = 0 is the normal's log CDF, the value at
// ξ is log(½ − atan(α)/π), and the two sides mirror: P(X ≤ x) under
// (ξ, ω, α) is P(X > −x) under (−ξ, ω, −α).
func TestSkewNormalLogCDFLimits(t *testing.T) {
	lo, _ := LogCDF("SkewNormal", false)
	up, _ := LogCDF("SkewNormal", true)
	nlo, _ := LogCDF("Normal", false)
	dp := make([]float64, 3)
	for _, x := range []float64{-38, -7, -1.5, -0.2, 0, 0.4, 3, 12, 37} {
		a, _ := lo(x, []float64{0.5, 1.5, 0}, dp)
		b, _ := nlo(x, []float64{0.5, 1.5}, dp[:2])
		if e := relErr(a, b); !(e <= skewCDFTol) && a != b {
			t.Errorf("SkewNormal(0.5, 1.5, 0) log CDF at %g: %.17g, Normal's %.17g", x, a, b)
		}
		for _, al := range []float64{-40, -1, 0.3, 7} {
			c, _ := lo(x, []float64{1, 2, al}, dp)
			d, _ := up(-x, []float64{-1, 2, -al}, dp)
			if c != d {
				t.Errorf("SkewNormal(1, 2, %g) log CDF at %g %.17g, mirrored %.17g", al, x, c, d)
			}
		}
	}
	for _, al := range []float64{-1e6, -3, -1e-9, 0, 0.5, 20, 1e6} {
		want := math.Log(math.Atan2(1, al) / math.Pi)
		if al < 0 { // 1 − atan2(1, |α|)/π
			want = math.Log1p(-math.Atan2(1, -al) / math.Pi)
		}
		if got, _ := lo(2, []float64{2, 3, al}, dp); relErr(got, want) > 1e-15 {
			t.Errorf("SkewNormal(2, 3, %g) log CDF at 2: %.17g, want %.17g", al, got, want)
		}
	}
}

// BenchmarkSkewNormalLogCDF times the log CDF and its partials, the
// quadrature of skewnormal_cdf.go, at values from the lower tail to the
// upper.
func BenchmarkSkewNormalLogCDF(b *testing.B) {
	k, _ := LogCDF("SkewNormal", false)
	p, dp := []float64{0.2, 1.1, 2.5}, make([]float64, 3)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		k(-4.3+float64(i%9), p, dp)
	}
}

// TestSkewNormalLogCDFExtremes: no NaN, no log probability above 0 and no
// infinite partial from values and shapes at the ends of float64 (the
// shape clamped at ±1e100, values whose z² overflows, α = ±5e-324).
func TestSkewNormalLogCDFExtremes(t *testing.T) {
	zs := []float64{-1e300, -1e10, -300, -40, -1e-300, 0, 1e-300, 1e-8, 40, 300, 1e10, 1e300}
	as := []float64{-1e300, -1e10, -1e4, -50, -1e-300, -5e-324, 0, 5e-324, 1e-300, 1e4, 1e10, 1e300}
	for _, upper := range []bool{false, true} {
		k, _ := LogCDF("SkewNormal", upper)
		for _, z := range zs {
			for _, a := range as {
				dp := make([]float64, 3)
				v, dx := k(z, []float64{0, 1, a}, dp)
				for _, g := range append([]float64{v, dx}, dp...) {
					if math.IsNaN(g) || math.IsInf(g, 1) || (g != v && math.IsInf(g, 0)) {
						t.Errorf("SkewNormal(0, 1, %g) upper %v at %g: %v, partials %v %v", a, upper, z, v, dx, dp)
						break
					}
				}
				if v > 0 {
					t.Errorf("SkewNormal(0, 1, %g) upper %v at %g: log P = %v", a, upper, z, v)
				}
			}
		}
	}
}
