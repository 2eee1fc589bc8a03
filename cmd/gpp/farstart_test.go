package main

import (
	"math"
	"strings"
	"testing"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
)

// TestFarStartHint: a fit from the default start that stopped before it
// converged with a normal factor's mean beyond ±farLocation gets the
// --init path hint; a converged, interrupted, path-started or warm-started
// fit, or one whose locations are all near 0, gets none.
func TestFarStartHint(t *testing.T) {
	res := func(conv, intr bool, means ...float64) *sgvb.Result {
		return &sgvb.Result{Converged: conv, Interrupted: intr, ELBO: -1045, ELBOSE: 1,
			Factors: []sgvb.Factor{
				{Name: "sigma", Family: sgvb.FamilyGamma, Support: dist.Positive, Params: [][]float64{{2}, {0.01}}},
				{Name: "alpha_c", Family: sgvb.FamilyNormal, Support: dist.Real, Params: [][]float64{means, {1}}},
			}}
	}
	if h := farStartHint(sgvb.Settings{}, res(false, false, 0.5, -20.5), nil); !strings.Contains(h, "alpha_c's mean at 20.5") || !strings.Contains(h, "--init path") {
		t.Errorf("stalled far fit: hint %q", h)
	}
	for _, c := range []struct {
		name string
		s    sgvb.Settings
		r    *sgvb.Result
	}{
		{"converged", sgvb.Settings{}, res(true, false, 240)},
		{"interrupted", sgvb.Settings{}, res(false, true, 240)},
		{"near 0", sgvb.Settings{}, res(false, false, 9.5, -3)},
		{"path start", sgvb.Settings{InitPath: true}, res(false, false, 240)},
		{"warm start", sgvb.Settings{Init: res(true, false, 1)}, res(false, false, 240)},
		{"fixed steps", sgvb.Settings{Tol: -1}, res(false, false, 240)},
		{"MAP", sgvb.Settings{Method: sgvb.MAP}, res(false, false, 240)},
		{"overflow", sgvb.Settings{}, &sgvb.Result{ELBO: math.Inf(-1), Factors: res(false, false, 240).Factors}},
	} {
		if h := farStartHint(c.s, c.r, nil); h != "" {
			t.Errorf("%s: hint %q, want none", c.name, h)
		}
	}
	mix := &sgvb.Mixture{Components: []*sgvb.Result{res(true, false, 240), res(false, false, 240)}}
	if h := farStartHint(sgvb.Settings{}, res(true, false, 240), mix); h == "" {
		t.Error("a mixture with a stalled restart: no hint")
	}
}
