package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestBoundPileWarning: a param whose declared range the data push it out
// of (a mean of 50 for t in [0, 10]) is warned of as lying against its
// upper bound, at the lower one too, and only for a modeller's range: a
// unit or <lower=0, upper=1> param pushed to 1 (every trial a success),
// a probability's own end, and a t the data put inside its range get no
// warning. A pile on the bound gets this warning, not boundNearWarning's.
func TestBoundPileWarning(t *testing.T) {
	dir := t.TempDir()
	const rangeModel = "data y: real[N]\nparam t: real<lower=0, upper=10> ~ Uniform(0, 10)\ny ~ Normal(t, 0.1)\n"
	const probModel = "data k: int[N]\nparam p: TYPE ~ Beta(1, 1)\nk ~ Bernoulli(p)\n"
	successes := "k\n" + strings.Repeat("1\n", 5000)
	for _, c := range []struct {
		name, model, data, want string
	}{
		{"past the upper bound", rangeModel, "y\n50\n51\n", "warning: t's draws lie against its upper bound 10 "},
		{"past the lower bound", rangeModel, "y\n-40\n-41\n", "warning: t's draws lie against its lower bound 0 "},
		{"inside", rangeModel, "y\n9.5\n9.6\n", ""},
		{"unit", strings.Replace(probModel, "TYPE", "unit", 1), successes, ""},
		{"real<lower=0, upper=1>", strings.Replace(probModel, "TYPE", "real<lower=0, upper=1>", 1), successes, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			model, data := writeFile(t, dir, "m.gpp", c.model), writeFile(t, dir, "d.csv", c.data)
			code, _, got := runSafe(t, "fit", model, data, "--quiet", "--out", filepath.Join(dir, "fit"))
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, got)
			}
			if c.want == "" {
				if strings.Contains(got, "lie against its") {
					t.Errorf("warned of a bound:\n%s", got)
				}
				return
			}
			if !strings.Contains(got, c.want) || !strings.Contains(got, "widen it or check the data") || strings.Contains(got, "piles against") {
				t.Errorf("stderr:\n%s\nwant %q", got, c.want)
			}
		})
	}
}

// TestBoundNearWarning: a param whose posterior piles against a bound
// the modeller declared (data from t = 0.03 for t in [0.05, 1], as a
// calibration trial's theta, 0.0554 ± 0.0054 with its 5% point 0.0502)
// is warned of, against a one-sided bound and an upper bound too, by gpp
// fit and gpp sample; a t inside its range, a posterior flat across it
// (no data: the prior's), and scales near 0 (positive, real<lower=0>,
// real<lower=0, upper=10>: 0 is a scale's own end) are not.
func TestBoundNearWarning(t *testing.T) {
	dir := t.TempDir()
	const model = "data y: real[N]\nparam t: TYPE ~ PRIOR\ny ~ Normal(t, 0.05)\n"
	const scale = "data y: real[N]\nparam s: TYPE ~ HalfNormal(1)\ny ~ Normal(0, s)\n"
	mk := func(src, typ, prior string) string {
		return strings.NewReplacer("TYPE", typ, "PRIOR", prior).Replace(src)
	}
	near, inside := "y\n"+strings.Repeat("0.03\n0.02\n0.04\n", 8), "y\n"+strings.Repeat("0.5\n0.49\n0.51\n", 8)
	small := "y\n" + strings.Repeat("0.001\n-0.001\n", 10)
	for _, c := range []struct {
		name, model, data, want string
	}{
		{"lower", mk(model, "real<lower=0.05, upper=1>", "Uniform(0.05, 1)"), near, "t's posterior piles against its lower bound 0.05 (5% point 0.05"},
		{"one-sided", mk(model, "real<lower=0.05>", "Normal(0.5, 1)"), near, "t's posterior piles against its lower bound 0.05 (5% point 0.05"},
		{"upper", mk(model, "real<lower=-1, upper=-0.05>", "Uniform(-1, -0.05)"), strings.ReplaceAll(near, "0.0", "-0.0"), "t's posterior piles against its upper bound -0.05 (95% point -0.05"},
		{"inside", mk(model, "real<lower=0.05, upper=1>", "Uniform(0.05, 1)"), inside, ""},
		{"flat", mk("param t: TYPE ~ PRIOR\n", "real<lower=0.05, upper=1>", "Uniform(0.05, 1)"), "", ""},
		{"positive scale near 0", mk(scale, "positive", ""), small, ""},
		{"real<lower=0> scale near 0", mk(scale, "real<lower=0>", ""), small, ""},
		{"real<lower=0, upper=10> scale near 0", "data y: real[N]\nparam s: real<lower=0, upper=10> ~ Uniform(0, 10)\ny ~ Normal(0, 1 + s)\n", "y\n" + strings.Repeat("0.5\n-0.5\n0.9\n-0.9\n0.2\n-0.2\n1.1\n-1.1\n0.7\n-0.7\n", 3), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := []string{writeFile(t, dir, "m.gpp", c.model)}
			if c.data != "" {
				args = append(args, writeFile(t, dir, "d.csv", c.data))
			}
			for _, cmd := range []string{"fit", "sample"} {
				code, stdout, got := runSafe(t, append([]string{cmd}, append(args, "--out", filepath.Join(dir, cmd))...)...)
				if code != exitOK {
					t.Fatalf("%s: exit %d: %s", cmd, code, got)
				}
				if c.want == "" {
					if strings.Contains(got, "piles against") {
						t.Errorf("%s warned of a bound:\n%s\n%s", cmd, stdout, got)
					}
					continue
				}
				if !strings.Contains(got, "warning: "+c.want) || !strings.Contains(got, "the data push past the bound the model declares") || strings.Contains(got, "lie against its") {
					t.Errorf("%s: stdout\n%s\nstderr:\n%s\nwant %q", cmd, stdout, got, c.want)
				}
			}
		})
	}
}
