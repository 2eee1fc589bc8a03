package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRestartsDisagreeWarning: restarts that end in different modes of a
// scalar (no label switching, no optima 10 nats apart) get a warning that
// names the worst element and its R̂: where their ELBOs cannot tell them
// apart (y = a², a's modes ±2 of equal mass) it says so; where they can
// (a prior that favours +2 by 1.8 nats) it names the restart with the
// highest ELBO; restarts that agree get none.
func TestRestartsDisagreeWarning(t *testing.T) {
	d := t.TempDir()
	data := filepath.Join(d, "y.json")
	if err := os.WriteFile(data, []byte(`{"y": 4}`), 0o644); err != nil {
		t.Fatal(err)
	}
	model := func(prior string) string {
		p := filepath.Join(d, strings.NewReplacer("(", "", ")", "", ", ", "_").Replace(prior)+".gpp")
		src := "data y: real\nparam a: real ~ " + prior + "\ny ~ Normal(a * a, 0.1)\n"
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const warn = "warning: the restarts disagree: 1 of 1 param elements have R̂ across them above 1.1 (the worst: a "
	cases := []struct {
		what, prior, seed, jitter string
		want                      []string // "" : no warning
	}{
		{"equal modes", "Normal(0, 3)", "1", "1", []string{warn, "which do not tell them apart: the posterior may have several modes of similar mass"}},
		{"unequal modes", "Normal(1, 1.5)", "2", "3", []string{warn, "the restart with the highest ELBO (restart 0) is the better approximation"}},
		{"one mode found", "Normal(1, 1.5)", "1", "3", nil},
	}
	for _, c := range cases {
		code, _, stderr := runSafe(t, "fit", model(c.prior), data, "--restarts", "4", "--jitter", c.jitter, "--seed", c.seed, "--quiet", "--out", filepath.Join(d, c.what))
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.what, code, stderr)
		}
		if c.want == nil {
			if strings.Contains(stderr, "restarts disagree") {
				t.Errorf("%s: restarts that agree are warned of:\n%s", c.what, stderr)
			}
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", c.what, w, stderr)
			}
		}
		// one element: no joint factor to advise
		if strings.Contains(stderr, "--fullrank all (a joint factor)") {
			t.Errorf("%s: --fullrank all advised for one element:\n%s", c.what, stderr)
		}
	}
}

// TestFitRestartsDisagreeSimplex: a synthetic control's Dirichlet weights
// (a user trial of 2026-12-01), whose four restarts put weight on
// different donors at ELBOs 1.7 to 4.3 (R̂ up to 6.5) and were warned of
// only by Pareto k̂, get the warning with the best restart and the joint
// factor's advice, and the mean-field hint's warm start keeps --restarts.
func TestFitRestartsDisagreeSimplex(t *testing.T) {
	out := t.TempDir()
	code, _, stderr := runSafe(t, "fit", "testdata/fit_synthcontrol.gpp", "testdata/fit_synthcontrol.json", "--restarts", "4", "--seed", "1", "--quiet", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// the mean-field hint's warm start reads the mixture, which --init
	// takes only with as many restarts
	for _, w := range []string{"warning: the restarts disagree: ", "(the worst: w[", "the restart with the highest ELBO (restart 0)", "--fullrank all (a joint factor) may reach a higher ELBO",
		"(--fullrank all --init " + out + " --restarts 4: "} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
}

// TestRestartsDisagreeGammaNoJoint: restarts of positive params (gamma
// factors, where the mean-field hint gives no --fullrank all either) that
// disagree are warned of without the joint factor's advice.
func TestRestartsDisagreeGammaNoJoint(t *testing.T) {
	d := t.TempDir()
	model, data := filepath.Join(d, "pos.gpp"), filepath.Join(d, "y.json")
	src := "data y: real\nparam a: real<lower=0> ~ Gamma(4, 1)\nparam b: real<lower=0> ~ Gamma(2, 1)\ny ~ Normal((a - 2) * (a - 2) + 0 * b, 0.05)\n"
	if err := os.WriteFile(model, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(data, []byte(`{"y": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runSafe(t, "fit", model, data, "--restarts", "4", "--jitter", "3", "--seed", "1", "--quiet", "--out", filepath.Join(d, "out"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "warning: the restarts disagree: ") {
		t.Fatalf("no restarts warning:\n%s", stderr)
	}
	if strings.Contains(stderr, "--fullrank all (a joint factor)") {
		t.Errorf("--fullrank all advised for gamma factors:\n%s", stderr)
	}
}

// TestRestartsDisagreeMirror: restarts of a latent class model with flat
// priors end in the truth and its mirror (sensitivities swapped with
// 1 − specificities) at the same ELBO, and the warning names such modes
// and the constraint that removes them (docs/language.md's latent
// classes) rather than only "several modes of similar mass".
func TestRestartsDisagreeMirror(t *testing.T) {
	code, _, stderr := runGpp("fit", "testdata/huiwalter_flat.gpp", "testdata/huiwalter.csv", "--restarts", "4", "--seed", "1", "--quiet", "--out", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"the restarts disagree", "which do not tell them apart", "a latent class model's mirror", "docs/language.md, Log densities per element, and mixtures"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}
