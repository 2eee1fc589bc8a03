package dist

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
)

// Tolerances of the ordinal tests.
const (
	// orderedRefTol bounds the error against mpmath, relative to
	// max(1, |quantity|): log P and its partials at |eta − c| up to 45.
	orderedRefTol = 1e-12
	// orderedProbitRefTol is OrderedProbit's: a bin of width w at z
	// standard deviations out has log P from the difference of two log
	// tails about z·w apart, each good to 1e-16·z²/2, so at z = 30 and
	// w = 1e-4 the relative error is about 1e-16·z/w = 3e-11.
	orderedProbitRefTol = 1e-10
	// orderedFDTol bounds the partials against central differences,
	// relative to max(1, |partial|).
	orderedFDTol = 1e-6
)

// TestOrderedReference checks OrderedLogistic and OrderedProbit against
// testdata/ordered.csv (mpmath at 100 digits, partials by high-precision
// central differences; see ordered.py), including eta 40 and more away
// from the cutpoints and cutpoints 1e-4 apart.
func TestOrderedReference(t *testing.T) {
	rows := readRefCSV(t, "testdata/ordered.csv", 11)
	if len(rows) < 200 {
		t.Fatalf("%d reference rows, want at least 200", len(rows))
	}
	worst := [2]float64{}
	for _, r := range rows {
		probit, k, eta, c := r[0] == 1, int(r[1]), r[2], r[3:6]
		tol := orderedRefTol
		if probit {
			tol = orderedProbitRefTol
		}
		dc := make([]float64, 3)
		lp, deta := OrderedLogProb(k, eta, c, probit, dc)
		for j, got := range []float64{lp, deta, dc[0], dc[1], dc[2]} {
			want := r[6+j]
			e := math.Abs(got-want) / math.Max(1, math.Abs(want))
			worst[int(r[0])] = math.Max(worst[int(r[0])], e)
			if !(e <= tol) {
				t.Errorf("probit %v, k %d, eta %v, c %v: quantity %d = %.17g, mpmath %.17g (relative error %.2g)", probit, k, eta, c, j, got, want, e)
			}
		}
	}
	t.Logf("worst relative error: logistic %.3g, probit %.3g", worst[0], worst[1])
}

// The log probabilities at moderate values match the direct difference of
// CDFs, sum to 1 over the categories, and their partials match finite
// differences (gonum/diff/fd).
func TestOrderedDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		K := 1 + rng.IntN(4)
		c := make([]float64, K)
		x := 4*rng.Float64() - 2
		for j := range c {
			c[j] = x
			x += 0.05 + 2*rng.Float64()
		}
		eta := 6*rng.Float64() - 3
		for _, probit := range []bool{false, true} {
			// P = F(b) − F(a) = S(a) − S(b) (S = 1 − F), from the
			// survival function where the bin lies in the upper tail.
			F, S := InvLogit, func(x float64) float64 { return InvLogit(-x) }
			if probit {
				F = func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
				S = func(x float64) float64 { return 0.5 * math.Erfc(x/math.Sqrt2) }
			}
			total := 0.0
			for k := 0; k <= K; k++ {
				a, b := math.Inf(-1), math.Inf(1)
				if k > 0 {
					a = c[k-1] - eta
				}
				if k < K {
					b = c[k] - eta
				}
				want := math.Log(F(b) - F(a))
				if a+b > 0 {
					want = math.Log(S(a) - S(b))
				}
				dc := make([]float64, K)
				lp, deta := OrderedLogProb(k, eta, c, probit, dc)
				if math.Abs(lp-want) > 1e-12*math.Max(1, math.Abs(want)) {
					t.Errorf("probit %v, k %d, eta %v, c %v: log P %.17g, direct %.17g", probit, k, eta, c, lp, want)
				}
				total += math.Exp(lp)
				// the partials against finite differences in (eta, c)
				f := func(z []float64) float64 {
					v, _ := OrderedLogProb(k, z[0], z[1:], probit, nil)
					return v
				}
				z := append([]float64{eta}, c...)
				g := fd.Gradient(nil, f, z, &fd.Settings{Formula: fd.Central})
				got := append([]float64{deta}, dc...)
				for j := range g {
					if math.Abs(got[j]-g[j]) > orderedFDTol*math.Max(1, math.Abs(g[j])) {
						t.Errorf("probit %v, k %d, eta %v, c %v: partial %d = %.10g, finite differences %.10g", probit, k, eta, c, j, got[j], g[j])
					}
				}
			}
			if math.Abs(total-1) > 1e-12 {
				t.Errorf("probit %v, eta %v, c %v: probabilities sum to %.17g", probit, eta, c, total)
			}
		}
	}
}

// Far tails stay finite where the direct difference of CDFs is 0 − 0 or
// 1 − 1: eta 1000 from the cutpoints.
func TestOrderedFarTails(t *testing.T) {
	c := []float64{-1, 0, 2}
	for _, eta := range []float64{1000, -1000} {
		for k := 0; k <= 3; k++ {
			dc := make([]float64, 3)
			lp, deta := OrderedLogProb(k, eta, c, false, dc)
			if math.IsNaN(lp) || math.IsInf(lp, 1) || math.IsNaN(deta) || math.IsNaN(dc[0]+dc[1]+dc[2]) {
				t.Errorf("eta %v, k %d: log P %v, partials %v, %v", eta, k, lp, deta, dc)
			}
		}
	}
	// The middle category at eta = 1000: log σ(1001)+log σ(−1000)+log1mexp(1).
	lp, _ := OrderedLogProb(1, 1000, c, false, nil)
	if want := -1000 - math.Log1p(math.Exp(-1001)) + math.Log1p(-math.Exp(-1)); math.Abs(lp-want) > 1e-12*1000 {
		t.Errorf("log P = %.17g, want %.17g", lp, want)
	}
}
