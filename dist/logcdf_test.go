package dist

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
)

// TestLogCDF checks each family's log P(X ≤ x) and log P(X > x) against
// mpmath at 500 digits, at central points and far out in both tails, where
// 1 − CDF would round to 0 or to a number without digits.
func TestLogCDF(t *testing.T) {
	for _, c := range []struct {
		name      string
		x         float64
		p         []float64
		lower, up float64
	}{
		{"Normal", 0.3, []float64{0, 1}, -0.4814101615884812, -0.9621028181688507},
		{"Normal", -2.5, []float64{1, 0.5}, -27.384307498811076, -1.279812543886654e-12},
		{"Normal", 40, []float64{0, 1}, -0.0, -804.6084420137538},
		{"Normal", -40, []float64{0, 1}, -804.6084420137538, -0.0},
		{"Normal", 0.001, []float64{0, 1}, -0.6923496142726883, -0.6939453834669652},
		{"LogNormal", 2.0, []float64{0.5, 0.8}, -0.518537603653486, -0.9048331431466778},
		{"LogNormal", 1e-08, []float64{0, 1}, -173.49607770953162, -4.4834343916574984e-76},
		{"LogNormal", 1000000000000.0, []float64{0, 1}, -2.3594970888128972e-168, -385.9758471246314},
		{"Cauchy", 3.0, []float64{1, 2}, -0.2876820724517809, -1.3862943611198906},
		{"Cauchy", 10000000000.0, []float64{0, 1}, -3.1830988618885674e-11, -24.170580815789858},
		{"Cauchy", -10000000000.0, []float64{0, 1}, -24.170580815789858, -3.1830988618885674e-11},
		{"Laplace", 0.5, []float64{1, 2}, -0.9431471805599453, -0.4933138399126533},
		{"Laplace", 100, []float64{0, 1}, -1.860037988010418e-44, -100.69314718055995},
		{"Laplace", -100, []float64{0, 1}, -100.69314718055995, -1.860037988010418e-44},
		{"Exponential", 0.7, []float64{2}, -0.2831549539229272, -1.4},
		{"Exponential", 1e-12, []float64{1}, -27.631021115929048, -1e-12},
		{"Exponential", 800, []float64{1}, -0.0, -800.0},
		{"Weibull", 1.5, []float64{2, 1.2}, -0.23523053947297912, -1.5625000000000002},
		{"Weibull", 1e-06, []float64{0.5, 2}, -7.25468240181937, -0.0007071067811865475},
		{"Weibull", 30, []float64{1.5, 1}, -4.346450104572151e-72, -164.31676725154983},
		{"Gamma", 0.5, []float64{2, 3}, -0.8160504531201045, -0.5837092681258449},
		{"Gamma", 800, []float64{2, 1}, -0.0, -793.3141390529316},
		{"Gamma", 1e-05, []float64{3, 1}, -36.330543364136865, -1.666654166716667e-16},
		{"Gamma", 4, []float64{0.01, 1}, -3.860943568787213e-05, -10.1620331681494},
		{"Gamma", 1100, []float64{1000, 1}, -0.0010598847333686437, -6.850125014436265},
		{"Gamma", 900, []float64{1000, 1}, -7.5057699942338925, -0.0005500535174143448},
		{"Poisson", 3, []float64{2.5}, -0.2776312408627553, -1.4170675689617414},
		{"Poisson", 0, []float64{10}, -10.0, -4.540096037048921e-05},
		{"Poisson", 60, []float64{5}, -6.261195500180368e-44, -99.4793729503896},
		{"Poisson", 1, []float64{100}, -95.38487948315874, -3.757276735781044e-42},
	} {
		for _, upper := range []bool{false, true} {
			k, ok := LogCDF(c.name, upper)
			if !ok {
				t.Fatalf("no log CDF for %s", c.name)
			}
			want := c.lower
			if upper {
				want = c.up
			}
			got, _ := k(c.x, c.p, make([]float64, len(c.p)))
			if !(math.Abs(got-want) <= 1e-13*math.Abs(want)) && !(want == 0 && math.Abs(got) < 1e-300) {
				t.Errorf("%s%v at %g, upper %v: %.17g, want %.17g (relative error %.2g)", c.name, c.p, c.x, upper, got, want, math.Abs(got/want-1))
			}
		}
	}
	// An argument outside its support is NaN, as in the densities.
	for _, c := range []struct {
		name string
		p    []float64
	}{{"Normal", []float64{0, 0}}, {"Weibull", []float64{-1, 1}}, {"Gamma", []float64{2, math.Inf(1)}}, {"Poisson", []float64{-1}}} {
		k, _ := LogCDF(c.name, true)
		dp := make([]float64, len(c.p))
		if lp, _ := k(1, c.p, dp); !math.IsNaN(lp) || !math.IsNaN(dp[0]) {
			t.Errorf("%s%v: log P(X > 1) = %g, partials %v, want NaN", c.name, c.p, lp, dp)
		}
	}
	if _, ok := LogCDF("Dirichlet", false); ok {
		t.Error("a log CDF for Dirichlet")
	}
}

// TestLogCDFGradients checks every partial of every log CDF against
// central differences (gonum/diff/fd), in both tails and near the middle.
func TestLogCDFGradients(t *testing.T) {
	for _, c := range []struct {
		name string
		x    float64
		p    []float64
	}{
		{"Normal", 0.3, []float64{0, 1}}, {"Normal", -2.5, []float64{1, 0.5}}, {"Normal", 9, []float64{0, 1}}, {"Normal", 50, []float64{1, 1.2}},
		{"LogNormal", 2, []float64{0.5, 0.8}}, {"LogNormal", 1e-3, []float64{0, 1}}, {"LogNormal", 1e4, []float64{0, 1}},
		{"Cauchy", 3, []float64{1, 2}}, {"Cauchy", -50, []float64{0, 1}},
		{"Laplace", 0.5, []float64{1, 2}}, {"Laplace", 4, []float64{1, 2}}, {"Laplace", -30, []float64{0, 1}},
		{"Exponential", 0.7, []float64{2}}, {"Exponential", 1e-4, []float64{1}}, {"Exponential", 40, []float64{1.5}},
		{"Weibull", 1.5, []float64{2, 1.2}}, {"Weibull", 1e-3, []float64{0.5, 2}}, {"Weibull", 5, []float64{1.5, 1}},
		{"Gamma", 0.5, []float64{2, 3}}, {"Gamma", 60, []float64{2, 1}}, {"Gamma", 1e-3, []float64{3, 1}},
		{"Gamma", 4, []float64{0.01, 1}}, {"Gamma", 3, []float64{0.5, 1}}, {"Gamma", 1100, []float64{1000, 1}}, {"Gamma", 900, []float64{1000, 1}},
		{"Gamma", 2.5, []float64{2, 1}}, {"Gamma", 1.5, []float64{2, 1}},
		{"Poisson", 3, []float64{2.5}}, {"Poisson", 0, []float64{10}}, {"Poisson", 30, []float64{5}}, {"Poisson", 1, []float64{40}},
	} {
		for _, upper := range []bool{false, true} {
			k, _ := LogCDF(c.name, upper)
			dp := make([]float64, len(c.p))
			_, dx := k(c.x, c.p, dp)
			check := func(what string, got float64, f func(float64) float64, at float64) {
				want := fd.Derivative(f, at, &fd.Settings{Formula: fd.Central, Step: fdStep(at)})
				if !(math.Abs(got-want) <= 1e-6*math.Max(math.Abs(want), 1e-8)) {
					t.Errorf("%s%v at %g, upper %v: d/d%s %.10g, central difference %.10g", c.name, c.p, c.x, upper, what, got, want)
				}
			}
			if c.name != "Poisson" {
				check("x", dx, func(x float64) float64 { lp, _ := k(x, c.p, make([]float64, len(c.p))); return lp }, c.x)
			}
			for i := range c.p {
				check(c.name+" parameter "+string(rune('0'+i)), dp[i], func(v float64) float64 {
					q := append([]float64(nil), c.p...)
					q[i] = v
					lp, _ := k(c.x, q, make([]float64, len(q)))
					return lp
				}, c.p[i])
			}
		}
	}
}

// fdStep is a central difference's step at v: relative, or absolute at 0.
func fdStep(v float64) float64 {
	if v == 0 {
		return 1e-6
	}
	return 1e-6 * math.Abs(v)
}

// TestLogCDFComplement: P(X ≤ x) + P(X > x) = 1 wherever neither is tiny,
// and a value below a positive family's support has P(X ≤ x) = 0.
func TestLogCDFComplement(t *testing.T) {
	params := map[string][]float64{
		"StudentT": {3, 1.3, 0.7}, "Uniform": {0, 4}, "Bernoulli": {0.3}, "BernoulliLogit": {0.4},
		"Binomial": {5, 0.3}, "BinomialLogit": {5, -0.5}, "PoissonLog": {0.3},
		"BetaProportion": {0.3, 5}, "Pareto": {0.1, 1.3}, "ParetoType2": {-0.5, 1.3, 0.7}, "GEV": {1.3, 0.7, 0.2}, "GeneralizedPareto": {0.1, 1.3, -0.2},
		"ExpModNormal": {1.3, 0.7, 1.6}, "SkewNormal": {1.3, 0.7, -2.5}, "SkewDoubleExponential": {1.3, 0.7, 0.2},
		"BetaBinomial": {6, 1.5, 2.5}, "NegBinomialLog": {0.3, 2}, "BetaNegBinomial": {1.3, 0.7, 2.5}, "AsymmetricLaplace": {1.3, 0.7, 1.6},
		"ZeroInflatedPoisson": {0.7, 1.3}, "ZeroInflatedNegBinomial": {0.7, 1.3, 2}, "HurdlePoisson": {0.7, 1.3},
		"HurdleNegBinomial": {0.7, 1.3, 2}, "ZeroInflatedBinomial": {0.7, 5, 0.3}, "HurdleGamma": {0.7, 1.3, 0.7},
		"HurdleLogNormal": {0.7, 0.3, 0.8},
		"Geometric":       {0.3}, "DiscreteUniform": {0, 5}, "DiscreteWeibull": {0.6, 1.4},
	}
	for _, name := range LogCDFNames() {
		lo, _ := LogCDF(name, false)
		up, _ := LogCDF(name, true)
		u, _ := LookupUnivariate(name)
		p, ok := params[name]
		if !ok {
			p = []float64{1.3, 0.7}[:len(u.Params)]
		}
		xs := []float64{0.2, 1, 2, 3.5}
		if name == "Beta" || name == "BetaProportion" {
			xs = []float64{0.2, 0.5, 0.9}
		}
		for _, x := range xs {
			a, _ := lo(x, p, make([]float64, len(p)))
			b, _ := up(x, p, make([]float64, len(p)))
			if s := math.Exp(a) + math.Exp(b); math.Abs(s-1) > 1e-14 {
				t.Errorf("%s at %g: P(X ≤ x) + P(X > x) = %.17g", name, x, s)
			}
		}
		if u.Support == Real {
			continue
		}
		dp := make([]float64, len(p))
		if a, _ := lo(-1, p, dp); !math.IsInf(a, -1) {
			t.Errorf("%s: log P(X ≤ −1) = %g", name, a)
		}
		if b, _ := up(-1, p, dp); b != 0 || dp[0] != 0 {
			t.Errorf("%s: log P(X > −1) = %g, partial %g", name, b, dp[0])
		}
	}
}
