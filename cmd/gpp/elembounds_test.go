package main

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/fitfile"
)

// TestFitInitElemBounds fits a model whose params have a bound per element
// (testdata/check_elem_bounds.gpp): fit.json gives their maps per element
// ("bounds": {"loc": [...], "scale": [...]}), every draw lies inside its
// element's bounds, and --init from that fit.json starts where the fit
// ended, without warnings. With other bounds in the data, --init still
// takes the factors (of b, mapped by the new bounds), as for scalar bounds.
func TestFitInitElemBounds(t *testing.T) {
	d := t.TempDir()
	first, second := filepath.Join(d, "first"), filepath.Join(d, "second")
	model, dataFile := "testdata/check_elem_bounds.gpp", "testdata/check_elem_bounds.json"
	if code, _, stderr := runSafe(t, "fit", model, dataFile, "--quiet", "--out", first); code != 0 {
		t.Fatalf("first fit: exit %d: %s", code, stderr)
	}
	ff := readFit(t, filepath.Join(first, "fit.json"))
	want := map[string]*fitfile.Bounds{
		"y_cens": {LocV: []float64{2.5, 3, 2.5}, ScaleV: []float64{1, 1, 1}},
		"p":      {LocV: []float64{0.1, 0.2}, ScaleV: []float64{0.4, 0.7}},
		"mu":     nil,
	}
	for _, f := range ff.Factors {
		w := want[f.Name]
		if (w == nil) != (f.Bounds == nil) || w != nil && !reflect.DeepEqual(*w, *f.Bounds) {
			t.Errorf("fit.json: %s has bounds %+v, want %+v", f.Name, f.Bounds, w)
		}
	}
	raw, err := os.ReadFile(filepath.Join(first, "fit.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"loc": [0.1, 0.2],`) {
		t.Errorf("fit.json does not write p's locs as an array on one line:\n%s", raw)
	}
	_, head, rows := readStanCSV(t, filepath.Join(first, "draws.csv"))
	lower := map[string]float64{"y_cens.1": 2.5, "y_cens.2": 3, "y_cens.3": 2.5, "p.1": 0.1, "p.2": 0.2}
	upper := map[string]float64{"p.1": 0.5, "p.2": 0.9}
	if len(rows) == 0 {
		t.Fatal("no draws")
	}
	for _, row := range rows {
		for j, name := range head {
			v := row[j]
			if lo, ok := lower[name]; ok && !(v > lo) {
				t.Fatalf("draw of %s is %v, not above its lower bound %v", name, v, lo)
			}
			if hi, ok := upper[name]; ok && !(v < hi) {
				t.Fatalf("draw of %s is %v, not below its upper bound %v", name, v, hi)
			}
		}
	}
	code, _, stderr := runSafe(t, "fit", model, dataFile, "--quiet", "--iter", "100", "--tol", "0",
		"--init", filepath.Join(first, "fit.json"), "--out", second)
	if code != 0 || strings.Contains(stderr, "warning: --init") {
		t.Fatalf("second fit: exit %d: %s", code, stderr)
	}
	cold, final, warm := warmStart(t, first, second)
	if math.Abs(warm-final) > 0.1*math.Abs(cold-final) {
		t.Errorf("warm start ELBO %g is not close to the first fit's final %g (cold start %g)", warm, final, cold)
	}
	m1, m2 := summaryMeans(t, first), summaryMeans(t, second)
	for _, name := range []string{"y_cens[1]", "y_cens[2]", "y_cens[3]", "p[1]", "p[2]"} {
		if math.Abs(m1[name]-m2[name]) > 0.1*math.Abs(m1[name]) {
			t.Errorf("%s: %g after the warm start, %g before", name, m2[name], m1[name])
		}
	}
}
