package pipeline_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
)

// TestGumbelLogisticFit fits Gumbel(mu, beta) and Logistic(mu, sigma)
// location and scale to 300 points simulated from each (one PCG stream
// seeded (2026, 17)) and checks the posterior means against the truth
// within 3 posterior sds.
func TestGumbelLogisticFit(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	const (
		n           = 300
		mu, scale   = 1.5, 0.8
		sdFromTruth = 3
	)
	rng := rand.New(rand.NewPCG(2026, 17))
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		draw func() float64
	}{
		{"Gumbel", func() float64 { return dist.Gumbel{Mu: mu, Beta: scale}.Rand(rng) }},
		{"Logistic", func() float64 { return dist.Logistic{Mu: mu, Sigma: scale}.Rand(rng) }},
	} {
		var b bytes.Buffer
		b.WriteString("y\n")
		for range n {
			fmt.Fprintf(&b, "%.17g\n", c.draw())
		}
		dpath, mpath := dir+"/"+c.name+".csv", dir+"/"+c.name+".gpp"
		src := "data y: real[N]\nparam mu: real ~ Normal(0, 5)\nparam s: positive ~ HalfNormal(2)\ny ~ " + c.name + "(mu, s)\n"
		if err := os.WriteFile(dpath, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(mpath, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		fit := fitSummary(t, mpath, []string{dpath}, sgvb.Settings{Seed: 1})
		for name, want := range map[string]float64{"mu": mu, "s": scale} {
			r := fit[name]
			t.Logf("%s %s: mean %.3f sd %.3f (truth %g)", c.name, name, r.mean, r.sd, want)
			if !(math.Abs(r.mean-want) < sdFromTruth*r.sd) {
				t.Errorf("%s %s: posterior mean %.3f is more than %v sds (%.3f) from the truth %g", c.name, name, r.mean, float64(sdFromTruth), r.sd, want)
			}
		}
	}
}
