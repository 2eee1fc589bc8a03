package dist

import "math"

// The elementwise functions of Stan's library that gpp's built-ins log1m,
// inv_cloglog, Phi, Phi_approx, inv_Phi, lbeta and log_mix evaluate; the
// autodiff ops call them per element. Each names its accurate formulation.

// Log1m returns log(1 − x) for x ≤ 1, as log1p(−x): exact negation, then
// log1p's accuracy for small x.
func Log1m(x float64) float64 { return math.Log1p(-x) }

// InvCloglog returns 1 − exp(−exp(x)), the inverse of the complementary
// log-log link, as −expm1(−exp(x)): for x ≪ 0 the result is exp(x) to
// full relative accuracy, where 1 − exp(−exp(x)) would cancel to 0.
func InvCloglog(x float64) float64 { return -math.Expm1(-math.Exp(x)) }

// InvCloglogDeriv returns d/dx InvCloglog(x) = exp(x − exp(x)), in one
// exponential so that it neither overflows nor underflows early.
func InvCloglogDeriv(x float64) float64 { return math.Exp(x - math.Exp(x)) }

const (
	invSqrt2   = 0.70710678118654752440084436210484903928 // 1/√2, rounded
	invSqrt2Lo = -4.8336466567264567e-17                  // 1/√2 − invSqrt2
	invSqrtPi2 = 1.12837916709551257389615890312154517169 // 2/√π
	invSqrt2Pi = 0.39894228040143267793994605993438186848 // 1/√(2π)
)

// Phi returns the standard normal CDF Φ(x) = erfc(−x/√2)/2, accurate in
// both tails to the relative precision of math.Erfc: the argument −x/√2
// is carried as a double-double u_hi + u_lo (its rounding alone would cost
// a relative 2u²ε, 1.5e-13 at x = −37), and the first-order term
// −u_lo·(2/√π)·exp(−u_hi²) corrects erfc(u_hi).
func Phi(x float64) float64 {
	if math.IsNaN(x) {
		return x
	}
	hi, lo := twoProd(-x, invSqrt2)
	lo += -x * invSqrt2Lo
	e := math.Erfc(hi)
	if e == 0 || e == 2 {
		return 0.5 * e
	}
	return 0.5 * (e - lo*invSqrtPi2*math.Exp(-hi*hi))
}

// NormalDensity returns the standard normal density φ(x) =
// exp(−x²/2)/√(2π), with x² carried as a double-double so that the
// exponent's rounding (a relative x²ε/2, 7.6e-14 at x = 37) is not lost:
// exp(−(h + l)/2) = exp(−h/2)·(1 − l/2) for the tiny l.
func NormalDensity(x float64) float64 {
	h, l := twoProd(x, x)
	return invSqrt2Pi * math.Exp(-0.5*h) * (1 - 0.5*l)
}

// Stan's Phi_approx coefficients: inv_logit(a·x³ + b·x).
const (
	phiApproxA = 0.07056
	phiApproxB = 1.5976
)

// PhiApproxArg returns the logit of PhiApprox(x), a·x³ + b·x.
func PhiApproxArg(x float64) float64 { return x * (phiApproxA*x*x + phiApproxB) }

// PhiApprox returns Stan's logistic approximation of Φ,
// inv_logit(0.07056 x³ + 1.5976 x) (Bowling et al. 2009, error < 1.4e-4).
func PhiApprox(x float64) float64 { return InvLogit(PhiApproxArg(x)) }

// PhiApproxDeriv returns d/dx PhiApprox(x) = z(1 − z)(3a x² + b) with z =
// PhiApprox(x) and 1 − z computed as inv_logit(−u) rather than by
// cancelling.
func PhiApproxDeriv(x float64) float64 {
	u := PhiApproxArg(x)
	return InvLogit(u) * InvLogit(-u) * (3*phiApproxA*x*x + phiApproxB)
}

// Acklam's rational approximations of Φ⁻¹ (relative error below 1.15e-9),
// central on [pLow, 1 − pLow] and for the lower tail below.
var (
	acklamA = [6]float64{-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
		1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00}
	acklamB = [5]float64{-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
		6.680131188771972e+01, -1.328068155288572e+01}
	acklamC = [6]float64{-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
		-2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00}
	acklamD = [4]float64{7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
		3.754408661907416e+00}
)

const acklamLow = 0.02425

// InvPhi returns Φ⁻¹(p), the standard normal quantile, for p in [0, 1]
// (−∞ at 0, +∞ at 1, NaN outside). Acklam's approximation on the lower
// half q = min(p, 1 − p) (1 − p is exact for p ≥ ½, so the upper tail keeps
// the digits it has), then one Halley step against the accurate Phi, whose
// cubic convergence takes the 1e-9 start to full double precision. The
// step's Φ(x) − q is divided by φ(x) through logs in the far tail, where
// 1/φ(x) overflows (q below about 1e-300).
func InvPhi(p float64) float64 {
	switch {
	case !(p >= 0 && p <= 1):
		return math.NaN()
	case p == 0:
		return math.Inf(-1)
	case p == 1:
		return math.Inf(1)
	}
	q, sgn := p, 1.0
	if p > 0.5 {
		q, sgn = 1-p, -1
	}
	var x float64
	if q < acklamLow {
		a, d := acklamC, acklamD
		t := math.Sqrt(-2 * math.Log(q))
		x = (((((a[0]*t+a[1])*t+a[2])*t+a[3])*t+a[4])*t + a[5]) /
			((((d[0]*t+d[1])*t+d[2])*t+d[3])*t + 1)
	} else {
		a, b := acklamA, acklamB
		t := q - 0.5
		r := t * t
		x = (((((a[0]*r+a[1])*r+a[2])*r+a[3])*r+a[4])*r + a[5]) * t /
			(((((b[0]*r+b[1])*r+b[2])*r+b[3])*r+b[4])*r + 1)
	}
	// Halley: u = (Φ(x) − q)/φ(x), x ← x − u/(1 + x·u/2).
	var u float64
	if x > -37 {
		u = (Phi(x) - q) / NormalDensity(x)
	} else {
		u = (Phi(x)/q - 1) * math.Exp(math.Log(q)+0.5*x*x+lnSqrt2Pi)
	}
	x -= u / (1 + 0.5*x*u)
	return sgn * x
}

// LogAddExp returns log(exp(x) + exp(y)) without overflow, as
// max + log1p(exp(−|x − y|)); −∞ when both are −∞.
func LogAddExp(x, y float64) float64 {
	m, d := x, y
	if y > x {
		m, d = y, x
	}
	if math.IsInf(m, 0) || math.IsNaN(d) {
		if math.IsNaN(x) || math.IsNaN(y) {
			return math.NaN()
		}
		return m
	}
	return m + math.Log1p(math.Exp(d-m))
}

// LogBetaGrad returns the partials of LogBeta(a, b): ψ(a) − ψ(a + b) and
// ψ(b) − ψ(a + b), each as −digammaDiff so that a small difference keeps
// its digits when the other argument is much smaller.
func LogBetaGrad(a, b float64) (da, db float64) {
	return -digammaDiff(a, b), -digammaDiff(b, a)
}

// LogDiffExp returns log(exp(a) − exp(b)) for a ≥ b, as a + log1mexp(a −
// b) (gpp's log1mexp(d) = log(1 − exp(−d))): no overflow for large a and
// full accuracy when b is close to a. It is −∞ at a = b, a when b = −∞,
// and NaN for a < b (and for a = b = +∞).
func LogDiffExp(a, b float64) float64 {
	switch {
	case !(a >= b) || math.IsInf(b, 1):
		return math.NaN()
	case math.IsInf(b, -1):
		return a
	case a == b:
		return math.Inf(-1)
	case math.IsInf(a, 1):
		return a
	}
	return a + Log1mexp(a-b)
}

// LogDiffExpGrad returns the partials of LogDiffExp(a, b):
// e^a/(e^a − e^b) = −1/expm1(b − a) and −e^b/(e^a − e^b) = −1/expm1(a − b),
// each without overflow.
func LogDiffExpGrad(a, b float64) (da, db float64) {
	return -1 / math.Expm1(b-a), -1 / math.Expm1(a-b)
}

// Lmultiply returns x·log(y), with 0·log 0 taken as 0 (Stan's lmultiply
// and multiply_log: the x log x of an entropy at x = 0).
func Lmultiply(x, y float64) float64 {
	if x == 0 && y == 0 {
		return 0
	}
	return x * math.Log(y)
}

// LmultiplyGrad returns the partials of Lmultiply: log y and x/y, the
// latter 0 when x is 0 (the function is then 0 for every y ≥ 0).
func LmultiplyGrad(x, y float64) (dx, dy float64) {
	if x == 0 {
		return math.Log(y), 0
	}
	return math.Log(y), x / y
}

// BinaryLogLoss returns the log loss of a prediction p in [0, 1] of a
// binary outcome y: −log p when y is not 0, −log(1 − p) (as −log1p(−p))
// when it is (Stan's binary_log_loss); NaN for p outside [0, 1].
func BinaryLogLoss(y, p float64) float64 {
	switch {
	case !(p >= 0 && p <= 1):
		return math.NaN()
	case y != 0:
		return -math.Log(p)
	}
	return -math.Log1p(-p)
}

// BinaryLogLossGrad returns d/dp BinaryLogLoss(y, p).
func BinaryLogLossGrad(y, p float64) float64 {
	if y != 0 {
		return -1 / p
	}
	return 1 / (1 - p)
}

// ErfDeriv returns d/dx erf(x) = (2/√π)·exp(−x²), with x² carried as a
// double-double so that the exponent's rounding is not magnified in the
// tail (as in NormalDensity); erfc's derivative is its negation.
func ErfDeriv(x float64) float64 {
	h, l := twoProd(x, x)
	return invSqrtPi2 * math.Exp(-h) * (1 - l)
}

// Tetragamma returns ψ₂(x) = d³/dx³ log Γ(x), the derivative of
// Trigamma: for x ≤ 0 by the reflection ψ₂(x) = ψ₂(1 − x) −
// 2π³ cos(πx)/sin³(πx) (NaN at the poles; cos(πx) as sin(π(x + ½)), which
// is exactly 0 at the half-integers, where tan(πx) would be merely large),
// else by shifting x up to 20 (ψ₂(x) = ψ₂(x + 1) − 2/x³) and the
// asymptotic series −1/x² − 1/x³ − Σ (2k + 1) B₂ₖ/x²ᵏ⁺², whose first
// omitted term there is below 1e-19 relative.
func Tetragamma(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, -1):
		return math.NaN()
	case math.IsInf(x, 1):
		return 0
	case x <= 0:
		if x == math.Trunc(x) {
			return math.NaN()
		}
		s := sinPi(x) // cos(πx) as sin(π(x + ½)): exactly 0 at the half-integers
		return Tetragamma(1-x) - 2*math.Pi*math.Pi*math.Pi*sinPi(x+0.5)/(s*s*s)
	}
	var shift float64
	for x < 20 {
		shift -= 2 / (x * x * x)
		x++
	}
	r := 1 / x
	r2 := r * r
	s := 0.5 + r2*(-1.0/6+r2*(1.0/6+r2*(-3.0/10+r2*(5.0/6+r2*(-691.0/210)))))
	return shift - r2*(1+r+r2*s)
}

// Asin returns arcsin x for x in [−1, 1] as atan2(x, √((1 − x)(1 + x))):
// math.Asin forms 1 − x², which loses the digits of the small √ near ±1
// (a relative 5e-15 at x = −0.999999).
func Asin(x float64) float64 {
	if !(x >= -1 && x <= 1) {
		return math.NaN()
	}
	return math.Atan2(x, math.Sqrt((1-x)*(1+x)))
}

// Acos returns arccos x for x in [−1, 1] as atan2(√((1 − x)(1 + x)), x):
// math.Acos is π/2 − asin x, which cancels to a relative 2.5e-10 at
// x = 0.999999999.
func Acos(x float64) float64 {
	if !(x >= -1 && x <= 1) {
		return math.NaN()
	}
	return math.Atan2(math.Sqrt((1-x)*(1+x)), x)
}

// sinhBig is where exp(|x|) overflows though sinh and cosh do not (up to
// 710.47): there they are e^(|x|/2)·(e^(|x|/2)/2), e^(−|x|) being far below
// an ulp.
const sinhBig = 709

// Sinh returns the hyperbolic sine, finite up to |x| = 710.47 (math.Sinh
// overflows past 709.78).
func Sinh(x float64) float64 {
	if math.Abs(x) > sinhBig {
		h := math.Exp(0.5 * math.Abs(x))
		return math.Copysign(h*(0.5*h), x)
	}
	return math.Sinh(x)
}

// Cosh returns the hyperbolic cosine, finite up to |x| = 710.47.
func Cosh(x float64) float64 {
	if math.Abs(x) > sinhBig {
		h := math.Exp(0.5 * math.Abs(x))
		return h * (0.5 * h)
	}
	return math.Cosh(x)
}

const (
	invLn2  = 1 / math.Ln2
	invLn10 = 1 / math.Ln10
)

// Log2 returns the base-2 logarithm: exact at powers of 2, else
// log(x)/ln 2. math.Log2 adds the exponent to the log of the mantissa,
// which cancels just above 1 (a relative 4% at 1 + 2⁻⁵²).
func Log2(x float64) float64 {
	if frac, exp := math.Frexp(x); frac == 0.5 {
		return float64(exp - 1)
	}
	return math.Log(x) * invLn2
}

// Log10 returns the base-10 logarithm: log(x)/ln 10, exact at the powers
// of 10 that are doubles exactly (10⁰ to 10²²); math.Log10 goes through
// math.Log2 and cancels just above 1 as it does.
func Log10(x float64) float64 {
	r := math.Log(x) * invLn10
	if n := math.Round(r); math.Abs(r-n) < 1e-13 && n >= 0 && n <= 22 && math.Pow(10, n) == x {
		return n
	}
	return r
}

// LogInvLogitDiff returns log(inv_logit(x) − inv_logit(y)) for x > y, as
// −softplus(−x) + log1mexp(x − y) − softplus(y): the log of
// (e^x − e^y)/((1 + e^x)(1 + e^y)) with no term cancelling, finite where
// both inv_logits round to 0 or to 1 (x, y = −800, −801 or 40, 39). It is
// −∞ at x = y and NaN for x < y.
func LogInvLogitDiff(x, y float64) float64 {
	if !(x >= y) {
		return math.NaN()
	}
	return -Softplus(-x) + Log1mexp(x-y) - Softplus(y)
}

// LogInvLogitDiffGrad returns the partials of LogInvLogitDiff:
// inv_logit(−x) + 1/expm1(x − y) and −1/expm1(x − y) − inv_logit(y).
func LogInvLogitDiffGrad(x, y float64) (dx, dy float64) {
	r := 1 / math.Expm1(x-y)
	return InvLogit(-x) + r, -r - InvLogit(y)
}

// LogFallingFactorial returns log(x (x − 1) ... (x − n + 1)) =
// lgamma(x + 1) − lgamma(x − n + 1) for real x, n with x − n + 1 > 0 and
// n > −1 (NaN outside), as a function of v = x − n and n: lgamma(v + n +
// 1) − lgamma(v + 1), with n kept apart so that a small n keeps its
// relative digits (the difference of two lgammas loses them: 2e-13 at x =
// 100.25, n = 0.001, and all of them at x = 1e10). v is shifted up to
// stirlingMin by lgamma(w + 1) = lgamma(w) + log w, each step
// −log1p(n/(v + 1)); then
//
//	stirlerr(v + n) − stirlerr(v) + (v + ½)·log1p(n/v) − n + n·log(v + n).
//
// Where x + 1 ≤ 0 (n < 0) the log1p steps do not apply, and it is
// lgamma(n + 1) − log1p(x) − log B(x − n + 1, n + 1).
func LogFallingFactorial(x, n float64) float64 {
	switch {
	case !(x-n+1 > 0 && n > -1) || math.IsInf(x, 1):
		return math.NaN()
	case n == 0:
		return 0
	case !(x+1 > 0):
		l, _ := math.Lgamma(n + 1)
		return l - math.Log1p(x) - LogBeta(x-n+1, n+1)
	}
	v, s := x-n, 0.0
	for min(v, v+n) < stirlingMin {
		s -= math.Log1p(n / (v + 1))
		v++
	}
	u := v + n
	return s + (stirlerr(u) - stirlerr(v)) + (v+0.5)*math.Log1p(n/v) - n + n*math.Log(u)
}

// LogFallingFactorialGrad returns the partials of LogFallingFactorial,
// ψ(x + 1) − ψ(x − n + 1) and ψ(x − n + 1), the first in v = x − n and n
// as the value is: shifted up by ψ(w + 1) = ψ(w) + 1/w (each step
// n/((v + 1)(v + 1 + n))), then log1p(n/(v + 1)) plus the difference of
// the asymptotic series, so that a small n keeps its relative digits.
func LogFallingFactorialGrad(x, n float64) (dx, dn float64) {
	dn = Digamma(x - n + 1)
	if !(x+1 > 0) || n == 0 {
		return Digamma(x+1) - dn, dn
	}
	v, s := x-n, 0.0
	for min(v, v+n) < polygammaShift {
		s += n / ((v + 1) * (v + 1 + n))
		v++
	}
	return s + math.Log1p(n/(v+1)) + digammaAsympDiff(v+1, n), dn
}

// digammaAsympCoef are the coefficients B₂ₖ/(2k) of digammaAsymp's series.
var digammaAsympCoef = [...]float64{1.0 / 12, -1.0 / 120, 1.0 / 252, -1.0 / 240, 1.0 / 132, -691.0 / 32760, 1.0 / 12, -3617.0 / 8160}

// digammaAsympDiff returns digammaAsymp(v + n) − digammaAsymp(v) for v,
// v + n ≥ polygammaShift term by term, n/(2v(v + n)) − Σ B₂ₖ/(2k)·v⁻²ᵏ·
// expm1(−2k·log1p(n/v)), so that a small n keeps its relative digits
// (the plain difference of the two series cancels: 4e-14 of ψ(x + 1) −
// ψ(x − n + 1) at x = 100.25, n = 0.001).
func digammaAsympDiff(v, n float64) float64 {
	l := math.Log1p(n / v)
	r2 := 1 / (v * v)
	s, p := 0.0, 1.0
	for k, c := range digammaAsympCoef {
		p *= r2
		s += c * p * math.Expm1(-2*float64(k+1)*l)
	}
	return n/(2*v*(v+n)) - s
}
