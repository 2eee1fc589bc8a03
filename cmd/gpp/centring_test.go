package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestFitCentringHints: the centring hints of gpp fit on a user trial's
// models. Gauge R&R written non-centred (s_op * zb[op], an element of z)
// gets the hint with each centred form, and written centred the hint with
// each non-centred form; neither says which form is better (the centred
// fit had the higher ELBO, −14.86 against −17.02, where the hint had called
// non-centring "the usual cure"). A horseshoe's z, scaled by tau *
// lambda_t with a local scale per element, gets no such hint (its centred
// form fitted far worse: ELBO −399.6 against −230.5).
func TestFitCentringHints(t *testing.T) {
	if testing.Short() {
		t.Skip("fits models")
	}
	dir := t.TempDir()
	grr := filepath.Join("testdata", "centre_grr.csv")
	for _, c := range []struct {
		name, model, data string
		want, not         []string
	}{
		{"non-centred", "centre_grr.gpp", grr,
			[]string{"hint: za, zb and zab, each with the prior Normal(0, 1) and scaled by a scale that depends on params, make non-centred hierarchies",
				"s_op * zb[op]: param zb_c: real[O] ~ Normal(0, s_op) in place of param zb, and zb_c[op] in place of s_op * zb[op];",
				"which fits better (with few groups either can) this fit cannot tell: fit them too; the higher ELBO picks the q nearer the posterior in KL(q‖p)"},
			[]string{"fit better there"}},
		{"centred", "centre_grr_c.gpp", grr,
			[]string{"hint: a, b and ab have priors whose scales depend on params (centred hierarchies)",
				"b: param b_z: real[O] ~ Normal(0, 1) with let b = s_op * b_z;",
				"which fits better (with few groups either can) this fit cannot tell: fit them too; the higher ELBO picks the q nearer the posterior in KL(q‖p)"},
			[]string{"usual cure"}},
		{"horseshoe", "centre_hs.gpp", filepath.Join("testdata", "centre_hs.csv"),
			[]string{"Pareto k̂ = "}, // the alarm that gates the hints
			[]string{"non-centred hierarch", "centred form"}},
	} {
		code, _, stderr := runSafe(t, "fit", filepath.Join("testdata", c.model), c.data, "--quiet", "--seed", "1", "--out", filepath.Join(dir, c.name))
		if code != 0 {
			t.Errorf("%s: exit %d, stderr\n%s", c.name, code, stderr)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", c.name, w, stderr)
			}
		}
		for _, n := range c.not {
			if strings.Contains(stderr, n) {
				t.Errorf("%s: stderr has %q:\n%s", c.name, n, stderr)
			}
		}
	}
}
