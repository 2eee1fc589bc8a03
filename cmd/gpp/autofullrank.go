package main

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/compile"
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
// names), it fits again with that factor, and with --fullrank all where
// that is another factor of at most sgvb.MaxFullRank elements (also
// where no group is within curvMaxGamma gamma elements), or where no
// group is within the limits and --fullrank all would pass
// sgvb.MaxFullRank, with --fullrank all --rank autoLowRank (a low-rank
// joint factor, curvCheck.triesLowRank), and keeps the fit autoPrefer
// chooses by convergence and ELBO (autoRefits); cfg.fullRank (and
// cfg.rank) then name its group, for the outputs' headers and fit.json. Where the check does not
// run (a funnel's −H at q's mode, not positive definite), it fits
// --fullrank all on the same terms (an MRP model's crossed effects,
// non-centred: +7.9 nats, its sds nearer NUTS's), as the Pareto k̂ rule's
// hint (meanFieldHint) advises where k̂ raises the alarm (its info line
// cites no hint: where k̂ does not, none is printed), and records in
// cfg.autoLost that it lost where it did; where the check is partial
// with normal factors, it fits the group that check's hint names first
// (partialGroup), and where nothing else is tried and --fullrank all is
// past sgvb.MaxFullRank, --fullrank all --rank autoLowRank, its note
// saying why not where it does not (noLowRankText). Where the banded-factor hint
// names a centred chain (autoWalkCand), its band is the first refit,
// check or none. Where the check finds no sd too small but r's Pareto k̂
// is not good (autoKOff), it fits --fullrank all too (within
// sgvb.MaxFullRank), since the check is local.
// It returns the fit kept, its settings and, where
// the mean-field fit is kept, its curvature check (nil otherwise, or where
// the check does not run), whose hint then says what was tried. Each step
// is said in a note.
func autoFullRankFit(ctx context.Context, cfg *fitConfig, l *pipeline.Loaded, r *sgvb.Result, s sgvb.Settings, con *console) (*sgvb.Result, sgvb.Settings, *curvCheck) {
	const head = "note: --fullrank auto: "
	cfg.autoLost = ""
	walk := autoWalkCand(s, l, r)
	cc, skipped := meanFieldCurvature(ctx, s, l, r)
	why, tie := "", tieUnchecked
	var hinted []string // the partial check's hint's group (partialGroup), of nh elements
	nh := 0
	switch {
	case cc != nil && cc.joinLeft:
		// a partial check with normal factors: its ratios are lower bounds
		// and the funnel's neck is unchecked, no ground to keep q by, so
		// auto fits the group its hint names (a lower bound too small is
		// too small), then all as where no check runs (an MRP trial's
		// non-centred funnel: --fullrank all, +7.9 nats; another's, 103
		// elements, had been kept untried: its hint's group gained 6.8)
		why, tie = partialAutoText(cc), tiePartial
		hinted, nh = partialGroup(cc)
		cc = nil
	case cc == nil:
		if skipped == "" {
			skipped = curvSkipReason(s, r)
		}
		why = "the curvature check did not run (" + skipped + ")"
	}
	if cc == nil {
		all := fullRankAllSize(l.Model)
		lowAll, lowGamma := lowRankAllSize(l.Model, r)
		ok := !r.Interrupted && ctx.Err() == nil
		var cands, refits []string
		comma := "" // before "to keep", after a refit's clause
		if walk != "" && ok {
			cands = append(cands, walk)
			refits = append(refits, fmt.Sprintf("--fullrank %s, which holds the chain the hint below names", walk))
			comma = ","
		}
		if hinted != nil && ok {
			g := strings.Join(hinted, "+")
			cands = append(cands, g)
			refits = append(refits, fmt.Sprintf("--fullrank %s (%d elements), the group the mean-field fit's hint names by those lower bounds", g, nh))
			comma = ","
		}
		if ok && triesAll(all, len(r.Factors), hinted) {
			cands = append(cands, "all")
			refits = append(refits, fmt.Sprintf("--fullrank all (%d elements)", all))
			comma = ""
		}
		// past sgvb.MaxFullRank, where nothing else is tried, every param
		// in a low-rank joint factor (as where the check finds no group
		// within the limits): a value-added model of 4249 coordinates,
		// past the check's, had been kept mean-field untried
		lowWhy := noLowRankText(all, lowAll, lowGamma)
		if ok && len(cands) == 0 && lowWhy == "" {
			cands = append(cands, lowRankFlag)
			refits = append(refits, fmt.Sprintf("--fullrank %s (a low-rank joint factor over all %d elements: a full-rank one holds at most %d)", lowRankFlag, lowAll, sgvb.MaxFullRank))
		}
		switch {
		case len(cands) == 0 && ok:
			con.note(head+"%s, and %s, so the mean-field fit is kept", why, lowWhy)
			return r, s, nil
		case len(cands) == 0:
			con.note(head+"%s, so the mean-field fit is kept", why)
			return r, s, nil
		}
		con.info("--fullrank auto: %s; refitting with %s%s to keep the fit with the higher ELBO", why, strings.Join(refits, ", then with "), comma)
		best, bestS, lost := autoRefits(ctx, cfg, l, r, s, con, cands, why+"; ", tie)
		cfg.autoLost = lost
		return best, bestS, nil
	}
	bad := cc.bad(autoCurvRatio)
	if len(bad) == 0 {
		kOff := autoKOff(r) && cc.triesAll(nil)
		if walk == "" && !kOff {
			con.note(head+"%s, so the mean-field fit is kept", autoKeptText(cc))
			return r, s, cc
		}
		why := autoKeptText(cc)
		var cands, buts []string
		if walk != "" {
			cands, buts = append(cands, walk), append(buts, "the hint below names a chain it does not hold")
		}
		if kOff {
			cands = append(cands, "all")
			buts = append(buts, fmt.Sprintf("that check is local (the curvature at q's mode sees no skew or heavy tail), and the fit's Pareto k̂, %s, is not good (good is below %s), which says q misses the posterior", kText(r.ParetoK), kText(autoKGood)))
		}
		why += ", but " + strings.Join(buts, ", and ")
		refit := "--fullrank " + cands[0]
		if kOff {
			refit = fmt.Sprintf("--fullrank all (%d elements)", cc.all)
			if walk != "" {
				refit = "--fullrank " + walk + ", then with " + refit
			}
		}
		con.info("--fullrank auto: %s; refitting with %s to keep the fit with the higher ELBO", why, refit)
		best, bestS, lost := autoRefits(ctx, cfg, l, r, s, con, cands, why+"; ", "")
		if best != r {
			return best, bestS, nil
		}
		cc.autoLost = lost
		return r, s, cc
	}
	min := autoCurvRatio
	if hb := cc.bad(curvRatio); len(hb) > 0 { // the hint's group, for the elements it names
		bad, min = hb, curvRatio
	}
	group, n, left := curvGroup(cc, bad, min)
	cands, pair, pn, pleft := autoGroupCands(cc, bad, group)
	first := "" // the banded refit, the larger cure (walkFirst), tried first
	if walk != "" {
		first = fmt.Sprintf("--fullrank %s (which holds the chain the hint below names), then with ", walk)
	}
	switch {
	case group == nil && pair != nil:
		more := ""
		if len(cands) > 1 {
			more = ", then with --fullrank " + cands[1]
		}
		con.info("--fullrank auto: %s's sd is about %s× too small by the curvature, and no joint factor of at most %d elements (%d of gamma factors) brings every sd under %.1f×; refitting with %s--fullrank %s (%d elements, the pair the curvature names; by it, their sds are left at most %.1f× too small)%s",
			cc.names[bad[0]], ratioText(cc.c.Ratio[bad[0]]), sgvb.MaxFullRank, curvMaxGamma, min, first, cands[0], pn, pleft, more)
	case len(cands) == 0 && walk == "":
		con.note(head+"no joint factor of at most %d elements (%d of gamma factors) repairs the sds the curvature check finds too small, so the mean-field fit is kept (the hint below)", sgvb.MaxFullRank, curvMaxGamma)
		cc.autoNone = true
		return r, s, cc
	case len(cands) == 0:
		con.info("--fullrank auto: %s's sd is about %s× too small by the curvature, and no joint factor of at most %d elements (%d of gamma factors) repairs it; refitting with --fullrank %s, which holds the chain the hint below names",
			cc.names[bad[0]], ratioText(cc.c.Ratio[bad[0]]), sgvb.MaxFullRank, curvMaxGamma, walk)
	case cands[0] == lowRankFlag:
		con.info("--fullrank auto: %s's sd is about %s× too small by the curvature, and no full-rank joint factor of at most %d elements (at most %d of them of gamma factors) repairs it; refitting with %s--fullrank %s (a low-rank joint factor over all %d elements)",
			cc.names[bad[0]], ratioText(cc.c.Ratio[bad[0]]), sgvb.MaxFullRank, curvMaxGamma, first, lowRankFlag, cc.lowAll)
	case group == nil:
		con.info("--fullrank auto: %s's sd is about %s× too small by the curvature, and no group of at most %d elements of gamma factors repairs it; refitting with %s--fullrank all (%d elements)",
			cc.names[bad[0]], ratioText(cc.c.Ratio[bad[0]]), curvMaxGamma, first, cc.all)
	default:
		con.info("--fullrank auto: %s's sd is about %s× too small by the curvature; refitting with %s--fullrank %s (%d elements; by the curvature at q's mode, a local normal view that sees no skew or heavy tail, it leaves no sd more than %.1f× too small)%s",
			cc.names[bad[0]], ratioText(cc.c.Ratio[bad[0]]), first, cands[0], n, left, map[bool]string{true: ", then with --fullrank all", false: ""}[len(cands) > 1])
	}
	if walk != "" {
		cands = append([]string{walk}, cands...)
	}
	best, bestS, lost := autoRefits(ctx, cfg, l, r, s, con, cands, "", tieChecked)
	if best != r {
		return best, bestS, nil
	}
	// the hint says the refits lost only where one ended; else it is
	// the mean-field hint, naming the group to try
	cc.autoLost = lost
	return r, s, cc
}

// autoGroupCands returns the joint factors --fullrank auto refits with,
// in order, where the curvature check finds the elements bad too small:
// group (curvGroup's, nil for none within the limits); else the pair the
// curvature names where it mends the worst (pairGroup, with its size and
// the ratio it leaves); then --fullrank all or, past sgvb.MaxFullRank,
// --fullrank all --rank autoLowRank.
func autoGroupCands(cc *curvCheck, bad []int, group []string) (cands, pair []string, pn int, pleft float64) {
	if group != nil {
		cands = append(cands, strings.Join(group, "+"))
	} else if pair, pn, pleft, _ = pairGroup(cc, bad); pair != nil {
		// no group mends them all: the pair mends the worst
		cands = append(cands, strings.Join(pair, "+"))
	}
	// --fullrank all, every param joint (Stan's fullrank), within
	// sgvb.MaxFullRank elements however many have gamma factors: the ELBO
	// decides, and where a group holds too many gamma elements to be
	// named it may still win (a claims triangle's 45 missing cells: all
	// +9.4 nats, the reserve's sd as NUTS's; GPFA's 88 lose 11–19).
	if cc.triesAll(group) {
		cands = append(cands, "all")
	}
	// past it, with no group within the limits, every param in a low-rank
	// joint factor (autoLowRank): a psycholinguist's crossed random
	// effects, 117 elements, gained 7.4 nats (triesLowRank)
	if cc.triesLowRank(group) {
		cands = append(cands, lowRankFlag)
	}
	return cands, pair, pn, pleft
}

// autoKGood is the Pareto k̂ below which a fit's reading is "good"
// (sgvb.ParetoReading).
const autoKGood = 0.5

// autoKOff reports whether mean-field fit r's Pareto k̂ is not good
// (autoKGood or more), where --fullrank auto also fits --fullrank all
// though the curvature check finds no sd too small: the check is local (a
// normal view at q's mode) and misses a posterior that is not normal. A
// materials scientist's Kennedy–O'Hagan calibration (4 params, a GP
// discrepancy) kept mean-field at seed 2, theta's sd 0.0176 against
// NUTS's 0.0245, at k̂ 0.59, where all's ELBO is 0.145 higher (3.8
// standard errors) and its sd 0.0194 (a user trial of 2026-12-02).
func autoKOff(r *sgvb.Result) bool {
	return !math.IsNaN(r.ParetoK) && r.ParetoK >= autoKGood
}

// autoWalkCand returns the banded factor (as autoRefits takes it: h
// --band 1, or h,g --band 2 for several chains, the widest band) that
// holds the centred chains the hint of mean-field fit r (settings s)
// names (hintedWalks: where Pareto k̂ raises the alarm), "" where it names
// none. --fullrank auto fits it where the hint advises it, curvature check
// or none: on a centred stochastic-volatility model (T = 500) the check
// does not run (−H at q's mode not positive definite), --fullrank all is
// past sgvb.MaxFullRank, and auto kept the mean-field fit (phi 0.005,
// NUTS 0.83) 6 nats below --fullrank h --band 1's. A chain over coordinates
// that are not its elements (walkParam.coords) needs a full-rank factor,
// which the curvature's group and all already are, so it is left out.
func autoWalkCand(s sgvb.Settings, l *pipeline.Loaded, r *sgvb.Result) string {
	var names []string
	band := 0
	for _, p := range gapWalks(hintedWalks(s, l.File, l.Info, missingLatents(l.Model), r.ParetoK, r.ParetoRelESS), l.Model) {
		if p.coords || slices.Contains(names, p.lat.Name) {
			continue
		}
		names = append(names, p.lat.Name)
		band = max(band, p.band)
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("%s --band %d", strings.Join(names, ","), band)
}

// autoRefits fits again each of cands (as --fullrank takes them: a group
// a+b, or all, or lowRankFlag's all --rank R) after the mean-field fit r (settings s), the same seed and
// settings, and keeps the fit autoPrefer chooses (checked: the mean-field
// fit's curvature check found its sds too small), or among refits whose
// ELBOs are within the noise the one of lower Pareto k̂ (autoLowerK), saying in a note
// (opened by why, "" or a clause ending "; ") every ELBO, each
// comparison's verdict and which is kept; where a refit is kept, cfg.fullRank and cfg.settings name it and
// its Seconds are all the fits' (cfg.rank a low-rank one's R). It returns the fit kept, its settings
// and, where the mean-field fit is kept, the refits that ended, joined as
// the hints name them ("" where none did).
func autoRefits(ctx context.Context, cfg *fitConfig, l *pipeline.Loaded, r *sgvb.Result, s sgvb.Settings, con *console, cands []string, why string, tie string) (*sgvb.Result, sgvb.Settings, string) {
	const head = "note: --fullrank auto: "
	best, bestS, bestFlag, seconds := r, s, "", r.Seconds
	var ended []autoCand // the refits that ended, their ELBOs compared
	var whys []string    // each comparison's verdict (autoPrefer)
	var cmps []autoCmp   // each comparison, to word its verdict again
	var unconv []string  // the refits that ran s.MaxIter steps unconverged
	elbos := []string{"mean-field " + autoELBOText(r)}
	warm := refitSettings(s, r)
	cold := map[string]string{} // the refits kept from the mean-field fit's start (warmFellBelow): coldStart's name of it
	for _, flag := range cands {
		s2 := warm
		s2.Families, s2.FullRankGroups = maps.Clone(s.Families), nil
		if s2.Families == nil {
			s2.Families = map[string]sgvb.Family{}
		}
		var group string
		group, s2.Rank, s2.Band = autoFlagParts(flag)
		for _, item := range strings.Split(group, ",") { // as --fullrank reads them
			addFullRankItem(&s2, strings.Split(item, "+"), s2.Rank, s2.Band)
		}
		notes, err := checkFullRank(&s2, l.Model)
		if err != nil {
			con.note(head+"%s--fullrank %s: %v", why, flag, err)
			continue
		}
		for _, n := range notes {
			con.note("note: %s", n)
		}
		con.start(s2.MaxIter, s2.EvalEvery, 1, pointObjective(s2.Method)) // s2.Progress is the mean-field fit's
		r2, err := sgvb.Fit(ctx, runTarget(cfg, l.Model), pipeline.Latents(l.Model), s2)
		con.finish()
		switch {
		case err != nil:
			con.note(head+"%sthe fit with --fullrank %s failed (%v)", why, flag, err)
			continue
		case r2.Interrupted:
			con.note(head+"%sthe fit with --fullrank %s was interrupted", why, flag)
			continue
		}
		seconds += r2.Seconds
		elbo := "--fullrank " + flag + " " + autoELBOText(r2)
		if s2.Init != nil && warmFellBelow(r, r2) {
			// started at the mean-field q, it should end no lower: the warm
			// start hurt (a synthetic control's Dirichlet weights, stuck on
			// the wrong donors), so the refit from the default start too
			sc := s2
			sc.Init, sc.InitPath = s.Init, s.InitPath
			con.start(sc.MaxIter, sc.EvalEvery, 1, pointObjective(sc.Method))
			rc, err := sgvb.Fit(ctx, runTarget(cfg, l.Model), pipeline.Latents(l.Model), sc)
			con.finish()
			if err == nil && !rc.Interrupted {
				seconds += rc.Seconds
				// the higher ELBO beyond the noise, converged or not: the warm
				// refit's convergence is at the poorer optimum
				gap, se := rc.ELBO-r2.ELBO, math.Hypot(r2.ELBOSE, rc.ELBOSE)
				take := !sgvb.Overflows(rc.ELBO, rc.ELBOSE) && rc.FinalBad == 0 && gap > autoELBOZ*se
				elbo = fmt.Sprintf("--fullrank %s %s from the mean-field fit, %.3g below that fit's, so refitted from %s: %s (%+.3g ± %.2g: %s)",
					flag, autoELBOText(r2), r.ELBO-r2.ELBO, coldStart(s), autoELBOText(rc), gap, se,
					map[bool]string{true: "that refit is the one compared", false: fmt.Sprintf("not more than %d standard errors higher, so the first is compared", autoELBOZ)}[take])
				if take {
					r2, s2 = rc, sc
					cold[flag] = coldStart(s)
				}
			}
		}
		ended = append(ended, autoCand{flag, r2, s2})
		if !r2.Converged {
			unconv = append(unconv, flag)
		}
		elbos = append(elbos, elbo)
		keptName := "the mean-field fit"
		if bestFlag != "" {
			keptName = "--fullrank " + bestFlag
		}
		tieWhy := ""
		if bestFlag == "" {
			tieWhy = tie
		}
		cm := autoCmp{best, r2, keptName, "--fullrank " + flag, tieWhy}
		take, verdict := autoPrefer(cm.kept, cm.cand, cm.keptName, cm.candName, cm.tie, false)
		whys, cmps = append(whys, verdict), append(cmps, cm)
		if take {
			best, bestS, bestFlag = r2, s2, flag
		}
	}
	if bestFlag != "" {
		var c autoCand
		if c, whys = autoTieBreak(cmps, whys, ended, bestFlag); c.flag != bestFlag {
			best, bestS, bestFlag = c.r, c.s, c.flag
		}
	}
	verdicts := ""
	if len(whys) > 0 {
		verdicts = " (" + strings.Join(whys, "; ") + ")"
	}
	if bestFlag == "" {
		con.note(head+"%sELBOs %s%s: the mean-field fit is kept", why, strings.Join(elbos, ", "), verdicts)
		autoIterNote(cfg, unconv, "", warm.MaxIter, cold, con)
		fitted := make([]string, len(ended))
		for i, c := range ended {
			fitted[i] = c.flag
		}
		return r, s, strings.Join(fitted, " and --fullrank ")
	}
	con.note(head+"%sELBOs %s%s: the fit with --fullrank %s is kept (the outputs are its; fit took the %d fits' time)", why, strings.Join(elbos, ", "), verdicts, bestFlag, len(elbos))
	autoIterNote(cfg, unconv, bestFlag, warm.MaxIter, cold, con)
	best.Seconds = seconds
	cfg.fullRank, cfg.rank, cfg.band = autoFlagParts(bestFlag)
	cfg.settings = bestS
	return best, bestS, ""
}

// autoFlagParts splits a candidate of autoRefits into --fullrank's value
// and the --rank (lowRankFlag's) or --band (autoWalkCand's) it carries,
// 0 where none.
func autoFlagParts(flag string) (group string, rank, band int) {
	group, r, _ := strings.Cut(flag, " --rank ")
	group, b, _ := strings.Cut(group, " --band ")
	rank, _ = strconv.Atoi(r)
	band, _ = strconv.Atoi(b)
	return group, rank, band
}

// autoIterNote says which of --fullrank auto's refits (unconv, as
// --fullrank takes them) ran all maxIter steps unconverged and were not
// kept (kept: the flag of the one kept, "" for the mean-field fit), and
// how to go on with each: from the fit kept (--init cfg.warmInit: where
// that is the mean-field fit, the refit's own start) with autoIterFactor
// times the steps. An unconverged refit
// loses to a converged mean-field fit whatever its ELBO (autoPrefer), and
// it may still be rising: a 4PL assay's --fullrank bot+rng+lec+b+lxu,
// warm, was at +7.79 ± 0.88 (mean-field +6.88) at 10⁴ steps, and
// converged at 21 100 to +8.83 ± 0.28, its ec50 9.16 ± 0.48 (NUTS 9.21 ±
// 0.53, mean-field 9.26 ± 0.15).
// A refit kept from the mean-field fit's start (cold: warmFellBelow, the
// start as coldStart names it) is advised without --init.
func autoIterNote(cfg *fitConfig, unconv []string, kept string, maxIter int, cold map[string]string, con *console) {
	flags := slices.DeleteFunc(slices.Clone(unconv), func(f string) bool { return f == kept })
	if len(flags) == 0 {
		return
	}
	which, its := "the refit with --fullrank "+flags[0], "it"
	if len(flags) > 1 {
		which, its = "the refits with --fullrank "+strings.Join(flags, " and --fullrank "), "the first"
	}
	iter := autoIterFactor * maxIter
	init := " --init " + cfg.warmInit
	if cold[flags[0]] != "" {
		init = ""
	}
	run := fmt.Sprintf("gpp fit %s --fullrank %s%s --iter %d, with this fit's other flags,", cmdArgs(cfg.model, cfg.data), flags[0], init, iter)
	if cfg.warmInit == "last" {
		run = fmt.Sprintf(":fit --fullrank %s%s --iter %d", flags[0], init, iter)
	}
	alt := ""
	if len(flags) > 1 {
		alt = ", and likewise --fullrank " + strings.Join(flags[1:], ", --fullrank ")
	}
	from := "the same start (the mean-field fit, kept)"
	switch {
	case cold[flags[0]] != "":
		from = cold[flags[0]] + ", where it began,"
	case kept != "":
		from = "the fit kept (--fullrank " + kept + ")"
	}
	con.note("note: --fullrank auto: %s did not converge in %d iterations and may still be rising, so the ELBOs above do not settle which q is better: %s refits %s from %s with %d× the steps%s; keep it if it converges to a higher ELBO",
		which, maxIter, run, its, from, autoIterFactor, alt)
}

// warmColdGap is how many nats below the mean-field fit r a refit started
// from it (cand) must end, and by more than autoELBOZ standard errors, for
// warmFellBelow: from r's q it should end no lower, so a gap beyond the
// noise says the start hurt (a synthetic control, 30 Dirichlet weights:
// from the mean-field fit --fullrank all ended 8.9 nats below it, from the
// default start 4.4 above).
const warmColdGap = 1

// coldStart names the start of the mean-field fit of settings s, where
// warmFellBelow refits: the default one, or the user's --init.
func coldStart(s sgvb.Settings) string {
	if s.Init != nil || s.InitPath {
		return "the mean-field fit's own start (--init)"
	}
	return "the default start"
}

// warmFellBelow reports whether --fullrank auto's refit cand, started from
// the mean-field fit r, ended far below it (warmColdGap), where it also
// refits from the default start.
func warmFellBelow(r, cand *sgvb.Result) bool {
	gap := r.ELBO - cand.ELBO
	return gap > warmColdGap && gap > autoELBOZ*math.Hypot(r.ELBOSE, cand.ELBOSE)
}

// autoIterFactor is how many times --fullrank auto's --iter autoIterNote
// advises for an unconverged refit.
const autoIterFactor = 3

// refitSettings returns the settings of --fullrank auto's refits after
// the mean-field fit r (settings s): s, starting from r (a full-rank
// factor from its factors' means and sds, sgvb.Settings.Init) rather than
// from the default start. A cold full-rank fit starts as wide as the
// priors and its natural-gradient steps move its covariance slowly: on a
// demographer's Lee–Carter model (70 coordinates) --fullrank all from the
// default start had not converged at 10⁴ steps (ELBO −6028, still rising
// 1 % a thousand), and auto kept the unconverged mean-field fit, 16 nats
// below the −2776 that the refit from the mean-field fit reached in 1500
// steps, NUTS's answer. The user's own start (--init FILE, --init path)
// is where the mean-field fit began, so it reaches the refits through r,
// and `gpp fit --fullrank GROUP --init DIR`, DIR a plain fit's output
// directory, reproduces a kept refit (fit.json holds r's factors exactly).
// A fit whose ELBO estimate overflows is no start (as --init refuses it):
// the refits then start as s does.
func refitSettings(s sgvb.Settings, r *sgvb.Result) sgvb.Settings {
	if !sgvb.Overflows(r.ELBO, r.ELBOSE) {
		s.Init, s.InitPath = r, false
	}
	return s
}

// autoELBOZ is how many standard errors of their difference two ELBO
// estimates must differ by for --fullrank auto to call one higher
// (autoPrefer). On BDA's bioassay (2 coordinates) the mean-field and
// full-rank estimates differed by 0.008 ± 0.08 at seed 1, and keeping the
// higher one flipped with the seed.
const autoELBOZ = 2

// Why --fullrank auto keeps a refit whose ELBO is within the noise of the
// mean-field fit's (autoPrefer). Where the curvature check ran and found
// sds too small, it sees what the ELBO's noise hides. Where it did not run
// (−H not positive definite at q's mode), nothing vouches for the
// mean-field sds, and a joint normal holds every mean-field normal q, so a
// tie is no reason to keep the poorer family: on a 4PL standard curve
// with 20 unknowns (a bioassay trial of 2026-12-01) --fullrank all's
// −2.85 ± 0.71 against mean-field's −1.88 ± 0.11 kept mean-field, ec50
// 9.83 ± 0.19 against NUTS's 9.77 ± 0.44, where all's sds were NUTS's.
const (
	tieChecked   = "the curvature check found the mean-field sds too small"
	tieUnchecked = "with no curvature check nothing vouches for the mean-field sds, while a joint factor holds every mean-field q"
	tiePartial   = "a partial curvature check vouches for no mean-field sd, while a joint factor holds every mean-field q"
)

// autoELBOText gives fit r's ELBO and its standard error for --fullrank
// auto's note, marked where the fit did not converge.
func autoELBOText(r *sgvb.Result) string {
	t := fmt.Sprintf("%s ± %.2g", numText(r.ELBO, "%.6g"), r.ELBOSE)
	if !r.Converged {
		t += " (not converged)"
	}
	return t
}

// autoPrefer decides whether --fullrank auto keeps the refit cand (named
// candName) over the fit kept so far (keptName), and says why. A fit whose
// ELBO estimate overflows (sgvb.Overflows: no usable q, its warning says)
// gives way to one whose does not; there the gap over an infinite
// standard error is no tie. So does a fit some of whose final draws have
// a log joint that is not finite (sgvb.Result.FinalBad), left out of its
// ELBO estimate, to one with none: a hierarchical GEV's --fullrank all
// put 43 of 1000 outside the support (return levels of 10¹¹) and won
// by "25 standard errors". A fit that converged stays over one that did
// not, and one that did not gives way to one that did. Otherwise the ELBOs
// decide when they differ by more than autoELBOZ standard errors of their
// difference, √(se₁² + se₂²) (the two estimates are of independent draws).
// Within that, the estimates cannot tell the fits apart: where tieWhy is
// not "" (the kept fit is the mean-field one, whose sds nothing vouches
// for: tieChecked, tieUnchecked) the refit is kept, for the reason it
// gives; otherwise the fit kept so far stays (the group over a later
// --fullrank all). Where overruled (autoLowerK keeps another refit), the
// verdict of such a tie says what the rule would keep, not that it stays.
func autoPrefer(kept, cand *sgvb.Result, keptName, candName string, tieWhy string, overruled bool) (bool, string) {
	switch {
	case sgvb.Overflows(cand.ELBO, cand.ELBOSE) && !sgvb.Overflows(kept.ELBO, kept.ELBOSE):
		return false, fmt.Sprintf("%s's ELBO estimate overflows and %s's does not", candName, keptName)
	case sgvb.Overflows(kept.ELBO, kept.ELBOSE) && !sgvb.Overflows(cand.ELBO, cand.ELBOSE):
		return true, fmt.Sprintf("%s's ELBO estimate overflows and %s's does not", keptName, candName)
	case cand.FinalBad > 0 && kept.FinalBad == 0:
		return false, fmt.Sprintf("%s puts %d of its final ELBO estimate's draws where the log density is not finite (outside the support, so its true ELBO is -Inf) and %s none", candName, cand.FinalBad, keptName)
	case kept.FinalBad > 0 && cand.FinalBad == 0:
		return true, fmt.Sprintf("%s puts %d of its final ELBO estimate's draws where the log density is not finite (outside the support, so its true ELBO is -Inf) and %s none", keptName, kept.FinalBad, candName)
	case kept.Converged && !cand.Converged:
		return false, fmt.Sprintf("%s did not converge and %s did", candName, keptName)
	case !kept.Converged && cand.Converged:
		return true, fmt.Sprintf("%s did not converge and %s did", keptName, candName)
	}
	gap, se := cand.ELBO-kept.ELBO, math.Hypot(kept.ELBOSE, cand.ELBOSE)
	z := math.Inf(1)
	if se > 0 {
		z = math.Abs(gap) / se
	} else if gap == 0 {
		z = 0
	}
	diff := fmt.Sprintf("%s's ELBO is %+.3g ± %.2g against %s's", candName, gap, se, keptName)
	switch {
	case z > autoELBOZ && gap > 0:
		return true, fmt.Sprintf("%s, %.1f standard errors higher", diff, z)
	case z > autoELBOZ:
		return false, fmt.Sprintf("%s, %.1f standard errors lower", diff, z)
	case tieWhy != "" && overruled:
		return true, fmt.Sprintf("%s, within %d standard errors: the estimates cannot tell them apart, and %s, so the refit would be kept", diff, autoELBOZ, tieWhy)
	case tieWhy != "":
		return true, fmt.Sprintf("%s, within %d standard errors: the estimates cannot tell them apart, and %s, so the refit is kept", diff, autoELBOZ, tieWhy)
	case overruled:
		return false, fmt.Sprintf("%s, within %d standard errors, so %s would stay by the ELBO", diff, autoELBOZ, keptName)
	}
	return false, fmt.Sprintf("%s, within %d standard errors, so %s stays", diff, autoELBOZ, keptName)
}

// autoTieBreak applies autoLowerK to the refits ended after autoRefits'
// comparisons cmps (their verdicts whys) kept the refit kept, and returns
// the refit it keeps (autoLowerK's) and the verdicts. Where it keeps another, each
// comparison's verdict is worded again as overruled, so that none reads
// as final ("so --fullrank rho+alpha stays; kept --fullrank all" in a
// Kennedy–O'Hagan trial's note), and its own follows.
func autoTieBreak(cmps []autoCmp, whys []string, ended []autoCand, kept string) (autoCand, []string) {
	c, why := autoLowerK(ended, kept)
	if c.flag == kept {
		return c, whys
	}
	whys = slices.Clone(whys)
	for i, a := range cmps {
		_, whys[i] = autoPrefer(a.kept, a.cand, a.keptName, a.candName, a.tie, true)
	}
	return c, append(whys, "but "+why)
}

// autoCmp is one of autoRefits' comparisons (autoPrefer's arguments).
type autoCmp struct {
	kept, cand         *sgvb.Result
	keptName, candName string
	tie                string
}

// autoKNoise is how many standard errors of their difference a refit's
// ELBO may be below the one autoPrefer kept for autoLowerK to weigh their
// Pareto k̂s. It is wider than autoELBOZ: that rule tells two estimates
// apart, while the kept one is the highest of several, so its lead is
// inflated by the choosing, and a lead of a tenth of a nat is nothing
// against a k̂ that says q misses the posterior (a renewal model's
// --fullrank all, k̂ 1.29, kept over --fullrank logR --band 1, k̂ 0.41,
// by +0.11 ± 0.052, 2.1 standard errors: a user trial of 2026-12-01).
const autoKNoise = 3

// autoKGap is how much lower a refit's Pareto k̂ must be for autoLowerK
// to keep it: k̂ from the final estimate's 1000 draws varies by about a
// tenth from seed to seed, a smaller gap is its noise.
const autoKGap = 0.1

// autoCand is one of --fullrank auto's refits that ended: its flag as
// autoRefits takes it, its fit and the settings it ran with.
type autoCand struct {
	flag string
	r    *sgvb.Result
	s    sgvb.Settings
}

// autoLowerK is --fullrank auto's tie-break among its refits (cands) after
// autoPrefer kept the one named kept: of those whose ELBO is within
// autoKNoise standard errors of its (above or below) and that autoPrefer
// would not set aside for other reasons (an overflowing estimate, final
// draws outside the support, not converged where it did), it returns the
// one of lowest Pareto k̂ where that is at least autoKGap below the kept
// one's, and why; otherwise the kept one and "". A refit without a k̂
// (NaN) is not weighed. The mean-field fit is not among cands: its ties
// with a refit have their own rule (autoPrefer's tieWhy).
func autoLowerK(cands []autoCand, kept string) (autoCand, string) {
	i := slices.IndexFunc(cands, func(c autoCand) bool { return c.flag == kept })
	if i < 0 {
		return autoCand{flag: kept}, ""
	}
	k := cands[i]
	if sgvb.Overflows(k.r.ELBO, k.r.ELBOSE) || math.IsNaN(k.r.ParetoK) {
		return k, ""
	}
	best, gap, se := k, 0.0, 0.0
	for _, c := range cands {
		switch {
		case c.flag == kept, math.IsNaN(c.r.ParetoK), sgvb.Overflows(c.r.ELBO, c.r.ELBOSE),
			c.r.FinalBad > 0 && k.r.FinalBad == 0, !c.r.Converged && k.r.Converged:
			continue
		}
		g, e := c.r.ELBO-k.r.ELBO, math.Hypot(k.r.ELBOSE, c.r.ELBOSE)
		if math.Abs(g) >= autoKNoise*e || c.r.ParetoK > k.r.ParetoK-autoKGap || c.r.ParetoK >= best.r.ParetoK {
			continue
		}
		best, gap, se = c, g, e
	}
	if best.flag == kept {
		return k, ""
	}
	return best, fmt.Sprintf("kept --fullrank %s: its ELBO is within noise of --fullrank %s's (%+.3g ± %.2g, under %d standard errors) and its Pareto k̂ is lower (%s against %s)",
		best.flag, kept, gap, se, autoKNoise, kText(best.r.ParetoK), kText(k.r.ParetoK))
}

// autoNamesParam makes --fullrank auto, in model m with a param named
// auto, that param's full-rank factor, as --fullrank all yields to a param
// all (gpp fit and the REPL's :fit, before checkFullRank).
func autoNamesParam(cfg *fitConfig, m *compile.Model) {
	if cfg.autoFullRank && latentNamed(m, fullRankAuto) != nil {
		cfg.autoFullRank, cfg.fullRank = false, fullRankAuto
		cfg.settings.Families = map[string]sgvb.Family{fullRankAuto: sgvb.FamilyFullRank}
	}
}

// fullRankAllSize returns the elements that --fullrank all would hold in
// model m, as its mean-field hint counts them.
func fullRankAllSize(m *compile.Model) int {
	n := 0
	for _, lat := range m.Latents {
		// an ordered one joins by its coordinates (checkFullRank)
		if !lat.Support.IsOrdered() && sgvb.CheckFullRank(lat.Support, 1) != nil {
			continue
		}
		n += fullRankElems(&lat)
	}
	return n
}

// partialAutoText says why --fullrank auto does not choose by a partial
// check with normal factors (curvCheck.joinLeft), from which the
// mean-field hint names a group: a trial's non-centred chimpanzees left
// sigma_g out, and auto had said the check did not run while the hint
// proposed --fullrank a_bar+sigma_a+sigma_g+z+b.
func partialAutoText(cc *curvCheck) string {
	who, n := cc.leftNames()
	sds := "its sd goes"
	if n > 1 {
		sds = "their sds go"
	}
	return fmt.Sprintf("the curvature check was partial: the log density at q's mode bends the wrong way along %s (likely a funnel's neck), which it left out, "+
		"so the others' ratios are only lower bounds and %s unchecked, no ground to keep the mean-field fit", who, sds)
}

// partialGroup returns the group the mean-field hint names from partial
// check cc's ratios (curvGroup at curvRatio; nil where it names none) and
// its size. Those ratios are lower bounds, so the sds they find too small
// are, and --fullrank auto fits the group first.
func partialGroup(cc *curvCheck) ([]string, int) {
	bad := cc.bad(curvRatio)
	if len(bad) == 0 {
		return nil, 0
	}
	g, n, _ := curvGroup(cc, bad, curvRatio)
	return g, n
}

// noLowRankText says why --fullrank auto, where the curvature check gives
// no group, does not fit --fullrank all --rank autoLowRank (lowRankFlag)
// over a model whose --fullrank all would hold all elements (lowAll at
// low rank, lowGamma of them of gamma factors), "" where it does: past
// sgvb.MaxFullRank, at most curvMaxGamma elements of gamma factors (the
// limit curvCheck.triesLowRank gives) and within sgvb.CheckLowRank.
func noLowRankText(all, lowAll, lowGamma int) string {
	switch {
	case lowAll == 0:
		return "no param can join a joint factor"
	case all <= sgvb.MaxFullRank:
		return fmt.Sprintf("--fullrank all (%d elements) is within a full-rank factor's %d, where a low-rank one is no refit", all, sgvb.MaxFullRank)
	case lowGamma > curvMaxGamma:
		return fmt.Sprintf("--fullrank %s was not tried: it would give %d elements of gamma factors a joint normal, more than %d (a joint normal over many loses their gamma factors' fit)", lowRankFlag, lowGamma, curvMaxGamma)
	}
	if err := sgvb.CheckLowRank(lowAll, autoLowRank); err != nil {
		return fmt.Sprintf("--fullrank %s was not tried: %v", lowRankFlag, err)
	}
	return ""
}

// curvSkipReason says why meanFieldCurvature did not run the check on
// fit r (settings s), for --fullrank auto's note.
func curvSkipReason(s sgvb.Settings, r *sgvb.Result) string {
	switch {
	case r.Interrupted:
		return "the fit was interrupted"
	case r.Dim > sgvb.MaxLaplace:
		return fmt.Sprintf("the model has %d coordinates, more than the check's %d", r.Dim, sgvb.MaxLaplace)
	case !curvAffordable(s, r):
		return fmt.Sprintf("the check's %d gradients would cost more than the fit's %d steps", 2*r.Dim, r.Iterations)
	}
	return "the log density's −H at q's mode is not positive definite: a funnel, or q far from a mode"
}

// autoKeptText says why --fullrank auto keeps the mean-field fit when no
// settled sd is autoCurvRatio times too small (cc.bad): the largest ratio
// among the settled coordinates, and how many unsettled ones it left out
// (offScale: their ratios assume q's sd on the curvature at q's mode;
// unsettledHint names them).
func autoKeptText(cc *curvCheck) string {
	worst, at, skipped := 0.0, -1, 0
	for i, v := range cc.c.Ratio {
		switch {
		case cc.offScale(i): // cc.bad's rule
			if v >= autoCurvRatio {
				skipped++
			}
		case at < 0 || v > worst:
			worst, at = v, i
		}
	}
	text := fmt.Sprintf("by the log density's curvature no sd of the mean-field q is %.1f× too small", autoCurvRatio)
	if at >= 0 {
		text += fmt.Sprintf(" (the largest ratio %s×, %s)", ratioText(worst), cc.names[at])
	}
	if skipped > 0 {
		text += fmt.Sprintf(" apart from %d element%s whose sds are off the curvature at q's mode (the hint below), which the ratio cannot judge", skipped, plural(skipped))
	}
	return text
}
