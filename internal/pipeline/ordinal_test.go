package pipeline_test

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
)

var updateOrdinal = flag.Bool("update-ordinal", false, "rewrite examples/ordinal.csv from its generator")

// The truth examples/ordinal.csv is simulated from.
var (
	ordinalBeta = 1.5
	ordinalCuts = []float64{-1, 0.5, 2}
)

const ordinalCSV = "../../examples/ordinal.csv"

// ordinalData simulates examples/ordinal.csv: n observations with x ~
// N(0, 1) (written with 5 decimals) and y the number of cutpoints below
// y* = beta·x + e, e standard logistic (inverse CDF of a uniform), from
// one PCG stream seeded (2026, 11).
func ordinalData(n int) []byte {
	rng := rand.New(rand.NewPCG(2026, 11))
	var b bytes.Buffer
	b.WriteString("x,y\n")
	for range n {
		x := math.Round(rng.NormFloat64()*1e5) / 1e5
		u := rng.Float64()
		ystar := ordinalBeta*x + math.Log(u/(1-u))
		y := 0
		for _, c := range ordinalCuts {
			if ystar > c {
				y++
			}
		}
		fmt.Fprintf(&b, "%.5f,%d\n", x, y)
	}
	return b.Bytes()
}

// TestOrdinalData checks that examples/ordinal.csv is what its generator
// writes (go test ./internal/pipeline -run OrdinalData -update-ordinal
// rewrites it).
func TestOrdinalData(t *testing.T) {
	checkGenerated(t, ordinalCSV, ordinalData(200), *updateOrdinal, "update-ordinal")
}

// TestOrdinalExample fits examples/ordinal.gpp with the defaults and checks
// the posterior means of beta and the cutpoints against the truth they were
// simulated from, within 3 posterior sds, and against a MAP fit (the mode,
// which for 200 observations is within a fraction of a posterior sd of the
// mean). Every draw of c is increasing.
func TestOrdinalExample(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	args := []string{ordinalCSV}
	got := fitSummary(t, "../../examples/ordinal.gpp", args, sgvb.Settings{Seed: 1})
	mp := fitSummary(t, "../../examples/ordinal.gpp", args, sgvb.Settings{Seed: 1, Method: sgvb.MAP})
	truth := map[string]float64{"beta": ordinalBeta}
	for k, c := range ordinalCuts {
		truth[fmt.Sprintf("c[%d]", k+1)] = c
	}
	for name, want := range truth {
		r := got[name]
		t.Logf("%s: mean %.3f sd %.3f (truth %.2f, MAP %.3f)", name, r.mean, r.sd, want, mp[name].mean)
		if !(math.Abs(r.mean-want) < 3*r.sd) {
			t.Errorf("%s: posterior mean %.3f is more than 3 sds (%.3f) from the truth %.2f", name, r.mean, r.sd, want)
		}
		if !(math.Abs(r.mean-mp[name].mean) < 0.5*r.sd) {
			t.Errorf("%s: posterior mean %.3f is more than half an sd (%.3f) from the MAP %.3f", name, r.mean, r.sd, mp[name].mean)
		}
	}
	if !(got["c[1]"].mean < got["c[2]"].mean && got["c[2]"].mean < got["c[3]"].mean) {
		t.Errorf("the cutpoints' means are not increasing: %v %v %v", got["c[1]"].mean, got["c[2]"].mean, got["c[3]"].mean)
	}
}

// TestOrderedMixture shows an ordered mean identifying a two-component
// normal mixture: with `param mu: ordered[2]` the labels cannot switch, so
// every seed gives the low component as mu[1] and the high one as mu[2],
// each near the mean it was simulated with (−3 and 3, 150 draws each with
// sd 1, weight 1/2), within 4 posterior sds. (With the means at ±2, seed 3
// stopped at the local optimum where one wide component takes every
// observation, ELBO −671 against −617: a mode, not a label switch.)
func TestOrderedMixture(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	const model = `data y: real[N]
param w: simplex[2] ~ Dirichlet(2)
param mu: ordered[2] ~ Normal(0, 5)
param sigma: positive[2] ~ Gamma(2, 2)
target += sum(rowlogsumexp(log(w)' + logpdf(y, Normal(mu', sigma'))))
`
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(2026, 12))
	var b bytes.Buffer
	b.WriteString("y\n")
	for i := range 300 {
		m := -3.0
		if i%2 == 1 {
			m = 3
		}
		fmt.Fprintf(&b, "%.5f\n", m+rng.NormFloat64())
	}
	mpath, dpath := dir+"/mix.gpp", dir+"/mix.csv"
	if err := os.WriteFile(mpath, []byte(model), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dpath, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, seed := range []uint64{1, 2, 3} {
		got := fitSummary(t, mpath, []string{dpath}, sgvb.Settings{Seed: seed})
		for k, want := range []float64{-3, 3} {
			r := got[fmt.Sprintf("mu[%d]", k+1)]
			t.Logf("seed %d: mu[%d] mean %.3f sd %.3f", seed, k+1, r.mean, r.sd)
			if !(math.Abs(r.mean-want) < 4*r.sd) {
				t.Errorf("seed %d: mu[%d] = %.3f ± %.3f, want near %v", seed, k+1, r.mean, r.sd, want)
			}
		}
	}
}
