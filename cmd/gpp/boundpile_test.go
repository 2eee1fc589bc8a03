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
// a probability's own end, a t the data put inside its range, and a scale
// near 0 but many sds from it get no warning. A pile on the bound gets this warning, not boundNearWarning's, from gpp sample too.
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
		// a scale the data put at 0.001 in [0, 10]: within 0.1 % of the
		// range from 0, but 7 of its sds from it (it was warned of)
		{"a small scale", "data y: real[N]\nparam t: real<lower=0, upper=10> ~ Uniform(0, 10)\ny ~ Normal(0, t)\n",
			"y\n9.5e-05\n0.00125\n-0.000931\n0.000992\n-0.000259\n-0.000262\n0.0019\n0.000158\n-4.3e-05\n0.000729\n0.001127\n-3.1e-05\n0.000588\n-0.000974\n-0.000367\n-0.000438\n-0.001332\n-0.001509\n-0.001627\n-0.000239\n-0.000172\n-0.00032\n6.9e-05\n-0.001336\n-7.9e-05\n0.000238\n0.000751\n-0.000846\n-0.0004\n-0.002015\n", ""},
		{"unit", strings.Replace(probModel, "TYPE", "unit", 1), successes, ""},
		{"real<lower=0, upper=1>", strings.Replace(probModel, "TYPE", "real<lower=0, upper=1>", 1), successes, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			model, data := writeFile(t, dir, "m.gpp", c.model), writeFile(t, dir, "d.csv", c.data)
			code, out, got := runSafe(t, "fit", model, data, "--quiet", "--out", filepath.Join(dir, "fit"))
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, got)
			}
			if c.name == "a small scale" && !strings.Contains(out, "t     beta    0.00095") {
				t.Fatalf("the fit missed the scale 0.00095 the data give:\n%s", out)
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
			// gpp sample's draws against the bound too (boundNearWarning
			// leaves them to this warning)
			code, _, got = runSafe(t, "sample", model, data, "--quiet", "--out", filepath.Join(dir, "sample"))
			if code != exitOK || !strings.Contains(got, c.want) || strings.Contains(got, "piles against") {
				t.Errorf("sample: exit %d, stderr:\n%s\nwant %q", code, got, c.want)
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
		// elements past the first: t[1] named, t[2] counted, t[0] (the prior's) not
		{"vector", "data y: real[N]\nparam t: real<lower=0.05, upper=1>[3] ~ Uniform(0.05, 1)\ny ~ Normal(t[1], 0.05)\ny ~ Normal(t[2], 0.05)\n", near, "t[1]'s posterior piles against its lower bound 0.05 (5% point 0.05"},
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
				if !strings.Contains(got, "warning: "+c.want) || !strings.Contains(got, "the data push past the bound the model declares") || strings.Contains(got, "lie against its") ||
					c.name == "vector" && !strings.Contains(got, "(and 1 more element") {
					t.Errorf("%s: stdout\n%s\nstderr:\n%s\nwant %q", cmd, stdout, got, c.want)
				}
			}
		})
	}
}
