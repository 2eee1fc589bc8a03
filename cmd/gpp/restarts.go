package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/compile"
)

// initFits sets the warm start of a fit from a fit file: Settings.Init
// from a single fit (for every restart), or one start per restart from a
// fit of as many restarts.
func initFits(cfg *fitConfig, ff *fitFile, l *pipeline.Loaded, con *console, srcs sources) error {
	warnAll := func(ws []string) {
		for _, w := range ws {
			con.note("warning: %s", w)
		}
	}
	if len(ff.Restarts) == 0 {
		init, warns := initResult(ff, ff.Factors, ff.Groups, l.Model)
		warnAll(warns)
		cfg.settings.Init = init
		return nil
	}
	if len(ff.Restarts) != cfg.restarts {
		return &ast.Error{Pos: findPos(cfg.init, srcs[cfg.init], `"restarts"`),
			Msg: fmt.Sprintf("--init: the file holds a mixture of %d restarts; warm-start it with --restarts %d", len(ff.Restarts), len(ff.Restarts))}
	}
	for i, rs := range ff.Restarts {
		init, warns := initResult(ff, rs.Factors, rs.Groups, l.Model)
		if i == 0 {
			warnAll(warns) // the restarts share their latents
		}
		cfg.inits = append(cfg.inits, init)
	}
	return nil
}

// fitRestarts runs cfg.restarts fits side by side, reporting their progress
// and each one's end on the console.
func fitRestarts(ctx context.Context, cfg *fitConfig, l *pipeline.Loaded, con *console) (*sgvb.Mixture, error) {
	R := cfg.restarts
	jitter := cfg.jitter
	if jitter == 0 {
		jitter = -1 // sgvb: the starts of Settings, not jittered
	}
	rs := sgvb.Restarts{N: R, Inits: cfg.inits, Jitter: jitter,
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
			con.info("restart %d (seed %d): ELBO %.6g ± %.2g, %d iterations (%s), Pareto k̂ %s, %.3g s",
				r, sgvb.RestartSeed(cfg.settings.Seed, r), res.ELBO, res.ELBOSE, res.Iterations, fitEnd(cfg, res), num3(res.ParetoK), res.Seconds)
		}}
	return sgvb.FitRestarts(ctx, pipeline.Target{M: l.Model}, pipeline.Latents(l.Model), cfg.settings, rs)
}

// fitEnd says how a fit ended.
func fitEnd(cfg *fitConfig, r *sgvb.Result) string {
	switch {
	case r.Interrupted:
		return "interrupted"
	case !r.Converged && cfg.tol == 0:
		return "the fixed number asked"
	case !r.Converged:
		return "did not converge"
	}
	return "converged"
}

// softplusHint returns advice for a gamma-factor SGVB fit in the paper's
// softplus coordinates (--gamma-param softplus) that did not converge (a
// restart that did not, for a mixture) while the model has positive
// latents: such factors take thousands of steps to become tight
// (docs/inference.md; kidiq's sigma is still 4.3× too wide after 10⁴
// steps), and the default log shape/log mean coordinates are the usual
// cure. "" otherwise.
func softplusHint(s sgvb.Settings, m *compile.Model, r *sgvb.Result, mix *sgvb.Mixture) string {
	if s.Method == sgvb.MAP || s.Family != sgvb.FamilyGamma || s.GammaParam == sgvb.GammaLogMeanShape || s.Tol < 0 {
		return ""
	}
	positive := false
	for _, lat := range m.Latents {
		positive = positive || lat.Support == dist.Positive || lat.Support == dist.PositiveOrdered
	}
	// Not converged, and not because the log density overflows (an
	// improper posterior has its own warning).
	stalled := func(r *sgvb.Result) bool {
		return r != nil && !r.Converged && !r.Interrupted && !math.IsInf(r.ELBO+r.ELBOSE, 0) && !math.IsNaN(r.ELBO+r.ELBOSE)
	}
	slow := stalled(r)
	if mix != nil {
		slow = false
		for _, c := range mix.Components {
			slow = slow || stalled(c)
		}
	}
	if !positive || !slow {
		return ""
	}
	return "gamma factors behind the softplus are slow to become tight, so this fit stopped before it converged; " +
		"where positive latents are well identified, the default --gamma-param log-mean-shape usually converges an " +
		"order of magnitude sooner, while on a small sparse model such as examples/epm.gpp's football network " +
		"softplus may keep more components: compare the two, or give softplus more --iter (docs/inference.md)"
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
			if w == sgvb.ParetoWarning(c.ParetoK, "q") {
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

// rhat returns the potential scale reduction factor R̂ of one column of
// draws grouped by restart (draw d from restart comp[d]), as Gelman and
// Rubin define it for chains: √(((n−1)/n W + B/n) / W), with W the mean
// variance within restarts and B/n the variance of their means. The draws
// of a restart are independent, so R̂ measures only how far the restarts
// disagree against the spread of each q: near 1 when they found the same
// q, large when they settled in different modes (or differ by a label
// switch). Non-finite draws are left out; NaN when a restart has fewer
// than two finite draws or no spread.
func rhat(col []float64, comp []int, R int) float64 {
	n, mean, m2 := make([]float64, R), make([]float64, R), make([]float64, R)
	for d, x := range col {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			continue
		}
		r := comp[d]
		n[r]++
		delta := x - mean[r]
		mean[r] += delta / n[r]
		m2[r] += delta * (x - mean[r])
	}
	var W, nbar, gm float64
	for r := range R {
		if n[r] < 2 {
			return math.NaN()
		}
		W += m2[r] / (n[r] - 1) / float64(R)
		nbar += n[r] / float64(R)
		gm += mean[r] / float64(R)
	}
	if !(W > 0) {
		return math.NaN()
	}
	var bn float64 // B/n: the variance of the restarts' means
	for r := range R {
		bn += (mean[r] - gm) * (mean[r] - gm) / float64(R-1)
	}
	return math.Sqrt(((nbar-1)/nbar*W + bn) / W)
}

// rhatText formats R̂ for the console, with two decimals as Stan prints it.
func rhatText(v float64) string {
	if math.IsNaN(v) {
		return "NaN"
	}
	return fmt.Sprintf("%.2f", v)
}

// rhatWarn is the R̂ above which restarts count as disagreeing (Vehtari et
// al. 2021 use 1.01 for MCMC chains).
const rhatWarn = 1.01

// printRestartsStatus prints, after the summary table of a mixture, a line
// per restart, the mixture's ELBO and Pareto k̂, how many elements have R̂
// above rhatWarn, and the files written.
func printRestartsStatus(w io.Writer, cfg *fitConfig, m *sgvb.Mixture, ro *resampleOutcome, ds *drawSet, st []stats, written []string) {
	t := &table{right: []bool{true, true, true, true, false, true}}
	t.row("restart", "seed", "ELBO", "iterations", "", "k̂")
	sum, i, failed := 0.0, 0, m.Failed
	for range len(m.Components) + len(m.Failed) { // in restart order
		if len(failed) > 0 && (i == len(m.Components) || failed[0].Restart < m.Restarts[i]) {
			t.row(fmt.Sprint(failed[0].Restart), fmt.Sprint(failed[0].Seed), "—", "—", "(failed; left out)", "—")
			failed = failed[1:]
			continue
		}
		c := m.Components[i]
		t.row(fmt.Sprint(m.Restarts[i]), fmt.Sprint(m.Seeds[i]), fmt.Sprintf("%.6g", c.ELBO), fmt.Sprint(c.Iterations), "("+fitEnd(cfg, c)+")", num3(c.ParetoK))
		sum += c.ELBO
		i++
	}
	t.print(w)
	R := len(m.Components)
	fmt.Fprintf(w, "ELBO         %.6g ± %.2g (the mixture's; the restarts' mean is %.6g, and mixing adds at most log %d = %.3g)\n",
		m.ELBO, m.ELBOSE, sum/float64(R), R, math.Log(float64(R)))
	fmt.Fprintf(w, "Pareto k̂     %s\n", paretoLine(m.ParetoK, m.ParetoReading))
	printResample(w, cfg, ro)
	worst, above, n := math.NaN(), 0, 0
	name := ""
	for _, v := range ds.vars {
		for j, k := range v.elems {
			r := st[v.first+j].rhat
			if math.IsNaN(r) {
				continue
			}
			n++
			if r > rhatWarn {
				above++
			}
			if !(r <= worst) {
				worst, name = r, elemName(v.name, v.shape, k)
			}
		}
	}
	if n > 0 {
		of := ""
		if ro != nil && ro.used {
			of = ", from the mixture's draws"
		}
		fmt.Fprintf(w, "R̂            %d of %d elements above %.2f; the largest %.3g (%s%s)\n", above, n, rhatWarn, worst, name, of)
	}
	printLOO(w, ds.loo)
	if len(written) > 0 {
		fmt.Fprintf(w, "written      %s: %s\n", cfg.out, strings.Join(written, " "))
	}
}
