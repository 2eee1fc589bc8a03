package dist

import (
	"math"
	"slices"
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

// Every hoisted kernel returns its Kernel's numbers bit for bit, whatever
// the arguments it does not hoist were when it was prepared, and no family
// derived with another kernel keeps it.
func TestHoistedKernels(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	locs := []float64{-1e300, -800, -3, -1e-300, 0, 0.5, 2, 709.5, 800, 1e12, nan, inf, -inf} // ±800, 709.5: NegBinomialLog past the ends of e^η
	// Scales and shapes on both sides of the kernels' branch points: Beta's
	// Loader form from 2, stirlingMin and polygammaShift at 10 (NegBinomial),
	// gammaLoaderShape at 1000 (Gamma, InvGamma).
	scales := []float64{1e-300, 1e-3, 0.5, 1, 2, 2.5, 9.5, 10, 40, 999.5, 1000, 1e5, 1e200, 0, -1, -inf, nan, inf}
	// Means in (0, 1), near either end and outside it.
	units := []float64{1e-300, 1e-3, 0.25, 0.5, 0.9, 1 - 0x1p-53, 0, 1, -0.5, 2, nan, inf, -inf}
	// Values: reals, positives, counts (and non-integers between them) and
	// points of (0, 1) near either end.
	xs := []float64{-800, -3, -1, -1e-300, 0, 0x1p-1060, 1e-300, 1e-3, 0.25, 0.5, 0.9, 1 - 0x1p-53, 1, 2.5, 3, 7, 12, 50,
		1e3, 1e12, 1e300, nan, inf, -inf}
	same := func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
	var hoisted []string
	for _, u := range Univariates {
		if LogScale(u).Hoisted != nil {
			t.Errorf("LogScale(%s) keeps the natural scale's hoisted kernel", u.Name)
		}
		h := u.Hoisted
		if h == nil {
			continue
		}
		hoisted = append(hoisted, u.Name)
		np := len(u.Params)
		// The grid of every argument: locations for real ones, scales
		// (including invalid ones) for positive ones.
		grids := make([][]float64, np)
		for i, p := range u.Params {
			grids[i] = locs
			switch p.Support {
			case Positive:
				grids[i] = scales
			case Unit:
				grids[i] = units
			}
		}
		state := make([]float64, h.StateLen())
		p, junk := make([]float64, np), make([]float64, np)
		dp1, dp2 := make([]float64, np), make([]float64, np)
		var walk func(i int)
		walk = func(i int) {
			if i < np {
				for _, v := range grids[i] {
					p[i] = v
					walk(i + 1)
				}
				return
			}
			for i := range junk { // prepare from the hoisted arguments alone
				junk[i] = nan
				if h.HoistArgs()&(1<<i) != 0 {
					junk[i] = p[i]
				}
			}
			h.Prepare(junk, state)
			for _, x := range xs {
				lp1, dx1 := u.Kernel(x, p, dp1)
				lp2, dx2 := h.Eval(x, p, state, dp2)
				ok := same(lp1, lp2) && same(dx1, dx2)
				for k := range dp1 {
					ok = ok && same(dp1[k], dp2[k])
				}
				if !ok {
					t.Errorf("%s(%g | %v): kernel %v %v %v, hoisted %v %v %v", u.Name, x, p, lp1, dx1, dp1, lp2, dx2, dp2)
				}
				lp3, dx3 := h.Eval(x, p, state, nil)
				if !same(lp1, lp3) || !same(dx1, dx3) {
					t.Errorf("%s(%g | %v) without partials: %v %v, want %v %v", u.Name, x, p, lp3, dx3, lp1, dx1)
				}
			}
		}
		walk(0)
	}
	want := []string{"Normal", "HalfNormal", "Cauchy", "HalfCauchy", "StudentT", "Laplace", "LogNormal", "Exponential",
		"Gamma", "InvGamma", "Beta", "BetaProportion", "NegBinomial", "NegBinomialLog", "ZeroInflatedNegBinomial", "HurdleNegBinomial"}
	if !slices.Equal(hoisted, want) {
		t.Errorf("families with hoisted kernels %v, want %v", hoisted, want)
	}
}
