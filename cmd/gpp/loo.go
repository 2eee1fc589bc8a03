package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/lang/compile"
)

// looOutput is the output that holds the log likelihood of each
// observation at a draw, by Stan's convention (the loo package reads a
// generated quantity of this name).
const looOutput = "log_lik"

// wantsLOO reports whether a fit of m by method estimates leave-one-out
// cross-validation: m has an output named log_lik and q is a distribution
// (a MAP point has no draws to weight).
func wantsLOO(m *compile.Model, method sgvb.Method) bool {
	if method == sgvb.MAP {
		return false
	}
	for _, o := range m.Outputs {
		if o.Name == looOutput {
			return true
		}
	}
	return false
}

// looOf estimates PSIS-LOO from the output draws: every element of the
// log_lik output is an observation, each draw is weighted by p/q
// (sgvb.PSISLOO). Draws whose log joint is not finite have weight 0.
func looOf(ds *drawSet) *sgvb.LOO {
	for _, v := range ds.vars {
		if !v.output || v.name != looOutput {
			continue
		}
		S := len(ds.logp)
		lr := make([]float64, S)
		for d := range S {
			lr[d] = ds.logp[d] - ds.logq[d]
		}
		ll := make([][]float64, len(v.elems))
		for j := range v.elems {
			ll[j] = ds.cols[v.first+j]
		}
		return sgvb.PSISLOO(lr, ll)
	}
	return nil
}

// writeLOOCSV writes loo.csv: a comment line with elpd_loo, its standard
// error and p_loo, then per observation (the log_lik element) its elpd_loo
// and p_loo to full precision (gpp compare sums and differences them) and
// its Pareto k̂.
func writeLOOCSV(w io.Writer, ds *drawSet) error {
	lo := ds.loo
	fmt.Fprintf(w, "# elpd_loo = %s, se = %s, p_loo = %s, pareto_k above 0.7: %d of %d\n",
		formatNum(lo.ELPD), formatNum(lo.SE), formatNum(lo.P), lo.BadK(), len(lo.Points))
	cw := csv.NewWriter(w)
	cw.Write([]string{"name", "elpd_loo", "p_loo", "pareto_k"})
	for _, v := range ds.vars {
		if !v.output || v.name != looOutput {
			continue
		}
		for j, k := range v.elems {
			p := lo.Points[j]
			cw.Write([]string{elemName(v.name, v.shape, k), formatExact(p.ELPD), formatExact(p.P), formatNum(p.K)})
		}
	}
	cw.Flush()
	return cw.Error()
}

// printLOO prints the console line of a LOO estimate (nothing for nil).
func printLOO(w io.Writer, lo *sgvb.LOO) {
	if lo == nil {
		return
	}
	n := len(lo.Points)
	fmt.Fprintf(w, "LOO          elpd_loo %.6g ± %.3g, p_loo %.3g; Pareto k̂ above 0.7 for %d of %d observations\n",
		lo.ELPD, lo.SE, lo.P, lo.BadK(), n)
}

// looWarning explains unreliable LOO estimates, or is "". Where q's own
// draws have a heavy-tailed p/q (k̂ above 0.7 on the output draws, or
// fitK, the fit's own k̂ from its final draws), every observation's weights
// inherit that tail, and the cause is q, not the observations: the two k̂
// come from different draws, and either may cross 0.7 alone. listed says
// whether loo.csv was written (a :fit without --out writes none).
func looWarning(lo *sgvb.LOO, fitK float64, listed bool) string {
	if lo != nil && len(lo.Points) == 1 {
		return "LOO: log_lik has one element, so it leaves out one observation of one: give log_lik an element per observation (logpdf(y, D(...)), not its sum)"
	}
	if lo == nil || lo.BadK() == 0 {
		return ""
	}
	worst, unfit := math.Inf(-1), 0
	for _, p := range lo.Points {
		switch {
		case math.IsNaN(p.K):
			unfit++
		case p.K > worst:
			worst = p.K
		}
	}
	if math.IsNaN(lo.QK) || unfit == len(lo.Points) {
		// Fewer than 10 draws with a finite weight: no tail to fit, so
		// no k̂, and the weights are not smoothed.
		return fmt.Sprintf("LOO: no Pareto k̂ for %d of %d observations: fewer than 10 output draws have a finite weight p/q, too few to fit the weights' tail, so elpd_loo is plain importance sampling and unreliable; use more --output-draws (Stan's loo wants hundreds)", unfit, len(lo.Points))
	}
	list := "loo.csv lists them"
	if !listed {
		list = ":fit --out DIR lists them in DIR/loo.csv"
	}
	what := fmt.Sprintf("LOO: Pareto k̂ above 0.7 for %d of %d observations (the largest %s; %s)", lo.BadK(), len(lo.Points), num3(worst), list)
	if unfit > 0 {
		what = fmt.Sprintf("LOO: Pareto k̂ above 0.7 or not estimated for %d of %d observations (%d without one: too few draws with a finite weight; the largest %s; %s)", lo.BadK(), len(lo.Points), unfit, num3(worst), list)
	}
	if !(lo.QK <= 0.7) || fitK > 0.7 {
		return what + fmt.Sprintf(": the weights p/q of q's own draws have k̂ %s on the output draws and %s on the fit's final ones (q's tails are lighter than the posterior's somewhere, as a gamma factor's are for a scale's inverse-gamma-like tail), so elpd_loo may be unreliable: check that it holds with more --output-draws, or with --fullrank all", num3(lo.QK), num3(fitK))
	}
	return what + ": their elpd_loo, and so the total, is unreliable; such observations are influential, and K-fold cross-validation (refitting without them) settles it"
}
