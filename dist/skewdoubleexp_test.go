package dist

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSkewDoubleExponentialKink: at x = μ the partials in x and μ are 0
// (Stan's sign(0) = 0), the others the smooth ones, and just off it the
// one-sided slopes 2(1 − τ)/σ below and −2τ/σ above.
func TestSkewDoubleExponentialKink(t *testing.T) {
	for _, p := range [][]float64{{0.3, 1.7, 0.2}, {-2, 0.01, 0.9}, {5, 3, 0.5}} {
		mu, s, tau := p[0], p[1], p[2]
		d := SkewDoubleExponential{mu, s, tau}
		dp := d.Score(nil, mu)
		want := math.Ln2 + math.Log(tau*(1-tau)/s)
		if got := d.LogProb(mu); relErr(got, want) > 1e-15 {
			t.Errorf("%v at μ: log p %.17g, want %.17g", p, got, want)
		}
		if dx := d.ScoreInput(mu); dx != 0 || dp[0] != 0 {
			t.Errorf("%v at μ: ∂/∂x %g, ∂/∂μ %g, want 0 and 0", p, dx, dp[0])
		}
		if relErr(dp[1], -1/s) > 1e-15 || relErr(dp[2], 1/tau-1/(1-tau)) > 1e-12 && dp[2] != 1/tau-1/(1-tau) {
			t.Errorf("%v at μ: ∂/∂σ %g, ∂/∂τ %g, want %g and %g", p, dp[1], dp[2], -1/s, 1/tau-1/(1-tau))
		}
		h := 1e-9 * s
		if dx := d.ScoreInput(mu - h); relErr(dx, 2*(1-tau)/s) > 1e-15 {
			t.Errorf("%v just below μ: ∂/∂x %g, want %g", p, dx, 2*(1-tau)/s)
		}
		if dx := d.ScoreInput(mu + h); relErr(dx, -2*tau/s) > 1e-15 {
			t.Errorf("%v just above μ: ∂/∂x %g, want %g", p, dx, -2*tau/s)
		}
	}
}

// TestSkewDoubleExponentialLimits: μ is the τ-quantile (log P(X ≤ μ) =
// log τ, from either side's formula), τ = ½ is Laplace(μ, σ), and
// X ~ (μ, σ, τ) mirrors to −X ~ (−μ, σ, 1 − τ).
func TestSkewDoubleExponentialLimits(t *testing.T) {
	lo, _ := LogCDF("SkewDoubleExponential", false)
	up, _ := LogCDF("SkewDoubleExponential", true)
	llo, _ := LogCDF("Laplace", false)
	dp := make([]float64, 3)
	for _, tau := range []float64{1e-9, 0.03, 0.5, 0.8, 1 - 1e-7} {
		p := []float64{1.5, 2, tau}
		if v, _ := lo(1.5, p, dp); relErr(v, math.Log(tau)) > 1e-15 {
			t.Errorf("τ = %g: log P(X ≤ μ) %.17g, want log τ %.17g", tau, v, math.Log(tau))
		}
		if v, _ := lo(math.Nextafter(1.5, 0), p, dp); relErr(v, math.Log(tau)) > 1e-14 {
			t.Errorf("τ = %g: log P(X ≤ μ⁻) %.17g, want log τ %.17g", tau, v, math.Log(tau))
		}
		if v, _ := up(math.Nextafter(1.5, 0), p, dp); relErr(v, math.Log1p(-tau)) > 1e-14 {
			t.Errorf("τ = %g: log P(X > μ⁻) %.17g, want log(1 − τ) %.17g", tau, v, math.Log1p(-tau))
		}
		for _, x := range []float64{-40, -3, 0.2, 1.5, 2, 9, 300} {
			if 1-(1-tau) != tau {
				break // the mirror's 1 − τ is rounded: 1e-7 off at τ = 1e-9
			}
			a, _ := lo(x, p, dp)
			b, _ := up(-x, []float64{-1.5, 2, 1 - tau}, dp)
			if relErr(a, b) > 1e-13 && a != b {
				t.Errorf("τ = %g: log P(X ≤ %g) %.17g, mirrored %.17g", tau, x, a, b)
			}
		}
	}
	lap := Laplace{0.5, 3}
	for _, x := range []float64{-30, -2, 0.4, 0.6, 3, 50} {
		d := SkewDoubleExponential{0.5, 3, 0.5}
		if a, b := d.LogProb(x), lap.LogProb(x); relErr(a, b) > 1e-15 {
			t.Errorf("τ = ½ at %g: log p %.17g, Laplace's %.17g", x, a, b)
		}
		a, _ := lo(x, []float64{0.5, 3, 0.5}, dp)
		b, _ := llo(x, []float64{0.5, 3}, dp[:2])
		if relErr(a, b) > 1e-14 {
			t.Errorf("τ = ½ at %g: log CDF %.17g, Laplace's %.17g", x, a, b)
		}
	}
}

// TestSkewDoubleExponentialQuantile: a fraction τ of the draws lies below
// μ, within four binomial standard deviations.
func TestSkewDoubleExponentialQuantile(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	const n = 40000
	for _, tau := range []float64{0.05, 0.5, 0.9} {
		d := SkewDoubleExponential{-1, 2, tau}
		below := 0
		for range n {
			if d.Rand(rng) <= -1 {
				below++
			}
		}
		if f, sd := float64(below)/n, math.Sqrt(tau*(1-tau)/n); math.Abs(f-tau) > 4*sd {
			t.Errorf("τ = %g: %.4f of the draws below μ", tau, f)
		}
	}
}

// TestSkewDoubleExponentialExtremes: no NaN, no log probability above 0
// and no infinite partial from the log CDFs at skewnesses next to 0 and 1,
// tiny and huge scales and values far out on either side (short of where
// a partial such as (μ − x)/σ² itself overflows).
func TestSkewDoubleExponentialExtremes(t *testing.T) {
	xs := []float64{-1e100, -1e10, -1, -1e-300, 0, 1e-300, 1, 1e10, 1e100}
	taus := []float64{1e-300, 1e-8, 0.5, 1 - 1e-8, math.Nextafter(1, 0)}
	sigmas := []float64{1e-100, 1, 1e300}
	for _, upper := range []bool{false, true} {
		k, _ := LogCDF("SkewDoubleExponential", upper)
		for _, x := range xs {
			for _, tau := range taus {
				for _, s := range sigmas {
					dp := make([]float64, 3)
					v, dx := k(x, []float64{0, s, tau}, dp)
					for _, g := range append([]float64{v, dx}, dp...) {
						if math.IsNaN(g) || math.IsInf(g, 1) || (g != v && math.IsInf(g, 0)) {
							t.Errorf("SkewDoubleExponential(0, %g, %g) upper %v at %g: %v, partials %v %v", s, tau, upper, x, v, dx, dp)
							break
						}
					}
					if v > 0 {
						t.Errorf("SkewDoubleExponential(0, %g, %g) upper %v at %g: log P = %v", s, tau, upper, x, v)
					}
				}
			}
		}
	}
	// 1 − P with P underflowed, whose σ partial overflows: log 1, and
	// zero partials rather than 0·Inf
	for _, c := range []struct {
		x     float64
		upper bool
	}{{1, false}, {-1, true}} {
		k, _ := LogCDF("SkewDoubleExponential", c.upper)
		dp := make([]float64, 3)
		if v, dx := k(c.x, []float64{0, 1e-300, 0.5}, dp); v != 0 || dx != 0 || dp[0] != 0 || dp[1] != 0 || dp[2] != 0 {
			t.Errorf("SkewDoubleExponential(0, 1e-300, 0.5) upper %v at %g: %v, partials %v %v, want 0 and zeros", c.upper, c.x, v, dx, dp)
		}
	}
}
