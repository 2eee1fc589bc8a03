package dist

import (
	"math"
	"math/rand/v2"
)

// Kumaraswamy is the Kumaraswamy distribution on (0, 1) with shapes
// A > 0 and B > 0 (PyMC's Kumaraswamy(a, b)), a beta-like family with a
// closed-form CDF, F(x) = 1 − (1 − x^a)^b: with l = log x and
// L = log(1 − x^a) = log1mexp(−a·l),
//
//	log p(x) = log a + log b + (a − 1)·l + (b − 1)·L,  0 < x < 1.
type Kumaraswamy struct {
	A, B float64
}

// LogProb returns the log density at x.
func (d Kumaraswamy) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partials of LogProb(x) with respect to (A, B) into dst
// (allocated if nil) and returns it.
func (d Kumaraswamy) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 2)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x.
func (d Kumaraswamy) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns a draw by inversion: (1 − U^(1/B))^(1/A) for U uniform,
// as exp(log1mexp(−log U/B)/A).
func (d Kumaraswamy) Rand(rng *rand.Rand) float64 {
	u := openUnit(rng)
	return math.Exp(Log1mexp(-math.Log(u)/d.B) / d.A)
}

// moment returns E[X^n] = b·B(1 + n/a, b).
func (d Kumaraswamy) moment(n float64) float64 {
	return d.B * math.Exp(LogBeta(1+n/d.A, d.B))
}

// Mean returns B·Beta(1 + 1/A, B).
func (d Kumaraswamy) Mean() float64 { return d.moment(1) }

// Variance returns B·Beta(1 + 2/A, B) − Mean².
func (d Kumaraswamy) Variance() float64 {
	m := d.moment(1)
	return d.moment(2) - m*m
}

func (d Kumaraswamy) eval(x float64, dp []float64) (float64, float64) {
	a, b := d.A, d.B
	if !positive(a) || !positive(b) || math.IsNaN(x) {
		return invalid(dp)
	}
	if !(x > 0 && x < 1) {
		return outside(dp)
	}
	l := math.Log(x)
	al := -a * l // > 0
	bigL := Log1mexp(al)
	r := 1 / math.Expm1(al) // x^a/(1 − x^a)
	if dp != nil {
		dp[0] = 1/a + l - (b-1)*l*r
		dp[1] = 1/b + bigL
	}
	lp := logx(a) + logx(b) + (a-1)*l + (b-1)*bigL
	return densityOrOutside(lp, ((a-1)-(b-1)*a*r)/x, dp)
}

// kumaraswamyLogCDF is Kumaraswamy(a, b): log P(X > x) = b·L and
// log P(X ≤ x) = log1mexp(−b·L), L = log(1 − x^a).
func kumaraswamyLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	switch {
	case x <= 0:
		return belowSupport(dp, upper)
	case x >= 1:
		return aboveSupport(dp, upper)
	}
	a, b := p[0], p[1]
	l := math.Log(x)
	al := -a * l
	bigL := Log1mexp(al)
	r := 1 / math.Expm1(al) // x^a/(1 − x^a); ∂L/∂a = −l·r, ∂L/∂x = −a·r/x
	g := 1.0                // ∂lp/∂(bL)
	lp := b * bigL
	if !upper {
		lp = Log1mexp(-lp)
		g = -1 / math.Expm1(-b*bigL)
	}
	if math.IsInf(lp, -1) {
		return outside(dp)
	}
	dp[0] = -g * b * l * r
	dp[1] = g * bigL
	return lp, -g * b * a * r / x
}
