package dist

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/stat/distuv"
)

// Tolerances of the zero-inflated and hurdle tests.
const (
	ziPartialTol = 1e-6  // analytic partial vs finite difference, relative to max(1, |partial|)
	ziFDRelStep  = 1e-4  // finite-difference step, relative to the argument
	ziRoundTol   = 1e-15 // rounding of a log mass, relative to its terms (termScale): 4.5 ulps
	ziLimitTol   = 1e-13 // log mass against a closed-form limit, relative to max(1, |log p|)
)

// termScale is the size of the terms of a log mass lp at the count k with
// arguments p, whose rounding bounds its own: max(1, |lp|, (k+1)·|log p_j|).
func termScale(lp, k float64, p []float64) float64 {
	m := math.Max(1, math.Abs(lp))
	for _, v := range p {
		if v > 0 {
			m = math.Max(m, (k+1)*math.Abs(math.Log(v)))
		}
	}
	return m
}

// ziFamilies are the four families as kernels of their parameters, for the
// tests over many points.
var ziFamilies = []struct {
	name string
	d    func(p []float64) uniDist
}{
	{"ZeroInflatedPoisson", func(p []float64) uniDist { return ZeroInflatedPoisson{p[0], p[1]} }},
	{"ZeroInflatedNegBinomial", func(p []float64) uniDist { return ZeroInflatedNegBinomial{p[0], p[1], p[2]} }},
	{"HurdlePoisson", func(p []float64) uniDist { return HurdlePoisson{p[0], p[1]} }},
	{"HurdleNegBinomial", func(p []float64) uniDist { return HurdleNegBinomial{p[0], p[1], p[2]} }},
}

// ziPoints are parameter sets at the extremes: psi at and near 0 and 1,
// tiny and large rates and means, small and large dispersions.
func ziPoints(nb bool) [][]float64 {
	var pts [][]float64
	for _, ps := range []float64{0, 1e-12, 0.3, 1 - 1e-9, 1} {
		for _, m := range []float64{1e-8, 1e-3, 0.5, 5, 60, 800} {
			if !nb {
				pts = append(pts, []float64{ps, m})
				continue
			}
			for _, phi := range []float64{0.05, 2, 1e4} {
				pts = append(pts, []float64{ps, m, phi})
			}
		}
	}
	return pts
}

// TestZeroInflatedPartials checks every partial of the four families
// against finite differences of LogProb at the extreme points, one-sided
// where psi is 0 or 1, with steps relative to each parameter so that a
// rate of 1e-8 is differenced at its own scale; and that the log mass and
// partials are finite wherever the mass is positive. The zero's partial in
// psi at psi = 1, −(1 − p0)/p0, varies on the scale of p0, which no step
// 1 − h resolves below p0 ≈ 1e-6: there it is compared with that closed
// form of the count family's LogProb(0).
func TestZeroInflatedPartials(t *testing.T) {
	for _, f := range ziFamilies {
		nb := f.name == "ZeroInflatedNegBinomial" || f.name == "HurdleNegBinomial"
		for _, p := range ziPoints(nb) {
			for _, k := range []float64{0, 1, 2, 7, 100, 900} {
				d := f.d(p)
				lp := d.LogProb(k)
				if math.IsInf(lp, -1) {
					// only where the mass is 0: ψ = 0 above 0, a hurdle's ψ = 1 at 0
					hurdle := f.name[0] == 'H'
					if !(k > 0 && p[0] == 0) && !(hurdle && k == 0 && p[0] == 1) {
						t.Errorf("%s%v at %v: log mass −Inf", f.name, p, k)
					}
					continue
				}
				dp := d.Score(nil, k)
				if math.IsNaN(lp) || math.IsInf(lp, 0) {
					t.Errorf("%s%v at %v: log mass %v", f.name, p, k, lp)
					continue
				}
				for j := range p {
					if j == 0 && p[0] == 1 && k == 0 && lp < -700 {
						// e^(−λ) ≈ P(0) underflows: ∂/∂ψ = −(1 − e^(−λ))/P(0) is
						// beyond the floats (−Inf), only at the end ψ = 1
						if !math.IsInf(dp[0], -1) {
							t.Errorf("%s%v at 0: ∂/∂ψ = %v, want −Inf", f.name, p, dp[0])
						}
						continue
					}
					if j == 0 && p[0] == 1 && k == 0 && lp < math.Log(1e-6) {
						// −(1 − p0)/p0 = −expm1(−log p0), p0 the count family's
						want := -math.Expm1(-lp)
						if e := math.Abs(dp[0]-want) / math.Abs(want); !(e <= ziPartialTol) {
							t.Errorf("%s%v at 0: ∂/∂ψ = %.12g, want −(1 − p0)/p0 = %.12g", f.name, p, dp[0], want)
						}
						continue
					}
					if math.IsNaN(dp[j]) || math.IsInf(dp[j], 0) {
						t.Errorf("%s%v at %v: ∂/∂p[%d] = %v", f.name, p, k, j, dp[j])
						continue
					}
					g := func(v float64) float64 {
						q := append([]float64(nil), p...)
						q[j] = v
						return f.d(q).LogProb(k)
					}
					s := &fd.Settings{Formula: fd.Central, Step: ziFDRelStep * p[j]}
					switch {
					case j == 0 && p[0] == 1 && k == 0:
						// log((1 − ψ) + ψ·P(0 | count)) bends on the scale of
						// P(0); the step a power of 2, so that 1 − h is exact
						h := math.Exp2(math.Floor(math.Log2(1e-6 * math.Min(1, math.Exp(lp)))))
						s = &fd.Settings{Formula: fd.Backward, Step: h}
					case j == 0 && p[0] == 1:
						s = &fd.Settings{Formula: fd.Backward, Step: 0x1p-30}
					case j == 0 && p[0] == 0:
						s = &fd.Settings{Formula: fd.Forward, Step: 0x1p-44}
					case j == 0 && p[0] > 0.5:
						s.Step = 0x1p-44 // ψ ± h exact, and 1 − ψ too
					}
					want := fd.Derivative(g, p[j], s)
					tol := ziPartialTol * math.Max(1, math.Abs(dp[j]))
					if j == 0 && p[0] == 1 {
						tol *= 100 // one-sided: error of the order of the step
					}
					// what the log mass's rounding moves the difference by:
					// ulps of its terms, k·log λ, log φ, log ψ, ...
					tol += ziRoundTol * termScale(lp, k, p) / s.Step
					if e := math.Abs(dp[j] - want); !(e <= tol) {
						t.Errorf("%s%v at %v: ∂/∂p[%d] = %.12g, finite difference %.12g", f.name, p, k, j, dp[j], want)
					}
				}
			}
		}
	}
}

// TestZeroInflatedLimits compares the log masses with closed forms where
// the textbook formula would lose them: the count family at psi = 1, the
// zero's log((1−ψ) + ψe^(−λ)) = log(1 − ψ) at a rate whose e^(−λ)
// underflows, log ψ of a ψ of 1e-300 (whose 1 − ψ is 1), and the truncated
// count of a tiny rate or mean, P(1 | k > 0) = λ/expm1(λ) (−λ/2 + λ²/24 in
// log).
func TestZeroInflatedLimits(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"ZIP(1, 3) at 4 is Poisson", ZeroInflatedPoisson{1, 3}.LogProb(4), Poisson{3}.LogProb(4)},
		{"ZIP(1, 3) at 0 is Poisson", ZeroInflatedPoisson{1, 3}.LogProb(0), -3},
		{"ZIP(1−2⁻⁴⁰, 800) at 0", ZeroInflatedPoisson{1 - 0x1p-40, 800}.LogProb(0), -40 * math.Ln2},
		{"ZIP(1e-9, 5) at 3", ZeroInflatedPoisson{1e-9, 5}.LogProb(3), math.Log(1e-9) + Poisson{5}.LogProb(3)},
		{"ZIP(1e-300, 3) at 2", ZeroInflatedPoisson{1e-300, 3}.LogProb(2), math.Log(1e-300) + Poisson{3}.LogProb(2)},
		{"ZIP(1e-300, 3) at 0", ZeroInflatedPoisson{1e-300, 3}.LogProb(0), -1e-300 * -math.Expm1(-3)},
		{"ZINB(1, 3, 2) at 0 is NegBinomial", ZeroInflatedNegBinomial{1, 3, 2}.LogProb(0), NegBinomial{3, 2}.LogProb(0)},
		{"ZINB(0.8, 3, 2) at 5", ZeroInflatedNegBinomial{0.8, 3, 2}.LogProb(5), math.Log(0.8) + NegBinomial{3, 2}.LogProb(5)},
		{"ZINB(1−2⁻⁵⁰, 1e4, 1e3) at 0", ZeroInflatedNegBinomial{1 - 0x1p-50, 1e4, 1e3}.LogProb(0), -50 * math.Ln2},
		{"HurdlePoisson(0.7, 1e-10) at 1", HurdlePoisson{0.7, 1e-10}.LogProb(1), math.Log(0.7) - 0.5e-10},
		{"HurdlePoisson(0.7, 1e-300) at 1", HurdlePoisson{0.7, 1e-300}.LogProb(1), math.Log(0.7)},
		{"HurdlePoisson(0.7, 800) at 800", HurdlePoisson{0.7, 800}.LogProb(800), math.Log(0.7) + Poisson{800}.LogProb(800)},
		{"HurdlePoisson(0.7, 2) at 0", HurdlePoisson{0.7, 2}.LogProb(0), math.Log1p(-0.7)},
		{"HurdlePoisson(1−2⁻⁵⁰, 2) at 0", HurdlePoisson{1 - 0x1p-50, 2}.LogProb(0), -50 * math.Ln2},
		{"HurdlePoisson(1e-300, 2) at 3", HurdlePoisson{1e-300, 2}.LogProb(3), math.Log(1e-300) + Poisson{2}.LogProb(3) - math.Log(-math.Expm1(-2))},
		// P(1 | k > 0) → 1 as μ → 0, also where s = −log p0 is subnormal
		{"HurdleNegBinomial(0.7, 1e-12, 2) at 1", HurdleNegBinomial{0.7, 1e-12, 2}.LogProb(1), math.Log(0.7) - 1e-12*(1+1.0/2)/2},
		{"HurdleNegBinomial(0.7, 1e-320, 2) at 1", HurdleNegBinomial{0.7, 1e-320, 2}.LogProb(1), math.Log(0.7)},
		// partials in the rate or mean where their 1/λ terms cancel:
		// ∂ log(λ/expm1(λ)) = −1/2 − λ/12; ∂ of the zero's log mass
		// −0.7·e^(−λ)/P(0) = −0.7 + 0.21·λ; −(1 + 1/φ)/2 for the mean
		{"∂λ HurdlePoisson(0.7, 1e-6) at 1", HurdlePoisson{0.7, 1e-6}.Score(nil, 1)[1], -0.5 - 1e-6/12},
		{"∂λ HurdlePoisson(0.7, 1e-12) at 3", HurdlePoisson{0.7, 1e-12}.Score(nil, 3)[1], 2e12 - 0.5},
		{"∂λ ZIP(0.7, 1e-10) at 0", ZeroInflatedPoisson{0.7, 1e-10}.Score(nil, 0)[1], -0.7 + 0.21e-10},
		{"∂μ HurdleNegBinomial(0.7, 1e-14, 2) at 1", HurdleNegBinomial{0.7, 1e-14, 2}.Score(nil, 1)[1], -0.75},
		// ∂ψ near the ends: 1/ψ above 0; at 0 −(1 − e^(−λ))/P(0), which
		// is −(1 − e^(−λ))·2⁴⁰ at ψ = 1 − 2⁻⁴⁰ and e^(−λ) ≪ 2⁻⁴⁰
		{"∂ψ ZIP(1e-300, 3) at 2", ZeroInflatedPoisson{1e-300, 3}.Score(nil, 2)[0] * 1e-300, 1},
		{"∂ψ ZIP(1−2⁻⁴⁰, 800) at 0", ZeroInflatedPoisson{1 - 0x1p-40, 800}.Score(nil, 0)[0] * 0x1p-40, -1},
		{"∂ψ HurdlePoisson(1−2⁻⁵⁰, 2) at 0", HurdlePoisson{1 - 0x1p-50, 2}.Score(nil, 0)[0] * 0x1p-50, -1},
	} {
		if e := math.Abs(c.got-c.want) / math.Max(1, math.Abs(c.want)); !(e <= ziLimitTol) {
			t.Errorf("%s: %.17g, want %.17g", c.name, c.got, c.want)
		}
	}
}

// TestZeroInflatedZeroNearOne checks a zero's log mass where P(0) =
// 1 − s, s = ψ(1 − p0), is near 1, to its own digits: −s − s²/2 for a
// small s (a log-sum-exp of log1p(−ψ) and log ψ + log p0 keeps only
// their absolute digits there, and gave +4e-19 for the last case).
func TestZeroInflatedZeroNearOne(t *testing.T) {
	near := func(s float64) float64 { return -s - s*s/2 }
	q0 := func(l0 float64) float64 { return -math.Expm1(l0) }
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"ZIP(0.5, 1e-8)", ZeroInflatedPoisson{0.5, 1e-8}.LogProb(0), near(0.5 * q0(-1e-8))},
		{"ZIP(1e-12, 0.3)", ZeroInflatedPoisson{1e-12, 0.3}.LogProb(0), near(1e-12 * q0(-0.3))},
		{"ZINB(0.3, 1e-8, 1.65)", ZeroInflatedNegBinomial{0.3, 1e-8, 1.65}.LogProb(0), near(0.3 * q0(-1.65*math.Log1p(1e-8/1.65)))},
		{"ZIB(1e-12, 40, 0.001)", ZeroInflatedBinomial{1e-12, 40, 0.001}.LogProb(0), near(1e-12 * q0(40*math.Log1p(-0.001)))},
		{"ZINB(0.001, 1e-300, 1.65)", ZeroInflatedNegBinomial{0.001, 1e-300, 1.65}.LogProb(0), -1e-303},
	} {
		if e := math.Abs(c.got-c.want) / math.Abs(c.want); !(e <= ziRoundTol) {
			t.Errorf("%s at 0: %.17g, want %.17g (relative error %.2g)", c.name, c.got, c.want, e)
		}
	}
}

// TestZeroInflatedMassSums checks Σ_k P(k) = 1 at the extreme points
// (with ziPoints' rates and means up to 60 and the psi near the ends).
func TestZeroInflatedMassSums(t *testing.T) {
	for _, f := range ziFamilies {
		nb := f.name == "ZeroInflatedNegBinomial" || f.name == "HurdleNegBinomial"
		for _, p := range ziPoints(nb) {
			if p[1] > 60 || (nb && p[2] < 0.1 && p[1] > 1) {
				continue // tails too long to sum term by term
			}
			d := f.d(p)
			var s float64
			for k := 0.0; k < 2e5; k++ {
				s += math.Exp(d.LogProb(k))
			}
			if math.Abs(s-1) > massSumTol {
				t.Errorf("%s%v: Σp = %.16g", f.name, p, s)
			}
		}
	}
}

// TestZeroInflatedConventions: invalid arguments give NaN, values outside
// the support and zero masses −Inf with zero partials.
func TestZeroInflatedConventions(t *testing.T) {
	nan := math.NaN()
	checkKernelConventions(t, []kernelCase{
		{"ZeroInflatedPoisson", []float64{-0.1, 1}, 0}, {"ZeroInflatedPoisson", []float64{1.1, 1}, 2},
		{"ZeroInflatedPoisson", []float64{nan, 1}, 0}, {"ZeroInflatedPoisson", []float64{0.5, 0}, 0},
		{"ZeroInflatedPoisson", []float64{0.5, 1}, nan},
		{"ZeroInflatedNegBinomial", []float64{0.5, 1, 0}, 0}, {"ZeroInflatedNegBinomial", []float64{2, 1, 1}, 0},
		{"HurdlePoisson", []float64{0.5, math.Inf(1)}, 1}, {"HurdlePoisson", []float64{-1, 1}, 0},
		{"HurdleNegBinomial", []float64{0.5, -1, 1}, 1}, {"HurdleNegBinomial", []float64{0.5, 1, nan}, 1},
	}, []kernelCase{
		{"ZeroInflatedPoisson", []float64{0.5, 1}, 1.5}, {"ZeroInflatedPoisson", []float64{0.5, 1}, -1},
		{"ZeroInflatedPoisson", []float64{0, 1}, 2}, {"ZeroInflatedNegBinomial", []float64{0, 1, 2}, 3},
		{"HurdlePoisson", []float64{1, 1}, 0}, {"HurdlePoisson", []float64{0, 1}, 1},
		{"HurdleNegBinomial", []float64{1, 1, 2}, 0}, {"HurdleNegBinomial", []float64{0.6, 1, 2}, 2.5},
	})
}

// kernelCase is a family by name, its arguments and a value.
type kernelCase struct {
	name string
	p    []float64
	x    float64
}

// checkKernelConventions checks that each of invalid (bad arguments) gives
// a NaN log density, x partial and first argument partial, and each of
// outside (a value off the support or of zero mass) −Inf with every
// partial zero.
func checkKernelConventions(t *testing.T, invalid, outside []kernelCase) {
	t.Helper()
	for _, c := range invalid {
		u, _ := LookupUnivariate(c.name)
		dp := make([]float64, len(c.p))
		if lp, dx := u.Kernel(c.x, c.p, dp); !math.IsNaN(lp) || !math.IsNaN(dx) || !math.IsNaN(dp[0]) {
			t.Errorf("%s%v at %v: (%v, %v, %v), want NaN", c.name, c.p, c.x, lp, dx, dp)
		}
	}
	for _, c := range outside {
		u, _ := LookupUnivariate(c.name)
		dp := make([]float64, len(c.p))
		for i := range dp {
			dp[i] = 7
		}
		lp, dx := u.Kernel(c.x, c.p, dp)
		if !math.IsInf(lp, -1) || dx != 0 || slices.ContainsFunc(dp, func(v float64) bool { return v != 0 }) {
			t.Errorf("%s%v at %v: (%v, %v, %v), want −Inf and zero partials", c.name, c.p, c.x, lp, dx, dp)
		}
	}
}

// TestZeroInflatedSamplersChiSquare tests the four samplers against their
// masses (chi-square, bins of ≥ 20 expected draws, as
// TestDiscreteSamplersChiSquare), both branches of each hurdle's truncated
// count: inversion (rate or mean ≤ 1) and rejection.
func TestZeroInflatedSamplersChiSquare(t *testing.T) {
	const n = 50000
	rng := rand.New(rand.NewPCG(41, 42))
	for _, c := range []struct {
		name string
		d    uniDist
	}{
		{"ZIP(0.7, 3)", ZeroInflatedPoisson{0.7, 3}}, {"ZIP(0.2, 12)", ZeroInflatedPoisson{0.2, 12}},
		{"ZINB(0.7, 3, 0.5)", ZeroInflatedNegBinomial{0.7, 3, 0.5}}, {"ZINB(0.5, 20, 4)", ZeroInflatedNegBinomial{0.5, 20, 4}},
		{"HurdlePoisson(0.7, 0.4)", HurdlePoisson{0.7, 0.4}}, {"HurdlePoisson(0.7, 1)", HurdlePoisson{0.7, 1}},
		{"HurdlePoisson(0.4, 7)", HurdlePoisson{0.4, 7}},
		{"HurdleNegBinomial(0.6, 0.5, 2)", HurdleNegBinomial{0.6, 0.5, 2}}, {"HurdleNegBinomial(0.6, 0.9, 1.2)", HurdleNegBinomial{0.6, 0.9, 1.2}},
		{"HurdleNegBinomial(0.8, 6, 1.5)", HurdleNegBinomial{0.8, 6, 1.5}},
		// 1 − p0 < 1 − e^(−0.1): the mixture of Poissons
		{"HurdleNegBinomial(0.7, 0.05, 0.5)", HurdleNegBinomial{0.7, 0.05, 0.5}},
		{"HurdleNegBinomial(0.8, 0.15, 3)", HurdleNegBinomial{0.8, 0.15, 3}},
	} {
		counts := map[float64]int{}
		for range n {
			counts[c.d.Rand(rng)]++
		}
		chi2, bins, out := chiSquareCounts(c.d, counts, n)
		if out > 0 {
			t.Errorf("%s: %d draws outside the binned range", c.name, out)
		}
		if p := chiSquareP(chi2, bins); p < chiSqMinP {
			t.Errorf("%s: chi-square %.1f on %d bins, p = %.2e", c.name, chi2, bins, p)
		}
	}
}

// TestHurdleTinyRate: a hurdle's truncated count at a rate or mean of 1e-9
// (whose rejection sampler would need 1e9 draws a count) is drawn by
// inversion: every positive draw is 1 (P(k ≥ 2 | k > 0) ≈ 5e-10) and the
// share of zeros is 1 − psi within 4.5 standard errors.
func TestHurdleTinyRate(t *testing.T) {
	const n = 20000
	rng := rand.New(rand.NewPCG(43, 44))
	for _, d := range []uniDist{HurdlePoisson{0.75, 1e-9}, HurdleNegBinomial{0.75, 1e-9, 3}, HurdleNegBinomial{0.75, 1e-300, 0.5}} {
		zeros := 0
		for range n {
			switch k := d.Rand(rng); k {
			case 0:
				zeros++
			case 1:
			default:
				t.Fatalf("%#v: draw %v", d, k)
			}
		}
		se := math.Sqrt(0.25 * 0.75 / n)
		if z := (float64(zeros)/n - 0.25) / se; math.Abs(z) > 4.5 {
			t.Errorf("%#v: %d zeros of %d (z = %.1f)", d, zeros, n, z)
		}
	}
}

// chiSquareCounts bins the n draws of counts, from the mode outwards over
// mean ± 8–12 standard deviations, into bins of at least 20 expected draws
// under d, and returns the chi-square statistic, the number of bins and
// the number of draws outside the range.
func chiSquareCounts(d uniDist, counts map[float64]int, n int) (chi2 float64, bins, out int) {
	m, sd := math.Floor(d.Mean()), math.Sqrt(d.Variance())
	lo, hi := math.Max(0, math.Floor(m-8*sd-10)), math.Ceil(m+12*sd+10)
	var obs, exp float64
	for k := lo; k <= hi; k++ {
		obs += float64(counts[k])
		exp += float64(n) * math.Exp(d.LogProb(k))
		if exp >= 20 {
			chi2 += (obs - exp) * (obs - exp) / exp
			bins++
			obs, exp = 0, 0
		}
	}
	for k, v := range counts {
		if k < lo || k > hi {
			out += v
		}
	}
	return chi2, bins, out
}

// chiSquareP is the p-value of chi2 on bins − 1 degrees of freedom.
func chiSquareP(chi2 float64, bins int) float64 {
	return distuv.ChiSquared{K: float64(bins - 1)}.Survival(chi2)
}

// TestHurdleTinyPhi: at Phi = 1e-12 the truncated NegBinomial has
// P(k > 0) ≈ 3e-11, which rejection would take 3e10 draws a count to
// reach, and a mean of 7e10, which inversion would take as many steps to:
// the mixture of Poissons draws it at once, with the share of ones among
// the positive draws that of the mass at 1, within 4.5 standard errors
// (and at Mu = 1.5, Phi = 0.02, whose tail is too long for the chi-square
// bins).
func TestHurdleTinyPhi(t *testing.T) {
	const n = 20000
	rng := rand.New(rand.NewPCG(45, 46))
	for _, d := range []HurdleNegBinomial{{1, 2, 1e-12}, {1, 0.5, 1e-12}, {1, 1.5, 0.02}} {
		ones := 0
		for range n {
			switch k := d.Rand(rng); {
			case k == 1:
				ones++
			case k < 1 || k != math.Trunc(k):
				t.Fatalf("%v: draw %v, want a positive count", d, k)
			}
		}
		p := math.Exp(d.LogProb(1))
		if se := math.Sqrt(p * (1 - p) / n); math.Abs(float64(ones)/n-p) > 4.5*se {
			t.Errorf("%v: %d ones of %d, want %.4f ± %.4f", d, ones, n, p, 4.5*se)
		}
	}
}
