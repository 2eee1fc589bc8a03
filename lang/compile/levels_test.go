package compile

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// NewLevelSampler refuses a fit's shape that is not this param's with
// axes made longer (another rank, an axis longer in the fit) with an
// error at the param, not a panic in OldIndices; of a fit's shape that
// is, Draw keeps the fit's elements and draws the new ones.
func TestNewLevelSamplerShapes(t *testing.T) {
	m := compileSrc(t, "m.gpp", "data J: int\nparam s: positive ~ HalfNormal(1)\nparam a: real[J] ~ Normal(0, s)\n", map[string]string{"J": "4"})
	for _, fit := range [][]int{{5}, {2, 1}, {}} {
		_, err := m.NewLevelSampler(map[string][]int{"a": fit})
		if err == nil || !strings.Contains(err.Error(), "m.gpp:3:7: --new-levels: param `a` is [4] here") {
			t.Errorf("fit shape %v: error %v, want one at a naming its shapes", fit, err)
		}
	}
	ls, err := m.NewLevelSampler(map[string][]int{"a": {2}})
	if err != nil {
		t.Fatal(err)
	}
	a := m.Latents[1]
	x, z := make([]float64, m.Dim), make([]float64, m.Dim)
	x[a.Offset], x[a.Offset+1] = 0.5, -0.25
	z[a.Offset], z[a.Offset+1] = 0.5, -0.25
	if err := ls.Draw(rand.New(rand.NewPCG(1, 2)), x, z); err != nil {
		t.Fatal(err)
	}
	if x[a.Offset] != 0.5 || x[a.Offset+1] != -0.25 {
		t.Errorf("the fit's elements changed: %v", x[a.Offset:a.Offset+a.Size])
	}
	for k := 2; k < 4; k++ {
		if v := x[a.Offset+k]; math.IsNaN(v) || v == 0 || z[a.Offset+k] != v {
			t.Errorf("new element %d: coordinate %v, value %v; want one drawn", k, v, z[a.Offset+k])
		}
	}
}
