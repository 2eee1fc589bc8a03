package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/compile"
	"gonum.org/v1/gonum/mat"
)

// initFits sets the warm start of a fit from a fit file: Settings.Init
// from a single fit (for every restart), or one start per restart from a
// fit of as many restarts.
func initFits(cfg *fitConfig, ff *fitfile.File, l *pipeline.Loaded, con *console, srcs sources) error {
	if err := initOverflowed(cfg.init, ff, srcs); err != nil {
		return err
	}
	warnAll := func(ws []string) {
		for _, w := range ws {
			con.note("warning: %s", w)
		}
	}
	if len(ff.Restarts) == 0 {
		init, warns := fitfile.InitResult(ff, ff.Factors, ff.Groups, l.Model)
		warnAll(warns)
		cfg.settings.Init = init
		return nil
	}
	if len(ff.Restarts) != cfg.restarts {
		return &ast.Error{Pos: fitfile.FindPos(cfg.init, srcs[cfg.init], `"restarts"`),
			Msg: fmt.Sprintf("--init: the file holds a mixture of %d restarts; warm-start it with --restarts %d", len(ff.Restarts), len(ff.Restarts))}
	}
	for i, rs := range ff.Restarts {
		init, warns := fitfile.InitResult(ff, rs.Factors, rs.Groups, l.Model)
		if i == 0 {
			warnAll(warns) // the restarts share their latents
		}
		cfg.inits = append(cfg.inits, init)
	}
	return nil
}

// initOverflowed refuses a fit file whose ELBO overflowed as a warm start
// (an error at its "elbo", or "elbo_se" where only that overflowed): such a fit's outputs are written for
// inspection only, its q no result (gpp fit exits 1 for it), as the REPL's
// :fit --init last refuses the session's overflowed fit.
func initOverflowed(path string, ff *fitfile.File, srcs sources) error {
	return fitfile.Overflowed(path, srcs[path], ff, "--init", initAdvice)
}

// initAdvice ends the error of an overflowed fit given to --init.
const initAdvice = "not as a start; fit without --init, or with --init path"

// readUsedFit reads the saved fit at path for a use (--init, --against)
// and adds its source to srcs: an error if it cannot be read or parsed,
// or if it overflowed (fitfile.Overflowed, with use and advice).
func readUsedFit(path string, srcs sources, use, advice string) (*fitfile.File, []byte, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: cannot read the fit: %v", use, err)
	}
	srcs[path] = src
	ff, err := fitfile.Read(path, src)
	if err == nil {
		err = fitfile.Overflowed(path, src, ff, use, advice)
	}
	if err != nil {
		return nil, nil, err
	}
	return ff, src, nil
}

// fitRestarts runs cfg.restarts fits side by side, reporting their progress
// and each one's end on the console.
func fitRestarts(ctx context.Context, cfg *fitConfig, l *pipeline.Loaded, con *console) (*sgvb.Mixture, error) {
	R := cfg.restarts
	jitter := cfg.jitter
	if jitter == 0 {
		jitter = -1 // sgvb: the starts of Settings, not jittered
	}
	rs := sgvb.Restarts{N: R, Inits: cfg.inits, Jitter: jitter, Radius: cfg.initRadius,
		Progress: func(r int, p sgvb.Progress) {
			con.progress(fmt.Sprintf("restart %d  ", r), p)
			if cfg.afterEval != nil {
				cfg.afterEval(p)
			}
		},
		Done: func(r int, res *sgvb.Result, err error) {
			if err != nil || res == nil {
				return
			}
			pathNote(con, fmt.Sprintf("restart %d: ", r), res.Path)
			pathfinderNote(con, fmt.Sprintf("restart %d: ", r), res.Pathfinder)
			con.info("restart %d (seed %s): ELBO %.6g ± %.2g, %d iterations (%s), Pareto k̂ %s, %.3g s",
				r, sgvb.RestartSeedText(sgvb.RestartSeed(cfg.settings.Seed, r), r), res.ELBO, res.ELBOSE, res.Iterations, fitEnd(cfg, res), kText(res.ParetoK), res.Seconds)
		}}
	return pipeline.FitRestarts(ctx, l.Model, runTarget(cfg, l.Model), cfg.settings, rs)
}

// nutsLargeDim is the number of coordinates above which againstHint
// tells NUTS's cost instead of its command. gpp sample runs Stan's 4
// chains × 2000 iterations, each a tree of up to 1023 gradients; its
// step size falls as d^(-1/4) (Beskos et al. 2013), so an iteration costs
// at least about d^(1/4) of them, 10 at 10 000 coordinates, and a model
// whose q has k̂ above 1 (a funnel, a factorisation's scale and
// loadings) reaches the tree-depth cap well before that. The users' trials
// that asked for it (2026-11-30) were Poisson factorisations of 12 000–56 000
// coordinates, where one step of SGVB took 7–30 ms: at least 10 min and up
// to days of NUTS.
const nutsLargeDim = 10000

// nutsCost says what gpp sample's defaults would cost a model of dim
// coordinates whose gradient takes about perStep seconds (the fit's time
// per step, one gradient and its share of the ELBO estimates): 4 chains ×
// 2000 iterations of d^(1/4) to 1023 gradients, the chains side by side
// on 4 cores (longer on fewer).
func nutsCost(dim int, perStep float64) string {
	if !(perStep > 0) {
		return "4 chains × 2000 iterations of up to 1023 gradients each"
	}
	per := 2000 * perStep // the chains side by side
	lo := time.Duration(per * math.Pow(float64(dim), 0.25) * float64(time.Second))
	hi := time.Duration(per * 1023 * float64(time.Second))
	return fmt.Sprintf("4 chains × 2000 iterations of %.0f to 1023 gradients each take %s to %s on 4 cores at this fit's %.3g ms per step",
		math.Pow(float64(dim), 0.25), humanSpan(lo), humanSpan(hi), 1000*perStep)
}

// fitEnd says how a fit ended, and whether its final ELBO estimate
// collapsed (the final draws found a tail of q far below the
// evaluations': its warning), converged or not.
func fitEnd(cfg *fitConfig, r *sgvb.Result) string {
	end := "converged"
	switch {
	case r.Interrupted:
		return "interrupted"
	case !r.Converged && cfg.tol == 0:
		end = "the fixed number asked"
	case !r.Converged:
		end = "did not converge"
	}
	if r.Collapsed {
		end += ", but the final ELBO estimate collapsed"
	}
	return end
}

// smallShape is the gamma shape at or below which smallShapeHint names a
// factor: a Gamma(a, b) q has E[x⁻²] = ∞ for a ≤ 2, so the ELBO of a
// model with x as a scale (y ~ Normal(μ, x)) is −∞ under it, and its
// draws of x reach near 0, where log p is lower by orders of magnitude.
const smallShape = 2

// smallShapeHint returns advice for a fit (or restarts) whose final ELBO
// estimate collapsed (sgvb.Result.Collapsed) while gamma factors ended at
// a shape of smallShape or less, or "": such a q is the likely cause, and
// a lognormal q (every moment of x and 1/x finite) or a start near the
// posterior (--init path) usually mends it. A random walk's noise scale
// under HalfNormal(0.1) ended at shape 0.19 with a final estimate of
// −4.3·10²⁹, where --family lognormal fitted it.
func smallShapeHint(r *sgvb.Result, mix *sgvb.Mixture) string {
	comps := []*sgvb.Result{r}
	if mix != nil {
		comps = mix.Components
	}
	var names []string
	least := math.Inf(1)
	for _, c := range comps {
		if c == nil || !c.Collapsed {
			continue
		}
		for i := range c.Factors {
			f := &c.Factors[i]
			if f.Family != sgvb.FamilyGamma || len(f.Params) == 0 || len(f.Params[0]) == 0 {
				continue
			}
			a := slices.Min(f.Params[0])
			if a <= smallShape {
				if !slices.Contains(names, f.Name) {
					names = append(names, f.Name)
				}
				least = min(least, a)
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("the final ELBO estimate collapsed while the gamma factor%s of %s ended at a shape of %d or less (the least %.3g): a gamma q of such a shape has E[1/x²] = ∞ and draws near 0, where log p of a scale (y ~ Normal(mu, x)) falls by orders of magnitude; "+
		"fit with --family lognormal (a lognormal q keeps every moment finite) or from --init path (q starts near the posterior), and keep the fit with the higher ELBO",
		plural(len(names)), joinAnd(names), smallShape, least)
}

// softplusHint returns advice for a gamma-factor SGVB fit in the paper's
// softplus coordinates (--gamma-param softplus) that did not converge (a
// restart that did not, for a mixture) while the model has positive
// latents: such factors take thousands of steps to become tight
// (docs/inference.md; kidiq's sigma is still 4.3× too wide after 10⁴
// steps), and the default log shape/log mean coordinates are the usual
// cure. "" otherwise.
func softplusHint(s sgvb.Settings, m *compile.Model, r *sgvb.Result, mix *sgvb.Mixture) string {
	if s.Method != sgvb.SGVB || s.Family != sgvb.FamilyGamma || s.GammaParam == sgvb.GammaLogMeanShape || s.Tol < 0 {
		return ""
	}
	positive := false
	for _, lat := range m.Latents {
		positive = positive || lat.Support == dist.Positive || lat.Support == dist.PositiveOrdered
	}
	if !positive || !stalledFit(r, mix) {
		return ""
	}
	return "gamma factors behind the softplus are slow to become tight, so this fit stopped before it converged; " +
		"where positive latents are well identified, the default --gamma-param log-mean-shape usually converges an " +
		"order of magnitude sooner, while on a small sparse model such as examples/epm.gpp's football network " +
		"softplus may keep more components: compare the two, or give softplus more --iter (docs/inference.md)"
}

// stalled reports a fit that stopped before it converged, and not because
// the log density overflows (an improper posterior has its own warning)
// or the user interrupted it.
func stalled(r *sgvb.Result) bool {
	return r != nil && !r.Converged && !r.Interrupted && !math.IsInf(r.ELBO+r.ELBOSE, 0) && !math.IsNaN(r.ELBO+r.ELBOSE)
}

// stalledFit is stalled for r, or for any restart of a mixture.
func stalledFit(r *sgvb.Result, mix *sgvb.Mixture) bool {
	if mix == nil {
		return stalled(r)
	}
	for _, c := range mix.Components {
		if stalled(c) {
			return true
		}
	}
	return false
}

// farLocation is the |mean| of a mean-field normal factor's element above
// which farStartHint takes a stalled fit's posterior to lie far from q's
// start at 0: BUGS's Rats in grams stopped at alpha_c 20.5 on its way to
// 240 (docs/inference.md, Data far from 0).
const farLocation = 10

// farStartHint returns advice for an SGVB fit from the default start that
// stopped before it converged while a real latent's normal factor has a
// mean beyond ±farLocation: q starts every location at 0, and one that
// must travel hundreds of units takes very many steps, so --init path
// (an L-BFGS path's best point) or rescaled data is the cure. "" otherwise.
func farStartHint(s sgvb.Settings, r *sgvb.Result, mix *sgvb.Mixture) string {
	if s.Method != sgvb.SGVB || s.InitPath || s.Init != nil || s.Tol < 0 || !stalledFit(r, mix) {
		return ""
	}
	name, far := "", 0.0
	for _, f := range r.Factors {
		if f.Family != sgvb.FamilyNormal || f.Support != dist.Real || len(f.Params) == 0 {
			continue
		}
		for _, m := range f.Params[0] {
			if math.Abs(m) > far {
				name, far = f.Name, math.Abs(m)
			}
		}
	}
	if far <= farLocation {
		return ""
	}
	return fmt.Sprintf("this fit stopped before it converged with %s's mean at %.3g from q's start at 0: "+
		"where the posterior lies far from 0 (data in large units), --init path starts q at the best point "+
		"of an L-BFGS path, or rescale the data (docs/inference.md, Data far from 0)", name, far)
}

// meanField reports whether s fits a mean-field q by SGVB: no --fullrank
// group and no full-rank, low-rank or banded factor.
func meanField(s sgvb.Settings) bool {
	if s.Method != sgvb.SGVB || len(s.FullRankGroups) > 0 {
		return false
	}
	for _, f := range s.Families {
		if jointFamily(f) {
			return false
		}
	}
	return true
}

// jointFamily reports whether f is a joint factor's family: full-rank,
// low-rank or banded.
func jointFamily(f sgvb.Family) bool {
	return f == sgvb.FamilyFullRank || f == sgvb.FamilyLowRank || f == sgvb.FamilyBanded
}

// meanFieldHint returns advice for a mean-field SGVB fit (no --fullrank)
// whose Pareto k̂ raises the alarm (sgvb.ParetoAlarm: above 0.7, with
// weights that are not near-uniform; relESS is their relative ESS) while the model has at least two
// coordinates that a joint normal factor can take: independent factors
// cannot represent how params move together (a slope with the intercept
// when the weight of the data sits away from x = 0, an intercept with
// the mean of crossed group effects, a random walk's scale with its
// innovations), and then report sds several times too small, which
// --fullrank all repairs. "" otherwise, for MAP or a non-finite k̂, and
// past sgvb.MaxFullRank such elements: there --fullrank all --rank 2 is
// no safe advice (on examples/gpfa.gpp, 564 elements of gamma factors,
// its ELBO is 155 nats below mean-field's), and with fewer than two
// elements held by normal factors (gamma factors would become log-normal).
// Where --fullrank auto already refitted with that factor and kept the
// mean-field fit (autoPrefer; autoLost, as --fullrank takes it), the
// hint says so and points to gpp sample instead. warmInit: warmText's.
func meanFieldHint(s sgvb.Settings, m *compile.Model, paretoK, relESS float64, autoLost, warmInit string) string {
	if !meanField(s) || !sgvb.ParetoAlarm(paretoK, relESS) {
		return ""
	}
	n, ok := fullRankAllAdvised(s, m)
	if !ok {
		return ""
	}
	flag := fmt.Sprintf("--fullrank all (%d elements)", n)
	head := meanFieldHead
	if autoLost != "" {
		return head + fmt.Sprintf("--fullrank auto refitted with --fullrank %s, and kept the mean-field fit (its note says why): "+
			"gpp sample (NUTS) is the check of these sds (docs/inference.md, Full-rank factors)", autoLost)
	}
	return head + flag + " fits them jointly, as Stan's fullrank ADVI" + warmText("--fullrank all", warmInit) + ": keep the fit with the higher ELBO (docs/inference.md, Full-rank factors)"
}

// meanFieldHead opens meanFieldHint.
const meanFieldHead = "q is mean-field (one independent factor per element), which cannot represent how params move together " +
	"(an intercept with a slope or with group effects, a scale with the effects it scales) and then reports sds that are too small; "

// warmText is the mean-field hints' clause that starts the joint factor
// of flag where this fit's q ended (--init warmInit, its means and sds as
// the factor's means and diagonal): from the default start a joint
// factor can take many times the steps, or stop far below the mean-field
// fit (a 4PL assay with 20 unknowns, --fullrank bot+rng+lec+b+lxu: cold,
// "converged" at ELBO −19.7 at seed 1 and unconverged at −13.2, −14.5
// and +0.09 at seeds 2–4; from the mean-field fit, +6.9, it rose to
// +8.8, its ec50 interval NUTS's). "" where warmInit is.
func warmText(flag, warmInit string) string {
	if warmInit == "" {
		return ""
	}
	return fmt.Sprintf(", best started where this fit ended (%s --init %s: from the default start a joint factor can stop far below it)", flag, warmInit)
}

// fullRankAllAdvised returns the elements --fullrank all would hold (n)
// and whether the hints may advise it for the mean-field fit of settings
// s: where q holds two elements or more by normal factors or a simplex's
// stick-breaking coordinates, and at most sgvb.MaxFullRank in all. A joint
// normal then generalises them (a synthetic control's 30 Dirichlet
// weights, k̂ 0.96 with no hint: --fullrank all gains 4 nats and finds
// the true donors), while positive latents would trade their gamma
// factors for a log-normal's (examples/gpfa.gpp on the wine data, 88
// gamma elements: --fullrank all ends 11–19 nats below mean-field at
// seeds 1–3).
func fullRankAllAdvised(s sgvb.Settings, m *compile.Model) (n int, ok bool) {
	n, normal, stick := meanFieldElems(s, m)
	return n, meanField(s) && normal+stick >= 2 && n <= sgvb.MaxFullRank
}

// meanFieldElems returns the elements of model m that --fullrank all
// would hold (n), how many of them the mean-field fit of settings s
// holds by normal factors (real, bounded and matrix params, positive ones
// under --family lognormal, an ordered one's first coordinate; not a
// simplex's Dirichlet), and how many are a simplex's stick-breaking
// coordinates (stick), which the joint factor holds as normal ones:
// fullRankAllAdvised's counts. An ordered param joins --fullrank all by
// its coordinates (checkFullRank): a trial's hint said "(5 elements)" of
// a mixture whose joint factor held 8, its ordered means left out.
func meanFieldElems(s sgvb.Settings, m *compile.Model) (n, normal, stick int) {
	for _, lat := range m.Latents {
		if lat.Support.IsOrdered() {
			n += lat.Size
			normal++ // x_0 (of each row of ordered[G, K]); the increments' factors are positive ones
			if len(lat.Shape) == 2 {
				normal += lat.Shape[0] - 1
			}
			continue
		}
		if sgvb.CheckFullRank(lat.Support, 1) == nil {
			e := fullRankElems(&lat)
			n += e
			if lat.Support == dist.Simplex { // a Dirichlet factor, not a normal one
				stick += e
				continue
			}
			if lat.Support != dist.Positive || s.Family == sgvb.FamilyLognormal || s.Families[lat.Name] == sgvb.FamilyLognormal {
				normal += lat.Size
			}
		}
	}
	return n, normal, stick
}

// againstHint returns advice for a fit whose Pareto k̂ is above 1, where
// the importance weights p/q have no finite mean: q may then be far from
// the posterior in its means too, not only in its sds (a stochastic
// volatility model's step size at 3.5 times NUTS's, k̂ 2.8), which only a
// reference says. It spells out the gpp sample command that compares every
// element with NUTS's draws (--against). "" for MAP (no q to compare), for
// k̂ at most 1 or NaN, and for a negligible tail (sgvb.ParetoAlarm: the
// weights near-uniform, q close to p whatever k̂ says). A model of more
// than nutsLargeDim coordinates (dim) is told what NUTS would cost it
// instead (nutsCost, from the fit's seconds per step, perStep) and
// pointed at --restarts.
func againstHint(cfg *fitConfig, s sgvb.Settings, k, relESS float64, dim int, perStep float64) string {
	if s.Method == sgvb.MAP || !(k > 1) || !sgvb.ParetoAlarm(k, relESS) {
		return ""
	}
	if dim > nutsLargeDim {
		restarts := "--restarts 4 fits q from 4 starts and says whether they agree (their ELBOs, the mixture's k̂)"
		if cfg.restarts > 1 {
			restarts = "the restarts' ELBOs above say whether fits from other starts agree"
		}
		return fmt.Sprintf("%s; "+
			"NUTS would say how far, but on %d coordinates it is slow: %s; %s, and NUTS on a subset of the data small enough to sample "+
			"(gpp sample --against, docs/inference.md, A fit against the draws) says how far q is there", againstLead(relESS), dim, nutsCost(dim, perStep), restarts)
	}
	args := append([]string{"gpp", "sample", cfg.model}, cfg.data...)
	for _, name := range sortedKeys(cfg.sets) {
		args = append(args, "--set", name+"="+cfg.sets[name])
	}
	args = append(args, "--against", cfg.out)
	return fmt.Sprintf("%s; "+
		"NUTS on the same model and data says how far, element by element: %s (docs/inference.md, A fit against the draws)", againstLead(relESS), quoteArgs(args))
}

// closeCV is the largest coefficient of variation of the weights p/q at
// which againstHint reads k̂ above 1 as a far tail, not as q's means: over
// the draws, reweighting moves no mean by more than cv·sd
// (sgvb.NegligibleCV's bound), half an sd at most. Measured: a normal
// with unknown mean and sd, n = 50, seeds 1–8, k̂ up to 1.78 at cv
// 0.21–0.48 (NUTS's sds within 6 %); a mean-field q of a 2-D normal of
// correlation 0.99, k̂ 1.04–1.27, cv 3.3–8.5.
const closeCV = 0.5

// againstLead is againstHint's reading of k̂ above 1: q may be far in its
// means as well as its sds, unless the weights' cv (from relESS) is at
// most closeCV, which bounds how far reweighting moves q's means over
// the draws: then the heavy tail is far out, q's tails thinner than the
// posterior's (a normal q of a Student-t-like posterior).
func againstLead(relESS float64) string {
	cv := sgvb.WeightsCV(relESS)
	if !(cv <= closeCV) {
		return "with k̂ above 1, q may be far from the posterior in its means as well as its sds"
	}
	c := numSig(cv, 2)
	return fmt.Sprintf("with k̂ above 1, the weights p/q have a tail too heavy for a finite mean, yet over these draws they are close (cv %s): "+
		"reweighting moves none of q's means by more than %s of its sd (Cauchy–Schwarz), so what k̂ reads is far in the tails, "+
		"the posterior's heavier than q's (as a Student-t's are than a normal's), and q's sds and tail quantiles may still be off", c, c)
}

// Label switches: a restart's vector param counts as restart 0's in
// another order when its elements' means differ from restart 0's, in the
// same order, by more than switchApart of their joint sds somewhere, and
// in some other order by less than switchMatch everywhere. Two restarts
// that found one q differ by about a tenth of a joint sd (250 draws each):
// the mixture example's weights, swapped with the means, are 2.5 apart.
const (
	switchApart  = 2.0
	switchMatch  = 1.0
	switchMaxLen = 6 // the longest vector whose orders are tried (6! = 720)
)

// switchMaxAxis is the most components along a matrix param's axis that
// labelSwitchHint matches between restarts (a factor model's K).
const switchMaxAxis = 50

// labelSwitchHint returns advice for a fit of restarts in which some
// restart found a vector param (of 2 to switchMaxLen elements) of restart
// 0's in another order, or a matrix param with its rows or columns (2 to
// switchMaxAxis of them) in another order: the components of a mixture
// or of a factor model are exchangeable, the posterior has one mode per
// order of their labels, and the mixture of the restarts (its summary, R̂
// far above 1) blurs modes that are one solution; or a matrix param
// rotated or reflected along such an axis (matrixAxisRotated: factor
// loadings, identified only up to an orthogonal matrix): a hint for the
// permuted params and one for the rotated ones. None when there is no
// such param, or one fit.
func labelSwitchHint(ds *drawSet) []string { return labelSwitchHintOf(ds, nil, nil) }

// labelSwitchHintOf is labelSwitchHint for a model whose params masked
// (maskedParams) are already fixed at 0 above the diagonal, with the
// factors that restarts switched off (off, factorRestartsOff).
func labelSwitchHintOf(ds *drawSet, masked map[string]string, off []string) []string {
	if ds.comp == nil || ds.R < 2 {
		return nil
	}
	var names, rotNames []string
	var who, rotWho, rotAxis []int
	matrix := false
	found := func(name string, r int) {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
		if !slices.Contains(who, r) {
			who = append(who, r)
		}
	}
	for _, v := range ds.vars {
		if v.output || v.corrK != 0 {
			continue
		}
		switch {
		case v.ordered:
			// an ordered param's restarts cannot hold it in another order:
			// apart, they found other optima (optimaHint)
		case len(v.shape) == 1 && v.shape[0] >= 2 && v.shape[0] <= switchMaxLen:
			K := v.shape[0]
			mean, sd := restartMoments(ds, v.first, K)
			for r := 1; r < ds.R; r++ {
				if orderOf(mean[0], sd[0], mean[r], sd[r]) {
					found(v.name, r)
				}
			}
		case len(v.shape) == 2 && len(v.elems) == v.shape[0]*v.shape[1]:
			colMean, colSD := restartMoments(ds, v.first, len(v.elems))
			mean, sd := make([][]float64, ds.R), make([][]float64, ds.R)
			for r := range ds.R { // by row-major element: the columns are column-major
				mean[r], sd[r] = make([]float64, len(v.elems)), make([]float64, len(v.elems))
				for c, e := range v.elems {
					mean[r][e], sd[r][e] = colMean[r][c], colSD[r][c]
				}
			}
			for r := 1; r < ds.R; r++ {
				switch ax, rot := matrixSwitchAxis(v.shape, mean[0], sd[0], mean[r], sd[r], switchApart); {
				case ax < 0:
				case rot:
					if !slices.Contains(rotNames, v.name) {
						rotNames = append(rotNames, v.name)
						rotAxis = append(rotAxis, ax)
					}
					if !slices.Contains(rotWho, r) {
						rotWho = append(rotWho, r)
					}
				default:
					found(v.name, r)
					matrix = true
				}
			}
		}
	}
	var hints []string
	if len(names) > 0 && matrix && len(masked) > 0 {
		// the masks fix the factors' order as well as their rotation
		rotNames, rotAxis = append(rotNames, names...), append(rotAxis, make([]int, len(names))...)
		for _, r := range who {
			if !slices.Contains(rotWho, r) {
				rotWho = append(rotWho, r)
			}
		}
		names = nil
	}
	if len(names) > 0 {
		hints = append(hints, permutedHint(names, who, matrix))
	}
	if len(rotNames) > 0 {
		hints = append(hints, rotatedHint(rotNames, rotAxis, rotWho, masked, off))
	}
	return hints
}

// restartList is "restart 2" or "restarts 1, 2, 3".
func restartList(who []int) string {
	slices.Sort(who)
	rs := make([]string, len(who))
	for i, r := range who {
		rs[i] = fmt.Sprint(r)
	}
	if len(rs) == 1 {
		return "restart " + rs[0]
	}
	return "restarts " + strings.Join(rs, ", ")
}

// rotatedHint is labelSwitchHint's advice for matrix params (names, the
// axis along which each turned in axes) that restarts who found rotated
// or reflected.
func rotatedHint(names []string, axes []int, who []int, masked map[string]string, off []string) string {
	if len(masked) > 0 {
		n := slices.Sorted(maps.Keys(masked))[0]
		return maskedRotatedHint(names, n, masked[n], who, off)
	}
	list := strings.Join(names, ", ")
	its := "its"
	if len(names) > 1 {
		its = "their"
	}
	words := make([]string, len(axes))
	for i, a := range axes {
		words[i] = axisWord(a)
	}
	return fmt.Sprintf("%s found %s of restart 0 with %s %s rotated or reflected (mixed by an orthogonal matrix Q, signs flipped included: "+
		"factor loadings that the likelihood reads only through a product such as %s are identified only up to such a Q): "+
		"the mixture's summary of %s blurs these rotations, as its R̂ says; read outputs that do not depend on the rotation "+
		"(%s, a covariance, a held-out log likelihood), or one restart's fit, or constrain %s so that one rotation fits "+
		"(Stan's factor models fix the loadings above the diagonal at zero and the diagonal positive) (docs/inference.md, Restarts)",
		restartList(who), list, its, strings.Join(slices.Compact(words), " or "), gramOf(names[0], axes[0]), list, gramOf(names[0], axes[0]), list)
}

// maskedRotatedHint is rotatedHint (and permutedHint's for a matrix)
// where the model already masks the param n with the data m, 0 above the diagonal (Lraw .* Moff with a
// positive diagonal, the constraint rotatedHint would advise): that fixes
// the rotation while every diagonal element stays clear of 0, so restarts
// that still differ by one have a diagonal near 0 (off), a factor
// switched off, whose sign the constraint no longer fixes. A trial's
// JSDM's --restarts 4 was told to add the constraint it had.
func maskedRotatedHint(names []string, n, m string, who []int, off []string) string {
	why := "a diagonal element near 0 in some of them"
	if len(off) > 0 {
		why = strings.Join(off, "; ")
	}
	return fmt.Sprintf("%s found %s of restart 0 with columns in another order, rotated or reflected, though %s .* %s already fixes %s's elements above the diagonal at 0 "+
		"(with a positive diagonal, one rotation and sign): that holds only while each diagonal element stays clear of 0, and q puts %s, "+
		"a factor switched off (its loading column and scores shrunk to 0), whose sign and rotation nothing then fixes: "+
		"the restarts found different optima, not one posterior's symmetry, so the mixture's summary of %s blurs them; "+
		"read the fit of the restart with the highest ELBO (draws.csv's rows with its restart__), or outputs that do not depend on the rotation "+
		"(a covariance such as Lambda * Lambda', a held-out log likelihood) (docs/language.md, Latent factors and JSDMs)",
		restartList(who), strings.Join(names, ", "), n, m, n, why, strings.Join(names, ", "))
}

// gramOf is the product that a matrix n's rotation along axis a leaves
// unchanged: n * n' for its columns, n' * n for its rows.
func gramOf(n string, a int) string {
	if a == 0 {
		return n + "' * " + n
	}
	return n + " * " + n + "'"
}

// axisWord names a matrix's components along axis a.
func axisWord(a int) string { return [2]string{"rows", "columns"}[a] }

// matrixSwitchAxis returns the axis along which the matrix means m (sds
// s) are m0's with the components in another order (matrixAxisApart),
// or else rotated or reflected (matrixAxisRotated, rot true), trying
// axes of 2 to switchMaxAxis components; −1 when neither.
func matrixSwitchAxis(shape []int, m0, s0, m, s []float64, apartSD float64) (ax int, rot bool) {
	for a := range 2 {
		if K := shape[a]; K >= 2 && K <= switchMaxAxis && matrixAxisApart(shape, a, m0, s0, m, s, apartSD) {
			return a, false
		}
	}
	for a := range 2 {
		if K := shape[a]; K >= 2 && K <= switchMaxAxis && matrixAxisRotated(shape, a, m0, s0, m, s, apartSD) {
			return a, true
		}
	}
	return -1, false
}

// permutedHint is labelSwitchHint's advice for params (names) that
// restarts who found in another order; matrix when one is a matrix.
func permutedHint(names []string, who []int, matrix bool) string {
	restarts := restartList(who)
	if matrix {
		return fmt.Sprintf("%s found %s of restart 0 with the elements, or the rows or columns of a matrix, in another order (label switching: "+
			"the components of a mixture or of a factor model are exchangeable, so the posterior has a mode per order of their labels): "+
			"the mixture's summary of %s blurs these modes, as its R̂ says; read outputs that do not depend on the labels (a product "+
			"such as W * H, a held-out log likelihood), or one restart's fit (docs/inference.md, Restarts)",
			restarts, strings.Join(names, ", "), strings.Join(names, ", "))
	}
	return fmt.Sprintf("%s found %s of restart 0 with the elements in another order (label switching: a mixture's components "+
		"are exchangeable, so the posterior has a mode per order of their labels): the mixture's summary of %s blurs these modes, "+
		"as its R̂ says, and so does its summary of everything else indexed by the component or state that this check does not name "+
		"(an HMM's transition matrix, rows and columns, and its first state's distribution); give the components an order, as param mu: ordered[K] (Stan's User's Guide does so), or read only outputs "+
		"that do not depend on the labels (docs/inference.md, Restarts)",
		restarts, strings.Join(names, ", "), strings.Join(names, ", "))
}

// restartMoments returns the mean and sd of columns first … first+K−1 of
// ds per restart (mean[r][k]), over the finite draws: the chains'
// moments (everyChainMoments) with a restart's draws as a chain.
func restartMoments(ds *drawSet, first, K int) (mean, sd [][]float64) {
	elems := make([][][]float64, K)
	for k := range K {
		elems[k] = make([][]float64, ds.R)
		for d, x := range ds.cols[first+k] {
			elems[k][ds.comp[d]] = append(elems[k][ds.comp[d]], x)
		}
	}
	return everyChainMoments(elems)
}

// orderOf reports whether the vector of means m (sds s) is the vector m0
// (sds s0) in another order: apart element by element (by more than
// switchApart joint sds somewhere) and within switchMatch joint sds
// everywhere after some permutation other than the identity.
func orderOf(m0, s0, m, s []float64) bool { return orderApart(m0, s0, m, s, switchApart) }

// orderApart is orderOf with apartSD in place of switchApart.
func orderApart(m0, s0, m, s []float64, apartSD float64) bool {
	z := func(i, j int) float64 { return math.Abs(m0[i]-m[j]) / math.Hypot(s0[i], s[j]) }
	return permuted(len(m0), z, apartSD, false)
}

// permuted reports whether K components, d(i, j) apart (in joint sds)
// between component i of the reference and component j of the other, are
// apart in the same order (by more than apartSD somewhere) and within
// switchMatch everywhere in some other order, or, diluted (a matrix's
// components, whose distance sums over their elements), apart by more
// than switchMatch only and within a quarter of that in another: tried in every order up to
// switchMaxLen components, and past that by matching the closest pairs
// first (a component that another order puts within switchMatch is then
// clearly nearest its match).
func permuted(K int, d func(i, j int) float64, apartSD float64, diluted bool) bool {
	worst := 0.0
	for k := range K {
		if v := d(k, k); v > worst {
			worst = v
		}
	}
	match := switchMatch
	switch {
	case worst > apartSD:
	case diluted && worst > switchMatch:
		// Apart by less, as a sparse factor's columns are, whose
		// near-zero elements dilute the distance (a Poisson
		// factorisation's user factors 1.7 apart in the same order, 0.06
		// in another): a switch where another order matches within a
		// quarter of that.
		match = worst / 4
	default:
		return false
	}
	if K > switchMaxLen {
		return greedyMatch(K, d, match)
	}
	perm := make([]int, K)
	for i := range perm {
		perm[i] = i
	}
	// Heap's algorithm over every order; the identity fails apart's test.
	var try func(n int) bool
	try = func(n int) bool {
		if n == 1 {
			for k := range K {
				if !(d(k, perm[k]) < match) {
					return false
				}
			}
			return true
		}
		for i := range n - 1 {
			if try(n - 1) {
				return true
			}
			if n%2 == 0 {
				perm[i], perm[n-1] = perm[n-1], perm[i]
			} else {
				perm[0], perm[n-1] = perm[n-1], perm[0]
			}
		}
		return try(n - 1)
	}
	return try(K)
}

// greedyMatch pairs the K components closest first and reports whether
// every pair is within match.
func greedyMatch(K int, d func(i, j int) float64, match float64) bool {
	type pair struct {
		i, j int
		d    float64
	}
	pairs := make([]pair, 0, K*K)
	for i := range K {
		for j := range K {
			pairs = append(pairs, pair{i, j, d(i, j)})
		}
	}
	slices.SortStableFunc(pairs, func(a, b pair) int { return cmp.Compare(a.d, b.d) })
	usedI, usedJ := make([]bool, K), make([]bool, K)
	n := 0
	for _, p := range pairs {
		if usedI[p.i] || usedJ[p.j] {
			continue
		}
		if !(p.d < match) {
			return false
		}
		usedI[p.i], usedJ[p.j] = true, true
		n++
	}
	return n == K
}

// matrixAxisApart reports whether the matrix means m (sds s) are m0's
// (sds s0) with the components along axis a in another order: component
// i of m0 and j of m are componentDistance apart, a joint-sd distance
// that the elements with weight carry, as a sparse factor's near-zero
// loadings, with sds near zero too, add little to it; permuted decides.
func matrixAxisApart(shape []int, a int, m0, s0, m, s []float64, apartSD float64) bool {
	return permuted(shape[a], componentDistance(shape, a, m0, s0, m, s), apartSD, true)
}

// componentDistance returns d(i, j), the joint-sd distance between
// component i of the matrix means m0 (sds s0) and component j of m (sds
// s) along axis a: the root of their elements' summed squared differences
// over their summed variances, elements with a NaN left out.
func componentDistance(shape []int, a int, m0, s0, m, s []float64) func(i, j int) float64 {
	P := shape[1-a]
	return func(i, j int) float64 {
		var num, den float64
		for p := range P {
			x, y := axisElem(shape, a, i, p), axisElem(shape, a, j, p)
			if diff, v := m0[x]-m[y], s0[x]*s0[x]+s[y]*s[y]; !math.IsNaN(diff) && !math.IsNaN(v) {
				num += diff * diff
				den += v
			}
		}
		return math.Sqrt(num / den)
	}
}

// axisElem is the row-major index of element p of component k along axis
// a of a matrix of the given shape.
func axisElem(shape []int, a, k, p int) int {
	if a == 0 {
		return k*shape[1] + p
	}
	return p*shape[1] + k
}

// matrixAxisRotated reports whether the matrix means m (sds s) are m0's
// (sds s0) with the components along axis a mixed by an orthogonal
// matrix Q (rotated, or reflected: a column's sign flipped is one): apart
// as they stand (some component more than apartSD joint sds from its
// counterpart, componentDistance) and, once m's components are turned
// onto m0's by the best Q (orthogonal Procrustes: Q = U V' from the SVD
// U Σ V' of A' A0, Schönemann 1966), every component within switchMatch
// of its counterpart by the same distance, a turned element's variance
// Σⱼ s²ⱼ Q²ⱼₖ. Factor loadings W, read by the likelihood only through
// W * W', are identified only up to such a Q, so restarts or chains end
// at rotations of one another. Only signed means are tried: a
// non-negative matrix (gamma loadings) has no rotations but permutations,
// and Q would bring two different local optima of one closer than they
// are. Q fits K(K−1)/2 angles, which would bring any two matrices with
// few elements a component together, so components must have more
// elements than there are of them (P > K). Means with a NaN are not
// tried.
func matrixAxisRotated(shape []int, a int, m0, s0, m, s []float64, apartSD float64) bool {
	K, P := shape[a], shape[1-a]
	negative := func(x float64) bool { return x < 0 }
	if K < 2 || P <= K || slices.ContainsFunc(m0, math.IsNaN) || slices.ContainsFunc(m, math.IsNaN) ||
		!slices.ContainsFunc(m0, negative) && !slices.ContainsFunc(m, negative) {
		return false
	}
	d := componentDistance(shape, a, m0, s0, m, s)
	apart := false
	for k := range K {
		apart = apart || d(k, k) > apartSD
	}
	if !apart {
		return false
	}
	A0, A := mat.NewDense(P, K, nil), mat.NewDense(P, K, nil)
	for k := range K {
		for p := range P {
			x := axisElem(shape, a, k, p)
			A0.Set(p, k, m0[x])
			A.Set(p, k, m[x])
		}
	}
	var cross, u, v, q, turned mat.Dense
	cross.Mul(A.T(), A0)
	var svd mat.SVD
	if !svd.Factorize(&cross, mat.SVDFull) {
		return false
	}
	svd.UTo(&u)
	svd.VTo(&v)
	q.Mul(&u, v.T())
	turned.Mul(A, &q)
	for k := range K {
		var num, den float64
		for p := range P {
			diff := turned.At(p, k) - A0.At(p, k)
			v := s0[axisElem(shape, a, k, p)]
			v *= v
			for j := range K {
				sj, qjk := s[axisElem(shape, a, j, p)], q.At(j, k)
				v += sj * sj * qjk * qjk
			}
			if !math.IsNaN(v) {
				num += diff * diff
				den += v
			}
		}
		if !(math.Sqrt(num/den) < switchMatch) {
			return false
		}
	}
	return true
}

// fitWarnings returns the warnings of a fit, or those of the restarts and
// of their mixture. A warning several restarts share is given once, with
// the restarts it concerns; the restarts' own Pareto k̂ warnings are left
// out, as the status table shows every k̂ and the mixture has its own.
func fitWarnings(r *sgvb.Result, mix *sgvb.Mixture) []string {
	if mix == nil {
		return r.Warnings
	}
	var texts []string
	who := map[string][]string{}
	for i, c := range mix.Components {
		for _, w := range c.Warnings {
			if w == sgvb.ParetoWarning(c.ParetoK, c.ParetoRelESS, "q") {
				continue
			}
			if who[w] == nil {
				texts = append(texts, w)
			}
			who[w] = append(who[w], fmt.Sprint(mix.Restarts[i]))
		}
	}
	var out []string
	for _, w := range texts {
		switch rs := who[w]; {
		case len(rs) == len(mix.Components) && len(mix.Failed) > 0:
			out = append(out, "every restart that finished: "+w)
		case len(rs) == len(mix.Components):
			out = append(out, "every restart: "+w)
		case len(rs) == 1:
			out = append(out, "restart "+rs[0]+": "+w)
		default:
			out = append(out, "restarts "+strings.Join(rs, ", ")+": "+w)
		}
	}
	return append(out, mix.Warnings...)
}

// rhatText formats R̂ for the console, with two decimals as Stan prints it.
func rhatText(v float64) string { return numText(v, "%.2f") }

// numText formats v by format, NaN and infinities as formatNum writes
// them (NaN, inf, -inf) rather than Go's NaN, +Inf, -Inf.
func numText(v float64, format string) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return formatNum(v)
	}
	return fmt.Sprintf(format, v)
}

// rhatWarn is the R̂ above which restarts count as disagreeing (Vehtari et
// al. 2021 use 1.01 for MCMC chains).
const rhatWarn = 1.01

// printRestartsStatus prints, after the summary table of a mixture, a line
// per restart, the mixture's ELBO and Pareto k̂, how many elements have R̂
// above rhatWarn, and the files written.
func printRestartsStatus(w io.Writer, cfg *fitConfig, m *sgvb.Mixture, ro *resampleOutcome, ev *evidenceOutcome, ds *drawSet, st []stats, written []string) {
	t := &table{right: []bool{true, true, true, true, false, true}}
	t.row("restart", "seed", "ELBO", "iterations", "", "k̂")
	sum, i, failed := 0.0, 0, m.Failed
	for range len(m.Components) + len(m.Failed) { // in restart order
		if len(failed) > 0 && (i == len(m.Components) || failed[0].Restart < m.Restarts[i]) {
			t.row(fmt.Sprint(failed[0].Restart), sgvb.RestartSeedText(failed[0].Seed, failed[0].Restart), "—", "—", "(failed; left out)", "—")
			failed = failed[1:]
			continue
		}
		c := m.Components[i]
		t.row(fmt.Sprint(m.Restarts[i]), sgvb.RestartSeedText(m.Seeds[i], m.Restarts[i]), fmt.Sprintf("%.6g", c.ELBO), fmt.Sprint(c.Iterations), "("+fitEnd(cfg, c)+")", kText(c.ParetoK))
		sum += c.ELBO
		i++
	}
	t.print(w)
	R := len(m.Components)
	fmt.Fprintf(w, "ELBO         %.6g ± %.2g (the mixture's; the restarts' mean is %.6g, and mixing adds at most log %d = %.3g)\n",
		m.ELBO, m.ELBOSE, sum/float64(R), R, math.Log(float64(R)))
	fmt.Fprintf(w, "Pareto k̂     %s\n", paretoLine(m.ParetoK, m.ParetoReading, m.ParetoRelESS, m.ParetoKDraws))
	printResample(w, cfg, ro)
	printEvidenceLine(w, ev)
	if n, above, worst, name := restartRhats(ds, st, false, rhatWarn); n > 0 {
		of := ""
		if ro != nil && ro.used {
			of = ", from the mixture's draws"
		}
		fmt.Fprintf(w, "R̂            %d of %d elements above %.2f; the largest %.3g (%s%s)\n", above, n, rhatWarn, worst, name, of)
	}
	printLOOLines(w, ds)
	if len(written) > 0 {
		fmt.Fprintf(w, "written      %s: %s\n", cfg.out, strings.Join(written, " "))
	}
}

// restartRhats reads the elements' R̂ across restarts (of the params alone
// where paramsOnly): how many have one, how many are above limit, and the
// largest with its element's name.
func restartRhats(ds *drawSet, st []stats, paramsOnly bool, limit float64) (n, above int, worst float64, name string) {
	worst = math.NaN()
	for _, v := range ds.vars {
		if paramsOnly && v.output {
			continue
		}
		for j, k := range v.elems {
			r := st[v.first+j].rhat
			if math.IsNaN(r) {
				continue
			}
			n++
			if r > limit {
				above++
			}
			if !(r <= worst) {
				worst, name = r, v.elemName(k)
			}
		}
	}
	return n, above, worst, name
}

// optimaGap is how many nats below the best restart's ELBO another's must
// end for optimaHint to say the restarts found different optima: well
// above the estimates' noise (standard errors of 0.02–0.1 nats) and the
// spread of restarts at one optimum, well below the gaps of a mixture
// fitted at a poor local optimum (a 3-component Gaussian mixture of a
// user trial: −805.4 for three restarts, −867.5 to −878.4 for the others).
const optimaGap = 10

// optimaHint says where restarts ended at ELBOs optimaGap or more below
// the best: optima the ELBO ranks apart, which the equal-weight mixture
// blends (its R̂ then measures that, not label switching). "" otherwise.
func optimaHint(mix *sgvb.Mixture) string {
	if mix == nil || len(mix.Components) < 2 {
		return ""
	}
	best, bestI := math.Inf(-1), 0 // bestI: the component, draws.csv's restart__ (a failed restart has none)
	for i, c := range mix.Components {
		if c.ELBO > best {
			best, bestI = c.ELBO, i
		}
	}
	var top, low []int
	var topE, lowE []float64
	for i, c := range mix.Components {
		if c.ELBO <= best-optimaGap {
			low, lowE = append(low, mix.Restarts[i]), append(lowE, c.ELBO)
		} else {
			top, topE = append(top, mix.Restarts[i]), append(topE, c.ELBO)
		}
	}
	if len(low) == 0 {
		return ""
	}
	return fmt.Sprintf("the restarts ended at different optima: %s at ELBO %s, %s at %s, %.0f nats or more below: "+
		"the equal-weight mixture blends q's that the ELBO ranks far apart, so its summaries of the params blend different solutions (its R̂ measures that, not label switching); "+
		"for predictions such a blend can do better than any one restart (the football EPM's 8 restarts: examples/README.md), but for the params read the best restart's draws alone "+
		"(restart %d's: draws.csv's rows with restart__ = %d; fit.json's \"restarts\" holds each restart's q, its factors' means and sds), "+
		"or add --psis-resample, which resamples the mixture's draws by p/q; more restarts (a wider --jitter, or --init-radius 2's random starts) show how often each optimum is found (docs/inference.md, Restarts)",
		restartList(top), elboRange(topE), restartList(low), elboRange(lowE), math.Floor(best-slices.Max(lowE)), mix.Restarts[bestI], bestI) // floored: "11 or more" of a gap of 10.6 is false
}

// restartsApart is the R̂ across restarts above which a param element's
// restarts count as disagreeing for restartsWarning: restarts at one
// optimum differ only by their optimisers' noise (R̂ at most 1.03 on the
// ordered mixture of regressions below), while a synthetic control's
// Dirichlet weights, which four restarts put on different donors at ELBOs
// 1.7 to 4.3, reached 6.5 with nothing said but the count (a user trial,
// 2026-12-01).
const restartsApart = 1.1

// restartsELBOApart is the spread of the restarts' ELBOs, in nats, past
// which restartsWarning names the highest as the better approximation:
// a symmetric bimodal posterior's restarts end 0.002 apart with standard
// errors of 0.0003, a synthetic control's 2.6 apart.
const restartsELBOApart = 1

// restartsWarning warns where restarts disagree on some param element (its
// R̂ across them, st's, above restartsApart; outputs are left out), naming
// the worst and the restarts' ELBOs: the mixture then blends different q's,
// and its summaries of the params are no one fit's. explained: a hint
// below (label switching, rotations, optima, collapsed components) says
// why, which the warning then points to; otherwise it says what it means
// and what to do: which restart to read where their ELBOs tell them
// apart (restartsELBOApart, and autoELBOZ standard errors), and --fullrank all
// where the hints would advise it (joint: fullRankAllAdvised). "" for one fit or
// restarts that agree.
func restartsWarning(ds *drawSet, st []stats, mix *sgvb.Mixture, explained, joint bool) string {
	if mix == nil || len(mix.Components) < 2 || ds.comp == nil {
		return ""
	}
	n, above, worst, name := restartRhats(ds, st, true, restartsApart)
	if above == 0 {
		return ""
	}
	head := fmt.Sprintf("the restarts disagree: %d of %d param elements have R̂ across them above %.1f (the worst: %s %s), so the mixture's summaries of the params blend different q's",
		above, n, restartsApart, name, numText(worst, "%.3g"))
	if explained {
		return head + " (the hint below says why)"
	}
	best, low := 0, 0
	for i, c := range mix.Components {
		if c.ELBO > mix.Components[best].ELBO {
			best = i
		}
		if c.ELBO < mix.Components[low].ELBO {
			low = i
		}
	}
	b, lo := mix.Components[best], mix.Components[low]
	elbos := fmt.Sprintf("they ended at ELBOs %s to %s", numText(lo.ELBO, "%.4g"), numText(b.ELBO, "%.4g"))
	var what string
	if gap := b.ELBO - lo.ELBO; gap > restartsELBOApart && gap > autoELBOZ*math.Hypot(b.ELBOSE, lo.ELBOSE) {
		what = fmt.Sprintf("%s, in different optima of q (the fits can stop short of the posterior's mode, as a mean-field q of correlated params or of a simplex's weights can): "+
			"the restart with the highest ELBO (restart %d) is the better approximation", elbos, mix.Restarts[best])
	} else {
		what = elbos + ", which do not tell them apart: the posterior may have several modes of similar mass, which the mixture spans (as a mixture's relabellings, or a latent class model's mirror, its sensitivities swapped with 1 − its specificities, have: a constraint that the labels mean something removes them, docs/language.md, Log densities per element, and mixtures)"
	}
	if joint {
		what += ", --fullrank all (a joint factor) may reach a higher ELBO than any"
	}
	return head + ": " + what + ", and gpp sample (NUTS) is the check (docs/inference.md, Restarts)"
}

// localOptimaRatio is how many coordinates per observed value make
// localOptimumHint advise restarts (p ≫ n): a user trial's regularised
// horseshoe on 100 observations (2026-12-02) had optima 46 nats apart at
// 1000 coefficients (2004 coordinates, 20 per value), while at 200 (404
// coordinates, 4 per value) 4 restarts ended within 0.5 nats.
const localOptimaRatio = 10

// localOptimumHint returns advice for a single SGVB fit whose Pareto k̂ is
// above 1 (againstHint's gate) while the model has localOptimaRatio times
// more coordinates (dim) than observed values (obs, observedValues): the
// data then leave most directions to the prior, whose shape (a shrinkage
// prior's spike at 0 and heavy tails) gives the ELBO an optimum per choice
// of the elements it lets go, and one fit ends in the one its start leads
// to. k̂ cannot tell such an optimum from the best (the horseshoe above:
// seeds 1 and 2 stopped, "converged", at ELBO −346.6 with 4 of the 6
// large coefficients at 0 and sigma 2.8 against 1; --restarts 4 reached
// −299.6; k̂ 3.2–3.7 at every optimum), but restarts can. "" for
// restarts, MAP, k̂ at most 1, past nutsLargeDim (againstHint names
// --restarts there) and for a mixture (mixed: mixtureHint's advice).
func localOptimumHint(cfg *fitConfig, s sgvb.Settings, k, relESS float64, dim, obs int, mixed bool) string {
	if cfg.restarts > 1 || mixed || s.Method != sgvb.SGVB || !(k > 1) || !sgvb.ParetoAlarm(k, relESS) ||
		dim > nutsLargeDim || obs <= 0 || dim < localOptimaRatio*obs {
		return ""
	}
	return fmt.Sprintf("the model has %d coordinates, %.0f times the data's %d observed values: the prior then decides most directions, "+
		"and a shrinkage prior gives the ELBO an optimum for each choice of which elements it lets go, one fit ending in the one its start leads to, "+
		"whatever k̂ says (a horseshoe over 1000 coefficients and 100 observations stopped, converged, at ELBO −346.6 from two seeds with 4 of its 6 large coefficients at 0, "+
		"where --restarts 4 reached −299.6 and found them): gpp fit --restarts 4 fits from 4 starts and names the best (docs/inference.md, Sparse regression)",
		dim, math.Floor(float64(dim)/float64(obs)), obs)
}

// observedValues counts the values of the data that the model's ~
// statements observe (each data named on a ~'s left, indexed or whole,
// once: its cells less its missing ones), 0 where no ~ observes data.
func observedValues(l *pipeline.Loaded) int {
	if l == nil || l.File == nil {
		return 0
	}
	seen := map[string]bool{}
	n := 0
	ast.Inspect(l.File, func(node ast.Node) bool {
		t, ok := node.(*ast.TildeStmt)
		if !ok {
			return true
		}
		e := ast.Unparen(t.LHS)
		for {
			ix, ok := e.(*ast.IndexExpr)
			if !ok {
				break
			}
			e = ast.Unparen(ix.X)
		}
		id, ok := e.(*ast.Ident)
		if !ok || seen[id.Name] {
			return true
		}
		if a := l.Data[id.Name]; a != nil {
			seen[id.Name] = true
			n += len(a.Values) - len(a.Missing)
		}
		return true
	})
	return n
}
