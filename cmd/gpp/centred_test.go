package main

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/parser"
)

// TestCentredHints: a Normal prior whose scale depends on params, on an
// unbounded real param, gets the non-centred form when k̂ is above 0.7 (a
// vector scale with .*, a location of 0 left out, a compound scale in
// parentheses); a scale of data or constants, a bounded or positive param,
// another family and a k̂ of 0.7 or less or NaN (MAP) get none.
func TestCentredHints(t *testing.T) {
	const src = `data J: int
data y: real[J]
data s0: positive
param mu: real ~ Normal(0, 5)
param tau: positive ~ HalfNormal(5)
param sig: positive[J] ~ HalfNormal(1)
param theta: real[J] ~ Normal(mu, tau)
param a: real[J] ~ Normal(0, sig)
param b: real[J] ~ Normal(mu, tau + s0)
param c: real[J] ~ Normal(mu, s0)
param d: real<lower=-5, upper=5>[J] ~ Normal(0, 1)
param e: real[J] ~ StudentT(3, mu, tau)
param f: positive[J] ~ Normal(0, tau)
y ~ Normal(theta + a + b + c + d + e + f, 1)
`
	file, err := parser.ParseFile("h.gpp", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	info, err := check.Check(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := centredHints(info, 0.9, math.NaN())
	want := []string{
		"theta's prior Normal(mu, tau) has a scale that depends on params (a centred hierarchy): where the data say little about each element of theta, the posterior is a funnel in tau that a normal q cannot follow, and q's tau and theta may be far off; the non-centred form, param theta_z: real[J] ~ Normal(0, 1) with let theta = mu + tau * theta_z, is the usual cure, but where the data pin each element down the centred form fits better: compare the two fits' ELBOs (docs/inference.md, Centred hierarchies)",
		"param a_z: real[J] ~ Normal(0, 1) with let a = sig .* a_z,",
		"param b_z: real[J] ~ Normal(0, 1) with let b = mu + (tau + s0) * b_z,",
	}
	if len(got) != len(want) {
		t.Fatalf("%d hints, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("hint %d:\n%s\nwant it to contain\n%s", i, got[i], w)
		}
	}
	for _, k := range []float64{0.7, 0.3, math.NaN()} {
		if h := centredHints(info, k, math.NaN()); h != nil {
			t.Errorf("k̂ %v: %v, want none", k, h)
		}
	}
	// a heavy tail of near-uniform weights (relative ESS 0.97: cv 0.18)
	// raises no alarm; at relative ESS 0.95 (cv 0.23) it does
	if h := centredHints(info, 2.5, 0.97); h != nil {
		t.Errorf("k̂ 2.5, relative ESS 0.97: %v, want none", h)
	}
	if h := centredHints(info, 2.5, 0.95); len(h) != len(want) {
		t.Errorf("k̂ 2.5, relative ESS 0.95: %d hints, want %d", len(h), len(want))
	}
}

// TestFitCentredHint: gpp fit of eight schools, centred (posteriordb's
// data, inline), prints the hint after its k̂ warning, and the non-centred
// form of the same model gets none.
func TestFitCentredHint(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	dir := t.TempDir()
	data := writeFile(t, dir, "schools.json", `{"J": 8, "y": [28, 8, -3, 7, -1, 1, 18, 12], "sigma": [15, 10, 16, 11, 9, 11, 10, 18]}`)
	head := "data J: int\ndata y: real[J]\ndata sigma: positive[J]\nparam mu: real ~ Normal(0, 5)\nparam tau: positive ~ Cauchy(0, 5)\n"
	centred := writeFile(t, dir, "centred.gpp", head+"param theta: real[J] ~ Normal(mu, tau)\ny ~ Normal(theta, sigma)\n")
	noncentred := writeFile(t, dir, "noncentred.gpp", head+"param theta_z: real[J] ~ Normal(0, 1)\nlet theta = mu + tau * theta_z\ny ~ Normal(theta, sigma)\n")
	code, _, stderr := runSafe(t, "fit", centred, data, "--quiet", "--seed", "2", "--out", filepath.Join(dir, "c"))
	if code != 0 || !strings.Contains(stderr, "Pareto k̂") || !strings.Contains(stderr, "hint: theta's prior Normal(mu, tau) has a scale that depends on params") {
		t.Errorf("centred: exit %d, stderr\n%s", code, stderr)
	}
	code, _, stderr = runSafe(t, "fit", noncentred, data, "--quiet", "--seed", "2", "--out", filepath.Join(dir, "n"))
	if code != 0 || strings.Contains(stderr, "centred hierarchy") {
		t.Errorf("non-centred: exit %d, stderr\n%s", code, stderr)
	}
}
