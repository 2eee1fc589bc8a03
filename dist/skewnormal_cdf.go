package dist

import "math"

// The skew normal's log CDF and log survival function. With z = (x − ξ)/ω,
// P(X ≤ x) = Φ(z) − 2·T(z, α), T Owen's T function, a difference that
// cancels to nothing in the lower tail when α > 0. Writing Φ(z) = 2·T(z, ∞)
// for z ≤ 0 and T(h, a) = (1/2π)∫₀ᵃ e^(−h²(1+t²)/2)/(1+t²) dt with
// t = cot s turns it into one integral of a positive integrand,
//
//	P(X ≤ x) = (1/π)·∫₀ᴸ exp(−z²/(2 sin² s)) ds,  L = atan2(1, α),  z ≤ 0,
//
// (Craig's formula for Φ at α = 0), which keeps its relative digits however
// small it is. For z > 0, X ≤ x is −X ≥ −x with −X ~ SkewNormal(−ξ, ω, −α),
// so the same integral at (−z, −α) is P(X > x). The other probability of
// the pair is 1 minus it, through log1p, where the integral is below ½, and
// otherwise (α < 0) a sum of positive terms of its own (snLogLower). The
// integral is 20-point Gauss–Legendre quadrature on pieces graded
// geometrically toward the integrand's peak, at the width of its decay
// there, and toward s = 0, where it falls to 0 below s ≈ |z|/√2. Against mpmath
// the log probabilities are within 1e-13 for z in [−40, 40] and α in
// [−1000, 1000] (skewnormal_cdf_test.go).
//
// The partials are closed form: ∂P(X ≤ x)/∂z = 2φ(z)Φ(αz), the density,
// and ∂P(X ≤ x)/∂α = −2·∂T/∂a = −exp(−z²(1+α²)/2)/(π(1+α²)), each divided
// by P as exp of a difference of logs (which loses about |log P|·1e-16 of
// relative accuracy far in the tails, 2e-10 at log P = −2e6).

// skewNormalLogCDF is SkewNormal(xi, omega, alpha)'s log CDF or log
// survival function.
func skewNormalLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	om, a := p[1], p[2]
	z := (x - p[0]) / om
	switch {
	case math.IsInf(z, 1):
		return aboveSupport(dp, upper)
	case math.IsInf(z, -1):
		return belowSupport(dp, upper)
	}
	// The integral is at (w, b) = (z, α) for z ≤ 0 and (−z, −α) otherwise;
	// sg is dw/dz = db/dα.
	// Past |α| = 1e100 the family is ±HalfNormal(ω) to 100 digits; the
	// clamp keeps b³ finite.
	w, b, sg := z, math.Max(-1e100, math.Min(a, 1e100)), 1.0
	if z > 0 {
		w, b, sg = -z, -b, -1
	}
	// log P(W ≤ w) and log P(W > w) for W ~ SkewNormal(0, 1, b)
	lk, lo := snLogLower(w, b)
	if math.IsInf(lk, -1) { // P(W ≤ w) underflowed: P(W > w) = 1
		if upper == (z <= 0) {
			clear(dp)
			return 0, 0
		}
		return outside(dp)
	}
	// d log P(W ≤ w)/dw and /db
	lphi, _ := normalTail(-b * w) // log Φ(bw)
	gw := math.Exp(math.Ln2 - lnSqrt2Pi - 0.5*w*w + lphi - lk)
	gb := -math.Exp(-0.5*w*w*(1+b*b) - math.Log(math.Pi) - math.Log1p(b*b) - lk)
	lp := lk
	if upper == (z <= 0) { // the other side: d log(1 − P) = −P/(1 − P)·d log P
		r := math.Exp(lk - lo)
		lp, gw, gb = lo, -r*gw, -r*gb
	}
	if math.IsInf(lp, -1) {
		return outside(dp)
	}
	gz, ga := sg*gw, sg*gb
	dp[0] = -gz / om
	dp[1] = -gz * z / om
	dp[2] = ga
	return lp, gz / om
}

// snLogLower returns log P(W ≤ w) and log P(W > w) for W ~
// SkewNormal(0, 1, b) and w ≤ 0. The first is log((1/π)·∫₀ᴸ exp(−c/sin² s) ds),
// c = w²/2, L = atan2(1, b), with the integrand's largest value factored
// out; it is at most L/π, below ½ for b ≥ 0, and the second is then 1 minus
// it. For b < 0 it may be near 1, and then the second is its own sum of
// positive terms.
func snLogLower(w, b float64) (lF, lS float64) {
	if w < -1e100 { // P(W ≤ w) < e^(−1e200)
		return math.Inf(-1), 0
	}
	c := 0.5 * w * w
	if b >= 0 {
		// The integrand grows to exp(−c(1+b²)) at s = L ≤ π/2. In u = L − s,
		// 1/sin² s − 1/sin² L = sin u·sin(2L − u)/(sin² s·sin² L), with
		// sin(2L − u)·(1 + b²) = 2b·cos u + (1 − b²)·sin u from b itself
		// (2L is near π when b is small).
		L := math.Atan2(1, b)
		f := func(u float64) float64 {
			s := math.Sin(L - u)
			if s == 0 {
				return 0
			}
			su := math.Sin(u)
			return math.Exp(-c * su * (2*b*math.Cos(u) + (1-b*b)*su) / (s * s))
		}
		k := 1 + b*b
		// the integrand's widths at u = 0 (its decay there) and at s = 0,
		// where exp(−c/sin² s) falls to 0 (if it is still there)
		h0 := 0.25 / (2*c*b*k + 2*math.Sqrt(c)*k + 1/L)
		h1 := L
		if c*k < 50 {
			h1 = 0.25 * math.Sqrt(c)
		}
		lF = -c*k + math.Log(snIntegral(f, L, h0, h1)/math.Pi)
		return lF, Log1mexp(-lF)
	}
	// The integrand peaks at exp(−c) at s = π/2 < L. In u = |s − π/2|,
	// 1/sin² s − 1 = tan² u, over u in [0, π/2] and [0, L − π/2].
	f := func(u float64) float64 {
		t := math.Tan(u)
		return math.Exp(-c * t * t)
	}
	h0 := 0.25 / (2*math.Sqrt(c) + 1)
	// At u = π/2, exp(−c tan² u) falls to 0 in about √c; at the end of
	// the second range, atan(|b|), its log falls by 2c|b|(1 + b²) per unit.
	U, k := math.Atan(-b), 1+b*b
	hU := 0.25 / (2*c*-b*k + 2*math.Sqrt(c)*k + 1/U)
	i := snIntegral(f, math.Pi/2, h0, 0.25*math.Sqrt(c)) + snIntegral(f, U, h0, hU)
	lF = -c + math.Log(i/math.Pi)
	if lF < -math.Ln2 {
		return lF, Log1mexp(-lF)
	}
	// P(W > w) = 1 − Φ(w) − (1/π)·∫₀ᵁ exp(−c sec² u) du
	//          = ½·erf(|w|/√2) + (1/π)·(atan2(1, |b|) + ∫₀ᵁ (1 − exp(−c sec² u)) du),
	// U = atan|b|, each term positive; the integrand grows from 1 − e^(−c)
	// to 1 − e^(−c(1+b²)).
	g := func(u float64) float64 {
		t := math.Tan(u)
		return -math.Expm1(-c * (1 + t*t))
	}
	sv := 0.5*math.Erf(-w/math.Sqrt2) + (math.Atan2(1, -b)+snIntegral(g, U, 0.25*U, hU))/math.Pi
	lS = math.Log(sv)
	return math.Log1p(-sv), lS
}

// snIntegral integrates a decreasing f ≥ 0 over [0, L] with f(0) about 1,
// by 20-point Gauss–Legendre on pieces graded geometrically from width h0
// at 0 and from width h1 at L (features of those sizes at the two ends),
// stopping once the rest is below 1e-18 of the sum.
func snIntegral(f func(float64) float64, L, h0, h1 float64) float64 {
	s, _ := gradedIntegral(func(x float64) (float64, float64) { return f(x), 0 }, L, h0, h1)
	return s
}

// gradedIntegral is snIntegral for an f that returns a second integrand g
// beside it (VonMises's sin²-weighted one), integrated on the same nodes;
// the pieces and the stopping rule are f's alone, so f's sum is snIntegral's
// bit for bit.
func gradedIntegral(f func(float64) (float64, float64), L, h0, h1 float64) (sf, sg float64) {
	if L < 1e-280 { // atan|b| for a tiny b: f is f(0) throughout
		v, w := f(0)
		return L * v, L * w
	}
	h0 = math.Max(h0, 1e-17*L)
	h1 = math.Max(h1, 1e-17*L)
	piece := func(a, b float64) bool {
		if fa, _ := f(a); sf > 0 && fa*(L-a) < 1e-18*sf {
			return false
		}
		m, r := 0.5*(a+b), 0.5*(b-a)
		var s, t float64
		for i, x := range gl20x {
			f1, g1 := f(m - r*x)
			f2, g2 := f(m + r*x)
			s += gl20w[i] * (f1 + f2)
			t += gl20w[i] * (g1 + g2)
		}
		sf += r * s
		sg += r * t
		return true
	}
	a := 0.0
	for h := h0; h < 0.5*L; h *= 2 {
		if !piece(a, h) {
			return sf, sg
		}
		a = h
	}
	// the pieces' ends graded toward L: L − h1·2ʲ for j = n−1, …, 0
	n := 0
	for h := h1; h < L-a; h *= 2 {
		n++
	}
	for j := n - 1; j >= 0; j-- {
		e := L - math.Ldexp(h1, j)
		if !piece(a, e) {
			return sf, sg
		}
		a = e
	}
	piece(a, L)
	return sf, sg
}

// gl20x and gl20w are the positive nodes of 20-point Gauss–Legendre
// quadrature on [−1, 1] and their weights, from Newton's iteration on the
// Legendre polynomial P₂₀.
var gl20x, gl20w = gaussLegendre(20)

func gaussLegendre(n int) (x, w []float64) {
	for i := range n / 2 {
		t := math.Cos(math.Pi * (float64(i) + 0.75) / (float64(n) + 0.5))
		var dp float64
		for range 100 {
			p0, p1 := 1.0, t // P₀, P₁, then up to Pₙ by the recurrence
			for k := 2; k <= n; k++ {
				p0, p1 = p1, ((2*float64(k)-1)*t*p1-float64(k-1)*p0)/float64(k)
			}
			dp = float64(n) * (t*p1 - p0) / (t*t - 1)
			dt := p1 / dp
			t -= dt
			if math.Abs(dt) < 1e-17 {
				break
			}
		}
		x = append(x, t)
		w = append(w, 2/((1-t*t)*dp*dp))
	}
	return x, w
}
