package dist

import (
	"math"
	"math/rand/v2"
)

// Bernoulli is the Bernoulli distribution on {0, 1} with success probability
// P in [0, 1].
type Bernoulli struct {
	P float64
}

// LogProb returns the log mass at y (0 or 1; anything else gives −Inf).
func (d Bernoulli) LogProb(y float64) float64 {
	lp, _ := d.eval(y, nil)
	return lp
}

// Score writes the partial of LogProb(y) with respect to P into dst
// (allocated if nil) and returns it.
func (d Bernoulli) Score(dst []float64, y float64) []float64 {
	dst = scoreDst(dst, 1)
	d.eval(y, dst)
	return dst
}

// Rand returns a draw.
func (d Bernoulli) Rand(rng *rand.Rand) float64 {
	if rng.Float64() < d.P {
		return 1
	}
	return 0
}

// Mean returns P.
func (d Bernoulli) Mean() float64 { return d.P }

// Variance returns P(1−P).
func (d Bernoulli) Variance() float64 { return d.P * (1 - d.P) }

func (d Bernoulli) eval(y float64, dp []float64) (lp, dx float64) {
	p := d.P
	if !(p >= 0 && p <= 1) || math.IsNaN(y) {
		return invalid(dp)
	}
	switch {
	case y == 1 && p > 0:
		lp = logx(p)
		if dp != nil {
			dp[0] = 1 / p
		}
	case y == 0 && p < 1:
		lp = math.Log1p(-p)
		if dp != nil {
			dp[0] = -1 / (1 - p)
		}
	default: // not 0 or 1, or probability 0
		return outside(dp)
	}
	return lp, 0
}

// BernoulliLogit is the Bernoulli distribution on {0, 1} with success
// probability 1/(1+e^(−Logit)), evaluated without forming the probability.
type BernoulliLogit struct {
	Logit float64
}

// LogProb returns the log mass at y (0 or 1; anything else gives −Inf).
func (d BernoulliLogit) LogProb(y float64) float64 {
	lp, _ := d.eval(y, nil)
	return lp
}

// Score writes the partial of LogProb(y) with respect to Logit into dst
// (allocated if nil) and returns it.
func (d BernoulliLogit) Score(dst []float64, y float64) []float64 {
	dst = scoreDst(dst, 1)
	d.eval(y, dst)
	return dst
}

// Rand returns a draw.
func (d BernoulliLogit) Rand(rng *rand.Rand) float64 {
	if rng.Float64() < InvLogit(d.Logit) {
		return 1
	}
	return 0
}

// Mean returns the success probability.
func (d BernoulliLogit) Mean() float64 { return InvLogit(d.Logit) }

// Variance returns p(1−p) for the success probability p.
func (d BernoulliLogit) Variance() float64 { return InvLogit(d.Logit) * InvLogit(-d.Logit) }

func (d BernoulliLogit) eval(y float64, dp []float64) (lp, dx float64) {
	l := d.Logit
	if math.IsNaN(l) || math.IsNaN(y) {
		return invalid(dp)
	}
	switch y {
	case 1:
		lp = -Softplus(-l)
		if dp != nil {
			dp[0] = InvLogit(-l)
		}
	case 0:
		lp = -Softplus(l)
		if dp != nil {
			dp[0] = -InvLogit(l)
		}
	default:
		return outside(dp)
	}
	if math.IsInf(lp, -1) {
		return outside(dp)
	}
	return lp, 0
}
