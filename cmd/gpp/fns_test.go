package main

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/reftest"
)

// TestFitFunctions fits a logistic regression written with a user function
// through the CLI: with the same seed it gives the summary of the model
// inlined by hand byte for byte (the same tape), and the posterior means
// of the built-in inv_logit form (one node: other rounding) to within a
// tenth of a posterior sd (on this machine they agree to the 6 digits
// summary.csv keeps).
func TestFitFunctions(t *testing.T) {
	d := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 11))
	var csv strings.Builder
	csv.WriteString("x1,x2,y\n")
	for range 200 {
		x1, x2 := rng.NormFloat64(), rng.NormFloat64()
		p := 1 / (1 + math.Exp(-(0.5 + 1.5*x1 - x2)))
		y := 0
		if rng.Float64() < p {
			y = 1
		}
		fmt.Fprintf(&csv, "%.6f,%.6f,%d\n", x1, x2, y)
	}
	dataFile := filepath.Join(d, "d.csv")
	if err := os.WriteFile(dataFile, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	const decls = `data x1: real[N]
data x2: real[N]
data y: int<lower=0, upper=1>[N]
param a: real ~ Normal(0, 2)
param b: real[2] ~ Normal(0, 2)
`
	models := map[string]string{
		"fn":      "fn inv_logit2(x) = 1 / (1 + exp(-x))\nfn eta(a, b, u, v) = a + b[0] * u + b[1] * v\n" + decls + "y ~ Bernoulli(inv_logit2(eta(a, b, x1, x2)))\n",
		"hand":    decls + "y ~ Bernoulli(1 / (1 + exp(-(a + b[0] * x1 + b[1] * x2))))\n",
		"builtin": decls + "y ~ Bernoulli(inv_logit(a + b[0] * x1 + b[1] * x2))\n",
	}
	summary := map[string][]byte{}
	means := map[string]map[string]float64{}
	for name, src := range models {
		model := filepath.Join(d, name+".gpp")
		if err := os.WriteFile(model, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(d, name)
		if code, _, stderr := runSafe(t, "fit", model, dataFile, "--quiet", "--seed", "1", "--out", out); code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		summary[name], _ = os.ReadFile(filepath.Join(out, "summary.csv"))
		means[name] = summaryMeans(t, out)
	}
	if !bytes.Equal(summary["fn"], summary["hand"]) {
		t.Errorf("summary.csv with functions:\n%s\ninlined by hand:\n%s", summary["fn"], summary["hand"])
	}
	sds := summarySDs(t, filepath.Join(d, "builtin"))
	for _, p := range []string{"a", "b[0]", "b[1]"} {
		got, want := means["fn"][p], means["builtin"][p]
		if math.Abs(got-want) > 0.1*sds[p] {
			t.Errorf("%s: mean %g with functions, %g with inv_logit (posterior sd %g)", p, got, want, sds[p])
		}
	}
	if m := means["fn"]; !(m["b[0]"] > 0.8 && m["b[1]"] < -0.4) {
		t.Errorf("means %v, want b near [1.5, -1]", m)
	}
}

// summarySDs reads the sd column of a fit's summary.csv.
func summarySDs(t *testing.T, dir string) map[string]float64 {
	t.Helper()
	rows := reftest.ReadCSV(t, filepath.Join(dir, "summary.csv"))
	col := -1
	for i, h := range rows[0] {
		if h == "sd" {
			col = i
		}
	}
	if col < 0 {
		t.Fatalf("summary.csv has no sd column: %v", rows[0])
	}
	out := map[string]float64{}
	for _, row := range rows[1:] {
		var v float64
		if _, err := fmt.Sscan(row[col], &v); err != nil {
			t.Fatal(err)
		}
		out[row[0]] = v
	}
	return out
}

// TestHelpFunctionsMentionsUserFunctions: gpp help functions says how a
// model declares its own.
func TestHelpFunctionsMentionsUserFunctions(t *testing.T) {
	code, stdout, _ := runSafe(t, "help", "functions")
	if code != 0 || !strings.Contains(stdout, "fn NAME(A, B) = EXPR") {
		t.Errorf("exit %d; output ends %q", code, stdout[max(0, len(stdout)-300):])
	}
}
