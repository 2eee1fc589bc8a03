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
