package pipeline_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// llModel is a local-level model (random walk plus noise), centred: the
// level is a random walk with sd sigma_lvl from a N(0, 10²) start, seen
// with N(0, sigma_obs²) noise.
const llModel = `data y: real[T]
param sigma_lvl: positive ~ HalfNormal(1)
param sigma_obs: positive ~ HalfNormal(1)
param level: real[T]
level[0] ~ Normal(0, 10)
level[1:] ~ Normal(level[:T-1], sigma_lvl)
y ~ Normal(level, sigma_obs)
`

// llSim simulates n observations of llModel's process with level sd sl
// and noise sd so, from one PCG stream seeded (seed, 29), the level
// starting at 0.
func llSim(n int, sl, so float64, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 29))
	y := make([]float64, n)
	lv := 0.0
	for t := range y {
		if t > 0 {
			lv += sl * rng.NormFloat64()
		}
		y[t] = lv + so*rng.NormFloat64()
	}
	return y
}

// llLogLik returns log p(y | sl, so) of llModel with the level integrated
// out by the Kalman filter.
func llLogLik(y []float64, sl, so float64) float64 {
	m, p := 0.0, 100.0 // level[0] ~ N(0, 10²)
	ll := 0.0
	for t, v := range y {
		if t > 0 {
			p += sl * sl
		}
		s := p + so*so
		e := v - m
		ll += -0.5*math.Log(2*math.Pi*s) - 0.5*e*e/s
		k := p / s
		m += k * e
		p *= 1 - k
	}
	return ll
}

// llPosterior returns the posterior mean and sd of sigma_lvl under
// llModel given y (llPosteriors).
func llPosterior(y []float64) (mean, sd float64) {
	p := llPosteriors(y)
	return p[0][0], p[0][1]
}

// llPosteriors returns the posterior mean and sd of sigma_lvl and of
// sigma_obs under llModel given y: the Kalman-filter likelihood times the
// HalfNormal(1) priors on a grid of llGrid² points over (0, 2]² of
// (sigma_lvl, sigma_obs), by the midpoint rule.
func llPosteriors(y []float64) [2][2]float64 {
	const llGrid, hi = 400, 2.0
	h := hi / llGrid
	lw := make([]float64, 0, llGrid*llGrid)
	at := make([][2]float64, 0, llGrid*llGrid)
	mx := math.Inf(-1)
	for i := range llGrid {
		sl := (float64(i) + 0.5) * h
		for j := range llGrid {
			so := (float64(j) + 0.5) * h
			w := llLogLik(y, sl, so) - 0.5*sl*sl - 0.5*so*so
			lw, at = append(lw, w), append(at, [2]float64{sl, so})
			mx = math.Max(mx, w)
		}
	}
	var z float64
	var m1, m2 [2]float64
	for k, w := range lw {
		e := math.Exp(w - mx)
		z += e
		for c := range 2 {
			m1[c] += e * at[k][c]
			m2[c] += e * at[k][c] * at[k][c]
		}
	}
	var out [2][2]float64
	for c := range 2 {
		m := m1[c] / z
		out[c] = [2]float64{m, math.Sqrt(m2[c]/z - m*m)}
	}
	return out
}

// TestLocalLevelBanded fits llModel (T = 100, simulated with level sd 0.3
// and noise sd 0.8) with mean-field q, one low-rank factor over every
// param (--fullrank all --rank 5) and a band-1 factor over the level
// (--fullrank level --band 1), seeds 1–3, and compares q's mean of
// sigma_lvl with the exact posterior (llPosterior). The banded factor
// holds the states' exact conditional posterior family; the funnel
// between sigma_lvl and the states' spread it cannot hold (sigma_lvl
// stays mean-field).
func TestLocalLevelBanded(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	const n = 100
	for _, series := range []uint64{7, 1} {
		y := llSim(n, 0.3, 0.8, series)
		pm, ps := llPosterior(y)
		t.Logf("series %d: posterior sigma_lvl %.3f ± %.3f", series, pm, ps)
		l, err := pipeline.ParseSource("ll.gpp", []byte(llModel), nil)
		if err != nil {
			t.Fatal(err)
		}
		in := data.Input{File: "ll.json", JSON: map[string]*data.Array{"y": {Name: "y", Shape: []int{n}, Values: y}}}
		if err := l.Bind([]data.Input{in}, nil); err != nil {
			t.Fatal(err)
		}
		worst, best := map[string]float64{}, map[string]float64{}
		elbo := map[string]float64{}
		for _, c := range llConfigs {
			best[c.name] = math.Inf(1)
			elbo[c.name] = math.Inf(1)
			for seed := uint64(1); seed <= 3; seed++ {
				s := sgvb.Settings{Seed: seed}
				c.set(&s)
				res, err := sgvb.Fit(context.Background(), pipeline.Target{M: l.Model}, pipeline.Latents(l.Model), s)
				if err != nil {
					t.Fatal(err)
				}
				f := res.Factor("sigma_lvl")
				m, sd := f.Mean()[0], f.SD()[0]
				z := math.Abs(m-pm) / ps
				worst[c.name], best[c.name] = math.Max(worst[c.name], z), math.Min(best[c.name], z)
				elbo[c.name] = math.Min(elbo[c.name], res.ELBO)
				t.Logf("series %d, %s, seed %d: sigma_lvl %.3f ± %.3f (%.1f posterior sds off), ELBO %.2f, %d iterations", series, c.name, seed, m, sd, z, res.ELBO, res.Iterations)
			}
		}
		// Measured (series 7, 1; seeds 1–3): banded 0.1 and 0.7–1.0 posterior
		// sds off, ELBO −147.6 and −146.8 at worst; mean-field and low-rank
		// 3.7–4.3 and 6.9–7.8 sds off, ELBO 10 and 14.5 nats lower.
		b := "--fullrank level --band 1"
		if !(worst[b] < 1.5) {
			t.Errorf("series %d: banded sigma_lvl up to %.1f posterior sds off, want < 1.5", series, worst[b])
		}
		for _, o := range []string{"mean-field", "--fullrank all --rank 5"} {
			if !(best[o] > 2*worst[b]) || !(elbo[b] > elbo[o]+5) {
				t.Errorf("series %d: %s at best %.1f sds off (ELBO ≥ %.2f), banded at worst %.1f (ELBO ≥ %.2f)", series, o, best[o], elbo[o], worst[b], elbo[b])
			}
		}
	}
}

// llConfigs are the fits TestLocalLevelBanded compares.
var llConfigs = []struct {
	name string
	set  func(*sgvb.Settings)
}{
	{"mean-field", func(*sgvb.Settings) {}},
	{"--fullrank all --rank 5", func(s *sgvb.Settings) {
		s.FullRankGroups, s.Rank = [][]string{{"sigma_lvl", "sigma_obs", "level"}}, 5
	}},
	{"--fullrank level --band 1", func(s *sgvb.Settings) {
		s.FullRankGroups, s.Band = [][]string{{"level"}}, 1
	}},
}

// TestLocalLevelArrowhead fits llModel on the series of
// TestLocalLevelBanded with a band-1 factor over the level alone (the
// sigmas mean-field) and with the arrowhead level+sigma_lvl+sigma_obs
// (band 1 among the states, the sigmas' rows of L dense), seeds 1–3, and
// compares q's means and sds of both sigmas with the exact posterior
// (llPosteriors). The arrowhead holds the linear dependence of the states
// on log sigma, not the funnel (the states' spread scales with
// sigma_lvl), and measured its sds are only a little larger (series 7:
// sigma_lvl ± 0.031–0.032 against the band's 0.026, the exact 0.080;
// series 1 no larger), its ELBO 0.1–0.2 nats higher. So the test asserts
// that it is no worse: both sigmas' means within 2 posterior sds (worst
// measured 1.4) and the best ELBO over the seeds at most 0.5 nats below
// the band's alone (measured 0.1–0.2 above).
func TestLocalLevelArrowhead(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	const n = 100
	cfgs := []struct {
		name string
		grp  []string
	}{{"--fullrank level --band 1", []string{"level"}}, {"--fullrank level+sigma_lvl+sigma_obs --band 1", []string{"level", "sigma_lvl", "sigma_obs"}}}
	for _, series := range []uint64{7, 1} {
		y := llSim(n, 0.3, 0.8, series)
		post := llPosteriors(y)
		t.Logf("series %d: posterior sigma_lvl %.3f ± %.3f, sigma_obs %.3f ± %.3f", series, post[0][0], post[0][1], post[1][0], post[1][1])
		l, err := pipeline.ParseSource("ll.gpp", []byte(llModel), nil)
		if err != nil {
			t.Fatal(err)
		}
		in := data.Input{File: "ll.json", JSON: map[string]*data.Array{"y": {Name: "y", Shape: []int{n}, Values: y}}}
		if err := l.Bind([]data.Input{in}, nil); err != nil {
			t.Fatal(err)
		}
		// sdRatio[c] is the smallest q sd / posterior sd of either sigma
		// over the seeds; off[c] the largest |q mean − posterior mean| in
		// posterior sds.
		sdRatio, off, elbo := map[string]float64{}, map[string]float64{}, map[string]float64{}
		for _, c := range cfgs {
			sdRatio[c.name], elbo[c.name] = math.Inf(1), math.Inf(-1)
			for seed := uint64(1); seed <= 3; seed++ {
				s := sgvb.Settings{Seed: seed, FullRankGroups: [][]string{c.grp}, Band: 1}
				res, err := sgvb.Fit(context.Background(), pipeline.Target{M: l.Model}, pipeline.Latents(l.Model), s)
				if err != nil {
					t.Fatal(err)
				}
				line := ""
				for k, name := range []string{"sigma_lvl", "sigma_obs"} {
					f := res.Factor(name)
					m, sd := f.Mean()[0], f.SD()[0]
					sdRatio[c.name] = math.Min(sdRatio[c.name], sd/post[k][1])
					off[c.name] = math.Max(off[c.name], math.Abs(m-post[k][0])/post[k][1])
					line += fmt.Sprintf(", %s %.3f ± %.3f", name, m, sd)
				}
				elbo[c.name] = math.Max(elbo[c.name], res.ELBO)
				t.Logf("series %d, %s, seed %d%s, ELBO %.2f, %d iterations", series, c.name, seed, line, res.ELBO, res.Iterations)
			}
			t.Logf("series %d, %s: sds at least %.2f of the posterior's, means at most %.2f posterior sds off", series, c.name, sdRatio[c.name], off[c.name])
		}
		a, b := cfgs[1].name, cfgs[0].name
		if !(off[a] < 2) {
			t.Errorf("series %d: arrowhead sigmas up to %.2f posterior sds off, want < 2", series, off[a])
		}
		if !(elbo[a] > elbo[b]-0.5) {
			t.Errorf("series %d: arrowhead best ELBO %.2f, band alone %.2f", series, elbo[a], elbo[b])
		}
	}
}
