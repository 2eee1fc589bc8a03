package dist

import (
	"math"
	"math/rand/v2"
)

// Rayleigh is the Rayleigh distribution with scale Sigma > 0 (Stan's
// rayleigh), the length of a 2-vector of independent Normal(0, σ)s:
//
//	log p(x) = log x − 2·log σ − x²/(2σ²),  x > 0.
type Rayleigh struct {
	Sigma float64
}

// LogProb returns the log density at x.
func (d Rayleigh) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partial of LogProb(x) with respect to Sigma into dst
// (allocated if nil) and returns it.
func (d Rayleigh) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 1)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x.
func (d Rayleigh) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns a draw by inversion: Sigma·√(2E) for E ~ Exponential(1).
func (d Rayleigh) Rand(rng *rand.Rand) float64 {
	return d.Sigma * math.Sqrt(2*rng.ExpFloat64())
}

// Mean returns Sigma·√(π/2).
func (d Rayleigh) Mean() float64 { return d.Sigma * math.Sqrt(math.Pi/2) }

// Variance returns (4 − π)/2·Sigma².
func (d Rayleigh) Variance() float64 { return (4 - math.Pi) / 2 * d.Sigma * d.Sigma }

func (d Rayleigh) eval(x float64, dp []float64) (float64, float64) {
	s := d.Sigma
	if !positive(s) || math.IsNaN(x) {
		return invalid(dp)
	}
	if !(x > 0) || math.IsInf(x, 1) {
		return outside(dp)
	}
	r := x / s
	if dp != nil {
		dp[0] = (r*r - 2) / s
	}
	// log x − 2 log σ = log r − log σ, with r = x/σ normal or not
	var lr float64
	if r >= 0x1p-1022 && r <= math.MaxFloat64 {
		lr = math.Log(r)
	} else {
		lr = logx(x) - logx(s)
	}
	return densityOrOutside(lr-logx(s)-0.5*r*r, 1/x-r/s, dp)
}

// rayleighLogCDF is Rayleigh(σ): P(X > x) = e^(−t) for t = (x/σ)²/2.
func rayleighLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	if x <= 0 {
		return belowSupport(dp, upper)
	}
	s := p[0]
	r := x / s
	t := 0.5 * r * r
	lp, g := survivalOf(t, upper)
	dp[0] = -g * r * r / s
	return lp, g * r / s
}

// Frechet is the Fréchet (type II extreme value) distribution with shape
// Alpha > 0 and scale Sigma > 0 (Stan's frechet(alpha, sigma)): with
// u = log(x/σ) and w = (x/σ)^(−α) = e^(−αu),
//
//	log p(x) = log α − log σ − (1 + α)·u − w,  x > 0.
//
// 1/X is Weibull(α, 1/σ).
type Frechet struct {
	Alpha, Sigma float64
}

// LogProb returns the log density at x.
func (d Frechet) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partials of LogProb(x) with respect to (Alpha, Sigma)
// into dst (allocated if nil) and returns it.
func (d Frechet) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 2)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x.
func (d Frechet) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns a draw by inversion: Sigma·E^(−1/Alpha) for E ~
// Exponential(1).
func (d Frechet) Rand(rng *rand.Rand) float64 {
	e := rng.ExpFloat64()
	x := d.Sigma * math.Pow(e, -1/d.Alpha)
	if x == 0 || math.IsInf(x, 1) {
		x = math.Exp(logx(d.Sigma) - logx(e)/d.Alpha)
	}
	return x
}

// Mean returns Sigma·Γ(1 − 1/Alpha) for Alpha > 1 and +Inf otherwise.
func (d Frechet) Mean() float64 {
	if d.Alpha > 1 {
		return d.Sigma * math.Gamma(1-1/d.Alpha)
	}
	return math.Inf(1)
}

// Variance returns Sigma²·[Γ(1 − 2/Alpha) − Γ(1 − 1/Alpha)²] for
// Alpha > 2 and +Inf otherwise.
func (d Frechet) Variance() float64 {
	if d.Alpha > 2 {
		g1 := math.Gamma(1 - 1/d.Alpha)
		return d.Sigma * d.Sigma * (math.Gamma(1-2/d.Alpha) - g1*g1)
	}
	return math.Inf(1)
}

// logRatioPos returns log(x/s) for x, s > 0: one logarithm of the quotient
// where it is a normal float64, else the difference of two.
func logRatioPos(x, s float64) float64 {
	if q := x / s; q >= 0x1p-1022 && q <= math.MaxFloat64 {
		return math.Log(q)
	}
	return logx(x) - logx(s)
}

func (d Frechet) eval(x float64, dp []float64) (float64, float64) {
	a, s := d.Alpha, d.Sigma
	if !positive(a) || !positive(s) || math.IsNaN(x) {
		return invalid(dp)
	}
	if !(x > 0) || math.IsInf(x, 1) {
		return outside(dp)
	}
	u := logRatioPos(x, s)
	t := -a * u
	var w, wm1 float64 // w and w − 1
	if math.Abs(t) < 0.5 {
		wm1 = math.Expm1(t)
		w = 1 + wm1
	} else {
		w = math.Exp(t)
		wm1 = w - 1
	}
	if math.IsInf(w, 1) {
		return outside(dp) // the density underflows
	}
	if dp != nil {
		dp[0] = 1/a + u*wm1
		dp[1] = -a * wm1 / s
	}
	return densityOrOutside(logx(a)-logx(s)-(1+a)*u-w, (a*wm1-1)/x, dp)
}

// frechetLogCDF is Frechet(α, σ): log P(X ≤ x) = −w, log P(X > x) =
// log(1 − e^(−w)), for w = (x/σ)^(−α).
func frechetLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	if x <= 0 {
		return belowSupport(dp, upper)
	}
	a, s := p[0], p[1]
	u := logRatioPos(x, s)
	w := math.Exp(-a * u)
	var lp, gw float64 // gw = ∂lp/∂log w
	switch {
	case !upper:
		if math.IsInf(w, 1) {
			return outside(dp)
		}
		lp, gw = -w, -w
	case math.IsInf(w, 1):
		clear(dp)
		return 0, 0
	case w == 0: // log(1 − e^(−w)) = log w to all digits
		lp, gw = -a*u, 1
	default:
		lp, gw = Log1mexp(w), w/math.Expm1(w)
	}
	// log w = −α·u: ∂/∂α = −u, ∂/∂σ = α/σ, ∂/∂x = −α/x
	dp[0] = -gw * u
	dp[1] = gw * a / s
	return lp, -gw * a / x
}

// LogLogistic is the log-logistic distribution with scale Alpha > 0 and
// shape Beta > 0 (Stan's loglogistic(alpha, beta)): log X is
// Logistic(log α, 1/β); with u = log(x/α) and t = β·u,
//
//	log p(x) = log β − log α + (β − 1)·u − 2·softplus(t),  x > 0.
type LogLogistic struct {
	Alpha, Beta float64
}

// LogProb returns the log density at x.
func (d LogLogistic) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partials of LogProb(x) with respect to (Alpha, Beta)
// into dst (allocated if nil) and returns it.
func (d LogLogistic) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 2)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x.
func (d LogLogistic) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns a draw by inversion: Alpha·exp(logit(U)/Beta).
func (d LogLogistic) Rand(rng *rand.Rand) float64 {
	u := openUnit(rng)
	return d.Alpha * math.Exp((math.Log(u)-math.Log1p(-u))/d.Beta)
}

// Mean returns Alpha·b/sin(b) for b = π/Beta, Beta > 1, and +Inf
// otherwise.
func (d LogLogistic) Mean() float64 {
	if d.Beta > 1 {
		b := math.Pi / d.Beta
		return d.Alpha * b / math.Sin(b)
	}
	return math.Inf(1)
}

// Variance returns Alpha²·(2b/sin 2b − b²/sin² b) for b = π/Beta, Beta > 2,
// and +Inf otherwise.
func (d LogLogistic) Variance() float64 {
	if d.Beta > 2 {
		b := math.Pi / d.Beta
		sb := math.Sin(b)
		return d.Alpha * d.Alpha * (2*b/math.Sin(2*b) - b*b/(sb*sb))
	}
	return math.Inf(1)
}

func (d LogLogistic) eval(x float64, dp []float64) (float64, float64) {
	a, b := d.Alpha, d.Beta
	if !positive(a) || !positive(b) || math.IsNaN(x) {
		return invalid(dp)
	}
	if !(x > 0) || math.IsInf(x, 1) {
		return outside(dp)
	}
	u := logRatioPos(x, a)
	t := b * u
	th := math.Tanh(t / 2) // 2·InvLogit(t) − 1
	if dp != nil {
		dp[0] = b * th / a
		dp[1] = 1/b - u*th
	}
	// ∂/∂log x = β − 1 − 2β·InvLogit(t) = −1 − β·tanh(t/2)
	return densityOrOutside(logx(b)-logx(a)+(b-1)*u-2*Softplus(t), (-1-b*th)/x, dp)
}

// logLogisticLogCDF is LogLogistic(α, β): log P(X > x) = −softplus(t) for
// t = β·log(x/α) (the lower tail at −t).
func logLogisticLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	if x <= 0 {
		return belowSupport(dp, upper)
	}
	a, b := p[0], p[1]
	u := logRatioPos(x, a)
	sgn := sign(upper)
	w := sgn * b * u
	lp, g := -Softplus(w), -InvLogit(w) // g = ∂lp/∂w
	gs := g * sgn                       // ∂lp/∂(β·u)
	dp[0] = -gs * b / a
	dp[1] = gs * u
	return lp, gs * b / x
}
