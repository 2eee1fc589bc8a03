package dist

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/stat/distuv"
)

// Tolerances of the tests of HurdleGamma, HurdleLogNormal,
// ZeroInflatedBinomial and the zero-inflated and hurdle log CDFs.
const (
	hurdleRefTol  = 1e-13 // log density vs the textbook formula, relative to the size of its terms
	hurdleMassTol = 1e-12 // zero mass + ∫ of the density above 0 = 1 (30-point Gauss–Legendre panels)
	ziCDFTol      = 1e-11 // CDF vs partial sums or integrals, relative to the probability
	ziCDFGradTol  = 1e-6  // log CDF partial vs central difference, relative to max(1, |partial|)
	hurdleKSCrit  = 1.95  // KS statistic · √n: P(exceeded) ≈ 1e-3 under the null
	hurdleZMax    = 4.5   // zero fraction within 4.5 standard errors: P(exceeded) ≈ 7e-6
)

// hurdleRef is the textbook log density of the continuous hurdles and the
// textbook log mass of ZeroInflatedBinomial, in plain float64, with the
// size of its largest term (what its rounding is relative to).
func hurdleRef(name string, p []float64, x float64) (lp, scale float64) {
	psi := p[0]
	terms := func(ts ...float64) float64 {
		m := 1.0
		for _, t := range ts {
			m = math.Max(m, math.Abs(t))
		}
		return m
	}
	switch name {
	case "HurdleGamma":
		if x == 0 {
			return math.Log(1 - psi), 1
		}
		a, b := p[1], p[2]
		lg, _ := math.Lgamma(a)
		t := []float64{math.Log(psi), a * math.Log(b), (a - 1) * math.Log(x), b * x, lg}
		return t[0] + t[1] + t[2] - t[3] - t[4], terms(t...)
	case "HurdleLogNormal":
		if x == 0 {
			return math.Log(1 - psi), 1
		}
		mu, s := p[1], p[2]
		z := (math.Log(x) - mu) / s
		t := []float64{math.Log(psi), math.Log(x), math.Log(s), 0.5 * math.Log(2*math.Pi), z * z / 2}
		return t[0] - t[1] - t[2] - t[3] - t[4], terms(t...)
	}
	n, pr := p[1], p[2] // ZeroInflatedBinomial
	if x == 0 {
		return math.Log((1 - psi) + psi*math.Pow(1-pr, n)), 1
	}
	l1, _ := math.Lgamma(n + 1)
	l2, _ := math.Lgamma(x + 1)
	l3, _ := math.Lgamma(n - x + 1)
	t := []float64{math.Log(psi), l1, l2, l3, x * math.Log(pr), (n - x) * math.Log(1-pr)}
	return t[0] + t[1] - t[2] - t[3] + t[4] + t[5], terms(t...)
}

// newZIMore are the three families by name, as uniDists.
var newZIMore = map[string]func(p []float64) uniDist{
	"HurdleGamma":          func(p []float64) uniDist { return HurdleGamma{p[0], p[1], p[2]} },
	"HurdleLogNormal":      func(p []float64) uniDist { return HurdleLogNormal{p[0], p[1], p[2]} },
	"ZeroInflatedBinomial": func(p []float64) uniDist { return ZeroInflatedBinomial{p[0], p[1], p[2]} },
}

// ziMorePoints are parameter sets at the extremes: psi near 0 and 1, tiny
// and large shapes and rates, far means and small and large scales, a
// success probability near 0 and 1 and a large n; with values at 0, near
// 0 and far out.
func ziMorePoints(name string) (pts [][]float64, xs []float64) {
	psis := []float64{1e-12, 0.3, 0.9, 1 - 1e-9}
	var args [][2]float64
	switch name {
	case "HurdleGamma":
		for _, a := range []float64{0.05, 1, 30, 1e3} {
			for _, b := range []float64{1e-3, 1, 50} {
				args = append(args, [2]float64{a, b})
			}
		}
		xs = []float64{0, 1e-8, 0.5, 3, 50, 700}
	case "HurdleLogNormal":
		for _, mu := range []float64{-20, 0, 3} {
			for _, s := range []float64{0.01, 1, 10} {
				args = append(args, [2]float64{mu, s})
			}
		}
		xs = []float64{0, 1e-8, 0.5, 3, 50, 700}
	default:
		for _, n := range []float64{1, 7, 400} {
			for _, pr := range []float64{1e-9, 0.3, 1 - 1e-6} {
				args = append(args, [2]float64{n, pr})
			}
		}
		xs = []float64{0, 1, 2, 6, 7, 150, 400}
	}
	for _, ps := range psis {
		for _, a := range args {
			pts = append(pts, []float64{ps, a[0], a[1]})
		}
	}
	return pts, xs
}

// TestZeroInflatedMoreDensities compares the log densities of
// HurdleGamma, HurdleLogNormal and ZeroInflatedBinomial with the textbook
// formulas, and checks every partial (the value's too, above 0) against
// central differences at the extreme points, with steps relative to each
// argument; n, a count, has partial 0.
func TestZeroInflatedMoreDensities(t *testing.T) {
	for _, name := range []string{"HurdleGamma", "HurdleLogNormal", "ZeroInflatedBinomial"} {
		newD := newZIMore[name]
		u, _ := LookupUnivariate(name)
		pts, xs := ziMorePoints(name)
		for _, p := range pts {
			for _, x := range xs {
				d := newD(p)
				lp := d.LogProb(x)
				want, scale := hurdleRef(name, p, x)
				if math.IsInf(want, -1) || want < -700 {
					// the mass underflows in the textbook formula (p^n)
					if !(lp <= want+1e-9*math.Abs(want)) && !math.IsInf(want, -1) {
						t.Errorf("%s%v at %v: %v, textbook %v", name, p, x, lp, want)
					}
					if math.IsInf(want, -1) {
						continue
					}
				}
				if !(math.Abs(lp-want) <= hurdleRefTol*scale) && want >= -700 {
					t.Errorf("%s%v at %v: log density %.17g, textbook %.17g", name, p, x, lp, want)
				}
				if math.IsInf(lp, -1) {
					continue
				}
				dp := make([]float64, 3)
				_, dx := u.Kernel(x, p, dp)
				for j := range p {
					if name == "ZeroInflatedBinomial" && j == 1 {
						if dp[j] != 0 {
							t.Errorf("%s%v at %v: ∂/∂n = %v, want 0", name, p, x, dp[j])
						}
						continue
					}
					g := func(v float64) float64 {
						q := slices.Clone(p)
						q[j] = v
						return newD(q).LogProb(x)
					}
					step := ziFDRelStep * p[j]
					switch {
					case j == 0:
						step = math.Min(step, 0x1p-44) // ψ ± h and 1 − ψ exact
					case u.Params[j].Support == Real: // LogNormal's mu
						step = ziFDRelStep * math.Max(1, math.Abs(p[j]))
					case u.Params[j].Support == Unit: // Binomial's p, near 0 or 1
						step = ziFDRelStep * math.Min(p[j], 1-p[j])
					}
					want := fd.Derivative(g, p[j], &fd.Settings{Formula: fd.Central, Step: step})
					tol := ziPartialTol*math.Max(1, math.Abs(dp[j])) + ziRoundTol*scale/step
					if e := math.Abs(dp[j] - want); !(e <= tol) {
						t.Errorf("%s%v at %v: ∂/∂p[%d] = %.12g, finite difference %.12g", name, p, x, j, dp[j], want)
					}
				}
				if x == 0 || name == "ZeroInflatedBinomial" {
					if dx != 0 {
						t.Errorf("%s%v at %v: ∂/∂x = %v, want 0", name, p, x, dx)
					}
					continue
				}
				step := ziFDRelStep * x
				want = fd.Derivative(d.LogProb, x, &fd.Settings{Formula: fd.Central, Step: step})
				if e := math.Abs(dx - want); !(e <= ziPartialTol*math.Max(1, math.Abs(dx))+ziRoundTol*scale/step) {
					t.Errorf("%s%v at %v: ∂/∂x = %.12g, finite difference %.12g", name, p, x, dx, want)
				}
			}
		}
	}
}

// integrateAbove returns ∫ e^lp(x) dx over (lo, hi) ⊂ (0, ∞) in t = log x
// (∫ e^(lp(e^t) + t) dt), by 30-point Gauss–Legendre panels of width
// 1/4 over t in [max(log lo, −200), min(log hi, 40)]: the densities here
// put below 1e-40 of their mass outside that range.
func integrateAbove(lp func(float64) float64, lo, hi float64) float64 {
	tlo, thi := -200.0, 40.0
	if lo > 0 {
		tlo = math.Log(lo)
	}
	if hi < math.Inf(1) {
		thi = math.Log(hi)
	}
	f := func(t float64) float64 { return math.Exp(lp(math.Exp(t)) + t) }
	var s float64
	n := int(math.Ceil((thi - tlo) * 4))
	w := (thi - tlo) / float64(n)
	for i := range n {
		s += quad.Fixed(f, tlo+float64(i)*w, tlo+float64(i+1)*w, 30, quad.Legendre{}, 0)
	}
	return s
}

// hurdleContinuousCases are parameters of the continuous hurdles for the
// measure and CDF tests.
var hurdleContinuousCases = []struct {
	name string
	p    []float64
}{
	{"HurdleGamma", []float64{0.7, 2, 1}}, {"HurdleGamma", []float64{0.3, 0.5, 4}},
	{"HurdleGamma", []float64{1 - 1e-9, 30, 0.2}}, {"HurdleGamma", []float64{1e-6, 1.5, 1e-3}},
	{"HurdleLogNormal", []float64{0.7, 0, 0.5}}, {"HurdleLogNormal", []float64{0.2, 3, 1.5}},
	{"HurdleLogNormal", []float64{0.95, -4, 0.1}},
}

// TestHurdleMixedMeasure: the point mass at 0 plus the integral of the
// density over (0, ∞) is 1; and the log CDF at x ≥ 0 is the point mass
// plus the integral over (0, x], its upper tail the integral over (x, ∞),
// at the point mass (x = 0) and into both tails.
func TestHurdleMixedMeasure(t *testing.T) {
	for _, c := range hurdleContinuousCases {
		d := newZIMore[c.name](c.p)
		zero := math.Exp(d.LogProb(0))
		if s := zero + integrateAbove(d.LogProb, 0, math.Inf(1)); math.Abs(s-1) > hurdleMassTol {
			t.Errorf("%s%v: P(0) + ∫ density = %.16g", c.name, c.p, s)
		}
		lo, _ := LogCDF(c.name, false)
		up, _ := LogCDF(c.name, true)
		m := d.Mean() / c.p[0] // the positive part's mean
		for _, x := range []float64{0, m / 100, m / 3, m, 3 * m, 10 * m} {
			dp := make([]float64, 3)
			lF, _ := lo(x, c.p, dp)
			lS, _ := up(x, c.p, dp)
			wantS := integrateAbove(d.LogProb, x, math.Inf(1))
			wantF := zero + integrateAbove(d.LogProb, 0, x)
			if x == 0 {
				wantF = zero
			}
			for _, v := range []struct {
				what      string
				got, want float64
			}{{"P(X ≤ x)", math.Exp(lF), wantF}, {"P(X > x)", math.Exp(lS), wantS}} {
				if v.want < 1e-280 {
					continue // beneath the quadrature's absolute error
				}
				if e := math.Abs(v.got-v.want) / v.want; !(e <= ziCDFTol) {
					t.Errorf("%s%v: %s at %g = %.16g, integral %.16g", c.name, c.p, v.what, x, v.got, v.want)
				}
			}
		}
	}
}

// ziCountCases are parameters of the zero-inflated and hurdle counts for
// the CDF tests: psi near 0, middling and near 1; small, middling and
// large rates and means.
var ziCountCases = []struct {
	name string
	p    []float64
}{
	{"ZeroInflatedPoisson", []float64{0.7, 3}}, {"ZeroInflatedPoisson", []float64{1 - 1e-9, 0.01}},
	{"ZeroInflatedPoisson", []float64{1e-6, 40}},
	{"ZeroInflatedNegBinomial", []float64{0.6, 4, 2}}, {"ZeroInflatedNegBinomial", []float64{0.99, 0.2, 0.3}},
	{"HurdlePoisson", []float64{0.7, 2}}, {"HurdlePoisson", []float64{0.5, 1e-4}}, {"HurdlePoisson", []float64{1 - 1e-9, 25}},
	{"HurdleNegBinomial", []float64{0.7, 3, 2}}, {"HurdleNegBinomial", []float64{0.4, 0.05, 5}},
	{"ZeroInflatedBinomial", []float64{0.7, 20, 0.3}}, {"ZeroInflatedBinomial", []float64{0.999, 5, 0.9}},
	{"ZeroInflatedBinomial", []float64{0.2, 300, 0.01}},
}

// ziTextbookMass is the textbook mass of the zero-inflated and hurdle
// counts at k, in plain float64 (Poisson and negative binomial masses
// through lgamma), independent of the package's code.
func ziTextbookMass(name string, p []float64, k float64) float64 {
	psi := p[0]
	lg := func(v float64) float64 { l, _ := math.Lgamma(v); return l }
	var base func(k float64) float64
	switch name {
	case "ZeroInflatedPoisson", "HurdlePoisson":
		lam := p[1]
		base = func(k float64) float64 { return math.Exp(k*math.Log(lam) - lam - lg(k+1)) }
	case "ZeroInflatedNegBinomial", "HurdleNegBinomial":
		mu, phi := p[1], p[2]
		base = func(k float64) float64 {
			return math.Exp(lg(k+phi) - lg(k+1) - lg(phi) + phi*math.Log(phi/(mu+phi)) + k*math.Log(mu/(mu+phi)))
		}
	default:
		n, pr := p[1], p[2]
		base = func(k float64) float64 {
			if k > n {
				return 0
			}
			return math.Exp(lg(n+1) - lg(k+1) - lg(n-k+1) + k*math.Log(pr) + (n-k)*math.Log1p(-pr))
		}
	}
	if name[0] == 'H' {
		if k == 0 {
			return 1 - psi
		}
		return psi * base(k) / (1 - base(0))
	}
	if k == 0 {
		return (1 - psi) + psi*base(0)
	}
	return psi * base(k)
}

// TestZeroInflatedLogCDFSums: the log CDFs of the zero-inflated and hurdle
// counts against partial sums of their textbook masses, P(X ≤ k) from
// below and P(X > k) summed above k (the smaller of the two each time,
// so that neither is a difference from 1).
func TestZeroInflatedLogCDFSums(t *testing.T) {
	for _, c := range ziCountCases {
		lo, _ := LogCDF(c.name, false)
		up, _ := LogCDF(c.name, true)
		var masses []float64
		for k := 0.0; k < 5000; k++ {
			masses = append(masses, ziTextbookMass(c.name, c.p, k))
		}
		for _, k := range []int{0, 1, 2, 5, 12, 40} {
			var below, above float64
			for j, m := range masses {
				if j <= k {
					below += m
				} else {
					above += m
				}
			}
			dp := make([]float64, len(c.p))
			for _, v := range []struct {
				what  string
				upper bool
				want  float64
			}{{"P(X ≤ k)", false, below}, {"P(X > k)", true, above}} {
				if v.want < 1e-300 || v.want > 0.999 && !v.upper && above > 1e-3 {
					continue
				}
				k0 := lo
				if v.upper {
					k0 = up
				}
				l, _ := k0(float64(k)+0.5, c.p, dp) // between counts: the count below
				if e := math.Abs(math.Exp(l)-v.want) / v.want; !(e <= ziCDFTol) {
					t.Errorf("%s%v: %s at %d = %.16g, sum %.16g", c.name, c.p, v.what, k, math.Exp(l), v.want)
				}
			}
		}
	}
}

// TestZeroInflatedLogCDFGradients checks every partial of the log CDFs of
// the seven families, and the value's of the continuous hurdles, against
// central differences, at the zero, in both tails and with psi near its
// ends.
func TestZeroInflatedLogCDFGradients(t *testing.T) {
	type pt struct {
		name string
		p    []float64
		xs   []float64
	}
	var pts []pt
	for _, c := range ziCountCases {
		pts = append(pts, pt{c.name, c.p, []float64{0, 1, 3, 30}})
	}
	for _, c := range hurdleContinuousCases {
		m := HurdleGamma{1, 1, 1}.Mean()
		if c.name == "HurdleGamma" {
			m = c.p[1] / c.p[2]
		} else {
			m = math.Exp(c.p[1])
		}
		pts = append(pts, pt{c.name, c.p, []float64{0, m / 50, m, 8 * m}})
	}
	for _, c := range pts {
		u, _ := LookupUnivariate(c.name)
		for _, upper := range []bool{false, true} {
			k, _ := LogCDF(c.name, upper)
			for _, x := range c.xs {
				dp := make([]float64, len(c.p))
				lp, dx := k(x, c.p, dp)
				if upper && u.Support == BoundedCount && x >= c.p[1] {
					if !math.IsInf(lp, -1) {
						t.Errorf("%s%v at %g ≥ n: log P(X > x) = %v", c.name, c.p, x, lp)
					}
					continue
				}
				if math.IsNaN(lp) || math.IsInf(lp, 0) {
					t.Errorf("%s%v at %g, upper %v: log CDF %v", c.name, c.p, x, upper, lp)
					continue
				}
				check := func(what string, got float64, f func(float64) float64, at, step float64) {
					want := fd.Derivative(f, at, &fd.Settings{Formula: fd.Central, Step: step})
					// plus what the log CDF's rounding moves the difference by
					tol := ziCDFGradTol*math.Max(1, math.Abs(got)) + ziRoundTol*math.Max(1, math.Abs(lp))/step
					if !(math.Abs(got-want) <= tol) {
						t.Errorf("%s%v at %g, upper %v: ∂/∂%s = %.10g, central difference %.10g", c.name, c.p, x, upper, what, got, want)
					}
				}
				for j := range c.p {
					if u.Params[j].Support == Count {
						if dp[j] != 0 {
							t.Errorf("%s%v: partial in the count n = %v", c.name, c.p, dp[j])
						}
						continue
					}
					step := 1e-6 * c.p[j]
					if u.Params[j].Support == Unit {
						// psi, p: inside (0, 1), a power of 2 so that
						// p ± h is exact near 1
						step = math.Exp2(math.Floor(math.Log2(1e-4 * math.Min(c.p[j], 1-c.p[j]))))
					}
					check("p"+string(rune('0'+j)), dp[j], func(v float64) float64 {
						q := slices.Clone(c.p)
						q[j] = v
						l, _ := k(x, q, make([]float64, len(q)))
						return l
					}, c.p[j], step)
				}
				if u.Support.Discrete() || x == 0 {
					if dx != 0 && u.Support.Discrete() {
						t.Errorf("%s: discrete log CDF ∂/∂x = %v", c.name, dx)
					}
					continue
				}
				check("x", dx, func(v float64) float64 { l, _ := k(v, c.p, make([]float64, len(c.p))); return l }, x, 1e-6*x)
			}
		}
	}
}

// TestHurdleContinuousRand: the share of zeros of each continuous
// hurdle's draws is 1 − psi within hurdleZMax standard errors, and the
// positive draws follow the continuous family (Kolmogorov–Smirnov against
// gonum's CDF, below hurdleKSCrit/√n, a 1e-3 test).
func TestHurdleContinuousRand(t *testing.T) {
	const n = 40000
	rng := rand.New(rand.NewPCG(47, 48))
	for _, c := range []struct {
		d   uniDist
		psi float64
		cdf func(float64) float64
	}{
		{HurdleGamma{0.7, 2, 1}, 0.7, distuv.Gamma{Alpha: 2, Beta: 1}.CDF},
		{HurdleGamma{0.25, 0.3, 5}, 0.25, distuv.Gamma{Alpha: 0.3, Beta: 5}.CDF},
		{HurdleLogNormal{0.6, 1, 0.7}, 0.6, distuv.LogNormal{Mu: 1, Sigma: 0.7}.CDF},
	} {
		var pos []float64
		for range n {
			v := c.d.Rand(rng)
			switch {
			case v > 0:
				pos = append(pos, v)
			case v != 0:
				t.Fatalf("%#v: draw %v", c.d, v)
			}
		}
		zeros := float64(n - len(pos))
		se := math.Sqrt(c.psi * (1 - c.psi) / n)
		if z := (zeros/n - (1 - c.psi)) / se; math.Abs(z) > hurdleZMax {
			t.Errorf("%#v: %g zeros of %d (z = %.1f)", c.d, zeros, n, z)
		}
		slices.Sort(pos)
		var ks float64
		for i, v := range pos {
			f := c.cdf(v)
			ks = max(ks, math.Abs(f-float64(i)/float64(len(pos))), math.Abs(f-float64(i+1)/float64(len(pos))))
		}
		if crit := hurdleKSCrit / math.Sqrt(float64(len(pos))); ks > crit {
			t.Errorf("%#v: KS statistic of the positive draws %.4f > %.4f", c.d, ks, crit)
		}
	}
}

// TestZeroInflatedBinomialChiSquare tests ZeroInflatedBinomial's sampler
// against its mass (chi-square, bins of ≥ 20 expected draws).
func TestZeroInflatedBinomialChiSquare(t *testing.T) {
	const n = 50000
	rng := rand.New(rand.NewPCG(49, 50))
	for _, d := range []ZeroInflatedBinomial{{0.7, 10, 0.3}, {0.4, 200, 0.05}, {0.9, 30, 0.97}} {
		counts := map[float64]int{}
		for range n {
			counts[d.Rand(rng)]++
		}
		chi2, bins, out := chiSquareCounts(d, counts, n)
		if out > 0 {
			t.Errorf("%v: %d draws outside the binned range", d, out)
		}
		if p := chiSquareP(chi2, bins); p < chiSqMinP {
			t.Errorf("%v: chi-square %.1f on %d bins, p = %.2e", d, chi2, bins, p)
		}
	}
}

// TestZeroInflatedMoreConventions: invalid arguments give NaN, values
// outside the support and zero masses −Inf with zero partials, and an
// underflowed positive draw stays positive.
func TestZeroInflatedMoreConventions(t *testing.T) {
	nan := math.NaN()
	checkKernelConventions(t, []kernelCase{
		{"HurdleGamma", []float64{-0.1, 1, 1}, 0}, {"HurdleGamma", []float64{0.5, 0, 1}, 1}, {"HurdleGamma", []float64{0.5, 1, 1}, nan},
		{"HurdleLogNormal", []float64{0.5, nan, 1}, 1}, {"HurdleLogNormal", []float64{0.5, 0, -1}, 0}, {"HurdleLogNormal", []float64{1.5, 0, 1}, 1},
		{"ZeroInflatedBinomial", []float64{0.5, 2.5, 0.5}, 1}, {"ZeroInflatedBinomial", []float64{0.5, 3, 1.5}, 0},
		{"ZeroInflatedBinomial", []float64{0.5, 3, 0.5}, nan},
	}, []kernelCase{
		{"HurdleGamma", []float64{0.5, 2, 1}, -1e-300}, {"HurdleGamma", []float64{1, 2, 1}, 0}, {"HurdleGamma", []float64{0, 2, 1}, 1},
		{"HurdleGamma", []float64{0.5, 2, 1}, math.Inf(1)},
		{"HurdleLogNormal", []float64{0.5, 0, 1}, -2}, {"HurdleLogNormal", []float64{1, 0, 1}, 0},
		{"ZeroInflatedBinomial", []float64{0.5, 3, 0.5}, 4}, {"ZeroInflatedBinomial", []float64{0.5, 3, 0.5}, 1.5},
		{"ZeroInflatedBinomial", []float64{0, 3, 0.5}, 2}, {"ZeroInflatedBinomial", []float64{1, 3, 1}, 0},
		{"ZeroInflatedBinomial", []float64{0.5, 3, 0}, 2},
	})
	// ZeroInflatedBinomial(0.5, 3, 1) at 0: only the structural zeros
	if got, want := (ZeroInflatedBinomial{0.5, 3, 1}).LogProb(0), math.Log(0.5); got != want {
		t.Errorf("ZeroInflatedBinomial(0.5, 3, 1) at 0: %v, want %v", got, want)
	}
	// Gamma(1e-3, 1)'s draws underflow to 0 about half the time
	rng := rand.New(rand.NewPCG(51, 52))
	for range 200 {
		if v := (HurdleGamma{1, 1e-3, 1}).Rand(rng); !(v > 0) {
			t.Fatalf("HurdleGamma(1, 1e-3, 1): draw %v at psi = 1", v)
		}
	}
}
