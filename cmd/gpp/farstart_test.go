package main

import (
	"math"
	"path/filepath"
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

// TestFitFarStartHint fits a centred hierarchy whose data sit near 500:
// from the default start it stops at 10⁴ steps with theta's means near 37
// and gets the far-start hint, not the centred-hierarchy hint (non-centring
// does not help a q still on its way); --init path converges near the
// data, with neither hint.
func TestFitFarStartHint(t *testing.T) {
	d := t.TempDir()
	model, data := "testdata/far_start.gpp", "testdata/far_start.csv"
	code, _, stderr := runSafe(t, "fit", model, data, "--output-draws", "20", "--out", filepath.Join(d, "default"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "did not converge") || !strings.Contains(stderr, "hint: this fit stopped before it converged with theta's mean at") {
		t.Errorf("default start: no far-start hint:\n%s", stderr)
	}
	if strings.Contains(stderr, "centred hierarchy") || strings.Contains(stderr, "--fullrank all") {
		t.Errorf("default start: a centred or mean-field hint beside the far-start one:\n%s", stderr)
	}
	code, _, stderr = runSafe(t, "fit", model, data, "--init", "path", "--output-draws", "20", "--out", filepath.Join(d, "path"))
	if code != 0 || strings.Contains(stderr, "did not converge") || strings.Contains(stderr, "hint:") {
		t.Errorf("--init path: exit %d, stderr:\n%s", code, stderr)
	}
}
