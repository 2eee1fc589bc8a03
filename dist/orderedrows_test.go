package dist

import (
	"math"
	"testing"
)

// The coordinates of an ordered[G, K] latent are the G firsts, then each
// row's log increments; the values row-major, each row ordered; and
// OrderedRowsCoords inverts OrderedRowsValues, in place too.
func TestOrderedRowsValues(t *testing.T) {
	const g, k = 3, 4
	u := make([]float64, g*k)
	for j := range u {
		u[j] = 0.1*float64(j) - 0.5
	}
	for _, positive := range []bool{false, true} {
		x := make([]float64, g*k)
		OrderedRowsValues(x, u, g, positive)
		for j := range u { // from the definition, by each coordinate's place
			r, c := OrderedRowIndex(j, g, k, positive)
			if c == 0 {
				continue
			}
			want := x[r*k+c-1] + math.Exp(u[j])
			if math.Abs(x[r*k+c]-want) > 1e-12 {
				t.Errorf("positive %v: x[%d, %d] = %v, want %v", positive, r, c, x[r*k+c], want)
			}
		}
		for r := range g {
			first := u[r] // the firsts lead
			if positive {
				first = math.Exp(u[r*k])
			}
			if math.Abs(x[r*k]-first) > 1e-12 {
				t.Errorf("positive %v: x[%d, 0] = %v, want %v", positive, r, x[r*k], first)
			}
		}
		back := make([]float64, g*k)
		OrderedRowsCoords(back, x, g, positive)
		in := append([]float64(nil), x...)
		OrderedRowsCoords(in, in, g, positive)
		same := append([]float64(nil), u...)
		OrderedRowsValues(same, same, g, positive)
		for j := range u {
			if math.Abs(back[j]-u[j]) > 1e-12 || in[j] != back[j] || same[j] != x[j] {
				t.Fatalf("positive %v: coordinate %d: back %v, in place %v, values in place %v; want %v, %v", positive, j, back[j], in[j], same[j], u[j], x[j])
			}
		}
	}
}
