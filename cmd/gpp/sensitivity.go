package main

// gpp sensitivity: power-scaling prior and likelihood sensitivity
// (Kallioinen, Paananen, Bürkner and Vehtari 2024; the R package
// priorsense's powerscale_sensitivity, ArviZ's psens) of a saved posterior:
// the draws of a gpp sample, or of a fit's q weighted towards the
// posterior by p/q. gpp knows which terms of the log joint are priors
// (compile.Split), so that, unlike in Stan, the model needs no lprior or
// log_lik written out.

import (
	"bufio"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/compile"
)

const sensitivitySynopsis = "sensitivity FIT [model.gpp [data.csv|data.tsv|data.json|data.R] [NAME=file.csv ...]] [flags]"

const sensitivityHelpText = `Power-scaling sensitivity of a saved posterior to its prior and to its
likelihood, as the R package priorsense's powerscale_sensitivity and ArviZ's
psens compute it (Kallioinen, Paananen, Bürkner and Vehtari 2024). FIT is the
output directory of a gpp sample (its draws, read to full precision from its
coords.csv) or of a gpp fit (its q's draws, weighted towards the posterior by
their Pareto-smoothed importance ratios p/q); not a MAP fit, which has no
draws.

The prior raised to a power α, p(θ)^α p(y|θ), or the likelihood, p(θ) p(y|θ)^α,
reweights the posterior's draws by exp((α − 1)·log p(θ)) or
exp((α − 1)·log p(y|θ)), Pareto-smoothed (PSIS), at α = 0.99 and 1.01. For
every element of every param and output, the cumulative Jensen–Shannon
distance between its draws' distribution and the reweighted one (priorsense's
cjs_dist), per unit of log₂ α, is its sensitivity to the prior and to the
likelihood: (d(0.99) + d(1.01)) / (2 log₂ 1.01), as priorsense's. At or above
--threshold (0.05) for both: "potential prior-data conflict"; above for the
prior and below for the likelihood: "potential strong prior / weak
likelihood"; else "-". A likelihood sensitivity alone is the usual case: the
data inform the posterior. An element whose draws sit mostly on one value (a
0/1 output like p = mu > 0 far in a tail) reads NaN and "too few draws with
p = 1 to tell" where the few draws off that value could read the threshold by
Monte Carlo error alone.

The prior is every density of a param: a declaration's ~ D, a ~ whose left
side is a param, an element or a slice of one (theta[i] ~ Normal(mu, tau) in a
loop) or an expression or a let of params that reads no data (log(sigma) ~
Normal(0, 1)), and every target += that reads no data. The likelihood is every ~ on data (their truncations and missing
values included) and every target += that reads data. The log Jacobians of
the coordinates are in neither: they cancel.

By default the prior power-scaled is that of the prior choices, as brms's
lprior holds them and priorsense on a brms model scales them: it leaves out
a param whose prior's arguments read params (a hierarchical population
distribution: theta ~ Normal(mu, tau), theta ~ Gamma(alpha, beta)) and a
non-centred innovation (z ~ Normal(0, 1) scaled by a param elsewhere), the
model's structure rather than a prior choice; the line after the table
names the priors left out and why. A model without either power-scales
every prior. --prior all power-scales every prior (a param named all's
alone), --prior NAMES only the priors of those params, --likelihood NAMES
the likelihood's terms of those data (priorsense's prior_selection and
likelihood_selection); the rest is in neither part.

The sensitivities are of the posterior that was sampled or fitted: the model
and the data default to those recorded in the sample's header or in
fit.json. Given here, they must be the same: a model of other contents (by
its sha256) is an error; so are other data for a fit or a sample that
recorded their sha256, and, for a sample, a log density lp__ that these
data (and --set values) do not give at its draws. A column of labels is
coded as the fit.json or coords.csv records the run coded it, as gpp predict
codes one.

Prints a table of the elements (the first 20 of each param or output without
--verbose) and the Pareto k̂ of the four sets of weights: above
min(1 − 1/log₁₀ S, 0.7) for S draws their sensitivities are unreliable (a
warning; priorsense would moment-match). For a fit the draws are --draws
draws of q (default: 4000, as many as a default gpp sample keeps, or the
fit's --output-draws if more: the distances read high on few draws) from
--seed (default: the
fit's), and a k̂ of p/q above 0.7 warns that the base posterior itself is
unreliable. --csv FILE writes every row (never over the model, the data or
a file of FIT). --plots DIR writes DIR/sensitivity.png
(priorsense's powerscale_plot_dens): for the 6 elements of largest
sensitivity, the density of the draws and of the draws power-scaled by
α = 0.8 and 1.25, the prior's in the top row and the likelihood's below; a
curve whose weights' k̂ is above the threshold is dashed. The elements are
shared among --workers goroutines; the numbers do not depend on them. In gpp
repl, :sensitivity does all this for the session's last sample or fit. Exit 0: printed; 1: an error in the
model, the data or the fit; 2: a bad command line.
`

// sensFitDraws is the least number of draws of a fit's q that gpp
// sensitivity weights by default: a default gpp sample's 4 × 1000, as the
// distances read high on few draws (1000 of eight schools' q give τ's
// likelihood sensitivity 0.104, 20 000 give 0.043).
const sensFitDraws = 4000

// sensNeeds ends fitfile.Match's and match's messages for gpp sensitivity.
var sensNeeds = [2]string{"sensitivity evaluates the prior and the likelihood at the fitted draws of every param", "sensitivity needs the fitted model's params"}

// sensConfig is a parsed gpp sensitivity command line.
type sensConfig struct {
	model     string
	data      []string
	sets      setFlags
	threshold float64
	csv       string
	plots     string // --plots DIR
	verbose   bool
	seed      uint64
	draws     int
	workers   int
	// prior and likelihood are --prior's and --likelihood's names,
	// comma-separated; sel the selection they make.
	prior, likelihood string
	sel               compile.Selection
	set               map[string]bool // the flags given
	// allPriors is --prior all: every prior, none left out by default.
	allPriors bool
	// leftOut are the params whose priors the default selection left
	// out (choosePrior); noChoice that it would have left out every
	// prior, and so kept them all.
	leftOut  []sensLeftOut
	noChoice bool
}

// sensBase is the posterior power-scaled: its draws' values (every
// param's and output's elements, as summary.csv names them), the log
// prior and log likelihood at each draw, and for a fit's q the draws'
// Pareto-smoothed log weights towards the posterior.
type sensBase struct {
	what         string   // the base draws, for the console
	ds           *drawSet // the values
	lprior, llik []float64
	lwBase       []float64 // normalised smoothed log weights (nil: equal)
	kBase        float64   // the Pareto k̂ of p/q (NaN for a sample)
	// kFit is the k̂ of p/q that gpp fit reported (fit.json's pareto_k,
	// from 10 000 draws where 1000 gave 0.5–1; NaN for a sample or when
	// not recorded): the judge of the base, kBase being of fewer draws.
	kFit          float64
	inputs        []string // files a --csv must not replace
	noPrior, noLL bool     // the part has no term (constant at every draw)
}

// sensRow is one element's sensitivities.
type sensRow struct {
	name       string
	prior, lik float64
	diagnosis  string
}

// cmdSensitivity runs gpp sensitivity.
func cmdSensitivity(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("sensitivity", sensitivitySynopsis, sensitivityHelpText, stderr)
	cfg := sensFlags(fs)
	pos, code, ok := parseCommand(fs, args, stdout)
	if !ok {
		return code
	}
	fs.Visit(func(f *flag.Flag) { cfg.set[f.Name] = true })
	usageErr := func(format string, args ...any) int {
		return usageError(stderr, "sensitivity", sensitivitySynopsis, format, args...)
	}
	switch {
	case len(pos) == 0:
		return usageErr("sensitivity needs the output directory of a gpp sample or gpp fit")
	case strings.EqualFold(filepath.Ext(pos[0]), ".gpp"):
		return usageErr("%s is a model: the fit comes first, as in gpp sensitivity gpp-sample %s data.csv", pos[0], pos[0])
	case len(pos) > 1 && !strings.EqualFold(filepath.Ext(pos[1]), ".gpp"):
		return usageErr("%s is not a model file (.gpp): give the model before its data, or neither", pos[1])
	}
	if err := cfg.check(); err != nil {
		return usageErr("%v", err)
	}
	if len(pos) > 1 {
		cfg.model, cfg.data = pos[1], pos[2:]
	}
	con := newConsole(stderr, false, false, cfg.verbose)
	srcs := sources{}
	var b *sensBase
	var err error
	if dir := sampleDir(pos[0]); dir != "" {
		if cfg.set["seed"] || cfg.set["draws"] {
			con.note("--seed and --draws are a fit's: the draws of the sample in %s are its own", dir)
			return exitError
		}
		b, err = sensFromSample(cfg, dir, srcs, con)
	} else {
		b, err = sensFromFit(cfg, pos[0], srcs, con)
	}
	if err != nil {
		printError(con, err, srcs)
		return exitError
	}
	if !sensReport(stdout, con, cfg, b) {
		return exitError
	}
	return exitOK
}

// sensReport power-scales b and prints the table and its warnings, and
// writes --csv and --plots (gpp sensitivity's and :sensitivity's); it
// reports whether all went well, having printed what did not.
func sensReport(stdout io.Writer, con *console, cfg *sensConfig, b *sensBase) bool {
	if cfg.csv != "" {
		for _, in := range b.inputs {
			if sameFile(cfg.csv, in) {
				con.note("--csv %s would overwrite an input", cfg.csv)
				return false
			}
		}
		// before the table: a --csv that cannot be written fails alone
		if dir := filepath.Dir(cfg.csv); !sensIsDir(dir) {
			con.note("--csv %s: %s is not a directory", cfg.csv, dir)
			return false
		}
	}
	// likewise a --plots that names a file
	if fi, err := os.Stat(cfg.plots); cfg.plots != "" && err == nil && !fi.IsDir() {
		con.note("--plots %s is not a directory", cfg.plots)
		return false
	}
	rows, ks := powerScale(b, cfg.threshold, cfg.workers)
	printSensitivity(stdout, cfg, b, rows, ks)
	for _, w := range sensWarnings(b, ks) {
		con.note("warning: %s", w)
	}
	if cfg.csv != "" {
		if err := writeSensitivityCSV(cfg.csv, rows); err != nil {
			con.note("%v", err)
			return false
		}
	}
	if cfg.plots != "" {
		if err := writeSensitivityPlots(cfg.plots, b, rows); err != nil {
			con.note("%v", err)
			return false
		}
		fmt.Fprintf(stdout, "written      %s\n", filepath.Join(cfg.plots, sensPlotFile))
	}
	return true
}

// sensIsDir reports whether path is a directory.
func sensIsDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// sensFlags registers gpp sensitivity's flags on fs (gpp sensitivity's and
// the REPL's :sensitivity's) and returns the config they fill.
func sensFlags(fs *flag.FlagSet) *sensConfig {
	cfg := &sensConfig{sets: setFlags{}, set: map[string]bool{}}
	fs.Float64Var(&cfg.threshold, "threshold", 0.05, "the sensitivity that flags an element (priorsense's sensitivity_threshold)")
	fs.StringVar(&cfg.plots, "plots", "", "also write sensitivity.png to `DIR` (created if needed): the densities of the\n6 most sensitive elements, power-scaled by α = 0.8 and 1.25 (default: none)")
	fs.StringVar(&cfg.csv, "csv", "", "also write every row to `FILE` as CSV")
	fs.BoolVar(&cfg.verbose, "verbose", false, "every element in the table, not the first 20 of each (default false)")
	fs.Uint64Var(&cfg.seed, "seed", 0, "a fit's: seed of the draws of q (default: the fit's)")
	fs.IntVar(&cfg.draws, "draws", 0, fmt.Sprintf("a fit's: the draws of q to weight (default: %d, or the fit's --output-draws if more)", sensFitDraws))
	fs.IntVar(&cfg.workers, "workers", 0, "goroutines computing the elements' sensitivities; 0: the number of CPUs\n(results do not depend on it)")
	fs.Var(cfg.sets, "set", "set a constant or scalar data, as `NAME=VALUE` (repeatable; default: the fit's)")
	fs.Var(listFlag{&cfg.prior}, "prior", "power-scale only the priors of these params, as comma-separated `NAMES`, or all\n(priorsense's prior_selection; repeatable; default: every prior but hierarchical\npopulation priors and non-centred innovations)")
	fs.Var(listFlag{&cfg.likelihood}, "likelihood", "power-scale only the likelihood terms of these data, as comma-separated `NAMES`\n(priorsense's likelihood_selection; repeatable; default: every term)")
	return cfg
}

// check checks --draws (when given), --threshold and --workers (0:
// GOMAXPROCS) and reads --prior's and --likelihood's names into sel.
func (cfg *sensConfig) check() error {
	switch {
	case cfg.set["draws"] && cfg.draws < 10:
		return fmt.Errorf("--draws must be at least 10 (Pareto smoothing fits a tail of the weights), got %d", cfg.draws)
	case !(cfg.threshold > 0) || math.IsInf(cfg.threshold, 0):
		return fmt.Errorf("--threshold must be a positive number, got %g", cfg.threshold)
	case cfg.workers < 0:
		return fmt.Errorf("--workers must be at least 0 (0: the number of CPUs), got %d", cfg.workers)
	}
	if cfg.workers == 0 {
		cfg.workers = runtime.GOMAXPROCS(0)
	}
	for _, f := range []struct {
		list string
		dst  *[]string
	}{{cfg.prior, &cfg.sel.Prior}, {cfg.likelihood, &cfg.sel.Likelihood}} {
		if f.list == "" {
			continue
		}
		if f.dst == &cfg.sel.Prior && strings.TrimSpace(f.list) == sensAllPriors {
			cfg.allPriors = true
			continue
		}
		for _, n := range strings.Split(f.list, ",") {
			if n = strings.TrimSpace(n); n == "" {
				return fmt.Errorf("--prior and --likelihood take comma-separated names, got %q", f.list)
			}
			if f.dst == &cfg.sel.Prior && n == sensAllPriors {
				return fmt.Errorf("--prior %s: %s stands alone (every prior), not among names", f.list, sensAllPriors)
			}
			*f.dst = append(*f.dst, n)
		}
	}
	return nil
}

// sensInputs fills in the model, the data and the --set values recorded
// with a fit or a sample where the command line gives none.
func sensInputs(cfg *sensConfig, model string, data []string, sets map[string]string) {
	if cfg.model == "" {
		cfg.model, cfg.data = model, data
	}
	for k, v := range sets {
		if _, given := cfg.sets[k]; !given {
			cfg.sets[k] = v
		}
	}
}

// sensLoad loads the model on the data, adding the files read to srcs.
// Columns of labels are coded as the sample or fit coded them (levels,
// pipeline.LoadCoded): the draws' groups are its codes; a matrix's CSV
// columns bind by the run's names (columns).
func sensLoad(cfg *sensConfig, levels map[string]data.Levels, sizes map[string]int, columns map[string][]string, srcs sources, con *console) (*pipeline.Loaded, error) {
	l, err := pipeline.LoadCoded(cfg.model, cfg.data, cfg.sets, levels, sizes, columns)
	for k, b := range sourcesOf(l) {
		srcs[k] = b
	}
	if err != nil {
		return nil, err
	}
	printLoadWarnings(con, l)
	return l, nil
}

// sensModelHash checks the model l against the sha256 that the fit or
// sample recorded (at hashPos in the file that recorded it; what says
// whose it is, "the fit at PATH is of"), after its
// params matched: a model of the same params but other densities would
// give the sensitivities of another posterior.
func sensModelHash(l *pipeline.Loaded, hash string, hashPos ast.Pos, what string) error {
	if hash != "" && hash != fitfile.ModelHash(l.Source) {
		return &ast.Error{Pos: hashPos, Msg: fmt.Sprintf("%s a model of other contents than %s (their sha256 differ): the sensitivities are of that model's posterior; give its model", what, l.Path)}
	}
	return nil
}

// sensFromSample reads the draws of the gpp sample in dir, checks that
// the model and data are the sample's and evaluates the prior and
// likelihood at every draw.
func sensFromSample(cfg *sensConfig, dir string, srcs sources, con *console) (*sensBase, error) {
	path := filepath.Join(dir, coordsFile)
	sc, err := readSampleCoords(path)
	if sc != nil {
		srcs[path] = sc.src
	} else {
		srcs[path] = mustRead(path)
	}
	if err != nil {
		return nil, err
	}
	drawsPath := filepath.Join(dir, drawsFile)
	var data, dataHash []string
	if meta := readSampleMeta(drawsPath, sources{}); meta != nil {
		data, dataHash = meta.Data, meta.DataSHA256
	}
	sets, seed, _ := sampleRunSettings(dir)
	if cfg.model == "" && sc.model == "" {
		return nil, fmt.Errorf("%s records no model: give the sampled model and its data after %s", path, dir)
	}
	sensInputs(cfg, sc.model, data, sets)
	l, err := sensLoad(cfg, fitfile.DataLevels(sc.levels), sc.sizes, sc.columns, srcs, con)
	if err != nil {
		return nil, err
	}
	m := l.Model
	cfg.choosePrior(l)
	if err := sc.match(m, l.Path, sensNeeds[0]); err != nil {
		return nil, err
	}
	if err := sensModelHash(l, sc.hash, fitfile.FindPos(path, sc.src, "# model_sha256"), "the sample at "+dir+" was drawn from"); err != nil {
		return nil, err
	}
	if h := fitfile.DataHashes(cfg.data, sourcesOf(l)); dataHash != nil && h != nil && !slices.Equal(h, dataHash) {
		srcs[drawsPath] = mustRead(drawsPath) // to quote the line
		return nil, &ast.Error{Pos: fitfile.FindPos(drawsPath, srcs[drawsPath], "#   file_sha256"), Msg: fmt.Sprintf("the sample read data of other contents (%s) than %s: the sensitivities are of the sampled posterior; give the sampled data",
			strings.Join(data, " "), quoteArgs(cfg.data))}
	}
	sd, err := evalSampleCoords(sc, m, seed, nil)
	if err != nil {
		return nil, err
	}
	lp, lpSrc, err := readSampleLP(drawsPath, len(sc.rows))
	if err != nil {
		return nil, err
	}
	u, err := sgvb.NewUnconstrained(pipeline.Target{M: m}, pipeline.Latents(m))
	if err != nil {
		return nil, err
	}
	xdim := u.TargetDim()
	coords := make([]float64, len(sc.rows)*xdim)
	uc, grad := make([]float64, u.Dim()), make([]float64, u.Dim())
	for d, row := range sc.rows {
		x := coords[d*xdim : (d+1)*xdim]
		for _, lat := range m.Latents {
			for k, c := range sc.cols[lat.Name] {
				x[lat.Offset+k] = row[c]
			}
		}
		// the sample's lp__ against this model and data's log density at
		// the draw: other data (or --set) give another
		u.UCoords(x, uc)
		got, err := u.LogDensity(uc, grad)
		if !(math.Abs(got-lp[d]) <= sensLPTol*max(1, math.Abs(lp[d]))) {
			if err != nil {
				return nil, err
			}
			srcs[drawsPath] = mustRead(drawsPath) // to quote the cell
			return nil, &ast.Error{Pos: lpSrc[d], Msg: fmt.Sprintf("lp__ of chain %d draw %d is %s, but %s and the data %s give %s at its draw: the data (or --set) are not the sample's; give the sampled data",
				sd.chain[d], sd.draw[d], formatNum(lp[d]), l.Path, quoteArgs(cfg.data), formatNum(got))}
		}
	}
	what := fmt.Sprintf("%d chain%s × %d draws of the sample in %s", sd.chains, plural(sd.chains), sd.n, dir)
	nameByLabels(sd.ds.vars, l) // its table and --csv name elements as the sample's
	return sensFromDraws(cfg, m, sd.ds, coords, xdim, what, sensInputFiles(dir, l))
}

// sensFromDraws evaluates the prior and the likelihood of m at each draw
// of a sample, whose values are ds and whose Target coordinates are
// coords (xdim each): gpp sensitivity's of a saved sample, :sensitivity's
// of the session's.
func sensFromDraws(cfg *sensConfig, m *compile.Model, ds *drawSet, coords []float64, xdim int, what string, inputs []string) (*sensBase, error) {
	split, err := m.NewSplit(cfg.sel)
	if err != nil {
		return nil, err
	}
	S := len(coords) / max(xdim, 1)
	b := &sensBase{ds: ds, lprior: make([]float64, S), llik: make([]float64, S), kBase: math.NaN(), kFit: math.NaN(), what: what, inputs: inputs}
	for d := range S {
		b.lprior[d], b.llik[d], err = split.Eval(coords[d*xdim : (d+1)*xdim])
		if err != nil {
			b.lprior[d], b.llik[d] = math.NaN(), math.NaN()
		}
	}
	return b, nil
}

// sensLPTol is the relative tolerance of a sample's lp__ (written to full
// precision) against the log density recomputed at its draw, whose
// unconstrained coordinates come back from coords.csv's through a log or
// a logit: a few ulps.
const sensLPTol = 1e-8

// readSampleLP reads the lp__ column of a sample's draws.csv (n rows, the
// warm-up rows of --save-warmup left out) and the position of each row's
// value.
func readSampleLP(path string, n int) ([]float64, []ast.Pos, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read the sample's %s: %v", drawsFile, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<30)
	col, drawCol := -1, -1
	var lp []float64
	var at []ast.Pos
	for line := 1; sc.Scan(); line++ {
		t := sc.Text()
		if strings.HasPrefix(t, "#") || t == "" {
			continue
		}
		fields := strings.Split(t, ",")
		if col < 0 {
			col = slices.Index(fields, "lp__")
			if col < 0 {
				return nil, nil, &ast.Error{Pos: ast.Pos{File: path, Line: line, Col: 1}, Msg: "no lp__ column: not a gpp sample's " + drawsFile}
			}
			drawCol = slices.Index(fields, "draw__")
			continue
		}
		if isWarmupRow(fields, drawCol) {
			continue // --save-warmup's rows: coords.csv has the kept draws only
		}
		if col >= len(fields) {
			return nil, nil, &ast.Error{Pos: ast.Pos{File: path, Line: line, Col: 1}, Msg: "a row without its lp__"}
		}
		v, err := strconv.ParseFloat(fields[col], 64)
		if err != nil {
			v = math.NaN()
		}
		c := 1
		for _, fl := range fields[:col] {
			c += len(fl) + 1
		}
		lp, at = append(lp, v), append(at, ast.Pos{File: path, Line: line, Col: c})
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("cannot read the sample's %s: %v", drawsFile, err)
	}
	if len(lp) != n {
		return nil, nil, fmt.Errorf("%s has %d draws, its %s %d: not one sample's files", path, len(lp), coordsFile, n)
	}
	return lp, at, nil
}

// sensFromFit draws from the q of the fit at arg (its directory or
// fit.json), weights the draws by p/q and evaluates the prior and
// likelihood at each.
func sensFromFit(cfg *sensConfig, arg string, srcs sources, con *console) (*sensBase, error) {
	fi, err := os.Stat(arg)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: no such file or directory (give the output directory of gpp sample or gpp fit)", arg)
	case err != nil:
		return nil, err
	}
	path := arg
	if fi.IsDir() {
		path = filepath.Join(arg, fitFileName)
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s is not the output directory of gpp sample or gpp fit: it has neither %s nor %s", arg, coordsFile, fitFileName)
		}
	} else if filepath.Base(path) != fitFileName {
		return nil, fmt.Errorf("%s: give the output directory of gpp sample or gpp fit (or a fit's %s)", arg, fitFileName)
	}
	ff, src, err := readUsedFit(path, srcs, "sensitivity", "not to power-scale: its q approximates no posterior")
	if err != nil {
		return nil, err
	}
	if ff.Method == sgvb.MAP.String() {
		return nil, &ast.Error{Pos: fitfile.FindPos(path, src, `"method"`), Msg: "a MAP fit has no draws to power-scale: sensitivity reweights draws of the posterior; give a gpp sample, or a fit of a distribution (an SGVB, --family laplace or --family pathfinder fit)"}
	}
	if cfg.model == "" && ff.Model == "" {
		return nil, fmt.Errorf("%s records no model: give the fitted model and its data after %s", path, arg)
	}
	sensInputs(cfg, ff.Model, ff.Data, ff.Sets)
	l, err := sensLoad(cfg, fitfile.DataLevels(ff.Levels), ff.Sizes, ff.DataColumns, srcs, con)
	if err != nil {
		return nil, err
	}
	m := l.Model
	cfg.choosePrior(l)
	r, mix, err := fitQ(ff, path, src, cfg.sets, l.Path, m, sensNeeds)
	if err != nil {
		return nil, err
	}
	if err := sensModelHash(l, ff.ModelSHA256, fitfile.FindPos(path, src, `"model_sha256"`), "the fit at "+path+" is of"); err != nil {
		return nil, err
	}
	if h := fitfile.DataHashes(cfg.data, sourcesOf(l)); ff.DataSHA256 != nil && h != nil && !slices.Equal(h, ff.DataSHA256) {
		return nil, &ast.Error{Pos: fitfile.FindPos(path, src, `"data_sha256"`), Msg: fmt.Sprintf("the fit read data of other contents (%s) than %s: the sensitivities are of the fitted posterior; give the fitted data",
			strings.Join(ff.Data, " "), quoteArgs(cfg.data))}
	}
	var q sgvb.Proposal = r
	if mix != nil {
		q = mix
	}
	seed, S := cfg.fitDraws(ff.Settings.Seed, ff.Settings.OutputDraws)
	if err := checkDrawsSize(S, 1, m); err != nil {
		return nil, err
	}
	b, err := sensFromQ(cfg, m, q, seed, S, fmt.Sprintf("%d draws of the q in %s (seed %d), weighted by p/q", S, path, seed), sensInputFiles(filepath.Dir(path), l))
	if b != nil {
		b.kFit = float64(ff.ParetoK)
		nameByLabels(b.ds.vars, l)
	}
	return b, err
}

// fitDraws returns the seed and the number of the draws of a fit's q to
// weight: --seed and --draws where given, else the fit's seed and the
// larger of its output draws and sensFitDraws.
func (cfg *sensConfig) fitDraws(seed uint64, outputDraws int) (uint64, int) {
	S := max(outputDraws, sensFitDraws)
	if cfg.set["seed"] {
		seed = cfg.seed
	}
	if cfg.set["draws"] {
		S = cfg.draws
	}
	return seed, S
}

// sensInputFiles are the files that a --csv must not replace: the files
// of the sample's or fit's output directory dir and the model and data
// files that l read.
func sensInputFiles(dir string, l *pipeline.Loaded) []string {
	var in []string
	for _, f := range []string{summaryFile, drawsFile, coordsFile, elboFile, fitFileName, looFile, againstFile} {
		in = append(in, filepath.Join(dir, f))
	}
	for path := range l.Sources {
		in = append(in, path)
	}
	return in
}

// sensFromQ draws S draws of q from seed, as gpp predict draws a fit's,
// weights them by p/q and evaluates the prior and the likelihood of m at
// each: gpp sensitivity's of a saved fit, :sensitivity's of the session's.
func sensFromQ(cfg *sensConfig, m *compile.Model, q sgvb.Proposal, seed uint64, S int, what string, inputs []string) (*sensBase, error) {
	ev, err := m.NewEvaluator()
	if err != nil {
		return nil, err
	}
	split, err := m.NewSplit(cfg.sel)
	if err != nil {
		return nil, err
	}
	u, err := sgvb.NewUnconstrained(pipeline.Target{M: m}, pipeline.Latents(m))
	if err != nil {
		return nil, err
	}
	ds := modelDrawSet(m, "q", S)
	b := &sensBase{ds: ds, lprior: make([]float64, S), llik: make([]float64, S), kFit: math.NaN(), what: what, inputs: inputs}
	lw := make([]float64, S)
	x, z := make([]float64, u.TargetDim()), make([]float64, u.TargetDim())
	seedPredictive(ev, seed)
	for d := range S {
		logq := q.Candidate(seed, d, x)
		lp, outs, err := ev.Eval(x)
		lw[d] = lp - logq
		if err != nil || math.IsInf(lw[d], 0) {
			lw[d] = math.NaN() // weight 0
		}
		u.Values(z, x)
		ds.fill(z, outs, func(c int, v float64) { ds.cols[c][d] = v })
		b.lprior[d], b.llik[d], err = split.Eval(x)
		if err != nil {
			b.lprior[d], b.llik[d] = math.NaN(), math.NaN()
		}
	}
	b.lwBase, b.kBase = sgvb.PSIS(lw)
	return b, nil
}

// powerScale computes every element's sensitivities on workers
// goroutines (each element's its own: the numbers do not depend on
// workers), and returns them with the Pareto k̂ of the four sets of
// power-scaling weights: the prior's at α = 0.99 and 1.01, then the
// likelihood's.
func powerScale(b *sensBase, threshold float64, workers int) ([]sensRow, [4]float64) {
	var ks [4]float64
	var w [4][]float64
	for p, comp := range [][]float64{b.lprior, b.llik} {
		constant := true
		for _, v := range comp {
			constant = constant && v == comp[0]
		}
		if p == 0 {
			b.noPrior = constant
		} else {
			b.noLL = constant
		}
		for j, alpha := range []float64{sgvb.PowerScaleLower, sgvb.PowerScaleUpper} {
			w[2*p+j], ks[2*p+j] = powerScaleWeights(comp, alpha, b.lwBase)
		}
	}
	base := baseWeights(b)
	type elem struct {
		name string
		col  []float64
	}
	var elems []elem
	for _, v := range b.ds.vars {
		for j, k := range v.elems {
			elems = append(elems, elem{v.elemName(k), b.ds.cols[v.first+j]})
		}
	}
	rows := make([]sensRow, len(elems))
	parallelFor(len(elems), workers, func(i int) {
		e := elems[i]
		row := sensRow{name: e.name, prior: math.NaN(), lik: math.NaN(), diagnosis: "-"}
		switch {
		case allFinite(e.col) && roundingConstant(e.col):
			// a constant but for the last bits (a correlation matrix's
			// unit diagonal, 1 ± 2e-16): the distance's scale invariance
			// would read its rounding as a distribution, so it is the
			// constant it is, as draws all equal: 0.
			row.prior, row.lik = 0, 0
		case allFinite(e.col) && tooFewToTell(&row, e.col, base, b, threshold):
		case allFinite(e.col):
			d := sgvb.CJSDists(e.col, base, w[:])
			row.prior = sgvb.PowerScaleSensitivity(d[0], d[1])
			row.lik = sgvb.PowerScaleSensitivity(d[2], d[3])
			// a part constant at every draw reweights nothing: 0, not the
			// rounding of its equal weights' normalisation
			if b.noPrior {
				row.prior = 0
			}
			if b.noLL {
				row.lik = 0
			}
			row.diagnosis = sgvb.PowerScaleDiagnosis(row.prior, row.lik, threshold)
		}
		rows[i] = row
	})
	return rows, ks
}

// tooFewToTell reports, and says in row's diagnosis, that the draws col
// of an element that sits mostly on one value (a 0/1 output P(mu > 0) far
// in a tail, an output nearly constant) are too few off that value for
// its sensitivities to be told from Monte Carlo error: by
// sgvb.PointMassNoise, the prior's or the likelihood's could read at
// least threshold by chance. Its sensitivities are then NaN, not a
// number that would read as a conflict (2 draws of 4000 off it read
// 1.7).
func tooFewToTell(row *sensRow, col, base []float64, b *sensBase, threshold float64) bool {
	var k, S float64
	noisy := false
	for p, comp := range [][]float64{b.lprior, b.llik} {
		if p == 0 && b.noPrior || p == 1 && b.noLL {
			continue
		}
		var noise float64
		noise, k, S = sgvb.PointMassNoise(col, base, comp)
		noisy = noisy || noise >= threshold
	}
	if !noisy {
		return false
	}
	row.prior, row.lik = math.NaN(), math.NaN()
	row.diagnosis = fmt.Sprintf("too few draws with %s to tell (%s of %s)", offMode(row.name, col), effCount(k), effCount(S))
	return true
}

// offMode names the draws of col off its most frequent value: `p_pos =
// 1` when col takes two values, `x ≠ 0` otherwise.
func offMode(name string, col []float64) string {
	mode, _, distinct := sgvb.Mode(col)
	if distinct == 2 {
		for _, v := range col {
			if v != mode {
				return name + " = " + formatNum(v)
			}
		}
	}
	return name + " ≠ " + formatNum(mode)
}

// effCount formats a weighted (Kish effective) count of draws: whole for
// equal weights, to 3 digits otherwise.
func effCount(n float64) string {
	if n == math.Round(n) {
		return strconv.FormatFloat(n, 'f', 0, 64)
	}
	return num3(n)
}

// roundingConstant reports whether the draws differ by no more than
// rounding: their range at most 1e-12 of their size.
func roundingConstant(col []float64) bool {
	lo, hi := slices.Min(col), slices.Max(col)
	return hi-lo <= 1e-12*max(math.Abs(lo), math.Abs(hi))
}

// baseWeights are the base draws' weights (nil: equal, a sample's).
func baseWeights(b *sensBase) []float64 {
	if b.lwBase == nil {
		return nil
	}
	base := make([]float64, len(b.lwBase))
	for s, v := range b.lwBase {
		base[s] = math.Exp(v)
	}
	return base
}

// powerScaleWeights are the weights of the draws power-scaled by alpha in
// the part of the model whose log density at each draw is comp:
// exp((α − 1)·comp) Pareto-smoothed (PSIS), times the base's (lwBase, nil
// for equal), unnormalised; and the Pareto k̂ of the smoothing. A draw
// whose comp is not finite weighs 0.
func powerScaleWeights(comp []float64, alpha float64, lwBase []float64) ([]float64, float64) {
	lr := make([]float64, len(comp))
	for s, v := range comp {
		lr[s] = (alpha - 1) * v // NaN, weight 0, where the part is not finite
	}
	lws, k := sgvb.PSIS(lr)
	ws := make([]float64, len(comp))
	for s, v := range lws {
		if lwBase != nil {
			v += lwBase[s]
		}
		ws[s] = math.Exp(v)
	}
	return ws, k
}

// printSensitivity prints the table (at most maxTableRows elements of a
// variable without --verbose) and the lines after it.
func printSensitivity(w io.Writer, cfg *sensConfig, b *sensBase, rows []sensRow, ks [4]float64) {
	t := &table{right: []bool{false, true, true, false}}
	t.row("variable", "prior", "likelihood", "diagnosis")
	i := 0
	for _, v := range b.ds.vars {
		for j := range v.elems {
			if j == maxTableRows && !cfg.verbose {
				more := "with --verbose"
				if cfg.csv != "" {
					more = "in " + cfg.csv
				}
				t.note(fmt.Sprintf("... %d more elements of %s (all %s)", len(v.elems)-j, v.name, more))
				i += len(v.elems) - j
				break
			}
			r := rows[i]
			t.row(r.name, sensNum(r.prior), sensNum(r.lik), r.diagnosis)
			i++
		}
	}
	t.print(w)
	fmt.Fprintln(w)
	of := func(names []string) string {
		if names == nil {
			return ""
		}
		return " of " + strings.Join(names, ", ")
	}
	fmt.Fprintf(w, "power-scaled the prior%s and the likelihood%s by α = %g and %g (cjs_dist per unit of log₂ α; threshold %g)\n",
		of(cfg.sel.Prior), of(cfg.sel.Likelihood), sgvb.PowerScaleLower, sgvb.PowerScaleUpper, cfg.threshold)
	if n := cfg.priorSelectionNote(); n != "" {
		fmt.Fprintln(w, n)
	}
	fmt.Fprintf(w, "draws        %s\n", b.what)
	if !math.IsNaN(b.kBase) || b.lwBase != nil {
		fit := ""
		if !math.IsNaN(b.kFit) {
			fit = fmt.Sprintf(" of these draws; %s as gpp fit estimated it", kText(b.kFit))
		}
		fmt.Fprintf(w, "Pareto k̂     p/q %s%s\n", kText(b.kBase), fit)
	}
	// A constant prior (or likelihood) power-scales to equal weights, whose
	// tail PSIS reads as flat (k̂ −Inf): no k̂ to print.
	pair := func(lo, hi float64) string {
		if math.IsInf(lo, -1) && math.IsInf(hi, -1) {
			return "none (equal weights)"
		}
		return kText(lo) + ", " + kText(hi)
	}
	fmt.Fprintf(w, "Pareto k̂     prior %s; likelihood %s (unreliable above %s for %d draws)\n",
		pair(ks[0], ks[1]), pair(ks[2], ks[3]), num3(sgvb.PowerScaleKThreshold(len(b.lprior))), len(b.lprior))
	if cfg.csv != "" {
		fmt.Fprintf(w, "written      %s\n", cfg.csv)
	}
}

// sensNum formats a sensitivity as priorsense prints it, to 3 decimals.
func sensNum(v float64) string {
	if math.IsNaN(v) {
		return "NaN"
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// sensWarnings are the warnings after the table: unreliable weights, a
// part of the model with no term, elements left out.
func sensWarnings(b *sensBase, ks [4]float64) []string {
	var out []string
	S := len(b.lprior)
	// the fit's own k̂ judges q where fit.json has it: it is of up to
	// 10 000 draws, kBase of --draws (4000 by default), noisier
	k := b.kBase
	if !math.IsNaN(b.kFit) {
		k = b.kFit
	}
	if b.lwBase != nil && !(k <= 0.7) {
		out = append(out, fmt.Sprintf("the fit's importance weights p/q have Pareto k̂ %s > 0.7: its q is far from the posterior, so the base draws, weighted by them, and every sensitivity are unreliable; check with gpp sample", kText(k)))
	}
	kt := sgvb.PowerScaleKThreshold(S)
	if S < 10 {
		out = append(out, fmt.Sprintf("%d draws are too few to Pareto-smooth the power-scaling weights (PSIS fits a tail of at least 10): every sensitivity rests on the raw weights and is unreliable", S))
	}
	names := [4]string{"the prior by 0.99", "the prior by 1.01", "the likelihood by 0.99", "the likelihood by 1.01"}
	for i, k := range ks {
		if k > kt || math.IsNaN(k) && S >= 10 {
			out = append(out, fmt.Sprintf("the weights power-scaling %s have Pareto k̂ %s, above %s for %d draws: the %s sensitivities are unreliable (priorsense would moment-match; more draws may help)",
				names[i], kText(k), num3(kt), S, strings.Fields(names[i])[1]))
		}
	}
	if b.noPrior {
		out = append(out, "the model's prior is constant at every draw (flat priors, or none): every prior sensitivity is 0")
	}
	if b.noLL {
		out = append(out, "the model's likelihood is constant at every draw (no ~ on data and no target += of data): every likelihood sensitivity is 0")
	}
	bad := 0
	for _, v := range b.ds.vars {
		for j := range v.elems {
			if !allFinite(b.ds.cols[v.first+j]) {
				bad++
			}
		}
	}
	if bad > 0 {
		out = append(out, fmt.Sprintf("%d elements have a draw that is not finite: their sensitivities are NaN", bad))
	}
	return out
}

// writeSensitivityCSV writes every row to path, atomically.
func writeSensitivityCSV(path string, rows []sensRow) error {
	return writeAtomic(path, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		cw.Write([]string{"variable", "prior", "likelihood", "diagnosis"})
		for _, r := range rows {
			cw.Write([]string{r.name, formatNum(r.prior), formatNum(r.lik), r.diagnosis})
		}
		cw.Flush()
		return cw.Error()
	})
}
