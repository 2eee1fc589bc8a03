package sgvb

import (
	"context"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"

	"github.com/gpplang/gpp/dist"
)

// MAPStartTries is how many points around its default start MAP tries
// when the log joint is not finite there (Stan tries 100 random inits).
const MAPStartTries = 100

// fitMAP maximises the log joint over the coordinates with gonum's L-BFGS.
// Because the Target's density is that of z (no Jacobian), the maximiser in
// the coordinates is the mode of p(z | data) itself.
func (e *engine) fitMAP(ctx context.Context) (*Result, error) {
	s := e.s
	start := time.Now()
	r := &Result{Method: MAP, Dim: e.dim, ParetoK: math.NaN(), ParetoReading: ParetoReading(math.NaN())}
	t := e.target
	x := make([]float64, e.dim)
	for bi := range e.blocks {
		b := &e.blocks[bi]
		copy(x[b.off:b.off+b.n], e.theta[b.poff:b.poff+b.n])
	}
	var lastErr error
	xs := make([]float64, e.dim)     // x with simplex blocks normalised
	cacheX := make([]float64, e.dim) // the point of the cached value and gradient
	cacheG := make([]float64, e.dim)
	cacheF, cached := 0.0, false
	// the best finite point evaluated: the result if L-BFGS ends on a
	// non-finite one (a log joint unbounded as a coordinate → −∞, as with
	// GPFA's gamma-process prior, sends it there)
	bestX, bestF := make([]float64, e.dim), math.Inf(1)
	eval := func(x []float64) float64 {
		if cached && floats.Equal(x, cacheX) {
			return cacheF
		}
		copy(cacheX, x)
		cached = true
		copy(xs, x)
		e.normaliseSimplex(xs)
		lp, err := t.LogJoint(xs, cacheG)
		if err != nil {
			lastErr = err
		}
		if math.IsNaN(lp) || math.IsInf(lp, 0) || !allFinite(cacheG) {
			r.BadSteps++
			cacheF = math.Inf(1)
			return cacheF
		}
		e.projectSimplex(xs, cacheG)
		for i := range cacheG {
			cacheG[i] = -cacheG[i]
		}
		cacheF = -lp
		if cacheF < bestF {
			bestF = cacheF
			copy(bestX, x)
		}
		return cacheF
	}
	rec := &mapRecorder{start: start, last: start, r: r, progress: s.Progress}
	problem := optimize.Problem{
		Func: eval,
		Grad: func(grad, x []float64) {
			eval(x)
			copy(grad, cacheG)
		},
		Status: func() (optimize.Status, error) {
			if ctx.Err() != nil {
				return optimize.MethodConverge + 100, nil // a custom status: interrupted
			}
			return optimize.NotTerminated, nil
		},
	}
	settings := &optimize.Settings{
		MajorIterations: s.MaxIter,
		Recorder:        rec,
		Converger:       &optimize.FunctionConverge{Absolute: 1e-12, Relative: 1e-12, Iterations: 20},
	}
	if math.IsInf(eval(x), 1) {
		// As Stan's optimizer does with its random inits: up to
		// MAPStartTries points with every coordinate moved by
		// U(−2, 2) from the start, from the seed's own stream; the first
		// where the log joint is finite is the start.
		firstErr := lastErr
		x0 := append([]float64(nil), x...)
		rng := rand.New(rand.NewPCG(streamSeed(s.Seed, streamMAPStart, 0, 0)))
		try := TryNear(x0, x, 2, MAPStartTries, rng, func(x []float64) bool { return !math.IsInf(eval(x), 1) })
		if try == 0 {
			r.warn("MAP: the log joint is not finite at the default start, nor at %d points moved by U(−2, 2) around it", MAPStartTries)
			r.Factors = e.factors()
			if firstErr == nil {
				firstErr = errNonFinite(0, 1)
			}
			return r, firstErr
		}
		r.warn("MAP: the log joint is not finite at the default start; started from a point moved by U(−2, 2) per coordinate (try %d)", try)
	}
	res, err := optimize.Minimize(problem, x, settings, &optimize.LBFGS{})
	switch {
	case res == nil:
		return nil, err
	case res.Status == optimize.MethodConverge+100:
		r.Interrupted = true
	case err != nil:
		r.warn("MAP stopped at iteration %d: %v", res.Stats.MajorIterations, err)
	case res.Status == optimize.IterationLimit:
		r.warn("MAP did not converge in %d iterations", res.Stats.MajorIterations)
	default:
		r.Converged = true
	}
	r.Iterations = res.Stats.MajorIterations
	copy(x, res.X)
	if !allFinite(x) || !(res.F <= bestF) {
		if !allFinite(x) {
			r.warn("MAP: L-BFGS ended at a non-finite point; the best finite point is returned (the log joint may grow without bound, and then no mode exists)")
		}
		copy(x, bestX)
		res.F = bestF
	}
	e.normaliseSimplex(x)
	for bi := range e.blocks {
		b := &e.blocks[bi]
		copy(e.theta[b.poff:b.poff+b.n], x[b.off:b.off+b.n])
	}
	r.ELBO = -res.F
	r.ELBOSE = 0
	r.Factors = e.factors()
	r.Seconds = time.Since(start).Seconds()
	return r, nil
}

// mapRecorder reports MAP progress at each major iteration of L-BFGS.
type mapRecorder struct {
	start, last time.Time
	lastIt      int
	r           *Result
	progress    func(Progress)
}

func (m *mapRecorder) Init() error { return nil }

func (m *mapRecorder) Record(loc *optimize.Location, op optimize.Operation, st *optimize.Stats) error {
	if op != optimize.MajorIteration {
		return nil
	}
	now := time.Now()
	it := st.MajorIterations
	m.r.Trace = append(m.r.Trace, TracePoint{Iter: it, ELBO: -loc.F, Seconds: now.Sub(m.start).Seconds()})
	if m.progress != nil {
		m.progress(Progress{Iter: it, ELBO: -loc.F, RelChange: math.NaN(),
			ItPerSec: float64(it-m.lastIt) / now.Sub(m.last).Seconds(), Elapsed: now.Sub(m.start)})
	}
	m.last, m.lastIt = now, it
	return nil
}

// normaliseSimplex maps the coordinates of every simplex latent, taken as
// unnormalised log weights, to log z_k = x_k − logsumexp(x).
func (e *engine) normaliseSimplex(x []float64) {
	for bi := range e.blocks {
		b := &e.blocks[bi]
		if b.support != dist.Simplex {
			continue
		}
		for v := b.off; v < b.off+b.n; v += b.k {
			mx := math.Inf(-1)
			for _, c := range x[v : v+b.k] {
				mx = math.Max(mx, c)
			}
			s := 0.0
			for _, c := range x[v : v+b.k] {
				s += math.Exp(c - mx)
			}
			l := mx + math.Log(s)
			for j := v; j < v+b.k; j++ {
				x[j] -= l
			}
		}
	}
}

// projectSimplex turns the gradient with respect to normalised log z
// (xs) into the gradient with respect to the unnormalised coordinates.
func (e *engine) projectSimplex(xs, g []float64) {
	for bi := range e.blocks {
		b := &e.blocks[bi]
		if b.support != dist.Simplex {
			continue
		}
		for v := b.off; v < b.off+b.n; v += b.k {
			s := 0.0
			for _, c := range g[v : v+b.k] {
				s += c
			}
			for j := v; j < v+b.k; j++ {
				g[j] -= math.Exp(xs[j]) * s
			}
		}
	}
}
