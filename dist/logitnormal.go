package dist

import (
	"math"
	"math/rand/v2"
)

// LogitNormal is the logit-normal distribution on (0, 1) (PyMC's
// LogitNormal(mu, sigma)): logit(X) is Normal(Mu, Sigma). With
// z = (logit x − μ)/σ,
//
//	log p(x) = −log σ − log √(2π) − z²/2 − log x − log(1 − x),  0 < x < 1,
//
// the last two terms the Jacobian of the logit; logit x is log x − log1p(−x),
// which keeps its digits near both ends.
type LogitNormal struct {
	Mu, Sigma float64
}

// LogProb returns the log density at x.
func (d LogitNormal) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partials of LogProb(x) with respect to (Mu, Sigma) into
// dst (allocated if nil) and returns it.
func (d LogitNormal) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 2)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x.
func (d LogitNormal) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns InvLogit(Mu + Sigma·N), N standard normal.
func (d LogitNormal) Rand(rng *rand.Rand) float64 {
	return InvLogit(d.Mu + d.Sigma*rng.NormFloat64())
}

// logitNormalNodes are the trapezoid rule's nodes per unit of z for the
// moments: the integrand is smooth and decays as φ(z), for which the rule
// converges geometrically (error below 1e-16 at 16 nodes per unit).
const (
	logitNormalNodes = 16
	logitNormalReach = 40 // |z| integrated over
)

// moments returns E[X] and E[X²] by the trapezoid rule over z in
// [−40, 40] (the logit-normal has no closed-form moments).
func (d LogitNormal) moments() (m1, m2 float64) {
	h := 1.0 / logitNormalNodes
	for k := -logitNormalReach * logitNormalNodes; k <= logitNormalReach*logitNormalNodes; k++ {
		z := float64(k) * h
		w := math.Exp(-0.5*z*z-lnSqrt2Pi) * h
		v := InvLogit(d.Mu + d.Sigma*z)
		m1 += w * v
		m2 += w * v * v
	}
	return m1, m2
}

// Mean returns E[X] by quadrature.
func (d LogitNormal) Mean() float64 {
	m1, _ := d.moments()
	return m1
}

// Variance returns Var X by quadrature.
func (d LogitNormal) Variance() float64 {
	m1, m2 := d.moments()
	return m2 - m1*m1
}

func (d LogitNormal) eval(x float64, dp []float64) (float64, float64) {
	mu, s := d.Mu, d.Sigma
	if !finite(mu) || !positive(s) || math.IsNaN(x) {
		return invalid(dp)
	}
	if !(x > 0 && x < 1) {
		return outside(dp)
	}
	lx, l1x := math.Log(x), math.Log1p(-x)
	z := (lx - l1x - mu) / s
	if dp != nil {
		dp[0] = z / s
		dp[1] = (z*z - 1) / s
	}
	lp := -logx(s) - lnSqrt2Pi - 0.5*z*z - lx - l1x
	// ∂/∂x: (−z/σ − (1 − x) + x)/(x(1 − x))
	return densityOrOutside(lp, (2*x-1-z/s)/(x*(1-x)), dp)
}

// logitNormalLogCDF is LogitNormal(μ, σ): log Φ(±(logit x − μ)/σ), the
// normal's kernel on logit x.
func logitNormalLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	switch {
	case x <= 0:
		return belowSupport(dp, upper)
	case x >= 1:
		return aboveSupport(dp, upper)
	}
	sgn := sign(upper)
	w := sgn * (math.Log(x) - math.Log1p(-x) - p[0]) / p[1]
	lq, h := normalTail(w)
	if math.IsInf(lq, -1) {
		return outside(dp)
	}
	return locScale(w, sgn, p[1], 1/(x*(1-x)), dp, lq, -h)
}
