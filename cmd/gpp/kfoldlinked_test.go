package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/pipeline"
)

// kfoldAR1 is an AR(1) written with shifted slices, as an energy
// trial's residual model was: each row's term reads the row before it.
const kfoldAR1 = `data y: real[T]
param mu: real ~ Normal(0, 5)
param phi: real<lower=-1, upper=1> ~ Uniform(-1, 1)
param sigma: positive ~ HalfNormal(2)
let r = y - mu
r[0] ~ Normal(0, sigma / sqrt(1 - phi * phi))
r[1:] ~ Normal(phi * r[:T-1], sigma)
output log_lik = append_row(logpdf(r[0], Normal(0, sigma / sqrt(1 - phi * phi))), logpdf(r[1:], Normal(phi * r[:T-1], sigma)))
`

// TestKfoldLinkedRows: gpp kfold drops the held-out rows, which is right
// where each row's term reads its own row (and data used whole, a mean,
// int data of row numbers), and wrong where the terms read the rows by
// their places: an AR(1) on a simulated series (phi 0.8) is refused
// before any fit, with exit 1 and the error at the first such use, which
// names PSIS-LOO instead; lags in a loop, cumsum, ar_filter, diff and an
// output's range are refused at theirs.
func TestKfoldLinkedRows(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 8))
	var b strings.Builder
	b.WriteString("y,x\n")
	r := 0.0
	for i := range 40 {
		r = 0.8*r + rng.NormFloat64()
		fmt.Fprintf(&b, "%.4f,%d\n", 3+r, i%5)
	}
	csvPath := writeFile(t, dir, "y.csv", b.String())
	model := writeFile(t, dir, "ar1.gpp", kfoldAR1)
	code, _, stderr := runSafe(t, "kfold", model, csvPath, "--folds", "4", "--quiet", "--out", dir+"/out")
	if code != exitError || !strings.Contains(stderr, model+":6:3: r[0] picks a row by its place") ||
		!strings.Contains(stderr, "also at 7:3, 7:24") || !strings.Contains(stderr, "PSIS-LOO") {
		t.Errorf("AR(1): exit %d: %s", code, stderr)
	}
	head := "data y: real[N]\ndata x: real[N]\nparam a: real ~ Normal(0, 5)\nparam phi: real ~ Normal(0, 1)\nparam s: positive ~ HalfNormal(2)\n"
	iid := "\noutput log_lik = logpdf(y, Normal(a, s))\n"
	for _, c := range []struct {
		name, body, at string // at: "" for a model K-fold splits
	}{
		{"iid", "y ~ Normal(a + phi * x, s)" + iid, ""},
		{"loop over the rows", "for i in 0:N {\n  y[i] ~ Normal(a + phi * x[i], s)\n}" + iid, ""},
		{"centred", "let xc = x - mean(x)\ny ~ Normal(a + phi * xc, s)" + iid, ""},
		{"lag in a loop", "y[0] ~ Normal(a, s)\nfor t in 1:N {\n  y[t] ~ Normal(a + phi * y[t - 1], s)\n}" + iid, "6:3: y[0] picks a row by its place"},
		{"loop from 1", "for t in 1:N {\n  y[t] ~ Normal(a + phi * x[t], s)\n}" + iid, "6:10: a loop over part of the rows (1:N)"},
		{"cumsum", "y ~ Normal(a + phi * cumsum(x), s)" + iid, "6:22: cumsum of the rows"},
		{"ar_filter", "y ~ Normal(a + ar_filter(phi, x), s)" + iid, "6:16: ar_filter of the rows"},
		{"diff", "diff(y) ~ Normal(a, s)\ny[0] ~ Normal(a, s)" + iid, "6:1: diff of the rows"},
		{"output", "y ~ Normal(a, s)\noutput log_lik = logpdf(y, Normal(a + 0 * append_row(0, x[:N-1]), s))\n", "7:59: x[:N - 1] is a range of the rows"},
	} {
		m := writeFile(t, dir, "m.gpp", head+c.body)
		l, err := pipeline.Load(m, []string{csvPath}, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		su := &kfoldSetup{l: l, ll: 0, n: 40, k: 4}
		if err := su.findRows(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		err = su.linkedRows()
		switch {
		case c.at == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.at != "" && (err == nil || !strings.Contains(err.Error(), m+":"+c.at)):
			t.Errorf("%s: %v, want an error at %s", c.name, err, c.at)
		}
	}
	// int data of row numbers (x[base]) are renumbered, not links
	l, err := pipeline.Load("testdata/kfold_rowindex.gpp", []string{"testdata/kfold_rowindex.csv"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	su := &kfoldSetup{l: l, ll: 0, n: 9, k: 2}
	if err := su.findRows(); err != nil {
		t.Fatal(err)
	}
	if err := su.linkedRows(); err != nil {
		t.Errorf("x[base]: %v", err)
	}
}
