package compile

import (
	"math"
	"testing"
)

// TestCumSumRows: cumsum of a matrix is the running sums along each row
// (one random walk per row, over the columns), in its value and in the log
// density's gradient against finite differences; of a vector, as before.
func TestCumSumRows(t *testing.T) {
	m := compileSrc(t, "cs.gpp", `param Z: real[2, 3] ~ Normal(0, 1)
param v: real[3] ~ Normal(0, 1)
output C = cumsum(Z)
output c = cumsum(v)
target += sum(square(cumsum(Z)) .* [[1, 2, 3], [4, 5, 6]]) / 10 + sum(cumsum(Z') .* [[1, -1], [2, 0.5], [-3, 1]])
`, nil)
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	p := []float64{0.3, -1.2, 2.1, 0.5, 1, -0.4, 0.7, -0.2, 1.5}
	_, outs, err := ev.Eval(p)
	if err != nil {
		t.Fatal(err)
	}
	// Z is laid out by rows, as are the outputs' elements.
	z := func(r, c int) float64 { return p[r*3+c] }
	for r := 0; r < 2; r++ {
		run := 0.0
		for c := 0; c < 3; c++ {
			run += z(r, c)
			if g := outs[0][r*3+c]; math.Abs(g-run) > 1e-14 {
				t.Errorf("C[%d, %d] = %g, want %g", r, c, g, run)
			}
		}
	}
	run := 0.0
	for i := 0; i < 3; i++ {
		run += p[6+i]
		if g := outs[1][i]; math.Abs(g-run) > 1e-14 {
			t.Errorf("c[%d] = %g, want %g", i, g, run)
		}
	}
	checkGradient(t, m, 3, 1)
}
