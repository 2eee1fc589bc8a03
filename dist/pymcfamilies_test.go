package dist

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
)

// Tests of the families of PyMC and brms added in wald.go, kumaraswamy.go,
// logitnormal.go, asymlaplace.go, moyal.go and rice.go.

const (
	// pymcRefTol bounds a log density or log probability against its
	// textbook formula in plain float64, relative to max(1, |value|).
	pymcRefTol = 1e-12
	// pymcQuadTol bounds ∫p = 1 and a CDF against the integral of the
	// density (Simpson's rule on 2·10⁵ panels of a transformed variable).
	pymcQuadTol = 1e-9
	// pymcFDTol bounds a partial against a central difference, relative to
	// max(1, |partial|).
	pymcFDTol = 1e-6
	// pymcKSDraws are the draws per sampler test; pymcKSMax is the
	// Kolmogorov–Smirnov bound: by the Dvoretzky–Kiefer–Wolfowitz
	// inequality P(D > ε) ≤ 2·exp(−2nε²), which is 1e-6 at ε = 0.019 for
	// n = 20000, so a correct sampler fails with probability below 1e-6
	// (the draws are seeded, so the outcome is fixed).
	pymcKSDraws = 20000
	pymcKSMax   = 0.019
)

// pymcCase is a family at one parameter set, with where its support lies
// for the quadrature.
type pymcCase struct {
	name string
	p    []float64
}

var pymcCases = []pymcCase{
	{"Wald", []float64{1, 3}}, {"Wald", []float64{2.5, 0.4}}, {"Wald", []float64{0.3, 50}}, {"Wald", []float64{4, 1e3}},
	{"Kumaraswamy", []float64{2, 5}}, {"Kumaraswamy", []float64{0.5, 2}}, {"Kumaraswamy", []float64{7, 1.3}},
	{"LogitNormal", []float64{0, 1}}, {"LogitNormal", []float64{-1.5, 0.4}}, {"LogitNormal", []float64{2, 2.5}},
	{"AsymmetricLaplace", []float64{1, 1, 0}}, {"AsymmetricLaplace", []float64{2, 0.5, 1}}, {"AsymmetricLaplace", []float64{0.7, 3, -2}},
	{"Moyal", []float64{0, 1}}, {"Moyal", []float64{2, 0.3}}, {"Moyal", []float64{-5, 4}},
	{"Rice", []float64{0, 1}}, {"Rice", []float64{1, 1}}, {"Rice", []float64{5, 0.5}}, {"Rice", []float64{40, 2}},
}

// simpson integrates f over [lo, hi] with n (even) panels.
func simpson(f func(float64) float64, lo, hi float64, n int) float64 {
	h := (hi - lo) / float64(n)
	s := f(lo) + f(hi)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		s += w * f(lo+float64(i)*h)
	}
	return s * h / 3
}

// pymcMass returns ∫ p(x) dx over (lo, hi) ∩ support of the case, through
// a change of variable that makes each tail decay quickly: x = e^u on a
// positive support, x = InvLogit(u) on the unit interval, and on the real
// line x itself over a range of many scales, split at the kink of the
// asymmetric Laplace.
func pymcMass(t *testing.T, c pymcCase, lo, hi float64) float64 {
	t.Helper()
	u, _ := LookupUnivariate(c.name)
	dens := func(x float64) float64 {
		lp, _ := u.Kernel(x, c.p, nil)
		return math.Exp(lp)
	}
	const n = 200000
	switch u.Support {
	case Positive:
		// from e^(−50) to e^12 times the mean, past which both tails of
		// these cases are below 1e-16
		m := c.p[0]
		if c.name == "Rice" {
			m = Rice{c.p[0], c.p[1]}.Mean()
		}
		a, b := math.Max(lo, m*math.Exp(-50)), math.Min(hi, m*math.Exp(12))
		if a >= b {
			return 0
		}
		f := func(v float64) float64 { x := math.Exp(v); return dens(x) * x }
		return simpson(f, math.Log(a), math.Log(b), n)
	case Unit:
		a, b := math.Max(lo, 1e-300), math.Min(hi, 1)
		f := func(v float64) float64 { x := InvLogit(v); return dens(x) * x * InvLogit(-v) }
		top := 40.0
		if b < 1 {
			top = math.Log(b) - math.Log1p(-b)
		}
		return simpson(f, math.Log(a)-math.Log1p(-a), top, n)
	}
	var mid, scale float64
	switch c.name {
	case "AsymmetricLaplace":
		mid, scale = c.p[2], math.Max(c.p[1], 1/c.p[1])/c.p[0]
	case "Moyal":
		mid, scale = c.p[0], c.p[1]
	default:
		t.Fatalf("%s: no quadrature", c.name)
	}
	a, b := math.Max(lo, mid-90*scale), math.Min(hi, mid+90*scale)
	if c.name == "Moyal" {
		a = math.Max(lo, mid-8*scale) // e^(−z) is e^8 there: p(x) ≈ exp(−1490)
	}
	if c.name == "AsymmetricLaplace" && a < mid && mid < b {
		return simpson(dens, a, mid, n) + simpson(dens, mid, b, n)
	}
	return simpson(dens, a, b, n)
}

// TestPyMCFamiliesIntegrate: each density integrates to 1 over its
// support, and exp(logcdf) and exp(logccdf) at a few quantiles are the
// integrals of the density below and above the point.
func TestPyMCFamiliesIntegrate(t *testing.T) {
	for _, c := range pymcCases {
		if s := pymcMass(t, c, math.Inf(-1), math.Inf(1)); math.Abs(s-1) > pymcQuadTol {
			t.Errorf("%s%v: ∫p = %.15g", c.name, c.p, s)
		}
		lo, ok := LogCDF(c.name, false)
		if !ok {
			continue // Rice: no log CDF (Marcum's Q)
		}
		up, _ := LogCDF(c.name, true)
		d, _ := LookupUnivariate(c.name)
		rng := rand.New(rand.NewPCG(31, 0))
		for range 4 {
			x := d.Rand(c.p, rng)
			fl, _ := lo(x, c.p, make([]float64, len(c.p)))
			fu, _ := up(x, c.p, make([]float64, len(c.p)))
			below := pymcMass(t, c, math.Inf(-1), x)
			above := pymcMass(t, c, x, math.Inf(1))
			if math.Abs(math.Exp(fl)-below) > pymcQuadTol || math.Abs(math.Exp(fu)-above) > pymcQuadTol {
				t.Errorf("%s%v at %g: P(X ≤ x) %.15g, P(X > x) %.15g; integrals %.15g, %.15g",
					c.name, c.p, x, math.Exp(fl), math.Exp(fu), below, above)
			}
		}
	}
}

// normCDF is Φ in plain float64, for the references.
func normCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// besselI0Series is I₀(z) by its power series in plain float64, for the
// Rice reference at moderate z.
func besselI0Series(z float64) float64 {
	s, term := 1.0, 1.0
	for k := 1; k < 500; k++ {
		term *= z * z / 4 / float64(k*k)
		s += term
		if term < 1e-18*s {
			break
		}
	}
	return s
}

// TestPyMCFamiliesReference compares the log densities and log CDFs with
// their textbook (scipy's) formulas, written out here in plain float64 at
// points where those formulas do not overflow.
func TestPyMCFamiliesReference(t *testing.T) {
	type ref struct {
		name     string
		p        []float64
		x        float64
		pdf, cdf float64 // the reference density and CDF (cdf NaN: none)
	}
	var refs []ref
	for _, c := range []struct{ mu, lam, x float64 }{{1, 3, 0.4}, {1, 3, 2.2}, {2.5, 0.4, 0.05}, {2.5, 0.4, 9}, {0.3, 50, 0.31}} {
		pdf := math.Sqrt(c.lam/(2*math.Pi*c.x*c.x*c.x)) * math.Exp(-c.lam*(c.x-c.mu)*(c.x-c.mu)/(2*c.mu*c.mu*c.x))
		s := math.Sqrt(c.lam / c.x)
		cdf := normCDF(s*(c.x/c.mu-1)) + math.Exp(2*c.lam/c.mu)*normCDF(-s*(c.x/c.mu+1))
		refs = append(refs, ref{"Wald", []float64{c.mu, c.lam}, c.x, pdf, cdf})
	}
	for _, c := range []struct{ a, b, x float64 }{{2, 5, 0.3}, {0.5, 2, 0.01}, {7, 1.3, 0.9}} {
		pdf := c.a * c.b * math.Pow(c.x, c.a-1) * math.Pow(1-math.Pow(c.x, c.a), c.b-1)
		cdf := 1 - math.Pow(1-math.Pow(c.x, c.a), c.b)
		refs = append(refs, ref{"Kumaraswamy", []float64{c.a, c.b}, c.x, pdf, cdf})
	}
	for _, c := range []struct{ mu, s, x float64 }{{0, 1, 0.3}, {-1.5, 0.4, 0.2}, {2, 2.5, 0.999}} {
		z := (math.Log(c.x/(1-c.x)) - c.mu) / c.s
		pdf := math.Exp(-z*z/2) / (c.s * math.Sqrt(2*math.Pi) * c.x * (1 - c.x))
		refs = append(refs, ref{"LogitNormal", []float64{c.mu, c.s}, c.x, pdf, normCDF(z)})
	}
	for _, c := range []struct{ b, k, mu, x float64 }{{1, 1, 0, 0.5}, {2, 0.5, 1, -0.3}, {0.7, 3, -2, 1}, {0.7, 3, -2, -4}} {
		sgn := 1.0
		if c.x < c.mu {
			sgn = -1
		}
		pdf := c.b / (c.k + 1/c.k) * math.Exp(-(c.x-c.mu)*c.b*sgn*math.Pow(c.k, sgn))
		var cdf float64
		if c.x <= c.mu {
			cdf = c.k * c.k / (1 + c.k*c.k) * math.Exp(c.b/c.k*(c.x-c.mu))
		} else {
			cdf = 1 - math.Exp(-c.b*c.k*(c.x-c.mu))/(1+c.k*c.k)
		}
		refs = append(refs, ref{"AsymmetricLaplace", []float64{c.b, c.k, c.mu}, c.x, pdf, cdf})
	}
	for _, c := range []struct{ mu, s, x float64 }{{0, 1, 0.5}, {2, 0.3, 1.5}, {-5, 4, 20}} {
		z := (c.x - c.mu) / c.s
		pdf := math.Exp(-(z+math.Exp(-z))/2) / (c.s * math.Sqrt(2*math.Pi))
		refs = append(refs, ref{"Moyal", []float64{c.mu, c.s}, c.x, pdf, math.Erfc(math.Exp(-z/2) / math.Sqrt2)})
	}
	for _, c := range []struct{ nu, s, x float64 }{{0, 1, 0.7}, {1, 1, 1.3}, {5, 2, 4}, {3, 0.5, 3.2}} {
		pdf := c.x / (c.s * c.s) * math.Exp(-(c.x*c.x+c.nu*c.nu)/(2*c.s*c.s)) * besselI0Series(c.x*c.nu/(c.s*c.s))
		refs = append(refs, ref{"Rice", []float64{c.nu, c.s}, c.x, pdf, math.NaN()})
	}
	for _, r := range refs {
		u, _ := LookupUnivariate(r.name)
		lp, _ := u.Kernel(r.x, r.p, make([]float64, len(r.p)))
		if want := math.Log(r.pdf); math.Abs(lp-want) > pymcRefTol*math.Max(1, math.Abs(want)) {
			t.Errorf("%s%v at %g: log density %.17g, textbook %.17g", r.name, r.p, r.x, lp, want)
		}
		if math.IsNaN(r.cdf) {
			continue
		}
		lo, _ := LogCDF(r.name, false)
		up, _ := LogCDF(r.name, true)
		l, _ := lo(r.x, r.p, make([]float64, len(r.p)))
		h, _ := up(r.x, r.p, make([]float64, len(r.p)))
		if want := math.Log(r.cdf); math.Abs(l-want) > pymcRefTol*math.Max(1, math.Abs(want)) {
			t.Errorf("%s%v at %g: log CDF %.17g, textbook %.17g", r.name, r.p, r.x, l, want)
		}
		// the complement only where 1 − F keeps its digits
		if r.cdf < 0.9 {
			if want := math.Log1p(-r.cdf); math.Abs(h-want) > 1e-11*math.Max(1, math.Abs(want)) {
				t.Errorf("%s%v at %g: log CCDF %.17g, textbook %.17g", r.name, r.p, r.x, h, want)
			}
		}
	}
}

// TestPyMCFamiliesGradients checks the partials of each density and log
// CDF in every parameter and in the value against central differences
// (gonum/diff/fd), at central points and at extremes: far tails, shapes and
// scales from 1e-3 to 1e4, κ far from 1, z where e^z would overflow.
func TestPyMCFamiliesGradients(t *testing.T) {
	for _, c := range []struct {
		name string
		p    []float64
		x    float64
		cdf  bool // also the log CDF and CCDF
	}{
		{"Wald", []float64{1, 3}, 0.7, true}, {"Wald", []float64{1, 3}, 12, true}, {"Wald", []float64{1, 3}, 0.02, true},
		{"Wald", []float64{2, 1e4}, 2.3, true}, {"Wald", []float64{2, 1e4}, 1.7, true}, // e^(2λ/μ) = e^(1e4)
		{"Wald", []float64{5, 1e-3}, 1e3, true}, {"Wald", []float64{5, 1e-3}, 1e-4, true}, {"Wald", []float64{1e-3, 2}, 1.3e-3, true},
		{"Kumaraswamy", []float64{2, 5}, 0.3, true}, {"Kumaraswamy", []float64{0.3, 0.2}, 1e-6, true},
		{"Kumaraswamy", []float64{40, 3}, 0.999, true}, {"Kumaraswamy", []float64{0.5, 300}, 1e-5, true},
		{"Kumaraswamy", []float64{3, 2}, 1 - 0x1p-20, true},
		{"LogitNormal", []float64{0, 1}, 0.3, true}, {"LogitNormal", []float64{-1, 0.3}, 1e-8, true},
		{"LogitNormal", []float64{2, 2}, 1 - 0x1p-20, true}, {"LogitNormal", []float64{0, 1e-3}, 0.5001, true},
		{"AsymmetricLaplace", []float64{1, 1, 0}, 0.4, true}, {"AsymmetricLaplace", []float64{2, 0.5, 1}, -3, true},
		{"AsymmetricLaplace", []float64{0.7, 3, -2}, 40, true}, {"AsymmetricLaplace", []float64{3, 1e-3, 0}, -5e-3, true},
		{"AsymmetricLaplace", []float64{3, 1e3, 0}, 2e-4, true}, {"AsymmetricLaplace", []float64{0.5, 2, 5}, 4.9, true},
		{"Moyal", []float64{0, 1}, 0.5, true}, {"Moyal", []float64{2, 0.3}, 0.5, true}, {"Moyal", []float64{0, 1}, 60, true},
		{"Moyal", []float64{0, 1}, 1500, true}, {"Moyal", []float64{-5, 4}, -30, true}, {"Moyal", []float64{0, 1}, -6, true},
		{"Rice", []float64{0.3, 1}, 0.7, false}, {"Rice", []float64{1, 1}, 1.3, false}, {"Rice", []float64{40, 2}, 43, false},
		{"Rice", []float64{1e3, 1}, 1002, false}, {"Rice", []float64{1e-4, 1}, 0.5, false}, {"Rice", []float64{3, 0.05}, 2.9, false},
	} {
		u, _ := LookupUnivariate(c.name)
		kernels := kernelsOf(u, "log density")
		if (len(kernels) > 1) != c.cdf {
			t.Errorf("%s: %d kernels, want a log CDF: %v", c.name, len(kernels), c.cdf)
		}
		for _, kk := range kernels {
			dp := make([]float64, len(c.p))
			lp, dx := kk.k(c.x, c.p, dp)
			if math.IsNaN(lp) || math.IsInf(lp, 0) {
				t.Errorf("%s%v at %g: %s %v", c.name, c.p, c.x, kk.what, lp)
				continue
			}
			check := func(what string, got float64, f func(float64) float64, at float64) {
				step := fdStep(at)
				if what == "x" && u.Support == Unit {
					step = math.Min(step, 1e-3*math.Min(at, 1-at)) // inside (0, 1)
				}
				want := fd.Derivative(f, at, &fd.Settings{Formula: fd.Central, Step: step})
				if e := math.Abs(got-want) / math.Max(1, math.Abs(got)); !(e <= pymcFDTol) {
					t.Errorf("%s%v at %g: %s: ∂/∂%s = %.10g, central difference %.10g", c.name, c.p, c.x, kk.what, what, got, want)
				}
			}
			check("x", dx, func(x float64) float64 { v, _ := kk.k(x, c.p, make([]float64, len(c.p))); return v }, c.x)
			for i := range c.p {
				check(u.Params[i].Name, dp[i], func(v float64) float64 {
					q := append([]float64(nil), c.p...)
					q[i] = v
					lp, _ := kk.k(c.x, q, make([]float64, len(q)))
					return lp
				}, c.p[i])
			}
		}
	}
}

// TestPyMCFamiliesExtremes: the log densities and log probabilities stay
// finite and keep their digits where the naive formulas overflow or
// cancel.
func TestPyMCFamiliesExtremes(t *testing.T) {
	at := func(name string, upper bool, cdf bool, x float64, p ...float64) float64 {
		u, _ := LookupUnivariate(name)
		k := u.Kernel
		if cdf {
			k, _ = LogCDF(name, upper)
		}
		lp, _ := k(x, p, make([]float64, len(p)))
		return lp
	}
	// Wald's CDF with e^(2λ/μ) = e^(2e4): P(X ≤ μ) is about ½ (the
	// distribution is nearly Normal(μ, √(μ³/λ))), and the terms sum to 1.
	for _, x := range []float64{1.9, 2, 2.1} {
		l, u := at("Wald", false, true, x, 2, 2e4), at("Wald", true, true, x, 2, 2e4)
		if s := math.Exp(l) + math.Exp(u); math.Abs(s-1) > 1e-14 {
			t.Errorf("Wald(2, 2e4) at %g: P(X ≤ x) + P(X > x) = %.17g", x, s)
		}
	}
	// Wald(1, 1e4)'s far lower tail, a = √(λ/x)(x/μ − 1) = −52 at x = 0.6
	// (log P about −1300, where P itself underflows): finite and ordered.
	l1, l2 := at("Wald", false, true, 0.6, 1, 1e4), at("Wald", false, true, 0.5, 1, 1e4)
	if !(l1 < -100 && l2 < l1 && !math.IsInf(l2, 0)) {
		t.Errorf("Wald(1, 1e4): log P(X ≤ 0.6) = %g, log P(X ≤ 0.5) = %g", l1, l2)
	}
	// Wald's upper tail far out: log P(X > x) ≈ −λx/(2μ²) for x ≫ μ.
	if l := at("Wald", true, true, 1e4, 1, 1); !(l < -4990 && l > -5020) {
		t.Errorf("Wald(1, 1): log P(X > 1e4) = %g, want about −5000", l)
	}
	// AsymmetricLaplace with κ = 1e-200 (τ = κ²/(1 + κ²) underflows):
	// log b − log(κ + 1/κ) at x = μ is log b + log κ.
	if got, want := at("AsymmetricLaplace", false, false, 0, 2, 1e-200, 0), math.Log(2)+math.Log(1e-200); math.Abs(got-want) > 1e-13*math.Abs(want) {
		t.Errorf("AsymmetricLaplace(2, 1e-200, 0) at 0: %.17g, want %.17g", got, want)
	}
	// Moyal's upper tail past the underflow of e^(−z/2): log P(X > x) =
	// −z/2 + log √(2/π).
	if got, want := at("Moyal", true, true, 3000, 0, 1), -1500+0.5*math.Log(2/math.Pi); math.Abs(got-want) > 1e-15*math.Abs(want) {
		t.Errorf("Moyal(0, 1): log P(X > 3000) = %.17g, want %.17g", got, want)
	}
	// Rice at z = xν/σ² = 1e6, where I₀(z) overflows: near its mode the
	// density is about Normal(ν, σ)'s.
	if got, want := at("Rice", false, false, 1000, 1000, 1), -lnSqrt2Pi; math.Abs(got-want) > 1e-6 {
		t.Errorf("Rice(1000, 1) at 1000: %.17g, want about %.17g", got, want)
	}
	// Kumaraswamy near both ends.
	for _, x := range []float64{1e-300, 1 - 1e-16} {
		if lp := at("Kumaraswamy", false, false, x, 2, 3); math.IsInf(lp, 0) || math.IsNaN(lp) {
			t.Errorf("Kumaraswamy(2, 3) at %g: %g", x, lp)
		}
	}
}

// TestPyMCFamiliesRand checks each sampler against its CDF by the
// Kolmogorov–Smirnov statistic over pymcKSDraws seeded draws; Rice,
// without a log CDF, against the integral of its density on a grid.
func TestPyMCFamiliesRand(t *testing.T) {
	x := make([]float64, pymcKSDraws)
	for i, c := range pymcCases {
		u, _ := LookupUnivariate(c.name)
		rng := rand.New(rand.NewPCG(33, uint64(i)))
		for j := range x {
			x[j] = u.Rand(c.p, rng)
		}
		sort.Float64s(x)
		cdf := func(v float64) float64 {
			k, _ := LogCDF(c.name, false)
			lp, _ := k(v, c.p, make([]float64, len(c.p)))
			return math.Exp(lp)
		}
		if _, ok := LogCDF(c.name, false); !ok {
			cdf = riceGridCDF(t, c, x[0], x[len(x)-1])
		}
		var d float64
		n := float64(len(x))
		for j, v := range x {
			f := cdf(v)
			d = math.Max(d, math.Max(math.Abs(f-float64(j)/n), math.Abs(float64(j+1)/n-f)))
		}
		if d > pymcKSMax {
			t.Errorf("%s%v: Kolmogorov–Smirnov D = %.4f over %d draws", c.name, c.p, d, len(x))
		}
	}
}

// riceGridCDF returns the CDF of a Rice case on [lo, hi] by the cumulative
// trapezoid rule of its density on a fine grid from 0, linearly
// interpolated (error far below the KS bound).
func riceGridCDF(t *testing.T, c pymcCase, lo, hi float64) func(float64) float64 {
	t.Helper()
	u, _ := LookupUnivariate(c.name)
	const n = 100000
	h := hi / n
	cum := make([]float64, n+1)
	prev := 0.0
	for i := 1; i <= n; i++ {
		lp, _ := u.Kernel(float64(i)*h, c.p, nil)
		p := math.Exp(lp)
		cum[i] = cum[i-1] + 0.5*h*(prev+p)
		prev = p
	}
	return func(v float64) float64 {
		i := int(v / h)
		if i >= n {
			return cum[n]
		}
		f := v/h - float64(i)
		return cum[i]*(1-f) + cum[i+1]*f
	}
}
