package dist

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
)

// Tolerances of the NegBinomialLog tests.
const (
	// nblRefUlps bounds the log mass against mpmath in units of eps times
	// 1 + |log p| + |∂ log p/∂η|, the last term what rounding e^η moves it
	// by. The log-gammas, of size (k+φ)·log(k+φ), do not enter it: past
	// the ends of e^η their differences are taken as rising factorials.
	nblRefUlps = 4
	// nblPartialUlps bounds the partials against mpmath in units of eps
	// times the size of their terms: k·x + φ·y in η, and
	// |ψ(k+φ) − ψ(φ)| + log(1+μ/φ) + 1 + k/φ + φ·|∂/∂φ| in φ.
	nblPartialUlps = 4
	// nblCDFTol bounds the log tails against mpmath's sums, relative to
	// max(1, |log P|).
	nblCDFTol = 1e-13
	// nblFDTol is the agreement of the partials with central differences,
	// relative to max(1, |partial|).
	nblFDTol = 1e-6
)

// TestNegBinomialLogReference checks NegBinomialLog's log mass, partials
// and log tails against testdata/negbinomial_log.csv (mpmath at 60 digits,
// partials by central differences at that precision, tails by summing the
// masses; see negbinomial_log.py) at η from −800 to 800, where e^η
// underflows or overflows, φ from 1e-3 to 1e12 and counts to 1e6.
func TestNegBinomialLogReference(t *testing.T) {
	rows := readRefCSV(t, "testdata/negbinomial_log.csv", 8)
	if len(rows) < 300 {
		t.Fatalf("%d reference rows, want at least 300", len(rows))
	}
	lcdf, _ := LogCDF("NegBinomialLog", false)
	lccdf, _ := LogCDF("NegBinomialLog", true)
	var worst [5]float64
	ntails := 0
	for _, r := range rows {
		eta, phi, k := r[0], r[1], r[2]
		d := NegBinomialLog{eta, phi}
		lp, s := d.LogProb(k), d.Score(nil, k)
		e := math.Abs(lp-r[3]) / (eps * (1 + math.Abs(r[3]) + math.Abs(r[4])))
		worst[0] = math.Max(worst[0], e)
		if !(e <= nblRefUlps) {
			t.Errorf("NegBinomialLog(%v, %v) at %v: log p = %.17g, mpmath %.17g (%.3g eps·scale)", eta, phi, k, lp, r[3], e)
		}
		lphi := math.Log(phi)
		x, y := InvLogit(lphi-eta), InvLogit(eta-lphi)
		e = math.Abs(s[0]-r[4]) / (eps * (1 + k*x + phi*y))
		worst[1] = math.Max(worst[1], e)
		if !(e <= nblPartialUlps) {
			t.Errorf("NegBinomialLog(%v, %v) at %v: ∂/∂η = %.17g, mpmath %.17g (%.3g eps·scale)", eta, phi, k, s[0], r[4], e)
		}
		scale := math.Abs(digammaDiff(phi, k)) + Softplus(eta-lphi) + 1 + k/phi + phi*math.Abs(r[5])
		e = math.Abs(s[1]-r[5]) / (eps * scale)
		worst[2] = math.Max(worst[2], e)
		if !(e <= nblPartialUlps) {
			t.Errorf("NegBinomialLog(%v, %v) at %v: ∂/∂φ = %.17g, mpmath %.17g (%.3g eps·scale)", eta, phi, k, s[1], r[5], e)
		}
		if math.IsNaN(r[6]) {
			continue
		}
		ntails++
		dp := make([]float64, 2)
		for i, lt := range []Kernel{lcdf, lccdf} {
			got, _ := lt(k, []float64{eta, phi}, dp)
			want := r[6+i]
			e := math.Abs(got-want) / math.Max(1, math.Abs(want))
			if want == 0 || math.IsInf(want, -1) {
				e = math.Abs(got - want)
			}
			worst[3+i] = math.Max(worst[3+i], e)
			if !(e <= nblCDFTol) {
				t.Errorf("NegBinomialLog(%v, %v): log P(Y %s %v) = %.17g, mpmath %.17g", eta, phi, []string{"≤", ">"}[i], k, got, want)
			}
		}
	}
	if ntails < 100 {
		t.Errorf("%d tail references, want at least 100", ntails)
	}
	t.Logf("worst error / (eps·scale): log mass %.3g, ∂/∂η %.3g, ∂/∂φ %.3g; log tails relative %.3g, %.3g",
		worst[0], worst[1], worst[2], worst[3], worst[4])
}

// TestNegBinomialLogMatchesNegBinomial: where e^η is an ordinary number the
// family is NegBinomial at the mean e^η, log mass and φ partial to the bit
// and the η partial μ times NegBinomial's; its log tails are NegBinomial's
// too.
func TestNegBinomialLogMatchesNegBinomial(t *testing.T) {
	lc, _ := LogCDF("NegBinomialLog", false)
	lcc, _ := LogCDF("NegBinomialLog", true)
	nc, _ := LogCDF("NegBinomial", false)
	ncc, _ := LogCDF("NegBinomial", true)
	for _, eta := range []float64{-700, -40, -3, -0.2, 0, 1.7, 4, 12, 60, 700} {
		mu := math.Exp(eta)
		for _, phi := range []float64{1e-3, 0.4, 2, 35, 1e4, 1e9} {
			for _, k := range []float64{0, 1, 3, 20, 150, 1e5} {
				a, b := NegBinomialLog{eta, phi}, NegBinomial{mu, phi}
				sa, sb := a.Score(nil, k), b.Score(nil, k)
				if la, lb := a.LogProb(k), b.LogProb(k); la != lb || sa[1] != sb[1] || !close(sa[0], sb[0]*mu, 1e-13) {
					t.Errorf("NegBinomialLog(%v, %v) at %v: %v %v, NegBinomial(exp) %v %v·μ", eta, phi, k, la, sa, lb, sb)
				}
				if k > 1e4 || math.Abs(eta) > 100 {
					continue // NegBinomial's tails at μ = e^±700 are not finite
				}
				pa, pb := make([]float64, 2), make([]float64, 2)
				for i, ks := range [][2]Kernel{{lc, nc}, {lcc, ncc}} {
					la, _ := ks[0](k, []float64{eta, phi}, pa)
					lb, _ := ks[1](k, []float64{mu, phi}, pb)
					if !close(la, lb, 1e-12) || !close(pa[1], pb[1], 1e-11) || !close(pa[0], pb[0]*mu, 1e-11) {
						t.Errorf("NegBinomialLog(%v, %v) tail %d at %v: %v %v, NegBinomial %v %v", eta, phi, i, k, la, pa, lb, pb)
					}
				}
			}
		}
	}
}

// TestNegBinomialLogPartialsFD checks the partials of the log mass and of
// both log tails against central differences over a grid that includes
// η = ±700 and ±800 (past the ends of e^η), tiny and huge φ.
func TestNegBinomialLogPartialsFD(t *testing.T) {
	lc, _ := LogCDF("NegBinomialLog", false)
	lcc, _ := LogCDF("NegBinomialLog", true)
	fns := []struct {
		name string
		f    func(eta, phi, k float64, dp []float64) float64
	}{
		{"log mass", func(eta, phi, k float64, dp []float64) float64 {
			lp, _ := NegBinomialLog{eta, phi}.eval(k, dp)
			return lp
		}},
		{"logcdf", func(eta, phi, k float64, dp []float64) float64 { l, _ := lc(k, []float64{eta, phi}, dp); return l }},
		{"logccdf", func(eta, phi, k float64, dp []float64) float64 { l, _ := lcc(k, []float64{eta, phi}, dp); return l }},
	}
	n := 0
	for _, eta := range []float64{-800, -700, -20, -1.2, 0.3, 2.5, 8, 50, 700, 800} {
		for _, phi := range []float64{0.01, 0.7, 5, 300, 1e6} {
			for _, k := range []float64{0, 1, 6, 90} {
				for fi, fn := range fns {
					if fi > 0 && (eta > 9 || phi < 0.5) {
						continue // the tails' partials where the sums in mpmath were short
					}
					dp := make([]float64, 2)
					lp := fn.f(eta, phi, k, dp)
					if math.IsInf(lp, -1) {
						continue
					}
					for i := range dp {
						h := 1e-4 * math.Max(1, math.Abs(eta))
						if i == 1 {
							h = 1e-5 * phi
						}
						g := func(v float64) float64 {
							q := [2]float64{eta, phi}
							q[i] = v
							return fn.f(q[0], q[1], k, make([]float64, 2))
						}
						x := [2]float64{eta, phi}[i]
						want := fd.Derivative(g, x, &fd.Settings{Formula: fd.Central, Step: h})
						if e := math.Abs(dp[i]-want) / math.Max(1, math.Abs(dp[i])); !(e <= nblFDTol) {
							t.Errorf("NegBinomialLog(%v, %v) %s at %v: partial %d = %.10g, finite difference %.10g", eta, phi, fn.name, k, i, dp[i], want)
						}
						n++
					}
				}
			}
		}
	}
	if n < 400 {
		t.Errorf("%d partials checked, want at least 400", n)
	}
}

// TestNegBinomialLogTailsSum checks both log tails against the masses
// summed directly, and that the two tails make up 1.
func TestNegBinomialLogTailsSum(t *testing.T) {
	lc, _ := LogCDF("NegBinomialLog", false)
	lcc, _ := LogCDF("NegBinomialLog", true)
	dp := make([]float64, 2)
	for _, p := range [][2]float64{{-3, 2}, {0.5, 0.6}, {2, 8}, {3.5, 40}, {1, 1e5}, {-800, 3}} {
		d := NegBinomialLog{p[0], p[1]}
		cum := 0.0
		for k := 0.0; k <= 60; k++ {
			cum += math.Exp(d.LogProb(k))
			got, _ := lc(k, p[:], dp)
			if !close(got, math.Log(cum), 1e-12) {
				t.Errorf("NegBinomialLog%v: log P(Y ≤ %v) = %.15g, summed %.15g", p, k, got, math.Log(cum))
			}
			up, _ := lcc(k, p[:], dp)
			if s := math.Exp(got) + math.Exp(up); math.Abs(s-1) > 1e-12 {
				t.Errorf("NegBinomialLog%v at %v: P(Y ≤ k) + P(Y > k) = %.15g", p, k, s)
			}
		}
	}
}

// TestNegBinomialLogExtremes: past the ends of e^η the log mass stays
// finite, a count of 0 under a vanishing mean has probability 1, and the
// sampler draws 0 there and +Inf where the rate overflows.
func TestNegBinomialLogExtremes(t *testing.T) {
	if lp := (NegBinomialLog{-800, 2}).LogProb(0); lp != 0 {
		t.Errorf("NegBinomialLog(-800, 2) at 0: %v, want 0", lp)
	}
	if lp := (NegBinomialLog{800, 2}).LogProb(5); !(lp > -2000 && lp < -1500) {
		t.Errorf("NegBinomialLog(800, 2) at 5: %v, want about −2·(800 − log 2)", lp)
	}
	for _, c := range []struct {
		eta, phi, k float64
	}{{math.NaN(), 1, 0}, {math.Inf(1), 1, 0}, {0, 0, 1}, {0, -1, 1}, {0, 1, math.NaN()}} {
		if lp := (NegBinomialLog{c.eta, c.phi}).LogProb(c.k); !math.IsNaN(lp) {
			t.Errorf("NegBinomialLog(%v, %v) at %v: %v, want NaN", c.eta, c.phi, c.k, lp)
		}
	}
	if lp := (NegBinomialLog{0, 1}).LogProb(1.5); !math.IsInf(lp, -1) {
		t.Errorf("NegBinomialLog(0, 1) at 1.5: %v, want −Inf", lp)
	}
}
