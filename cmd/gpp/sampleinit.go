package main

// gpp sample --init FIT: the chains start from draws of a fit's q instead
// of Stan's uniform(−2, 2) starts, as Stan's users start NUTS from ADVI or
// Pathfinder: a start in the posterior's bulk shortens the warm-up's way
// there, most where the posterior is far from 0 on the unconstrained scale.

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// initNeeds ends matchFit's messages for gpp sample --init.
var initNeeds = [2]string{"--init starts the chains from a fit of this model, param by param", "--init starts the chains from a fit of this model, param by param"}

// initFit is the q the chains start from: chain c from draw c of q, drawn
// as the fit drew its output draws (its seed, sgvb.DrawStream), so that chain
// c starts at draw c of the fit's draws.csv (after its row of q's mean).
// For a mixture of restarts (mix not nil) draw c is of restart c mod R, as
// the fit drew its draws, so that chains cycle through the restarts: the
// modes they found, which Stan's users start chains from on purpose to
// see whether the chains leave them and agree (draws from the mixture's
// weights, equal, could put every chain in one restart).
type initFit struct {
	res  *sgvb.Result
	mix  *sgvb.Mixture
	seed uint64
	what string // "q of the fit at DIR", "q of fit 2" (the REPL's)
}

// component returns the restart that draw c (chain c+1's start) is of,
// or -1 for one q.
func (f *initFit) component(c int) int {
	if f.mix == nil {
		return -1
	}
	return c % len(f.mix.Components)
}

// starts returns the start of chain c: draw c of q mapped to u's
// unconstrained coordinates. A draw where the log density or its gradient
// is not finite is an error: the fit is of this model, so its draws
// should be points the model can be evaluated at.
func (f *initFit) starts(u *sgvb.Unconstrained) func(c int, dst []float64) error {
	rng := rand.New(rand.NewPCG(f.seed, sgvb.DrawStream))
	x := make([]float64, u.TargetDim())
	var drawn [][]float64 // the draws so far, chain by chain
	return func(c int, dst []float64) error {
		for len(drawn) <= c {
			q := f.res
			if r := f.component(len(drawn)); r >= 0 {
				q = f.mix.Components[r]
			}
			q.SampleCoords(rng, x)
			z := make([]float64, u.Dim())
			u.UCoords(x, z)
			drawn = append(drawn, z)
		}
		copy(dst, drawn[c])
		grad := make([]float64, u.Dim())
		lp, err := u.LogDensity(dst, grad)
		ok := err == nil && !math.IsNaN(lp) && !math.IsInf(lp, 0)
		for _, g := range grad {
			ok = ok && !math.IsNaN(g) && !math.IsInf(g, 0)
		}
		if ok {
			return nil
		}
		if err != nil {
			return fmt.Errorf("draw %d of %s has no finite log density (%v): start from another fit, or without --init", c+1, f.what, err)
		}
		return fmt.Errorf("draw %d of %s has no finite log density or gradient: start from another fit, or without --init", c+1, f.what)
	}
}

// readInitFit reads the fit that --init names (its output directory or
// its fit.json) and checks that it is a fit of the model l, as gpp predict
// and --against check one; the file read is added to srcs.
func readInitFit(arg string, l *pipeline.Loaded, sets setFlags, srcs sources) (*initFit, error) {
	path := arg
	fi, err := os.Stat(arg)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("--init %s: no such file or directory (give gpp fit's output directory or its %s)", arg, fitFileName)
	case err != nil:
		return nil, fmt.Errorf("--init: %v", err)
	case fi.IsDir():
		path = filepath.Join(arg, fitFileName)
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("--init %s: %s has no %s: give the output directory of a gpp fit (a sample's or prior draws' has none)", arg, arg, fitFileName)
		}
	case filepath.Base(arg) != fitFileName:
		return nil, fmt.Errorf("--init %s: give gpp fit's output directory or its %s", arg, fitFileName)
	}
	ff, src, err := readUsedFit(path, srcs, "--init", initAdvice)
	if err != nil {
		return nil, err
	}
	res, mix, err := fitQ(ff, path, src, sets, l.Path, l.Model, initNeeds)
	if err != nil {
		return nil, err
	}
	what := "q of the fit at " + filepath.Dir(path)
	if mix != nil {
		what = fmt.Sprintf("the mixture of %d restarts of the fit at %s", len(mix.Components), filepath.Dir(path))
	}
	return &initFit{res: res, mix: mix, seed: ff.Settings.Seed, what: what}, nil
}
