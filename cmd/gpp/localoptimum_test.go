package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// TestLocalOptimumHint: a single SGVB fit with k̂ above 1 and at least
// localOptimaRatio coordinates per observed value is pointed at
// --restarts; restarts, MAP, a k̂ at most 1 or with near-uniform weights,
// fewer coordinates, a mixture, a model past nutsLargeDim and data that
// observe nothing are not.
func TestLocalOptimumHint(t *testing.T) {
	one, four := &fitConfig{restarts: 1}, &fitConfig{restarts: 4}
	fit := sgvb.Settings{Method: sgvb.SGVB}
	const want = "the model has 2004 coordinates, 20 times the data's 100 observed values"
	if h := localOptimumHint(one, fit, 3.6, 0.001, 2004, 100, false); !strings.HasPrefix(h, want) || !strings.Contains(h, "gpp fit --restarts 4") {
		t.Errorf("p ≫ n: hint %q", h)
	}
	if h := localOptimumHint(one, fit, 3.6, 0.001, 1000, 100, false); h == "" {
		t.Errorf("%d coordinates per value: no hint", localOptimaRatio)
	}
	for _, c := range []struct {
		name     string
		cfg      *fitConfig
		s        sgvb.Settings
		k, ess   float64
		dim, obs int
		mixed    bool
	}{
		{"restarts", four, fit, 3.6, 0.001, 2004, 100, false},
		{"MAP", one, sgvb.Settings{Method: sgvb.MAP}, math.NaN(), math.NaN(), 2004, 100, false},
		{"k̂ 1", one, fit, 1, 0.001, 2004, 100, false},
		{"negligible tail", one, fit, 1.3, 0.997, 2004, 100, false},
		{"4 coordinates per value", one, fit, 2.25, 0.001, 404, 100, false},
		{"just under the ratio", one, fit, 3.6, 0.001, 999, 100, false},
		{"a mixture", one, fit, 3.6, 0.001, 2004, 100, true},
		{"past nutsLargeDim", one, fit, 3.6, 0.001, nutsLargeDim + 1, 100, false},
		{"nothing observed", one, fit, 3.6, 0.001, 2004, 0, false},
	} {
		if h := localOptimumHint(c.cfg, c.s, c.k, c.ess, c.dim, c.obs, c.mixed); h != "" {
			t.Errorf("%s: hint %q, want none", c.name, h)
		}
	}
}

// TestObservedValues: the values of the data on the left of ~ statements,
// each data once however indexed, less its missing cells; data only read
// (X) and params do not count.
func TestObservedValues(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, dir, "d.csv", "y,z,x\n1,2,0.5\n2,,1\n3,4,1.5\n4,5,2\n")
	model := writeFile(t, dir, "m.gpp", "data y: real[N]\ndata z: real[N]\ndata x: real[N]\nparam b: real ~ Normal(0, 1)\n"+
		"for i in 0:N {\n  y[i] ~ Normal(b * x[i], 1)\n}\ny ~ Normal(b, 2)\n(z) ~ Normal(b, 1)\nb ~ Normal(0, 3)\n")
	l, err := pipeline.Load(model, []string{data}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := observedValues(l); n != 7 {
		t.Errorf("observedValues = %d, want 7 (y's 4, z's 3)", n)
	}
}

// sparseRegressionCSV is n rows of y = 3 X.1 - 2 X.2 + noise and the P
// standard normal columns X.1..X.P, drawn from rng.
func sparseRegressionCSV(rng *rand.Rand, n, P int) string {
	var b strings.Builder
	b.WriteString("y")
	for j := range P {
		fmt.Fprintf(&b, ",X.%d", j+1)
	}
	b.WriteString("\n")
	for range n {
		x := make([]float64, P)
		for j := range x {
			x[j] = rng.NormFloat64()
		}
		fmt.Fprintf(&b, "%.4f", 3*x[0]-2*x[1]+rng.NormFloat64())
		for _, v := range x {
			fmt.Fprintf(&b, ",%.4f", v)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestLocalOptimumHintCLI: a horseshoe regression with 50 coefficients
// on 8 observations gets the hint from a single fit, not with
// --restarts; the same model on 120 observations does not.
func TestLocalOptimumHintCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("fits models")
	}
	dir := t.TempDir()
	const P = 50
	rng := rand.New(rand.NewPCG(1, 2))
	few, many := writeFile(t, dir, "few.csv", sparseRegressionCSV(rng, 8, P)), writeFile(t, dir, "many.csv", sparseRegressionCSV(rng, 120, P))
	model := writeFile(t, dir, "hs.gpp", "data y: real[N]\ndata X: real[N, P]\nparam alpha: real ~ Normal(0, 5)\nparam sigma: positive ~ HalfNormal(2)\n"+
		"param z: real[P] ~ Normal(0, 1)\nparam lambda: positive[P] ~ HalfCauchy(1)\nparam tau: positive ~ HalfCauchy(0.1)\n"+
		"y ~ Normal(alpha + X * (tau * lambda .* z), sigma)\n")
	fit := func(data, out string, flags ...string) string {
		args := append([]string{"fit", model, data, "--quiet", "--seed", "1", "--out", filepath.Join(dir, out)}, flags...)
		code, _, stderr := runSafe(t, args...)
		if code != 0 {
			t.Fatalf("%s %v: exit %d\n%s", data, flags, code, stderr)
		}
		return stderr
	}
	const hint = "hint: the model has 103 coordinates, 12 times the data's 8 observed values"
	if stderr := fit(few, "one"); !strings.Contains(stderr, hint) {
		t.Errorf("8 observations: want the hint; stderr\n%s", stderr)
	}
	if stderr := fit(few, "r2", "--restarts", "2"); strings.Contains(stderr, "observed values") {
		t.Errorf("restarts: want no hint; stderr\n%s", stderr)
	}
	if stderr := fit(many, "many"); strings.Contains(stderr, "observed values") {
		t.Errorf("120 observations: want no hint; stderr\n%s", stderr)
	}
}
