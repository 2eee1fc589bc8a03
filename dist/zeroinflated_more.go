package dist

import (
	"math"
	"math/rand/v2"
)

// The hurdle families of a positive continuous value (PyMC's HurdleGamma
// and HurdleLogNormal, brms's hurdle_gamma and hurdle_lognormal),
// ZeroInflatedBinomial, and the log CDFs of every zero-inflated and hurdle
// family. A continuous hurdle's value is non-negative: 0 with probability
// 1 − Psi (a point mass), else a positive draw of the continuous family.
// Its log density is that of the mixed measure, a point mass at 0 plus
// Lebesgue measure above: log(1 − Psi) at 0 and log Psi + the family's log
// density above, as PyMC's and brms's.

// PointMassAtZero reports whether the family name is a continuous hurdle
// (HurdleGamma, HurdleLogNormal): a value of a continuous support with a
// point mass at 0, whose CDF jumps there. Truncation, which takes a
// continuous family's P(L ≤ X ≤ U) as F(U) − F(L) and inverts F as
// continuous, refuses it.
func PointMassAtZero(name string) bool { return name == "HurdleGamma" || name == "HurdleLogNormal" }

// HurdleGamma is 0 with probability 1 − Psi, else Gamma(Shape, Rate).
type HurdleGamma struct {
	Psi, Shape, Rate float64
}

// LogProb returns the log density at x (of the point mass at 0).
func (d HurdleGamma) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partials of LogProb(x) with respect to (Psi, Shape,
// Rate) into dst (allocated if nil) and returns it.
func (d HurdleGamma) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 3)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x (0 at
// the point mass).
func (d HurdleGamma) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns a draw: a Gamma draw with probability Psi, else 0.
func (d HurdleGamma) Rand(rng *rand.Rand) float64 {
	if !unitClosed(d.Psi) || !positive(d.Shape) || !positive(d.Rate) {
		return math.NaN()
	}
	if rng.Float64() >= d.Psi {
		return 0
	}
	return hurdlePositive(Gamma{d.Shape, d.Rate}.Rand(rng))
}

// Mean returns Psi·Shape/Rate.
func (d HurdleGamma) Mean() float64 { return d.Psi * d.Shape / d.Rate }

// Variance returns Psi·Shape·(1 + (1 − Psi)·Shape)/Rate².
func (d HurdleGamma) Variance() float64 {
	return d.Psi * d.Shape * (1 + (1-d.Psi)*d.Shape) / (d.Rate * d.Rate)
}

func (d HurdleGamma) eval(x float64, dp []float64) (lp, dx float64) {
	if !unitClosed(d.Psi) || !positive(d.Shape) || !positive(d.Rate) || math.IsNaN(x) {
		return invalid(dp)
	}
	if lp, done := hurdleGateReal(d.Psi, x, dp); done {
		return lp, 0
	}
	lp, dx = Gamma{d.Shape, d.Rate}.eval(x, dp[min(1, len(dp)):])
	return hurdleAbove(d.Psi, lp, dx, dp)
}

// HurdleLogNormal is 0 with probability 1 − Psi, else LogNormal(Mu,
// Sigma).
type HurdleLogNormal struct {
	Psi, Mu, Sigma float64
}

// LogProb returns the log density at x (of the point mass at 0).
func (d HurdleLogNormal) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partials of LogProb(x) with respect to (Psi, Mu,
// Sigma) into dst (allocated if nil) and returns it.
func (d HurdleLogNormal) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 3)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x (0 at
// the point mass).
func (d HurdleLogNormal) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns a draw: a LogNormal draw with probability Psi, else 0.
func (d HurdleLogNormal) Rand(rng *rand.Rand) float64 {
	if !unitClosed(d.Psi) || !finite(d.Mu) || !positive(d.Sigma) {
		return math.NaN()
	}
	if rng.Float64() >= d.Psi {
		return 0
	}
	return hurdlePositive(LogNormal{d.Mu, d.Sigma}.Rand(rng))
}

// Mean returns Psi·exp(Mu + Sigma²/2).
func (d HurdleLogNormal) Mean() float64 { return d.Psi * math.Exp(d.Mu+0.5*d.Sigma*d.Sigma) }

// Variance returns Psi·exp(2Mu + Sigma²)·(exp(Sigma²) − Psi).
func (d HurdleLogNormal) Variance() float64 {
	s2 := d.Sigma * d.Sigma
	return d.Psi * math.Exp(2*d.Mu+s2) * (math.Exp(s2) - d.Psi)
}

func (d HurdleLogNormal) eval(x float64, dp []float64) (lp, dx float64) {
	if !unitClosed(d.Psi) || !finite(d.Mu) || !positive(d.Sigma) || math.IsNaN(x) {
		return invalid(dp)
	}
	if lp, done := hurdleGateReal(d.Psi, x, dp); done {
		return lp, 0
	}
	lp, dx = LogNormal{d.Mu, d.Sigma}.eval(x, dp[min(1, len(dp)):])
	return hurdleAbove(d.Psi, lp, dx, dp)
}

// hurdleGateReal is hurdleGate for a non-negative real x: −Inf below 0 and
// at +Inf, and hurdleGate's cases of 0 and of a positive x (which it
// tells apart as the counts 0 and 1).
func hurdleGateReal(psi, x float64, dp []float64) (lp float64, done bool) {
	if !(x >= 0) || math.IsInf(x, 1) {
		lp, _ = outside(dp)
		return lp, true
	}
	k := 0.0
	if x > 0 {
		k = 1
	}
	return hurdleGate(psi, k, dp)
}

// hurdleAbove is a continuous hurdle's log density above 0 from its
// family's, lp with the value partial dx and the family's partials in
// dp[1:]: log Psi + lp, ∂/∂Psi = 1/Psi.
func hurdleAbove(psi, lp, dx float64, dp []float64) (float64, float64) {
	if math.IsInf(lp, -1) { // the family's density underflowed
		return outside(dp)
	}
	if dp != nil {
		dp[0] = 1 / psi
	}
	return logx(psi) + lp, dx
}

// hurdlePositive returns a continuous hurdle's positive draw v, or the
// least positive float64 where v underflowed to 0, which would otherwise
// read as the point mass.
func hurdlePositive(v float64) float64 {
	return max(v, math.SmallestNonzeroFloat64)
}

// ZeroInflatedBinomial is the mixture of Binomial(N, P) (weight Psi) and a
// point mass at 0: P(0) = (1 − Psi) + Psi·(1 − P)^N, P(k) =
// Psi·Binomial(k; N, P) for k > 0 (PyMC's ZeroInflatedBinomial(psi, n,
// p)). N is a count, its partial 0.
type ZeroInflatedBinomial struct {
	Psi, N, P float64
}

// LogProb returns the log mass at the count k.
func (d ZeroInflatedBinomial) LogProb(k float64) float64 {
	lp, _ := d.eval(k, nil)
	return lp
}

// Score writes the partials of LogProb(k) with respect to (Psi, N, P)
// into dst (allocated if nil) and returns it.
func (d ZeroInflatedBinomial) Score(dst []float64, k float64) []float64 {
	dst = scoreDst(dst, 3)
	d.eval(k, dst)
	return dst
}

// Rand returns a draw: a Binomial draw with probability Psi, else 0.
func (d ZeroInflatedBinomial) Rand(rng *rand.Rand) float64 {
	if !unitClosed(d.Psi) || !isCount(d.N) || !unitClosed(d.P) {
		return math.NaN()
	}
	if rng.Float64() >= d.Psi {
		return 0
	}
	return Binomial{d.N, d.P}.Rand(rng)
}

// Mean returns Psi·N·P.
func (d ZeroInflatedBinomial) Mean() float64 { return d.Psi * d.N * d.P }

// Variance returns Psi·N·P·(1 − P) + Psi·(1 − Psi)·(N·P)².
func (d ZeroInflatedBinomial) Variance() float64 {
	m := d.N * d.P
	return d.Psi*m*(1-d.P) + d.Psi*(1-d.Psi)*m*m
}

func (d ZeroInflatedBinomial) eval(k float64, dp []float64) (lp, dx float64) {
	psi, n, p := d.Psi, d.N, d.P
	if !unitClosed(psi) || !isCount(n) || !unitClosed(p) || math.IsNaN(k) {
		return invalid(dp)
	}
	if !isCount(k) || k > n {
		return outside(dp)
	}
	lb, _ := Binomial{n, p}.eval(k, dp[min(1, len(dp)):])
	if k == 0 {
		// (1 − P)^N's complement from its log, which is −Inf at P = 1
		lp, _ = zeroInflatedAtZero(psi, lb, dp)
		if math.IsInf(lp, -1) { // Psi = 1 and P = 1: no zeros
			return outside(dp)
		}
		return lp, 0
	}
	if psi == 0 || math.IsInf(lb, -1) {
		return outside(dp)
	}
	if dp != nil {
		dp[0] = 1 / psi
	}
	return logx(psi) + lb, 0
}

// zeroInflatedLogCDF returns the log CDF of a zero-inflated family (Psi
// first, then the count family's parameters) from its count family's,
// base: for x ≥ 0, P(X > x) = Psi·S(x), and P(X ≤ x) = (1 − Psi) +
// Psi·F(x), which is zeroInflatedZero's log-sum-exp with F in the place of
// the mass at 0 (S from its own tail, so that an F near 1 keeps its
// complement's digits).
func zeroInflatedLogCDF(base logCDF) logCDF {
	return func(x float64, p, dp []float64, upper bool) (float64, float64) {
		if x < 0 {
			return belowSupport(dp, upper)
		}
		psi := p[0]
		lS, _ := base(x, p[1:], dp[1:], true)
		if upper {
			if psi == 0 || math.IsInf(lS, -1) {
				return outside(dp)
			}
			dp[0] = 1 / psi
			return logx(psi) + lS, 0
		}
		lF, _ := base(x, p[1:], dp[1:], false)
		lp, _ := zeroInflatedZero(psi, lF, math.Exp(lS), dp)
		if math.IsInf(lp, -1) {
			return outside(dp)
		}
		return lp, 0
	}
}

// hurdleLogCDF returns the log CDF of a hurdle family (Psi first, then the
// family's parameters) from its family's upper tail S, base: for x ≥ 0,
// P(X > x) = Psi·R with R = S(x)/S(0) (S(0) = 1 for a continuous family),
// and P(X ≤ x) = (1 − Psi) + Psi·(1 − R), a log-sum-exp that keeps the
// digits of a Psi near 1. The value partial is the family's (0 for a
// count).
func hurdleLogCDF(base logCDF) logCDF {
	return func(x float64, p, dp []float64, upper bool) (float64, float64) {
		if x < 0 {
			return belowSupport(dp, upper)
		}
		psi := p[0]
		var d0 [4]float64
		n := len(p) - 1
		lSx, dx := base(x, p[1:], dp[1:], true)
		lS0, _ := base(0, p[1:], d0[:n], true)
		lR := min(lSx-lS0, 0) // S(x) ≤ S(0), whatever the rounding
		if math.IsInf(lSx, -1) {
			lR = math.Inf(-1)
		}
		for i := range n {
			dp[1+i] -= d0[i]
		}
		lSH := logx(psi) + lR // log P(X > x)
		if upper {
			if math.IsInf(lSH, -1) {
				return outside(dp)
			}
			dp[0] = 1 / psi
			return lSH, dx
		}
		lp := LogAddExp(math.Log1p(-psi), logx(psi)+Log1mexp(-lR))
		if math.IsInf(lp, -1) {
			return outside(dp)
		}
		// ∂ log(1 − Psi·R) = −(R ∂Psi + Psi·R ∂log R)/P(X ≤ x)
		w := -math.Exp(lSH - lp)
		for i := range n {
			dp[1+i] *= w
		}
		dp[0] = -math.Exp(lR - lp)
		return lp, w * dx
	}
}
