package dist

import (
	"math"
	"math/rand/v2"
)

// Hypergeometric is the distribution of the number of successes in N
// draws without replacement from an urn of A successes and B failures
// (Stan's hypergeometric; N, A, B counts held as float64, N ≤ A + B), with
// mass C(A, k)·C(B, N − k)/C(A + B, N) on max(0, N − B) ≤ k ≤ min(A, N).
// Its arguments are integers: their partials are 0, and gpp takes them
// from data or constants only.
type Hypergeometric struct {
	N, A, B float64
}

// LogProb returns the log mass at k.
func (d Hypergeometric) LogProb(k float64) float64 {
	lp, _ := d.eval(k, nil)
	return lp
}

// Score writes the partials of LogProb(k) with respect to (N, A, B), all
// 0 (integer arguments), into dst (allocated if nil) and returns it.
func (d Hypergeometric) Score(dst []float64, k float64) []float64 {
	dst = scoreDst(dst, 3)
	d.eval(k, dst)
	return dst
}

// Rand returns a draw by drawing the N balls one by one, O(N).
func (d Hypergeometric) Rand(rng *rand.Rand) float64 {
	if !d.valid() {
		return math.NaN()
	}
	a, b, k := d.A, d.B, 0.0
	for range int(d.N) {
		if rng.Float64()*(a+b) < a {
			a--
			k++
		} else {
			b--
		}
	}
	return k
}

// Mean returns N·A/(A + B).
func (d Hypergeometric) Mean() float64 { return d.N * d.A / (d.A + d.B) }

// Variance returns N·A·B·(A + B − N)/((A + B)²·(A + B − 1)).
func (d Hypergeometric) Variance() float64 {
	s := d.A + d.B
	if s <= 1 {
		return 0
	}
	return d.N * d.A * d.B * (s - d.N) / (s * s * (s - 1))
}

func (d Hypergeometric) valid() bool {
	return isCount(d.N) && isCount(d.A) && isCount(d.B) && d.N <= d.A+d.B
}

// eval computes log C(A, k) + log C(B, N − k) − log C(A + B, N), each
// log C(n, j) as −log1p(n) − log B(n − j + 1, j + 1) (LogBeta combines
// the Stirling terms first, so each keeps its digits; their sum keeps
// them relative to the largest, log C(A + B, N)); the partials are 0.
func (d Hypergeometric) eval(k float64, dp []float64) (lp, dx float64) {
	if !d.valid() || math.IsNaN(k) {
		return invalid(dp)
	}
	if !isCount(k) || k > d.A || k > d.N || d.N-k > d.B {
		return outside(dp)
	}
	clear(dp)
	lc := func(n, j float64) float64 { return -math.Log1p(n) - LogBeta(n-j+1, j+1) }
	return lc(d.A, k) + lc(d.B, d.N-k) - lc(d.A+d.B, d.N), 0
}
