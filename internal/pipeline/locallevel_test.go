package pipeline_test

import (
	"context"
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
// llModel given y: the Kalman-filter likelihood times the HalfNormal(1)
// priors on a grid of llGrid² points over (0, 2]² of (sigma_lvl,
// sigma_obs), by the midpoint rule.
func llPosterior(y []float64) (mean, sd float64) {
	const llGrid, hi = 400, 2.0
	h := hi / llGrid
	lw := make([]float64, 0, llGrid*llGrid)
	sls := make([]float64, 0, llGrid*llGrid)
	mx := math.Inf(-1)
	for i := range llGrid {
		sl := (float64(i) + 0.5) * h
		for j := range llGrid {
			so := (float64(j) + 0.5) * h
			w := llLogLik(y, sl, so) - 0.5*sl*sl - 0.5*so*so
			lw, sls = append(lw, w), append(sls, sl)
			mx = math.Max(mx, w)
		}
	}
	var z, m1, m2 float64
	for k, w := range lw {
		e := math.Exp(w - mx)
		z += e
		m1 += e * sls[k]
		m2 += e * sls[k] * sls[k]
	}
	mean = m1 / z
	return mean, math.Sqrt(m2/z - mean*mean)
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
