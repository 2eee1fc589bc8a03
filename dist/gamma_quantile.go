package dist

import "math"

// The gamma quantile, solved in log space. gonum's GammaIncRegInv returns 0
// or a value orders of magnitude off whenever the true quantile is below about
// 1e-13 (a quarter of all levels at a = 0.01; see TestGonumGammaIncRegInvFails),
// so the package has its own.
//
// Newton's method runs on t = log x. The lower tail (u ≤ ½) solves
// log P(a, eᵗ) = log u and the upper tail log Q(a, eᵗ) = log(1−u). The
// log-gamma variable has a log-concave density, so log P and log Q are
// concave in t, and Newton converges from any start: after at most one step
// the iterates approach the root monotonically. Each function is evaluated in
// the form that keeps its relative accuracy (P by its series, Q by its
// continued fraction or, for a < 1 and x ≤ 1, by an alternating series), so
// nothing underflows.

// quantileMaxIter bounds the Newton iterations; 4 to 8 are typical.
const quantileMaxIter = 100

// GammaLogQuantile returns log x for the quantile x of Gamma(a, 1) at CDF
// level u: the t with P(a, eᵗ) = u. It is accurate to a few units in the
// last place of t over a in [1e-6, 1e5] and u in [1e-300, 1−1e-16], also
// where x itself underflows. u = 0 gives −Inf, u = 1 gives +Inf; invalid
// input (a ≤ 0 or not finite, u outside [0, 1] or NaN) gives NaN.
func GammaLogQuantile(a, u float64) float64 {
	switch {
	case !(a > 0) || math.IsInf(a, 1) || !(u >= 0 && u <= 1):
		return math.NaN()
	case u == 0:
		return math.Inf(-1)
	case u == 1:
		return math.Inf(1)
	}
	lga, lga1 := lgammaPair(a)
	return gammaLogQuantile(a, u, lga, lga1)
}

// gammaLogQuantile is GammaLogQuantile for u in (0, 1), given
// lga = log Γ(a) and lga1 = log Γ(a+1).
func gammaLogQuantile(a, u, lga, lga1 float64) float64 {
	t0 := (math.Log(u) + lga1) / a // small-shape formula; a lower bound
	// Wilson–Hilferty: x ≈ a·(1 − 1/(9a) + z/(3√a))³, z the normal quantile.
	z := -math.Sqrt2 * math.Erfcinv(2*u)
	if base := 1 - 1/(9*a) + z/(3*math.Sqrt(a)); base > 0 {
		t0 = math.Max(t0, math.Log(a)+3*math.Log(base))
	}
	return gammaLogQuantileFrom(a, u, t0, lga, lga1)
}

// lgammaPair returns log Γ(a) and log Γ(a+1), both accurate in absolute
// terms for small a (see lgamma1p).
func lgammaPair(a float64) (lga, lga1 float64) {
	if a < 0.5 {
		lga1 = lgamma1p(a)
		return lga1 - math.Log(a), lga1
	}
	lga, _ = math.Lgamma(a)
	lga1, _ = math.Lgamma(a + 1)
	return lga, lga1
}

// gammaLogQuantileFrom runs Newton from t; lga = log Γ(a), lga1 = log Γ(a+1).
func gammaLogQuantileFrom(a, u, t, lga, lga1 float64) float64 {
	lower := u <= 0.5
	var target float64
	if lower {
		target = math.Log(u)
	} else {
		target = math.Log(1 - u) // exact subtraction for u ≥ ½
	}
	prev := math.Inf(1)
	for i := 0; i < quantileMaxIter; i++ {
		f, df := gammaLogCDF(a, t, lower, lga, lga1)
		step := (f - target) / df
		// Guard against a derivative that underflowed far from the root.
		if lim := 1 + math.Abs(t); !(math.Abs(step) <= lim) {
			if math.IsNaN(step) {
				return math.NaN()
			}
			step = math.Copysign(lim, step)
		}
		t -= step
		s := math.Abs(step)
		scale := math.Max(1, math.Abs(t))
		// Stop at a few ulps, or when the steps stop shrinking at the
		// rounding-noise level of f.
		if s <= 1e-15*scale || (s < 1e-9*scale && s >= 0.5*prev) {
			break
		}
		prev = s
	}
	return t
}

// GammaLogCDF returns log P(a, x), the log of the regularised lower
// incomplete gamma function (the CDF of Gamma(a, 1) at x), or with upper
// log Q(a, x) = log(1 − P(a, x)). Each keeps its relative accuracy where it
// is tiny, where mathext's GammaIncReg and GammaIncRegComp underflow to 0
// (log Q(2, 800) = −793.31). Invalid input (a ≤ 0 or not finite, x < 0 or
// NaN) gives NaN.
func GammaLogCDF(a, x float64, upper bool) float64 {
	switch {
	case !(a > 0) || math.IsInf(a, 1) || !(x >= 0):
		return math.NaN()
	case x == 0 && upper, math.IsInf(x, 1) && !upper:
		return 0
	case x == 0, math.IsInf(x, 1):
		return math.Inf(-1)
	}
	lga, lga1 := lgammaPair(a)
	f, _ := gammaLogCDF(a, math.Log(x), !upper, lga, lga1)
	return f
}

// gammaLogCDF returns log P(a, eᵗ) (lower) or log Q(a, eᵗ) (upper) and its
// derivative with respect to t.
func gammaLogCDF(a, t float64, lower bool, lga, lga1 float64) (f, df float64) {
	x := math.Exp(t)
	logxp := logGammaPrefix(a, t, x, lga) // log(x·p(x))
	if useCDFSeries(a, x) {
		s, _ := gammaSeries(a, x)
		var logP float64
		if a < stirlingMin {
			logP = a*t - x - lga1 + math.Log(s)
		} else {
			logP = logxp - math.Log(a) + math.Log(s)
		}
		if lower {
			return logP, a / s // x·p(x)/P = a/S
		}
		// log(1 − P) through log1p where P is small: log(1 − P) would keep
		// only its absolute accuracy (log Q(3, 1e-5) is −1.7e-16).
		logQ := Log1mexp(-logP)
		if a < 1 && x <= 1 {
			logQ = math.Log(gammaQSmall(a, x, t, lga1))
		}
		return logQ, -math.Exp(logxp - logQ)
	}
	c, _ := gammaCF(a, x)
	logQ := logxp + math.Log(c)
	if !lower {
		return logQ, -1 / c // x·p(x)/Q = 1/C
	}
	logP := Log1mexp(-logQ)
	return logP, math.Exp(logxp - logP)
}

// gammaQSmall returns Q(a, x) for a < 1 and x ≤ 1 without forming 1 − P,
// which would lose all accuracy as Q → 0 (Q(1e-6, 1) ≈ 2e-7). From
// P = x^a/Γ(a+1)·[1 + a·Σ_{n≥1} (−x)ⁿ/(n!(a+n))],
// Q = −expm1(a·log x − log Γ(a+1)) − x^a/Γ(a+1)·a·Σ_{n≥1} (−x)ⁿ/(n!(a+n)).
func gammaQSmall(a, x, t, lga1 float64) float64 {
	var sum float64
	term := 1.0 // (−x)ⁿ/n!
	for n := 1; n < 60; n++ {
		term *= -x / float64(n)
		c := term / (a + float64(n))
		sum += c
		if math.Abs(c) <= 1e-17*math.Abs(sum) {
			break
		}
	}
	e := a*t - lga1
	return -math.Expm1(e) - math.Exp(e)*a*sum
}

// stirlingMin is the shape from which logGammaPrefix uses Stirling's series.
const stirlingMin = 10

// logGammaPrefix returns log(x^a e^(−x)/Γ(a)) = log(x·p(x; a)) at t = log x,
// x = eᵗ, given lga = log Γ(a). For a ≥ stirlingMin the plain sum
// a·t − x − log Γ(a) cancels terms of size a·|t| (rounding error 1e-16·a·|t|),
// so it is rearranged around x = a with d = t − log a:
// −a·(e^d − 1 − d) + ½·log(a/2π) − (log Γ(a) − Stirling's leading terms).
func logGammaPrefix(a, t, x, lga float64) float64 {
	if a < stirlingMin {
		return a*t - x - lga
	}
	d := t - math.Log(a)
	if r := x / a; r > 1e-300 && r < 1e300 {
		d = math.Log(r) // within an ulp or two of log(x/a); t − log a is off by ulps of t, which a·eᵈ magnifies
	}
	return -a*expm1mx(d) + 0.5*math.Log(a/(2*math.Pi)) - stirlingCorr(a)
}

// expm1mx returns e^d − 1 − d without cancellation for small |d|.
func expm1mx(d float64) float64 {
	if math.Abs(d) >= 0.5 {
		return math.Expm1(d) - d
	}
	// d²/2! + d³/3! + …; |d| < ½ needs at most 17 terms for 1e-17.
	term := d * d / 2
	sum := term
	for k := 3; k < 30; k++ {
		term *= d / float64(k)
		sum += term
		if math.Abs(term) <= 1e-17*sum {
			break
		}
	}
	return sum
}

// stirlingCorr returns log Γ(a) − [(a−½)·log a − a + ½·log 2π] for
// a ≥ stirlingMin: Σ B₂ₖ/(2k(2k−1)·a²ᵏ⁻¹), k = 1..8 (the first omitted term
// is below 2e-18 at a = 10).
func stirlingCorr(a float64) float64 {
	r := 1 / a
	r2 := r * r
	return r * (1.0/12 + r2*(-1.0/360+r2*(1.0/1260+r2*(-1.0/1680+r2*(1.0/1188+
		r2*(-691.0/360360+r2*(1.0/156+r2*(-3617.0/122400))))))))
}
