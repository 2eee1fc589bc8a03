package dist

import (
	"math"

	"gonum.org/v1/gonum/mathext"
)

// Stan's gamma_p, gamma_q, inc_beta and inv_inc_beta: the regularised
// incomplete gamma and beta functions themselves, as functions a model
// calls, from their logs (GammaLogCDF, logIncBetaD), which keep the
// relative digits of the smaller of P and Q (of I and 1 − I):
// gamma_q(2, 700) is 6.9e-302 from log Q, where 1 − P is 0 from z ≈ 40 on.

// GammaP returns P(a, z), the regularised lower incomplete gamma function
// (the Gamma(a, 1) CDF at z), for a > 0 and z ≥ 0; NaN elsewhere.
func GammaP(a, z float64) float64 { return math.Exp(GammaLogCDF(a, z, false)) }

// GammaQ returns Q(a, z) = 1 − P(a, z) computed as itself, for a > 0 and
// z ≥ 0; NaN elsewhere.
func GammaQ(a, z float64) float64 { return math.Exp(GammaLogCDF(a, z, true)) }

// GammaPGrad returns ∂P/∂a and ∂P/∂z at (a, z): the shape partial from the
// log CDF's (the series or fraction that holds the smaller of P and Q),
// times P; the z partial is the Gamma(a, 1) density at z. At z = 0 the
// shape partial is 0 and the density is +Inf for a < 1, 1 at a = 1, 0
// above; both partials are 0 at z = +Inf.
func GammaPGrad(a, z float64) (da, dz float64) { return gammaPQGrad(a, z, false) }

// GammaQGrad returns ∂Q/∂a and ∂Q/∂z, the negatives of GammaPGrad's, each
// computed as a multiple of Q where Q is the small one.
func GammaQGrad(a, z float64) (da, dz float64) { return gammaPQGrad(a, z, true) }

func gammaPQGrad(a, z float64, upper bool) (da, dz float64) {
	switch {
	case !(a > 0) || math.IsInf(a, 1) || !(z >= 0):
		return math.NaN(), math.NaN()
	case math.IsInf(z, 1):
		return 0, 0
	case z == 0:
		switch {
		case a < 1:
			dz = math.Inf(1)
		case a == 1:
			dz = 1
		}
		if upper {
			dz = -dz
		}
		return 0, dz
	}
	var p, dp [2]float64
	p[0], p[1] = a, 1
	lp, _ := gammaLogCDFKernel(z, p[:], dp[:], upper)
	lga, _ := lgammaPair(a)
	dz = math.Exp(logGammaPrefix(a, math.Log(z), z, lga)) / z // the density, x·p(x)/x
	if upper {
		dz = -dz
	}
	return math.Exp(lp) * dp[0], dz
}

// IncBeta returns I_x(a, b), the regularised incomplete beta function
// (the Beta(a, b) CDF at x), for a, b > 0 and 0 ≤ x ≤ 1; NaN elsewhere.
// Near x = 1, where I is near 1, it is 1 − I_{1−x}(b, a) of the side that
// keeps its digits.
func IncBeta(a, b, x float64) float64 {
	v, _, _, _ := incBeta(a, b, x, false)
	return v
}

// IncBetaGrad returns the partials of IncBeta in a, b and x: I times those
// of its log (the shape partials differentiate the continued fraction,
// incbeta.go), and the Beta(a, b) density at x. At x = 0 and x = 1 the
// shape partials are 0 and the x partial is the density's limit (+Inf
// where the exponent is negative).
func IncBetaGrad(a, b, x float64) (da, db, dx float64) {
	_, da, db, dx = incBeta(a, b, x, true)
	return da, db, dx
}

// incBeta is IncBeta and, when grad, IncBetaGrad from one evaluation of
// the log and its partials.
func incBeta(a, b, x float64, grad bool) (v, da, db, dx float64) {
	switch {
	case !(a > 0 && b > 0 && x >= 0 && x <= 1) || math.IsInf(a, 1) || math.IsInf(b, 1):
		return math.NaN(), math.NaN(), math.NaN(), math.NaN()
	case x == 0:
		return 0, 0, 0, endDensity(a, b)
	case x == 1:
		return 1, 0, 0, endDensity(b, a)
	}
	l, la, lb, _ := logIncBetaD(a, b, x, 1-x)
	v = math.Exp(l)
	if grad {
		da, db = v*la, v*lb
		dx = math.Exp(betaLogDensity(a, b, x, logx(x), math.Log1p(-x)))
	}
	return v, da, db, dx
}

// endDensity is the limit of the Beta(s, t) density at 0 (of Beta(t, s)
// at 1): +Inf for s < 1, t = 1/B(1, t) at s = 1, else 0.
func endDensity(s, t float64) float64 {
	switch {
	case s < 1:
		return math.Inf(1)
	case s == 1:
		return t
	}
	return 0
}

// IncBetaFn is I_x(a, b) as a family of x with parameters a and b: its
// kernel returns the value of I, not a log, with the partials of
// IncBetaGrad, so that a model's inc_beta(a, b, x) is a node of the tape's
// elementwise density machinery, whose three arguments broadcast as a
// density's do. x outside [0, 1] is outside its support (−Inf, an error at
// fit time); invalid shapes give NaN.
var IncBetaFn = Univariate{
	Name:     "inc_beta",
	Params:   []Param{{Name: "a", Support: Positive}, {Name: "b", Support: Positive}},
	Support:  Unit,
	Doc:      "I_x(a, b), the value of inc_beta(a, b, x)",
	Kernel:   incBetaKernel,
	Quantity: "value",
}

func incBetaKernel(x float64, p, dp []float64) (float64, float64) {
	return unitShapeKernel(x, p, dp, incBeta)
}

// unitShapeKernel is the kernel of IncBetaFn and InvIncBetaFn: f's value
// at an argument x in [0, 1] with shapes p = (a, b), its shape partials
// stored in dp (when non-nil) and its partial in x returned; −Inf
// (outside) for x outside [0, 1] with valid shapes.
func unitShapeKernel(x float64, p, dp []float64, f func(a, b, x float64, grad bool) (v, da, db, dx float64)) (float64, float64) {
	a, b := p[0], p[1]
	if !(x >= 0 && x <= 1) && !math.IsNaN(x) && a > 0 && b > 0 {
		return outside(dp)
	}
	v, da, db, dx := f(a, b, x, true)
	if dp != nil {
		dp[0], dp[1] = da, db
	}
	return v, dx
}

// InvIncBeta returns the x in [0, 1] with I_x(a, b) = p, for a, b > 0 and
// p in [0, 1] (NaN elsewhere): gonum's inverse (Cephes' incbi), polished
// by Newton steps on log IncBeta in log x, on the side of the smaller of x
// and 1 − x (x from I_x(a, b) = p, or 1 − y from I_y(b, a) = 1 − p), so
// that each tail keeps its relative digits; 0 where x is below the
// smallest double.
func InvIncBeta(a, b, p float64) float64 {
	x, _, _, _ := invIncBeta(a, b, p, false)
	return x
}

// InvIncBetaGrad returns the partials of InvIncBeta in a, b and p by the
// inverse function rule: ∂x/∂p is one over the Beta(a, b) density at x,
// and ∂x/∂a = −(∂I/∂a)/density (the same for b), each from the side
// solved, whose y = 1 − x keeps its digits where x rounds to 1. Where x or
// 1 − x underflows to 0 they are 0.
func InvIncBetaGrad(a, b, p float64) (da, db, dp float64) {
	_, da, db, dp = invIncBeta(a, b, p, true)
	return da, db, dp
}

func invIncBeta(a, b, p float64, grad bool) (x, da, db, dp float64) {
	return invIncBetaY(a, b, p, grad, nil)
}

// invIncBetaY is invIncBeta that also stores y = 1 − x, with its own
// relative digits where x rounds to 1, in *pair when pair is not nil.
func invIncBetaY(a, b, p float64, grad bool, pair *float64) (x, da, db, dp float64) {
	if pair != nil {
		*pair = math.NaN()
	}
	switch {
	case !(a > 0 && b > 0 && p >= 0 && p <= 1) || math.IsInf(a, 1) || math.IsInf(b, 1):
		return math.NaN(), math.NaN(), math.NaN(), math.NaN()
	case p == 0, p == 1:
		x = p
		if pair != nil {
			*pair = 1 - p
		}
		if grad {
			da, db, dp = invIncBetaEndGrad(a, b, p)
		}
		return x, da, db, dp
	}
	// Newton's steps are in the log of the smaller of x and 1 − x (by
	// gonum's estimate), s, which keeps its relative digits, on the log of
	// the smaller of I = p and 1 − I = 1 − p, each computed as itself by
	// logIncBetaD given x and y = 1 − x apart.
	x0 := mathext.InvRegIncBeta(a, b, p)
	inY := x0 > 0.5 // s is y
	s0, ps, as := x0, p, a
	if inY {
		s0, ps, as = 1-x0, 1-p, b
	}
	// In the tail of s, its probability is about s^as/(as·B(a, b)): below
	// the smallest double s is 0; there, and where the start is 0, it
	// starts from that.
	ls := (math.Log(ps) + math.Log(as) + LogBeta(a, b)) / as
	switch {
	case ls < -745.2:
		s0 = 0
	case s0 <= 0 || ls < -20:
		s0 = math.Exp(ls)
		fallthrough
	default:
		s0 = invIncBetaNewton(a, b, p, s0, inY)
	}
	x, y := s0, 1-s0
	if inY {
		x, y = y, s0
	}
	if pair != nil {
		*pair = y
	}
	if grad && x > 0 && y > 0 {
		_, la, lb, _ := logIncBetaD(a, b, x, y)
		i := p
		if p > 0.5 { // I·la from the side of 1 − I: −(1 − I)·∂log(1 − I)/∂a
			_, lb1, la1, _ := logIncBetaD(b, a, y, x)
			i, la, lb = 1-p, -la1, -lb1
		}
		dens := math.Exp(betaLogDensity(a, b, x, logx(x), logx(y)))
		da, db, dp = -i*la/dens, -i*lb/dens, 1/dens
	}
	return x, da, db, dp
}

// invIncBetaNewton polishes s0, an estimate of the smaller s of x and
// y = 1 − x (y when inY) with I_x(a, b) = p, by Newton's method on the log
// of the smaller of I and 1 − I as a function of log s, which is nearly
// linear in the tail (I ≈ c·x^a), so that a start many orders of
// magnitude off converges in a few steps.
func invIncBetaNewton(a, b, p, s0 float64, inY bool) float64 {
	upper := p > 0.5 // the equation is on 1 − I = I_y(b, a) = 1 − p
	target := math.Log(p)
	if upper {
		target = math.Log(1 - p)
	}
	s := s0
	if !(s > 0 && s < 1) {
		s = 0.5
	}
	for range 100 {
		x, y := s, 1-s
		if inY {
			x, y = y, s
		}
		var l, dl float64 // log of I or 1 − I, and its derivative in log s
		if upper {
			var ly float64
			l, _, _, ly = logIncBetaD(b, a, y, x)
			dl = ly * y
			if !inY {
				dl = -ly * x
			}
		} else {
			var lx float64
			l, _, _, lx = logIncBetaD(a, b, x, y)
			dl = lx * x
			if inY {
				dl = -lx * y
			}
		}
		d := (l - target) / dl // the step in log s
		if math.IsNaN(d) {
			break
		}
		d = max(min(d, 20), -20)
		next := min(s*math.Exp(-d), (s+1)/2) // stays below 1
		if math.Abs(next-s) <= 2e-16*s {
			return next
		}
		s = next
	}
	return s
}

// invIncBetaEndGrad returns the partials of InvIncBeta at p = 0 or 1,
// where x is 0 or 1: ∂x/∂p is one over the density's limit there (+Inf
// where it is 0), the shape partials 0.
func invIncBetaEndGrad(a, b, p float64) (da, db, dp float64) {
	s, t := a, b
	if p == 1 {
		s, t = b, a
	}
	return 0, 0, 1 / endDensity(s, t)
}

// InvIncBetaFn is InvIncBeta as a family of p with parameters a and b,
// as IncBetaFn is IncBeta: a model's inv_inc_beta(a, b, p).
var InvIncBetaFn = Univariate{
	Name:     "inv_inc_beta",
	Params:   []Param{{Name: "a", Support: Positive}, {Name: "b", Support: Positive}},
	Support:  Unit,
	Doc:      "the x with I_x(a, b) = p, the value of inv_inc_beta(a, b, p)",
	Kernel:   invIncBetaKernel,
	Quantity: "value",
}

func invIncBetaKernel(p float64, q, dq []float64) (float64, float64) {
	return unitShapeKernel(p, q, dq, invIncBeta)
}
