package dist

import (
	"fmt"
	"math"
)

// LogMixFn is log_mix(theta, lp1, lp2) = log(theta·e^lp1 + (1 − theta)·e^lp2)
// as a family of theta with parameters lp1 and lp2, so that a model's
// log_mix is one node of the tape's elementwise density machinery (its
// three arguments broadcast as a density's do). Composed of log(theta) and
// log1m(theta), it failed at theta = 0 or 1, where Stan's log_mix is
// lp2 or lp1 (a mixing weight of inv_logit(...) reaches 1 in warm-up);
// here both ends are values with finite derivatives.
var LogMixFn = Univariate{
	Name:     "log_mix",
	Params:   []Param{{Name: "lp1", Support: Real}, {Name: "lp2", Support: Real}},
	Support:  Unit,
	Doc:      "log(theta·exp(lp1) + (1 − theta)·exp(lp2)), the value of log_mix(theta, lp1, lp2)",
	Kernel:   logMixKernel,
	Quantity: "value",
	Explain:  logMixExplain,
}

// logMixKernel returns log_mix(theta, a, b), its partials in a and b in dp
// (when non-nil) and its partial in theta: with f the value, e^(a−f)·theta,
// e^(b−f)·(1 − theta) and e^(a−f) − e^(b−f), each finite at the ends.
// theta outside [0, 1] is −Inf (an error at fit time, logMixExplain).
func logMixKernel(theta float64, p, dp []float64) (float64, float64) {
	a, b := p[0], p[1]
	if !(theta >= 0 && theta <= 1) {
		if math.IsNaN(theta) || math.IsNaN(a) || math.IsNaN(b) {
			if dp != nil {
				dp[0], dp[1] = math.NaN(), math.NaN()
			}
			return math.NaN(), math.NaN()
		}
		return outside(dp)
	}
	u := a + math.Log(theta) // −Inf at theta = 0
	v := b + math.Log1p(-theta)
	var f float64
	switch {
	case math.IsInf(u, -1):
		f = v
	case math.IsInf(v, -1):
		f = u
	case u >= v:
		f = u + math.Log1p(math.Exp(v-u))
	default:
		f = v + math.Log1p(math.Exp(u-v))
	}
	if math.IsInf(f, -1) { // both terms 0: no derivative to take
		clear(dp)
		return f, 0
	}
	ea, eb := math.Exp(a-f), math.Exp(b-f)
	if dp != nil {
		dp[0], dp[1] = theta*ea, (1-theta)*eb
	}
	return f, ea - eb
}

// logMixExplain says why log_mix is not finite at theta and p.
func logMixExplain(theta float64, p []float64, lp float64) (string, bool) {
	switch {
	case !(theta >= 0 && theta <= 1) && !math.IsNaN(theta):
		return fmt.Sprintf("theta must be in [0, 1] (got %g)", theta), true
	case math.IsInf(lp, -1):
		return "both terms are 0 (theta·e^lp1 and (1 − theta)·e^lp2): the log of 0", false
	}
	return "", false
}
