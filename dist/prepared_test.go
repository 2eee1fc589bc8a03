package dist

import (
	"math"
	"testing"
)

// The prepared kernels return bit for bit what the kernels they split
// return, edge cases included.
func TestPreparedKernels(t *testing.T) {
	u, ok := LookupUnivariate("Gamma")
	if !ok {
		t.Fatal("no Gamma in dist")
	}
	nan, inf := math.NaN(), math.Inf(1)
	params := []float64{1e-300, 1e-3, 0.01, 0.5, 1, 2.5, 40, 999, 1000, 1e5, 1e12, 1e200, 0, -1, nan, inf, -inf}
	xs := []float64{-800, -50, -1, -1e-300, 0, 1e-300, 1e-3, 0.5, 1, 3, 6.9, 11.5, 27.6, 50, 700, 800, 1e3, 1e5, 1e12, nan, inf, -inf}
	same := func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
	for _, c := range []struct {
		name string
		kern Kernel
		prep Prepared
	}{
		{"Gamma", u.Kernel, u.Prepared},
		{"LogScale(Gamma)", LogScale(u).Kernel, LogScale(u).Prepared},
	} {
		state := make([]float64, c.prep.StateLen())
		for _, a := range params {
			for _, b := range params {
				p := []float64{a, b}
				c.prep.Prepare(p, state)
				for _, x := range xs {
					dp1, dp2 := make([]float64, 2), make([]float64, 2)
					lp1, dx1 := c.kern(x, p, dp1)
					lp2, dx2 := c.prep.Eval(x, p, state, dp2)
					if !same(lp1, lp2) || !same(dx1, dx2) || !same(dp1[0], dp2[0]) || !same(dp1[1], dp2[1]) {
						t.Errorf("%s(%g | %g, %g): kernel %v %v %v, prepared %v %v %v", c.name, x, a, b, lp1, dx1, dp1, lp2, dx2, dp2)
					}
				}
			}
		}
	}
	if n, _ := LookupUnivariate("Normal"); n.Prepared != nil || LogScale(n).Prepared != nil {
		t.Error("a prepared kernel for a family that has none")
	}
}
