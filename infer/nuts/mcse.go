package nuts

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// The Monte Carlo standard errors of the sd and of quantiles, and the MAD,
// as the R package posterior (≥ 1.5) computes them for
// summarise_draws(default_mcse_measures()). They use the ESS of diag.go on
// split chains of derived quantities, not rank-normalised.

// madScale makes the median absolute deviation of normal draws estimate
// their sd: 1/Φ⁻¹(3/4), rounded as R's mad.
const madScale = 1.4826

// mcseQuantileProbs are the probabilities Φ(−1) and Φ(1), rounded to 7
// digits as posterior's .mcse_quantile has them: the central ±1 sd
// interval of the beta distribution of the quantile's rank.
var mcseQuantileProbs = [2]float64{0.1586553, 0.8413447}

// MCSESD is the Monte Carlo standard error of the sd of the draws without
// assuming normal draws (posterior's mcse_sd): with c the draws centred at
// their mean, m₂ and m₄ the means of c² and c⁴, the variance of m₂ is
// (m₄ − m₂²)/ESS(c²) (Kenney & Keeping 1951, p. 141; the ESS of the split
// chains of c²), and the delta method divides it by 4m₂ for the variance
// of the sd. For normal draws m₄ = 3m₂² and it is sd/√(2·ESS); heavier
// tails make it larger. NaN for ragged, too short, constant or non-finite
// chains.
func MCSESD(chains [][]float64) float64 {
	x := goodSplit(chains)
	if x == nil {
		return math.NaN()
	}
	return mcseSD(chains, flatten(chains))
}

// mcseSD is MCSESD of the chains, good ones, all their draws in chain
// order.
func mcseSD(chains [][]float64, all []float64) float64 {
	m := meanOf(all)
	m2, m4 := 0.0, 0.0
	sq := make([][]float64, len(chains))
	for c, ch := range chains {
		sq[c] = make([]float64, len(ch))
		for i, v := range ch {
			d := (v - m) * (v - m)
			sq[c][i] = d
			m2 += d
			m4 += d * d
		}
	}
	n := float64(len(all))
	m2 /= n
	m4 /= n
	xs := split(sq)
	if badDraws(xs) { // c² constant (x two-valued, equally often): posterior's NA
		return math.NaN()
	}
	varVar := (m4 - m2*m2) / ess(xs)
	return math.Sqrt(varVar / m2 / 4)
}

// MCSEQuantile is the Monte Carlo standard error of the p-quantile of the
// draws (posterior's mcse_quantile): with E the ESS of the split chains of
// the indicator I(x ≤ q̂), q̂ the type-7 quantile of all draws, the rank of
// the quantile is about Beta(E·p + 1, E·(1 − p) + 1)-distributed; half the
// distance between the sorted draws at that distribution's Φ(−1) and Φ(1)
// quantiles is the error. NaN for ragged, too short, constant or
// non-finite chains, or an indicator that is constant (a p-quantile at the
// draws' minimum or maximum).
func MCSEQuantile(chains [][]float64, p float64) float64 {
	x := goodSplit(chains)
	if x == nil || !(p > 0 && p < 1) {
		return math.NaN()
	}
	all := flatten(chains)
	sort.Float64s(all)
	return mcseQuantile(all, p, essQuantile(x, all, p))
}

// mcseQuantile is MCSEQuantile of the sorted draws all, e the ESS of the
// indicator at their p-quantile (essQuantile; NaN gives NaN).
func mcseQuantile(all []float64, p, e float64) float64 {
	if math.IsNaN(e) {
		return math.NaN()
	}
	b := distuv.Beta{Alpha: e*p + 1, Beta: e*(1-p) + 1}
	S := len(all)
	lo := max(int(math.Floor(b.Quantile(mcseQuantileProbs[0])*float64(S))), 1)
	hi := min(int(math.Ceil(b.Quantile(mcseQuantileProbs[1])*float64(S))), S)
	return (all[hi-1] - all[lo-1]) / 2
}

// essQuantile is the ESS of the split chains x of the indicator I(x ≤ q),
// q the type-7 p-quantile of the sorted draws all (posterior's
// .ess_quantile); NaN when the indicator is constant.
func essQuantile(x [][]float64, all []float64, p float64) float64 {
	q := Quantile(all, p)
	ind := make([][]float64, len(x))
	for c, ch := range x {
		ind[c] = make([]float64, len(ch))
		for i, v := range ch {
			if v <= q {
				ind[c][i] = 1
			}
		}
	}
	if badDraws(ind) {
		return math.NaN()
	}
	return ess(ind)
}

// MAD is the median absolute deviation from the median of all the draws,
// times 1.4826 so that it estimates the sd of normal draws (R's mad, the
// posterior package's and stansummary's MAD). NaN when a draw is NaN or
// there are none.
func MAD(chains [][]float64) float64 {
	all := flatten(chains)
	sort.Float64s(all)
	return madSorted(all)
}

// madSorted is MAD of the sorted draws s (a NaN sorts first), s left as
// it is.
func madSorted(s []float64) float64 {
	if len(s) == 0 || math.IsNaN(s[0]) {
		return math.NaN()
	}
	med := Quantile(s, 0.5)
	dev := make([]float64, len(s))
	for i, v := range s {
		dev[i] = math.Abs(v - med)
	}
	sort.Float64s(dev)
	return madScale * Quantile(dev, 0.5)
}

// badHDIProb is HDI's panic for a probability outside (0, 1).
const badHDIProb = "nuts: HDI probability outside (0, 1)"

// HDI is the highest-density interval of the draws of all the chains
// pooled, for unimodal draws, as ArviZ's hdi (the default interval of
// az.summary, hdi_prob = 0.94): with the n draws sorted, x₍₀₎ ≤ … ≤
// x₍ₙ₋₁₎, and k = ⌊prob·n⌋, the narrowest of the intervals
// [x₍ᵢ₎, x₍ᵢ₊ₖ₎], the first (lowest) where several are as narrow. It holds
// k + 1 draws; where prob·n < 1, k = 0 and it is [min, min], as ArviZ's.
// A constant column gives [c, c]; NaN draws or none give NaN, NaN. It
// panics when prob is not in (0, 1).
func HDI(chains [][]float64, prob float64) (lo, hi float64) {
	if !(prob > 0 && prob < 1) {
		panic(badHDIProb)
	}
	all := flatten(chains)
	sort.Float64s(all)
	return hdiSorted(all, prob)
}

// hdiSorted is HDI of the sorted draws s (a NaN sorts first).
func hdiSorted(s []float64, prob float64) (lo, hi float64) {
	if len(s) == 0 || math.IsNaN(s[0]) {
		return math.NaN(), math.NaN()
	}
	k := int(math.Floor(prob * float64(len(s))))
	best := 0
	for i := 1; i+k < len(s); i++ {
		if s[i+k]-s[i] < s[best+k]-s[best] {
			best = i
		}
	}
	return s[best], s[best+k]
}
