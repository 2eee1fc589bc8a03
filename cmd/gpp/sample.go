package main

// gpp sample: the posterior by NUTS (infer/nuts, Stan's default sampler),
// to check a fit's q against MCMC as Stan's and PyMC's users do. It takes
// fit's inputs (a model, its data, --set) and writes through fit's output
// directory machinery (the lock, the atomic commit, the removal of an
// earlier run's files) summary.csv and draws.csv, their layouts fit's with
// MCMC's columns added. The sampler moves on the unconstrained coordinates
// of sgvb.NewUnconstrained; the draws are written as the model's values.

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpplang/gpp/infer/bridge"
	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/compile"
)

const sampleSynopsis = "sample model.gpp [data.csv|data.tsv|data.json|data.R] [NAME=file.csv ...] [flags]"

// defaultSampleOut is --out's default for gpp sample, apart from a fit's so
// that sampling does not replace the fit's files it is to be checked against.
const defaultSampleOut = "gpp-sample"

// initStream seeds chain c's random start (stream initStream + c), as
// the model package's Sample does.
const initStream = sgvb.InitStream

// sampleConfig is a parsed gpp sample command line: fit's inputs and
// output settings (cfg) and the sampler's.
type sampleConfig struct {
	cfg    *fitConfig
	nuts   nuts.Settings
	metric string
	init   string   // --init FIT or FILE.json: a fit's q, or the params' values
	start  *initFit // the fit read for --init (or the REPL's last fit)
	// values are the params' values of --init FILE.json, where every
	// chain starts (nil: not given); with a file per chain, chain 1's.
	values *initValues
	// chainValues are the params' values of each chain, from --init's
	// file per chain (chainFiles); nil for one file or none.
	chainValues []*initValues
	// metricFile is --metric-file: CmdStan's metric file (or one per
	// chain), read into nuts.InvMetric once the dimension is known.
	metricFile string
	// saveMetric is --save-metric: each chain's step size and inverse
	// metric written as CmdStan's metric file, metric_C.json.
	saveMetric bool
	// radius is --init-radius R: the random starts' coordinates are
	// uniform on (−R, R); nil: sgvb.InitRadius, Stan's 2.
	radius *float64
	// evNotes are the model's caveats of --evidence (evidenceCaveats).
	evNotes ast.ErrorList
	// evMethod is --evidence-method: bridge sampling's proposal.
	evMethod bridge.Method
	// afterIter is called after each iteration of each chain, as
	// nuts.Settings.Progress (tests).
	afterIter func(chain, iter int)
	// fixedParam is --fixed-param: Stan's fixed_param sampler
	// (fixedparam.go), which a model with no params runs anyway.
	fixedParam bool
	set        map[string]bool // the flags the command line set
}

// randomStart writes chain c's start into u when it is not a fit's draw:
// the values of --init FILE.json where given, the other coordinates
// uniform on (−R, R) for --init-radius R from the chain's stream, drawn
// again while the log density is not finite (sgvb's InitAt); with R = 2
// and no values, today's and Stan's starts bit for bit.
func (sc *sampleConfig) randomStart(d *sgvb.Unconstrained, c int, u []float64) error {
	var s *pipeline.Start
	if v := sc.valuesOf(c); v != nil {
		s = v.Start
	}
	return s.StartAt(d, rand.New(rand.NewPCG(sc.nuts.Seed, initStream+uint64(c))), sc.initRadius(), u)
}

// noStartHint is the hint after random starts that all failed where a
// fit's default start does not: a fit starts there (each param at its
// prior mean), and --init FIT starts the chains from draws of its q, near
// the posterior (a Gompertz–Makeham model's exp overflows at 100 random
// starts, and from a fit samples in 1.3 s). A smaller --init-radius is
// named only when zero, the centre of the random starts, is finite
// (zeroOK), so that smaller starts can help.
func noStartHint(model string, files []string, radius float64, zeroOK bool) string {
	args := cmdArgs(model, files)
	hint := "hint: a fit begins at its default start " + defaultStartRule + ", where this log density is finite: " +
		"gpp fit " + args + " --out FIT, then gpp sample " + args + " --init FIT starts chain c from draw c of the fit's q, near the posterior (docs/inference.md, Chains started from a fit)"
	if zeroOK {
		hint += fmt.Sprintf("; or a smaller --init-radius than %v draws the random starts nearer 0, where it is finite too (every unconstrained coordinate 0, --init-radius 0)", radius)
	}
	return hint
}

// finiteAtZero reports whether d's log density and gradient are finite
// with every unconstrained coordinate 0.
func finiteAtZero(d *sgvb.Unconstrained) bool {
	u := make([]float64, d.Dim())
	grad := make([]float64, len(u))
	lp, err := d.Density(u, grad, true)
	if err != nil || math.IsNaN(lp) || math.IsInf(lp, 0) {
		return false
	}
	for _, g := range grad {
		if math.IsNaN(g) || math.IsInf(g, 0) {
			return false
		}
	}
	return true
}

// initRadius returns --init-radius, Stan's 2 by default.
func (sc *sampleConfig) initRadius() float64 {
	if sc.radius == nil {
		return sgvb.InitRadius
	}
	return *sc.radius
}

// Thresholds of Stan's warnings after sampling (CmdStan's diagnose,
// Vehtari et al. 2021).
const (
	ebfmiWarn     = 0.3 // a chain's E-BFMI below it
	essPerChain   = 100 // bulk or tail ESS below this many per chain
	shortWarmup   = 150 // fewer warm-up iterations than Stan's three adaptation windows
	worstNamed    = 5   // elements named in a warning
	stuckMinDraws = 20  // draws a chain needs before stuckChains judges it
	progressSteps = 10  // progress lines without a terminal
	maxTreeDepth  = 30  // the largest --max-depth, nuts.Settings' limit
)

const sampleHelpText = `Samples the posterior of the model by the No-U-Turn sampler (NUTS), Stan's
default: --chains independent chains, each --warmup iterations of adaptation
(step size and --metric) and then --draws kept iterations, every --thin-th
written. Use it to check a fit's q against MCMC (gpp fit's summary against
this one's). The sampler moves on unconstrained coordinates, as Stan's does:
the logs of positive params, the logits of bounded ones, the stick-breaking
coordinates of a simplex, and the log density includes the Jacobian of that
map (docs/inference.md, "gpp sample").

It writes to --out (default gpp-sample), each file atomically, under fit's
lock: summary.csv (fit's columns, q5, q50 and q95 or those of
--percentiles P,P,..., with --hdi P the highest-density
interval's two after q95, named as ArviZ's: hdi_3% and hdi_97% for 0.94;
then mcse_mean, ess_bulk, ess_tail and rhat of every param and output
element: rank-normalised split R̂ and ESS as Stan ≥ 2.30 and the
posterior package report them; then mcse_sd, mcse_q5, mcse_q50, mcse_q95
and mad, the posterior package's Monte Carlo errors of the sd and the
quantiles and the median absolute deviation × 1.4826; the printed table
shows mcse_mean only, and the HDI's columns with --hdi) and draws.csv (CmdStan's
sample layout: comment lines with the settings, the model's sha256 and each
data file's ("#   file_sha256 = ...", in the order the data are given, as
fit.json's data_sha256) and of each observed datum's values
("#   observed_sha256 y = ...", as fit.json's observed_sha256: gpp
compare tells the same observations by them), the
columns chain__, draw__,
lp__, accept_stat__, stepsize__, treedepth__, n_leapfrog__, divergent__ and
energy__, then the params and outputs as gpp fit names them; each chain's
adapted step size and inverse metric as comment lines after the header) and
coords.csv (each draw's coordinates to full precision: gpp predict evaluates
outputs at them, as Stan's standalone generated quantities); with --profile,
gpp fit's profile.csv, timed at each chain's last draw; with --plots,
trace.png (the first 4 param elements' draws, chain by chain), rank.png
(their rank histograms, chain by chain, as ArviZ's plot_rank: each chain's
ranks among all draws, uniform where the chains mix), pairs.png (the
scatter of every pair of those elements, with the elements whose divergent
draws differ most from the rest in place of the last, the divergent
transitions in red on top, positive params as their log, at most 4000
draws evenly thinned, every divergent one kept), intervals.png (gpp fit's
forest plot of the pooled draws; with --against, q's intervals beside
NUTS's in each row, q's orange, so that a q too narrow shows), energy.png
(ArviZ's plot_energy: the densities of the energy__ about its chain's mean
and of its changes between draws, each chain's E-BFMI in the legend; energy
transitions much narrower than the marginal energy mean a low E-BFMI) and
gpp fit's predictive checks ppc_y.png and ppc_stat_y.png, with the LOO-PIT
check loo_pit_y.png where log_lik has a term per element of y. An
output that draws (output y_rep ~ D(args)) is drawn at every draw from a
stream of --seed. lp__ is the log density of the unconstrained coordinates,
Jacobian included, with the model's constants.

--against FIT compares a gpp fit's q (FIT: its output directory, or its
summary.csv or fit.json; a fit of this model: its params by name, type and
shape, as gpp predict checks them) with the draws, element by element: q's
mean and sd (from the fit's summary), NUTS's mean, sd and mcse, z = (q mean −
mean) / sd and the sd ratio q sd / sd, with a reading: "q too narrow" (or
"too wide") when the ratio is off 1 by more than 0.1 and by more than 3
Monte Carlo standard errors (of NUTS's sd, its mcse_sd, and of the fit's,
from its output draws, fewer when --psis-resample resampled them; both
widened by the draws' kurtosis, the larger of the two sides'),
"q shifted above" (or "below") when |z| is above 0.1 and 3 standard errors
(NUTS's mcse, q's sd/√draws), "agrees" when both are within 0.1. Where
a difference beyond 0.1 is not read so (a few far draws of q make the
moments' errors swallow it), the draws' quantiles read it: "q shifted
above (its median, z ...)" by the medians, "q too narrow (its 5%–95%
interval ... of NUTS's)" (or "too wide") by those intervals, each with its
distribution-free error of order statistics, and "q too wide (draws far
in its tail: its sd at least ... of NUTS's ...)" by Chebyshev's bound on
q's sd from its farthest draws, which holds whatever its tails; the
reading is "within Monte Carlo error" when none of these tells. An
element whose draws are all 0 or
1 (an indicator) is read by its mean alone ("0/1, by the mean alone: ..."),
its sd being a function of its mean. A
summary line counts the elements within 0.1 sd, gives the median sd ratio
(of elements whose NUTS sd is at least 1e-4 of their variable's largest;
then each variable's, where there are several and not all scalars) and
names the worst, the params' apart from the outputs'; an element whose
chains disagree (R̂ above 1.05) is not compared, one above 1.01 is, as a
rough reference; against.csv holds the table.

--init FIT starts chain c from draw c of a gpp fit's q (FIT as for
--against, a fit of this model, checked as --against checks it; draw c of
its draws.csv, after the row of q's mean), mapped to the unconstrained
coordinates, instead of Stan's uniform(−2, 2) starts. As Stan's users start
NUTS from ADVI or Pathfinder, a start in the posterior's bulk shortens the
way warm-up must go, most where the posterior is far from 0 (data in the
hundreds); warm-up still adapts the step size and the metric. From a fit
of --restarts R (a mixture), draw c, and so chain c's start, is of restart
(c − 1) mod R, as the fit's draws.csv says (restart__): the chains start in
the restarts' modes in turn, to see whether they leave them and agree.

--init a.json,b.json,... gives each chain a file of values of its own
(CmdStanPy's inits list: one file, or --chains), and --init init.json with
--chains C reads init_1.json ... init_C.json beside it when they all exist
(CmdStan's convention).

CmdStan's sampler options: --stepsize S starts warm-up's step-size search
at S; --metric-file FILE.json starts from CmdStan's metric file's inverse
metric ({"inv_metric": [...]}: a vector for --metric diag, a matrix for
dense); --save-metric writes each chain's adapted step size and inverse
metric as that file (metric_1.json, ... in --out); --adapt=false runs the
--warmup iterations at --stepsize and that metric without adapting them, so
that a run from a saved metric is --metric-file FILE --stepsize S
--adapt=false; --save-warmup writes the warm-up iterations (every --thin-th)
in draws.csv before each chain's draws, draw__ from -N to -1 and
"save_warmup = 1" in the comments, which the summary, R̂, ESS, plots and
gpp's readers of draws.csv leave out (docs/inference.md, "Warm-up, step
size and metric files").

After the summary come Stan's warnings: divergent transitions after
warm-up (then a hint for each param of a centred hierarchy, a real param
with a prior Normal(loc, scale) whose scale depends on params, declared
or a ~ statement (theta ~ Normal(mu, tau), also in a loop over its
elements): its
non-centred form and, where the scale is a param or an element of one, the
scale's median at the divergent iterations against its median in all draws,
with the first's percentile among them; docs/inference.md, Centred
hierarchies),
iterations at the maximum tree depth, chains with E-BFMI below 0.3,
elements with R̂ above 1.01 or a bulk or tail ESS below 100 per chain (the
worst named), and a warm-up shorter than 150 iterations; and, beyond Stan's,
a chain whose lp__ never reaches the other chains' (stuck where its start
left it: --init FIT starts the chains from a fit instead), and in the R̂
warning label switching: chains that found a vector param's values (a
mixture's components) in different orders, which longer chains do not
mend; an ordered[K] param identifies the components; or else chains that
each mix within themselves but sit in different modes of a param (each
mode's chains, mean and mean lp__, and which mode likely carries more
mass). Points where the log density failed (a domain error, a NaN
gradient) end their trajectories, as in Stan: while sampling, a warning
with their count, as the draws miss that region (a note where only a
param's own transform overflowed, far out); in warm-up past Stan's
initial buffer, a note.

--fixed-param runs Stan's fixed_param sampler instead of NUTS, to simulate
data from known params: every chain keeps the params where it starts
(--init FILE.json, which must then give every param, as CmdStan's
init=true_params.json; --init FIT, chain c at draw c of its q; or the
random start above) and at each of --draws iterations draws the outputs
afresh (output y ~ D(args) a new draw from --seed's stream), so that
draws.csv holds --chains × --draws simulated data sets; fit one back with
gpp fit or gpp sample to check that the params are recovered. A model with
no params (outputs alone) runs it without the flag, as CmdStan does. No
warm-up runs (--warmup is not used, with a note). draws.csv has CmdStan's
fixed_param layout: chain__, draw__, lp__ and accept_stat__ (both 0, as
CmdStan writes them), then the params and the outputs, with "algorithm =
fixed_param"; summary.csv the outputs' R̂ and ESS as above (NaN for a param
the sampler holds, where frozen NUTS chains get R̂ inf); coords.csv the
fixed points, so that gpp predict simulates from them on new data (a model
with no params needs no predict: gpp sample on the new data). The flags of
NUTS (--metric, --max-depth, --adapt-delta), of its posterior (--against,
--evidence, --moment-match, --reloo) and --plots are refused with it.

Results do not depend on --workers: chain c's numbers come from --seed and
c alone. Missing data are sampled as the params NAME_missing, as gpp fit
fits them. The flags that steer SGVB (--iter, --family, --fullrank, ...)
are refused.

Ctrl-C (SIGINT) or SIGTERM stops the chains and writes the draws kept so far
(the first N of each chain, N the shortest chain's), marked interrupted
(exit 130), or nothing when a chain has fewer than 2 or the model and its
data are still loading; after the chains, it writes all their draws,
marked interrupted (exit 130), and stops --moment-match or --reloo, whose
observations left keep their PSIS estimates in loo.csv; as the files are
written, it leaves them complete, not marked interrupted (exit 130). A
second one exits at
once without writing. Exit 0: sampled (warnings do not change it); 1: an
error in the model or the data, no finite start, or a flag that names what
the model lacks (--draws-params nosuch); 2: a bad command line (an unknown
flag, a malformed value).
`

// sampleFlagRefusal is the refusal of a flag of gpp fit that gpp sample lacks.
func sampleFlagRefusal(name string) string {
	switch name {
	case "iter":
		return "--iter is gpp fit's SGVB iteration limit: gpp sample takes --warmup and --draws (iterations per chain)"
	case "output-draws":
		return "--output-draws is gpp fit's: gpp sample writes --chains × --draws / --thin draws"
	case "prior":
		return "--prior is gpp fit's prior predictive check (gpp fit --prior): gpp sample samples the posterior"
	}
	return fmt.Sprintf("--%s steers gpp fit's SGVB: not with gpp sample (NUTS takes --chains, --warmup, --draws, --thin, --max-depth, --adapt-delta, --metric)", name)
}

// parseSampleArgs parses gpp sample's command line; it returns the exit
// code to use when the command must stop (help or a usage error).
func parseSampleArgs(args []string, stdout, stderr io.Writer) (*sampleConfig, int, bool) {
	fs := newFlagSet("sample", sampleSynopsis, sampleHelpText, stderr)
	cfg := &fitConfig{sets: setFlags{}, levels: levelFlags{}}
	sc := &sampleConfig{cfg: cfg}
	s := &sc.nuts
	fs.IntVar(&s.Chains, "chains", 4, "independent chains")
	fs.IntVar(&s.Warmup, "warmup", 1000, "warm-up iterations per chain, adapting the step size and the metric (not\nwritten but with --save-warmup); 0: none, the --stepsize and the --metric-file\n(or unit) metric as they are")
	fs.IntVar(&s.Draws, "draws", 1000, "iterations per chain after warm-up")
	fs.IntVar(&s.Thin, "thin", 1, "keep every `N`-th iteration after warm-up")
	fs.Uint64Var(&s.Seed, "seed", 1, "seed of every random stream: the same seed gives the same draws")
	fs.IntVar(&s.MaxDepth, "max-depth", 10, "maximum tree depth: at most 2^depth leapfrog steps an iteration")
	fs.Float64Var(&s.Delta, "adapt-delta", 0.8, "target acceptance statistic of the step-size adaptation, in (0, 1): higher\ngives smaller steps and fewer divergences")
	fs.Float64Var(&s.StepSize, "stepsize", 1, "the initial step size, which warm-up adapts (CmdStan's stepsize); with --warmup\n0 or --adapt=false, the step size of every iteration")
	adapt := fs.Bool("adapt", true, "adapt the step size and the metric during warm-up (CmdStan's adapt engaged);\n--adapt=false runs the --warmup iterations with --stepsize and the --metric-file\nmetric (or the unit one) as they are")
	fs.StringVar(&sc.metricFile, "metric-file", "", "the initial inverse metric: CmdStan's metric `FILE.json`, {\"inv_metric\": ...}, a\nvector (--metric diag) or a matrix (dense) of the model's unconstrained\ncoordinates, as --save-metric writes it; a comma-separated list gives one per\nchain, and for FILE.json with --chains C, FILE_1.json ... FILE_C.json are read\nwhen they all exist (CmdStan's convention)")
	fs.BoolVar(&sc.saveMetric, "save-metric", false, "also write each chain's adapted step size and inverse metric as CmdStan's\nmetric file (save_metric=1): metric_1.json, ... in --out, which --metric-file\nreads (default false)")
	fs.BoolVar(&s.SaveWarmup, "save-warmup", false, "also write the warm-up iterations (every --thin-th) in draws.csv, before each\nchain's draws, with draw__ from -N to -1 (CmdStan's save_warmup=1); the\nsummary, R̂, ESS, plots and every reader of draws.csv use the kept draws only\n(default false)")
	fs.StringVar(&sc.metric, "metric", "diag", "the inverse metric warm-up adapts: diag (Stan's diag_e), dense (dense_e) or\nunit (unit_e, not adapted)")
	fs.IntVar(&s.Workers, "workers", 0, "goroutines running the chains, then the columns' diagnostics; 0: the number of\nCPUs, at most --chains (results do not depend on it)")
	fs.StringVar(&cfg.out, "out", defaultSampleOut, "output `directory` (created if needed)")
	fs.BoolVar(&cfg.profile, "profile", false, profileUsage)
	fs.BoolVar(&cfg.quiet, "quiet", false, "no progress on stderr; warnings and errors are still printed (default false)")
	fs.BoolVar(&cfg.verbose, "verbose", false, "a progress line for every tenth of each chain, and the full summary table\n(default false)")
	fs.Var(cfg.sets, "set", "set a constant or scalar data, as `NAME=VALUE` (repeatable)")
	fs.Var(cfg.levels, "levels", levelsUsage)
	fs.Var(plotParamsFlag{&cfg.plotParams}, "plot-params", plotParamsUsage)
	fs.Var(plotParamsFlag{&cfg.drawsParams}, "draws-params", drawsParamsUsage)
	fs.BoolVar(&cfg.plots, "plots", false, "also write trace.png (the traces of the first 4 param elements, chain by chain),\nrank.png (their rank histograms, chain by chain), pairs.png (their pairs plot,\ndivergent transitions in red), intervals.png (the params' and outputs'\nintervals, as gpp fit's; --plot-params chooses; with --against, q's beside\nNUTS's), energy.png (the marginal energy and the energy transitions, with each\nchain's E-BFMI) and gpp fit's predictive checks ppc_y.png and ppc_stat_y.png of\nevery data y that a replicate output mirrors, and its LOO-PIT check\nloo_pit_y.png where log_lik has a term per element of y (default false)")
	fs.StringVar(&sc.init, "init", "", "start chain c from draw c of the q of a gpp fit of this model: its output `FIT`\ndirectory or its fit.json; of a fit of --restarts R, from restart (c-1) mod R.\nOr a .json file of the params' values, CmdStan's init file (names to numbers,\narrays, arrays of rows for matrices, as write_stan_json writes): every chain\nstarts there, the params it does not name drawn as without --init (default:\neach unconstrained coordinate uniform on (-R, R), --init-radius, as Stan). A\ncomma-separated list of --chains .json files gives each chain its own (as\nCmdStanPy's inits list), and for FILE.json with --chains C, FILE_1.json ...\nFILE_C.json are read when they all exist (CmdStan's convention)")
	radius := fs.Float64("init-radius", sgvb.InitRadius, "`R` of the random starts: each unconstrained coordinate uniform on (-R, R),\nCmdStan's init=R; 0 starts every coordinate at 0. Not used (a note says so)\nwith --init FIT or a .json file of every param's value")
	fs.BoolVar(&cfg.momentMatch, "moment-match", false, "where an observation's PSIS-LOO k̂ is above min(1 - 1/log10 S, 0.7) for S draws\n(loo's threshold), move the draws toward its leave-one-out posterior and weight\nthem again (the loo package's loo_moment_match); needs an output log_lik (default false)")
	fs.BoolVar(&cfg.reloo, "reloo", false, relooFlag)
	fs.BoolVar(&cfg.evidence, "evidence", false, "estimate the log evidence log p(y), the marginal likelihood of Bayes factors,\nby bridge sampling (R's bridgesampling, method normal; --evidence-method): the\nfirst half of each chain fits a normal proposal on the unconstrained\ncoordinates, and the second halves and as many proposal draws bridge the\nposterior to it; with its se (Frühwirth-Schnatter's relative error). Written\nto evidence.json, which gpp compare --evidence reads. Refused for a param with\nno prior on an unbounded support (p(y) is not defined); terms gpp cannot know\nto be normalised (target +=, user densities) are warned about (default false)")
	evMethod := fs.String("evidence-method", "normal", "with --evidence, bridge sampling's proposal (bridgesampling's method): normal,\nthe fitted normal, or warp3, the posterior standardised by it and warped to\nsymmetry, then bridged to the standard normal (Meng & Schilling's warp-III),\nwhich also matches a skewed posterior's third moment, for N1 + N2 more\nevaluations of the log joint")
	fs.Float64Var(&cfg.hdi, "hdi", 0, hdiFlagUsage)
	fs.StringVar(&cfg.percentiles, "percentiles", defaultPercentilesFlag, percentilesFlagUsage)
	fs.IntVar(&cfg.sigFigs, "sig-figs", 3, sigFigsUsage)
	fs.StringVar(&cfg.against, "against", "", "compare the q of a gpp fit of this model with the draws: its output `FIT`\ndirectory (or its summary.csv or fit.json); writes against.csv")
	fs.BoolVar(&sc.fixedParam, "fixed-param", false, "Stan's fixed_param sampler instead of NUTS: every chain keeps the params where\nit starts (--init FILE.json of every param's value, --init FIT, or the random\nstart) and draws the outputs afresh at each of --draws iterations, to simulate\ndata from known params; no warm-up. A model with no params runs it anyway\n(default false)")
	usageErr := func(format string, args ...any) (*sampleConfig, int, bool) {
		return nil, usageError(stderr, "sample", sampleSynopsis, format, args...), false
	}
	if !isHelp(args) {
		fitFS, _, _ := newFitFlags(io.Discard)
		for _, a := range args {
			if a == "--" {
				break
			}
			name, ok := strings.CutPrefix(a, "-")
			if !ok {
				continue
			}
			name, _, _ = strings.Cut(strings.TrimPrefix(name, "-"), "=")
			if fs.Lookup(name) == nil && fitFS.Lookup(name) != nil {
				return usageErr("%s", sampleFlagRefusal(name))
			}
		}
	}
	pos, code, ok := parseCommand(fs, args, stdout)
	if !ok {
		return nil, code, false
	}
	if len(pos) == 0 {
		return usageErr("sample needs a model file")
	}
	cfg.model, cfg.data = pos[0], pos[1:]
	cfg.sample = true
	switch *evMethod {
	case "normal":
		sc.evMethod = bridge.Normal
	case "warp3":
		sc.evMethod = bridge.Warp3
	default:
		return usageErr("--evidence-method %q: want normal or warp3", *evMethod)
	}
	sc.set = fixedParamFlags(fs)
	if msg := fixedParamRefusal(sc.set, "--fixed-param"); sc.fixedParam && msg != "" {
		return usageErr("%s", msg)
	}
	if err := validHDI(cfg.hdi); sc.set["hdi"] && err != nil {
		return usageErr("%v", err)
	}
	if msg := plotParamsRefusal(cfg); msg != "" {
		return usageErr("%s", msg)
	}
	if err := cfg.parsePercentiles(); err != nil {
		return usageErr("%v", err)
	}
	if err := validSigFigs(cfg.sigFigs); err != nil {
		return usageErr("%v", err)
	}
	evMethodSet := false
	fs.Visit(func(f *flag.Flag) {
		evMethodSet = evMethodSet || f.Name == "evidence-method"
		if f.Name == "init-radius" {
			sc.radius = radius
		}
	})
	if msg := nonNegFinite("init-radius", *radius, ""); msg != "" {
		return usageErr("%s", msg)
	}
	if evMethodSet && !cfg.evidence {
		return usageErr("--evidence-method needs --evidence: it chooses the proposal of its bridge sampling")
	}
	switch sc.metric {
	case "diag":
		s.Metric = nuts.DiagE
	case "dense":
		s.Metric = nuts.DenseE
	case "unit":
		s.Metric = nuts.UnitE
	default:
		return usageErr("--metric %q: want diag, dense or unit", sc.metric)
	}
	for _, c := range []struct {
		name string
		v    int
	}{{"chains", s.Chains}, {"draws", s.Draws}, {"thin", s.Thin}, {"max-depth", s.MaxDepth}} {
		if c.v < 1 {
			return usageErr("--%s must be at least 1, got %d", c.name, c.v)
		}
	}
	switch {
	case s.Warmup < 0:
		return usageErr("--warmup must be at least 0, got %d", s.Warmup)
	case s.MaxDepth > maxTreeDepth:
		return usageErr("--max-depth must be at most %d (2^%d leapfrog steps an iteration), got %d", maxTreeDepth, maxTreeDepth, s.MaxDepth)
	case !(s.Delta > 0 && s.Delta < 1):
		return usageErr("--adapt-delta must be in (0, 1), got %v", s.Delta)
	case s.Workers < 0:
		return usageErr("--workers must be at least 0 (0: the number of CPUs), got %d", s.Workers)
	case !(s.StepSize > 0) || math.IsInf(s.StepSize, 0):
		return usageErr("--stepsize must be a positive finite number, got %v", s.StepSize)
	case sc.metricFile != "" && s.Metric == nuts.UnitE:
		return usageErr("--metric-file with --metric unit: the unit metric takes no file; give --metric diag or dense")
	case s.Draws/s.Thin < 2:
		return usageErr("--draws %d --thin %d keeps %d draw%s a chain: the summary's sd and R̂ need at least 2", s.Draws, s.Thin, s.Draws/s.Thin, plural(s.Draws/s.Thin))
	case cfg.out == "":
		return usageErr("--out needs a directory")
	case cfg.quiet && cfg.verbose:
		return usageErr("--quiet and --verbose exclude each other")
	}
	for _, l := range []struct{ flag, arg string }{{"init", sc.init}, {"metric-file", sc.metricFile}} {
		if l.arg != "" && strings.Contains(l.arg, ",") {
			if _, err := chainFiles(l.flag, l.arg, s.Chains); err != nil {
				return usageErr("%v", err)
			}
		}
	}
	s.NoAdapt = !*adapt
	if s.Workers == 0 {
		s.Workers = min(max(runtime.NumCPU(), 1), s.Chains)
	}
	if sc.saveMetric {
		for c := range s.Chains {
			cfg.metricFiles = append(cfg.metricFiles, metricFileName(c+1))
		}
	}
	cfg.settings.Seed = s.Seed
	cfg.outputDraws = s.Chains * (s.Draws / s.Thin)
	return sc, 0, true
}

// cmdSample runs gpp sample, with Ctrl-C and SIGTERM stopping the chains:
// the first signal writes the draws kept so far, a second exits at once.
func cmdSample(args []string, stdout, stderr io.Writer) int {
	sc, code, ok := parseSampleArgs(args, stdout, stderr)
	if !ok {
		return code
	}
	return sampleWithSignals(sc, stdout, stderr)
}

// sampleWithSignals samples with Ctrl-C and SIGTERM stopping the chains.
func sampleWithSignals(sc *sampleConfig, stdout, stderr io.Writer) int {
	return withSignals(sc.cfg, stderr, func(con *console) {
		con.note("interrupted: stopping the chains and writing the draws kept so far (Ctrl-C again to quit at once)")
	}, func(ctx context.Context, con *console) int {
		return runSample(ctx, sc, stdout, con)
	})
}

// sampleDraws is a drawSet of MCMC draws with the sampler's columns: draw
// d is draw[d] of chain chain[d].
type sampleDraws struct {
	ds          *drawSet
	chain, draw []int
	accept      []float64
	stepSize    []float64
	depth       []int
	leapfrogs   []int
	divergent   []bool
	energy      []float64
	n           int // draws per chain
	chains      int
	res         *nuts.Result // nil for gpp predict's evaluation of a sample (predictsample.go)
	interrupted bool
	// fixedParam: the fixed_param sampler's draws, whose params (and the
	// outputs that depend on them alone) each chain holds by design.
	fixedParam bool
	// coords holds each draw's Target coordinates x (xdim each), which
	// coords.csv keeps to full precision for gpp predict.
	coords []float64
	xdim   int
	// warm are the warm-up iterations of --save-warmup (warmupDraws),
	// written in draws.csv only: nothing else reads them; nil without.
	warm *sampleDraws
}

// mcmcStats are the MCMC diagnostics of one column: the Monte Carlo
// standard errors of its mean, sd and 5, 50 and 95 % quantiles, its ESS
// and R̂, and its MAD (posterior's summarise_draws columns).
type mcmcStats struct {
	mcse, essBulk, essTail, rhat float64
	mcseSD                       float64
	mcseQ                        [3]float64 // of q5, q50 and q95
	mad                          float64
}

// runSample loads the model, samples, writes the outputs and prints the
// summary and Stan's warnings.
func runSample(ctx context.Context, sc *sampleConfig, stdout io.Writer, con *console) int {
	cfg := sc.cfg
	l, code, ok := loadModel(ctx, cfg, con, "sample", 1)
	if !ok {
		return code
	}
	if err := checkDrawsParams(cfg, l); err != nil {
		con.note("%v", err)
		return exitError
	}
	if sc.fixedParam || len(l.Model.Latents) == 0 {
		if cfg.profile {
			con.note("note: --profile: the fixed_param sampler evaluates no log joint, so there is nothing to profile and no %s", profileFile)
			cfg.profile = false // nor is profile.csv an output, for the clash check
		}
		return runFixedParam(ctx, sc, l, stdout, con)
	}
	srcs := sources(l.Sources)
	if cfg.plots {
		if err := preparePlots(cfg, l); err != nil {
			con.note("%v", err)
			return exitError
		}
	}
	h := drawsHeader{model: l.Path, modelHash: fitfile.ModelHash(l.Source), data: cfg.data, dataHash: fitfile.DataHashes(cfg.data, srcs), cfg: cfg}
	h.recordData(l)
	var af *againstFit
	if cfg.against != "" {
		var err error
		if af, err = readAgainst(cfg.against, l, cfg.sets, h.dataHash, srcs, con); err != nil {
			printError(con, err, srcs)
			return exitError
		}
		if sameFile(cfg.out, filepath.Dir(af.fitJSON)) {
			con.note("--out %s is the fit's own directory (--against): its files would be replaced; give another --out directory", cfg.out)
			return exitError
		}
	}
	if cfg.evidence {
		if sc.evNotes, ok = evidenceCaveats(l.Model, func(err error) { printError(con, err, srcs) }); !ok {
			return exitError
		}
	}
	if err := sc.readStarts(l, cfg.sets, srcs); err != nil {
		printError(con, err, srcs)
		return exitError
	}
	open := func() (func(), func(), bool) {
		lock, removeIfEmpty, ok := claimOutDir(cfg, l, con)
		if !ok {
			return nil, nil, false
		}
		return lock.release, removeIfEmpty, true
	}
	run, code := sampleLoaded(ctx, sc, l, srcs, af, h, con, open)
	if run == nil {
		return code
	}
	printSampleReport(stdout, con, sc, l, af, run, func() { printSampleTable(stdout, cfg, run.sd, run.st, run.ms) })
	if run.sd.interrupted {
		if run.sd.res != nil && !run.sd.res.Interrupted {
			con.note("interrupted after the chains ended: the outputs hold all %d draws of each chain and are marked interrupted", run.sd.n)
		} else {
			con.note("interrupted: the outputs hold the first %d draws of each chain and are marked interrupted", run.sd.n)
		}
		return exitInterrupted
	}
	if n := looInterruptedNote(run.sd.ds, "sample"); n != "" {
		con.note("%s", n)
		return exitInterrupted
	}
	return lateInterrupt(ctx, con, "sample")
}

// sampleRun is what sampleLoaded made: the draws, their summary and
// diagnostics, the --against comparison and the files written.
type sampleRun struct {
	sd      *sampleDraws
	st      []stats
	ms      []mcmcStats
	against []againstRow
	missing int // elements the --against fit lacks
	// againstModes is the modes of NUTS's chains that --against found
	// (nil: none).
	againstModes *againstModes
	// evidence is --evidence's estimate (nil: not asked for, interrupted
	// or failed).
	evidence *evidenceOutcome
	written  []string
	start    time.Time
}

// sampleLoaded samples the loaded model l and, when open is not nil,
// writes the outputs into the directory that open locks (it returns the
// lock's release and the removal of a directory it created empty); gpp
// sample and the REPL's :sample share it. It returns nil and the exit code
// when nothing was sampled.
func sampleLoaded(ctx context.Context, sc *sampleConfig, l *pipeline.Loaded, srcs sources, af *againstFit, h drawsHeader,
	con *console, open func() (release, removeIfEmpty func(), ok bool)) (*sampleRun, int) {
	cfg, s := sc.cfg, sc.nuts
	m := l.Model
	if msg := momentMatchRefusal(cfg, m); msg != "" {
		con.note("%s", msg)
		return nil, exitError
	}
	if sc.radius != nil {
		switch {
		case sc.start != nil:
			con.note("--init-radius %v: not used, the chains start from %s", *sc.radius, sc.start.what)
		case sc.values != nil && sc.chainValues == nil && sc.values.All():
			con.note("--init-radius %v: not used, the chains start from %s", *sc.radius, sc.values.describe(*sc.radius))
		}
	}
	u, err := sgvb.NewUnconstrained(runTarget(cfg, m), pipeline.Latents(m))
	if err != nil {
		printError(con, err, srcs)
		return nil, exitError
	}
	if err := sc.readMetricFiles(u.Dim(), srcs); err != nil {
		printError(con, err, srcs)
		return nil, exitError
	}
	s.InvMetric = sc.nuts.InvMetric
	dens := make([]nuts.Density, s.Chains)
	inits := make([][]float64, s.Chains)
	stopFlag := &atomic.Bool{} // an ODE solve under way stops on Ctrl-C
	var starts func(c int, dst []float64) error
	if sc.start != nil {
		starts = sc.start.starts(u)
	}
	for c := range s.Chains {
		d := u.Clone()
		d.SetStop(stopFlag)
		dens[c], inits[c] = d, make([]float64, u.Dim())
		if starts != nil {
			if err := starts(c, inits[c]); err != nil {
				con.note("chain %d: %v", c+1, err)
				con.note("no output written")
				return nil, exitError
			}
			continue
		}
		r := sc.initRadius()
		if err := sc.randomStart(d, c, inits[c]); err != nil {
			if v := sc.valuesOf(c); v != nil && v.All() {
				con.note("%s: the log density or its gradient is not finite at these values (Stan does not retry given inits): start elsewhere", v.file)
				var se *sgvb.StartError
				if !errors.As(err, &se) {
					printError(con, err, srcs)
				} else {
					con.note("%v", err)
				}
				con.note("no output written")
				return nil, exitError
			}
			switch {
			case sc.valuesOf(c) != nil:
				con.note("chain %d: no finite log density at %d random starts of the params %s does not give, each unconstrained coordinate uniform on (-%v, %v)", c+1, sgvb.InitTries, sc.valuesOf(c).file, r, r)
			case r == 0:
				con.note("chain %d: no finite log density at the start with every unconstrained coordinate 0 (--init-radius 0)", c+1)
			default:
				con.note("chain %d: no finite log density at %d random starts, each unconstrained coordinate uniform on (-%v, %v) (Stan's initialisation)", c+1, sgvb.InitTries, r, r)
			}
			if last := errors.Unwrap(err); last != nil {
				con.note("the last start's error:")
				printError(con, last, srcs)
			}
			if serr := startError(context.Background(), m); serr != nil {
				con.note("%s; gpp check finds this before sampling", startNoteFor(serr))
			} else {
				con.note("%s", noStartHint(l.Path, cfg.data, r, r > 0 && finiteAtZero(d)))
			}
			con.note("no output written")
			return nil, exitError
		}
	}
	release, removeIfEmpty := func() {}, func() {}
	if open != nil {
		var ok bool
		if release, removeIfEmpty, ok = open(); !ok {
			return nil, exitError
		}
	}
	defer release()

	from := ""
	switch {
	case sc.start != nil:
		from = ", chains from " + sc.start.what
	case sc.values != nil:
		from = ", chains from " + sc.describeValues()
	case sc.radius != nil:
		from = fmt.Sprintf(", init radius %v", *sc.radius)
	}
	con.info("sampling %s: %d param%s (%d unconstrained coordinate%s), NUTS with %s metric, %d chain%s of %d warm-up + %d iterations (thin %d), seed %d%s",
		l.Path, len(m.Latents), plural(len(m.Latents)), u.Dim(), plural(u.Dim()), metricName(s.Metric), s.Chains, plural(s.Chains), s.Warmup, s.Draws, s.Thin, s.Seed, from)
	stopWatch := watchSample(con, &s, slowAdvice(l.Info, "--warmup and --draws"))
	progress := s.Progress
	if sc.afterIter != nil {
		s.Progress = func(chain, iter int, warmup bool) {
			progress(chain, iter, warmup)
			sc.afterIter(chain, iter)
		}
	}
	stopAfter := context.AfterFunc(ctx, func() { stopFlag.Store(true) })
	defer stopAfter()
	run := &sampleRun{start: time.Now()}
	var before int64 // the evaluations of the starts
	if cfg.counts != nil {
		before = cfg.counts.grads.Load()
	}
	cpu0, cpuOK := processCPU()
	res, err := nuts.Sample(ctx, dens, inits, s)
	stopWatch()
	cpu := -1.0 // the chains' CPU seconds, for --profile; negative: unknown
	if cpu1, ok := processCPU(); ok && cpuOK {
		cpu = cpu1 - cpu0
	}
	var grads int64 // NUTS's gradient evaluations, for --profile
	if cfg.counts != nil {
		grads = cfg.counts.grads.Load() - before
	}
	con.finish()
	if err != nil {
		printError(con, err, srcs)
		con.note("no output written")
		removeIfEmpty()
		return nil, exitError
	}
	if res != nil && res.Interrupted {
		var dropped []int
		if res, dropped = keepSampledChains(res); len(dropped) > 0 {
			con.note("interrupted: %s had kept fewer than 2 draws (still in warm-up) and %s left out; the draws of the %d that had are written, numbered chains 1 to %d",
				chainsText(dropped), map[bool]string{true: "are", false: "is"}[len(dropped) > 1], len(res.Chains), len(res.Chains))
		}
	}
	sd, err := makeSampleDraws(u, m, res, s.Seed)
	if err != nil {
		printError(con, err, srcs)
		removeIfEmpty()
		return nil, exitError
	}
	nameByLabels(sd.ds.vars, l)
	if sd.warm, err = warmupDraws(u, m, res, s.Seed); err != nil {
		printError(con, err, srcs)
		removeIfEmpty()
		return nil, exitError
	}
	if sd.n < 2 {
		con.note("interrupted before a chain kept 2 draws: no output written")
		removeIfEmpty()
		return nil, exitInterrupted
	}
	run.sd = sd
	run.st, run.ms = summariseChains(sd, s.Workers, cfg.hdi, cfg.probs)
	sampleLOO(sd, m)
	if sd.ds.loo != nil {
		sd.ds.looCond = looConditional(l)
	}
	if cfg.momentMatch {
		if sd.ds.mm, err = momentMatchSample(ctx, sd, m, u, s.Workers); err != nil {
			printError(con, err, srcs)
			removeIfEmpty()
			return nil, exitError
		}
	}
	if cfg.reloo && sd.ds.loo != nil {
		con.info("reloo: sampling without each observation whose k̂ is above %.2g", relooLimit)
		sd.ds.rl = reloo(ctx, l, sd.ds, relooConfig(cfg, &s, nil), fitWorkers(s.Workers), con)
	}
	if af != nil {
		run.against, run.missing, run.againstModes = compareAgainstModes(af, sd, run.st, run.ms, s.Workers)
	}
	if cfg.evidence {
		h.evidence = sampleEvidence(ctx, sc, h, res, u, m, con)
		run.evidence = h.evidence
	}
	if cfg.profile {
		sampleProfile(ctx, cfg, sd, res, grads, cpu, s.Workers, m, con)
	}
	if n, _ := looInterrupted(sd.ds); ctx.Err() != nil && n == 0 && !sd.interrupted {
		// Ctrl-C after the chains ended, during the summaries: the draws
		// are whole, but the run stops here, marked interrupted, as the
		// note printed at the signal said. One that stopped
		// --moment-match or --reloo is loo.csv's to say.
		sd.interrupted = true
	}
	if open != nil {
		run.written, err = writeSampleOutputs(cfg, sc, h, sd, run.st, run.ms, af, run.against, run.againstModes, m)
		if err != nil {
			con.note("%v", err)
			con.note("no output written")
			removeIfEmpty()
			return nil, exitError
		}
		noteUnplotted(con, cfg)
	}
	release()
	return run, exitOK
}

// printSampleReport prints a sample's summary (table prints its table),
// its draws, the files written, the --against comparison and Stan's
// warnings.
func printSampleReport(stdout io.Writer, con *console, sc *sampleConfig, l *pipeline.Loaded, af *againstFit, run *sampleRun, table func()) {
	cfg, s, sd := sc.cfg, sc.nuts, run.sd
	table()
	fmt.Fprintln(stdout)
	adapt := ""
	if s.NoAdapt {
		adapt = " not adapted"
	}
	fmt.Fprintf(stdout, "draws        %d chain%s × %d (warm-up %d%s, thin %d), NUTS, seed %d\n", s.Chains, plural(s.Chains), sd.n, s.Warmup, adapt, s.Thin, s.Seed)
	if sc.metricFile != "" {
		fmt.Fprintf(stdout, "metric       from %s, step size %s\n", sc.metricFile, formatNum(s.StepSize))
	}
	if sc.start != nil {
		restart := ""
		if mix := sc.start.mix; mix != nil {
			restart = fmt.Sprintf(", of restart (c − 1) mod %d", len(mix.Components))
		}
		fmt.Fprintf(stdout, "start        chain c from draw c of %s%s\n", sc.start.what, restart)
	}
	switch {
	case sc.chainValues != nil:
		fmt.Fprintf(stdout, "start        chain c from %s\n", sc.describeValues())
	case sc.values != nil:
		fmt.Fprintf(stdout, "start        every chain from %s\n", sc.values.describe(sc.initRadius()))
	}
	printEvidenceLine(stdout, run.evidence)
	printLOOLines(stdout, sd.ds)
	if run.written != nil {
		fmt.Fprintf(stdout, "written      %s: %s\n", cfg.out, strings.Join(run.written, " "))
	}
	if cfg.plots {
		pitChecks(cfg.ppc, sd.ds, cfg.settings.Seed)
		printPITNotes(stdout, sd.ds)
		if why := energyProblem(sd); why != "" && run.written != nil {
			fmt.Fprintf(stdout, "no %s: %s\n", energyPlot, why)
		}
	}
	if af != nil {
		printAgainst(stdout, cfg, af, sd, run.against, run.missing, run.againstModes, slices.Contains(run.written, againstFile))
	}
	if cfg.prof != nil {
		printProfile(stdout, cfg.prof)
	}
	for _, w := range sampleWarnings(sd, s, run.ms, l.Model, modelDivAdvice(l.File, l.Info)) {
		div := strings.Contains(w, "ended with a divergence")
		if slices.Contains(run.written, pairsPlot) && div {
			w += fmt.Sprintf("; %s shows where the divergent draws lie (red)", filepath.Join(cfg.out, pairsPlot))
		}
		con.note("warning: %s", w)
		if div {
			for _, h := range divergenceHints(l.File, l.Info, sd) {
				con.note("hint: %s", h)
			}
		}
	}
	if w := drawsLOOWarning(sd.ds, l, math.NaN(), math.NaN(), slices.Contains(run.written, looFile), false, "--draws", "--fullrank all"); w != "" {
		con.note("warning: %s%s", w, momentMatchAdvice(cfg, sd.ds))
	}
	if w := looPWarning(sd.ds, l.Model.Dim, math.NaN(), math.NaN(), false, "--fullrank all"); w != "" {
		con.note("warning: %s", w)
	}
	if w := momentMatchWarning(sd.ds.mm); w != "" {
		con.note("warning: %s", w)
	}
	for _, w := range sampleBoundWarnings(l.Model, sd.ds, run.st) {
		con.note("warning: %s", w)
	}
	printEvidenceWarnings(con, run.evidence, sources(l.Sources))
	if w, failed, ok := rejectedPoints(sd.res.Chains, s.Warmup, l.Model); w != "" && ok {
		con.note("warning: %s", w)
		if h := expOverflowHint(failed, l.File); h != "" {
			con.note("hint: %s", h)
		}
	} else if w != "" {
		con.info("note: %s", w)
	}
	for _, w := range outputWarnings(sd.ds, run.st, l.Info, "draws had an output that is not finite (written as it is)") {
		con.note("warning: %s", w)
	}
	con.info("sampling took %.3g s", time.Since(run.start).Seconds())
}

// rejectedPoints describes the points the chains rejected because the log
// density returned an error there, with the first one's error (its
// position kept in err's text); "" if none. It counts warm-up (the start,
// the step-size searches and adaptation; warmup iterations) apart from
// the kept iterations: ok reports a failure of the model's own
// expressions (a NaN gradient, a domain error) while sampling, a
// warning: as Stan, each trajectory ends at such a point, so the draws
// miss the region where it happens and the estimates are biased towards
// the rest. Failures in warm-up only bias nothing: the kept iterations'
// trajectories never reached that region in all their evaluations. Within
// Stan's initial buffer (nuts.InitBuffer: a normal model's first
// iterations from a random start put sigma at 1e-308) they are not worth a
// line, and every bundled example has a few there; later (a step-size
// search after a metric update) they are a note with the last iteration.
// A failure of gpp's transform of a param while sampling (a trajectory
// far out on its coordinate) is a note too, unless another chain's first
// failure while sampling is the model's: that one is named, in a warning,
// and returned as failed.
func rejectedPoints(chains []nuts.Chain, warmup int, m *compile.Model) (msg string, failed error, ok bool) {
	evals, errs, warmEvals, warmErrs, lastWarm := 0, 0, 0, 0, 0
	first, firstSample, model := -1, -1, -1
	for i, ch := range chains {
		lastWarm = max(lastWarm, ch.LastWarmErr)
		evals += ch.Evals
		errs += ch.Errs
		warmEvals += ch.WarmEvals
		warmErrs += ch.WarmErrs
		if first < 0 && ch.FirstErr != nil {
			first = i
		}
		if firstSample < 0 && ch.SampleErr != nil {
			firstSample = i
		}
		if model < 0 && ch.SampleErr != nil && !transformFailed(ch.SampleErr, m) {
			model = i
		}
	}
	if first < 0 {
		return "", nil, false
	}
	sampEvals, sampErrs := evals-warmEvals, errs-warmErrs
	if firstSample < 0 {
		if lastWarm <= nuts.InitBuffer(warmup) {
			return "", nil, false
		}
		err := chains[first].FirstErr
		return fmt.Sprintf("%d of %d points the sampler evaluated in warm-up (%s%%) were rejected because the log density failed there, the last in iteration %d of %d, and none of the %d it evaluated while sampling: warm-up's trajectories (its step-size searches try long steps) went where the kept ones never did, so the draws miss no region they reach; the first (chain %d): %v", warmErrs, warmEvals, shareText(warmErrs, warmEvals), lastWarm, warmup, sampEvals, first+1, err), nil, false
	}
	more := ""
	if warmErrs > 0 {
		more = fmt.Sprintf(" (and %d of %d in warm-up)", warmErrs, warmEvals)
	}
	if model >= 0 {
		firstSample = model
	}
	err := chains[firstSample].SampleErr
	if model < 0 {
		return fmt.Sprintf("chain %d rejected a point while sampling: %v: the trajectory went far out (as Stan, it ends there); %d of %d points evaluated while sampling were rejected%s", firstSample+1, err, sampErrs, sampEvals, more), nil, false
	}
	return fmt.Sprintf("%d of %d points the sampler evaluated while sampling (%s%%) were rejected because the log density failed there (as Stan, the trajectory ends at such a point), so the draws miss the region where that happens and the estimates may be biased%s; the first (chain %d): %v", sampErrs, sampEvals, shareText(sampErrs, sampEvals), more, firstSample+1, err), err, true
}

// transformFailed says whether err is at a param's declaration, where
// gpp's own transform of its unconstrained coordinate is built (a
// positive param's exp): the point was far out on that coordinate, not
// where an expression of the model failed.
func transformFailed(err error, m *compile.Model) bool {
	var e *ast.Error
	if !errors.As(err, &e) {
		return false
	}
	for _, lat := range m.Latents {
		if lat.Pos == e.Pos {
			return true
		}
	}
	return false
}

// metricName is the name of the metric m, as Stan's --metric gives it.
func metricName(m nuts.Metric) string {
	switch m {
	case nuts.DenseE:
		return "dense_e"
	case nuts.UnitE:
		return "unit_e"
	}
	return "diag_e"
}

// watchSample sets s's Progress, a line at every tenth of all chains'
// iterations (with --verbose, of each chain's), and its Tree, and watches
// their pace; the returned function stops the watch.
func watchSample(con *console, s *nuts.Settings, advice string) (stop func()) {
	progress, tree, stop := sampleProgressAt(con, *s, advice, time.Now, afterFunc)
	s.Progress, s.Tree = progress, nil
	if !s.FixedParam {
		s.Tree = tree
	}
	return stop
}

// sampleProgressAt returns the sampler's progress callback and its Tree
// callback with the clock now and the timers of after, and a function
// that stops its timer. Iterations that are slow before the first
// progress line (the first of slowStep or more, or slowAfter without a
// line: an ODE solved at every leapfrog step) get one line saying what
// the run would take at that pace (sampleSlowLine), with advice after it
// ("" for none); after it, a paceWatch of the tenths' lines says where
// the pace falls (samplePaceLine).
func sampleProgressAt(con *console, s nuts.Settings, advice string, now func() time.Time, after timerFunc) (progress func(chain, iter int, warmup bool), tree func(chain, depth int), stop func()) {
	per := s.Warmup + s.Draws
	total := int64(per * s.Chains)
	var done, warm, depths, trees atomic.Int64
	var mu sync.Mutex
	next := total / progressSteps
	first := max(next, 1) // the first progress line's iteration; next moves on after it
	start, said := now(), false
	var lastWarm, lastDepths, lastTrees int64 // at the last tenth's line
	var gapDepths, gapTrees int64             // in the interval before it
	maxDepth := s.MaxDepth
	if maxDepth == 0 {
		maxDepth = nuts.DefaultMaxDepth
	}
	pace := newPaceWatch(con, start, now, after, done.Load, func(since time.Duration, lastN, k int64, gap time.Duration, gapK int64) string {
		w := warm.Load() - lastWarm
		var depth, before float64 // mean tree depths since the last line and in the interval before it; 0: none
		if n := trees.Load() - lastTrees; n > 0 {
			depth = float64(depths.Load()-lastDepths) / float64(n)
		}
		if gapTrees > 0 {
			before = float64(gapDepths) / float64(gapTrees)
		}
		return samplePaceLine(since, lastN, k, w, gap, gapK, total, depth, before, maxDepth, advice)
	})
	settled := int64(0) // iterations across the chains before all have learned a metric
	if !s.NoAdapt {
		settled = int64(s.Chains * nuts.FirstMetric(s.Warmup))
	}
	var leapMu sync.Mutex
	var leaps []float64 // each iteration's leapfrog steps, until the first progress line
	var keepLeaps atomic.Bool
	keepLeaps.Store(true)
	leapsAt := func(n int64) []float64 { // the first n iterations' (about: trees end before their Progress)
		leapMu.Lock()
		defer leapMu.Unlock()
		return leaps[:min(int(n), len(leaps))]
	}
	pace.mark = func() {
		d, t := depths.Load(), trees.Load()
		gapDepths, gapTrees = d-lastDepths, t-lastTrees
		lastWarm, lastDepths, lastTrees = warm.Load(), d, t
	}
	tree = func(_, depth int) {
		depths.Add(int64(depth))
		trees.Add(1)
		if keepLeaps.Load() {
			leapMu.Lock()
			leaps = append(leaps, leapfrogs(depth))
			leapMu.Unlock()
		}
	}
	progress = func(chain, iter int, warmup bool) {
		if warmup {
			warm.Add(1)
		}
		n := done.Add(1)
		mu.Lock()
		if !said && n < first {
			if el := now().Sub(start); n == 1 && el >= slowStep || el >= slowAfter {
				said = true
				con.info("%s", sampleSlowLine(n, el, leapsAt(n), total, s.Chains, first, settled, advice))
			}
		}
		mu.Unlock()
		if con.verbose {
			if step := max(per/progressSteps, 1); iter%step == 0 || iter == per {
				phase := "sampling"
				if warmup {
					phase = "warm-up"
				}
				con.info("chain %d: iteration %d/%d (%s)", chain+1, iter, per, phase)
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if n >= next && next > 0 {
			if !con.verbose {
				con.info("%3.0f%% of %d iterations (%d chains)", 100*float64(n)/float64(total), total, s.Chains)
			}
			next += max(total/progressSteps, 1)
			if keepLeaps.Load() {
				keepLeaps.Store(false)
				if ls := leapsAt(n); said && len(ls) == int(n) && n < total {
					con.info("%s", sampleRestLine(now().Sub(start), ls, total, settled))
				}
			}
			if n < total {
				pace.line(n)
			} else {
				pace.end()
			}
		}
	}
	return progress, tree, pace.end
}

// samplePaceLine is the line of a run of total iterations whose pace
// fell (paceWatch.say): since the tenth's line at lastN, k iterations of
// the chains, w of them warm-up, against gapK in gap before; the mean
// tree depth of the iterations since and before, where known (0: not).
func samplePaceLine(since time.Duration, lastN, k, w int64, gap time.Duration, gapK, total int64, depth, before float64, maxDepth int, advice string) string {
	phase := ""
	switch {
	case k <= 0:
	case w == k:
		phase = " (all warm-up)"
	case w == 0:
		phase = " (all sampling)"
	default:
		phase = fmt.Sprintf(" (%d warm-up, %d sampling)", w, k-w)
	}
	line := fmt.Sprintf("slower: %s since %.0f%% of the %d iterations: %s", humanSpan(since), 100*float64(lastN)/float64(total), total,
		paceNow(since, k, gap, gapK, max(total-lastN-k, 0), "iteration", "iterations", phase, "each across the chains"))
	if depth > 0 {
		line += fmt.Sprintf("; the trees' mean depth %.3g since (--max-depth %d), %.3g before", depth, maxDepth, before)
	}
	if advice != "" {
		line += "; " + advice
	}
	return line
}

// sampleSlowLine says what the first n iterations of a run of total (of
// chains chains) took in elapsed, per iteration across the chains, and
// what the run would take (sampleRunSpan, from their trees' leapfrog
// steps leaps; at their pace where none are known), the first progress
// line coming at iteration first; settled is sampleRunSpan's, the
// iterations across the chains before every chain has learned its metric.
func sampleSlowLine(n int64, elapsed time.Duration, leaps []float64, total int64, chains int, first, settled int64, advice string) string {
	each := elapsed / time.Duration(n)
	took := "iteration 1 took " + humanSpan(elapsed)
	if n > 1 {
		took = fmt.Sprintf("%d iterations took %s, %s each across the chains", n, humanSpan(elapsed), humanSpan(each))
	}
	var line string
	if len(leaps) == 0 || int64(len(leaps)) < n {
		line = fmt.Sprintf("%s: the %d iterations of %d chain%s would take about %s at this pace (early warm-up iterations are often the slowest), and the first progress line comes at iteration %d, in about %s",
			took, total, chains, plural(chains), humanSpan(each*time.Duration(total)), first, humanSpan(each*time.Duration(first-n)))
	} else {
		low, high := sampleRunSpan(elapsed, leaps, total, settled)
		flo, fhi := sampleRunSpan(elapsed, leaps, first, settled)
		sum, latest := leapSums(leaps)
		steps := fmt.Sprintf("the latest trees took %.3g leapfrog steps each, %s a step across the chains", latest, humanSpan(time.Duration(float64(elapsed)/sum)))
		if low < high {
			line = fmt.Sprintf("%s: the %d iterations of %d chain%s would take about %s if the trees shrink to depth %d once the chains learn their metric at warm-up iteration %d, as they often do (%s; %s if they stay as deep), and the first progress line comes at iteration %d, in about %s, with an update",
				took, total, chains, plural(chains), humanSpan(low), settledDepth, settled/int64(chains), steps, humanSpan(high), first, humanSpan(flo-elapsed))
		} else {
			line = fmt.Sprintf("%s: the %d iterations of %d chain%s would take about %s (%s), and the first progress line comes at iteration %d, in about %s, with an update",
				took, total, chains, plural(chains), humanSpan(high), steps, first, humanSpan(fhi-elapsed))
		}
	}
	if advice != "" {
		line += "; " + advice
	}
	return line
}

// sampleRestLine is the line at the first progress line of a run that
// was said to be slow: what the iterations left take (sampleRestSpan).
func sampleRestLine(elapsed time.Duration, leaps []float64, total, settled int64) string {
	left := total - int64(len(leaps))
	return fmt.Sprintf("the %d iterations left would take about %s more, at the latest trees' leapfrog steps and a step's cost so far", left,
		humanSpan(sampleRestSpan(elapsed, leaps, total, settled)))
}

// evalDraw fills draw d of ds from the coordinates x: the params' values
// (z is scratch) and the outputs that ev evaluates there; a failing log
// joint or output counts the draw as bad, its values written as they are.
func (ds *drawSet) evalDraw(ev *compile.Evaluator, u *sgvb.Unconstrained, x, z []float64, d int) {
	_, outs, err := ev.Eval(x)
	if err == nil {
		err = ev.OutputErr()
	}
	if err != nil {
		ds.bad++
		if ds.badErr == nil {
			ds.badErr = err
		}
	}
	u.Values(z, x)
	ds.fill(z, outs, func(col int, v float64) { ds.cols[col][d] = v })
}

// keepSampledChains returns interrupted res with only its chains that kept
// at least 2 draws, and the indices of those left out, where some
// did and some did not: the draws keep the shortest chain's count, so one
// chain stuck in warm-up (an ODE model's stiff region, a trial's SIR at
// 80% of its iterations) discarded every other chain's draws. dropped is
// 0-based; res as it is, and none, otherwise.
func keepSampledChains(res *nuts.Result) (*nuts.Result, []int) {
	var kept []nuts.Chain
	var dropped []int
	for i, ch := range res.Chains {
		if len(ch.LogP) >= 2 {
			kept = append(kept, ch)
		} else {
			dropped = append(dropped, i)
		}
	}
	if len(kept) == 0 || len(dropped) == 0 {
		return res, nil
	}
	out := *res
	out.Chains = kept
	return &out, dropped
}

// makeSampleDraws evaluates the model's values and outputs at every kept
// draw, chain by chain, the outputs' draws from one stream of seed. An
// interrupted run keeps the first n draws of each chain, n the shortest
// chain's.
func makeSampleDraws(u *sgvb.Unconstrained, m *compile.Model, res *nuts.Result, seed uint64) (*sampleDraws, error) {
	return evalSampleDraws(u, m, res, seed, predictStream)
}

// evalSampleDraws is makeSampleDraws with the outputs' draws from stream
// of seed.
func evalSampleDraws(u *sgvb.Unconstrained, m *compile.Model, res *nuts.Result, seed, stream uint64) (*sampleDraws, error) {
	ev, err := m.NewEvaluator()
	if err != nil {
		return nil, err
	}
	n := math.MaxInt
	for _, ch := range res.Chains {
		n = min(n, len(ch.LogP))
	}
	if len(res.Chains) == 0 {
		n = 0
	}
	total := n * len(res.Chains)
	ds := modelDrawSet(m, "nuts", total)
	sd := &sampleDraws{ds: ds, n: n, chains: len(res.Chains), res: res, interrupted: res.Interrupted, fixedParam: res.FixedParam,
		coords: make([]float64, total*u.TargetDim()), xdim: u.TargetDim(),
		chain: make([]int, total), draw: make([]int, total), accept: make([]float64, total), stepSize: make([]float64, total),
		depth: make([]int, total), leapfrogs: make([]int, total), divergent: make([]bool, total), energy: make([]float64, total)}
	z := make([]float64, u.TargetDim())
	ev.SetRand(rand.New(rand.NewPCG(seed, stream)))
	ev.SetDrawRand(rand.New(rand.NewPCG(seed, predictDataStream)))
	d := 0
	for c, ch := range res.Chains {
		for i := range n {
			x := sd.coords[d*sd.xdim : (d+1)*sd.xdim]
			u.Coords(ch.Draws[i*res.Dim:(i+1)*res.Dim], x)
			ds.evalDraw(ev, u, x, z, d)
			ds.logp[d] = ch.LogP[i]
			sd.chain[d], sd.draw[d] = c+1, i+1
			sd.accept[d], sd.stepSize[d], sd.depth[d], sd.leapfrogs[d] = ch.Accept[i], ch.StepSize, ch.Depth[i], ch.Leapfrogs[i]
			sd.divergent[d], sd.energy[d] = ch.Divergent[i], ch.Energy[i]
			d++
		}
	}
	return sd, nil
}

// byChain splits a column of sd's draws into its chains.
func (sd *sampleDraws) byChain(col []float64) [][]float64 {
	out := make([][]float64, sd.chains)
	for c := range out {
		out[c] = col[c*sd.n : (c+1)*sd.n]
	}
	return out
}

// parallelFor calls f(i) for i in 0 … n−1 on workers goroutines (at least
// one, at most n), each i taken whole by one of them, and returns when all
// are done: f(i) writing only its own results makes them independent of
// workers.
func parallelFor(n, workers int, f func(i int)) {
	parallelJobs(context.Background(), n, workers, func(_, i int) { f(i) })
}

// parallelJobs calls f(w, i) for i = 0, …, n−1, taken in that order by
// min(workers, n) goroutines (at least one), w the goroutine's index (for
// state of its own), until ctx ends: no job starts after that, and it
// returns when the jobs started have returned.
func parallelJobs(ctx context.Context, n, workers int, f func(w, i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range min(max(workers, 1), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n && ctx.Err() == nil; i = int(next.Add(1) - 1) {
				f(w, i)
			}
		}()
	}
	wg.Wait()
}

// summariseChains summarises every column over all chains (fit's
// statistics) and gives its MCMC diagnostics, the columns' diagnostics on
// workers goroutines (each column's its own: the numbers do not depend on
// workers). A column the sampler holds by design (heldByDesign) and each
// chain holds at one value has R̂ NaN, not nuts.Diagnose's +Inf: nothing
// failed to mix, so no R̂ warning.
func summariseChains(sd *sampleDraws, workers int, hdi float64, probs []float64) ([]stats, []mcmcStats) {
	st := summariseColumns(sd.ds, hdi, probs)
	ms := make([]mcmcStats, len(st))
	design := heldByDesign(sd)
	parallelFor(len(ms), workers, func(c int) {
		chains := sd.byChain(sd.ds.cols[c])
		dg := nuts.Diagnose(chains)
		if design[c] && nuts.EachConstant(chains) {
			dg.Rhat = math.NaN()
		}
		ms[c] = mcmcStats{mcse: dg.MCSEMean, essBulk: dg.ESSBulk, essTail: dg.ESSTail, rhat: dg.Rhat,
			mcseSD: dg.MCSESD, mcseQ: dg.MCSEQuantile, mad: dg.MAD}
	})
	for c := range st {
		st[c].rhat = ms[c].rhat
	}
	return st, ms
}

// heldByDesign marks the columns a sampler may hold at one value per
// chain by design: the sampler's own columns in a summary of draws files
// (stepsize__ after warm-up, as CmdStan's stansummary gives NaN), and
// every column of the fixed_param sampler (its params, which each chain
// keeps at its start, and the outputs of them alone). Elsewhere chains each
// holding one value are NUTS chains frozen at their starts: R̂ +Inf.
func heldByDesign(sd *sampleDraws) []bool {
	held := make([]bool, len(sd.ds.cols))
	for _, v := range sd.ds.vars {
		if v.family == samplerFamily || sd.fixedParam {
			for j := range v.elems {
				held[v.first+j] = true
			}
		}
	}
	return held
}

// printSampleTable prints the summary table with the MCMC columns, at
// most maxTableRows elements of a variable unless --verbose.
func printSampleTable(w io.Writer, cfg *fitConfig, sd *sampleDraws, st []stats, ms []mcmcStats) {
	var rows []summaryRow
	for _, v := range sd.ds.vars {
		for j, k := range v.elems {
			if j == maxTableRows && !cfg.verbose {
				rows = append(rows, summaryRow{note: fmt.Sprintf("... %d more elements of %s (all in %s)", len(v.elems)-j, v.name, filepath.Join(cfg.out, summaryFile))})
				break
			}
			rows = append(rows, summaryRow{name: v.elemName(k), v: v.name, family: v.familyOf(k), col: v.first + j})
		}
	}
	printMCMCTable(w, rows, st, ms, cfg.percentilesOf(st), cfg.sig())
}

// summaryRow is one row of a sample's summary: an element's name, its
// variable's name and family and its column; or a note printed as it is.
type summaryRow struct {
	name, v, family string
	col             int
	note            string
}

// elemRows lists a row for every element of vars.
func elemRows(vars []variable) []summaryRow {
	var rows []summaryRow
	for _, v := range vars {
		for j, k := range v.elems {
			rows = append(rows, summaryRow{name: v.elemName(k), v: v.name, family: v.familyOf(k), col: v.first + j})
		}
	}
	return rows
}

// percentiles are the quantiles a summary reports: the probabilities and
// each column's quantile at them (q[col][i] at probs[i]); and with --hdi
// P, hdiProb P (0: none, the columns left out), each column's
// highest-density interval its stats' hdi (summarise: over its draws that
// are not NaN, every chain's, as the quantiles).
type percentiles struct {
	probs   []float64
	q       [][]float64
	hdiProb float64
}

// hdiNames are ArviZ's names of the ends of the HDI of probability p, as
// az.summary spells them (f"hdi_{100 * alpha / 2:g}%" with alpha = 1 − p):
// hdi_3% and hdi_97% for 0.94, hdi_5% and hdi_95% for 0.9.
func hdiNames(p float64) (lo, hi string) {
	alpha := 1 - p
	return fmt.Sprintf("hdi_%.6g%%", 100*alpha/2), fmt.Sprintf("hdi_%.6g%%", 100*(1-alpha/2))
}

// hdiHead appends pc's HDI columns' names, if any, to head.
func (pc percentiles) hdiHead(head []string) []string {
	if pc.hdiProb == 0 {
		return head
	}
	lo, hi := hdiNames(pc.hdiProb)
	return append(head, lo, hi)
}

// hdiCells appends the HDI ends of a column summarised as s, if pc has
// them, formatted by f, to cells.
func (pc percentiles) hdiCells(cells []string, s stats, f func(float64) string) []string {
	if pc.hdiProb == 0 {
		return cells
	}
	return append(cells, f(s.hdi[0]), f(s.hdi[1]))
}

// hdiFlagUsage is --hdi's usage, in gpp sample, gpp summary, gpp fit and
// gpp predict.
const hdiFlagUsage = "also give the highest-density interval of probability `P` in (0, 1), ArviZ's\nhdi_prob (az.summary's default 0.94): two columns after the percentiles, in\nthe table and summary.csv, named as ArviZ's (hdi_3% and hdi_97% for 0.94)"

// validHDI checks --hdi P, ArviZ's hdi_prob: a probability in (0, 1).
func validHDI(p float64) error {
	if !(p > 0 && p < 1) {
		return fmt.Errorf("--hdi %v: give the HDI's probability in (0, 1), as ArviZ's hdi_prob (0.94: hdi_3%% and hdi_97%%)", p)
	}
	return nil
}

// percentilesFlagUsage is --percentiles' usage in gpp fit, sample and
// predict.
const percentilesFlagUsage = "the percentiles of the table and summary.csv, `P,P,...` in [0, 100], as gpp\nsummary's: columns P% in the table and qP in summary.csv (2.5,50,97.5 for 95 %\nintervals: 2.5%, 50%, 97.5% and q2.5, q50, q97.5)"

// parsePercentiles sets cfg.probs from --percentiles (parsePercentiles).
func (cfg *fitConfig) parsePercentiles() error {
	probs, err := parsePercentiles(cfg.percentiles)
	cfg.probs = probs
	return err
}

// percentilesOf are the percentiles that cfg's summary reports of draws
// summarised as st (with cfg.probs: summariseColumns): those of
// --percentiles, as gpp summary's, with --hdi's HDIs (statPercentiles).
func (cfg *fitConfig) percentilesOf(st []stats) percentiles {
	return statPercentiles(st, cfg.probs, cfg.hdi)
}

// statPercentiles are the percentiles of st at probs, which summarise
// computed (stats.qs), or gpp's default 5 %, 50 % and 95 % for probs nil
// (defaultPercentiles), with the HDIs of probability hdi (0: none).
func statPercentiles(st []stats, probs []float64, hdi float64) percentiles {
	if probs == nil {
		return defaultPercentiles(st, hdi)
	}
	pc := percentiles{probs: probs, q: make([][]float64, len(st)), hdiProb: hdi}
	for c := range st {
		pc.q[c] = st[c].qs
	}
	return pc
}

// head appends the names of pc's percentile columns to head, each
// percentile P as prefix+P+suffix: "q5" in summary.csv, "5%" in a table.
func (pc percentiles) head(head []string, prefix, suffix string) []string {
	for _, p := range pc.probs {
		head = append(head, prefix+pctText(p)+suffix)
	}
	return head
}

// cells appends column col's percentiles, formatted by f, to cells.
func (pc percentiles) cells(cells []string, col int, f func(float64) string) []string {
	for _, q := range pc.q[col] {
		cells = append(cells, f(q))
	}
	return cells
}

// defaultPercentiles are gpp's 5 %, 50 % and 95 % quantiles, as st holds
// them, and its HDIs of probability hdi (0: none).
func defaultPercentiles(st []stats, hdi float64) percentiles {
	p := percentiles{probs: []float64{0.05, 0.5, 0.95}, q: make([][]float64, len(st)), hdiProb: hdi}
	for c, s := range st {
		p.q[c] = []float64{s.q5, s.q50, s.q95}
	}
	return p
}

// shareText writes n of total as a percentage: two significant digits
// below 10 % (0.25, 1.2), a whole number above (12, 100), and >99 for a
// part that would round to 100.
func shareText(n, total int) string {
	p := 100 * float64(n) / float64(total)
	switch {
	case p < 10:
		return strconv.FormatFloat(p, 'g', 2, 64)
	case n < total && p >= 99.5:
		return ">99"
	}
	return strconv.FormatFloat(p, 'f', 0, 64)
}

// pctText names the percentile of probability p: "5", "2.5"; rounded to
// 10 decimals, so that --percentiles 7's p = 0.07 is "7", not 100·0.07 =
// "7.000000000000001".
func pctText(p float64) string {
	return strconv.FormatFloat(math.Round(100*p*1e10)/1e10, 'f', -1, 64)
}

// printMCMCTable prints the summary table with the MCMC columns: the
// means, sds and percentiles to sig significant digits, the ESS whole and
// R̂ to 2 decimals.
func printMCMCTable(w io.Writer, rows []summaryRow, st []stats, ms []mcmcStats, pc percentiles, sig int) {
	head := pc.head([]string{"name", "mean", "mcse", "sd"}, "", "%")
	head = append(pc.hdiHead(head), "ess_bulk", "ess_tail", "R̂")
	t := headedTable(head, 1)
	num := func(v float64) string { return numSig(v, sig) }
	for _, r := range rows {
		if r.note != "" {
			t.note(r.note)
			continue
		}
		s, m := st[r.col], ms[r.col]
		cells := pc.cells([]string{r.name, num(s.mean), num(m.mcse), num(s.sd)}, r.col, num)
		cells = pc.hdiCells(cells, s, num)
		t.row(markFinite(append(cells, essText(m.essBulk), essText(m.essTail), rhatText(m.rhat)), 1, s)...)
	}
	t.print(w)
}

// essText formats an ESS as a whole number (NaN as it is).
func essText(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return formatNum(v)
	}
	return strconv.Itoa(int(math.Round(v)))
}

// sampleWarnings returns Stan's warnings after sampling, the R̂ warning
// with the advice for label switching (labelSwitchAdvice) when the chains
// found a mixture's components in different orders; m (nil: unknown) is
// the model sampled, adv samplerWarnings's.
func sampleWarnings(sd *sampleDraws, s nuts.Settings, ms []mcmcStats, m *compile.Model, adv divAdvice) []string {
	out := append(samplerWarnings(sd, s, adv), mixingWarnings(sd, ms, m)...)
	// No warning where the user chose not to adapt: --adapt=false, or
	// --warmup 0 from a --metric-file (a metric adapted before).
	if s.Warmup < shortWarmup && !s.NoAdapt && !(s.Warmup == 0 && len(s.InvMetric) > 0) {
		out = append(out, fmt.Sprintf("--warmup %d is shorter than %d iterations, too short for Stan's three adaptation windows (75 + 25 + 50): the step size and metric may be poorly adapted", s.Warmup, shortWarmup))
	}
	return out
}

// samplerWarnings returns Stan's warnings of the sampler's transitions:
// divergences, the maximum tree depth hit, and the chains with a low
// E-BFMI (none without the sampler's columns: sd.energy nil). adv says
// which reparameterisations the model may need (divAdvice): non-centring
// is no advice for a model with no centred hierarchy, nor a density's
// edge for one whose supports do not move with the params.
func samplerWarnings(sd *sampleDraws, s nuts.Settings, adv divAdvice) []string {
	var out []string
	total := len(sd.divergent)
	div, maxed := 0, 0
	for d := range total {
		if sd.divergent[d] {
			div++
		}
		if sd.depth[d] >= s.MaxDepth {
			maxed++
		}
	}
	pct := func(n int) string { return fmt.Sprintf("%d of %d (%s%%)", n, total, shareText(n, total)) }
	if div > 0 {
		var cures []string
		if !adv.noFunnel {
			cures = append(cures, "a hierarchy's funnel by non-centring it")
		}
		if adv.walk != "" {
			cures = append(cures, adv.walk)
		}
		if !adv.noEdge {
			cures = append(cures, "a density's edge (a support that moves with the params) by declaring the bound that the data put on the param (real<lower=max(y)> theta for y ~ Uniform(0, theta): a bound may not depend on params)")
		}
		how := ""
		if len(cures) > 0 {
			how = ": " + strings.Join(cures, ", ")
		}
		if adv.noFunnel {
			how += "; "
			if len(cures) > 0 {
				how += "or, "
			}
			how += "where they sit at extreme values of a param the data say little about (a scale over few groups), a prior that keeps it from those"
		}
		out = append(out, fmt.Sprintf("%s transitions after warm-up ended with a divergence: the sampler cannot explore part of the posterior, and its estimates may be biased; try a larger --adapt-delta (%.2g now) or reparameterise the model where they sit (draws.csv's divergent__ marks them)%s", pct(div), s.Delta, how))
	}
	if maxed > 0 {
		out = append(out, fmt.Sprintf("%s transitions hit the maximum tree depth %d (2^%d leapfrog steps): exploration is slow; try a larger --max-depth", pct(maxed), s.MaxDepth, s.MaxDepth))
	}
	var low []string
	for c := range sd.chains * b2i(sd.energy != nil) {
		if e := nuts.EBFMI(sd.energy[c*sd.n : (c+1)*sd.n]); e < ebfmiWarn {
			low = append(low, fmt.Sprintf("chain %d: %.2f", c+1, e))
		}
	}
	if len(low) > 0 {
		how := ""
		switch {
		case adv.walk != "" && div > 0:
			how = " (the random walk's other form, in the divergence warning)"
		case adv.walk != "":
			how = ": " + adv.walk
		}
		out = append(out, fmt.Sprintf("E-BFMI below %.1f (%s): the energy varies too little between iterations to explore the posterior's tails; try reparameterising the model%s", ebfmiWarn, strings.Join(low, ", "), how))
	}
	return out
}

// mixingWarnings returns the warnings of the chains' mixing: a stuck
// chain, elements with a high R̂ (with the advice for label switching) and
// elements with a low ESS; m (nil: unknown) is the model sampled.
func mixingWarnings(sd *sampleDraws, ms []mcmcStats, m *compile.Model) []string {
	out := stuckChains(sd)
	type bad struct {
		name string
		v    float64
	}
	var hiRhat, loESS []bad
	minESS := float64(essPerChain * sd.chains)
	for _, v := range sd.ds.vars {
		for j, k := range v.elems {
			m := ms[v.first+j]
			name := v.elemName(k)
			if m.rhat > rhatWarn {
				hiRhat = append(hiRhat, bad{name, m.rhat})
			}
			if e := math.Min(m.essBulk, m.essTail); e < minESS {
				loESS = append(loESS, bad{name, e})
			}
		}
	}
	list := func(bs []bad, desc bool, f string) string {
		sort.SliceStable(bs, func(i, j int) bool { return (bs[i].v > bs[j].v) == desc })
		var parts []string
		for i, b := range bs {
			if i == worstNamed {
				parts = append(parts, fmt.Sprintf("and %d more", len(bs)-i))
				break
			}
			parts = append(parts, b.name+" "+numText(b.v, f))
		}
		return strings.Join(parts, ", ")
	}
	if len(hiRhat) > 0 {
		advice := labelSwitchAdvice(sd, ms, m)
		modes := ""
		if advice == "" {
			modes = modesWarning(sd, ms)
		}
		switch {
		case modes != "":
			advice = "the chains sit in different modes (the next warning)"
		case advice == "":
			advice = "run longer chains, or reparameterise the model"
		}
		out = append(out, fmt.Sprintf("%d element%s with R̂ above %.2f, the chains disagree (the worst: %s): %s", len(hiRhat), plural(len(hiRhat)), rhatWarn, list(hiRhat, true, "%.3f"), advice))
		if modes != "" {
			out = append(out, modes)
		}
	}
	if len(loESS) > 0 {
		out = append(out, fmt.Sprintf("%d element%s with a bulk or tail ESS below %d per chain (%.0f in all; the worst: %s): their means and quantiles are unreliable; run longer chains", len(loESS), plural(len(loESS)), essPerChain, minESS, list(loESS, false, "%.0f")))
	}
	return out
}

// stuckChains warns of each chain whose every lp__ is below every lp__ of
// all the others (with at least stuckMinDraws draws a chain): a chain left
// in a region of low density or a minor mode by its start (an ODE model's
// epidemic that never takes off), which the R̂ warning shows only as
// disagreement.
func stuckChains(sd *sampleDraws) []string {
	C := sd.chains
	if C < 2 || sd.n < stuckMinDraws || len(sd.ds.logp) != C*sd.n {
		return nil
	}
	lo, hi := make([]float64, C), make([]float64, C)
	for c := range C {
		lp := sd.ds.logp[c*sd.n : (c+1)*sd.n]
		lo[c], hi[c] = slices.Min(lp), slices.Max(lp)
	}
	var out []string
	for c := range C {
		othersLo := math.Inf(1)
		for o := range C {
			if o != c {
				othersLo = math.Min(othersLo, lo[o])
			}
		}
		if hi[c] < othersLo {
			out = append(out, fmt.Sprintf("chain %d never reached the log density of the other chains (its lp__ at most %s, theirs at least %s): it is stuck in a region of low density or a minor mode, and the chains' disagreement comes from it; start the chains from a fit (--init FIT) or warm up longer",
				c+1, num3(hi[c]), num3(othersLo)))
		}
	}
	return out
}

// writeSampleOutputs stages summary.csv and draws.csv and commits them
// together, removing an earlier run's files as a fit does.
func writeSampleOutputs(cfg *fitConfig, sc *sampleConfig, h drawsHeader, sd *sampleDraws, st []stats, ms []mcmcStats, af *againstFit, against []againstRow, am *againstModes, m *compile.Model) ([]string, error) {
	files := []outputFile{
		{summaryFile, func(w io.Writer) error { return writeSampleSummaryCSV(w, cfg, sd, st, ms) }},
		{drawsFile, func(w io.Writer) error { return writeSampleDrawsCSV(w, sc, h, sd) }},
		{coordsFile, func(w io.Writer) error { return writeCoordsCSV(w, h, sd, m) }},
	}
	if sd.ds.loo != nil {
		files = append(files, outputFile{looFile, func(w io.Writer) error { return writeLOOCSV(w, sd.ds) }})
	}
	files = append(files, sd.ds.heldOut.files()...) // log_lik on data the model does not observe
	if cfg.against != "" {
		files = append(files, outputFile{againstFile, func(w io.Writer) error { return writeAgainstCSV(w, against, am) }})
	}
	if h.evidence != nil {
		files = append(files, outputFile{evidenceFile, func(w io.Writer) error { return writeEvidenceJSON(w, &h.evidence.file) }})
	}
	if sc.saveMetric {
		files = append(files, metricOutputs(sc, sd.res)...)
	}
	if cfg.prof != nil {
		files = append(files, outputFile{profileFile, func(w io.Writer) error { return writeProfileCSV(w, cfg.prof) }})
	}
	if cfg.plots {
		files = append(files, samplePlotFiles(cfg, sd, af)...)
	}
	return commitFiles(cfg, files, func(names []string) []string { return staleInDir(cfg.out, names) })
}

// writeSampleSummaryCSV writes summary.csv: fit's columns, then the MCMC
// diagnostics, then the further Monte Carlo errors and the MAD after them
// (added later: the first 11 columns keep their places for readers by
// position).
func writeSampleSummaryCSV(w io.Writer, cfg *fitConfig, sd *sampleDraws, st []stats, ms []mcmcStats) error {
	return writeMCMCSummaryCSV(w, elemRows(sd.ds.vars), st, ms, cfg.percentilesOf(st))
}

// writeMCMCSummaryCSV writes the rows of a summary.csv, a column qP for
// each percentile P of pc (q5, q50 and q95 by default), then with --hdi
// the HDI's ends, named as ArviZ's (hdi_3%, hdi_97%); where an element is
// not finite in some draw, a last column n_finite.
func writeMCMCSummaryCSV(w io.Writer, rows []summaryRow, st []stats, ms []mcmcStats, pc percentiles) error {
	cw := csv.NewWriter(w)
	head := pc.head([]string{"name", "family", "mean", "sd"}, "q", "")
	head = append(pc.hdiHead(head), "mcse_mean", "ess_bulk", "ess_tail", "rhat",
		"mcse_sd", "mcse_q5", "mcse_q50", "mcse_q95", "mad")
	var cols []int
	for _, r := range rows {
		if r.note == "" {
			cols = append(cols, r.col)
		}
	}
	nFinite := anyNotFinite(st, cols)
	if nFinite {
		head = append(head, "n_finite")
	}
	cw.Write(head)
	for _, r := range rows {
		if r.note != "" {
			continue
		}
		s, m := st[r.col], ms[r.col]
		cells := pc.cells([]string{r.name, r.family, formatNum(s.mean), formatNum(s.sd)}, r.col, formatNum)
		cells = pc.hdiCells(cells, s, formatNum)
		cells = append(cells, formatNum(m.mcse), formatNum(m.essBulk), formatNum(m.essTail), formatNum(m.rhat),
			formatNum(m.mcseSD), formatNum(m.mcseQ[0]), formatNum(m.mcseQ[1]), formatNum(m.mcseQ[2]), formatNum(m.mad))
		if nFinite {
			cells = append(cells, strconv.Itoa(s.finite))
		}
		cw.Write(cells)
	}
	cw.Flush()
	return cw.Error()
}

// writeSampleDrawsCSV writes draws.csv in CmdStan's sample layout, all
// chains in one file with a column chain__.
func writeSampleDrawsCSV(w io.Writer, sc *sampleConfig, h drawsHeader, sd *sampleDraws) error {
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format+"\n", args...) }
	s := sc.nuts
	writeModelHeader(p, h)
	p("# method = sample (Default)")
	p("#   sample")
	p("#     num_samples = %d", s.Draws)
	p("#     num_warmup = %d", s.Warmup)
	p("#     save_warmup = %d", b2i(s.SaveWarmup))
	p("#     thin = %d", s.Thin)
	p("#     adapt")
	p("#       engaged = %d", b2i(s.Warmup > 0 && !s.NoAdapt))
	p("#       delta = %s", formatNum(s.Delta))
	p("#     algorithm = hmc")
	p("#       hmc")
	p("#         engine = nuts")
	p("#           nuts")
	p("#             max_depth = %d", s.MaxDepth)
	p("#         metric = %s", metricName(s.Metric))
	if sc.metricFile != "" {
		p("#         metric_file = %s", sc.metricFile)
	}
	if s.StepSize != 1 {
		p("#         stepsize = %s", formatExact(s.StepSize))
	}
	p("#     num_chains = %d", s.Chains)
	writeRunHeader(p, h)
	p("# interrupted = %d", b2i(sd.interrupted))
	if sd.interrupted {
		p("# INTERRUPTED: the chains were stopped by Ctrl-C; these are the first %d draws of each", sd.n)
	}
	kept := chosenDraws(sd.ds, sc.cfg.drawsParams)
	var keptWarm *drawSet
	if sd.warm != nil {
		keptWarm = chosenDraws(sd.warm.ds, sc.cfg.drawsParams)
	}
	bw.WriteString("chain__,draw__,lp__,accept_stat__,stepsize__,treedepth__,n_leapfrog__,divergent__,energy__")
	writeColumnNames(bw, kept.vars)
	for c, ch := range sd.res.Chains {
		p("# chain %d: Adaptation terminated", c+1)
		p("# chain %d: Step size = %s", c+1, formatExact(ch.StepSize))
		what := "Diagonal elements of inverse mass matrix"
		if s.Metric == nuts.DenseE {
			what = "Elements of inverse mass matrix (row-major)"
		}
		p("# chain %d: %s:", c+1, what)
		vals := make([]string, len(ch.InvMetric))
		for i, v := range ch.InvMetric {
			vals[i] = formatExact(v)
		}
		p("# %s", strings.Join(vals, ", "))
	}
	row := func(sd *sampleDraws, ds *drawSet, d int) {
		fmt.Fprintf(bw, "%d,%d,%s,%s,%s,%d,%d,%d,%s", sd.chain[d], sd.draw[d], formatExact(sd.ds.logp[d]), formatNum(sd.accept[d]),
			formatNum(sd.stepSize[d]), sd.depth[d], sd.leapfrogs[d], b2i(sd.divergent[d]), formatExact(sd.energy[d]))
		ds.writeRow(bw, d)
	}
	// Each chain's warm-up rows (--save-warmup) come before its draws, as
	// in CmdStan's file of the chain.
	for c := range sd.chains {
		if w := sd.warm; w != nil {
			for d := c * w.n; d < (c+1)*w.n; d++ {
				row(w, keptWarm, d)
			}
		}
		for d := c * sd.n; d < (c+1)*sd.n; d++ {
			row(sd, kept, d)
		}
	}
	p("#")
	for c, ch := range sd.res.Chains {
		p("# chain %d: Elapsed Time: %.3f seconds (Warm-up)", c+1, ch.Warmup.Seconds())
		p("# chain %d:               %.3f seconds (Sampling)", c+1, ch.Sampling.Seconds())
	}
	return bw.Flush()
}

// coordsFile holds a sample's draws as the coordinates the model's
// evaluator reads, for gpp predict (predictsample.go).
const coordsFile = "coords.csv"

// writeCoordsCSV writes coords.csv: the model's hash and each param's
// type as comment lines ("# param NAME = TYPE"), then per draw chain__,
// draw__ and the Target coordinates x of every param (NAME.1, NAME.2, ...
// in its coordinates' order: the log of a positive param, a matrix
// param's own coordinates, as sgvb.Unconstrained's Coords gives them), to
// full precision, so that gpp predict evaluates the outputs at exactly
// the sampled points. Comment lines also hold the codings of columns of
// labels ("# levels"), which predict codes new data by, the sizes bound
// from the largest value of numeric ids ("# size"), which predict binds
// new data's no smaller than, each matrix's CSV columns ("# columns"),
// which predict binds new data's by name, and the labels that named
// elements ("# labels"), which gpp summary names them by.
func writeCoordsCSV(w io.Writer, h drawsHeader, sd *sampleDraws, m *compile.Model) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# gpp_version = %s\n# model = %s\n# model_sha256 = %s\n", version, h.model, h.modelHash)
	for i := range m.Latents {
		fmt.Fprintf(bw, "# param %s = %s\n", m.Latents[i].Name, fitfile.LatentTypeText(&m.Latents[i]))
	}
	// the codings of columns of labels, which gpp predict codes new data
	// by: a JSON object on one line, any label quoted
	levels := fitfile.LevelsOf(h.levels)
	for _, name := range sortedKeys(levels) {
		text, err := json.Marshal(levels[name])
		if err != nil {
			return err
		}
		fmt.Fprintf(bw, "# levels %s = %s\n", name, text)
	}
	for _, name := range sortedKeys(h.sizes) {
		fmt.Fprintf(bw, "# size %s = %d\n", name, h.sizes[name])
	}
	// the CSV columns of each matrix, which gpp predict binds new data's
	// by name
	for _, name := range sortedKeys(h.columns) {
		text, err := json.Marshal(h.columns[name])
		if err != nil {
			return err
		}
		fmt.Fprintf(bw, "# columns %s = %s\n", name, text)
	}
	// the labels that named the elements, which gpp summary names them by
	axes := savedAxes(sd.ds.vars)
	for _, name := range sortedKeys(axes) {
		text, err := json.Marshal(axes[name])
		if err != nil {
			return err
		}
		fmt.Fprintf(bw, "# labels %s = %s\n", name, text)
	}
	bw.WriteString("chain__,draw__")
	for _, l := range m.Latents {
		for k := range l.Size {
			fmt.Fprintf(bw, ",%s.%d", l.Name, k+1)
		}
	}
	bw.WriteByte('\n')
	for d := range sd.ds.logp {
		fmt.Fprintf(bw, "%d,%d", sd.chain[d], sd.draw[d])
		x := sd.coords[d*sd.xdim : (d+1)*sd.xdim]
		for _, l := range m.Latents {
			for _, v := range x[l.Offset : l.Offset+l.Size] {
				bw.WriteByte(',')
				bw.WriteString(formatExact(v))
			}
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
