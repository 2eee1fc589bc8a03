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
// with a prior on them, or pinned by sum_to_zero_vector, it is not; no
// hint advises a joint factor, which cannot mend it.
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
		// no joint factor is advised for an improper posterior: the
		// model is to mend (flatWarned)
		if c.flat && strings.Contains(stderr, "--fullrank") {
			t.Errorf("%s: want no --fullrank advice; stderr\n%s", c.name, stderr)
		}
		if w := fitJSONWarnings(t, out); strings.Contains(strings.Join(w, "\n"), want) != c.flat {
			t.Errorf("%s: fit.json's warnings %q, want the flat one: %v", c.name, w, c.flat)
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

// TestFlatWarningWeak: a flat direction that still bends (Bend 3·10⁻⁵,
// the posterior's sd about 180 times q's: a user trial's non-centred
// hierarchy of 3 SKUs, proper, NUTS fine) is said to be weakly
// identified, not improper; one that does not bend beyond rounding
// (Bend 0 or −4.7·10⁻¹³, a Bradley–Terry model's abilities without a
// prior) or bends less than improperRatio's keeps the improper wording.
func TestFlatWarningWeak(t *testing.T) {
	warn := func(lambda float64) string {
		f := &sgvb.FlatDirection{Vec: []float64{0.7, -0.7}, Lambda: lambda, QVar: 1}
		return flatWarning(&curvCheck{c: &sgvb.Curvature{Flat: f}, names: []string{"mu_a", "z[0]"}})
	}
	w := warn(1 / (180.0 * 180))
	if !strings.HasPrefix(w, flatLead) || !strings.Contains(w, "(by its curvature the posterior's sd there is about 180 times q's)") ||
		!strings.Contains(w, "weakly identified") || strings.Contains(w, "may be improper") {
		t.Errorf("bend 1/180²: %q, want weakly identified, about 180 times", w)
	}
	for _, lambda := range []float64{0, -4.7e-13, 0.5 / (improperRatio * improperRatio)} {
		if w := warn(lambda); !strings.Contains(w, "so the posterior may be improper or the model unidentified") {
			t.Errorf("bend %g: %q, want the improper wording", lambda, w)
		}
	}
}

// TestImproperCurvatureHint: where the curvature check's ratios along a
// flat direction reach improperRatio (an A/B trial's Bradley–Terry
// abilities with no prior, 2·10⁵×), the hint says the posterior is likely
// improper and points to the model, not to a joint factor; a weakly
// identified direction's 200× keeps the joint-factor advice.
func TestImproperCurvatureHint(t *testing.T) {
	names := []string{"s[0]", "s[1]", "b"}
	check := func(ratio float64) *curvCheck {
		f := &sgvb.FlatDirection{Vec: []float64{0.7, 0.7, 0}, Lambda: 0, QVar: 1}
		c := &sgvb.Curvature{Flat: f, Ratio: []float64{ratio, ratio, 1}, Partner: []int{1, 0, -1}, Corr: []float64{1, 1, 0}}
		r := &sgvb.Result{Dim: 3, Factors: []sgvb.Factor{{Name: "s", Shape: []int{2}, Size: 2}, {Name: "b", Size: 1, Offset: 2}}}
		return &curvCheck{c: c, r: r, names: names, lats: []int{0, 0, 1}, all: 3}
	}
	const improper = "the log density is all but flat along them (the warning above), so no q, mean-field or joint, can represent the posterior, which is likely improper"
	if h := curvatureHint(check(2e5)); !strings.Contains(h, improper) || strings.Contains(h, "--fullrank") {
		t.Errorf("ratio 2e5: %q", h)
	}
	if check(200).improper(0) || !check(2e5).improper(0) {
		t.Errorf("improper at 200 or not at 2e5")
	}
}

// fitJSONWarnings returns the warnings of the fit.json in dir.
func fitJSONWarnings(t *testing.T, dir string) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, fitFileName))
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Warnings []string }
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	return f.Warnings
}
