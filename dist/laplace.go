package dist

import (
	"math"
	"math/rand/v2"
)

// Laplace is the Laplace (double exponential) distribution with location Mu
// and scale Sigma > 0: log p(x) = −log 2σ − |x − μ|/σ. It is Stan's
// double_exponential, a likelihood robust to outliers and the prior of the
// Bayesian lasso.
type Laplace struct {
	Mu, Sigma float64
}

// LogProb returns the log density at x.
func (d Laplace) LogProb(x float64) float64 {
	lp, _ := d.eval(x, nil)
	return lp
}

// Score writes the partials of LogProb(x) with respect to (Mu, Sigma) into
// dst (allocated if nil) and returns it. At x = Mu, where the density has a
// kink, the partial in Mu is the subgradient 0.
func (d Laplace) Score(dst []float64, x float64) []float64 {
	dst = scoreDst(dst, 2)
	d.eval(x, dst)
	return dst
}

// ScoreInput returns the derivative of LogProb with respect to x: the
// subgradient 0 at x = Mu.
func (d Laplace) ScoreInput(x float64) float64 {
	_, dx := d.eval(x, nil)
	return dx
}

// Rand returns a draw: Mu plus Sigma times an exponential with a random
// sign.
func (d Laplace) Rand(rng *rand.Rand) float64 {
	e := rng.ExpFloat64()
	if rng.Uint64()&1 == 0 {
		e = -e
	}
	return d.Mu + d.Sigma*e
}

// Mean returns Mu.
func (d Laplace) Mean() float64 { return d.Mu }

// Variance returns 2·Sigma².
func (d Laplace) Variance() float64 { return 2 * d.Sigma * d.Sigma }

// eval returns the log density and its derivative in x, writing the
// partials in (Mu, Sigma) into dp unless it is nil. The density is not
// differentiable at x = Mu; there the partials in x and Mu are the
// subgradient 0 (the midpoint of the one-sided derivatives ∓1/σ), as in
// Stan, so that a fit sitting exactly on a data point is not pushed either
// way.
func (d Laplace) eval(x float64, dp []float64) (lp, dx float64) {
	if !finite(d.Mu) || !positive(d.Sigma) || math.IsNaN(x) {
		return invalid(dp)
	}
	if math.IsInf(x, 0) {
		return outside(dp)
	}
	r := x - d.Mu
	var sign float64 // sign of x − μ; 0 at the kink
	switch {
	case r > 0:
		sign = 1
	case r < 0:
		sign = -1
	}
	az := math.Abs(r) / d.Sigma
	if dp != nil {
		dp[0] = sign / d.Sigma
		dp[1] = (az - 1) / d.Sigma
	}
	return -math.Ln2 - logx(d.Sigma) - az, -sign / d.Sigma
}
