package dist

import (
	"math"
	"math/rand/v2"
)

// Multinomial is the multinomial distribution of the counts of K
// categories in N independent draws (N a count, held as a float64 as in
// gonum) with probabilities P (non-negative, K ≥ 1). P need not sum to 1:
// it is taken relative to its sum, so a simplex that data load to 1e-8
// and unnormalised softmax weights both work.
type Multinomial struct {
	N float64
	P []float64
}

// Rand writes a draw of the K counts into dst (length K) and returns it:
// sequential binomials, count k being Binomial(N − c_0 − … − c_{k−1},
// P_k / (P_k + … + P_{K−1})), the last the rest, so the counts sum to N
// exactly. An N that is not a count, or a P with a negative or non-finite
// entry or a zero sum, gives NaN counts.
func (d Multinomial) Rand(dst []float64, rng *rand.Rand) []float64 {
	if len(dst) != len(d.P) || len(dst) == 0 {
		panic(errLength)
	}
	rest := 0.0
	for _, p := range d.P {
		if !(p >= 0) || math.IsInf(p, 1) {
			rest = math.NaN()
			break
		}
		rest += p
	}
	if !isCount(d.N) || !(rest > 0) || math.IsInf(rest, 1) {
		for j := range dst {
			dst[j] = math.NaN()
		}
		return dst
	}
	left := d.N
	last := len(dst) - 1
	for j, p := range d.P[:last] {
		c := 0.0
		if left > 0 && p > 0 {
			q := 1.0 // rounding may leave rest at or below p: the rest is p's
			if p < rest {
				q = p / rest
			}
			c = sampleBinomial(left, q, rng)
		}
		dst[j] = c
		left -= c
		rest -= p
	}
	dst[last] = left
	return dst
}
