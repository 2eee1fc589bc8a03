package sgvb

import (
	"context"
	"fmt"
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

// tryStarts moves the start x, where the log density is not finite, as
// Stan's optimizer does with its random inits: up to MAPStartTries points
// with every coordinate moved by U(−2, 2) from it, from the seed's own
// stream; x is left at the first where ok holds, and the try returned (0
// when none did). MAP, Laplace and --init path share it.
func tryStarts(seed uint64, x []float64, ok func(x []float64) bool) int {
	x0 := append([]float64(nil), x...)
	rng := rand.New(rand.NewPCG(streamSeed(seed, streamMAPStart, 0, 0)))
	return TryNear(x0, x, 2, MAPStartTries, rng, ok)
}

// statusInterrupted is the custom optimize.Status of an L-BFGS run
// (MAP, the --init path) stopped because its context was cancelled.
const statusInterrupted = optimize.MethodConverge + 100

// lbfgsProblem is the minimisation of f, with gradient grad, that stops
// with statusInterrupted when ctx is cancelled.
func lbfgsProblem(ctx context.Context, f func(x []float64) float64, grad func(g, x []float64)) optimize.Problem {
	return optimize.Problem{
		Func: f,
		Grad: grad,
		Status: func() (optimize.Status, error) {
			if ctx.Err() != nil {
				return statusInterrupted, nil
			}
			return optimize.NotTerminated, nil
		},
	}
}

// lbfgsSettings runs at most iters major iterations, each reported to
// rec, and stops where f has changed by less than 1e-12 (absolute and
// relative) over 20 of them.
func lbfgsSettings(iters int, rec optimize.Recorder) *optimize.Settings {
	return &optimize.Settings{
		MajorIterations: iters,
		Recorder:        rec,
		Converger:       &optimize.FunctionConverge{Absolute: 1e-12, Relative: 1e-12, Iterations: 20},
	}
}

// fitMAP maximises the log joint over the coordinates with gonum's L-BFGS.
// Because the Target's density is that of z (no Jacobian), the maximiser in
// the coordinates is the mode of p(z | data) itself.
func (e *engine) fitMAP(ctx context.Context) (*Result, error) {
	s := e.s
	start := time.Now()
	r := &Result{Method: MAP, Dim: e.dim, ParetoK: math.NaN(), ParetoRelESS: math.NaN(), ParetoReading: ParetoReading(math.NaN())}
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
			if ctx.Err() == nil { // else cut short by the interruption (StopTarget)
				r.BadSteps++
			}
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
	problem := lbfgsProblem(ctx, eval, func(grad, x []float64) {
		eval(x)
		copy(grad, cacheG)
	})
	settings := lbfgsSettings(s.MaxIter, rec)
	// stopAt ends a fit interrupted before L-BFGS ran (an evaluation of
	// the start cut short, as with a StopTarget): q is the start.
	stopAt := func() (*Result, error) {
		r.Interrupted = true
		r.ELBO, r.ELBOSE = math.NaN(), 0
		r.Factors = e.factors() // e.theta holds the start
		r.Seconds = time.Since(start).Seconds()
		return r, nil
	}
	if math.IsInf(eval(x), 1) && ctx.Err() != nil {
		return stopAt()
	}
	if math.IsInf(eval(x), 1) {
		firstErr := lastErr
		try := tryStarts(s.Seed, x, func(x []float64) bool { return ctx.Err() != nil || !math.IsInf(eval(x), 1) })
		if ctx.Err() != nil {
			return stopAt()
		}
		if try == 0 {
			r.warn("MAP: the log joint is not finite at the default start, nor at %d points moved by U(−2, 2) around it", MAPStartTries)
			r.Factors = e.factors()
			if firstErr == nil {
				firstErr = errNotFiniteHere
			}
			return r, firstErr
		}
		r.warn("MAP: the log joint is not finite at the default start; started from a point moved by U(−2, 2) per coordinate (try %d)", try)
	}
	res, err := optimize.Minimize(problem, x, settings, &optimize.LBFGS{})
	if res == nil {
		return nil, err
	}
	r.Iterations = res.Stats.MajorIterations
	switch {
	case res.Status == statusInterrupted || ctx.Err() != nil:
		// stopped by the context, or by an evaluation it cut short
		// (StopTarget) that ended the line search
		r.Interrupted = true
	case res.Status == optimize.IterationLimit:
		r.warn("MAP did not converge in %d iterations", res.Stats.MajorIterations)
	case !allFinite(res.X) || !(res.F <= bestF+1e-10*(1+math.Abs(bestF))):
		// ended off the best point it evaluated, by more than rounding (a
		// line search that fails at the mode has seen a point 1e-16 better
		// in relative terms): as where the log joint grows without bound
		// (below)
		r.Converged = err == nil
		if err != nil {
			r.warn("MAP stopped at iteration %d: %v", res.Stats.MajorIterations, err)
		}
	default:
		// converged, or stopped because no step improved the log joint
		// (at a mode to rounding, or at a saddle): the saddle test tells
		settings.Recorder = nil
		var mode bool
		res, mode = e.escapeSaddle(ctx, r, start, problem, settings, res)
		r.Converged = err == nil || mode
		if !r.Converged {
			r.warn("MAP stopped at iteration %d: %v", res.Stats.MajorIterations, err)
		}
	}
	copy(x, res.X)
	if !allFinite(x) || !(res.F <= bestF) {
		if !allFinite(x) {
			r.warn("MAP: L-BFGS ended at a non-finite point; the best finite point is returned (the log joint may grow without bound, and then no mode exists)")
		}
		copy(x, bestX)
		res.F = bestF
	}
	if !r.Converged && !r.Interrupted {
		e.edgeWarning(r, x)
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

// edgeWarning names the first bounded latent whose MAP coordinate x ended
// beyond ±edgeCoord (a positive value below 10⁻¹³ or above 10¹³, a
// probability within 10⁻¹³ of 0 or 1) when MAP did not converge: a log
// joint that grows without bound towards the edge of a support, as a
// centred hierarchical model's does as its scale → 0, has no mode.
func (e *engine) edgeWarning(r *Result, x []float64) {
	for bi := range e.blocks {
		b := &e.blocks[bi]
		if b.support == dist.Real || b.support == dist.Simplex || b.support.IsCoords() {
			continue
		}
		for i, v := range x[b.off : b.off+b.n] {
			if math.Abs(v) > edgeCoord {
				name := b.name
				if b.n > 1 {
					name = fmt.Sprintf("%s[%d]", b.name, i)
				}
				r.warn("MAP: %s went to the edge of its support (its unconstrained coordinate, the log or logit, is %.3g) while the log joint still grew: the log density may grow without bound there (as a centred hierarchical model's does as its scale → 0), and then it has no mode; SGVB, the default, is well defined there", name, v)
				return
			}
		}
	}
}

// edgeCoord is edgeWarning's bound on an unconstrained coordinate.
const edgeCoord = 30

// escapeSaddle tests the point where L-BFGS stopped (res) for a saddle:
// from a symmetric start, such as the default start of a mixture whose
// components are interchangeable, the gradient never separates them, and
// L-BFGS stops where they coincide. It restarts L-BFGS from saddleTries
// points moved by U(−saddleStep, saddleStep) per coordinate (a stream of
// the seed's own); one that ends higher by more than a relative 10⁻⁶
// shows res was no mode, and the search goes on from the best, for at
// most saddleRounds rounds. At a mode every restart comes back to it, and
// mode reports that they all did in the last round. When the restarts
// moved it, r's trace gains a point at the result (iteration
// r.Iterations, counting the restarts' own), so that it ends where q is.
func (e *engine) escapeSaddle(ctx context.Context, r *Result, start time.Time, problem optimize.Problem, settings *optimize.Settings, res *optimize.Result) (_ *optimize.Result, mode bool) {
	rng := rand.New(rand.NewPCG(streamSeed(e.s.Seed, streamMAPSaddle, 0, 0)))
	x := make([]float64, len(res.X)) // e.dim for MAP; the unconstrained coordinates for Laplace
	f0 := res.F
	for range saddleRounds {
		best, back := res, 0
		tol := 1e-6 * (1 + math.Abs(res.F))
		for range saddleTries {
			if TryNear(res.X, x, saddleStep, 1, rng, func(x []float64) bool { return !math.IsInf(problem.Func(x), 1) }) == 0 {
				continue
			}
			rs, _ := optimize.Minimize(problem, x, settings, &optimize.LBFGS{})
			if ctx.Err() != nil {
				return best, false
			}
			if rs == nil || rs.Status == optimize.IterationLimit || !allFinite(rs.X) {
				continue
			}
			if rs.F < best.F-tol {
				best = rs
			} else if rs.F <= res.F+tol {
				back++
			}
		}
		if best == res {
			mode = back == saddleTries
			break
		}
		res = best
		r.Iterations += res.Stats.MajorIterations
	}
	if res.F < f0 {
		what, obj := "MAP", "log joint"
		if r.Method == Laplace {
			what, obj = "Laplace", "log density"
		}
		r.warn("%s: L-BFGS first stopped at a stationary point that is not a mode (%s %.6g), a saddle such as where interchangeable components coincide; restarts from points around it reached %.6g", what, obj, -f0, -res.F)
		// the trace (elbo.csv) ends where the result is, at the iterations counted
		r.Trace = append(r.Trace, TracePoint{Iter: r.Iterations, ELBO: -res.F, Seconds: time.Since(start).Seconds()})
	}
	return res, mode
}

// Saddle tests of MAP (escapeSaddle).
const (
	saddleTries  = 3
	saddleRounds = 5
	saddleStep   = 0.1
)

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
