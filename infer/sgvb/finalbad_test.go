package sgvb

import (
	"context"
	"math"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// cutTarget is a normal(1.5, 1) log joint cut at x < 4.5 (3 sds out): a density 0 past
// a bound the latent's support (real) does not know, as a user density
// whose support depends on the params.
type cutTarget struct{}

func (cutTarget) LogJoint(x, grad []float64) (float64, error) {
	if x[0] >= 4.5 {
		grad[0] = 0
		return math.Inf(-1), nil
	}
	grad[0] = -(x[0] - 1.5)
	return -(x[0] - 1.5) * (x[0] - 1.5) / 2, nil
}

func (cutTarget) Clone() Target { return cutTarget{} }

// TestFinalBad: Result.FinalBad counts the final estimate's draws whose
// log joint is not finite, which the ELBO leaves out (a q with mass past
// the cut), and is 0 where every draw is finite.
func TestFinalBad(t *testing.T) {
	lat := []Latent{{Name: "x", Size: 1, Support: dist.Real}}
	r, err := Fit(context.Background(), cutTarget{}, lat, Settings{Seed: 3, PSISDraws: 10000})
	if err != nil {
		t.Fatal(err)
	}
	if r.FinalBad <= 0 || r.FinalBad >= 10000 || math.IsInf(r.ELBO, 0) {
		t.Errorf("cut normal: FinalBad %d of %d, ELBO %v; want some draws, and a finite ELBO of the rest", r.FinalBad, 10000, r.ELBO)
	}
	r, err = Fit(context.Background(), normalTarget{}, lat, Settings{Seed: 3})
	if err != nil || r.FinalBad != 0 {
		t.Errorf("normal: FinalBad %d, error %v; want 0", r.FinalBad, err)
	}
}
