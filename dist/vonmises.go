package dist

import (
	"math"
	"math/rand/v2"
)

// VonMises is the von Mises distribution on the circle with location Mu
// and concentration Kappa > 0 (Stan's von_mises): with δ = x − μ,
//
//	log p(x) = κ·cos δ − log 2π − log I₀(κ),
//
// for any real x (the density is 2π-periodic in it); Kappa near 0 is
// uniform on the circle, large Kappa Normal(μ, 1/√κ). It is computed as
// −2κ·sin²(δ/2) − log 2π − (log I₀(κ) − κ), and its partial in κ as
// (1 − A(κ)) − 2·sin²(δ/2) for A = I₁/I₀, so that for large κ nothing
// cancels (cos δ and A(κ) are both near 1 there). Its log CDF, on
// [−π, π] as Stan's, is in vonmises_cdf.go.
type VonMises struct {
	Mu, Kappa float64
}

// LogProb returns the log density at x.
func (d VonMises) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partials of LogProb(x) with respect to (Mu, Kappa)
// into dst (allocated if nil) and returns it.
func (d VonMises) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 2)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x.
func (d VonMises) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns an exact draw in [Mu − π, Mu + π] by Best and Fisher's
// (1979) rejection from a wrapped Cauchy envelope.
func (d VonMises) Rand(rng *rand.Rand) float64 {
	k := d.Kappa
	var s float64 // the envelope's parameter (1 + ρ²)/(2ρ)
	if k < 1e-5 {
		s = 1/k + k // ρ = κ/2 to first order; τ − √(2τ) would cancel
	} else {
		tau := 1 + math.Sqrt(1+4*k*k)
		rho := (tau - math.Sqrt(2*tau)) / (2 * k)
		s = (1 + rho*rho) / (2 * rho)
	}
	var w float64
	for {
		z := math.Cos(math.Pi * rng.Float64())
		w = (1 + s*z) / (s + z)
		y := k * (s - w)
		v := rng.Float64()
		if y*(2-y)-v >= 0 || math.Log(y/v)+1-y >= 0 {
			break
		}
	}
	th := math.Acos(math.Max(-1, math.Min(1, w)))
	if rng.Uint64()&1 == 0 {
		th = -th
	}
	return d.Mu + th
}

// Mean returns Mu, the circular mean (and the mean of Rand's draws in
// [Mu − π, Mu + π]).
func (d VonMises) Mean() float64 { return d.Mu }

// Variance returns the circular variance 1 − I₁(κ)/I₀(κ), not the variance
// of the draws as real numbers.
func (d VonMises) Variance() float64 {
	_, _, oma := logBesselI0(d.Kappa)
	return oma
}

func (d VonMises) eval(x float64, dp []float64) (float64, float64) {
	mu, k := d.Mu, d.Kappa
	if !finite(mu) || !positive(k) || math.IsNaN(x) {
		return invalid(dp)
	}
	if math.IsInf(x, 0) {
		return outside(dp)
	}
	delta := x - mu
	sh := math.Sin(0.5 * delta)
	sh2 := sh * sh // (1 − cos δ)/2
	sd := math.Sin(delta)
	l0, _, oma := logBesselI0(k)
	if dp != nil {
		dp[0] = k * sd
		dp[1] = oma - 2*sh2
	}
	return densityOrOutside(-2*k*sh2-ln2Pi-l0, -k*sd, dp)
}

// besselSeriesMax is the κ up to which logBesselI0 sums the power series;
// above it the asymptotic expansion has converged to 1e-17 within about
// 20 terms.
const besselSeriesMax = 30

// logBesselI0 returns log I₀(κ) − κ, A = I₁(κ)/I₀(κ) (the derivative of
// log I₀) and 1 − A, for κ > 0: from the power series
//
//	I₀ = Σ tᵏ/(k!)²,  I₁ = (κ/2)·Σ tᵏ/(k!(k+1)!),  t = κ²/4,
//
// up to besselSeriesMax (all terms positive; log I₀ through log1p of the
// sum past its first term, so that κ = 1e-8 keeps its digits), and above
// it from the asymptotic expansions I_ν(κ) ≈ e^κ/√(2πκ)·S_ν with
//
//	S₀ = Σ aₖ, aₖ = aₖ₋₁·(2k−1)²/(8κk);  S₁ = Σ bₖ, bₖ = bₖ₋₁·((2k−1)² − 4)/(8κk),
//
// and 1 − A = Σ (aₖ − bₖ)/S₀, whose leading term 1/(2κ) is exact rather
// than the difference of two numbers near 1.
func logBesselI0(k float64) (l0, a, oma float64) {
	if k <= besselSeriesMax {
		t := 0.25 * k * k
		var s0, s1 float64 // Σ over k ≥ 1 of tᵏ/(k!)², Σ over k ≥ 0 of tᵏ/(k!(k+1)!)
		term0, term1 := 1.0, 1.0
		s1 = 1
		for j := 1; j < 200; j++ {
			fj := float64(j)
			term0 *= t / (fj * fj)
			term1 *= t / (fj * (fj + 1))
			s0 += term0
			s1 += term1
			if term0 <= 1e-17*s0 && term1 <= 1e-17*s1 {
				break
			}
		}
		a = 0.5 * k * s1 / (1 + s0)
		return math.Log1p(s0) - k, a, 1 - a
	}
	var s0, s1, d float64 = 1, 1, 0 // S₀, S₁, Σ (aₖ − bₖ)
	ak, bk := 1.0, 1.0
	e := 8 * k
	for j := 1; j < 60; j++ {
		fj := float64(j)
		m := (2*fj - 1) * (2*fj - 1)
		na, nb := ak*m/(e*fj), bk*(m-4)/(e*fj)
		if math.Abs(na) > math.Abs(ak) { // the asymptotic series turns
			break
		}
		ak, bk = na, nb
		s0 += ak
		s1 += bk
		d += ak - bk
		if math.Abs(ak) <= 1e-17*s0 && math.Abs(bk) <= 1e-17 {
			break
		}
	}
	oma = d / s0
	return math.Log(s0) - 0.5*(ln2Pi+math.Log(k)), s1 / s0, oma
}
