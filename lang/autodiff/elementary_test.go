package autodiff

import (
	"math"
	"testing"
)

// TestFminFmaxTies: at a tie fmin and fmax pick x and its adjoint, and a
// NaN operand yields to the other (C's fmin and fmax).
func TestFminFmaxTies(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		op     Op
		x, y   float64
		want   float64
		gx, gy float64
	}{
		{op: OpFmin, x: 2, y: 2, want: 2, gx: 1},
		{op: OpFmax, x: 2, y: 2, want: 2, gx: 1},
		{op: OpFmin, x: 3, y: 1, want: 1, gy: 1},
		{op: OpFmax, x: 3, y: 1, want: 3, gx: 1},
		{op: OpFmin, x: nan, y: 1, want: 1, gy: 1},
		{op: OpFmax, x: 1, y: nan, want: 1, gx: 1},
	} {
		z := []float64{0}
		x, y := []float64{c.x}, []float64{c.y}
		if pickX(c.op, c.x, c.y) {
			z[0] = c.x
		} else {
			z[0] = c.y
		}
		if z[0] != c.want {
			t.Errorf("%s(%g, %g) = %g, want %g", c.op, c.x, c.y, z[0], c.want)
		}
		ax, ay := []float64{0}, []float64{0}
		buf := []float64{0}
		binaryRowGrad(c.op, 0, ax, 1, buf, []float64{1}, x, 1, y, 1, z)
		binaryRowGrad(c.op, 1, ay, 1, buf, []float64{1}, x, 1, y, 1, z)
		if ax[0] != c.gx || ay[0] != c.gy {
			t.Errorf("%s(%g, %g): adjoints %g, %g, want %g, %g", c.op, c.x, c.y, ax[0], ay[0], c.gx, c.gy)
		}
	}
}
