package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
)

// TestFlatDirectionWarning: a model whose data fix only the difference of
// two params, with no prior on them (an improper posterior), is warned of
// the flat direction along their sum, on the console and in fit.json;
// with a prior on them, or pinned by sum_to_zero_vector, it is not.
func TestFlatDirectionWarning(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	b.WriteString("y\n")
	for range 50 {
		fmt.Fprintf(&b, "%.6g\n", 0.7+rng.NormFloat64())
	}
	data := writeFile(t, dir, "y.csv", b.String())
	const want = "a direction is flat: the log density at q's mode does not bend along the sum of a[0], a[1]"
	for _, c := range []struct {
		name, model string
		flat        bool
	}{
		{"no prior", "data y: real[N]\nparam a: real[2]\ny ~ Normal(a[0] - a[1], 1)\n", true},
		{"a prior", "data y: real[N]\nparam a: real[2] ~ Normal(0, 1)\ny ~ Normal(a[0] - a[1], 1)\n", false},
		{"sum to zero", "data y: real[N]\nparam a: sum_to_zero_vector[2]\ny ~ Normal(a[0] - a[1], 1)\n", false},
	} {
		out := filepath.Join(dir, "o-"+strings.ReplaceAll(c.name, " ", "-"))
		code, _, stderr := runSafe(t, "fit", writeFile(t, dir, "m.gpp", c.model), data, "--quiet", "--out", out)
		if code != 0 || strings.Contains(stderr, want) != c.flat {
			t.Errorf("%s: exit %d, want the flat warning: %v; stderr\n%s", c.name, code, c.flat, stderr)
			continue
		}
		raw, err := os.ReadFile(filepath.Join(out, fitFileName))
		if err != nil {
			t.Fatal(err)
		}
		var f struct{ Warnings []string }
		if err := json.Unmarshal(raw, &f); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(strings.Join(f.Warnings, "\n"), want); got != c.flat {
			t.Errorf("%s: fit.json's warnings %q, want the flat one: %v", c.name, f.Warnings, c.flat)
		}
	}
}

// TestFlatWarningNames: the flat warning names the elements that make up
// the direction (a third of its largest entry or more), as a sum where
// their signs agree, a combination where not, the first three and a count
// beyond; a direction that is not flat is no warning.
func TestFlatWarningNames(t *testing.T) {
	names := []string{"a[0]", "a[1]", "a[2]", "a[3]", "b"}
	warn := func(vec []float64, lambda float64) string {
		f := &sgvb.FlatDirection{Vec: vec, Lambda: lambda, QVar: 1}
		return flatWarning(&curvCheck{c: &sgvb.Curvature{Flat: f}, names: names})
	}
	for _, c := range []struct {
		vec  []float64
		want string
	}{
		{[]float64{0.7, 0.7, 0.1, 0, 0}, "does not bend along the sum of a[0], a[1] ("},
		{[]float64{0.7, -0.7, 0, 0, 0.1}, "does not bend along a combination of a[0], a[1] ("},
		{[]float64{0.5, 0.5, 0.5, 0.5, 0}, "does not bend along the sum of a[0], a[1], a[2], … (4 elements) ("},
		{[]float64{0, 0, 0, 0, 1}, "does not bend along b ("},
	} {
		if w := warn(c.vec, 0); !strings.Contains(w, c.want) {
			t.Errorf("%v: %q, want %q", c.vec, w, c.want)
		}
	}
	if w := warn([]float64{0.7, 0.7, 0, 0, 0}, 2*sgvb.FlatBend); w != "" {
		t.Errorf("bend 2·FlatBend: %q, want none", w)
	}
}
