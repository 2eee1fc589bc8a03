package main

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// TestFitSeparationWarning: a logistic regression whose outcome one
// predictor separates completely (y = 1 exactly where x1 > 0.5, none in
// (−0.1, 0.5)), under
// Cauchy priors, gets the warning at its ~ statement, with the counts; the
// same data with three outcomes flipped (not separated) get none; a
// Bernoulli(inv_logit(...)) likelihood gets it at 1/2, and a Bernoulli of
// a unit param (bounded: nothing grows without bound), all ones, none.
func TestFitSeparationWarning(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(42, 9))
	var sep, mixed strings.Builder
	sep.WriteString("x1,x2,y\n")
	mixed.WriteString("x1,x2,y\n")
	ones := 0
	for i := range 40 {
		x1, x2 := rng.NormFloat64(), rng.NormFloat64()
		y := 0
		if x1 > 0.2 {
			y = 1
			x1 += 0.3 // a gap around 0.2, which q's mean of any of the models separates
		} else {
			x1 -= 0.3
		}
		ones += y
		fmt.Fprintf(&sep, "%.6g,%.6g,%d\n", x1, x2, y)
		if i%13 == 0 {
			y = 1 - y
		}
		fmt.Fprintf(&mixed, "%.6g,%.6g,%d\n", x1, x2, y)
	}
	model := writeFile(t, dir, "s.gpp", `data x1: real[N]
data x2: real[N]
data y: int<lower=0, upper=1>[N]
param alpha: real ~ Cauchy(0, 10)
param b1: real ~ Cauchy(0, 2.5)
param b2: real ~ Cauchy(0, 2.5)
y ~ BernoulliLogit(alpha + b1 * x1 + b2 * x2)
`)
	code, _, stderr := runSafe(t, "fit", model, writeFile(t, dir, "sep.csv", sep.String()), "--quiet", "--out", filepath.Join(dir, "a"))
	want := fmt.Sprintf("s.gpp:7:1: warning: every observation of y (%d ones, %d zeros) is on the side of 0 that alpha + b1 * x1 + b2 * x2 gives at q's mean: the data are separated", ones, 40-ones)
	if code != 0 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "    y ~ BernoulliLogit(alpha + b1 * x1 + b2 * x2)\n    ^") {
		t.Errorf("separated: exit %d, stderr\n%s\nwant\n%s", code, stderr, want)
	}
	code, _, stderr = runSafe(t, "fit", model, writeFile(t, dir, "mixed.csv", mixed.String()), "--quiet", "--out", filepath.Join(dir, "b"))
	if code != 0 || strings.Contains(stderr, "separated") {
		t.Errorf("not separated: exit %d, stderr\n%s", code, stderr)
	}
	other := writeFile(t, dir, "o.gpp", `data x1: real[N]
data y: int<lower=0, upper=1>[N]
param alpha: real ~ Cauchy(0, 10)
param b1: real ~ Cauchy(0, 2.5)
y ~ Bernoulli(inv_logit(alpha + b1 * x1))
`)
	code, _, stderr = runSafe(t, "fit", other, filepath.Join(dir, "sep.csv"), "--quiet", "--out", filepath.Join(dir, "c"))
	if code != 0 || !strings.Contains(stderr, "o.gpp:5:1: warning: every observation of y") || !strings.Contains(stderr, "is on the side of 0.5 that inv_logit(alpha + b1 * x1) gives") {
		t.Errorf("Bernoulli(inv_logit): exit %d, stderr\n%s", code, stderr)
	}
	unit := writeFile(t, dir, "u.gpp", "data y: int<lower=0, upper=1>[N]\nparam p: unit ~ Beta(1, 1)\ny ~ Bernoulli(p)\n")
	code, _, stderr = runSafe(t, "fit", unit, writeFile(t, dir, "ones.csv", "y\n1\n1\n1\n1\n"), "--quiet", "--out", filepath.Join(dir, "d"))
	if code != 0 || strings.Contains(stderr, "separated") {
		t.Errorf("Bernoulli(p): exit %d, stderr\n%s", code, stderr)
	}
}
