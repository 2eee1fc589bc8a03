package sgvb

import (
	"context"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// The set-up that Laplace and Pathfinder share: both minimise −log p(u),
// the density of the unconstrained coordinates with the Jacobian, by
// gonum's L-BFGS from q's start, and both write q as the one joint
// full-rank block laplaceSettings makes.

// densityObjective is −log p(u) and its gradient for L-BFGS. gonum asks
// for the value and the gradient at one point in two calls, so the last
// point's are cached; a point where either is not finite is +Inf to
// L-BFGS and counted in r.BadSteps (unless ctx has ended: an evaluation
// the stop flag cut short is not the model's); the best finite point is
// kept, an interrupted fit's centre; lastErr is the last evaluation error.
type densityObjective struct {
	ctx     context.Context
	ud      *Unconstrained
	r       *Result
	x, g    []float64 // the cached point and its gradient of −log p
	f       float64
	cached  bool
	bestX   []float64
	bestF   float64
	lastErr error
}

func newDensityObjective(ctx context.Context, ud *Unconstrained, r *Result) *densityObjective {
	n := ud.Dim()
	return &densityObjective{ctx: ctx, ud: ud, r: r, x: make([]float64, n), g: make([]float64, n), bestX: make([]float64, n), bestF: math.Inf(1)}
}

// eval returns −log p(x), +Inf where it or its gradient is not finite.
func (o *densityObjective) eval(x []float64) float64 {
	if o.cached && floats.Equal(x, o.x) {
		return o.f
	}
	copy(o.x, x)
	o.cached = true
	lp, err := o.ud.LogDensity(x, o.g)
	if err != nil {
		o.lastErr = err
	}
	if !finite(lp) || !allFinite(o.g) {
		if o.ctx.Err() == nil {
			o.r.BadSteps++
		}
		o.f = math.Inf(1)
		return o.f
	}
	floats.Scale(-1, o.g)
	o.f = -lp
	if o.f < o.bestF {
		o.bestF = o.f
		copy(o.bestX, x)
	}
	return o.f
}

// grad writes the gradient of −log p at x into g.
func (o *densityObjective) grad(g, x []float64) {
	o.eval(x)
	copy(g, o.g)
}

// jointNormalFit is the state of a Laplace or Pathfinder fit: its
// result, the joint block's parameters th (the mean in th[:n]) and the
// objective.
type jointNormalFit struct {
	e     *engine
	r     *Result
	start time.Time
	th    []float64
	n     int
	obj   *densityObjective
}

// newJointNormalFit prepares a Laplace or Pathfinder fit (method) of e's
// one full-rank block; u is a copy of q's start, the block's mean.
func (e *engine) newJointNormalFit(ctx context.Context, method Method) (f *jointNormalFit, u []float64, err error) {
	r := &Result{Method: method, Dim: e.dim, ParetoK: math.NaN(), ParetoRelESS: math.NaN(), ELBO: math.NaN(), ELBOSE: math.NaN()}
	if len(e.blocks) != 1 || e.blocks[0].fam != FamilyFullRank {
		panic(fmt.Sprintf("sgvb: a %s fit needs one full-rank block", method))
	}
	b := &e.blocks[0]
	ud, err := NewUnconstrained(e.target, e.latents)
	if err != nil {
		return nil, nil, err
	}
	if ud.Dim() != b.n {
		panic(fmt.Sprintf("sgvb: %s: the unconstrained coordinates are not the block's", method))
	}
	f = &jointNormalFit{e: e, r: r, start: time.Now(), th: e.theta[b.poff : b.poff+b.np()], n: b.n, obj: newDensityObjective(ctx, ud, r)}
	return f, append([]float64(nil), f.th[:b.n]...), nil
}

// done finishes f's result: q's factors and the time taken.
func (f *jointNormalFit) done() (*Result, error) {
	f.r.Factors, f.r.Groups = f.e.factors(), f.e.groups()
	f.r.Seconds = time.Since(f.start).Seconds()
	return f.r, nil
}

// stopAt ends an interrupted fit: as MAP's, q is centred at the best point
// evaluated (the start's covariance kept), or is the start before any
// point was finite.
func (f *jointNormalFit) stopAt() (*Result, error) {
	f.r.Interrupted = true
	if !math.IsInf(f.obj.bestF, 1) {
		copy(f.th[:f.n], f.obj.bestX)
	}
	return f.done()
}

// finiteStart makes u a start where the log density is finite: u itself,
// or else the first of tryStarts' points moved by U(−2, 2) per coordinate
// (with a warning naming what, "Laplace" or "Pathfinder"). It returns that
// try (0: u itself), stop true where ctx ended meanwhile, or an error
// where no point is finite.
func (f *jointNormalFit) finiteStart(u []float64, what string) (try int, stop bool, err error) {
	o := f.obj
	if !math.IsInf(o.eval(u), 1) {
		return 0, false, nil
	}
	if o.ctx.Err() != nil {
		return 0, true, nil
	}
	firstErr := o.lastErr
	try = tryStarts(f.e.s.Seed, u, func(x []float64) bool { return o.ctx.Err() != nil || !math.IsInf(o.eval(x), 1) })
	if o.ctx.Err() != nil {
		return 0, true, nil
	}
	if try == 0 {
		if firstErr == nil {
			firstErr = errNotFiniteHere
		}
		return 0, false, fmt.Errorf("%s: the log density is not finite at the start nor at %d points moved by U(−2, 2) around it: %w", what, MAPStartTries, firstErr)
	}
	f.r.warn("%s: the log density is not finite at the default start; started from a point moved by U(−2, 2) per coordinate (try %d)", what, try)
	return try, false, nil
}

// setQ sets the joint block to N(mean, LLᵀ).
func (f *jointNormalFit) setQ(mean []float64, L *mat.TriDense) {
	n := f.n
	p := make([][]float64, n+1)
	p[0] = mean
	for j := range n {
		p[1+j] = make([]float64, n)
		for i := j; i < n; i++ {
			p[1+j][i] = L.At(i, j)
		}
	}
	f.e.blocks[0].thetaFrom(p, f.th)
}

// finish ends a fit whose q is set: the final ELBO and k̂ as every fit's
// (neither where ctx ends during their draws: finalEstimateCtx), their
// reading and warnings.
func (f *jointNormalFit) finish() (*Result, error) {
	r := f.r
	if f.e.s.PSISDraws > 0 && !f.e.finalEstimateCtx(f.obj.ctx, r, f.start) {
		return f.done()
	}
	r.ParetoReading = TailReading(r.ParetoK, r.ParetoRelESS, r.ParetoKDraws)
	if w := overflowWarning(r.ELBO, r.ELBOSE, "q"); w != "" { // the CLI's "the fit failed" refers to it
		r.Warnings = append(r.Warnings, w)
	}
	r.Warnings = append(r.Warnings, weightWarnings(r.ParetoK, r.ParetoRelESS, r.ParetoKDraws, "q")...)
	return f.done()
}
