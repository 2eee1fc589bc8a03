package main

// gpp sbc: simulation-based calibration (Talts, Betancourt, Simpson,
// Vehtari and Gelman 2018; the SBC R package; Yao et al. 2018 for VI). For
// each simulation the params θ̃ are drawn from their priors (as fit --prior
// draws them), the observed data ỹ from their ~ given θ̃ (as gpp predict
// draws left-out data), q is fitted to ỹ with the fit's settings, and the
// rank of each element of θ̃ among L draws of q is recorded. Were q the
// posterior, every rank would be uniform on 0..L; a ∪-shaped histogram says
// q is too narrow, a ∩ too wide, a slope that it is shifted. The outputs
// that depend only on params and data are ranked beside them (the SBC
// package's derived quantities): their values at θ̃ and ỹ among their
// values at q's draws and ỹ.

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/compile"
)

const sbcSynopsis = "sbc model.gpp [design.csv|design.tsv|design.json|design.R] [NAME=file.csv ...] [flags]"

// Defaults of gpp sbc.
const (
	defaultSBCOut   = "gpp-sbc"
	defaultSims     = 100
	defaultSBCDraws = 99 // ranks 0..99: 100 values, 20 bins of 5
)

// gpp sbc's files besides summary.csv.
const (
	sbcRanksFile  = "ranks.csv"
	sbcFailedFile = "failed.csv"
)

// sbcPlotName is the rank histogram of param name.
func sbcPlotName(name string) string { return name + "_ranks.png" }

// sbcStream seeds each simulation's streams (with --seed and the
// simulation's number): its prior draw, its data and the fit's seed.
const sbcStream = 0x73626373696d7321

// sbcLevel is the level of the console's readings: a |z| above sbcZ (or a
// chi-square p-value below it) is called out.
const (
	sbcLevel = 0.01
	sbcZ     = 2.576 // the two-sided 1 % point of N(0, 1)
)

// sbcFitFlags are gpp fit's flags that gpp sbc takes, steering each fit.
var sbcFitFlags = []string{"iter", "draws", "optimizer", "step-size", "seed", "family", "fullrank", "rank", "band",
	"gamma-grad", "estimator", "gamma-param", "tol", "last-iterate", "eval-every", "output-draws", "out",
	"plots", "quiet", "verbose", "set"}

const sbcHelpText = `Simulation-based calibration (SBC; Talts et al. 2018) of gpp's variational fit
for this model and this design: is q calibrated, or systematically too narrow,
too wide or shifted? For each of --sims simulations s it draws the params θ̃
from their priors (ancestral sampling, as gpp fit --prior), draws the observed
data ỹ from their ~ statements given θ̃ (as gpp predict draws left-out data),
fits q to ỹ with the fit flags given (as gpp fit would, quietly), draws
--output-draws L draws from q and records, for every element of every param,
the rank of θ̃ among them: how many draws are below it (ties broken at
random), 0..L. Were q the exact posterior, the ranks would be uniform.

Each output that depends only on params and data (output d = a - b, a
prediction, a log likelihood of the observed data) is ranked too, beside the
params (the SBC package's derived quantities): its value at θ̃ and ỹ among
its values at q's draws and ỹ. A function of the params can be miscalibrated
where each param looks calibrated (a difference of params whose posterior
correlation a mean-field q leaves out). An output that draws (output y_rep ~
D(...)), or reads one, is not ranked: its value at θ̃ would be one more random
draw; nor is one that reads data not in the design. An element that is not
finite at θ̃ or at a draw is left out of that simulation's ranks.
--outputs=false ranks the params only.

The data given are the design: covariates and sizes. The observed data (each
declaration that a ~ observes, y ~ D(...) or y[i] ~ D(...)) are simulated and
need not be given; if given, their values are not used (they may bind a size,
N of real[N]; else --set N=...). Every param needs a proper prior to draw from,
and every observed declaration a ~ to draw from: a likelihood written as
target += cannot be simulated.

Simulation s draws from streams of its own, derived from --seed and s, so the
results do not depend on --workers (simulations run side by side, each fit on
one goroutine). A fit that fails leaves its simulation out, with a note.

Into --out (default gpp-sbc) it writes ranks.csv (a row per simulation and
param or output element: the rank, with the fit's ELBO, Pareto k̂ and whether
it converged), summary.csv (per element: the chi-square test of uniform ranks
in bins, its p-value, the z-score of the mean rank, and the fraction of ranks
in the outer 10 % against the fraction expected), failed.csv when a fit
failed, and with --plots a rank histogram NAME_ranks.png per param and ranked
output with the 99 % band of a uniform bin's count. The console reads each
element at the 1 % level: "q shifted high" (ranks too low: q's draws above
the truth), "q shifted low", "q too narrow" (too many ranks in the outer
10 %: a ∪ shape), "q too wide" (too few: a ∩), "not uniform" (the chi-square
test alone), or "calibrated". The output directory is created and locked
before the first simulation, so that an --out that cannot take the files fails
at once. Ctrl-C (SIGINT) or SIGTERM stops the simulations without writing
(exit 130). Exit 0: done; 1: an error in the model or the design, or every fit
failed; 2: a bad command line.
`

// sbcConfig is a parsed gpp sbc command line.
type sbcConfig struct {
	fit     *fitConfig
	sims    int
	workers int
	outputs bool // rank the outputs of params and data too (sbcOutputs)
}

// parseSBCArgs parses gpp sbc's command line: fit's flags that steer a fit,
// and --sims and --workers.
func parseSBCArgs(args []string, stdout, stderr io.Writer) (*sbcConfig, int, bool) {
	ffs, cfg, v := newFitFlags(stderr)
	cfg.outputDraws, cfg.out = defaultSBCDraws, defaultSBCOut
	fs := newFlagSet("sbc", sbcSynopsis, sbcHelpText, stderr)
	borrowFitFlags(fs, ffs, sbcFitFlags, map[string]string{
		"iter":         "iteration limit of each fit: SGVB steps, or L-BFGS iterations with --family\nlaplace or pathfinder (whose default is 1000)",
		"output-draws": "draws `L` of each fitted q among which the true value is ranked (ranks 0..L)",
		"out":          "output `directory` (created if needed)",
		"plots":        "also write a rank histogram NAME_ranks.png per param and ranked output (default false)",
		"family":       "variational family of positive latents: gamma or lognormal; or laplace, or\npathfinder (one path), whose q is one joint normal over every param",
		"seed":         "seed of the simulations: simulation s draws from streams of --seed and s",
		"quiet":        "no progress on stderr; warnings and errors are still printed (default false)",
		"verbose":      "a line per simulation, and every param element in the table (default false)",
	})
	fs.Lookup("output-draws").DefValue = fmt.Sprint(defaultSBCDraws)
	fs.Lookup("out").DefValue = defaultSBCOut
	sc := &sbcConfig{fit: cfg}
	fs.IntVar(&sc.sims, "sims", defaultSims, "number of simulations `S`")
	fs.IntVar(&sc.workers, "workers", 0, "simulations run side by side; 0: the number of CPUs (GOMAXPROCS)")
	fs.BoolVar(&sc.outputs, "outputs", true, "also rank the outputs that depend only on params and data\n(not those that draw, output y_rep ~ D(...)); false: the params only")
	set, code, ok := parseModelCommand(fs, cfg, args, stdout, stderr, "sbc", sbcSynopsis)
	if !ok {
		return nil, code, false
	}
	usageErr := func(format string, args ...any) (*sbcConfig, int, bool) {
		return nil, usageError(stderr, "sbc", sbcSynopsis, format, args...), false
	}
	if cfg.family == "map" {
		return usageErr("--family map: sbc ranks the truth among draws of q, and a MAP estimate has none (gamma, lognormal, laplace or pathfinder)")
	}
	if sc.sims < 2 {
		return usageErr("--sims must be at least 2, got %d", sc.sims)
	}
	if msg := applyJobsFlags(cfg, v, set, &sc.workers); msg != "" {
		return usageErr("%s", msg)
	}
	return sc, 0, true
}

// parseModelCommand parses the command line of gpp name, whose positional
// arguments are the model file and then data files (into cfg), and returns
// the flags given. ok false: stop with code (help, or a usage error printed).
func parseModelCommand(fs *flag.FlagSet, cfg *fitConfig, args []string, stdout, stderr io.Writer, name, synopsis string) (set map[string]bool, code int, ok bool) {
	pos, code, ok := parseCommand(fs, args, stdout)
	if !ok {
		return nil, code, false
	}
	if len(pos) == 0 {
		return nil, usageError(stderr, name, synopsis, "%s needs a model file", name), false
	}
	cfg.model, cfg.data = pos[0], pos[1:]
	set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set, 0, true
}

// borrowFitFlags defines on fs the fit flags names of ffs (gpp fit's, from
// newFitFlags), sharing their values, with usage's text where it gives one:
// gpp sbc and gpp kfold take them for each of their fits.
func borrowFitFlags(fs, ffs *flag.FlagSet, names []string, usage map[string]string) {
	for _, name := range names {
		f := ffs.Lookup(name)
		u, ok := usage[name]
		if !ok {
			u = f.Usage
		}
		fs.Var(f.Value, name, u)
		fs.Lookup(name).DefValue = f.DefValue
	}
}

// applyJobsFlags finishes the fit flags of a command that runs its fits
// side by side (gpp sbc, gpp kfold): --workers at least 0, 0 read as the
// number of CPUs, and each fit on one goroutine, since the fits share the
// CPUs. It returns the usage error, "" when none.
func applyJobsFlags(cfg *fitConfig, v *fitFlagValues, set map[string]bool, workers *int) string {
	if *workers < 0 {
		return fmt.Sprintf("--workers must be at least 0 (0: the number of CPUs), got %d", *workers)
	}
	v.workers = 1
	if msg := applyFitFlags(cfg, v, set); msg != "" {
		return msg
	}
	if cfg.autoFullRank {
		return "--fullrank auto is gpp fit's (a fit refitted with the joint factor its curvature check chooses): here every fit takes the same factors, so name the group (--fullrank a+b), as gpp fit's note or hint gives it"
	}
	if *workers == 0 {
		*workers = runtime.GOMAXPROCS(0)
	}
	return ""
}

// cmdSBC runs gpp sbc.
func cmdSBC(args []string, stdout, stderr io.Writer) int {
	sc, code, ok := parseSBCArgs(args, stdout, stderr)
	if !ok {
		return code
	}
	return runJobs(sc.fit, stderr, func(ctx context.Context, con *console) int {
		return runSBC(ctx, sc, stdout, con)
	})
}

// runJobs is how gpp sbc and gpp kfold start their fits: run gets the
// console on stderr and a context that Ctrl-C (SIGINT) or SIGTERM cancels,
// and cfg the temporary files of the fits.
func runJobs(cfg *fitConfig, stderr io.Writer, run func(context.Context, *console) int) int {
	con := newConsole(stderr, isTerminal(stderr), cfg.quiet, cfg.verbose)
	cfg.temps = &tempFiles{}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, con)
}

// sbcSetup is what every simulation shares: the model without its
// outputs, the design data, the predict-mode model that draws the observed
// data, and the fit-mode model on placeholder data whose prior sampler
// draws the params.
type sbcSetup struct {
	l    *pipeline.Loaded
	file *ast.File // l.File without its outputs
	// fitFile is l.File with the outputs ranked (sbcOutputs), the fits'
	// model; file when none are.
	fitFile  *ast.File
	unranked []string // the outputs left out of the ranks, with why
	design   map[string]*data.Array
	observed []*check.DataVar // drawn, in the order of sim's outputs
	sim      *compile.Model   // predict mode: the observed data as its outputs
	base     *compile.Model   // fit mode, on data drawn at coordinates 0
	vars     []variable       // the params' elements, then the ranked outputs', as reported
	ncol     int
	nparam   int // the params' columns, the first of ncol
	// given names the observed data that the data given held: sbc draws
	// them all the same, and its note on each says so.
	given map[string]bool
}

// sbcObserved returns the data declarations that a ~ observes (y ~ D,
// y[i] ~ D), in declaration order.
func sbcObserved(f *ast.File, info *check.Info) []*check.DataVar {
	seen := map[*check.Symbol]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if t, ok := n.(*ast.TildeStmt); ok {
			if sym := info.Uses[check.ObservedIdent(t.LHS)]; sym != nil && sym.Kind == check.Data {
				seen[sym] = true
			}
		}
		return true
	})
	var out []*check.DataVar
	for _, d := range info.Data {
		if !d.Implicit && seen[d.Symbol] {
			out = append(out, d)
		}
	}
	return out
}

// sbcTargets returns an error at each target += that depends on params:
// SBC's draws from the model leave it out (the priors are drawn from their
// ~, the data from theirs), so the ranks would test another model.
func sbcTargets(f *ast.File, info *check.Info) error {
	var errs ast.ErrorList
	memo := map[*check.Symbol][]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		s, ok := n.(*ast.TargetStmt)
		if !ok {
			return true
		}
		if t, ok := info.Types[s.Value]; ok && t.DataOnly {
			return false
		}
		if reads := dataRead(s.Value, info, memo); len(reads) > 0 {
			errs.Add(s.Target, "sbc simulates the observed data from their ~ statements, but this target += is a likelihood (it reads %s), which has no distribution to draw from: write it as ~ statements (y ~ D(...)) to calibrate the fit by SBC", strings.Join(reads, ", "))
		} else {
			errs.Add(s.Target, "this target += depends on params, and sbc's draws from the priors leave it out (each param is drawn from its own prior): write the prior as a ~ on the param")
		}
		return false
	})
	return errs.Err()
}

// sbcPriors returns an error at each prior that reads observed data: the
// params are drawn before the data, which do not exist yet.
func sbcPriors(f *ast.File, info *check.Info, observed []*check.DataVar) error {
	obs := map[string]bool{}
	for _, d := range observed {
		obs[d.Name] = true
	}
	var errs ast.ErrorList
	memo := map[*check.Symbol][]string{}
	test := func(param string, prior *ast.CallExpr) {
		if prior == nil {
			return
		}
		for _, name := range dataRead(prior, info, memo) {
			if obs[name] {
				errs.Add(prior.Pos(), "the prior of %s reads %s, which sbc simulates from the params: a prior that depends on the observed data cannot be drawn before them", param, name)
				return
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ParamDecl:
			test(n.Name.Name, n.Prior)
		case *ast.TildeStmt:
			if id, ok := ast.Unparen(n.LHS).(*ast.Ident); ok {
				if sym := info.Uses[id]; sym != nil && sym.Kind == check.Param {
					test(id.Name, n.Dist)
				}
			}
		}
		return true
	})
	return errs.Err()
}

// dataRead returns the names of the data declarations that e reads,
// itself or through lets (memo: the lets' answers), in the order first
// read.
func dataRead(e ast.Node, info *check.Info, memo map[*check.Symbol][]string) []string {
	var found []string
	add := func(names ...string) {
		for _, n := range names {
			if !slices.Contains(found, n) {
				found = append(found, n)
			}
		}
	}
	ast.Inspect(e, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		switch sym := info.Uses[id]; {
		case sym == nil:
		case sym.Kind == check.Data:
			add(sym.Name)
		case sym.Kind == check.Let:
			r, seen := memo[sym]
			if !seen {
				memo[sym] = nil // a let cannot read itself; guards a cycle
				if d, ok := sym.Decl.(*ast.LetStmt); ok {
					r = dataRead(d.Value, info, memo)
				}
				memo[sym] = r
			}
			add(r...)
		}
		return true
	})
	return found
}

// withoutOutputs returns f without its top-level outputs: SBC ranks the
// params, and an output that reads the observed data (log_lik) would need
// them in the design.
func withoutOutputs(f *ast.File) *ast.File {
	c := *f
	c.Stmts = nil
	for _, s := range f.Stmts {
		if _, ok := s.(*ast.OutputStmt); !ok {
			c.Stmts = append(c.Stmts, s)
		}
	}
	return &c
}

// sbcOutputs returns f without the outputs that SBC cannot rank, and
// each of those with why: those that draw (output y_rep ~ D(...)), those
// that read one, through other outputs or lets (then left out too), and
// those that read data not in the design, given reports which are (the
// observed data are, drawn in each simulation). An output of params and
// data, the observed data included, is a function f(θ, y) whose value at
// the simulation's θ̃ and ỹ ranks uniformly among its values at draws of
// the posterior given ỹ, as the params do (the SBC package's derived
// quantities); a replicate's value at θ̃ is one more random draw, whose
// rank would mostly test the likelihood's own noise (and tie for counts),
// so it is not ranked. With rank false every output is left out, unnamed.
func sbcOutputs(f *ast.File, info *check.Info, rank bool, given func(name string) bool) (*ast.File, []string) {
	if !rank {
		return withoutOutputs(f), nil
	}
	dropped := map[*check.Symbol]bool{}
	readsDropped := func(e ast.Node) string {
		found := ""
		ast.Inspect(e, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && dropped[info.Uses[id]] {
				found = id.Name
			}
			return found == ""
		})
		return found
	}
	values := map[*ast.OutputStmt]*check.OutputVar{}
	for _, o := range info.Outputs {
		values[o.Stmt] = o
	}
	memo := map[*check.Symbol][]string{}
	c := *f
	c.Stmts = nil
	var left []string
	for _, st := range f.Stmts {
		switch st := st.(type) {
		case *ast.OutputStmt:
			o := values[st]
			why := ""
			switch {
			case st.Dist != nil || o == nil || o.Value == nil:
				why = "draws"
			case readsDropped(o.Value) != "":
				why = "reads " + readsDropped(o.Value)
			default:
				for _, name := range dataRead(o.Value, info, memo) {
					if !given(name) {
						why = "reads " + name + ", not in the design"
						break
					}
				}
			}
			if why != "" {
				dropped[info.Defs[st.Name]] = true
				left = append(left, st.Name.Name+" ("+why+")")
				continue
			}
		case *ast.LetStmt:
			if readsDropped(st.Value) != "" {
				dropped[info.Defs[st.Name]] = true
				continue
			}
		}
		c.Stmts = append(c.Stmts, st)
	}
	return &c, left
}

// valueExprTilde returns the first ~ whose value is an expression that
// reads data (append_col(x, y) ~ MvNormal(...)), nil if none.
func valueExprTilde(f *ast.File, info *check.Info) *ast.TildeStmt {
	return firstTilde(f, func(s *ast.TildeStmt) bool {
		if check.ObservedIdent(s.LHS) != nil {
			return false
		}
		reads := false
		ast.Inspect(s.LHS, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && !reads {
				if sym := info.Uses[id]; sym != nil && sym.Kind == check.Data {
					reads = true
				}
			}
			return !reads
		})
		return reads
	})
}

// userDensityTilde returns the first ~ of f that observes the data name
// (or its elements) with a user density, or nil.
func userDensityTilde(f *ast.File, info *check.Info, name string) *ast.TildeStmt {
	return firstTilde(f, func(t *ast.TildeStmt) bool {
		id := check.ObservedIdent(t.LHS)
		return id != nil && id.Name == name && info.UserDensities[t.Dist] != nil
	})
}

// firstTilde returns the first ~ of f for which ok holds, or nil.
func firstTilde(f *ast.File, ok func(*ast.TildeStmt) bool) *ast.TildeStmt {
	var found *ast.TildeStmt
	ast.Inspect(f, func(n ast.Node) bool {
		if t, is := n.(*ast.TildeStmt); is && found == nil && ok(t) {
			found = t
		}
		return found == nil
	})
	return found
}

// prepareSBC loads the model and the design, and builds the models that
// every simulation shares; rankOutputs ranks the outputs that sbcOutputs
// keeps. Errors are positioned where they can be.
func prepareSBC(cfg *fitConfig, rankOutputs bool, con *console) (*sbcSetup, sources, error) {
	l, err := pipeline.Parse(cfg.model, cfg.sets)
	if err != nil {
		return nil, sourcesOf(l), err
	}
	srcs := sources(l.Sources)
	inputs, err := pipeline.ReadInputs(cfg.data, l.Sources)
	if err != nil {
		return nil, srcs, err
	}
	printWarnings(con, l.Info.Warnings, srcs)
	su := &sbcSetup{l: l, file: withoutOutputs(l.File)}
	info := l.Info
	if err := sbcTargets(l.File, info); err != nil {
		return nil, srcs, err
	}
	su.observed = sbcObserved(l.File, info)
	if len(su.observed) == 0 {
		if s := valueExprTilde(l.File, info); s != nil {
			return nil, srcs, ast.Errorf(s.Pos(), "sbc simulates data where a ~ observes a data name (y ~ D(...), y[i] ~ D(...)), and this ~ observes an expression of data, which it cannot draw: write the data's ~ one name at a time (a joint normal of two columns factors into x's ~ and y's ~ given x)")
		}
		return nil, srcs, fmt.Errorf("%s: no ~ observes data (y ~ D(...)), so sbc has nothing to simulate", l.Path)
	}
	if err := sbcPriors(l.File, info, su.observed); err != nil {
		return nil, srcs, err
	}
	reads := compile.PredictReads(su.file, info)
	optional := map[string]bool{}
	for _, d := range info.Data {
		if _, set := cfg.sets[d.Name]; reads[d.Name] == nil && !(d.Implicit && set) {
			optional[d.Name] = true
		}
	}
	bound, err := data.BindOptional(info, inputs, cfg.sets, optional)
	if err != nil {
		return nil, srcs, err
	}
	for _, w := range data.Unused(info, inputs) {
		con.note("warning: %s", w)
	}
	names := make([]string, len(su.observed))
	for i, d := range su.observed {
		names[i] = d.Name
		if bound[d.Name] != nil {
			if su.given == nil {
				su.given = map[string]bool{}
			}
			su.given[d.Name] = true
			delete(bound, d.Name)
		}
	}
	su.design = bound
	su.fitFile, su.unranked = sbcOutputs(l.File, info, rankOutputs, func(name string) bool {
		return bound[name] != nil || slices.Contains(names, name)
	})
	sim, err := compile.CompilePredictOptions(su.file, info, bound, compile.PredictOptions{})
	if err != nil {
		return nil, srcs, err
	}
	for _, d := range su.observed {
		if !slices.ContainsFunc(sim.Outputs, func(o compile.Output) bool { return o.Name == d.Name }) {
			why := "no ~ draws it"
			for _, n := range slices.Concat(sim.Notes, sim.Warnings) { // a warning where the reason is an input left out
				if strings.HasPrefix(n, d.Name+" ") {
					if _, after, ok := strings.Cut(n, "not drawn: "); ok {
						why, _, _ = strings.Cut(after, " (--draw none")
					}
				}
			}
			if t := userDensityTilde(l.File, info, d.Name); t != nil {
				// an output's replicate, predict's remedy, is no help: sbc draws from the ~ itself
				why = fmt.Sprintf("its ~ at %s is the user density %s, which has no sampler, and sbc draws the data it fits from the observed ~ statements themselves: SBC needs %s observed by a built-in distribution (%s ~ D(...))", t.Pos(), t.Dist.Fun.Name, d.Name, d.Name)
			}
			return nil, srcs, &ast.Error{Pos: d.Pos, Msg: fmt.Sprintf("sbc simulates %s, but it cannot be drawn: %s", d.Name, why)}
		}
	}
	if len(sim.Latents) == 0 {
		return nil, srcs, fmt.Errorf("%s: the model has no params to calibrate", cfg.model)
	}
	su.sim = sim
	// The prior sampler is built on a fit-mode model, which needs the
	// observed data: any values of theirs do, as the priors do not read
	// them; these are drawn at coordinates 0.
	ev, err := sim.NewEvaluator()
	if err != nil {
		return nil, srcs, err
	}
	ev.SetRand(rand.New(rand.NewPCG(0, sbcStream)))
	ev.SetDrawRand(rand.New(rand.NewPCG(0, sbcStream+1)))
	_, outs, _ := ev.Eval(make([]float64, sim.Dim))
	base, err := su.fitModel(outs)
	if err != nil {
		return nil, srcs, err
	}
	if _, err := base.NewPriorSampler(); err != nil {
		return nil, srcs, err
	}
	su.base = base
	cfg.settings.ParetoKFree = khatFree(cfg.settings, base)
	notes, err := checkFullRank(&cfg.settings, base)
	if err != nil {
		return nil, srcs, err
	}
	for _, n := range notes {
		con.note("note: %s", n)
	}
	for i, lat := range base.Latents {
		v := latentVariable(lat.Name, "", lat.Shape, i, lat.Offset, su.ncol, lat.Value, lat.Support)
		su.ncol += len(v.elems)
		su.vars = append(su.vars, v)
	}
	su.nparam = su.ncol
	su.vars, su.ncol = withOutputs(su.vars, su.ncol, base)
	labelAxes(su.vars, l.Info, data.SizeLabels(l.Info, su.design)) // the tables, CSVs and plots name elements as gpp fit's
	if err := checkDrawsSize(cfg.outputDraws, cfg.settings.DrawsPerStep, base); err != nil {
		return nil, srcs, err
	}
	return su, srcs, nil
}

// fitModel compiles the model in fit mode on the design and the observed
// data drawn, outs (the sim model's outputs).
func (su *sbcSetup) fitModel(outs [][]float64) (*compile.Model, error) {
	bound := make(map[string]*data.Array, len(su.design)+len(su.observed))
	for k, a := range su.design {
		bound[k] = a
	}
	for i, d := range su.observed {
		vals := slices.Clone(outs[i])
		for k, x := range vals {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("the draw of %s is not finite (%s is %g)", d.Name, compile.ElemName(d.Name, su.sim.Outputs[i].Shape, k), x)
			}
		}
		bound[d.Name] = &data.Array{Name: d.Name, Shape: su.sim.Outputs[i].Shape, Values: vals, Int: d.Elem == check.Int}
	}
	return compile.Compile(su.fitFile, su.l.Info, bound)
}

// simResult is one simulation's outcome: the ranks of the param elements,
// then of the ranked outputs' (nil when it failed, err saying why; an
// output's is unranked, −1, where its value at the truth or at a draw is
// not finite), and the fit's diagnostics.
type simResult struct {
	ranks     []int
	elbo, k   float64
	converged bool
	err       error
}

// simStreams returns simulation s's streams: the prior's, the data's and
// the replicates' (unused: the outputs are left out), and the seed of its
// fit.
func simStreams(seed uint64, s int) (prior, dat, out *rand.Rand, fitSeed uint64) {
	base := splitmix(seed ^ splitmix(uint64(s)+sbcStream))
	prior = rand.New(rand.NewPCG(base, sbcStream))
	dat = rand.New(rand.NewPCG(base, sbcStream+1))
	out = rand.New(rand.NewPCG(base, sbcStream+2))
	return prior, dat, out, splitmix(base + 1)
}

// splitmix is SplitMix64's finaliser: it spreads a seed's bits, so that
// the simulations' seeds are unrelated.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// sbcWorker is one goroutine's share of the models, which are not safe
// for concurrent use.
type sbcWorker struct {
	su     *sbcSetup
	ps     *compile.PriorSampler
	ev     *compile.Evaluator
	x, z   []float64
	truth  []float64
	values []float64 // one draw's elements
}

func newSBCWorker(su *sbcSetup) (*sbcWorker, error) {
	ps, err := su.base.NewPriorSampler()
	if err != nil {
		return nil, err
	}
	ev, err := su.sim.NewEvaluator()
	if err != nil {
		return nil, err
	}
	n := su.base.Dim
	return &sbcWorker{su: su, ps: ps, ev: ev, x: make([]float64, n), z: make([]float64, n),
		truth: make([]float64, su.ncol), values: make([]float64, su.ncol)}, nil
}

// elements writes the params' elements of natural values z, and the
// outputs' outs (nil: none ranked), into dst, as the draws' columns report
// them.
func (w *sbcWorker) elements(dst, z []float64, outs [][]float64) {
	ds := drawSet{vars: w.su.vars}
	ds.fill(z, outs, func(c int, v float64) { dst[c] = v })
}

// run runs simulation s: it draws θ̃ and ỹ, fits q and ranks θ̃ among L
// draws of q.
func (w *sbcWorker) run(ctx context.Context, s int, settings sgvb.Settings, L int) simResult {
	rp, rd, ro, fitSeed := simStreams(settings.Seed, s)
	if _, err := w.ps.Draw(rp, w.x, w.z); err != nil {
		return simResult{err: fmt.Errorf("the draw from the priors failed: %w", err)}
	}
	w.ev.SetDrawRand(rd)
	w.ev.SetRand(ro)
	_, outs, _ := w.ev.Eval(w.x)
	m, err := w.su.fitModel(outs)
	if err != nil {
		return simResult{err: err}
	}
	// The ranked outputs at the truth, θ̃ and ỹ, and below at q's draws,
	// by the fit's model on ỹ (which draws nothing).
	var ev *compile.Evaluator
	if len(m.Outputs) > 0 {
		if ev, err = m.NewEvaluator(); err != nil {
			return simResult{err: err}
		}
		_, outs, _ = ev.Eval(w.x)
	} else {
		outs = nil
	}
	w.elements(w.truth, w.z, outs)
	settings.Seed = fitSeed
	settings.Progress = nil
	r, err := sgvb.Fit(ctx, pipeline.Target{M: m}, pipeline.Latents(m), settings)
	if err != nil {
		return simResult{err: err}
	}
	if r.Interrupted {
		return simResult{err: ctx.Err()}
	}
	less := make([]int, w.su.ncol)
	ties := make([]int, w.su.ncol)
	bad := make([]bool, w.su.ncol) // a value not finite: the output is unranked
	rng := rand.New(rand.NewPCG(fitSeed, sgvb.DrawStream))
	xq, zq := make([]float64, r.Dim), make([]float64, r.Dim)
	for range L {
		r.SampleCoords(rng, xq)
		r.Natural(zq, xq)
		outs = nil
		if ev != nil {
			_, outs, _ = ev.Eval(xq)
		}
		w.elements(w.values, zq, outs)
		for c, v := range w.values {
			switch {
			case c >= w.su.nparam && (math.IsNaN(v) || math.IsInf(v, 0)):
				bad[c] = true
			case v < w.truth[c]:
				less[c]++
			case v == w.truth[c]:
				ties[c]++
			}
		}
	}
	ranks := make([]int, w.su.ncol)
	for c := range ranks {
		if t := w.truth[c]; c >= w.su.nparam && (bad[c] || math.IsNaN(t) || math.IsInf(t, 0)) {
			ranks[c] = -1
			continue
		}
		ranks[c] = sbcRank(less[c], ties[c], rp)
	}
	return simResult{ranks: ranks, elbo: r.ELBO, k: r.ParetoK, converged: r.Converged}
}

// sbcRank is the rank of a true value with less draws below it and ties
// draws equal to it: less plus a uniform draw from 0..ties, which keeps
// the rank uniform on 0..L when the values are discrete.
func sbcRank(less, ties int, rng *rand.Rand) int {
	if ties == 0 {
		return less
	}
	return less + rng.IntN(ties+1)
}

// runSims runs the simulations on workers goroutines; result s is
// simulation s's whatever the number of workers.
func runSims(ctx context.Context, su *sbcSetup, sims, workers int, settings sgvb.Settings, L int, done func(s int, r simResult)) ([]simResult, error) {
	res := make([]simResult, sims)
	var mu sync.Mutex
	workers = max(1, min(workers, sims))
	ws := make([]*sbcWorker, workers)
	for i := range ws {
		w, err := newSBCWorker(su)
		if err != nil {
			return nil, err
		}
		ws[i] = w
	}
	parallelJobs(ctx, sims, workers, func(w, s int) {
		r := ws[w].run(ctx, s, settings, L)
		res[s] = r
		if done != nil {
			mu.Lock()
			done(s, r)
			mu.Unlock()
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return res, nil
}

// sbcDrawnNote rewrites predict's note on a declaration it draws (n, "y
// is not in the data: drawn from its likelihood at each draw (m.gpp:5:1), as
// a posterior predictive") for sbc, which draws it in each simulation. For a
// declaration the data given held (given), "is not in the data" would
// contradict them: the note says instead that their values are not used.
func sbcDrawnNote(n string, given map[string]bool) string {
	n = strings.Replace(strings.Replace(n, "at each draw", "in each simulation, given the params drawn from the priors", 1), ", as a posterior predictive", "", 1)
	if name, rest, ok := strings.Cut(n, " is not in the data: "); ok && given[name] {
		n = name + " is in the data given, but its values are not used: " + rest
	}
	return n
}

// runSBC prepares, runs the simulations, writes the files and prints the
// table.
func runSBC(ctx context.Context, sc *sbcConfig, stdout io.Writer, con *console) int {
	cfg := sc.fit
	su, srcs, err := prepareSBC(cfg, sc.outputs, con)
	if err != nil {
		printError(con, err, srcs)
		return exitError
	}
	if err := sbcClash(cfg, su); err != nil {
		con.note("%v", err)
		return exitError
	}
	for _, n := range su.sim.Drawn {
		con.info("note: %s", sbcDrawnNote(n, su.given))
	}
	if len(su.unranked) > 0 {
		con.info("note: output%s not ranked: %s", plural(len(su.unranked)), strings.Join(su.unranked, ", "))
	}
	// Held from before the simulations until the outputs are written, as a
	// fit holds it: an --out that cannot be written (a file, a directory
	// another run is writing) fails now, not after hours of simulations.
	lock, removeIfEmpty, okDir := openOutDir(cfg, con)
	if !okDir {
		return exitError
	}
	defer lock.release()
	L := cfg.outputDraws
	con.info("sbc of %s: %d simulations, each %s, ranked among %d draws of q; seed %d, %d workers",
		su.l.Path, sc.sims, describeEachFit(cfg.settings, &pipeline.Loaded{Model: su.base}), L, cfg.settings.Seed, min(sc.workers, sc.sims))
	finished := 0
	res, err := runSims(ctx, su, sc.sims, sc.workers, cfg.settings, L, func(s int, r simResult) {
		finished++
		switch {
		case r.err != nil && ctx.Err() != nil:
			// stopped by the interrupt, not a failure of its own
		case r.err != nil:
			con.info("simulation %d failed: %v", s+1, firstLine(r.err))
		case cfg.verbose:
			con.info("simulation %d done (%d of %d): ELBO %.6g, k̂ %s", s+1, finished, sc.sims, r.elbo, num3(r.k))
		case finished%max(1, sc.sims/10) == 0:
			con.info("%d of %d simulations done", finished, sc.sims)
		}
	})
	if err != nil {
		removeIfEmpty()
		if ctx.Err() != nil {
			con.note("interrupted: no output written")
			return exitInterrupted
		}
		printError(con, err, srcs)
		return exitError
	}
	var ok []int
	for s, r := range res {
		if r.err == nil {
			ok = append(ok, s)
		}
	}
	if len(ok) == 0 {
		removeIfEmpty()
		con.note("every fit failed; the first (simulation 1):")
		printError(con, res[0].err, srcs)
		return exitError
	}
	rows := sbcSummaries(su, res, ok, L)
	files := []outputFile{
		{sbcRanksFile, func(w io.Writer) error { return writeRanksCSV(w, su, res, L) }},
		{summaryFile, func(w io.Writer) error { return writeSBCSummaryCSV(w, rows, L) }},
	}
	if len(ok) < len(res) {
		files = append(files, outputFile{sbcFailedFile, func(w io.Writer) error { return writeFailedCSV(w, res) }})
	}
	if cfg.plots {
		files = append(files, sbcPlotFiles(su, res, L)...)
	}
	names, err := commitFiles(cfg, files, func(names []string) []string { return sbcStale(cfg, su, names) })
	if err != nil {
		con.note("%v", err)
		removeIfEmpty()
		return exitError
	}
	noteUnplotted(con, cfg)
	lock.release()
	printSBC(stdout, cfg, sc, su, res, rows, L, names)
	return exitOK
}

// sbcPlanned names the files that gpp sbc may write (with plots: its
// plots too).
func sbcPlanned(su *sbcSetup, plots bool) []string {
	names := []string{sbcRanksFile, summaryFile, sbcFailedFile}
	if plots {
		for _, v := range su.vars {
			names = append(names, sbcPlotName(v.name))
		}
	}
	return names
}

// sbcClash reports a model or design file that the outputs would
// overwrite, or the commit remove as an earlier run's.
func sbcClash(cfg *fitConfig, su *sbcSetup) error {
	if _, err := os.Stat(filepath.Join(cfg.out, fitFileName)); err == nil {
		return fmt.Errorf("--out %s holds a fit (its %s), whose %s sbc would replace: give another --out directory", cfg.out, fitFileName, summaryFile)
	}
	return overwriteClash(cfg.out, sbcPlanned(su, cfg.plots), modelAndData(cfg, su.l.Path))
}

// sbcStale lists the files of an earlier gpp sbc in cfg.out that this one
// does not write (its failed.csv or plots, of a param of this model), and
// those of another gpp command's run there (staleInDir), removed with the
// commit.
func sbcStale(cfg *fitConfig, su *sbcSetup, names []string) []string {
	stale := staleInDir(cfg.out, names) // another command's
	for _, name := range sbcPlanned(su, true) {
		if slices.Contains(names, name) || slices.Contains(stale, name) {
			continue
		}
		if fi, err := os.Stat(filepath.Join(cfg.out, name)); err == nil && fi.Mode().IsRegular() {
			stale = append(stale, name)
		}
	}
	return stale
}

// firstLine is the first line of err's message, for a progress line.
func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// sbcRow is the summary of one param element's ranks.
type sbcRow struct {
	name      string
	n         int     // simulations ranked
	chi2, p   float64 // chi-square statistic of the binned ranks and its p-value
	bins      int
	zMean     float64 // z-score of the mean rank
	outer     float64 // fraction of ranks in the outer 10 %
	outerWant float64 // its expectation under uniform ranks
	zOuter    float64 // z-score of the outer count
	reading   string
}

// sbcSummaries summarises the ranks of every param element, then of every
// ranked output element, over the simulations ok; an output element never
// ranked (not finite in every simulation) has no row.
func sbcSummaries(su *sbcSetup, res []simResult, ok []int, L int) []sbcRow {
	var rows []sbcRow
	for _, v := range su.vars {
		for j, k := range v.elems {
			c := v.first + j
			ranks := make([]int, 0, len(ok))
			for _, s := range ok {
				if r := res[s].ranks[c]; r >= 0 {
					ranks = append(ranks, r)
				}
			}
			if len(ranks) == 0 {
				continue
			}
			r := rankStats(ranks, L)
			r.name = v.elemName(k)
			rows = append(rows, r)
		}
	}
	return rows
}

// sbcBins is the number of bins of the chi-square test for n ranks of
// 0..L: at most 20, at least 2, with about 5 or more expected in each, and
// no more than the L+1 values.
func sbcBins(n, L int) int {
	return max(2, min(20, n/5, L+1))
}

// rankBin is the bin of rank r of 0..L among b bins of about equal widths.
func rankBin(r, L, b int) int { return r * b / (L + 1) }

// rankOuter reports whether rank r of 0..L is in the outer 10 %: its
// midpoint u = (r+½)/(L+1) at most 0.05 or at least 0.95 (in integers,
// so that L+1 = 100 gives exactly the ranks 0–4 and 95–99).
func rankOuter(r, L int) bool {
	return 10*(2*r+1) <= L+1 || 10*(2*r+1) >= 19*(L+1)
}

// rankStats tests ranks of 0..L for uniformity: the chi-square test over
// sbcBins bins (each expected count in proportion to the number of rank
// values in the bin), the z-score of the mean rank (uniform ranks have mean
// L/2 and variance ((L+1)²−1)/12), and the fraction of ranks in the outer
// 10 % (rankOuter)
// with its expectation and binomial z-score.
func rankStats(ranks []int, L int) sbcRow {
	n := len(ranks)
	row := sbcRow{n: n, bins: sbcBins(n, L)}
	b := row.bins
	width := make([]int, b)
	for r := 0; r <= L; r++ {
		width[rankBin(r, L, b)]++
	}
	count := make([]int, b)
	sum, outer := 0.0, 0
	isOuter := func(r int) bool { return rankOuter(r, L) }
	for _, r := range ranks {
		count[rankBin(r, L, b)]++
		sum += float64(r)
		if isOuter(r) {
			outer++
		}
	}
	for i := range count {
		e := float64(n) * float64(width[i]) / float64(L+1)
		d := float64(count[i]) - e
		row.chi2 += d * d / e
	}
	row.p = chiSquareSurvival(row.chi2, float64(b-1))
	mean := float64(L) / 2
	variance := (float64(L+1)*float64(L+1) - 1) / 12
	row.zMean = (sum/float64(n) - mean) / math.Sqrt(variance/float64(n))
	nOuter := 0
	for r := 0; r <= L; r++ {
		if isOuter(r) {
			nOuter++
		}
	}
	row.outerWant = float64(nOuter) / float64(L+1)
	row.outer = float64(outer) / float64(n)
	if e := row.outerWant; e > 0 && e < 1 {
		row.zOuter = (float64(outer) - float64(n)*e) / math.Sqrt(float64(n)*e*(1-e))
	}
	row.reading = sbcReading(row)
	return row
}

// sbcReading reads a row at the 1 % level: a shift by the mean rank's z,
// a width by the outer fraction's, else the chi-square test.
func sbcReading(r sbcRow) string {
	var parts []string
	switch {
	case r.zOuter > sbcZ:
		parts = append(parts, "q too narrow")
	case r.zOuter < -sbcZ:
		parts = append(parts, "q too wide")
	}
	switch {
	case r.zMean < -sbcZ:
		parts = append(parts, "q shifted high")
	case r.zMean > sbcZ:
		parts = append(parts, "q shifted low")
	}
	if len(parts) == 0 && r.p < sbcLevel {
		parts = append(parts, "not uniform")
	}
	if len(parts) == 0 {
		return "calibrated"
	}
	return strings.Join(parts, ", ")
}

// writeRanksCSV writes a row per simulation that ran and param element.
func writeRanksCSV(w io.Writer, su *sbcSetup, res []simResult, L int) error {
	fmt.Fprintf(w, "sim,name,rank,draws,elbo,pareto_k,converged\n")
	names := sbcNames(su)
	for s, r := range res {
		if r.err != nil {
			continue
		}
		for c, rank := range r.ranks {
			if rank < 0 {
				continue // an output not finite at the truth or a draw
			}
			fmt.Fprintf(w, "%d,%s,%d,%d,%s,%s,%t\n", s+1, names[c], rank, L, csvNum(r.elbo), csvNum(r.k), r.converged)
		}
	}
	return nil
}

// sbcNames names every param element, column by column.
func sbcNames(su *sbcSetup) []string {
	names := make([]string, su.ncol)
	for _, v := range su.vars {
		for j, k := range v.elems {
			names[v.first+j] = v.elemName(k)
		}
	}
	return names
}

func csvNum(v float64) string {
	if math.IsNaN(v) {
		return "NaN"
	}
	return fmt.Sprintf("%.6g", v)
}

// writeSBCSummaryCSV writes a row per param element.
func writeSBCSummaryCSV(w io.Writer, rows []sbcRow, L int) error {
	fmt.Fprintf(w, "name,sims,draws,bins,chi2,p_uniform,mean_rank_z,outer_frac,outer_expected,outer_z,reading\n")
	for _, r := range rows {
		fmt.Fprintf(w, "%s,%d,%d,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%s\n", r.name, r.n, L, r.bins, r.chi2, r.p, r.zMean, r.outer, r.outerWant, r.zOuter, r.reading)
	}
	return nil
}

// writeFailedCSV writes the simulations whose draw or fit failed.
func writeFailedCSV(w io.Writer, res []simResult) error {
	fmt.Fprintf(w, "sim,error\n")
	for s, r := range res {
		if r.err != nil {
			fmt.Fprintf(w, "%d,%q\n", s+1, strings.ReplaceAll(firstLine(r.err), `"`, `'`))
		}
	}
	return nil
}

// printSBC prints the table of readings and the lines after it.
func printSBC(w io.Writer, cfg *fitConfig, sc *sbcConfig, su *sbcSetup, res []simResult, rows []sbcRow, L int, written []string) {
	t := &table{right: []bool{false, true, true, true, true, false}}
	t.row("name", "p(uniform)", "mean-rank z", "outer 10 %", "outer z", "reading")
	shown := map[string]int{}
	for _, r := range rows {
		base, _, _ := strings.Cut(r.name, "[")
		shown[base]++
		if shown[base] == maxTableRows+1 && !cfg.verbose {
			t.note(fmt.Sprintf("... more elements of %s (all in %s)", base, summaryFile))
		}
		if shown[base] > maxTableRows && !cfg.verbose {
			continue
		}
		t.row(r.name, fmt.Sprintf("%.3f", r.p), fmt.Sprintf("%+.2f", r.zMean), fmt.Sprintf("%.1f %%", 100*r.outer), fmt.Sprintf("%+.2f", r.zOuter), r.reading)
	}
	t.print(w)
	fmt.Fprintln(w)
	failed, unconv := 0, 0
	for _, r := range res {
		switch {
		case r.err != nil:
			failed++
		case !r.converged:
			unconv++
		}
	}
	fmt.Fprintf(w, "simulations  %d (seed %d), ranks 0..%d among %d draws of q; %d bins for the chi-square test\n", len(res), cfg.settings.Seed, L, L, rows[0].bins)
	if unconv > 0 {
		fmt.Fprintf(w, "not converged %d of the fits (their ranks are kept)\n", unconv)
	}
	if failed > 0 {
		var sims []string
		for s, r := range res {
			if r.err != nil {
				sims = append(sims, fmt.Sprint(s+1))
			}
		}
		if len(sims) > 10 {
			sims = append(sims[:10], "...")
		}
		fmt.Fprintf(w, "failed       %d of the simulations (%s), left out of the ranks: why in %s\n", failed, strings.Join(sims, ", "), sbcFailedFile)
		if failed*20 > len(res) {
			fmt.Fprintf(w, "             more than 5 %% failed: their params are not a random draw from the priors, and leaving them out biases the ranks\n")
		}
	}
	var partial []string
	names := sbcNames(su)
	for c := su.nparam; c < su.ncol; c++ {
		k := 0
		for _, r := range res {
			if r.err == nil && r.ranks[c] >= 0 {
				k++
			}
		}
		if n := len(res) - failed; k < n {
			partial = append(partial, fmt.Sprintf("%s (in %d of %d)", names[c], k, n))
		}
	}
	if len(partial) > 0 {
		if len(partial) > 10 {
			partial = append(partial[:10], "...")
		}
		fmt.Fprintf(w, "ranked only  where finite at the truth and every draw: %s\n", strings.Join(partial, ", "))
	}
	fmt.Fprintf(w, "reading      at the 1 %% level of each element: |z| > %.2f or p < %.2f; the outer 10 %% expects %.1f %%\n", sbcZ, sbcLevel, 100*rows[0].outerWant)
	fmt.Fprintf(w, "             (too many ranks there: a ∪ histogram, q too narrow; a negative mean-rank z: q's draws above the truth, q shifted high)\n")
	fmt.Fprintf(w, "written      %s: %s\n", cfg.out, strings.Join(written, " "))
}

// chiSquareSurvival is P(X > x) for X chi-square with df degrees of
// freedom.
func chiSquareSurvival(x, df float64) float64 {
	return distuv.ChiSquared{K: df}.Survival(x)
}
