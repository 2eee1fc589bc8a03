package main

import (
	"io"
	"slices"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
)

// notice is one warning or hint that a fit prints after its summary.
// The notices are computed before the outputs are committed, so that
// fit.json lists the same texts the console prints (fitFileNotices),
// and printed after the summary in their order.
type notice struct {
	hint bool
	msg  string
	// pos, when known, positions a warning: it is printed as printError
	// prints a positioned error, with its source line and a caret.
	pos *ast.Pos
}

// text is the notice as fit.json holds it: the message, after its
// file:line:col as printed for a positioned warning.
func (n notice) text() string {
	if n.pos != nil {
		return (&ast.Error{Pos: *n.pos, Msg: n.msg}).Error()
	}
	return n.msg
}

// notices are a run's warnings and hints in the order printed.
type notices []notice

// warn adds the warnings msgs, skipping empty ones.
func (ns *notices) warn(msgs ...string) {
	for _, m := range msgs {
		if m != "" {
			*ns = append(*ns, notice{msg: m})
		}
	}
}

// hint adds the hints msgs, skipping empty ones.
func (ns *notices) hint(msgs ...string) {
	for _, m := range msgs {
		if m != "" {
			*ns = append(*ns, notice{hint: true, msg: m})
		}
	}
}

// warnAt adds positioned warnings, each message after prefix.
func (ns *notices) warnAt(prefix string, list []*ast.Error) {
	for _, e := range list {
		pos := e.Pos
		*ns = append(*ns, notice{msg: prefix + e.Msg, pos: &pos})
	}
}

// warnings returns the texts of the warnings (notice.text), never nil.
func (ns notices) warnings() []string { return ns.texts(false) }

// hints returns the texts of the hints, never nil.
func (ns notices) hints() []string { return ns.texts(true) }

func (ns notices) texts(hint bool) []string {
	out := []string{}
	for _, n := range ns {
		if n.hint == hint {
			out = append(out, n.text())
		}
	}
	return out
}

// print prints the notices to w in order: "gpp: warning: ..." and
// "gpp: hint: ...", a positioned warning with its source line from srcs.
func (ns notices) print(w io.Writer, srcs sources) {
	for _, n := range ns {
		switch {
		case n.pos != nil:
			printError(w, ast.Errorf(*n.pos, "warning: %s", n.msg), srcs)
		case n.hint:
			errorf(w, "hint: %s", n.msg)
		default:
			errorf(w, "warning: %s", n.msg)
		}
	}
}

// fileNotices are the warnings and hints fit.json lists (fitfile.File's
// warnings and hints): every one the run printed, in order. The
// warnings of plots that the commit leaves out (noteUnplotted) come
// between before and after.
type fileNotices struct {
	before, after, hints []string
}

// newFileNotices returns fit.json's lists: the warnings printed before the
// commit (the load's, loadWarnings, then before's) and the notices
// printed after the summary.
func newFileNotices(l *pipeline.Loaded, before []string, after notices) *fileNotices {
	return &fileNotices{before: append(loadWarnings(l), before...), after: after.warnings(), hints: after.hints()}
}

// loadNotices are the warnings printLoadWarnings prints: the model's
// positioned ones, then the data's.
func loadNotices(l *pipeline.Loaded) notices {
	var ns notices
	ns.warnAt("", l.Info.Warnings)
	ns.warn(l.Warnings...)
	return ns
}

// loadWarnings returns the texts of the load's warnings (loadNotices):
// the model's positioned ones as file:line:col: message, then the data's.
func loadWarnings(l *pipeline.Loaded) []string { return loadNotices(l).warnings() }

// fitNotices returns the warnings and hints gpp fit prints after the
// summary, in the order printed: the fit's (fitWarnings), --psis-resample's
// and --evidence's, the hints (fitHints, againstHint), separation, the
// draws' non-finite values and NaNs, LOO's k̂, moment matching's and
// inexact integer outputs. k and ess are q's (or the mixture's) Pareto k̂
// and relative ESS.
func fitNotices(cfg *fitConfig, s sgvb.Settings, l *pipeline.Loaded, r *sgvb.Result, mix *sgvb.Mixture, ds *drawSet, st []stats,
	ro *resampleOutcome, ev *evidenceOutcome, curv *curvCheck, k, ess float64) notices {
	var ns notices
	ns.warn(fitWarnings(r, mix)...)
	found := structureHints(l, r, mix, ds)
	if mix != nil {
		explained := slices.ContainsFunc(found, func(h string) bool { return h != "" })
		_, joint := fullRankAllAdvised(s, l.Model)
		ns.warn(restartsWarning(ds, st, mix, explained, joint))
	}
	ns.hint(risingHint(cfg, s, r, mix, false))
	ns.hint(degenerateScaleHint(s, l.Model, r, mix, observedScales(l.File, l.Info)))
	if ro != nil {
		ns.warn(resampleWarning(*ro, jointFlag(cfg)))
	}
	ns.evidence(ev)
	ns.fitHints(s, l, r, mix, found, k, ess, curv, cfg.autoLost, cfg.warmInit, cfg.curvSkipped)
	ns.hint(againstHint(cfg, s, k, ess, r.Dim, stepSeconds(r)))
	ns.hint(localOptimumHint(cfg, s, k, ess, r.Dim, observedValues(l), mixtureCall(l.File, l.Info) != nil))
	if mix == nil && s.Method != sgvb.MAP {
		ns.warnAt("", separationWarnings(ds.observed))
	}
	ns.warn(badDrawsWarning(ds, "output draws had a non-finite log joint or output (a log joint is written as NaN, an output as it is)"))
	ns.warn(nanWarnings(ds, st)...)
	ns.warn(boundPileWarning(r, ds, st), boundNearWarning(r, ds, st))
	if w := drawsLOOWarning(ds, l, k, ess, true, len(r.Groups) > 0, "--output-draws", jointAllFlag(s, l.Model)); w != "" {
		ns.warn(w + momentMatchAdvice(cfg, ds))
	}
	ns.warn(looPWarning(ds, r.Dim, k, ess, len(r.Groups) > 0, jointAllFlag(s, l.Model)))
	ns.warn(momentMatchWarning(ds.mm))
	ns.warn(inexactWarnings(ds, l.Info)...)
	ns.warn(indexWarnings(ds, l.Info)...)
	return ns
}

// evidence adds an estimate's warnings and the model's caveats about it
// (printEvidenceWarnings); nothing without one.
func (ns *notices) evidence(o *evidenceOutcome) {
	if o == nil {
		return
	}
	ns.warn(evidenceWarnings(o)...)
	ns.warnAt("--evidence: ", o.notes)
}

// stepSeconds returns the seconds per step of r's fit, its ELBO
// estimates during the steps included (againstHint's NUTS cost): up to
// its last trace point, so that the final estimate's draws (1000 or
// 10 000, whatever the steps) do not inflate a short fit's; r's whole
// time per iteration without a trace, 0 without iterations.
func stepSeconds(r *sgvb.Result) float64 {
	if n := len(r.Trace); n > 0 && r.Trace[n-1].Iter > 0 {
		return r.Trace[n-1].Seconds / float64(r.Trace[n-1].Iter)
	}
	if r.Iterations > 0 {
		return r.Seconds / float64(r.Iterations)
	}
	return 0
}
