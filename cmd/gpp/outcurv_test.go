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
