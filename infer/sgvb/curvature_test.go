package sgvb

import (
	"context"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gpplang/gpp/dist"
)

// curvTol bounds the error of the curvature check's ratios on a normal
// posterior, whose Hessian central differences give up to rounding
// (laplaceHessTol's O(ε/h)).
const curvTol = 1e-6

// TestMeanFieldCurvatureNormal: on a normal posterior of precision P the
// check's ratios are √(Σ_ii P_ii) and its correlation Σ's, whatever q's
// mean (the Hessian is constant); a joint factor over both coordinates
// leaves nothing (GroupRatios 1), over one of them the ratio as it was.
func TestMeanFieldCurvatureNormal(t *testing.T) {
	g := &regression2{x: []float64{2, 2.5, 3, 3.5, 4}, y: []float64{1.1, 1.4, 2.2, 2.4, 3.1}, tau: 2}
	lats := []Latent{{Name: "b0", Offset: 0, Size: 1, Support: dist.Real}, {Name: "b1", Offset: 1, Size: 1, Support: dist.Real}}
	r, err := Fit(context.Background(), g, lats, Settings{Seed: 1, PSISDraws: -1})
	if err != nil {
		t.Fatal(err)
	}
	ud, err := NewUnconstrained(g, lats)
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.MeanFieldCurvature(context.Background(), ud)
	if err != nil {
		t.Fatal(err)
	}
	_, S := g.posterior()
	var P mat.SymDense
	var ch mat.Cholesky
	ch.Factorize(S)
	ch.InverseTo(&P)
	rho := S.At(0, 1) / math.Sqrt(S.At(0, 0)*S.At(1, 1))
	for i := range 2 {
		want := math.Sqrt(S.At(i, i) * P.At(i, i))
		if math.Abs(c.Ratio[i]-want) > curvTol*want {
			t.Errorf("ratio %d = %.9g, want %.9g", i, c.Ratio[i], want)
		}
		if c.Partner[i] != 1-i || math.Abs(c.Corr[i]-rho) > curvTol {
			t.Errorf("partner of %d = %d (correlation %.9g), want %d (%.9g)", i, c.Partner[i], c.Corr[i], 1-i, rho)
		}
		// 1/√(1 − ρ²) for two coordinates
		if w := 1 / math.Sqrt(1-rho*rho); math.Abs(c.Ratio[i]-w) > curvTol*w {
			t.Errorf("ratio %d = %.9g, want 1/√(1 − ρ²) = %.9g", i, c.Ratio[i], w)
		}
	}
	if !(c.Ratio[0] > 1.5) {
		t.Fatalf("ratio %.3g: the test wants correlated coordinates", c.Ratio[0])
	}
	// Scale is q's own sd against 1/√P_ii: σ_i √P_ii exactly, and near 1
	// where the fit has settled (mean-field's optimum is σ_i² = 1/P_ii)
	for i, f := range r.Factors {
		want := f.Params[1][0] * math.Sqrt(P.At(i, i))
		if math.Abs(c.Scale[i]-want) > curvTol*want {
			t.Errorf("scale %d = %.9g, want σ√P_ii = %.9g", i, c.Scale[i], want)
		}
		if math.Abs(c.Scale[i]-1) > 0.1 {
			t.Errorf("scale %d = %.4g for a settled fit, want 1 within 0.1", i, c.Scale[i])
		}
	}
	for i, v := range c.GroupRatios([]bool{true, true}) {
		if math.Abs(v-1) > curvTol {
			t.Errorf("joint factor: coordinate %d still %.9g too small, want 1", i, v)
		}
	}
	if v := c.GroupRatios([]bool{true, false}); math.Abs(v[0]-c.Ratio[0]) > curvTol*c.Ratio[0] {
		t.Errorf("a factor of one coordinate: %.9g, want its ratio %.9g", v[0], c.Ratio[0])
	}
}

// TestCurvatureNotDefinite: a Hessian that is not negative definite (a
// saddle) gives ErrNotDefinite, not ratios; a MAP fit is refused.
func TestCurvatureNotDefinite(t *testing.T) {
	H := mat.NewSymDense(2, []float64{-1, 2, 2, -1}) // eigenvalues 1, −3
	if _, err := curvatureOf(H); !errors.Is(err, ErrNotDefinite) {
		t.Errorf("saddle: %v, want ErrNotDefinite", err)
	}
	if c, err := curvatureOf(mat.NewSymDense(2, []float64{-2, 0, 0, -3})); err != nil || math.Abs(c.Ratio[0]-1) > curvTol || math.Abs(c.Ratio[1]-1) > curvTol {
		t.Errorf("independent: %v, %v, want ratios 1", c, err)
	}
	g := &regression2{x: []float64{1, 2}, y: []float64{1, 2}, tau: 1}
	lats := []Latent{{Name: "b0", Offset: 0, Size: 1, Support: dist.Real}, {Name: "b1", Offset: 1, Size: 1, Support: dist.Real}}
	r, err := Fit(context.Background(), g, lats, Settings{Method: MAP, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ud, _ := NewUnconstrained(g, lats)
	if _, err := r.MeanFieldCurvature(context.Background(), ud); err == nil {
		t.Error("MAP: no error")
	}
}
