package dist

import (
	"math"
	"math/rand/v2"
)

// Pareto is the Pareto distribution with minimum YMin > 0 and shape
// Alpha > 0 (Stan's pareto(y_min, alpha)):
//
//	log p(y) = log α + α·log y_min − (α + 1)·log y,  y ≥ y_min.
//
// Its support starts at an argument, which gpp's supports do not express:
// the registry declares it Positive and the log density is −Inf below
// y_min (with zero partials, as outside any support).
type Pareto struct {
	YMin, Alpha float64
}

// LogProb returns the log density at y.
func (d Pareto) LogProb(y float64) float64 {
	lp, _ := d.eval(y, nil)
	return lp
}

// Score writes the partials of LogProb(y) with respect to (YMin, Alpha)
// into dst (allocated if nil) and returns it.
func (d Pareto) Score(dst []float64, y float64) []float64 {
	dst = scoreDst(dst, 2)
	d.eval(y, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to y.
func (d Pareto) ScoreInput(y float64) float64 {
	_, dx := d.eval(y, nil)
	return dx
}

// Rand returns a draw by inversion: YMin·exp(E/Alpha) for E ~
// Exponential(1).
func (d Pareto) Rand(rng *rand.Rand) float64 {
	return d.YMin * math.Exp(rng.ExpFloat64()/d.Alpha)
}

// Mean returns Alpha·YMin/(Alpha − 1) for Alpha > 1 and +Inf otherwise.
func (d Pareto) Mean() float64 {
	if d.Alpha > 1 {
		return d.Alpha * d.YMin / (d.Alpha - 1)
	}
	return math.Inf(1)
}

// Variance returns YMin²·Alpha/((Alpha − 1)²·(Alpha − 2)) for Alpha > 2,
// +Inf otherwise.
func (d Pareto) Variance() float64 {
	a := d.Alpha
	if a > 2 {
		return d.YMin * d.YMin * a / ((a - 1) * (a - 1) * (a - 2))
	}
	return math.Inf(1)
}

func (d Pareto) eval(y float64, dp []float64) (float64, float64) {
	ym, a := d.YMin, d.Alpha
	if !positive(ym) || !positive(a) || math.IsNaN(y) {
		return invalid(dp)
	}
	if !(y >= ym) || math.IsInf(y, 1) {
		return outside(dp)
	}
	l := logQuot(y, ym) // log(y/y_min) ≥ 0
	if dp != nil {
		dp[0] = a / ym
		dp[1] = 1/a - l
	}
	return densityOrOutside(logx(a)-logx(ym)-(a+1)*l, -(a+1)/y, dp)
}

// paretoLogCDF is Pareto(y_min, α): P(Y > y) = e^(−t) for t = α·log(y/y_min).
func paretoLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	ym, a := p[0], p[1]
	if !(x > ym) {
		return belowSupport(dp, upper)
	}
	l := logQuot(x, ym)
	lp, g := survivalOf(a*l, upper)
	dp[0] = -g * a / ym
	dp[1] = g * l
	return lp, g * a / x
}

// ParetoType2 is the Pareto type II (Lomax) distribution with location
// Mu, scale Lambda > 0 and shape Alpha > 0 (Stan's pareto_type_2): with
// r = (y − μ)/λ,
//
//	log p(y) = log α − log λ − (α + 1)·log1p(r),  y ≥ μ.
//
// Its support starts at the argument Mu: the registry declares it Real
// and the log density is −Inf below Mu.
type ParetoType2 struct {
	Mu, Lambda, Alpha float64
}

// LogProb returns the log density at y.
func (d ParetoType2) LogProb(y float64) float64 {
	lp, _ := d.eval(y, nil)
	return lp
}

// Score writes the partials of LogProb(y) with respect to (Mu, Lambda,
// Alpha) into dst (allocated if nil) and returns it.
func (d ParetoType2) Score(dst []float64, y float64) []float64 {
	dst = scoreDst(dst, 3)
	d.eval(y, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to y.
func (d ParetoType2) ScoreInput(y float64) float64 {
	_, dx := d.eval(y, nil)
	return dx
}

// Rand returns a draw by inversion: Mu + Lambda·expm1(E/Alpha) for E ~
// Exponential(1).
func (d ParetoType2) Rand(rng *rand.Rand) float64 {
	return d.Mu + d.Lambda*math.Expm1(rng.ExpFloat64()/d.Alpha)
}

// Mean returns Mu + Lambda/(Alpha − 1) for Alpha > 1 and +Inf otherwise.
func (d ParetoType2) Mean() float64 {
	if d.Alpha > 1 {
		return d.Mu + d.Lambda/(d.Alpha-1)
	}
	return math.Inf(1)
}

// Variance returns Lambda²·Alpha/((Alpha − 1)²·(Alpha − 2)) for Alpha > 2,
// +Inf otherwise.
func (d ParetoType2) Variance() float64 {
	a := d.Alpha
	if a > 2 {
		return d.Lambda * d.Lambda * a / ((a - 1) * (a - 1) * (a - 2))
	}
	return math.Inf(1)
}

func (d ParetoType2) eval(y float64, dp []float64) (float64, float64) {
	mu, lam, a := d.Mu, d.Lambda, d.Alpha
	if !finite(mu) || !positive(lam) || !positive(a) || math.IsNaN(y) {
		return invalid(dp)
	}
	if !(y >= mu) || math.IsInf(y, 1) {
		return outside(dp)
	}
	r := (y - mu) / lam
	l := math.Log1p(r)
	h := 1 / (lam + (y - mu)) // 1/(λ(1 + r))
	if dp != nil {
		dp[0] = (a + 1) * h
		dp[1] = -1/lam + (a+1)*r*h
		dp[2] = 1/a - l
	}
	return densityOrOutside(logx(a)-logx(lam)-(a+1)*l, -(a+1)*h, dp)
}

// paretoType2LogCDF is ParetoType2(μ, λ, α): P(Y > y) = e^(−t) for
// t = α·log1p((y − μ)/λ).
func paretoType2LogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	mu, lam, a := p[0], p[1], p[2]
	if !(x > mu) {
		return belowSupport(dp, upper)
	}
	r := (x - mu) / lam
	l := math.Log1p(r)
	lp, g := survivalOf(a*l, upper)
	h := a / (lam + (x - mu)) // ∂t/∂y
	dp[0] = -g * h
	dp[1] = -g * h * r
	dp[2] = g * l
	return lp, g * h
}
