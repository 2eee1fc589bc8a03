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

// BernoulliProbit is Bernoulli(Phi(eta)) in eta itself, the family a ~
// Bernoulli whose p is Phi(eta) evaluates (autodiff.Builder.Density): log
// Phi(eta) at 1 and log Phi(−eta) at 0, from the normal tail, so that
// neither rounds to log 0 where Phi(eta) rounds to 1 (eta past 8.3) or to
// 0 (eta below −37.5), as Stan's bernoulli(Phi(eta)) does. Its name is
// Bernoulli's, for messages; it is in no table.
var BernoulliProbit = Univariate{
	Name: "Bernoulli", Params: []Param{{"p = Phi(eta): eta", Real}},
	Support: Binary, Doc: "0/1 outcome with success probability Phi(eta)",
	Kernel: func(x float64, p, dp []float64) (float64, float64) {
		eta := p[0]
		if math.IsNaN(eta) || math.IsNaN(x) {
			return invalid(dp)
		}
		var lp, g float64
		switch x {
		case 1: // log P(Z > −eta), whose derivative in eta is the hazard at −eta
			lp, g = normalTail(-eta)
		case 0:
			lp, g = normalTail(eta)
			g = -g
		default:
			return outside(dp)
		}
		if math.IsInf(lp, -1) {
			return outside(dp)
		}
		if dp != nil {
			dp[0] = g
		}
		return lp, 0
	},
	Rand: func(p []float64, rng *rand.Rand) float64 { return Bernoulli{Phi(p[0])}.Rand(rng) },
}
