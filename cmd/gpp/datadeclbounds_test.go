package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDataElemBoundsCLI: the actuary's censored claims, each declared
// under its own policy limit (data y: real<lower=0, upper=u>[N]), with a
// claim above its limit: gpp fit and gpp check with the data exit 1 with
// the error at the claim's cell, naming the limit's element and its cell.
func TestDataElemBoundsCLI(t *testing.T) {
	d := t.TempDir()
	model := writeFile(t, d, "claims.gpp", `data u: positive[N]                 # policy limits
data y: real<lower=0, upper=u>[N]   # censored claims never above their limit
param mu: real
param s: positive
mu ~ Normal(0, 10)
s ~ HalfNormal(1)
y ~ Normal(mu, s)
`)
	csv := writeFile(t, d, "claims.csv", "u,y\n1000,500\n2000,1500\n3000,2999\n4000,4200\n5000,10\n")
	want := csv + ":5:6: y: value 4200 is above its upper bound u[3] = 4000 (u's cell " + csv + ":5:1); `y` is declared real<lower=0, upper=u>[N] at " + model + ":2:6"
	for _, cmd := range []string{"fit", "check"} {
		args := []string{cmd, model, csv}
		if cmd == "fit" {
			args = append(args, "--quiet", "--out", filepath.Join(d, "out"))
		}
		code, _, stderr := runSafe(t, args...)
		if code != 1 || !strings.Contains(stderr, want) {
			t.Errorf("gpp %s: exit %d, stderr\n%s\nwant exit 1 and\n%s", cmd, code, stderr, want)
		}
	}
	// Within their limits (a claim at its limit too) the data fit.
	writeFile(t, d, "claims.csv", "u,y\n1000,500\n2000,1500\n3000,3000\n4000,3900\n5000,10\n")
	if code, _, stderr := runSafe(t, "check", model, csv); code != 0 {
		t.Errorf("gpp check within the limits: exit %d: %s", code, stderr)
	}
}
