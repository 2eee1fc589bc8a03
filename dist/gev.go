package dist

import (
	"math"
	"math/rand/v2"
)

// The generalized extreme value and generalized Pareto families share the
// reduced variable L = log1p(ξz)/ξ for z = (y − μ)/σ, which is z at ξ = 0:
// the GEV's CDF is exp(−e^(−L)) and the GPD's survival e^(−L). Written in
// L, both densities and their partials pass through ξ = 0 (Gumbel,
// Exponential) without a branch in the formula and without the 0/0 of
// (1 + 1/ξ)·log t at a tiny ξ.

// gevReduced returns L = log1p(u)/ξ and ∂L/∂ξ = z²·h(u) for u = ξz > −1.
func gevReduced(z, xi float64) (l, dxi float64) {
	u := xi * z
	if math.Abs(u) < 1e-5 {
		// log1p(u)/u = 1 − u/2 + u²/3 − u³/4 + …: also where ξ is subnormal
		// and u/ξ would keep few of z's bits
		l = z * (1 + u*(-0.5+u*(1.0/3-u*0.25)))
	} else {
		l = math.Log1p(u) / xi
	}
	return l, z * z * log1pSlope(u)
}

// log1pSlope returns h(u) = (u/(1 + u) − log1p(u))/u², −1/2 at u = 0,
// from its series −1/2 + 2u/3 − 3u²/4 + … near 0, where the difference
// cancels.
func log1pSlope(u float64) float64 {
	if math.Abs(u) < 0.05 {
		// Σ_{k≥2} (−1)^(k+1)·(k−1)/k·u^(k−2); |u|^13 < 1.3e-17
		s, p := 0.0, 1.0
		for k := 2; k <= 15; k++ {
			c := float64(k-1) / float64(k)
			if k%2 == 0 {
				c = -c
			}
			s += c * p
			p *= u
		}
		return s
	}
	return (u/(1+u) - math.Log1p(u)) / (u * u)
}

// expm1Over returns expm1(ξa)/ξ, a at ξ = 0: the inverse of L (z from L).
func expm1Over(a, xi float64) float64 {
	if v := xi * a; math.Abs(v) < 1e-5 {
		return a * (1 + v*(0.5+v*(1.0/6+v/24))) // expm1(v)/v's series
	}
	return math.Expm1(xi*a) / xi
}

// GEV is the generalized extreme value distribution with location Mu, scale
// Sigma > 0 and shape Xi (scipy's genextreme with c = −ξ): with
// z = (y − μ)/σ, t = 1 + ξz and L = log1p(ξz)/ξ,
//
//	log p(y) = −log σ − (1 + ξ)·L − e^(−L),  t > 0,
//
// Gumbel at ξ = 0, Fréchet-like (bounded below by μ − σ/ξ) for ξ > 0 and
// Weibull-like (bounded above by μ − σ/ξ) for ξ < 0. The support depends on
// all three arguments: the registry declares it Real and the log density is
// −Inf outside it.
type GEV struct {
	Mu, Sigma, Xi float64
}

// LogProb returns the log density at y.
func (d GEV) LogProb(y float64) float64 {
	lp, _ := d.eval(y, nil)
	return lp
}

// Score writes the partials of LogProb(y) with respect to (Mu, Sigma, Xi)
// into dst (allocated if nil) and returns it.
func (d GEV) Score(dst []float64, y float64) []float64 {
	dst = scoreDst(dst, 3)
	d.eval(y, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to y.
func (d GEV) ScoreInput(y float64) float64 {
	_, dx := d.eval(y, nil)
	return dx
}

// Rand returns a draw by inversion: Mu + Sigma·expm1(−Xi·log E)/Xi for E ~
// Exponential(1) (Mu − Sigma·log E at Xi = 0).
func (d GEV) Rand(rng *rand.Rand) float64 {
	return d.Mu + d.Sigma*expm1Over(-math.Log(rng.ExpFloat64()), d.Xi)
}

// Mean returns Mu + Sigma·(Γ(1 − Xi) − 1)/Xi for Xi < 1 (Mu + γ·Sigma at
// 0) and +Inf otherwise.
func (d GEV) Mean() float64 {
	xi := d.Xi
	switch {
	case !(xi < 1):
		return math.Inf(1)
	case math.Abs(xi) < 1e-200: // 0 but for far less than an ulp; a subnormal ξ keeps few bits
		return d.Mu + eulerGamma*d.Sigma
	}
	return d.Mu + d.Sigma*math.Expm1(lgamma1p(-xi))/xi
}

// Variance returns Sigma²·(Γ(1 − 2Xi) − Γ(1 − Xi)²)/Xi² for Xi < 1/2
// (π²·Sigma²/6 at 0) and +Inf otherwise.
func (d GEV) Variance() float64 {
	xi, s2 := d.Xi, d.Sigma*d.Sigma
	switch {
	case !(xi < 0.5):
		return math.Inf(1)
	case math.Abs(xi) < 1e-200:
		return s2 * (math.Pi * math.Pi / 6)
	}
	// Γ(1 − 2ξ) − Γ(1 − ξ)² = Γ(1 − ξ)²·expm1(q), q = lgΓ(1 − 2ξ) − 2·lgΓ(1 − ξ),
	// neither rounding 1 − ξ (lgamma1p) nor cancelling in q (lgammaDiff2)
	return s2 * math.Exp(2*lgamma1p(-xi)) * math.Expm1(lgammaDiff2(-xi)) / (xi * xi)
}

// gevArgs reports whether (μ, σ, ξ) are valid arguments of GEV or
// GeneralizedPareto.
func gevArgs(mu, s, xi float64) bool { return finite(mu) && positive(s) && finite(xi) }

// gevEnds returns GEV(μ, σ, ξ)'s support ends: [μ − σ/ξ, ∞) for ξ > 0,
// (−∞, μ − σ/ξ] for ξ < 0, the real line at ξ = 0.
func gevEnds(p []float64) (lo, hi float64) {
	lo, hi = math.Inf(-1), math.Inf(1)
	switch mu, s, xi := p[0], p[1], p[2]; {
	case xi > 0:
		lo = mu - s/xi
	case xi < 0:
		hi = mu - s/xi
	}
	return lo, hi
}

func (d GEV) eval(y float64, dp []float64) (float64, float64) {
	mu, s, xi := d.Mu, d.Sigma, d.Xi
	if !gevArgs(mu, s, xi) || math.IsNaN(y) {
		return invalid(dp)
	}
	if math.IsInf(y, 0) {
		return outside(dp)
	}
	z := (y - mu) / s
	t := 1 + xi*z
	if !(t > 0) {
		return outside(dp)
	}
	l, dl := gevReduced(z, xi)
	w := math.Exp(-l)
	if math.IsInf(w, 1) {
		return outside(dp) // the density underflows
	}
	gz := gevPartials(w-(1+xi), l, dl, z, t, s, dp) // ∂lp/∂L = e^(−L) − (1 + ξ)
	return densityOrOutside(-logx(s)-(1+xi)*l-w, gz/s, dp)
}

// gevPartials writes to dp (if not nil) the partials in μ, σ, ξ of a log
// density of GEV's or GeneralizedPareto's whose partial in L is g, at z =
// (y − μ)/σ, t = 1 + ξz and L's partial dl in ξ; it returns ∂lp/∂z.
func gevPartials(g, l, dl, z, t, s float64, dp []float64) float64 {
	gz := g / t
	if dp != nil {
		dp[0] = -gz / s
		dp[1] = -(1 + gz*z) / s
		dp[2] = -l + g*dl
	}
	return gz
}

// gevLogCDF is GEV(μ, σ, ξ): log P(Y ≤ y) = −e^(−L), log P(Y > y) =
// log(1 − exp(−e^(−L))), Gumbel's in L.
func gevLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	mu, s, xi := p[0], p[1], p[2]
	z := (x - mu) / s
	t := 1 + xi*z
	if !(t > 0) {
		if xi > 0 {
			return belowSupport(dp, upper)
		}
		return aboveSupport(dp, upper)
	}
	l, dl := gevReduced(z, xi)
	w := math.Exp(-l)
	var lp, g float64 // g = ∂lp/∂L
	switch {
	case !upper:
		if math.IsInf(w, 1) {
			return outside(dp)
		}
		lp, g = -w, w
	case math.IsInf(w, 1):
		clear(dp)
		return 0, 0
	case w == 0: // log(1 − exp(−w)) = log w to all digits
		lp, g = -l, -1
	default:
		lp, g = Log1mexp(w), -w/math.Expm1(w)
	}
	gz := g / t
	dp[0] = -gz / s
	dp[1] = -gz * z / s
	dp[2] = g * dl
	return lp, gz / s
}

// GeneralizedPareto is the generalized Pareto distribution with location
// Mu, scale Sigma > 0 and shape Xi (scipy's genpareto with c = ξ, loc μ,
// scale σ), the law of exceedances over a high threshold μ: with
// z = (y − μ)/σ and L = log1p(ξz)/ξ,
//
//	log p(y) = −log σ − (1 + ξ)·L,  y ≥ μ, and y ≤ μ − σ/ξ for ξ < 0,
//
// Exponential(1/σ) above μ at ξ = 0. The registry declares its support Real
// from the argument Mu (as ParetoType2's); the upper end at ξ < 0 is the
// log density's −Inf.
type GeneralizedPareto struct {
	Mu, Sigma, Xi float64
}

// LogProb returns the log density at y.
func (d GeneralizedPareto) LogProb(y float64) float64 {
	lp, _ := d.eval(y, nil)
	return lp
}

// Score writes the partials of LogProb(y) with respect to (Mu, Sigma, Xi)
// into dst (allocated if nil) and returns it.
func (d GeneralizedPareto) Score(dst []float64, y float64) []float64 {
	dst = scoreDst(dst, 3)
	d.eval(y, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to y.
func (d GeneralizedPareto) ScoreInput(y float64) float64 {
	_, dx := d.eval(y, nil)
	return dx
}

// Rand returns a draw by inversion: Mu + Sigma·expm1(Xi·E)/Xi for E ~
// Exponential(1) (Mu + Sigma·E at Xi = 0).
func (d GeneralizedPareto) Rand(rng *rand.Rand) float64 {
	return d.Mu + d.Sigma*expm1Over(rng.ExpFloat64(), d.Xi)
}

// Mean returns Mu + Sigma/(1 − Xi) for Xi < 1 and +Inf otherwise.
func (d GeneralizedPareto) Mean() float64 {
	if d.Xi < 1 {
		return d.Mu + d.Sigma/(1-d.Xi)
	}
	return math.Inf(1)
}

// Variance returns Sigma²/((1 − Xi)²·(1 − 2Xi)) for Xi < 1/2 and +Inf
// otherwise.
func (d GeneralizedPareto) Variance() float64 {
	if xi := d.Xi; xi < 0.5 {
		return d.Sigma * d.Sigma / ((1 - xi) * (1 - xi) * (1 - 2*xi))
	}
	return math.Inf(1)
}

// generalizedParetoEnds returns GeneralizedPareto(μ, σ, ξ)'s support
// ends: [μ, ∞), or [μ, μ − σ/ξ] for ξ < 0.
func generalizedParetoEnds(p []float64) (lo, hi float64) {
	lo, hi = p[0], math.Inf(1)
	if xi := p[2]; xi < 0 {
		hi = p[0] - p[1]/xi
	}
	return lo, hi
}

func (d GeneralizedPareto) eval(y float64, dp []float64) (float64, float64) {
	mu, s, xi := d.Mu, d.Sigma, d.Xi
	if !gevArgs(mu, s, xi) || math.IsNaN(y) {
		return invalid(dp)
	}
	if !(y >= mu) || math.IsInf(y, 1) {
		return outside(dp)
	}
	z := (y - mu) / s
	t := 1 + xi*z
	if !(t > 0) {
		return outside(dp)
	}
	l, dl := gevReduced(z, xi)
	gz := gevPartials(-(1 + xi), l, dl, z, t, s, dp)
	return densityOrOutside(-logx(s)-(1+xi)*l, gz/s, dp)
}

// generalizedParetoLogCDF is GeneralizedPareto(μ, σ, ξ): P(Y > y) = e^(−L).
func generalizedParetoLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	mu, s, xi := p[0], p[1], p[2]
	if !(x > mu) {
		return belowSupport(dp, upper)
	}
	z := (x - mu) / s
	t := 1 + xi*z
	if !(t > 0) {
		return aboveSupport(dp, upper)
	}
	l, dl := gevReduced(z, xi)
	lp, g := survivalOf(l, upper)
	gz := g / t
	dp[0] = -gz / s
	dp[1] = -gz * z / s
	dp[2] = g * dl
	return lp, gz / s
}
