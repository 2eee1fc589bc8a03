package sgvb

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// An ordered factor's parts: its mean and sd are those of the running sum
// of independent parts, its draws are increasing, and Coords inverts
// Natural.
func TestOrderedFactor(t *testing.T) {
	f := Factor{Name: "c", Family: FamilyOrdered, Support: dist.Ordered, Size: 3, Shape: []int{3}, Parts: []Factor{
		{Name: "c", Family: FamilyNormal, Support: dist.Real, Size: 1, Shape: []int{1}, Params: [][]float64{{-1}, {0.2}}},
		{Name: "c", Family: FamilyGamma, Support: dist.Positive, Offset: 1, Size: 2, Shape: []int{2}, Params: [][]float64{{4, 9}, {2, 3}}},
	}}
	r := &Result{Factors: []Factor{f}, Dim: 3}
	wantMean := []float64{-1, 1, 4}
	wantSD := []float64{0.2, math.Sqrt(0.04 + 1), math.Sqrt(0.04 + 1 + 1)}
	checkOrderedFactor(t, r, wantMean, wantSD, false)
}

// Fit splits an ordered latent into its parts and merges them back: on a
// target whose log density is that of independent N(0, 1) x_0 and
// Gamma(3, 2) increments, the factors found are those.
func TestOrderedFit(t *testing.T) {
	tg := orderedTarget{}
	lats := []Latent{{Name: "c", Offset: 0, Size: 3, Shape: []int{3}, Support: dist.Ordered}}
	res, err := Fit(t.Context(), tg, lats, Settings{Seed: 1, DrawsPerStep: 4})
	if err != nil {
		t.Fatal(err)
	}
	f := res.Factor("c")
	if f == nil || f.Family != FamilyOrdered || len(f.Parts) != 2 || f.Parts[1].Family != FamilyGamma {
		t.Fatalf("factor %+v", f)
	}
	mean, sd := f.Mean(), f.SD()
	want := []float64{0, 1.5, 3}
	for k := range 3 {
		if math.Abs(mean[k]-want[k]) > 0.1 {
			t.Errorf("mean[%d] = %.3f, want %.3f (sd %.3f)", k, mean[k], want[k], sd[k])
		}
	}
}

// orderedTarget: x_0 ~ N(0, 1), d_1, d_2 ~ Gamma(3, 2) in the ordered
// coordinates (x_0, log d_k), with no Jacobian (the density of d).
type orderedTarget struct{}

func (orderedTarget) LogJoint(x, grad []float64) (float64, error) {
	lp := -x[0] * x[0] / 2
	grad[0] = -x[0]
	for k := 1; k < 3; k++ {
		d := math.Exp(x[k])
		lp += 2*x[k] - 2*d // (a − 1) log d − b d, a = 3, b = 2
		grad[k] = 2 - 2*d  // d/dlog d
	}
	return lp, nil
}

func (o orderedTarget) Clone() Target { return o }

// checkOrderedFactor checks a result of one 3-element ordered factor: its
// exact mean and sd, and over 20 000 draws that every draw is increasing
// (and positive), that Coords inverts Natural, and the draws' mean.
func checkOrderedFactor(t *testing.T, r *Result, wantMean, wantSD []float64, positive bool) {
	t.Helper()
	mean, sd := r.Mean(), r.SD()
	for k := range 3 {
		if math.Abs(mean[k]-wantMean[k]) > 1e-14 || math.Abs(sd[k]-wantSD[k]) > 1e-14 {
			t.Errorf("element %d: mean %v sd %v, want %v, %v", k, mean[k], sd[k], wantMean[k], wantSD[k])
		}
	}
	rng := rand.New(rand.NewPCG(1, 1))
	x, z, back := make([]float64, 3), make([]float64, 3), make([]float64, 3)
	var sum [3]float64
	const n = 20000
	for range n {
		r.SampleCoords(rng, x)
		r.Natural(z, x)
		if !(z[0] < z[1] && z[1] < z[2]) || positive && !(z[0] > 0) {
			t.Fatalf("draw %v is not increasing (or not positive)", z)
		}
		r.Coords(back, z)
		for k := range 3 {
			if math.Abs(back[k]-x[k]) > 1e-12*math.Max(1, math.Abs(x[k])) {
				t.Fatalf("Coords(Natural(%v)) = %v", x, back)
			}
			sum[k] += z[k]
		}
	}
	for k := range 3 {
		if m := sum[k] / n; math.Abs(m-wantMean[k]) > 4*wantSD[k]/math.Sqrt(n) {
			t.Errorf("element %d: draws' mean %v, want %v", k, m, wantMean[k])
		}
	}
}

// An ordered[2, 3] factor: its first part the rows' firsts, its second
// the rows' increments one row after the other; each row's mean and sd
// are its running sums, its draws increase along each row (not across
// rows), Coords inverts Natural, and the draws' mean is the mean.
func TestOrderedRowsFactor(t *testing.T) {
	f := Factor{Name: "c", Family: FamilyOrdered, Support: dist.Ordered, Size: 6, Shape: []int{2, 3}, Parts: []Factor{
		{Name: "c", Family: FamilyNormal, Support: dist.Real, Size: 2, Shape: []int{2}, Params: [][]float64{{-1, 5}, {0.2, 0.3}}},
		{Name: "c", Family: FamilyGamma, Support: dist.Positive, Offset: 2, Size: 4, Shape: []int{4}, Params: [][]float64{{4, 9, 4, 9}, {2, 3, 2, 3}}},
	}}
	r := &Result{Factors: []Factor{f}, Dim: 6}
	wantMean := []float64{-1, 1, 4, 5, 7, 10}
	wantSD := []float64{0.2, math.Sqrt(0.04 + 1), math.Sqrt(0.04 + 2), 0.3, math.Sqrt(0.09 + 1), math.Sqrt(0.09 + 2)}
	mean, sd := r.Mean(), r.SD()
	for k := range wantMean {
		if math.Abs(mean[k]-wantMean[k]) > 1e-14 || math.Abs(sd[k]-wantSD[k]) > 1e-14 {
			t.Errorf("element %d: mean %v sd %v, want %v, %v", k, mean[k], sd[k], wantMean[k], wantSD[k])
		}
	}
	rng := rand.New(rand.NewPCG(1, 1))
	x, z, back := make([]float64, 6), make([]float64, 6), make([]float64, 6)
	var sum [6]float64
	const n = 20000
	for range n {
		r.SampleCoords(rng, x)
		r.Natural(z, x)
		if !(z[0] < z[1] && z[1] < z[2] && z[3] < z[4] && z[4] < z[5]) {
			t.Fatalf("draw %v: a row is not increasing", z)
		}
		r.Coords(back, z)
		for k := range x {
			if math.Abs(back[k]-x[k]) > 1e-12*math.Max(1, math.Abs(x[k])) {
				t.Fatalf("Coords(Natural(%v)) = %v", x, back)
			}
			sum[k] += z[k]
		}
	}
	for k := range sum {
		if m := sum[k] / n; math.Abs(m-wantMean[k]) > 4*wantSD[k]/math.Sqrt(n) {
			t.Errorf("element %d: the draws' mean %v, want %v", k, m, wantMean[k])
		}
	}
}

// An ordered[1, 3] latent is one row: fitted as an ordered[3] one (the
// same coordinates), its factor keeps the matrix shape [1, 3] that names
// its elements c[0, k].
func TestOrderedOneRowShape(t *testing.T) {
	for _, shape := range [][]int{{3}, {1, 3}} {
		lats := []Latent{{Name: "c", Offset: 0, Size: 3, Shape: shape, Support: dist.Ordered}}
		res, err := Fit(t.Context(), orderedTarget{}, lats, Settings{Seed: 1, DrawsPerStep: 4, MaxIter: 50})
		if err != nil {
			t.Fatal(err)
		}
		if f := res.Factor("c"); f == nil || !slices.Equal(f.Shape, shape) {
			t.Errorf("latent of shape %v: factor %+v", shape, f)
		}
	}
}
