package dist

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
)

// Tolerances of the tests of the families of logistic.go, chisquare.go,
// pareto.go and frechet.go.
const (
	// contValueTol bounds a log density or log probability against mpmath,
	// relative to max(1, |value|) for a density (whose value may be a
	// cancelled sum of large terms) and to |value| for a log probability,
	// which keeps its relative digits in the far tails.
	contValueTol = 2e-13
	// contGradTol bounds a partial against mpmath, relative to
	// max(|partial|, contGradFloor·scale) where scale is the largest
	// partial of the same case: a partial that cancels to far below its
	// fellows keeps their absolute, not its relative, accuracy.
	contGradTol   = 1e-11
	contGradFloor = 1e-4
	// contFDTol bounds a partial against a central difference.
	contFDTol = 1e-6
)

// continuousFamilies is continuous_ref.py's FAMILIES.
var continuousFamilies = []string{"Logistic", "Gumbel", "ChiSquare", "InvChiSquare", "ScaledInvChiSquare",
	"Rayleigh", "Pareto", "ParetoType2", "Frechet", "LogLogistic", "SkewNormal", "ExpModNormal", "VonMises",
	"SkewDoubleExponential"}

// TestContinuousReference checks the log densities, log CDFs and log
// CCDFs of the families above, and each one's partials in the value and in
// every parameter, against testdata/continuous.csv (mpmath at 300 digits,
// continuous_ref.py): central points, both far tails (log probabilities
// down to −1e5 and up to −1e-300), tiny and huge scales, shapes from 0.01
// to 3000.
func TestContinuousReference(t *testing.T) {
	rows := readRefCSV(t, "testdata/continuous.csv", 11)
	if len(rows) < 150 {
		t.Fatalf("%d reference rows, want at least 150", len(rows))
	}
	worstV, worstG := map[string]float64{}, map[string]float64{}
	for _, r := range rows {
		if r[1] == 3 {
			checkBesselI0(t, r[2], r[6:9])
			continue
		}
		name := continuousFamilies[int(r[0])]
		u, _ := LookupUnivariate(name)
		np := len(u.Params)
		p, x, want := r[2:2+np], r[5], r[6:7+1+np]
		kern := u.Kernel
		if r[1] != 0 {
			kern, _ = LogCDF(name, r[1] == 2)
		}
		dp := make([]float64, np)
		v, dx := kern(x, p, dp)
		got := append([]float64{v, dx}, dp...)
		what := [...]string{"log density", "log CDF", "log CCDF"}[int(r[1])]
		scale := math.Abs(want[0])
		if r[1] == 0 {
			scale = math.Max(1, scale)
		}
		e := math.Abs(got[0]-want[0]) / scale
		if want[0] == 0 {
			e = math.Abs(got[0]) / 1e-300
		}
		if !(e <= contValueTol) {
			t.Errorf("%s%v %s at %v: %.17g, mpmath %.17g (relative error %.2g)", name, p, what, x, got[0], want[0], e)
		}
		worstV[name] = math.Max(worstV[name], e)
		var gscale float64
		for _, w := range want[1:] {
			gscale = math.Max(gscale, math.Abs(w))
		}
		for k := 1; k < len(want); k++ {
			e := math.Abs(got[k]-want[k]) / math.Max(math.Abs(want[k]), contGradFloor*gscale)
			if want[k] == 0 && got[k] == 0 {
				e = 0
			}
			if !(e <= contGradTol) {
				t.Errorf("%s%v %s at %v: partial %d %.17g, mpmath %.17g (relative error %.2g)", name, p, what, x, k-1, got[k], want[k], e)
			}
			worstG[name] = math.Max(worstG[name], e)
		}
	}
	for _, name := range continuousFamilies {
		t.Logf("%s: worst relative error of a value %.2g, of a partial %.2g", name, worstV[name], worstG[name])
	}
}

// TestContinuousGradients checks every partial of the densities and log
// CDFs of the families above against central differences (gonum/diff/fd)
// over grids of parameters and values that reach far into both tails.
func TestContinuousGradients(t *testing.T) {
	grids := map[string]struct {
		ps [][]float64
		xs []float64 // in units of the family's natural scale: see at
	}{
		"Logistic":              {[][]float64{{0, 1}, {-3, 0.01}, {2, 50}}, []float64{-300, -30, -2, 0.3, 4, 30, 300}},
		"Gumbel":                {[][]float64{{0, 1}, {-3, 0.01}, {2, 50}}, []float64{-5, -2, 0.3, 4, 30, 300}},
		"ChiSquare":             {[][]float64{{0.05}, {1}, {7}, {300}}, []float64{1e-6, 0.01, 0.5, 1, 2, 5, 20}},
		"InvChiSquare":          {[][]float64{{0.05}, {1}, {7}, {300}}, []float64{1e-6, 0.01, 0.5, 1, 2, 5, 20}},
		"ScaledInvChiSquare":    {[][]float64{{0.3, 2}, {5, 0.1}, {500, 1}}, []float64{0.01, 0.5, 1, 2, 5, 20}},
		"Rayleigh":              {[][]float64{{1}, {1e-5}, {1e5}}, []float64{1e-6, 0.1, 1, 3, 20}},
		"Pareto":                {[][]float64{{1, 3}, {1e-4, 0.05}, {50, 40}}, []float64{1.001, 1.5, 3, 1e3, 1e10}},
		"ParetoType2":           {[][]float64{{0, 1, 3}, {-5, 0.01, 0.05}, {4, 100, 40}}, []float64{1e-6, 0.5, 3, 1e3, 1e10}},
		"Frechet":               {[][]float64{{2, 1}, {0.1, 1e-3}, {50, 100}}, []float64{0.02, 0.3, 1, 2, 50, 1e6}},
		"LogLogistic":           {[][]float64{{1, 3}, {1e-3, 0.1}, {100, 50}}, []float64{1e-6, 0.3, 1, 2, 50, 1e6}},
		"SkewNormal":            {[][]float64{{0, 1, 2}, {1, 0.01, -5}, {-3, 20, 0}, {0, 1, 1e-6}, {0.5, 2, 50}, {0, 1, -30}}, []float64{-60, -8, -1, -0.01, 0.3, 2, 10, 60}},
		"VonMises":              {[][]float64{{0, 1e-8}, {1, 0.3}, {-2, 29.99}, {0, 30.01}, {0.5, 1e3}, {0, 1e5}}, []float64{-3, -1, -0.01, 0.3, 2, 3.1}},
		"ExpModNormal":          {[][]float64{{0, 1, 1}, {1, 0.01, 300}, {-3, 20, 0.01}, {0, 1, 40}}, []float64{-60, -8, -1, 0.3, 2, 10, 60, 500}},
		"SkewDoubleExponential": {[][]float64{{0, 1, 0.5}, {1, 0.01, 0.03}, {-3, 20, 0.97}, {0, 1, 1e-5}, {2, 0.5, 1 - 1e-5}}, []float64{-300, -8, -1, -0.01, 0.3, 2, 10, 300}},
	}
	for _, name := range continuousFamilies {
		u, _ := LookupUnivariate(name)
		g := grids[name]
		for _, p := range g.ps {
			for _, s := range g.xs {
				x := contAt(name, p, s)
				for kind := 0; kind < 3; kind++ {
					k := u.Kernel
					if kind > 0 {
						var ok bool
						if k, ok = LogCDF(name, kind == 2); !ok {
							t.Fatalf("%s has no log CDF", name)
						}
						if name == "VonMises" && math.Abs(x) >= 3.1 {
							continue // its CDF is on [−π, π]; TestVonMisesLogCDFReference has the ends
						}
					}
					eval := func(x float64, p []float64) float64 {
						v, _ := k(x, p, make([]float64, len(p)))
						return v
					}
					dp := make([]float64, len(p))
					v, dx := k(x, p, dp)
					var pmax float64
					for _, q := range p {
						pmax = math.Max(pmax, math.Abs(q))
					}
					if math.IsInf(v, 0) || math.IsNaN(v) {
						t.Errorf("%s%v kind %d at %g: %v", name, p, kind, x, v)
						continue
					}
					if v == 0 {
						continue // P rounds to 1: the partials underflow too
					}
					check := func(what string, got float64, f func(float64) float64, at, step float64) {
						t.Helper()
						want := fd.Derivative(f, at, &fd.Settings{Formula: fd.Central, Step: step})
						// rounding in the difference: terms of the size of the
						// value times the largest parameter cancel in it
						noise := 10 * eps * math.Max(1, math.Abs(v)) * (1 + pmax) / step
						if !(math.Abs(got-want) <= contFDTol*math.Max(math.Abs(want), 1e-8)+noise) {
							t.Errorf("%s%v kind %d at %g (value %g): d/d%s %.10g, central difference %.10g", name, p, kind, x, v, what, got, want)
						}
					}
					xstep := 1e-6 * math.Abs(x)
					if lo := contLower(name, p); !math.IsInf(lo, -1) {
						xstep = math.Min(xstep, 1e-3*(x-lo))
					}
					if math.IsInf(contLower(name, p), -1) {
						xstep = 1e-6 * contScale(name, p) * math.Max(1, math.Abs(s))
					}
					check("x", dx, func(x float64) float64 { return eval(x, p) }, x, xstep)
					for i := range p {
						step := fdStep(p[i])
						if i == 0 && u.Params[i].Support == Real { // a location: on the scale of x − mu
							step = 1e-6 * math.Max(math.Abs(x-p[i]), contScale(name, p))
							if lo := contLower(name, p); !math.IsInf(lo, -1) {
								step = math.Min(step, 1e-3*(x-lo))
							}
						}
						if u.Params[i].Support == Unit { // τ near 0 or 1: inside (0, 1)
							step = math.Min(step, 1e-3*math.Min(p[i], 1-p[i]))
						}
						if name == "Pareto" && i == 0 {
							step = math.Min(step, 1e-3*(x-p[0]))
						}
						check(u.Params[i].Name, dp[i], func(v float64) float64 {
							q := append([]float64(nil), p...)
							q[i] = v
							return eval(x, q)
						}, p[i], step)
					}
				}
			}
		}
	}
}

// contAt returns the grid value s of a family in its natural units.
func contAt(name string, p []float64, s float64) float64 {
	switch name {
	case "Logistic", "Gumbel", "SkewNormal", "ExpModNormal", "SkewDoubleExponential":
		return p[0] + p[1]*s
	case "VonMises":
		return p[0] + s/math.Sqrt(math.Max(1, p[1]))
	case "ChiSquare":
		return s * p[0]
	case "InvChiSquare":
		return s / p[0]
	case "ScaledInvChiSquare":
		return s * p[1] * p[1]
	case "Rayleigh":
		return s * p[0]
	case "Pareto":
		return s * p[0]
	case "ParetoType2":
		return p[0] + s*p[1]
	case "Frechet":
		return s * p[1]
	case "LogLogistic":
		return s * p[0]
	}
	panic(name)
}

// contScale returns the scale of a family on the real line: its second
// parameter, or 1/√κ for VonMises.
func contScale(name string, p []float64) float64 {
	if name == "VonMises" {
		return 1 / math.Sqrt(math.Max(1, p[1]))
	}
	return p[1]
}

// contLower returns the lower end of a family's support.
func contLower(name string, p []float64) float64 {
	switch name {
	case "Logistic", "Gumbel", "SkewNormal", "ExpModNormal", "VonMises", "SkewDoubleExponential":
		return math.Inf(-1)
	case "Pareto":
		return p[0]
	case "ParetoType2":
		return p[0]
	}
	return 0
}

// TestContinuousSupports: the values at and past the end of each support,
// and invalid parameters.
func TestContinuousSupports(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name string
		p    []float64
		x    float64
		want float64 // log density; NaN for invalid
	}{
		{"Pareto", []float64{2, 3}, 1.999, math.Inf(-1)},
		{"Pareto", []float64{2, 3}, 2, math.Log(3) - math.Log(2)},
		{"ParetoType2", []float64{-1, 2, 3}, -1.001, math.Inf(-1)},
		{"ParetoType2", []float64{-1, 2, 3}, -1, math.Log(1.5)},
		{"Rayleigh", []float64{1}, 0, math.Inf(-1)},
		{"ChiSquare", []float64{3}, 0, math.Inf(-1)},
		{"InvChiSquare", []float64{3}, -1, math.Inf(-1)},
		{"Frechet", []float64{2, 1}, 0, math.Inf(-1)},
		{"LogLogistic", []float64{2, 1}, 0, math.Inf(-1)},
		{"Logistic", []float64{0, 1}, math.Inf(1), math.Inf(-1)},
		{"Gumbel", []float64{0, 1}, -1e4, math.Inf(-1)},
		{"Logistic", []float64{0, 0}, 1, nan},
		{"Gumbel", []float64{math.Inf(1), 1}, 1, nan},
		{"ChiSquare", []float64{-1}, 1, nan},
		{"ScaledInvChiSquare", []float64{1, 0}, 1, nan},
		{"Pareto", []float64{0, 1}, 1, nan},
		{"ParetoType2", []float64{0, 1, 0}, 1, nan},
		{"Frechet", []float64{1, -1}, 1, nan},
		{"LogLogistic", []float64{nan, 1}, 1, nan},
		{"Rayleigh", []float64{1}, nan, nan},
	} {
		u, _ := LookupUnivariate(c.name)
		dp := make([]float64, len(c.p))
		lp, _ := u.Kernel(c.x, c.p, dp)
		switch {
		case math.IsNaN(c.want):
			if !math.IsNaN(lp) || !math.IsNaN(dp[0]) {
				t.Errorf("%s%v at %v: %v, partial %v, want NaN", c.name, c.p, c.x, lp, dp[0])
			}
		case math.IsInf(c.want, -1):
			if !math.IsInf(lp, -1) || dp[0] != 0 {
				t.Errorf("%s%v at %v: %v, partial %v, want −Inf and 0", c.name, c.p, c.x, lp, dp[0])
			}
		default:
			if math.Abs(lp-c.want) > 1e-15 {
				t.Errorf("%s%v at %v: %v, want %v", c.name, c.p, c.x, lp, c.want)
			}
		}
	}
}

// TestContinuousHeavyMoments: the heavy-tailed samplers against quantiles
// where their moments do not exist (Pareto and Frechet shape 1.5,
// LogLogistic shape 1.2): P(X ≤ median) = ½ within 4.5 standard errors.
func TestContinuousHeavyMoments(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 0))
	for _, c := range []struct {
		d      interface{ Rand(*rand.Rand) float64 }
		name   string
		median float64
	}{
		{Pareto{2, 1.5}, "Pareto", 2 * math.Pow(2, 1/1.5)},
		{ParetoType2{1, 2, 1.5}, "ParetoType2", 1 + 2*math.Expm1(math.Ln2/1.5)},
		{Frechet{1.5, 3}, "Frechet", 3 * math.Pow(math.Ln2, -1/1.5)},
		{LogLogistic{2, 1.2}, "LogLogistic", 2},
	} {
		ind := make([]float64, momentDraws)
		for j := range ind {
			if c.d.Rand(rng) <= c.median {
				ind[j] = 1
			}
		}
		checkMean(t, c.name+" median", ind, 0.5)
	}
}

// besselTol bounds log I₀(κ) − κ, A = I₁/I₀ and 1 − A against mpmath,
// relative: 1 − A from the power series (κ ≤ 30) loses about 2κ ulps, as
// A nears 1.
const besselTol = 5e-14

// checkBesselI0 checks logBesselI0 at k against want = [log I₀(κ) − κ,
// I₁/I₀, 1 − I₁/I₀] from mpmath.
func checkBesselI0(t *testing.T, k float64, want []float64) {
	t.Helper()
	l0, a, oma := logBesselI0(k)
	for i, got := range []float64{l0, a, oma} {
		if e := relErr(got, want[i]); !(e <= besselTol) {
			t.Errorf("logBesselI0(%g) quantity %d = %.17g, mpmath %.17g (relative error %.2g)", k, i, got, want[i], e)
		}
	}
}

// TestVonMisesRand checks the von Mises sampler's circular moments within
// 4.5 standard errors: E cos(X − μ) = I₁(κ)/I₀(κ), E sin(X − μ) = 0, from
// κ = 1e-6 (uniform) to 1e4, every draw in [μ − π, μ + π].
func TestVonMisesRand(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 0))
	c, s := make([]float64, momentDraws), make([]float64, momentDraws)
	for _, k := range []float64{1e-6, 0.5, 4, 80, 1e4} {
		d := VonMises{0.7, k}
		for j := range c {
			x := d.Rand(rng)
			if !(math.Abs(x-0.7) <= math.Pi) {
				t.Fatalf("VonMises(0.7, %g) drew %v", k, x)
			}
			c[j], s[j] = math.Cos(x-0.7), math.Sin(x-0.7)
		}
		_, a, _ := logBesselI0(k)
		checkMean(t, "VonMises cos "+ftoa(k), c, a)
		checkMean(t, "VonMises sin "+ftoa(k), s, 0)
	}
}

// TestContinuousOverflow: values so far out that the log density is −Inf
// (x − μ overflows, a ratio overflows) give zero partials, not ±Inf or NaN.
func TestContinuousOverflow(t *testing.T) {
	big := math.MaxFloat64
	var n int // cases whose log density is −Inf
	for _, c := range []struct {
		name string
		p    []float64
		x    float64
	}{
		{"Logistic", []float64{-big, 1e-300}, big}, {"Gumbel", []float64{-big, 1}, big},
		{"Gumbel", []float64{0, 1e-300}, -1}, {"ParetoType2", []float64{-big, 1e-300, 2}, big},
		{"SkewNormal", []float64{-big, 1, 3}, big}, {"ExpModNormal", []float64{-big, 1e-300, 1}, big},
		{"Pareto", []float64{1e-300, 1e10}, big}, {"Frechet", []float64{1e10, 1}, 1e-300},
		{"Rayleigh", []float64{1e-300}, big}, {"SkewDoubleExponential", []float64{-big, 1e-300, 0.5}, big},
	} {
		u, _ := LookupUnivariate(c.name)
		dp := make([]float64, len(c.p))
		lp, dx := u.Kernel(c.x, c.p, dp)
		if !math.IsInf(lp, -1) {
			continue // still finite: nothing to check
		}
		n++
		for i, g := range append([]float64{dx}, dp...) {
			if g != 0 {
				t.Errorf("%s%v at %g: log density −Inf, partial %d = %v", c.name, c.p, c.x, i, g)
			}
		}
	}
	if n < 7 {
		t.Errorf("%d cases reach a log density of −Inf, want at least 7", n)
	}
}
