package dist

import (
	"math"
	"math/rand/v2"
)

// PoissonBinomial is the distribution of the number of successes in
// independent Bernoulli trials with success probabilities Theta, each in
// [0, 1] (Stan's poisson_binomial): a count 0..N, N = len(Theta), with
// mean Σθ_j. Its masses come from the O(N²) recursion over the trials in
// log space,
//
//	L_0(0) = 0,  L_{j+1}(k) = logaddexp(L_j(k) + log(1 − θ_j), L_j(k − 1) + log θ_j)
//
// L_j(k) the log probability of k successes in the first j trials, which
// keeps the digits of masses far below the smallest double's reach of a
// product of probabilities. PoissonBinomialEval and PoissonBinomialGrad
// are the kernels the tape calls without allocating; the methods here are
// their references and the replicate's sampler.
type PoissonBinomial struct {
	Theta []float64
}

// PoissonBinomialScratch is the length of the layers PoissonBinomialEval
// and PoissonBinomialGrad need for n trials: (n + 1)² for the recursion's
// layers and 2(n + 1) for the reverse pass's adjoints.
func PoissonBinomialScratch(n int) int { return (n+1)*(n+1) + 2*(n+1) }

// pbBand returns the successes k of layer j (0..j) that can reach the
// outcome set of y after all n trials: k = y for the mass (tail 0), k ≤ y
// for the CDF (tail −1), k > y for the survival function (tail 1). Other
// entries of the layer are never read.
func pbBand(j, n, y, tail int) (lo, hi int) {
	lo, hi = 0, j
	switch tail {
	case 0:
		lo, hi = max(0, y-(n-j)), min(j, y)
	case -1:
		hi = min(j, y)
	default:
		lo = max(0, y+1-(n-j))
	}
	return lo, hi
}

// PoissonBinomialEval returns log P(Y = y) (tail 0), log P(Y ≤ y) (tail
// −1) or log P(Y > y) (tail 1) for Y ~ PoissonBinomial(theta), y an int in
// 0..N, the recursion's layers left in scr (PoissonBinomialScratch(N)
// long) for PoissonBinomialGrad. Each θ must lie in [0, 1]; the caller
// checks.
func PoissonBinomialEval(theta []float64, y, tail int, scr []float64) float64 {
	n, w := len(theta), len(theta)+1
	l := scr[:w*w]
	l[0] = 0
	ninf := math.Inf(-1)
	for j, t := range theta {
		prev, next := l[j*w:j*w+w], l[(j+1)*w:(j+1)*w+w]
		plo, phi := pbBand(j, n, y, tail)
		lo, hi := pbBand(j+1, n, y, tail)
		lt, l1m := math.Log(t), math.Log1p(-t)
		for k := lo; k <= hi; k++ {
			a, b := ninf, ninf
			if k >= plo && k <= phi {
				a = prev[k] + l1m
			}
			if k-1 >= plo && k-1 <= phi {
				b = prev[k-1] + lt
			}
			next[k] = LogAddExp(a, b)
		}
	}
	return PoissonBinomialTail(scr, n, y, tail)
}

// PoissonBinomialAll fills scr's layers for every outcome 0..N at once
// (PoissonBinomialEval's with nothing banded): then PoissonBinomialTail
// gives any y's value and PoissonBinomialGrad any y's partials from the
// same layers, equal to those of y's own banded pass (the band is closed
// under the recursion, so its entries are computed alike). One pass
// serves many counts under a shared theta.
func PoissonBinomialAll(theta []float64, scr []float64) {
	PoissonBinomialEval(theta, len(theta), -1, scr)
}

// PoissonBinomialTail returns the value of y (log P(Y = y), log P(Y ≤ y)
// or log P(Y > y) by tail) from the last layer of n trials left in scr.
func PoissonBinomialTail(scr []float64, n, y, tail int) float64 {
	w := n + 1
	last := scr[n*w : n*w+w]
	switch tail {
	case 0:
		return last[y]
	case -1:
		return logSumExpSlice(last[:min(y, n)+1])
	}
	if y >= n {
		return math.Inf(-1)
	}
	return logSumExpSlice(last[y+1 : n+1])
}

// PoissonBinomialGrad adds g·∂f/∂θ_j to dst[j] for f the value
// PoissonBinomialEval(theta, y, tail, scr) returned as v, its layers still
// in scr, by the forward-backward identity: with B_j(k) the probability
// that trials j.. take k successes after j trials into the outcome set,
// computed backwards in log space (B_n = 1 on the set),
//
//	∂f/∂θ_j = Σ_k (P_j(k − 1) − P_j(k))·B_{j+1}(k) / exp(v)
//
// each term one exp of a sum of logs, P_j = exp(L_j). B is finite where a
// θ of 0 or 1 makes a state of the forward pass impossible, so the partial
// is exact there too (a reverse pass through the log recursion would meet
// 0·∞ at such a state). O(N²), no allocation.
func PoissonBinomialGrad(dst, theta []float64, y, tail int, v, g float64, scr []float64) {
	n, w := len(theta), len(theta)+1
	if math.IsInf(v, -1) || math.IsNaN(v) || g == 0 {
		return
	}
	ninf := math.Inf(-1)
	l := scr[:w*w]
	lb, nlb := scr[w*w:w*w+w], scr[w*w+w:w*w+2*w]
	lo, hi := pbBand(n, n, y, tail)
	for k := lo; k <= hi; k++ {
		lb[k] = 0
	}
	for j := n - 1; j >= 0; j-- {
		t := theta[j]
		prev := l[j*w : j*w+w]
		plo, phi := pbBand(j, n, y, tail)
		lo, hi := pbBand(j+1, n, y, tail)
		s := 0.0
		for k := lo; k <= hi; k++ {
			b := lb[k] - v
			if k-1 >= plo && k-1 <= phi {
				s += math.Exp(prev[k-1] + b)
			}
			if k >= plo && k <= phi {
				s -= math.Exp(prev[k] + b)
			}
		}
		dst[j] += g * s
		if j == 0 {
			break
		}
		lt, l1m := math.Log(t), math.Log1p(-t)
		for k := plo; k <= phi; k++ {
			a, c := ninf, ninf
			if k >= lo && k <= hi {
				a = lb[k] + l1m
			}
			if k+1 >= lo && k+1 <= hi {
				c = lb[k+1] + lt
			}
			nlb[k] = LogAddExp(a, c)
		}
		lb, nlb = nlb, lb
	}
}

// logSumExpSlice returns log Σ exp(x_i), −∞ for no elements or all −∞.
func logSumExpSlice(x []float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = max(m, v)
	}
	if math.IsInf(m, 0) {
		return m
	}
	s := 0.0
	for _, v := range x {
		s += math.Exp(v - m)
	}
	return m + math.Log(s)
}

// eval is LogProb, LogCDF or LogCCDF by tail, allocating its scratch.
func (d PoissonBinomial) eval(y float64, tail int) float64 {
	n := len(d.Theta)
	for _, t := range d.Theta {
		if !(t >= 0 && t <= 1) {
			return math.NaN()
		}
	}
	if y != math.Trunc(y) || y < 0 || y > float64(n) {
		if tail == -1 && y > float64(n) {
			return 0
		}
		if tail == 1 && y < 0 {
			return 0
		}
		return math.Inf(-1)
	}
	return PoissonBinomialEval(d.Theta, int(y), tail, make([]float64, PoissonBinomialScratch(n)))
}

// LogProb returns log P(Y = y): −Inf outside 0..N or off the integers,
// NaN for a θ outside [0, 1].
func (d PoissonBinomial) LogProb(y float64) float64 { return d.eval(y, 0) }

// LogCDF returns log P(Y ≤ y) for an int y (Stan's poisson_binomial_lcdf).
func (d PoissonBinomial) LogCDF(y float64) float64 { return d.eval(y, -1) }

// LogCCDF returns log P(Y > y) for an int y (Stan's
// poisson_binomial_lccdf), summed from the upper masses, never 1 − CDF.
func (d PoissonBinomial) LogCCDF(y float64) float64 { return d.eval(y, 1) }

// Score returns ∂/∂θ_j of log P(Y = y) (tail 0), log P(Y ≤ y) (−1) or
// log P(Y > y) (1) in dst (allocated if nil), for an int y in 0..N.
func (d PoissonBinomial) Score(dst []float64, y, tail int) []float64 {
	n := len(d.Theta)
	if dst == nil {
		dst = make([]float64, n)
	}
	for j := range dst {
		dst[j] = 0
	}
	scr := make([]float64, PoissonBinomialScratch(n))
	v := PoissonBinomialEval(d.Theta, y, tail, scr)
	PoissonBinomialGrad(dst, d.Theta, y, tail, v, 1, scr)
	return dst
}

// Rand returns a draw: the sum of a Bernoulli(θ_j) per trial, one uniform
// each, in order.
func (d PoissonBinomial) Rand(rng *rand.Rand) float64 {
	s := 0.0
	for _, t := range d.Theta {
		if rng.Float64() < t {
			s++
		}
	}
	return s
}
