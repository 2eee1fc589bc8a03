package dist

import "math"

// Implicit reparameterisation of the standard gamma (Figurnov, Mohamed and
// Mnih 2018; design note gamma_numerics.md §2.2). Along a path of constant
// CDF level u, dx/da = −(∂P/∂a)(a, x)/p(x; a), which depends on (a, x)
// only. Both ∂P/∂a and p carry the factor x^a e^(−x)/Γ(a); it cancels
// analytically, so the gradient of log x needs log x alone and stays exact
// when x underflows.
//
// Series branch (x ≤ a or x ≤ min(a+2, 4)): P = x^a e^(−x)/Γ(a+1)·S with
// S = Σ t_k, t_0 = 1, t_k = t_{k−1}·x/(a+k), and S′ = ∂S/∂a = −Σ t_k·H_k,
// H_k = Σ_{j≤k} 1/(a+j). Then d log x/da = −[(log x − ψ(a+1))·S + S′]/a.
//
// Continued-fraction branch (the rest): Q = x^a e^(−x)/Γ(a)·C with
// Legendre's fraction C = 1/F, F = b_0 + a_1/(b_1 + a_2/(b_2 + …)),
// b_k = x + 2k + 1 − a, a_k = k(a − k). F and ∂F/∂a follow the three-term
// recurrences of the convergents, differentiated forward in a
// (∂b_k/∂a = −1, ∂a_k/∂a = k). Then d log x/da = (log x − ψ(a))·C + C′
// = [(log x − ψ(a))·F − F′]/F².

// Stopping tolerances. The series stops on a bound of its remaining tail,
// which can be made as small as we like; the continued fraction stops when a
// convergent changes by at most about one unit in the last place, the
// smallest test that rounding noise cannot keep failing.
const (
	seriesTol = 1e-16
	cfTol     = 3e-16
)

// gammaMaxIter returns the iteration cap for shape a. Just below x ≈ a the
// series needs about 8.6·√a terms (2700 at a = 1e5), the most of either
// branch; the cap leaves a factor of six of headroom. Shapes above about 1e12
// hit the cap and give NaN.
func gammaMaxIter(a float64) int {
	return 1000 + int(50*math.Sqrt(min(a, 1e12))) // min: math.Min's value, inlined
}

// useGammaSeries reports whether the gradient uses the series branch at
// (a, x): below the mode, and up to x = min(a+2, 4) for small shapes. Near
// x ≈ 1 the continued fraction needs 50–90 terms and is only good to 2e-14,
// while the series needs about 20 and keeps 1e-14 up to x ≈ a+2; beyond
// that its two terms start to cancel (log x − ψ(a+1) turns positive), and
// for a ≥ 4 the fraction is faster as soon as x > a (measured against
// mpmath; see TestGammaBranchesAgree and the grid test).
func useGammaSeries(a, x float64) bool { return x <= a || x <= min(a+2, 4) }

// useCDFSeries reports whether the quantile evaluates P by its series at
// (a, x); otherwise it evaluates Q by the continued fraction. The quantile
// needs the smaller of P and Q to full relative accuracy, so it leaves the
// series as soon as x > max(a, 1).
func useCDFSeries(a, x float64) bool { return x <= 1 || x <= a }

// gammaSeries returns S(a, x) of the series branch. It is meant for
// useCDFSeries(a, x), where every ratio x/(a+k) is below 1.
func gammaSeries(a, x float64) (s float64, ok bool) {
	s, t := 1.0, 1.0
	n := gammaMaxIter(a)
	for k := 1; k <= n; k++ {
		r := x / (a + float64(k))
		t *= r
		s += t
		// The remaining terms are below t·r/(1−r): stop when that is negligible.
		if r < 1 && t*r <= seriesTol*s*(1-r) {
			return s, true
		}
	}
	return s, false
}

// gammaSeriesD returns S(a, x) and S′ = ∂S/∂a of the series branch.
func gammaSeriesD(a, x float64) (s, ds float64, ok bool) {
	s, t := 1.0, 1.0
	var h float64
	n := gammaMaxIter(a)
	for k := 1; k <= n; k++ {
		inv := 1 / (a + float64(k))
		r := x * inv
		t *= r
		h += inv
		s += t
		ds -= t * h
		// Tail bounds: Σ_{j>k} t_j ≤ t·r/(1−r), and Σ_{j>k} t_j·H_j is below
		// t·r/(1−r)·(h + 1/((a+k)(1−r))). The test first asks, without a
		// division, whether t·r ≤ 2·tol·s·(1−r), which holds whenever
		// the exact test below does (the factor 2 exceeds the test's
		// rounding), so the series stops at the same term as with the exact
		// test alone; most terms fail it and skip the two divisions.
		if r < 1 && t*r <= 2*seriesTol*s*(1-r) {
			q := t * r / (1 - r)
			if q <= seriesTol*s && q*(h+inv/(1-r)) <= -seriesTol*ds {
				return s, ds, true
			}
		}
	}
	return s, ds, false
}

// gammaCF returns C(a, x) of the continued fraction (for x > 1, x > a).
func gammaCF(a, x float64) (c float64, ok bool) {
	// Convergents A_k/B_k of F, rescaled every step so that B_k = 1.
	a2, a1 := 1.0, x+1-a // A_{k−2}, A_{k−1}
	b2, b1 := 0.0, 1.0   // B_{k−2}, B_{k−1}
	f := a1
	n := gammaMaxIter(a)
	for k := 1; k <= n; k++ {
		fk := float64(k)
		bk := x + 2*fk + 1 - a
		ak := fk * (a - fk)
		an := bk*a1 + ak*a2
		bn := bk*b1 + ak*b2
		s := 1 / bn
		a2, a1 = a1*s, an*s
		b2, b1 = b1*s, 1
		fOld := f
		f = a1
		if math.Abs(f-fOld) <= cfTol*math.Abs(f) {
			return 1 / f, true
		}
	}
	return 1 / f, false
}

// gammaCFD returns F and F′ = ∂F/∂a of the continued-fraction branch, where
// C = 1/F. l = log x − ψ(a) only scales the stopping test for F′, at the
// scale |l·F| + |F′| of the result's numerator (l·F − F′). Near x ≈ 1 the
// fraction converges slowly and its rounding noise random-walks at the ulp
// level, which limits the branch to about 3e-14 relative there (1e-15
// elsewhere).
func gammaCFD(a, x, l float64) (f, df float64, ok bool) {
	a2, a1 := 1.0, x+1-a // A_{k−2}, A_{k−1}
	b2, b1 := 0.0, 1.0   // B_{k−2}, B_{k−1}
	da2, da1 := 0.0, -1.0
	db2, db1 := 0.0, 0.0
	f, df = a1, da1
	n := gammaMaxIter(a)
	for k := 1; k <= n; k++ {
		fk := float64(k)
		bk := x + 2*fk + 1 - a
		ak := fk * (a - fk)
		an := bk*a1 + ak*a2
		bn := bk*b1 + ak*b2
		dan := -a1 + bk*da1 + fk*a2 + ak*da2
		dbn := -b1 + bk*db1 + fk*b2 + ak*db2
		s := 1 / bn
		a2, a1 = a1*s, an*s
		b2, b1 = b1*s, 1
		da2, da1 = da1*s, dan*s
		db2, db1 = db1*s, dbn*s
		fOld, dfOld := f, df
		f = a1
		df = da1 - a1*db1 // (A′B − AB′)/B² with B = 1
		if math.Abs(f-fOld) <= cfTol*math.Abs(f) &&
			math.Abs(df-dfOld) <= cfTol*(math.Abs(l*f)+math.Abs(df)) {
			return f, df, true
		}
	}
	return f, df, false
}

// GammaDLogXDA returns d(log x)/da for a draw x ~ Gamma(a, 1) given as
// logx = log x: the implicit reparameterisation gradient, independent of
// how x was drawn. For rate b, x_b = x/b has the same d(log x_b)/da.
//
// Against 60-digit references it is within 1e-14 relative for a in
// [1e-6, 1e5] (worst measured 2.0e-15 on the grid; see the tests). The
// cost is about 0.1–0.2 µs per draw and derivative for a ≤ 10; the series
// and the fraction need about 8.6·√a terms, so from a = 100 on (|η| ≤ 1,
// every draw within 10 standard deviations) Temme's expansion takes over
// (gamma_temme.go) and the cost stays near 0.12 µs (BENCHMARKS.md).
// The difference log x − ψ is formed as log(x/a) − (ψ(a) − log a) for large
// a, where the series multiplies it by a sum of order √a. logx may be far
// below log(smallest float64): x itself is never formed below 1. A logx of
// −Inf (x = 0) gives +Inf. Invalid input (a ≤ 0, a or logx NaN, a or logx
// +Inf) and non-convergence (|η| > 1 at a above about 1e12, far outside
// any draw) give NaN, which callers must check.
func GammaDLogXDA(a, logx float64) float64 {
	if !(a > 0) || math.IsInf(a, 1) || math.IsNaN(logx) || math.IsInf(logx, 1) {
		return math.NaN()
	}
	return gammaDLogXDA(a, logx, math.Exp(logx), nil)
}

// gammaDLogXDA is GammaDLogXDA for a valid shape a, logx not NaN or +Inf
// and x = e^logx (or the draw whose logarithm logx is). sh, when not nil, is
// NewGammaShape(a) and supplies the digammas.
func gammaDLogXDA(a, logx, x float64, sh *GammaShape) float64 {
	if a >= temmeMinA {
		if eta := temmeEta(a, x); math.Abs(eta) <= temmeMaxEta {
			return temmeDLogXDA(a, eta)
		}
	}
	if useGammaSeries(a, x) {
		if sh != nil {
			return seriesDLogXDA(a, x, logMinusDigammaC(logx, x, a+1, sh.c1))
		}
		return seriesDLogXDA(a, x, logMinusDigamma(logx, x, a+1))
	}
	if sh != nil {
		return cfDLogXDA(a, x, logMinusDigammaC(logx, x, a, sh.c0))
	}
	return cfDLogXDA(a, x, logMinusDigamma(logx, x, a))
}

// seriesDLogXDA is gammaDLogXDA's series branch, given l = log x − ψ(a+1).
func seriesDLogXDA(a, x, l float64) float64 {
	s, ds, ok := gammaSeriesD(a, x)
	if !ok {
		return math.NaN()
	}
	return -(l*s + ds) / a
}

// cfDLogXDA is gammaDLogXDA's continued-fraction branch, given
// l = log x − ψ(a).
func cfDLogXDA(a, x, l float64) float64 {
	f, df, ok := gammaCFD(a, x, l)
	if !ok {
		return math.NaN()
	}
	return (l*f - df) / (f * f)
}

// GammaDPDA returns ∂P(a, x)/∂a, the shape derivative of the regularized
// lower incomplete gamma function (the Gamma(a, 1) CDF), by the same
// forward-mode series and continued fraction as GammaDLogXDA. It is 0 at
// x = 0 and x = +Inf; invalid input (a ≤ 0 or not finite, x < 0 or NaN)
// gives NaN.
func GammaDPDA(a, x float64) float64 {
	if !(a > 0) || math.IsInf(a, 1) || !(x >= 0) {
		return math.NaN()
	}
	if x == 0 || math.IsInf(x, 1) {
		return 0
	}
	logx := math.Log(x)
	if useGammaSeries(a, x) {
		s, ds, ok := gammaSeriesD(a, x)
		if !ok {
			return math.NaN()
		}
		lg, _ := math.Lgamma(a)
		return math.Exp(logGammaPrefix(a, logx, x, lg)) / a * (logMinusDigamma(logx, x, a+1)*s + ds)
	}
	l := logMinusDigamma(logx, x, a)
	f, df, ok := gammaCFD(a, x, l)
	if !ok {
		return math.NaN()
	}
	lg, _ := math.Lgamma(a)
	return -math.Exp(logGammaPrefix(a, logx, x, lg)) * (l*f - df) / (f * f)
}
