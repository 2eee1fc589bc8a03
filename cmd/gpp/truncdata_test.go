package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFitTruncatedData fits mu and sigma of a normal from data simulated
// truncated to (0, ∞): with T[0, ] the fit recovers mu within a few
// posterior standard deviations, while the same model without it puts mu
// many of them too high (the data lack the normal's lower tail).
func TestFitTruncatedData(t *testing.T) {
	const mu, sigma = 1.0, 1.0
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("y\n")
	rng := rand.New(rand.NewPCG(11, 12))
	for n := 0; n < 500; {
		if v := mu + sigma*rng.NormFloat64(); v > 0 {
			fmt.Fprintf(&b, "%.6g\n", v)
			n++
		}
	}
	data := filepath.Join(dir, "y.csv")
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	const decls = "data y: real[N]\nparam mu: real ~ Normal(0, 10)\nparam sigma: positive ~ Gamma(2, 1)\n"
	fit := func(name, stmt string) (mean, sd float64) {
		model := filepath.Join(dir, name+".gpp")
		if err := os.WriteFile(model, []byte(decls+stmt+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out-"+name)
		code, _, stderr := runSafe(t, "fit", model, data, "--quiet", "--seed", "3", "--out", out)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		_, header, rows := readStanCSV(t, filepath.Join(out, "draws.csv"))
		col := -1
		for i, h := range header {
			if h == "mu" {
				col = i
			}
		}
		if col < 0 {
			t.Fatalf("draws.csv has no column mu: %v", header)
		}
		var s, ss float64
		for _, r := range rows {
			s += r[col]
			ss += r[col] * r[col]
		}
		n := float64(len(rows))
		mean = s / n
		return mean, math.Sqrt(ss/n - mean*mean)
	}
	m, sd := fit("truncated", "y ~ Normal(mu, sigma) T[0, ]")
	t.Logf("truncated: mu %.4f, sd %.4f", m, sd)
	if z := math.Abs(m-mu) / sd; z > 3 {
		t.Errorf("truncated: mu's posterior mean %.3f (sd %.3f) is %.1f sd from %g", m, sd, z, mu)
	}
	m, sd = fit("plain", "y ~ Normal(mu, sigma)")
	t.Logf("untruncated: mu %.4f, sd %.4f", m, sd)
	if z := (m - mu) / sd; z < 5 {
		t.Errorf("untruncated: mu's posterior mean %.3f (sd %.3f) is only %.1f sd above %g; the test needs a biased untruncated fit", m, sd, z, mu)
	}
}

// TestPredictTruncated fits a normal truncated to (0, ∞) and predicts
// with new data that leave y out: predict draws y from the truncated
// likelihood (every draw ≥ 0, where the untruncated one at mu ≈ 0.3 would
// be negative a third of the time), as it does the truncated replicate
// y_rep; with a held-out y given, --plots draws y's predictive check
// against y_rep.
func TestPredictTruncated(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("y\n")
	rng := rand.New(rand.NewPCG(5, 6))
	for n := 0; n < 200; {
		if v := 0.3 + rng.NormFloat64(); v > 0 {
			fmt.Fprintf(&b, "%.6g\n", v)
			n++
		}
	}
	data := writeFile(t, dir, "y.csv", b.String())
	model := writeFile(t, dir, "m.gpp", `data y: real[N]
param mu: real ~ Normal(0, 10)
param sigma: positive ~ Gamma(2, 1)
y ~ Normal(mu, sigma) T[0, ]
output y_rep ~ Normal(rep(mu, N), sigma) T[0, ]
`)
	fit := filepath.Join(dir, "fit")
	if code, _, stderr := runSafe(t, "fit", model, data, "--quiet", "--seed", "3", "--out", fit); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	out := filepath.Join(dir, "pred")
	code, _, stderr := runSafe(t, "predict", fit, model, "--set", "N=3", "--seed", "4", "--out", out)
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "y is not in the data: drawn from its likelihood at each draw") || strings.Contains(stderr, "not drawn") {
		t.Errorf("stderr %q: want the note that y is drawn", stderr)
	}
	_, header, rows := readStanCSV(t, filepath.Join(out, "draws.csv"))
	col := columns(header)
	neg := 0
	for _, name := range []string{"y", "y_rep"} {
		for i := range 3 {
			c, ok := col[elemCol(name, i)]
			if !ok {
				t.Fatalf("draws.csv has no %s: %v", elemCol(name, i), header)
			}
			for _, r := range rows {
				if !(r[c] >= 0) {
					neg++
				}
			}
		}
	}
	if neg > 0 || len(rows) < 100 {
		t.Errorf("%d of %d draws of y and y_rep below the truncation at 0", neg, 6*len(rows))
	}

	held := writeFile(t, dir, "held.csv", "y\n0.4\n1.2\n0.1\n2.5\n")
	out = filepath.Join(dir, "pred-plots")
	if code, _, stderr := runSafe(t, "predict", fit, model, held, "--plots", "--out", out); code != 0 {
		t.Fatalf("predict --plots: exit %d: %s", code, stderr)
	}
	for _, f := range []string{"ppc_y.png", "ppc_stat_y.png"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("predict --plots: %v", err)
		}
	}
}
