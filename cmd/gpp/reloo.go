package main

// --reloo on gpp fit and gpp sample: loo's reloo (brms's reloo = TRUE).
// Each observation whose PSIS-LOO k̂ is still above 0.7 (after
// --moment-match, when given) is left out and the model refitted, or
// sampled, on the other rows, as gpp kfold does with that observation as
// its one held-out fold; its elpd_loo becomes the refit's estimate, its
// p_loo the full posterior's lpd less that, and its k̂ the k̂ of the
// refit estimate's terms (kfold.go).

import (
	"context"
	"fmt"
	"io"
	"runtime"

	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// relooLimit is the k̂ above which --reloo refits an observation: the
// threshold of the LOO warning and of gpp compare's count.
const relooLimit = 0.7

// relooReport is what --reloo did.
type relooReport struct {
	refit   int     // observations refitted
	still   int     // of them, those whose refit estimate's k̂ is above relooLimit
	elpd0   float64 // elpd_loo before
	skipped string  // why none could be refitted ("": they were, or none needed it)
	left    int     // observations left unrefitted by an interruption (Ctrl-C)
}

// relooFlag is --reloo's help, the same for gpp fit and gpp sample.
const relooFlag = "refit without each observation whose PSIS-LOO k̂ stays above 0.7 (after\n--moment-match, when given), as loo's reloo does, and take its elpd_loo from the\nrefit: the model on the other rows of the data (as gpp kfold splits them)\npredicting the one left out; needs an output log_lik, one element per row (default false)"

// reloo refits the observations of ds.loo whose k̂ is above relooLimit,
// each on the other rows of l's data, by the fit's settings (kc.nuts
// false) or NUTS's, on workers goroutines, and replaces their rows of
// ds.loo. Models whose observations cannot be split by rows (gpp kfold's
// conditions) are reported as skipped, with the reason.
func reloo(ctx context.Context, l *pipeline.Loaded, ds *drawSet, kc *kfoldConfig, workers int, con *console) *relooReport {
	lo := ds.loo
	rep := &relooReport{elpd0: lo.ELPD}
	var bad []int // LOO points
	for p, pt := range lo.Points {
		if !(pt.K <= relooLimit) {
			bad = append(bad, p)
		}
	}
	if len(bad) == 0 {
		return rep
	}
	if len(lo.Points) < 2 {
		rep.skipped = "there is one observation, and so no other row to refit on"
		return rep
	}
	// setupKfold checks the model's split on its fold 1, here one row
	// (folds as many as observations), and refuses missing values, so
	// that ds.looObs are all log_lik's elements; the refits' folds are
	// set below.
	kc.folds = len(lo.Points)
	su, err := setupKfold(l, kc, con)
	if err != nil {
		rep.skipped = err.Error()
		return rep
	}
	v, _ := ds.looVar()
	res := make([]foldResult, len(bad))
	done := make([]bool, len(bad))
	parallelJobs(ctx, len(bad), workers, func(_, b int) {
		one := *su
		one.k = 1
		one.fold = make([]int, su.n)
		for i := range one.fold {
			one.fold[i] = 1
		}
		one.fold[v.elems[ds.looObs[bad[b]]]] = 0
		res[b] = one.runFold(ctx, 0, kc)
		done[b] = res[b].err == nil
	})
	for b, p := range bad {
		if !done[b] {
			if ctx.Err() == nil && res[b].err != nil {
				con.note("warning: --reloo: the refit without %s failed, which keeps its PSIS estimate: %v", v.elemName(v.elems[ds.looObs[p]]), res[b].err)
			} else {
				rep.left++
			}
			continue
		}
		pt := &lo.Points[p]
		lpd := pt.ELPD + pt.P // the full posterior's log predictive density of the observation
		pt.ELPD, pt.K = res[b].elpd[0], res[b].kObs[0]
		pt.P = lpd - pt.ELPD
		rep.refit++
		if !(pt.K <= relooLimit) {
			rep.still++
		}
	}
	lo.Total()
	return rep
}

// relooConfig is the kfoldConfig of --reloo's refits: gpp fit's settings,
// each refit on one goroutine, its proposal joined by the fit to all
// data, full (nil: none); or, for a sample, NUTS's settings with the
// chains on one goroutine.
func relooConfig(cfg *fitConfig, ns *nuts.Settings, full *sgvb.Result) *kfoldConfig {
	kc := &kfoldConfig{fit: cfg, bridge: full, reloo: true}
	if ns != nil {
		kc.nuts, kc.ns = true, *ns
		kc.ns.Workers = 1
		kc.ns.SaveWarmup = false // the refits' warm-up is written nowhere
	}
	return kc
}

// printReloo prints the console line of --reloo (nothing for nil).
func printReloo(w io.Writer, rr *relooReport, lo float64) {
	switch {
	case rr == nil:
		return
	case rr.skipped != "":
		fmt.Fprintf(w, "reloo        not done: %s\n", rr.skipped)
		return
	case rr.refit == 0 && rr.left == 0:
		fmt.Fprintf(w, "reloo        none: no observation's k̂ is above %.2g\n", relooLimit)
		return
	case rr.refit == 0:
		fmt.Fprintf(w, "reloo        interrupted before its first refit: the %d with k̂ above %.2g keep their PSIS estimates\n", rr.left, relooLimit)
		return
	}
	left, still := "", ""
	if rr.left > 0 {
		left = fmt.Sprintf("; interrupted: %d more keep their PSIS estimates", rr.left)
	}
	if rr.still > 0 {
		still = fmt.Sprintf("; %d of the estimates rest%s on a few of the refit's draws (the k̂ of its terms above %.2g)", rr.still, map[bool]string{true: "s"}[rr.still == 1], relooLimit)
	}
	fmt.Fprintf(w, "reloo        refitted %d observation%s with k̂ above %.2g without its row: elpd_loo %.6g → %.6g%s%s\n",
		rr.refit, plural(rr.refit), relooLimit, rr.elpd0, lo, still, left)
}

// fitWorkers is the goroutines of a fit's --workers w (0: the number of
// CPUs, at most 4, as a fit's steps): --reloo's refits side by side, and
// --psis-resample's and --evidence's draws.
func fitWorkers(w int) int {
	if w > 0 {
		return w
	}
	return min(runtime.GOMAXPROCS(0), 4)
}

// relooBridge is the fit to all data whose q joins each refit's proposal:
// the fit's, or none for a mixture of restarts (whose components are
// separate fits; a refit's own draws then stand alone).
func relooBridge(r *sgvb.Result, mix *sgvb.Mixture) *sgvb.Result {
	if mix != nil {
		return nil
	}
	return r
}
