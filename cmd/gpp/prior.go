package main

// gpp fit --prior: draws of the params from their priors and of the
// outputs at each, a prior predictive check (Stan's "generate from the
// prior", PyMC's sample_prior_predictive). It is a mode of fit rather than
// a command of its own because it takes fit's inputs (a model, its data,
// --set) and writes fit's files (summary.csv, draws.csv) through fit's
// output directory machinery (the lock, the atomic commit, the removal of
// an earlier fit's files); the flags that steer SGVB are refused with it.

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/compile"
)

// defaultPriorOut is --out's default with --prior, apart from a fit's so
// that a prior check does not replace the fit's files.
const defaultPriorOut = "gpp-prior"

// priorFlags are the flags that apply with --prior.
var priorFlags = map[string]bool{"prior": true, "plots": true, "draws-params": true, "seed": true, "output-draws": true, "out": true, "set": true, "levels": true, "hdi": true, "percentiles": true, "sig-figs": true, "quiet": true, "verbose": true}

// priorStream seeds the draws of the params from their priors (with
// --seed); the outputs' replicates draw from predictStream, as in a fit.
const priorStream = 0x7072696f72732121

// runPrior draws the params from their priors, evaluates the outputs at
// each draw, writes summary.csv and draws.csv and prints the summary.
func runPrior(ctx context.Context, cfg *fitConfig, stdout io.Writer, con *console) int {
	l, code, ok := loadModel(ctx, cfg, con, "draw", 1)
	if !ok {
		return code
	}
	srcs := sources(l.Sources)
	if cfg.plots {
		cfg.ppc = findReplicates(l)
	}
	ps, err := l.Model.NewPriorSampler()
	if err != nil {
		printError(con, err, srcs)
		return exitError
	}
	if !noOutputClash(cfg, l, con) {
		return exitError
	}
	seed := cfg.settings.Seed
	if len(l.Model.Latents) == 0 { // the prior predictive is the outputs alone
		con.info("drawing the outputs of %s %d times (the model has no params), seed %d", l.Path, cfg.outputDraws, seed)
	} else {
		con.info("drawing %d sets of params of %s from their priors, seed %d", cfg.outputDraws, l.Path, seed)
	}
	ds, err := makePriorDraws(ctx, ps, l.Model, cfg.outputDraws, seed)
	if err != nil {
		if ctx.Err() != nil {
			return exitInterrupted // the signal's note said so
		}
		printError(con, err, srcs)
		con.note("no output written")
		return exitError
	}
	st := summariseColumns(ds, cfg.hdi, cfg.probs)
	for c := range ds.mean {
		ds.mean[c] = st[c].mean
	}

	lock, removeIfEmpty, ok := openOutDir(cfg, con)
	if !ok {
		return exitError
	}
	defer lock.release()
	h := drawsHeader{model: l.Path, modelHash: fitfile.ModelHash(l.Source), data: cfg.data, cfg: cfg}
	h.recordData(l)
	written, ok := commitOutputs(cfg, h, ds, st, con, removeIfEmpty)
	if !ok {
		return exitError
	}
	lock.release()

	printPriorSummary(stdout, cfg, ds, st, written, len(l.Model.MissingCells()) > 0, len(l.Model.Latents) == 0)
	for _, w := range outputWarnings(ds, st, l.Info, "prior draws had an output that is not finite (written as it is)") {
		con.note("warning: %s", w)
	}
	for _, w := range priorTargetWarnings(l) {
		con.note("warning: %s", w)
	}
	return exitOK
}

// priorTargetWarnings warns of each target += that the prior draws leave
// out although it may be part of the prior: one that depends on params
// and reads no data, through its lets (`target += -0.5 * sum(square(L))`,
// a prior written out). One that reads data is a likelihood, which the
// draws leave out by design.
func priorTargetWarnings(l *pipeline.Loaded) []string {
	readsData := func(e ast.Node) bool {
		found := false
		l.Info.VisitReads(e, true, func(sym *check.Symbol) bool {
			found = sym.Kind == check.Data || sym.Kind == check.Size
			return found
		})
		return found
	}
	var out []string
	ast.Inspect(l.File, func(n ast.Node) bool {
		s, ok := n.(*ast.TargetStmt)
		if !ok {
			return true
		}
		if t, ok := l.Info.Types[s.Value]; ok && !t.DataOnly && !readsData(s.Value) {
			out = append(out, fmt.Sprintf("%s: this target += depends on params and reads no data, so it may be part of the prior, but the prior draws leave it out (they draw each param from its declared prior or its ~ alone): if it is, these draws are not from the model's prior", s.Target))
		}
		return false
	})
	return out
}

// makePriorDraws draws n sets of params from their priors with the
// sampler and evaluates the log joint and the outputs at each: log_p__ is
// the log joint (NaN where it is not finite) and log_g__ the log prior
// density, so that their difference is the log likelihood of the draw.
// The mean row is left for the caller (the columns' means).
func makePriorDraws(ctx context.Context, ps *compile.PriorSampler, m *compile.Model, n int, seed uint64) (*drawSet, error) {
	ev, err := m.NewEvaluator()
	if err != nil {
		return nil, err
	}
	ds := modelDrawSet(m, "prior", n)
	x, z := make([]float64, m.Dim), make([]float64, m.Dim)
	rng := rand.New(rand.NewPCG(seed, priorStream))
	seedPredictive(ev, seed)
	for d := range n {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		lg, err := ps.Draw(rng, x, z)
		if err != nil {
			return nil, err
		}
		lp, outs, _ := ev.Eval(x) // a log joint that fails is the likelihood's, not the draw's
		if err := ev.OutputErr(); err != nil {
			ds.bad++
			if ds.badErr == nil {
				ds.badErr = err
			}
		}
		if math.IsInf(lp, 0) {
			lp = math.NaN()
		}
		ds.logp[d], ds.logq[d] = lp, lg
		ds.fill(z, outs, func(c int, v float64) { ds.cols[c][d] = v })
	}
	return ds, nil
}

// modelDrawSet lays out a drawSet of n draws of m's params, whose summary
// names family, and of its outputs, its columns allocated (gpp prior,
// gpp sample and gpp predict over a sample).
func modelDrawSet(m *compile.Model, family string, n int) *drawSet {
	var vars []variable
	ncol := 0
	for i, l := range m.Latents {
		v := latentVariable(l.Name, family, l.Shape, i, l.Offset, ncol, l.Value, l.Support)
		v.logScale = (l.Support == dist.Positive || l.Support == dist.PositiveOrdered) && l.Value == nil && (!l.Bounded() || l.ScaleV == nil && l.Loc == 0 && l.Scale > 0)
		ncol += len(v.elems)
		vars = append(vars, v)
	}
	vars, ncol = withOutputs(vars, ncol, m)
	ds := &drawSet{vars: vars, ncol: ncol, mean: make([]float64, ncol), cols: make([][]float64, ncol),
		logp: make([]float64, n), logq: make([]float64, n), R: 1}
	for c := range ds.cols {
		ds.cols[c] = make([]float64, n)
	}
	return ds
}

// printPriorSummary prints the summary table of prior draws and the
// lines after it.
func printPriorSummary(w io.Writer, cfg *fitConfig, ds *drawSet, st []stats, written []string, imputed, noParams bool) {
	h := drawsHeader{cfg: cfg}
	printTable(w, cfg, h, ds, st)
	fmt.Fprintln(w)
	what := "the params from their priors, the likelihood ignored"
	switch {
	case noParams:
		what = "the model has no params: its outputs drawn, as gpp sample's fixed_param sampler draws them"
	case imputed: // the missing values' draws are the likelihood's
		what = "the params from their priors, the missing values from the likelihood at them, the observed values ignored"
	}
	fmt.Fprintf(w, "prior draws  %d (seed %d): %s\n", cfg.outputDraws, cfg.settings.Seed, what)
	if len(written) > 0 {
		fmt.Fprintf(w, "written      %s: %s\n", cfg.out, strings.Join(written, " "))
	}
}

// writePriorHeader writes the comment lines of prior draws' draws.csv
// after the model's.
func writePriorHeader(p func(string, ...any), h drawsHeader) {
	c := h.cfg
	p("# method = prior")
	p("#   prior")
	p("#     gpp_method = ancestral")
	p("#     output_samples = %d", c.outputDraws)
	writeRunHeader(p, h)
	p("# PRIOR DRAWS: each row's params are drawn from their priors (not fitted to the data) and its outputs evaluated at them;")
	p("# the likelihood (a ~ on data, T[...], target +=) is ignored. The first row holds the draws' means;")
	p("# log_p__ is the log joint at the draw and log_g__ the log prior density, so log_p__ - log_g__ is its log likelihood.")
}
