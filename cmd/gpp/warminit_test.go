package main

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/lang/compile"
)

// TestWarmInitHint: the curvature hint's --fullrank advice starts the
// group from the fit just made (--init its output directory), and that
// command is --fullrank auto's warm refit: the same outputs bit for bit,
// so it starts where mean-field ended, not from the default start (a 4PL
// assay's group, cold, "converged" 26 nats below mean-field).
func TestWarmInitHint(t *testing.T) {
	if testing.Short() {
		t.Skip("fits models")
	}
	dir := t.TempDir()
	model, data := filepath.Join("testdata", "fit_fullrank.gpp"), filepath.Join("testdata", "fit_fullrank.csv")
	mf, auto, warm := filepath.Join(dir, "mf"), filepath.Join(dir, "auto"), filepath.Join(dir, "warm")
	code, _, stderr := runSafe(t, "fit", model, data, "--quiet", "--out", mf)
	want := "--fullrank beta (2 elements) gives the params that move together one joint factor, best started where this fit ended (--fullrank beta --init " + mf + ": from the default start a joint factor can stop far below it); by that curvature"
	if code != 0 || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d, want the hint to contain %q; stderr\n%s", code, want, stderr)
	}
	if code, _, stderr := runSafe(t, "fit", model, data, "--quiet", "--fullrank", "auto", "--out", auto); code != 0 || !strings.Contains(stderr, "the fit with --fullrank beta is kept") {
		t.Fatalf("--fullrank auto: exit %d, want beta kept; stderr\n%s", code, stderr)
	}
	if code, _, stderr := runSafe(t, "fit", model, data, "--quiet", "--fullrank", "beta", "--init", mf, "--out", warm); code != 0 {
		t.Fatalf("the hint's command: exit %d\n%s", code, stderr)
	}
	if a, w := readFile(t, filepath.Join(auto, "summary.csv")), readFile(t, filepath.Join(warm, "summary.csv")); a != w {
		t.Errorf("summary.csv of the hint's command\n%s\nagainst --fullrank auto's\n%s", w, a)
	}
}

// TestMeanFieldHintWarmInit: the Pareto k̂ rule's hint names --fullrank
// all with --init from this fit where it is given one, and no --init
// where not.
func TestMeanFieldHintWarmInit(t *testing.T) {
	m := &compile.Model{Latents: []compile.Latent{{Name: "a", Support: dist.Real, Size: 1}, {Name: "b", Support: dist.Real, Size: 3}}}
	h := meanFieldHint(sgvb.Settings{}, m, 0.9, math.NaN(), "", "/tmp/mf")
	if want := "--fullrank all (4 elements) fits them jointly, as Stan's fullrank ADVI, best started where this fit ended (--fullrank all --init /tmp/mf: "; !strings.Contains(h, want) {
		t.Errorf("hint %q, want one containing %q", h, want)
	}
	if h := meanFieldHint(sgvb.Settings{}, m, 0.9, math.NaN(), "", ""); strings.Contains(h, "--init") {
		t.Errorf("no output directory: hint %q names --init", h)
	}
}

// TestAutoIterNote: --fullrank auto says which refits ran --iter steps
// unconverged and were not kept, with the command that refits the first
// from the same start for autoIterFactor times the steps (the REPL's
// :fit --init last); nothing where the only one is the fit kept.
func TestAutoIterNote(t *testing.T) {
	cfg := &fitConfig{model: "m.gpp", data: []string{"d.json"}, warmInit: "/tmp/mf"}
	note := func(unconv []string, kept string) string {
		var b bytes.Buffer
		autoIterNote(cfg, unconv, kept, 10000, nil, newConsole(&b, false, false, false))
		return b.String()
	}
	got := note([]string{"a+b", "all"}, "")
	for _, want := range []string{"the refits with --fullrank a+b and --fullrank all did not converge in 10000 iterations",
		"gpp fit m.gpp d.json --fullrank a+b --init /tmp/mf --iter 30000, with this fit's other flags, refits the first from the same start (the mean-field fit, kept) with 3× the steps, and likewise --fullrank all;"} {
		if !strings.Contains(got, want) {
			t.Errorf("note %q, want it to contain %q", got, want)
		}
	}
	if got := note([]string{"a+b", "all"}, "a+b"); !strings.Contains(got, "the refit with --fullrank all did not converge") || !strings.Contains(got, "--fullrank all --init /tmp/mf --iter 30000, with this fit's other flags, refits it from the fit kept (--fullrank a+b) with 3× the steps") {
		t.Errorf("a+b kept: note %q, want one on all alone, from a+b's fit", got)
	}
	if got := note([]string{"all"}, "all"); got != "" {
		t.Errorf("the unconverged refit kept: note %q, want none", got)
	}
	cfg.warmInit = "last"
	if got, want := note([]string{"all"}, ""), ":fit --fullrank all --init last --iter 30000 refits it"; !strings.Contains(got, want) {
		t.Errorf("REPL: note %q, want it to contain %q", got, want)
	}
}

// TestAutoIterNoteCLI: in gpp fit --fullrank auto, a refit that ran out of
// --iter and was not kept gets the note (a narrow non-centred funnel at
// --iter 800).
func TestAutoIterNoteCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("fits models")
	}
	dir := t.TempDir()
	model := writeFile(t, dir, "nc.gpp", ncFunnelModel)
	data := writeFile(t, dir, "narrow.csv", ncFunnelData(3, 0.1))
	out := filepath.Join(dir, "auto")
	code, _, stderr := runSafe(t, "fit", model, data, "--set", "G=20", "--quiet", "--fullrank", "auto", "--iter", "800", "--out", out)
	if want := " (not converged) (--fullrank all's ELBO is "; code != 0 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "standard errors lower): the mean-field fit is kept") {
		t.Fatalf("exit %d, want %q and the mean-field fit kept (the case the note is for); stderr\n%s", code, want, stderr)
	}
	if want := "the refit with --fullrank all did not converge in 800 iterations and may still be rising, so the ELBOs above do not settle which q is better: gpp fit " + model + " " + data + " --fullrank all --init " + out + " --iter 2400,"; !strings.Contains(stderr, want) {
		t.Errorf("stderr\n%s\nwant it to contain %q", stderr, want)
	}
}
