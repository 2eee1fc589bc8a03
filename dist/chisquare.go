package dist

import (
	"math"
	"math/rand/v2"
)

// ChiSquare is the chi-square distribution with Nu > 0 degrees of freedom
// (Stan's chi_square), Gamma(Nu/2, rate 1/2):
//
//	log p(x) = −(ν/2)·log 2 − log Γ(ν/2) + (ν/2 − 1)·log x − x/2,  x > 0.
//
// Its log density, partials and log CDF are Gamma's at shape ν/2 and rate
// ½ (Loader's form for large ν, the incomplete gamma with its shape
// partial), the partial in ν half Gamma's partial in the shape.
type ChiSquare struct {
	Nu float64
}

// LogProb returns the log density at x.
func (d ChiSquare) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partial of LogProb(x) with respect to Nu into dst
// (allocated if nil) and returns it.
func (d ChiSquare) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 1)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x.
func (d ChiSquare) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns a draw, Gamma(Nu/2, 1/2)'s.
func (d ChiSquare) Rand(rng *rand.Rand) float64 { return Gamma{d.Nu / 2, 0.5}.Rand(rng) }

// Mean returns Nu.
func (d ChiSquare) Mean() float64 { return d.Nu }

// Variance returns 2·Nu.
func (d ChiSquare) Variance() float64 { return 2 * d.Nu }

func (d ChiSquare) eval(x float64, dp []float64) (float64, float64) {
	if !positive(d.Nu) {
		return invalid(dp)
	}
	if dp == nil {
		return Gamma{d.Nu / 2, 0.5}.eval(x, nil)
	}
	var g [2]float64
	lp, dx := Gamma{d.Nu / 2, 0.5}.eval(x, g[:])
	dp[0] = 0.5 * g[0]
	return lp, dx
}

// chiSquareLogCDF is ChiSquare(ν): Gamma(ν/2, ½)'s log CDF.
func chiSquareLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	var q, dq [2]float64
	q[0], q[1] = p[0]/2, 0.5
	lp, dx := gammaLogCDFKernel(x, q[:], dq[:], upper)
	dp[0] = 0.5 * dq[0]
	return lp, dx
}

// InvChiSquare is the inverse chi-square distribution with Nu > 0 degrees
// of freedom (Stan's inv_chi_square): 1/X for X ~ ChiSquare(Nu), which is
// InvGamma(Nu/2, scale 1/2):
//
//	log p(x) = −(ν/2)·log 2 − log Γ(ν/2) − (ν/2 + 1)·log x − 1/(2x),  x > 0.
type InvChiSquare struct {
	Nu float64
}

// LogProb returns the log density at x.
func (d InvChiSquare) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partial of LogProb(x) with respect to Nu into dst
// (allocated if nil) and returns it.
func (d InvChiSquare) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 1)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x.
func (d InvChiSquare) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns a draw, InvGamma(Nu/2, 1/2)'s.
func (d InvChiSquare) Rand(rng *rand.Rand) float64 { return InvGamma{d.Nu / 2, 0.5}.Rand(rng) }

// Mean returns 1/(Nu − 2) for Nu > 2 and +Inf otherwise.
func (d InvChiSquare) Mean() float64 { return InvGamma{d.Nu / 2, 0.5}.Mean() }

// Variance returns 2/((Nu − 2)²·(Nu − 4)) for Nu > 4 (+Inf for 2 < Nu ≤ 4,
// NaN below).
func (d InvChiSquare) Variance() float64 { return InvGamma{d.Nu / 2, 0.5}.Variance() }

func (d InvChiSquare) eval(x float64, dp []float64) (float64, float64) {
	if !positive(d.Nu) {
		return invalid(dp)
	}
	if dp == nil {
		return InvGamma{d.Nu / 2, 0.5}.eval(x, nil)
	}
	var g [2]float64
	lp, dx := InvGamma{d.Nu / 2, 0.5}.eval(x, g[:])
	dp[0] = 0.5 * g[0]
	return lp, dx
}

// invChiSquareLogCDF is InvChiSquare(ν): InvGamma(ν/2, ½)'s log CDF.
func invChiSquareLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	var q, dq [2]float64
	q[0], q[1] = p[0]/2, 0.5
	lp, dx := invGammaLogCDF(x, q[:], dq[:], upper)
	dp[0] = 0.5 * dq[0]
	return lp, dx
}

// ScaledInvChiSquare is the scaled inverse chi-square distribution with
// Nu > 0 degrees of freedom and scale S > 0 (Stan's
// scaled_inv_chi_square), InvGamma(Nu/2, scale Nu·S²/2):
//
//	log p(x) = (ν/2)·log(ν/2) − log Γ(ν/2) + ν·log s − (ν/2 + 1)·log x − ν·s²/(2x).
//
// The partials come from InvGamma's by the chain rule: ∂/∂ν = ½·∂/∂a +
// (s²/2)·∂/∂b and ∂/∂s = ν·s·∂/∂b for the shape a and scale b.
type ScaledInvChiSquare struct {
	Nu, S float64
}

// LogProb returns the log density at x.
func (d ScaledInvChiSquare) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partials of LogProb(x) with respect to (Nu, S) into dst
// (allocated if nil) and returns it.
func (d ScaledInvChiSquare) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 2)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x.
func (d ScaledInvChiSquare) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

func (d ScaledInvChiSquare) invGamma() InvGamma { return InvGamma{d.Nu / 2, d.Nu * d.S * d.S / 2} }

// Rand returns a draw, InvGamma(Nu/2, Nu·S²/2)'s.
func (d ScaledInvChiSquare) Rand(rng *rand.Rand) float64 { return d.invGamma().Rand(rng) }

// Mean returns Nu·S²/(Nu − 2) for Nu > 2 and +Inf otherwise.
func (d ScaledInvChiSquare) Mean() float64 { return d.invGamma().Mean() }

// Variance returns 2·Nu²·S⁴/((Nu − 2)²·(Nu − 4)) for Nu > 4 (+Inf for
// 2 < Nu ≤ 4, NaN below).
func (d ScaledInvChiSquare) Variance() float64 { return d.invGamma().Variance() }

func (d ScaledInvChiSquare) eval(x float64, dp []float64) (float64, float64) {
	if !positive(d.Nu) || !positive(d.S) {
		return invalid(dp)
	}
	ig := d.invGamma()
	if !positive(ig.Scale) {
		return invalid(dp) // ν·s² outside the float64s
	}
	if dp == nil {
		return ig.eval(x, nil)
	}
	var g [2]float64
	lp, dx := ig.eval(x, g[:])
	if math.IsInf(lp, -1) {
		clear(dp)
		return lp, dx
	}
	dp[0] = 0.5*g[0] + 0.5*d.S*d.S*g[1]
	dp[1] = d.Nu * d.S * g[1]
	return lp, dx
}

// scaledInvChiSquareLogCDF is ScaledInvChiSquare(ν, s): InvGamma(ν/2,
// ν·s²/2)'s log CDF, the partials by the chain rule.
func scaledInvChiSquareLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	nu, s := p[0], p[1]
	var q, dq [2]float64
	q[0], q[1] = nu/2, nu*s*s/2
	if !positive(q[1]) {
		return invalid(dp)
	}
	lp, dx := invGammaLogCDF(x, q[:], dq[:], upper)
	dp[0] = 0.5*dq[0] + 0.5*s*s*dq[1]
	dp[1] = nu * s * dq[1]
	return lp, dx
}
