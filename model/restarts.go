package model

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// Restarts and resampling: gpp fit --restarts and --psis-resample, and
// --family pathfinder's default of both, in Go. FitRestarts fits the
// mixture, MixtureDraws and MixtureSummary draw from it as FitDraws and
// FitSummary draw from one fit, and Resample, ResampledDraws and
// ResampledSummary importance-resample the draws of a fit or a mixture.

// FitRestarts fits rs.N independent q's to the posterior as gpp fit
// --restarts N does with the same settings, and returns their
// equal-weight mixture (sgvb.FitRestarts): restart r with the seed
// sgvb.RestartSeed(s.Seed, r), restarts after the first from starts
// jittered by rs.Jitter (0: sgvb.DefaultJitter, gpp fit's --jitter 1; −1:
// gpp fit's --jitter 0, not jittered), each from rs.Inits[r] if given (gpp
// fit --init of a mixture's fit.json), or, with rs.Radius R > 0, from
// random starts as Stan's chains (gpp fit --init-radius R;
// sgvb.RandomStart), not with Inits. Restart 0 is Fit's fit of s, bit
// for bit. Inits starts every restart's locations at the params' values it
// names, as gpp fit --restarts --init FILE.json does. The mixture's ELBO
// and Pareto k̂ are gpp fit's; MixtureSummary gives its summary with the
// R̂ across the restarts. rs.Progress and rs.Done report each restart
// (the fits run side by side, rs.Parallel at once; the mixture does not
// depend on it). MAP and Laplace fits cannot be mixed and are errors.
//
// With s.Method sgvb.Pathfinder and rs.N 4 this is Stan's multi-path
// Pathfinder (num_paths = 4), gpp fit --family pathfinder's default, which
// then resamples the mixture's draws: Resample and ResampledSummary.
//
// A restart that fails is left out of the mixture with a warning
// (Mixture.Failed); if all fail the error is the first's
// *sgvb.RestartError, wrapping the model's positioned error as Fit
// returns it. Cancelling ctx stops every restart: FitRestarts returns the
// result so far, the q's reached (Mixture.Interrupted), with ctx's error
// wrapped (errors.Is(err, context.Canceled)).
func (m *Model) FitRestarts(ctx context.Context, s sgvb.Settings, rs sgvb.Restarts, opts ...StartOption) (*sgvb.Mixture, error) {
	if sc, err := startOptions("FitRestarts", opts); err == nil && sc.inits != nil && rs.Radius > 0 {
		return nil, fmt.Errorf("model: FitRestarts: Restarts.Radius draws the starts of restarts after the first, which Inits gives: give one of them")
	}
	cm, restore, err := m.fitStart("FitRestarts", opts)
	if err != nil {
		return nil, err
	}
	defer restore()
	mix, err := pipeline.FitRestarts(ctx, cm, pipeline.Target{M: cm}, s, rs)
	var re *sgvb.RestartError
	if errors.As(err, &re) {
		re.Err = pipeline.LaplacePos(re.Err, cm)
	}
	if mix != nil && mix.Interrupted {
		return mix, stopped(ctx, "FitRestarts", err)
	}
	return mix, err
}

// drawRestarts says which restart of a mixture each draw is from: draw d
// from restart comp[d] of R.
type drawRestarts struct {
	comp []int
	R    int
}

// MixtureDraws draws n times from the mixture mix of this model's
// restarts (from FitRestarts) and returns the params' values of each draw
// in ParamNames' order, as FitDraws does for one fit: draw d from restart
// d mod R (a stratified sample of the mixture), all from gpp fit's stream
// (sgvb.DrawStream of seed), so that with gpp fit --restarts's settings
// and seed row d is its draws.csv's draw d bit for bit (without
// --psis-resample). A mixture of another model, or a negative n, is an
// error.
func (m *Model) MixtureDraws(mix *sgvb.Mixture, n int, seed uint64) ([][]float64, error) {
	rows, _, err := m.mixtureDraws("MixtureDraws", mix, n, seed, nil)
	return rows, err
}

// mixtureDraws is MixtureDraws for the method fn, with at as fitDraws'; it
// also returns the restart of each draw.
func (m *Model) mixtureDraws(fn string, mix *sgvb.Mixture, n int, seed uint64, at func(x []float64)) ([][]float64, *drawRestarts, error) {
	if err := m.checkMixture(fn, mix); err != nil {
		return nil, nil, err
	}
	if n < 0 {
		return nil, nil, fmt.Errorf("model: %s: %d draws; want n ≥ 0", fn, n)
	}
	R := len(mix.Components)
	dr := &drawRestarts{comp: make([]int, n), R: R}
	draw := func(rng *rand.Rand, d int, x []float64) {
		dr.comp[d] = d % R
		mix.SampleCoords(rng, x, dr.comp[d])
	}
	return m.qDraws(mix.Components[0], mix.Mean(), n, seed, draw, at), dr, nil
}

// checkMixture reports a mixture that is nil, empty or not of this
// model's params.
func (m *Model) checkMixture(fn string, mix *sgvb.Mixture) error {
	if mix == nil || len(mix.Components) == 0 {
		return fmt.Errorf("model: %s: the mixture has no restarts", fn)
	}
	for _, c := range mix.Components {
		if c == nil {
			return fmt.Errorf("model: %s: the mixture has a nil restart", fn)
		}
		if err := m.checkFit(c); err != nil {
			return err
		}
	}
	return nil
}

// MixtureSummary summarises n draws from the mixture mix (MixtureDraws'
// rows, and the outputs at each, replicates drawn from OutputStream of
// seed) as gpp fit --restarts's summary.csv does: the mean, sd and
// quantiles of all the draws, and R̂ across the restarts
// (sgvb.RestartRhat, the column rhat of summary.csv and the R̂ of gpp
// fit's table): near 1 where the restarts found one q, large where they
// settled in different modes. The ESS and Monte Carlo errors are those
// of the draws as one chain, as FitSummary's.
func (m *Model) MixtureSummary(mix *sgvb.Mixture, n int, seed uint64, s *SummarySettings) (*Summary, error) {
	sum, err := newSummary(s)
	if err != nil {
		return nil, err
	}
	outs, at := m.outputsOf(seed)
	rows, dr, err := m.mixtureDraws("MixtureSummary", mix, n, seed, at)
	if err != nil {
		return nil, err
	}
	return m.summarise(sum, rows, *outs, 1, false, false, dr)
}

// outputsOf returns the outputs' rows that at collects, at each draw's
// coordinates x, with replicates drawn from OutputStream of seed (at nil
// for a model without outputs), as gpp fit's draws.csv draws them.
func (m *Model) outputsOf(seed uint64) (outs *[][]float64, at func(x []float64)) {
	outs = new([][]float64)
	if len(m.l.Model.Outputs) == 0 {
		return outs, nil
	}
	rng := rand.New(rand.NewPCG(seed, OutputStream))
	drawRng := rand.New(rand.NewPCG(seed, sgvb.LeftOutStream)) // a Predictor's left-out data
	return outs, func(x []float64) {
		y, _ := m.outputsAtDraw(x, rng, drawRng) // NaN where it failed, as draws.csv
		*outs = append(*outs, y)
	}
}

// Resample importance-resamples q, a fit (*sgvb.Result, from Fit) or a
// mixture (*sgvb.Mixture, from FitRestarts) of this model, towards the
// posterior as gpp fit --psis-resample does for --output-draws n, Stan's
// Pathfinder's psis_resample: sgvb.ResampleCandidates(n) candidate draws
// of q, weighted by p/q with the weights Pareto-smoothed, and n of them
// drawn in proportion to their weights (sgvb.Resample), with the run's
// seed. The Resampling holds the weights' Pareto k̂ and ESS; where
// Resampling.Usable says the resampled draws replace q's, as gpp fit then
// writes them, ResampledDraws and ResampledSummary give them, and
// otherwise gpp fit keeps q's own draws (FitDraws, MixtureDraws). gpp fit
// does not resample an interrupted fit.
func (m *Model) Resample(q sgvb.Proposal, n int, seed uint64) (*sgvb.Resampling, error) {
	r0, _, err := m.proposal("Resample", q)
	if err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, fmt.Errorf("model: Resample: %d draws; want n ≥ 1", n)
	}
	par := max(runtime.NumCPU(), 1) // the resampling does not depend on it
	return sgvb.Resample(pipeline.Target{M: m.compiled()}, q, r0.Dim, sgvb.ResampleCandidates(n), n, seed, par), nil
}

// proposal returns a fit of q's coordinates (q itself, or a mixture's
// first restart) and q's mixture (nil for a fit), or an error for a q
// that is neither or not of this model's params.
func (m *Model) proposal(fn string, q sgvb.Proposal) (*sgvb.Result, *sgvb.Mixture, error) {
	if err := m.noDensity(fn); err != nil {
		return nil, nil, err
	}
	switch q := q.(type) {
	case *sgvb.Result:
		if q == nil {
			return nil, nil, fmt.Errorf("model: %s: the fit is nil", fn)
		}
		return q, nil, m.checkFit(q)
	case *sgvb.Mixture:
		if err := m.checkMixture(fn, q); err != nil {
			return nil, nil, err
		}
		return q.Components[0], q, nil
	}
	return nil, nil, fmt.Errorf("model: %s: q is a %T; want a fit (*sgvb.Result) or a mixture (*sgvb.Mixture)", fn, q)
}

// ResampledDraws returns the params' values of the draws rs (from
// Resample(q, n, seed)) picked from q, in ParamNames' order: gpp fit
// --psis-resample's draws.csv rows, bit for bit, when it resamples
// (rs.Usable). A resampling that is not usable is an error: gpp fit keeps
// q's own draws then.
func (m *Model) ResampledDraws(q sgvb.Proposal, rs *sgvb.Resampling, seed uint64) ([][]float64, error) {
	return m.resampledDraws("ResampledDraws", q, rs, seed, nil)
}

// resampledDraws is ResampledDraws for the method fn, with at as
// fitDraws'.
func (m *Model) resampledDraws(fn string, q sgvb.Proposal, rs *sgvb.Resampling, seed uint64, at func(x []float64)) ([][]float64, error) {
	r0, mix, err := m.proposal(fn, q)
	if err != nil {
		return nil, err
	}
	switch {
	case rs == nil:
		return nil, fmt.Errorf("model: %s: the resampling is nil", fn)
	case !rs.Usable():
		return nil, fmt.Errorf("model: %s: the resampling is not usable (k̂ %.3g, ESS %.0f for %d draws): gpp fit keeps q's own draws", fn, rs.K, rs.ESS, len(rs.Index))
	}
	for _, i := range rs.Index {
		if i < 0 || i >= rs.Candidates {
			return nil, fmt.Errorf("model: %s: the resampling picks candidate %d of %d", fn, i, rs.Candidates)
		}
	}
	mean := r0.Mean()
	if mix != nil {
		mean = mix.Mean()
	}
	draw := func(_ *rand.Rand, d int, x []float64) { q.Candidate(seed, rs.Index[d], x) }
	return m.qDraws(r0, mean, len(rs.Index), seed, draw, at), nil
}

// ResampledSummary summarises the draws rs (from Resample(q, n, seed))
// picked from q, ResampledDraws' rows and the outputs at each (replicates
// from OutputStream of seed), as gpp fit --psis-resample's summary.csv:
// the mean, sd and quantiles of the resampled draws and, for a mixture,
// R̂ across the restarts from q's own n draws (MixtureSummary's), as gpp
// fit keeps it. gpp fit --family pathfinder with its default 4 paths is
// FitRestarts (Pathfinder, N 4), Resample of the mixture with
// --output-draws n = 1000, and this summary where rs.Usable (else
// MixtureSummary).
func (m *Model) ResampledSummary(q sgvb.Proposal, rs *sgvb.Resampling, seed uint64, s *SummarySettings) (*Summary, error) {
	sum, err := newSummary(s)
	if err != nil {
		return nil, err
	}
	outs, at := m.outputsOf(seed)
	rows, err := m.resampledDraws("ResampledSummary", q, rs, seed, at)
	if err != nil {
		return nil, err
	}
	if sum, err = m.summarise(sum, rows, *outs, 1, false, false, nil); err != nil {
		return nil, err
	}
	if mix, ok := q.(*sgvb.Mixture); ok {
		own, err := m.MixtureSummary(mix, len(rs.Index), seed, nil)
		if err != nil {
			return nil, err
		}
		for i := range sum.Rows {
			sum.Rows[i].Rhat = own.Rows[i].Rhat
		}
	}
	return sum, nil
}
