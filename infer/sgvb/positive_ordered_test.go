package sgvb

import (
	"math"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// A positive_ordered factor's one part: its mean and sd are those of the
// running sum of independent gamma parts, its draws are positive and
// increasing, and Coords inverts Natural.
func TestPositiveOrderedFactor(t *testing.T) {
	f := Factor{Name: "r", Family: FamilyOrdered, Support: dist.PositiveOrdered, Size: 3, Shape: []int{3}, Parts: []Factor{
		{Name: "r", Family: FamilyGamma, Support: dist.Positive, Size: 3, Shape: []int{3}, Params: [][]float64{{2, 4, 9}, {4, 2, 3}}},
	}}
	r := &Result{Factors: []Factor{f}, Dim: 3}
	wantMean := []float64{0.5, 2.5, 5.5}
	wantSD := []float64{math.Sqrt(2) / 4, math.Sqrt(2.0/16 + 1), math.Sqrt(2.0/16 + 1 + 1)}
	checkOrderedFactor(t, r, wantMean, wantSD, true)
}

// Fit makes a positive_ordered latent one positive block and reports it as
// one ordered factor: on a target whose log density is that of independent
// Gamma(3, 2) parts x_0, d_1, d_2, the factor found is that, gamma by
// default and lognormal when Settings.Family says so; Init's increasing
// values start the parts from their differences.
func TestPositiveOrderedFit(t *testing.T) {
	for _, fam := range []Family{FamilyAuto, FamilyLognormal} {
		lats := []Latent{{Name: "r", Offset: 0, Size: 3, Shape: []int{3}, Support: dist.PositiveOrdered, Init: []float64{1, 2, 4}}}
		res, err := Fit(t.Context(), positiveOrderedTarget{}, lats, Settings{Seed: 1, DrawsPerStep: 4, Family: fam})
		if err != nil {
			t.Fatal(err)
		}
		f := res.Factor("r")
		wantFam := FamilyGamma
		if fam == FamilyLognormal {
			wantFam = FamilyLognormal
		}
		if f == nil || f.Family != FamilyOrdered || f.Support != dist.PositiveOrdered || len(f.Parts) != 1 || f.Parts[0].Family != wantFam || f.Parts[0].Size != 3 {
			t.Fatalf("%v: factor %+v", fam, f)
		}
		mean, sd := f.Mean(), f.SD()
		want := []float64{1.5, 3, 4.5}
		for k := range 3 {
			if math.Abs(mean[k]-want[k]) > 0.15 {
				t.Errorf("%v: mean[%d] = %.3f, want %.3f (sd %.3f)", fam, k, mean[k], want[k], sd[k])
			}
		}
	}
}

// expandOrdered turns a positive_ordered latent's increasing Init into
// its parts' x_0, d_1, …
func TestExpandPositiveOrdered(t *testing.T) {
	out, err := expandOrdered([]Latent{{Name: "r", Offset: 2, Size: 3, Shape: []int{3}, Support: dist.PositiveOrdered, Init: []float64{0.5, 2, 2.25}}}, &Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || out[0].Support != dist.Positive || out[0].part != partPositive || out[0].Offset != 2 || out[0].Size != 3 {
		t.Fatalf("parts %+v", out)
	}
	for k, w := range []float64{0.5, 1.5, 0.25} {
		if out[0].Init[k] != w {
			t.Errorf("Init %v, want [0.5 1.5 0.25]", out[0].Init)
		}
	}
	// a full-rank one: the group of its part, in settings of its own
	fams := map[string]Family{"r": FamilyFullRank}
	s := &Settings{Families: fams}
	if _, err := expandOrdered([]Latent{{Name: "r", Size: 3, Shape: []int{3}, Support: dist.PositiveOrdered}}, s); err != nil || len(s.Families) != 0 || len(s.FullRankGroups) != 1 || s.FullRankGroups[0][0] != "r" || len(fams) != 1 {
		t.Errorf("full-rank positive_ordered: %v, Families %v, FullRankGroups %v, the caller's %v", err, s.Families, s.FullRankGroups, fams)
	}
}

// positiveOrderedTarget: x_0, d_1, d_2 ~ Gamma(3, 2) in the coordinates
// log x_0, log d_k, with no Jacobian (the density of the parts).
type positiveOrderedTarget struct{}

func (positiveOrderedTarget) LogJoint(x, grad []float64) (float64, error) {
	lp := 0.0
	for k := range 3 {
		d := math.Exp(x[k])
		lp += 2*x[k] - 2*d
		grad[k] = 2 - 2*d
	}
	return lp, nil
}

func (o positiveOrderedTarget) Clone() Target { return o }
