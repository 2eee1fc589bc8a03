package dist

import (
	"math"
	"math/rand/v2"
)

// The zero-inflated and hurdle count families (PyMC's ZeroInflatedPoisson,
// HurdlePoisson, ...; brms's zero_inflated_* and hurdle_*). Psi is PyMC's:
// the probability of the count process, so that brms's zi and hu are
// 1 − Psi. The masses are computed in Psi itself, log Psi and
// log1p(−Psi), never through 1 − Psi, which would lose the digits of a Psi
// near 0 or 1. Psi may be 0 or 1, as Bernoulli's probability may: a
// zero-inflated family is then the point mass at 0 or its count family,
// and a hurdle the point mass or the truncated count.

// ZeroInflatedPoisson is the mixture of Poisson(Rate) (weight Psi) and a
// point mass at 0: P(0) = (1 − Psi) + Psi·e^(−Rate), P(k) =
// Psi·Poisson(k; Rate) for k > 0.
type ZeroInflatedPoisson struct {
	Psi, Rate float64
}

// LogProb returns the log mass at the count k.
func (d ZeroInflatedPoisson) LogProb(k float64) float64 {
	lp, _ := d.eval(k, nil)
	return lp
}

// Score writes the partials of LogProb(k) with respect to (Psi, Rate)
// into dst (allocated if nil) and returns it.
func (d ZeroInflatedPoisson) Score(dst []float64, k float64) []float64 {
	dst = scoreDst(dst, 2)
	d.eval(k, dst)
	return dst
}

// Rand returns a draw: a Poisson draw with probability Psi, else 0.
func (d ZeroInflatedPoisson) Rand(rng *rand.Rand) float64 {
	if !unitClosed(d.Psi) || !positive(d.Rate) {
		return math.NaN()
	}
	if rng.Float64() >= d.Psi {
		return 0
	}
	return samplePoisson(d.Rate, rng)
}

// Mean returns Psi·Rate.
func (d ZeroInflatedPoisson) Mean() float64 { return d.Psi * d.Rate }

// Variance returns Psi·Rate·(1 + (1 − Psi)·Rate).
func (d ZeroInflatedPoisson) Variance() float64 {
	return d.Psi * d.Rate * (1 + (1-d.Psi)*d.Rate)
}

func (d ZeroInflatedPoisson) eval(k float64, dp []float64) (lp, dx float64) {
	psi, lam := d.Psi, d.Rate
	if !unitClosed(psi) || !positive(lam) || math.IsNaN(k) {
		return invalid(dp)
	}
	if !isCount(k) {
		return outside(dp)
	}
	if k == 0 {
		// log((1−ψ) + ψe^(−λ)); the Poisson's log mass −λ at 0 has
		// partial −1.
		if dp != nil {
			dp[1] = -1
		}
		return zeroInflatedAtZero(psi, -lam, dp)
	}
	if psi == 0 {
		return outside(dp)
	}
	lp, _ = Poisson{lam}.eval(k, dp[min(1, len(dp)):])
	if dp != nil {
		dp[0] = 1 / psi
	}
	return logx(psi) + lp, 0
}

// zeroInflatedAtZero is the log mass at 0, P(0) = (1 − ψ) + ψ·p0, of a
// zero-inflated family whose count family has log mass l0 = log p0 at 0,
// with zeroInflatedZero's partials. It takes one exp (or expm1) and one
// log where the log-sum-exp and its partials take six calls, a user trial's
// ZeroInflatedNegBinomial spending most of its time there: P(0) is
// 1 − ψ(1 − p0) where it is at least 1/2 (its log by log1p above 3/4),
// else the sum of two non-negative terms, so that its log keeps its
// digits either way; a subnormal P(0) (ψ = 1 and p0 below 2^−1022) is
// left to zeroInflatedZero.
func zeroInflatedAtZero(psi, l0 float64, dp []float64) (lp, dx float64) {
	var p0, q0 float64 // e^l0 and 1 − e^l0, each to its own digits
	if l0 < -math.Ln2 {
		p0 = math.Exp(l0)
		q0 = 1 - p0
	} else {
		q0 = -math.Expm1(l0)
		p0 = 1 - q0
	}
	s := psi * q0
	var pz float64
	switch {
	case s < 0.25:
		pz, lp = 1-s, math.Log1p(-s)
	case s <= 0.5: // log's rounding, 2^−53/pz, is at most 2 ulps of |lp| ≥ 0.29
		pz = 1 - s
		lp = math.Log(pz)
	default:
		pz = (1 - psi) + psi*p0
		if pz < 0x1p-1022 {
			return zeroInflatedZero(psi, l0, q0, dp)
		}
		lp = math.Log(pz)
	}
	if dp != nil {
		r := 1 / pz
		dp[0] = -q0 * r
		w := psi * p0 * r
		for i := 1; i < len(dp); i++ {
			dp[i] *= w
		}
	}
	return lp, 0
}

// zeroInflatedCount is the log mass of a zero-inflated family at a count
// k of its support, from its count family's log mass lc at k (and that
// family's partials, already in dp[1:]).
func zeroInflatedCount(psi, k, lc float64, dp []float64) (lp, dx float64) {
	if k == 0 {
		return zeroInflatedAtZero(psi, lc, dp)
	}
	if psi == 0 {
		return outside(dp)
	}
	if dp != nil {
		dp[0] = 1 / psi
	}
	return logx(psi) + lc, 0
}

// zeroInflatedZero is the log mass at 0 of a zero-inflated family whose
// count family has log mass l0 at 0 (1 − e^l0 given as q0, to keep its
// digits where l0 is near 0), with partials: in ψ, −(1 − p0)/P(0); in the
// count family's arguments, its partials of l0 (already in dp[1:]) times
// the count's share ψ·p0/P(0) of the zeros.
func zeroInflatedZero(psi, l0, q0 float64, dp []float64) (lp, dx float64) {
	lz, lc := math.Log1p(-psi), logx(psi)+l0
	lp = LogAddExp(lz, lc)
	if dp != nil {
		dp[0] = -q0 * math.Exp(-lp)
		w := math.Exp(lc - lp)
		for i := 1; i < len(dp); i++ {
			dp[i] *= w
		}
	}
	return lp, 0
}

// ZeroInflatedNegBinomial is the mixture of NegBinomial(Mu, Phi) (weight
// Psi) and a point mass at 0: P(0) = (1 − Psi) + Psi·(Phi/(Mu + Phi))^Phi,
// P(k) = Psi·NegBinomial(k; Mu, Phi) for k > 0 (PyMC's
// ZeroInflatedNegativeBinomial(psi, mu, alpha), alpha = Phi).
type ZeroInflatedNegBinomial struct {
	Psi, Mu, Phi float64
}

// LogProb returns the log mass at the count k.
func (d ZeroInflatedNegBinomial) LogProb(k float64) float64 {
	lp, _ := d.eval(k, nil)
	return lp
}

// Score writes the partials of LogProb(k) with respect to (Psi, Mu, Phi)
// into dst (allocated if nil) and returns it.
func (d ZeroInflatedNegBinomial) Score(dst []float64, k float64) []float64 {
	dst = scoreDst(dst, 3)
	d.eval(k, dst)
	return dst
}

// Rand returns a draw: a NegBinomial draw with probability Psi, else 0.
func (d ZeroInflatedNegBinomial) Rand(rng *rand.Rand) float64 {
	if !unitClosed(d.Psi) || !positive(d.Mu) || !positive(d.Phi) {
		return math.NaN()
	}
	if rng.Float64() >= d.Psi {
		return 0
	}
	return NegBinomial{d.Mu, d.Phi}.Rand(rng)
}

// Mean returns Psi·Mu.
func (d ZeroInflatedNegBinomial) Mean() float64 { return d.Psi * d.Mu }

// Variance returns Psi·(Mu + Mu²/Phi + (1 − Psi)·Mu²).
func (d ZeroInflatedNegBinomial) Variance() float64 {
	mu := d.Mu
	return d.Psi * (mu + mu*mu/d.Phi + (1-d.Psi)*mu*mu)
}

func (d ZeroInflatedNegBinomial) eval(k float64, dp []float64) (lp, dx float64) {
	psi, mu, phi := d.Psi, d.Mu, d.Phi
	if !unitClosed(psi) || !positive(mu) || !positive(phi) || math.IsNaN(k) {
		return invalid(dp)
	}
	if !isCount(k) {
		return outside(dp)
	}
	lnb, _ := NegBinomial{mu, phi}.eval(k, dp[min(1, len(dp)):])
	return zeroInflatedCount(psi, k, lnb, dp)
}

// HurdlePoisson is the hurdle model with P(k > 0) = Psi and zero-truncated
// Poisson(Rate) counts above the hurdle: P(0) = 1 − Psi, P(k) =
// Psi·Poisson(k; Rate)/(1 − e^(−Rate)) for k > 0.
type HurdlePoisson struct {
	Psi, Rate float64
}

// LogProb returns the log mass at the count k.
func (d HurdlePoisson) LogProb(k float64) float64 {
	lp, _ := d.eval(k, nil)
	return lp
}

// Score writes the partials of LogProb(k) with respect to (Psi, Rate)
// into dst (allocated if nil) and returns it.
func (d HurdlePoisson) Score(dst []float64, k float64) []float64 {
	dst = scoreDst(dst, 2)
	d.eval(k, dst)
	return dst
}

// Rand returns a draw: a zero-truncated Poisson draw with probability Psi,
// else 0. The truncated count is drawn by inversion of its CDF below rate 1
// (an expected 1 + Rate steps, however small the rate) and by drawing
// Poisson(Rate) until it is positive above (an expected 1/(1 − e^(−Rate))
// < 1.6 draws).
func (d HurdlePoisson) Rand(rng *rand.Rand) float64 {
	psi, lam := d.Psi, d.Rate
	if !unitClosed(psi) || !positive(lam) {
		return math.NaN()
	}
	if rng.Float64() >= psi {
		return 0
	}
	return truncPoisson(lam, rng)
}

// truncPoisson returns a draw of the zero-truncated Poisson(lam), as
// HurdlePoisson.Rand says (1 for a rate that underflowed to 0, the limit).
func truncPoisson(lam float64, rng *rand.Rand) float64 {
	if lam > 1 {
		for {
			if k := samplePoisson(lam, rng); k > 0 {
				return k
			}
		}
	}
	if lam == 0 {
		return 1
	}
	// P(k | k > 0) = λ^k/k!/(e^λ − 1): p1 = λ/expm1(λ), p(k+1) = p(k)·λ/(k+1).
	p := lam / math.Expm1(lam)
	return invertCounts(rng.Float64(), 1, p, func(k float64) float64 { return lam / (k + 1) })
}

// invertCounts returns the least count k ≥ k0 at which the CDF of masses
// p(k0) = p, p(k+1) = p(k)·ratio(k) reaches u, or the count at which the
// masses underflow (where rounding left the CDF short of u).
func invertCounts(u, k0, p float64, ratio func(k float64) float64) float64 {
	k, cdf := k0, p
	for u > cdf && p > 0 {
		p *= ratio(k)
		k++
		cdf += p
	}
	return k
}

// Mean returns Psi·Rate/(1 − e^(−Rate)).
func (d HurdlePoisson) Mean() float64 {
	return d.Psi * d.Rate / -math.Expm1(-d.Rate)
}

// Variance returns Psi·(Rate + Rate²)/(1 − e^(−Rate)) − Mean².
func (d HurdlePoisson) Variance() float64 {
	lam, m := d.Rate, d.Mean()
	return d.Psi*(lam+lam*lam)/-math.Expm1(-lam) - m*m
}

func (d HurdlePoisson) eval(k float64, dp []float64) (lp, dx float64) {
	psi, lam := d.Psi, d.Rate
	if !unitClosed(psi) || !positive(lam) || math.IsNaN(k) {
		return invalid(dp)
	}
	if lp, done := hurdleGate(psi, k, dp); done {
		return lp, 0
	}
	lp, _ = Poisson{lam}.eval(k, nil)
	lp += logx(psi) - Log1mexp(lam)
	if dp != nil {
		dp[0] = 1 / psi
		// (k − λ)/λ − e^(−λ)/(1 − e^(−λ)) = (k − 1 − λ)/λ + g(λ), with
		// g(λ) = 1/λ − 1/expm1(λ), so that the 1/λ terms of a small rate
		// do not cancel.
		dp[1] = (k-1-lam)/lam + invMinusInvExpm1(lam)
	}
	return lp, 0
}

// hurdleGate is the part of a hurdle family's eval (its arguments valid,
// k not NaN) that needs no count family: it returns, with done, the log
// mass of a k that is not a count or is above a hurdle Psi = 0 (−Inf), and
// that at 0, log1p(−Psi), with its partials −1/(1 − Psi) (1 − Psi exact
// where Psi ≥ 1/2, and its rounding below harmless) and 0 in the count
// family's arguments; done is false for a k > 0 that Psi > 0 allows.
func hurdleGate(psi, k float64, dp []float64) (lp float64, done bool) {
	switch {
	case !isCount(k), k == 0 && psi == 1, k > 0 && psi == 0:
		lp, _ = outside(dp)
		return lp, true
	case k > 0:
		return 0, false
	}
	if dp != nil {
		clear(dp)
		dp[0] = -1 / (1 - psi)
	}
	return math.Log1p(-psi), true
}

// invMinusInvExpm1 returns 1/x − 1/expm1(x) for x > 0, by its series
// 1/2 − x/12 + x³/720 − x⁵/30240 + x⁷/1209600 below 0.1 (the next term is
// below 3e-17), where the direct difference loses digits.
func invMinusInvExpm1(x float64) float64 {
	if x < 0.1 {
		return invMinusInvExpm1Of(x, 0)
	}
	return invMinusInvExpm1Of(x, math.Expm1(x))
}

// invMinusInvExpm1Of is invMinusInvExpm1(x) given em1 = expm1(x), which
// it reads only from 0.1 up.
func invMinusInvExpm1Of(x, em1 float64) float64 {
	if x < 0.1 {
		x2 := x * x
		return 0.5 - x*(1.0/12-x2*(1.0/720-x2*(1.0/30240-x2/1209600)))
	}
	return 1/x - 1/em1
}

// log1pmx returns log(1 + x) − x, by its series below 0.1 in |x| (where the
// difference cancels) and directly above.
func log1pmx(x float64) float64 {
	if math.Abs(x) >= 0.1 {
		return math.Log1p(x) - x
	}
	return log1pmxSeries(x)
}

// log1pmxOf is log1pmx(x) given l1p = log1p(x).
func log1pmxOf(x, l1p float64) float64 {
	if math.Abs(x) >= 0.1 {
		return l1p - x
	}
	return log1pmxSeries(x)
}

// log1pmxSeries is log1pmx's series, for |x| < 0.1.
func log1pmxSeries(x float64) float64 {
	// −x²/2 + x³/3 − x⁴/4 + …, to x¹⁸: the next term is below 1e-19·x².
	s, xk := 0.0, x*x
	for n := 2.0; n <= 18; n++ {
		s += xk / n
		xk *= -x
	}
	return -s
}

// HurdleNegBinomial is the hurdle model with P(k > 0) = Psi and
// zero-truncated NegBinomial(Mu, Phi) counts above the hurdle: P(0) = 1 −
// Psi, P(k) = Psi·NegBinomial(k; Mu, Phi)/(1 − p0) for k > 0, p0 =
// (Phi/(Mu + Phi))^Phi (PyMC's HurdleNegativeBinomial(psi, mu, alpha),
// alpha = Phi).
type HurdleNegBinomial struct {
	Psi, Mu, Phi float64
}

// LogProb returns the log mass at the count k.
func (d HurdleNegBinomial) LogProb(k float64) float64 {
	lp, _ := d.eval(k, nil)
	return lp
}

// Score writes the partials of LogProb(k) with respect to (Psi, Mu, Phi)
// into dst (allocated if nil) and returns it.
func (d HurdleNegBinomial) Score(dst []float64, k float64) []float64 {
	dst = scoreDst(dst, 3)
	d.eval(k, dst)
	return dst
}

// nbZero returns s = −log p0 = Phi·log1p(Mu/Phi) of NegBinomial(Mu, Phi)
// and log(1 − p0), the latter from log s where s is small (so that an s
// that underflows still gives its log).
func nbZero(mu, phi float64) (s, lq float64) {
	return nbZeroOf(mu, phi, math.Log1p(mu/phi))
}

// nbZeroOf is nbZero given l1p = log1p(Mu/Phi).
func nbZeroOf(mu, phi, l1p float64) (s, lq float64) {
	x := mu / phi
	s = phi * l1p
	if s >= 1e-10 {
		return s, Log1mexp(s)
	}
	// log s = log μ + log(log1p(x)/x); log(1 − e^(−s)) = log s − s/2 + O(s²).
	return s, logx(mu) + math.Log1p(log1pmx(x)/x) - s/2
}

// Rand returns a draw: a zero-truncated NegBinomial draw with probability
// Psi, else 0. The truncated count is drawn, where 1 − p0 < 1 − e^(−0.1)
// (a small Mu or Phi), as a mixture of Poissons (truncNegBinomialMix);
// else by inversion of its CDF for Mu ≤ 1 (an expected 1 + Mu/(1 − p0)
// steps) and by drawing NegBinomial(Mu, Phi) until it is positive above
// (an expected 1/(1 − p0) < 10.5 draws).
func (d HurdleNegBinomial) Rand(rng *rand.Rand) float64 {
	psi, mu, phi := d.Psi, d.Mu, d.Phi
	if !unitClosed(psi) || !positive(mu) || !positive(phi) {
		return math.NaN()
	}
	if rng.Float64() >= psi {
		return 0
	}
	s, lq := nbZero(mu, phi)
	if s < 0.1 {
		return truncNegBinomialMix(mu, phi, rng)
	}
	nb := NegBinomial{mu, phi}
	if mu > 1 {
		for {
			if k := nb.Rand(rng); k > 0 {
				return k
			}
		}
	}
	// p1 = φ·μ/(μ+φ)·p0/(1 − p0), p(k+1) = p(k)·(k+φ)/(k+1)·μ/(μ+φ).
	r := mu / (mu + phi)
	p := math.Exp(math.Log(phi*r) - s - lq)
	return invertCounts(rng.Float64(), 1, p, func(k float64) float64 { return (k + phi) / (k + 1) * r })
}

// Mean returns Psi·Mu/(1 − p0).
// truncNegBinomialMix returns a draw of the zero-truncated
// NegBinomial(mu, phi) in O(1) however small P(k > 0) = 1 − e^(−s) is
// (rejection takes 1/(1 − e^(−s)) draws, inversion the count's steps, and
// both are ~1e9 at phi = 1e-10): the count is Poisson(λ) given k > 0 for
// λ ~ Gamma(phi, b = phi/mu) given k > 0, whose density ∝
// λ^(phi−1) e^(−bλ) (1 − e^(−λ)) = ∫₀¹ λ^phi e^(−(b+t)λ) dt is a mixture:
// t ∝ (b + t)^(−phi−1) on [0, 1], drawn by inverting its CDF in logs, then
// λ ~ Gamma(phi + 1, b + t) and k ~ zero-truncated Poisson(λ).
func truncNegBinomialMix(mu, phi float64, rng *rand.Rand) float64 {
	b := phi / mu
	// (b+t)^(−phi) = b^(−phi)·(1 + u·expm1(−phi·log1p(1/b)))
	w := math.Log1p(rng.Float64()*math.Expm1(-phi*math.Log1p(1/b))) / -phi
	t := min(max(b*math.Expm1(w), 0), 1)
	lam := Gamma{Shape: phi + 1, Rate: b + t}.Rand(rng)
	return truncPoisson(lam, rng)
}

func (d HurdleNegBinomial) Mean() float64 {
	s, _ := nbZero(d.Mu, d.Phi)
	return d.Psi * d.Mu / -math.Expm1(-s)
}

// Variance returns Psi·(Mu + Mu²/Phi + Mu²)/(1 − p0) − Mean².
func (d HurdleNegBinomial) Variance() float64 {
	s, _ := nbZero(d.Mu, d.Phi)
	mu, m := d.Mu, d.Mean()
	return d.Psi*(mu+mu*mu/d.Phi+mu*mu)/-math.Expm1(-s) - m*m
}

func (d HurdleNegBinomial) eval(k float64, dp []float64) (lp, dx float64) {
	psi, mu, phi := d.Psi, d.Mu, d.Phi
	if !unitClosed(psi) || !positive(mu) || !positive(phi) || math.IsNaN(k) {
		return invalid(dp)
	}
	if lp, done := hurdleGate(psi, k, dp); done {
		return lp, 0
	}
	lp, _ = NegBinomial{mu, phi}.eval(k, dp[min(1, len(dp)):])
	return hurdleNegBinomialCount(psi, mu, phi, k, lp, dp)
}

// hurdleNegBinomialCount is HurdleNegBinomial's log mass at a count k > 0
// that Psi allows, from NegBinomial's log mass lp at k (and its partials,
// already in dp[1:]).
func hurdleNegBinomialCount(psi, mu, phi, k, lp float64, dp []float64) (float64, float64) {
	x := mu / phi
	l1p := math.Log1p(x) // once, for s and log1pmx
	s, lq := nbZeroOf(mu, phi, l1p)
	lp += logx(psi) - lq
	if dp != nil {
		dp[0] = 1 / psi
		// −∂ log(1 − p0) = ∂(−s)/expm1(s). In μ, with NegBinomial's
		// φ/(μ+φ)·(k−μ)/μ, the 1/μ terms of a small mean cancel: the
		// sum is φ/(μ+φ)·[(k−1−μ)/μ + (s−μ)/(μs) + g(s)], g(s) = 1/s −
		// 1/expm1(s), s − μ = φ·log1pmx(μ/φ). In φ, ∂(−s)/∂φ =
		// −[log1p(x) − x/(1+x)] = −[log1pmx(x) + x²/(1+x)].
		// log1pmx(x) and expm1(s) are each taken once.
		c := phi / (mu + phi)
		lx, em1 := log1pmxOf(x, l1p), math.Expm1(s)
		g := invMinusInvExpm1Of(s, em1)
		dp[1] = c * ((k-1-mu)/mu + phi*lx/s/mu + g)
		dp[2] -= (lx + x*x/(1+x)) / em1
	}
	return lp, 0
}

// unitClosed reports whether v is in [0, 1].
func unitClosed(v float64) bool { return v >= 0 && v <= 1 }
