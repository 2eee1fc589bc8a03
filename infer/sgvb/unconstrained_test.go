package sgvb

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// TestUCoordsInvertsCoords checks that UCoords takes Coords' x back to u,
// for a real, a positive and a simplex latent of two rows (its K − 1
// stick-breaking coordinates a row), and that Coords of UCoords gives x.
func TestUCoordsInvertsCoords(t *testing.T) {
	lats := []Latent{
		{Name: "a", Support: dist.Real, Offset: 0, Size: 2, Shape: []int{2}},
		{Name: "b", Support: dist.Positive, Offset: 2, Size: 1},
		{Name: "w", Support: dist.Simplex, Offset: 3, Size: 6, Shape: []int{2, 3}},
	}
	d, err := NewUnconstrained(nil, lats)
	if err != nil {
		t.Fatal(err)
	}
	if d.Dim() != 7 || d.TargetDim() != 9 {
		t.Fatalf("Dim %d, TargetDim %d; want 7, 9", d.Dim(), d.TargetDim())
	}
	rng := rand.New(rand.NewPCG(1, 2))
	u, x, back, x2 := make([]float64, 7), make([]float64, 9), make([]float64, 7), make([]float64, 9)
	for range 20 {
		for i := range u {
			u[i] = 6*rng.Float64() - 3
		}
		d.Coords(u, x)
		d.UCoords(x, back)
		d.Coords(back, x2)
		for i := range u {
			if math.Abs(back[i]-u[i]) > 1e-12*(1+math.Abs(u[i])) {
				t.Fatalf("u %v: UCoords(Coords(u)) = %v", u, back)
			}
		}
		for i := range x {
			if math.Abs(x2[i]-x[i]) > 1e-12*(1+math.Abs(x[i])) {
				t.Fatalf("x %v: Coords(UCoords(x)) = %v", x, x2)
			}
		}
	}
}
