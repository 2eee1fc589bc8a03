package dist

import "math"

// The von Mises log CDF and log survival function, on [−π, π] as Stan's
// von_mises_lcdf and scipy's vonmises.cdf define them:
//
//	F(y) = ∫₋π^y exp(κ·cos(t − μ)) dt / (2π·I₀(κ)),  y in [−π, π],
//
// with F = 0 below −π and 1 above π (the value is not wrapped: the CDF is
// that of the density restricted to one turn, μ any real). The ends are
// π's, not float64's: math.Pi lies 1.2e-16 inside, so F(−math.Pi) is tiny
// but not 0, and F(−π + 1e-12) keeps its digits. Each tail is
// an integral of a positive integrand, with no 1 − F that cancels: with μ
// wrapped to m in [−π, π] and u the distance of t from m around the
// circle, the integrand is exp(−2κ·sin²(u/2))·e^κ, decreasing in u on
// [0, π]. The mode m and the antimode m ± π split [t₁, t₂] into at most
// three pieces on each of which u runs over an interval [u₁, u₁ + w], and
//
//	∫ exp(−2κ sin²(u/2)) du = exp(−2κ sin²(u₁/2))·∫₀ʷ exp(−2κ·sin(v/2)·sin(u₁ + v/2)) dv
//
// (sin²a − sin²b = sin(a − b)·sin(a + b)): the factor carries the tail's
// size exactly (log P near −2κ far from the mode, −4e5 at κ = 1e5) and the
// integral, decreasing from 1, is snIntegral's graded Gauss–Legendre
// quadrature. The pieces are summed in log space and divided by
// 2π·I₀(κ)e^(−κ). The tail asked for is computed so; where it is above ½
// the other one is, and the value is log1p of minus it, which keeps the
// relative digits of log P near 0.
//
// The partials: d log F/dy = p(y)/F; d log F/dμ = (p(−π) − p(y))/F, the
// difference as p(y)·expm1 of the difference of the two log densities,
// itself a product of sines; d log F/dκ = (1 − A(κ)) − 2·J/I, with I the
// integral and J the same with the weight sin²(u/2), accumulated on the
// same nodes (from the smaller tail, as −(1 − F)/F times its partial, so
// that it keeps its relative digits where F is near 1). The upper tail's
// are the same with the signs of the value's and μ's flipped. Against
// mpmath (vonmises_cdf_test.go) the log probabilities are within 1e-13 and
// the partials within 1e-11 for κ from 1e-8 to 1e5. Above κ ≈ 1e16 the
// quadrature's narrowest piece (1e-17 of its range) is wider than the
// integrand's width 1/κ, and the results lose digits (NaN past 1e22).

// vonMisesLogCDF is VonMises(mu, kappa)'s log CDF or log survival function.
func vonMisesLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	switch {
	case x < -math.Pi:
		return belowSupport(dp, upper)
	case x > math.Pi:
		return aboveSupport(dp, upper)
	}
	k := p[1]
	// μ wrapped to m in [−π, π], by turns of π's 2π rather than float64's
	// and kept as hi + lo, so that distances from it keep their digits
	n := math.Round(p[0] / (2 * math.Pi))
	m := vmPoint{math.FMA(-n, 2*math.Pi, p[0]), -n * 2 * piLo}
	l0, _, oma := logBesselI0(k)
	lnorm := ln2Pi + l0 // log of 2π·I₀(κ)e^(−κ)
	lower, at, upperEnd := vmPoint{-math.Pi, -piLo}, vmPoint{x, 0}, vmPoint{math.Pi, piLo}
	t1, t2 := lower, at
	if upper {
		t1, t2 = at, upperEnd
	}
	top, lsum, jr := vmTail(t1.sub(m), t2.sub(m), k)
	lp := top + lsum - lnorm
	dk := oma - 2*jr
	// rel returns log(q/P) for a density q = e^(lq)/(2π·I₀(κ)e^(−κ)): as
	// (lq − top) − lsum, where lq and top are the same −2κ·sin²(u/2) of
	// 1e5 when the value is the tail's end nearest the mode, and cancel
	// exactly.
	rel := func(lq float64) float64 { return (lq - top) - lsum }
	if lp > -math.Ln2 { // the other tail is the smaller
		o1, o2 := at, upperEnd
		if upper {
			o1, o2 = lower, at
		}
		otop, osum, jro := vmTail(o1.sub(m), o2.sub(m), k)
		lo := otop + osum - lnorm
		lp = Log1mexp(-lo)
		dk = -math.Exp(lo-lp) * (oma - 2*jro)
		rel = func(lq float64) float64 { return lq - lnorm - lp }
	}
	// the log densities at x and at the end e = ±π the tail starts from,
	// and their difference −2κ(sin²((e − m)/2) − sin²((x − m)/2)) =
	// −2κ·sin((e − x)/2)·sin((e + x)/2 − m), in which
	// |sin((e − x)/2)| = sin((x + π)/2) = sin((π − x)/2), whichever
	// argument is the smaller
	lpd := func(d vmPoint) float64 {
		s := math.Sin(0.5 * d.val())
		return -2 * k * s * s
	}
	e := lower
	if upper {
		e = upperEnd
	}
	lpx, lpe := lpd(at.sub(m)), lpd(e.sub(m))
	lw, uw := (x+math.Pi)+piLo, (math.Pi-x)+piLo
	sw := math.Sin(0.5 * math.Min(lw, uw))
	delta := 2 * k * sw * math.Sin((-0.5*uw-m.hi)-m.lo) // e = −π
	if upper {
		delta = -2 * k * sw * math.Sin((0.5*lw-m.hi)-m.lo) // e = π
	}
	h := math.Exp(rel(lpx))     // p(x)/P
	dm := h * math.Expm1(delta) // (p(e) − p(x))/P
	if delta > 0 {              // p(x)/P may have underflowed where p(e)/P has not
		dm = -math.Exp(rel(lpe)) * math.Expm1(-delta)
	}
	dx := h
	if upper {
		dx, dm = -h, -dm
	}
	dp[0] = dm
	dp[1] = dk
	return lp, dx
}

// vmTail returns log ∫ exp(−2κ·sin²(δ/2)) dδ over [d1, d2], δ the
// difference t − m of a value from the wrapped location (in [−2π, 2π]),
// as top + lsum, top the largest −2κ·sin²(δ/2) at the pieces' nearer ends,
// and J/I, the mean of sin²(δ/2) under the integrand. The mode δ = 0 and
// the antimodes ±π cut it into pieces on each of which the distance u
// around the circle from the mode (δ, −δ, 2π − δ or 2π + δ) is monotone.
func vmTail(d1, d2 vmPoint, k float64) (top, lsum, jr float64) {
	cuts := [4]vmPoint{d1}
	n := 1
	for _, c := range [3]vmPoint{{-math.Pi, -piLo}, {}, {math.Pi, piLo}} {
		if c.sub(d1).val() > 0 && d2.sub(c).val() > 0 {
			cuts[n] = c
			n++
		}
	}
	cuts[n] = d2
	var lfs, is, js [3]float64
	top = math.Inf(-1)
	for i := range n {
		a, b := cuts[i], cuts[i+1]
		w := b.sub(a).val()
		var u1 float64 // the distance from the mode at the piece's nearer end
		switch mid := 0.5 * (a.val() + b.val()); {
		case mid >= math.Pi:
			u1 = vmPoint{2 * math.Pi, 2 * piLo}.sub(b).val()
		case mid >= 0:
			u1 = a.val()
		case mid >= -math.Pi:
			u1 = -b.val()
		default:
			u1 = vmPoint{2 * math.Pi, 2 * piLo}.add(a).val()
		}
		s1 := math.Sin(0.5 * u1)
		lfs[i] = -2 * k * s1 * s1
		h0 := 0.25 / (k*math.Sin(u1) + math.Sqrt(2*k) + 1/w)
		is[i], js[i] = gradedIntegral(func(v float64) (float64, float64) {
			g := math.Exp(-2 * k * math.Sin(0.5*v) * math.Sin(u1+0.5*v))
			s := math.Sin(0.5 * (u1 + v))
			return g, g * s * s
		}, w, h0, w)
		if is[i] > 0 {
			top = math.Max(top, lfs[i])
		}
	}
	var si, sj float64
	for i := range n {
		if is[i] > 0 {
			e := math.Exp(lfs[i] - top)
			si += e * is[i]
			sj += e * js[i]
		}
	}
	return top, math.Log(si), sj / si
}

// piLo is π − math.Pi.
const piLo = 1.2246467991473531772e-16

// vmPoint is a point on the real line as hi + lo, the ends ±π and the
// wrapped location to more than float64's digits, and differences of
// them exactly.
type vmPoint struct{ hi, lo float64 }

func (a vmPoint) sub(b vmPoint) vmPoint {
	s, e := twoSum(a.hi, -b.hi)
	return vmPoint{s, e + (a.lo - b.lo)}
}

func (a vmPoint) add(b vmPoint) vmPoint {
	s, e := twoSum(a.hi, b.hi)
	return vmPoint{s, e + (a.lo + b.lo)}
}

func (a vmPoint) val() float64 { return a.hi + a.lo }
