package dist

import (
	"math"
	"testing"
)

// The probability arguments Stan takes in [0, 1] (bernoulli's and
// binomial's theta; PyMC's geometric p in (0, 1], the zero-inflated and
// hurdle psi) admit their ends at evaluation: a probit's Phi(eta) rounds
// to 1 past eta ≈ 8.3, where a user trial read "Bernoulli: p must be in
// (0, 1) (got 1 ...)". A value the end allows has a finite log mass and
// finite partials (y/p − (1−y)/(1−p) is 1 at p = 1, y = 1), matching a
// one-sided difference into the interval; one it forbids is −Inf, a value
// outside the support (Outside), not a bad argument.
func TestUnitEndsAtEvaluation(t *testing.T) {
	cases := []struct {
		family string
		p      []float64 // the arguments, the probability at an end
		arg    int       // which is the probability
		in     float64   // a value the end allows
		out    float64   // one it forbids (NaN: none)
	}{
		{"Bernoulli", []float64{1}, 0, 1, 0},
		{"Bernoulli", []float64{0}, 0, 0, 1},
		{"Binomial", []float64{7, 1}, 1, 7, 3},
		{"Binomial", []float64{7, 0}, 1, 0, 1},
		{"Binomial", []float64{40, 1}, 1, 40, 20}, // n past stirlingMin
		{"Geometric", []float64{1}, 0, 1, 2},
		{"ZeroInflatedPoisson", []float64{1, 2.5}, 0, 3, math.NaN()},
		{"ZeroInflatedPoisson", []float64{0, 2.5}, 0, 0, 3},
		{"HurdlePoisson", []float64{1, 2.5}, 0, 3, 0},
		{"HurdleNegBinomial", []float64{0, 2.5, 3}, 0, 0, 2},
		{"ZeroInflatedBinomial", []float64{0.4, 5, 1}, 2, 5, 3},
	}
	for _, c := range cases {
		u, ok := LookupUnivariate(c.family)
		if !ok {
			t.Fatalf("%s: no such family", c.family)
		}
		for a, v := range c.p {
			if need, ok := u.ArgAdmits(a, v); !ok {
				t.Errorf("%s%v: argument %d (%g) not admitted, need %s", c.family, c.p, a, v, need)
			}
		}
		dp := make([]float64, len(c.p))
		lp, _ := u.Kernel(c.in, c.p, dp)
		if math.IsNaN(lp) || math.IsInf(lp, 0) {
			t.Errorf("%s%v at %g: log mass %g, want finite", c.family, c.p, c.in, lp)
		}
		g := dp[c.arg]
		if math.IsNaN(g) || math.IsInf(g, 0) {
			t.Errorf("%s%v at %g: partial %g, want finite", c.family, c.p, c.in, g)
		}
		// one-sided difference from the end into the interval
		const h = 1e-7
		q := append([]float64(nil), c.p...)
		dir := 1.0
		if c.p[c.arg] == 1 {
			dir = -1
		}
		q[c.arg] += dir * h
		lq, _ := u.Kernel(c.in, q, make([]float64, len(q)))
		if fd := (lq - lp) / (dir * h); math.Abs(fd-g) > 1e-4*math.Max(1, math.Abs(g)) {
			t.Errorf("%s%v at %g: partial %g, one-sided difference %g", c.family, c.p, c.in, g, fd)
		}
		if math.IsNaN(c.out) {
			continue
		}
		lo, _ := u.Kernel(c.out, c.p, dp)
		if !math.IsInf(lo, -1) || !u.Outside(c.out, c.p, lo) {
			t.Errorf("%s%v at %g: log mass %g, outside %v; want -Inf outside the support", c.family, c.p, c.out, lo, u.Outside(c.out, c.p, lo))
		}
	}
	// The static support, and the ends of other families, stay open.
	g, _ := LookupUnivariate("Geometric")
	if _, ok := g.ArgAdmits(0, 0); ok {
		t.Error("Geometric admits p = 0")
	}
	bp, _ := LookupUnivariate("BetaProportion")
	if _, ok := bp.ArgAdmits(0, 1); ok {
		t.Error("BetaProportion admits mu = 1")
	}
}

// BernoulliProbit is Bernoulli(Phi(eta)) where Phi does not round, finite
// where it does, and its partial matches central differences throughout.
func TestBernoulliProbit(t *testing.T) {
	k := BernoulliProbit.Kernel
	dp := make([]float64, 1)
	for _, eta := range []float64{-60, -38, -9, -2, -0.3, 0, 0.7, 3, 8.5, 20, 45} {
		for _, y := range []float64{0, 1} {
			lp, _ := k(y, []float64{eta}, dp)
			if math.IsNaN(lp) || math.IsInf(lp, 0) || math.IsNaN(dp[0]) || math.IsInf(dp[0], 0) {
				t.Errorf("y %g, eta %g: log mass %g, partial %g; want finite", y, eta, lp, dp[0])
				continue
			}
			if p := Phi(eta); p > 1e-12 && p < 1-1e-12 {
				ref := Bernoulli{p}.LogProb(y)
				if math.Abs(lp-ref) > 1e-12*math.Max(1, math.Abs(ref)) {
					t.Errorf("y %g, eta %g: log mass %.17g, Bernoulli(Phi(eta)) %.17g", y, eta, lp, ref)
				}
			}
			h := 1e-5 * math.Max(1, math.Abs(eta))
			lpp, _ := k(y, []float64{eta + h}, nil)
			lpm, _ := k(y, []float64{eta - h}, nil)
			if fd := (lpp - lpm) / (2 * h); math.Abs(fd-dp[0]) > 1e-6*math.Max(1, math.Abs(dp[0])) {
				t.Errorf("y %g, eta %g: partial %g, central difference %g", y, eta, dp[0], fd)
			}
		}
	}
	if lp, _ := k(2, []float64{0}, dp); !math.IsInf(lp, -1) {
		t.Errorf("y 2: log mass %g, want -Inf", lp)
	}
}
