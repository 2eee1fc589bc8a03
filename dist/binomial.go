package dist

import (
	"math"
	"math/rand/v2"
)

// Binomial is the binomial distribution: the number of successes in N
// trials (a non-negative integer held as a float64, as in gonum) with
// success probability P in [0, 1]. Values outside 0..N or non-integers have
// log mass −Inf.
type Binomial struct {
	N, P float64
}

// LogProb returns the log mass at k.
func (d Binomial) LogProb(k float64) float64 {
	lp, _ := d.eval(k, nil)
	return lp
}

// Score writes the partials of LogProb(k) with respect to (N, P) into dst
// (allocated if nil) and returns it. N is an integer argument: its partial
// is reported as 0.
func (d Binomial) Score(dst []float64, k float64) []float64 {
	dst = scoreDst(dst, 2)
	d.eval(k, dst)
	return dst
}

// Rand returns a draw.
func (d Binomial) Rand(rng *rand.Rand) float64 { return sampleBinomial(d.N, d.P, rng) }

// Mean returns N·P.
func (d Binomial) Mean() float64 { return d.N * d.P }

// Variance returns N·P·(1−P).
func (d Binomial) Variance() float64 { return d.N * d.P * (1 - d.P) }

func (d Binomial) eval(k float64, dp []float64) (lp, dx float64) {
	n, p := d.N, d.P
	if !isCount(n) || !(p >= 0 && p <= 1) || math.IsNaN(k) {
		return invalid(dp)
	}
	if !isCount(k) || k > n {
		return outside(dp)
	}
	if (k > 0 && p == 0) || (k < n && p == 1) {
		return outside(dp)
	}
	var dlp float64
	switch {
	case k > 0 && k < n && n >= stirlingMin:
		// log C(n, k) and the two log terms are each of order n·log n
		// and nearly cancel; Loader's form keeps the digits, and
		// k − n·p in one rounding keeps those of the partial near the
		// mode.
		lp = logBinomRaw(k, n-k, n*p, n*(1-p))
		dlp = math.FMA(-n, p, k) / (p * (1 - p))
	default:
		lp = lchoose(n, k)
		if k > 0 {
			lp += k * logx(p)
			dlp += k / p
		}
		if k < n {
			lp += (n - k) * math.Log1p(-p)
			dlp -= (n - k) / (1 - p)
		}
	}
	if dp != nil {
		dp[0] = 0
		dp[1] = dlp
	}
	return lp, 0
}

// lchoose returns log(n choose k) for integers 0 ≤ k ≤ n.
func lchoose(n, k float64) float64 {
	a, _ := math.Lgamma(n + 1)
	b, _ := math.Lgamma(k + 1)
	c, _ := math.Lgamma(n - k + 1)
	return a - b - c
}

// binomialInversionMax is the mean n·min(p, 1−p) below which sampleBinomial
// inverts the CDF by sequential search.
const binomialInversionMax = 10

// sampleBinomial draws from Binomial(n, p). With p ≤ ½ (by symmetry), small
// means use inversion and larger ones the transformed rejection method with
// squeeze, BTRS (Hörmann 1993, "The generation of binomial random
// variates").
func sampleBinomial(n, p float64, rng *rand.Rand) float64 {
	if !isCount(n) || !(p >= 0 && p <= 1) {
		return math.NaN()
	}
	if p > 0.5 {
		return n - sampleBinomial(n, 1-p, rng)
	}
	if n == 0 || p == 0 {
		return 0
	}
	q := 1 - p
	if n*p < binomialInversionMax {
		u := rng.Float64()
		r := p / q
		pk := math.Exp(n * math.Log1p(-p)) // P(0)
		cdf := pk
		k := 0.0
		for u > cdf && k < n && pk > 0 {
			pk *= r * (n - k) / (k + 1)
			k++
			cdf += pk
		}
		return k
	}
	spq := math.Sqrt(n * p * q)
	b := 1.15 + 2.53*spq
	a := -0.0873 + 0.0248*b + 0.01*p
	c := n*p + 0.5
	vr := 0.92 - 4.2/b
	alpha := (2.83 + 5.1/b) * spq
	lpq := math.Log(p / q)
	m := math.Floor((n + 1) * p)
	h := lchoose(n, m) // the mass at the mode m is C(n, m)·pᵐ·qⁿ⁻ᵐ
	loader := n >= btrsLoaderMin
	var lfm float64
	if loader {
		lfm = logBinomRaw(m, n-m, n*p, n*q) // log of that mass
	}
	for {
		u := rng.Float64() - 0.5
		v := rng.Float64()
		us := 0.5 - math.Abs(u)
		k := math.Floor((2*a/us+b)*u + c)
		if k < 0 || k > n {
			continue
		}
		if us >= 0.07 && v <= vr {
			return k
		}
		// Accept if v·α/(a/us² + b) ≤ f(k)/f(m), in logs.
		var lr float64
		if loader && k > 0 && k < n {
			lr = logBinomRaw(k, n-k, n*p, n*q) - lfm
		} else {
			lr = lchoose(n, k) - h + (k-m)*lpq
		}
		if math.Log(v*alpha/(a/(us*us)+b)) <= lr {
			return k
		}
	}
}

// btrsLoaderMin is the number of trials from which sampleBinomial's
// acceptance test takes the log masses in Loader's form (logBinomRaw). The
// log-gammas of lchoose, each about n·log n, cancel between C(n, k) and
// C(n, m) only up to their rounding, 1e-16·n·log n: several units from
// n = 1e15 (the draws' variance came out 15% too large at n = 1e15 and
// threefold at n = 1e17). Below it the direct form is kept, so that draws
// there are the same as before.
const btrsLoaderMin = 1 << 20

// BinomialLogit is the binomial distribution with N trials and success
// probability 1/(1+e^(−Eta)) (Stan's binomial_logit), evaluated without
// forming the probability: log σ(η) = −softplus(−η) keeps its digits for
// large |η|, where σ(η) rounds to 0 or 1.
type BinomialLogit struct {
	N, Eta float64
}

// LogProb returns the log mass at k.
func (d BinomialLogit) LogProb(k float64) float64 {
	lp, _ := d.eval(k, nil)
	return lp
}

// Score writes the partials of LogProb(k) with respect to (N, Eta) into dst
// (allocated if nil) and returns it. N is an integer argument: its partial
// is reported as 0.
func (d BinomialLogit) Score(dst []float64, k float64) []float64 {
	dst = scoreDst(dst, 2)
	d.eval(k, dst)
	return dst
}

// Rand returns a draw. It draws the count of the less likely outcome, whose
// probability σ(−|η|) is exact where 1 − σ(|η|) would round to 0.
func (d BinomialLogit) Rand(rng *rand.Rand) float64 {
	if d.Eta > 0 {
		return d.N - sampleBinomial(d.N, InvLogit(-d.Eta), rng)
	}
	return sampleBinomial(d.N, InvLogit(d.Eta), rng)
}

// Mean returns N·σ(Eta).
func (d BinomialLogit) Mean() float64 { return d.N * InvLogit(d.Eta) }

// Variance returns N·σ(Eta)·σ(−Eta).
func (d BinomialLogit) Variance() float64 { return d.N * InvLogit(d.Eta) * InvLogit(-d.Eta) }

// eval computes log C(n, k) − k·softplus(−η) − (n−k)·softplus(η) and the
// partial k − n·σ(η). An infinite η is the limit, as in BernoulliLogit.
func (d BinomialLogit) eval(k float64, dp []float64) (lp, dx float64) {
	n, eta := d.N, d.Eta
	if !isCount(n) || math.IsNaN(eta) || math.IsNaN(k) {
		return invalid(dp)
	}
	if !isCount(k) || k > n {
		return outside(dp)
	}
	p, q := InvLogit(eta), InvLogit(-eta)
	switch {
	case k > 0 && k < n && n >= stirlingMin && p >= 0x1p-1022 && q >= 0x1p-1022:
		// As in Binomial: Loader's form near the mode, from n·p and n·q
		// each with a relative error of an ulp (so p and q not
		// subnormal).
		lp = logBinomRaw(k, n-k, n*p, n*q)
	default:
		lp = logitBinomialTerms(lchoose(n, k), k, n, eta)
	}
	return binomialLogitEnd(lp, k, n, eta, p, q, dp)
}

// logitBinomialTerms returns lc − k·softplus(−η) − (n−k)·softplus(η),
// lc = log C(n, k), leaving out a term whose count is 0 (so that an
// infinite η gives the limit).
func logitBinomialTerms(lc, k, n, eta float64) float64 {
	lp := lc
	if k > 0 {
		lp -= k * Softplus(-eta)
	}
	if k < n {
		lp -= (n - k) * Softplus(eta)
	}
	return lp
}

// binomialLogitEnd finishes BinomialLogit's kernel at log mass lp, with
// p = σ(η) and q = σ(−η): outside the support where lp is −Inf, else the
// partial in η.
func binomialLogitEnd(lp, k, n, eta, p, q float64, dp []float64) (float64, float64) {
	if math.IsInf(lp, -1) {
		return outside(dp)
	}
	if dp != nil {
		dp[0] = 0
		// k − n·σ(η) in one rounding from the smaller of σ(±η), which
		// keeps the digits 1 − σ(|η|) would lose: n·q − (n − k) for η > 0.
		if eta > 0 {
			dp[1] = math.FMA(n, q, -(n - k))
		} else {
			dp[1] = math.FMA(-n, p, k)
		}
	}
	return lp, 0
}
