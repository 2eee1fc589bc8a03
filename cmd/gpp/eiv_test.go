package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/compile"
)

// eivSource returns src with its first errors-in-variables regression
// (eivMarginals) replaced by the marginal the hint writes: the param's
// declaration, its measurement and its outcome out, the hint's statements
// where the outcome was and its output last.
func eivSource(t *testing.T, src string) string {
	t.Helper()
	file, info := checkedSrc(t, src)
	ms := eivMarginals(file, info)
	if len(ms) != 1 {
		t.Fatalf("%d errors-in-variables regressions, want 1", len(ms))
	}
	m := ms[0]
	stmts, output := m.form(info)
	lines := strings.Split(strings.TrimRight(src, "\n"), "\n")
	var out []string
	for i, l := range lines {
		switch i + 1 {
		case m.lat.Decl.Pos().Line, m.meas.Pos().Line:
		case m.out.Pos().Line:
			out = append(out, stmts...)
		default:
			out = append(out, l)
		}
	}
	return strings.Join(append(out, output), "\n") + "\n"
}

// TestEIVHint: x ~ Normal(mu_x, sd_x) measured by x_obs ~ Normal(x, se)
// and read as b * x in y's Normal location is an errors-in-variables
// regression: with k̂'s alarm (2000 rows) the fit writes the marginal in
// the model's names in place of the centred hint on x, which pointed at
// the non-centred form and back (a user trial's value-added model).
func TestEIVHint(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runSafe(t, "fit", "testdata/eiv.gpp", "testdata/eiv_2000.csv", "--quiet", "--out", out)
	for _, want := range []string{
		"hint: x's prior Normal(mu_x, sd_x), its measurement x_obs ~ Normal(x, se) at 9:1 and b * x in y ~ Normal(a + b * x + c * z, sigma) at 14:1, its only uses in the log density, make an errors-in-variables regression",
		"x_obs ~ Normal(mu_x, sqrt(square(sd_x) + square(se))), let x_rel = square(sd_x) / (square(sd_x) + square(se)), let x_hat = mu_x + x_rel * (x_obs - mu_x), let x_var = x_rel * square(se), let y_mu = a + b * x_hat + c * z and y ~ Normal(y_mu, sqrt(square(sigma) + square(b) * x_var)), in place of param x and the statements at 9:1 and 14:1",
		"output x ~ Normal(x_hat + x_var * b * (y - y_mu) / (square(sigma) + square(b) * x_var), sqrt(x_var * square(sigma) / (square(sigma) + square(b) * x_var))) draws x given x_obs and y",
	} {
		if code != 0 || !strings.Contains(stderr, want) {
			t.Errorf("exit %d, want %q; stderr\n%s", code, want, stderr)
		}
	}
	if strings.Contains(stderr, "x's prior Normal(mu_x, sd_x) has a scale that depends on params") {
		t.Errorf("the centred hint on x stayed; stderr\n%s", stderr)
	}
}

// TestEIVMarginalFits: the marginal the hint writes parses, and its fit
// (--fullrank all over its 6 params) matches NUTS on the model with x a
// param: b, sigma, sd_x and the output x's elements within a fifth of
// NUTS's sd in mean and within 15 % in sd (measured: within 0.03 sd in
// mean, 7 % in sd). A y sd without b²·Var[x|x_obs] moves sigma by 3 sds.
func TestEIVMarginalFits(t *testing.T) {
	if testing.Short() {
		t.Skip("runs NUTS")
	}
	src, err := os.ReadFile("testdata/eiv.gpp")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	marg := filepath.Join(dir, "eivm.gpp")
	if err := os.WriteFile(marg, []byte(eivSource(t, string(src))), 0o644); err != nil {
		t.Fatal(err)
	}
	fit, nuts := filepath.Join(dir, "fit"), filepath.Join(dir, "nuts")
	if code, _, stderr := runSafe(t, "fit", marg, "testdata/eiv.csv", "--fullrank", "all", "--quiet", "--out", fit); code != 0 {
		t.Fatalf("fit of the marginal: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := runSafe(t, "sample", "testdata/eiv.gpp", "testdata/eiv.csv", "--quiet", "--out", nuts); code != 0 {
		t.Fatalf("gpp sample: exit %d\n%s", code, stderr)
	}
	q, p := summaryRows(t, fit), summaryRows(t, nuts)
	names := []string{"b", "sigma", "sd_x"}
	for i := range 400 {
		names = append(names, fmt.Sprintf("x[%d]", i))
	}
	worst := [2]float64{}
	for _, name := range names {
		qs, ps := q[name], p[name]
		worst[0], worst[1] = max(worst[0], math.Abs(qs[0]-ps[0])/ps[1]), max(worst[1], math.Abs(qs[1]/ps[1]-1))
		if ps[1] == 0 || math.Abs(qs[0]-ps[0]) > 0.2*ps[1] || math.Abs(qs[1]/ps[1]-1) > 0.15 {
			t.Errorf("%s: the marginal's fit %.4g ± %.3g, NUTS %.4g ± %.3g", name, qs[0], qs[1], ps[0], ps[1])
		}
	}
	t.Logf("worst %v", worst)
}

// TestEIVMarginalsNone: no errors-in-variables regression in an ordinary
// hierarchy (u_t read indexed), a meta-analysis (theta's one use), a
// latent read by a second outcome or nonlinearly, or measured indexed.
func TestEIVMarginalsNone(t *testing.T) {
	const head = "data N: int\ndata J: int\ndata g: int<lower=0, upper=J-1>[N]\ndata x_obs: real[N]\ndata y: real[N]\ndata w: real[N]\nconst se = 0.5\n" +
		"param mu_x: real\nparam sd_x: positive\nparam a: real\nparam b: real\nparam sigma: positive\n"
	for _, c := range []struct{ name, src string }{
		{"hierarchy", "param tau: positive\nparam u: real[J] ~ Normal(0, tau)\ny ~ Normal(a + b * x_obs + u[g], sigma)\n"},
		{"meta-analysis", "param x: real[N] ~ Normal(mu_x, sd_x)\nx_obs ~ Normal(x, se)\n"},
		{"two outcomes", "param x: real[N] ~ Normal(mu_x, sd_x)\nx_obs ~ Normal(x, se)\ny ~ Normal(a + b * x, sigma)\nw ~ Normal(x, sigma)\n"},
		{"nonlinear", "param x: real[N] ~ Normal(mu_x, sd_x)\nx_obs ~ Normal(x, se)\ny ~ Normal(a + b * exp(x), sigma)\n"},
		{"in the scale", "param x: real[N] ~ Normal(mu_x, sd_x)\nx_obs ~ Normal(x, se)\ny ~ Normal(a + b * x, exp(x))\n"},
		{"not a measurement", "param x: real[N] ~ Normal(mu_x, sd_x)\nx_obs ~ Normal(2 * x, se)\ny ~ Normal(a + b * x, sigma)\n"},
	} {
		file, info := checkedSrc(t, head+c.src)
		if ms := eivMarginals(file, info); len(ms) != 0 {
			t.Errorf("%s: %d errors-in-variables regressions, want none", c.name, len(ms))
		}
	}
	file, info := checkedSrc(t, head+"param x: real[N] ~ Normal(mu_x, sd_x)\nx_obs ~ Normal(x, se)\ny ~ Normal(a - x * b, sigma)\n")
	ms := eivMarginals(file, info)
	if len(ms) != 1 || ast.FormatExpr(ms[0].slope) != "b" {
		t.Fatalf("x * b subtracted: %d, want one of slope b", len(ms))
	}
	// x's slope is -b: given y, x moves against y's residual
	if _, out := ms[0].form(info); !strings.Contains(out, "Normal(x_hat - x_var * b * (y - y_mu)") {
		t.Errorf("x * b subtracted: the output %s, want x_hat - x_var * b * (y - y_mu) ...", out)
	}
}

// TestEIVNonCentred: with x the let mu_x + sd_x * x_z of a standard
// normal x_z, the hint names the let and x_z as replaced, in place of the
// non-centred hint on x_z, which pointed at the centred form.
func TestEIVNonCentred(t *testing.T) {
	src, err := os.ReadFile("testdata/eiv.gpp")
	if err != nil {
		t.Fatal(err)
	}
	nc := strings.Replace(string(src), "param x: real[N] ~ Normal(mu_x, sd_x)\n", "param x_z: real[N] ~ Normal(0, 1)\nlet x = mu_x + sd_x * x_z\n", 1)
	file, info := checkedSrc(t, nc)
	m := &compile.Model{Latents: []compile.Latent{{Name: "x_z", Support: dist.Real, Size: 2000}}}
	l := &pipeline.Loaded{File: file, Info: info, Model: m}
	hints := parameterisationHints(sgvb.Settings{}, l, "", 1.1, math.NaN(), nil, "", "", false)
	all := strings.Join(hints, "\n")
	for _, want := range []string{
		"the let x at 9:1 (x_z's prior Normal(0, 1)), its measurement x_obs ~ Normal(x, se) at 10:1 and b * x in y ~ Normal(a + b * x + c * z, sigma) at 15:1",
		"let x_hat = mu_x + x_rel * (x_obs - mu_x)",
		"in place of param x_z, the let at 9:1 and the statements at 10:1 and 15:1",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("want %q in the hints:\n%s", want, all)
		}
	}
	if strings.Contains(all, "make a non-centred hierarchy") {
		t.Errorf("the non-centred hint on x_z stayed:\n%s", all)
	}
}
