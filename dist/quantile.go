package dist

import (
	"fmt"
	"math"
)

// The quantile functions of a model's icdf(p, D(args)) (PyMC's pm.icdf,
// Stan's *_qf): x = F⁻¹(p), with the partials in p and in every argument
// of D. Closed forms where the family has one; Gamma through its log-space
// Newton solver (GammaLogQuantile) and StudentT through the inverse
// incomplete beta function (inv_inc_beta's), their partials by the implicit
// function rule dx/dθ = −(∂F/∂θ)/f(x) on the log CDF's own partials.

// quantileFn is a family's quantile at p in (0, 1) or at an end, with the
// parameter partials stored in dq (when not nil) and the partial in p
// returned.
type quantileFn func(p float64, q, dq []float64) (x, dx float64)

// quantiles are the families icdf knows, in the order of the docs.
var quantiles = []struct {
	name string
	fn   quantileFn
}{
	{"Normal", normalQuantile},
	{"LogNormal", logNormalQuantile},
	{"StudentT", studentTQuantile},
	{"Exponential", exponentialQuantile},
	{"Gamma", gammaQuantile},
	{"Weibull", weibullQuantile},
	{"Uniform", uniformQuantile},
	{"Logistic", logisticQuantile},
	{"Cauchy", cauchyQuantile},
	{"Gumbel", gumbelQuantile},
}

// QuantileNames lists the families Quantile knows, in the order of the docs.
func QuantileNames() []string {
	names := make([]string, len(quantiles))
	for i, q := range quantiles {
		names[i] = q.name
	}
	return names
}

// Quantile returns the family of icdf(p, name(args)): a kernel whose
// value argument is the probability p and whose result is the quantile,
// laid out as a density so that p and the arguments broadcast as
// logcdf's do. p outside [0, 1] is outside its domain (−Inf, an error at
// fit time, as Stan's qf functions reject it); an argument outside its
// support is NaN. The quantile at p = 0 or 1 is the end of the support,
// which is not finite for most families: an error at fit time too, which
// Explain words.
func Quantile(name string) (*Univariate, bool) {
	var f quantileFn
	for _, q := range quantiles {
		if q.name == name {
			f = q.fn
		}
	}
	u, known := LookupUnivariate(name)
	if f == nil || !known {
		return nil, false
	}
	k := func(p float64, q, dq []float64) (float64, float64) {
		for i, v := range q {
			if _, ok := u.Params[i].Support.Admits(v); !ok {
				return invalid(dq)
			}
		}
		switch {
		case math.IsNaN(p):
			return invalid(dq)
		case p < 0 || p > 1:
			return outside(dq)
		}
		return f(p, q, dq)
	}
	return &Univariate{
		Name:     "icdf(" + name + ")",
		Params:   u.Params,
		Support:  Unit,
		Doc:      "the quantile of " + name + " at p, the value of icdf(p, " + name + "(...))",
		Kernel:   k,
		Quantity: "quantile",
		Explain: func(p float64, q []float64, x float64) (string, bool) {
			switch {
			case p < 0 || p > 1:
				return fmt.Sprintf("p = %g is outside [0, 1]", p), true
			case math.IsInf(x, 0) && (p == 0 || p == 1):
				return fmt.Sprintf("the quantile at p = %g is %g, the end of %s's support (the outputs and the log density hold finite values only)", p, x, name), true
			}
			return "", false
		},
	}, true
}

// normalQuantile is Normal(mu, sigma): mu + sigma Φ⁻¹(p).
func normalQuantile(p float64, q, dq []float64) (float64, float64) {
	z := InvPhi(p)
	if dq != nil {
		dq[0], dq[1] = 1, z
	}
	return q[0] + q[1]*z, q[1] / NormalDensity(z)
}

// logNormalQuantile is LogNormal(mu, sigma): exp(mu + sigma Φ⁻¹(p)).
func logNormalQuantile(p float64, q, dq []float64) (float64, float64) {
	z := InvPhi(p)
	x := math.Exp(q[0] + q[1]*z)
	if dq != nil {
		dq[0], dq[1] = x, x*z
		if x == 0 || math.IsInf(x, 0) {
			dq[1] = 0
		}
	}
	return x, x * q[1] / NormalDensity(z)
}

// exponentialQuantile is Exponential(rate): −log(1 − p) / rate.
func exponentialQuantile(p float64, q, dq []float64) (float64, float64) {
	x := -math.Log1p(-p) / q[0]
	if dq != nil {
		dq[0] = -x / q[0]
	}
	return x, 1 / (q[0] * (1 - p))
}

// uniformQuantile is Uniform(lo, hi): lo + p (hi − lo), for lo < hi.
func uniformQuantile(p float64, q, dq []float64) (float64, float64) {
	lo, hi := q[0], q[1]
	if !(lo < hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return invalid(dq)
	}
	if dq != nil {
		dq[0], dq[1] = 1-p, p
	}
	return lo + p*(hi-lo), hi - lo
}

// logisticQuantile is Logistic(mu, sigma): mu + sigma logit(p).
func logisticQuantile(p float64, q, dq []float64) (float64, float64) {
	l := math.Log(p) - math.Log1p(-p)
	if dq != nil {
		dq[0], dq[1] = 1, l
	}
	return q[0] + q[1]*l, q[1] / (p * (1 - p))
}

// cauchyQuantile is Cauchy(mu, sigma): mu + sigma tan(π (p − ½)), from the
// nearer tail so that p near 0 or 1 keeps its digits.
func cauchyQuantile(p float64, q, dq []float64) (float64, float64) {
	var t float64
	switch {
	case p == 0:
		t = math.Inf(-1)
	case p == 1:
		t = math.Inf(1)
	case p < 0.25:
		t = -1 / math.Tan(math.Pi*p)
	case p > 0.75:
		t = 1 / math.Tan(math.Pi*(1-p))
	default:
		t = math.Tan(math.Pi * (p - 0.5))
	}
	if dq != nil {
		dq[0], dq[1] = 1, t
	}
	return q[0] + q[1]*t, q[1] * math.Pi * (1 + t*t)
}

// gumbelQuantile is Gumbel(mu, beta), F(x) = exp(−exp(−(x − mu)/beta)):
// mu − beta log(−log p).
func gumbelQuantile(p float64, q, dq []float64) (float64, float64) {
	m := -math.Log(p) // −log p, > 0 inside (0, 1)
	w := -math.Log(m)
	if dq != nil {
		dq[0], dq[1] = 1, w
	}
	return q[0] + q[1]*w, q[1] / (p * m)
}

// weibullQuantile is Weibull(shape k, scale sigma): sigma (−log(1 − p))^(1/k).
func weibullQuantile(p float64, q, dq []float64) (float64, float64) {
	k, s := q[0], q[1]
	l := -math.Log1p(-p)
	x := s * math.Pow(l, 1/k)
	if dq != nil {
		dq[0], dq[1] = -x*math.Log(l)/(k*k), x/s
		if x == 0 || math.IsInf(x, 0) {
			dq[0] = 0
		}
	}
	return x, s / k * math.Pow(l, 1/k-1) / (1 - p) // its limit at p = 0 too
}

// gammaQuantile is Gamma(shape a, rate beta): e^t / beta for t the log
// quantile of Gamma(a, 1). The shape partial is the implicit function
// rule on log P (whose partials keep their digits in the upper tail too,
// from Q's), and the partial in p is 1/f(x), from log f, so that nothing underflows.
func gammaQuantile(p float64, q, dq []float64) (float64, float64) {
	a, b := q[0], q[1]
	t := GammaLogQuantile(a, p)
	g := math.Exp(t)
	x := g / b
	if math.IsInf(t, 0) || g == 0 {
		if dq != nil {
			dq[0], dq[1] = 0, -x/b
		}
		if math.IsInf(t, 1) {
			return x, math.Inf(1)
		}
		return x, 0
	}
	lga, _ := math.Lgamma(a)
	logf := (a-1)*t - g - lga // log of Gamma(a, 1)'s density at g
	if dq != nil {
		var d [2]float64
		_, dg := gammaLogCDFKernel(g, []float64{a, 1}, d[:], false)
		dq[0] = -d[0] / dg / b
		dq[1] = -x / b
	}
	return x, math.Exp(-logf) / b
}

// studentTQuantile is StudentT(nu, mu, sigma): mu + sigma t, where for
// r = min(p, 1 − p) the standard t has |t| = √(nu y/x) with I_x(nu/2, ½) =
// 2r and y = 1 − x, both kept to their relative digits by the inverse
// incomplete beta function, so that t keeps its digits near the median
// and far out in the tails. The partials are the implicit function rule
// on log P(T > |t|) (studentTTail's partials in |t| and nu).
func studentTQuantile(p float64, q, dq []float64) (float64, float64) {
	nu, mu, s := q[0], q[1], q[2]
	r, sgn := p, -1.0
	if p > 0.5 {
		r, sgn = 1-p, 1
	}
	var y float64
	x, _, _, _ := invIncBetaY(nu/2, 0.5, 2*r, false, &y)
	u := math.Sqrt(nu * y / x)
	if x == 0 || y == 0 || math.IsInf(u, 0) {
		if dq != nil {
			dq[0], dq[1], dq[2] = 0, 1, sgn*u
		}
		if x == 0 {
			return mu + s*sgn*u, math.Inf(1)
		}
		return mu, s / math.Exp(studentTConst(nu)) // y = 0: the median
	}
	_, gu, gnu := studentTTail(nu, u) // partials of log P(T > u)
	if dq != nil {
		dq[0], dq[1], dq[2] = -sgn*s*gnu/gu, 1, sgn*u
	}
	return mu + s*sgn*u, -s / (r * gu)
}
