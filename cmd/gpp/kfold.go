package main

// gpp kfold: K-fold cross-validation (loo::kfold, brms's kfold), the
// remedy the LOO warnings name when PSIS-LOO's k̂ is high. The
// observations, one per element of the output log_lik, are the rows of the
// data whose first axis is their count: each fold's rows are held out, q is
// fitted to the others, and each held-out row's elpd is log E[p(y_i | θ)]
// under that fit, from draws of q weighted by p/q (PSIS).

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/compile"
	"gonum.org/v1/gonum/floats"
)

const kfoldSynopsis = "kfold model.gpp [data.csv|data.tsv|data.json|data.R] [NAME=file.csv ...] [--folds K] [--group NAME] [flags]"

const kfoldHelpText = `K-fold cross-validation, as R's loo::kfold and brms's kfold: the
observations are split into K folds (--folds, default 10), and for each
fold q is fitted to the other folds' observations and predicts the fold's.
It estimates elpd, the expected log predictive density of a new
observation, as PSIS-LOO does, by refitting instead of reweighting: where
LOO's Pareto k̂ is above 0.7 (influential observations, or a q that misses
the posterior), K-fold is the check.

The model needs an output log_lik with one element per observation, as for
LOO. Its observations are the rows of the data: every data declaration whose
first axis is the count of log_lik's elements, a size name N bound by the
data (a CSV file's rows, or given), is split by rows, together with N;
other data (a design, group-level tables, --set values) are used whole. A
param whose shape depends on N (an effect per observation) cannot be
predicted for held-out rows, and is an error; so are a param bounded by
the split data (real<lower=max(y)>), data sized by an expression of N
(real[N - 1]) and missing values. A let computed from the split data (a
mean to centre x) is computed on each fit's rows and on each fold's
held-out rows: centre such data beforehand. Int data that index the rows
(x[base] with x: real[N], base the row of a trial's baseline arm) are
row numbers, renumbered to each fit's rows; one that points at a row in
another fold is an error at its cell: give --group so that the rows it
points at stay together, or index within a group. A model that reads the
rows by their places (an AR term r[1:] ~ Normal(phi * r[:T-1], s), a lag
y[t - 1], a loop over 1:N, cumsum, ar_filter or diff of the rows) is an
error at the first such use: dropping rows would pair each row with the
next row kept, not its neighbour; read its elpd from PSIS-LOO (gpp fit,
gpp sample), which leaves out log_lik terms and keeps the rows.

Folds: observation i is in fold perm(i) mod K for a random permutation from
--seed (balanced folds, loo's kfold_split_random); with --group NAME, the
observations of each value of the int data NAME (one per observation) stay
in one fold, the groups assigned as observations are (loo's
kfold_split_grouped: leave-groups-out, for predicting new groups; their
effects must then be sized by a count the data give whole).

Each fold's fit is gpp fit's with the flags given (its --seed is --seed, so
a fold's fit can be repeated by gpp fit on its rows), and a last fit to all
data gives the in-sample lpd and p_kfold = lpd − elpd_kfold. The fold's
elpd_i = log Σ_s w_s p(y_i | θ_s) over --output-draws draws θ_s of q, as
many of its heavy-tailed companion g (as gpp fit's LOO draws), and as many
of the fit to all data's q and companion (which reach where the held-out
rows are likely, such as an outlier's tail), with PSIS-smoothed weights w
∝ p(θ_s, y_train) over the four's equal mixture, which correct the draws
toward the fold's posterior (a draw whose training log density is not
finite, outside the support, has weight 0; a held-out log_lik of −∞ at
a draw is a term of density 0, and so is a NaN one, as gpp fit's LOO
counts it, with a warning at its position); the fold's k̂ of those weights is
printed, with a warning above 0.7 (q then misses the fold's posterior;
--fullrank all may help, past 100 elements --fullrank all --rank 10, or
for --family laplace or pathfinder the default SGVB fit), and a warning
counts the observations whose own estimate rests on a few draws (the k̂
of its terms above 0.7, kfold.csv's pareto_k; more --output-draws may
settle it): where folds are flagged, all
of them, as gpp compare counts them, and those outside the flagged folds.
Fits run side by side on --workers goroutines (default: the number of
CPUs), each on one; the numbers do not depend on it.

With --nuts each fold's posterior is sampled by NUTS instead (gpp sample's
sampler: --chains, default 4, of --warmup 1000 warm-up and --output-draws
kept iterations, --adapt-delta, --max-depth, the diagonal metric), the
held-out elpd a plain mean over the draws, with the divergences and the
largest R̂ of each fold. NUTS's draws follow the posterior but rarely reach
its far tails: an outlier's held-out density, which lives there, is better
estimated by the fit's defensive draws (docs/inference.md).

Into --out (default gpp-kfold) it writes kfold.csv (per observation its
elpd_kfold, p_kfold, pareto_k, that k̂ of its estimate, and fold, with the
totals on its first line) and
kfold.json (the model, data, settings, and per fold its ELBO, k̂ and
elpd); gpp compare ranks the directory beside fits and samples. Ctrl-C
(SIGINT) or SIGTERM stops without writing (exit 130). Exit 0: done; 1: an
error in the model or the data, or a fit that failed; 2: a bad command line.
`

// kfoldFitFlags are gpp fit's flags that gpp kfold passes to each fit.
var kfoldFitFlags = []string{"iter", "draws", "optimizer", "step-size", "seed", "family", "fullrank", "rank", "band",
	"gamma-grad", "estimator", "gamma-param", "tol", "last-iterate", "eval-every", "output-draws", "out",
	"quiet", "verbose", "set", "levels"}

// Files and defaults of gpp kfold.
const (
	kfoldFile       = "kfold.csv"
	kfoldMetaFile   = "kfold.json"
	kfoldFormat     = "gpp-kfold/1"
	defaultKfoldOut = "gpp-kfold"
	defaultFolds    = 10
	kfoldStream     = 0x6b66 // the folds' permutation; fold k's draws use kfoldStream+1+k
)

// kfoldConfig is a parsed gpp kfold command line.
type kfoldConfig struct {
	fit     *fitConfig
	folds   int
	group   string
	workers int
	nuts    bool          // --nuts: each fold sampled by NUTS instead of fitted
	ns      nuts.Settings // with --nuts: the chains' settings
	// bridge, when not nil, is a fit to all the data (--reloo's; gpp
	// kfold's own is kfoldSetup.full): its q and companion join each
	// fold's proposal, weighted as one mixture, so that draws reach where
	// the held-out rows' likelihood is, which a posterior without them may
	// hold only in a far tail.
	bridge *sgvb.Result
	// reloo: the fits are --reloo's, each holding out one observation,
	// which the messages name so.
	reloo bool
}

// kfoldSGVBFlags are the fit flags that only an SGVB fit reads, refused
// with --nuts; kfoldNUTSFlags are the sampler's, refused without it.
var (
	kfoldSGVBFlags = []string{"iter", "draws", "optimizer", "step-size", "family", "fullrank", "rank", "band",
		"gamma-grad", "estimator", "gamma-param", "tol", "last-iterate", "eval-every"}
	kfoldNUTSFlags = []string{"chains", "warmup", "adapt-delta", "max-depth"}
)

// parseKfoldArgs parses gpp kfold's command line: fit's flags that steer a
// fit, and --folds, --group and --workers.
func parseKfoldArgs(args []string, stdout, stderr io.Writer) (*kfoldConfig, int, bool) {
	ffs, cfg, v := newFitFlags(stderr)
	cfg.out = defaultKfoldOut
	fs := newFlagSet("kfold", kfoldSynopsis, kfoldHelpText, stderr)
	borrowFitFlags(fs, ffs, kfoldFitFlags, map[string]string{
		"output-draws": "draws of each fold's q (and as many of its defensive companion, and of the fit to\nall data's q and companion) that estimate its held-out elpd; with --nuts, each\nchain's kept iterations",
		"family":       "variational family of positive latents: gamma or lognormal; or laplace, or\npathfinder (one path), whose q is one joint normal over every param",
		"seed":         "seed of the folds' split and of every fit",
		"verbose":      "a line per fit as it finishes (default false)",
	})
	fs.Lookup("out").DefValue = defaultKfoldOut
	kc := &kfoldConfig{fit: cfg}
	fs.IntVar(&kc.folds, "folds", defaultFolds, "number of folds `K`")
	fs.StringVar(&kc.group, "group", "", "keep the observations of each value of the int data `NAME` in one fold")
	fs.IntVar(&kc.workers, "workers", 0, "fits run side by side; 0: the number of CPUs (GOMAXPROCS)")
	fs.BoolVar(&kc.nuts, "nuts", false, "sample each fold's posterior by NUTS (gpp sample's sampler, with its defaults)\ninstead of fitting q: the held-out elpd is then a plain mean over the draws (default false)")
	fs.IntVar(&kc.ns.Chains, "chains", 4, "with --nuts: chains per fold")
	fs.IntVar(&kc.ns.Warmup, "warmup", 1000, "with --nuts: warm-up iterations per chain")
	fs.Float64Var(&kc.ns.Delta, "adapt-delta", 0.8, "with --nuts: target acceptance statistic of the step-size adaptation, in (0, 1)")
	fs.IntVar(&kc.ns.MaxDepth, "max-depth", 10, "with --nuts: maximum tree depth")
	set, code, ok := parseModelCommand(fs, cfg, args, stdout, stderr, "kfold", kfoldSynopsis)
	if !ok {
		return nil, code, false
	}
	usageErr := func(format string, args ...any) (*kfoldConfig, int, bool) {
		return nil, usageError(stderr, "kfold", kfoldSynopsis, format, args...), false
	}
	for _, name := range kfoldSGVBFlags {
		if kc.nuts && set[name] {
			return usageErr("--%s: not with --nuts, which samples each fold instead of fitting q", name)
		}
	}
	for _, name := range kfoldNUTSFlags {
		if !kc.nuts && set[name] {
			return usageErr("--%s: only with --nuts", name)
		}
	}
	switch {
	case kc.nuts && (kc.ns.Chains < 1 || kc.ns.Warmup < 0 || kc.ns.MaxDepth < 1 || kc.ns.MaxDepth > maxTreeDepth || !(kc.ns.Delta > 0 && kc.ns.Delta < 1)):
		return usageErr("--nuts: want --chains ≥ 1, --warmup ≥ 0, --max-depth in 1..%d and --adapt-delta in (0, 1)", maxTreeDepth)
	case kc.nuts && cfg.outputDraws < 2:
		return usageErr("--output-draws %d: with --nuts each chain keeps that many iterations, at least 2", cfg.outputDraws)
	case cfg.family == "map":
		return usageErr("--family map: K-fold averages p(y_i | θ) over draws of q, and a MAP estimate has none (gamma, lognormal, laplace or pathfinder)")
	case kc.folds < 2:
		return usageErr("--folds must be at least 2, got %d", kc.folds)
	}
	if msg := applyJobsFlags(cfg, v, set, &kc.workers); msg != "" {
		return usageErr("%s", msg)
	}
	kc.ns.Draws, kc.ns.Thin, kc.ns.Seed, kc.ns.Workers, kc.ns.Metric = cfg.outputDraws, 1, cfg.settings.Seed, 1, nuts.DiagE
	return kc, 0, true
}

// cmdKfold runs gpp kfold.
func cmdKfold(args []string, stdout, stderr io.Writer) int {
	kc, code, ok := parseKfoldArgs(args, stdout, stderr)
	if !ok {
		return code
	}
	return runJobs(kc.fit, stderr, func(ctx context.Context, con *console) int {
		return runKfold(ctx, kc, stdout, con)
	})
}

// kfoldSetup is the model on all data and how its observations split.
type kfoldSetup struct {
	l     *pipeline.Loaded
	n     int      // observations: log_lik's elements
	size  string   // the size name that counts them
	split []string // the data declarations split by rows, size among them when declared
	ll    int      // log_lik's index among the outputs
	// full, for SGVB folds, hands the fit to all data to the folds' draws
	// as their bridge (kfoldConfig.bridge); nil: none.
	full  *fullFit
	fold  []int // each observation's fold
	k     int   // folds
	reloo bool  // kfoldConfig.reloo
}

// prepareKfold loads the model on all data and finds its observations.
func prepareKfold(kc *kfoldConfig, con *console) (*kfoldSetup, error) {
	cfg := kc.fit
	l, err := pipeline.LoadOrdered(cfg.model, cfg.data, cfg.sets, cfg.levels)
	if err != nil {
		return &kfoldSetup{l: l}, err
	}
	for _, sym := range l.Info.Symbols { // int data may be there for --group, which the folds read
		if sym.Kind == check.Data && sym.Type.Elem == check.Int {
			l.Info.Drop(l.Info.UnreadData[sym.Name])
		}
	}
	printLoadWarnings(con, l)
	return setupKfold(l, kc, con)
}

// setupKfold finds the observations of the model loaded with all data, l,
// and assigns them to folds.
func setupKfold(l *pipeline.Loaded, kc *kfoldConfig, con *console) (*kfoldSetup, error) {
	cfg := kc.fit
	su := &kfoldSetup{l: l, ll: -1, k: kc.folds, reloo: kc.reloo}
	m := l.Model
	if len(m.Latents) == 0 {
		return su, fmt.Errorf("%s: the model has no params to fit", cfg.model)
	}
	for i, o := range m.Outputs {
		if o.Name == looOutput {
			su.ll = i
		}
	}
	if su.ll < 0 {
		return su, fmt.Errorf("%s: the model has no output %s (each observation's log likelihood), which K-fold evaluates on the held-out observations", cfg.model, looOutput)
	}
	out := m.Outputs[su.ll]
	if names := heldOutData(m); names != nil {
		return su, ast.Errorf(out.Pos, "%s reads %s, which no ~ observes: K-fold refits without rows of the data the model observes and scores them by %s, which here scores other data; give %s a term per observation of the data the model fits (gpp fit reports this %s's held-out lppd)", looOutput, joinAnd(names), looOutput, looOutput, looOutput)
	}
	if len(out.Shape) != 1 {
		return su, ast.Errorf(out.Pos, "output %s has shape %s: %s needs a vector, one element per observation (a row of the data)", looOutput, fitfile.ShapeText(out.Shape), su.by())
	}
	su.n = out.Shape[0]
	if cells := data.MissingCells(l.Info, data.WithoutMissingCells(l.Data, m.Skipped()), m.NotLeaves()); len(cells) > 0 {
		return su, ast.Errorf(cells[0].Cells[0], "data %s has a missing value here: %s would hold out rows whose values the fits impute; fill or drop them", cells[0].Data, su.by())
	}
	if lo := m.LeftOut(); lo != nil {
		name := slices.Sorted(maps.Keys(lo))[0] // the first by name
		return su, ast.Errorf(l.Data[name].Locate(lo[name].Cells[0]), "data %s has a missing value here, left out of the likelihood: %s would hold out rows with cells that are no observations; fill or drop them", name, su.by())
	}
	if err := su.findRows(); err != nil {
		return su, err
	}
	if err := su.linkedRows(); err != nil {
		return su, err
	}
	if su.n < kc.folds {
		return su, fmt.Errorf("--folds %d: there are only %d observations", kc.folds, su.n)
	}
	rng := rand.New(rand.NewPCG(cfg.settings.Seed, kfoldStream))
	if kc.group == "" {
		su.fold = randomFolds(su.n, kc.folds, rng)
	} else {
		g, err := su.groups(kc.group)
		if err != nil {
			return su, err
		}
		if su.fold, err = groupedFolds(g, kc.folds, rng); err != nil {
			return su, fmt.Errorf("--group %s: %v", kc.group, err)
		}
	}
	// Every fold's models have the params of the model on all rows, or
	// none does: a param sized by the observations differs on any subset.
	// Bounds read from the split data differ between a fold's training
	// and held-out rows, which runFold checks on every fold; fold 1's
	// check here says so before any fit.
	for _, heldOut := range []bool{false, true} {
		sub, err := su.model(su.rows(0, heldOut))
		if err != nil {
			con.note("%s (%d of %d observations):", su.rowsName(0, heldOut), len(su.rows(0, heldOut)), su.n)
			return su, err
		}
		if err := sameParams(su.l.Model, sub, su.by(), su.size, "all rows", su.rowsName(0, heldOut)); err != nil {
			return su, err
		}
	}
	return su, nil
}

// by names the method in messages: K-fold, or --reloo.
func (su *kfoldSetup) by() string {
	if su.reloo {
		return "--reloo"
	}
	return "K-fold"
}

// rowsName names fold k's training or held-out rows in messages.
func (su *kfoldSetup) rowsName(k int, heldOut bool) string {
	switch {
	case su.reloo && heldOut:
		return "the held-out row"
	case su.reloo:
		return "the other rows"
	case heldOut:
		return fmt.Sprintf("fold %d's held-out rows", k+1)
	}
	return fmt.Sprintf("fold %d's training rows", k+1)
}

// findRows finds the size name whose value is the count of observations
// as the first axis of some data, and the data it splits.
func (su *kfoldSetup) findRows() error {
	l := su.l
	var sizes []string
	for _, d := range l.Info.Data {
		a := l.Data[d.Name]
		if d.Implicit || a == nil || len(d.Dims) == 0 || len(a.Shape) == 0 || a.Shape[0] != su.n {
			continue
		}
		if dim := d.Dims[0]; dim.Name != "" && !dim.Derived && !slices.Contains(sizes, dim.Name) {
			sizes = append(sizes, dim.Name)
		}
	}
	at := l.Model.Outputs[su.ll].Pos // log_lik, whose length is the count
	switch len(sizes) {
	case 0:
		return ast.Errorf(at, "no data has %d rows, one per element of %s: %s splits the rows of the data whose first axis counts the observations (a size name such as N)", su.n, looOutput, su.by())
	case 1:
	default:
		return ast.Errorf(at, "the sizes %s all count %d rows, as many as %s has elements: %s cannot tell which counts the observations; give the others as constants or --set", strings.Join(sizes, ", "), su.n, looOutput, su.by())
	}
	su.size = sizes[0]
	if _, ok := l.Data[su.size]; !ok {
		msg := fmt.Sprintf("the observations' count %s is a constant: %s refits on fewer rows, so declare it as data (or leave it to the data's rows)", su.size, su.by())
		for _, c := range l.Info.Consts {
			if c.Name == su.size {
				return ast.Errorf(c.Pos, "%s", msg)
			}
		}
		return errors.New(msg)
	}
	for _, d := range l.Info.Data {
		if d.Implicit {
			continue
		}
		for ax, dim := range d.Dims {
			if dim.Derived && mentions(dim.Name, su.size) {
				return ast.Errorf(d.Pos, "data %s has a size %s that reads the observations' count %s: %s cuts %s to each fold's rows, and cannot tell which of %s's values go with them", d.Name, dim.Name, su.size, su.by(), su.size, d.Name)
			}
			if dim.Name != su.size {
				continue
			}
			if ax > 0 {
				return ast.Errorf(d.Pos, "data %s has %s on axis %d: %s splits the observations' rows, the first axis", d.Name, su.size, ax+1, su.by())
			}
			su.split = append(su.split, d.Name)
		}
	}
	return nil
}

// linkedRows refuses a model whose terms read the split rows by their
// places (compile.RowLinks: an AR(1)'s r[1:] ~ Normal(phi * r[:T-1], s),
// a lag y[t - 1], cumsum, ar_filter): dropping a fold's rows would pair
// each row with the next row kept instead of its neighbour, and score
// the held-out rows against the wrong ones, a wrong elpd without a sign.
// The error is at the first such use, naming the others.
func (su *kfoldSetup) linkedRows() error {
	var names []string
	for _, name := range su.split {
		if name != su.size {
			names = append(names, name)
		}
	}
	links := compile.RowLinks(su.l.File, su.l.Info, names, su.size)
	if len(links) == 0 {
		return nil
	}
	also := ""
	if len(links) > 1 {
		var at []string
		for _, l := range links[1:min(len(links), 6)] {
			at = append(at, fmt.Sprintf("%d:%d", l.Pos.Line, l.Pos.Col))
		}
		if len(links) > 6 {
			at = append(at, "…")
		}
		also = fmt.Sprintf(" (also at %s)", strings.Join(at, ", "))
	}
	return ast.Errorf(links[0].Pos, "%s: the model reads the rows of %s by their places%s, so its rows are linked (a lag, an AR or random-walk term, cumsum, ar_filter): %s drops the held-out rows and refits on the others renumbered, where each row would be paired with the next row kept instead of its neighbour, and the held-out rows scored against the wrong rows. Such a model cannot be split into folds: read its elpd from PSIS-LOO, which gpp fit and gpp sample (NUTS; the check where the fit's k̂ is high) compute (loo.csv): it leaves out each row's %s term and keeps the row's value for its neighbours", links[0].What, su.size, also, su.by(), looOutput)
}

// mentions reports whether the size expression text (check.Dim's Name
// of a derived size, such as "N - 1") reads the name.
func mentions(text, name string) bool {
	isIdent := func(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }
	return slices.Contains(strings.FieldsFunc(text, func(r rune) bool { return !isIdent(r) }), name)
}

// groups returns the value of the int data name for each observation.
func (su *kfoldSetup) groups(name string) ([]int, error) {
	a := su.l.Data[name]
	d := su.l.Info.DataVar(name)
	switch {
	case d == nil || a == nil:
		return nil, fmt.Errorf("--group %s: the model has no data named %s", name, name)
	case d.Elem != check.Int || len(a.Shape) != 1 || !slices.Contains(su.split, name):
		return nil, ast.Errorf(d.Pos, "--group %s: want int data of one value per observation, declared int[%s]", name, su.size)
	}
	g := make([]int, len(a.Values))
	for i, v := range a.Values {
		g[i] = int(v)
	}
	return g, nil
}

// randomFolds assigns n observations to k folds of sizes ⌊n/k⌋ or ⌈n/k⌉:
// observation perm[j] to fold j mod k.
func randomFolds(n, k int, rng *rand.Rand) []int {
	fold := make([]int, n)
	for j, i := range rng.Perm(n) {
		fold[i] = j % k
	}
	return fold
}

// groupedFolds assigns the observations of each group (g[i]) to one fold,
// the groups, in a random order, to folds j mod k.
func groupedFolds(g []int, k int, rng *rand.Rand) ([]int, error) {
	var values []int
	seen := map[int]bool{}
	for _, v := range g {
		if !seen[v] {
			seen[v] = true
			values = append(values, v)
		}
	}
	if len(values) < k {
		return nil, fmt.Errorf("%d groups, fewer than the %d folds", len(values), k)
	}
	sort.Ints(values)
	of := map[int]int{}
	for j, i := range rng.Perm(len(values)) {
		of[values[i]] = j % k
	}
	fold := make([]int, len(g))
	for i, v := range g {
		fold[i] = of[v]
	}
	return fold, nil
}

// rows returns the observations of fold k (held out) or of the other
// folds, in order.
func (su *kfoldSetup) rows(k int, heldOut bool) []int {
	var rows []int
	for i, f := range su.fold {
		if (f == k) == heldOut {
			rows = append(rows, i)
		}
	}
	return rows
}

// model compiles the model on the observations rows (nil: all). Each
// split datum keeps its cells' places in the file, for errors; int data
// that index the rows (rowIndexes) are renumbered to the rows kept, and
// one that points at a row left out is an error at its cell.
func (su *kfoldSetup) model(rows []int) (*compile.Model, error) {
	if rows == nil {
		return su.l.Model.Clone(), nil
	}
	bound := make(map[string]*data.Array, len(su.l.Data))
	for name, a := range su.l.Data {
		bound[name] = a
	}
	bound[su.size] = &data.Array{Name: su.size, Values: []float64{float64(len(rows))}, Int: true, Pos: su.l.Data[su.size].Pos}
	for _, name := range su.split {
		if name != su.size {
			bound[name] = su.l.Data[name].Rows(rows)
		}
	}
	if err := su.renumberRows(bound, rows); err != nil {
		return nil, err
	}
	return compile.Compile(su.l.File, su.l.Info, bound)
}

// rowIndexes returns the int data that index an axis of the observations'
// count (u[bidx] with u: real[N], bidx holding the row of a trial's
// baseline arm), each with that use: its values are row numbers.
func (su *kfoldSetup) rowIndexes() map[*check.DataVar]check.AxisIndex {
	var out map[*check.DataVar]check.AxisIndex
	for _, d := range su.l.Info.Data {
		for _, x := range d.Indexes {
			if x.Dim.Name == su.size && !x.Dim.Derived {
				if out == nil {
					out = map[*check.DataVar]check.AxisIndex{}
				}
				out[d] = x
				break
			}
		}
	}
	return out
}

// renumberRows renumbers the values of the int data that index the rows
// (rowIndexes) in bound, the model's data on rows, to those rows' places
// among them (a row given twice: its first). A value that points at a row
// left out is an error at its cell: such an index cannot be split from
// the rows it points at. Values out of the rows' range are left for the
// compiler's check.
func (su *kfoldSetup) renumberRows(bound map[string]*data.Array, rows []int) error {
	at := make(map[int]int, len(rows))
	for k, r := range rows {
		if _, ok := at[r]; !ok {
			at[r] = k
		}
	}
	for d, x := range su.rowIndexes() {
		a := bound[d.Name]
		if a == nil {
			continue
		}
		renum := *a
		renum.Values = slices.Clone(a.Values)
		for i, v := range a.Values {
			r := int(v)
			if v != math.Trunc(v) || r < 0 || r >= su.n {
				continue
			}
			k, ok := at[r]
			if !ok {
				return ast.Errorf(a.Locate(i), "%s = %d points at row %d, which %s leaves in another fold: `%s` indexes %s at %s, an axis of the rows (%s), so its values are row numbers, and int data that point at rows cannot be split into folds apart from the rows they point at; %s", d.Name, r, r, su.by(), d.Name, x.Of.Name, x.Pos, su.size, su.rowIndexAdvice(x.Of))
			}
			renum.Values[i] = float64(k)
		}
		bound[d.Name] = &renum
	}
	return nil
}

// rowIndexAdvice is how to split data whose int data index the rows of
// of, the indexed value. Where of is a param (an ICAR's phi: real[N]
// indexed by its edges), --group cannot help a connected graph: the
// param's elements must be indexed apart from the rows (ownIndexAdvice).
func (su *kfoldSetup) rowIndexAdvice(of *check.Symbol) string {
	if of != nil && of.Kind == check.Param {
		return fmt.Sprintf("and param %s, with an element per row, cannot be split at all (K-fold predicts held-out rows from the other rows' params): %s", of.Name, ownIndexAdvice(of.Name, su.size))
	}
	relative := "or write the index relative to a group (an arm's place within its trial) so that it holds no row numbers"
	if su.reloo {
		return "refit with gpp kfold --group (a column such as trial) so that each row and the rows it points at are held out together, " + relative
	}
	return "give --group (a column such as trial) so that each row and the rows it points at fall in one fold, " + relative
}

// foldResult is one fit's outcome: fold k's (k < K) or the fit to all data
// (k = K).
type foldResult struct {
	elbo, k    float64 // the fit's ELBO and the k̂ of the draws' weights
	converged  bool
	iterations int
	elpd       []float64 // per held-out observation (all of them for the full fit: lpd)
	kObs       []float64 // per held-out observation: the k̂ of its estimate's terms
	rows       []int
	// zeroW counts the draws (of draws) whose training log density was
	// not finite or failed (outside the support, as a GEV's log of a
	// negative number is), given weight 0 as gpp fit's LOO gives them,
	// trainErr the first's positioned error: only where every draw has
	// weight 0 is that a warning. nanLL counts the held-out log_lik
	// elements NaN at a draw of positive weight, counted as density 0 (a
	// −∞ term, as sgvb.PSISLOO counts them), llErr the first's.
	zeroW, draws, nanLL int
	trainErr, llErr     error
	rhat                float64 // with --nuts: the largest R̂ of the unconstrained coordinates
	divergent           int     // with --nuts: divergent transitions
	err                 error
	where               string // the rows whose model err is about, when not the fit's
}

// runFold fits fold k (k = su.k: all data) and evaluates its held-out
// observations.
func (su *kfoldSetup) runFold(ctx context.Context, k int, kc *kfoldConfig) foldResult {
	s, draws := kc.fit.settings, kc.fit.outputDraws
	if k == su.k && su.full != nil {
		defer su.full.publish(nil) // a failed fit to all data releases the folds without a bridge
	}
	var train, test []int
	if k < su.k {
		train, test = su.rows(k, false), su.rows(k, true)
	}
	res := foldResult{rows: test}
	if k == su.k {
		res.rows = make([]int, su.n)
		for i := range res.rows {
			res.rows[i] = i
		}
	}
	mt, err := su.model(train)
	if err != nil {
		res.err, res.where = err, fmt.Sprintf("%s (%d of %d observations)", su.rowsName(k, false), len(train), su.n)
		return res
	}
	mh := mt
	if k < su.k {
		if mh, err = su.model(test); err != nil {
			res.err, res.where = err, fmt.Sprintf("%s (%d of %d observations)", su.rowsName(k, true), len(test), su.n)
			return res
		}
		if err = sameParams(mt, mh, su.by(), su.size, su.rowsName(k, false), su.rowsName(k, true)); err != nil {
			res.err = err
			return res
		}
	}
	if kc.nuts {
		return su.sampleFold(ctx, k, kc.ns, mt, mh, res)
	}
	s.Workers = 1
	s.ParetoKDraws = -1 // q's k̂ is not read here, only the held-out estimates' (below): no re-estimate
	r, err := sgvb.Fit(ctx, pipeline.Target{M: mt}, pipeline.Latents(mt), s)
	if err != nil {
		res.err = pipeline.LaplacePos(err, mt)
		return res
	}
	res.elbo, res.converged, res.iterations = r.ELBO, r.Converged, r.Iterations
	bridge := kc.bridge
	switch {
	case su.full == nil:
	case k == su.k:
		su.full.publish(r)
	default:
		bridge = su.full.wait(ctx)
	}
	evH, err := mh.NewEvaluator()
	if err != nil {
		res.err = err
		return res
	}
	// draws of q, then as many of its heavy-tailed companion g (as gpp
	// fit's LOO draws), and for a fold as many of the bridge's q and its
	// companion, each weighted by p over the proposal's density (the
	// equal mixture of parts): a held-out observation far out, such as an
	// outlier, is predicted from the posterior's tails, which q's alone
	// reach too rarely and the fit to all data holds. A
	// first pass weighs the draws by the training rows' log density; a
	// second draws them again from the same stream and evaluates the
	// held-out rows' log_lik, so that the fit to all data sums each
	// observation's terms as they come instead of keeping n × 2S of them.
	def := r.Defensive()
	x := make([]float64, r.Dim)
	parts := []*sgvb.Defensive{def} // the proposal: an equal mixture of these
	if bridge != nil && k < su.k {
		parts = append(parts, bridge.Defensive())
	}
	sample := func(rng *rand.Rand, d int) {
		part, own := parts[d/(2*draws)], d%(2*draws) < draws
		switch {
		case own && part == def:
			r.SampleCoords(rng, x)
		case own:
			bridge.SampleCoords(rng, x)
		default:
			part.SampleCoords(rng, x)
		}
	}
	logProposal := func(x []float64) float64 {
		if len(parts) == 1 {
			return def.LogDensity(x)
		}
		a, b := def.LogDensity(x), parts[1].LogDensity(x)
		m := math.Max(a, b)
		if math.IsInf(m, -1) {
			return m
		}
		return m + math.Log(0.5*math.Exp(a-m)+0.5*math.Exp(b-m))
	}
	lw := make([]float64, 2*draws*len(parts))
	rng := rand.New(rand.NewPCG(s.Seed, kfoldStream+1+uint64(k)))
	for d := range lw {
		if d%64 == 0 && ctx.Err() != nil {
			res.err = ctx.Err()
			return res
		}
		sample(rng, d)
		lp, err := mt.LogJointValue(x)
		lw[d] = lp - logProposal(x)
		if err != nil || math.IsNaN(lp) || math.IsInf(lp, 0) {
			lw[d] = math.Inf(-1) // weight 0
			res.zeroW++
			if res.trainErr == nil {
				res.trainErr = err
			}
		}
	}
	res.draws = len(lw)
	lws, kHat := sgvb.PSIS(lw)
	res.k = kHat
	var ll [][]float64 // ll[j][d], a fold's held-out rows
	var sums []logSum  // the fit to all data: log Σ_d w̃_d p(y_j | θ_d)
	if k < su.k {
		ll = make([][]float64, len(res.rows))
		for j := range ll {
			ll[j] = make([]float64, len(lw))
		}
	} else {
		sums = make([]logSum, len(res.rows))
		for j := range sums {
			sums[j] = logSum{m: math.Inf(-1)}
		}
	}
	rng = rand.New(rand.NewPCG(s.Seed, kfoldStream+1+uint64(k)))
	var o []float64 // heldOutLogLik's, reused
	for d := range lw {
		if d%64 == 0 && ctx.Err() != nil {
			res.err = ctx.Err()
			return res
		}
		sample(rng, d)
		if math.IsInf(lws[d], -1) { // weight 0: its log_lik does not count
			for j := range ll {
				ll[j][d] = math.Inf(-1)
			}
			continue
		}
		o = res.heldOutLogLik(evH, x, su.ll, o)
		for j := range res.rows {
			v := o[j]
			if ll != nil {
				ll[j][d] = v
			} else {
				sums[j].add(lws[d] + v)
			}
		}
	}
	if sums != nil {
		res.fromSums(sums)
		return res
	}
	res.heldOut(lws, ll)
	return res
}

// heldOutLogLik returns the held-out rows' log_lik (output ll of ev's
// model) at x, each NaN element −∞: a term of density 0, as sgvb.PSISLOO
// counts it, counted in res.nanLL with the first one's positioned error
// (the output's, else the log density's). The outputs are computed where
// the log density fails (a row outside the support at x): only the
// elements that read the failure are NaN, the other rows' values stand.
// They are copied into o (outs is the evaluator's, reused), grown as
// needed, which is returned.
func (res *foldResult) heldOutLogLik(ev *compile.Evaluator, x []float64, ll int, o []float64) []float64 {
	_, outs, err := ev.Eval(x)
	o = append(o[:0], outs[ll]...)
	for j, v := range o {
		if !math.IsNaN(v) {
			continue
		}
		o[j] = math.Inf(-1)
		res.nanLL++
		if res.llErr == nil {
			if oe := ev.OutputErr(); oe != nil {
				err = oe
			}
			res.llErr = err
		}
	}
	return o
}

// total is the fit's elpd summed over its observations: a fold's held-out
// elpd, or the fit to all data's lpd.
func (res *foldResult) total() float64 {
	e := 0.0
	for _, v := range res.elpd {
		e += v
	}
	return e
}

// fromSums sets the fit to all data's lpd per observation from its sums.
func (res *foldResult) fromSums(sums []logSum) {
	res.elpd = make([]float64, len(sums))
	for j := range sums {
		res.elpd[j] = sums[j].value()
	}
}

// heldOut sets the held-out estimates from the draws' normalised log
// weights lws and each observation's log_lik at them, ll[j].
func (res *foldResult) heldOut(lws []float64, ll [][]float64) {
	res.elpd = make([]float64, len(ll))
	res.kObs = make([]float64, len(ll))
	terms := make([]float64, len(lws))
	for j, v := range ll {
		// The estimate is a mean of the terms w_s·p(y_i | θ_s): the k̂ of
		// their tail says whether it rests on a few draws (loo's k̂ of an
		// importance-sampling expectation). A draw of weight 0 has log_lik
		// −Inf in ll (runFold), so its term is −Inf whatever the model.
		for d := range terms {
			terms[d] = lws[d] + v[d]
		}
		res.elpd[j] = floats.LogSumExp(terms)
		_, res.kObs[j] = sgvb.PSIS(terms)
	}
}

// sampleFold samples fold k's posterior (the model mt on its training rows)
// by NUTS, as gpp sample does with settings ns (the chains' initial points
// and streams from ns.Seed and k), and evaluates the held-out log_lik (mh)
// at every draw: the held-out elpd is a plain mean over the draws.
func (su *kfoldSetup) sampleFold(ctx context.Context, k int, ns nuts.Settings, mt, mh *compile.Model, res foldResult) foldResult {
	u, err := sgvb.NewUnconstrained(pipeline.Target{M: mt}, pipeline.Latents(mt))
	if err != nil {
		res.err = err
		return res
	}
	stop := &atomic.Bool{} // an ODE solve under way stops on Ctrl-C
	defer context.AfterFunc(ctx, func() { stop.Store(true) })()
	dens := make([]nuts.Density, ns.Chains)
	inits := make([][]float64, ns.Chains)
	for c := range ns.Chains {
		d := u.Clone()
		d.SetStop(stop)
		dens[c], inits[c] = d, make([]float64, u.Dim())
		if err := d.Init(rand.New(rand.NewPCG(ns.Seed, initStream+uint64(c))), inits[c]); err != nil {
			res.err = fmt.Errorf("chain %d: no finite log density at %d random starts: %w", c+1, sgvb.InitTries, err)
			return res
		}
	}
	out, err := nuts.Sample(ctx, dens, inits, ns)
	if err == nil && out.Interrupted {
		err = ctx.Err()
	}
	if err != nil {
		res.err = err
		return res
	}
	ev, err := mh.NewEvaluator()
	if err != nil {
		res.err = err
		return res
	}
	S := 0
	for _, ch := range out.Chains {
		S += len(ch.LogP)
	}
	lw := -math.Log(float64(S)) // every draw's normalised log weight
	var ll [][]float64          // ll[j][d], a fold's held-out rows
	var sums []logSum           // the sample of all data: summed as they come
	if k < su.k {
		ll = make([][]float64, len(res.rows))
		for j := range ll {
			ll[j] = make([]float64, 0, S)
		}
	} else {
		sums = make([]logSum, len(res.rows))
		for j := range sums {
			sums[j] = logSum{m: math.Inf(-1)}
		}
	}
	x := make([]float64, u.TargetDim())
	coord := make([][][]float64, out.Dim) // coord[i][c]: coordinate i's draws in chain c, for R̂
	for i := range coord {
		coord[i] = make([][]float64, len(out.Chains))
	}
	var o []float64 // heldOutLogLik's, reused
	for c, ch := range out.Chains {
		for i := range ch.Divergent {
			if ch.Divergent[i] {
				res.divergent++
			}
			draw := ch.Draws[i*out.Dim : (i+1)*out.Dim]
			for j, v := range draw {
				coord[j][c] = append(coord[j][c], v)
			}
			u.Coords(draw, x)
			o = res.heldOutLogLik(ev, x, su.ll, o)
			for j := range res.rows {
				v := o[j]
				if ll != nil {
					ll[j] = append(ll[j], v)
				} else {
					sums[j].add(lw + v)
				}
			}
		}
	}
	for _, chains := range coord {
		if r := nuts.Rhat(chains); !(r <= res.rhat) {
			res.rhat = r
		}
	}
	res.elbo, res.k, res.converged = math.NaN(), math.NaN(), true
	if sums != nil {
		res.fromSums(sums)
		return res
	}
	lws := make([]float64, S)
	for d := range lws {
		lws[d] = lw
	}
	res.heldOut(lws, ll)
	return res
}

// logSum accumulates log Σ exp(v) of the values added, as they come: m
// the largest so far and s = Σ exp(v − m). A NaN makes the sum NaN.
type logSum struct{ m, s float64 }

func (a *logSum) add(v float64) {
	switch {
	case math.IsNaN(a.m) || math.IsInf(v, -1):
	case math.IsNaN(v):
		a.m = v
	case v > a.m:
		a.s = a.s*math.Exp(a.m-v) + 1
		a.m = v
	default:
		a.s += math.Exp(v - a.m)
	}
}

func (a *logSum) value() float64 {
	if math.IsInf(a.m, 0) || math.IsNaN(a.m) {
		return a.m
	}
	return a.m + math.Log(a.s)
}

// sameParams checks that the models ma and mb, on the rows named na and
// nb, have the same params: the held-out observations are predicted at
// draws of the training fit's q, so no param may be sized by the
// observations, and the same coordinates must be the same values, so no
// bound may read the split data (real<lower=max(y)> would put a held-out
// row's θ above its own rows' max, not the training rows').
func sameParams(ma, mb *compile.Model, by, size, na, nb string) error {
	perObs := perObservationParams(ma, mb)
	for i, a := range ma.Latents {
		b := mb.Latents[i]
		if slices.Contains(perObs, i) {
			return ast.Errorf(a.Pos, "param %s has a shape that follows the observations' count %s (%s on %s, %s on %s): %s predicts held-out rows from the other rows' params, so no param may be one per observation; %s", a.Name, size, fitfile.ShapeText(a.Shape), na, fitfile.ShapeText(b.Shape), nb, by, ownIndexAdvice(a.Name, size))
		}
		if a.Support != b.Support || a.Loc != b.Loc || a.Scale != b.Scale || !slices.Equal(a.LocV, b.LocV) || !slices.Equal(a.ScaleV, b.ScaleV) {
			return ast.Errorf(a.Pos, "param %s has bounds that read the split data (they differ between %s and %s): %s evaluates held-out rows at the training fit's values, which need the same bounds on both; bound it by constants or by data used whole", a.Name, na, nb, by)
		}
	}
	return nil
}

// ownIndexAdvice says how to write a param with an element per
// observation (size: the observations' count) so that K-fold can split
// the rows: its elements indexed apart from them, as a spatial model's
// areas (an ICAR's phi[area]), whose held-out observations K-fold then
// predicts from their elements' posteriors given the other folds' rows.
func ownIndexAdvice(param, size string) string {
	return fmt.Sprintf("index its elements apart from the observations: give %s a size of its own (data A: int, and [A] in place of [%s] in its type) and read it as %s[area], with data area: int[%s] naming each observation's element (here area = 0, 1, …, %s - 1; int data that index %s, such as an ICAR's edges, then number elements, not rows), and the folds split the rows alone", param, size, param, size, size, param)
}

// perObservationParams returns the indices of the latents of ma whose
// shape differs in mb, the same model compiled on other rows
// (kfoldSetup.model): the params with an element per observation (or
// otherwise sized by the observations' count). K-fold and --reloo refuse
// them (sameParams); LOO warns that its estimate is unreliable where
// log_lik reads them (looConditional).
func perObservationParams(ma, mb *compile.Model) []int {
	var out []int
	for i, a := range ma.Latents {
		// NAME_missing, after the params, is absent where the rows hold no missing cell
		if i >= len(mb.Latents) || a.Size != mb.Latents[i].Size || !slices.Equal(a.Shape, mb.Latents[i].Shape) {
			out = append(out, i)
		}
	}
	return out
}

// fullFit is the fit to all data as the folds wait for it: published
// once, when it is fitted or has failed (nil).
type fullFit struct {
	once sync.Once
	done chan struct{}
	r    *sgvb.Result
}

func newFullFit() *fullFit { return &fullFit{done: make(chan struct{})} }

// publish hands r (nil: none) to the folds; later calls do nothing.
func (f *fullFit) publish(r *sgvb.Result) {
	f.once.Do(func() {
		f.r = r
		close(f.done)
	})
}

// wait returns the fit to all data once published, or nil when ctx ends
// first.
func (f *fullFit) wait(ctx context.Context) *sgvb.Result {
	select {
	case <-f.done:
		return f.r
	case <-ctx.Done():
		return nil
	}
}

// runFits runs the K folds' fits and the fit to all data on workers
// goroutines, in the order fold 1..K, all; done is called (serially) as
// each finishes.
func (su *kfoldSetup) runFits(ctx context.Context, kc *kfoldConfig, done func(k int, r foldResult)) []foldResult {
	workers := kc.workers
	jobs := su.k + 1
	if !kc.nuts && kc.bridge == nil {
		su.full = newFullFit()
	}
	res := make([]foldResult, jobs)
	var mu sync.Mutex
	// The fit to all data goes first, as the folds' draws wait for it
	// (fullFit): on one worker it is done before any fold starts.
	parallelJobs(ctx, jobs, workers, func(_, j int) {
		k := (j + su.k) % jobs
		r := su.runFold(ctx, k, kc)
		res[k] = r
		mu.Lock()
		done(k, r)
		mu.Unlock()
	})
	return res
}

// kfoldTotals are the estimates over the observations.
type kfoldTotals struct {
	elpd, se, p, lpd float64
	elpdI, pI, kI    []float64 // per observation
}

// totals gathers the folds' held-out elpd per observation and p_kfold
// against the full fit's lpd.
func (su *kfoldSetup) totals(res []foldResult) kfoldTotals {
	t := kfoldTotals{elpdI: make([]float64, su.n), pI: make([]float64, su.n), kI: make([]float64, su.n)}
	for _, r := range res[:su.k] {
		for j, i := range r.rows {
			t.elpdI[i], t.kI[i] = r.elpd[j], r.kObs[j]
		}
	}
	full := res[su.k]
	for i := range su.n {
		t.pI[i] = full.elpd[i] - t.elpdI[i]
		t.elpd += t.elpdI[i]
		t.lpd += full.elpd[i]
	}
	t.p = t.lpd - t.elpd
	t.se = sgvb.SumSE(t.elpdI)
	return t
}

// kfoldMeta is kfold.json: what was cross-validated, and per fold its fit.
type kfoldMeta struct {
	fitMeta
	Folds int            `json:"folds"`
	Group string         `json:"group,omitempty"`
	Seed  uint64         `json:"seed"`
	Draws int            `json:"draws"`
	ELPD  fitfile.Float  `json:"elpd_kfold"`
	SE    fitfile.Float  `json:"se"`
	P     fitfile.Float  `json:"p_kfold"`
	Fits  []kfoldFitMeta `json:"fits"`
}

// kfoldFitMeta is one fit of kfold.json.
type kfoldFitMeta struct {
	Fold    int `json:"fold"` // 1..K, 0 for the fit to all data
	HeldOut int `json:"held_out"`
	// An SGVB fit's ELBO, k̂ of its draws' weights, convergence and
	// iterations; NUTS's largest R̂ and its divergent transitions. Numbers
	// that are not finite are written as fit.json writes them (fitfile.Float).
	ELBO       *fitfile.Float `json:"elbo,omitempty"`
	ParetoK    *fitfile.Float `json:"pareto_k,omitempty"`
	Converged  *bool          `json:"converged,omitempty"`
	Iterations int            `json:"iterations,omitempty"`
	RHat       *fitfile.Float `json:"rhat,omitempty"`
	Divergent  *int           `json:"divergent,omitempty"`
	ELPD       fitfile.Float  `json:"elpd"` // the fold's held-out elpd; the full fit's lpd
}

// runKfold runs gpp kfold.
func runKfold(ctx context.Context, kc *kfoldConfig, stdout io.Writer, con *console) int {
	cfg := kc.fit
	su, err := prepareKfold(kc, con)
	if err != nil {
		var srcs sources
		if su != nil && su.l != nil {
			srcs = sources(su.l.Sources)
		}
		printError(con, err, srcs)
		return exitError
	}
	srcs := sources(su.l.Sources)
	if !kfoldFactors(cfg, su, con) {
		return exitError
	}
	if err := kfoldClash(cfg, su.l); err != nil {
		con.note("%v", err)
		return exitError
	}
	lock, removeIfEmpty, ok := openOutDir(cfg, con)
	if !ok {
		return exitError
	}
	defer lock.release()
	res, code := crossValidate(ctx, kc, su, con)
	if code != exitOK {
		if code == exitInterrupted {
			con.note("interrupted: no output written")
		} else {
			con.note("no output written")
		}
		removeIfEmpty()
		return code
	}
	t := su.totals(res)
	meta := kfoldMeta{fitMeta: fitMeta{Format: kfoldFormat, Model: cfg.model, ModelHash: fitfile.ModelHash(su.l.Source), Data: append([]string{}, cfg.data...),
		DataSHA256: fitfile.DataHashes(cfg.data, srcs), ObservedSHA256: fitfile.ObservedHashes(su.l.Model.Observed(), su.l.Data),
		CovariateSHA256: fitfile.CovariateHashes(su.l.Model.Observed(), su.l.Data), Sets: cfg.sets, Method: kfoldMethod(kc), Files: []string{kfoldFile, kfoldMetaFile}},
		Folds: su.k, Group: kc.group, Seed: cfg.settings.Seed, Draws: cfg.outputDraws,
		ELPD: fitfile.Float(t.elpd), SE: fitfile.Float(t.se), P: fitfile.Float(t.p)}
	for k, r := range res {
		fm := kfoldFitMeta{Fold: k + 1, HeldOut: len(r.rows)}
		if kc.nuts {
			rhat, div := fitfile.Float(r.rhat), r.divergent
			fm.RHat, fm.Divergent = &rhat, &div
		} else {
			elbo, kHat, conv := fitfile.Float(r.elbo), fitfile.Float(r.k), r.converged
			fm.ELBO, fm.ParetoK, fm.Converged, fm.Iterations = &elbo, &kHat, &conv, r.iterations
		}
		if k == su.k {
			fm.Fold, fm.HeldOut = 0, 0
		}
		fm.ELPD = fitfile.Float(r.total())
		meta.Fits = append(meta.Fits, fm)
	}
	files := []outputFile{
		{kfoldFile, func(w io.Writer) error { return writeKfoldCSV(w, su, t) }},
		{kfoldMetaFile, func(w io.Writer) error {
			b, err := json.MarshalIndent(meta, "", "  ")
			if err != nil {
				return err
			}
			_, err = w.Write(append(b, '\n'))
			return err
		}},
	}
	written, err := commitFiles(cfg, files, func(names []string) []string { return staleInDir(cfg.out, names) })
	if err != nil {
		con.note("%v", err)
		removeIfEmpty()
		return exitError
	}
	lock.release()
	printKfold(stdout, su, kc.nuts, res, t, cfg.out, written)
	for _, w := range kfoldWarnings(su, res, t, cfg.outputDraws, kfoldWarnMethod(kc), closerFlag(cfg.settings, su.l.Model)) {
		con.note("warning: %s", w)
	}
	for _, w := range kfoldFitWarnings(su, res, kc.nuts) {
		con.note("warning: %s", w)
	}
	return exitOK
}

// kfoldFactors chooses the fits' factors for --fullrank on the model with
// all data: every fold's model has its params (setupKfold), so the choice
// serves every fit. It prints the notes, or the error and false.
func kfoldFactors(cfg *fitConfig, su *kfoldSetup, con *console) bool {
	notes, err := checkFullRank(&cfg.settings, su.l.Model)
	if err != nil {
		printError(con, err, sources(su.l.Sources))
		return false
	}
	for _, n := range notes {
		con.note("note: %s", n)
	}
	return true
}

// describeEachFit says what each fit of kfold's folds or sbc's simulations
// is: SGVB's factors, or the one joint normal of a Laplace or Pathfinder
// fit.
func describeEachFit(s sgvb.Settings, l *pipeline.Loaded) string {
	switch s.Method {
	case sgvb.Laplace:
		return "a Laplace approximation (one joint normal at the mode)"
	case sgvb.Pathfinder:
		return "one Pathfinder path (the best of the normals along its L-BFGS path)"
	}
	return "a fit of " + describeFactors(s, l)
}

// crossValidate runs the folds' fits and the fit to all data, printing
// what it starts and, when a fit fails, why; the exit code says whether
// they all succeeded (exitOK), one failed (exitError) or the run was
// interrupted (exitInterrupted, not printed).
func crossValidate(ctx context.Context, kc *kfoldConfig, su *kfoldSetup, con *console) ([]foldResult, int) {
	split := "random"
	if kc.group != "" {
		split = "grouped by " + kc.group
	}
	each := describeEachFit(kc.fit.settings, su.l)
	if kc.nuts {
		each = fmt.Sprintf("sampled by NUTS, %d chain%s of %d warm-up + %d iterations", kc.ns.Chains, plural(kc.ns.Chains), kc.ns.Warmup, kc.ns.Draws)
	}
	workers := min(kc.workers, su.k+1)
	con.info("K-fold of %s: %d folds of %d observations (%s rows, %s), each fold %s; seed %d, %d worker%s",
		su.l.Path, su.k, su.n, su.size, split, each, kc.fit.settings.Seed, workers, plural(workers))
	// A failed fit writes nothing, so it stops the others (their error
	// context.Canceled, which is not reported).
	fitCtx, stopFits := context.WithCancel(ctx)
	defer stopFits()
	res := su.runFits(fitCtx, kc, func(k int, r foldResult) {
		switch {
		case r.err != nil:
			stopFits()
		case !kc.fit.verbose:
		case kc.nuts && k == su.k:
			con.info("all data: %d divergent, R̂ %s", r.divergent, numText(r.rhat, "%.3f"))
		case kc.nuts:
			con.info("fold %d: %d held out, %d divergent, R̂ %s", k+1, len(r.rows), r.divergent, numText(r.rhat, "%.3f"))
		case k == su.k:
			con.info("fit to all data: ELBO %.6g, k̂ %s", r.elbo, num3(r.k))
		default:
			con.info("fold %d: %d held out, ELBO %.6g, k̂ %s", k+1, len(r.rows), r.elbo, num3(r.k))
		}
	})
	if ctx.Err() != nil {
		return nil, exitInterrupted
	}
	for k, r := range res {
		if r.err != nil && !errors.Is(r.err, context.Canceled) {
			what := fmt.Sprintf("fold %d's fit", k+1)
			if k == su.k {
				what = "the fit to all data"
			}
			if r.where != "" {
				con.note("%s:", r.where)
			} else {
				con.note("%s failed:", what)
			}
			printError(con, r.err, sources(su.l.Sources))
			return nil, exitError
		}
	}
	if fitCtx.Err() != nil { // stopped by a failure reported above
		return nil, exitError
	}
	return res, exitOK
}

// kfoldFitWarnings are the fits' own warnings, one line per kind, naming
// the fits: SGVB's that did not converge, NUTS's divergences and R̂ above
// 1.01 (the same across folds, as a mixture's label switching makes it,
// they would otherwise repeat K + 1 times), and draws whose training log
// density or held-out log_lik was not a number, with the first's
// positioned error.
func kfoldFitWarnings(su *kfoldSetup, res []foldResult, byNUTS bool) []string {
	// Each kind's text is given the count summed over its fits (n), their
	// largest R̂ and the first fit's error (first, "" for none).
	type kind struct {
		bad   func(r foldResult) bool
		n     func(r foldResult) int
		first func(r foldResult) error // nil: the kind has none
		text  func(count int, worstRhat float64, first string) string
	}
	kinds := []kind{
		{func(r foldResult) bool { return !byNUTS && !r.converged }, func(foldResult) int { return 0 }, nil,
			func(int, float64, string) string { return "not converged in --iter iterations" }},
		{func(r foldResult) bool { return r.divergent > 0 }, func(r foldResult) int { return r.divergent }, nil,
			func(n int, _ float64, _ string) string {
				return fmt.Sprintf("divergent transitions (%d): the draws may miss part of the posterior (raise --adapt-delta, or reparameterise)", n)
			}},
		{func(r foldResult) bool { return byNUTS && !(r.rhat <= 1.01) }, func(foldResult) int { return 0 }, nil,
			func(_ int, worst float64, _ string) string {
				return fmt.Sprintf("R̂ above 1.01 (up to %s): the chains disagree (a mixture's label switching, or too short chains: raise --warmup or --output-draws)", numText(worst, "%.3f"))
			}},
		{func(r foldResult) bool { return r.draws > 0 && r.zeroW == r.draws }, func(r foldResult) int { return r.zeroW },
			func(r foldResult) error { return r.trainErr },
			func(n int, _ float64, first string) string {
				return fmt.Sprintf("the training rows' log density was not finite at every draw (%d in all), so no draw has weight and the held-out elpd is not a number%s", n, first)
			}},
		{func(r foldResult) bool { return r.nanLL > 0 }, func(r foldResult) int { return r.nanLL },
			func(r foldResult) error { return r.llErr },
			func(n int, _ float64, first string) string {
				return fmt.Sprintf("%s was not a number at %d draws of a held-out row, each counted as density 0 (a −∞ term in its elpd, as gpp fit's LOO counts them: right where the row is outside the support at that draw, which a −∞ says without this warning)%s", looOutput, n, first)
			}},
	}
	var out []string
	for _, kd := range kinds {
		var who []string
		worst, count, first := 0.0, 0, ""
		for k, r := range res {
			if !kd.bad(r) {
				continue
			}
			who = append(who, fmt.Sprint(k+1))
			if k == su.k {
				who[len(who)-1] = "the fit to all data"
			}
			worst, count = max(worst, r.rhat), count+kd.n(r)
			if kd.first != nil && first == "" {
				if e := kd.first(r); e != nil {
					first = "; the first: " + e.Error()
				}
			}
		}
		if len(who) == 0 {
			continue
		}
		what := "folds " + strings.Join(who, ", ")
		switch {
		case len(who) == 1 && who[0] == "the fit to all data":
			what = who[0]
		case len(who) == 1:
			what = "fold " + who[0]
		}
		out = append(out, what+": "+kd.text(count, worst, first))
	}
	return out
}

// kfoldWarnings says which fits' draws do not estimate the held-out
// densities reliably: folds whose q misses their posterior (the k̂ of the
// weights p/q above 0.7), where every held-out estimate inherits the
// weights' tail, and apart from those, observations whose estimate rests
// on a few draws (the k̂ of its terms), which more draws settle. closer
// is the fit that may help (closerFlag: past sgvb.MaxFullRank elements
// --fullrank all leaves some apart), "" none.
func kfoldWarnings(su *kfoldSetup, res []foldResult, t kfoldTotals, draws int, method, closer string) []string {
	var out []string
	byNUTS := method == "nuts"
	hint := closer + " may help"
	switch {
	case method == "laplace" || method == "pathfinder": // q is one joint normal already
		hint = "the default SGVB fit, or --nuts, may do better"
	case method == kfoldLowRankAll:
		hint = "a larger --rank, or --nuts, may do better"
	case method == kfoldFullRankAll && closer == "": // no run joins more (closerFlag)
		hint = "q is a joint normal already; --nuts may do better"
	case closer == "":
		hint = "--nuts may do better"
	}
	var folds, ks []string
	// NUTS's draws are not weighted; a fit's k̂ that is not a number (too
	// few finite weights) is as bad as a large one.
	badQ := func(r foldResult) bool { return !byNUTS && !(r.k <= 0.7) }
	for k, r := range res[:su.k] {
		if badQ(r) {
			folds, ks = append(folds, fmt.Sprint(k+1)), append(ks, num3(r.k))
		}
	}
	if len(folds) > 0 {
		out = append(out, fmt.Sprintf("fold%s %s: the Pareto k̂ of the draws' weights p/q is above 0.7 (%s): q misses those folds' posteriors, so their held-out elpd is unreliable (%s)",
			plural(len(folds)), strings.Join(folds, ", "), strings.Join(ks, ", "), hint))
	}
	if full := res[su.k]; badQ(full) {
		out = append(out, fmt.Sprintf("the fit to all data: the Pareto k̂ of the draws' weights p/q is %s, above 0.7: its lpd, and so p_kfold, is unreliable", num3(full.k)))
	}
	// kfold.csv's pareto_k above 0.7, all (as gpp compare counts them),
	// and apart from the folds above, whose terms inherit the weights'
	// tail, of n outside them.
	all, bad, n := 0, 0, 0
	for i, k := range t.kI {
		inBad := badQ(res[su.fold[i]])
		if !inBad {
			n++
		}
		if !(k <= 0.7) {
			all++
			if !inBad {
				bad++
			}
		}
	}
	few := "rests on a few draws (the k̂ of its terms is above 0.7: an observation the other folds' posterior hardly predicts, such as an outlier)"
	switch {
	case bad == 0 && all > 0:
		out = append(out, fmt.Sprintf("kfold.csv's pareto_k, the k̂ of a held-out estimate's terms, is above 0.7 for %d of %d observations, as gpp compare counts them, all in the folds above", all, su.n))
	case all > bad:
		out = append(out, fmt.Sprintf("kfold.csv's pareto_k, the k̂ of a held-out estimate's terms, is above 0.7 for %d of %d observations, as gpp compare counts them: %d in the folds above, and %d of the %d in the others, whose held-out elpd %s: their elpd_kfold may be unreliable; --output-draws %d or more may settle those %d",
			all, su.n, all-bad, bad, n, few, 10*draws, bad))
	case bad > 0:
		out = append(out, fmt.Sprintf("the held-out elpd of %d of %d observations %s: its elpd_kfold may be unreliable; --output-draws %d or more may settle it", bad, su.n, few, 10*draws))
	}
	return out
}

// kfoldMethod names how each fold was fitted, for kfold.json: gpp fit's
// --family, or nuts.
func kfoldMethod(kc *kfoldConfig) string {
	if kc.nuts {
		return "nuts"
	}
	return kc.fit.family
}

// The methods kfoldWarnMethod adds to kfoldMethod's: SGVB with
// --fullrank all, full rank or with --rank.
const (
	kfoldFullRankAll = "fullrank all"
	kfoldLowRankAll  = "fullrank all --rank"
)

// kfoldWarnMethod is kfoldMethod for kfoldWarnings, which advises
// --fullrank all only to a run that does not have it.
func kfoldWarnMethod(kc *kfoldConfig) string {
	m := kfoldMethod(kc)
	if kc.nuts || strings.TrimSpace(kc.fit.fullRank) != "all" {
		return m
	}
	if kc.fit.rank > 0 {
		return kfoldLowRankAll
	}
	return kfoldFullRankAll
}

// kfoldClash reports a model or data file that kfold.csv or kfold.json
// would overwrite, or the commit remove as an earlier run's (gpp fit's
// check, noOutputClash, is of fit's files).
func kfoldClash(cfg *fitConfig, l *pipeline.Loaded) error {
	return overwriteClash(cfg.out, []string{kfoldFile, kfoldMetaFile}, modelAndData(cfg, l.Path))
}

// writeKfoldCSV writes kfold.csv: the totals on a comment line, then per
// observation (log_lik's element) its elpd_kfold, p_kfold, the k̂ of its
// estimate and fold (1-based).
func writeKfoldCSV(w io.Writer, su *kfoldSetup, t kfoldTotals) error {
	fmt.Fprintf(w, "# elpd_kfold = %s, se = %s, p_kfold = %s, folds = %d, observations = %d\n", formatNum(t.elpd), formatNum(t.se), formatNum(t.p), su.k, su.n)
	cw := csv.NewWriter(w)
	cw.Write([]string{"name", "elpd_kfold", "p_kfold", "pareto_k", "fold"})
	for i := range su.n {
		cw.Write([]string{compile.ElemName(looOutput, []int{su.n}, i), formatExact(t.elpdI[i]), formatExact(t.pI[i]), formatNum(t.kI[i]), fmt.Sprint(su.fold[i] + 1)})
	}
	cw.Flush()
	return cw.Error()
}

// printKfold prints the folds and the estimate, and the files written to
// out (none for "": the REPL's :kfold).
func printKfold(w io.Writer, su *kfoldSetup, byNUTS bool, res []foldResult, t kfoldTotals, out string, written []string) {
	tb := &table{right: []bool{true, true, true, true, true, true}}
	if byNUTS {
		tb.row("fold", "held out", "divergent", "R̂", "elpd")
	} else {
		tb.row("fold", "held out", "ELBO", "k̂", "converged", "elpd")
	}
	for k, r := range res[:su.k] {
		e := r.total()
		if byNUTS {
			tb.row(fmt.Sprint(k+1), fmt.Sprint(len(r.rows)), fmt.Sprint(r.divergent), numText(r.rhat, "%.3f"), num1(e))
			continue
		}
		tb.row(fmt.Sprint(k+1), fmt.Sprint(len(r.rows)), fmt.Sprintf("%.6g", r.elbo), num3(r.k), yesNo(r.converged), num1(e))
	}
	tb.print(w)
	fmt.Fprintf(w, "\nK-fold       elpd_kfold %.6g ± %.3g, p_kfold %.3g (lpd %.6g of the fit to all data)\n", t.elpd, t.se, t.p, t.lpd)
	if out != "" {
		fmt.Fprintf(w, "written      %s: %s\n", out, strings.Join(written, " "))
	}
}

// yesNo formats a flag for a table.
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
