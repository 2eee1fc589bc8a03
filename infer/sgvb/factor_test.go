package sgvb

import (
	"math"
	"testing"
)

// softplusSigmoid agrees with softplus and sigmoid computed apart.
func TestSoftplusSigmoid(t *testing.T) {
	for _, r := range []float64{-700, -40, -18.5, -3, -1e-9, 0, 1e-9, 0.7, 5, 20, 34.9, 35, 35.1, 80, 1e6} {
		sp, sg := softplusSigmoid(r)
		wsp, wsg := softplus(r), sigmoid(r)
		if math.Abs(sp-wsp) > 4e-16*wsp || math.Abs(sg-wsg) > 4e-16*wsg {
			t.Errorf("r = %g: (%.17g, %.17g), want (%.17g, %.17g)", r, sp, sg, wsp, wsg)
		}
	}
}
