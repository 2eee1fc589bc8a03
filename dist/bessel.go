package dist

import "math"

// Stan's Bessel functions: log I_v(z) (log_modified_bessel_first_kind)
// with its partials in v and z, I_v(z) and K_v(z) of an integer order, and
// J_n and Y_n (from Go's math package) with their partials in x.
//
// log I_v(z) for real v ≥ −1 and z ≥ 0 comes from one of two sums, each
// differentiated forward in v and z term by term:
//
//   - the power series (DLMF 10.25.2) I_v(z) = (z/2)^v/Γ(v+1)·S,
//     S = Σ t_k, t_0 = 1, t_k = t_{k−1}·(z²/4)/(k(v+k)): positive terms
//     (v > −1), no cancellation; about z/2 terms past the largest, so it
//     serves z < 25 and orders with v² > z;
//   - Hankel's expansion (DLMF 10.40.1) I_v(z) ≈ e^z/√(2πz)·H,
//     H = Σ c_k, c_0 = 1, c_k = −c_{k−1}·(4v² − (2k−1)²)/(8kz), for z ≥ 25
//     and v² ≤ z, where its terms fall below 1e-17 of H before they grow
//     (the dropped e^(−z) part is e^(−2z) ≤ 2e-22 relative).

// besselHankelMin is the z from which log I_v(z) uses Hankel's expansion
// (when also v² ≤ z).
const besselHankelMin = 25

// besselMaxTerms caps the power series, about z/2 + 10√z terms for small v:
// arguments past about 2e7 give NaN.
const besselMaxTerms = 10_000_000

// LogBesselI returns log I_v(z), the log of the modified Bessel function of
// the first kind, for v ≥ −1 and z ≥ 0 (NaN elsewhere): −Inf at z = 0 for
// v > 0, 0 at z = 0 for v = 0, +Inf at z = 0 for −1 < v < 0; I_{−1} is I_1.
func LogBesselI(v, z float64) float64 {
	l, _, _ := logBesselI(v, z, false)
	return l
}

// LogBesselIGrad returns the partials of LogBesselI in v and z:
// ∂/∂z log I_v = I_v′/I_v and ∂/∂v log I_v, from the same sum as the value.
// At v = −1 exactly the v partial is taken as 0 (I_{−1} = I_1 there is the
// end of the domain).
func LogBesselIGrad(v, z float64) (dv, dz float64) {
	_, dv, dz = logBesselI(v, z, true)
	return dv, dz
}

func logBesselI(v, z float64, grad bool) (l, dv, dz float64) {
	switch {
	case !(v >= -1 && z >= 0) || math.IsInf(v, 1):
		return math.NaN(), math.NaN(), math.NaN()
	case math.IsInf(z, 1):
		return z, 0, 1
	case v == -1:
		l, _, dz = logBesselI(1, z, grad)
		return l, 0, dz
	case z == 0:
		switch {
		case v == 0:
			return 0, 0, 0 // I_0 is even: I_0′(0) = 0; ∂/∂v at z = 0 is −Inf, taken as 0
		case v > 0:
			return math.Inf(-1), 0, math.Inf(1)
		}
		return math.Inf(1), 0, math.Inf(-1)
	}
	if z >= besselHankelMin && v*v <= z {
		return logBesselIHankel(v, z, grad)
	}
	return logBesselISeries(v, z, grad)
}

// logBesselISeries is log I_v(z) and its partials from the power series.
// The terms are rescaled by 2^−900 whenever they pass 2^900, the scale kept
// in their log, so that S does not overflow past z ≈ 700.
func logBesselISeries(v, z float64, grad bool) (l, dv, dz float64) {
	q := z * z / 4
	if math.IsInf(q, 1) {
		q = math.MaxFloat64 // z > 1.3e154 needs more terms than the cap anyway
	}
	const big, bigLog = 0x1p900, 900 * math.Ln2
	// s1 = S − 1 keeps the digits of log S = log1p(s1) for small z.
	t, s, s1, sz, sv, h, scale := 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0
	for k := 1.0; ; k++ {
		if k > besselMaxTerms {
			return math.NaN(), math.NaN(), math.NaN()
		}
		t *= q / (k * (v + k))
		h += 1 / (v + k)
		s += t
		s1 += t
		if grad {
			sz += 2 * k * t
			sv -= h * t
		}
		if s > big {
			t, s, sz, sv = t/big, s/big, sz/big, sv/big
			scale += bigLog
		}
		if k*(v+k) > q && t <= 1e-17*s {
			break
		}
	}
	lg, _ := math.Lgamma(v + 1)
	ls := math.Log1p(s1)
	if scale != 0 {
		ls = math.Log(s) + scale
	}
	l = v*math.Log(z/2) - lg + ls
	if grad {
		dz = (v + sz/s) / z
		dv = math.Log(z/2) - Digamma(v+1) + sv/s
	}
	return l, dv, dz
}

// logBesselIHankel is log I_v(z) and its partials from Hankel's expansion,
// for z ≥ besselHankelMin and v² ≤ z.
func logBesselIHankel(v, z float64, grad bool) (l, dv, dz float64) {
	c, cv, h, hz, hv := 1.0, 0.0, 1.0, 0.0, 0.0
	w := 4 * v * v
	for k := 1.0; k < 200; k++ {
		j := 2*k - 1
		r := -(w - j*j) / (8 * k * z)
		cv = cv*r - c*v/(k*z) // ∂r/∂v = −v/(kz)
		c *= r
		h += c
		hz -= k * c / z
		hv += cv
		if math.Abs(c) <= 1e-17*math.Abs(h) && math.Abs(cv) <= 1e-17*(math.Abs(hv)+1e-300) {
			break
		}
	}
	l = z - 0.5*math.Log(2*math.Pi*z) + math.Log(h)
	if grad {
		dz = 1 - 0.5/z + hz/h
		dv = hv / h
	}
	return l, dv, dz
}

// BesselI returns I_v(z), the modified Bessel function of the first kind,
// of an integer order v (a float64 holding an integer; NaN otherwise) and
// any real z: exp(LogBesselI(|v|, |z|)), negated for odd v at negative z
// (I_v(−z) = (−1)^v I_v(z), I_{−v} = I_v). It overflows to ±Inf past
// |z| ≈ 713.
func BesselI(v, z float64) float64 {
	if v != math.Trunc(v) || math.IsNaN(z) {
		return math.NaN()
	}
	n := math.Abs(v)
	r := math.Exp(LogBesselI(n, math.Abs(z)))
	if z < 0 && math.Mod(n, 2) == 1 {
		r = -r
	}
	return r
}

// BesselIGrad returns ∂I_v(z)/∂z = I_v(z)·(log I_v)′(|z|), sign-adjusted
// at negative z; at z = 0 it is ½ for |v| = 1, else 0.
func BesselIGrad(v, z float64) float64 {
	if v != math.Trunc(v) || math.IsNaN(z) {
		return math.NaN()
	}
	n := math.Abs(v)
	if z == 0 {
		if n == 1 {
			return 0.5
		}
		return 0
	}
	l, _, dz := logBesselI(n, math.Abs(z), true) // one sum for both
	d := math.Exp(l) * dz
	if z < 0 && math.Mod(n, 2) == 0 { // I_v(z) = ±I_v(|z|), d|z|/dz = −1
		d = -d
	}
	return d
}

// BesselJ returns J_n(x), the Bessel function of the first kind, of an
// integer order (a float64 holding an integer; NaN otherwise): math.Jn.
func BesselJ(v, x float64) float64 {
	if v != math.Trunc(v) || math.Abs(v) > math.MaxInt32 {
		return math.NaN()
	}
	return math.Jn(int(v), x)
}

// BesselJGrad returns J_n′(x) = (J_{n−1}(x) − J_{n+1}(x))/2.
func BesselJGrad(v, x float64) float64 {
	if v != math.Trunc(v) || math.Abs(v) > math.MaxInt32 {
		return math.NaN()
	}
	n := int(v)
	return (math.Jn(n-1, x) - math.Jn(n+1, x)) / 2
}

// BesselY returns Y_n(x), the Bessel function of the second kind, of an
// integer order (a float64 holding an integer; NaN otherwise) at x > 0
// (NaN below, −Inf at 0): math.Yn.
func BesselY(v, x float64) float64 {
	if v != math.Trunc(v) || math.Abs(v) > math.MaxInt32 || x < 0 {
		return math.NaN()
	}
	return math.Yn(int(v), x)
}

// BesselYGrad returns Y_n′(x) = (Y_{n−1}(x) − Y_{n+1}(x))/2.
func BesselYGrad(v, x float64) float64 {
	if v != math.Trunc(v) || math.Abs(v) > math.MaxInt32 || x < 0 {
		return math.NaN()
	}
	n := int(v)
	return (math.Yn(n-1, x) - math.Yn(n+1, x)) / 2
}

// BesselK returns K_v(z), the modified Bessel function of the second kind,
// of an integer order v (a float64 holding an integer; NaN otherwise; K_{−v}
// = K_v) at z > 0 (NaN below, +Inf at 0): from
// K_v(z) = ∫₀^∞ exp(−z cosh t)·cosh(vt) dt (DLMF 10.32.9) by the
// trapezoidal rule, exponentially accurate for this even integrand
// analytic in a strip, with a step of half the width of its peak at
// sinh t = v/z and the exponent at the peak taken out, so that neither a
// tiny z (K_5(1e-3) = 3.8e16) nor a large one (K_0(700) = 4.4e-306)
// overflows on the way. It underflows to 0 past z ≈ 705.
func BesselK(v, z float64) float64 {
	k, _ := besselK(v, z, false)
	return k
}

// BesselKGrad returns ∂K_v(z)/∂z = −∫ cosh t·exp(−z cosh t)·cosh(vt) dt,
// from the same sum.
func BesselKGrad(v, z float64) float64 {
	_, d := besselK(v, z, true)
	return d
}

func besselK(v, z float64, grad bool) (k, dk float64) {
	switch {
	case v != math.Trunc(v) || math.IsNaN(z) || z < 0 || math.IsInf(v, 0):
		return math.NaN(), math.NaN()
	case z == 0:
		return math.Inf(1), math.Inf(-1)
	case math.IsInf(z, 1):
		return 0, 0
	}
	n := math.Abs(v)
	// E(t) = n t − 2z sinh²(t/2) = n t − z (cosh t − 1), at its peak.
	e := func(t float64) float64 { s := math.Sinh(t / 2); return n*t - 2*z*s*s }
	tp := math.Asinh(n / z)
	ep := e(tp)
	h := min(0.2, 0.5/math.Sqrt(math.Hypot(z, n))) // half the peak's width 1/√(z cosh t*)
	var s, sd float64
	for i := 0; i < 1_000_000; i++ {
		t := float64(i) * h
		w := 1.0
		if i == 0 {
			w = 0.5
		}
		sh := math.Sinh(t / 2)
		c := 2 * z * sh * sh // z (cosh t − 1), as in e
		f := 0.5 * (math.Exp(n*t-c-ep) + math.Exp(-n*t-c-ep))
		s += w * f
		if grad {
			sd += w * f * math.Cosh(t)
		}
		if t > tp && f <= 1e-18*s {
			break
		}
	}
	scale := math.Exp(ep - z)
	k = scale * h * s
	if grad {
		dk = -scale * h * sd
	}
	return k, dk
}
