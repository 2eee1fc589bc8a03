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
// So do the target += logpdf(y, ...) forms of the likelihood, and a
// minibatch fit.
func TestFitSeparationWarning(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(42, 9))
	var sep, mixed strings.Builder
	sep.WriteString("x1,x2,y\n")
	mixed.WriteString("x1,x2,y\n")
	ones, y0 := 0, 0 // y0: the first outcome
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
		if i == 0 {
			y0 = y
		}
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
	// The same likelihoods as for loops, which the compiler lowers as
	// vectors (one with an if splitting the rows, lowered branch by branch)
	// or unrolls (a recursion's i - 1): each warns at its ~ on the
	// separated data, counting every iteration's observation, and none
	// warns on the mixed data.
	loops := []struct{ name, body, stmt, cut, at string }{
		{"lv.gpp", "for i in 0:N {\n    y[i] ~ BernoulliLogit(alpha + b1 * x1[i] + b2 * x2[i])\n}\n",
			"y[i] ~ BernoulliLogit(alpha + b1 * x1[i] + b2 * x2[i])", "0 that alpha + b1 * x1[i] + b2 * x2[i]", "lv.gpp:8:5"},
		{"li.gpp", "for i in 0:N {\n    y[i] ~ Bernoulli(inv_logit(alpha + b1 * x1[i] + b2 * x2[i]))\n}\n",
			"y[i] ~ Bernoulli(inv_logit(alpha + b1 * x1[i] + b2 * x2[i]))", "0.5 that inv_logit(alpha + b1 * x1[i] + b2 * x2[i])", "li.gpp:8:5"},
		{"lb.gpp", "for i in 0:N {\n    if x2[i] > 0 {\n        y[i] ~ BernoulliLogit(alpha + b1 * x1[i] + b2)\n    } else {\n        y[i] ~ BernoulliLogit(alpha + b1 * x1[i] - b2)\n    }\n}\n",
			"", "", ""},
		{"lu.gpp", "for i in 1:N {\n    y[i] ~ BernoulliLogit(alpha + b1 * x1[i] + b2 * x2[i] + 0 * x1[i - 1])\n}\n",
			"y[i] ~ BernoulliLogit(alpha + b1 * x1[i] + b2 * x2[i] + 0 * x1[i - 1])", "0 that alpha + b1 * x1[i] + b2 * x2[i] + 0 * x1[i - 1]", "lu.gpp:8:5"},
	}
	for k, lp := range loops {
		m := writeFile(t, dir, lp.name, `data x1: real[N]
data x2: real[N]
data y: int<lower=0, upper=1>[N]
param alpha: real ~ Cauchy(0, 10)
param b1: real ~ Cauchy(0, 2.5)
param b2: real ~ Cauchy(0, 2.5)
`+lp.body)
		code, _, stderr = runSafe(t, "fit", m, filepath.Join(dir, "sep.csv"), "--quiet", "--out", filepath.Join(dir, fmt.Sprintf("l%d", k)))
		n1, n := ones, 40
		if lp.name == "lu.gpp" { // from 1: y[0] is left out
			n--
			n1 -= y0
		}
		if lp.name == "lb.gpp" {
			// each branch is a statement of its own, warned of on its rows
			if code != 0 || !strings.Contains(stderr, "lb.gpp:9:9: warning: every observation of y[i]") || !strings.Contains(stderr, "lb.gpp:11:9: warning: every observation of y[i]") {
				t.Errorf("%s separated: exit %d, stderr\n%s", lp.name, code, stderr)
			}
		} else {
			want := fmt.Sprintf("%s: warning: every observation of y[i] (%d ones, %d zeros) is on the side of %s gives at q's mean", lp.at, n1, n-n1, lp.cut)
			if code != 0 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "        "+lp.stmt+"\n        ^") {
				t.Errorf("%s separated: exit %d, stderr\n%s\nwant\n%s", lp.name, code, stderr, want)
			}
		}
		code, _, stderr = runSafe(t, "fit", m, filepath.Join(dir, "mixed.csv"), "--quiet", "--out", filepath.Join(dir, fmt.Sprintf("m%d", k)))
		if code != 0 || strings.Contains(stderr, "separated") {
			t.Errorf("%s not separated: exit %d, stderr\n%s", lp.name, code, stderr)
		}
	}
	// Stan's target += bernoulli_logit_lpmf(y | eta) form, vectorised and
	// in a loop, warns at the logpdf as the ~ does; an output log_lik of
	// the same logpdf adds no second warning.
	for k, lp := range []struct{ name, body, expr, cut, at string }{
		{"tv.gpp", "target += logpdf(y, BernoulliLogit(alpha + b1 * x1 + b2 * x2))\noutput log_lik = logpdf(y, BernoulliLogit(alpha + b1 * x1 + b2 * x2))\n",
			"    target += logpdf(y, BernoulliLogit(alpha + b1 * x1 + b2 * x2))\n              ^", "y (%d ones, %d zeros) is on the side of 0 that alpha + b1 * x1 + b2 * x2", "tv.gpp:7:11"},
		{"tl.gpp", "for i in 0:N {\n    target += logpdf(y[i], Bernoulli(inv_logit(alpha + b1 * x1[i] + b2 * x2[i])))\n}\n",
			"        target += logpdf(y[i], Bernoulli(inv_logit(alpha + b1 * x1[i] + b2 * x2[i])))\n                  ^", "y[i] (%d ones, %d zeros) is on the side of 0.5 that inv_logit(alpha + b1 * x1[i] + b2 * x2[i])", "tl.gpp:8:15"},
	} {
		m := writeFile(t, dir, lp.name, `data x1: real[N]
data x2: real[N]
data y: int<lower=0, upper=1>[N]
param alpha: real ~ Cauchy(0, 10)
param b1: real ~ Cauchy(0, 2.5)
param b2: real ~ Cauchy(0, 2.5)
`+lp.body)
		code, _, stderr = runSafe(t, "fit", m, filepath.Join(dir, "sep.csv"), "--quiet", "--out", filepath.Join(dir, fmt.Sprintf("t%d", k)))
		want := lp.at + ": warning: every observation of " + fmt.Sprintf(lp.cut, ones, 40-ones) + " gives at q's mean"
		if code != 0 || !strings.Contains(stderr, want) || !strings.Contains(stderr, lp.expr) || strings.Count(stderr, "separated") != 1 {
			t.Errorf("%s separated: exit %d, stderr\n%s\nwant once\n%s", lp.name, code, stderr, want)
		}
		code, _, stderr = runSafe(t, "fit", m, filepath.Join(dir, "mixed.csv"), "--quiet", "--out", filepath.Join(dir, fmt.Sprintf("tm%d", k)))
		if code != 0 || strings.Contains(stderr, "separated") {
			t.Errorf("%s not separated: exit %d, stderr\n%s", lp.name, code, stderr)
		}
	}
	// A minibatch fit judges the full data at q's mean, as its draws do.
	code, _, stderr = runSafe(t, "fit", model, filepath.Join(dir, "sep.csv"), "--minibatch", "N=10", "--iter", "20000", "--quiet", "--out", filepath.Join(dir, "mb"))
	if want := fmt.Sprintf("s.gpp:7:1: warning: every observation of y (%d ones, %d zeros)", ones, 40-ones); code != 0 || !strings.Contains(stderr, want) {
		t.Errorf("--minibatch separated: exit %d, stderr\n%s\nwant\n%s", code, stderr, want)
	}
	code, _, stderr = runSafe(t, "fit", model, filepath.Join(dir, "mixed.csv"), "--minibatch", "N=10", "--iter", "20000", "--quiet", "--out", filepath.Join(dir, "mbm"))
	if code != 0 || strings.Contains(stderr, "separated") {
		t.Errorf("--minibatch not separated: exit %d, stderr\n%s", code, stderr)
	}
	unit := writeFile(t, dir, "u.gpp", "data y: int<lower=0, upper=1>[N]\nparam p: unit ~ Beta(1, 1)\ny ~ Bernoulli(p)\n")
	code, _, stderr = runSafe(t, "fit", unit, writeFile(t, dir, "ones.csv", "y\n1\n1\n1\n1\n"), "--quiet", "--out", filepath.Join(dir, "d"))
	if code != 0 || strings.Contains(stderr, "separated") {
		t.Errorf("Bernoulli(p): exit %d, stderr\n%s", code, stderr)
	}
}
