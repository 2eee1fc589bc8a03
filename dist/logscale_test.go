package dist

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
)

// logScaleTol is the relative agreement of a log-space kernel with the
// ordinary kernel at moderate values and with finite differences.
const logScaleTol = 1e-8

func TestLogScaleKernels(t *testing.T) {
	params := map[string][]float64{
		"Gamma": {0.7, 2.5}, "Exponential": {1.7}, "InvGamma": {3.2, 0.8},
		"LogNormal": {-0.3, 0.9}, "HalfNormal": {1.3}, "HalfCauchy": {0.6}, "Weibull": {0.6, 1.8},
		"Normal": {0.4, 1.1}, // no log kernel: the generic path
	}
	for name, p := range params {
		u, ok := LookupUnivariate(name)
		if !ok {
			t.Fatalf("no family %s", name)
		}
		ls := LogScale(u)
		for _, l := range []float64{-2, -0.3, 0.4, 1.5} {
			x := math.Exp(l)
			dpWant := make([]float64, len(p))
			lpWant, dxWant := u.Kernel(x, p, dpWant)
			dp := make([]float64, len(p))
			lp, dl := ls.Kernel(l, p, dp)
			if !close(lp, lpWant, logScaleTol) || !close(dl, dxWant*x, logScaleTol) {
				t.Errorf("%s at l=%g: (lp, dl) = (%g, %g), want (%g, %g)", name, l, lp, dl, lpWant, dxWant*x)
			}
			for i := range dp {
				if !close(dp[i], dpWant[i], logScaleTol) {
					t.Errorf("%s at l=%g: dp[%d] = %g, want %g", name, l, i, dp[i], dpWant[i])
				}
			}
			// The l-derivative against finite differences too.
			fdl := fd.Derivative(func(l float64) float64 { v, _ := ls.Kernel(l, p, nil); return v }, l, &fd.Settings{Formula: fd.Central, Step: 1e-6})
			if !close(dl, fdl, 1e-6) {
				t.Errorf("%s at l=%g: dl = %g, finite differences %g", name, l, dl, fdl)
			}
		}
	}
}

// TestLogScaleUnderflow: at log x = -800 (x underflows to 0) the log-space
// kernels stay finite, where the ordinary kernel at x = 0 does not for Gamma
// with shape < 1.
func TestLogScaleUnderflow(t *testing.T) {
	u, _ := LookupUnivariate("Gamma")
	p := []float64{0.01, 1}
	if lp, _ := u.Kernel(math.Exp(-800), p, nil); !math.IsInf(lp, 0) && !math.IsNaN(lp) {
		t.Logf("ordinary Gamma kernel at x=0 gives %g", lp)
	}
	for name := range logKernels {
		if name == "InvGamma" {
			continue // its log density is -s/x: truly -Inf in float64 at x = e^-800
		}
		v, _ := LookupUnivariate(name)
		k := LogScale(v)
		pp := []float64{0.01, 1}[:len(v.Params)]
		dp := make([]float64, len(pp))
		lp, dl := k.Kernel(-800, pp, dp)
		if math.IsNaN(lp) || math.IsInf(lp, 0) || math.IsNaN(dl) || math.IsInf(dl, 0) {
			t.Errorf("%s at log x = -800: lp %g, dl %g", name, lp, dl)
		}
		for i, d := range dp {
			if math.IsNaN(d) || math.IsInf(d, 0) {
				t.Errorf("%s at log x = -800: dp[%d] = %g", name, i, d)
			}
		}
	}
}

func close(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b))
}
