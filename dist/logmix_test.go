package dist

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
)

// TestLogMixKernel: log_mix's value is log(θe^a + (1−θ)e^b) (by the sum of
// exponentials, which these arguments keep finite), lp2 at θ = 0 and lp1
// at θ = 1, and its three partials match finite differences, one-sided at
// the ends of [0, 1]; θ outside [0, 1] is −Inf with the reason.
func TestLogMixKernel(t *testing.T) {
	for _, c := range []struct{ theta, a, b float64 }{
		{0.3, -1.2, -0.4}, {0.95, -3, 2}, {1e-3, 5, -5}, {0.5, -700, -702},
		{0, -1.2, -0.4}, {1, -1.2, -0.4}, {0, 3, -2}, {1, -2, 3},
	} {
		dp := make([]float64, 2)
		f, dth := logMixKernel(c.theta, []float64{c.a, c.b}, dp)
		m := max(c.a, c.b) // the sum of exponentials, scaled to stay finite
		want := m + math.Log(c.theta*math.Exp(c.a-m)+(1-c.theta)*math.Exp(c.b-m))
		if !(math.Abs(f-want) <= 1e-13*(1+math.Abs(want))) {
			t.Errorf("log_mix(%g, %g, %g) = %.17g, want %.17g", c.theta, c.a, c.b, f, want)
		}
		switch c.theta {
		case 0:
			if f != c.b {
				t.Errorf("log_mix(0, %g, %g) = %.17g, want lp2 exactly", c.a, c.b, f)
			}
		case 1:
			if f != c.a {
				t.Errorf("log_mix(1, %g, %g) = %.17g, want lp1 exactly", c.a, c.b, f)
			}
		}
		formula := fd.Central
		switch c.theta {
		case 0:
			formula = fd.Forward
		case 1:
			formula = fd.Backward
		}
		at := func(th, a, b float64) float64 { v, _ := logMixKernel(th, []float64{a, b}, nil); return v }
		h := 1e-6
		for i, got := range []float64{dth, dp[0], dp[1]} {
			g := func(v float64) float64 {
				switch i {
				case 0:
					return at(v, c.a, c.b)
				case 1:
					return at(c.theta, v, c.b)
				}
				return at(c.theta, c.a, v)
			}
			x, set := c.theta, &fd.Settings{Formula: fd.Central, Step: h}
			if i == 0 {
				set = &fd.Settings{Formula: formula, Step: h * min(1, math.Max(c.theta, 1e-3))}
			} else {
				x = []float64{c.a, c.b}[i-1]
			}
			want := fd.Derivative(g, x, set)
			tol := 1e-5 * (1 + math.Abs(want))
			if i == 0 && (c.theta == 0 || c.theta == 1) {
				tol = 1e-4 * (1 + math.Abs(want)) // a one-sided difference is first order
			}
			if !(math.Abs(got-want) <= tol) {
				t.Errorf("log_mix(%g, %g, %g): partial %d %.10g, finite difference %.10g", c.theta, c.a, c.b, i, got, want)
			}
		}
	}
	for _, th := range []float64{-0.1, 1.5} {
		f, _ := logMixKernel(th, []float64{0, 0}, []float64{0, 0})
		why, _ := logMixExplain(th, []float64{0, 0}, f)
		if !math.IsInf(f, -1) || why == "" {
			t.Errorf("log_mix(%g, 0, 0) = %g (%q), want -Inf with a reason", th, f, why)
		}
	}
}
