package dist

import (
	"math"
	"math/rand/v2"
)

// BetaBinomial is the beta-binomial distribution (Stan's beta_binomial):
// the number of successes in N trials (a non-negative integer held as a
// float64) whose success probability is drawn from Beta(A, B), A, B > 0,
// with mass C(N, k)·B(k+A, N−k+B)/B(A, B) on 0..N. Values outside 0..N or
// non-integers have log mass −Inf.
type BetaBinomial struct {
	N, A, B float64
}

// LogProb returns the log mass at k.
func (d BetaBinomial) LogProb(k float64) float64 {
	lp, _ := d.eval(k, nil)
	return lp
}

// Score writes the partials of LogProb(k) with respect to (N, A, B) into
// dst (allocated if nil) and returns it. N is an integer argument: its
// partial is reported as 0.
func (d BetaBinomial) Score(dst []float64, k float64) []float64 {
	dst = scoreDst(dst, 3)
	d.eval(k, dst)
	return dst
}

// Rand returns a draw: Binomial(N, p) with p ~ Beta(A, B).
func (d BetaBinomial) Rand(rng *rand.Rand) float64 {
	if !isCount(d.N) || !positive(d.A) || !positive(d.B) {
		return math.NaN()
	}
	return sampleBinomial(d.N, Beta{d.A, d.B}.Rand(rng), rng)
}

// Mean returns N·A/(A+B).
func (d BetaBinomial) Mean() float64 { return d.N * d.A / (d.A + d.B) }

// Variance returns N·A·B·(A+B+N)/((A+B)²·(A+B+1)).
func (d BetaBinomial) Variance() float64 {
	s := d.A + d.B
	return d.N * d.A * d.B * (s + d.N) / (s * s * (s + 1))
}

// eval computes log C(n, k) + log B(k+a, n−k+b) − log B(a, b), written as
// T(k, a) + T(n−k, b) − T(n, a+b) with T(m, s) = log Γ(m+s) − log Γ(m+1)
// − log Γ(s) (lbetaRatio), and the partials
// ψ(a+k) − ψ(a) − [ψ(a+b+n) − ψ(a+b)] and likewise in b, each difference
// by digammaDiff, so that shapes far above n (the binomial limit) keep the
// digits of the small differences.
func (d BetaBinomial) eval(k float64, dp []float64) (lp, dx float64) {
	n, a, b := d.N, d.A, d.B
	if !isCount(n) || !positive(a) || !positive(b) || math.IsNaN(k) {
		return invalid(dp)
	}
	if !isCount(k) || k > n {
		return outside(dp)
	}
	lp = lbetaRatio(k, a) + lbetaRatio(n-k, b) - lbetaRatio(n, a+b)
	if math.IsInf(lp, -1) {
		return outside(dp)
	}
	if dp != nil {
		dn := digammaDiff(a+b, n)
		dp[0] = 0
		dp[1] = digammaDiff(a, k) - dn
		dp[2] = digammaDiff(b, n-k) - dn
	}
	return lp, 0
}

// lbetaRatio returns log Γ(m+s) − log Γ(m+1) − log Γ(s) for a count m and
// s > 0, −log(m·B(m, s)) for m > 0, from a rising factorial (lrising) of
// the larger of m and s, so that the log-gammas of the two large arguments,
// each about m·log m, do not cancel: (s)_m/m! for s ≥ m; for s < m,
// Γ(m+s)/Γ(m+1) as 1/(m+s)_(1−s) (s < 1) or (m+1)_(s−1), over Γ(s).
func lbetaRatio(m, s float64) float64 {
	if s >= m {
		lg, _ := math.Lgamma(m + 1)
		return lrising(s, m) - lg
	}
	lg, _ := math.Lgamma(s)
	if s < 1 {
		return -lrising(m+s, 1-s) - lg
	}
	return lrising(m+1, s-1) - lg
}

// lrising returns log Γ(x+m) − log Γ(x), the log of the rising factorial
// (x)_m, for x > 0, m ≥ 0. From x = stirlingMin on it is Stirling's form
// with the corrections subtracted, (x−½)·log1p(m/x) + m·log(x+m) − m +
// stirlerr(x+m) − stirlerr(x) with stirlerr(z) = log Γ(z+1) − (z+½)·log z
// + z − ½·log 2π (so log Γ(z) = stirlerr(z) + (z−½)·log z − z + ½·log 2π):
// the two log-gammas, each about x·log x, would cancel to about m·log x.
func lrising(x, m float64) float64 {
	switch {
	case m == 0:
		return 0
	case x >= stirlingMin:
		return (x-0.5)*math.Log1p(m/x) + m*(math.Log(x+m)-1) + (stirlerr(x+m) - stirlerr(x))
	}
	a, _ := math.Lgamma(x + m)
	b, _ := math.Lgamma(x)
	return a - b
}

// betaBinomialLogCDF is BetaBinomial(n, a, b) by summation of the masses
// of a tail in log space (betaBinomialSum). The tail asked for is summed
// when it has no more terms than the other; otherwise the other is summed
// and its complement taken, log(1 − P), if P < ½, where the complement
// keeps its digits, and the tail asked for is summed after all if not.
// The cost is at most n + 1 terms. n is a count, its partial 0.
func betaBinomialLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	n, a, b := p[0], p[1], p[2]
	switch {
	case x < 0:
		return belowSupport(dp, upper)
	case x >= n:
		return aboveSupport(dp, upper)
	}
	k := math.Floor(x)
	dp[0] = 0
	short := (k+1 <= n-k) != upper // the tail asked for has no more terms
	if !short {
		l, da, db := betaBinomialSum(k, n, a, b, !upper)
		if l < -math.Ln2 {
			o := Log1mexp(-l)
			r := -math.Exp(l - o)
			dp[1], dp[2] = r*da, r*db
			return o, 0
		}
	}
	l, da, db := betaBinomialSum(k, n, a, b, upper)
	dp[1], dp[2] = da, db
	return l, 0
}

// betaBinomialSum returns log P(Y > k) (upper) or log P(Y ≤ k) of
// BetaBinomial(n, a, b) and its partials in a and b, 0 ≤ k < n: the masses
// of the tail, from the one next to k outwards, each from the one before
// by the ratio p_(j+1)/p_j = (n−j)(j+a)/((j+1)(n−j−1+b)), their partials
// carried along (∂ log p_(j+1) − ∂ log p_j is 1/(j+a) in a, −1/(n−j−1+b)
// in b), and summed relative to the largest so far (logSum).
func betaBinomialSum(k, n, a, b float64, upper bool) (l, da, db float64) {
	j := k
	if upper {
		j = k + 1
	}
	var first [3]float64
	lpj, _ := BetaBinomial{n, a, b}.eval(j, first[:])
	ga, gb := first[1], first[2]
	sum := newLogSum()
	for {
		sum.add(lpj, [3]float64{ga, gb})
		if upper {
			if j == n {
				break
			}
			lpj += math.Log((n-j)*(j+a)) - math.Log((j+1)*(n-j-1+b))
			ga += 1 / (j + a)
			gb -= 1 / (n - j - 1 + b)
			j++
		} else {
			if j == 0 {
				break
			}
			// p_(j−1)/p_j = j(n−j+b)/((n−j+1)(j−1+a))
			lpj += math.Log(j*(n-j+b)) - math.Log((n-j+1)*(j-1+a))
			ga -= 1 / (j - 1 + a)
			gb += 1 / (n - j + b)
			j--
		}
	}
	l, g := sum.result()
	return l, g[0], g[1]
}
