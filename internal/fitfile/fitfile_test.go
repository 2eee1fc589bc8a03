package fitfile

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"regexp"
	"strings"
	"testing"
)

// TestCompactNumberArrays checks fit.json's layout: arrays of numbers (null,
// "inf" and "-inf" among them) on one line, other arrays as MarshalIndent
// lays them out, and strings untouched even where they hold brackets.
func TestCompactNumberArrays(t *testing.T) {
	v := map[string]any{
		"a_mean":  []any{1.5, -2e-300, nil, "inf", "-inf", 3},
		"b_rows":  [][]float64{{1, 2}, {3}},
		"c_empty": []float64{},
		"d_names": []string{"beta[1,2]", "x [ 1 ]"},
		"e_warn":  `element beta[1,2] of "[3, 4]"` + "\n[5,\t6]",
		"f_mixed": []any{1, "two"},
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "a_mean": [1.5, -2e-300, null, "inf", "-inf", 3],
  "b_rows": [
    [1, 2],
    [3]
  ],
  "c_empty": [],
  "d_names": [
    "beta[1,2]",
    "x [ 1 ]"
  ],
  "e_warn": "element beta[1,2] of \"[3, 4]\"\n[5,\t6]",
  "f_mixed": [
    1,
    "two"
  ]
}`
	if got := string(compactNumberArrays(b)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	var back map[string]any
	if err := json.Unmarshal(compactNumberArrays(b), &back); err != nil {
		t.Fatal(err)
	}
	if back["e_warn"] != v["e_warn"] {
		t.Errorf("string changed: %q", back["e_warn"])
	}
}

// TestReadFitJSONRoundTrip writes a fit file and reads it back, non-finite
// numbers included.
func TestReadFitJSONRoundTrip(t *testing.T) {
	ff := &File{Head: Head{Format: Format}, Outcome: Outcome{ELBO: Float(math.NaN()), ParetoK: Float(math.Inf(-1))},
		Factors: []Factor{{Name: "W", Family: "normal", Support: "real", Shape: []int{1, 2},
			Params: ParamValues{Names: []string{"mean", "sd"}, Values: [][]Float{{-1, 2}, {0.5, 0.25}}}}}}
	var b bytes.Buffer
	if err := Write(&b, ff); err != nil {
		t.Fatal(err)
	}
	if i, j := strings.Index(b.String(), `"mean"`), strings.Index(b.String(), `"sd"`); i < 0 || j < i {
		t.Errorf("parameters not in ParamNames order:\n%s", b.String())
	}
	got, err := Read("fit.json", b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(float64(got.ELBO)) || !math.IsInf(float64(got.ParetoK), -1) {
		t.Errorf("ELBO %v, k %v", got.ELBO, got.ParetoK)
	}
	if sd, _ := got.Factors[0].Params.Get("sd"); len(sd) != 2 || sd[1] != 0.25 {
		t.Errorf("sd %v", sd)
	}
	var raw map[string]any
	if err := json.Unmarshal(b.Bytes(), &raw); err != nil {
		t.Errorf("fit.json is not plain JSON: %v", err)
	}
	// a fit.json without pareto_k (an older one) reads it as unknown, NaN,
	// not as 0, which gpp sensitivity would take for a good q
	old := regexp.MustCompile(`"pareto_k": *"-inf",?`).ReplaceAll(b.Bytes(), nil)
	if bytes.Equal(old, b.Bytes()) {
		t.Fatalf("no pareto_k in\n%s", b.Bytes())
	}
	if got, err := Read("fit.json", old); err != nil || !math.IsNaN(float64(got.ParetoK)) {
		t.Errorf("fit.json without pareto_k: k %v, err %v", got.ParetoK, err)
	}
}

// BenchmarkWriteFitJSON writes the fit.json of a dense joint normal q at
// 1000 coordinates (a Laplace or Pathfinder fit's: 500 500 numbers).
func BenchmarkWriteFitJSON(b *testing.B) {
	const n = 1000
	chol := make([]Float, n*(n+1)/2)
	for i := range chol {
		chol[i] = Float(1 / float64(i+3))
	}
	mean := make([]Float, n)
	ff := &File{Head: Head{Format: Format}, Factors: []Factor{{Name: "u", Family: "normal", Support: "real", Shape: []int{n},
		Params: ParamValues{Names: []string{"mean", "chol"}, Values: [][]Float{mean, chol}}}}}
	for b.Loop() {
		if err := Write(io.Discard, ff); err != nil {
			b.Fatal(err)
		}
	}
}
