package dist

import "math"

// Stan's lambert_w0 and lambert_wm1: the branches of the inverse of
// w ↦ w·e^w, W₀ ≥ −1 on [−1/e, ∞) and W₋₁ ≤ −1 on [−1/e, 0).
//
// Near the branch point −1/e both come from the series in
// p = ±√(2(e·x + 1)) (DLMF 4.13.6; + for W₀, − for W₋₁), with e·x + 1
// formed from e split in two doubles so that it keeps its digits; away
// from it, Halley's iteration on w·e^w − x from Winitzki-style starts,
// and for W₀ past e (or W₋₁ near 0) Newton's on w + log|w| = log|x|,
// which does not overflow.

// eHi + eLo is e to about 32 digits.
const (
	eHi = 2.718281828459045
	eLo = 1.4456468917292516e-16
)

// lambertSeries holds the coefficients of W = Σ μ_k p^k about the branch
// point (DLMF 4.13.6): −1, 1, −1/3, 11/72, −43/540, 769/17280, −221/8505,
// 680863/43545600, −1963/204120, 226287557/37623398400.
var lambertSeries = [...]float64{-1, 1, -1.0 / 3, 11.0 / 72, -43.0 / 540, 769.0 / 17280, -221.0 / 8505,
	680863.0 / 43545600, -1963.0 / 204120, 226287557.0 / 37623398400}

// lambertNearBranch is the |p| below which the series alone is used: its
// first dropped term, about 0.004·p¹⁰, is below 1e-18 there.
const lambertNearBranch = 0.03

// LambertW0 returns W₀(x) for x ≥ −1/e (NaN below, +Inf at +Inf).
func LambertW0(x float64) float64 { return lambertW(x, false) }

// LambertWm1 returns W₋₁(x) for −1/e ≤ x < 0 (−Inf at 0, NaN elsewhere).
func LambertWm1(x float64) float64 { return lambertW(x, true) }

// LambertWGrad returns W′(x) = 1/(x + e^W) = W/(x(1 + W)) at x with
// w = W(x) of either branch: 1 at x = 0 on W₀, +Inf or −Inf at the branch
// point.
func LambertWGrad(x, w float64) float64 {
	if x == 0 {
		return 1 / (1 + w) // w = 0 on W₀; W₋₁(0) = −Inf gives 0
	}
	return w / (x * (1 + w))
}

func lambertW(x float64, m1 bool) float64 {
	switch {
	case math.IsNaN(x):
		return x
	case x == 0:
		if m1 {
			return math.Inf(-1)
		}
		return 0
	case math.IsInf(x, 1) && !m1:
		return x
	case m1 && x > 0:
		return math.NaN()
	}
	q := math.FMA(eHi, x, 1) + eLo*x // e·x + 1
	if q < 0 {
		if q > -1e-16 { // x rounds to within an ulp of −1/e
			return -1
		}
		return math.NaN()
	}
	p := math.Sqrt(2 * q)
	if m1 {
		p = -p
	}
	if math.Abs(p) < lambertNearBranch {
		w, pk := 0.0, 1.0
		for _, c := range lambertSeries {
			w += c * pk
			pk *= p
		}
		return w
	}
	var w float64
	switch {
	case !m1 && x > eHi: // w + log w = log x
		l := math.Log(x)
		ll := math.Log(l)
		w = l - ll + ll/l
		return lambertLogNewton(w, l, 1)
	case m1 && x > -0.25: // w + log(−w) = log(−x), w ≤ −2.15
		l := math.Log(-x)
		ll := math.Log(-l)
		w = l - ll + ll/l
		return lambertLogNewton(w, l, -1)
	case !m1 && x < -0.25, m1:
		w = -1 + p - p*p/3 + 11.0/72*p*p*p // the series' start near the branch point
	default:
		l := math.Log1p(x)
		w = l * (1 - math.Log1p(l)/(2+l)) // Winitzki's start
	}
	return lambertHalley(w, x)
}

// lambertLogNewton solves w + log(sign·w) = l by Newton's method from w.
func lambertLogNewton(w, l, sign float64) float64 {
	for range 50 {
		f := w + math.Log(sign*w) - l
		next := w - f/(1+1/w)
		if math.Abs(next-w) <= 1e-16*math.Abs(w) {
			return next
		}
		w = next
	}
	return w
}

// lambertHalley solves w·e^w = x by Halley's method from w.
func lambertHalley(w, x float64) float64 {
	for range 50 {
		e := math.Exp(w)
		f := w*e - x
		d := e * (w + 1)
		next := w - f/(d-(w+2)*f/(2*w+2))
		if math.Abs(next-w) <= 1e-16*math.Abs(next) || math.IsNaN(next) {
			return next
		}
		w = next
	}
	return w
}
