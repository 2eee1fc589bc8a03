package sgvb

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// roundTripTol is |ValueCoords(Values(y)) − y|, relative to max(1, |y|).
const roundTripTol = 1e-12

// matrixLatent returns the Unconstrained of one K×K latent of support s.
func matrixLatent(t *testing.T, s dist.Support, k int) *Unconstrained {
	t.Helper()
	n := s.MatrixSize(k)
	d, err := NewUnconstrained(nil, []Latent{{Name: "m", Support: s, Size: n, Shape: []int{n}}})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestValueCoordsMatrix checks that ValueCoords inverts the four matrix
// transforms (dist.MatrixValues) at random coordinates, K = 1 to 5.
func TestValueCoordsMatrix(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, s := range []dist.Support{dist.CholCorr, dist.CorrMatrix, dist.CholCov, dist.CovMatrix} {
		for k := 1; k <= 5; k++ {
			d := matrixLatent(t, s, k)
			if d.ValueSize(0) != k*k {
				t.Fatalf("%v[%d]: ValueSize %d, want %d", s, k, d.ValueSize(0), k*k)
			}
			n := s.MatrixSize(k)
			y, x, v := make([]float64, n), make([]float64, n), make([]float64, k*k)
			for range 50 {
				for i := range y {
					y[i] = rng.NormFloat64()
				}
				dist.MatrixValues(s, v, make([]float64, k*k), y, k)
				if err := d.ValueCoords(0, v, x); err != nil {
					t.Fatalf("%v[%d] at y %v: %v", s, k, y, err)
				}
				for i := range y {
					if math.Abs(x[i]-y[i]) > roundTripTol*max(1, math.Abs(y[i])) {
						t.Fatalf("%v[%d]: ValueCoords(Values(%v)) = %v", s, k, y, x)
					}
				}
			}
		}
	}
}

// TestValueCoordsOutside checks that a matrix outside its support is a
// ValueError at the element, saying what is wrong.
func TestValueCoordsOutside(t *testing.T) {
	cases := []struct {
		s    dist.Support
		v    []float64
		elem int
		want string
	}{
		{dist.CovMatrix, []float64{2, 0.5, 0.4, 1}, 1, "symmetric"},
		{dist.CovMatrix, []float64{1, 2, 2, 1}, 3, "positive definite"},
		{dist.CovMatrix, []float64{-1, 0, 0, 1}, 0, "positive definite"},
		{dist.CorrMatrix, []float64{1, 0.5, 0.5, 2}, 3, "unit diagonal"},
		{dist.CorrMatrix, []float64{1, 0.5, 0.6, 1}, 1, "symmetric"},
		{dist.CorrMatrix, []float64{1, 1.5, 1.5, 1}, 3, "positive definite"},
		{dist.CholCov, []float64{1, 0.1, 0.5, 1}, 1, "lower triangular"},
		{dist.CholCov, []float64{1, 0, 0.5, -1}, 3, "positive diagonal"},
		{dist.CholCorr, []float64{1, 0, 0.5, 0.5}, 2, "unit norm"},
		{dist.CholCorr, []float64{1, 0, 0.6, -0.8}, 3, "positive diagonal"},
		{dist.CholCorr, []float64{1, 0.2, 0, 1}, 1, "lower triangular"},
		{dist.CholCorr, []float64{1, 0, math.NaN(), 1}, 2, "finite"},
	}
	for _, c := range cases {
		d := matrixLatent(t, c.s, 2)
		err := d.ValueCoords(0, c.v, make([]float64, c.s.MatrixSize(2)))
		var ve *ValueError
		if !errors.As(err, &ve) || ve.Elem != c.elem || !strings.Contains(ve.Want, c.want) {
			t.Errorf("%v %v: error %v, want a ValueError at element %d with %q", c.s, c.v, err, c.elem, c.want)
		}
	}
}

// TestInitAt checks InitAt: radius 2 draws Init's start bit for bit,
// radius 0 starts every coordinate at 0, and given coordinates are kept
// while the others take the values they take without them.
func TestInitAt(t *testing.T) {
	d, err := NewUnconstrained(normalTarget{}, []Latent{{Name: "a", Support: dist.Real, Size: 3, Shape: []int{3}}})
	if err != nil {
		t.Fatal(err)
	}
	a, b := make([]float64, 3), make([]float64, 3)
	if err := d.Init(rand.New(rand.NewPCG(5, InitStream)), a); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, InitStream))
	var want [3]float64
	for i := range want {
		want[i] = 4*rng.Float64() - 2
	}
	if [3]float64(a) != want {
		t.Errorf("Init %v, want %v", a, want)
	}
	if err := d.InitAt(rand.New(rand.NewPCG(5, InitStream)), 0.5, nil, b); err != nil {
		t.Fatal(err)
	}
	for i := range b {
		if b[i] != a[i]/4 {
			t.Errorf("radius 0.5: coordinate %d is %v, want %v", i, b[i], a[i]/4)
		}
	}
	b = []float64{7, 7, 7}
	if err := d.InitAt(rand.New(rand.NewPCG(5, InitStream)), 0, nil, b); err != nil || b[0] != 0 || b[1] != 0 || b[2] != 0 {
		t.Errorf("radius 0: %v (error %v), want 0s", b, err)
	}
	b = []float64{0, 9, 0}
	if err := d.InitAt(rand.New(rand.NewPCG(5, InitStream)), 2, []bool{false, true, false}, b); err != nil {
		t.Fatal(err)
	}
	if b[0] != a[0] || b[1] != 9 || b[2] != a[2] {
		t.Errorf("coordinate 1 given as 9: %v, want %v, 9, %v", b, a[0], a[2])
	}
	inf := []float64{0, math.Inf(1), 0}
	err = d.InitAt(rand.New(rand.NewPCG(5, InitStream)), 2, []bool{true, true, true}, inf)
	var se *StartError
	if !errors.As(err, &se) {
		t.Errorf("a given start of -Inf log density: error %v, want a StartError", err)
	}
}

// normalTarget is a standard normal log joint on every coordinate.
type normalTarget struct{}

func (normalTarget) LogJoint(x, grad []float64) (float64, error) {
	lp := 0.0
	for i, v := range x {
		lp -= v * v / 2
		grad[i] = -v
	}
	return lp, nil
}

func (normalTarget) Clone() Target { return normalTarget{} }
