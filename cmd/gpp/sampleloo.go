package main

// PSIS-LOO from gpp sample's draws: the draws are of the posterior itself,
// so observation i's importance weights are 1/p(y_i | θ_s), Pareto
// smoothed with a tail as long as the draws' autocorrelation calls for, as
// the loo package's loo(log_lik, r_eff = relative_eff(exp(log_lik))) does.

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/lang/compile"
)

// sampleLOO sets sd.ds.loo from the draws of the output log_lik, when m has
// one: every element an observation but those at a missing cell of data
// (looObservations), each with its relative efficiency from the chains.
func sampleLOO(sd *sampleDraws, m *compile.Model) {
	if !hasLOOOutput(m) {
		return
	}
	ds := sd.ds
	v, _ := ds.looVar()
	obs := looObservations(v, m)
	ll := make([][]float64, len(obs))
	reff := make([]float64, len(obs))
	lik := make([]float64, len(ds.logp))
	for i, j := range obs {
		ll[i] = ds.cols[v.first+j]
		for s, x := range ll[i] {
			lik[s] = math.Exp(x)
		}
		reff[i] = relativeEff(sd.byChain(lik))
	}
	ds.loo, ds.looObs = sgvb.PSISLOOMCMC(ll, reff), obs
	ds.pitDraws = &looDraws{ll: ll, reff: reff}
}

// relativeEff is the relative efficiency ESS/S of the S draws in chains,
// by the plain ESS (not rank-normalised nor split) that the loo package's
// relative_eff takes. NaN for a constant or non-finite quantity or chains
// too short (PSISLOOMCMC then takes 1).
func relativeEff(chains [][]float64) float64 {
	S := 0
	for _, c := range chains {
		S += len(c)
	}
	return nuts.ESS(chains) / float64(S)
}

// mmReport is what --moment-match did to a sample's LOO.
type mmReport struct {
	matched  int     // observations moment matched: k̂ above sgvb.MMThreshold
	still    int     // of them, those whose k̂ stays above it
	elpd0    float64 // elpd_loo before
	evals    int     // points evaluated
	worst    float64 // the largest k̂ after, of the matched ones
	thr      float64 // sgvb.MMThreshold of the draws
	bad      int     // points where the log density or log_lik failed
	firstErr error   // the first such failure
}

// momentMatchSample re-estimates by sgvb.MomentMatchLOO each observation of
// sd's LOO whose k̂ is above sgvb.MMThreshold, moving the NUTS draws in the
// sampler's unconstrained coordinates and evaluating the log density (u)
// and log_lik (the model's outputs) at the moved points on workers
// goroutines; each point is evaluated alone, so the result does not
// depend on workers. With no observation to match, the report says so.
func momentMatchSample(sd *sampleDraws, m *compile.Model, u *sgvb.Unconstrained, workers int) (*mmReport, error) {
	lo, pd := sd.ds.loo, sd.ds.pitDraws
	if lo == nil || pd == nil {
		return nil, nil
	}
	S := sd.n * sd.chains
	thr := sgvb.MMThreshold(S)
	var todo []int
	for i, p := range lo.Points {
		if p.K > thr {
			todo = append(todo, i)
		}
	}
	if len(todo) == 0 {
		return &mmReport{thr: thr, elpd0: lo.ELPD}, nil
	}
	v, _ := sd.ds.looVar()
	if workers <= 0 || workers > runtime.GOMAXPROCS(0) {
		workers = runtime.GOMAXPROCS(0)
	}
	type worker struct {
		u     *sgvb.Unconstrained
		ev    *compile.Evaluator
		x, gr []float64
	}
	ws := make([]*worker, workers)
	for w := range ws {
		ev, err := m.NewEvaluator()
		if err != nil {
			return nil, err
		}
		ws[w] = &worker{u: u.Clone(), ev: ev, x: make([]float64, u.TargetDim()), gr: make([]float64, u.Dim())}
	}
	dim := sd.res.Dim
	d := sgvb.MMDraws{Dim: dim, X: make([]float64, 0, S*dim), LogP: make([]float64, 0, S)}
	for _, ch := range sd.res.Chains {
		d.X = append(d.X, ch.Draws[:sd.n*dim]...)
		d.LogP = append(d.LogP, ch.LogP[:sd.n]...)
	}
	rep := &mmReport{matched: len(todo), elpd0: lo.ELPD, thr: thr, worst: math.Inf(-1)}
	var mu sync.Mutex
	for _, i := range todo {
		elem := v.elems[sd.ds.looObs[i]]
		eval := func(xs, lp, ll []float64) {
			rows := len(lp)
			chunk := (rows + 4*workers - 1) / (4 * workers)
			var next atomic.Int64
			var wg sync.WaitGroup
			for _, w := range ws {
				wg.Go(func() {
					for c := int(next.Add(1) - 1); c*chunk < rows; c = int(next.Add(1) - 1) {
						for r := c * chunk; r < min((c+1)*chunk, rows); r++ {
							lp[r], ll[r] = math.NaN(), math.NaN()
							z := xs[r*dim : (r+1)*dim]
							l, err := w.u.LogDensity(z, w.gr)
							if err == nil {
								w.u.Coords(z, w.x)
								var outs [][]float64
								_, outs, err = w.ev.Eval(w.x)
								if err == nil {
									lp[r], ll[r] = l, outs[v.index][elem]
								}
							}
							if err != nil {
								mu.Lock()
								rep.bad++
								if rep.firstErr == nil {
									rep.firstErr = err
								}
								mu.Unlock()
							}
						}
					}
				})
			}
			wg.Wait()
		}
		d.Reff = pd.reff[i]
		r := sgvb.MomentMatchLOO(d, pd.ll[i], eval)
		lo.Points[i] = r.Point
		rep.evals += r.Evals
		if !(r.Point.K <= thr) {
			rep.still++
		}
		rep.worst = math.Max(rep.worst, r.Point.K)
	}
	lo.Total()
	return rep, nil
}

// printMomentMatch prints the console line of --moment-match (nothing for
// nil: no --moment-match).
func printMomentMatch(w io.Writer, mm *mmReport) {
	switch {
	case mm == nil:
		return
	case mm.matched == 0:
		fmt.Fprintf(w, "moment match none: no observation's k̂ is above %.2g\n", mm.thr)
		return
	}
	fmt.Fprintf(w, "moment match %d observation%s with k̂ above %.2g: k̂ still above it for %d (the largest now %s); elpd_loo before %.6g; %d draws evaluated\n",
		mm.matched, plural(mm.matched), mm.thr, mm.still, num3(mm.worst), mm.elpd0, mm.evals)
}
