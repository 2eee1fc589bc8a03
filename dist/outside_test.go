package dist

import (
	"math"
	"testing"
)

// TestOutsideValue: every family with a bounded support, at arguments in
// their supports and a value outside its own (below or above its ends, a
// count that is no integer, an open end), has a log density of −Inf with
// zero partials, from its Kernel and its Prepared form alike, so that
// logpdf's −Inf there is a value (LogZero with OutsideValue) whose
// gradient is 0; without OutsideValue (a ~'s density) it is not, nor is
// a −Inf inside the support (an underflow), at an argument outside its
// support, or at an infinite value.
func TestOutsideValue(t *testing.T) {
	cases := []struct {
		name string
		p    []float64
	}{
		{"HalfNormal", []float64{1}}, {"LogNormal", []float64{0, 1}}, {"HalfCauchy", []float64{1}},
		{"Exponential", []float64{2}}, {"Weibull", []float64{1.5, 2}}, {"Gamma", []float64{2, 3}},
		{"InvGamma", []float64{2, 1}}, {"Beta", []float64{2, 3}}, {"BetaProportion", []float64{0.3, 5}},
		{"Uniform", []float64{-1, 2}}, {"ChiSquare", []float64{3}}, {"InvChiSquare", []float64{3}},
		{"ScaledInvChiSquare", []float64{3, 1}}, {"Rayleigh", []float64{1}}, {"Pareto", []float64{1.5, 2}},
		{"ParetoType2", []float64{1, 2, 3}}, {"Frechet", []float64{2, 1}}, {"LogLogistic", []float64{1, 2}},
		{"Wald", []float64{1.5, 2}}, {"Kumaraswamy", []float64{2, 3}}, {"LogitNormal", []float64{0.5, 2}},
		{"Rice", []float64{1, 2}}, {"Wiener", []float64{1, 0.3, 0.5, 0.2}}, {"HurdleGamma", []float64{0.7, 2, 1}},
		{"HurdleLogNormal", []float64{0.7, 0, 1}},
		{"Poisson", []float64{2}}, {"PoissonLog", []float64{0.5}}, {"Bernoulli", []float64{0.3}},
		{"BernoulliLogit", []float64{0.3}}, {"Binomial", []float64{5, 0.3}}, {"BinomialLogit", []float64{5, 0.3}},
		{"BetaBinomial", []float64{5, 2, 3}}, {"NegBinomial", []float64{3, 2}}, {"NegBinomialLog", []float64{1, 2}},
		{"BetaNegBinomial", []float64{2.5, 0.5, 3}}, {"Geometric", []float64{0.3}}, {"DiscreteUniform", []float64{-2, 4}},
		{"DiscreteWeibull", []float64{0.6, 1.4}}, {"Skellam", []float64{1, 2}},
		{"ZeroInflatedPoisson", []float64{0.7, 2}}, {"HurdlePoisson", []float64{0.7, 2}},
		{"ZeroInflatedBinomial", []float64{0.7, 5, 0.3}},
	}
	for _, c := range cases {
		u, ok := LookupUnivariate(c.name)
		if !ok {
			t.Fatalf("no family %s", c.name)
		}
		v := *u
		v.OutsideValue = true
		lo, hi := u.Ends(c.p)
		var xs []float64
		if !math.IsInf(lo, 0) {
			xs = append(xs, lo-0.5, lo-7)
		}
		if !math.IsInf(hi, 0) {
			xs = append(xs, hi+0.5, hi+7)
		}
		if u.Support.Discrete() {
			xs = append(xs, math.Max(lo, 0)+0.5)
		}
		if _, ok := u.Support.Admits(lo); !ok && !math.IsInf(lo, 0) {
			xs = append(xs, lo) // an open end
		}
		if len(xs) == 0 {
			t.Fatalf("%s: no value outside its support", c.name)
		}
		for _, x := range xs {
			for form, at := range kernelForms(u, c.p) {
				lp, d := at(x)
				if !math.IsInf(lp, -1) {
					t.Errorf("%s%v at %g (%s): %g, want -Inf", c.name, c.p, x, form, lp)
				}
				for i, g := range d {
					if g != 0 {
						t.Errorf("%s%v at %g (%s): partial %d is %g, want 0", c.name, c.p, x, form, i, g)
					}
				}
			}
			lp, _ := u.Kernel(x, c.p, make([]float64, len(c.p)))
			if !v.LogZero(x, c.p, lp) || !v.Outside(x, c.p, lp) {
				t.Errorf("%s%v at %g: logpdf's -Inf is not a value", c.name, c.p, x)
			}
			if u.LogZero(x, c.p, lp) {
				t.Errorf("%s%v at %g: a ~'s -Inf is a value", c.name, c.p, x)
			}
			if v.LogZero(x, c.p, math.NaN()) {
				t.Errorf("%s%v at %g: NaN is a value", c.name, c.p, x)
			}
		}
		// an argument outside its support: the −Inf, if any, is a failure
		bad := append([]float64(nil), c.p...)
		bad[len(bad)-1] = -1
		if _, ok := u.Params[len(bad)-1].Support.Admits(-1); !ok && v.LogZero(xs[0], bad, math.Inf(-1)) {
			t.Errorf("%s%v at %g: a -Inf with an invalid argument is a value", c.name, bad, xs[0])
		}
		if v.LogZero(math.Inf(1), c.p, math.Inf(-1)) || v.LogZero(math.Inf(-1), c.p, math.Inf(-1)) {
			t.Errorf("%s: an infinite value's -Inf is a value", c.name)
		}
	}
	// inside the support: an underflow is no value
	n, _ := LookupUnivariate("Normal")
	v := *n
	v.OutsideValue = true
	if lp, _ := n.Kernel(1e200, []float64{0, 1}, make([]float64, 2)); !math.IsInf(lp, -1) || v.LogZero(1e200, []float64{0, 1}, lp) {
		t.Errorf("Normal(0, 1) at 1e200: %g is a value", lp)
	}
	ln, _ := LookupUnivariate("LogNormal")
	w := *ln
	w.OutsideValue = true
	if w.LogZero(1e-300, []float64{0, 0.01}, math.Inf(-1)) {
		t.Errorf("LogNormal(0, 0.01) at 1e-300, inside its support: -Inf is a value")
	}
}

// kernelForms returns u's kernel at the parameters p as each form it has
// computes it (Kernel, and Prepared's Eval when set): the log density and
// the partials in the parameters followed by the value's.
func kernelForms(u *Univariate, p []float64) map[string]func(x float64) (float64, []float64) {
	forms := map[string]func(x float64) (float64, []float64){
		"Kernel": func(x float64) (float64, []float64) {
			dp := make([]float64, len(p))
			for i := range dp {
				dp[i] = math.NaN() // a kernel must write each partial
			}
			lp, dx := u.Kernel(x, p, dp)
			return lp, append(dp, dx)
		},
	}
	if u.Prepared != nil {
		st := make([]float64, u.Prepared.StateLen())
		u.Prepared.Prepare(p, st)
		forms["Prepared"] = func(x float64) (float64, []float64) {
			dp := make([]float64, len(p))
			for i := range dp {
				dp[i] = math.NaN()
			}
			lp, dx := u.Prepared.Eval(x, p, st, dp)
			return lp, append(dp, dx)
		}
	}
	return forms
}
