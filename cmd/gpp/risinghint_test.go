package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
)

// TestRisingHintCLI: a cold --fullrank all fit stopped early by --iter,
// its ELBO still climbing, gets the hint after "did not converge", with
// the warm start's two commands; the same fit run to convergence, and a
// mean-field fit stopped as early, get none.
func TestRisingHintCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	dir := t.TempDir()
	fit := func(out string, flags ...string) string {
		args := append([]string{"fit", regressionModel, regressionData, "--quiet", "--seed", "1", "--out", filepath.Join(dir, out)}, flags...)
		code, _, stderr := runSafe(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", flags, code, stderr)
		}
		return stderr
	}
	const hint = "hint: the ELBO was still rising when the fit stopped"
	stderr := fit("early", "--fullrank", "all", "--iter", "600")
	w := strings.Index(stderr, "warning: did not converge in 600 iterations")
	h := strings.Index(stderr, hint)
	if w < 0 || h < w {
		t.Errorf("--iter 600: want the hint after the warning; stderr\n%s", stderr)
	}
	mf := regressionModel + " " + regressionData
	if want := "gpp fit " + mf + " --out MF, then gpp fit " + mf + " --fullrank all --init MF"; !strings.Contains(stderr, want) {
		t.Errorf("--iter 600: want the commands %q; stderr\n%s", want, stderr)
	}
	if stderr := fit("conv", "--fullrank", "all"); strings.Contains(stderr, hint) || strings.Contains(stderr, "did not converge") {
		t.Errorf("converged: want no hint; stderr\n%s", stderr)
	}
	if stderr := fit("mf", "--iter", "600"); strings.Contains(stderr, hint) {
		t.Errorf("mean-field: want no hint; stderr\n%s", stderr)
	}
}

// TestRisingHint: the hint fires on a trace that climbed by many times
// the tolerance over its last window, and not on one that wobbles at the
// tolerance, falls, gains less than risingSEs standard errors, converged
// or has no joint factor; after a warm start it says to go on from the
// fit rather than start from a mean-field one, and the REPL's phrasing
// is :fit's.
func TestRisingHint(t *testing.T) {
	trace := func(se float64, elbos ...float64) []sgvb.TracePoint {
		tr := make([]sgvb.TracePoint, len(elbos))
		for i, e := range elbos {
			tr[i] = sgvb.TracePoint{Iter: 100 * (i + 1), ELBO: e, SE: se}
		}
		return tr
	}
	joint := []sgvb.Factor{{Name: "a", Size: 2, Family: sgvb.FamilyFullRank}}
	// |ELBO| 1000 over 50 coordinates: the scale is 1000 nats, 10× the
	// default tolerance 1 nat
	rising := trace(0.05, -1020, -1016, -1012, -1008, -1004, -1000)
	cfg := &fitConfig{model: "m.gpp", data: []string{"d.csv"}, fullRank: "all", out: "o"}
	for _, c := range []struct {
		name   string
		r      *sgvb.Result
		s      sgvb.Settings
		repl   bool
		want   string // "" for no hint
		absent string
	}{
		{name: "rising", r: &sgvb.Result{Dim: 50, Factors: joint, Trace: rising},
			want: "+20 nats from iteration 100 to 600, a relative change of 0.02, 200× the tolerance 0.0001 (--tol); a joint factor from the default start"},
		{name: "rising, repl", r: &sgvb.Result{Dim: 50, Factors: joint, Trace: rising}, repl: true, want: "(:fit, then :fit --fullrank all --init last)"},
		{name: "warm", r: &sgvb.Result{Dim: 50, Factors: joint, Trace: rising, Iterations: 600}, s: sgvb.Settings{Init: &sgvb.Result{}},
			want: "raise --iter (it ran 600), or go on from this fit: --init o", absent: "mean-field"},
		{name: "band", r: &sgvb.Result{Dim: 50, Factors: []sgvb.Factor{{Family: sgvb.FamilyBanded}}, Trace: rising}, want: "still rising"},
		{name: "wobble", r: &sgvb.Result{Dim: 50, Factors: joint, Trace: trace(0.05, -1000.1, -999.9, -1000.1, -999.9, -1000.1, -999.8)}},
		{name: "just under 10× the tolerance", r: &sgvb.Result{Dim: 50, Factors: joint, Trace: trace(0.05, -1000.95, -1000.8, -1000.6, -1000.4, -1000.2, -1000)}},
		{name: "falling", r: &sgvb.Result{Dim: 50, Factors: joint, Trace: trace(0.05, -1000, -1004, -1008, -1012, -1016, -1020)}},
		{name: "within 4 standard errors", r: &sgvb.Result{Dim: 50, Factors: joint, Trace: trace(0.6, -1002, -1001.6, -1001.2, -1000.8, -1000.4, -1000)}},
		{name: "short trace", r: &sgvb.Result{Dim: 50, Factors: joint, Trace: rising[1:]}},
		{name: "converged", r: &sgvb.Result{Dim: 50, Factors: joint, Trace: rising, Converged: true}},
		{name: "mean-field", r: &sgvb.Result{Dim: 50, Factors: []sgvb.Factor{{Family: sgvb.FamilyNormal}}, Trace: rising}},
		{name: "no tolerance", r: &sgvb.Result{Dim: 50, Factors: joint, Trace: rising}, s: sgvb.Settings{Tol: -1}},
	} {
		got := risingHint(cfg, c.s, c.r, nil, c.repl)
		switch {
		case c.want == "" && got != "":
			t.Errorf("%s: want no hint, got %q", c.name, got)
		case c.want != "" && !strings.Contains(got, c.want):
			t.Errorf("%s: want a hint with %q, got %q", c.name, c.want, got)
		case c.absent != "" && strings.Contains(got, c.absent):
			t.Errorf("%s: the hint says %q: %q", c.name, c.absent, got)
		}
	}
}
