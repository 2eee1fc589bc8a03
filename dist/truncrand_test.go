package dist

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// Truncated draws are checked by the Kolmogorov–Smirnov statistic of
// truncN draws against the truncated CDF computed from the family's log
// CDF: truncKS is its critical value at the 0.1 % level (1.95/√n), which
// the discrete families' statistic (conservative there) must also pass.
const (
	truncN  = 2000
	truncKS = 1.95 / 44.721359549995796 // √2000
)

// truncCase is one truncation of a family.
type truncCase struct {
	name   string
	p      []float64
	lo, hi float64
}

// truncCases cover every family with a log CDF, in a central interval and
// in intervals far in a tail, where 1 − F rounds to 0.
var truncCases = []truncCase{
	{"Normal", []float64{0, 1}, 0, inf},
	{"Normal", []float64{0, 1}, 8, inf},        // mass 6e−16
	{"Normal", []float64{0, 1}, 38, inf},       // mass 3e−316
	{"Normal", []float64{0, 1}, -inf, -9},      // the lower tail
	{"Normal", []float64{2, 0.5}, 1.2, 1.2001}, // two-sided, narrow
	{"Normal", []float64{0, 1}, 10, 10.5},      // two-sided, far out
	{"HalfNormal", []float64{2}, 1, 3},
	{"HalfNormal", []float64{1}, 12, inf},
	{"LogNormal", []float64{0, 1}, 0.5, 2},
	{"LogNormal", []float64{0, 0.5}, 1e4, inf},
	{"Cauchy", []float64{1, 2}, -3, 4},
	{"Cauchy", []float64{0, 1}, 1e8, inf},
	{"HalfCauchy", []float64{1}, 0.5, 50},
	{"StudentT", []float64{3, 0, 1}, 1, inf},
	{"StudentT", []float64{5, 1, 2}, -inf, -40},
	{"Laplace", []float64{0, 1}, -1, 2},
	{"Laplace", []float64{0, 1}, 60, inf},
	{"Exponential", []float64{2}, 0.1, 0.4},
	{"Exponential", []float64{1}, 100, inf},
	{"Weibull", []float64{2, 1.5}, 0.3, 2},
	{"Weibull", []float64{1.5, 1}, 20, inf},
	{"Gamma", []float64{2, 3}, 0.2, 1},
	{"Gamma", []float64{3, 1}, 60, inf},
	{"Gamma", []float64{3, 1}, 0, 1e-4},
	{"InvGamma", []float64{3, 2}, 0.5, 2},
	{"Beta", []float64{2, 5}, 0.1, 0.5},
	{"Beta", []float64{2, 5}, 0.999, 1},
	{"BetaProportion", []float64{0.3, 10}, 0.2, 0.6},
	{"Uniform", []float64{-1, 3}, 0, 0.5},
	{"Logistic", []float64{0, 1}, -2, 1},
	{"Logistic", []float64{0, 1}, 50, inf},
	{"Gumbel", []float64{0, 1}, -1, 3},
	{"Gumbel", []float64{0, 1}, -inf, -3},
	{"ChiSquare", []float64{4}, 1, 6},
	{"InvChiSquare", []float64{4}, 0.1, 1},
	{"ScaledInvChiSquare", []float64{5, 1.5}, 1, 4},
	{"Rayleigh", []float64{2}, 1, 5},
	{"Pareto", []float64{1, 2}, 1.5, 10},
	{"Pareto", []float64{1, 2}, 0, 3}, // below y_min the CDF is 0
	{"ParetoType2", []float64{0, 2, 3}, 0.5, inf},
	{"Frechet", []float64{2, 1}, 0.5, 3},
	{"GEV", []float64{100, 25, 0.15}, 150, inf},
	{"GEV", []float64{0, 1, -0.3}, 2, inf}, // up to the upper end 10/3
	{"GEV", []float64{0, 1, 0}, -inf, -2.5},
	{"GEV", []float64{0, 1, 0.2}, 1e4, inf},
	{"GeneralizedPareto", []float64{0, 1, 0.3}, 1, 4},
	{"GeneralizedPareto", []float64{0, 1, 0.3}, 1e6, inf},
	{"GeneralizedPareto", []float64{1, 2, -0.5}, 4.5, inf}, // up to the upper end 5
	{"LogLogistic", []float64{1, 3}, 0.5, 2},
	{"ExpModNormal", []float64{0, 1, 0.5}, 1, 6},
	{"SkewNormal", []float64{0, 1, 3}, -0.5, 1.5},
	{"VonMises", []float64{0.5, 2}, -1, 2},
	{"VonMises", []float64{-3, 20}, -inf, 1}, // Newton's first step leaves [−π, π] far below
	{"Gamma", []float64{0.5, 1}, 0, 1e-100},
	{"SkewDoubleExponential", []float64{0, 1, 0.3}, -1, 2},
	{"Wald", []float64{1, 3}, 0.5, 2},
	{"Wald", []float64{1, 3}, 40, inf}, // mass about e^(−58)
	{"Wald", []float64{2, 1e4}, -inf, 1.7},
	{"Kumaraswamy", []float64{2, 5}, 0.1, 0.4},
	{"Kumaraswamy", []float64{2, 5}, 0.99, 1},
	{"LogitNormal", []float64{0, 1}, 0.2, 0.7},
	{"LogitNormal", []float64{-2, 0.5}, 0.9, 1},
	{"AsymmetricLaplace", []float64{2, 0.5, 1}, -1, 3},
	{"AsymmetricLaplace", []float64{2, 0.5, 1}, 40, inf},
	{"Moyal", []float64{0, 1}, -1, 4},
	{"Moyal", []float64{0, 1}, 200, inf},
	{"Moyal", []float64{0, 1}, -inf, -4},
	{"Poisson", []float64{3}, 2, 6},
	{"Poisson", []float64{2}, 30, inf}, // mass 1e−22
	{"Poisson", []float64{500}, -inf, 400},
	{"PoissonLog", []float64{1.5}, 1, inf},
	{"Bernoulli", []float64{0.3}, 0, 0},
	{"Bernoulli", []float64{0.3}, 1, 1},
	{"BernoulliLogit", []float64{-1}, 0, 1},
	{"Binomial", []float64{50, 0.9}, -inf, 35},
	{"Binomial", []float64{10, 0.5}, 3, 7},
	{"Binomial", []float64{20, 0.3}, 4, inf},
	{"BinomialLogit", []float64{20, 0.5}, 12, inf},
	{"BetaBinomial", []float64{20, 2, 3}, 5, 15},
	{"NegBinomial", []float64{4, 2}, 1, 10},
	{"NegBinomial", []float64{4, 2}, 150, inf},
	{"NegBinomialLog", []float64{1, 5}, 0, 3},
	{"BetaNegBinomial", []float64{2.5, 1.5, 3}, 2, 30},
	{"BetaNegBinomial", []float64{2.5, 0.5, 3}, 100, inf},
	// the zero-inflated and hurdle counts, with their zeros and without
	{"ZeroInflatedPoisson", []float64{0.7, 3}, 0, 6},
	{"ZeroInflatedPoisson", []float64{0.7, 3}, 2, inf},
	{"ZeroInflatedNegBinomial", []float64{0.6, 4, 2}, 0, 10},
	{"HurdlePoisson", []float64{0.7, 2}, 0, 5},
	{"HurdlePoisson", []float64{0.7, 0.01}, 1, inf}, // the truncated count: mostly 1
	{"HurdleNegBinomial", []float64{0.7, 3, 2}, 0, 8},
	{"ZeroInflatedBinomial", []float64{0.7, 20, 0.3}, 0, 10},
	{"Geometric", []float64{0.3}, 2, 9},
	{"Geometric", []float64{0.05}, 40, inf},
	{"DiscreteUniform", []float64{-7, 12}, -3, 5},
	{"DiscreteUniform", []float64{-7, 12}, -inf, -2},
	{"DiscreteUniform", []float64{-7, 12}, 3, inf},
	{"DiscreteWeibull", []float64{0.6, 1.4}, 1, 6},
	{"DiscreteWeibull", []float64{0.9, 0.7}, 20, inf},
}

// truncCDF returns the truncated CDF P(X ≤ x | lo ≤ X ≤ hi) from the log
// CDF, in the tail where it keeps its digits.
func truncCDF(t *testing.T, c truncCase, u *Univariate, x float64) float64 {
	lo := c.lo
	if u.Support.Discrete() {
		lo--
	}
	dp := make([]float64, len(c.p))
	cdf, _ := LogCDF(c.name, false)
	sf, _ := LogCDF(c.name, true)
	if s, _ := sf(lo, c.p, dp); s < -math.Ln2 { // (S(lo) − S(x)) / (S(lo) − S(hi))
		slo, _ := sf(lo, c.p, dp)
		sx, _ := sf(x, c.p, dp)
		shi, _ := sf(c.hi, c.p, dp)
		return -math.Expm1(sx-slo) / -math.Expm1(shi-slo)
	}
	flo, _ := cdf(lo, c.p, dp)
	fx, _ := cdf(x, c.p, dp)
	fhi, _ := cdf(c.hi, c.p, dp)
	return (math.Exp(fx-fhi) - math.Exp(flo-fhi)) / -math.Expm1(flo-fhi)
}

// TestTruncRand draws every case with TruncRand and with the inversion
// alone (TruncInvert, which TruncRand reaches only when its plain draws
// miss), and checks that the draws lie in [lo, hi] and follow the
// truncated distribution (KS statistic below truncKS).
func TestTruncRand(t *testing.T) {
	covered := map[string]bool{}
	for i, c := range truncCases {
		u, ok := LookupUnivariate(c.name)
		if !ok {
			t.Fatalf("no family %s", c.name)
		}
		covered[c.name] = true
		for _, invert := range []bool{false, true} {
			rng := rand.New(rand.NewPCG(uint64(i), 85))
			xs := make([]float64, truncN)
			for k := range xs {
				var err error
				if invert {
					xs[k], err = TruncInvert(u, c.p, c.lo, c.hi, rng)
				} else {
					xs[k], err = TruncRand(u, c.p, c.lo, c.hi, rng)
				}
				if err != nil {
					t.Fatalf("%s%v T[%g, %g]: %v", c.name, c.p, c.lo, c.hi, err)
				}
				if !(xs[k] >= c.lo && xs[k] <= c.hi) || u.Support.Discrete() && xs[k] != math.Trunc(xs[k]) {
					t.Fatalf("%s%v T[%g, %g] (invert %v): draw %g outside the interval", c.name, c.p, c.lo, c.hi, invert, xs[k])
				}
			}
			slices.Sort(xs)
			d := 0.0
			for k := 0; k < truncN; {
				j := k // the ties of xs[k]: a discrete family's
				for j < truncN && xs[j] == xs[k] {
					j++
				}
				f := truncCDF(t, c, u, xs[k])
				if u.Support.Discrete() { // at a step, the CDF before it too
					f0 := truncCDF(t, c, u, xs[k]-1)
					d = max(d, math.Abs(f0-float64(k)/truncN))
				} else {
					d = max(d, math.Abs(f-float64(k)/truncN))
				}
				d = max(d, math.Abs(f-float64(j)/truncN))
				k = j
			}
			if math.IsNaN(d) || d > truncKS {
				t.Errorf("%s%v T[%g, %g] (invert %v): KS statistic %.4f > %.4f", c.name, c.p, c.lo, c.hi, invert, d, truncKS)
			} else if testing.Verbose() {
				t.Logf("%s%v T[%g, %g] (invert %v): KS %.4f", c.name, c.p, c.lo, c.hi, invert, d)
			}
		}
	}
	for _, name := range LogCDFNames() {
		if !covered[name] && !PointMassAtZero(name) { // TestTruncRandErrors
			t.Errorf("%s has a log CDF but no truncated-draw case", name)
		}
	}
}

// TestTruncRandErrors checks the draws that cannot be made: bounds out of
// order, no mass between them, a family without a log CDF.
func TestTruncRandErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		truncCase
		want string
	}{
		{truncCase{"Normal", []float64{0, 1}, 2, 1}, "needs L < U"},
		{truncCase{"Normal", []float64{0, 1}, 1, 1}, "needs L < U"},
		{truncCase{"Poisson", []float64{3}, 4, 3}, "needs L ≤ U"},
		{truncCase{"Normal", []float64{0, 1}, math.NaN(), 1}, "bounds of T[L, U]"},
		{truncCase{"Beta", []float64{2, 2}, 2, 3}, "no mass in [2, 3]"},
		{truncCase{"Binomial", []float64{10, 0.5}, 11, 20}, "no mass in [11, 20]"},
		{truncCase{"Dirichlet", nil, 0, 1}, "no log CDF"},
		{truncCase{"Skellam", nil, 0, 1}, "no log CDF"},
		{truncCase{"HurdleGamma", []float64{0.7, 2, 1}, 1, 3}, "point mass at 0"},
		{truncCase{"HurdleLogNormal", []float64{0.7, 0, 1}, -1, 3}, "point mass at 0"},
	} {
		u, ok := LookupUnivariate(c.name)
		if !ok {
			u = &Univariate{Name: c.name, Rand: func([]float64, *rand.Rand) float64 { return 0.5 }}
		}
		v, err := TruncRand(u, c.p, c.lo, c.hi, rng)
		if err == nil || !strings.Contains(err.Error(), c.want) || !math.IsNaN(v) {
			t.Errorf("%s%v T[%g, %g]: got %g, %v; want an error with %q", c.name, c.p, c.lo, c.hi, v, err, c.want)
		}
		if check := TruncCheck(u, c.p, c.lo, c.hi); check == nil || check.Error() != err.Error() {
			t.Errorf("%s%v T[%g, %g]: TruncCheck says %v, the draw %v", c.name, c.p, c.lo, c.hi, check, err)
		}
	}
}
