package main

// gpp fit --psis-resample: the output draws are q's draws importance-
// resampled towards the posterior by their Pareto-smoothed weights p/q
// (sgvb.Resample), as Stan's Pathfinder does by default (psis_resample).

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/compile"
)

// resampleOutcome is what --psis-resample did, for the outputs: rs the
// resampling (its k̂ and ESS), used whether the draws are the resampled
// ones (usable), distinct the number of distinct candidates among them.
type resampleOutcome struct {
	rs       *sgvb.Resampling
	used     bool
	distinct int
}

// psisResample draws M candidates of q (the fit r, or the mixture mix),
// weights them by the log joint of m, and, when they are usable, returns
// the output draws resampled from them and their summary, in place of q's
// draws ds and their summary st; else ds and st as they are. q's draws
// keep the LOO (resampled duplicates would bias it) and, for restarts,
// R̂, which compares the restarts' q's.
func psisResample(cfg *fitConfig, r *sgvb.Result, mix *sgvb.Mixture, m *compile.Model, ds *drawSet, st []stats) (*drawSet, []stats, resampleOutcome, error) {
	S, seed := cfg.outputDraws, cfg.settings.Seed
	par := fitWorkers(cfg.settings.Workers)
	var q sgvb.Proposal = r
	if mix != nil {
		q = mix
	}
	rs := sgvb.Resample(pipeline.Target{M: m}, q, r.Dim, sgvb.ResampleCandidates(S), S, seed, par)
	out := resampleOutcome{rs: rs}
	if !rs.Usable() {
		return ds, st, out, nil
	}
	rd, err := makeDrawsAt(r, mix, m, S, seed, rs.Index, false, nil)
	if err != nil {
		return nil, nil, out, err
	}
	rd.loo, rd.looObs, rd.looCond, rd.pitDraws, rd.mm, rd.waic = ds.loo, ds.looObs, ds.looCond, ds.pitDraws, ds.mm, ds.waic
	rst := make([]stats, rd.ncol)
	for c := range rd.cols {
		rst[c] = summarise(rd.cols[c], cfg.hdi, cfg.probs...)
		rst[c].rhat = st[c].rhat
	}
	out.used = true
	seen := map[int]bool{}
	for _, i := range rs.Index {
		seen[i] = true
	}
	out.distinct = len(seen)
	return rd, rst, out, nil
}

// resampleLine is the console line of a resampling (the value after
// "resampled").
func resampleLine(o resampleOutcome, S int) string {
	rs := o.rs
	var what string
	switch {
	case o.used:
		what = fmt.Sprintf("%d of %d draws of q by their Pareto-smoothed weights p/q (%d distinct): k̂ %s (%s), ESS %.0f", S, rs.Candidates, o.distinct, num3(rs.K), sgvb.ParetoReading(rs.K), rs.ESS)
	case math.IsNaN(rs.K):
		what = fmt.Sprintf("no: only %d of %d draws of q have a finite weight p/q, too few to smooth; the draws are q's", rs.Candidates-rs.Bad, rs.Candidates)
	default:
		what = fmt.Sprintf("no: the weights p/q of %d draws of q have k̂ %s (%s) and ESS %.0f, below the %d draws; the draws are q's", rs.Candidates, num3(rs.K), sgvb.ParetoReading(rs.K), rs.ESS, S)
	}
	if rs.Bad > 0 {
		what += fmt.Sprintf(" (%d candidates with a non-finite log joint have weight 0)", rs.Bad)
	}
	return what
}

// resampleWarning is the warning of a resampling whose weights are
// unreliable ("" otherwise); joint is the flag that made the fit's q one
// joint normal ("--fullrank all", "--family laplace" or "--family
// pathfinder"; "" for none: jointFlag), so that such a fit is not told to
// try --fullrank.
func resampleWarning(o resampleOutcome, joint string) string {
	rs := o.rs
	switch {
	case math.IsNaN(rs.K):
		return fmt.Sprintf("--psis-resample: %d of %d draws of q have a non-finite log joint, leaving too few weights to smooth: draws.csv and the summary hold q's own draws, not resampled", rs.Bad, rs.Candidates)
	case !o.used:
		try := ": try --fullrank, or a reparameterisation"
		if joint != "" {
			try = " even as one joint normal (" + joint + "), and its sds are likely too small where the posterior is skewed or heavy-tailed (a hierarchical scale of few groups): try a reparameterisation, or compare with MCMC"
		}
		return fmt.Sprintf("--psis-resample: Pareto k̂ = %s > 0.7 and ESS %.0f on %d draws of q: the importance weights p/q are too heavy-tailed to correct q (resampled draws would be copies of a few candidates), so draws.csv and the summary hold q's own draws, not resampled; q misses much of the posterior%s",
			num3(rs.K), rs.ESS, rs.Candidates, try)
	case !rs.Reliable():
		return fmt.Sprintf("--psis-resample: Pareto k̂ = %s > 0.7 on %d draws of q: the importance weights p/q are heavy-tailed, so the resampled draws (ESS %.0f, at least the %d draws; %d distinct) are not reliable either, although they are resampled; compare them with q's own (the fit without --psis-resample)",
			num3(rs.K), rs.Candidates, rs.ESS, len(rs.Index), o.distinct)
	}
	return ""
}

// jointFlag is the flag of cfg that makes its q one joint normal over
// every param, for resampleWarning ("" for none).
func jointFlag(cfg *fitConfig) string {
	switch {
	case cfg.settings.Method.JointNormal():
		return "--family " + cfg.settings.Method.String()
	case strings.TrimSpace(cfg.fullRank) == "all":
		return "--fullrank all"
	}
	return ""
}

// printResample prints the console line of a resampling (nothing for nil).
func printResample(w io.Writer, cfg *fitConfig, o *resampleOutcome) {
	if o == nil {
		return
	}
	fmt.Fprintf(w, "resampled    %s\n", resampleLine(*o, cfg.outputDraws))
}
