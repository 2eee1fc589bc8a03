package epm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// NUTS is the No-U-Turn sampler (infer/nuts, gpp sample's engine) on the
// unconstrained coordinates of examples/epm.gpp (sgvb.NewUnconstrained):
// the paper's "HMC" baseline, done as Stan does it. It predicts by the mean
// of p_unknown over the kept draws of all chains. It is not in AllMethods:
// a split costs minutes, so RunNUTS (gpp-experiments epm-nuts) runs it
// apart from Run.
const NUTS Method = "nuts"

// NUTSSettings are the sampler's settings for the EPM; zero fields take
// DefaultNUTSSettings' values, the sampler's own defaults for the rest.
type NUTSSettings struct {
	Chains, Warmup, Draws int
	Delta                 float64 // target acceptance statistic; 0: Stan's 0.8
	MaxDepth              int     // 0: Stan's 10
	// Workers run the chains; 0: 1 (results do not depend on it).
	Workers int
	// Progress, when not nil, is nuts.Settings.Progress.
	Progress func(chain, iter int, warmup bool)
}

// DefaultNUTSSettings are the settings of the full run of RunNUTS: Stan's
// defaults (diag_e metric adapted in Stan's windows, adapt_delta 0.8, tree
// depth 10) with 4 chains of 200 warm-up and 100 kept iterations, cut to a
// budget of a few minutes a split on one core at K = 10 (2820 latents).
// Timing (2026-11-29, loaded 2-core machine): one chain of 60 + 20
// iterations on split 0's training data took 44 ms an iteration at its
// early step size (127 leapfrog steps); a first attempt at 4 × (400 + 300)
// had not finished split 0 after 5.5 minutes; once adapted an iteration
// takes about 0.15 s (540–800 leapfrog steps, a fifth to a half of the
// iterations at the maximum depth 10). 4 × 300 iterations took 2.3–8.7
// minutes a split in the full run (docs/results/epm_nuts.md); Stan's
// 4 × 2000 would take about an hour.
func DefaultNUTSSettings() NUTSSettings {
	return NUTSSettings{Chains: 4, Warmup: 200, Draws: 100}
}

func (s NUTSSettings) withDefaults() NUTSSettings {
	d := DefaultNUTSSettings()
	if s.Chains <= 0 {
		s.Chains = d.Chains
	}
	if s.Warmup <= 0 {
		s.Warmup = d.Warmup
	}
	if s.Draws <= 0 {
		s.Draws = d.Draws
	}
	if s.Delta == 0 {
		s.Delta = nuts.DefaultDelta
	}
	if s.MaxDepth <= 0 {
		s.MaxDepth = nuts.DefaultMaxDepth
	}
	if s.Workers <= 0 {
		s.Workers = 1
	}
	return s
}

// nutsInitStream seeds chain c's random start (stream nutsInitStream + c),
// apart from the sampler's own streams.
const nutsInitStream = 0x65706d6e75747300

// NUTSResult is one NUTS run and its predictions.
type NUTSResult struct {
	P       []float64 // posterior mean of p_unknown over all kept draws, one per missing pair
	Seconds float64   // wall time of the starts, the sampling and the predictions
	// Divergent counts the divergent transitions after warm-up over all
	// chains, MaxDepth the iterations that hit the maximum tree depth.
	Divergent, MaxDepth int
	// Draws are the kept draws of all chains.
	Draws int
	// RhatLatents is the largest rank-normalised split R̂ over every
	// latent element, RhatR over the rates r, RhatP over the outputs
	// p_unknown of the missing pairs and RhatLP that of lp__. The
	// latents' R̂ is not invariant to the relabelling of communities;
	// p_unknown's is.
	RhatLatents, RhatR, RhatP, RhatLP float64
	// MinESSP is the smallest bulk ESS over p_unknown, NaNs left out
	// (NaN if every one is).
	MinESSP float64
	// StepSize is the mean over chains of the adapted step size,
	// MeanLeapfrogs the mean leapfrog steps per kept iteration.
	StepSize, MeanLeapfrogs float64
	Dropped                 int // kept draws whose p_unknown failed to evaluate (left out of P)
	Result                  *nuts.Result
}

// SampleNUTS samples the posterior of the model for K communities, trained
// on train with the missing pairs held out, by NUTS from Stan's random
// starts (each unconstrained coordinate uniform on (−2, 2), chain c from
// stream nutsInitStream + c of seed), and predicts p_unknown by its mean
// over the kept draws. The same seed gives the same draws.
func (m *Model) SampleNUTS(ctx context.Context, k, n int, train, missing []Pair, ns NUTSSettings, seed uint64) (*NUTSResult, error) {
	ns = ns.withDefaults()
	l, err := m.Load(k, n, train, missing)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	lat := pipeline.Latents(l.Model)
	u, err := sgvb.NewUnconstrained(pipeline.Target{M: l.Model}, lat)
	if err != nil {
		return nil, err
	}
	s := nuts.Settings{Chains: ns.Chains, Warmup: ns.Warmup, Draws: ns.Draws, Delta: ns.Delta,
		MaxDepth: ns.MaxDepth, Metric: nuts.DiagE, Seed: seed, Workers: ns.Workers, Progress: ns.Progress}
	dens := make([]nuts.Density, s.Chains)
	inits := make([][]float64, s.Chains)
	for c := range dens {
		d := u.Clone()
		dens[c], inits[c] = d, make([]float64, u.Dim())
		if err := d.Init(rand.New(rand.NewPCG(seed, nutsInitStream+uint64(c))), inits[c]); err != nil {
			return nil, fmt.Errorf("%s K=%d chain %d: %w", NUTS, k, c, err)
		}
	}
	res, err := nuts.Sample(ctx, dens, inits, s)
	if err != nil {
		return nil, fmt.Errorf("%s K=%d: %w", NUTS, k, err)
	}
	if res.Interrupted {
		return nil, ctx.Err()
	}
	nr := &NUTSResult{Result: res}
	if err := nr.summarise(l, u, lat, res, ns.MaxDepth); err != nil {
		return nil, err
	}
	nr.Seconds = time.Since(start).Seconds()
	return nr, nil
}

// summarise evaluates p_unknown at every kept draw and fills the
// predictions and the diagnostics.
func (nr *NUTSResult) summarise(l *pipeline.Loaded, u *sgvb.Unconstrained, lat []sgvb.Latent, res *nuts.Result, maxDepth int) error {
	ev, err := l.Model.NewEvaluator()
	if err != nil {
		return err
	}
	out := -1
	for i, o := range l.Model.Outputs {
		if o.Name == "p_unknown" {
			out = i
		}
	}
	if out < 0 {
		return errors.New("epm: the model has no output p_unknown")
	}
	nc := len(res.Chains)
	nd := len(res.Chains[0].LogP)
	size := 1
	for _, e := range l.Model.Outputs[out].Shape {
		size *= e
	}
	// pc[c][i*nd+d]: p_unknown element i, chain c, draw d
	pc := make([][]float64, nc)
	for c := range pc {
		pc[c] = make([]float64, size*nd)
	}
	sumP := make([]float64, size)
	good := 0
	x := make([]float64, u.TargetDim())
	var steps float64
	for c, ch := range res.Chains {
		nr.StepSize += ch.StepSize / float64(nc)
		for d := range nd {
			if ch.Divergent[d] {
				nr.Divergent++
			}
			if ch.Depth[d] >= maxDepth {
				nr.MaxDepth++
			}
			steps += float64(ch.Leapfrogs[d])
			u.Coords(ch.Draws[d*res.Dim:(d+1)*res.Dim], x)
			_, vals, err := ev.Eval(x)
			if err == nil {
				err = ev.OutputErr()
			}
			if err != nil {
				// left out of P; NaN in the R̂ columns
				nr.Dropped++
				for i := range sumP {
					pc[c][i*nd+d] = math.NaN()
				}
				continue
			}
			for i, v := range vals[out] {
				pc[c][i*nd+d] = v
				sumP[i] += v
			}
			good++
		}
	}
	nr.Draws = nc * nd
	nr.MeanLeapfrogs = steps / float64(nr.Draws)
	if good == 0 {
		return errors.New("epm: p_unknown failed at every NUTS draw")
	}
	nr.P = sumP
	for i := range nr.P {
		nr.P[i] /= float64(good)
	}
	chains := make([][]float64, nc)
	nr.MinESSP = math.NaN()
	for i := range sumP {
		for c := range chains {
			chains[c] = pc[c][i*nd : (i+1)*nd]
		}
		nr.RhatP = maxNaN(nr.RhatP, nuts.Rhat(chains))
		if e := nuts.ESSBulk(chains); !math.IsNaN(e) && !(e >= nr.MinESSP) {
			nr.MinESSP = e
		}
	}
	// col gathers coordinate j's draws into buffers reused across j
	// (nuts.Rhat keeps no reference to them).
	buf := make([][]float64, nc)
	for c := range buf {
		buf[c] = make([]float64, nd)
	}
	col := func(j int) [][]float64 {
		for c, v := range buf {
			for d := range v {
				v[d] = res.Chains[c].Draws[d*res.Dim+j]
			}
		}
		return buf
	}
	// The EPM's latents are all positive: u's coordinate j is the log of
	// the latent element at the Target's offset j.
	for _, lt := range lat {
		for j := lt.Offset; j < lt.Offset+lt.Size; j++ {
			r := nuts.Rhat(col(j))
			nr.RhatLatents = maxNaN(nr.RhatLatents, r)
			if lt.Name == "r" {
				nr.RhatR = maxNaN(nr.RhatR, r)
			}
		}
	}
	for c := range chains {
		chains[c] = res.Chains[c].LogP
	}
	nr.RhatLP = nuts.Rhat(chains)
	return nil
}

// maxNaN is max with a NaN (R̂ of a constant column) ignored.
func maxNaN(a, b float64) float64 {
	if math.IsNaN(b) {
		return a
	}
	return max(a, b)
}
