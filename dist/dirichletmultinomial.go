package dist

import (
	"math"
	"math/rand/v2"
)

// DirichletMultinomial is the distribution of the counts of K categories
// in N draws from Multinomial(theta) with theta ~ Dirichlet(Alpha)
// integrated out (Stan's dirichlet_multinomial; Alpha > 0, K ≥ 1): the
// Pólya urn, overdispersed counts with mean N·Alpha/ΣAlpha. With m = Σy_k
// and a0 = ΣAlpha its log probability is
//
//	lgamma(a0) − lgamma(m + a0) + Σ_k (lgamma(y_k + α_k) − lgamma(α_k)) + log m! − Σ_k log y_k!
//
// each lgamma difference as LogRisingFactorial(α_k, y_k) (and (a0, m)),
// which keeps its digits for large Alpha (where the distribution nears
// Multinomial) and for tiny Alpha (α + y − 1, the falling factorial's
// argument, would round α away: 3e-4 of the value at α = 1e-12). The
// compiler writes the same sum with tape nodes; this type is its
// reference.
type DirichletMultinomial struct {
	Alpha []float64
}

// LogProb returns the log probability of the counts y (length K), −Inf
// where an entry is not a count, NaN for an Alpha entry not > 0.
func (d DirichletMultinomial) LogProb(y []float64) float64 {
	if len(y) != len(d.Alpha) || len(y) == 0 {
		panic(errLength)
	}
	var m, a0, lp float64
	for k, c := range y {
		a := d.Alpha[k]
		if !(a > 0) {
			return math.NaN()
		}
		if !isCount(c) {
			return math.Inf(-1)
		}
		lf, _ := math.Lgamma(c + 1)
		lp += LogRisingFactorial(a, c) - lf
		m, a0 = m+c, a0+a
	}
	lm, _ := math.Lgamma(m + 1)
	return lp - LogRisingFactorial(a0, m) + lm
}

// Rand writes a draw of the K counts in N draws into dst (length K) and
// returns it: theta from Dirichlet(Alpha), then Multinomial(N, theta).
func (d DirichletMultinomial) Rand(dst []float64, n float64, rng *rand.Rand) []float64 {
	theta := Dirichlet{Alpha: d.Alpha}.Rand(nil, rng)
	return Multinomial{N: n, P: theta}.Rand(dst, rng)
}
