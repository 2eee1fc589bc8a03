package main

import (
	"context"
	"fmt"
	"maps"
	"strings"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// fullRankAuto is --fullrank's word for the joint factor that the
// curvature check of a mean-field fit chooses (autoFullRankFit).
const fullRankAuto = "auto"

// autoCurvRatio is the sd ratio from which --fullrank auto refits where no
// sd reaches the hint's curvRatio (there it takes the hint's group): lower,
// since the higher ELBO decides and the user asked for the comparison (a
// centred eight-schools-like model's tau, 1.2× too small by the curvature
// and 1.35× by NUTS, stays mean-field at curvRatio; a user trial of
// 2026-11-30). Bringing every sd under autoCurvRatio where some is at
// curvRatio would grow the group (pumps: alpha+beta+theta, 10 more gamma
// elements, whose ELBO is 0.4 below mean-field's, against alpha+beta's
// 0.3 above).
const autoCurvRatio = 1.1

// autoFullRankFit is --fullrank auto after the mean-field fit r (settings
// s): where the curvature check (meanFieldCurvature) finds sds at least
// autoCurvRatio times too small and a joint factor within the limits that
// brings them under it (curvGroup; else the group the mean-field hint
// names),
// it fits again with that factor and keeps the fit with the higher ELBO,
// as the hint advises; cfg.fullRank then names the group, for the outputs'
// headers and fit.json. It returns the fit kept, its settings and, where
// the mean-field fit is kept, its curvature check (nil otherwise, or where
// the check does not run), whose hint then says what was tried. Each step
// is said in a note.
func autoFullRankFit(ctx context.Context, cfg *fitConfig, l *pipeline.Loaded, r *sgvb.Result, s sgvb.Settings, con *console) (*sgvb.Result, sgvb.Settings, *curvCheck) {
	const head = "note: --fullrank auto: "
	cc := meanFieldCurvature(ctx, s, l, r)
	if cc == nil {
		con.note(head+"the curvature check did not run (%s), so the mean-field fit is kept", curvSkipReason(s, r))
		return r, s, nil
	}
	bad := cc.bad(autoCurvRatio)
	if len(bad) == 0 {
		worst, at := 0.0, 0
		for i, v := range cc.c.Ratio {
			if v > worst {
				worst, at = v, i
			}
		}
		con.note(head+"by the log density's curvature no sd of the mean-field q is %.1f× too small (the largest ratio %s×, %s), so the mean-field fit is kept", autoCurvRatio, ratioText(worst), cc.names[at])
		return r, s, cc
	}
	min := autoCurvRatio
	if hb := cc.bad(curvRatio); len(hb) > 0 { // the hint's group, for the elements it names
		bad, min = hb, curvRatio
	}
	group, n, left := curvGroup(cc, bad, min)
	if group == nil {
		con.note(head+"no joint factor of at most %d elements (%d of gamma factors) repairs the sds the curvature check finds too small, so the mean-field fit is kept (the hint below)", sgvb.MaxFullRank, curvMaxGamma)
		return r, s, cc
	}
	flag := strings.Join(group, "+")
	s2 := s
	s2.Families, s2.FullRankGroups = maps.Clone(s.Families), nil
	if s2.Families == nil {
		s2.Families = map[string]sgvb.Family{}
	}
	if len(group) == 1 {
		s2.Families[group[0]] = sgvb.FamilyFullRank
	} else {
		s2.FullRankGroups = [][]string{group}
	}
	notes, err := checkFullRank(&s2, l.Model)
	if err != nil {
		con.note(head+"--fullrank %s: %v; the mean-field fit is kept", flag, err)
		return r, s, cc
	}
	for _, n := range notes {
		con.note("note: %s", n)
	}
	con.info("--fullrank auto: %s's sd is about %s× too small by the curvature; refitting with --fullrank %s (%d elements, leaving no sd more than %.1f× too small by it)",
		cc.names[bad[0]], ratioText(cc.c.Ratio[bad[0]]), flag, n, left)
	con.start(s2.MaxIter, s2.EvalEvery, 1, pointObjective(s2.Method)) // s2.Progress is the mean-field fit's
	r2, err := sgvb.Fit(ctx, runTarget(cfg, l.Model), pipeline.Latents(l.Model), s2)
	con.finish()
	switch {
	case err != nil:
		con.note(head+"the fit with --fullrank %s failed (%v); the mean-field fit is kept", flag, err)
	case r2.Interrupted:
		con.note(head+"the fit with --fullrank %s was interrupted; the mean-field fit is kept", flag)
	case !(r2.ELBO > r.ELBO):
		con.note(head+"--fullrank %s's ELBO %s ± %.2g is not above the mean-field fit's %s ± %.2g, so the mean-field fit is kept", flag, numText(r2.ELBO, "%.6g"), r2.ELBOSE, numText(r.ELBO, "%.6g"), r.ELBOSE)
	default:
		con.note(head+"--fullrank %s's ELBO %s ± %.2g is above the mean-field fit's %s ± %.2g, so the fit with --fullrank %s is kept (the outputs are its; fit took the two fits' time)", flag, numText(r2.ELBO, "%.6g"), r2.ELBOSE, numText(r.ELBO, "%.6g"), r.ELBOSE, flag)
		r2.Seconds += r.Seconds
		cfg.fullRank, cfg.settings = flag, s2
		return r2, s2, nil
	}
	cc.autoLost = flag
	return r, s, cc
}

// curvSkipReason says why meanFieldCurvature did not run the check on
// fit r (settings s), for --fullrank auto's note.
func curvSkipReason(s sgvb.Settings, r *sgvb.Result) string {
	switch {
	case r.Interrupted:
		return "the fit was interrupted"
	case r.Dim > sgvb.MaxLaplace:
		return fmt.Sprintf("%d coordinates, more than its %d", r.Dim, sgvb.MaxLaplace)
	case !curvAffordable(s, r):
		return fmt.Sprintf("its %d gradients would cost more than the fit's %d steps", 2*r.Dim, r.Iterations)
	}
	return "the log density's −H at q's mode is not positive definite: a funnel, or q far from a mode"
}
