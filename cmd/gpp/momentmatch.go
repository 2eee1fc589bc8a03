package main

// --moment-match: the loo package's moment matching (sgvb.MomentMatchLOO)
// for the observations whose PSIS-LOO k̂ is too high, on a sample's NUTS
// draws or a fit's LOO draws (q's and its defensive companion's, weighted
// by p over their proposal), moved in the sampler's unconstrained
// coordinates.

import (
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/compile"
)

// mmReport is what --moment-match did to a LOO.
type mmReport struct {
	matched  int     // observations moment matched: k̂ above sgvb.MMThreshold
	still    int     // of them, those whose k̂ stays above it
	elpd0    float64 // elpd_loo before
	evals    int     // points evaluated
	worst    float64 // the largest k̂ after, of the matched ones
	thr      float64 // sgvb.MMThreshold of the draws
	bad      int     // points where the log density or log_lik failed
	firstErr error   // the first such failure
	skipped  string  // why a fit's LOO could not be matched ("": it was)
	left     int     // observations left unmatched by an interruption (Ctrl-C)
}

// momentMatchRefusal says why --moment-match cannot run on m, or is "".
func momentMatchRefusal(cfg *fitConfig, m *compile.Model) string {
	if hasLOOOutput(m) {
		return ""
	}
	for _, f := range []struct {
		on   bool
		name string
	}{{cfg.momentMatch, "--moment-match"}, {cfg.reloo, "--reloo"}} {
		switch {
		case f.on && hasLogLik(m):
			return fmt.Sprintf("%s refines PSIS-LOO, which this model has none of: %s", f.name, heldOutNote(heldOutData(m)))
		case f.on:
			return fmt.Sprintf("%s needs an output %s (each observation's log likelihood, for PSIS-LOO): the model has none", f.name, looOutput)
		}
	}
	return ""
}

// momentMatchAdvice is what the LOO warning adds when some observation's
// k̂ is above 0.7: about --moment-match when it was not given, or what
// --reloo did; "" or a clause starting "; ".
func momentMatchAdvice(cfg *fitConfig, ds *drawSet) string {
	switch {
	case ds.loo == nil || ds.loo.BadK() == 0 || len(ds.looCond) > 0:
		// none to bring down, or log_lik reads a param per observation,
		// which moment matching does not mend (looConditionalWarning)
		return ""
	case ds.rl != nil && ds.rl.refit > 0:
		return fmt.Sprintf("; --reloo refitted %d of them, whose k̂ is now that of the refit's estimate: it rests on a few of the refit's draws", ds.rl.refit)
	case cfg.momentMatch || ds.loo.BadK() == ds.loo.NoK():
		// given, or no observation has a k̂ that matching could bring
		// down (too few draws to estimate one: more draws are the advice)
		return ""
	}
	if why := mmRefusal(ds); why != "" {
		// a fit's matching would refuse (momentMatchFit): a trial's
		// draws' own weights at k̂ 1.43 had it advised, then refused
		return "; gpp sample --moment-match can bring them down: a fit's --moment-match cannot, " + why
	}
	return "; --moment-match moves the draws toward each such observation's leave-one-out posterior and often brings its k̂ down"
}

// mmRefusal says why momentMatchFit would leave ds's LOO as it is for
// all its draws, or is "": their own weights p/q heavy-tailed past
// sgvb.MMThreshold, or missing values redrawn (looDraws.marginal).
func mmRefusal(ds *drawSet) string {
	pd := ds.pitDraws
	switch {
	case pd == nil || ds.loo == nil:
		return ""
	case pd.marginal:
		return "its LOO drawing the missing values anew"
	case len(pd.lr) > 1 && ds.loo.QK > sgvb.MMThreshold(len(pd.lr)):
		return fmt.Sprintf("the draws' own weights p/q having k̂ %s (q misses the posterior)", num3(ds.loo.QK))
	}
	return ""
}

// mmEvaluator evaluates moved draws for sgvb.MomentMatchLOO on workers
// goroutines, each with its own clone of the unconstrained density and
// its own evaluator of the outputs; every point is evaluated alone, so
// the numbers do not depend on the workers. logq, when not nil, is the
// log density of a fit's proposal at the Target's coordinates x; it is
// called from one goroutine at a time.
type mmEvaluator struct {
	ws   []*mmWorker
	v    variable // the log_lik output
	logq func(x []float64) float64
	mu   sync.Mutex // guards logq and rep's failure counts
	rep  *mmReport
}

type mmWorker struct {
	u  *sgvb.Unconstrained
	ev *compile.Evaluator
	x  []float64
}

func newMMEvaluator(m *compile.Model, u *sgvb.Unconstrained, v variable, workers int, logq func([]float64) float64, rep *mmReport) (*mmEvaluator, error) {
	if workers <= 0 || workers > runtime.GOMAXPROCS(0) {
		workers = runtime.GOMAXPROCS(0)
	}
	e := &mmEvaluator{ws: make([]*mmWorker, workers), v: v, logq: logq, rep: rep}
	for w := range e.ws {
		ev, err := m.NewEvaluator()
		if err != nil {
			return nil, err
		}
		e.ws[w] = &mmWorker{u: u.Clone(), ev: ev, x: make([]float64, u.TargetDim())}
	}
	return e, nil
}

// point evaluates the unconstrained point z: the log density there (the
// evaluator's log joint, computed with the outputs, plus the Jacobian as
// LogDensity adds it), log_lik's element elem and, with a logq, the
// proposal's log density in z's coordinates, logq(x(z)) plus the same
// Jacobian.
func (e *mmEvaluator) point(w *mmWorker, z []float64, elem int) (lp, ll, lg float64) {
	lp, ll, lg = math.NaN(), math.NaN(), math.NaN()
	w.u.Coords(z, w.x)
	lx, outs, err := w.ev.Eval(w.x) // the log joint with the outputs
	if err != nil {
		e.mu.Lock()
		e.rep.bad++
		if e.rep.firstErr == nil {
			e.rep.firstErr = err
		}
		e.mu.Unlock()
		return lp, ll, lg
	}
	l := w.u.LogDensityAt(z, lx)
	lp, ll = l, outs[e.v.index][elem]
	if e.logq != nil { // the lock only where it guards something
		e.mu.Lock()
		lg = e.logq(w.x) + (l - lx)
		e.mu.Unlock()
	}
	return lp, ll, lg
}

// eval returns the sgvb.MMEval of log_lik's element elem, the rows shared
// among the workers in chunks.
func (e *mmEvaluator) eval(elem int) sgvb.MMEval {
	return func(xs, lp, ll, lg []float64) {
		rows := len(lp)
		dim := len(xs) / max(rows, 1)
		chunk := max(1, (rows+4*len(e.ws)-1)/(4*len(e.ws)))
		var next atomic.Int64
		var wg sync.WaitGroup
		for _, w := range e.ws {
			wg.Go(func() {
				for c := int(next.Add(1) - 1); c*chunk < rows; c = int(next.Add(1) - 1) {
					for r := c * chunk; r < min((c+1)*chunk, rows); r++ {
						var g float64
						lp[r], ll[r], g = e.point(w, xs[r*dim:(r+1)*dim], elem)
						if lg != nil {
							lg[r] = g
						}
					}
				}
			})
		}
		wg.Wait()
	}
}

// matchLOO moment matches each observation of lo whose k̂ is above the
// threshold for its draws d (ll[i] observation i's log likelihoods, reff
// its relative efficiency; nil: 1), replaces its point and the totals,
// and fills rep.
func (e *mmEvaluator) matchLOO(ctx context.Context, lo *sgvb.LOO, obs []int, d sgvb.MMDraws, ll [][]float64, reff []float64, todo []int) {
	rep := e.rep
	rep.matched, rep.worst = len(todo), math.Inf(-1)
	for n, i := range todo {
		if ctx.Err() != nil { // Ctrl-C: the rest keep their PSIS estimates
			rep.matched, rep.left = n, len(todo)-n
			break
		}
		d.Reff = 1
		if reff != nil {
			d.Reff = reff[i]
		}
		r := sgvb.MomentMatchLOO(d, ll[i], e.eval(e.v.elems[obs[i]]))
		lo.Points[i] = r.Point
		rep.evals += r.Evals
		if !(r.Point.K <= rep.thr) {
			rep.still++
		}
		rep.worst = math.Max(rep.worst, r.Point.K)
	}
	lo.Total()
}

// highK lists the observations of lo whose k̂ is above thr (not a NaN k̂:
// too few finite weights to fit a tail, which no move mends).
func highK(lo *sgvb.LOO, thr float64) []int {
	var todo []int
	for i, p := range lo.Points {
		if p.K > thr {
			todo = append(todo, i)
		}
	}
	return todo
}

// momentMatchSample re-estimates by sgvb.MomentMatchLOO each observation of
// sd's LOO whose k̂ is above sgvb.MMThreshold, moving the NUTS draws in the
// sampler's unconstrained coordinates u and evaluating the log density and
// log_lik at the moved points on workers goroutines. With no observation
// to match, the report says so.
func momentMatchSample(ctx context.Context, sd *sampleDraws, m *compile.Model, u *sgvb.Unconstrained, workers int) (*mmReport, error) {
	lo, pd := sd.ds.loo, sd.ds.pitDraws
	if lo == nil || pd == nil {
		return nil, nil
	}
	S := sd.n * sd.chains
	rep := &mmReport{thr: sgvb.MMThreshold(S), elpd0: lo.ELPD}
	todo := highK(lo, rep.thr)
	if len(todo) == 0 {
		return rep, nil
	}
	v, _ := sd.ds.looVar()
	e, err := newMMEvaluator(m, u, v, workers, nil, rep)
	if err != nil {
		return nil, err
	}
	dim := sd.res.Dim
	d := sgvb.MMDraws{Dim: dim, X: make([]float64, 0, S*dim), LogP: make([]float64, 0, S)}
	for _, ch := range sd.res.Chains {
		d.X = append(d.X, ch.Draws[:sd.n*dim]...)
		d.LogP = append(d.LogP, ch.LogP[:sd.n]...)
	}
	e.matchLOO(ctx, lo, sd.ds.looObs, d, pd.ll, pd.reff, todo)
	return rep, nil
}

// momentMatchWarning is the warning of a --moment-match whose moved draws
// had a failed log density or log_lik somewhere ("" otherwise).
func momentMatchWarning(mm *mmReport) string {
	if mm == nil || mm.bad == 0 {
		return ""
	}
	return fmt.Sprintf("moment matching: the log density or log_lik failed at %d of %d moved draws (weight 0); the first: %v", mm.bad, mm.evals, mm.firstErr)
}

// printMomentMatch prints the console line of --moment-match (nothing for
// nil: no --moment-match).
func printMomentMatch(w io.Writer, mm *mmReport) {
	switch {
	case mm == nil:
		return
	case mm.skipped != "":
		fmt.Fprintf(w, "moment match not done: %s\n", mm.skipped)
		return
	case mm.matched == 0 && mm.left > 0:
		fmt.Fprintf(w, "moment match interrupted before its first observation: the %d with k̂ above %.2g keep their PSIS estimates\n", mm.left, mm.thr)
		return
	case mm.matched == 0 && !(mm.thr > 0):
		// loo's threshold 1 − 1/log₁₀ S is not positive below 10 draws,
		// where PSIS fits no tail and no k̂ exists.
		fmt.Fprintf(w, "moment match none: under 10 draws no Pareto k̂ can be estimated\n")
		return
	case mm.matched == 0:
		fmt.Fprintf(w, "moment match none: no observation's k̂ is above %.2g\n", mm.thr)
		return
	}
	left := ""
	if mm.left > 0 {
		left = fmt.Sprintf("; interrupted: %d more keep their PSIS estimates", mm.left)
	}
	fmt.Fprintf(w, "moment match %d observation%s with k̂ above %.2g: k̂ still above it for %d (the largest now %s); elpd_loo before %.6g; %d draws evaluated%s\n",
		mm.matched, plural(mm.matched), mm.thr, mm.still, num3(mm.worst), mm.elpd0, mm.evals, left)
}

// momentMatchFit is momentMatchSample for a fit's LOO draws (kept by
// makeDrawsAt with keepX): draws of the proposal g (the mixture ½q + ½g of
// sgvb.Defensive, or the mixture of restarts mix), weighted by p/g, moved
// in the unconstrained coordinates of sgvb.Unconstrained, where g's density
// is g's at the Target's coordinates times the Jacobian of the map. A fit
// whose draws' own weights p/g are heavy-tailed (k̂ above the threshold:
// q misses the posterior, and every observation's weights inherit it), a
// fit that redraws missing values for its LOO, and a model with a param
// that has no unconstrained map are left as they are, the report saying
// why; closerQ (closerFlag) is the fit it names for a q closer to the
// posterior, "" none.
func momentMatchFit(ctx context.Context, ds *drawSet, r *sgvb.Result, mix *sgvb.Mixture, m *compile.Model, workers int, closerQ string) (*mmReport, error) {
	lo, pd := ds.loo, ds.pitDraws
	if lo == nil || pd == nil {
		return nil, nil
	}
	S := len(pd.lr)
	rep := &mmReport{thr: sgvb.MMThreshold(S), elpd0: lo.ELPD}
	todo := highK(lo, rep.thr)
	switch {
	case len(todo) == 0:
		return rep, nil
	case lo.QK > rep.thr:
		closer := "a q closer to the posterior or "
		if closerQ != "" {
			closer = "a q closer to the posterior (" + closerQ + ") or "
		}
		rep.skipped = fmt.Sprintf("the LOO draws' own weights p/q have k̂ %s, so every observation's weights inherit their tail (%d of %d are above %.2g), which moving the draws observation by observation does not mend; %sgpp sample --moment-match does",
			num3(lo.QK), len(todo), len(lo.Points), rep.thr, closer)
		return rep, nil
	case pd.marginal:
		rep.skipped = "the fit imputes missing values, which its LOO draws anew from their model at each draw of the params; gpp sample --moment-match moves the posterior draws of both"
		return rep, nil
	}
	u, err := sgvb.NewUnconstrained(pipeline.Target{M: m}, pipeline.Latents(m))
	if err != nil {
		rep.skipped = err.Error()
		return rep, nil
	}
	logq := r.Defensive().LogDensity
	if mix != nil {
		logq = mix.LogQCoords
	}
	v, _ := ds.looVar()
	e, err := newMMEvaluator(m, u, v, workers, logq, rep)
	if err != nil {
		return nil, err
	}
	n := u.Dim()
	d := sgvb.MMDraws{Dim: n, X: make([]float64, S*n), LogP: make([]float64, S), LogG: make([]float64, S)}
	if mix != nil {
		d.Period = ds.R // draw s is restart s mod R's (makeDrawsAt)
	}
	// The densities at the draws themselves, in the unconstrained
	// coordinates, from their log ratio lr = log p − log g: log g plus the
	// Jacobian, and lr on top (no model evaluation).
	for s := range S {
		x, z := pd.xs[s*r.Dim:(s+1)*r.Dim], d.X[s*n:(s+1)*n]
		u.UCoords(x, z)
		d.LogG[s] = u.LogDensityAt(z, logq(x))
		d.LogP[s] = d.LogG[s] + pd.lr[s]
	}
	e.matchLOO(ctx, lo, ds.looObs, d, pd.ll, nil, todo)
	return rep, nil
}
