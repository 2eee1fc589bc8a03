package model

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync/atomic"

	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/compile"
)

// FitSettings returns the settings gpp fit uses with no flags: sgvb's
// defaults (its zero Settings) with Seed 1, gpp fit's default --seed.
func FitSettings() sgvb.Settings { return sgvb.Settings{Seed: 1} }

// SampleSettings returns the settings gpp sample uses with no flags, each
// field set to its flag's default: 4 chains of 1000 warm-up and 1000 kept
// iterations (thin 1), tree depth 10, adapt delta 0.8, initial step size
// 1, the diagonal metric adapted, and Seed 1. Workers is 0, which Sample
// takes as gpp sample does (min(NumCPU, Chains)). Warmup must be set: in
// nuts.Settings a zero Warmup is no warm-up at all, not the default.
func SampleSettings() nuts.Settings {
	return nuts.Settings{
		Chains:   nuts.DefaultChains,
		Warmup:   nuts.DefaultWarmup,
		Draws:    nuts.DefaultDraws,
		Thin:     1,
		MaxDepth: nuts.DefaultMaxDepth,
		Delta:    nuts.DefaultDelta,
		StepSize: 1,
		Metric:   nuts.DiagE,
		Seed:     1,
	}
}

// Fit fits q to the posterior as gpp fit does with the same settings, one
// fit (no --restarts: see FitRestarts): SGVB by default, or MAP, Laplace or Pathfinder as
// s.Method says, with the model's params as gpp fit gives them to the
// engine. The zero Settings are gpp fit's defaults but for the seed (0
// here, 1 for gpp fit: see FitSettings); gpp fit's --tol 0 is Tol −1 and
// --anneal 0 is Anneal −1. A non-finite log joint during the fit returns
// the model's positioned error. FitDraws draws the params' values from q
// as gpp fit's draws.csv does; q itself is on the Target's coordinates
// (Result.SampleCoords, Result.Natural), and each param's factor is
// Result.Factor(name).
// Cancelling ctx stops the fit: Fit returns the result so far, the q
// reached (Result.Interrupted set; FitDraws draws from it), with ctx's
// error wrapped (errors.Is(err, context.Canceled)), also when ctx had
// ended before the first step.
// Inits starts q's locations at the params' values it names, as gpp fit
// --init FILE.json does, for this fit only.
func (m *Model) Fit(ctx context.Context, s sgvb.Settings, opts ...StartOption) (*sgvb.Result, error) {
	cm, restore, err := m.fitStart("Fit", opts)
	if err != nil {
		return nil, err
	}
	defer restore()
	r, err := sgvb.Fit(ctx, pipeline.Target{M: cm}, pipeline.Latents(cm), s)
	err = pipeline.LaplacePos(err, cm) // positioned at the param, as gpp fit reports it
	if r != nil && r.Interrupted {
		err = stopped(ctx, "Fit", err)
	}
	return r, err
}

// stopped is the error of a run by the method fn that ctx ended: err if
// there is one, else ctx's error (context.Canceled or
// context.DeadlineExceeded, which errors.Is finds), returned with the
// result so far.
func stopped(ctx context.Context, fn string, err error) error {
	if err != nil || ctx.Err() == nil {
		return err
	}
	return fmt.Errorf("model: %s: stopped, with the result so far: %w", fn, ctx.Err())
}

// fitStart returns the compiled model for a fit by the method fn (Fit,
// FitRestarts) with the starts opts give set, and restore, which puts
// back the model's own starts for the next fit. A model without params
// is an error.
func (m *Model) fitStart(fn string, opts []StartOption) (cm *compile.Model, restore func(), err error) {
	if err := m.noDensity(fn); err != nil {
		return nil, nil, err
	}
	cm = m.compiled()
	if len(cm.Latents) == 0 {
		return nil, nil, fmt.Errorf("%s: the model has no params to fit", m.Name())
	}
	sc, err := startOptions(fn, opts)
	if err != nil {
		return nil, nil, err
	}
	st, err := m.start(initsFile, sc.inits)
	if err != nil {
		return nil, nil, err
	}
	if st == nil {
		return cm, func() {}, nil
	}
	return cm, st.SetInit(cm), nil
}

// Sample runs NUTS as gpp sample does with the same settings: one copy of
// the log density per chain, chain c started where gpp sample starts it
// (each coordinate uniform on (−2, 2), drawn again while the density is
// not finite, from the stream sgvb.InitStream + c of s.Seed).
// SampleSettings are gpp sample's defaults; in a nuts.Settings built by
// hand, zero fields take nuts' defaults but for Warmup, whose zero is no
// warm-up (no adaptation: every iteration at StepSize), and Seed (gpp
// sample's --seed is 1). Workers 0 runs min(NumCPU, Chains) chains at
// once, as gpp sample does (the draws do not depend on it). The draws
// are on the unconstrained coordinates: SampleDraws maps them all to the
// params' values, as gpp sample's draws.csv has them (Constrain maps
// one).
// Inits, ChainInits and InitRadius start the chains as gpp sample's
// --init FILE.json and --init-radius do: at given values, the other
// coordinates uniform on (−r, r).
//
// s.FixedParam runs Stan's fixed_param sampler, gpp sample --fixed-param:
// every chain stays where it starts (Inits or ChainInits, which must then
// give every param: a param left out is an error naming it; without them
// the random start), with no warm-up, lp__ 0 as CmdStan writes it, and
// Outputs drawn at each draw simulate data from those params. A model with no params runs it whatever s says,
// as gpp sample does: its draws have no coordinates, and Outputs draws
// its outputs.
//
// The settings mirror gpp sample's flags: StepSize --stepsize, InvMetric
// --metric-file (one for all chains or one per chain), NoAdapt
// --adapt=false, SaveWarmup --save-warmup (SampleWarmupDraws maps the
// warm-up iterations kept); Chain.StepSize and Chain.InvMetric are what
// --save-metric writes.
//
// Cancelling ctx stops the chains: Sample returns the result so far
// (nuts.Result.Interrupted set, each chain with the draws it kept, which
// SampleDraws and Summary take), with ctx's error wrapped
// (errors.Is(err, context.Canceled)).
func (m *Model) Sample(ctx context.Context, s nuts.Settings, opts ...StartOption) (*nuts.Result, error) {
	if err := m.noDensity("Sample"); err != nil {
		return nil, err
	}
	if m.Dim() == 0 {
		s.FixedParam = true
	}
	chains := s.Chains
	if chains <= 0 {
		chains = nuts.DefaultChains
	}
	sc, err := startOptions("Sample", opts)
	if err != nil {
		return nil, err
	}
	radius := float64(sgvb.InitRadius)
	if sc.radius != nil {
		radius = *sc.radius
	}
	starts, files := make([]*pipeline.Start, chains), make([]string, chains)
	switch {
	case sc.chains != nil && len(sc.chains) != chains:
		return nil, fmt.Errorf("model: ChainInits has %d maps for %d chains: give one per chain", len(sc.chains), chains)
	case sc.chains != nil:
		for c, v := range sc.chains {
			files[c] = fmt.Sprintf("ChainInits[%d]", c)
			if starts[c], err = m.start(files[c], v); err != nil {
				return nil, err
			}
		}
	default:
		st, err := m.start(initsFile, sc.inits)
		if err != nil {
			return nil, err
		}
		for c := range starts {
			starts[c], files[c] = st, initsFile
		}
	}
	if s.Workers == 0 {
		s.Workers = min(max(runtime.NumCPU(), 1), chains)
	}
	dens := make([]nuts.Density, chains)
	inits := make([][]float64, chains)
	stop := &atomic.Bool{} // an ODE solve under way stops when ctx ends
	defer context.AfterFunc(ctx, func() { stop.Store(true) })()
	for c := range chains {
		d := m.u.Clone()
		d.SetStop(stop)
		dens[c], inits[c] = d, make([]float64, m.Dim())
		if s.FixedParam && starts[c] != nil && !starts[c].All() {
			return nil, fmt.Errorf("model: Sample: FixedParam holds the params where chain %d starts, and %s does not give %s: give every param's value", c+1, files[c], strings.Join(starts[c].Missing(m.l.Model), ", "))
		}
		if m.Dim() == 0 {
			continue
		}
		err := starts[c].StartAt(d, rand.New(rand.NewPCG(s.Seed, sgvb.InitStream+uint64(c))), radius, inits[c])
		if err != nil && starts[c] != nil && starts[c].All() {
			return nil, fmt.Errorf("chain %d: %s: the log density or its gradient is not finite at these values (Stan does not retry given inits): %w", c+1, files[c], err)
		}
		if err != nil {
			return nil, fmt.Errorf("chain %d: %w", c+1, err)
		}
	}
	res, err := nuts.Sample(ctx, dens, inits, s)
	if res != nil && res.Interrupted {
		return res, stopped(ctx, "Sample", err)
	}
	return res, err
}
