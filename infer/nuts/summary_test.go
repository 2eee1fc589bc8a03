package nuts

import (
	"math"
	"testing"
)

// quantileTol bounds |Quantile − the exact interpolation| (rounding).
const quantileTol = 1e-12

// TestQuantile checks R's type 7 at points where it is an order statistic
// or a known interpolation ((n−1)p between them), and its infinities.
func TestQuantile(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		s    []float64
		p    float64
		want float64
	}{
		{[]float64{1, 2, 3, 4}, 0, 1},
		{[]float64{1, 2, 3, 4}, 1, 4},
		{[]float64{1, 2, 3, 4}, 0.5, 2.5},         // h = 1.5
		{[]float64{1, 2, 3, 5}, 0.9, 4.4},         // h = 2.7: 3 + 0.7·2
		{[]float64{10, 20, 30, 40, 50}, 0.25, 20}, // h = 1
		{[]float64{1, 2, inf}, 0.75, inf},         // between 2 and +Inf
		{[]float64{-inf, 1, 2}, 0.25, -inf},       // between −Inf and 1
		{[]float64{1, 2, inf}, 0.5, 2},            // on 2
		{nil, 0.5, math.NaN()},
	} {
		got := Quantile(c.s, c.p)
		if !(got == c.want || math.IsNaN(got) && math.IsNaN(c.want)) && math.Abs(got-c.want) > quantileTol {
			t.Errorf("Quantile(%v, %v) = %v, want %v", c.s, c.p, got, c.want)
		}
	}
}

// TestMeanSD checks the mean and sd with the n − 1 denominator, and the
// special cases: none, one, all equal, sums that overflow.
func TestMeanSD(t *testing.T) {
	m, s := MeanSD([]float64{1, 2, 3, 6})
	if m != 3 || math.Abs(s-math.Sqrt(14.0/3)) > 1e-15 {
		t.Errorf("MeanSD(1, 2, 3, 6) = %v, %v; want 3, √(14/3)", m, s)
	}
	if m, s := MeanSD(nil); !math.IsNaN(m) || !math.IsNaN(s) {
		t.Errorf("MeanSD() = %v, %v; want NaN, NaN", m, s)
	}
	if m, s := MeanSD([]float64{2.5}); m != 2.5 || !math.IsNaN(s) {
		t.Errorf("MeanSD(2.5) = %v, %v; want 2.5, NaN", m, s)
	}
	if m, s := MeanSD([]float64{0.1, 0.1, 0.1}); m != 0.1 || s != 0 {
		t.Errorf("MeanSD(0.1 ×3) = %v, %v; want 0.1, 0 exactly", m, s)
	}
	if m, s := MeanSD([]float64{math.Inf(1), math.Inf(1)}); !math.IsInf(m, 1) || !math.IsNaN(s) {
		t.Errorf("MeanSD(+Inf ×2) = %v, %v; want +Inf, NaN (an output that overflows at every draw has no sd)", m, s)
	}
	big := 1e308
	if m, s := MeanSD([]float64{big, big * 1.5}); math.Abs(m/(1.25*big)-1) > 1e-15 || math.IsInf(s, 0) {
		t.Errorf("MeanSD(1e308, 1.5e308) = %v, %v; want 1.25e308 and a finite sd", m, s)
	}
	if v, nan := SortedFinite([]float64{3, math.NaN(), 1}); len(v) != 2 || v[0] != 1 || v[1] != 3 || nan != 1 {
		t.Errorf("SortedFinite(3, NaN, 1) = %v, %d; want [1 3], 1", v, nan)
	}
}
