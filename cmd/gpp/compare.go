package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
)

const compareSynopsis = "compare FIT1 FIT2 [FIT3 ...] [--ic loo|waic] [--weights METHOD | --evidence] [--csv FILE] [--plot FILE.png]"

const compareHelpText = `Compares fits by their estimated leave-one-out predictive accuracy,
elpd_loo, as R's loo::loo_compare and ArviZ's compare do. Each FIT is an
output directory of gpp fit or gpp sample (its --out) or the loo.csv in one:
both write loo.csv when the model has an output log_lik (each observation's
log likelihood), gpp sample's from the NUTS draws. A FIT may also be gpp
kfold's output directory or its kfold.csv: its row gives elpd_kfold, p_kfold
and the k̂ of each held-out observation's estimate (kfold.csv's pareto_k).
As in loo::loo_compare, a table of K-fold rows alone is headed "K-fold
comparison" with columns elpd_kfold and p_kfold, and one mixing them with
LOO rows has columns elpd and p (--csv too). The fits must be of
the same observations: their files must name the same observations in the
same order.

The table ranks the fits by elpd_loo, best first. elpd_diff is a fit's
elpd_loo less the best's (0 for the best) and se_diff its standard error,
√n·sd(elpd_i − elpd_i,best) over the paired differences of the
observations' elpd_loo (Vehtari, Gelman and Gabry 2017). A difference
smaller than about 2·se_diff, or than 4 nats, is not a clear preference.
p_loo is the effective number of parameters, and "k̂ > 0.7" counts the
observations whose elpd_loo is unreliable. A fit whose loo.csv records
per_observation_params (its log_lik reads a param with an element per
observation, or one read through an index that gives most observations
an element of their own, such as a spatial model's phi[area], where
PSIS-LOO is unreliable and typically too optimistic: compare elpd_kfold,
or integrate the param out where it has a closed form) is marked * and
warned of. Two fits of one model (the same model text, by its sha256,
and --set values) and the same data differ only by their approximations'
error: a note says so and names the one to read (a NUTS sample, else the
one with fewer observations flagged), and the other is left out of the
weights, which mean nothing between copies of one model; where the
other's elpd_loo is the higher with observations flagged, its PSIS
estimate is the optimistic one. A LOO row with k̂ above 0.7 for more
than 10% of its observations is marked ?: its elpd_loo is unreliable
as a whole (a q that misses the posterior flags most observations at
once, and its estimate moves with the number of draws), and so are elpd_diff and
se_diff against it; it gets no weight (-, NaN in --csv), the other fits
being weighed among themselves, and none is weighed when fewer than two
fits are left. A note names each such fit's share and what gives a
reliable estimate: gpp sample, or a refit that brings k̂ down
(--fullrank auto or all, --rank K); more --output-draws does not. The
model column is the model file (and --set values) from the fit.json beside loo.csv, marked
"(Laplace)" for a fit of --family laplace, "(Pathfinder)" for one of
--family pathfinder (for a sample, from its
draws.csv, marked "(NUTS)"). A warning says when two fits observe other
data: their fit.json (or a sample's draws.csv header, or kfold.json)
records the sha256 of the values of each datum the model observes (its
~ and target += score them, as log_lik does), and a warning names those
whose values differ; fits of the same observations read beside other
covariate files get none. Where a fit records no such hash (written by
an older gpp), the warning is of other data files: files of other
contents (by their sha256, so one file named by two paths is the same
data) or bound otherwise.

The weight column weighs the fits as loo::loo_model_weights and ArviZ's
compare do (Yao, Vehtari, Simpson and Gelman 2018), by --weights:
stacking (the default) finds the mixture of the fits' leave-one-out
predictive distributions that scores best, maximising
Σ_i log Σ_k w_k exp(elpd_loo of fit k at observation i) over weights
that sum to 1: a fit gets weight 0 when it adds nothing to the mixture
of the others, because it predicts worse or because another predicts as
it does, so a fit of weight 0 need not be poor on its own. Where no
elpd_diff is a clear preference yet one fit holds 0.9 of the weight or
more, a note says to read that weight as "enough alone", not "best".
pseudo-bma+ gives weights ∝ exp(elpd_loo) averaged over 1000
Bayesian-bootstrap draws of the observations (seeded by --seed, which
only it takes), which keeps weight on a fit not clearly worse;
pseudo-bma gives the plain weights ∝ exp(elpd_loo), which go to the
best fit once the totals differ by a few nats. A fit whose elpd_loo is
not a number at some observation (so its total is not either) is listed
last, with a warning naming that observation's line, and left out of the
weights (NaN), which weigh the other fits among themselves; no weights
are given (NaN, with a warning) when an observation's elpd_loo is -inf
in every fit.

With --ic waic the fits are ranked by WAIC instead, as loo::waic
computes it (Vehtari, Gelman and Gabry 2017) from the output draws of
log_lik, each weighing the same: elpd_waic_i = lppd_i − p_waic_i, with
lppd_i = log mean_s exp(log_lik_is) and p_waic_i the variance of
log_lik_is over the draws; loo.csv holds both (elpd_waic, p_waic), and
one written before gpp wrote them is still read by LOO but refused by
--ic waic. The table is headed "WAIC comparison", with columns
elpd_waic and p_waic, and "p_waic > 0.4" counts the observations for
which the loo package warns that WAIC is unreliable and recommends
PSIS-LOO; the weights are of elpd_waic. A gpp fit's WAIC is q's: from
q's draws without PSIS-LOO's weights p/q, it is not the posterior's
where q misses it, which PSIS-LOO's k̂ shows; a gpp sample's is the
usual one. The loo package recommends PSIS-LOO over WAIC.

With --evidence the fits are ranked by their log evidence log p(y) from
the evidence.json of gpp fit --evidence (importance sampling from q) or
gpp sample --evidence (bridge sampling from the NUTS draws) instead,
with log Bayes factors against the best and posterior model
probabilities under equal prior odds (bridgesampling's bayes_factor and
post_prob; --prior-prob P1,P2,... gives the models' prior probabilities
in the order of the fits); they need no log_lik. Unlike LOO they depend
on the priors: a vaguer prior lowers p(y) however well the model predicts.
`

// looFit is one fit's leave-one-out estimate as gpp compare reads it from
// loo.csv, per observation.
type looFit struct {
	path     string            // the loo.csv
	label    string            // the fit: its directory, or the file when not named loo.csv
	model    string            // the model file and --set values from fit.json, or ""
	modelSum string            // the model text's sha256 (fit.json's model_sha256; "": unknown)
	sets     string            // the --set values as model ends with them
	data     []string          // the data files from fit.json (nil: unknown)
	dataHash []string          // their contents' sha256 from fit.json (nil: unknown)
	observed map[string]string // the observed data's sha256 by name (nil: unknown)
	covs     map[string]string // the other data's sha256 by name (nil: unknown)
	names    []string          // the observations (log_lik elements)
	line     []int             // the line of each observation's row
	elpd     []float64
	p        []float64
	k        []float64
	// waicElpd and waicP are loo.csv's elpd_waic and p_waic (nil: an
	// older loo.csv without them, or a kfold.csv), header its header's line.
	waicElpd, waicP []float64
	header          int
	// waic: elpd and p are the WAIC's (--ic waic), and k unused.
	waic    bool
	matched int  // observations moment matched (loo.csv's comment line)
	kfold   bool // a gpp kfold's kfold.csv: elpd_kfold, and k̂ of its draws' terms
	// group is the --group of a gpp kfold whose folds held out whole
	// groups (kfold.json's group; "": one observation's fold, or LOO):
	// its elpd is of a new group's observations (heldOutTask).
	group string
	nuts  bool // a gpp sample's loo.csv: NUTS's draws, no q behind its k̂
	joint bool // a fit whose q has a joint factor (--fullrank, --rank, --band)
	// conditional names the params with an element per observation that
	// the fit's log_lik reads (loo.csv's looCondComment line;
	// nil: none), which makes it too optimistic against a model that
	// integrates them out.
	conditional []string
}

// looRank is a fit's row of a comparison.
type looRank struct {
	fit            *looFit
	elpd, se, p    float64 // Σ elpd_i, √n·sd(elpd_i), Σ p_i
	diff, seDiff   float64 // elpd − the best's elpd, √n·sd(elpd_i − best_i)
	badK, nObserve int     // observations with k̂ above 0.7 or not a number (WAIC: p_waic_i above 0.4 or not a number); n
	noK            int     // those of badK whose k̂ is not a number (too few draws with a finite weight)
	weight         float64 // the fit's model weight (NaN: none could be computed)
	// copyOf is the label of the fit of the same model and data that this
	// one defers to (markCopies), which is weighed in its stead; "".
	copyOf string
}

// noKText says of r's observations whose k̂ is not a number that their
// elpd_i is plain importance sampling, which more draws (flag, gpp fit's
// --output-draws or gpp sample's --draws) cure: not the advice for a k̂
// above 0.7, that more draws do not fix a q that misses the posterior.
func noKText(r looRank, flag string) string {
	return fmt.Sprintf("Pareto k̂ not estimated for %d of %d observations (%s, too few to fit the weights' tail): their elpd_loo is plain importance sampling and unreliable; refit with more %s (Stan's loo wants hundreds)", r.noK, r.nObserve, tooFewTail, flag)
}

// weighReliable reports whether ranks has at least two fits whose
// elpd_loo is reliable (looRank.unreliable) or none that is not: the
// weights are then given, of the reliable fits alone.
func weighReliable(ranks []looRank) bool {
	n, all := 0, 0
	for _, r := range ranks {
		if notWeighable(r.fit.elpd) >= 0 || r.copyOf != "" {
			continue // left out of the weights whatever its k̂ (modelWeights)
		}
		all++
		if !r.unreliable() {
			n++
		}
	}
	return n >= 2 || n == all && !hasCopies(ranks)
}

// notWeighable returns the first observation whose pointwise elpd is NaN
// or +Inf, which no weights can take (modelWeights lists the fit last and
// leaves it out), or -1.
func notWeighable(elpd []float64) int {
	return slices.IndexFunc(elpd, func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 1) })
}

// unreliable reports whether the row's elpd_loo is unreliable as a whole:
// a LOO row (not K-fold's, whose k̂ is of another estimate) with more than
// looUnreliableShare of its observations flagged. Its rank, its
// differences and any weight involving it mean nothing.
func (r looRank) unreliable() bool {
	return !r.fit.kfold && !r.fit.waic && looUnreliable(r.badK, r.nObserve)
}

// Model-weight methods of --weights.
const (
	weightsStacking  = "stacking"
	weightsPseudoBMA = "pseudo-bma"
	weightsBB        = "pseudo-bma+"
)

// Information criteria of --ic.
const (
	icLOO  = "loo"
	icWAIC = "waic"
)

// useWAIC makes f's elpd and p its loo.csv's elpd_waic and p_waic, for
// --ic waic; an error for a kfold.csv or a loo.csv without them (written
// before gpp wrote WAIC), at its header.
func (f *looFit) useWAIC() error {
	if f.kfold {
		return &ast.Error{Pos: ast.Pos{File: f.path, Line: f.header, Col: 1}, Msg: "--ic waic: a kfold.csv has no WAIC (K-fold refits, it does not reuse one fit's draws): compare it by --ic loo, or give the loo.csv of a gpp fit or gpp sample"}
	}
	if f.waicElpd == nil {
		return &ast.Error{Pos: ast.Pos{File: f.path, Line: f.header, Col: 1}, Msg: "--ic waic: no columns elpd_waic and p_waic (a loo.csv written before gpp wrote WAIC): run gpp fit or gpp sample again to write them, or compare by LOO (--ic loo, the default)"}
	}
	f.elpd, f.p, f.waic = f.waicElpd, f.waicP, true
	return nil
}

// flaggedHead names the column counting a row's flagged observations:
// loo's k̂ above 0.7, or waic's p_waic_i above 0.4 for a WAIC table.
func flaggedHead(ranks []looRank, loo, waic string) string {
	if len(ranks) > 0 && ranks[0].fit.waic {
		return waic
	}
	return loo
}

// waicWarnings are gpp compare --ic waic's warnings of its ranks, in
// place of LOO's: the loo package's (p_waic_i above 0.4; p_waic above
// the observations), a log_lik that reads a param per observation, and a
// note naming the fits whose WAIC is of q's draws, not the posterior's.
func waicWarnings(ranks []looRank) []string {
	var ws, ofQ []string
	for _, r := range ranks {
		if c := r.fit.conditional; len(c) > 0 {
			ws = append(ws, fmt.Sprintf("warning: %s: its log_lik reads %s, a param with an element per observation (loo.csv says so): its WAIC, like its PSIS-LOO, is unreliable and typically too optimistic; compare elpd_kfold (gpp kfold) instead", r.fit.label, strings.Join(c, ", ")))
		}
		if pAboveN(r.p, r.nObserve) {
			ws = append(ws, fmt.Sprintf("warning: %s: p_waic = %s is more than its %d observations: its elpd_waic is unreliable and the model badly misspecified, or it observes no data (marked ! in the table)", r.fit.label, num1(r.p), r.nObserve))
		}
		if r.badK > 0 {
			ws = append(ws, fmt.Sprintf("warning: %s: p_waic_i above 0.4 for %d of %d observations: its elpd_waic may be unreliable (the loo package's warning, which recommends PSIS-LOO: gpp compare without --ic)", r.fit.label, r.badK, r.nObserve))
		}
		if !r.fit.nuts {
			ofQ = append(ofQ, r.fit.label)
		}
	}
	if len(ofQ) > 0 {
		ws = append(ws, fmt.Sprintf("note: WAIC of %s is from q's draws, each weighing the same (PSIS-LOO weights them by p/q; WAIC has no such weights): where q misses the posterior it is q's WAIC, not the posterior's. PSIS-LOO's k̂ is the check (gpp compare without --ic), and gpp sample's draws give the posterior's WAIC", strings.Join(ofQ, ", ")))
	}
	return ws
}

// bootstrapDraws is pseudo-BMA+'s number of Bayesian-bootstrap draws,
// loo's default.
const bootstrapDraws = 1000

// cmdCompare runs gpp compare.
func cmdCompare(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("compare", compareSynopsis, compareHelpText, stderr)
	csvOut := fs.String("csv", "", "also write the table to `FILE` as CSV (not a file it reads, nor any file\nof a compared fit: fit.json lists them)")
	plotOut := fs.String("plot", "", "also draw the comparison into `FILE.png`, as ArviZ's plot_compare: each fit's elpd_loo ± se,\nits in-sample lpd, and below the best its elpd_diff ± se_diff beside a line at the best")
	method := fs.String("weights", weightsStacking, "the fits' weights: `METHOD` stacking, pseudo-bma+ or pseudo-bma")
	seed := fs.Uint64("seed", 1, "seed of the Bayesian bootstrap of --weights pseudo-bma+")
	evidence := fs.Bool("evidence", false, "compare the fits by their log evidence (evidence.json of gpp fit --evidence or\ngpp sample --evidence) instead of LOO: log Bayes factors against the best and\nposterior model probabilities under equal prior odds")
	priorProb := fs.String("prior-prob", "", "with --evidence, the models' prior probabilities `P1,P2,...` in the order of the\nfits given (positive; normalised to sum to 1), as bridgesampling's post_prob's\nprior_prob (default: equal)")
	ic := fs.String("ic", icLOO, "the information criterion `IC` the fits are ranked by: loo (PSIS-LOO, elpd_loo) or waic\n(elpd_waic, from the same draws' log_lik; the loo package recommends loo)")
	pos, code, ok := parseCommand(fs, args, stdout)
	if !ok {
		return code
	}
	if len(pos) < 2 {
		return usageError(stderr, "compare", compareSynopsis, "compare needs at least two fits, got %d", len(pos))
	}
	switch *ic {
	case icLOO, icWAIC:
	default:
		return usageError(stderr, "compare", compareSynopsis, "--ic %q: want loo or waic", *ic)
	}
	icSet := false
	fs.Visit(func(f *flag.Flag) { icSet = icSet || f.Name == "ic" })
	if icSet && *evidence {
		return usageError(stderr, "compare", compareSynopsis, "--ic: not with --evidence, which ranks by the log evidence")
	}
	if *priorProb != "" && !*evidence {
		return usageError(stderr, "compare", compareSynopsis, "--prior-prob needs --evidence: LOO's weights take no prior")
	}
	if *evidence {
		prior, err := parsePriorProb(*priorProb, len(pos))
		if err != nil {
			return usageError(stderr, "compare", compareSynopsis, "--prior-prob %s: %v", *priorProb, err)
		}
		var bad []string
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "weights" || f.Name == "seed" || f.Name == "plot" {
				bad = append(bad, "--"+f.Name)
			}
		})
		if len(bad) > 0 {
			return usageError(stderr, "compare", compareSynopsis, "%s: not with --evidence, whose P(model) column is the models' weight and which draws no plot", strings.Join(bad, ", "))
		}
		return compareEvidence(pos, prior, *csvOut, stdout, stderr)
	}
	switch *method {
	case weightsStacking, weightsPseudoBMA, weightsBB:
	default:
		return usageError(stderr, "compare", compareSynopsis, "--weights %q: want stacking, pseudo-bma+ or pseudo-bma", *method)
	}
	seeded := false
	fs.Visit(func(f *flag.Flag) { seeded = seeded || f.Name == "seed" })
	if seeded && *method != weightsBB {
		return usageError(stderr, "compare", compareSynopsis, "--seed needs --weights pseudo-bma+: it seeds its Bayesian bootstrap, and %s draws nothing", *method)
	}
	if *plotOut != "" && !strings.EqualFold(filepath.Ext(*plotOut), ".png") {
		return usageError(stderr, "compare", compareSynopsis, "--plot %s: the plot is a PNG file; name it FILE.png", *plotOut)
	}
	src := sources{}
	fits, ok := readCompared(pos, src, stderr, readLOOFit, func(f *looFit) string { return f.path })
	if !ok {
		return exitError
	}
	if *ic == icWAIC {
		for _, f := range fits {
			if err := f.useWAIC(); err != nil {
				printError(stderr, err, src)
				return exitError
			}
		}
	}
	var dirs []string
	for _, f := range fits {
		dirs = append(dirs, filepath.Dir(f.path))
	}
	inputs := compareInputs(src, dirs)
	for _, out := range []struct{ flag, path string }{{"--csv", *csvOut}, {"--plot", *plotOut}} {
		if out.path == "" {
			continue
		}
		if err := fileClash(out.flag, out.path, inputs); err != nil {
			errorf(stderr, "%v", err)
			return exitError
		}
	}
	ranks, err := compareLOO(fits)
	if err != nil {
		printError(stderr, err, src)
		return exitError
	}
	markCopies(ranks)
	unrankTasks(ranks)
	for _, f := range fits[1:] {
		if differ, known := otherObservations(fits[0].observed, fits[0].covs, f.observed, f.covs); known {
			if len(differ) > 0 {
				errorf(stderr, "warning: %s and %s observe other values of %s: LOO compares fits of the same observations",
					fits[0].label, f.label, strings.Join(differ, ", "))
			}
		} else if fits[0].data != nil && f.data != nil && !sameData(fits[0].data, fits[0].dataHash, f.data, f.dataHash) {
			errorf(stderr, "warning: %s read %s, %s read %s: LOO compares fits of the same data",
				fits[0].label, strings.Join(fits[0].data, " "), f.label, strings.Join(f.data, " "))
		}
	}
	warns, err := modelWeights(ranks, *method, *seed)
	for _, w := range warns {
		printError(stderr, w, nil)
	}
	if err != nil {
		errorf(stderr, "warning: no model weights: %v", err)
	}
	if *ic == icWAIC {
		for _, w := range waicWarnings(ranks) {
			errorf(stderr, "%s", w)
		}
	}
	for _, r := range ranks {
		if r.fit.waic {
			continue // waicWarnings
		}
		if c := r.fit.conditional; len(c) > 0 {
			names := strings.Join(c, ", ")
			errorf(stderr, "warning: %s: its log_lik reads %s, a param with an element per observation (loo.csv says so; the fit said why): "+
				"leaving an observation out sends its element of %s back to its prior (or, where the prior couples the elements, as an ICAR's or CAR's does, to its conditional given the others), more than importance sampling can reweight, so its elpd_loo is unreliable and typically too optimistic, and its rank and weight mislead; "+
				"compare elpd_kfold instead (gpp kfold, with %s indexed apart from the observations where it has an element per observation: the fit's LOO warning says how), or the fit of the model with %s integrated out where its integral has a closed form", r.fit.label, names, names, names, names)
			continue
		}
		if pAboveN(r.p, r.nObserve) {
			_, elpdName, pName := comparedEstimate([]looRank{r})
			errorf(stderr, "warning: %s: %s = %s is more than its %d observations: its %s is unreliable and the model badly misspecified (the loo package's check, p_loo > N), or it observes no data (a ~ left out: the fit is of the prior); its rank and weight are suspect (marked ! in the table)",
				r.fit.label, pName, num1(r.p), r.nObserve, elpdName)
		}
		if r.badK > 0 && r.fit.kfold {
			errorf(stderr, "warning: %s: kfold.csv's pareto_k, the k̂ of a held-out estimate's terms, is above 0.7 for %d of %d observations: their elpd_kfold may be unreliable (gpp kfold said why, counting apart those in a fold whose q misses its posterior, for which --fullrank all or --nuts, and the others, for which more --output-draws)", r.fit.label, r.badK, r.nObserve)
			continue
		}
		if r.badK > 0 && r.fit.nuts {
			// NUTS's draws follow the posterior: a large k̂ says that
			// leaving the observation out moves it far, which more draws
			// do not change.
			advice := "gpp sample --moment-match may bring them down, and --reloo or gpp kfold estimate their elpd without PSIS"
			if r.fit.matched > 0 {
				advice = fmt.Sprintf("gpp sample --reloo or gpp kfold estimate their elpd without PSIS; moment matching already ran on %d observation%s", r.fit.matched, plural(r.fit.matched))
			}
			if r.noK > 0 {
				errorf(stderr, "warning: %s: %s", r.fit.label, noKText(r, "--draws"))
			}
			if r.badK > r.noK {
				errorf(stderr, "warning: %s: Pareto k̂ above 0.7 for %d of %d observations: its elpd_loo may be unreliable (the sample said why: the posterior without each moves far from the draws, an influential observation or one the model misfits; %s)", r.fit.label, r.badK-r.noK, r.nObserve, advice)
			}
			continue
		}
		if r.noK > 0 {
			errorf(stderr, "warning: %s: %s", r.fit.label, noKText(r, "--output-draws"))
		}
		if r.badK > r.noK {
			advice := "; --moment-match may bring them down"
			if r.fit.matched > 0 {
				advice = fmt.Sprintf("; moment matching already ran on %d observation%s", r.fit.matched, plural(r.fit.matched))
			}
			why := "a mean-field q often flags many: more --output-draws does not fix a q that misses the posterior, a refit with --fullrank all (--fullrank auto, --rank K past 100 elements) may, and gpp sample gives the posterior's"
			if r.fit.joint { // a low-rank fit read "try --fullrank all" (a psycholinguist's trial)
				why = "its q already has a joint factor, so check with NUTS (gpp sample) and its loo.csv; more --output-draws does not fix a q that misses the posterior"
			}
			errorf(stderr, "warning: %s: Pareto k̂ above 0.7 for %d of %d observations: its elpd_loo may be unreliable (the fit said why; %s%s)", r.fit.label, r.badK-r.noK, r.nObserve, why, advice)
		}
	}
	printComparison(stdout, ranks, *method)
	for _, n := range copyNotes(ranks) {
		errorf(stderr, "note: %s", n)
	}
	if n := taskNote(ranks); n != "" {
		errorf(stderr, "note: %s", n)
	}
	if *csvOut != "" {
		if err := writeComparisonCSV(*csvOut, ranks, *method); err != nil {
			errorf(stderr, "%v", err)
			return exitError
		}
	}
	if *plotOut != "" {
		if err := writeComparisonPlot(*plotOut, ranks); err != nil {
			errorf(stderr, "%v", err)
			return exitError
		}
	}
	return exitOK
}

// compareInputs are what gpp compare's --csv and --plot must not
// overwrite: every file it read (src: a loo.csv, the fit.json beside it)
// and every file of the gpp runs in dirs (runInputs), read or not.
func compareInputs(src sources, dirs []string) []inputFile {
	var ins []inputFile
	for _, path := range sortedKeys(src) {
		ins = append(ins, inputFile{"the file read", path})
	}
	return append(ins, runInputs(dirs...)...)
}

// readCompared reads the file each of gpp compare's args is or holds with
// read (whose path gives the file read), printing the error of one that
// fails and refusing a file given twice; false when it printed one.
func readCompared[T any](args []string, src sources, stderr io.Writer, read func(string, sources) (T, error), path func(T) string) ([]T, bool) {
	var fits []T
	for _, arg := range args {
		f, err := read(arg, src)
		if err != nil {
			printError(stderr, err, src)
			return nil, false
		}
		for _, g := range fits {
			if sameFile(path(f), path(g)) {
				errorf(stderr, "%s is given twice (as %s)", path(f), path(g))
				return nil, false
			}
		}
		fits = append(fits, f)
	}
	return fits, true
}

// sameData reports whether two fits read the same data: files of the same
// contents (by their sha256 in fit.json, so that one file named by two
// paths, from two working directories, or a copy of it counts as the same)
// bound as the same arguments (NAME= and a column selection); without the
// hashes (an older fit.json), arguments that name the same files. Each
// fit's data are its data arguments and their hashes (nil: unknown).
func sameData(aData, aHash, bData, bHash []string) bool {
	if len(aHash) == len(aData) && len(bHash) == len(bData) {
		return slices.Equal(aHash, bHash) && slices.EqualFunc(aData, bData, func(x, y string) bool {
			nx, _, cx := pipeline.SplitDataArg(x)
			ny, _, cy := pipeline.SplitDataArg(y)
			return nx == ny && slices.Equal(cx, cy)
		})
	}
	return slices.EqualFunc(aData, bData, func(x, y string) bool {
		return filepath.Clean(x) == filepath.Clean(y) || sameFile(x, y)
	})
}

// otherObservations compares two fits' observed data by the sha256 of
// their values (fit.json's observed_sha256, and covariate_sha256 for the
// other data each reads): the names, sorted, that both observe with other
// values, or that one observes and the other reads with other values (a
// residual y - x * b ~ D records x as observed; a fit of y ~ D(x * b)
// reads the same x). A name only one fit reads is no difference, unless
// the two observe no name in common: then every observed name differs.
// None: the same observations, whatever covariate files each read. known
// is false when a fit does not record them (an older fit.json):
// sameData's check of the files then applies.
func otherObservations(a, aCov, b, bCov map[string]string) (differ []string, known bool) {
	if len(a) == 0 || len(b) == 0 {
		return nil, false
	}
	shared := false
	for k := range a {
		_, ok := b[k]
		shared = shared || ok
	}
	for k, h := range a {
		g, ok := b[k]
		if !ok {
			g = bCov[k]
		}
		if !shared && !ok || g != "" && g != h {
			differ = append(differ, k)
		}
	}
	for k, h := range b {
		if _, ok := a[k]; !ok && (!shared || aCov[k] != "" && aCov[k] != h) {
			differ = append(differ, k)
		}
	}
	slices.Sort(differ)
	return differ, true
}

// comparedFile resolves one of gpp compare's args: a file, or a fit's
// directory and in it the first of names that exists (path "" when none
// does). label names the fit: its directory, or the file when its name is
// not one of names.
func comparedFile(arg string, names ...string) (path, label string, err error) {
	fi, err := os.Stat(arg)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", "", fmt.Errorf("%s: no such file or directory", arg)
		}
		return "", "", err
	}
	if !fi.IsDir() {
		if slices.Contains(names, filepath.Base(arg)) {
			return arg, filepath.Dir(arg), nil
		}
		return arg, arg, nil
	}
	for _, name := range names {
		path = filepath.Join(arg, name)
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			return path, arg, nil
		}
	}
	return "", arg, nil
}

// readLOOFit reads the loo.csv (or a gpp kfold's kfold.csv) that arg is or
// holds, and the model's name from the fit.json (kfold.json) beside it
// when the file keeps its name and the metadata lists it among its files;
// the files read are added to src.
func readLOOFit(arg string, src sources) (*looFit, error) {
	path, label, err := comparedFile(arg, looFile, kfoldFile)
	if err != nil {
		return nil, err
	}
	if path == "" {
		return nil, noLOOError(arg)
	}
	if filepath.Base(path) == lppdFile {
		return nil, heldOutCompareError(path)
	}
	f, err := readLOOCSV(path, src)
	if err != nil {
		return nil, err
	}
	f.label = label
	own := looFile // the file its directory's metadata lists
	var ff *fitMeta
	switch filepath.Base(path) {
	case looFile:
		if ff, err = readFitMeta(filepath.Join(filepath.Dir(path), fitFileName), src); err != nil {
			return nil, err
		}
		if err := checkOwnOutput(path, ff); err != nil {
			return nil, err
		}
		if ff == nil {
			ff = readSampleMeta(filepath.Join(filepath.Dir(path), drawsFile), src)
		}
	case kfoldFile:
		own = kfoldFile
		if ff, err = readKfoldMeta(filepath.Join(filepath.Dir(path), kfoldMetaFile), src); err != nil {
			return nil, err
		}
	default:
		return f, nil // not a fit's own loo.csv: the fit.json beside it may be another's
	}
	if ff != nil && (len(ff.Files) == 0 || slices.Contains(ff.Files, own)) {
		f.model = ff.Model
		switch {
		case own == kfoldFile:
			f.model += " (K-fold)"
			f.group = ff.Group
		case ff.Method == "laplace": // as a sample's "(NUTS)": its q is not SGVB's
			f.model += " (Laplace)"
		case ff.Method == "pathfinder":
			f.model += " (Pathfinder)"
		}
		for _, k := range sortedKeys(ff.Sets) {
			f.sets += " " + k + "=" + ff.Sets[k]
		}
		f.model += f.sets
		f.modelSum = ff.ModelHash
		f.data = ff.Data
		f.dataHash = ff.DataSHA256
		f.observed = ff.ObservedSHA256
		f.covs = ff.CovariateSHA256
		f.nuts = ff.Method == "nuts"
		f.joint = ff.jointQ() || slices.ContainsFunc(ff.Restarts, fitQMeta.jointQ)
	}
	return f, nil
}

// noLOOError explains why the output directory dir has no loo.csv.
func noLOOError(dir string) error {
	if lppd := filepath.Join(dir, lppdFile); regularFile(lppd) {
		return heldOutCompareError(lppd)
	}
	ff, err := readFitMeta(filepath.Join(dir, fitFileName), sources{})
	switch {
	case err != nil || ff == nil:
		return fmt.Errorf("%s has no %s: give the output directory (--out) of gpp fit, gpp sample or gpp kfold of a model with an output log_lik", dir, looFile)
	case ff.Method == "map":
		return fmt.Errorf("%s has no %s: a MAP fit has no draws to weight for leave-one-out; fit a distribution (--family)", dir, looFile)
	}
	return fmt.Errorf("%s has no %s: the model %s has no output %s (each observation's log likelihood, from which gpp fit estimates LOO)", dir, looFile, ff.Model, looOutput)
}

// heldOutCompareError is gpp compare's error for a run's lppd.csv at
// path: the held-out lppd of a log_lik on data the model does not observe
// (gpp predict's, or a fit's, heldOutData), which is no LOO estimate of
// the data the model fits and so not ranked with them.
func heldOutCompareError(path string) error {
	return fmt.Errorf("%s is a held-out lppd, not PSIS-LOO: the run's log_lik scores data its model does not observe (new data, or held-out data that no ~ observes), so it has no %s, and gpp compare ranks by the LOO (or K-fold) of the data each model fits; compare models on the same held-out data by their lppd.csv terms (the sum of the differences and √n times their sd), or observe the data with a ~ and rerun for LOO", path, looFile)
}

// readSampleMeta reads what gpp compare needs of the header of a gpp
// sample's draws.csv at path (writeSampleDrawsCSV): the model, with
// " (NUTS)" after it, the --set values, the data arguments (as
// writeRunHeader writes them; nil, unknown, when the line does not read)
// and the sha256 of each data file's contents (nil in an older header
// without them: sameData then compares the paths, as for an older
// fit.json).
// nil when path is not a sample's draws.csv.
func readSampleMeta(path string, src sources) *fitMeta {
	head := fileHead(path)
	lines := strings.Split(string(head), "\n")
	if len(head) == headMax {
		lines = lines[:len(lines)-1] // the last may be cut
	}
	ff := &fitMeta{Sets: map[string]string{}}
	sample, inData := false, false
	for _, l := range lines {
		if !strings.HasPrefix(l, "#") {
			break
		}
		switch {
		case strings.HasPrefix(l, "# model = "):
			ff.Model = strings.TrimPrefix(l, "# model = ") + " (NUTS)"
		case strings.HasPrefix(l, "# model_sha256 = "):
			ff.ModelHash = strings.TrimPrefix(l, "# model_sha256 = ")
		case strings.HasPrefix(l, "# method = sample"):
			sample = true
		case l == "# data":
			inData = true
			continue
		case inData && strings.HasPrefix(l, "#   file = "):
			if args, err := splitArgs(strings.TrimPrefix(l, "#   file = ")); err == nil {
				ff.Data = append([]string{}, args...) // no data, not unknown
			}
			continue
		case inData && strings.HasPrefix(l, "#   file_sha256 = "):
			ff.DataSHA256 = append(ff.DataSHA256, strings.TrimPrefix(l, "#   file_sha256 = "))
			continue
		case inData && strings.HasPrefix(l, "#   observed_sha256 "):
			ff.ObservedSHA256 = addHashLine(ff.ObservedSHA256, strings.TrimPrefix(l, "#   observed_sha256 "))
			continue
		case inData && strings.HasPrefix(l, "#   covariate_sha256 "):
			ff.CovariateSHA256 = addHashLine(ff.CovariateSHA256, strings.TrimPrefix(l, "#   covariate_sha256 "))
			continue
		case inData && strings.HasPrefix(l, "#   set "):
			if k, v, ok := strings.Cut(strings.TrimPrefix(l, "#   set "), " = "); ok {
				ff.Sets[k] = v
			}
			continue
		}
		if !strings.HasPrefix(l, "#  ") {
			inData = false
		}
	}
	if !sample || ff.Model == "" {
		return nil
	}
	ff.Method = "nuts"
	src[path] = head
	return ff
}

// headMax is the most of a file fileHead reads: enough for the comment
// header of a draws.csv.
const headMax = 1 << 16

// fileHead returns the first headMax bytes of the file at path (all of a
// shorter one), nil when it cannot be read.
func fileHead(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	head := make([]byte, headMax)
	n, _ := io.ReadFull(f, head)
	return head[:n]
}

// addHashLine adds to m (made where nil) the name and sha256 of a
// draws.csv header line's "NAME = SHA256" (writeRunHeader's), and
// returns m.
func addHashLine(m map[string]string, line string) map[string]string {
	if k, v, ok := strings.Cut(line, " = "); ok {
		if m == nil {
			m = map[string]string{}
		}
		m[k] = v
	}
	return m
}

// fitMeta is what gpp compare reads of a fit.json or a kfold.json, and
// the head of kfold.json that gpp kfold writes (kfoldMeta).
type fitMeta struct {
	Format         string            `json:"format"`
	Model          string            `json:"model"`
	ModelHash      string            `json:"model_sha256"`
	Data           []string          `json:"data"`
	DataSHA256     []string          `json:"data_sha256"`
	ObservedSHA256 map[string]string `json:"observed_sha256,omitempty"`
	// CovariateSHA256: fit.json's covariate_sha256 (otherObservations).
	CovariateSHA256 map[string]string `json:"covariate_sha256,omitempty"`
	Sets            map[string]string `json:"sets"`
	Method          string            `json:"method"`
	Files           []string          `json:"files"`
	FileSHA256      map[string]string `json:"files_sha256"`
	// Group: kfold.json's group, the --group whose groups its folds held out.
	Group string `json:"group,omitempty"`
	// fit.json's q and its restarts': whether q has a joint factor
	// (jointQ; omitted from kfold.json, which has none of them).
	fitQMeta
	Restarts []fitQMeta `json:"restarts,omitempty"`
}

// fitQMeta is what gpp compare reads of a q in fit.json: its joint factors
// (groups, whose content is not read) and its factors' families, where a
// joint factor of one param (--fullrank beta, --fullrank h --band 1, or
// --fullrank all over one param) is.
type fitQMeta struct {
	Groups  []json.RawMessage `json:"groups,omitempty"`
	Factors []struct {
		Family string `json:"family"`
	} `json:"factors,omitempty"`
}

// jointQ reports whether q has a joint factor: a group, or a factor of
// family fullrank, lowrank or banded.
func (q fitQMeta) jointQ() bool {
	for _, f := range q.Factors {
		switch f.Family {
		case sgvb.FamilyFullRank.String(), sgvb.FamilyLowRank.String(), sgvb.FamilyBanded.String():
			return true
		}
	}
	return len(q.Groups) > 0
}

// checkOwnOutput refuses the output at path (a loo.csv) when it is not
// of the run whose files its directory holds: the directory's fit.json
// (meta; nil when there is none) lists its files and not this one, or
// another sha256 for it; or there is no fit.json beside a gpp fit's
// draws.csv, so the directory is incomplete (a fit stopped while
// replacing its files: fit.json goes first and comes back last).
func checkOwnOutput(path string, meta *fitMeta) error {
	dir, name := filepath.Dir(path), filepath.Base(path)
	if meta == nil {
		head := string(fileHead(filepath.Join(dir, drawsFile)))
		if strings.HasPrefix(head, "# gpp_version = ") && !strings.Contains(head, "\n# method = sample") {
			return fmt.Errorf("%s is incomplete: it has a fit's %s but no %s, so its %s may be another run's (a fit stopped while writing its files): fit again", dir, drawsFile, fitFileName, name)
		}
		return nil
	}
	if len(meta.Files) > 0 && !slices.Contains(meta.Files, name) {
		return fmt.Errorf("%s: not an output of the fit in %s (its %s does not list it): a file left by another run there; fit again, or remove it", path, dir, fitFileName)
	}
	if want, ok := meta.FileSHA256[name]; ok {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != want {
			return fmt.Errorf("%s: not the file that the fit in %s wrote (its sha256 is not the one its %s lists): fit again", path, dir, fitFileName)
		}
	}
	return nil
}

// readFitMeta reads the fit.json at path, or returns nil when there is
// none. Errors are positioned in the file.
func readFitMeta(path string, src sources) (*fitMeta, error) {
	return readMeta(path, src, fitfile.Format, "fit")
}

// readKfoldMeta reads what gpp compare needs of a gpp kfold's kfold.json at
// path, as readFitMeta reads a fit.json; nil when there is none.
func readKfoldMeta(path string, src sources) (*fitMeta, error) {
	return readMeta(path, src, kfoldFormat, "kfold")
}

// readMeta reads the JSON file at path whose "format" must be format, the
// file of gpp command what, or returns nil when there is none.
func readMeta(path string, src sources, format, what string) (*fitMeta, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	src[path] = b
	var ff fitMeta
	if err := json.Unmarshal(b, &ff); err != nil {
		return nil, fitfile.JSONError(path, b, err, what)
	}
	if ff.Format != format {
		return nil, &ast.Error{Pos: fitfile.FindPos(path, b, `"format"`), Msg: fmt.Sprintf("not a gpp %s file (format %q, want %q)", what, ff.Format, format)}
	}
	return &ff, nil
}

// looComment matches the first line of a loo.csv (writeLOOCSV), and
// kfoldComment that of a kfold.csv (writeKfoldCSV); each captures the count
// of observations, then loo's count of moment-matched observations (an
// empty group in kfoldComment, so that the indexes are alike).
var (
	looComment   = regexp.MustCompile(`^# elpd_loo = \S+, se = \S+, p_loo = \S+, pareto_k above 0\.7: [0-9]+ of ([0-9]+)(?: \(moment matched: ([0-9]+)\))?(?: \(refitted: [0-9]+\))?(?: \(interrupted: [0-9]+ left with (?:its|their) PSIS estimates?\))?(?:, elpd_waic = \S+ \(se = \S+\), p_waic = \S+)?\r?$`)
	kfoldComment = regexp.MustCompile(`^# elpd_kfold = \S+, se = \S+, p_kfold = \S+, folds = [0-9]+, observations = ([0-9]+)()\r?$`)
)

// looColumns are the columns of a loo.csv, in writeLOOCSV's order, and
// kfoldColumns those of a kfold.csv that gpp compare reads.
var (
	looColumns   = []string{"name", "elpd_loo", "p_loo", "pareto_k"}
	kfoldColumns = []string{"name", "elpd_kfold", "p_kfold", "pareto_k"}
)

// readLOOCSV reads a loo.csv as writeLOOCSV writes it, or a kfold.csv as
// writeKfoldCSV does (told apart by the header; its columns in any order,
// other columns ignored). Errors are positioned in the file.
func readLOOCSV(path string, src sources) (*looFit, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	src[path] = b
	at := func(line, col int, format string, args ...any) error {
		return &ast.Error{Pos: ast.Pos{File: path, Line: line, Col: col}, Msg: fmt.Sprintf(format, args...)}
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return nil, at(1, 1, "not a text file: want a loo.csv written by gpp fit")
	}
	declared, declaredCol := -1, 1 // observations the comment line counts, and where
	first, _, _ := bytes.Cut(b, []byte("\n"))
	matched := 0 // observations moment matched (--moment-match)
	m := looComment.FindSubmatchIndex(first)
	if m == nil {
		m = kfoldComment.FindSubmatchIndex(first)
	}
	if m != nil {
		declared, _ = strconv.Atoi(string(first[m[2]:m[3]]))
		declaredCol = m[2] + 1
		if m[4] >= 0 {
			matched, _ = strconv.Atoi(string(first[m[4]:m[5]]))
		}
	}
	r := csv.NewReader(bytes.NewReader(b))
	r.Comment = '#'
	csvErr := func(err error) error {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return at(pe.Line, max(pe.Column, 1), "%v", pe.Err)
		}
		return at(1, 1, "%v", err)
	}
	header, err := r.Read()
	if err == io.EOF {
		return nil, at(1, 1, "no header: want a loo.csv written by gpp fit, with the columns %s", strings.Join(looColumns, ","))
	}
	if err != nil {
		return nil, csvErr(err)
	}
	hline, _ := r.FieldPos(0)
	want, what, kfold := looColumns, "a loo.csv written by gpp fit", slices.Contains(header, kfoldColumns[1])
	if kfold {
		want, what = kfoldColumns, "a kfold.csv written by gpp kfold"
	}
	col := make([]int, len(want))
	for i, name := range want {
		col[i] = slices.Index(header, name)
		if col[i] < 0 {
			return nil, at(hline, 1, "no column %s: want %s, with the columns %s", name, what, strings.Join(want, ","))
		}
	}
	f := &looFit{path: path, matched: matched, kfold: kfold, header: hline}
	// the numeric columns read: elpd, p and k̂, then a loo.csv's elpd_waic
	// and p_waic where it has them (one written before gpp wrote WAIC has not)
	num, numName := col[1:], want[1:]
	if e, p := slices.Index(header, "elpd_waic"), slices.Index(header, "p_waic"); !kfold && e >= 0 && p >= 0 {
		num, numName = append(slices.Clip(num), e, p), append(slices.Clip(numName), "elpd_waic", "p_waic")
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if !bytes.HasPrefix(line, []byte("#")) {
			break
		}
		if names, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r"), []byte(looCondComment)); ok && len(names) > 0 {
			f.conditional = strings.Split(string(names), ",")
		}
	}
	seen := map[string]int{} // name → line
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) && errors.Is(err, csv.ErrFieldCount) {
			return nil, at(pe.StartLine, 1, "%d fields, but the header has %d", len(rec), len(header))
		}
		if err != nil {
			return nil, csvErr(err)
		}
		line, c := r.FieldPos(col[0])
		name := rec[col[0]]
		if name == "" {
			return nil, at(line, c, "an observation without a name")
		}
		if l, ok := seen[name]; ok {
			return nil, at(line, c, "observation %s appears twice (first on line %d)", name, l)
		}
		seen[name] = line
		var v [5]float64
		for j, c := range num {
			cell := rec[c]
			x, err := strconv.ParseFloat(strings.TrimSpace(cell), 64)
			if err != nil {
				l, c := r.FieldPos(c)
				return nil, at(l, c, "%s of %s: %q is not a number", numName[j], name, cell)
			}
			v[j] = x
		}
		f.names = append(f.names, name)
		f.line = append(f.line, line)
		f.elpd = append(f.elpd, v[0])
		f.p = append(f.p, v[1])
		f.k = append(f.k, v[2])
		if len(num) == len(v) {
			f.waicElpd = append(f.waicElpd, v[3])
			f.waicP = append(f.waicP, v[4])
		}
	}
	if len(f.names) == 0 {
		return nil, at(hline+1, 1, "no observations after the header")
	}
	if declared >= 0 && declared != len(f.names) {
		return nil, at(1, declaredCol, "the first line counts %d observations, but the file has %d (a truncated or edited file?)", declared, len(f.names))
	}
	return f, nil
}

// compareLOO ranks fits of the same observations by elpd_loo, best first
// (ties and NaN in the order given, NaN last), with each fit's difference
// from the best and its standard error from the paired per-observation
// differences. Observations that do not match (in number, or by name in
// order) are an error naming the first mismatch.
func compareLOO(fits []*looFit) ([]looRank, error) {
	ref := fits[0]
	n := len(ref.names)
	for _, f := range fits[1:] {
		if len(f.names) != n {
			return nil, fmt.Errorf("%s has %d observations, %s has %d: LOO compares fits of the same observations",
				ref.path, n, f.path, len(f.names))
		}
		for i, name := range f.names {
			if name != ref.names[i] {
				return nil, &ast.Error{Pos: ast.Pos{File: f.path, Line: f.line[i], Col: 1},
					Msg: fmt.Sprintf("observation %d is %s here but %s in %s (line %d): LOO compares fits of the same observations", i, name, ref.names[i], ref.path, ref.line[i])}
			}
		}
	}
	ranks := make([]looRank, len(fits))
	for j, f := range fits {
		r := looRank{fit: f, nObserve: n, se: sgvb.SumSE(f.elpd)}
		for i := range n {
			r.elpd += f.elpd[i]
			r.p += f.p[i]
			switch {
			case f.waic:
				if !(f.p[i] <= sgvb.WAICHighP) {
					r.badK++
				}
			case !(f.k[i] <= 0.7):
				r.badK++
				if math.IsNaN(f.k[i]) {
					r.noK++
				}
			}
		}
		ranks[j] = r
	}
	sort.SliceStable(ranks, func(a, b int) bool {
		x, y := ranks[a].elpd, ranks[b].elpd
		return x > y || (!math.IsNaN(x) && math.IsNaN(y))
	})
	best := ranks[0].fit
	d := make([]float64, n)
	for j := range ranks {
		f := ranks[j].fit
		if j == 0 {
			continue
		}
		ranks[j].diff, ranks[j].seDiff = pairedDiff(f.elpd, best.elpd, d)
	}
	return ranks, nil
}

// pairedDiff sets d to the per-observation differences a − b and returns
// their sum and its standard error (loo's elpd_diff and se_diff).
func pairedDiff(a, b, d []float64) (sum, se float64) {
	for i := range d {
		d[i] = a[i] - b[i]
		sum += d[i]
	}
	return sum, sgvb.SumSE(d)
}

// modelWeights sets the ranked fits' weights by method (one of the
// weights constants), from their elpd_loo per observation; pseudo-bma+
// draws its bootstrap with seed. A fit with an observation whose elpd is
// NaN (or +Inf) has no total to rank (compareLOO lists it last) and is
// left out, its weight NaN, the others weighed among themselves: the
// returned warnings name each such fit at its file's line. When no
// weights exist otherwise (no fit left, or an observation −Inf in every
// fit) every weight is NaN and the error says why, naming the fit's
// loo.csv line (sgvb's checks, sgvb.LPDError).
func modelWeights(ranks []looRank, method string, seed uint64) ([]error, error) {
	var lpd [][]float64
	var kept []int // the ranks weighed
	var warns []error
	for k := range ranks {
		ranks[k].weight = math.NaN()
		f := ranks[k].fit
		if i := notWeighable(f.elpd); i >= 0 {
			_, elpd, _ := comparedEstimate(ranks[k : k+1])
			warns = append(warns, ast.Errorf(ast.Pos{File: f.path, Line: f.line[i], Col: 1}, "warning: %s: %s of %s is %s, so its total is too: it is listed last and left out of the weights, which weigh the other fits among themselves (%s)",
				f.label, elpd, f.names[i], formatNum(f.elpd[i]), notNumberAdvice(f)))
			continue
		}
		if ranks[k].copyOf != "" {
			continue // a copy of another fit's model: copyNotes says so
		}
		kept = append(kept, k)
		lpd = append(lpd, f.elpd)
	}
	if len(kept) == 0 {
		return warns, errors.New("no fit has an elpd at every observation")
	}
	if mixedTasks(ranks) {
		return warns, nil // different prediction tasks: taskNote says so
	}
	if len(kept) == 1 && hasCopies(ranks) {
		return warns, nil // copies of one model: a lone weight 1 would read as decisive
	}
	// A fit whose elpd_loo is unreliable is not weighed (printComparison
	// says why), and with fewer than two fits left none is: a lone fit's
	// weight 1 would read as the decisive one.
	reliable := slices.DeleteFunc(slices.Clone(kept), func(k int) bool { return ranks[k].unreliable() })
	if len(reliable) < len(kept) {
		if !weighReliable(ranks) {
			return warns, nil
		}
		kept, lpd = reliable, lpd[:0]
		for _, k := range kept {
			lpd = append(lpd, ranks[k].fit.elpd)
		}
	}
	var w []float64
	var err error
	switch method {
	case weightsStacking:
		w, err = sgvb.StackingWeights(lpd)
	case weightsPseudoBMA:
		w, err = sgvb.PseudoBMAWeights(lpd, 0, nil)
	default:
		w, err = sgvb.PseudoBMAWeights(lpd, bootstrapDraws, rand.New(rand.NewPCG(seed, 0)))
	}
	if le := (*sgvb.LPDError)(nil); errors.As(err, &le) {
		f := ranks[kept[max(le.Model, 0)]].fit
		_, elpdName, _ := comparedEstimate(ranks)
		msg := fmt.Sprintf("%s of %s is %s; the weights need every observation's", elpdName, f.names[le.Obs], formatNum(le.Value))
		if le.Model < 0 {
			msg = fmt.Sprintf("%s of %s is -inf in every fit; the weights need one that allows it", elpdName, f.names[le.Obs])
		}
		return warns, &ast.Error{Pos: ast.Pos{File: f.path, Line: f.line[le.Obs], Col: 1}, Msg: msg}
	}
	if err != nil {
		return warns, err
	}
	for j, k := range kept {
		ranks[k].weight = w[j]
	}
	return warns, nil
}

// notNumberAdvice says where an elpd that is not a number comes from:
// for gpp kfold, a log_lik NaN in an older gpp kfold (which now counts it
// as density 0 and warns at its position) or a fold with no draw of
// finite training log density (which it warned of), else the fit's
// warnings.
func notNumberAdvice(f *looFit) string {
	if f.kfold {
		return "gpp kfold now counts a log_lik that is NaN at a draw as density 0 and warns where it arose, where an earlier gpp kfold made the observation's elpd NaN: rerun it; otherwise its fold's training log density was not finite at any draw, which it warned of"
	}
	return "the fit warned which outputs were not a number"
}

// num1 formats a comparison number with one decimal, as loo_compare prints.
func num1(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return formatNum(v)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// weightNote says how to read the weight column of method.
var weightNote = map[string]string{
	weightsStacking: "weight: stacking weights, the mixture of the fits whose leave-one-out predictions\n" +
		"score best; a fit of weight 0 adds nothing to the others (it need not be poor alone).\n",
	weightsBB: "weight: pseudo-BMA+ weights, ∝ exp(elpd_loo) averaged over 1000 Bayesian bootstrap\n" +
		"draws of the observations.\n",
	weightsPseudoBMA: "weight: pseudo-BMA weights, ∝ exp(elpd_loo).\n",
}

// weightNum formats a model weight with three decimals, as loo prints them.
func weightNum(v float64) string {
	if math.IsNaN(v) {
		return formatNum(v)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// comparedEstimate names the table's estimate and its columns by the
// fits' kind, as loo::loo_compare does: a comparison of gpp kfold outputs
// alone is of elpd_kfold and p_kfold, one of fits and samples alone of
// elpd_loo and p_loo, and one of both of elpd and p.
func comparedEstimate(ranks []looRank) (title, elpd, p string) {
	kfold := 0
	for _, r := range ranks {
		if r.fit.kfold {
			kfold++
		}
	}
	if len(ranks) > 0 && ranks[0].fit.waic { // --ic waic: every fit's
		return "WAIC", "elpd_waic", "p_waic"
	}
	switch kfold {
	case 0:
		return "LOO", "elpd_loo", "p_loo"
	case len(ranks):
		return "K-fold", "elpd_kfold", "p_kfold"
	}
	return "LOO and K-fold", "elpd", "p"
}

// printComparison prints the ranked table, with weights by method, and how
// to read it.
func printComparison(w io.Writer, ranks []looRank, method string) {
	withModel := slices.ContainsFunc(ranks, func(r looRank) bool { return r.fit.model != "" })
	t := &table{right: []bool{false, true, true, true, true, true, true, true}}
	title, elpdName, pName := comparedEstimate(ranks)
	head := []string{"fit", elpdName, "se", "elpd_diff", "se_diff", "weight", pName, flaggedHead(ranks, "k̂ > 0.7", "p_waic > 0.4")}
	if withModel {
		t.right = append([]bool{false}, t.right...)
		head = slices.Insert(head, 1, "model")
	}
	t.row(head...)
	conditional, absurd := false, false
	var doubtful []string  // "label share" of each unreliable row
	var nutsDoubt []string // the labels of those that are NUTS samples
	qDoubt := false        // some of them are fits of q
	unestimated := false   // some of them have a k̂ not estimated
	weighed := weighReliable(ranks)
	mixed := mixedTasks(ranks)
	for _, r := range ranks {
		label := r.fit.label
		if len(r.fit.conditional) > 0 {
			label += " *"
			conditional = true
		}
		if pAboveN(r.p, r.nObserve) {
			label += " !"
			absurd = true
		}
		if mixed && heldOutTask(r.fit) != "" {
			label += " #"
		}
		if r.unreliable() {
			label += " ?"
			doubtful = append(doubtful, r.fit.label+" "+shareText(r.badK, r.nObserve)+"%")
			if r.fit.nuts {
				nutsDoubt = append(nutsDoubt, r.fit.label)
			} else {
				qDoubt = true
			}
			unestimated = unestimated || r.noK > 0
		}
		weight := weightNum(r.weight)
		if r.unreliable() || !weighed || r.copyOf != "" || mixed {
			weight = "-" // withheld: the ? note, copyNotes or the # note says why
		}
		diff, seDiff := num1(r.diff), num1(r.seDiff)
		if math.IsNaN(r.diff) && heldOutTask(r.fit) != heldOutTask(ranks[0].fit) {
			diff, seDiff = "-", "-" // unrankTasks: no preference across tasks
		}
		cells := []string{label, num1(r.elpd), num1(r.se), diff, seDiff, weight, num1(r.p), strconv.Itoa(r.badK)}
		if withModel {
			cells = slices.Insert(cells, 1, r.fit.model)
		}
		t.row(cells...)
	}
	fmt.Fprintf(w, "%s comparison of %d fits on %d observations, best first:\n\n", title, len(ranks), ranks[0].nObserve)
	t.print(w)
	fmt.Fprintf(w, "\nelpd_diff is a fit's %s less the best's, se_diff its standard error from the\n", elpdName)
	fmt.Fprint(w, "paired per-observation differences; a difference smaller than about 2·se_diff (or\n"+
		"than 4 nats) is not a clear preference.\n")
	note := weightNote[method]
	if title == "WAIC" { // the weights are of the fits' elpd_waic_i
		note = strings.ReplaceAll(strings.ReplaceAll(note, "elpd_loo", elpdName), "leave-one-out predictions", "predictions (by elpd_waic)")
	}
	fmt.Fprint(w, note)
	if method == weightsStacking && lopsidedWithoutPreference(ranks) {
		// A meta-analyst read weight 1.000 against 0.000 for four priors
		// whose elpd_loo differed by 0.0–0.2 ± 0.2–0.4 as a preference.
		fmt.Fprint(w, "No difference here is a clear preference, yet one fit has nearly all the weight:\n"+
			"stacking gives a fit all of it when mixing in the others adds nothing, however close\n"+
			"their elpd, so read that weight as \"enough alone\", not \"best\".\n")
	}
	switch title {
	case "WAIC":
		fmt.Fprintf(w, "p_waic > 0.4 counts the observations whose p_waic_i is above 0.4, where the loo\n"+
			"package finds WAIC unreliable and recommends PSIS-LOO (gpp compare without --ic).\n")
	case "K-fold":
		fmt.Fprint(w, "k̂ is that of each held-out observation's estimate (kfold.csv's pareto_k).\n")
	case "LOO and K-fold":
		fmt.Fprint(w, "elpd and p are a LOO row's elpd_loo and p_loo. A K-fold row (gpp kfold) gives\n"+
			"elpd_kfold and p_kfold, its k̂ that of each held-out observation's estimate.\n")
	}
	if mixed {
		fmt.Fprint(w, "# held out whole groups (gpp kfold --group): the elpd of a new group's\n"+
			"observations, not of a new observation of a known group as a LOO row's: no\n"+
			"weights, and no elpd_diff between rows of different tasks (note below).\n")
	}
	if conditional {
		fmt.Fprint(w, "* log_lik reads a param with an element per observation (loo.csv's\n"+
			"per_observation_params): elpd_loo unreliable, typically too optimistic.\n")
	}
	if absurd {
		fmt.Fprintf(w, "! %s is more than the number of observations: %s unreliable, the model badly\nmisspecified or observing no data.\n", pName, elpdName)
	}
	if len(doubtful) > 0 {
		which := "Fits marked ? are not weighed; the others are weighed among themselves."
		if !weighed {
			which = "No fit is weighed: fewer than two are reliable."
		}
		fmt.Fprintf(w, "? Pareto k̂ above 0.7 for more than %.0f%% of the observations (%s):\n"+
			"%s unreliable, and so are elpd_diff and se_diff against it: the ranking is no\n"+
			"preference.\n%s%s\n",
			100*looUnreliableShare, strings.Join(doubtful, ", "), elpdName, doubtCure(elpdName, qDoubt, nutsDoubt), which)
		if unestimated {
			fmt.Fprintf(w, "A k̂ not estimated (%s) counts as above 0.7; more\n"+
				"draws (--output-draws, gpp sample's --draws) do cure that.\n", tooFewTail)
		}
	}
	var copies []string
	for _, r := range ranks {
		if r.copyOf != "" {
			copies = append(copies, r.fit.label+" (a copy of "+r.copyOf+")")
		}
	}
	if len(copies) > 0 {
		fmt.Fprintf(w, "Fits of one model to the same data are weighed once, %s left out.\n"+
			"Between them a difference is the approximation's error, and a weight means\n"+
			"nothing (note below).\n", strings.Join(copies, ", "))
	}
}

// doubtCure says what gives a reliable elpd for the flagged rows: for a
// fit of q, NUTS's draws or a q whose k̂ is lower; for a NUTS sample,
// whose flags are influential observations, K-fold or moment matching
// (sending it to gpp sample again would be circular).
func doubtCure(elpdName string, q bool, nuts []string) string {
	qCure := fmt.Sprintf("A reliable %s comes from gpp sample (NUTS), or from a refit whose k̂\n"+
		"is below 0.7 for most observations (--fullrank auto or all, --rank K); more\n"+
		"--output-draws does not fix a q that misses the posterior.\n", elpdName)
	nutsCure := "K-fold cross-validation (gpp kfold, refitting without each fold), or gpp sample\n" +
		"--moment-match, which often brings k̂ down; more draws do not.\n"
	switch {
	case len(nuts) == 0:
		return qCure
	case !q:
		return fmt.Sprintf("NUTS's draws flag influential observations: a reliable %s comes from\n%s", elpdName, nutsCure)
	}
	return qCure + fmt.Sprintf("For the NUTS sample%s (%s), whose flags are influential observations:\n%s",
		plural(len(nuts)), strings.Join(nuts, ", "), nutsCure)
}

// pAboveN reports whether p (p_loo or p_kfold) is more than the n
// observations, which the loo package reads as a badly misspecified
// model (a gross outlier), or one that observes no data (a fit of the
// prior): its elpd is unreliable. One observation is left alone.
func pAboveN(p float64, n int) bool { return n > 1 && p > float64(n) }

// lopsidedWithoutPreference reports whether no fit's elpd_diff is a clear
// preference (each within 4 nats or 2·se_diff of the best, as the table's
// note reads it) while one fit holds at least 0.9 of the weight.
func lopsidedWithoutPreference(ranks []looRank) bool {
	if len(ranks) < 2 {
		return false
	}
	top := 0.0
	for i, r := range ranks {
		if i > 0 && -r.diff >= 4 && -r.diff >= 2*r.seDiff {
			return false
		}
		if !math.IsNaN(r.weight) { // a fit left out of the weights (max would be NaN)
			top = max(top, r.weight)
		}
	}
	return top >= 0.9
}

// writeComparisonCSV writes the ranked table to path as CSV, atomically,
// with the weights' method in a column of its own.
func writeComparisonCSV(path string, ranks []looRank, method string) error {
	return writeAtomic(path, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		_, elpdName, pName := comparedEstimate(ranks)
		cw.Write([]string{"fit", "model", elpdName, "se", "elpd_diff", "se_diff", "weight", pName, flaggedHead(ranks, "pareto_k_above_0.7", "p_waic_above_0.4"), "n", "weight_method"})
		for _, r := range ranks {
			cw.Write([]string{r.fit.label, r.fit.model, formatNum(r.elpd), formatNum(r.se), formatNum(r.diff),
				formatNum(r.seDiff), formatNum(r.weight), formatNum(r.p), strconv.Itoa(r.badK), strconv.Itoa(r.nObserve), method})
		}
		cw.Flush()
		return cw.Error()
	})
}

// baseModel is a compared fit's model text without the method's marker
// (" (NUTS)", " (Laplace)", " (Pathfinder)"): the model file and --set
// values.
func baseModel(model string) string {
	for _, m := range []string{" (NUTS)", " (Laplace)", " (Pathfinder)"} {
		model = strings.Replace(model, m, "", 1)
	}
	return model
}
