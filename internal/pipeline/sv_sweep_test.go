package pipeline_test

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// svModelTanh is svModel with phi = tanh(a) for an unconstrained a, whose
// density (1 − tanh²a)/2 is phi's Uniform(−1, 1) prior carried over: a is
// real, so it can join a full-rank or low-rank group with mu, sigma and z,
// which the unit-support phi of svModel cannot.
const svModelTanh = `data y: real[T]
param mu: real ~ Normal(0, 10)
param a: real
param sigma: positive ~ HalfNormal(1)
param z: real[T] ~ Normal(0, 1)
let phi = tanh(a)
target += log1m(phi * phi)
let h = mu + ar_filter(phi, sigma * append_row(z[0] / sqrt(1 - phi * phi), z[1:]))
y ~ Normal(0, exp(h / 2))
`

var (
	svSweep = flag.String("sv-sweep", "", "fit the SV models under the named configurations of svSweepConfigs (comma-separated; all: every one) for seeds 1 to -sv-seeds on svSweepSeries and log a table")
	svSeeds = flag.Int("sv-seeds", 5, "seeds of -sv-sweep")
	svSeed0 = flag.Int("sv-seed0", 1, "first seed of -sv-sweep")
	svOnly  = flag.String("sv-series", "", "-sv-sweep's series (names of svSweepSeries, comma-separated); empty: all")
)

// svSweepConfigs are -sv-sweep's configurations: the model (svModelTanh
// if tanh), the settings and the number of restarts.
var svSweepConfigs = []struct {
	name string
	tanh bool
	set  func(*sgvb.Settings)
	rest int
}{
	{"default", false, func(*sgvb.Settings) {}, 1},
	{"draws4", false, func(s *sgvb.Settings) { s.DrawsPerStep = 4 }, 1},
	{"draws16", false, func(s *sgvb.Settings) { s.DrawsPerStep = 16 }, 1},
	{"restarts4", false, func(*sgvb.Settings) {}, 4},
	// what --fullrank all --rank 2 did with svModel before bounded params
	// joined groups: phi keeps its beta factor
	{"lr-nophi2", false, func(s *sgvb.Settings) { s.FullRankGroups = [][]string{{"mu", "sigma", "z"}}; s.Rank = 2 }, 1},
	// what it does now: phi joins on its logit (docs/inference.md, bounded-rank2)
	{"rank2", false, func(s *sgvb.Settings) { s.FullRankGroups = [][]string{{"mu", "phi", "sigma", "z"}}; s.Rank = 2 }, 1},
	{"t-default", true, func(*sgvb.Settings) {}, 1},
	{"t-globals", true, func(s *sgvb.Settings) { s.FullRankGroups = [][]string{{"mu", "a", "sigma"}} }, 1},
	{"t-rank1", true, func(s *sgvb.Settings) { s.FullRankGroups = [][]string{{"mu", "a", "sigma", "z"}}; s.Rank = 1 }, 1},
	{"t-rank2", true, func(s *sgvb.Settings) { s.FullRankGroups = [][]string{{"mu", "a", "sigma", "z"}}; s.Rank = 2 }, 1},
	{"t-rank5", true, func(s *sgvb.Settings) { s.FullRankGroups = [][]string{{"mu", "a", "sigma", "z"}}; s.Rank = 5 }, 1},
	{"t-rank10", true, func(s *sgvb.Settings) { s.FullRankGroups = [][]string{{"mu", "a", "sigma", "z"}}; s.Rank = 10 }, 1},
	{"t-rank2-draws4", true, func(s *sgvb.Settings) {
		s.FullRankGroups = [][]string{{"mu", "a", "sigma", "z"}}
		s.Rank, s.DrawsPerStep = 2, 4
	}, 1},
	{"t-rank5-restarts4", true, func(s *sgvb.Settings) { s.FullRankGroups = [][]string{{"mu", "a", "sigma", "z"}}; s.Rank = 5 }, 4},
}

type svSeriesSpec struct {
	name           string
	n              int
	mu, phi, sigma float64
	seed           uint64
}

// svSweepSeries are -sv-sweep's series: svSim's arguments. Their
// posteriors (TestSVReference with -sv-reference-series): A is svPosterior;
// B mu 0.178 ± 0.116, phi 0.555 ± 0.507, sigma 0.318 ± 0.123; C mu
// −0.979 ± 1.090, phi 0.989 ± 0.009, sigma 0.165 ± 0.046.
var svSweepSeries = []svSeriesSpec{
	{"A", svN, svMu, svPhi, svSigma, 1},
	{"B", 500, 0, 0.9, 0.3, 2},
	{"C", 300, -1, 0.98, 0.15, 3},
}

// svSeries returns the series of svSweepSeries named name.
func svSeries(t *testing.T, name string) svSeriesSpec {
	for _, s := range svSweepSeries {
		if s.name == name {
			return s
		}
	}
	t.Fatalf("no series %q", name)
	return svSeriesSpec{}
}

// svMoments returns the means and sds of mu, phi and sigma under q (a
// Result or a Mixture's components, equally weighted) from 4000 draws:
// phi is the param phi, or tanh(a).
func svMoments(comps []*sgvb.Result, seed uint64) (mean, sd [3]float64) {
	r0 := comps[0]
	off := func(name string) int {
		if f := r0.Factor(name); f != nil {
			return f.Offset
		}
		return -1
	}
	iMu, iPhi, iA, iSigma := off("mu"), off("phi"), off("a"), off("sigma")
	rng := rand.New(rand.NewPCG(seed, 77))
	x, z := make([]float64, r0.Dim), make([]float64, r0.Dim)
	const draws = 4000
	var s, s2 [3]float64
	for d := range draws {
		r := comps[d%len(comps)]
		r.SampleCoords(rng, x)
		r.Natural(z, x)
		v := [3]float64{z[iMu], 0, z[iSigma]}
		if iPhi >= 0 {
			v[1] = z[iPhi]
		} else {
			v[1] = math.Tanh(z[iA])
		}
		for k := range v {
			s[k] += v[k]
			s2[k] += v[k] * v[k]
		}
	}
	for k := range s {
		mean[k] = s[k] / draws
		sd[k] = math.Sqrt(max(s2[k]/draws-mean[k]*mean[k], 0))
	}
	return mean, sd
}

// TestSVSweep (-sv-sweep) fits the SV models to svSweepSeries under
// svSweepConfigs and logs q's ELBO and the means and sds of mu, phi and
// sigma, for docs/inference.md's table.
func TestSVSweep(t *testing.T) {
	if *svSweep == "" {
		t.Skip("-sv-sweep fits svModel under several configurations")
	}
	want := map[string]bool{}
	for _, n := range strings.Split(*svSweep, ",") {
		want[n] = true
	}
	for _, ser := range svSweepSeries {
		if *svOnly != "" && !strings.Contains(","+*svOnly+",", ","+ser.name+",") {
			continue
		}
		y := svSim(ser.n, ser.mu, ser.phi, ser.sigma, ser.seed)
		for _, c := range svSweepConfigs {
			if !want["all"] && !want[c.name] {
				continue
			}
			src := svModel
			if c.tanh {
				src = svModelTanh
			}
			l, err := pipeline.ParseSource("sv.gpp", []byte(src), nil)
			if err != nil {
				t.Fatal(err)
			}
			in := data.Input{File: "sv.json", JSON: map[string]*data.Array{"y": {Name: "y", Shape: []int{ser.n}, Values: y}}}
			if err := l.Bind([]data.Input{in}, nil); err != nil {
				t.Fatal(err)
			}
			for seed := uint64(*svSeed0); seed < uint64(*svSeed0+*svSeeds); seed++ {
				s := sgvb.Settings{Seed: seed}
				c.set(&s)
				var comps []*sgvb.Result
				var line string
				if c.rest > 1 {
					mix, err := sgvb.FitRestarts(context.Background(), pipeline.Target{M: l.Model}, pipeline.Latents(l.Model), s, sgvb.Restarts{N: c.rest})
					if err != nil {
						t.Logf("%s %s seed %d: %v", ser.name, c.name, seed, err)
						continue
					}
					comps = mix.Components
					var els []string
					for _, r := range comps {
						els = append(els, fmt.Sprintf("%.1f", r.ELBO))
					}
					line = fmt.Sprintf("ELBO %8.2f [%s] %.1fs", mix.ELBO, strings.Join(els, " "), mix.Seconds)
				} else {
					res, err := sgvb.Fit(context.Background(), pipeline.Target{M: l.Model}, pipeline.Latents(l.Model), s)
					if err != nil {
						t.Logf("%s %s seed %d: %v", ser.name, c.name, seed, err)
						continue
					}
					comps = []*sgvb.Result{res}
					line = fmt.Sprintf("ELBO %8.2f ± %.2f it %5d conv %v k %.2f %.1fs", res.ELBO, res.ELBOSE, res.Iterations, res.Converged, res.ParetoK, res.Seconds)
					if f := res.Factor("sigma"); f.Family == sgvb.FamilyGamma {
						line += fmt.Sprintf(" sigma shape %.3g", f.Params[0][0])
					}
				}
				m, sd := svMoments(comps, seed)
				t.Logf("%s %-18s %2d mu %7.3f ± %.3f phi %6.3f ± %.3f sigma %.3f ± %.3f %s", ser.name, c.name, seed, m[0], sd[0], m[1], sd[1], m[2], sd[2], line)
			}
		}
	}
}
