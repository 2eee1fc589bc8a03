package nuts

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestHDIHandComputed pins HDI to intervals worked out by hand from
// ArviZ's convention: windows of ⌊prob·n⌋ + 1 sorted draws, the first of
// the narrowest.
func TestHDIHandComputed(t *testing.T) {
	for _, c := range []struct {
		name   string
		chains [][]float64
		prob   float64
		lo, hi float64
	}{
		// Skewed, in two unsorted chains: k = 5, the window widths from
		// the minimum are 0.8, 1.2, 1.9, 3.1, 5, so [0, 0.8]; the
		// equal-tailed 50 % interval (type 7) is [0.225, 1.9].
		{"skewed", [][]float64{{3.4, 0, 0.5, 2.1, 0.2}, {5.5, 0.1, 1.3, 0.3, 0.8}}, 0.5, 0, 0.8},
		// Its mirror image: the narrowest window is the last, [-0.8, 0].
		{"left-skewed", [][]float64{{-3.4, 0, -0.5, -2.1, -0.2}, {-5.5, -0.1, -1.3, -0.3, -0.8}}, 0.5, -0.8, 0},
		// Ties: k = 3, windows [1, 2] and [2, 3] both of width 1: the
		// first.
		{"ties", [][]float64{{2, 5, 1}, {3, 2, 2}}, 0.5, 1, 2},
		// ⌊0.25·10⌋ = 2, not ⌈2.5⌉ = 3: with k = 2 the first narrowest
		// window is [0, 2] (width 2); with k = 3 it would be [0, 3].
		{"floor", [][]float64{{15, 14, 13, 12, 11}, {10, 3, 2, 1, 0}}, 0.25, 0, 2},
		// prob·n < 1: k = 0, a window of one draw, the minimum.
		{"small n", [][]float64{{5, 2, 9}}, 0.3, 2, 2},
		// k = ⌊0.94·4⌋ = 3 = n − 1: every draw, [min, max].
		{"all", [][]float64{{4, -1, 7, 2}}, 0.94, -1, 7},
		{"constant", [][]float64{{1.5, 1.5}, {1.5, 1.5}}, 0.9, 1.5, 1.5},
	} {
		lo, hi := HDI(c.chains, c.prob)
		if lo != c.lo || hi != c.hi {
			t.Errorf("%s: HDI(%v, %g) = [%g, %g], want [%g, %g]", c.name, c.chains, c.prob, lo, hi, c.lo, c.hi)
		}
	}
}

// TestHDINaN: a NaN draw, or no draws, gives a NaN interval, as MAD and
// the quantiles' errors.
func TestHDINaN(t *testing.T) {
	for _, chains := range [][][]float64{
		{{1, 2, math.NaN(), 4}},
		{{1, 2}, {3, math.NaN()}},
		{{}},
		nil,
	} {
		if lo, hi := HDI(chains, 0.9); !math.IsNaN(lo) || !math.IsNaN(hi) {
			t.Errorf("HDI(%v) = [%g, %g], want NaN", chains, lo, hi)
		}
	}
}

// TestHDIBadProb: a probability outside (0, 1) is a programmer's error.
func TestHDIBadProb(t *testing.T) {
	for _, p := range []float64{0, 1, -0.5, 1.5, math.NaN()} {
		func() {
			defer func() {
				if r := recover(); r != badHDIProb {
					t.Errorf("HDI(prob %g) panicked with %v, want %q", p, r, badHDIProb)
				}
			}()
			HDI([][]float64{{1, 2, 3}}, p)
		}()
	}
}

// Tolerances of TestHDIExponential for hdiDraws draws: the upper end, the
// 0.94 quantile of the draws at the HDI's start, has the Monte Carlo sd
// √(p(1 − p)/n)/f(q) = √(0.94·0.06/n)/0.06 ≈ 0.0125; hdiHiTol is 5 of
// them. The lower end is the minimum within a few draws: a start after
// the first 1 % of the mass (0.01) would widen the window by about
// 0.01·(1/0.06 − 1) ≈ 0.16, far above the sampling noise of the widths.
const (
	hdiDraws = 100000
	hdiHiTol = 5 * 0.0125
	hdiLoTol = 0.01
)

// TestHDIExponential: exponential(1) draws' 94 % HDI is [0, −log 0.06]
// (the density falls from 0, so the HDI starts there), not the
// equal-tailed [−log 0.97, −log 0.03] = [0.030, 3.51].
func TestHDIExponential(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	chains := make([][]float64, 4)
	for c := range chains {
		chains[c] = make([]float64, hdiDraws/len(chains))
		for i := range chains[c] {
			chains[c][i] = rng.ExpFloat64()
		}
	}
	lo, hi := HDI(chains, 0.94)
	if want := -math.Log(0.06); math.Abs(hi-want) > hdiHiTol {
		t.Errorf("upper end %g, want %g ± %g", hi, want, hdiHiTol)
	}
	if lo < 0 || lo > hdiLoTol {
		t.Errorf("lower end %g, want in [0, %g]", lo, hdiLoTol)
	}
	t.Logf("94%% HDI of %d exponential(1) draws: [%.5f, %.5f]; exact [0, %.5f]", hdiDraws, lo, hi, -math.Log(0.06))
}
