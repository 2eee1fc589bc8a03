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

// Candidates of the resampling: M = max(resampleFactor·S, minCandidates)
// draws of q for S output draws. Resampling with replacement gives draws
// of the posterior as M/S grows (Rubin 1988; Skare, Bølviken and Holden
// 2003: the error of the resampled draws' distribution is O(1/M)); with M =
// S, Pathfinder's default, a draw of weight w is repeated about S·w times,
// and the resampled draws hold about as many distinct values as the
// weights' effective sample size, which M = 10·S lifts near S for weights
// of ESS M/10 or more. At least 1000 candidates give k̂ a tail of 95
// weights to fit.
const (
	resampleFactor = 10
	minCandidates  = 1000
)

// resampleCandidates returns M for S output draws.
func resampleCandidates(S int) int { return max(resampleFactor*S, minCandidates) }

// resampleOutcome is what --psis-resample did, for the outputs: rs the
// resampling (its k̂ and ESS), used whether the draws are the resampled
// ones (usable), distinct the number of distinct candidates among them.
type resampleOutcome struct {
	rs       *sgvb.Resampling
	used     bool
	distinct int
}

// usable reports whether the resampled draws replace q's: the weights'
// k̂ is at most 0.7, where Yao et al. trust the importance-weighted
// correction, or, above 0.7, their ESS is still at least the S draws
// asked for. A k̂ above 0.7 with a small ESS means the resampled draws
// would be copies of a few candidates (examples/sv.gpp with --fullrank
// all --rank 2: k̂ 1.48, ESS 3, 84 distinct draws of 1000), which
// describe the posterior worse than q; with an ESS of S or more they cannot be, and such k̂
// arise where q is close to the posterior and the tail fit sees a
// pre-asymptotic shape: a 1-D q whose log weight has a plateau in the bulk
// and a slow rise in one tail had k̂ 3–5 at ESS 35–99.5 % of 10000
// (docs/inference.md). Pathfinder resamples whatever k̂ and ESS. With
// fewer than sgvb.PSISMinDraws (21) finite weights there is no k̂ and nothing to resample.
func usable(rs *sgvb.Resampling, S int) bool {
	return rs.Index != nil && !math.IsNaN(rs.K) && (rs.Reliable() || rs.ESS >= float64(S))
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
	rs := sgvb.Resample(pipeline.Target{M: m}, q, r.Dim, resampleCandidates(S), S, seed, par)
	out := resampleOutcome{rs: rs}
	if !usable(rs, S) {
		return ds, st, out, nil
	}
	rd, err := makeDrawsAt(r, mix, m, S, seed, rs.Index, false)
	if err != nil {
		return nil, nil, out, err
	}
	rd.loo, rd.looObs, rd.pitDraws, rd.mm = ds.loo, ds.looObs, ds.pitDraws, ds.mm
	rst := make([]stats, rd.ncol)
	for c := range rd.cols {
		rst[c] = summarise(rd.cols[c], cfg.hdi)
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
