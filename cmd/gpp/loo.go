package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/compile"
)

// looOutput is the output that holds the log likelihood of each
// observation at a draw, by Stan's convention (the loo package reads a
// generated quantity of this name).
const looOutput = check.LogLikOutput

// wantsLOO reports whether a fit of m by method estimates leave-one-out
// cross-validation: m has LOO's output (hasLOOOutput) and q is a
// distribution (a MAP point has no draws to weight).
func wantsLOO(m *compile.Model, method sgvb.Method) bool {
	return method != sgvb.MAP && hasLOOOutput(m)
}

// hasLOOOutput reports whether draws of m give leave-one-out
// cross-validation: m has an output named log_lik and its log density
// (not gpp predict's model of new data), and log_lik scores data that m
// observes (heldOutData).
func hasLOOOutput(m *compile.Model) bool {
	return hasLogLik(m) && heldOutData(m) == nil
}

// hasLogLik reports whether m has an output named log_lik and its log
// density (not gpp predict's model of new data).
func hasLogLik(m *compile.Model) bool {
	return !m.Predict() && slices.ContainsFunc(m.Outputs, func(o compile.Output) bool { return o.Name == looOutput })
}

// heldOutData returns the data that m's log_lik scores and m does not
// observe (compile.Model.HeldOutLogLik; nil: none, no log_lik, or gpp
// predict's model). PSIS-LOO's weights 1/p(y_i | θ) hold only for the
// observations of the likelihood, so the fit reports such a log_lik's
// held-out lppd (heldOutLPPD) as gpp predict does, not LOO. A model that
// observes no data at all (its ~ lost in an edit, which the checker
// warns of) keeps its LOO, whose p_loo above the observations is the
// fit's other sign of it.
func heldOutData(m *compile.Model) []string {
	if m.Predict() || m.Info() != nil && m.Info().NoDataObserved != nil {
		return nil
	}
	return m.HeldOutLogLik()
}

// setHeldOut sets ds.heldOut, the held-out lppd of the draws' log_lik,
// when m's log_lik scores data that m does not observe (heldOutData).
func (ds *drawSet) setHeldOut(m *compile.Model) {
	names := heldOutData(m)
	if names == nil {
		return
	}
	ds.heldOut = heldOutLPPD(ds)
	if ds.heldOut != nil {
		ds.heldOut.note = heldOutNote(names)
	}
}

// heldOutNote says why a fit of a model whose log_lik reads the held-out
// data names reports a held-out lppd and no PSIS-LOO.
func heldOutNote(names []string) string {
	which := "which no ~ observes"
	if len(names) > 1 {
		which = "which no ~ observe"
	}
	return fmt.Sprintf("%s reads %s, %s: held-out lppd, not PSIS-LOO (its importance weights 1/p(y_i | θ) hold only for data the likelihood observes); no %s", looOutput, joinAnd(names), which, looFile)
}

// looVar returns the log_lik output's columns of ds (false: it has none).
func (ds *drawSet) looVar() (variable, bool) { return ds.outputVar(looOutput) }

// outputVar returns the columns of ds's output name (false: it has none).
func (ds *drawSet) outputVar(name string) (variable, bool) {
	for _, v := range ds.vars {
		if v.output && v.name == name {
			return v, true
		}
	}
	return variable{}, false
}

// looWeights gathers the draws PSIS-LOO weights: q's output draws and, for
// one fit, as many again from the heavy-tailed companion g of q
// (sgvb.Defensive), each weighted by p over the density of the mixture
// ½q + ½g, whose weights stay bounded where the posterior's tails are
// heavier than q's. Every element of the log_lik output is an observation.
// A mixture of restarts weights its own draws by p/q.
type looWeights struct {
	def *sgvb.Defensive // nil: a mixture of restarts
	// defLQ holds def's log densities of the coming draws, which batch
	// computes together and add takes in turn.
	defLQ []float64
	v     variable  // the log_lik output's columns
	lr    []float64 // log p − log proposal per draw
	// ll[j] is the log_lik column of element v.elems[j]: the output
	// draws' column of the drawSet, then the defensive draws, which
	// makeDraws leaves room for (sharing the memory).
	ll [][]float64
	// obs lists the j of the elements that are observations: all but
	// those at a missing cell of data of log_lik's shape, whose value the
	// fit imputes (compile.Model.MissingCells).
	obs []int
	// miss, when the fit imputes missing values (and can draw them,
	// compile.MissingSampler) under a q whose factors of them are
	// independent of the rest's, draws each LOO draw's missing values from
	// their model given its params, so that its weight is p(params,
	// observed)/q(params): ev (with its own randomness, leaving the output
	// draws' as they were) evaluates log p and log_lik at the redrawn
	// point x, and ll is then the LOO draws' own.
	miss *compile.MissingSampler
	// rep holds, for each output of log_lik's shape but log_lik (a
	// replicate the LOO-PIT may weigh, loopit.go), its elements in
	// log_lik's order at the LOO draws that are no output draws: the
	// defensive draws, or every draw where miss redraws the missing
	// values. Output index → element → draw.
	rep map[int][][]float64
	ev  *compile.Evaluator
	rng *rand.Rand
	x   []float64
	r   *sgvb.Result
	// xs, when not nil (--moment-match, and no missing values redrawn),
	// collects the coordinates of every LOO draw, r.Dim each.
	xs []float64
}

// newLOOWeights returns the LOO draws of ds (nil: the model has no
// log_lik, or q is a MAP point), giving its log_lik columns room for n
// defensive draws beyond the n output draws.
func newLOOWeights(ds *drawSet, r *sgvb.Result, mix *sgvb.Mixture, m *compile.Model, n int, seed uint64) *looWeights {
	if !wantsLOO(m, r.Method) {
		return nil
	}
	w := &looWeights{}
	w.v, _ = ds.looVar()
	if mix == nil {
		w.def = r.Defensive()
	}
	w.lr = make([]float64, 0, 2*n)
	w.obs = looObservations(w.v, m)
	w.ll = make([][]float64, len(w.v.elems))
	if mix == nil {
		w.marginal(r, m, seed)
	}
	if w.def != nil || w.miss != nil {
		w.rep = map[int][][]float64{}
		for _, u := range ds.vars {
			if u.output && u.name != looOutput && sameShape(u.shape, w.v.shape) {
				w.rep[u.index] = make([][]float64, len(w.v.elems))
			}
		}
	}
	for j := range w.ll {
		if w.miss != nil {
			w.ll[j] = make([]float64, 0, 2*n)
			continue
		}
		if w.def != nil {
			ds.cols[w.v.first+j] = make([]float64, n, 2*n)
		}
		w.ll[j] = ds.cols[w.v.first+j]
	}
	return w
}

// marginal sets w up to draw the missing values of data from their model
// (w.miss), where m imputes some, they can be drawn, and q's factors of
// them are not joint with the params' (--fullrank all's are: there, as
// where they cannot be drawn, the draws keep q's values of them).
func (w *looWeights) marginal(r *sgvb.Result, m *compile.Model, seed uint64) {
	ms := m.NewMissingSampler()
	if ms == nil || !r.Separates(ms.Coords()) {
		return
	}
	ev, err := m.NewEvaluator()
	if err != nil {
		return
	}
	ev.SetRand(rand.New(rand.NewPCG(seed, looStream+3)))
	w.miss, w.ev, w.r = ms, ev, r
	w.rng = rand.New(rand.NewPCG(seed, looStream+2))
	w.x = make([]float64, r.Dim)
}

// add records the weight of a draw at coordinates x, with log q (of the
// fit, or of the mixture of restarts) and log p there (nil w: no LOO),
// and, where w draws the missing values from their model (w.miss), the
// draw's log_lik at the point with them redrawn.
func (w *looWeights) add(x []float64, logq, logp float64) {
	if w == nil {
		return
	}
	if w.miss != nil {
		w.addMarginal(x)
		return
	}
	if w.def != nil && len(w.defLQ) > 0 {
		logq, w.defLQ = w.defLQ[0], w.defLQ[1:]
	} else if w.def != nil {
		logq = w.def.LogDensity(x)
	}
	w.lr = append(w.lr, logp-logq) // NaN or ±Inf: weight 0
	if w.xs != nil {
		w.xs = append(w.xs, x...)
	}
}

// addMarginal records a draw whose missing values are redrawn from their
// model at its params: proposal q(params)·p(missing | params) (the
// mixture ½q + ½g's marginal of the params for a defensive fit), so the
// weight p(params, missing, observed)/proposal is p(params, observed)/
// q(params) (for a covariate's missing values, the other ~ that read them
// keep their density in it: a valid weight still, for the same proposal,
// if noisier). A draw whose missing values cannot be drawn (an argument
// outside its support) has weight 0.
func (w *looWeights) addMarginal(x []float64) {
	copy(w.x, x)
	drop := w.miss.Coords()
	var logq float64
	if w.def != nil {
		logq = w.def.MarginalLogDensity(w.x, drop)
	} else {
		logq = w.r.MarginalLogQCoords(w.x, drop)
	}
	lmis, err := w.miss.Draw(w.rng, w.x)
	lp, outs, _ := w.ev.Eval(w.x)
	lr := lp - logq - lmis
	if err != nil {
		lr = math.NaN()
	}
	w.lr = append(w.lr, lr)
	w.appendLL(outs)
}

// appendLL appends a draw's log_lik elements from its outputs (nil: NaN).
func (w *looWeights) appendLL(outs [][]float64) {
	for j, k := range w.v.elems {
		v := math.NaN()
		if outs != nil && w.v.index < len(outs) && k < len(outs[w.v.index]) {
			v = outs[w.v.index][k]
		}
		w.ll[j] = append(w.ll[j], v)
	}
	for o, cols := range w.rep {
		for j, k := range w.v.elems {
			v := math.NaN()
			if outs != nil && o < len(outs) && k < len(outs[o]) {
				v = outs[o][k]
			}
			cols[j] = append(cols[j], v)
		}
	}
}

// defensiveDraws adds n draws from g (none for a mixture of restarts).
func (w *looWeights) defensiveDraws(ev *compile.Evaluator, x []float64, n int, seed uint64) {
	if w.def == nil {
		return
	}
	rng := rand.New(rand.NewPCG(seed, looStream))
	ev.SetRand(rand.New(rand.NewPCG(seed, looStream+1)))
	xs := make([][]float64, min(n, drawBatch)) // a batch of draws at a time, each buffer starting as x
	for k := range xs {
		xs[k] = slices.Clone(x)
	}
	for d := range n {
		if d%drawBatch == 0 { // rng draws nothing else: the same draws
			b := xs[:min(drawBatch, n-d)]
			for _, x := range b {
				w.def.SampleCoords(rng, x)
			}
			w.batch(b)
		}
		x := xs[d%drawBatch]
		if w.miss != nil {
			w.addMarginal(x)
			continue
		}
		lp, outs, _ := ev.Eval(x)
		w.add(x, 0, lp)
		w.appendLL(outs)
	}
}

// keep cuts w to the first n output draws (of dim coordinates), which ds
// has been cut to (nil w: no LOO): defensiveDraws then adds as many.
func (w *looWeights) keep(ds *drawSet, n, dim int) {
	if w == nil {
		return
	}
	w.lr = w.lr[:n]
	if w.xs != nil {
		w.xs = w.xs[:n*dim]
	}
	for j := range w.ll { // without miss, the output draws' own columns (sharing their memory)
		w.ll[j] = w.ll[j][:n]
	}
	if w.miss != nil {
		for _, cols := range w.rep {
			for j := range cols {
				cols[j] = cols[j][:n]
			}
		}
	}
}

// batch computes the defensive mixture's log densities of the draws xs,
// which add then takes in turn (the same numbers as one at a time, faster
// for a full-rank q); with missing values redrawn add needs none.
func (w *looWeights) batch(xs [][]float64) {
	if w == nil || w.def == nil || w.miss != nil {
		return
	}
	w.defLQ = slices.Grow(w.defLQ[:0], len(xs))[:len(xs)]
	w.def.LogDensities(xs, w.defLQ)
}

// loo estimates PSIS-LOO from the draws (sgvb.PSISLOO).
func (w *looWeights) loo() *sgvb.LOO {
	ll := make([][]float64, len(w.obs))
	for i, j := range w.obs {
		ll[i] = w.ll[j]
	}
	return sgvb.PSISLOO(w.lr, ll)
}

// pitDraws returns the LOO draws of ds for the LOO-PIT (loopit.go): their
// log weights, the observations' log likelihoods, and the replicates'
// values at them: the output draws' own columns of ds, then those w
// recorded at the defensive draws (all of w's where it redrew the
// missing values). It shares ds's columns, which a resampling of the
// draws (resample.go) leaves as they are.
func (w *looWeights) pitDraws(ds *drawSet) *looDraws {
	d := &looDraws{lr: w.lr, ll: make([][]float64, len(w.obs)), xs: w.xs, marginal: w.miss != nil}
	for i, j := range w.obs {
		d.ll[i] = w.ll[j]
	}
	d.rep = map[string]pitRep{}
	for _, u := range ds.vars {
		if !u.output || u.name == looOutput || !sameShape(u.shape, w.v.shape) {
			continue
		}
		own := ds.cols[u.first : u.first+len(u.elems) : u.first+len(u.elems)]
		if cols, ok := w.rep[u.index]; ok {
			if w.miss != nil {
				own = nil
			}
			d.rep[u.name] = pitRep{own: own, extra: cols}
		} else {
			d.rep[u.name] = pitRep{extra: own}
		}
	}
	return d
}

// outputWAIC is the WAIC of ds's output draws of the log_lik output v
// at its elements obs (j of v.elems), each draw weighing the same.
func outputWAIC(ds *drawSet, v variable, obs []int) *sgvb.WAIC {
	ll := make([][]float64, len(obs))
	for i, j := range obs {
		ll[i] = ds.cols[v.first+j]
	}
	return sgvb.ComputeWAIC(ll)
}

// looObservations returns the j of the elements v.elems[j] of the log_lik
// output v that are observations: every one, less those at the missing
// cells of data of v's shape (an imputed value is the fit's, not an
// observation; its log_lik element would count as one), those of a
// covariate only when v is not over a response (Model.ImputedCells).
func looObservations(v variable, m *compile.Model) []int {
	imputed := m.ImputedCells(v.name, v.shape)
	obs := make([]int, 0, len(v.elems))
	for j, k := range v.elems {
		if !imputed[k] {
			obs = append(obs, j)
		}
	}
	return obs
}

// looCondComment opens loo.csv's second comment line, which names the
// params with an element per observation that log_lik reads
// (looConditional), when there are any: gpp compare warns of such a fit.
const looCondComment = "# per_observation_params = "

// writeLOOCSV writes loo.csv: a comment line with elpd_loo, its standard
// error and p_loo, and elpd_waic, its standard error and p_waic, in as
// many fields as the header has (and one naming the per-observation params log_lik
// reads, if any: looCondComment), then per observation (the log_lik element) its elpd_loo
// and p_loo to full precision (gpp compare sums and differences them),
// its Pareto k̂, and its elpd_waic and p_waic (gpp compare --ic waic).
func writeLOOCSV(w io.Writer, ds *drawSet) error {
	lo := ds.loo
	matched := ""
	if ds.mm != nil && ds.mm.matched > 0 {
		matched = fmt.Sprintf(" (moment matched: %d)", ds.mm.matched) // no comma: the line has as many fields as the header
	}
	if ds.rl != nil && ds.rl.refit > 0 {
		matched += fmt.Sprintf(" (refitted: %d)", ds.rl.refit)
	}
	if n, _ := looInterrupted(ds); n > 0 {
		matched += fmt.Sprintf(" (interrupted: %d left with %s PSIS estimate%s)", n, map[bool]string{true: "its", false: "their"}[n == 1], plural(n))
	}
	waic := "" // two fields more, for the header's two columns more
	if ds.waic != nil {
		waic = fmt.Sprintf(", elpd_waic = %s (se = %s), p_waic = %s", formatNum(ds.waic.ELPD), formatNum(ds.waic.SE), formatNum(ds.waic.P))
	}
	fmt.Fprintf(w, "# elpd_loo = %s, se = %s, p_loo = %s, pareto_k above 0.7: %d of %d%s%s\n",
		formatNum(lo.ELPD), formatNum(lo.SE), formatNum(lo.P), lo.BadK(), len(lo.Points), matched, waic)
	if len(ds.looCond) > 0 {
		names := make([]string, len(ds.looCond))
		for i, c := range ds.looCond {
			names[i] = c.name
		}
		fmt.Fprintf(w, "%s%s\n", looCondComment, strings.Join(names, ","))
	}
	cw := csv.NewWriter(w)
	head := []string{"name", "elpd_loo", "p_loo", "pareto_k"}
	if ds.waic != nil {
		head = append(head, "elpd_waic", "p_waic") // after LOO's: a reader of those alone skips them
	}
	cw.Write(head)
	if v, ok := ds.looVar(); ok {
		for i, j := range ds.looObs {
			p := lo.Points[i]
			rec := []string{v.elemName(v.elems[j]), formatExact(p.ELPD), formatExact(p.P), formatNum(p.K)}
			if ds.waic != nil {
				q := ds.waic.Points[i]
				rec = append(rec, formatExact(q.ELPD), formatExact(q.P))
			}
			cw.Write(rec)
		}
	}
	cw.Flush()
	return cw.Error()
}

// looInterrupted returns how many observations that --moment-match or
// --reloo would have re-estimated keep their PSIS estimates because Ctrl-C
// stopped it, and the flag stopped first (0, "": none was). Once moment
// matching is stopped, --reloo refits none: its count is then the total.
func looInterrupted(ds *drawSet) (int, string) {
	n, flag := 0, ""
	if ds.mm != nil && ds.mm.left > 0 {
		n, flag = ds.mm.left, "--moment-match"
	}
	if ds.rl != nil && ds.rl.left > 0 {
		n = ds.rl.left
		if flag == "" {
			flag = "--reloo"
		}
	}
	return n, flag
}

// looInterruptedNote is the note of a gpp fit or gpp sample (what) whose
// --moment-match or --reloo Ctrl-C stopped, or "".
func looInterruptedNote(ds *drawSet, what string) string {
	n, flag := looInterrupted(ds)
	if n == 0 {
		return ""
	}
	keep := fmt.Sprintf("%d observations keep their PSIS estimates", n)
	if n == 1 {
		keep = "1 observation keeps its PSIS estimate"
	}
	return fmt.Sprintf("interrupted during %s: %s (loo.csv's first line says so); the %s's other outputs are complete", flag, keep, what)
}

// printLOO prints the console line of a LOO estimate (nothing for nil).
// Observations whose k̂ could not be estimated (too few draws with a
// finite weight) are counted apart from those above 0.7, as the warning
// (looWarning) counts them.
func printLOO(w io.Writer, lo *sgvb.LOO) {
	if lo == nil {
		return
	}
	n, none := len(lo.Points), lo.NoK()
	fmt.Fprintf(w, "LOO          elpd_loo %.6g ± %.3g, p_loo %.3g; ", lo.ELPD, lo.SE, lo.P)
	switch {
	case none == 0:
		fmt.Fprintf(w, "Pareto k̂ above 0.7 for %d of %d observations", lo.BadK(), n)
	case none == n:
		fmt.Fprintf(w, "Pareto k̂ not estimated for any of the %d observations (%s)", n, tooFewTail)
	default:
		fmt.Fprintf(w, "Pareto k̂ above 0.7 for %d of %d observations, not estimated for %d (%s)", lo.BadK()-none, n, none, tooFewTail)
	}
	if n > 1 && looUnreliable(lo.BadK(), n) {
		fmt.Fprintf(w, ": elpd_loo unreliable (%s of the observations flagged), not for ranking models (the warning says what would make it reliable)", shareText(lo.BadK(), n)+"%")
	}
	fmt.Fprintln(w)
}

// looUnreliableShare is the share of observations with k̂ above 0.7 (or
// none) past which a LOO total, and any difference from it, is
// unreliable as a whole. The loo package's remedies for flagged
// observations, moment matching and refits, are for a few of them; past
// that it says to use K-fold or better draws, and a fit of q whose k̂
// flags most observations misses the posterior: the rasch trial's
// mean-field fits, 34–99 % flagged, were 6–52 nats from NUTS's elpd_loo,
// and moved 50 nats with the number of draws.
const looUnreliableShare = 0.1

// looUnreliable reports whether bad of n observations flagged (k̂ above
// 0.7 or not estimated) are more than looUnreliableShare of them.
func looUnreliable(bad, n int) bool {
	return n > 0 && float64(bad) > looUnreliableShare*float64(n)
}

// pFewN: p_loo above p reads as misspecification (looPWarning) only for
// p below n/pFewN, p much smaller than n as the loo glossary has it.
const pFewN = 10

// tooFewTail is why an observation has no k̂.
var tooFewTail = fmt.Sprintf("fewer than %d draws with a finite weight", sgvb.PSISMinDraws)

// drawsLOOWarning is looWarning for the draws' LOO, less its one-element
// case for a log_lik declared a scalar: the check warned at the output's
// declaration (check.logLik), and the fit need not say it again. A LOO
// whose log_lik reads a param per observation (ds.looCond) gets
// looConditionalWarning instead, whose advice replaces looWarning's. l
// (nil: none) locates the data of observations that carry most of p_loo
// (looDominant).
func drawsLOOWarning(ds *drawSet, l *pipeline.Loaded, fitK, fitESS float64, listed, joint bool, more, jointFlag string) string {
	if ds.loo != nil && len(ds.loo.Points) > 1 && len(ds.looCond) > 0 {
		return looConditionalWarning(ds.looCond)
	}
	w := looWarningDom(ds.loo, fitK, fitESS, listed, joint, more, jointFlag, looDominant(ds, l))
	if v, ok := ds.looVar(); ok && len(v.shape) == 0 && ds.loo != nil && len(ds.loo.Points) == 1 {
		return ""
	}
	return w
}

// looPWarning is the loo package's reading of the draws' p_loo, the effective number
// of parameters (its glossary, after Vehtari et al.), or "": p_loo above
// the n observations is no estimate at all, as when the likelihood does
// not observe log_lik's data (a fit of the prior) or a gross outlier; above the model's dim
// parameters with k̂ above 0.7 on some observation, the model is likely
// badly misspecified. Either way elpd_loo is unreliable and its rank in
// gpp compare means nothing. That reading assumes draws of the posterior:
// where q misses part of it (qMisses, with fitK, fitESS, joint and
// jointFlag as looWarning takes them, or qTail), p_loo above dim is first
// q's doing, and the warning says to refit, not that the model is wrong.
//
// The glossary's reading is for p much smaller than n with few
// observations flagged: p_loo shares elpd_loo's PSIS weights, and a
// flexible model (p above n/pFewN) or a weak prior flags observations of
// a right model (a trial's logistic regression of its own simulation,
// p = 51, n = 300: p_loo 82.2, 51 flagged); there the warning says both
// and sends to K-fold.
func looPWarning(ds *drawSet, dim int, fitK, fitESS float64, joint bool, jointFlag string) string {
	w := looPReading(ds, dim, fitK, fitESS, joint, jointFlag)
	if obs := looDominantObs(ds); w != "" && obs != nil {
		sum := 0.0
		for _, i := range obs {
			sum += ds.loo.Points[i].P
		}
		carry, check := "carry", "check those observations first (the LOO warning names their data)"
		if len(obs) == 1 {
			carry, check = "alone carries", "check that observation first (the LOO warning names its data)"
		}
		w += fmt.Sprintf("; but %s %s %.3g of it: %s", strings.Join(looDominantNames(ds, obs), ", "), carry, sum, check)
	}
	return w
}

// pLOOMarginRel is how far p_loo must exceed the model's p for
// looPReading to read p_loo > p: by more than this share of p. A
// road-safety trial's proportional-odds fit of its own simulation (p = 7,
// n = 3000) had p_loo 7.25 ± 0.25 and NUTS 7.03: p_loo ≈ p is what a
// right model with weak priors and many observations gives. p_loo's
// standard error is no margin: it is largest where one observation
// carries p_loo (TestLOODominantObservation's count of 10⁶: p_loo 25.6
// for p = 2, se about 25), the case the reading is most for.
const pLOOMarginRel = 0.05

// pLOOAboveDim reports whether lo's p_loo exceeds dim parameters by more
// than pLOOMarginRel of dim.
func pLOOAboveDim(lo *sgvb.LOO, dim int) bool {
	return dim > 0 && lo.P-float64(dim) > pLOOMarginRel*float64(dim)
}

// looPReading is looPWarning's reading of p_loo, less the observations
// that carry most of it.
func looPReading(ds *drawSet, dim int, fitK, fitESS float64, joint bool, jointFlag string) string {
	lo := ds.loo
	if lo == nil || len(lo.Points) < 2 || len(ds.looCond) > 0 { // looConditionalWarning says why already
		return ""
	}
	n := len(lo.Points)
	switch {
	case pAboveN(lo.P, n):
		return fmt.Sprintf("p_loo = %.3g is more than the %d observations of log_lik: elpd_loo (%.4g) is unreliable and the model badly misspecified (the loo package's check, p_loo > N), or it observes no data (no ~ on log_lik's data: the fit is of the prior); check the model, and its predictive checks (--plots)",
			lo.P, n, lo.ELPD)
	case pLOOAboveDim(lo, dim) && lo.BadK() > 0 && (qMisses(lo, fitK, fitESS) || qTail(lo)):
		refit := "refit with " + jointFlag + " first"
		if joint {
			refit = "check q first (gpp sample draws the posterior itself; --against compares it with this fit)"
		}
		return fmt.Sprintf("p_loo = %.3g is more than the model's %d parameters, with Pareto k̂ above 0.7 for %d of %d observations, but p_loo is estimated from q's draws, and q misses part of the posterior (k̂ %s on the draws' own weights, %s on the fit's final draws): %s; the loo package's check (p_loo > p: a model likely badly misspecified) reads draws of the posterior, so heed it only once q's k̂ is below 0.7",
			lo.P, dim, lo.BadK(), n, num3(lo.QK), num3(fitK), refit)
	case pLOOAboveDim(lo, dim) && lo.BadK() > 0 && (looUnreliable(lo.BadK(), n) || dim*pFewN > n):
		var why []string
		if looUnreliable(lo.BadK(), n) {
			why = append(why, "p_loo comes from the same PSIS weights as elpd_loo, so with that many observations flagged it is unreliable too")
		}
		if dim*pFewN > n {
			why = append(why, fmt.Sprintf("with %d parameters for %d observations (p/n = %s) a flexible model or a weak prior flags observations and raises p_loo even when it is right (the glossary's reading wants p much smaller than n)", dim, n, num2(float64(dim)/float64(n))))
		}
		return fmt.Sprintf("p_loo = %.3g is more than the model's %d parameters, with Pareto k̂ above 0.7 for %d of %d observations (%s %%): the loo package reads p_loo > p as a likely badly misspecified model, but %s; elpd_loo is unreliable: K-fold cross-validation (gpp kfold) estimates it without PSIS, and the predictive checks (--plots) say whether the likelihood misses the data",
			lo.P, dim, lo.BadK(), n, shareText(lo.BadK(), n), strings.Join(why, ", and "))
	case pLOOAboveDim(lo, dim) && lo.BadK() > 0:
		return fmt.Sprintf("p_loo = %.3g is more than the model's %d parameters, with Pareto k̂ above 0.7 for %d of %d observations: the model is likely badly misspecified (the loo package's check, p_loo > p) and elpd_loo unreliable; check its predictive checks (--plots), or a likelihood with wider tails (overdispersed)",
			lo.P, dim, lo.BadK(), n)
	}
	return ""
}

// qMisses reports whether q misses part of the posterior by the LOO
// draws' own weights (their k̂ above 0.7) or by fitK, q's k̂ on the fit's
// final draws, with fitESS the relative ESS of their weights
// (sgvb.ParetoAlarm); a k̂ not estimated (NaN: too few draws) is no
// alarm. Draws of the posterior itself (gpp sample: equal weights, fitK
// NaN) never miss.
func qMisses(lo *sgvb.LOO, fitK, fitESS float64) bool {
	return lo.QK > 0.7 || sgvb.ParetoAlarm(fitK, fitESS)
}

// qTailK is the k̂ of the LOO draws' own weights p/q past which their tail
// has infinite variance: each observation's weights are those over
// p(y_i | θ), so they start from that tail, and with 1000 draws k̂'s noise
// carries many of them past 0.7.
const qTailK = 0.5

// qTail reports whether the observations flagged by lo are q's tail rather
// than influential ones: the draws' own weights have k̂ above qTailK (below
// 0.7, or qMisses says so) and more than looUnreliableShare of the
// observations have k̂ above 0.7, not the few that influential observations
// are. A trial's chimpanzees, --fullrank all: own k̂ 0.682, 88 of 504
// flagged (median k̂ 0.673), NUTS none; a regression with one gross outlier
// under a good q: own k̂ −0.42, 1 of 50 (k̂ 1.65), as NUTS.
func qTail(lo *sgvb.LOO) bool {
	return lo.QK > qTailK && looUnreliable(lo.BadK()-lo.NoK(), len(lo.Points))
}

// jointAllFlag is the joint factor the LOO warning advises for a
// mean-field q of model m (settings s): --fullrank all, or past
// sgvb.MaxFullRank elements, which a full-rank factor cannot hold, the
// low-rank factor --fullrank auto tries there (lowRankFlag).
func jointAllFlag(s sgvb.Settings, m *compile.Model) string {
	if m != nil {
		if n, _, _ := meanFieldElems(s, m); n > sgvb.MaxFullRank {
			return fmt.Sprintf("--fullrank %s (a low-rank joint factor: the %d elements are more than a full-rank one holds, %d)", lowRankFlag, n, sgvb.MaxFullRank)
		}
	}
	return "--fullrank all"
}

// looWarning explains unreliable LOO estimates, or is "". Where the
// draws' own weights are heavy-tailed (k̂ above 0.7 on the LOO draws, or
// fitK, q's own k̂ from the fit's final draws, unless its tail is
// negligible: sgvb.ParetoAlarm with fitESS, the relative ESS of its
// weights), every observation's weights inherit that tail, and
// the cause is q, not the observations: the two k̂ come from different
// draws, and either may cross 0.7 alone. Below 0.7 the draws' own tail
// still explains a large share flagged (qTail). listed says
// whether loo.csv was written (a :fit without --out writes none); joint
// whether q has joint (full- or low-rank) groups, which --fullrank all,
// the advice for a mean-field q, would not change; more is the flag that
// gives more draws (gpp fit's --output-draws, gpp sample's --draws);
// jointFlag is that advice (jointAllFlag: past sgvb.MaxFullRank elements a
// low-rank factor).
func looWarning(lo *sgvb.LOO, fitK, fitESS float64, listed, joint bool, more, jointFlag string) string {
	return looWarningDom(lo, fitK, fitESS, listed, joint, more, jointFlag, "")
}

// looWarningDom is looWarning with dom, the clause naming the observations
// that carry most of p_loo (looDominant), said before the rest, which
// then holds if the data are right.
func looWarningDom(lo *sgvb.LOO, fitK, fitESS float64, listed, joint bool, more, jointFlag, dom string) string {
	if lo != nil && len(lo.Points) == 1 {
		return "LOO: log_lik has one element, so it leaves out one observation of one: give log_lik an element per observation (logpdf(y, D(...)), not its sum)"
	}
	if lo == nil || lo.BadK() == 0 {
		return ""
	}
	worst, unfit := math.Inf(-1), 0
	for _, p := range lo.Points {
		switch {
		case math.IsNaN(p.K):
			unfit++
		case p.K > worst:
			worst = p.K
		}
	}
	if math.IsNaN(lo.QK) || unfit == len(lo.Points) {
		// Fewer than sgvb.PSISMinDraws draws with a finite weight: no
		// tail to fit, so no k̂, and the weights are not smoothed.
		return fmt.Sprintf("LOO: Pareto k̂ not estimated for %d of %d observations: %s, too few to fit the weights' tail, so elpd_loo is plain importance sampling and unreliable; use more %s (Stan's loo wants hundreds)", unfit, len(lo.Points), tooFewTail, more)
	}
	list := "loo.csv lists them"
	if !listed {
		list = ":fit --out DIR lists them in DIR/loo.csv"
	}
	what := fmt.Sprintf("LOO: Pareto k̂ above 0.7 for %d of %d observations (the largest %s; %s)", lo.BadK(), len(lo.Points), num3(worst), list)
	if unfit > 0 {
		what = fmt.Sprintf("LOO: Pareto k̂ above 0.7 for %d of %d observations and not estimated for %d (%s; the largest %s; %s)", lo.BadK()-unfit, len(lo.Points), unfit, tooFewTail, num3(worst), list)
	}
	if dom != "" {
		what += dom + "; if the data are right"
	}
	qAlarm := qMisses(lo, fitK, fitESS)
	if !qAlarm && qTail(lo) {
		cure := fmt.Sprintf("for a mean-field q, often how the latents move together): refit with %s (or gpp sample) and keep the estimate once k̂ is below 0.7 for most observations", jointFlag)
		if joint {
			cure = "although it has joint factors: correlations outside them, or a shape a normal does not have): gpp sample's NUTS draws give a reliable elpd_loo, and flag the observations that are influential"
		}
		return what + fmt.Sprintf(": the draws' own weights have k̂ %s (q's on the fit's final draws %s), above %g, and each observation's weights are those over p(y_i | θ), so they start from that tail: the flags on %s of the observations are q's tail, not a few influential observations (q misses the posterior a little, %s; more --output-draws does not fix a q that misses the posterior",
			num3(lo.QK), num3(fitK), qTailK, shareText(lo.BadK()-lo.NoK(), len(lo.Points))+"%", cure)
	}
	if qAlarm && joint {
		return what + fmt.Sprintf(": the draws' own weights have k̂ %s, and q's on the fit's final draws %s (q misses part of the posterior although it has joint factors: correlations outside them, or a shape a normal does not have), so elpd_loo may be unreliable: gpp sample's NUTS draws give a reliable one; more --output-draws does not fix a q that misses the posterior (it only shows how far the estimate moves, as do other --seed values)", num3(lo.QK), num3(fitK))
	}
	if qAlarm {
		return what + fmt.Sprintf(": the draws' own weights have k̂ %s, and q's on the fit's final draws %s (q misses part of the posterior: for a mean-field q, often how the latents move together), so elpd_loo may be unreliable: refit with %s (or gpp sample) and keep the estimate once k̂ is below 0.7 for most observations; more --output-draws does not fix a q that misses the posterior (it only shows how far the estimate moves)", num3(lo.QK), num3(fitK), jointFlag)
	}
	return what + ": their elpd_loo, and so the total, is unreliable; such observations are influential, and K-fold cross-validation (gpp kfold, refitting without them) settles it"
}
