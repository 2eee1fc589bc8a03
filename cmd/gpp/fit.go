package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
	"github.com/gpplang/gpp/lang/compile"
)

const fitSynopsis = "fit model.gpp [data.csv|data.tsv|data.json|data.R] [NAME=file.csv ...] [flags]"

// fitConfig is a parsed `gpp fit` command line.
type fitConfig struct {
	model string
	data  []string
	sets  setFlags
	// fitFactors: in gpp predict, the fit's factors, whose shapes give
	// the sizes that the new data do not bind (unboundFitSizes)
	fitFactors  []fitfile.Factor
	levels      levelFlags     // --levels: the order of columns of labels
	out         string         // output directory
	init        string         // fit.json to warm-start from, or ""
	metricFiles []string       // gpp sample --save-metric's files, one per chain
	inits       []*sgvb.Result // warm starts of the restarts, from a mixture's fit.json
	plots       bool
	// profile times the log joint statement by statement after the run
	// (--profile), and counts are the run's evaluations (runTarget).
	profile     bool
	counts      *evalCounts
	prof        *runProfile // what --profile measured, for the outputs
	ppc         []ppcMatch  // with --plots: the replicates that mirror observed data (findReplicates)
	outputDraws int
	restarts    int     // independent fits whose mixture is the result
	jitter      float64 // Restarts.Jitter's value for --jitter (0: none)
	initRadius  float64 // Restarts.Radius: --init-radius (0: restarts jittered)
	family      string  // gamma, lognormal or map
	gammaGrad   string  // implicit, paper or paper-knowles
	gammaParam  string  // log-mean-shape or softplus
	estimator   string  // stl-cv, stl, entropy-cv or entropy
	fullRank    string  // latents with full-rank normal factors, comma-separated; + joins a group, "all" is every one
	rank        int     // --rank: the rank of low-rank factors in place of full-rank ones (0: full rank)
	band        int     // --band: the bandwidth of banded-precision factors in place of full-rank ones (0: none)
	minibatch   string  // --minibatch as given, "N=500", or ""
	iterSet     bool    // --iter was given (else a minibatch fit's default is defaultMinibatchIter)
	batchSize   string  // its size name N
	batchRows   int     // its batch size B
	batchN      int     // its size N, for a minibatch fit (setMinibatch)
	tol         float64
	quiet       bool
	verbose     bool
	prior       bool   // --prior: draws from the priors instead of a fit (prior.go)
	sample      bool   // gpp sample: NUTS draws instead of a fit (sample.go)
	against     string // gpp sample --against: the fit compared with the draws (against.go)
	resample    bool   // --psis-resample: the output draws are q's, importance-resampled (resample.go)
	momentMatch bool   // --moment-match: LOO of high-k̂ observations by moment matching (momentmatch.go)
	reloo       bool   // --reloo: LOO of high-k̂ observations by refits without them (reloo.go)
	evidence    bool   // --evidence: the log evidence by importance sampling (evidence.go)
	predict     string // gpp predict: the fit.json drawn from (predict.go)
	settings    sgvb.Settings

	// autoFullRank is --fullrank auto: a mean-field fit, refitted with the
	// joint factor its curvature check suggests (autoFullRankFit).
	autoFullRank bool
	// autoLost is the refit (as --fullrank takes it, "all") that
	// --fullrank auto fitted where the curvature check did not run and
	// over which it kept the mean-field fit (autoPrefer): the mean-field hint then says
	// so instead of advising it (meanFieldHint); "" otherwise.
	autoLost string
	// warmInit is the --init argument that starts a joint factor where
	// this fit's q ends (its output directory, with the --restarts that
	// reads a mixture's; "last" in the REPL), for
	// the hints and notes that advise a --fullrank refit: a cold one can
	// stop far below the fit it is meant to improve on.
	warmInit string
	// curvSkipped says why the curvature check of a mean-field fit did
	// not run (meanFieldCurvature); "" where it ran or was not meant.
	curvSkipped string

	// hdi is --hdi P (gpp fit, sample and predict): the summary's
	// highest-density intervals of probability P (0: none).
	hdi float64
	// percentiles is --percentiles P,P,... as given (gpp fit, sample and
	// predict); probs its probabilities, nil for the default 5, 50, 95
	// (percentilesOf).
	percentiles string
	probs       []float64

	temps        *tempFiles          // temporary output files, removed on a hard exit
	afterEval    func(sgvb.Progress) // tests: called after each ELBO evaluation
	afterScoring func(elbo bool)     // tests: called as a final estimate starts (sgvb.Settings.Scoring)
	afterFit     func()              // tests: called when sgvb.Fit returns, before the output draws
	beforeCommit func()              // tests: called when the outputs are staged, before their commit
	unplotted    []unplotted         // the plots the last commitFiles left out, and why
	fileSums     map[string]string   // the sha256 of each file the last commitFiles wrote, by name
	// plotParams are --plot-params's names, the rows of intervals.png (nil:
	// the params' and outputs'), and intervalOmit the outputs that
	// intervals.png leaves out by default: the replicates drawn by ~
	// (intervalOmitted).
	plotParams   []string
	intervalOmit map[string]bool
	// drawsParams are --draws-params's names, the columns draws.csv keeps
	// (nil: all; chosenDraws).
	drawsParams []string
	// sigFigs is --sig-figs: the significant digits of the printed table
	// (0: 3, gpp summary's default; sig).
	sigFigs int
}

// sig returns the significant digits of the printed table (--sig-figs).
func (cfg *fitConfig) sig() int {
	if cfg.sigFigs <= 0 {
		return 3
	}
	return cfg.sigFigs
}

// num formats v for the printed table, to --sig-figs digits.
func (cfg *fitConfig) num(v float64) string { return numSig(v, cfg.sig()) }

// sigFigsUsage is --sig-figs's usage in gpp fit, sample and predict.
const sigFigsUsage = "significant digits of the printed table's numbers, `N` from 1 to 15, as gpp\nsummary's (summary.csv keeps 6)"

// nonNegFinite checks a flag's value v that must be a finite number ≥ 0,
// returning the message that says so ("" where v is one); zero, where not
// "", says what 0 means.
func nonNegFinite(flag string, v float64, zero string) string {
	if v >= 0 && !math.IsInf(v, 0) {
		return ""
	}
	if zero != "" {
		zero = " (0: " + zero + ")"
	}
	return fmt.Sprintf("--%s must be a finite number ≥ 0%s, got %v", flag, zero, v)
}

// validSigFigs checks --sig-figs.
func validSigFigs(n int) error {
	if n < 1 || n > 15 {
		return fmt.Errorf("--sig-figs %d: give 1 to 15 significant digits", n)
	}
	return nil
}

// Defaults of gpp fit's flags.
const (
	defaultIter    = 10000
	defaultMAPIter = 1000
	// defaultMinibatchIter is --iter's default with --minibatch, whose
	// step-size halvings take some 20 000 to 100 000 steps (sgvb.Settings.Anneal).
	defaultMinibatchIter = 200000
	defaultAnneal        = 4
	defaultOutputDraws   = 1000
	defaultEvalEvery     = 100
	defaultTol           = 1e-4
	defaultOut           = "gpp-out"
)

// gammaGradients are the values of --gamma-grad.
var gammaGradients = map[string]dist.GammaGradient{
	"implicit":      dist.Implicit{},
	"paper":         dist.Paper{},
	"paper-knowles": dist.Paper{Rule: dist.PaperKnowles},
}

// newFitFlags defines gpp fit's flags on a new flag set.
func newFitFlags(stderr io.Writer) (*flag.FlagSet, *fitConfig, *fitFlagValues) {
	fs := newFlagSet("fit", fitSynopsis, fitHelpText, stderr)
	cfg := &fitConfig{sets: setFlags{}, levels: levelFlags{}}
	v := &fitFlagValues{}
	fs.IntVar(&v.iter, "iter", defaultIter, "iteration limit: SGVB steps, or L-BFGS iterations with --family map, laplace or\npathfinder (whose default is 1000); with --minibatch 200000")
	fs.IntVar(&v.draws, "draws", 1, "draws of q per gradient step")
	fs.StringVar(&v.optimizer, "optimizer", sgvb.AdaDeltaMomentum.String(), "gradient ascent rule: adadelta-momentum, adadelta, adam, rmsprop, adagrad, momentum or sgd")
	fs.Float64Var(&v.stepSize, "step-size", 0, "step size η; 0: the optimizer's default (for adadelta and adadelta-momentum 0.3\nwith log-mean-shape gamma factors, else 1; 0.1 for adam and adagrad, 0.001\notherwise) (default 0)")
	fs.Uint64Var(&v.seed, "seed", 1, "seed of every random stream: the same seed gives the same numbers")
	fs.StringVar(&cfg.family, "family", "gamma", fmt.Sprintf("variational family of positive latents: gamma, lognormal; or map for a MAP\npoint estimate by L-BFGS instead of SGVB; or laplace for Stan's Laplace\napproximation: q is the normal N(mode, (-H)^-1) on the unconstrained\ncoordinates of every param (logs of positive ones, logits of bounded ones,\nstick-breaking coordinates of simplexes, first element and log increments of\nordered ones), at the mode of their density with\nthe Jacobian (Stan's jacobian=true; map's mode is jacobian=false) and H its\nHessian there by central differences of the gradient; fast, exact where the\nposterior is normal, poor on skewed or funnel-shaped ones, which k̂ flags;\nor pathfinder for Stan's Pathfinder: L-BFGS on the same density, each\niterate's inverse-Hessian estimate (from the last 5 curvature pairs) making\na normal whose ELBO 25 draws estimate, q the best of them; gpp fit runs 4\npaths by default (--restarts 4, from jittered starts), mixed and\nresampled (--psis-resample), as Stan's num_paths = 4; --restarts 1 (and the\nREPL's :fit) one path, not resampled.\nAt most %d coordinates (docs/inference.md)", sgvb.MaxLaplace))
	fs.Var(listFlag{&cfg.fullRank}, "fullrank", fmt.Sprintf("comma-separated `NAMES` of real, positive, bounded, simplex or ordered latents\nwhose factor is a multivariate normal with a full covariance (on the logs of a\npositive latent's values, the logits of one bounded on both sides, a\nsimplex[K]'s K - 1 stick-breaking coordinates, an ordered one's first element\nand log increments): it captures the correlations between a latent's\nelements, such as regression coefficients written as one vector, that the\ndefault mean-field factors miss. Names joined by + (alpha+tau+z) share one\njoint factor, which also captures the correlations between them, as\nhierarchical models need; \"all\" is the joint factor of every real,\npositive, bounded, simplex, ordered and matrix latent, Stan's fullrank ADVI\n(the others keep their factors, with a note; with --rank or --band a\nsimplex is one of them). At most %d elements a factor\n(\"all\" takes the smallest latents that fit), moved by natural-gradient\nsteps whatever --optimizer says; see --rank for larger ones. \"auto\" fits\nmean-field, then refits with the joint factor that the log density's\ncurvature says mean-field's sds need (the mean-field hint's), and with \"all\"\nwhere that is small (\"all --rank %d\" where it is not and no group is small\nenough), and first with the banded factor (h --band 1) of a centred chain\nthe hint names, each started from the mean-field fit, and keeps the fit\nwith the highest ELBO beyond its noise (within it, by docs/inference.md's\nrules: of refits, the one of lower Pareto k̂), with a note (gpp fit and\nthe REPL's :fit).\nRepeatable: --fullrank a --fullrank b+c is --fullrank a,b+c (default: none)", sgvb.MaxFullRank, autoLowRank))
	fs.IntVar(&cfg.band, "band", 0, fmt.Sprintf("with --fullrank: every param it names (a vector of states, one param a factor)\nhas a Gauss–Markov normal factor whose precision is banded, N(mean, (LLᵀ)⁻¹)\nwith L lower-triangular of bandwidth `K` (1: tridiagonal precision, each state\ncorrelated with its neighbours through the chain), in place of a full\ncovariance: the exact posterior family of a linear-Gaussian AR(1) or random\nwalk, at O(n·K) cost a step, for time series and state-space models of any\nlength, moved by --optimizer's steps; the other params keep their factors.\nJoined names (h+mu+sigma) make one arrowhead factor: the first the chain,\nthe others a few global params (at most %d elements) whose rows of L are\ndense, coupled to every state. The band is over the param's unconstrained\ncoordinates: a sum_to_zero_vector's or a matrix support's are not its elements,\nso a chain over its elements is not banded there (--fullrank NAME holds it;\ndocs/inference.md). At most %d; not with --rank, all or a simplex (default\n0: none)", sgvb.MaxArrow, sgvb.MaxBand))
	fs.IntVar(&cfg.rank, "rank", 0, fmt.Sprintf("with --fullrank: every factor it names (a+b, all, or one param) is a\nlow-rank-plus-diagonal normal N(mean, BBᵀ + diag(d²)) with B of `R` columns\n(at most the factor's size), in place of a full covariance: R directions of\ncorrelation at O(n·R) cost a step, for groups of hundreds or thousands of\nelements (\"all\" then takes every real, positive, bounded, ordered and\nmatrix param: a simplex keeps its Dirichlet factor, with a note, and\n--fullrank NAME of a simplex is refused, its stick-breaking coordinates\njoining full-rank factors only), moved by --optimizer's steps; at most %d entries n·R. 0:\nfull rank (better for up to 100 strongly correlated elements: it converges\nfaster there)", sgvb.MaxLowRank))
	fs.StringVar(&cfg.minibatch, "minibatch", "", "`N=B`: minibatch SGVB (stochastic variational inference): each step evaluates\nthe model on B rows, drawn without replacement, of the data whose first dimension\nis the size N, and scales each term that reads them by N/B, an unbiased estimate\nof the full log joint at 1/(N/B) of its cost. Priors are not scaled, nor the\nparts of a target += that read no row (prior + sum(...)); the final\nELBO, k̂ and the output draws use the full data. Refused (with the reason) for\nparams sized by N, missing values and uses of the data that mix rows (see\ndocs/inference.md) (default: the full data at every step)")
	fs.IntVar(&v.anneal, "anneal", defaultAnneal, "with --minibatch: halve the step size this many times, each time the\nconvergence rule is met, averaging twice as many steps after each: the batches'\ngradient noise leaves a bias of the order of the step in q (sds off by a factor\n2–4 at N/B = 1000) that each halving halves; 0: none (faster)")
	fs.StringVar(&cfg.gammaGrad, "gamma-grad", "implicit", "gamma draws and their shape derivative: implicit (exact implicit\nreparameterisation), paper (Knowles 2015's inverse-CDF scheme, done accurately)\nor paper-knowles (with the paper's own approximations)")
	fs.StringVar(&cfg.estimator, "estimator", sgvb.STLCV.String(), "per-draw ELBO gradient: stl-cv (sticking the landing with a control variate),\nstl, entropy-cv or entropy (the paper's: log p's pathwise gradient plus the\nanalytic entropy's; noisy for small gamma shapes) (see docs/inference.md)")
	fs.StringVar(&cfg.gammaParam, "gamma-param", sgvb.GammaLogMeanShape.String(), "how the optimizer sees a gamma factor's shape a and rate b: log-mean-shape (log a\nand the log mean log a/b; adadelta's default step size is then 0.3) or softplus\n(a, b behind softplus links, as in Knowles 2015: slow to tight posteriors, but\nmay keep more components of sparse models such as the EPM on small networks)")
	fs.Float64Var(&cfg.tol, "tol", defaultTol, "convergence: q is the average of the last 500 iterates; stop when its ELBO (from the\nsame draws each time) changed relative to the average 500 steps before by less than\nthis, in the median over the last 5 evaluations (relative to |ELBO|, at most 100 nats per\ncoordinate and at least 1000 standard errors of the estimate); 0: run all --iter iterations")
	fs.BoolVar(&v.lastIterate, "last-iterate", false, "q is the last iterate, each ELBO estimate from fresh draws, and the fit stops\nwhen the mean or median of successive relative changes over the last 5\nevaluations is below --tol (Stan's ADVI; the paper's protocol) (default false)")
	fs.IntVar(&v.evalEvery, "eval-every", defaultEvalEvery, "estimate the ELBO every this many iterations")
	fs.IntVar(&v.khatDraws, "khat-draws", sgvb.DefaultParetoKDraws, "draws of q that a Pareto k̂ of 0.5–1 from the final 1000 is estimated again from\n(k̂ near 0.7 is noisy from 1000). Unless given, its draws beyond 1000 are at\nmost twice the fit's gradient draws (a --minibatch step's as B/N of one),\nor more where the data are small, and none where that allows fewer than\n1000 more: the Pareto k̂ line then says so. 0: never; else above 1000")
	fs.IntVar(&v.workers, "workers", 0, "goroutines sharing each step's draws (Pathfinder: each iterate's ELBO draws); 0: the number of\nCPUs, at most 4 (results do not depend on it; use 1 when several fits run at once)")
	fs.IntVar(&cfg.restarts, "restarts", 1, "independent fits from seeds seed + r·2³² (restart 0 is the fit of --seed), run\nside by side; the outputs describe their equal-weight mixture, and summary.csv\ngains R̂ across the restarts; with --family pathfinder the default is 4 (Stan's\nnum_paths)")
	fs.Float64Var(&cfg.initRadius, "init-radius", 0, "with --restarts: restarts after the first start as Stan's chains do (init=`R`):\nevery element's location at an independent draw from U(−R, R) on its\nunconstrained scale (a positive latent's mean at e^u), not jittered around\nthe priors' means; for vague priors in a nonlinear model, whose means can\nlie where the likelihood is flat (docs/inference.md, Starting values). 0:\njittered starts (--jitter). Not with --jitter, nor with --init FILE (with\n--init path each restart r ≥ 1 runs its path from its random start)")
	fs.Float64Var(&cfg.jitter, "jitter", sgvb.DefaultJitter, "with --restarts: restarts after the first start with every element's location\nmoved by an independent draw from U(−`J`, J) on its unconstrained scale (a\npositive latent's mean by a factor e^u), as Stan's and PyMC's chains start\napart; 0: they start alike and differ only by their draws. Not used when\n--init gives each restart its own start")
	fs.IntVar(&cfg.outputDraws, "output-draws", defaultOutputDraws, "draws of q written to draws.csv and used for the summary")
	fs.BoolVar(&cfg.momentMatch, "moment-match", false, "where an observation's PSIS-LOO k̂ is above min(1 - 1/log10 S, 0.7) for S draws\n(loo's threshold), move the LOO draws toward its leave-one-out posterior and\nweight them again (the loo package's loo_moment_match); needs an output log_lik (default false)")
	fs.BoolVar(&cfg.resample, "psis-resample", false, fmt.Sprintf("importance-resample the output draws towards the posterior, as Stan's Pathfinder\ndoes: max(%d·S, %d) draws of q (S: --output-draws) are weighted by p/q, the\nweights Pareto-smoothed (PSIS), and S draws taken from them with replacement\nin proportion to their weights, so that draws.csv, the summary and the\noutputs correct part of q's error (a mean-field q's too-small sds). The\nconsole prints the weights' Pareto k̂ and ESS. Above 0.7 the fit warns, and\nkeeps q's own draws unless the ESS is at least S (Pathfinder resamples\nwhatever k̂). fit.json still holds q (for --init and gpp predict, which draw\nfrom q); LOO and R̂ come from q's own draws (default false)", sgvb.ResampleFactor, sgvb.MinCandidates))
	fs.BoolVar(&cfg.reloo, "reloo", false, relooFlag)
	fs.BoolVar(&cfg.evidence, "evidence", false, fmt.Sprintf("estimate the log evidence log p(y), the marginal likelihood of Bayes factors,\nby importance sampling: the mean of p(y, θ)/r(θ) over %d draws θ of\nr = ½q + ½g (g: q with Student-t tails), with its se and the weights' k̂\n(reliable below 0.5, unreliable above 0.7); written to evidence.json, which\ngpp compare --evidence reads. Refused for a param with no prior on an\nunbounded support (p(y) is not defined); terms gpp cannot know to be\nnormalised (target +=, user densities) are warned about (default false)", sgvb.EvidenceDraws))
	fs.StringVar(&cfg.out, "out", defaultOut, "output `directory` (created if needed)")
	fs.StringVar(&cfg.init, "init", "", "warm-start from the fit.json of an earlier fit (`FILE`, or the fit's output directory);\nor a .json file of the params' values, CmdStan's init file: q's locations start\nthere (a normal factor's mean at the value's unconstrained coordinates, as Stan's\nADVI; a gamma factor's mean at the value), the params it does not name at the\ndefault start; or path: start q where an L-BFGS path on the log density (smoothed) has the best\nELBO estimate, as Stan's Pathfinder does, for posteriors far from the default\nstart (a file named path is ./path). last, the last fit, is gpp repl's :fit\n--init; here a file named last is read (default: none)")
	fs.BoolVar(&cfg.plots, "plots", false, "also write elbo.png, intervals.png (the medians and 50 % and 90 % intervals of\nthe params and then the outputs but log_lik and ~ replicates, a panel each;\n--plot-params chooses), a heatmap NAME_mean.png of every matrix latent,\nand for every data y that a replicate output mirrors (output y_rep ~ D(args), or the\nD(args) of y's ~) the predictive checks ppc_y.png (y's density over those of\n50 replicates; for int data counts per value against the replicates' median\nand 5–95 % interval) and ppc_stat_y.png (the replicates' means and sds\nagainst y's), with log_lik a term per element of y, loo_pit_y.png (the LOO-PIT\nECDF less u in a 95 % simultaneous band) (default false)")
	fs.Var(plotParamsFlag{&cfg.plotParams}, "plot-params", plotParamsUsage)
	fs.Var(plotParamsFlag{&cfg.drawsParams}, "draws-params", drawsParamsUsage)
	fs.BoolVar(&cfg.profile, "profile", false, profileUsage)
	fs.BoolVar(&cfg.quiet, "quiet", false, "no progress on stderr; warnings and errors are still printed (default false)")
	fs.BoolVar(&cfg.verbose, "verbose", false, "a progress line at every ELBO evaluation, and the full summary table (default false)")
	fs.Var(cfg.sets, "set", "set a constant or scalar data, as `NAME=VALUE` (repeatable)")
	fs.Var(cfg.levels, "levels", levelsUsage)
	fs.Float64Var(&cfg.hdi, "hdi", 0, hdiFlagUsage)
	fs.StringVar(&cfg.percentiles, "percentiles", defaultPercentilesFlag, percentilesFlagUsage)
	fs.IntVar(&cfg.sigFigs, "sig-figs", 3, sigFigsUsage)
	fs.BoolVar(&cfg.prior, "prior", false, "fit nothing: draw --output-draws sets of params from their priors and\nevaluate the outputs at each (a prior predictive check); only --seed,\n--output-draws, --draws-params, --out (default gpp-prior), --set, --plots (the\nchecks ppc_y.png and ppc_stat_y.png alone), --hdi, --percentiles, --sig-figs,\n--quiet and --verbose apply (default false)")
	return fs, cfg, v
}

// fitFlagValues holds flags that are checked before they go into Settings.
type fitFlagValues struct {
	iter, draws, evalEvery, workers int
	anneal                          int // --anneal
	khatDraws                       int // --khat-draws
	optimizer                       string
	stepSize                        float64
	seed                            uint64
	lastIterate                     bool
}

const fitHelpText = `Fits q to the posterior of the model by stochastic gradient variational Bayes
(or a MAP point estimate, or with --family laplace Stan's Laplace
approximation: the normal at the mode of the unconstrained density with
(-H)^-1 as covariance, or with --family pathfinder Stan's Pathfinder: the
best by ELBO of the normals along an L-BFGS path, 4 paths mixed by
default), then writes to the output directory, each file
atomically: summary.csv (mean, sd, 5/50/95 % quantiles of every latent and
output element, or with --percentiles P,P,... those, as gpp summary's; with
--hdi P, as gpp sample's and az.summary's, the
highest-density interval of probability P of the same draws, two columns
after the quantiles named as ArviZ's: hdi_3% and hdi_97% for 0.94),
draws.csv (CmdStan's variational CSV: the mean of q, then --output-draws
draws), elbo.csv (the ELBO trace; for map and laplace, the
log density at L-BFGS's iterations; for pathfinder, the ELBO estimate of
each iterate's normal), fit.json (q's parameters,
readable by --init, listing the files written and every warning and hint
printed), with an output named log_lik
(Stan's convention: each observation's log likelihood) loo.csv (PSIS
leave-one-out cross-validation from the draws, each weighted by p/q, with a
Pareto k̂ per observation; a log_lik of data that no ~ observes, held-out
y_new, gets lppd.csv instead, its held-out lppd as gpp predict's), with --profile profile.csv (each statement's
share of an evaluation of the log joint and its gradient, timed after the
fit; the table of the costliest is printed) and, with --plots, PNG plots: the ELBO trace,
intervals.png (a forest plot, as bayesplot's mcmc_intervals: each param
element's and then each output element's median and 50 % and 90 % intervals
of the draws summary.csv summarises, but log_lik's and those of replicates
drawn by ~, a panel and x axis per param or output, at most 60 rows shared
between the params and the outputs: one with more elements than its share
shows its first; --plot-params NAMES chooses the rows as gpp summary --params
does), heatmaps of matrix latents, and
graphical posterior predictive checks of
the data against their replicates (bayesplot's ppc_dens_overlay, ppc_bars
and ppc_stat) and, where log_lik has a term per element of the data, the
LOO-PIT check loo_pit_y.png (bayesplot's ppc_loo_pit_ecdf: the ECDF of the
leave-one-out PIT values less u, in a 95 % simultaneous band; a line after
the fit says when it leaves the band, and how). A plot whose data cannot be
drawn (draws near ±1e308 overflow a density) is left out with a warning;
the other files are written.
Files that an earlier gpp run (of any command) wrote there and this one
does not, such as its plots or a sample's loo.csv, are removed with the new
files' commit; no file of another name is touched. fit.json lists the files
of its fit and their sha256, and is removed first and written last: a
directory without fit.json is incomplete. An output that would replace or
remove an input (the model, a data file, the --init file) is an error before
the fit: --init DIR/fit.json needs another --out than DIR. A fit locks its
output directory (a file .gpp-lock in it) until its files are written: a
second fit into the same directory meanwhile fails before fitting.

The summary ends with the Pareto k̂ of the importance ratios p/q over 1000
draws of q (10 000 where those give 0.5–1, --khat-draws; unless given, no
more than twice the fit's own gradient draws in log joints of all the data,
as the line says): below 0.5 good, up to 0.7 ok,
above it unreliable, with a warning and, for a mean-field q or a centred
or non-centred hierarchy, a hint to change q or compare the other form,
or, for a normal–normal hierarchy (a random-effects meta-analysis), to
integrate it out (above 1, also the gpp sample --against command that
checks q against NUTS). A k̂ above 0.7 whose weights are near-uniform (relative ESS of at
least 96 %: reweighting the draws by p/q moves no mean of q by more than
0.2 sd) reads "heavy tail of negligible weight" instead, with neither:
p/q then grows without bound only far out in q's tails (a log likelihood
that turns linear, a Student-t), true of q as an importance-sampling
proposal but no sign against q's estimates. A k̂ of 0.7 or less whose
weights keep an ESS below the 10^(1/(1 − k̂)) draws that Pareto smoothing
needs at that k̂ (Vehtari et al. 2024; 522 at 0.632) reads unreliable: q is
far from the posterior whatever the tail. fit.json holds both numbers
(pareto_k, pareto_rel_ess; docs/inference.md).

With --minibatch N=B each step sees B rows, drawn anew, of the data whose
first dimension is the size N, and scales each term that reads them by N/B
(priors are not scaled): a step costs B rows' work instead of N's, for
models whose cost grows with the rows (a GLM of 10⁶ rows). The final ELBO,
k̂, the draws and LOO use all the data; fit.json records the setting. Each
time the convergence rule is met the step size halves and the average spans
twice as many steps, four times (--anneal), which the batches' noise needs
for right sds (--iter defaults to 200000 then). Group effects indexed by int
data of the rows (u[g], u[g[i]] in a loop) follow the batch. What
subsampling would get wrong is an error that says why (docs/inference.md).

With --prior nothing is fitted: the params are drawn from their priors, each
after the params its prior reads (ancestral sampling; a prior wider than the
param's support or bounds is truncated to them, as in the model's density),
the likelihood (a ~ on data, T[...], target +=) is ignored, and the outputs
are evaluated at each draw, so that output y_rep ~ D(args) is a draw from the
prior predictive distribution (PyMC's sample_prior_predictive). It writes
summary.csv and draws.csv, marked as prior draws, into --out (default
gpp-prior), with --plots the params' prior intervals intervals.png and the
prior predictive checks ppc_y.png and ppc_stat_y.png; a param without a prior to draw from (a flat prior, a ~ on some
of its elements, a covariance matrix) is an error at its declaration.

Data: a CSV file binds its columns to data declarations by name; a matrix
declaration X takes the columns X.1, X.2, ... (or X[1], X[2], ...; 1-based, as
draws.csv names them, in the order of their numbers) of a positional CSV, or
else all columns of the one positional CSV; a vector declaration x takes the
columns x.1, x.2, ... of a positional CSV of one row (a wide row, as R writes
a vector). NAME=file.csv binds a whole file to
NAME, NAME=file.csv:a,b,c its columns a, b and c in that order (one column for
a vector), NAME=file.csv:-gene every column but gene, a .json file is a
Stan-style data object, a .R file an R dump
(data.R, as dump() and rstan's stan_rdump write it), and --set NAME=VALUE gives
constants and scalar data. A CSV is comma-separated with decimal points (a .tsv
file is read the same way, tab-separated); TRUE and FALSE cells are the ints
1 and 0. A column of labels (every cell text that is no number: county names)
binding an int vector is coded by its labels sorted in byte order, from the
declaration's lower bound or 0, with a note; fit.json records the coding,
which gpp predict codes new data by. Missing values (an empty cell, NA, NaN, JSON null or NaN, R's NA)
of real data that the model only observes with ~ are fitted as the latent
NAME_missing (PyMC's masked observations), or, where one ~ observes them and
nothing else reads them, summed out of the likelihood and drawn from that ~
as the output NAME_missing; elsewhere they are errors.

Ctrl-C (SIGINT) or SIGTERM stops the fit and writes the q reached, marked
interrupted (exit 130); after the steps it cuts the final estimate short
(k̂ from the draws scored, or none, as a warning says) and the output
draws to about 10 s, and stops --moment-match or --reloo, whose
observations left keep their PSIS estimates in loo.csv, marked
interrupted (exit 130). While the model and its data load, or before the
first step, it writes nothing and leaves --out as it was (exit 130). One
that comes as the outputs are written leaves them complete, not marked
interrupted, and still exits 130, saying so. A
second one, half a second or more later, exits at
once without writing. Exit 0: fitted (not converging is a warning);
1: an error in the model, the data or the fit, or a flag that names what
the model lacks (--fullrank nosuch, --minibatch X=2, --draws-params nosuch);
2: a bad command line (an unknown flag, a malformed value: --minibatch N=0).
`

// isHelp reports whether args ask for help before any "--".
func isHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help", "--h":
			return true
		}
	}
	return false
}

// parseFitArgs parses gpp fit's command line. It returns the exit code to
// use when the command must stop (help or a usage error).
func parseFitArgs(args []string, stdout, stderr io.Writer) (*fitConfig, int, bool) {
	return parseFitArgsPaths(args, stdout, stderr, pathfinderPaths)
}

// parseFitArgsPaths is parseFitArgs with paths the default --restarts of
// --family pathfinder, with --psis-resample when above 1 (gpp repl's :fit,
// which keeps one q, runs one path).
func parseFitArgsPaths(args []string, stdout, stderr io.Writer, paths int) (*fitConfig, int, bool) {
	fs, cfg, v := newFitFlags(stderr)
	pos, code, ok := parseCommand(fs, args, stdout)
	if !ok {
		return nil, code, false
	}
	usageErr := func(format string, args ...any) (*fitConfig, int, bool) {
		return nil, usageError(stderr, "fit", fitSynopsis, format, args...), false
	}
	if len(pos) == 0 {
		return usageErr("fit needs a model file")
	}
	cfg.model, cfg.data = pos[0], pos[1:]
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err := validHDI(cfg.hdi); set["hdi"] && err != nil {
		return usageErr("%v", err)
	}
	if err := cfg.parsePercentiles(); err != nil {
		return usageErr("%v", err)
	}
	if err := validSigFigs(cfg.sigFigs); err != nil {
		return usageErr("%v", err)
	}
	if cfg.prior {
		var bad []string
		fs.Visit(func(f *flag.Flag) {
			if !priorFlags[f.Name] {
				bad = append(bad, "--"+f.Name)
			}
		})
		if len(bad) > 0 {
			return usageErr("%s: not with --prior, which fits nothing (it takes --seed, --output-draws, --draws-params, --out, --set, --plots, --hdi, --percentiles, --sig-figs, --quiet and --verbose)", strings.Join(bad, ", "))
		}
		if !set["out"] {
			cfg.out = defaultPriorOut
		}
	}
	if cfg.family == "pathfinder" && paths > 1 {
		// Stan's multi-path default: num_paths = 4 with psis_resample;
		// one path (num_paths = 1) is not resampled
		if !set["restarts"] {
			cfg.restarts = paths
		}
		if !set["psis-resample"] && cfg.restarts > 1 {
			cfg.resample = true
		}
	}
	if msg := applyFitFlags(cfg, v, set); msg != "" {
		return usageErr("%s", msg)
	}
	if _, err := os.Stat(cfg.init); cfg.init == initLast && errors.Is(err, os.ErrNotExist) {
		// gpp repl's value; a file of that name is read, as ./last
		return usageErr("--init last: no file or directory named last; last is gpp repl's (:fit --init last starts from the session's last fit): gpp fit takes an earlier fit's output directory, its fit.json, or path")
	}
	if fi, err := os.Stat(cfg.init); cfg.init != "" && err == nil && fi.IsDir() {
		// a fit's output directory, as gpp predict takes it
		p, err := fitPath(cfg.init)
		if err != nil {
			return usageErr("--init %v", err)
		}
		cfg.init = p
	}
	return cfg, 0, true
}

// pathfinderPaths is --family pathfinder's default --restarts, Stan's
// num_paths.
const pathfinderPaths = 4

// sgvbOnlyFlags are the fit flags that only SGVB's steps read: with
// --family map, laplace or pathfinder they are usage errors.
var sgvbOnlyFlags = []string{"anneal", "draws", "estimator", "eval-every", "gamma-grad", "gamma-param", "last-iterate", "optimizer", "step-size", "tol"}

// applyFitFlags checks gpp fit's flags that steer the fit (and gpp sbc's,
// which are the same) and sets cfg.settings from them. It returns the
// usage error, or "" when they are good.
func applyFitFlags(cfg *fitConfig, v *fitFlagValues, set map[string]bool) string {
	s := &cfg.settings
	switch cfg.family {
	case "gamma":
		s.Family = sgvb.FamilyGamma
	case "lognormal":
		s.Family = sgvb.FamilyLognormal
	case "map":
		s.Method = sgvb.MAP
	case "laplace":
		s.Method = sgvb.Laplace
	case "pathfinder":
		s.Method = sgvb.Pathfinder
	default:
		return fmt.Sprintf("--family %q: want gamma, lognormal, map, laplace or pathfinder", cfg.family)
	}
	if s.Method != sgvb.SGVB {
		if !set["iter"] {
			v.iter = defaultMAPIter
		}
		// SGVB's own settings: L-BFGS reads none of them, and a flag that
		// silently does nothing reads as if it did
		for _, f := range sgvbOnlyFlags {
			if set[f] {
				return fmt.Sprintf("--%s steers SGVB's steps; --family %s runs L-BFGS, which does not read it (--iter bounds its iterations)", f, cfg.family)
			}
		}
	}
	if s.Method.JointNormal() {
		// q is one joint normal on the unconstrained coordinates of every
		// param: no other factors, no SGVB start, the exact log density
		// (a Pathfinder fit's restarts are its paths; a Laplace fit has
		// one mode)
		what := "at the mode of the exact log density"
		if s.Method == sgvb.Pathfinder {
			what = "from an L-BFGS path on the exact log density"
		}
		for _, f := range []struct {
			on   bool
			flag string
		}{{cfg.init == initPath, "--init path"}, {cfg.minibatch != "", "--minibatch"}, {cfg.fullRank != "", "--fullrank"}, {cfg.rank != 0, "--rank"}, {cfg.band != 0, "--band"},
			{cfg.restarts > 1 && s.Method == sgvb.Laplace, "--restarts"}} {
			if f.on {
				return fmt.Sprintf("%s is not for --family %s, whose q is one joint normal over every param %s", f.flag, s.Method, what)
			}
		}
	}
	if cfg.init == initPath { // the literal path; a file of that name is ./path
		if s.Method == sgvb.MAP {
			return "--init path starts SGVB from an L-BFGS path; MAP is L-BFGS from the default start: not with --family map"
		}
		s.InitPath = true
		cfg.init = ""
	}
	if cfg.minibatch != "" {
		name, b, found := strings.Cut(cfg.minibatch, "=")
		n, err := strconv.Atoi(strings.TrimSpace(b))
		name = strings.TrimSpace(name)
		switch {
		case !found || name == "" || err != nil:
			return fmt.Sprintf("--minibatch %q: want N=B, a size name of the model and the batch size (--minibatch N=500)", cfg.minibatch)
		case n < 1:
			return fmt.Sprintf("--minibatch %s: the batch size must be at least 1", cfg.minibatch)
		case s.Method == sgvb.MAP:
			return "--minibatch needs SGVB: MAP's L-BFGS needs the exact objective, not a minibatch estimate of it"
		}
		cfg.batchSize, cfg.batchRows = name, n
		cfg.iterSet = set["iter"]
	}
	if msg := plotParamsRefusal(cfg); msg != "" {
		return msg
	}
	if strings.TrimSpace(cfg.fullRank) == fullRankAuto {
		switch {
		case s.Method != sgvb.SGVB:
			return "--fullrank auto needs SGVB: it refits a mean-field SGVB fit with a joint factor"
		case cfg.rank != 0 || cfg.band != 0:
			return "--fullrank auto chooses a full-rank joint factor: not with --rank or --band (name the group: --fullrank a+b)"
		case cfg.restarts > 1:
			return "--fullrank auto: one fit's curvature chooses the joint factor, not with --restarts (name the group it chose: --fullrank a+b --restarts N)"
		case cfg.minibatch != "":
			return "--fullrank auto: the curvature check needs the exact log density, not with --minibatch (name the group: --fullrank a+b)"
		}
		cfg.autoFullRank, cfg.fullRank = true, ""
	}
	if cfg.fullRank != "" {
		if s.Method == sgvb.MAP {
			return "--fullrank needs SGVB: a MAP estimate has no covariance"
		}
		s.Families = map[string]sgvb.Family{}
		s.FullRankGroups = nil
		seen := map[string]bool{}
		for _, item := range strings.Split(cfg.fullRank, ",") {
			names := strings.Split(item, "+")
			for i, name := range names {
				name = strings.TrimSpace(name)
				if name == "" {
					return fmt.Sprintf("--fullrank %q: an empty latent name", cfg.fullRank)
				}
				if name == "all" && strings.TrimSpace(cfg.fullRank) != "all" {
					return fmt.Sprintf("--fullrank %q: all stands alone (every param that can take part, one joint factor)", cfg.fullRank)
				}
				if seen[name] {
					return fmt.Sprintf("--fullrank %q: %s is named twice (a param is in one factor)", cfg.fullRank, name)
				}
				seen[name] = true
				names[i] = name
			}
			if cfg.band > 0 && names[0] == "all" {
				return fmt.Sprintf("--fullrank all --band %d: a banded factor is over a chain of states, named first (--fullrank h or h+sigma for an arrowhead with its globals)", cfg.band)
			}
			addFullRankItem(s, names, cfg.rank, cfg.band)
		}
	}
	switch {
	case cfg.rank < 0:
		return fmt.Sprintf("--rank %d: want 0 (full rank) or a rank ≥ 1", cfg.rank)
	case cfg.rank > 0 && cfg.fullRank == "":
		return "--rank needs --fullrank: it sets the rank of the factors --fullrank names"
	case cfg.band < 0 || cfg.band > sgvb.MaxBand:
		return fmt.Sprintf("--band %d: want 0 (none) or a bandwidth from 1 to %d", cfg.band, sgvb.MaxBand)
	case cfg.band > 0 && cfg.fullRank == "":
		return "--band needs --fullrank: it makes the factors of the params --fullrank names banded"
	case cfg.band > 0 && cfg.rank > 0:
		return "--band and --rank: a factor is either banded or low-rank"
	}
	s.Rank, s.Band = cfg.rank, cfg.band
	g, ok := gammaGradients[cfg.gammaGrad]
	if !ok {
		return fmt.Sprintf("--gamma-grad %q: want implicit, paper or paper-knowles", cfg.gammaGrad)
	}
	s.Gamma = g
	gp, err := sgvb.ParseGammaParam(cfg.gammaParam)
	if err != nil || gp == sgvb.GammaParamAuto {
		return fmt.Sprintf("--gamma-param %q: want log-mean-shape or softplus", cfg.gammaParam)
	}
	s.GammaParam = gp
	est, err := sgvb.ParseEstimator(cfg.estimator)
	if err != nil || est == sgvb.EstimatorAuto {
		return fmt.Sprintf("--estimator %q: want stl-cv, stl, entropy-cv or entropy", cfg.estimator)
	}
	s.Estimator = est
	opt, err := sgvb.ParseOptimizer(v.optimizer)
	if err != nil {
		return fmt.Sprintf("--optimizer %q: want adadelta-momentum, adadelta, adam, rmsprop, adagrad, momentum or sgd", v.optimizer)
	}
	s.Optimizer = opt
	for _, c := range []struct {
		name string
		v    int
	}{{"iter", v.iter}, {"draws", v.draws}, {"eval-every", v.evalEvery}, {"output-draws", cfg.outputDraws}, {"restarts", cfg.restarts}} {
		if c.v < 1 {
			return fmt.Sprintf("--%s must be at least 1, got %d", c.name, c.v)
		}
	}
	if v.anneal < 0 {
		return fmt.Sprintf("--anneal must be at least 0, got %d", v.anneal)
	}
	if cfg.outputDraws < 2 && s.Method != sgvb.MAP {
		return "--output-draws 1 is too few: the summary's sd and quantiles need at least 2 draws of q"
	}
	if cfg.resample && s.Method == sgvb.MAP {
		return "--psis-resample needs SGVB: a MAP estimate has no q to draw from and weight"
	}
	if cfg.momentMatch && s.Method == sgvb.MAP {
		return "--moment-match needs SGVB: a MAP estimate has no draws, and so no PSIS-LOO to mend"
	}
	if cfg.evidence && s.Method == sgvb.MAP {
		return "--evidence needs SGVB: a MAP estimate has no q to draw from and weight"
	}
	if cfg.reloo && s.Method == sgvb.MAP {
		return "--reloo needs SGVB: a MAP estimate has no draws, and so no PSIS-LOO to mend"
	}
	if cfg.reloo && cfg.minibatch != "" {
		return "--reloo refits on all rows but one, which --minibatch's batches of rows do not describe: drop one of them"
	}
	if cfg.restarts > 1 && s.Method == sgvb.MAP {
		return "--restarts needs SGVB: MAP estimates are points, which cannot be mixed"
	}
	if cfg.restarts > 1 && cfg.outputDraws < 2*cfg.restarts {
		// The draws are dealt to the restarts in turn; R̂ compares their
		// spreads, and a restart with one draw has none.
		paths := ""
		if !set["restarts"] { // pathfinder's default paths, not the user's --restarts
			paths = fmt.Sprintf("; --family %s runs %d paths unless --restarts says otherwise", s.Method, cfg.restarts)
		}
		return fmt.Sprintf("--output-draws %d is too few for --restarts %d: R̂ needs at least 2 draws from each restart (--output-draws %d or more%s)",
			cfg.outputDraws, cfg.restarts, 2*cfg.restarts, paths)
	}
	if msg := nonNegFinite("jitter", cfg.jitter, ""); msg != "" {
		return msg
	}
	if set["jitter"] && cfg.restarts == 1 {
		return "--jitter moves the starts of restarts after the first: it needs --restarts 2 or more"
	}
	if msg := nonNegFinite("init-radius", cfg.initRadius, ""); msg != "" {
		return msg
	}
	switch {
	case cfg.initRadius > 0 && cfg.restarts == 1:
		return "--init-radius draws the starts of restarts after the first: it needs --restarts 2 or more"
	case cfg.initRadius > 0 && set["jitter"]:
		return "--init-radius draws the starts of restarts after the first, which --jitter moves: give one of them"
	case cfg.initRadius > 0 && cfg.init != "" && cfg.init != initPath:
		return "--init-radius draws the starts of restarts after the first, which --init gives: give one of them"
	}
	if v.workers < 0 {
		return fmt.Sprintf("--workers must be at least 0 (0: the number of CPUs, at most 4), got %d", v.workers)
	}
	if msg := nonNegFinite("step-size", v.stepSize, "the optimizer's default"); msg != "" {
		return msg
	}
	if msg := nonNegFinite("tol", cfg.tol, "run all iterations"); msg != "" {
		return msg
	}
	if cfg.out == "" {
		return "--out needs a directory"
	}
	if cfg.quiet && cfg.verbose {
		return "--quiet and --verbose exclude each other"
	}
	if v.khatDraws < 0 || v.khatDraws > 0 && v.khatDraws <= khatFinalDraws {
		// 1..1000 would silently estimate nothing again (sgvb.Settings.ParetoKDraws)
		return fmt.Sprintf("--khat-draws must be 0 (k̂ from the final %d draws alone) or more than %d, got %d", khatFinalDraws, khatFinalDraws, v.khatDraws)
	}
	switch {
	case !set["khat-draws"]:
		s.ParetoKCost = khatCost
	case v.khatDraws == 0:
		s.ParetoKDraws = -1 // sgvb: never
	default:
		s.ParetoKDraws = v.khatDraws
	}
	s.MaxIter, s.DrawsPerStep, s.EvalEvery, s.Workers = v.iter, v.draws, v.evalEvery, v.workers
	s.Anneal = v.anneal
	if v.anneal == 0 {
		s.Anneal = -1 // sgvb: 0 is its default
	}
	s.StepSize, s.Seed, s.LastIterate = v.stepSize, v.seed, v.lastIterate
	s.Tol = cfg.tol
	if cfg.tol == 0 {
		s.Tol = -1 // sgvb: negative runs MaxIter
	}
	return ""
}

// cmdFit runs gpp fit: it parses the command line, arranges for Ctrl-C to
// stop the fit cleanly, and fits.
func cmdFit(args []string, stdout, stderr io.Writer) int {
	cfg, code, ok := parseFitArgs(args, stdout, stderr)
	if !ok {
		return code
	}
	return fitWithSignals(cfg, stdout, stderr)
}

// fitWithSignals runs the fit of cfg with Ctrl-C and SIGTERM stopping it:
// the first signal writes the q reached, a second exits at once, leaving no
// temporary file.
func fitWithSignals(cfg *fitConfig, stdout, stderr io.Writer) int {
	return withSignals(cfg, stderr, func(con *console) {
		if cfg.prior {
			con.note("interrupted: stopping the prior draws, writing nothing")
			return
		}
		con.note("interrupted: stopping; the q reached is written if a step ran (Ctrl-C again to quit at once)")
	}, func(ctx context.Context, con *console) int {
		if cfg.prior {
			return runPrior(ctx, cfg, stdout, con)
		}
		return runFit(ctx, cfg, stdout, con)
	})
}

// withSignals runs run (gpp fit's or gpp sample's) with Ctrl-C and SIGTERM
// cancelling its context: the first signal prints first's note and lets
// run write what it has, a second exits at once, leaving no temporary
// file.
func withSignals(cfg *fitConfig, stderr io.Writer, first func(con *console), run func(ctx context.Context, con *console) int) int {
	con := newConsole(stderr, isTerminal(stderr), cfg.quiet, cfg.verbose)
	cfg.temps = &tempFiles{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	stop := watchInterrupts(sigs, cancel,
		func() { first(con) },
		func() {
			cfg.temps.removeAll()
			con.note("interrupted again: exiting without writing outputs")
			os.Exit(exitInterrupted)
		}, time.Now)
	defer stop()
	return run(ctx, con)
}

// runFit loads the model and its data, fits, writes the outputs and prints
// the summary. Cancelling ctx stops the fit: the outputs are then written
// from the q reached, marked interrupted, and the exit code is
// exitInterrupted. A fit stopped by a non-finite log joint prints the
// model's positioned error and writes nothing: the last good q is close to
// where the fit broke down and is not worth keeping as a result.
func runFit(ctx context.Context, cfg *fitConfig, stdout io.Writer, con *console) int {
	l, code, ok := loadModel(ctx, cfg, con, "fit", cfg.settings.DrawsPerStep)
	if !ok {
		return code
	}
	srcs := sources(l.Sources)
	if msg := momentMatchRefusal(cfg, l.Model); msg != "" {
		con.note("%s", msg)
		return exitError
	}
	if cfg.plots {
		if err := preparePlots(cfg, l); err != nil {
			con.note("%v", err)
			return exitError
		}
	}
	if err := checkDrawsParams(cfg, l); err != nil {
		con.note("%v", err)
		return exitError
	}
	var evNotes ast.ErrorList
	if cfg.evidence {
		if evNotes, ok = evidenceCaveats(l.Model, func(err error) { printError(con, err, srcs) }); !ok {
			return exitError
		}
	}
	autoNamesParam(cfg, l.Model)
	notes, err := checkFullRank(&cfg.settings, l.Model)
	if err != nil {
		printError(con, err, srcs)
		return exitError
	}
	for _, n := range notes {
		con.note("note: %s", n)
	}
	cfg.settings.ParetoKFree = khatFree(cfg.settings, l.Model)
	mbNotes, err := setMinibatch(cfg, l.Model)
	if err != nil {
		printError(con, err, srcs)
		return exitError
	}
	for _, n := range mbNotes {
		con.note("%s", n)
	}
	hash := fitfile.ModelHash(l.Source)
	if cfg.init != "" {
		src, err := os.ReadFile(cfg.init)
		if err != nil {
			con.note("cannot read --init file: %v", err)
			return exitError
		}
		srcs[cfg.init] = src
		values, err := readInitFile(cfg.init, src, l)
		if err != nil {
			printError(con, err, srcs)
			return exitError
		}
		if values != nil {
			values.setStart(l.Model) // the run's own model: nothing to put back
			con.info("q starts at %s", values.describe(-1))
		} else if !readWarmStart(cfg, src, hash, l, con, srcs) {
			return exitError
		}
	}
	if err := dataOnlyError(l.Model); err != nil {
		printError(con, err, srcs)
		con.note("%s", startNoteFor(err))
		con.note("the fit failed: no output written")
		return exitError
	}
	// Held from before the fit until the outputs are committed: a second
	// fit into the directory fails now rather than mix its files with ours.
	lock, removeIfEmpty, ok := claimOutDir(cfg, l, con)
	if !ok {
		return exitError
	}
	defer lock.release()

	s := cfg.settings
	con.start(s.MaxIter, s.EvalEvery, cfg.restarts, pointObjective(s.Method))
	con.batch = s.Minibatch != nil // before the fit's goroutines start
	con.info("fitting %s: %s", l.Path, describeFit(cfg, l))
	var (
		r   *sgvb.Result
		mix *sgvb.Mixture
	)
	if cfg.restarts > 1 {
		mix, err = fitRestarts(ctx, cfg, l, con)
		if mix != nil {
			r = mix.Components[0]
		}
	} else {
		tg, counts := runTarget(cfg, l.Model), cfg.counts
		if counts == nil { // the final estimate's draws are counted for its progress line
			counts = &evalCounts{}
			tg = valuesCounted{tg.(pipeline.Target), &counts.values}
		}
		note := scoringNote(con)
		stopPhase := func() {}
		s.Scoring = func(n int, d time.Duration, elbo bool) {
			stopPhase()
			note(n, d, elbo)
			base := counts.values.Load()
			stopPhase = phaseProgress(con, "scoring q", "draws", n, func() int { return int(counts.values.Load() - base) }, time.Now)
			if cfg.afterScoring != nil {
				cfg.afterScoring(elbo)
			}
		}
		stopWatch := watchSteps(con, &s, l.Info, cfg.afterEval)
		r, err = sgvb.Fit(ctx, tg, pipeline.Latents(l.Model), s)
		stopPhase()
		s.Scoring = scoringNote(con) // a refit (--fullrank auto) of its own, without the count
		stopWatch()
		err = pipeline.LaplacePos(err, l.Model)
	}
	if cfg.afterFit != nil {
		cfg.afterFit()
	}
	con.finish()
	if err == nil && r != nil && mix == nil {
		pathNote(con, "", r.Path)
		pathfinderNote(con, "", r.Pathfinder)
	}
	if err != nil {
		var re *sgvb.RestartError
		if errors.As(err, &re) {
			con.note("all %d restarts failed; restart %d (seed %s):", cfg.restarts, re.Restart, sgvb.RestartSeedText(re.Seed, re.Restart))
			if c := mix.Components[re.Restart]; c != nil {
				r = c
			}
		}
		printError(con, err, srcs)
		if r != nil {
			for _, w := range r.Warnings {
				con.note("warning: %s", w)
			}
		}
		failedFitNotes(con, err, r, l, cfg)
		con.note("the fit failed: no output written")
		removeIfEmpty()
		return exitError
	}

	if notStarted(r, mix) {
		con.note("%s", notStartedNote)
		removeIfEmpty()
		return exitInterrupted
	}
	if mix == nil && r.AtStart && !sgvb.Overflows(r.ELBO, r.ELBOSE) { // an overflow fails below, its outputs written for inspection
		printAtStartFailure(con, r, cfg.settings)
		con.note("the fit failed: no output written")
		removeIfEmpty()
		return exitError
	}

	var curv *curvCheck
	cfg.warmInit = cfg.out
	if mix != nil { // its fit.json holds the restarts, which --init reads only into as many
		cfg.warmInit += fmt.Sprintf(" --restarts %d", len(mix.Components))
	}
	if cfg.autoFullRank {
		r, s, curv = autoFullRankFit(ctx, cfg, l, r, s, con)
	}

	outStart := time.Now() // the outputs' time (tookLine)
	pace := &drawsPace{now: time.Now, con: con, interrupted: r.Interrupted || mix != nil && mix.Interrupted, least: 2,
		live: func() bool { return ctx.Err() != nil }}
	if mix != nil {
		pace.least = 2 * len(mix.Components)
	}
	ds, err := makeDrawsPaced(r, mix, l.Model, cfg.outputDraws, s.Seed, nil, cfg.momentMatch, nil, pace)
	if err == nil && pace.kept < cfg.outputDraws {
		cfg.outputDraws = pace.kept // the draws' headers and fit.json say how many were made
	}
	if err == nil && ds.loo != nil {
		ds.looCond = looConditional(l)
	}
	if err == nil && !r.Interrupted && (mix == nil || !mix.Interrupted) && mostlyNonFinite(ds) { // before moment matching, which would work on the failed draws
		printDomainFailure(con, ds, fitWarnings(r, mix), func(err error) { printError(con, err, srcs) })
		con.note("the fit failed: no output written")
		removeIfEmpty()
		return exitError
	}
	if err == nil && cfg.momentMatch {
		ds.mm, err = momentMatchFit(ctx, ds, r, mix, l.Model, s.Workers, closerFlag(s, l.Model))
	}
	if err != nil {
		printError(con, err, srcs)
		removeIfEmpty()
		return exitError
	}
	if cfg.reloo && ds.loo != nil {
		con.info("reloo: refitting without each observation whose k̂ is above %.2g", relooLimit)
		ds.rl = reloo(ctx, l, ds, relooConfig(cfg, nil, relooBridge(r, mix)), fitWorkers(s.Workers), con)
	}
	st := summariseColumns(ds, cfg.hdi, cfg.probs)
	var ro *resampleOutcome
	if cfg.resample {
		interrupted := r.Interrupted
		if mix != nil {
			interrupted = mix.Interrupted
		}
		if interrupted {
			con.note("note: --psis-resample: the fit was interrupted, so the draws are q's own, not resampled")
		} else {
			con.info("resampling: weighting %d draws of q by p/q", sgvb.ResampleCandidates(cfg.outputDraws))
			var o resampleOutcome
			ds, st, o, err = psisResample(cfg, r, mix, l.Model, ds, st)
			if err != nil {
				printError(con, err, srcs)
				removeIfEmpty()
				return exitError
			}
			ro = &o
		}
	}
	nameByLabels(ds.vars, l)
	if mix == nil {
		r.Warnings = append(r.Warnings, nearZeroShapeWarnings(r, ds.vars, l.Info, s.Estimator)...)
	}
	cfg.curvSkipped = ""
	if mix == nil && !cfg.autoFullRank {
		curv, cfg.curvSkipped = meanFieldCurvature(ctx, s, l, r)
	}
	h := drawsHeader{model: l.Path, modelHash: hash, data: cfg.data, dataHash: fitfile.DataHashes(cfg.data, srcs), cfg: cfg, r: r, mix: mix, stepSize: r.StepSize,
		resample: ro, curv: curv}
	h.narrow, h.unchecked, h.mild = narrowSds(s, r, mix, curv)
	h.recordData(l)
	if h.stepSize == 0 {
		h.stepSize = s.Optimizer.DefaultStepSize()
	}
	if cfg.evidence {
		if r.Interrupted || (mix != nil && mix.Interrupted) || ctx.Err() != nil {
			con.note("note: --evidence: the run was interrupted, so no evidence is estimated")
		} else {
			con.info("evidence: weighting %d draws of q by p/q", sgvb.EvidenceDraws)
			if h.evidence, err = fitEvidence(cfg, h, r, mix, l.Model, evNotes); err != nil {
				printError(con, err, srcs)
				removeIfEmpty()
				return exitError
			}
		}
	}
	if cfg.profile {
		fitProfile(ctx, cfg, l, r, mix, con)
	}
	if n, _ := looInterrupted(ds); ctx.Err() != nil && n == 0 && !r.Interrupted && (mix == nil || !mix.Interrupted) {
		// Ctrl-C after the steps and their final estimate, during the
		// output draws or the checks: q is whole, but the run stops here,
		// marked interrupted, as the note printed at the signal said. One
		// that stopped --moment-match or --reloo is loo.csv's to say.
		r.Interrupted = true
		if mix != nil {
			mix.Interrupted = true
		}
	}
	k, ess := r.ParetoK, r.ParetoRelESS
	if mix != nil {
		k, ess = mix.ParetoK, mix.ParetoRelESS
	}
	// computed before the commit: fit.json lists what the console prints
	after := fitNotices(cfg, s, l, r, mix, ds, st, ro, h.evidence, curv, k, ess)
	h.notices = newFileNotices(l, con.warnings(), after)
	written, ok := commitOutputs(cfg, h, ds, st, con, removeIfEmpty)
	if !ok {
		return exitError
	}
	lock.release()

	printFitSummary(stdout, cfg, h, ds, st, written)
	if cfg.prof != nil {
		printProfile(stdout, cfg.prof)
	}
	after.print(con, srcs)
	elbo, se := r.ELBO, r.ELBOSE
	if mix != nil {
		elbo, se = mix.ELBO, mix.ELBOSE
	}
	if sgvb.Overflows(elbo, se) {
		// The files are complete and say so (fit.json holds the ELBO), but
		// a script must not go on as if q were a result.
		con.note("the fit failed (its ELBO overflows, above): the outputs are written for inspection only")
		return exitError
	}
	if mix != nil {
		con.info("%s", tookLine("fits", mix.Seconds, time.Since(outStart)))
		if mix.Interrupted {
			con.note("interrupted: the outputs hold the mixture of the q's reached and are marked interrupted")
			return exitInterrupted
		}
		if n := looInterruptedNote(ds, "fit"); n != "" {
			con.note("%s", n)
			return exitInterrupted
		}
		return lateInterrupt(ctx, con, "fit")
	}
	con.info("%s", tookLine("fit", r.Seconds, time.Since(outStart)))
	if r.Interrupted {
		con.note("interrupted at iteration %d: the outputs hold the q reached and are marked interrupted", r.Iterations)
		return exitInterrupted
	}
	if n := looInterruptedNote(ds, "fit"); n != "" {
		con.note("%s", n)
		return exitInterrupted
	}
	return lateInterrupt(ctx, con, "fit")
}

// lateInterrupt is the exit code of a run (gpp fit's or gpp sample's,
// what) whose outputs are written whole: exitInterrupted, with a note, if
// a signal came after the last point that marks them interrupted (while
// they were committed or the summary printed), else exitOK. The note at
// the signal said the run stops, so it does not exit 0 as if none came
// (Unix: a handled SIGINT still exits 130), but nothing was cut short.
func lateInterrupt(ctx context.Context, con *console, what string) int {
	if ctx.Err() == nil {
		return exitOK
	}
	con.note("interrupted after the %s ended: the outputs are complete (not marked interrupted)", what)
	return exitInterrupted
}

// notStarted reports whether an interrupt came before the fit's (or
// every restart's) first step: q is then its start, not worth writing over
// a directory's previous outputs.
func notStarted(r *sgvb.Result, mix *sgvb.Mixture) bool {
	if mix != nil {
		if !mix.Interrupted {
			return false
		}
		for _, c := range mix.Components {
			if c != nil && c.Iterations > 0 {
				return false
			}
		}
		return true
	}
	return r != nil && r.Interrupted && r.Iterations == 0
}

// fitHints adds the hints that follow a fit's summary, in order, for
// gpp fit and the REPL's :fit (mix nil) alike: the softplus and far-start
// hints, label switching, collapsed components, optima of restarts and
// the parameterisation hints (found is structureHints', k and ess are q's
// Pareto k̂ and relative ESS, curv the curvature check, autoLost
// cfg.autoLost, warmInit cfg.warmInit, curvSkipped cfg.curvSkipped).
func (ns *notices) fitHints(s sgvb.Settings, l *pipeline.Loaded, r *sgvb.Result, mix *sgvb.Mixture, found []string, k, ess float64, curv *curvCheck, autoLost, warmInit, curvSkipped string) {
	far := farStartHint(s, r, mix)
	shownFar := far
	if len(l.Constant) > 0 { // the data's lack of spread, not the start, kept the fit from converging
		shownFar = ""
	}
	ns.hint(smallShapeHint(r, mix), softplusHint(s, l.Model, r, mix), shownFar)
	ns.hint(found...)
	ns.hint(factorHint(s, l, r, mix, k, ess), mixtureHint(s, l, r, mix, k, ess))
	ns.hint(parameterisationHints(s, l, far, k, ess, curv, autoLost, warmInit, flatWarned(r))...)
	if curv == nil && mix == nil && far == "" && !sgvb.Overflows(r.ELBO, r.ELBOSE) { // a failed fit: no sds to check
		ns.hint(curvSkippedHint(curvSkipped, k, ess))
	}
}

// structureHints are fitHints' hints on what the fit found, in order:
// label switching, collapsed components, optima of restarts (some empty).
// restartsWarning defers to them.
func structureHints(l *pipeline.Loaded, r *sgvb.Result, mix *sgvb.Mixture, ds *drawSet) []string {
	return append(labelSwitchHintOf(ds, maskedParams(l.File, l.Data), factorRestartsOff(l, mix)), collapsedHint(l.Model, r, mix), optimaHint(mix))
}

// loadModel loads the model and its data for a fit or for prior draws
// (what: "fit", "draw"), printing the load's warnings and what stops it:
// an error, a model without params, draws that would not fit in memory
// (stepDraws per gradient step). Cancelling ctx stops the wait for the
// load (reading a large CSV, binding and compiling take seconds to
// minutes): it notes that nothing was written and returns exitInterrupted,
// leaving the load to end with the process. code is the exit code where
// ok is false.
func loadModel(ctx context.Context, cfg *fitConfig, con *console, what string, stepDraws int) (l *pipeline.Loaded, code int, ok bool) {
	type loaded struct {
		l   *pipeline.Loaded
		err error
	}
	done := make(chan loaded, 1) // the load goes on alone after a cancel
	go func() {
		l, err := pipeline.LoadOrdered(cfg.model, cfg.data, cfg.sets, cfg.levels)
		done <- loaded{l, err}
	}()
	var ld loaded
	select {
	case ld = <-done:
	case <-ctx.Done():
		con.note("%s", loadInterrupted)
		return nil, exitInterrupted, false
	}
	if ld.err != nil {
		printError(con, ld.err, sourcesOf(ld.l))
		return nil, exitError, false
	}
	l = ld.l
	if what == "draw" { // the prior draws are the prior on purpose
		l.Info.Drop(l.Info.NoDataObserved)
	}
	printLoadWarnings(con, l)
	if len(l.Model.Latents) == 0 && what == "fit" { // prior draws and gpp sample draw the outputs alone
		con.note("%s: the model has no params to %s", cfg.model, what)
		return nil, exitError, false
	}
	if err := checkDrawsSize(cfg.outputDraws, stepDraws, l.Model); err != nil {
		con.note("%v", err)
		return nil, exitError, false
	}
	return l, exitOK, true
}

// loadInterrupted is the note of a command interrupted while it loads the
// model and its data, before its output directory is touched.
const loadInterrupted = "interrupted while loading the model and its data: nothing written (the output directory keeps what it held)"

// notStartedNote is the note of a fit interrupted before its first
// step: q is its start, no result, so nothing is written.
const notStartedNote = "interrupted before the fit's first step: nothing written (the output directory keeps what it held)"

// commitOutputs writes the output files (writeOutputs) and returns their
// names; on an error it says so, removes the output directory if the run
// created it empty, and returns ok false.
func commitOutputs(cfg *fitConfig, h drawsHeader, ds *drawSet, st []stats, con *console, removeIfEmpty func()) (written []string, ok bool) {
	written, err := writeOutputs(cfg, h, ds, st)
	if err != nil {
		con.note("%v", err)
		con.note("no output written")
		removeIfEmpty()
		return nil, false
	}
	noteUnplotted(con, cfg)
	return written, true
}

// openOutDir creates cfg.out if needed and locks it for this run's
// outputs (lockOutDir), noting what failed. removeIfEmpty releases the lock
// and removes the directory if this run created it and wrote nothing.
func openOutDir(cfg *fitConfig, con *console) (lock *outLock, removeIfEmpty func(), ok bool) {
	created, err := prepareOutDir(cfg.out)
	if err != nil {
		con.note("%v", err)
		return nil, nil, false
	}
	if created {
		cfg.temps.madeDir(cfg.out) // an exit on a signal removes it if empty
	}
	lock, err = lockOutDir(cfg.out, cfg.temps)
	if err != nil {
		con.note("%v", err)
		if created {
			os.Remove(cfg.out)
		}
		return nil, nil, false
	}
	return lock, func() {
		lock.release()
		if created {
			os.Remove(cfg.out) // only succeeds when nothing was written
		}
	}, true
}

// claimOutDir opens and locks cfg.out for cfg's outputs (openOutDir)
// once it has checked that they leave the model and data files alone
// (noOutputClash); ok is false, the failure noted, if either fails.
func claimOutDir(cfg *fitConfig, l *pipeline.Loaded, con *console) (lock *outLock, removeIfEmpty func(), ok bool) {
	if !noOutputClash(cfg, l, con) {
		return nil, nil, false
	}
	return openOutDir(cfg, con)
}

// predictOutOK reports whether predict's cfg.out may take its draws:
// neither dir, the directory of its input in (whose names it, "the
// fit's"), nor a clash (noOutputClash); it warns when the model has no
// outputs, as the draws then hold its params alone.
func predictOutOK(cfg *fitConfig, l *pipeline.Loaded, con *console, whose, dir string, in inputFile) bool {
	if sameFile(cfg.out, dir) {
		con.note("--out %s is %s own directory: its files would be replaced; give another --out directory", cfg.out, whose)
		return false
	}
	if !noOutputClash(cfg, l, con, in) {
		return false
	}
	if len(l.Model.Outputs) == 0 {
		con.note("warning: %s has no outputs: the draws hold the params alone", cfg.model)
	}
	return true
}

// noOutputClash reports whether writing cfg's outputs leaves the model,
// the more inputs (a fit file that predict reads, say) and the data files
// alone, noting the clash if not (outputClash).
func noOutputClash(cfg *fitConfig, l *pipeline.Loaded, con *console, more ...inputFile) bool {
	if err := outputClash(cfg, l.Model, append(modelAndData(cfg, l.Path), more...)); err != nil {
		con.note("%v", err)
		return false
	}
	return true
}

// initPath is the --init value that starts q from an L-BFGS path
// (sgvb.Settings.InitPath).
const initPath = "path"

// mostlyNonFinite reports whether more than half of ds's draws of q have
// a non-finite log joint (a domain error, as log of a difference that
// went negative, or ±Inf): a summary of the rest is no estimate of the
// posterior, but of where q's draws happen to keep the model defined.
// Stan's ADVI stops when every ELBO draw fails; a fit with a few bad
// draws goes on (they are left out, and a warning counts them).
func mostlyNonFinite(ds *drawSet) bool { return 2*ds.badLogp > len(ds.logp) }

// printDomainFailure prints why a fit whose draws mostly have a
// non-finite log joint (mostlyNonFinite) failed, the cause first: the
// first draw's positioned error with its source line, the count, the
// fit's warnings (the rollbacks and non-finite steps it led to), and a
// hint to guard the expression or reparameterise, in place of the hints
// that read q's shape (a gamma's shape ≤ 2, k̂), which are its symptoms.
// printErr prints a positioned error (gpp fit's printError, the REPL's
// own); the caller says what became of the fit.
func printDomainFailure(con *console, ds *drawSet, warnings []string, printErr func(error)) {
	first := ""
	if ds.logpErr != nil {
		printErr(ds.logpErr)
		first = " (the first's error above)"
	}
	con.note("%d of %d output draws of q had a non-finite log joint%s: more than half, so a summary of the rest would be no estimate of the posterior", ds.badLogp, len(ds.logp), first)
	for _, w := range warnings {
		con.note("warning: %s", w)
	}
	con.note("%s", domainFailureHint)
}

// printAtStartFailure prints why a fit whose q is still its start
// (sgvb.Result.AtStart) fails, its warnings (the failed steps and the
// rollbacks) and what to change: a summary of that q would be the start's
// means and scales, read as the posterior's.
func printAtStartFailure(con *console, r *sgvb.Result, s sgvb.Settings) {
	con.note("no step of the fit moved q for good: after %d iterations (%d steps with a non-finite log joint or gradient, %d rollbacks) q is still its start, whose means and sds are no estimate of the posterior", r.Iterations, r.BadSteps, r.Rollbacks)
	for _, w := range r.Warnings {
		con.note("warning: %s", w)
	}
	if s.StepSize > 0 {
		con.note("hint: --step-size %g is too large for this model: its steps leave where the log density is finite, or make the ELBO diverge; give a smaller one, or leave it out for the optimizer's default", s.StepSize)
		return
	}
	con.note("hint: the steps from the start leave where the log density is finite, or make the ELBO diverge: give a --step-size below the optimizer's default (gpp fit --help lists it), start elsewhere with --init (a .json of the params' values, or path), or bound or reparameterise the params whose draws leave the model's domain")
}

// domainFailureHint is printDomainFailure's advice.
const domainFailureHint = "hint: the model's log density is defined on only part of its params' declared support, and most of q's draws fall outside that part (its start, which gpp check tries, is inside): guard the expression the error names so that it holds for every value of its params (log(fmax(x, 1e-9)) for a log whose argument x can go negative), state the bound in the params' declarations (docs/language.md, Bounds that depend on params), or reparameterise; --init path starts q near the mode, where fewer draws may fall outside"

// pathNote prints which point of the L-BFGS path a fit started from
// (--init path); nothing for other starts.
func pathNote(con *console, who string, ps *sgvb.PathStart) {
	if ps == nil {
		return
	}
	con.info("%sstarted from point %d of the L-BFGS path (%d iterations, %d points scored): ELBO estimate %.6g ± %.2g%s", who, ps.Iterate, ps.Iterates, ps.Scored, ps.ELBO, ps.SE, pathSmoothNote(ps))
}

// pathSmoothNote says by how much a path start's smoothing shrank, where
// the default's draws left the model's domain around the start (an empty
// string where it did not).
func pathSmoothNote(ps *sgvb.PathStart) string {
	switch {
	case ps.SmoothSD >= sgvb.PathSmoothSD:
		return ""
	case ps.SmoothSD == 0:
		return fmt.Sprintf("; the log density not smoothed, as even sd %g was not finite around the start", sgvb.PathSmoothSD*math.Ldexp(1, -sgvb.PathSmoothHalvings))
	}
	return fmt.Sprintf("; the log density smoothed by sd %g, as sd %g was not finite around the start", ps.SmoothSD, float64(sgvb.PathSmoothSD))
}

// pathfinderNote says which normal of its L-BFGS path a Pathfinder fit
// took; nothing for other fits.
func pathfinderNote(con *console, who string, pf *sgvb.PathfinderPath) {
	if pf == nil || pf.Scored == 0 {
		return
	}
	end := "converged"
	if !pf.Converged {
		end = "not converged"
	}
	con.info("%sPathfinder: L-BFGS (%d iterations, %s), best of %d normals along the path: iterate %d, ELBO estimate %.6g ± %.2g", who, pf.Iterates, end, pf.Scored, pf.Iterate, pf.ELBO, pf.SE)
}

// describeFit summarises the fit's settings for the start line.
func describeFit(cfg *fitConfig, l *pipeline.Loaded) string {
	s := cfg.settings
	n := len(l.Model.Latents)
	what := fmt.Sprintf("%d latent%s (%d coordinate%s)", n, plural(n), l.Model.Dim, plural(l.Model.Dim))
	if s.Method == sgvb.MAP {
		return fmt.Sprintf("%s, MAP by L-BFGS, at most %d iterations", what, s.MaxIter)
	}
	if s.Method == sgvb.Laplace {
		return fmt.Sprintf("%s, Laplace: the mode by L-BFGS (at most %d iterations), the Hessian there by differences of the gradient", what, s.MaxIter)
	}
	if s.Method == sgvb.Pathfinder {
		paths := "one path"
		if cfg.restarts > 1 {
			paths = fmt.Sprintf("%d paths (seeds %d + r·2³², starts r ≥ 1 jittered by U(−%s, %s)) mixed", cfg.restarts, s.Seed, formatNum(cfg.jitter), formatNum(cfg.jitter))
			if cfg.initRadius > 0 {
				paths = fmt.Sprintf("%d paths (seeds %d + r·2³², starts r ≥ 1 random, U(−%s, %s) on the unconstrained scale) mixed", cfg.restarts, s.Seed, formatNum(cfg.initRadius), formatNum(cfg.initRadius))
			}
		}
		return fmt.Sprintf("%s, Pathfinder: %s, each L-BFGS (at most %d iterations) and the best by ELBO estimate (%d draws) of the normals along it (history %d)", what, paths, s.MaxIter, sgvb.PathfinderDraws, sgvb.PathfinderHistory)
	}
	if cfg.restarts > 1 {
		starts := fmt.Sprintf("restarts r ≥ 1 from starts jittered by U(−%s, %s)", formatNum(cfg.jitter), formatNum(cfg.jitter))
		switch {
		case cfg.inits != nil:
			starts = "each from its restart in " + cfg.init
		case cfg.initRadius > 0:
			starts = fmt.Sprintf("restarts r ≥ 1 from random starts, U(−%s, %s) on the unconstrained scale", formatNum(cfg.initRadius), formatNum(cfg.initRadius))
		case cfg.jitter == 0:
			starts = "all from the same start"
		}
		if s.InitPath {
			starts = "each from its own L-BFGS path, " + starts
		}
		return fmt.Sprintf("%s, %d restarts (r = 0–%d) of SGVB with %s, %s, seeds %d + r·2³², %s, at most %d iterations each", what, cfg.restarts, cfg.restarts-1, describeFactors(s, l), s.Optimizer, s.Seed, starts, s.MaxIter)
	}
	from := ""
	if s.InitPath {
		from = ", from an L-BFGS path"
	}
	return fmt.Sprintf("%s, SGVB%s with %s, %s, seed %d%s, at most %d iterations", what, describeBatch(cfg, l), describeFactors(s, l), s.Optimizer, s.Seed, from, s.MaxIter)
}

// khatCappedText is what the Pareto k̂ line adds where the fit's work
// capped k̂'s estimate again (sgvb.Result.ParetoKCapped): the draws it
// is from, and --khat-draws, which lifts the cap; "" where it did not,
// or where the estimate again left the band 0.5–1 (k̂ 1.58 from 9000
// draws: more would not change its reading).
func khatCappedText(r *sgvb.Result) string {
	if r.ParetoKCapped == 0 || r.ParetoKDraws > khatFinalDraws && !(r.ParetoK >= sgvb.KBandLow && r.ParetoK <= sgvb.KBandHigh) {
		return ""
	}
	return fmt.Sprintf("; from %d draws, not %d: a k̂ of %g–%g from the final %d draws is estimated again from at most %d times the fit's gradient draws in log joints of all the data (--khat-draws %d takes them)",
		r.ParetoKDraws, r.ParetoKCapped, sgvb.KBandLow, sgvb.KBandHigh, khatFinalDraws, khatCost, r.ParetoKCapped)
}

// khatCost is sgvb.Settings.ParetoKCost unless --khat-draws is given:
// k̂'s estimate again takes at most twice the fit's gradient draws in
// log joints of the whole data. A user trial's 100 000-row logistic
// regression by --minibatch N=1000 took 15.7 s of steps and 180 s more
// for the 10 000 draws of the full data; its 47 400 steps of 1 % of the
// data allow 948 more, so k̂ stays that of the final 1000 draws.
const khatCost = 2

// khatFinalDraws is the draws of q that k̂ is first estimated from
// (sgvb.Settings.PSISDraws's default, which gpp does not change).
const khatFinalDraws = 1000

// khatFreeValues bounds the data values times extra draws that k̂'s
// estimate again may read whatever the fit's work (khatFree): 10⁹, a few
// seconds of log joints, so small models (every bundled example) keep
// their 10 000 draws however few their steps.
const khatFreeValues = 1e9

// khatFree is sgvb.Settings.ParetoKFree for model m where s caps k̂'s
// estimate again (ParetoKCost): the extra draws that read at most
// khatFreeValues data values.
func khatFree(s sgvb.Settings, m *compile.Model) int {
	if s.ParetoKCost <= 0 {
		return 0
	}
	return int(min(khatFreeValues/float64(max(m.DataValues(), 1)), 1e9))
}

// describeBatch says how a minibatch fit subsamples: " on minibatches of
// 500 of 20000 rows (N)", or "".
func describeBatch(cfg *fitConfig, l *pipeline.Loaded) string {
	if cfg.settings.Minibatch == nil {
		return ""
	}
	n, _ := l.Model.Size(cfg.batchSize)
	return fmt.Sprintf(" on minibatches of %d of %d rows (%s)", cfg.batchRows, n, cfg.batchSize)
}

// setMinibatch compiles the minibatch model of --minibatch N=B into
// cfg.settings (gpp fit, :fit), or says why the model cannot be
// subsampled. B ≥ N is the full-data fit, with a note. A full-rank
// factor gets a warning: its natural-gradient steps on batch gradients
// ended with sds about 3 times too small on a regression of 20 000 rows
// with B = 200 (right with B = 2000; low-rank and mean-field factors,
// moved by the optimizer, within 30 %; docs/inference.md).
func setMinibatch(cfg *fitConfig, m *compile.Model) (notes []string, err error) {
	if cfg.batchSize == "" {
		return nil, nil
	}
	if n, ok := m.Size(cfg.batchSize); ok && cfg.batchRows >= n {
		return []string{fmt.Sprintf("note: --minibatch %s: the batch holds all %d rows: this is the full-data fit", cfg.minibatch, n)}, nil
	}
	bt, err := m.Minibatch(cfg.batchSize, cfg.batchRows)
	if err != nil {
		return nil, err
	}
	cfg.settings.Minibatch, cfg.batchN = pipeline.BatchTarget{B: bt}, bt.N
	if !cfg.iterSet {
		cfg.settings.MaxIter = defaultMinibatchIter
	}
	s := cfg.settings
	fullRank := s.Rank == 0 && s.Band == 0 && len(s.FullRankGroups) > 0
	for _, f := range s.Families {
		fullRank = fullRank || f == sgvb.FamilyFullRank
	}
	if fullRank {
		notes = append(notes, fmt.Sprintf("warning: --fullrank with --minibatch: a full-rank factor's natural-gradient steps shrink its covariance under the noise of small batches (at 200 of 20 000 rows, sds 6 times too small with --anneal 0, 0.74–0.95 times the full fit's with the default 4, right with 6; this fit: %d of %d rows): check against a larger batch or a larger --anneal, or use --rank", bt.B, bt.N))
	}
	return notes, nil
}

// readWarmStart reads the fit.json src of --init and sets the fit's warm
// start from it (initFits); false after printing an error.
func readWarmStart(cfg *fitConfig, src []byte, hash string, l *pipeline.Loaded, con *console, srcs sources) bool {
	ff, err := fitfile.Read(cfg.init, src)
	if err != nil {
		printError(con, err, srcs)
		return false
	}
	if ff.ModelSHA256 != hash {
		con.note("warning: %s was fitted to a different model source (%s); warm-starting by latent name and size", cfg.init, ff.Model)
	}
	if err := initFits(cfg, ff, l, con, srcs); err != nil {
		printError(con, err, srcs)
		return false
	}
	return true
}

// describeFactors counts the latents' factors by family, in the order the
// families first occur in the model: "gamma factors" when all are gamma,
// "2 gamma, 1 normal factors" when they are mixed, then the joint
// full-rank factors: "(a+b joint)".
func describeFactors(s sgvb.Settings, l *pipeline.Loaded) string {
	var fams []sgvb.Family
	count := map[sgvb.Family]int{}
	for _, lat := range pipeline.Latents(l.Model) {
		f, err := s.FamilyOf(lat)
		if err != nil { // reported by the fit itself
			continue
		}
		if count[f] == 0 {
			fams = append(fams, f)
		}
		count[f]++
	}
	joint := ""
	for _, g := range s.FullRankGroups {
		if s.Band > 0 {
			joint += fmt.Sprintf(" (%s banded, band %d)", strings.Join(g, "+"), s.Band)
			continue
		}
		if s.Rank > 0 {
			joint += fmt.Sprintf(" (%s joint, rank %d)", strings.Join(g, "+"), s.Rank)
			continue
		}
		joint += fmt.Sprintf(" (%s joint)", strings.Join(g, "+"))
	}
	if len(fams) == 1 {
		return fams[0].String() + " factors" + joint
	}
	parts := make([]string, len(fams))
	for i, f := range fams {
		parts[i] = fmt.Sprintf("%d %v", count[f], f)
	}
	return strings.Join(parts, ", ") + " factors" + joint
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// writeOutputs stages every output file and commits them together. It
// returns the names written. The files of an earlier fit in the directory
// that this one does not write (plots of a run with --plots, say, when this
// one has none) are removed with the commit, so that the directory holds
// one fit's files: fit.json lists them for the next run.
func writeOutputs(cfg *fitConfig, h drawsHeader, ds *drawSet, st []stats) ([]string, error) {
	var names []string
	files := []outputFile{
		{summaryFile, func(w io.Writer) error { return writeSummaryCSV(w, ds, st, cfg.percentilesOf(st)) }},
		{drawsFile, func(w io.Writer) error { return writeDrawsCSV(w, h, chosenDraws(ds, cfg.drawsParams)) }},
	}
	if !cfg.prior && cfg.predict == "" { // prior draws and predictions have no ELBO and no q for --init
		files = append(files, outputFile{elboFile, func(w io.Writer) error { return writeElboCSV(w, h) }},
			outputFile{fitFileName, func(w io.Writer) error {
				ff := newFitFile(h)
				ff.Labels = savedAxes(ds.vars)
				ff.Files = withoutUnplotted(names, cfg)
				ff.FileSHA256 = map[string]string{}
				for _, n := range ff.Files {
					if sum, ok := cfg.fileSums[n]; ok && n != fitFileName {
						ff.FileSHA256[n] = sum
					}
				}
				return fitfile.Write(w, ff)
			}})
	}
	if ds.loo != nil {
		files = append(files, outputFile{looFile, func(w io.Writer) error { return writeLOOCSV(w, ds) }})
	}
	files = append(files, h.heldOut.files()...)  // gpp predict's held-out lppd's terms, with log_lik on held-out data
	files = append(files, ds.heldOut.files()...) // a fit's, with log_lik on data it does not observe
	if h.evidence != nil {
		files = append(files, outputFile{evidenceFile, func(w io.Writer) error { return writeEvidenceJSON(w, &h.evidence.file) }})
	}
	if cfg.prof != nil {
		files = append(files, outputFile{profileFile, func(w io.Writer) error { return writeProfileCSV(w, cfg.prof) }})
	}
	if cfg.plots {
		files = append(files, plotFiles(h, ds)...)
	}
	for _, f := range files {
		names = append(names, f.name) // before the commit: fit.json lists them
	}
	return commitFiles(cfg, files, func(names []string) []string { return staleInDir(cfg.out, names) })
}

// maxTableRows is how many elements of one variable the console table
// shows (all of them with --verbose); summary.csv has every element.
const maxTableRows = 20

// printFitSummary prints the summary table and the fit's diagnostics.
func printFitSummary(w io.Writer, cfg *fitConfig, h drawsHeader, ds *drawSet, st []stats, written []string) {
	shown := printTable(w, cfg, h, ds, st)
	fmt.Fprintln(w)
	if h.mix != nil {
		printRestartsStatus(w, cfg, h.mix, h.resample, h.evidence, ds, st, written)
	} else {
		printFitStatus(w, cfg, h.r, h.resample, h.evidence, ds, written, tallyNarrow(ds.vars, h.narrow, shown))
	}
	if cfg.plots {
		pitChecks(cfg.ppc, ds, cfg.settings.Seed)
		printPITNotes(w, ds)
	}
}

// printLOOLines prints the console lines of the draws' LOO: PSIS-LOO's,
// then what --moment-match and --reloo did to it; gpp fit's (one q or a
// mixture of restarts) and gpp sample's alike.
func printLOOLines(w io.Writer, ds *drawSet) {
	printLOO(w, ds.loo)
	if line := ds.heldOut.text(); line != "" {
		fmt.Fprintln(w, line)
	}
	printMomentMatch(w, ds.mm)
	if ds.loo != nil {
		printReloo(w, ds.rl, ds.loo.ELPD)
	}
}

// printTable prints the summary table: a row per element of every latent
// and output, at most maxTableRows per variable without --verbose. It
// returns how many sds it marked too small (h.narrow): those of elements
// past the rows shown are not.
func printTable(w io.Writer, cfg *fitConfig, h drawsHeader, ds *drawSet, st []stats) narrowTally {
	pc := cfg.percentilesOf(st)
	head := pc.hdiHead(pc.head([]string{"name", "family", "mean", "sd"}, "", "%"))
	if h.mix != nil {
		head = append(head, "R̂")
	}
	t := headedTable(head, 2)
	var marked narrowTally // the sds marked too small (h.narrow)
	queried, mild := 0, 0  // and unchecked (h.unchecked), and mildly too small (h.mild)
	for _, v := range ds.vars {
		for j, k := range v.elems {
			if j == maxTableRows && !cfg.verbose {
				t.note(fmt.Sprintf("... %d more elements of %s (all in %s)", len(v.elems)-j, v.name, filepath.Join(cfg.out, summaryFile)))
				break
			}
			s := st[v.first+j]
			row := pc.cells([]string{v.elemName(k), v.familyOf(k), cfg.num(s.mean), sdCell(cfg.num(s.sd), &v, k, sdMarks{h.narrow, h.unchecked, h.mild}, &marked, &queried, &mild)}, v.first+j, cfg.num)
			row = pc.hdiCells(row, s, cfg.num)
			if h.mix != nil {
				row = append(row, rhatText(s.rhat))
			}
			t.row(markFinite(row, 2, s)...)
		}
	}
	t.print(w)
	printMarkNotes(w, marked.shownParams+marked.shownOutputs, queried, mild)
	return marked
}

// narrowTally counts the sds narrowSds calls too small, of params and of
// outputs (by the delta method), and how many of each the table marks,
// so that the Pareto line counts only what the table marks and the hint
// names: a trial's line read "12 sds are too small (hint below)", twelve
// log_lik elements past the rows shown, under a hint naming b0 alone.
type narrowTally struct {
	params, outputs           int
	shownParams, shownOutputs int
	outVars                   []string // the outputs with such elements, in the table's order
}

// tallyNarrow counts the elements of vars that narrow names; shown holds
// the table's marks (printTable's).
func tallyNarrow(vars []variable, narrow map[string]bool, shown narrowTally) narrowTally {
	t := narrowTally{shownParams: shown.shownParams, shownOutputs: shown.shownOutputs}
	if len(narrow) == 0 {
		return t
	}
	for _, v := range vars {
		n := 0
		for _, k := range v.elems {
			if narrow[v.elemName(k)] {
				n++
			}
		}
		switch {
		case n == 0:
		case v.output:
			t.outputs += n
			t.outVars = append(t.outVars, v.name)
		default:
			t.params += n
		}
	}
	return t
}

// printMarkNotes prints the lines under the table that explain its marks:
// narrowNote where marked sds are marked *, mildNote where mild are
// marked ~, uncheckedNote where queried are marked ?.
func printMarkNotes(w io.Writer, marked, queried, mild int) {
	if marked > 0 {
		fmt.Fprintln(w, narrowNote)
	}
	if mild > 0 {
		fmt.Fprintln(w, mildNote)
	}
	if queried > 0 {
		fmt.Fprintln(w, uncheckedNote)
	}
}

// sdMarks are the elements the table's sd cells mark (narrowSds): * for
// narrow, ? for unchecked, ~ for mild.
type sdMarks struct {
	narrow, unchecked, mild map[string]bool
}

// sdCell returns the table's sd cell of element k of v, cell the sd as
// printed: marked with * (counted in *marked) where m.narrow names it,
// with ? (counted in *queried) where m.unchecked does, with ~ (counted in
// *mild) where m.mild does, padded with a space where others are marked,
// so that the digits align.
func sdCell(cell string, v *variable, k int, m sdMarks, marked *narrowTally, queried, mild *int) string {
	narrow, unchecked := m.narrow, m.unchecked
	switch name := v.elemName(k); {
	case narrow[name]:
		if v.output {
			marked.shownOutputs++
		} else {
			marked.shownParams++
		}
		return cell + "*"
	case unchecked[name]:
		*queried++
		return cell + "?"
	case m.mild[name]:
		*mild++
		return cell + "~"
	case len(narrow) > 0 || len(unchecked) > 0 || len(m.mild) > 0:
		return cell + " "
	}
	return cell
}

// narrowNote explains the table's marks of sds too small (narrowSds).
// The ratio is worded as a lower bound: the curvature at q's mode is a
// local normal view, and a sensory trial's sds that the hint read 1.5–1.6×
// too small were 1.9× by NUTS.
var narrowNote = fmt.Sprintf("* q's sd is at least %.1f× too small by the log density's curvature at q's mode (a local normal view: the posterior's sd is often wider still): a mean-field q cannot represent how these params move together, and its intervals are too narrow (hint below); an output's mark is the same reading of it by the delta method (its gradient at q's mode), which sees no tail: a ratio whose denominator can come near 0 may be far wider than q says, marked or not", curvRatio)

// mildNote explains the table's ~ marks (narrowSds' mild: mildRatio to
// curvRatio). A road-safety trial's before-after study read its
// treatment effect theta 1.42× too small, unmarked (NUTS: 1.46×), while
// the nuisance params over 1.5× were marked *: the CMF's 90 % interval,
// the number reported, was a third too narrow.
var mildNote = fmt.Sprintf("~ q's sd is at least %g× (and under %.1f×) too small by the same curvature (often more): below the hint's %.1f×, but an interval so marked that a study reports deserves gpp sample --against (or --fullrank auto)", mildRatio, curvRatio, curvRatio)

// uncheckedNote explains the table's ? marks (narrowSds' unchecked).
const uncheckedNote = "? not checked: the log density at q's mode bends the wrong way along this element (most often a funnel's scale), so the curvature check left it out and no mark says whether its sd is right; a funnel's scale under a mean-field q often has its sd and mean far too small: gpp sample (NUTS) --against checks them"

// narrowSds returns the elements, by the table's names, whose sds the
// curvature hint calls too small (curvCheck.bad at curvRatio; an ordered
// or simplex param's elements by elementRatios), and the output elements
// it reads so by the delta method (badOutputs), for the table's * marks:
// a newcomer reads the table, not the hint below it (a logistic
// regression's slope at sd 0.0385 against NUTS's 0.086). unchecked names
// those a partial check left out (uncheckedNames), for the ? marks: an
// MRP trial's sd_e, a funnel's scale, read 0.057 ± 0.041 unmarked where
// NUTS gave 0.357 ± 0.227. None where the hint is not given: no
// curvature check, or a far start, after which no parameterisation hint
// is (fitHints).
func narrowSds(s sgvb.Settings, r *sgvb.Result, mix *sgvb.Mixture, curv *curvCheck) (narrow, unchecked, mild map[string]bool) {
	if curv == nil || farStartHint(s, r, mix) != "" {
		return nil, nil, nil
	}
	add := func(m *map[string]bool, name string) {
		if *m == nil {
			*m = map[string]bool{}
		}
		(*m)[name] = true
	}
	read := curv.elemsRead()
	for _, i := range curv.bad(curvRatio) {
		if !read[curv.r.Factors[curv.lats[i]].Name] { // a coordinate, not an element: its elements' ratios below
			add(&narrow, curv.names[i])
		}
	}
	for _, name := range curv.badElems(curvRatio) {
		add(&narrow, name)
	}
	for _, name := range curv.badOutputs(curvRatio) {
		add(&narrow, name)
	}
	for _, name := range curv.uncheckedNames() {
		if !narrow[name] {
			add(&unchecked, name)
		}
	}
	// mildRatio to curvRatio: the same readings, marked ~
	var mildNames []string
	for _, i := range curv.bad(mildRatio) {
		if !read[curv.r.Factors[curv.lats[i]].Name] {
			mildNames = append(mildNames, curv.names[i])
		}
	}
	mildNames = append(mildNames, curv.badElems(mildRatio)...)
	mildNames = append(mildNames, curv.badOutputs(mildRatio)...)
	for _, name := range mildNames {
		if !narrow[name] && !unchecked[name] {
			add(&mild, name)
		}
	}
	return narrow, unchecked, mild
}

// printFitStatus prints the lines after the summary table: the ELBO (or
// the log joint at a MAP estimate), the iterations with how the fit ended,
// the Pareto k̂ and the files written. narrow counts the sds the
// curvature calls too small and those the table above marks.
func printFitStatus(w io.Writer, cfg *fitConfig, r *sgvb.Result, ro *resampleOutcome, ev *evidenceOutcome, ds *drawSet, written []string, narrow narrowTally) {
	switch r.Method {
	case sgvb.MAP:
		fmt.Fprintf(w, "log joint    %.6g (at the MAP estimate)\n", r.ELBO)
	case sgvb.Laplace: // q's ELBO by its draws, as an SGVB fit's: the two compare
		fmt.Fprintf(w, "ELBO         %.6g ± %.2g (of q = N(mode, (-H)^-1), from its draws)\n", r.ELBO, r.ELBOSE)
	case sgvb.Pathfinder:
		fmt.Fprintf(w, "ELBO         %.6g ± %.2g (of q, the normal at iterate %d of the L-BFGS path, from its draws)\n", r.ELBO, r.ELBOSE, r.Pathfinder.Iterate)
	default:
		fmt.Fprintf(w, "ELBO         %.6g ± %.2g\n", r.ELBO, r.ELBOSE)
	}
	end := fitEnd(cfg, r)
	if r.Averaged > 0 {
		end += fmt.Sprintf("; q is the mean of the last %d iterates", r.Averaged)
	}
	fmt.Fprintf(w, "iterations   %d (%s)\n", r.Iterations, end)
	switch {
	case r.Method == sgvb.MAP:
	case sgvb.Overflows(r.ELBO, r.ELBOSE):
		fmt.Fprintf(w, "Pareto k̂     %s (no reading: the ELBO overflows, so the weights p/q of q's draws mean nothing)\n", kText(r.ParetoK))
	default:
		line := paretoLine(r.ParetoK, r.ParetoReading, r.ParetoRelESS, r.ParetoKDraws)
		if narrow.params+narrow.outputs > 0 && !sgvb.ParetoAlarm(r.ParetoK, r.ParetoRelESS) {
			line += narrowText(narrow) // k̂ reads the bulk of q's draws; a q too narrow can pass it
		}
		fmt.Fprintf(w, "Pareto k̂     %s%s\n", line, khatCappedText(r))
	}
	printResample(w, cfg, ro)
	printEvidenceLine(w, ev)
	printLOOLines(w, ds)
	if len(written) > 0 {
		fmt.Fprintf(w, "written      %s: %s\n", cfg.out, strings.Join(written, " "))
	}
}

// narrowText is the Pareto line's clause counting the sds too small by
// the curvature (narrow's), params' and outputs' apart, each where the
// reader finds it: marked * above, or past the rows shown and named in
// the hint below (curvatureHint, outputsCurvHint).
func narrowText(narrow narrowTally) string {
	part := func(n, shown int, noun string) (what, where string) {
		what = fmt.Sprintf("%d %s", n, noun)
		switch {
		case shown == n:
			what += " marked * above"
		case shown == 0: // past the rows shown
			where = " (hint below)"
		default:
			where = fmt.Sprintf(" (%d marked * above)", shown)
		}
		return what, where
	}
	are := func(n int) string {
		if n == 1 {
			return "is"
		}
		return "are"
	}
	line := ""
	if n := narrow.params; n > 0 {
		what, where := part(n, narrow.shownParams, "sd"+plural(n))
		line = fmt.Sprintf("; but %s %s too small by the curvature%s", what, are(n), where)
	}
	if n := narrow.outputs; n > 0 {
		what, where := part(n, narrow.shownOutputs, fmt.Sprintf("output sd%s of %s", plural(n), joinAnd(narrow.outVars)))
		if line == "" {
			line = fmt.Sprintf("; but %s %s too small by the curvature%s", what, are(n), where)
		} else {
			line += fmt.Sprintf(", and so %s %s%s", are(n), what, where)
		}
	}
	return line
}

// tookLine says how long the fit (what: "fit", or "fits" of restarts)
// took, fit seconds with its final estimate, and where the work after it
// (the output draws, their summary and checks, the files) took
// outputsSaid or more, how long that took too: a user's "fit took 2.22
// s" came 11.8 s into a run whose Skellam outputs over 1000 draws × 1900
// matches took the rest.
func tookLine(what string, fit float64, outputs time.Duration) string {
	line := fmt.Sprintf("%s took %.3g s", what, fit)
	if outputs >= outputsSaid {
		line += fmt.Sprintf("; its outputs (draws, summary, checks, files) took %.3g s more, %.3g s in all", outputs.Seconds(), fit+outputs.Seconds())
	}
	return line
}

// outputsSaid is how long the outputs of a fit take before the fit's
// last line (tookLine) says so.
const outputsSaid = time.Second

// paretoLine formats k̂ with its reading. k̂ = −Inf means the largest
// importance ratios p/q are equal, so that they have no tail at all, which
// the line says in words. It does not say that q is the posterior: the
// ratios of a mixture of restarts that split 3:1 over two equal modes take
// two values, the larger in a quarter of the draws. A k̂ above 0.7 whose
// tail is negligible (sgvb.TailNegligible) keeps its number, with the
// relative ESS of the weights and the bound cv·sd on how far
// reweighting the draws by p/q can move a mean (sgvb.NegligibleCV).
// Weights of S draws that are degenerate (sgvb.Degenerate), or whose ESS
// is below the draws k̂ needs (sgvb.ESSBelowMin), are read unreliable
// whatever k̂, and a k̂ of 0.7 or less says why (above, its warning does).
func paretoLine(k float64, reading string, relESS float64, S int) string {
	switch {
	case sgvb.Degenerate(relESS, S) && k <= 0.7 && !math.IsInf(k, -1):
		return fmt.Sprintf("%s (%s whatever k̂ says: the weights p/q of the %d draws of q have an ESS of %.2g, so one draw holds more than half of their weight and k̂ is fitted to the tail of the others; q is far from the posterior, or the fit stopped early)",
			kText(k), reading, S, relESS*float64(S))
	case sgvb.ESSBelowMin(k, relESS, S):
		return fmt.Sprintf("%s (%s whatever k̂ says: the weights p/q of the %d draws of q keep an ESS of %s (%.2g %%), below the %.0f draws that Pareto smoothing needs at k̂ %s (10^(1/(1 − k̂)), Vehtari et al. 2024): q is far from the posterior, often too narrow; gpp sample --against compares it with NUTS)",
			kText(k), reading, S, num3(relESS*float64(S)), 100*relESS, math.Ceil(sgvb.PSISMinSS(k)), kText(k))
	case math.IsInf(k, -1):
		return "-Inf (" + reading + ": the largest importance ratios are equal, so they have no tail)"
	case sgvb.TailNegligible(k, relESS):
		return fmt.Sprintf("%s (%s: the weights p/q are near-uniform, ESS %.3g %%, so reweighting by them moves no mean of q by more than %.2g sd)",
			kText(k), reading, 100*relESS, sgvb.WeightsCV(relESS))
	case k <= 0.7 && relESS < lowRelESS:
		return fmt.Sprintf("%s (%s, but the weights p/q keep a relative ESS of %.2g %%: q is farther from the posterior than k̂ alone says, often too narrow; "+
			"gpp sample --against compares it with NUTS)", kText(k), reading, 100*relESS)
	}
	return kText(k) + " (" + reading + ")"
}

// lowRelESS is the relative ESS of the weights p/q below which a k̂ of 0.7
// or less is read with a caution (paretoLine): the bundled fits that
// match NUTS keep 0.44–0.93 (regression, gp, sir), while ordinal's
// mean-field q, its cutpoints' sds 0.73–1.23 times NUTS's, keeps 0.008
// at k̂ 0.67, and a 200 000-row Poisson regression stopped with sds 25–33
// % too small keeps 0.075 at k̂ 0.59 (a user trial of 2026-11-30).
const lowRelESS = 0.1

// kText is num3 for a Pareto k̂, with more digits where 3 would round it
// onto the 0.5 or 0.7 that its reading compares it with (sgvb.FormatK).
func kText(k float64) string {
	if s, ok := fitfile.FormatWhole(k); ok {
		return s
	}
	return sgvb.FormatK(k, 'g', 3)
}

// num3 formats a number for the console with 3 significant digits, as
// Stan's print does.
func num3(v float64) string { return numSig(v, 3) }

// numSig formats v to sig significant digits, a whole number in full, and
// one below 10⁶ with more digits than sig rounded to a whole number.
func numSig(v float64, sig int) string {
	if math.IsNaN(v) {
		return "NaN"
	}
	if s, ok := fitfile.FormatWhole(v); ok {
		return s
	}
	if a := math.Abs(v); a >= math.Pow10(sig)-0.5 && a < 1e6 {
		// A year's mean reads 1891, not 1.89e+03 beside its draws'
		// whole-number quantiles 1887 and 1895.
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', sig, 64)
}

// allGroup splits the params named in group (in declaration order) into
// those a joint full-rank factor of at most sgvb.MaxFullRank elements
// takes, the smallest first (a hierarchical model's global params before
// its group effects), and the others, each in declaration order.
func allGroup(m *compile.Model, group []string) (in, left []string) {
	bySize := slices.Clone(group)
	slices.SortStableFunc(bySize, func(a, b string) int { return fullRankElems(latentNamed(m, a)) - fullRankElems(latentNamed(m, b)) })
	take := map[string]bool{}
	n := 0
	for _, name := range bySize {
		if size := fullRankElems(latentNamed(m, name)); n+size <= sgvb.MaxFullRank {
			take[name] = true
			n += size
		}
	}
	for _, name := range group {
		if take[name] {
			in = append(in, name)
		} else {
			left = append(left, name)
		}
	}
	return in, left
}

// fullRankElems returns the number of elements of lat in a full-rank
// factor: its size, or K − 1 per row of K of a simplex (its stick-breaking
// coordinates).
func fullRankElems(lat *compile.Latent) int {
	if lat.Support == dist.Simplex && len(lat.Shape) > 0 && lat.Shape[len(lat.Shape)-1] >= 2 {
		k := lat.Shape[len(lat.Shape)-1]
		return lat.Size / k * (k - 1)
	}
	return lat.Size
}

// checkFullRank checks the latents that --fullrank names: each must be a
// param of the model that sgvb.CheckFullRank accepts, and a group (a+b) at
// most sgvb.MaxFullRank elements in all. --fullrank all (Families' only
// name) becomes the group of every param that can take part (the
// smallest that fit in sgvb.MaxFullRank elements), or that param's own
// full-rank factor when there is one; the others keep their factors, each
// with a note. Errors about a param are positioned at its
// declaration.
func checkFullRank(s *sgvb.Settings, m *compile.Model) (notes []string, err error) {
	if s.Method.JointNormal() {
		return nil, checkLaplace(m, s.Method)
	}
	if _, all := s.Families["all"]; all && len(s.Families) == 1 && len(s.FullRankGroups) == 0 && latentNamed(m, "all") == nil {
		var group []string
		n := 0
		for _, lat := range m.Latents {
			if !lat.Support.IsOrdered() && sgvb.CheckFullRank(lat.Support, 1) != nil { // an ordered one by its coordinates, x_0 (or log x_0) and the log increments
				notes = append(notes, fmt.Sprintf("--fullrank all: %s (%s) keeps its own factor, outside the joint full-rank one", lat.Name, lat.Support))
				continue
			}
			if lat.Support == dist.Simplex && (s.Rank > 0 || s.Band > 0) {
				notes = append(notes, fmt.Sprintf("--fullrank all: %s (simplex) keeps its Dirichlet factor: a simplex joins full-rank factors, not low-rank or banded ones", lat.Name))
				continue
			}
			group = append(group, lat.Name)
			n += fullRankElems(&lat)
		}
		delete(s.Families, "all")
		if s.Rank > 0 { // every one: a low-rank factor has no MaxFullRank
			if len(group) == 0 {
				return nil, fmt.Errorf("--fullrank all: the model has no real, positive, bounded, ordered or matrix params for a low-rank factor")
			}
			if err := sgvb.CheckLowRank(n, s.Rank); err != nil {
				return nil, fmt.Errorf("--fullrank all --rank %d: %v", s.Rank, err)
			}
			s.FullRankGroups = [][]string{group}
			return notes, nil
		}
		if n > sgvb.MaxFullRank {
			var left []string
			group, left = allGroup(m, group)
			for _, name := range left {
				notes = append(notes, fmt.Sprintf("--fullrank all: %s (%d elements) keeps its own factor: the joint full-rank one holds at most %d elements, the smallest params first; name a group to choose (--fullrank a+b)", name, fullRankElems(latentNamed(m, name)), sgvb.MaxFullRank))
			}
		}
		switch {
		case len(group) == 0:
			return nil, fmt.Errorf("--fullrank all: the model has no real, positive, bounded, simplex, ordered or matrix params for a full-rank factor of at most %d elements", sgvb.MaxFullRank)
		case len(group) == 1:
			s.Families[group[0]] = sgvb.FamilyFullRank
		default:
			s.FullRankGroups = [][]string{group}
		}
		return notes, nil
	}
	names := make([]string, 0, len(s.Families))
	for name := range s.Families {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, g := range s.FullRankGroups {
		names = append(names, g...)
	}
	size := map[string]int{}
	for _, name := range names {
		lat := latentNamed(m, name)
		if lat == nil {
			var have []string
			for _, l := range m.Latents {
				have = append(have, l.Name)
			}
			return nil, fmt.Errorf("--fullrank %s: the model has no param %s (its params: %s)", name, name, strings.Join(have, ", "))
		}
		if lat.Support.IsOrdered() && s.Band > 0 {
			return nil, &ast.Error{Pos: lat.Pos, Msg: fmt.Sprintf("--fullrank %s --band %d: an ordered param joins full-rank and low-rank factors, not banded ones (a chain of states and a few globals)", name, s.Band)}
		}
		checkSize := fullRankElems(lat)
		if s.Rank > 0 || s.Band > 0 { // the support alone: a low-rank or banded factor has no MaxFullRank
			checkSize = 1
			if lat.Support == dist.Simplex {
				return nil, &ast.Error{Pos: lat.Pos, Msg: fmt.Sprintf("--fullrank %s: a simplex joins full-rank factors only (its stick-breaking coordinates are not implemented for low-rank or banded ones)", name)}
			}
		}
		sup := lat.Support
		if sup.IsOrdered() { // by its coordinates, x_0 (or log x_0) and the log increments: its size only
			sup = dist.Real
		}
		if err := sgvb.CheckFullRank(sup, checkSize); err != nil {
			return nil, &ast.Error{Pos: lat.Pos, Msg: fmt.Sprintf("--fullrank %s: %v", name, err)}
		}
		size[name] = fullRankElems(lat)
	}
	for _, g := range s.FullRankGroups {
		n := 0
		for _, name := range g {
			n += size[name]
		}
		if s.Band > 0 {
			if ng := n - size[g[0]]; ng > sgvb.MaxArrow {
				return nil, fmt.Errorf("--fullrank %s --band %d: %d elements after the chain %s; an arrowhead factor takes the chain first and at most %d global elements after it", strings.Join(g, "+"), s.Band, ng, g[0], sgvb.MaxArrow)
			}
			continue
		}
		if s.Rank > 0 {
			if err := sgvb.CheckLowRank(n, s.Rank); err != nil {
				return nil, fmt.Errorf("--fullrank %s --rank %d: %v", strings.Join(g, "+"), s.Rank, err)
			}
			continue
		}
		if n > sgvb.MaxFullRank {
			return nil, fmt.Errorf("--fullrank %s: %d elements; a joint full-rank factor has at most %d (docs/inference.md)", strings.Join(g, "+"), n, sgvb.MaxFullRank)
		}
	}
	return nil, nil
}

// checkLaplace checks that every param of m can take part in the joint
// normal of a Laplace or Pathfinder fit (method), an error positioned at
// the declaration of one that cannot, and that they have at most
// sgvb.MaxLaplace unconstrained coordinates in all.
func checkLaplace(m *compile.Model, method sgvb.Method) error {
	n := 0
	for _, lat := range m.Latents {
		if lat.Support.IsOrdered() { // by its coordinates, x_0 (or log x_0) and the log increments
			n += lat.Size
			continue
		}
		if err := sgvb.CheckFullRank(lat.Support, 1); err != nil {
			return &ast.Error{Pos: lat.Pos, Msg: fmt.Sprintf("--family %s: %s: %v", method, lat.Name, err)}
		}
		n += fullRankElems(&lat)
	}
	if n > sgvb.MaxLaplace {
		what := "the Laplace approximation takes at most %d (its Hessian costs 2 gradients a coordinate and its Cholesky factor O(n³))"
		if method == sgvb.Pathfinder {
			what = "a Pathfinder fit takes at most %d (its q is a dense normal, its factor O(n³))"
		}
		return fmt.Errorf("--family %s: the model has %d unconstrained coordinates; "+what+": fit it by SGVB, the default", method, n, sgvb.MaxLaplace)
	}
	return nil
}

// latentNamed returns the model's latent of that name, or nil.
func latentNamed(m *compile.Model, name string) *compile.Latent {
	for i := range m.Latents {
		if m.Latents[i].Name == name {
			return &m.Latents[i]
		}
	}
	return nil
}

// gammaBadNote follows a fit that stopped at non-finite steps with gamma
// factors, the default start being fine. Two causes fit that: the model
// fails on part of its params' declared support (a covariance positive
// definite only for some values, a spatial trial's add_diag(K, sigma² −
// 0.5)), which only a bound in the declaration or the model mends; or a
// gamma factor's start at shape 1, an exponential, whose draws near 0 can
// make the log density non-finite where the posterior puts no mass (a
// scale so small that a probability rounds to 1, as in Stan's golf model's
// 2 * Phi(z) - 1), which a start from the L-BFGS path, or a lognormal
// factor (sdlog 0.1), avoids.
const gammaBadNote = "hint: the error above happens at draws of q, not at the default start: if the model fails on part of its params' declared support (a value or matrix that is valid only for some of them), state that bound in the declaration (one that moves with another param through a free param: docs/language.md, Bounds that depend on params) or write the model so it holds; if it fails only near 0, a gamma factor starts as wide as an exponential (shape 1), whose draws near 0 the posterior may give no mass: --init path (a start near the mode) or --family lognormal (sdlog 0.1) starts narrower"

// ranStartNote follows a failed fit that took good steps although its log
// density fails at the default start and around it (startNote).
const ranStartNote = "the error above happens at a fit's default start too " + defaultStartRule + " and around it, though the fit found points where it does not: its cause is in the model or its data (a value or matrix valid only for some params' values), not in where the fit wandered; gpp check finds it before a fit"

// failedFitNotes explains a fit that failed with err (r its last state, if
// any): a hint for an exp that overflowed, and whether the log density
// fails at the start too, from the data alone, or only where the fit went.
// gpp fit and the REPL's :fit share it.
func failedFitNotes(con *console, err error, r *sgvb.Result, l *pipeline.Loaded, cfg *fitConfig) {
	if h := expOverflowHint(err, l.File); h != "" {
		con.note("hint: %s", h)
	}
	serr := startError(context.Background(), l.Model)
	switch {
	case autodiff.NoStartHelps(serr):
		con.note("%s", startNoteFor(serr))
	case serr == nil:
		// a data value that overflows (autodiff.HugeDataNote) is to
		// mend, not the bounds or q's start
		if gammaBadSteps(r) && (err == nil || !strings.Contains(err.Error(), autodiff.HugeDataNote)) {
			con.note("%s", gammaBadNote)
		}
	case cfg.init != "" && cfg.init != initPath:
		// The start is --init's values (the latents' Init), not the
		// default start that startNote and gpp check speak of.
		con.note("the log density fails at the start that --init %s gives and around it, where the fit begins: start elsewhere", cfg.init)
	case r != nil && r.Iterations > r.BadSteps:
		// The fit found points where the density is finite, so
		// startNote's "fails at the start" would read as contradicting
		// the steps it took: say what the failure at the start means.
		con.note("%s", ranStartNote)
	default:
		// The log density fails where gpp check tries it too: the cause
		// is in the model or its data, not in where the fit wandered.
		con.note("%s; gpp check finds this before a fit, and --init FILE (a .json of the params' values, CmdStan's init file) starts a fit elsewhere (a wide prior's mean, as LogNormal(0, 6)'s e^18, may be far from where the model holds)", startNote)
	}
}

// addFullRankItem gives the params names, one item of --fullrank (a, a+b
// or all), their factor in s: one param's (or all's) full-rank family
// where neither --rank nor --band is set, else a group of them (with
// --rank or --band, one param is a group of one).
func addFullRankItem(s *sgvb.Settings, names []string, rank, band int) {
	if len(names) == 1 && (rank == 0 && band == 0 || names[0] == "all") {
		s.Families[names[0]] = sgvb.FamilyFullRank
		return
	}
	s.FullRankGroups = append(s.FullRankGroups, names)
}

// gammaBadSteps reports whether r stopped with non-finite steps while some
// latent had a gamma factor.
func gammaBadSteps(r *sgvb.Result) bool {
	if r == nil || r.BadSteps == 0 {
		return false
	}
	for _, f := range r.Factors {
		if f.Family == sgvb.FamilyGamma {
			return true
		}
	}
	return false
}
