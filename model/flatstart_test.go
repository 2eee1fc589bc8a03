package model

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
)

// flatStart is a log-logistic dose-response curve with vague priors (the
// trap of a herbicide trial's 4-parameter curve): at the default start,
// HalfNormal(100)'s mean 79.8 for every param, the ED50 e lies far above
// every dose x ≤ 2 and the slope b is steep, so the curve is d whatever e
// and b are; the likelihood is flat in them there, and q settles at a
// constant curve (d the mean response, sigma its sd). The data's curve has
// d = 1, e = 0.5, b = 4.
const flatStart = `data x: real[N]
data y: real[N]
param d: positive ~ HalfNormal(100)
param e: positive ~ HalfNormal(100)
param b: positive ~ HalfNormal(100)
param sigma: positive ~ HalfNormal(100)
y ~ Normal(d / (1 + (x / e) ^ b), sigma)
`

// flatStartModel compiles flatStart with 20 doses from 0.1 to 2 and
// responses on the curve of d = 1, e = 0.5, b = 4, moved by a fixed
// ±0.03 pattern.
func flatStartModel(t *testing.T) *Model {
	t.Helper()
	x, y := make([]float64, 20), make([]float64, 20)
	for i := range x {
		x[i] = 0.1 * float64(i+1)
		y[i] = 1/(1+math.Pow(x[i]/0.5, 4)) + 0.03*math.Sin(float64(7*i))
	}
	m, err := Compile("flat.gpp", []byte(flatStart), DataValues(map[string]any{"x": x, "y": y}))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestFitRestartsRadiusFlatStart checks that restarts jittered around the
// default start (the priors' means) all stay in the flat region, e far
// above the doses, while Restarts.Radius's Stan-like random starts find
// the data's e ≈ 0.5 at an ELBO far above; restart 0 is the default fit
// either way.
func TestFitRestartsRadiusFlatStart(t *testing.T) {
	m := flatStartModel(t)
	ctx := context.Background()
	s := FitSettings()
	s.Seed = 3
	near := func(mix *sgvb.Mixture) (n int) {
		for _, c := range mix.Components {
			if e := c.Mean()[1]; e > 0.45 && e < 0.55 {
				n++
			}
		}
		return n
	}
	jit, err := m.FitRestarts(ctx, s, sgvb.Restarts{N: 4})
	if err != nil {
		t.Fatal(err)
	}

	if n := near(jit); n != 0 {
		t.Fatalf("jittered restarts: %d of 4 found e ≈ 0.5; the test's trap does not hold", n)
	}
	for r, c := range jit.Components {
		if e := c.Mean()[1]; e < 10 {
			t.Errorf("jittered restart %d: e %.3g, want it stuck above the doses", r, e)
		}
	}
	rad, err := m.FitRestarts(ctx, s, sgvb.Restarts{N: 4, Radius: 2})
	if err != nil {
		t.Fatal(err)
	}
	if n := near(rad); n < 2 {
		t.Errorf("random starts (Radius 2): %d of 3 restarts r ≥ 1 found e ≈ 0.5, want at least 2", n)
	}
	if a, b := rad.Components[0].Mean(), jit.Components[0].Mean(); a[1] != b[1] || rad.Components[0].ELBO != jit.Components[0].ELBO {
		t.Errorf("restart 0 with Radius: e %v, ELBO %v; want the default fit's %v, %v", a, rad.Components[0].ELBO, b, jit.Components[0].ELBO)
	}
	for r, c := range rad.Components {
		if e := c.Mean()[1]; e > 0.45 && e < 0.55 && !(c.ELBO > jit.Components[0].ELBO+20) {
			t.Errorf("restart %d at e %.3g: ELBO %.1f, want far above the flat region's %.1f", r, e, c.ELBO, jit.Components[0].ELBO)
		}
	}
	if _, err := m.FitRestarts(ctx, s, sgvb.Restarts{N: 2, Radius: 2}, Inits(map[string]any{"e": 0.5})); err == nil || !strings.Contains(err.Error(), "which Inits gives") {
		t.Errorf("Radius with Inits: %v", err)
	}
}
