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
// warning.
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
			if !strings.Contains(got, c.want) || !strings.Contains(got, "widen it or check the data") {
				t.Errorf("stderr:\n%s\nwant %q", got, c.want)
			}
		})
	}
}
