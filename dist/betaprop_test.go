package dist

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
)

// Tolerances of the BetaProportion tests.
const (
	propBetaTol  = 1e-14 // log density and log CDF vs Beta's at μκ, (1−μ)κ, relative to max(1, |value|)
	propChainTol = 1e-9  // partials vs the chain rule through Beta's, relative to max(1, |partial|), κ ≤ 1000
	propFDTol    = 1e-6  // partials vs central differences, relative to |partial| + their scale
)

// The grid of the BetaProportion tests: means near 0, ½ and 1, precisions
// from 10⁻³ (both shapes far below 1) to 10⁶ (Loader's form), values
// across (0, 1) and next to the mean.
var (
	propMus    = []float64{1e-10, 1e-3, 0.1, 0.3, 0.5, 0.77, 0.999, 1 - 1e-10}
	propKappas = []float64{1e-3, 0.5, 1, 3, 4.5, 20, 1e3, 1e6}
)

func propXs(mu, kappa float64) []float64 {
	sd := math.Sqrt(mu * (1 - mu) / (1 + kappa))
	xs := []float64{1e-12, 1e-3, 0.05, 0.3, 0.5, 0.9, 1 - 1e-9}
	for _, z := range []float64{-2, -0.5, 0.5, 2} {
		if x := mu + z*sd; x > 0 && x < 1 {
			xs = append(xs, x)
		}
	}
	return xs
}

// BetaProportion(μ, κ) is Beta(μκ, (1−μ)κ): its log density to
// propBetaTol, and where the chain rule through Beta's partials is well
// conditioned (κ ≤ 1000) its partials to propChainTol; the value partial
// is Beta's bit for bit.
func TestBetaProportionIsBeta(t *testing.T) {
	for _, mu := range propMus {
		for _, kappa := range propKappas {
			a, b := mu*kappa, (1-mu)*kappa
			for _, x := range propXs(mu, kappa) {
				d, ref := BetaProportion{mu, kappa}, Beta{a, b}
				got, want := d.LogProb(x), ref.LogProb(x)
				if e := math.Abs(got-want) / math.Max(1, math.Abs(want)); !(e <= propBetaTol) {
					t.Errorf("BetaProportion(%g, %g) at %g: %.17g, Beta(%g, %g) %.17g (error %.2g)", mu, kappa, x, got, a, b, want, e)
				}
				if got, want := d.ScoreInput(x), ref.ScoreInput(x); got != want {
					t.Errorf("BetaProportion(%g, %g) at %g: value partial %.17g, Beta's %.17g", mu, kappa, x, got, want)
				}
				if kappa > 1e3 {
					continue
				}
				s, r := d.Score(nil, x), ref.Score(nil, x)
				chain := []float64{kappa * (r[0] - r[1]), mu*r[0] + (1-mu)*r[1]}
				for i := range s {
					if e := math.Abs(s[i]-chain[i]) / math.Max(1, math.Abs(chain[i])); !(e <= propChainTol) {
						t.Errorf("BetaProportion(%g, %g) at %g: partial %d %.17g, chain rule %.17g (error %.2g)", mu, kappa, x, i, s[i], chain[i], e)
					}
				}
			}
		}
	}
}

// The partials in μ and κ against central differences of the log
// density over the whole grid, extreme precisions included: at κ = 10⁶ the
// partial in κ is of order 10⁻⁶, and the difference of a step of 10 keeps
// its digits.
func TestBetaProportionPartials(t *testing.T) {
	for _, mu := range propMus {
		for _, kappa := range propKappas {
			for _, x := range propXs(mu, kappa) {
				d := BetaProportion{mu, kappa}
				s := d.Score(nil, x)
				fm := func(v float64) float64 { return BetaProportion{v, kappa}.LogProb(x) }
				fk := func(v float64) float64 { return BetaProportion{mu, v}.LogProb(x) }
				steps := []float64{1e-6 * min(mu, 1-mu), 1e-5 * kappa}
				wants := []float64{
					fd.Derivative(fm, mu, &fd.Settings{Formula: fd.Central, Step: steps[0]}),
					fd.Derivative(fk, kappa, &fd.Settings{Formula: fd.Central, Step: steps[1]}),
				}
				// The partials' scales: κ·|log(x/μ)| + 1 for μ, 1/κ for κ.
				scales := []float64{1e-4 * (kappa*math.Abs(math.Log(x/mu)) + 1), 1e-4 / kappa}
				for i, want := range wants {
					if i == 0 && mu > 0.99 {
						continue // μ ± a step of 10⁻⁶(1−μ) is not a float64 (the chain rule checks these)
					}
					// rounding in the difference: 100 ulps of the log density over the step
					round := 100 * 0x1p-52 * math.Abs(d.LogProb(x)) / steps[i]
					if e := math.Abs(s[i] - want); !(e <= propFDTol*(math.Abs(want)+scales[i])+round) {
						t.Errorf("BetaProportion(%g, %g) at %g: partial %d %.12g, finite difference %.12g", mu, kappa, x, i, s[i], want)
					}
				}
			}
		}
	}
}

// Invalid arguments give NaN with NaN partials, values outside (0, 1) −Inf
// with zero partials, as for Beta.
func TestBetaProportionEdges(t *testing.T) {
	u, ok := LookupUnivariate("BetaProportion")
	if !ok {
		t.Fatal("no BetaProportion in dist")
	}
	dp := make([]float64, 2)
	for _, p := range [][]float64{{0, 2}, {1, 2}, {-0.1, 2}, {math.NaN(), 2}, {0.5, 0}, {0.5, -1}, {0.5, math.Inf(1)}, {0.5, math.NaN()}} {
		if lp, _ := u.Kernel(0.5, p, dp); !math.IsNaN(lp) || !math.IsNaN(dp[0]) || !math.IsNaN(dp[1]) {
			t.Errorf("BetaProportion%v: %v %v, want NaN", p, lp, dp)
		}
	}
	for _, x := range []float64{0, 1, -0.5, 2, math.Inf(1)} {
		if lp, _ := u.Kernel(x, []float64{0.3, 5}, dp); !math.IsInf(lp, -1) || dp[0] != 0 || dp[1] != 0 {
			t.Errorf("BetaProportion(0.3, 5) at %g: %v %v, want -Inf", x, lp, dp)
		}
	}
	if v := (BetaProportion{0.2, 9}).Variance(); math.Abs(v-0.016) > 1e-16 {
		t.Errorf("Variance %v, want 0.016", v)
	}
}

// BetaProportion's log CDF and log survival function are Beta's at μκ,
// (1−μ)κ, with the partials by the chain rule, against central
// differences.
func TestBetaProportionLogCDF(t *testing.T) {
	for _, upper := range []bool{false, true} {
		k, ok := LogCDF("BetaProportion", upper)
		kb, _ := LogCDF("Beta", upper)
		if !ok {
			t.Fatal("no log CDF for BetaProportion")
		}
		for _, mu := range []float64{1e-3, 0.1, 0.3, 0.5, 0.77, 0.999} {
			for _, kappa := range []float64{1e-3, 0.5, 3, 20, 1e3} {
				for _, x := range propXs(mu, kappa) {
					dp, db := make([]float64, 2), make([]float64, 2)
					p := []float64{mu, kappa}
					lp, dx := k(x, p, dp)
					want, wdx := kb(x, []float64{mu * kappa, (1 - mu) * kappa}, db)
					if e := math.Abs(lp-want) / math.Max(1, math.Abs(want)); !(e <= propBetaTol) || dx != wdx {
						t.Errorf("upper %v, BetaProportion(%g, %g) at %g: %.17g %g, Beta's %.17g %g", upper, mu, kappa, x, lp, dx, want, wdx)
					}
					if want < -700 {
						continue // the differences lose their digits
					}
					for i := range p {
						f := func(v float64) float64 {
							q := []float64{mu, kappa}
							q[i] = v
							l, _ := k(x, q, make([]float64, 2))
							return l
						}
						// The log CDF keeps about 1e-13 of its digits
						// (the continued fraction's), so steps are wider
						// and the rounding allowance 1000 ulps.
						h := 1e-4 * kappa
						if i == 0 {
							h = 1e-4 * min(mu, 1-mu, math.Sqrt(mu*(1-mu)/(1+kappa)))
						}
						fdv := fd.Derivative(f, p[i], &fd.Settings{Formula: fd.Central, Step: h})
						round := 1e4 * 0x1p-52 * math.Abs(lp) / h
						if e := math.Abs(dp[i] - fdv); !(e <= propFDTol*(math.Abs(fdv)+1e-3)+round) {
							t.Errorf("upper %v, BetaProportion(%g, %g) at %g: partial %d %.12g, finite difference %.12g", upper, mu, kappa, x, i, dp[i], fdv)
						}
					}
				}
			}
		}
	}
}

// Log density and partials against mpmath (50 digits) at extreme
// precisions and means: the partial in κ of order 10⁻⁷ at κ = 10⁶ keeps
// propRefTol of its relative digits.
func TestBetaProportionReference(t *testing.T) {
	const propRefTol = 1e-11
	for _, c := range []struct{ mu, kappa, x, lp, dmu, dkappa float64 }{
		{1e-10, 1e6, 0.05, -51299.456557534120894, 10011448122.262211721, -0.051292293142738260122},
		{0.3, 1e6, 0.3005, 6.1733287782346527295, 2380.7726386382586047, -9.4860476309826389274e-8},
		{0.5, 1e-3, 0.2, -6.4623840561523526662, -0.0013862943611198905783, 999.08453083456263258},
		{0.999, 1e3, 0.9985, 5.4086309046339971835, -982.68081480160075183, 0.00048255568953551212453},
		{0.02, 5e5, 0.0201, 7.4763260960779280747, 2569.2839793534246042, 7.4574450633034909401e-7},
		{0.7, 3, 0.4, -0.37550404040425401703, -4.9371840802051429203, 0.014876042564994279945},
	} {
		d := BetaProportion{c.mu, c.kappa}
		s := d.Score(nil, c.x)
		for i, p := range [][2]float64{{d.LogProb(c.x), c.lp}, {s[0], c.dmu}, {s[1], c.dkappa}} {
			if e := math.Abs(p[0]-p[1]) / math.Abs(p[1]); !(e <= propRefTol) {
				t.Errorf("BetaProportion(%g, %g) at %g: %s %.17g, mpmath %.17g (error %.2g)", c.mu, c.kappa, c.x,
					[]string{"log density", "∂/∂μ", "∂/∂κ"}[i], p[0], p[1], e)
			}
		}
	}
}

// digammaRem(z) is ψ(z) − log z, to the rounding of its two terms.
func TestDigammaRem(t *testing.T) {
	for _, z := range []float64{1e-300, 1e-10, 0.01, 0.5, 1, 1.4616, 2, 5, 9.99, 10, 12.5, 1e3, 1e300} {
		got, want := digammaRem(z), Digamma(z)-logx(z)
		if e := math.Abs(got - want); !(e <= 4e-16*math.Max(1, math.Abs(Digamma(z))+math.Abs(logx(z)))) {
			t.Errorf("digammaRem(%g) = %.17g, ψ − log %.17g", z, got, want)
		}
	}
}

// stirlerrLog(n, log n) is stirlerr(n) bit for bit.
func TestStirlerrLog(t *testing.T) {
	for _, n := range []float64{1e-300, 1e-3, 0.5, 1, 2.5, 9.99, 10, 1e3, 1e300} {
		if got, want := stirlerrLog(n, logx(n)), stirlerr(n); got != want {
			t.Errorf("stirlerrLog(%g) = %.17g, stirlerr %.17g", n, got, want)
		}
	}
}

// A shape that underflows to 0 leaves the mass at its end of (0, 1): the
// density −Inf inside, the log CDF 0 or −Inf.
func TestBetaProportionUnderflow(t *testing.T) {
	lo, _ := LogCDF("BetaProportion", false)
	up, _ := LogCDF("BetaProportion", true)
	dp := make([]float64, 2)
	for _, c := range []struct{ mu, kappa, cdf float64 }{
		{1e-320, 1e-5, 0},                   // μκ = 0: the mass at 0
		{1 - 0x1p-53, 1e-310, math.Inf(-1)}, // (1−μ)κ = 0: the mass at 1
	} {
		if lp := (BetaProportion{c.mu, c.kappa}).LogProb(0.5); !math.IsInf(lp, -1) {
			t.Errorf("BetaProportion(%g, %g) at 0.5: %v, want -Inf", c.mu, c.kappa, lp)
		}
		l, _ := lo(0.5, []float64{c.mu, c.kappa}, dp)
		u, _ := up(0.5, []float64{c.mu, c.kappa}, dp)
		if l != c.cdf || math.Exp(l)+math.Exp(u) != 1 || dp[0] != 0 || dp[1] != 0 {
			t.Errorf("BetaProportion(%g, %g) at 0.5: log CDF %v, log survival %v, partials %v; want the CDF %v", c.mu, c.kappa, l, u, dp, c.cdf)
		}
	}
}
