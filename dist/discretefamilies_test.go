package dist

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/stat/distuv"
)

// Tolerances of the Geometric, DiscreteUniform, Skellam and DiscreteWeibull
// tests.
const (
	discRefTol    = 1e-12 // log mass or log CDF vs its textbook formula, relative to max(1, |value|)
	discSumTol    = 1e-12 // Σ_k P(k) = 1, and a log CDF's probability vs the partial sum of the masses
	discFDTol     = 2e-6  // analytic partial vs central finite difference, relative to max(1, |partial|)
	discFDStepExp = -16   // finite-difference step 2^(this) relative to the parameter (to 1 − p for a probability near 1)
	// skellamBig bounds Skellam's log mass at means of 1e6 against the
	// convolution, relative to z = 2√(μ1μ2) ≈ log I_|k|(z): where k² > z
	// log I comes from the power series's million terms, whose rounding
	// measured 5e-14·z (1e-7 at k = −2500 against mpmath's 40 digits; the
	// convolution was within 3e-11 of it).
	skellamBig  = 1e-13
	discChiSqN  = 50000 // draws per chi-square test
	discChiSqLo = 20    // least expected draws per chi-square bin
)

// discPoissonLog is log Poisson(k | m) by its formula, for the references.
func discPoissonLog(k, m float64) float64 {
	lg, _ := math.Lgamma(k + 1)
	return k*math.Log(m) - m - lg
}

// skellamRef is log P(k) of Skellam(m1, m2) as the convolution
// Σ_j Poisson(k + j | m1)·Poisson(j | m2), j ≥ max(0, −k), summed in logs
// from the largest term: no Bessel function.
func skellamRef(k, m1, m2 float64) float64 {
	j0 := math.Max(0, -k)
	terms := []float64{}
	mx := math.Inf(-1)
	for j := j0; ; j++ {
		t := discPoissonLog(k+j, m1) + discPoissonLog(j, m2)
		terms = append(terms, t)
		mx = math.Max(mx, t)
		if j > j0+20 && j > m2 && t < mx-60 { // past the mode, terms below e^-60 of the largest
			break
		}
	}
	s := 0.0
	for _, t := range terms {
		s += math.Exp(t - mx)
	}
	return mx + math.Log(s)
}

// TestDiscreteFamiliesReference compares each log mass with its textbook
// formula in plain float64: p(1 − p)^(k−1), 1/n, the Poisson convolution,
// q^(k^β) − q^((k+1)^β).
func TestDiscreteFamiliesReference(t *testing.T) {
	check := func(name string, got, want float64) {
		t.Helper()
		if e := math.Abs(got-want) / math.Max(1, math.Abs(want)); !(e <= discRefTol) {
			t.Errorf("%s: %.17g, want %.17g", name, got, want)
		}
	}
	for _, p := range []float64{0.02, 0.3, 0.5, 0.97} {
		for _, k := range []float64{1, 2, 5, 40} {
			check("Geometric", Geometric{p}.LogProb(k), math.Log(p*math.Pow(1-p, k-1)))
		}
	}
	// scipy's geom agrees: its pmf is gonum's Geometric (failures before
	// the success) at k − 1
	for _, k := range []float64{1, 3, 9} {
		check("Geometric vs gonum", Geometric{0.35}.LogProb(k), math.Log(distuv.Binomial{N: 1, P: 0.35}.Prob(1))+(k-1)*math.Log(0.65))
	}
	for _, c := range [][3]float64{{1, 6, 3}, {-5, 5, -5}, {0, 0, 0}, {-100, 899, 899}} {
		check("DiscreteUniform", DiscreteUniform{c[0], c[1]}.LogProb(c[2]), math.Log(1/(c[1]-c[0]+1)))
	}
	for _, m := range [][2]float64{{1.6, 1.1}, {0.05, 3}, {30, 25}, {200, 0.5}} {
		for _, k := range []float64{-12, -3, -1, 0, 1, 2, 7, 40} {
			check("Skellam", Skellam{m[0], m[1]}.LogProb(k), skellamRef(k, m[0], m[1]))
		}
	}
	for _, c := range [][2]float64{{0.5, 1}, {0.9, 0.6}, {0.2, 2.5}, {0.99, 1.3}} {
		q, b := c[0], c[1]
		for _, k := range []float64{0, 1, 2, 5, 12} {
			want := math.Log(math.Pow(q, math.Pow(k, b)) - math.Pow(q, math.Pow(k+1, b)))
			if math.IsInf(want, -1) {
				continue // the textbook difference underflows
			}
			check("DiscreteWeibull", DiscreteWeibull{q, b}.LogProb(k), want)
		}
	}
	// Far out, where the textbook differences cancel or underflow: the
	// Skellam of means 1e6 (Hankel's expansion) against the convolution,
	// and the discrete Weibull at k = 1e12 with beta = 1/2, where
	// √(k+1) − √k = 1/(√(k+1) + √k) exactly.
	for _, k := range []float64{0, 700, -2500} {
		got, want := Skellam{1e6, 1.0005e6}.LogProb(k), skellamRef(k, 1e6, 1.0005e6)
		if z := 2 * math.Sqrt(1e6*1.0005e6); !(math.Abs(got-want) <= skellamBig*z) {
			t.Errorf("Skellam(1e6, 1.0005e6) at %g: %.15g, convolution %.15g", k, got, want)
		}
	}
	for _, k := range []float64{1e6, 1e12} {
		q := 0.999
		l := math.Log(q)
		want := math.Sqrt(k)*l + math.Log(-math.Expm1(l/(math.Sqrt(k+1)+math.Sqrt(k))))
		check("DiscreteWeibull far", DiscreteWeibull{q, 0.5}.LogProb(k), want)
	}
}

// discMassCase is a parameter set whose masses are summed over lo..hi.
type discMassCase struct {
	name    string
	d       uniDist
	lo, hi  float64
	mean, v float64 // closed forms, NaN where none
}

var discMassCases = []discMassCase{
	{"Geometric(0.3)", Geometric{0.3}, 1, 400, 1 / 0.3, 0.7 / 0.09},
	{"Geometric(0.97)", Geometric{0.97}, 1, 60, 1 / 0.97, 0.03 / (0.97 * 0.97)},
	{"Geometric(0.01)", Geometric{0.01}, 1, 8000, 100, 0.99 / 1e-4},
	{"DiscreteUniform(-4, 9)", DiscreteUniform{-4, 9}, -4, 9, 2.5, (14*14 - 1) / 12.0},
	{"DiscreteUniform(3, 3)", DiscreteUniform{3, 3}, 3, 3, 3, 0},
	{"Skellam(1.6, 1.1)", Skellam{1.6, 1.1}, -80, 80, 0.5, 2.7},
	{"Skellam(0.02, 7)", Skellam{0.02, 7}, -120, 60, -6.98, 7.02},
	{"Skellam(150, 140)", Skellam{150, 140}, -400, 400, 10, 290},
	{"DiscreteWeibull(0.5, 1)", DiscreteWeibull{0.5, 1}, 0, 200, 1, 2}, // geometric on 0, 1, …: mean q/(1−q), variance q/(1−q)²
	{"DiscreteWeibull(0.9, 0.8)", DiscreteWeibull{0.9, 0.8}, 0, 5000, math.NaN(), math.NaN()},
	{"DiscreteWeibull(0.2, 3)", DiscreteWeibull{0.2, 3}, 0, 30, math.NaN(), math.NaN()},
}

// TestDiscreteFamiliesMass sums each mass over its support (negative
// values too), checks Σ = 1, the closed-form mean and variance where there
// is one and the struct's Mean and Variance, and compares logcdf and
// logccdf with the partial sums.
func TestDiscreteFamiliesMass(t *testing.T) {
	for _, c := range discMassCases {
		var s, m1, m2 float64
		name, _, _ := strings.Cut(c.name, "(")
		lcdf, hasCDF := LogCDF(name, false)
		lccdf, _ := LogCDF(name, true)
		p := distParams(c.d)
		dp := make([]float64, len(p))
		for k := c.lo; k <= c.hi; k++ {
			pk := math.Exp(c.d.LogProb(k))
			s += pk
			m1 += k * pk
			m2 += k * k * pk
			if !hasCDF {
				continue
			}
			if lp, _ := lcdf(k, p, dp); !(math.Abs(math.Exp(lp)-s) <= discSumTol) {
				t.Errorf("%s: P(X ≤ %g) = %.15g, partial sum %.15g", c.name, k, math.Exp(lp), s)
			}
			if lp, _ := lcdf(k+0.5, p, dp); !(math.Abs(math.Exp(lp)-s) <= discSumTol) {
				t.Errorf("%s: P(X ≤ %g) = %.15g, partial sum %.15g", c.name, k+0.5, math.Exp(lp), s)
			}
			if lq, _ := lccdf(k, p, dp); !(math.Abs(math.Exp(lq)-(1-s)) <= discSumTol) {
				t.Errorf("%s: P(X > %g) = %.15g, 1 − partial sum %.15g", c.name, k, math.Exp(lq), 1-s)
			}
		}
		v := m2 - m1*m1
		if !(math.Abs(s-1) <= discSumTol) {
			t.Errorf("%s: Σp = %.15g", c.name, s)
		}
		for _, w := range [][3]float64{{m1, c.mean, c.d.Mean()}, {v, c.v, c.d.Variance()}} {
			if !math.IsNaN(w[1]) && !(math.Abs(w[0]-w[1]) <= 1e-9*math.Max(1, math.Abs(w[1]))) {
				t.Errorf("%s: moment by the sum %.12g, closed form %.12g", c.name, w[0], w[1])
			}
			if !(math.Abs(w[0]-w[2]) <= 1e-9*math.Max(1, math.Abs(w[2]))) {
				t.Errorf("%s: moment by the sum %.12g, Mean/Variance %.12g", c.name, w[0], w[2])
			}
		}
	}
}

// distParams returns the parameters of one of the four families, in
// registry order.
func distParams(d uniDist) []float64 {
	switch d := d.(type) {
	case Geometric:
		return []float64{d.P}
	case DiscreteUniform:
		return []float64{d.Lower, d.Upper}
	case Skellam:
		return []float64{d.Mu1, d.Mu2}
	case DiscreteWeibull:
		return []float64{d.Q, d.Beta}
	}
	panic("distParams: not a new discrete family")
}

// namedKernel is a kernel with the name a failure gives it.
type namedKernel struct {
	what string
	k    Kernel
}

// kernelsOf returns u's kernel, called what, and its logcdf and logccdf
// where the family has them.
func kernelsOf(u *Univariate, what string) []namedKernel {
	ks := []namedKernel{{what, u.Kernel}}
	if lo, ok := LogCDF(u.Name, false); ok {
		up, _ := LogCDF(u.Name, true)
		ks = append(ks, namedKernel{"logcdf", lo}, namedKernel{"logccdf", up})
	}
	return ks
}

// TestDiscreteFamiliesPartials checks the partials of the log masses and
// of the log CDFs against central finite differences on grids that reach
// the extremes: p and q within 2^-20 of 0 or 1, Skellam means from 1e-3 to
// 1e5 with |k| to 3000, counts to 1e6.
func TestDiscreteFamiliesPartials(t *testing.T) {
	type point struct {
		name string
		p    []float64
		xs   []float64
	}
	var pts []point
	for _, p := range []float64{0x1p-20, 1e-3, 0.2, 0.5, 0.9, 1 - 0x1p-20} {
		pts = append(pts, point{"Geometric", []float64{p}, []float64{1, 2, 3, 17, 1000, 1e6}})
	}
	for _, m1 := range []float64{1e-3, 0.4, 3, 60, 1e3, 1e5} {
		for _, m2 := range []float64{2e-3, 1.7, 45, 1e5} {
			pts = append(pts, point{"Skellam", []float64{m1, m2}, []float64{-3000, -40, -2, -1, 0, 1, 5, 90, 3000}})
		}
	}
	for _, q := range []float64{1e-4, 0.05, 0.5, 0.95, 1 - 0x1p-20} {
		for _, b := range []float64{0.1, 0.7, 1, 2.5, 8} {
			pts = append(pts, point{"DiscreteWeibull", []float64{q, b}, []float64{0, 1, 2, 6, 40, 1e6}})
		}
	}
	// a power of 2 below the parameter (and below 1 − p for a
	// probability), so that v ± step are exact
	step := func(name string, j int, v float64) float64 {
		if (name == "Geometric" || name == "DiscreteWeibull") && j == 0 {
			v = math.Min(v, 1-v)
		}
		return math.Ldexp(1, math.Ilogb(v)+discFDStepExp)
	}
	for _, pt := range pts {
		u, _ := LookupUnivariate(pt.name)
		for _, kc := range kernelsOf(u, "log mass") {
			for _, x := range pt.xs {
				dp := make([]float64, len(pt.p))
				lp, _ := kc.k(x, pt.p, dp)
				if math.IsNaN(lp) || math.IsInf(lp, 1) {
					t.Errorf("%s%v %s at %g: %g", pt.name, pt.p, kc.what, x, lp)
					continue
				}
				if math.IsInf(lp, -1) {
					continue // a mass or tail that underflows
				}
				for j := range pt.p {
					f := func(v float64) float64 {
						q := append([]float64(nil), pt.p...)
						q[j] = v
						l, _ := kc.k(x, q, make([]float64, len(q)))
						return l
					}
					h := step(pt.name, j, pt.p[j])
					want := fd.Derivative(f, pt.p[j], &fd.Settings{Formula: fd.Central, Step: h})
					// the difference's own rounding: a few ulps of the
					// log mass over 2h (a log mass of −5e4 at a mean of
					// 1e-3 leaves the quotient about 4 digits)
					noise := 4 * 0x1p-52 * math.Max(1, math.Abs(lp)) / h
					if e := math.Abs(dp[j] - want); !(e <= discFDTol*math.Max(1, math.Abs(dp[j]))+noise) {
						t.Errorf("%s%v %s at %g: ∂/∂p[%d] = %.10g, finite difference %.10g", pt.name, pt.p, kc.what, x, j, dp[j], want)
					}
				}
			}
		}
	}
}

// TestDiscreteFamiliesConventions: a value outside the support has log
// mass −Inf and zero partials; an invalid parameter or a NaN value gives
// NaN; the edges that are inside the support are finite.
func TestDiscreteFamiliesConventions(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name string
		p    []float64
		x    float64
		want float64 // −Inf: outside; NaN: invalid; else the log mass
	}{
		{"Geometric", []float64{0.3}, 0, math.Inf(-1)},
		{"Geometric", []float64{0.3}, -1, math.Inf(-1)},
		{"Geometric", []float64{0.3}, 2.5, math.Inf(-1)},
		{"Geometric", []float64{1}, 1, 0},
		{"Geometric", []float64{1}, 2, math.Inf(-1)},
		{"Geometric", []float64{0}, 1, nan},
		{"Geometric", []float64{1.2}, 1, nan},
		{"Geometric", []float64{0.3}, nan, nan},
		{"DiscreteUniform", []float64{1, 6}, 0, math.Inf(-1)},
		{"DiscreteUniform", []float64{1, 6}, 7, math.Inf(-1)},
		{"DiscreteUniform", []float64{1, 6}, 2.5, math.Inf(-1)},
		{"DiscreteUniform", []float64{1, 6}, 6, -math.Log(6)},
		{"DiscreteUniform", []float64{6, 1}, 3, nan},
		{"DiscreteUniform", []float64{1.5, 6}, 3, nan},
		{"Skellam", []float64{2, 3}, 0.5, math.Inf(-1)},
		{"Skellam", []float64{2, 3}, math.Inf(-1), math.Inf(-1)},
		{"Skellam", []float64{0, 3}, 1, nan},
		{"Skellam", []float64{2, math.Inf(1)}, 1, nan},
		{"DiscreteWeibull", []float64{0.5, 1}, -1, math.Inf(-1)},
		{"DiscreteWeibull", []float64{0.5, 1}, 1.5, math.Inf(-1)},
		{"DiscreteWeibull", []float64{1, 1}, 1, nan},
		{"DiscreteWeibull", []float64{0.5, 0}, 1, nan},
		{"DiscreteWeibull", []float64{0.5, 2}, 0, math.Log(0.5)},
	} {
		u, _ := LookupUnivariate(c.name)
		dp := []float64{7, 7}[:len(c.p)]
		lp, dx := u.Kernel(c.x, c.p, dp)
		switch {
		case math.IsNaN(c.want):
			if !math.IsNaN(lp) || !math.IsNaN(dp[0]) {
				t.Errorf("%s%v at %g: %g, partials %v, want NaN", c.name, c.p, c.x, lp, dp)
			}
		case math.IsInf(c.want, -1):
			if !math.IsInf(lp, -1) || dx != 0 || dp[0] != 0 || dp[len(dp)-1] != 0 {
				t.Errorf("%s%v at %g: %g, partials %v, want −Inf and zeros", c.name, c.p, c.x, lp, dp)
			}
		case math.Abs(lp-c.want) > discRefTol:
			t.Errorf("%s%v at %g: %g, want %g", c.name, c.p, c.x, lp, c.want)
		}
	}
	// The ends that logcdf, T[L, U] and the truncated draws read: from
	// Geometric's Least and DiscreteUniform's bounds.
	g, _ := LookupUnivariate("Geometric")
	if lo, hi := g.Ends([]float64{0.4}); lo != 1 || !math.IsInf(hi, 1) {
		t.Errorf("Geometric ends [%g, %g], want [1, Inf]", lo, hi)
	}
	du, _ := LookupUnivariate("DiscreteUniform")
	if lo, hi := du.Ends([]float64{-3, 8}); lo != -3 || hi != 8 {
		t.Errorf("DiscreteUniform ends [%g, %g], want [-3, 8]", lo, hi)
	}
}

// TestDiscreteFamiliesChiSquare tests the samplers against their masses
// with a chi-square goodness-of-fit test: discChiSqN draws, bins of at
// least discChiSqLo expected draws (where the chi-square approximation to
// the statistic holds), p below chiSqMinP an error: with the seed fixed
// the test is deterministic, and a sampler off by 1% in one bin's
// probability of 0.1 moves the statistic by about 0.5·(0.001·N)²/(0.1·N)
// ≈ 25 per bin, far past that threshold.
func TestDiscreteFamiliesChiSquare(t *testing.T) {
	rng := rand.New(rand.NewPCG(2026, 1130))
	for _, c := range []struct {
		name   string
		d      uniDist
		lo, hi float64
	}{
		{"Geometric(0.3)", Geometric{0.3}, 1, 200},
		{"Geometric(0.02)", Geometric{0.02}, 1, 2000},
		{"Geometric(0.95)", Geometric{0.95}, 1, 40},
		{"DiscreteUniform(-3, 8)", DiscreteUniform{-3, 8}, -3, 8},
		{"Skellam(1.6, 1.1)", Skellam{1.6, 1.1}, -60, 60},
		{"Skellam(0.3, 40)", Skellam{0.3, 40}, -150, 40},
		{"Skellam(300, 290)", Skellam{300, 290}, -300, 300},
		{"DiscreteWeibull(0.5, 1)", DiscreteWeibull{0.5, 1}, 0, 200},
		{"DiscreteWeibull(0.9, 0.6)", DiscreteWeibull{0.9, 0.6}, 0, 1e5},
		{"DiscreteWeibull(0.3, 2.5)", DiscreteWeibull{0.3, 2.5}, 0, 50},
	} {
		counts := map[float64]int{}
		for range discChiSqN {
			counts[c.d.Rand(rng)]++
		}
		var chi2, obs, exp float64
		bins, inside := 0, 0
		for k := c.lo; k <= c.hi; k++ {
			obs += float64(counts[k])
			inside += counts[k]
			exp += discChiSqN * math.Exp(c.d.LogProb(k))
			if exp >= discChiSqLo {
				chi2 += (obs - exp) * (obs - exp) / exp
				bins++
				obs, exp = 0, 0
			}
		}
		if inside != discChiSqN {
			t.Errorf("%s: %d draws outside [%g, %g]", c.name, discChiSqN-inside, c.lo, c.hi)
		}
		if bins < 2 {
			t.Fatalf("%s: %d bins", c.name, bins)
		}
		if p := (distuv.ChiSquared{K: float64(bins - 1)}).Survival(chi2); p < chiSqMinP {
			t.Errorf("%s: chi-square %.1f on %d bins, p = %.2e", c.name, chi2, bins, p)
		}
	}
}
