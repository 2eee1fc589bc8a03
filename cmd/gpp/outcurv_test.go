package main

import (
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestFitCurvatureOutputs: the curvature check reads outputs by the delta
// method. a ~ N(0, 1), b | a ~ N(0.8a, 0.6), so correlation ρ = 0.8 and
// unit variances: s = a + b has variance 2 + 2ρ where a mean-field q
// (variances 1 − ρ²) gives 2(1 − ρ²), a ratio of 1/√(1 − ρ) = 2.24, marked
// *; d = a − b reads 1/√(1 + ρ) = 0.75, unmarked; y_rep ~ D and t, which
// adds it, are draws, no function of the params: neither read nor
// marked. fit.json's meanfield_sd_ratio keeps the params alone.
func TestFitCurvatureOutputs(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	dir := t.TempDir()
	const rho = 0.8
	model := writeFile(t, dir, "n.gpp", "param a: real ~ Normal(0, 1)\nparam b: real ~ Normal(0.8 * a, 0.6)\n"+
		"output s = a + b\noutput d = a - b\noutput y_rep ~ Normal(a + b, 1)\noutput t = y_rep + a\n")
	out := filepath.Join(dir, "mf")
	code, stdout, stderr := runSafe(t, "fit", model, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	obj, _ := readJSONObject(t, filepath.Join(out, "fit.json"))["meanfield_sd_ratio_outputs"].(map[string]any)
	want := map[string]float64{"s": 1 / math.Sqrt(1-rho), "d": 1 / math.Sqrt(1+rho)}
	if len(obj) != len(want) {
		t.Errorf("meanfield_sd_ratio_outputs %v, want s and d alone", obj)
	}
	for name, w := range want {
		if v, ok := obj[name].(float64); !ok || math.Abs(v-w) > curvRatioTol*w {
			t.Errorf("meanfield_sd_ratio_outputs of %s = %v, want %.9g", name, obj[name], w)
		}
	}
	if r := fitRatios(t, out); len(r) != 2 {
		t.Errorf("meanfield_sd_ratio %v, want a and b alone", r)
	}
	for name, marked := range map[string]bool{"a": true, "s": true, "d": false, "y_rep": false, "t": false} {
		row := regexp.MustCompile(`(?m)^` + name + `\s+\S+\s+\S+\s+\S+`).FindString(stdout)
		if row == "" || strings.HasSuffix(row, "*") != marked {
			t.Errorf("%s's row %q: want marked %v\n%s", name, row, marked, stdout)
		}
	}
	if !strings.Contains(stdout, "an output's mark is the same reading of it by the delta method") {
		t.Errorf("no note of outputs' marks:\n%s", stdout)
	}
}

// TestFitCurvatureRatioOutput: a ratio's mark is its own delta-method
// reading, not its params': with a ~ N(0, 1), b | a ~ N(−1 + 0.4a, 0.3)
// (b's marginal sd 0.5 against its conditional 0.3: marked 1.67×) and c ~
// N(0.5, 0.6) apart, w = −c/b has the gradient (c/b², −1/b) in (b, c) at
// q's mode, and its variance comes mostly from the unmarked c, a ratio of
// about 1.05: unmarked, as a trial's willingness-to-pay ratios were under
// a marked price coefficient (docs/inference.md, Outputs' marks). The
// ratio is checked exactly at the fit's own means.
func TestFitCurvatureRatioOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	dir := t.TempDir()
	model := writeFile(t, dir, "r.gpp", "param a: real ~ Normal(0, 1)\nparam b: real ~ Normal(-1 + 0.4 * a, 0.3)\nparam c: real ~ Normal(0.5, 0.6)\noutput w = -c / b\n")
	out := filepath.Join(dir, "mf")
	code, stdout, stderr := runSafe(t, "fit", model, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	fit := readJSONObject(t, filepath.Join(out, "fit.json"))
	mean := map[string]float64{}
	for _, f := range fit["factors"].([]any) {
		f := f.(map[string]any)
		m := f["params"].(map[string]any)["mean"]
		if ms, ok := m.([]any); ok {
			m = ms[0]
		}
		mean[f["name"].(string)], _ = m.(float64)
	}
	b, c := mean["b"], mean["c"]
	gb, gc := c/(b*b), -1/b
	const varB, condB, varC = 0.25, 0.09, 0.36 // b's marginal and conditional variances, c's
	want := math.Sqrt((gb*gb*varB + gc*gc*varC) / (gb*gb*condB + gc*gc*varC))
	obj, _ := fit["meanfield_sd_ratio_outputs"].(map[string]any)
	if v, ok := obj["w"].(float64); !ok || math.Abs(v-want) > curvRatioTol*want || want > curvRatio {
		t.Errorf("meanfield_sd_ratio_outputs of w = %v, want %.9g (below %v) at q's means b %v, c %v", obj["w"], want, curvRatio, b, c)
	}
	for name, marked := range map[string]bool{"a": true, "b": true, "c": false, "w": false} {
		row := regexp.MustCompile(`(?m)^` + name + `\s+\S+\s+\S+\s+\S+`).FindString(stdout)
		if row == "" || strings.HasSuffix(row, "*") != marked {
			t.Errorf("%s's row %q: want marked %v\n%s", name, row, marked, stdout)
		}
	}
	if !strings.Contains(stdout, "which sees no tail: a ratio whose denominator can come near 0 may be far wider than q says") {
		t.Errorf("the note under the table does not say the mark sees no tail:\n%s", stdout)
	}
}
