package dist

import "math"

// The polygamma functions below shift the argument up to at least
// polygammaShift with the recurrences ψ(x) = ψ(x+1) − 1/x and
// ψ₁(x) = ψ₁(x+1) + 1/x², then sum the asymptotic series in 1/x with the
// Bernoulli numbers B₂ … B₁₈. At x ≥ 10 the first omitted term is below
// 1e-17 relative, so the result is limited by rounding in the shift sum:
// about 1e-16 relative away from the root of ψ and 1e-15 absolute near it.
// gonum's mathext.Digamma is off by up to 5e-11 below 10 (gonum issue 302),
// which is why the package has its own; see TestGonumDigammaIsInaccurate.
const polygammaShift = 10

// Digamma returns ψ(x) = d/dx log Γ(x).
//
// For x ≤ 0 it uses the reflection formula ψ(x) = ψ(1−x) − π·cot(πx); at
// the poles (0 and the negative integers) and for NaN or −Inf it returns NaN.
// Digamma(+Inf) is +Inf.
func Digamma(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, -1):
		return math.NaN()
	case math.IsInf(x, 1):
		return x
	case x <= 0:
		if x == math.Trunc(x) {
			return math.NaN()
		}
		return Digamma(1-x) - math.Pi/tanPi(x)
	}
	// Near the root (x ≈ 1.4616) the shift sum and the series cancel to
	// zero, so both the sum and the final subtraction carry their rounding
	// error along (two-sum): this halves the typical error and keeps ψ(1)
	// and the root within a few 1e-16 absolute.
	var shift, comp float64
	for x < polygammaShift {
		var e float64
		shift, e = twoSum(shift, 1/x)
		comp += e
		x++
	}
	hi, lo := twoSum(math.Log(x), -shift)
	return hi + (lo - comp + digammaAsymp(x))
}

// digammaAsymp returns ψ(x) − log x for x ≥ polygammaShift by the
// asymptotic series −1/(2x) − Σ_{k=1..8} B₂ₖ/(2k·x²ᵏ). Callers that need
// log y − ψ(x) for y near x use it to avoid the cancellation of two large
// logarithms.
func digammaAsymp(x float64) float64 {
	r := 1 / x
	r2 := r * r
	s := r2 * (1.0/12 + r2*(-1.0/120+r2*(1.0/252+r2*(-1.0/240+r2*(1.0/132+
		r2*(-691.0/32760+r2*(1.0/12+r2*(-3617.0/8160))))))))
	return -0.5*r - s
}

// logMinusDigamma returns log x − ψ(y) for y > 0, given logx = log x and
// x = exp(logx). For y ≥ polygammaShift it forms log(x/y) − (ψ(y) − log y),
// which keeps the full relative accuracy of the difference when x ≈ y: the
// implicit gamma gradient multiplies this difference by a sum of order √a.
func logMinusDigamma(logx, x, y float64) float64 {
	if y < polygammaShift || x == 0 || math.IsInf(x, 1) {
		return logx - Digamma(y)
	}
	return math.Log(x/y) - digammaAsymp(y)
}

// logMinusDigammaC is logMinusDigamma with its constant precomputed: c is
// Digamma(y) for y < polygammaShift, else digammaAsymp(y). The result is bit
// for bit logMinusDigamma's.
func logMinusDigammaC(logx, x, y, c float64) float64 {
	if y < polygammaShift {
		return logx - c
	}
	if x == 0 || math.IsInf(x, 1) {
		return logx - Digamma(y)
	}
	return math.Log(x/y) - c
}

// polygammaTriple returns Digamma(a) and Digamma(a+1), bit for bit, and
// Trigamma(a) (to rounding: it squares the shift's reciprocals) for
// 0 < a < polygammaShift, from one shift loop: a gamma factor needs all
// three once per step. ψ(a) and ψ(a+1) shift through the same
// floating-point sequence a+1, a+2, … to the same end point, so ψ(a+1)'s
// sum is ψ(a)'s without its first term.
func polygammaTriple(a float64) (psiA, psiA1, tri float64) {
	x := a
	inv := 1 / x
	shift0, comp0 := twoSum(0, inv)
	tri = inv * inv
	var shift1, comp1 float64
	x++
	for x < polygammaShift {
		inv = 1 / x
		var e float64
		shift0, e = twoSum(shift0, inv)
		comp0 += e
		shift1, e = twoSum(shift1, inv)
		comp1 += e
		tri += inv * inv
		x++
	}
	lx, as := math.Log(x), digammaAsymp(x)
	hi, lo := twoSum(lx, -shift0)
	psiA = hi + (lo - comp0 + as)
	hi, lo = twoSum(lx, -shift1)
	psiA1 = hi + (lo - comp1 + as)
	return psiA, psiA1, tri + trigammaAsymp(x)
}

// digammaTrigamma returns polygammaTriple(a)'s ψ(a) (plus1 false) or ψ(a+1)
// (plus1 true) and its trigamma, bit for bit, for 0 < a < polygammaShift:
// the same shift loop with only the one digamma's two-sum, for the
// implicit gamma gradient, whose branch reads only one of them.
func digammaTrigamma(a float64, plus1 bool) (psi, tri float64) {
	x := a
	inv := 1 / x
	tri = inv * inv
	var shift, comp float64
	if !plus1 {
		shift, comp = twoSum(0, inv)
	}
	for x++; x < polygammaShift; x++ {
		inv = 1 / x
		var e float64
		shift, e = twoSum(shift, inv)
		comp += e
		tri += inv * inv
	}
	hi, lo := twoSum(math.Log(x), -shift)
	return hi + (lo - comp + digammaAsymp(x)), tri + trigammaAsymp(x)
}

// twoSum returns s = fl(a+b) and the rounding error e with a+b = s+e exactly
// (Knuth's branch-free two-sum).
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return s, e
}

// Trigamma returns ψ₁(x) = d²/dx² log Γ(x).
//
// For x ≤ 0 it uses the reflection formula ψ₁(x) = π²/sin²(πx) − ψ₁(1−x);
// at the poles (0 and the negative integers) it returns +Inf, and for NaN or
// −Inf it returns NaN. Trigamma(+Inf) is 0.
func Trigamma(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, -1):
		return math.NaN()
	case math.IsInf(x, 1):
		return 0
	case x <= 0:
		if x == math.Trunc(x) {
			return math.Inf(1)
		}
		s := math.Pi / sinPi(x)
		return s*s - Trigamma(1-x)
	}
	var shift float64
	for x < polygammaShift {
		shift += 1 / (x * x)
		x++
	}
	return shift + trigammaAsymp(x)
}

// trigammaAsymp returns ψ₁(x) for x ≥ polygammaShift by the asymptotic
// series 1/x + 1/(2x²) + Σ_{k=1..9} B₂ₖ/x²ᵏ⁺¹.
func trigammaAsymp(x float64) float64 {
	r := 1 / x
	r2 := r * r
	s := r2 * (1.0/6 + r2*(-1.0/30+r2*(1.0/42+r2*(-1.0/30+r2*(5.0/66+
		r2*(-691.0/2730+r2*(7.0/6+r2*(-3617.0/510+r2*(43867.0/798)))))))))
	return r * (1 + r*0.5 + s)
}

// tanPi returns tan(πx) with the argument reduced exactly first, so that
// large |x| keeps full accuracy.
func tanPi(x float64) float64 {
	// tan has period π; x − round(x) ∈ [−½, ½] is exact, where
	// x − floor(x) rounded 1 − 1e-8 for x = −1e-8 and lost 8 digits.
	return math.Tan(math.Pi * (x - math.Round(x)))
}

// sinPi returns sin(πx) accurately for large |x| (sign included).
func sinPi(x float64) float64 {
	// sin(πx) has period 2; f = x − 2·round(x/2) ∈ [−1, 1] is exact (no
	// f += 2, which rounded away the digits of a tiny negative x), and so
	// are 1 − f and −1 − f, which reflect f into [−½, ½].
	f := x - 2*math.Round(x/2)
	switch {
	case f > 0.5:
		f = 1 - f
	case f < -0.5:
		f = -1 - f
	}
	return math.Sin(math.Pi * f)
}

// lgamma1p returns log Γ(1+a) for a > −1 without rounding 1+a first: for
// small a the rounding of 1+a alone costs math.Lgamma(1+a) a relative error
// of 1e-16/a (8e-11 at a = 1e-6), and the gamma quantile divides that error by
// a once more. For |a| < ½ it sums
// log Γ(1+a) = −log1p(a) + a·(1−γ) + Σ_{k≥2} (−a)ᵏ·(ζ(k)−1)/k.
func lgamma1p(a float64) float64 {
	if !(math.Abs(a) < 0.5) {
		lg, _ := math.Lgamma(1 + a)
		return lg
	}
	const eulerGamma = 0.57721566490153286060651209
	var sum float64
	p := -a // (−a)ᵏ after the first multiplication below, k = 2
	for k, z := range zetaMinusOne {
		p *= -a
		term := p * z / float64(k+2)
		sum += term
		if math.Abs(term) <= 1e-17*math.Abs(sum) {
			break
		}
	}
	return -math.Log1p(a) + a*(1-eulerGamma) + sum
}

// zetaMinusOne holds ζ(k) − 1 for k = 2, 3, …, 31 (mpmath, rounded to
// float64). At |a| < ½ the terms fall like 4⁻ᵏ.
var zetaMinusOne = [...]float64{
	0.6449340668482264, 0.2020569031595943, 0.08232323371113819,
	0.03692775514336993, 0.01734306198444914, 0.008349277381922827,
	0.00407735619794434, 0.0020083928260822143, 0.0009945751278180853,
	0.0004941886041194645, 0.0002460865533080483, 0.00012271334757848915,
	6.124813505870483e-05, 3.058823630702049e-05, 1.528225940865187e-05,
	7.637197637899763e-06, 3.81729326499984e-06, 1.908212716553939e-06,
	9.539620338727962e-07, 4.769329867878064e-07, 2.38450502727733e-07,
	1.1921992596531106e-07, 5.960818905125948e-08, 2.980350351465228e-08,
	1.4901554828365043e-08, 7.45071178983543e-09, 3.725334024788457e-09,
	1.862659723513049e-09, 9.313274324196682e-10, 4.656629065033784e-10,
}

// logx returns log x like math.Log, also for subnormal x: on amd64 (and
// s390x) math.Log reads the exponent field without normalising the
// significand, so math.Log(1e-310) returns −709.085 instead of −713.801
// (golang/go issue 56600, open as of go1.26). Kernels take logs of values
// and probabilities that a fit can drive below 2.2e-308.
func logx(x float64) float64 {
	if x < 0x1p-1022 && x > 0 {
		return math.Log(x*0x1p54) - 54*math.Ln2
	}
	return math.Log(x)
}

// Log is math.Log, also for subnormal x (golang/go issue 56600): the log
// built-in of the language.
func Log(x float64) float64 { return logx(x) }

// stirlerr returns log Γ(n+1) − [(n+½)·log n − n + ½·log 2π], the error of
// Stirling's formula for log n!, for n > 0 (Loader 2000, "Fast and accurate
// computation of binomial probabilities"). It equals stirlingCorr(n) from
// n = stirlingMin on; below, the direct difference loses at most a few
// 1e-15 absolute.
func stirlerr(n float64) float64 {
	if n >= stirlingMin {
		return stirlingCorr(n)
	}
	return lgamma1p(n) - (n+0.5)*logx(n) + n - lnSqrt2Pi
}

// bd0 returns the deviance term x·log(x/m) + m − x ≥ 0 for x ≥ 0, m > 0
// (Loader 2000), without the cancellation of the direct form when x ≈ m:
// there it sums 2x·Σ_{j≥1} v^(2j+1)/(2j+1) + (x−m)·v with v = (x−m)/(x+m).
func bd0(x, m float64) float64 {
	if x == 0 {
		return m
	}
	if math.Abs(x-m) < 0.1*(x+m) {
		v := (x - m) / (x + m)
		s := (x - m) * v
		ej := 2 * x * v
		v *= v
		for j := 3.0; j < 1000; j += 2 {
			ej *= v
			s1 := s + ej/j
			if s1 == s {
				break
			}
			s = s1
		}
		return s
	}
	r := x / m
	if r > 0 && r < math.Inf(1) {
		return x*logx(r) + m - x
	}
	return x*(logx(x)-logx(m)) + m - x
}

// logPoissonRaw returns log(λˣ·e^(−λ)/Γ(x+1)) for real x ≥ 0 and λ > 0, in
// Loader's form −stirlerr(x) − bd0(x, λ) − ½·log(2πx), which keeps its
// absolute accuracy where x·log λ, λ and log Γ(x+1) are large and nearly
// cancel (the Poisson mass at λ = x = 1e10 is e^−12.43, from terms of 2e11).
func logPoissonRaw(x, lam float64) float64 {
	if x == 0 {
		return -lam
	}
	return -stirlerr(x) - bd0(x, lam) - 0.5*(ln2Pi+logx(x))
}

// logBinomRaw returns log[Γ(x+y+1)/(Γ(x+1)·Γ(y+1))·pˣ·qʸ] for real
// x, y > 0 and p + q = 1, given mx = (x+y)·p and my = (x+y)·q, in Loader's
// form (see logPoissonRaw). y is passed apart from n = x + y so that a
// small y (a negative binomial count next to a huge dispersion) keeps its
// digits.
func logBinomRaw(x, y, mx, my float64) float64 {
	n := x + y
	lc := stirlerr(n) - stirlerr(x) - stirlerr(y) - bd0(x, mx) - bd0(y, my)
	return lc - 0.5*(ln2Pi+logx(x)+logx(y)-logx(n))
}

// lgammaHalfDiff returns log Γ(h+½) − log Γ(h) − ½·log h for h > 0, which
// tends to −1/(8h): for large h the two log-gammas, each about h·log h,
// cancel to ½·log h. From h = stirlingMin on it is
// h·log1p(1/(2h)) − ½ + stirlingCorr(h+½) − stirlingCorr(h).
func lgammaHalfDiff(h float64) float64 {
	if h < stirlingMin {
		a, _ := math.Lgamma(h + 0.5)
		b, _ := math.Lgamma(h)
		return a - b - 0.5*math.Log(h)
	}
	return h*math.Log1p(0.5/h) - 0.5 + (stirlingCorr(h+0.5) - stirlingCorr(h))
}

// digammaDiff returns ψ(x+d) − ψ(x) for x > 0, d ≥ 0. From x =
// polygammaShift on it is log1p(d/x) plus the difference of the asymptotic
// series, which keeps the relative accuracy of the small difference when
// d ≪ x, where ψ(x+d) and ψ(x) agree in most of their digits.
func digammaDiff(x, d float64) float64 {
	if x < polygammaShift || d == 0 {
		return Digamma(x+d) - Digamma(x)
	}
	return math.Log1p(d/x) + (digammaAsymp(x+d) - digammaAsymp(x))
}

// twoProd returns hi = fl(a·b) and lo = a·b − hi exactly (barring
// underflow), from one fused multiply-add.
func twoProd(a, b float64) (hi, lo float64) {
	hi = a * b
	return hi, math.FMA(a, b, -hi)
}

// twoQuo returns q = fl(a/b) and lo with q + lo = a/b to about twice the
// working precision: a − q·b is exact by one fused multiply-add.
func twoQuo(a, b float64) (q, lo float64) {
	q = a / b
	return q, math.FMA(-q, b, a) / b
}

// LogBeta returns log B(a, b) = log Γ(a) + log Γ(b) − log Γ(a+b) for a, b > 0.
// Where an argument reaches stirlingMin the log-gammas, each about a·log a,
// would cancel to a far smaller result (log B(1e10, 0.5) = −10.94 from terms
// of 2.2e11), so their Stirling parts are combined first and only the
// corrections stirlerr are subtracted (the grouping of R's lbeta).
func LogBeta(a, b float64) float64 {
	p, q := min(a, b), max(a, b)
	if !(p > 0) || math.IsNaN(q) {
		return math.NaN()
	}
	if math.IsInf(q, 1) {
		return math.Inf(-1)
	}
	s := p + q
	switch {
	case p >= stirlingMin:
		corr := stirlerr(p) + stirlerr(q) - stirlerr(s)
		return lnSqrt2Pi - 0.5*logx(q) + corr + (p-0.5)*logx(p/s) + q*math.Log1p(-p/s)
	case q >= stirlingMin:
		lp, _ := math.Lgamma(p)
		corr := stirlerr(q) - stirlerr(s)
		return lp + corr + p - p*logx(s) + (q-0.5)*math.Log1p(-p/s)
	}
	lp, _ := math.Lgamma(p)
	lq, _ := math.Lgamma(q)
	ls, _ := math.Lgamma(s)
	return lp + lq - ls
}

// LogRegIncBeta returns log I(x; a, b), the log of the regularised
// incomplete beta function (the CDF of Beta(a, b) at x), keeping its
// relative accuracy where I underflows a float64 (mathext.RegIncBeta
// returns 0 there: a Student-t tail 40 sd out with 10⁴ degrees of freedom
// is 1e-325). Below the mean it is the prefix x^a (1−x)^b / (a·B(a, b)) in
// logs times the continued fraction of the incomplete beta function,
// evaluated by the modified Lentz method; above, log(1 − I(1−x; b, a)).
// Invalid input (a or b ≤ 0, x NaN) gives NaN.
func LogRegIncBeta(a, b, x float64) float64 {
	switch {
	case !(a > 0) || !(b > 0) || math.IsNaN(x):
		return math.NaN()
	case x <= 0:
		return math.Inf(-1)
	case x >= 1:
		return 0
	}
	if x > (a+1)/(a+b+2) {
		lo := logIncBetaCF(b, a, 1-x)
		if lo > -math.Ln2 {
			return math.Log(-math.Expm1(lo))
		}
		return math.Log1p(-math.Exp(lo))
	}
	return logIncBetaCF(a, b, x)
}

// logIncBetaCF is log I(x; a, b) from the continued fraction, which
// converges fast for x below (a+1)/(a+b+2).
func logIncBetaCF(a, b, x float64) float64 {
	const tiny, eps = 1e-300, 1e-16
	prefix := a*math.Log(x) + b*math.Log1p(-x) - LogBeta(a, b) - math.Log(a)
	guard := func(v float64) float64 {
		if math.Abs(v) < tiny {
			return tiny
		}
		return v
	}
	c, d := 1.0, 1/guard(1-(a+b)*x/(a+1))
	h := d
	for m := 1; m <= 10000; m++ {
		fm := float64(m)
		even := fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm))
		d = 1 / guard(1+even*d)
		c = guard(1 + even/c)
		h *= d * c
		odd := -(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1))
		d = 1 / guard(1+odd*d)
		c = guard(1 + odd/c)
		del := d * c
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return prefix + math.Log(h)
}
