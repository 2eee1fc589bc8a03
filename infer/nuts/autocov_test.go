package nuts

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// acovTol is the tolerance of the FFT autocovariance against the direct
// lag sums, relative to the lag-0 autocovariance.
const acovTol = 1e-12

// The FFT autocovariances are the direct lag sums at every lag, to
// rounding, for random series of short, odd, prime and even lengths
// (N < 4 included) and several chains.
func TestAutocovFFT(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{1, 2, 3, 4, 5, 7, 16, 97, 100, 101, 127, 1000, 1009} {
		for _, m := range []int{1, 3} {
			y := make([][]float64, m)
			for c := range y {
				y[c] = make([]float64, n)
				v := 0.0
				for i := range y[c] {
					v = 0.8*v + r.NormFloat64() + 3
					y[c][i] = v
				}
			}
			a := newAutocov(y, 0)
			got := acovFFT(a.centred)
			if len(got) != n {
				t.Fatalf("n %d: %d lags, want %d", n, len(got), n)
			}
			scale := math.Max(acovDirect(a.centred, 0), 1e-300)
			for lag := range n {
				want := acovDirect(a.centred, lag)
				if d := math.Abs(got[lag] - want); !(d <= acovTol*scale) {
					t.Errorf("n %d, m %d, lag %d: FFT %v, direct %v", n, m, lag, got[lag], want)
				}
			}
		}
	}
}

// ess from the direct sums at every lag, from the FFT at every lag and
// as it runs (direct for the first lags, then FFT) agree to rounding, on
// series that mix fast and slowly (ρ = 0.99: Geyer's sequence runs past
// the direct lags).
func TestESSByFFT(t *testing.T) {
	for _, c := range []struct {
		m, n int
		rho  float64
	}{{4, 10, 0.5}, {4, 101, 0.3}, {2, 997, 0.9}, {4, 2000, 0.99}, {8, 500, 0.99}} {
		x := ar1Chains(c.m, c.n, c.rho, uint64(c.n))
		direct, fft, both := essLags(x, c.n), essLags(x, 0), ess(x)
		for _, v := range []float64{fft, both} {
			if d := math.Abs(v - direct); !(d <= 1e-12*direct) {
				t.Errorf("%d×%d, ρ %g: ESS %v by FFT, %v directly", c.m, c.n, c.rho, v, direct)
			}
		}
	}
	// the slow case does read lags past the direct ones
	x := ar1Chains(4, 2000, 0.99, 2000)
	a := newAutocov(x, directLags(2000))
	if tau := 4 * 2000 / ess(x); tau < float64(2*a.direct) {
		t.Fatalf("τ %v: Geyer's sequence stops before lag %d; the test wants it past", tau, a.direct)
	}
}

// fftSize is the smallest 2^a·3^b·5^c at least n.
func TestFFTSize(t *testing.T) {
	smooth := func(k int) bool {
		for _, p := range []int{2, 3, 5} {
			for k%p == 0 {
				k /= p
			}
		}
		return k == 1
	}
	for n := 1; n < 2000; n++ {
		want := n
		for !smooth(want) {
			want++
		}
		if got := fftSize(n); got != want {
			t.Fatalf("fftSize(%d) = %d, want %d", n, got, want)
		}
	}
}

// Diagnose gives Rhat, ESSBulk, ESSTail, MCSEMean, MCSESD, MCSEQuantile
// and MAD bit for bit, on chains of odd and even lengths, with ties, and
// NaN where they are NaN (the MAD of constant, short or infinite draws
// is a number).
func TestDiagnose(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	cases := map[string][][]float64{
		"ties":     refDraws(4, 101, 0.1),
		"ar":       ar1Chains(4, 1000, 0.9, 3),
		"one":      ar1Chains(1, 51, 0.5, 4),
		"constant": {{1, 1, 1, 1}, {1, 1, 1, 1}},
		"nan":      {{1, 2, math.NaN(), 4}, {1, 2, 3, 4}},
		"short":    {{1}, {2}},
		"ragged":   {{1, 2, 3}, {1, 2}},
		"inf":      {{1, 2, math.Inf(1), 4}, {1, 2, 3, 4}},
	}
	ints := make([][]float64, 3)
	for c := range ints {
		for range 40 {
			ints[c] = append(ints[c], float64(r.IntN(3)))
		}
	}
	cases["three values"] = ints
	for name, x := range cases {
		got := Diagnose(x)
		want := Diagnostics{Rhat(x), ESSBulk(x), ESSTail(x), MCSEMean(x), MCSESD(x), [3]float64{}, MAD(x)}
		for i, p := range DiagnoseProbs {
			want.MCSEQuantile[i] = MCSEQuantile(x, p)
		}
		for _, p := range [][2]float64{{got.Rhat, want.Rhat}, {got.ESSBulk, want.ESSBulk}, {got.ESSTail, want.ESSTail}, {got.MCSEMean, want.MCSEMean},
			{got.MCSESD, want.MCSESD}, {got.MCSEQuantile[0], want.MCSEQuantile[0]}, {got.MCSEQuantile[1], want.MCSEQuantile[1]},
			{got.MCSEQuantile[2], want.MCSEQuantile[2]}, {got.MAD, want.MAD}} {
			if math.Float64bits(p[0]) != math.Float64bits(p[1]) && !(math.IsNaN(p[0]) && math.IsNaN(p[1])) {
				t.Errorf("%s: Diagnose %+v, one by one %+v", name, got, want)
				break
			}
		}
	}
}

// TestDiagnoseTailIndependentOfProbs: Diagnose's tail ESS is ESSTail's
// whatever quantiles DiagnoseProbs asks MCSEQuantile for (it reused the
// ESS at DiagnoseProbs' first and last entries, taking them for 5 % and 95 %).
func TestDiagnoseTailIndependentOfProbs(t *testing.T) {
	saved := DiagnoseProbs
	defer func() { DiagnoseProbs = saved }()
	x := ar1Chains(4, 400, 0.7, 9)
	want := ESSTail(x)
	for _, probs := range [][3]float64{{0.1, 0.5, 0.9}, {0.95, 0.5, 0.05}, {0.25, 0.5, 0.75}} {
		DiagnoseProbs = probs
		if got := Diagnose(x).ESSTail; got != want {
			t.Errorf("DiagnoseProbs %v: ESSTail %v, want %v", probs, got, want)
		}
	}
}

// BenchmarkAutocov times ten lags of direct sums against the FFT of every
// lag, on 8 chains (4 split) of n draws: directLags's crossover.
func BenchmarkAutocov(b *testing.B) {
	for _, n := range []int{500, 1000, 50000} {
		a := newAutocov(ar1Chains(8, n, 0.99, 1), 0)
		b.Run(fmt.Sprintf("direct10lags-%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				for t := 0; t < 10; t++ {
					sink += acovDirect(a.centred, t)
				}
			}
		})
		b.Run(fmt.Sprintf("fft-%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sink += acovFFT(a.centred)[3]
			}
		})
	}
}

// zScale gives each draw the normal score of its rank counted by hand
// (ties averaged), bit for bit, on draws with many ties and signed zeros.
func TestZScaleRanks(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	x := make([][]float64, 3)
	for c := range x {
		for range 57 {
			x[c] = append(x[c], float64(r.IntN(9)-4)/2)
		}
	}
	x[1][3], x[2][5] = math.Copysign(0, -1), 0
	var all []float64
	for _, ch := range x {
		all = append(all, ch...)
	}
	S := float64(len(all))
	got := zScale(x)
	for c, ch := range x {
		for i, v := range ch {
			below, ties := 0, 0
			for _, w := range all {
				if w < v {
					below++
				} else if w == v {
					ties++
				}
			}
			rank := float64(below) + float64(ties+1)/2
			want := distuv.UnitNormal.Quantile((rank - 3.0/8) / (S + 0.25))
			if math.Float64bits(got[c][i]) != math.Float64bits(want) {
				t.Fatalf("chain %d draw %d (%v): z %v, want %v", c, i, v, got[c][i], want)
			}
		}
	}
}
