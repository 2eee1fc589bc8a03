package pipeline_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
)

// TestPositiveOrderedMixture shows positive_ordered rates identifying a
// two-component Poisson mixture: with `param lambda: positive_ordered[2]`
// the labels cannot switch, so every seed gives the low rate as lambda[1]
// and the high one as lambda[2], each near the rate it was simulated with
// (2 and 9, 300 counts with weights 0.4 and 0.6), within 4 posterior sds;
// with gamma factors (the default) and lognormal ones.
func TestPositiveOrderedMixture(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	const model = `data y: int[N]
param w: simplex[2] ~ Dirichlet(2)
param lambda: positive_ordered[2] ~ Gamma(2, 0.5)
target += sum(rowlogsumexp(log(w)' + logpdf(y, Poisson(lambda'))))
`
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(2026, 13))
	// poisson draws by Knuth's product of uniforms (rates here are small)
	poisson := func(rate float64) int {
		l, k, p := math.Exp(-rate), 0, rng.Float64()
		for p > l {
			k++
			p *= rng.Float64()
		}
		return k
	}
	var b bytes.Buffer
	b.WriteString("y\n")
	for range 300 {
		rate := 9.0
		if rng.Float64() < 0.4 {
			rate = 2
		}
		fmt.Fprintf(&b, "%d\n", poisson(rate))
	}
	mpath, dpath := dir+"/pmix.gpp", dir+"/pmix.csv"
	if err := os.WriteFile(mpath, []byte(model), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dpath, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	fits := []sgvb.Settings{{Seed: 1}, {Seed: 2}, {Seed: 3}, {Seed: 1, Family: sgvb.FamilyLognormal}}
	for _, s := range fits {
		got := fitSummary(t, mpath, []string{dpath}, s)
		for k, want := range []float64{2, 9} {
			r := got[fmt.Sprintf("lambda[%d]", k+1)]
			t.Logf("seed %d %v: lambda[%d] mean %.3f sd %.3f", s.Seed, s.Family, k+1, r.mean, r.sd)
			if !(math.Abs(r.mean-want) < 4*r.sd) {
				t.Errorf("seed %d %v: lambda[%d] = %.3f ± %.3f, want near %v", s.Seed, s.Family, k+1, r.mean, r.sd, want)
			}
		}
		if lo, hi := got["lambda[1]"].mean, got["lambda[2]"].mean; !(0 < lo && lo < hi) {
			t.Errorf("seed %d %v: rates %v, %v are not positive and increasing", s.Seed, s.Family, lo, hi)
		}
	}
}
