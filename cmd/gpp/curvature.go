package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/compile"
)

// curvRatio is the sd ratio r_i = √(Σ_ii Λ_ii) from which the curvature
// check (meanFieldCurvature) hints --fullrank: a mean-field sd that small
// against the marginal one the log density's curvature implies
// (docs/inference.md, The mean-field hint, for the cases measured).
const curvRatio = 1.5

// settledNormal and settledOther bound the scale ratio s_i = σ_i √Λ_ii
// (sgvb.Curvature.Scale) of a settled mean-field q: within a factor
// settledNormal of 1 for a normal or log-normal factor's coordinate (1
// exactly on a normal posterior; 0.90–1.03 on the user trials' and most
// bundled examples' converged fits, but cultivar.gpp's skewed logit
// posterior settles at 0.68–0.79), settledOther for a gamma or beta
// factor's, whose skewed posteriors move a settled q's sd of log z or
// logit z far off the curvature's at the mode (a hierarchical scale's
// gamma factor: 0.53, unchanged by a fit three times as long). Beyond
// them q's scales are likely still moving and the mean-field hint's
// premise fails (unsettledHint): a blackbody fit's bounded temperature
// stopped at 8.1 (NUTS: q's sd 5.7 times too wide). The bounds leave
// settled skewed fits alone at the cost of milder cases: a Poisson
// regression of 200 000 rows stopped with normal factors' s 0.71–0.76,
// which only a bound of 1.25 would name, and that names cultivar's too.
const (
	settledNormal = 2
	settledOther  = 3
)

// curvMaxGamma is the most elements of gamma factors a group that the
// curvature hint suggests may hold: a joint normal over them replaces
// their gamma factors by a log-normal's, which on many of them costs more
// than the correlations gain (examples/gpfa.gpp, docs/inference.md).
const curvMaxGamma = 20

// curvCheck is the curvature check of a mean-field fit, per coordinate of
// the fit (sgvb.Curvature), with the names the hint and fit.json use.
type curvCheck struct {
	c     *sgvb.Curvature
	names []string // element names, per coordinate
	lats  []int    // the factor (r.Factors) of each coordinate
	size  []int    // the coordinates of each factor: its size, a simplex's K − 1 a row
	r     *sgvb.Result
	// autoLost is the group (as --fullrank takes it) that --fullrank auto
	// refitted with and kept the mean-field fit over (autoPrefer); "".
	autoLost string
	// autoNone: --fullrank auto found no joint factor within the limits
	// to refit with (autoFullRankFit), so the mild hint does not send the
	// user back to it (mildCurvatureHint).
	autoNone bool
	// all is the number of elements --fullrank all would hold
	// (fullRankAllSize): whether --fullrank auto fits it and the hint
	// names it (triesAll).
	all int
	// lowAll and lowGamma are the elements --fullrank all --rank R would
	// hold, and how many of them the mean-field fit gives gamma factors
	// (lowRankAllSize): whether --fullrank auto fits it and the hint names
	// it (triesLowRank).
	lowAll, lowGamma int
	// warmInit is the --init argument that starts the hint's joint
	// factor from this fit (fitConfig.warmInit); "" for none.
	warmInit string
	// tol is the fit's --tol (sgvb.Settings.Tol): at 1e-6 or less the
	// unsettled hint does not advise refitting longer (ranLong).
	tol float64
	// hier: the model is a hierarchy (hierarchical), whose joint mode
	// misleads --family laplace and pathfinder (smallModelText).
	hier bool
	// knownCov names the params of the known-covariance random effects
	// that a hint above covers (knownCovHints): it says no joint factor
	// follows their funnel, so the curvature hints advise none that holds
	// one (knownCovText).
	knownCov []string
	// joinLeft: the check is partial on a fit with normal factors, whose
	// left-out params the hint's joint factor starts with (curvGroup).
	joinLeft bool
	// outNames, outVar and outRatio are the output elements the check
	// read by the delta method (outputRatios): by the table's names, their
	// output's name, and their ratios; outOff marks those read off q's
	// settled scales (outShareOff).
	outNames, outVar []string
	outRatio         []float64
	outOff           []bool
	// elemNames, elemLat, elemRatio, elemOff and elemLeft are the
	// elements of the params elemCurved that the check read by the delta
	// method (elementRatios): by the table's names, their param's name,
	// their ratios (NaN where elemLeft), whether they are read off q's
	// settled scales (as outOff), and whether they move with a coordinate
	// a partial check left out.
	elemNames, elemLat []string
	elemRatio          []float64
	elemOff, elemLeft  []bool
	// scaled are the model's ~ statements whose sigma is a param
	// (scaledPairs): a direction along such a scale and the values it
	// scales that bends the wrong way is a funnel's, no ridge.
	scaled []scaledPair
	// priored names the params whose prior alone bounds them (boundingPrior):
	// a wrong-way bend along those only is no unidentified direction.
	priored map[string]bool
	// covTerms are the model's intercept-plus-slope sums with a data
	// covariate (covariateTerms), for the hint's advice to centre it.
	covTerms []covariateTerm
	// ncScales maps each non-centred param (nonCentredParams) to the
	// params its scale reads, for the warning that points to the
	// centred-form hint (priorRidgeWarning).
	ncScales map[string][]string
}

// autoLowRank is the rank R of the low-rank joint factor over every param
// (--fullrank all --rank R) that --fullrank auto fits, and the curvature
// hint names, where no full-rank factor within the limits repairs the sds
// (triesLowRank). R columns of B hold the R strongest directions of
// posterior correlation at (R + 2)·n parameters, 6 times a mean-field
// q's 2n at R = 10, where a full-rank factor's n(n + 3)/2 is (n + 3)/4
// times (30 at the 117 elements of the trial below) and grows with n. A
// fixed R rather than one read off the curvature: the check gives the
// sds' ratios and the flattest direction, not how many directions q
// misses, and the ELBO decides between the fits (autoPrefer). Measured on
// a psycholinguist's crossed random effects (117 elements, 2026-12-01):
// rank 10 from the default start converged in 7600 steps to an ELBO
// 7.5 nats above mean-field's, its 90 % intervals covering the truth for
// all but one quantity; auto's, from the mean-field fit, in 3500 to +7.4.
const autoLowRank = 10

// lowRankFlag is --fullrank's value (with --rank) for --fullrank auto's
// low-rank candidate, as the notes and hints name it.
var lowRankFlag = fmt.Sprintf("all --rank %d", autoLowRank)

// triesLowRank reports whether --fullrank all --rank autoLowRank is a
// joint factor that --fullrank auto fits and the hint names, where group
// (curvGroup's) is nil: where --fullrank all is more than
// sgvb.MaxFullRank elements (below, auto fits it at full rank), holds at
// most curvMaxGamma elements of gamma factors (a joint normal over many
// trades their gamma factors for log-normal ones: J = 600 groups' a+b+lam
// --rank 1 lost 43 nats, examples/gpfa.gpp's all --rank 2 155) and is a
// low-rank factor sgvb.CheckLowRank accepts.
func (cc *curvCheck) triesLowRank(group []string) bool {
	return group == nil && cc.all > sgvb.MaxFullRank && cc.lowAll > 0 && cc.lowGamma <= curvMaxGamma &&
		sgvb.CheckLowRank(cc.lowAll, autoLowRank) == nil
}

// lowRankAllSize returns the elements that --fullrank all --rank R would
// hold in model m (checkFullRank: simplexes keep their own factors) and
// how many of them fit r gives gamma factors.
func lowRankAllSize(m *compile.Model, r *sgvb.Result) (n, gammas int) {
	gamma := map[string]int{}
	for _, f := range r.Factors {
		gamma[f.Name] = gammaElems(f)
	}
	for _, lat := range m.Latents {
		if lat.Support == dist.Simplex || !lat.Support.IsOrdered() && sgvb.CheckFullRank(lat.Support, 1) != nil {
			continue
		}
		n += fullRankElems(&lat)
		gammas += gamma[lat.Name]
	}
	return n, gammas
}

// meanFieldCurvature runs the curvature check of a fit (sgvb.Result.
// MeanFieldCurvature) where it is meant and affordable: a single
// mean-field SGVB fit of the exact log density (not MAP, Laplace,
// Pathfinder, a --fullrank or --rank group, --minibatch or restarts) that
// was not interrupted, of at most sgvb.MaxLaplace coordinates whose 2n
// gradients are no more than the fit's own steps took. Where −H at q's
// mode is not positive definite (a funnel's neck, q far from a mode) it
// is the partial check (sgvb.Curvature.Partial, the coordinates along
// which the log density bends the wrong way left out), where the density
// bends so along one direction only (partialOK); nil otherwise, and the
// hints fall back to Pareto k̂ (meanFieldHint). skipped says why a check
// that was meant did not run ("" where it ran or was not meant; never ""
// where it failed: a simplex's Dirichlet factor had failed silently),
// which the fit says where k̂ raises the alarm (curvSkippedHint) and
// --fullrank auto in its note. The check is on the unconstrained
// coordinates (a simplex's K − 1 stick-breaking ones a row), named as
// stickCoordName and transformCoord say. It draws nothing, so the fit's
// numbers are unchanged.
func meanFieldCurvature(ctx context.Context, s sgvb.Settings, l *pipeline.Loaded, r *sgvb.Result) (cc *curvCheck, skipped string) {
	m := l.Model
	if r == nil || !meanField(s) || s.Minibatch != nil || r.Interrupted || r.Dim < 1 {
		return nil, ""
	}
	if !curvAffordable(s, r) {
		return nil, curvSkipReason(s, r)
	}
	ud, err := sgvb.NewUnconstrained(pipeline.Target{M: m}, pipeline.Latents(m))
	if err != nil {
		return nil, "the check has no unconstrained coordinates for this model (" + strings.TrimPrefix(err.Error(), "sgvb: ") + ")"
	}
	c, err := r.MeanFieldCurvature(ctx, ud)
	if c == nil {
		switch {
		case errors.Is(err, sgvb.ErrNotDefinite):
			return nil, curvSkipReason(s, r)
		case ctx.Err() != nil:
			return nil, "it was interrupted"
		}
		return nil, strings.TrimPrefix(err.Error(), "sgvb: ") // no silent skip: a factor or support the check does not take
	}
	cc = &curvCheck{c: c, r: r, names: make([]string, ud.Dim()), lats: make([]int, ud.Dim()), tol: s.Tol, hier: hierarchical(l), covTerms: covariateTerms(l)}
	cc.scaled = scaledPairs(l)
	cc.priored, cc.ncScales = boundedPriors(l), nonCentredScales(l)
	cc.all = fullRankAllSize(m)
	cc.lowAll, cc.lowGamma = lowRankAllSize(m, r)
	name := latentNamer(m, l) // as the fit's table names the elements
	for fi, f := range r.Factors {
		li := slices.IndexFunc(m.Latents, func(lat compile.Latent) bool { return lat.Name == f.Name })
		if li < 0 {
			return nil, fmt.Sprintf("the fit's factor %s is no param of the model", f.Name)
		}
		off, n := ud.LatentRange(li) // the check's coordinates are ud's
		cc.size = append(cc.size, n)
		for k := range n {
			cc.lats[off+k] = fi
			if f.Support == dist.Simplex { // K − 1 stick-breaking coordinates a row
				cc.names[off+k] = stickCoordName(f.Name, f.Shape, k)
				continue
			}
			cc.names[off+k] = name(f.Name, f.Shape, k)
			if e, scale, ok := transformCoord(f.Name, f.Shape, f.Support, k, name); ok { // L's coordinate (1, 0), not "L[0]"
				cc.names[off+k] = e
				if f.Support.IsOrdered() { // a gap, not an element: log(m1[1] - m1[0])
					cc.names[off+k] = coordLabel(e, scale)
				}
			}
		}
	}
	if w := flatWarning(cc); w != "" {
		r.Warnings = append(r.Warnings, w+sumToZeroNote(w, r))
	}
	if w := ridgeWarning(cc, err); w != "" {
		r.Warnings = append(r.Warnings, w+sumToZeroNote(w, r))
	}
	if err != nil { // −H not positive definite: Flat alone, or the partial check
		if !partialOK(c.Partial) {
			why := curvSkipReason(s, r)
			if f := c.Flat; f != nil && f.Bend() < 0 && !f.IsFlat() {
				what, _ := directionText(f, cc.names)
				why = fmt.Sprintf("the log density at q's mode bends the wrong way along more than one direction (the worst: %s), so −H there is not positive definite (q far from a mode, or funnels) and no part of it can be read", what)
			}
			return nil, why
		}
		cc.c = c.Partial
		// With normal factors the left-out direction is likely a funnel's
		// neck (a hierarchy's scale: sd_school of 5 schools), whose
		// params the hint's joint factor takes too (curvGroup).
		_, normal, _ := meanFieldElems(s, m)
		cc.joinLeft = normal >= 2
	}
	elementRatios(ctx, cc, l, ud)
	outputRatios(ctx, cc, l, ud)
	return cc, ""
}

// stickCoordName names stick-breaking coordinate k of simplex param name
// of shape: "delta stick-breaking coordinate 2" (0-based, as the table's
// elements; y_2 = logit of delta[2]'s share of delta[2] + … + delta[K-1],
// shifted), "theta row 1 stick-breaking coordinate 0" for a matrix's row.
func stickCoordName(name string, shape []int, k int) string {
	km := shape[len(shape)-1] - 1
	if len(shape) > 1 {
		return fmt.Sprintf("%s row %d stick-breaking coordinate %d", name, k/km, k%km)
	}
	return fmt.Sprintf("%s stick-breaking coordinate %d", name, k)
}

// curvSkippedHint says, where Pareto k̂ raises the alarm, that the
// curvature check did not run and why (skipped, meanFieldCurvature's): the
// table then has no * marks, which is no sign that q's sds are right. A
// trial's centred varying intercepts and slopes (108 coordinates) read
// b_w 0.224 ± 0.022 with no mark (NUTS: 0.251 ± 0.081). "" where skipped
// is, or k̂ raises no alarm.
func curvSkippedHint(skipped string, paretoK, relESS float64) string {
	if skipped == "" || !sgvb.ParetoAlarm(paretoK, relESS) {
		return ""
	}
	return "the curvature check of q's sds (the summary's * marks, fit.json's meanfield_sd_ratio) could not judge them: " + skipped +
		"; no * mark is then no sign that an sd is right, and with this k̂ a mean-field q's intervals may be several times too narrow: gpp sample (NUTS) --against checks them (docs/inference.md, The mean-field hint)"
}

// partialOK reports whether a partial curvature check (sgvb.Curvature.
// Partial) is one the hints may use: −H at q's mode bends the wrong way
// along one direction only (a Schaefer production model's process and
// observation sds, which trade off: eigenvalue −9.9 against the next's
// 1.4), the rest of the density a mode. Where it bends along several, q
// is likely far from a mode and the others' ratios given the left-out
// coordinates say little: examples/gpfa.gpp (K = 6) bends the wrong way
// along 6 or more directions at seeds 1–3; a partial check there called
// W's sds 2.3× too small and pointed to --fullrank all, which ends 11–19
// nats below the mean-field fit.
func partialOK(p *sgvb.Curvature) bool { return p != nil && p.WrongWay == 1 }

// leftText is the clause the curvature hints add where the check is
// partial (sgvb.Curvature.Left): the elements it left out, the first
// three, and what that means for the ratios; "" for a full check.
func (cc *curvCheck) leftText() string {
	who, n := cc.leftNames()
	if n == 0 {
		return ""
	}
	them := "them"
	if n == 1 {
		them = "it"
	}
	return fmt.Sprintf(" (the log density at q's mode bends the wrong way along %s, so the check left %s out and took the others' ratios given %s: on a normal posterior those are at most the marginal ones)",
		who, them, them)
}

// leftNames names the elements a partial check left out (sgvb.Curvature.
// Left), the first three ("a, b and c", "a, b, c (and 2 more elements)"),
// and how many there are; "", 0 for a full check.
func (cc *curvCheck) leftNames() (string, int) {
	var idx []int
	for i, out := range cc.c.Left {
		if out {
			idx = append(idx, i)
		}
	}
	names := make([]string, 0, 3)
	for _, i := range idx[:min(len(idx), 3)] {
		names = append(names, cc.names[i])
	}
	if more := len(idx) - len(names); more > 0 {
		return strings.Join(names, ", ") + fmt.Sprintf(" (and %d more element%s)", more, plural(more)), len(idx)
	}
	return joinAnd(names), len(idx)
}

// flatWarning returns the warning of a flat direction at q's mode
// (sgvb.FlatDirection.IsFlat), naming the elements
// that make it up; "" where there is none. It says the posterior may be
// improper only where the direction's curvature gives an sd ratio of
// improperRatio or more (0 up to rounding); below, it bends and the
// direction is weakly identified (a user trial's 3-SKU non-centred
// hierarchy, 1/√Bend ≈ 180, its posterior proper: NUTS fine). A Bradley–Terry model of 20
// teams' abilities with no prior on them (a user trial of 2026-11-30) fits
// ability ± 0.19 "converged" while its posterior is improper: the data
// fix only the abilities' differences, and NUTS's chains wander apart
// along their sum (R̂ 2.59).
func flatWarning(cc *curvCheck) string {
	f := cc.c.Flat
	if f == nil || !f.IsFlat() {
		return ""
	}
	what, _ := directionText(f, cc.names)
	if b := f.Bend(); b > 1/(improperRatio*improperRatio) {
		// it bends, if barely: a weakly identified direction (a
		// non-centred hierarchy of 3 groups whose data pin each a[j]:
		// mu_a against z, the prior alone fixing it), not an improper one
		return fmt.Sprintf(flatLead+": the log density at q's mode barely bends along %s (by its curvature the posterior's sd there is about %.0f times q's), "+
			"so the data fix that combination little and the prior (or the data, weakly) the rest: a weakly identified direction, as a non-centred hierarchy of few groups has, not an improper posterior, which would not bend at all; "+
			"a mean-field q cannot follow it, and q's means, sds and intervals of those elements say little of the posterior: gpp sample, --fullrank or the centred form follow it", what, 1/math.Sqrt(b))
	}
	return fmt.Sprintf(flatLead+": the log density at q's mode does not bend along %s (by its curvature the posterior's sd there is more than %.0f times q's), "+
		"so the posterior may be improper or the model unidentified (a sum of parameters the data cannot fix: pin one, or use sum_to_zero_vector or a prior); "+
		"q's means, sds and intervals of those elements say nothing of the posterior", what, 1/math.Sqrt(sgvb.FlatBend))
}

// directionText names direction f's elements (directionElems), as the
// flat and ridge warnings do: "the sum of a, b" where their signs
// agree, "a combination of a, b" where not, the element alone where it is
// one; and how many there are.
func directionText(f *sgvb.FlatDirection, names []string) (string, int) {
	idx := directionElems(f)
	same := true
	for _, i := range idx {
		same = same && (f.Vec[i] > 0) == (f.Vec[idx[0]] > 0)
	}
	shown := make([]string, 0, 4)
	for _, i := range idx[:min(len(idx), 3)] {
		shown = append(shown, names[i])
	}
	list := strings.Join(shown, ", ")
	if len(idx) > 3 {
		list += fmt.Sprintf(", … (%d elements)", len(idx))
	}
	switch {
	case len(idx) == 1:
		return list, 1
	case same:
		return "the sum of " + list, len(idx)
	}
	return "a combination of " + list, len(idx)
}

// directionElems returns the elements of direction f, in the fit's
// order: those of at least a third of its largest entry.
func directionElems(f *sgvb.FlatDirection) []int {
	big := 0.0
	for _, v := range f.Vec {
		big = math.Max(big, math.Abs(v))
	}
	var idx []int
	for i, v := range f.Vec {
		if math.Abs(v) >= big/3 {
			idx = append(idx, i)
		}
	}
	return idx
}

// ridgeBend is the largest |Bend| (sgvb.FlatDirection.Bend) of a
// direction along which the log density at q's mode bends the wrong way
// that ridgeWarning reads as a ridge, not a funnel: a Cormack–Jolly–Seber
// model with time-varying phi and p, of which only the last phi times the
// last p is identified (an ecologist's trial of 2026-12-01), bends
// −0.014 along logit phi[6] against logit p[6] (mean-field sds 0.066 and
// 0.052, NUTS's 0.167 and 0.169), where the bundled funnels and GPFA's
// rotations bend −0.39 (seeds) to −1.5 (gpfa).
const ridgeBend = 0.1

// ridgeLead opens ridgeWarning's warning.
const ridgeLead = "a direction is not identified"

// scaledPair is a ~ statement on the param variate whose sigma reads the
// param scale (check.Info.ScaleParams): loglam[1:] ~ Normal(loglam[:T-1],
// sig) scales loglam by sig, and so does a declaration's prior (param
// u_t: real[J] ~ Normal(0, tau_t), stmt the *ast.ParamDecl); walk is the
// chain the statement makes, nil where it makes none.
type scaledPair struct {
	scale, variate string
	stmt           ast.Stmt
	walk           *walkParam
}

// scaledPairs returns the model's scaledPairs, in declaration order.
func scaledPairs(l *pipeline.Loaded) []scaledPair {
	if l == nil || l.Info == nil {
		return nil
	}
	walks := walkParams(l.File, l.Info, missingLatents(l.Model))
	var out []scaledPair
	for _, lat := range l.Info.Latents {
		if lat.Prior != nil && lat.Decl != nil { // the declaration's ~, a TildeStmt to ScaleParams
			for _, sc := range l.Info.ScaleParams(&ast.TildeStmt{Dist: lat.Prior}) {
				if sc != lat.Name {
					out = append(out, scaledPair{scale: sc, variate: lat.Name, stmt: lat.Decl})
				}
			}
		}
		for _, t := range lat.Tildes {
			for _, sc := range l.Info.ScaleParams(t) {
				if sc == lat.Name {
					continue
				}
				p := scaledPair{scale: sc, variate: lat.Name, stmt: t}
				for i := range walks {
					if walks[i].data == "" && walks[i].lat.Name == lat.Name && walks[i].stmt == t {
						p.walk = &walks[i]
					}
				}
				out = append(out, p)
			}
		}
	}
	return out
}

// scaledIn returns the scaledPair both of whose params have elements in
// direction f (directionElems), nil where none has.
func (cc *curvCheck) scaledIn(f *sgvb.FlatDirection) *scaledPair {
	if cc.r == nil || len(cc.lats) != len(f.Vec) {
		return nil
	}
	in := map[string]bool{}
	for _, i := range directionElems(f) {
		in[cc.r.Factors[cc.lats[i]].Name] = true
	}
	for i, p := range cc.scaled {
		if in[p.scale] && in[p.variate] {
			return &cc.scaled[i]
		}
	}
	return nil
}

// ridgeWarning returns the warning of a ridge at q's mode: −H is not
// positive definite (the check's error) and its least eigenvalue's
// direction, of two or more elements, bends the wrong way by less than
// ridgeBend against q's spread along it (a flat one is flatWarning's).
// The data then fix a combination of those elements, not each, and
// mean-field q, one narrow factor per element, sits somewhere on the
// ridge. "" where there is none.
func ridgeWarning(cc *curvCheck, err error) string {
	f := cc.c.Flat
	if err == nil || f == nil || f.IsFlat() || !(f.Bend() < 0) || f.Bend() <= -ridgeBend {
		return ""
	}
	what, n := directionText(f, cc.names)
	if n < 2 {
		return ""
	}
	bend := strings.Replace(fmt.Sprintf("%.2g", f.Bend()), "-", "−", 1)
	if p := cc.scaledIn(f); p != nil {
		return scaledBendWarning(p, what, bend)
	}
	if w := cc.priorRidgeWarning(f, what, bend); w != "" {
		return w
	}
	return fmt.Sprintf(ridgeLead+": the log density at q's mode bends the wrong way, and barely, along %s (−H there is not positive definite; bend %s against q's spread, where a funnel's is about −0.4 or less), "+
		"so the data fix only a combination of them, not each (a ridge): q's means of them are one point on the ridge and their mean-field sds far too small; "+
		"fix or share one of them, report only the identified combination, or check with gpp sample (docs/inference.md, The mean-field hint)", what, bend)
}

// scaledBendWarning is ridgeWarning's warning where the direction is a
// scale's against the values it scales (scaledPair p): the normal's
// log density in (x, sigma) is not concave, and bends the wrong way where
// q puts x far from its location (a nowcast's day of zero reports, its
// log intensity below its walk's neighbours). A funnel's geometry, no
// ridge: a user trial's mean-field fit bent −0.025 along sig against
// loglam[25], which NUTS identifies (0.193 ± 0.051, 3.36 ± 0.22; q's
// 0.274 ± 0.025, 3.12 ± 0.16), and had been told to fix one of them.
func scaledBendWarning(p *scaledPair, what, bend string) string {
	pos := p.stmt.Pos()
	cure := fmt.Sprintf("a joint factor of the two (--fullrank %s+%s) or gpp sample follows it", p.variate, p.scale)
	if p.walk != nil {
		cure = fmt.Sprintf("%s holds the chain (the random-walk hint), and gpp sample checks %s's sd", walkCure(*p.walk), p.scale)
	}
	return fmt.Sprintf(scaledBendLead+": the log density there bends the wrong way, barely, along %s (−H is not positive definite; bend %s against q's spread), "+
		"and %s is the scale of %s at %d:%d, %s: a scale and the values it scales bend so where q puts those values far from their location (a funnel's geometry); "+
		"the data may fix each, but a mean-field q cannot follow them, and its means and sds of them are likely off: %s (docs/inference.md, The mean-field hint)",
		what, bend, p.scale, p.variate, pos.Line, pos.Col, ast.FormatStmt(p.stmt), cure)
}

// scaledBendLead opens scaledBendWarning's warning.
const scaledBendLead = "a funnel at q's mode, not a ridge"

// flatLead opens flatWarning's warning, by which flatWarned finds it.
const flatLead = "a direction is flat"

// flatWarned reports whether r's warnings hold a flat direction's
// (flatWarning): the posterior is likely improper or unidentified, and no
// joint factor mends that.
func flatWarned(r *sgvb.Result) bool {
	for _, w := range r.Warnings {
		if strings.HasPrefix(w, flatLead) {
			return true
		}
	}
	return false
}

// curvAffordable reports whether the check's 2n gradients (n = r.Dim) are
// at most sgvb.MaxLaplace's and the gradients of the fit's steps.
func curvAffordable(s sgvb.Settings, r *sgvb.Result) bool {
	draws := max(s.DrawsPerStep, 1)
	return r.Dim >= 1 && r.Dim <= sgvb.MaxLaplace && 2*r.Dim <= r.Iterations*draws
}

// maxByLatent returns, per latent, the largest ratio of its elements: the
// "meanfield_sd_ratio" of fit.json. Those of an ordered or simplex param
// are its elements' (elementRatios) where they were read, not its
// coordinates'; NaN (null)
// for a param whose every element the partial check left unjudged
// (uncheckedNames, fit.json's "meanfield_sd_unchecked").
func (cc *curvCheck) maxByLatent() map[string]fitfile.Float {
	out := map[string]fitfile.Float{}
	put := func(name string, v float64) {
		if w, ok := out[name]; !ok || v > float64(w) || math.IsNaN(float64(w)) { // NaN: left out of a partial check
			out[name] = fitfile.Float(v)
		}
	}
	read := cc.elemsRead()
	for i, v := range cc.elemRatio {
		put(cc.elemLat[i], v)
	}
	for i, v := range cc.c.Ratio {
		if name := cc.r.Factors[cc.lats[i]].Name; !read[name] {
			put(name, v)
		}
	}
	return out
}

// gammaElems is the number of coordinates of factor f held by gamma
// factors (an ordered latent's increments included).
func gammaElems(f sgvb.Factor) int {
	if f.Family == sgvb.FamilyGamma {
		return f.Size
	}
	n := 0
	for _, p := range f.Parts {
		n += gammaElems(p)
	}
	return n
}

// curvatureHint returns the hint of the curvature check where some
// element's ratio is at least curvRatio: it names the worst three, with
// the correlation of the worst with its most correlated partner, and the
// smallest joint factor that the curvature at the mode says repairs them
// (curvGroup: so for a normal posterior only, as the hint says), or, where no joint factor within the limits does, says so, names
// --fullrank all or, past sgvb.MaxFullRank elements, --fullrank all --rank
// autoLowRank where --fullrank auto tries it (triesAll, triesLowRank), and
// points to gpp sample. "" where no element reaches curvRatio.
func curvatureHint(cc *curvCheck) string {
	bad := cc.bad(curvRatio)
	if len(bad) == 0 {
		if cc.joinLeft { // lower bounds, the neck unchecked: k̂'s rule (parameterisationHints)
			return ""
		}
		return mildCurvatureHint(cc)
	}
	who, sds, how := worstSds(cc, bad)
	i := bad[0]
	moves := ""
	if p := cc.c.Partner[i]; p >= 0 {
		moves = fmt.Sprintf(": the log density's curvature at q's mode says %s moves with %s (correlation %s)", cc.names[i], cc.names[p], signed(cc.c.Corr[i]))
	}
	head := fmt.Sprintf("%s %s about %s too small%s, which a mean-field q (one independent factor per element) cannot represent%s; ", who, sds, how, moves, cc.leftText())
	if p := cc.c.Partner[i]; p >= 0 {
		head += centreText(cc.covTerms, cc.r.Factors[cc.lats[i]].Name, cc.r.Factors[cc.lats[p]].Name, cc.c.Corr[i])
	}
	if cc.improper(i) {
		// No q mends an improper posterior (a Bradley–Terry model's
		// abilities with no prior: sds 2·10⁵× too small, where the hint
		// advised --fullrank all, an A/B-testing trial); the model is.
		return fmt.Sprintf("%s %s about %s too small%s: the log density is all but flat along them (the warning above), so no q, mean-field or joint, can represent the posterior, which is likely improper: "+
			"give them a prior, pin one, or use a sum_to_zero_vector, and fit again (docs/inference.md, The mean-field hint)", who, sds, how, moves)
	}
	if cc.autoLost != "" {
		return head + smallModelText(cc) + fmt.Sprintf("--fullrank auto refitted with --fullrank %s, and kept the mean-field fit (its note says why): "+
			"gpp sample (NUTS) is the check of these sds (docs/inference.md, The mean-field hint)", cc.autoLost)
	}
	head += smallModelText(cc)
	group, n, left := curvGroup(cc, bad, curvRatio)
	if group == nil && len(cc.knownCov) > 0 || slices.ContainsFunc(group, func(g string) bool { return slices.Contains(cc.knownCov, g) }) {
		return head + knownCovText(cc.knownCov) + " (docs/inference.md, The mean-field hint)"
	}
	if group == nil {
		then := ", so "
		if cc.triesAll(nil) {
			// a joint normal over many gamma elements may still win
			then = fmt.Sprintf("; --fullrank all (%d elements, its gamma elements log-normal in it) may still fit better, and --fullrank auto tries it and keeps the higher ELBO; ", cc.all)
		} else if cc.triesLowRank(nil) {
			// past sgvb.MaxFullRank, a low-rank factor over every param
			then = fmt.Sprintf("; --fullrank %s (a low-rank joint factor over all %d elements) may still fit better, and --fullrank auto tries it and keeps the higher ELBO; ", lowRankFlag, cc.lowAll)
		}
		if pg, pn, pleft, rest := pairGroup(cc, bad); pg != nil {
			// the pair the curvature names mends the worst sds where no
			// group mends them all (pairGroup): say so, not "not enough"
			also := ""
			if cc.triesAll(nil) {
				also = fmt.Sprintf(", then --fullrank all (%d elements)", cc.all)
			} else if cc.triesLowRank(nil) {
				also = fmt.Sprintf(", then --fullrank %s (a low-rank joint factor over all %d elements)", lowRankFlag, cc.lowAll)
			}
			others := ""
			if rest > 0 {
				others = fmt.Sprintf("; the others stay up to %s× too small, as no joint factor of at most %d elements (at most %d of them of gamma factors) brings every sd under %.1f×", ratioText(rest), sgvb.MaxFullRank, curvMaxGamma, curvRatio)
			}
			flag := "--fullrank " + strings.Join(pg, "+")
			return head + fmt.Sprintf("%s (%d elements) gives the pair one joint factor%s: by that curvature it leaves their sds at most %.1f× too small (from %s×)%s; "+
				"--fullrank auto tries it%s, and keeps the higher ELBO; gpp sample (NUTS) is the check of these sds (docs/inference.md, The mean-field hint)",
				flag, pn, warmText(flag, cc.warmInit), pleft, ratioText(cc.c.Ratio[i]), others, also)
		}
		return head + fmt.Sprintf("no joint factor of at most %d elements (at most %d of them of gamma factors) is enough by that curvature%s"+
			"gpp sample (NUTS) is the check of these sds (docs/inference.md, The mean-field hint)", sgvb.MaxFullRank, curvMaxGamma, then)
	}
	flag := "--fullrank " + strings.Join(group, "+")
	if len(group) == len(cc.r.Factors) {
		flag = "--fullrank all"
	}
	without := ""
	if p := cc.c.Partner[i]; p >= 0 && !slices.Contains(group, cc.r.Factors[cc.lats[p]].Name) {
		// A trial's Hui–Walter fit read "sp1 moves with se2" then
		// "--fullrank prev+sp1": the group is what restores the sds,
		// which the most correlated partner need not be part of.
		without = fmt.Sprintf("; by that curvature %s need not join it", cc.r.Factors[cc.lats[p]].Name)
	}
	return head + fmt.Sprintf("%s (%d elements%s) gives the params that move together one joint factor%s; by that curvature it leaves no sd more than %.1f× too small, "+
		"but the curvature at q's mode is a local normal (Laplace) view, no guarantee: it sees no skew or heavy tail, and a scale over few groups can stay several times too narrow: "+
		"--fullrank auto keeps the fit with the higher ELBO, --fullrank all joins every param, and gpp sample --against checks the sds (docs/inference.md, The mean-field hint)", flag, n, without, warmText(flag, cc.warmInit), left)
}

// knownCovCure ends knownCovText: the cure it points to.
const knownCovCure = ": q cannot follow the funnel of a random effect with a known covariance (the hint above), with --fullrank or without, " +
	"and integrating it out as that hint says is the cure; gpp sample --against checks the sds"

// knownCovText is the curvature hints' advice where the joint factor
// they would name holds a known-covariance random effect's param (names,
// curvCheck.knownCov): that the hint above says no joint factor mends it.
// A trial's phylogenetic random effect read "nor with --fullrank" there
// and "--fullrank mu+sigma_p+z … leaves no sd more than 1.0× too small"
// here; that fit's mu and sigma_p sds came out 1.8× and 2.4× too small
// against NUTS, the marginal's right.
func knownCovText(names []string) string {
	return fmt.Sprintf("a joint factor that holds %s does not mend this", joinAnd(names)) + knownCovCure
}

// smallModelMax is the most coordinates of a fit for which the
// curvature hint names --family pathfinder and laplace (smallModelText):
// each costs a few hundred gradients or an n×n Hessian there, and both
// fit a joint normal. A user trial's 4PL standard curve (5 coordinates):
// lec's sd 0.0271 mean-field, 0.0369 laplace, 0.0413 pathfinder, NUTS
// 0.0431.
const smallModelMax = 50

// smallModelText is the curvature hint's clause naming --family
// pathfinder and laplace for a fit of at most smallModelMax coordinates;
// "" for a larger one, or where the check is partial (a factor model's
// rotations, where no normal at a mode represents the posterior).
func smallModelText(cc *curvCheck) string {
	if cc.r.Dim < 1 || cc.r.Dim > smallModelMax || cc.c.Left != nil || cc.hier {
		return ""
	}
	return fmt.Sprintf("at %d coordinates, --family pathfinder or --family laplace is a quick fit with a joint normal that holds these correlations; ", cc.r.Dim)
}

// hierarchical reports whether l's model is a hierarchy: a centred or
// non-centred one that the parameterisation hints find, or a param with
// an element per group or observation (a dimension the data bind). Its
// joint mode, where --family laplace centres its normal and pathfinder
// ends its path, shrinks the group scales towards 0: a trial's bivariate
// meta-analysis of 15 studies (non-centred, z [N, 2]) gave tau[0] 1.68 by
// laplace and 1.36 by pathfinder against NUTS's 0.48, both below the
// mean-field fit's ELBO, so the curvature hint does not offer them there.
func hierarchical(l *pipeline.Loaded) bool {
	if l.Info == nil {
		return false
	}
	if len(centredParams(l.File, l.Info)) > 0 || len(nonCentredParams(l.File, l.Info)) > 0 {
		return true
	}
	for _, lat := range l.Info.Latents {
		for _, d := range lat.Dims {
			if v := l.Info.DataVar(d.Name); d.Name != "" && !d.Derived && v != nil && v.Implicit {
				return true
			}
		}
	}
	return false
}

// improper reports whether element i's ratio reads as an improper
// posterior's: a flat direction (flatWarning) and a ratio of at least
// improperRatio.
func (cc *curvCheck) improper(i int) bool {
	return cc.c.Ratio[i] >= improperRatio && flatWarning(cc) != ""
}

// improperRatio is the sd ratio from which a flat direction's elements
// (flatWarning) are read as an improper posterior's, not a weakly
// identified one's: a level pinned only through 120 effects of sd 0.005
// reads 200×, a Bradley–Terry model's abilities with no prior 2·10⁵×.
const improperRatio = 1e4

// mildRatio is the sd ratio from which, below curvRatio, the curvature
// check still says how much too small the sds are (mildCurvatureHint):
// a Weibull regression's treatment effect at 1.35×, its hazard ratio's
// interval 30 % too narrow against NUTS's, with k̂ 0.495 "good" (a
// biostatistician's trial of 2026-12-01), matters where one interval is
// the result.
const mildRatio = 1.25

// mildCurvatureHint is curvatureHint's shorter hint where no sd is
// curvRatio times too small but some are mildRatio times: it names them
// and --fullrank auto, which refits from autoCurvRatio. "" where none is.
func mildCurvatureHint(cc *curvCheck) string {
	bad := cc.bad(mildRatio)
	if len(bad) == 0 || cc.autoLost != "" {
		return ""
	}
	who, sds, how := worstSds(cc, bad)
	cure := "where an interval is the result, --fullrank auto refits with a joint factor and keeps the higher ELBO, and gpp sample --against checks the sds"
	if len(cc.knownCov) > 0 {
		cure = knownCovText(cc.knownCov)
	} else if cc.autoNone {
		cure = fmt.Sprintf("--fullrank auto found no joint factor of at most %d elements (at most %d of them of gamma factors) to refit with, so gpp sample --against is the check of these sds", sgvb.MaxFullRank, curvMaxGamma)
	}
	return fmt.Sprintf("%s %s about %s too small by the log density's curvature at q's mode (a mean-field q's intervals are narrower than the posterior's where params move together)%s: "+
		"%s (docs/inference.md, The mean-field hint)", who, sds, how, cc.leftText(), cure)
}

// worstSds names the worst three of the elements bad (cc.bad's order,
// not empty) for the curvature hints: who ("a's, b's and c's", or "a's,
// b's, c's (and 2 more elements)"), the verb's number (sd is, sds are)
// and how much too small each sd is (1.4×, 1.3× and 1.3×).
func worstSds(cc *curvCheck, bad []int) (who, sds, how string) {
	worst := bad[:min(len(bad), 3)]
	names, ratios := make([]string, len(worst)), make([]string, len(worst))
	for k, i := range worst {
		names[k], ratios[k] = cc.names[i]+"'s", ratioText(cc.c.Ratio[i])+"×"
	}
	who, sds, how = joinAnd(names), "sds are", joinAnd(ratios)
	if len(worst) == 1 {
		sds = "sd is"
	}
	if more := len(bad) - len(worst); more > 0 {
		who = strings.Join(names, ", ") + fmt.Sprintf(" (and %d more element%s)", more, plural(more))
		how = strings.Join(ratios, ", ")
	}
	return who, sds, how
}

// triesAll reports whether --fullrank all is a joint factor besides
// group (curvGroup's; nil where none is within the limits) that --fullrank
// auto fits and the hint names: some param's elements, at most
// sgvb.MaxFullRank of them however many have gamma factors (cc.all), and
// more params than group holds.
func (cc *curvCheck) triesAll(group []string) bool {
	return triesAll(cc.all, len(cc.r.Factors), group)
}

// triesAll reports whether --fullrank all, of all elements
// (fullRankAllSize) in a fit of factors params, is a joint factor besides
// group that --fullrank auto fits (curvCheck.triesAll; where the
// curvature check does not run, group is nil).
func triesAll(all, factors int, group []string) bool {
	return all > 0 && all <= sgvb.MaxFullRank && len(group) < factors
}

// bad returns the coordinates whose ratio is at least min, the worst
// first, leaving out those whose scales are off the curvature's at q's
// mode (offScale: the ratio assumes they are on it).
func (cc *curvCheck) bad(min float64) []int {
	var bad []int
	for i, v := range cc.c.Ratio {
		if v >= min && !cc.offScale(i) {
			bad = append(bad, i)
		}
	}
	slices.SortStableFunc(bad, func(i, j int) int { return cmp.Compare(cc.c.Ratio[j], cc.c.Ratio[i]) })
	return bad
}

// curvGroup returns the latents, in declaration order, of the joint
// factor the curvature hint suggests for the elements bad, its size and
// the largest ratio it leaves among them (sgvb.Curvature.GroupRatios):
// the latents of bad, then, while some of them is still min (curvRatio
// for the hint) or more too small, the latent whose joining lowers that
// most. nil where the factor would exceed sgvb.MaxFullRank elements or
// curvMaxGamma elements of gamma factors before it is below min.
func curvGroup(cc *curvCheck, bad []int, min float64) (group []string, n int, left float64) {
	in := make([]bool, len(cc.r.Factors))
	for _, i := range bad {
		in[cc.lats[i]] = true
	}
	for i, out := range cc.c.Left {
		if out && cc.joinLeft {
			in[cc.lats[i]] = true
		}
	}
	fits := func(in []bool) bool {
		n, gammas := 0, 0
		for fi, ok := range in {
			if ok {
				n += cc.coords(fi)
				gammas += gammaElems(cc.r.Factors[fi])
			}
		}
		return n <= sgvb.MaxFullRank && gammas <= curvMaxGamma
	}
	worstOf := func(in []bool) float64 {
		coords := make([]bool, len(cc.lats))
		for i, fi := range cc.lats {
			coords[i] = in[fi]
		}
		rs := cc.c.GroupRatios(coords)
		w := 0.0
		for _, i := range bad {
			w = max(w, rs[i])
		}
		return w
	}
	if !fits(in) {
		return nil, 0, 0
	}
	left = worstOf(in)
	for left >= min {
		best, bestLeft := -1, left
		for fi := range in {
			if in[fi] {
				continue
			}
			in[fi] = true
			if fits(in) {
				if w := worstOf(in); w < bestLeft {
					best, bestLeft = fi, w
				}
			}
			in[fi] = false
		}
		if best < 0 {
			return nil, 0, 0
		}
		in[best], left = true, bestLeft
	}
	for fi, ok := range in {
		if ok {
			group = append(group, cc.r.Factors[fi].Name)
			n += cc.coords(fi)
		}
	}
	return group, n, left
}

// coords returns the check's coordinates of factor fi (curvCheck.size;
// its size where that is not recorded).
func (cc *curvCheck) coords(fi int) int {
	if fi < len(cc.size) {
		return cc.size[fi]
	}
	return cc.r.Factors[fi].Size
}

// ratioText formats an sd ratio with two significant digits, as "1.6" or
// "12", and from 100 as a whole number ("230"), never in e-notation.
func ratioText(v float64) string {
	if v >= 99.5 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 2, 64)
}

// signed formats a correlation with two decimals and a minus sign (−).
func signed(v float64) string {
	s := fmt.Sprintf("%.2f", math.Abs(v))
	if v < 0 {
		return "−" + s
	}
	return s
}

// settledLim is the bound (settledNormal, settledOther) within which
// coordinate i's scale ratios read as a settled q's.
func (cc *curvCheck) settledLim(i int) float64 {
	if f := cc.r.Factors[cc.lats[i]].Family; f == sgvb.FamilyNormal || f == sgvb.FamilyLognormal {
		return settledNormal
	}
	return settledOther
}

// offScale reports whether coordinate i's scale ratio s_i (sgvb.
// Curvature.Scale) is outside the settled range of its factor's family:
// q's sd is not the one the curvature at q's mode gives, so the ratio,
// which assumes it is, cannot judge the element (cc.bad leaves it out).
// Never where s_i is not known.
func (cc *curvCheck) offScale(i int) bool {
	if i >= len(cc.c.Scale) {
		return false // a curvature without q's scales
	}
	v, lim := cc.c.Scale[i], cc.settledLim(i)
	if !(v > 0) || math.IsInf(v, 0) {
		return false
	}
	return v < 1/lim || v > lim
}

// nonNormalAt reports whether coordinate i is offScale but its spread
// ratio s̃_i (sgvb.Curvature.Spread, the curvature across q's reach) is
// within the settled range: q has settled on a posterior whose shape in
// x_i is far from normal (one-sided, skewed), not on the curvature at its
// mode. A user trial's unknowns censored below a signal LOD: s 0.37–0.39,
// s̃ 0.63–0.79 (0.78–0.84 at --tol 1e-6 --iter 100000, which moved their sd from
// 0.95 to 0.98; NUTS: 1.49, a truncated posterior).
func (cc *curvCheck) nonNormalAt(i int) bool {
	if !cc.offScale(i) || i >= len(cc.c.Spread) {
		return false
	}
	v, lim := cc.c.Spread[i], cc.settledLim(i)
	return v >= 1/lim && v <= lim
}

// unsettledAt reports whether coordinate i's scale is likely not settled:
// offScale, and not nonNormalAt.
func (cc *curvCheck) unsettledAt(i int) bool { return cc.offScale(i) && !cc.nonNormalAt(i) }

// ranLong reports whether the fit ran as long as the unsettled hint
// would have it refit: converged at a --tol of 1e-6 or less (the user
// trial's LOD fit at --tol 1e-6 --iter 100000: the same hint, its sds
// moved 3 %). One that ran out of --iter there may still move.
func (cc *curvCheck) ranLong() bool { return cc.r.Converged && cc.tol > 0 && cc.tol <= 1e-6 }

// unsettledHint names the elements whose q sd is far from the
// conditional sd the curvature at q's mode gives them (unsettledAt), the
// farthest three first: a mean-field q has not settled there, so its
// sds are not the fit's answer (and the mean-field hint leaves them out).
// Where the fit already ran long (ranLong) it does not advise refitting
// longer. Elements nonNormalAt get nonNormalHint's shorter hint instead.
// "" where none.
func unsettledHint(cc *curvCheck) string {
	var off, odd []int
	for i := range cc.c.Ratio {
		switch {
		case cc.unsettledAt(i):
			off = append(off, i)
		case cc.nonNormalAt(i):
			odd = append(odd, i)
		}
	}
	if len(off) == 0 {
		return nonNormalHint(cc, odd)
	}
	who := scaleList(cc, off)
	longer := "refit longer (--tol 1e-6, more --iter: a bounded param's sd settles so), or"
	switch {
	case cc.ranLong():
		longer = "this fit already ran at --tol 1e-6 or less, so refitting longer is unlikely to move them: fit"
	case cc.r.Converged: // stopped by --tol, not --iter
		longer = "refit with --tol 1e-6 (a bounded param's sd settles so), or"
	}
	cure := longer + " with --family laplace (for a fit of many observations: its normal is that curvature's, and its k̂ says whether it fits), or check with gpp sample"
	h := fmt.Sprintf("q's sds are likely not settled: %s the sd that the log density's curvature at q's mode gives each given the other params, "+
		"which a mean-field q matches once its scales have settled on a posterior near normal (within %g× on every fit measured), so these sds are likely not yet the fit's answer "+
		"(a fit of many observations, or of a bounded param, moves its scales slowly and the ELBO barely sees it); "+
		"%s (docs/inference.md, The mean-field hint)",
		who, settledNormal+0.0, cure)
	if n := nonNormalHint(cc, odd); n != "" {
		h += "; " + n
	}
	return h
}

// nonNormalHint names the elements odd (nonNormalAt), the farthest three
// first: q's sd is off the curvature at its mode but matches the
// curvature across its reach, so q has settled on a posterior that is far
// from normal there, and a normal factor of it may be too narrow. "" for
// none.
func nonNormalHint(cc *curvCheck, odd []int) string {
	if len(odd) == 0 {
		return ""
	}
	odd = byScaleDist(cc, odd)
	sds := "sds are"
	if len(odd) == 1 {
		sds = "sd is"
	}
	return fmt.Sprintf("%s %s %s the sd that the log density's curvature at q's mode gives but %s the one its curvature across q's ±%.1f sd gives: "+
		"q has settled there on a posterior far from normal (one-sided or skewed: near a bound, a censored value, an asymptote), where a normal factor can be too narrow and no longer fit or joint factor mends that; "+
		"gpp sample (NUTS) is the check of these sds (docs/inference.md, The mean-field hint)",
		scaleNames(cc, odd), sds, ratioList(odd, cc.c.Scale), ratioList(odd, cc.c.Spread), sgvb.SpreadTau)
}

// scaleNames names the elements idx, in order (at most three, and how
// many more).
func scaleNames(cc *curvCheck, idx []int) string {
	shown := idx[:min(len(idx), 3)]
	parts := make([]string, len(shown))
	for k, i := range shown {
		parts[k] = cc.names[i] + "'s"
	}
	if more := len(idx) - len(shown); more > 0 {
		return strings.Join(parts, ", ") + fmt.Sprintf(" (and %d more element%s)", more, plural(more))
	}
	return joinAnd(parts)
}

// ratioList lists the ratios v of the first three elements idx: "0.37×,
// 0.38× and 0.39×" (or "0.37×, 0.38×, 0.39×" where more follow).
func ratioList(idx []int, v []float64) string {
	shown := idx[:min(len(idx), 3)]
	parts := make([]string, len(shown))
	for k, i := range shown {
		parts[k] = ratioText(v[i]) + "×"
	}
	if len(idx) > len(shown) {
		return strings.Join(parts, ", ")
	}
	return joinAnd(parts)
}

// byScaleDist sorts idx by |log s_i|, the largest first.
func byScaleDist(cc *curvCheck, idx []int) []int {
	dist := func(i int) float64 { return math.Abs(math.Log(cc.c.Scale[i])) }
	slices.SortStableFunc(idx, func(i, j int) int { return cmp.Compare(dist(j), dist(i)) })
	return idx
}

// scaleList lists the elements idx with their scale ratios s_i, the
// farthest from 1 first: "a's 0.2×, b's 2.3× and c's 0.45×".
func scaleList(cc *curvCheck, idx []int) string {
	idx = byScaleDist(cc, idx)
	shown := idx[:min(len(idx), 3)]
	parts := make([]string, len(shown))
	for k, i := range shown {
		parts[k] = fmt.Sprintf("%s's %s×", cc.names[i], ratioText(cc.c.Scale[i]))
	}
	if more := len(idx) - len(shown); more > 0 {
		return strings.Join(parts, ", ") + fmt.Sprintf(" (and %d more element%s)", more, plural(more))
	}
	return joinAnd(parts)
}

// boundingPrior reports whether lat's prior bounds it on its own: a
// declared prior, or a ~ on the param itself, whose arguments read no
// param and which is not flat (Uniform, Beta(1, 1)). Its curvature then
// holds every direction of lat's elements, whatever the data say.
func boundingPrior(info *check.Info, lat *check.Latent) bool {
	priors := []*ast.CallExpr{lat.Prior}
	for _, t := range lat.Tildes {
		if id, ok := ast.Unparen(t.LHS).(*ast.Ident); ok && info.Uses[id] == lat.Symbol {
			priors = append(priors, t.Dist)
		}
	}
	for _, d := range priors {
		if d == nil || readsParam(info, d) {
			continue
		}
		switch d.Fun.Name {
		case "Uniform":
			continue
		case "Beta":
			if len(d.Args) == 2 && constIs(info, d.Args[0], 1) && constIs(info, d.Args[1], 1) {
				continue
			}
		}
		return true
	}
	return false
}

// boundedPriors returns the params of l whose prior bounds them
// (boundingPrior), but for those a latent factor model's product reads
// (factorProduct): their iid priors do not change under a rotation of the
// factors, so nothing bounds that direction (fit_factor.golden's
// W, −0.0056 over 9 of its elements), which stays "not identified".
func boundedPriors(l *pipeline.Loaded) map[string]bool {
	out := map[string]bool{}
	if l == nil || l.Info == nil {
		return out
	}
	for _, lat := range l.Info.Latents {
		if boundingPrior(l.Info, lat) {
			out[lat.Name] = true
		}
	}
	if prod := factorProduct(l.File, l.Info); prod != nil {
		l.Info.VisitReads(prod, false, func(s *check.Symbol) bool {
			delete(out, s.Name)
			return false
		})
	}
	return out
}

// nonCentredScales maps each non-centred param of l (nonCentredParams)
// to the params its scale reads, through lets.
func nonCentredScales(l *pipeline.Loaded) map[string][]string {
	out := map[string][]string{}
	if l == nil || l.Info == nil {
		return out
	}
	for _, p := range nonCentredParams(l.File, l.Info) {
		var scales []string
		l.Info.VisitReads(p.scale, false, func(s *check.Symbol) bool {
			if s.Kind == check.Param && s.Name != p.lat.Name {
				scales = append(scales, s.Name)
			}
			return false
		})
		out[p.lat.Name] = scales
	}
	return out
}

// priorRidgeWarning is ridgeWarning's warning where every param along
// direction f has a prior that bounds it (boundingPrior): the posterior is
// proper and the direction identified, by the prior where the data say
// little, so "not identified" would mislead. A user trial's non-centred
// hierarchy of 12 substations (zc ~ Normal(0, 1), bc = exp(mc + sc * zc))
// bent −0.0023 along sc and zc[…], was told to fix or share one of them,
// and its mean-field mh was far off (0.574 ± 0.0024 against the centred
// form's 0.233 ± 0.109). A non-centred param and its scale along f point
// to the centred form; "" where some param has no bounding prior.
func (cc *curvCheck) priorRidgeWarning(f *sgvb.FlatDirection, what, bend string) string {
	if cc.r == nil || len(cc.lats) != len(f.Vec) {
		return ""
	}
	in := map[string]bool{}
	for _, i := range directionElems(f) {
		name := cc.r.Factors[cc.lats[i]].Name
		if !cc.priored[name] {
			return ""
		}
		in[name] = true
	}
	var zs []string
	for z, scales := range cc.ncScales {
		if in[z] && slices.ContainsFunc(scales, func(s string) bool { return in[s] }) {
			zs = append(zs, z)
		}
	}
	slices.Sort(zs)
	cure := "a joint factor of them (--fullrank) or gpp sample follows it"
	if len(zs) > 0 {
		cure = fmt.Sprintf("the centred form of %s has no such ridge (the non-centred hierarchy's hint, where k̂ flags the fit, writes it out), and gpp sample checks either", joinAnd(zs))
	}
	return fmt.Sprintf(priorRidgeLead+": the log density at q's mode bends the wrong way, and barely, along %s (−H there is not positive definite; bend %s against q's spread), "+
		"but each of them has a prior that bounds it, so the posterior is proper and the direction identified, by the prior where the data say little: "+
		"a curved ridge or funnel, as a non-centred hierarchy's, that a mean-field q cannot follow, and q's means and sds of them are likely off: %s (docs/inference.md, The mean-field hint)",
		what, bend, cure)
}

// priorRidgeLead opens priorRidgeWarning's warning.
const priorRidgeLead = "a ridge at q's mode that the priors bound"

// pairGroup returns, for the elements bad (the worst first) where
// curvGroup finds no joint factor within the limits that repairs them
// all, the smallest group the curvature check names: the latents of
// bad[0] and of its most correlated partner, with its size, the largest
// ratio it leaves among bad's elements inside it, and the largest it
// leaves outside it (0 for none); nil where the pair is one latent, is
// past the limits, or does not divide bad[0]'s ratio by pairGain. A
// road-safety trial's SPF on an
// uncentred log AADT (b0 and b1 correlated −1.00, sig_u 1.7× too small
// with its 400 z) found no group, and --fullrank auto kept a low-rank
// fit: ELBO −4714.84, b0's sd 0.059, against b0+b1's −4714.50 and 0.225
// (NUTS 0.436); by the curvature the pair leaves b0's sd 1.9× too small,
// NUTS's 0.436 being 1.9× b0+b1's.
func pairGroup(cc *curvCheck, bad []int) (group []string, n int, left, rest float64) {
	if len(bad) == 0 || cc.joinLeft {
		return nil, 0, 0, 0
	}
	i := bad[0]
	p := cc.c.Partner[i]
	if p < 0 || cc.lats[p] == cc.lats[i] {
		return nil, 0, 0, 0
	}
	in := make([]bool, len(cc.r.Factors))
	in[cc.lats[i]], in[cc.lats[p]] = true, true
	gammas := 0
	for fi, ok := range in {
		if ok {
			n += cc.coords(fi)
			gammas += gammaElems(cc.r.Factors[fi])
		}
	}
	if n > sgvb.MaxFullRank || gammas > curvMaxGamma {
		return nil, 0, 0, 0
	}
	coords := make([]bool, len(cc.lats))
	for c, fi := range cc.lats {
		coords[c] = in[fi]
	}
	rs := cc.c.GroupRatios(coords)
	if rs[i] > cc.c.Ratio[i]/pairGain {
		return nil, 0, 0, 0
	}
	for _, b := range bad {
		if coords[b] {
			left = max(left, rs[b])
		} else {
			rest = max(rest, rs[b])
		}
	}
	for fi, ok := range in {
		if ok {
			group = append(group, cc.r.Factors[fi].Name)
		}
	}
	return group, n, left, rest
}

// pairGain is how many times pairGroup's pair must shrink the worst
// element's ratio to be named where it leaves it curvRatio or more.
const pairGain = 2.0
