package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// TestNearZeroShapeWarning: a gamma factor with a shape below
// nearZeroShape gets a warning that names the element, q's shape and the
// prior's; shapes at or above it (the bundled examples' least is 0.041)
// get none, nor do other families.
func TestNearZeroShapeWarning(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.gpp")
	src := "param b: positive[3] ~ Gamma(0.3, 2)\nparam s: positive ~ LogNormal(0, 1)\ntarget += -sum(b) - s\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := pipeline.Load(path, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	vars := []variable{{name: "b", shape: []int{3}}, {name: "s", shape: []int{}}}
	res := func(shapes ...float64) *sgvb.Result {
		return &sgvb.Result{Factors: []sgvb.Factor{
			{Name: "b", Family: sgvb.FamilyGamma, Size: 3, Shape: []int{3}, Params: [][]float64{shapes, {1, 1, 1}}},
			{Name: "s", Family: sgvb.FamilyLognormal, Size: 1, Params: [][]float64{{0}, {0.001}}},
		}}
	}
	ws := nearZeroShapeWarnings(res(0.5, 0.0012, 0.3), vars, l.Info, sgvb.STLCV)
	if len(ws) != 1 {
		t.Fatalf("warnings %q; want one", ws)
	}
	for _, want := range []string{"b: 1 of 3 shapes", "b[1] (shape 0.0012)", "the prior's shape 0.3 (Gamma(0.3, 2))", "mass at ~0", "heavy-tailed", "--estimator stl (no control variate"} {
		if !strings.Contains(ws[0], want) {
			t.Errorf("warning %q lacks %q", ws[0], want)
		}
	}
	// under a control variate plain STL is a remedy; without one it is
	// none
	for est, stl := range map[sgvb.Estimator]bool{sgvb.EstimatorAuto: true, sgvb.STLCV: true, sgvb.EntropyCV: true, sgvb.STL: false, sgvb.Entropy: false} {
		ws := nearZeroShapeWarnings(res(0.5, 0.0012, 0.3), vars, l.Info, est)
		if len(ws) != 1 || strings.Contains(ws[0], "--estimator stl (no control variate") != stl {
			t.Errorf("under %v: warnings %q; --estimator stl named %v", est, ws, !stl)
		}
	}
	if ws := nearZeroShapeWarnings(res(0.5, nearZeroShape, 0.041), vars, l.Info, sgvb.STLCV); len(ws) != 0 {
		t.Errorf("shapes at or above %g: warnings %q", nearZeroShape, ws)
	}
}
