package main

// gpp predict: the outputs of a model at draws of a saved fit's q on new
// data, nothing refitted: Stan's standalone generated quantities
// (method=generate_quantities), PyMC's pm.set_data + sample_posterior_
// predictive. The model is compiled in predict mode (compile.
// CompilePredict: no log density, so the observed values may be left out
// of the data, and are then drawn from their ~ at each draw, as PyMC's
// posterior predictive draws the observed variables), its params are
// matched to the fit's factors by name, type
// and shape, and the files are fit's summary.csv and draws.csv, written
// through fit's output directory machinery (the lock, the atomic commit).

import (
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/internal/textenc"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/compile"
)

const predictSynopsis = "predict FIT model.gpp [data.csv|data.tsv|data.json|data.R] [NAME=file.csv ...] [flags]"

// defaultPredictOut is --out's default for gpp predict, apart from a fit's.
const defaultPredictOut = "gpp-predict"

const predictHelpText = `Evaluates the outputs of model.gpp at draws of the q that an earlier gpp fit
saved, on the data given here: posterior predictions at new inputs, Stan's
standalone generated quantities, PyMC's set_data + sample_posterior_predictive.
FIT is the fit's output directory (its --out) or the fit.json in it (not one
whose ELBO overflowed: its outputs are for inspection only). Nothing
is fitted and the log density is not evaluated: the priors, each ~ on data,
T[...] and target += are left out.

The model may be an edited copy of the fitted one (new outputs are the point),
but its params must be the fit's: each param's name, type, bounds and shape
must match the fit's factor, or the error names the param's declaration and
the fit file. A param's shape may depend on the data (a varying intercept per
group): the new data must then give it the fit's shape, or a larger one with
--new-levels (below).

Data: as for gpp fit (a column of labels is coded as the fit coded it, a label
it did not see an error but with --new-levels; --levels, taken so that the
fit's command line serves, must give the fit's order), but a data declaration
that only the log density reads (the observed values y of y ~ Normal(mu,
sigma) or target += ..., the bounds of a T[...]) may be left out; one that a
param's shape or bounds, an output, or a let, loop or if that they read needs
must be given. A size that only left-out data would bind must come from the
data given or --set; one that shapes a param (data S: int, which the fit took
from labels, ids or --set) and that the new data do not give is the fit's,
read off that param's shape, with a note. An output that reads observed data
that the new data leave out (output log_lik = logpdf(y, ...), kept for LOO,
without y) is left out with a note, as are outputs that read it, whether y is
drawn or not; given y (held-out data), it is evaluated: log_lik is then the
log predictive density of each held-out y at each draw, and the summary's
"held-out" line sums the log of each element's mean density over the draws
(the held-out lppd, with its standard error). lppd.csv in --out then holds the
terms: a row per element of log_lik, named as in summary.csv, with its lppd
(log of the mean of exp(log_lik) over the draws, to full precision), under a
comment line with the sum, its se and the numbers of elements and draws; to
compare two models on the same held-out data, pair their rows: the
differences' sum, and √n times their sd for its se (loo's elpd_diff and
se_diff). Where the line says lppd is -Inf or not computed, no lppd.csv is
written. With no output and no drawn data left, it is an error.

Left-out observed data are drawn: a declaration y that the model observes
with ~ (y ~ D(args), y[i] ~ D(...) in a loop, Y ~ MvNormalRows(...)) and that
the data leave out is drawn at each draw of q from its ~ given that draw's
params, as output y ~ D(args) would be (PyMC's posterior predictive of the
observed variables), and written after the outputs under its own name (y.1,
y.2, ... in draws.csv); a note says so. Given with missing cells (NA), int
counts too, just those are drawn, and an output that reads it (log_lik) is
left out. What has no sampler is left undrawn with a note saying why:
target +=, logcdf, a user _lpdf, a T[...]; a ~ reading other left-out data
(a covariate missing from the new data), or a shape whose size only y binds
(--set N=... gives it), gets a warning instead, naming the input: the
outputs are still written. --draw y,z draws
only those (each must then be drawable: an error otherwise), --draw none
nothing. The draws come from a stream of their own (seeded by --seed), so
drawing them changes no output.

New groups (--new-levels; brms's allow_new_levels, sample_new_levels =
"gaussian"): a param whose shape the new data make larger than the fit's
(z: real[J], J = 31 by --set or the data, 30 in the fit; or a column of
labels with labels the fit did not see, coded after the fit's in order of
first appearance) keeps the fit's draws for the elements the fit saw, and
its new elements (z[30]) are drawn at each draw from the param's own prior
given that draw's params: z ~ Normal(0, 1) of a non-centred u = sigma_u * z,
or u ~ Normal(0, sigma_u) at the draw's sigma_u. A note names each param and
its prior. The prior must be elementwise, its arguments not reading the param
(declared, or one ~ on the whole param), or give a matrix independent rows
(b: real[J, K] ~ MvNormalCholesky(0, diag_pre_multiply(tau, L)), a new row
drawn whole); a multivariate prior over the groups (real[J] ~ MvNormal), a
sum_to_zero_vector, simplex or ordered param, or one with no prior is an
error at its declaration. The new elements come from a stream of their own
(seeded by --seed): every other param and output is as it would be without
them, and with nothing new the flag changes nothing.

The draws of q are those of gpp fit: --output-draws draws (default: the
fit's) from the random stream of --seed (default: the fit's), so that by
default row d of the params is the fit's draw d, and with the fit's model and
data the outputs are the fit's too. A fit of several restarts draws from
their mixture (draw d from restart d mod R), with R̂ in the summary.

It writes summary.csv and draws.csv (gpp fit's formats; draws.csv's log_p__
is NaN, the log density not being evaluated, and log_g__ is log q), and
lppd.csv with a held-out lppd (above), into --out (default gpp-predict),
each atomically, locking the directory as gpp fit does; --out may not be
the fit's own directory. With --plots, a data
declaration y that the new data give (held-out observations) and that a
replicate output mirrors gets gpp fit's predictive checks ppc_y.png and
ppc_stat_y.png: the held-out y against its predictions. A fit with --psis-resample
stored q, and predict draws from q, not resampled (the weights need the
log density of the fit's data), with a note. Exit 0: written; 1: an
error in the model, the data or the fit file; 2: a bad command line.

FIT may also be the output directory of a gpp sample (or its coords.csv):
the outputs are then evaluated at each of the sample's draws, read to full
precision from its coords.csv, in its order (--output-draws is refused),
with the replicates and left-out data drawn from the streams of --seed
(default: the sample's), so that with the sample's model, data and seed the
outputs are the sample's own, bit for bit. Its params must be the sample's
(name, type and shape). draws.csv keeps the sample's chain__ and draw__
columns and summary.csv has the sample's columns (mcse_mean, ess_bulk,
ess_tail, rhat, mcse_sd, the quantiles' mcse and mad, by chain).
--new-levels draws a larger param's new elements at each of its draws.
`

// predictFlags are gpp fit's flags that gpp predict takes.
type predictFlags struct {
	seed        uint64
	outputDraws int
	draw        string // --draw: NAME,NAME or none; "" every left-out observed declaration
	newLevels   bool   // --new-levels: params larger than the fit's get new elements from their priors
}

// drawOptions turns --draw into the compile's choice: nil draws every
// left-out data declaration that a ~ observes, none (an empty list)
// nothing.
func (v predictFlags) drawOptions(set bool) (compile.PredictOptions, error) {
	if !set {
		return compile.PredictOptions{}, nil
	}
	if v.draw == "none" {
		return compile.PredictOptions{Draw: []string{}}, nil
	}
	var names []string
	for _, n := range strings.Split(v.draw, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			return compile.PredictOptions{}, fmt.Errorf("--draw takes names of data declarations, as --draw y or --draw y,z, or none; got %q", v.draw)
		}
		names = append(names, n)
	}
	return compile.PredictOptions{Draw: names}, nil
}

// cmdPredict runs gpp predict.
func cmdPredict(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("predict", predictSynopsis, predictHelpText, stderr)
	cfg := &fitConfig{sets: setFlags{}, levels: levelFlags{}}
	var v predictFlags
	fs.Uint64Var(&v.seed, "seed", 0, "seed of the draws of q and of the outputs' replicates (default: the fit's)")
	fs.IntVar(&v.outputDraws, "output-draws", 0, "draws of q at which the outputs are evaluated (default: the fit's)")
	fs.StringVar(&cfg.out, "out", defaultPredictOut, "output `directory` (created if needed)")
	fs.BoolVar(&cfg.quiet, "quiet", false, "no progress on stderr; warnings and errors are still printed (default false)")
	fs.BoolVar(&cfg.verbose, "verbose", false, "the full summary table (default false)")
	fs.Var(cfg.sets, "set", "set a constant or scalar data, as `NAME=VALUE` (repeatable)")
	fs.BoolVar(&cfg.plots, "plots", false, "also write the predictive checks ppc_y.png and ppc_stat_y.png of every data y\nthat the new data give and a replicate output mirrors, as gpp fit --plots does (default false)")
	fs.StringVar(&v.draw, "draw", "", "the left-out observed data to draw from their ~, as `NAMES` (y or y,z) or none (default: every one)")
	fs.Float64Var(&cfg.hdi, "hdi", 0, hdiFlagUsage)
	fs.StringVar(&cfg.percentiles, "percentiles", defaultPercentilesFlag, percentilesFlagUsage)
	fs.IntVar(&cfg.sigFigs, "sig-figs", 3, sigFigsUsage)
	fs.Var(cfg.levels, "levels", predictLevelsUsage)
	fs.BoolVar(&v.newLevels, "new-levels", false, "draw the elements that the new data add to a param (a group the fit did not\nsee, a new label) from the param's prior at each draw (default false)")
	pos, code, ok := parseCommand(fs, args, stdout)
	if !ok {
		return code
	}
	usageErr := func(format string, args ...any) int {
		return usageError(stderr, "predict", predictSynopsis, format, args...)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case len(pos) < 2:
		return usageErr("predict needs a fit and a model file, got %d argument%s", len(pos), plural(len(pos)))
	case strings.EqualFold(filepath.Ext(pos[0]), ".gpp"):
		return usageErr("%s is a model: the fit comes first, as in gpp predict gpp-out %s data.csv", pos[0], pos[0])
	case set["output-draws"] && v.outputDraws < 2:
		return usageErr("--output-draws must be at least 2 (the summary's sd and quantiles need 2 draws), got %d", v.outputDraws)
	case cfg.out == "":
		return usageErr("--out needs a directory")
	case cfg.quiet && cfg.verbose:
		return usageErr("--quiet and --verbose exclude each other")
	}
	if _, err := v.drawOptions(set["draw"]); err != nil {
		return usageErr("%v", err)
	}
	if err := validHDI(cfg.hdi); set["hdi"] && err != nil {
		return usageErr("%v", err)
	}
	if err := cfg.parsePercentiles(); err != nil {
		return usageErr("%v", err)
	}
	if err := validSigFigs(cfg.sigFigs); err != nil {
		return usageErr("%v", err)
	}
	cfg.model, cfg.data = pos[1], pos[2:]
	con := newConsole(stderr, isTerminal(stderr), cfg.quiet, cfg.verbose)

	// A signal removes the temporary files and exits: predictions take
	// moments, and half of them are worth nothing.
	cfg.temps = &tempFiles{}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-sigs:
			cfg.temps.removeAll()
			con.note("interrupted: exiting without writing outputs")
			os.Exit(exitInterrupted)
		case <-done:
		}
	}()
	return runPredict(cfg, pos[0], v, set, stdout, con)
}

// fitPath returns the fit.json that arg names: arg itself, or the one in
// the directory arg.
func fitPath(arg string) (string, error) {
	fi, err := os.Stat(arg)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s: no such file or directory (give the output directory of gpp fit or gpp sample, or a fit's %s)", arg, fitFileName)
	}
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return arg, nil
	}
	p := filepath.Join(arg, fitFileName)
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s has no %s: give gpp fit's output directory (its --out; prior draws have no q to draw from)", arg, fitFileName)
	}
	return p, nil
}

// runPredict reads the fit, loads the model in predict mode, matches its
// params to the fit's, draws, writes the outputs and prints the summary.
func runPredict(cfg *fitConfig, fitArg string, v predictFlags, set map[string]bool, stdout io.Writer, con *console) int {
	if dir := sampleDir(fitArg); dir != "" {
		return runPredictSample(cfg, dir, v, set, stdout, con)
	}
	path, err := fitPath(fitArg)
	if err != nil {
		con.note("%v", err)
		return exitError
	}
	cfg.predict = path
	srcs := sources{}
	ff, src, err := readUsedFit(path, srcs, "predict", "not to predict from: its q approximates no posterior; refit the model (see the fit's warning)")
	if err != nil {
		printError(con, err, srcs)
		return exitError
	}
	for _, k := range inheritSets(cfg, ff) {
		con.info("--set %s=%s from the fit (a const of the model; --set %s=... chooses another)", k, cfg.sets[k], k)
	}
	opt, _ := v.drawOptions(set["draw"]) // checked by cmdPredict
	cfg.fitFactors = ff.FirstFactors()
	l, ok := loadPredictModel(con, cfg, opt, ff.Sets, growLevels(fitfile.DataLevels(ff.Levels), v.newLevels), ff.Sizes, ff.DataColumns, srcs)
	if !ok {
		return exitError
	}
	m := l.Model
	cfg.settings.Seed, cfg.outputDraws = ff.Settings.Seed, ff.Settings.OutputDraws
	if set["seed"] {
		cfg.settings.Seed = v.seed
	}
	g := &growth{allow: v.newLevels}
	r, mix, lv, err := fitQLevels(ff, path, src, cfg.sets, l.Path, m, predictNeeds, g, cfg.settings.Seed)
	if err != nil {
		printError(con, err, srcs)
		return exitError
	}
	if set["output-draws"] {
		cfg.outputDraws = v.outputDraws
	}
	if cfg.outputDraws < 2 {
		cfg.outputDraws = defaultOutputDraws // a MAP fit's may be 1
	}
	if mix != nil && cfg.outputDraws < 2*len(mix.Components) {
		con.note("--output-draws %d is too few for the fit's %d restarts: R̂ needs at least 2 draws from each (--output-draws %d or more)",
			cfg.outputDraws, len(mix.Components), 2*len(mix.Components))
		return exitError
	}
	if err := checkDrawsSize(cfg.outputDraws, 1, m); err != nil {
		con.note("%v", err)
		return exitError
	}
	if !predictOutOK(cfg, l, con, "the fit's", filepath.Dir(path), inputFile{"the fit file", path}) {
		return exitError
	}
	otherModel(con, l, ff.ModelSHA256, ff.Model, "the fit at "+path)
	if ff.Interrupted {
		con.note("warning: the fit at %s was interrupted: the draws are from the q it had reached", path)
	}
	if ff.Resample != nil && ff.Resample.Resampled {
		con.note("note: the fit at %s resampled its draws (--psis-resample); these are draws of q itself, not resampled: the weights p/q need the fit's log density and data, which predict does not evaluate", path)
	}

	lock, removeIfEmpty, ok := openOutDir(cfg, con)
	if !ok {
		return exitError
	}
	defer lock.release()
	for _, n := range m.Drawn {
		con.info("gpp: note: %s", n)
	}
	levelNotes(con, lv, v.newLevels, l.Path)
	con.info("evaluating the outputs of %s at %d draws of the q in %s, seed %d", l.Path, cfg.outputDraws, path, cfg.settings.Seed)
	ds, err := makeDrawsAt(r, mix, m, cfg.outputDraws, cfg.settings.Seed, nil, false, lv)
	if err != nil {
		printError(con, err, srcs)
		removeIfEmpty()
		return exitError
	}
	// Predict mode compiles no log density: log p is not known, and there
	// is no LOO of new data without it (makeDraws estimates none).
	for d := range ds.logp {
		ds.logp[d] = math.NaN()
	}
	nameByLabels(ds.vars, l)
	st := summariseColumns(ds, cfg.hdi, cfg.probs)
	h := drawsHeader{model: l.Path, modelHash: fitfile.ModelHash(l.Source), data: cfg.data, cfg: cfg, mix: mix, heldOut: heldOutLPPD(ds)}
	written, ok := commitOutputs(cfg, h, ds, st, con, removeIfEmpty)
	if !ok {
		return exitError
	}
	lock.release()

	printTable(stdout, cfg, h, ds, st)
	fmt.Fprintln(stdout)
	what := "q"
	if mix != nil {
		what = fmt.Sprintf("the mixture of %d restarts", len(mix.Components))
	}
	fmt.Fprintf(stdout, "predicted    %d draws of %s in %s (seed %d): the outputs on this data, nothing fitted\n", cfg.outputDraws, what, path, cfg.settings.Seed)
	if line := h.heldOut.text(); line != "" {
		fmt.Fprintln(stdout, line)
	}
	fmt.Fprintf(stdout, "written      %s: %s\n", cfg.out, strings.Join(written, " "))
	for _, w := range outputWarnings(ds, st, l.Info, "draws had an output that is not finite (written as it is)") {
		con.note("warning: %s", w)
	}
	return exitOK
}

// fitQ makes the fit's q for the model m from the fit file: one fit's
// Result, or a mixture's (mix not nil; r its restart 0). Each of m's params
// must match a factor of the fit in name, type, bounds and shape, and each
// factor a param (fitfile.Match, need ending its messages); gpp predict and
// gpp sample --init read q so.
func fitQ(ff *fitfile.File, path string, src []byte, sets setFlags, model string, m *compile.Model, need [2]string) (r *sgvb.Result, mix *sgvb.Mixture, err error) {
	r, mix, _, err = fitQLevels(ff, path, src, sets, model, m, need, nil, 0)
	return r, mix, err
}

// fitQLevels is fitQ for gpp predict, whose params may be larger than the
// fit's (g collects them, g.allow being --new-levels): q is then of the
// fit's layout, and lv (not nil) lays its draws out as m's and draws the
// new elements from the streams of seed.
func fitQLevels(ff *fitfile.File, path string, src []byte, sets setFlags, model string, m *compile.Model, need [2]string, g *growth, seed uint64) (r *sgvb.Result, mix *sgvb.Mixture, lv *levelDraws, err error) {
	layout := m
	layoutOf := func(factors []fitfile.Factor) error {
		if err := fitfile.Match(factors, path, src, ff.Sets, sets, model, m, need, g); err != nil {
			return err
		}
		if g == nil || len(g.shapes) == 0 || lv != nil {
			return nil
		}
		lv, err = newLevelDraws(m, g, seed)
		if err != nil {
			return err
		}
		layout = lv.fitModel()
		return nil
	}
	if len(ff.Restarts) == 0 {
		if err := layoutOf(ff.Factors); err != nil {
			return nil, nil, nil, err
		}
		r, _ = fitfile.InitResult(ff, ff.Factors, ff.Groups, layout)
		return r, nil, lv, nil
	}
	mix = &sgvb.Mixture{}
	for i, rs := range ff.Restarts {
		if err := layoutOf(rs.Factors); err != nil {
			return nil, nil, nil, err
		}
		c, _ := fitfile.InitResult(ff, rs.Factors, rs.Groups, layout)
		mix.Components = append(mix.Components, c)
		mix.Seeds = append(mix.Seeds, rs.Seed)
		mix.Restarts = append(mix.Restarts, i)
	}
	return mix.Components[0], mix, lv, nil
}

// predictNeeds ends fitfile.Match's messages for gpp predict.
var predictNeeds = [2]string{"predict draws every param from the fitted q", "predict needs the fitted model's params"}

// inheritSets adds to cfg.sets the fit's --set values of the model's
// consts that this run does not set (K of a factor model, J of a
// hierarchical one: what the params' shapes are made of), and returns
// their names. A --set of scalar data is the data's, not inherited. A
// model that does not parse inherits nothing; LoadPredict reports it.
func inheritSets(cfg *fitConfig, ff *fitfile.File) []string {
	if len(ff.Sets) == 0 {
		return nil
	}
	l, err := pipeline.Parse(cfg.model, nil)
	if err != nil || l.Info == nil {
		return nil
	}
	var got []string
	for _, c := range l.Info.Consts {
		v, ok := ff.Sets[c.Name]
		if _, given := cfg.sets[c.Name]; ok && !given {
			cfg.sets[c.Name] = v
			got = append(got, c.Name)
		}
	}
	return got
}

// loadPredictModel loads cfg's model in predict mode on the new data, as
// gpp predict does from a fit or a sample whose --set consts were fitSets
// and whose columns of labels were coded as levels says (its sizes bound
// from the largest value of numeric ids: sizes, its matrices from the CSV
// columns of columns),
// adding its sources to srcs; with --plots it finds the predictive checks,
// or notes that there are none and why (--plots writes nothing else in
// predict). It prints any error, and refuses a model with no params to
// draw.
func loadPredictModel(con *console, cfg *fitConfig, opt compile.PredictOptions, fitSets map[string]string, levels map[string]data.Levels, sizes map[string]int, columns map[string][]string, srcs sources) (*pipeline.Loaded, bool) {
	if err := fitOrders(cfg.levels, levels); err != nil {
		printError(con, err, srcs)
		return nil, false
	}
	l, err := pipeline.LoadPredict(cfg.model, cfg.data, cfg.sets, opt, levels, sizes, columns)
	if inherit, fitSizes := unboundFitSizes(err, l, cfg); len(inherit) > 0 {
		// a size of the fitted params that the new data do not bind:
		// the fit's draws have its shape, so the fit's value is the one
		for _, name := range inherit {
			sz := fitSizes[name]
			cfg.sets[name] = strconv.Itoa(sz.n)
			con.info("--set %s=%d from the fit (the size of param %s's shape there; the new data do not bind it)", name, sz.n, sz.param)
		}
		l, err = pipeline.LoadPredict(cfg.model, cfg.data, cfg.sets, opt, levels, sizes, columns)
	}
	for k, b := range sourcesOf(l) {
		srcs[k] = b
	}
	if err != nil {
		printError(con, unseenLabelHint(fitSetsNoData(err, fitSets, cfg.sets), "gpp predict --new-levels"), srcs)
		return nil, false
	}
	l.Info.Drop(l.Info.NoDataObserved) // a prediction observes the fit's data, not these
	printLoadWarnings(con, l)
	if cfg.plots {
		cfg.ppc = findReplicates(l)
		if len(cfg.ppc) == 0 {
			con.note("note: --plots: no predictive check to draw: no data that the new data give (held-out y, two or more values) is mirrored by a replicate output (output y_rep ~ D(...)); data drawn because the new data leave them out have no observed values to check")
		}
	}
	if len(l.Model.Latents) == 0 {
		con.note("%s: the model has no params to draw: its outputs need no fit or sample, gpp sample draws them on this data (the fixed_param sampler)", cfg.model)
		return nil, false
	}
	return l, true
}

// predictLevelsUsage is gpp predict's --levels.
const predictLevelsUsage = "the order of the labels of int data NAME, `NAME=LABEL,LABEL,...` or\nNAME=@FILE, as gpp fit takes it, so that the fit's command line serves:\na column of labels is coded as the fit coded it (its params are indexed\nby those codes), and an order other than the fit's is an error (repeatable)"

// fitOrders checks the orders of labels given to gpp predict (--levels)
// against the run's codings (fit, by declaration): the new data's labels
// are coded as the fit coded them, its params being indexed by those
// codes, so an order must be the fit's, as a user repeating the fit's
// command line gives it; another order, or one for data the fit coded
// no labels for, is an error that says which the fit used.
func fitOrders(order levelFlags, fit map[string]data.Levels) error {
	var errs ast.ErrorList
	for _, name := range sortedKeys(order) {
		lv, ok := fit[name]
		switch {
		case !ok:
			errs = append(errs, &ast.Error{Pos: ast.Pos{File: "--levels"}, Msg: fmt.Sprintf("%s: the fit coded no labels for `%s` (it was given numbers, or is no data of the fit's model), so no order of labels applies: gpp predict codes the new data's labels as the fit coded its own", name, name)})
		case !slices.Equal(order[name], lv.Labels):
			errs = append(errs, &ast.Error{Pos: ast.Pos{File: "--levels"}, Msg: fmt.Sprintf("%s: the fit coded `%s` %s, not in the order given (%s): gpp predict codes the new data's labels as the fit coded them, since its params are indexed by those codes; leave --levels %s out, or give the fit's order", name, name, lv.Codes(10), shortList(order[name], 10), name)})
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return errs
}

// shortList joins labels with commas as --levels takes them, each quoted
// where it holds a comma (textenc.QuoteLabel), the first most-1, "…" and
// the last of more than most.
func shortList(labels []string, most int) string {
	var parts []string
	for i, s := range labels {
		if len(labels) > most && i == most-1 {
			parts = append(parts, "…", textenc.QuoteLabel(labels[len(labels)-1]))
			break
		}
		parts = append(parts, textenc.QuoteLabel(s))
	}
	return strings.Join(parts, ",")
}

// fitSetsNoData adds to each error "no data for `NAME`" the fit's --set
// value of NAME when this run does not set it: a --set of scalar data (a
// group count that sizes a param) is not inherited as a const's is, and
// the value that matches the fit's params is then the fit's.
func fitSetsNoData(err error, fitSets map[string]string, sets setFlags) error {
	list, ok := ast.Positioned(err)
	if !ok || len(fitSets) == 0 {
		return err
	}
	out := make(ast.ErrorList, len(list))
	for i, e := range list {
		out[i] = e
		for _, k := range sortedKeys(fitSets) {
			if _, given := sets[k]; !given && strings.HasPrefix(e.Msg, "no data for `"+k+"`") {
				out[i] = &ast.Error{Pos: e.Pos, Msg: e.Msg + " (the fit was run with --set " + k + "=" + fitSets[k] + ")"}
			}
		}
	}
	return out
}

// writePredictHeader writes the comment lines of predictions' draws.csv
// after the model's.
func writePredictHeader(p func(string, ...any), h drawsHeader) {
	c := h.cfg
	p("# method = generate_quantities")
	p("#   generate_quantities")
	p("#     fitted_params = %s", c.predict)
	p("#     gpp_method = predict")
	p("#     output_samples = %d", c.outputDraws)
	writeRunHeader(p, h)
	p("# PREDICTIONS: each row's params are a draw of the fitted q in fitted_params (nothing refitted) and its outputs are")
	p("# evaluated at it on this run's data; the log density is not evaluated: log_p__ is NaN and log_g__ is log q at the draw.")
}

// heldOut is the held-out lppd of the new data that an output log_lik
// gives (heldOutLPPD): the console's held-out line, and the terms that
// lppd.csv writes when the sum is finite.
type heldOut struct {
	v       variable  // the log_lik output
	terms   []float64 // lppd_i of each element, in v.elems' order; nil when line says why there is no sum
	draws   int       // S, the draws the terms average over
	sum, se float64
	line    string // the summary's held-out line
	// note, for a fit (not gpp predict), says why its log_lik gives a
	// held-out lppd and no LOO (heldOutNote); the line's second.
	note string
}

// heldOutLPPD sums the log predictive density of the new data that an
// output log_lik gives, as a scientist scores held-out data (ArviZ's
// elpd of new data; a held-out log likelihood): over the elements i of
// log_lik, lppd = Σ_i log (1/S Σ_s exp(log_lik[i] at draw s)), with the
// standard error √n sd_i of the terms. nil without log_lik (the data left
// out y, so predict dropped it); a term that is not finite is named in
// the line in place of the sum (terms nil, no lppd.csv), rather than the
// line left out unexplained.
func heldOutLPPD(ds *drawSet) *heldOut {
	v, ok := ds.outputVar(looOutput)
	if !ok || len(v.elems) == 0 || len(ds.cols) == 0 {
		return nil
	}
	h := &heldOut{v: v}
	terms := make([]float64, len(v.elems))
	for j, k := range v.elems {
		col := ds.cols[v.first+j]
		h.draws = len(col)
		terms[j] = floats.LogSumExp(col) - math.Log(float64(len(col)))
		if math.IsNaN(terms[j]) || math.IsInf(terms[j], 0) {
			bad := 0 // NaN or +Inf: a -Inf draw is a density of 0
			for _, x := range col {
				if math.IsNaN(x) || math.IsInf(x, 1) {
					bad++
				}
			}
			if bad == 0 {
				h.line = fmt.Sprintf("held-out     lppd -Inf: %s is -Inf at every draw (its data have density 0 at each)", v.elemName(k))
			} else {
				h.line = fmt.Sprintf("held-out     lppd not computed: %s is NaN or +Inf at %d of %d draws", v.elemName(k), bad, len(col))
			}
			return h
		}
	}
	n := float64(len(terms))
	h.terms, h.sum = terms, floats.Sum(terms)
	if len(terms) > 1 {
		h.se = math.Sqrt(n) * stat.StdDev(terms, nil)
	}
	h.line = fmt.Sprintf("held-out     lppd %.6g ± %.2g over the %d elements of log_lik (mean %.4g each): Σ log of each one's mean density over the draws",
		h.sum, h.se, len(terms), h.sum/n)
	return h
}

// text is the summary's held-out line, with its note on a line of its
// own, "" for a nil h (no log_lik).
func (h *heldOut) text() string {
	switch {
	case h == nil:
		return ""
	case h.note != "":
		return h.line + "\n             " + h.note
	}
	return h.line
}

// heldOutLine is the summary's held-out line of ds (heldOutLPPD), ""
// without log_lik; the commands compute heldOutLPPD once for the line and
// lppd.csv.
func heldOutLine(ds *drawSet) string { return heldOutLPPD(ds).text() }

// lppdFile is gpp predict's lppd.csv: the held-out lppd's terms, one per
// element of log_lik.
const lppdFile = "lppd.csv"

// files returns lppd.csv's outputFile when the held-out lppd h is a
// finite sum (none for a nil h, without log_lik, or when the held-out line
// names a term that is not finite), for gpp predict's commit.
func (h *heldOut) files() []outputFile {
	if h == nil || h.terms == nil {
		return nil
	}
	return []outputFile{{lppdFile, func(w io.Writer) error { return writeLPPDCSV(w, h) }}}
}

// lppdOutputs is the held-out lppd's files of ds (heldOut.files).
func lppdOutputs(ds *drawSet) []outputFile { return heldOutLPPD(ds).files() }

// writeLPPDCSV writes lppd.csv: a comment line with the held-out lppd,
// its standard error and the numbers of elements and draws, then per
// element of log_lik (named as summary.csv names it) its term lppd_i =
// log mean_s exp(log_lik[i] at draw s) to full precision, which a user
// pairs with another model's on the same data (the differences' sum and
// √n times their sd), as gpp compare pairs loo.csv's elpd_loo.
func writeLPPDCSV(w io.Writer, h *heldOut) error {
	// one comma: the line has as many fields as the header (loo.csv's convention)
	fmt.Fprintf(w, "# lppd = %s (held-out: %d elements of %s at %d draws), se = %s\n",
		formatNum(h.sum), len(h.terms), looOutput, h.draws, formatNum(h.se))
	cw := csv.NewWriter(w)
	cw.Write([]string{"name", "lppd"})
	for j, k := range h.v.elems {
		cw.Write([]string{h.v.elemName(k), formatExact(h.terms[j])})
	}
	cw.Flush()
	return cw.Error()
}

// hasHeldOutLogLik reports whether the predict-mode model m keeps an
// output log_lik (the new data give what it reads), whose held-out lppd
// gpp predict writes to lppd.csv (plannedOutputs).
func hasHeldOutLogLik(m *compile.Model) bool {
	return slices.ContainsFunc(m.Outputs, func(o compile.Output) bool { return o.Name == looOutput })
}

// otherModel warns when the model l is not the one whose run (whose: "the
// fit at PATH") recorded hash, of the model file model: predict evaluates
// l's outputs at that run's params, which is right only if they mean what
// they meant there. gpp sensitivity refuses such a model, whose other
// densities make another posterior; predict lets a model add or change
// outputs, its usual change, but says so, as a changed likelihood, prior
// or let goes unnoticed otherwise. No hash (an old run): nothing.
func otherModel(con *console, l *pipeline.Loaded, hash, model, whose string) {
	if hash == "" || hash == fitfile.ModelHash(l.Source) {
		return
	}
	con.note("warning: %s is not the model of %s (%s; their sha256 differ): its outputs are evaluated at that run's params, right only if they mean what they meant there (new or changed outputs are fine; a changed prior, likelihood or let is not)", l.Path, whose, model)
}

// fitSize is a size's value in a fit: the length of an axis of param's
// factor that the model declares with that size.
type fitSize struct {
	n     int
	param string
}

// paramSizes returns the sizes (size names and int scalar data used as
// sizes) that shape the params of the model (info) whose factors the fit has,
// read off the factors' shapes: a real, positive or unit param z: real[N,
// 2] fitted as [15, 2] gives N = 15. A size read with two values, or
// from a param whose factor's shape is not its value's (simplex, a
// Cholesky factor), is left out.
func paramSizes(info *check.Info, factors []fitfile.Factor) map[string]fitSize {
	out, bad := map[string]fitSize{}, map[string]bool{}
	for _, lat := range info.Latents {
		if lat.Kind != ast.Real && lat.Kind != ast.Positive && lat.Kind != ast.Unit {
			continue
		}
		i := slices.IndexFunc(factors, func(f fitfile.Factor) bool { return f.Name == lat.Name })
		if i < 0 || len(factors[i].Shape) != len(lat.Dims) {
			continue
		}
		for k, dim := range lat.Dims {
			if dim.Name == "" || dim.Derived {
				continue
			}
			if d := info.DataVar(dim.Name); d == nil || !d.Implicit && (len(d.Dims) != 0 || d.Elem != check.Int) {
				continue // a size, implicit or declared data S: int
			}
			n := factors[i].Shape[k]
			if old, ok := out[dim.Name]; ok && old.n != n {
				bad[dim.Name] = true
			}
			if _, ok := out[dim.Name]; !ok {
				out[dim.Name] = fitSize{n: n, param: lat.Name}
			}
		}
	}
	for name := range bad {
		delete(out, name)
	}
	return out
}

// unboundFitSizes returns the sizes that err, binding predict's data,
// reports as bound by no data ("size N (declared at ...) is not bound",
// or "no data for `S`" of a declared data S: int, which the fit took from
// a column of labels, numeric ids or --set that the new data lack)
// and that the fit gives (paramSizes of cfg.fitFactors), when no --set
// gives them, and the fit's sizes.
func unboundFitSizes(err error, l *pipeline.Loaded, cfg *fitConfig) ([]string, map[string]fitSize) {
	list, ok := ast.Positioned(err)
	if !ok || l == nil || l.Info == nil {
		return nil, nil
	}
	fitSizes := paramSizes(l.Info, cfg.fitFactors)
	var out []string
	for _, e := range list {
		for name := range fitSizes {
			d := l.Info.DataVar(name)
			unbound := strings.HasPrefix(e.Msg, "size "+name+" ") || strings.HasPrefix(e.Msg, "no data for `"+name+"`")
			if _, set := cfg.sets[name]; set || d == nil || d.Pos != e.Pos || !unbound || slices.Contains(out, name) {
				continue
			}
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out, fitSizes
}
