package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/compile"
	"github.com/gpplang/gpp/lang/parser"
	"github.com/gpplang/gpp/stdlib"
)

// This file holds the REPL's :fit, :show and the evaluation of expressions
// typed at the prompt.

// replFit is the session's last fit.
type replFit struct {
	res   *sgvb.Result
	n     int       // the fit's number in the session (repl.fits), which a warm start names
	seed  uint64    // --seed: seeds the draws of expressions too
	draws int       // --output-draws: draws per expression
	made  [3]string // the model source, the data files read and the values set (fitOf)
	// levels are the fit's codings of columns of labels (data.Coded),
	// which :predict codes new data by.
	levels map[string]data.Levels
	// sizes are the fit's sizes bound from numeric ids (data.CodeSizes).
	sizes map[string]int
	// columns are the CSV columns of the fit's matrices (data.MatrixColumns).
	columns map[string][]string
	// axes are the labels that name the elements of params and outputs
	// (savedAxes of the fit's draws), which :show names them by as the
	// fit's table does.
	axes map[string][][]string
}

// fitOf records what a fit is of. A query after any of it changed answers
// from the old fit, and says so. A data file read again (:data y.csv after
// y.csv was edited) is other data.
func (r *repl) fitOf(sets setFlags) [3]string {
	var reads []string
	for _, d := range r.data {
		reads = append(reads, fmt.Sprintf("%s\x00%d", d.arg, d.read))
	}
	return [3]string{r.src, strings.Join(reads, "\x00"), sets.String()}
}

// noteStale notes, before an answer drawn from the last fit, what in the
// session changed since that fit.
func (r *repl) noteStale() {
	now := r.fitOf(r.sets)
	var made [3]string
	what := ":fit; this answer is from that fit"
	if r.sample != nil {
		made, what = r.sample.made, ":sample; this answer is from its draws"
	} else {
		made = r.fit.made
	}
	var changed []string
	for i, what := range [3]string{"the model", "the data", "the values set"} {
		if now[i] != made[i] && (i != 0 || !onlyAdded(made[0], now[0])) {
			changed = append(changed, what)
		}
	}
	if len(changed) > 0 {
		errorf(r.err, "note: %s changed since the last %s", joinAnd(changed), what)
	}
}

// onlyAdded reports whether the model src is the fitted model fitted
// followed by declarations that leave its log density as it was: outputs,
// and functions that take no built-in's name (a function may be called
// only after its declaration, so the fitted statements cannot call a new
// one, but a built-in's name would be taken over).
func onlyAdded(fitted, src string) bool {
	rest, ok := strings.CutPrefix(src, fitted)
	if !ok {
		return false
	}
	stmts, err := parser.ParseStmts(replModel, []byte(rest))
	if err != nil {
		return false
	}
	for _, s := range stmts {
		switch s := s.(type) {
		case *ast.OutputStmt:
		case *ast.FnDecl:
			if stdlib.LookupFunc(s.Name.Name) != nil {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// replMaxElems is how many elements of a value the REPL prints.
const replMaxElems = 20

// replExprName is the output that an expression typed at the prompt
// becomes, appended to the model to be checked and compiled with it.
const replExprName = "__repl"

// fitCmd runs :fit: gpp fit's flags, on the session's model and data. The
// fit runs with a context that Ctrl-C cancels: the fit stops with the q
// reached, which the session keeps, and the session goes on. No file is
// written unless --out is given.
func (r *repl) fitCmd(args []string) {
	if isHelp(args) {
		fmt.Fprint(r.out, "The session's model is fitted to its data with gpp fit's flags; files are\nwritten only with --out. --set sets values for the session, as :set does,\nonce the fit succeeds; a fit that fails keeps the session's values.\n--init last starts from the q of the session's last fit (params of the same\nname, shape and support), the others from the default start; a fit whose\nELBO overflowed is kept for inspection only, not as a start.\n\n")
		parseFitArgs([]string{"--help"}, r.out, r.err)
		return
	}
	args, last := takeInitLast(args)
	if last && r.fit == nil {
		r.errorf(":fit --init last starts from the session's last fit, and there is none yet: run :fit first")
		return
	}
	if last && sgvb.Overflows(r.fit.res.ELBO, r.fit.res.ELBOSE) {
		// An overflowing ELBO's q is no approximation (see the end of
		// fitCmd): kept to be looked at, not to start another fit from.
		r.errorf(":fit --init last: fit %d, the session's last, failed (its ELBO overflows): it is kept for inspection only, not as a start; run :fit without --init, or with --init path", r.fit.n)
		return
	}
	var msgs strings.Builder
	cfg, _, ok := parseFitArgsPaths(append([]string{replModel}, args...), r.out, &msgs, 1) // one q: one Pathfinder path
	if !ok {
		r.flagError(":fit", &msgs)
		return
	}
	if len(cfg.data) > 0 {
		r.errorf(":fit takes flags only, not %s: add data with :data", strings.Join(cfg.data, " "))
		return
	}
	if cfg.restarts > 1 {
		r.errorf(":fit keeps one q: fit a mixture of restarts with gpp fit --restarts")
		return
	}
	if cfg.reloo {
		r.errorf(":fit --reloo: refits are gpp fit's (gpp fit --reloo); in the session, :kfold refits by folds")
		return
	}
	if cfg.prior {
		r.errorf(":fit keeps a fitted q: draw from the priors with gpp fit --prior")
		return
	}
	if len(cfg.levels) > 0 {
		r.errorf("%s", replLevelsRefusal(":fit"))
		return
	}
	if cfg.resample {
		r.errorf(":fit keeps q and its draws, which the session's queries use: resample them with gpp fit --psis-resample")
		return
	}
	if len(cfg.sets) > 0 {
		// --set sets the values for the session, as :set does, so that
		// the fit's model is the session's and queries can read it.
		sets := setFlags{}
		for k, v := range r.sets {
			sets[k] = v
		}
		for k, v := range cfg.sets {
			sets[k] = v
		}
		// The values are the fit's: a fit that fails, or is not made,
		// does not keep them, as a :set that fails keeps none. The
		// session and its history go back to what they were.
		before, steps, forgotten := r.replState, slices.Clone(r.steps), r.forgotten
		if !r.trySets(sets) {
			return
		}
		for _, k := range sortedKeys(cfg.sets) {
			r.printSet(k)
		}
		defer func() {
			if r.fit != before.fit {
				return
			}
			r.replState, r.steps, r.forgotten = before, steps, forgotten
			errorf(r.err, "note: the values of --set were not kept, as the fit failed: the session's are as they were (:set keeps values without a fit)")
		}()
	}
	sets := r.sets
	cfg.sets = sets
	srcs := r.sources("")
	l, err := r.boundModel()
	if err != nil {
		r.printError(err, srcs)
		return
	}
	if len(l.Model.Latents) == 0 {
		r.errorf("the model has no params to fit")
		return
	}
	if msg := momentMatchRefusal(cfg, l.Model); msg != "" {
		r.errorf("%s", msg)
		return
	}
	printReplLoadWarnings(r.err, l)
	if err := checkDrawsSize(cfg.outputDraws, cfg.settings.DrawsPerStep, l.Model); err != nil {
		r.errorf("%v", err)
		return
	}
	autoNamesParam(cfg, l.Model)
	notes, err := checkFullRank(&cfg.settings, l.Model)
	if err != nil {
		r.printError(err, srcs)
		return
	}
	for _, n := range notes {
		errorf(r.err, "note: %s", n)
	}
	cfg.settings.ParetoKFree = khatFree(cfg.settings, l.Model)
	mbNotes, err := setMinibatch(cfg, l.Model)
	if err != nil {
		r.printError(err, srcs)
		return
	}
	con := newConsole(r.err, isTerminal(r.err), cfg.quiet, cfg.verbose)
	for _, n := range mbNotes {
		con.note("%s", n) // its warnings are fit.json's (con.warnings)
	}
	var evNotes ast.ErrorList
	if cfg.evidence {
		var ok bool
		if evNotes, ok = evidenceCaveats(l.Model, func(err error) { r.printError(err, srcs) }); !ok {
			return
		}
	}
	start := "" // where q started, for the summary: "" for the default start
	if cfg.init != "" {
		src, err := os.ReadFile(cfg.init)
		if err != nil {
			r.failed = true
			con.note("cannot read --init file: %v", err)
			return
		}
		srcs[cfg.init] = src
		values, err := readInitFile(cfg.init, src, l)
		if err != nil {
			r.printError(err, srcs)
			return
		}
		if values != nil {
			defer values.setStart(l.Model)()
			start = "started at " + values.describe(-1)
		} else {
			ff, err := fitfile.Read(cfg.init, src)
			if err != nil {
				r.printError(err, srcs)
				return
			}
			if err := initOverflowed(cfg.init, ff, srcs); err != nil {
				r.printError(err, srcs)
				return
			}
			if len(ff.Restarts) > 0 {
				r.errorf("%s holds a mixture of %d restarts, and :fit keeps one q: warm-start it with gpp fit --restarts %d", cfg.init, len(ff.Restarts), len(ff.Restarts))
				return
			}
			init, warns := fitfile.InitResult(ff, ff.Factors, ff.Groups, l.Model)
			for _, w := range warns {
				con.note("warning: %s", w)
			}
			cfg.settings.Init = init
			start = "warm-started from " + cfg.init
		}
	}
	if last {
		init, fresh := warmFrom(r.fit.res, l.Model)
		if len(init.Factors) == 0 {
			r.errorf(":fit --init last: no param of the model is in fit %d, the session's last (%s start from the default): run :fit without --init", r.fit.n, joinAnd(fresh))
			return
		}
		cfg.settings.Init = init
		start = fmt.Sprintf("warm-started from q of fit %d, the session's last (%s)", r.fit.n, fitMeasure(r.fit.res))
		if len(fresh) > 0 {
			errorf(r.err, "note: --init last: %s not in fit %d; from the default start", joinAnd(fresh), r.fit.n)
			start += "; " + joinAnd(fresh) + " from the default"
		}
	}
	writeFiles := hasFlag(args, "out")
	if cfg.plots && !writeFiles {
		r.errorf(":fit --plots writes PNG files, and :fit writes files only with --out: add --out DIR")
		return
	}
	if len(cfg.drawsParams) > 0 && !writeFiles {
		r.errorf(":fit --draws-params chooses the columns of draws.csv, and :fit writes files only with --out: add --out DIR")
		return
	}
	if writeFiles {
		if cfg.plots {
			if err := preparePlots(cfg, l); err != nil {
				r.errorf("%v", err)
				return
			}
		}
		if err := checkDrawsParams(cfg, l); err != nil {
			r.errorf("%v", err)
			return
		}
		if err := outputClash(cfg, l.Model, r.inputFiles()); err != nil {
			r.errorf("%v", err)
			return
		}
		if _, err := prepareOutDir(cfg.out); err != nil {
			r.errorf("%v", err)
			return
		}
		cfg.temps, cfg.beforeCommit = &tempFiles{}, r.beforeCommit
		lock, err := lockOutDir(cfg.out, cfg.temps)
		if err != nil {
			r.errorf("%v", err)
			return
		}
		defer lock.release()
		defer exitOnTerm(cfg.temps, r.err)()
	}

	ctx, stop := r.interruptible(func() { con.note("interrupted: stopping the fit; the session goes on") })
	defer stop()

	s := cfg.settings
	con.start(s.MaxIter, s.EvalEvery, 1, pointObjective(s.Method))
	con.batch = s.Minibatch != nil // before the fit's goroutines start
	con.info("fitting the session's model: %s", describeFit(cfg, l))
	s.Scoring = scoringNote(con)
	stopWatch := watchSteps(con, &s, l.Info, r.afterEval)
	res, err := sgvb.Fit(ctx, runTarget(cfg, l.Model), pipeline.Latents(l.Model), s)
	stopWatch()
	err = pipeline.LaplacePos(err, l.Model)
	con.finish()
	if err == nil {
		pathfinderNote(con, "", res.Pathfinder)
	}
	if err != nil {
		r.printError(err, srcs)
		if res != nil {
			for _, w := range res.Warnings {
				con.note("warning: %s", w)
			}
		}
		failedFitNotes(con, err, res, l, cfg)
		con.note("the fit failed; the session keeps its previous fit, if any")
		return
	}
	if res.AtStart && !sgvb.Overflows(res.ELBO, res.ELBOSE) {
		printAtStartFailure(con, res, s)
		con.note("the fit failed; the session keeps its previous fit, if any")
		return
	}
	var curv *curvCheck
	cfg.warmInit = "last"
	if cfg.autoFullRank {
		res, s, curv = autoFullRankFit(ctx, cfg, l, res, s, con)
	}
	ds, err := makeDrawsAt(res, nil, l.Model, cfg.outputDraws, s.Seed, nil, cfg.momentMatch, nil)
	if err == nil {
		nameByLabels(ds.vars, l)
		if ds.loo != nil {
			ds.looCond = looConditional(l)
		}
	}
	if err == nil && !res.Interrupted && mostlyNonFinite(ds) { // before moment matching, as gpp fit's
		printDomainFailure(con, ds, res.Warnings, func(err error) { r.printError(err, srcs) })
		con.note("the fit failed; the session keeps its previous fit, if any")
		return
	}
	if err == nil && cfg.momentMatch {
		ds.mm, err = momentMatchFit(ctx, ds, res, nil, l.Model, s.Workers, closerFlag(s, l.Model))
	}
	if err != nil {
		r.printError(err, srcs)
		return
	}
	st := summariseColumns(ds, cfg.hdi, cfg.probs)
	cfg.curvSkipped = ""
	if !cfg.autoFullRank {
		curv, cfg.curvSkipped = meanFieldCurvature(ctx, s, l, res)
	}
	h := drawsHeader{model: replModel, modelHash: fitfile.ModelHash([]byte(r.src)), data: r.dataArgs(), dataHash: r.dataHashes(), cfg: cfg, r: res, stepSize: res.StepSize, curv: curv}
	h.recordData(l)
	if h.stepSize == 0 {
		h.stepSize = s.Optimizer.DefaultStepSize()
	}
	if cfg.evidence {
		if res.Interrupted || ctx.Err() != nil {
			con.note("note: --evidence: the fit was interrupted, so no evidence is estimated")
		} else if h.evidence, err = fitEvidence(cfg, h, res, nil, l.Model, evNotes); err != nil {
			r.printError(err, srcs)
			return
		}
	}
	if cfg.profile {
		fitProfile(ctx, cfg, l, res, nil, con)
	}
	if ps := res.Path; ps != nil {
		start = fmt.Sprintf("started from point %d of an L-BFGS path (%d iterations, %d points scored; ELBO estimate %.6g ± %.2g%s)", ps.Iterate, ps.Iterates, ps.Scored, ps.ELBO, ps.SE, pathSmoothNote(ps))
	}
	prev := r.fit
	slow := ""
	if start == "" && prev != nil && res.Seconds >= r.slowRefit && !res.Interrupted && !sgvb.Overflows(prev.res.ELBO, prev.res.ELBOSE) {
		if init, _ := warmFrom(prev.res, l.Model); len(init.Factors) > 0 {
			slow = fmt.Sprintf("this fit took %.3g s from the default start; :fit --init last starts from q of fit %d, the session's last, where the params it shares keep their q", res.Seconds, prev.n)
		}
	}
	// computed before the files are written: fit.json lists what the
	// console prints
	after := replFitNotices(cfg, s, l, res, ds, st, h.evidence, curv, slow, writeFiles && ds.loo != nil)
	h.notices = newFileNotices(l, con.warnings(), after)
	var written []string
	if writeFiles {
		written, err = writeOutputs(cfg, h, ds, st)
		if err != nil {
			r.errorf("%v", err)
			con.note("no output written")
			after = replFitNotices(cfg, s, l, res, ds, st, h.evidence, curv, slow, false) // no loo.csv either
		}
		noteUnplotted(con, cfg)
	}
	r.fits++
	r.fit = &replFit{res: res, n: r.fits, seed: s.Seed, draws: cfg.outputDraws, made: r.fitOf(sets), levels: h.levels, sizes: h.sizes, columns: h.columns, axes: savedAxes(ds.vars)}
	r.sample = nil // the queries answer from this fit, not an earlier :sample
	narrow, unchecked, mild := narrowSds(s, res, nil, curv)
	printReplFit(r.out, cfg, res, h.evidence, ds, st, written, r.fits, start, sdMarks{narrow, unchecked, mild})
	if cfg.prof != nil {
		printProfile(r.out, cfg.prof)
	}
	after.print(con, srcs)
	if sgvb.Overflows(res.ELBO, res.ELBOSE) {
		r.errorf("the fit failed (its ELBO overflows, above): the session keeps it for inspection only")
	}
	if res.Interrupted {
		con.note("interrupted at iteration %d: the session keeps the q reached", res.Iterations)
	}
}

// interruptible returns a context that Ctrl-C cancels, after calling
// first, until stop is called: a :fit, a query, :check or the checks of a
// step (stepError) then stop and the session goes on, where Ctrl-C would
// otherwise end the process. A second Ctrl-C does no more than the first.
func (r *repl) interruptible(first func()) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	stopNotify := r.notify(sigs)
	stopWatch := watchInterrupts(sigs, cancel, first, func() {}, time.Now)
	return ctx, func() {
		stopWatch()
		stopNotify()
		cancel()
	}
}

// interrupted reports that a query or :check stopped at a Ctrl-C: "the
// query stopped at draw 3 of 1000".
func (r *repl) interrupted(what string) {
	errorf(r.err, "interrupted: %s; the session goes on", what)
}

// hasFlag reports whether args set the flag name (-name, --name, -name=v).
func hasFlag(args []string, name string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		a = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if a == name || strings.HasPrefix(a, name+"=") {
			return true
		}
	}
	return false
}

// dataArgs returns the data files as typed.
func (r *repl) dataArgs() []string {
	var out []string
	for _, d := range r.data {
		out = append(out, d.arg)
	}
	return out
}

// dataHashes returns the sha256 of each of the session's data files, in the
// order of dataArgs, as read.
func (r *repl) dataHashes() []string {
	var out []string
	for _, d := range r.data {
		out = append(out, fitfile.ModelHash(d.src))
	}
	return out
}

// printReplFit prints a fit's summary: gpp fit's table with the REPL's
// 0-based element names in row-major order, then the diagnostics, with
// where q started unless it was the default start: fit n's start line.
func printReplFit(w io.Writer, cfg *fitConfig, res *sgvb.Result, ev *evidenceOutcome, ds *drawSet, st []stats, written []string, n int, start string, marks sdMarks) {
	pc := cfg.percentilesOf(st)
	head := pc.hdiHead(pc.head([]string{"name", "family", "mean", "sd"}, "", "%"))
	t := headedTable(head, 2)
	var marked narrowTally // the sds marked too small (narrow)
	queried, mild := 0, 0  // and unchecked, and mildly too small
	for _, v := range ds.vars {
		col := make([]int, len(v.elems)) // row-major element → column
		for j, k := range v.elems {
			col[k] = v.first + j
		}
		for k, c := range col {
			if k == replMaxElems && !cfg.verbose {
				t.note(fmt.Sprintf("... %d more elements of %s (:fit --verbose shows all)", len(col)-k, v.name))
				break
			}
			s := st[c]
			t.row(markFinite(pc.hdiCells(pc.cells([]string{v.elemName(k), v.family, cfg.num(s.mean), sdCell(cfg.num(s.sd), &v, k, marks, &marked, &queried, &mild)}, c, cfg.num), s, cfg.num), 2, s)...)
		}
	}
	t.print(w)
	printMarkNotes(w, marked.shownParams+marked.shownOutputs, queried, mild)
	fmt.Fprintln(w)
	if start != "" {
		fmt.Fprintf(w, "start        fit %d %s\n", n, start)
	}
	printFitStatus(w, cfg, res, nil, ev, ds, written, tallyNarrow(ds.vars, marks.narrow, marked))
}

// fitMeasure identifies a fit by its ELBO, or by its log joint at a MAP
// estimate, as its summary printed them.
func fitMeasure(res *sgvb.Result) string {
	if res.Method == sgvb.MAP {
		return fmt.Sprintf("log joint %.6g", res.ELBO)
	}
	return fmt.Sprintf("ELBO %.6g ± %.2g", res.ELBO, res.ELBOSE)
}

// replSlowRefit is how many seconds a :fit from the default start takes,
// when the session has fitted a model sharing params with it, before a hint
// suggests --init last (repl.slowRefit; tests lower it).
const replSlowRefit = 10

// initLast is :fit's --init value that warm-starts from the session's
// last fit (warmFrom); a file named last is ./last.
const initLast = "last"

// takeInitLast returns :fit's args without their --init flags when the
// last of them is --init last, and whether it is.
func takeInitLast(args []string) ([]string, bool) { return takeLast(args, "init") }

// takeLast returns args without their --name flags when the last of them
// is --name last (:fit and :sample's --init last, :sample's --against
// last), and whether it is.
func takeLast(args []string, flag string) ([]string, bool) {
	val, last := "", false
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		name, v, hasV := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if !strings.HasPrefix(a, "-") || name != flag {
			rest = append(rest, a)
			continue
		}
		if !hasV && i+1 < len(args) {
			i++
			v = args[i]
		}
		val = v
	}
	last = val == initLast
	if !last {
		return args, false
	}
	return rest, true
}

// warmFrom returns the start of :fit --init last: the factors of prev, the
// session's last fit, whose latent the model m still has with the same
// name, shape and support, moved to the latent's coordinates and bounds in
// m (the params are of the value on the support, as a fit file's, which
// fitfile.InitResult matches by name and size), and prev's joint groups whose
// members all match. fresh names the latents that start from the default,
// new or of another shape or support: "sigma (new)", "mu (real[3], was
// real[2])".
func warmFrom(prev *sgvb.Result, m *compile.Model) (init *sgvb.Result, fresh []string) {
	init = &sgvb.Result{Method: prev.Method, Dim: m.Dim}
	for i := range m.Latents {
		lat := &m.Latents[i]
		f := prev.Factor(lat.Name)
		switch {
		case f == nil:
			fresh = append(fresh, lat.Name+" (new)")
			continue
		case !slices.Equal(f.Shape, lat.Shape) || f.Support != lat.Support:
			fresh = append(fresh, fmt.Sprintf("%s (%s, was %s)", lat.Name,
				latentType(lat.Support, lat.Shape, 0, 0), latentType(f.Support, f.Shape, 0, 0)))
			continue
		}
		g := *f
		g.Offset, g.Loc, g.Scale, g.LocV, g.ScaleV = lat.Offset, lat.Loc, lat.Scale, lat.LocV, lat.ScaleV
		g.Parts = slices.Clone(f.Parts)
		off := lat.Offset
		for k := range g.Parts {
			g.Parts[k].Offset = off
			off += g.Parts[k].Size
		}
		init.Factors = append(init.Factors, g)
	}
	for _, g := range prev.Groups {
		if !slices.ContainsFunc(g.Names, func(n string) bool { return init.Factor(n) == nil }) {
			init.Groups = append(init.Groups, g)
		}
	}
	return init, fresh
}

// show prints the fitted factors, of every latent or of the named ones:
// family, parameters, mean and sd of each element (at most replMaxElems
// per latent when all are shown).
func (r *repl) show(args []string) {
	if r.sample != nil {
		r.showSample(args)
		return
	}
	if r.fit == nil {
		r.errorf("no fit yet: run :fit")
		return
	}
	res := r.fit.res
	lats, dim, sized := r.modelLatents()
	if r.staleParams(latentChange(lats, dim, sized, res)) {
		return
	}
	factors := res.Factors
	limit := replMaxElems
	if len(args) > 0 {
		factors = nil
		limit = 1000
		for _, name := range args {
			f := res.Factor(name)
			if f == nil {
				var names []string
				for _, g := range res.Factors {
					names = append(names, g.Name)
				}
				r.errorf(":show: the fit has no param %s (it has %s)", name, strings.Join(names, ", "))
				return
			}
			factors = append(factors, *f)
		}
	}
	r.noteStale()
	fmt.Fprintf(r.out, "q of fit %d, the session's last result:\n", r.fit.n)
	t := &table{right: []bool{false, false, false, true, true}}
	t.row("name", "family", "parameters", "mean", "sd")
	var labelled []string // queries' spelling of the labelled params' first elements
	for i := range factors {
		f := &factors[i]
		mean, sd := f.Mean(), f.SD()
		names := f.ParamNames()
		fv := variable{name: f.Name, shape: f.Shape, axes: r.fit.axes[f.Name]}
		if len(fv.axes) != len(f.Shape) {
			fv.axes = nil
		}
		elemOf := func(_ string, _ []int, k int) string { return fv.elemName(k) }
		if fv.axes != nil {
			labelled = append(labelled, fmt.Sprintf("%s is %s", fv.elemName(0), compile.ElemName(f.Name, f.Shape, 0)))
		}
		for k := 0; k < f.Size; k++ {
			if k == limit {
				more := fmt.Sprintf("... %d more elements of %s", f.Size-k, f.Name)
				if len(args) == 0 {
					more += " (:show " + f.Name + " lists more)"
				}
				t.note(more)
				break
			}
			var ps []string
			if f.Family == sgvb.FamilyOrdered { // element 0 from its normal, the rest by their increments' factor
				part, j, first := orderedPart(f, k)
				if part.Family == sgvb.FamilyFullRank || part.Family == sgvb.FamilyLowRank { // a joint factor's marginal: the coordinate's normal, as below
					m, s := part.CoordMarginal(j)
					ps = append(ps, "mean "+num3(m), "sd "+num3(s))
				} else {
					for i, n := range part.Family.ParamNames(part.Size) {
						ps = append(ps, n+" "+num3(part.Params[i][j]))
					}
				}
				what := "first"
				if !first {
					what = "increment"
				}
				t.row(fv.elemName(k), what+" "+part.Family.String(), strings.Join(ps, ", "), num3(mean[k]), num3(sd[k]))
				continue
			}
			switch f.Family {
			case sgvb.FamilyFullRank, sgvb.FamilyLowRank, sgvb.FamilyBanded:
				// The element's own marginal, a normal on its unconstrained
				// coordinate, not the columns of L or B (internal, and of the
				// whole group's coordinates under --fullrank a+b).
				c := k
				if f.Support == dist.Simplex { // K − 1 stick-breaking coordinates a row
					if c = f.StickCoord(k); c < 0 {
						ps = append(ps, "the stick left")
						break
					}
				}
				m, s := f.CoordMarginal(c)
				ps = append(ps, "mean "+num3(m), "sd "+num3(s))
			default:
				for j, p := range f.Params {
					if j < len(names) && k < len(p) {
						ps = append(ps, names[j]+" "+num3(p[k]))
					}
				}
			}
			name := fv.elemName(k)
			if e, scale, ok := transformCoord(f.Name, f.Shape, f.Support, k, elemOf); ok { // the factor is of the coordinates
				name = coordLabel(e, scale)
			}
			t.row(name, f.Family.String(), strings.Join(ps, ", "), num3(mean[k]), num3(sd[k]))
		}
	}
	for _, note := range fullRankNotes(res, factors) {
		t.note(note)
	}
	if labelled != nil {
		t.note(labelNote(labelled))
	}
	t.print(r.out)
}

// fullRankNotes says, below :show's table, how to read its full-rank rows:
// which shown latents share a joint factor (--fullrank a+b, or a Laplace
// fit's one normal), and that the parameters are each element's marginal
// normal.
func fullRankNotes(res *sgvb.Result, factors []sgvb.Factor) []string {
	shown := map[string]bool{}
	var banded []string
	for _, f := range factors {
		if f.Family == sgvb.FamilyFullRank {
			shown[f.Name] = true
		}
		if f.Family == sgvb.FamilyBanded {
			banded = append(banded, f.Name)
		}
	}
	var notes []string
	if len(banded) > 0 {
		notes = append(notes, fmt.Sprintf("%s: a banded-precision (Gauss–Markov) factor (--band); parameters: each element's marginal normal on the unconstrained scale (log of a positive param)", strings.Join(banded, ", ")))
	}
	if len(shown) == 0 {
		return notes
	}
	for _, g := range res.Groups {
		for _, n := range g.Names {
			if shown[n] && g.Band > 0 {
				notes = append(notes, fmt.Sprintf("%s: the marginals of one arrowhead factor with the chain %s (--fullrank %s --band %d)", strings.Join(g.Names[1:], ", "), g.Names[0], strings.Join(g.Names, "+"), g.Band))
				break
			}
			if shown[n] && res.Method.JointNormal() { // not a --fullrank fit, which laplace and pathfinder refuse
				what := "N(mode, (-H)^-1), the Laplace approximation"
				if res.Method == sgvb.Pathfinder {
					what = "from an L-BFGS path, Pathfinder's"
				}
				notes = append(notes, fmt.Sprintf("%s: one joint normal %s (--family %s)", strings.Join(g.Names, ", "), what, res.Method))
				break
			}
			if shown[n] {
				notes = append(notes, fmt.Sprintf("%s: one joint full-rank factor (--fullrank %s)", strings.Join(g.Names, ", "), strings.Join(g.Names, "+")))
				break
			}
		}
	}
	return append(notes, "fullrank parameters: each element's marginal normal on the unconstrained scale (log of a positive param)")
}

// replMode is what an expression typed at the prompt asks for.
type replMode int

const (
	modeSummary  replMode = iota // mean, sd and quantiles of each element
	modeMean                     // mean(x): the posterior mean of each element
	modeSD                       // sd(x): the posterior sd of each element
	modeQuantile                 // quantile(x, p): the posterior p-quantile of each element
)

// evalExpr evaluates an expression typed at the prompt (see :help).
func (r *repl) evalExpr(input string, x ast.Expr) {
	ctx, stop := r.interruptible(func() {})
	defer stop()
	srcs := r.sources(input)
	mode := modeSummary
	if call, ok := x.(*ast.CallExpr); ok && (call.Fun.Name == "mean" || call.Fun.Name == "sd") {
		if len(call.Args) != 1 {
			r.printError(ast.Errorf(call.Fun.NamePos, "%s(x) at the prompt takes one expression", call.Fun.Name), srcs)
			return
		}
		if _, isSlice := call.Args[0].(*ast.SliceExpr); !isSlice {
			mode = modeMean
			if call.Fun.Name == "sd" {
				mode = modeSD
			}
			x = call.Args[0]
		}
	}
	var probs []float64 // quantile(x, p)'s p, or the elements of a vector p
	var probVec bool    // p is a vector: a column per probability
	if call, ok := x.(*ast.CallExpr); ok && call.Fun.Name == "quantile" {
		var err error
		if x, probs, probVec, err = quantileArgs(call); err != nil {
			r.printError(err, srcs)
			return
		}
		mode = modeQuantile
	}
	f, err := parser.ParseFile(replModel, []byte(r.src))
	if err != nil {
		r.printError(err, srcs)
		return
	}
	label := ast.FormatExpr(x) // a scalar's name, or a name to index
	if _, isIdent := x.(*ast.Ident); !isIdent {
		label = "" // elements are named by their indices alone
	}
	text := ast.FormatExpr(x)
	labelHint := r.labelIndexHint(x) // before substOutputs, which rewrites x in place
	x = substOutputs(x, outputValues(f))
	// want is the output printed: the expression's, or NAME_missing, the
	// draws of a leaf's missing cells (data summed out of the likelihood,
	// drawn from its ~), which the model compiles as an output of its own
	want := replExprName
	if leaf := r.leafQuery(f, x); leaf != "" {
		want, x = leaf, &ast.NumberLit{ValuePos: x.Pos(), Raw: "0", Value: 0, IsInt: true}
	}
	out := &ast.OutputStmt{Output: x.Pos(), Name: &ast.Ident{NamePos: x.Pos(), Name: replExprName}, Value: x}
	full := &ast.File{Name: replModel, Stmts: append(f.Stmts[:len(f.Stmts):len(f.Stmts)], out)}
	info, err := check.Check(full, &check.Config{Overrides: r.sets})
	if err != nil {
		if list, ok := ast.Positioned(err); ok && len(list) > 0 && strings.HasPrefix(list[0].Msg, "quantile ") {
			// the language's quantile, of data, inside an expression
			err = ast.Errorf(list[0].Pos, "%s; at the prompt, quantile(x, p) around a whole input is the REPL's posterior p-quantile of x, as quantile(beta, 0.9)", list[0].Msg)
		}
		if labelHint != nil {
			err = labelHint
		}
		r.printError(r.missingNameHint(err, x), srcs)
		return
	}
	if info.Types[x].DataOnly && !r.readsMissing(info, x) && want == replExprName {
		r.evalFixed(ctx, full, info, out, mode, srcs)
		return
	}
	if r.fit == nil && r.sample == nil {
		r.errorf("no fit yet: run :fit or :sample (the expression depends on params)")
		return
	}
	bound, err := data.BindOrdered(info, r.inputs(), r.sets, r.order.of(info))
	if err != nil {
		r.printError(err, srcs)
		return
	}
	m, err := compile.Compile(full, info, bound)
	if err != nil {
		r.printError(err, srcs)
		return
	}
	var res *sgvb.Result    // the fit's q, or nil for the sample's draws
	n, seed := 0, uint64(0) // draws, and the seed of an output's draws
	fitted := r.fittedParams()
	if err := leafReadError(x, info, m, fitted); err != nil {
		r.printError(err, srcs)
		return
	}
	if r.staleParams(latentChange(m.Latents, m.Dim, true, fitted)) {
		return
	}
	if smp := r.sample; smp != nil {
		n, seed = len(smp.run.sd.ds.logp), smp.seed
	} else {
		res, n, seed = r.fit.res, r.fit.draws, r.fit.seed
	}
	r.noteStale()
	oi := outputIndex(m, want)
	if oi < 0 { // a NAME_missing the model does not draw (leafQuery's guess)
		r.printError(ast.Errorf(x.Pos(), "undeclared name `%s`", want), srcs)
		return
	}
	shape := m.Outputs[oi].Shape
	if id, ok := x.(*ast.Ident); ok && res != nil && (mode == modeMean || mode == modeSD) {
		if fac := res.Factor(id.Name); fac != nil && !fac.Support.IsCoords() { // exact moments of q (a factor's are of its coordinates)
			v := fac.Mean()
			if mode == modeSD {
				v = fac.SD()
			}
			printValue(r.out, shape, sliceAt(v), num3)
			return
		}
	}
	ev, err := m.NewEvaluator()
	if err != nil {
		r.printError(err, srcs)
		return
	}
	// Only the elements printed are kept, every draw of each for its
	// quantiles, so that a huge value (rep(x, 1e7)) costs time, which
	// Ctrl-C stops, not memory.
	size := compile.ShapeLen(shape)
	shown := shownElems(shape, mode)
	if probVec { // a table's rows
		shown = shownElems(shape, modeSummary)
	}
	if len(shown) > replMaxKept/max(n, 1) {
		r.errorf("%d draws of the %d elements shown would take more than %d numbers (%d GiB): run :fit --output-draws %d or fewer, or index into the value",
			n, len(shown), replMaxKept, replMaxKept>>27, replMaxKept/len(shown))
		return
	}
	cols := make([][]float64, len(shown))
	for j := range cols {
		cols[j] = make([]float64, n)
	}
	// q's draws, and those of the outputs' ~ and of a leaf's missing cells
	// (NAME_missing: NaN without a stream), from the streams of the fit's
	// table (makeDrawsPaced): quantile(x, 0.95) of a column of the table
	// is its 95% entry, of the same draws
	rng := rand.New(rand.NewPCG(seed, sgvb.DrawStream))
	seedPredictive(ev, seed)
	coords := make([]float64, m.Dim)
	var nan, inf nonFiniteDraws
	for d := range n {
		if ctx.Err() != nil {
			r.interrupted(fmt.Sprintf("the query stopped at draw %d of %d", d+1, n))
			return
		}
		if res != nil {
			res.SampleCoords(rng, coords)
		} else { // the sample's draw d, at the coordinates it was evaluated at
			sd := r.sample.run.sd
			copy(coords, sd.coords[d*sd.xdim:(d+1)*sd.xdim])
		}
		// A draw counts by its value alone, as in draws.csv: a log joint
		// that fails there spoils only the values that read the failure.
		// An element that is NaN is left out of its own summary only, and
		// one that is ±Inf is kept in it, as :fit's table does.
		_, outs, err := ev.Eval(coords)
		hasNaN, hasInf := nonFinite(outs[oi])
		cause := func() error {
			if err == nil { // the log joint's failure is the cause
				return ev.OutputErr()
			}
			return err
		}
		nan.add(hasNaN, cause)
		inf.add(hasInf, cause)
		for j, k := range shown {
			cols[j][d] = outs[oi][k]
		}
		if r.afterDraw != nil {
			r.afterDraw(ctx)
		}
	}
	if mode == modeQuantile && probVec { // a row per element, a column per p
		if label == "" && len(shape) == 0 {
			label = text
		}
		head := []string{""}
		for _, p := range probs {
			head = append(head, pctText(p)+"%")
		}
		t := headedTable(head, 1)
		qv := variable{name: label, shape: shape, axes: r.labelAxes(label, shape)}
		for j, k := range shown {
			row := []string{qv.elemName(k)}
			sorted, _ := nuts.SortedFinite(cols[j]) // once for every p (drawQuantile's)
			for _, p := range probs {
				row = append(row, num3(nuts.Quantile(sorted, p)))
			}
			t.row(row...)
		}
		if size > len(shown) {
			t.note(fmt.Sprintf("... %d more elements", size-len(shown)))
		}
		t.print(r.out)
	}
	if mode == modeQuantile && !probVec {
		qs := make(map[int]float64, len(shown))
		for j, k := range shown {
			qs[k] = drawQuantile(cols[j], probs[0])
		}
		printValue(r.out, shape, func(k int) float64 { return qs[k] }, num3)
	}
	if mode == modeQuantile {
		nan.warn(r.err, n, "a NaN value, left out of its element's quantile")
		inf.warn(r.err, n, "an infinite value, kept in its element's quantile")
		return
	}
	st := make(map[int]stats, len(shown))
	for j, k := range shown {
		st[k] = summarise(cols[j], 0)
	}
	switch mode {
	case modeMean, modeSD:
		printValue(r.out, shape, func(k int) float64 {
			if mode == modeSD {
				return st[k].sd
			}
			return st[k].mean
		}, num3)
		if label == "" && len(shape) > 0 {
			// mean(inv_logit(a + s * z)) reads as one number in R or
			// NumPy: say what these are, and how to get that one
			stat := map[replMode]string{modeMean: "mean", modeSD: "sd"}[mode]
			errorf(r.err, "note: the posterior %s of each of the %d elements; the %s over them, at each draw, is (%s(%s))", stat, size, stat, stat, text)
		}
	default:
		if label == "" && len(shape) == 0 {
			label = text
		}
		t := &table{right: []bool{false, true, true, true, true, true}}
		t.row("", "mean", "sd", "5%", "50%", "95%")
		qv := variable{name: label, shape: shape, axes: r.labelAxes(label, shape)}
		for _, k := range shown {
			s := st[k]
			t.row(markFinite([]string{qv.elemName(k), num3(s.mean), num3(s.sd), num3(s.q5), num3(s.q50), num3(s.q95)}, 1, s)...)
		}
		if size > len(shown) {
			t.note(fmt.Sprintf("... %d more elements", size-len(shown)))
		}
		if qv.axes != nil {
			t.note(labelNote([]string{fmt.Sprintf("%s is %s", qv.elemName(0), compile.ElemName(label, shape, 0))}))
		}
		t.print(r.out)
	}
	nan.warn(r.err, n, "a NaN value, left out of its element's summary")
	inf.warn(r.err, n, "an infinite value, kept in its element's summary (as :fit's table keeps it)")
}

// typeOf prints :type EXPR: the type the checker gives an expression typed
// at the prompt (element kind, support, shape in the model's size names),
// its value when it is a compile-time constant, and whether it depends on
// the params (a query of it needs a fit) or on data and constants only;
// for a constrained param's name, its declared type.
func (r *repl) typeOf(text string) {
	if text == "" {
		r.errorf(":type takes an expression (usage: :type EXPR)")
		return
	}
	srcs := sources{"": []byte(text), replModel: []byte(r.src)}
	x, err := parser.ParseExpr(text)
	if err != nil {
		r.printError(err, srcs)
		return
	}
	f, err := parser.ParseFile(replModel, []byte(r.src))
	if err != nil {
		r.printError(err, srcs)
		return
	}
	x = substOutputs(x, outputValues(f))
	out := &ast.OutputStmt{Output: x.Pos(), Name: &ast.Ident{NamePos: x.Pos(), Name: replExprName}, Value: x}
	full := &ast.File{Name: replModel, Stmts: append(f.Stmts[:len(f.Stmts):len(f.Stmts)], out)}
	info, err := check.Check(full, &check.Config{Overrides: r.sets})
	if err != nil {
		r.printError(err, srcs)
		return
	}
	t := info.Types[x]
	desc := t.String()
	if t.Const != nil {
		desc += " = " + formatNum(*t.Const)
	}
	if t.DataOnly {
		desc += " (data and constants only)"
	} else {
		desc += " (depends on the params: evaluated on draws of q)"
	}
	if d := constrainedParam(f, x); d != nil && !strings.HasPrefix(desc, d.Type.Kind.String()) {
		desc += "; declared " + ast.FormatType(d.Type)
	}
	fmt.Fprintf(r.out, "%s: %s\n", text, desc)
}

// constrainedParam returns the declaration of the param that x names when
// its declared type says more than the checker's type of its value: a
// simplex, ordered, correlation, covariance or sum-to-zero param, whose
// value may be a plain real vector or matrix to the checker. Otherwise nil.
func constrainedParam(f *ast.File, x ast.Expr) *ast.ParamDecl {
	id, ok := ast.Unparen(x).(*ast.Ident)
	if !ok {
		return nil
	}
	for _, s := range f.Stmts {
		if d, ok := s.(*ast.ParamDecl); ok && d.Name.Name == id.Name {
			switch d.Type.Kind {
			case ast.Real, ast.Positive, ast.Unit, ast.Int:
				return nil
			}
			return d
		}
	}
	return nil
}

// quantileArgs reads the REPL's quantile(x, p): the expression x and the
// probabilities, p a number in [0, 1] or a vector of them (vec).
func quantileArgs(call *ast.CallExpr) (x ast.Expr, probs []float64, vec bool, err error) {
	if len(call.Args) != 2 {
		return nil, nil, false, ast.Errorf(call.Fun.NamePos, "quantile(x, p) at the prompt takes an expression and a probability, as quantile(beta, 0.9)")
	}
	elems := []ast.Expr{call.Args[1]}
	if v, ok := ast.Unparen(call.Args[1]).(*ast.VectorLit); ok && len(v.Elems) > 0 {
		elems, vec = v.Elems, true
	}
	for _, e := range elems {
		lit, ok := ast.Unparen(e).(*ast.NumberLit)
		if !ok {
			return nil, nil, false, ast.Errorf(e.Pos(), "quantile(x, p) takes a number p between 0 and 1, or a vector of them, as quantile(beta, 0.9) or quantile(beta, [0.025, 0.975])")
		}
		p, err := strconv.ParseFloat(lit.Raw, 64)
		if err != nil || p < 0 || p > 1 {
			return nil, nil, false, ast.Errorf(e.Pos(), "quantile(x, p) takes a number p between 0 and 1, got %s", lit.Raw)
		}
		probs = append(probs, p)
	}
	return call.Args[0], probs, vec, nil
}

// drawQuantile returns the p-quantile of draws (R's type 7, as :fit's
// table's 5 % and 95 %), leaving NaNs out; NaN when all are.
func drawQuantile(draws []float64, p float64) float64 {
	v, _ := nuts.SortedFinite(draws)
	return nuts.Quantile(v, p)
}

// replMaxKept bounds the numbers a query keeps: the draws of the elements
// it prints (1 GiB of float64s).
const replMaxKept = 1 << 27

// shownElems returns the elements, row-major, that a query prints: the
// first replMaxElems of its table, or for mean(x) and sd(x) those
// printValue shows.
func shownElems(shape []int, mode replMode) []int {
	size := compile.ShapeLen(shape)
	if mode == modeSummary || len(shape) < 2 {
		out := make([]int, min(size, replMaxElems))
		for k := range out {
			out[k] = k
		}
		return out
	}
	var out []int
	rows, cols := shape[0], size/max(shape[0], 1)
	for i := range min(rows, replMaxElems) {
		for j := range min(cols, replMaxElems) {
			out = append(out, i*cols+j)
		}
	}
	return out
}

// nonFiniteDraws counts the draws of a query that had a non-finite value
// of one kind, NaN or ±Inf, and keeps the cause of the first.
type nonFiniteDraws struct {
	n     int
	first error
}

// add counts a draw that had the kind of value (has), with cause to name
// why.
func (c *nonFiniteDraws) add(has bool, cause func() error) {
	if !has {
		return
	}
	if c.n++; c.first == nil {
		c.first = cause()
	}
}

// warn prints a warning that some of the n draws had what, if any did.
func (c *nonFiniteDraws) warn(w io.Writer, n int, what string) {
	if c.n == 0 {
		return
	}
	msg := fmt.Sprintf("warning: %d of %d draws had %s", c.n, n, what)
	if c.first != nil {
		msg += "; the first: " + c.first.Error()
	}
	errorf(w, "%s", msg)
}

// orderedPart returns the part of an ordered factor that element k's
// parameters are in, and its element there: x_0's normal, or the factor of
// the increment x_k − x_{k−1}; of a positive_ordered factor, its one
// positive part's element k. Of an ordered[G, K] factor, element k (row
// major) is row r's: its first (the normal's element r) or an increment
// (row r's in the second part). first says it is its row's first.
func orderedPart(f *sgvb.Factor, k int) (part *sgvb.Factor, j int, first bool) {
	K := f.Size
	if len(f.Shape) == 2 {
		K = f.Shape[1]
	}
	r, c := k/K, k%K
	if f.Support == dist.PositiveOrdered {
		return &f.Parts[0], k, c == 0
	}
	if c == 0 || len(f.Parts) < 2 {
		return &f.Parts[0], r, true
	}
	return &f.Parts[1], r*(K-1) + c - 1, false
}

// latentChange says how the latents of the session's model, lats of
// dimension dim, differ from those the fit res was made for, or returns ""
// when they do not: the fit's q is of its own latents, and reading it as a
// param of another support, bounds or shape would give wrong numbers (a
// normal's draws pushed through exp). With sized false, lats come from the
// checker alone: a size it does not know (-1) matches any.
func latentChange(lats []compile.Latent, dim int, sized bool, res *sgvb.Result) string {
	var gone, added []string
	for _, f := range res.Factors {
		if !slices.ContainsFunc(lats, func(l compile.Latent) bool { return l.Name == f.Name }) {
			gone = append(gone, "`"+f.Name+"`")
		}
	}
	for _, l := range lats {
		if res.Factor(l.Name) == nil {
			added = append(added, "`"+l.Name+"`")
		}
	}
	are := func(names []string) string {
		if len(names) == 1 {
			return names[0] + " is"
		}
		return joinAnd(names) + " are"
	}
	switch {
	case len(added) > 0 && len(gone) > 0:
		return fmt.Sprintf("%s new, %s gone", are(added), joinAnd(gone))
	case len(added) > 0:
		return are(added) + " new"
	case len(gone) > 0:
		return are(gone) + " gone"
	}
	for i, l := range lats {
		f := &res.Factors[i]
		if l.Name != f.Name {
			return "the params are declared in another order"
		}
		sameShape := slices.EqualFunc(l.Shape, f.Shape, func(d, fd int) bool { return d == fd || !sized && d < 0 })
		if l.Support != f.Support || l.Loc != f.Loc || l.Scale != f.Scale || !sameShape ||
			!slices.Equal(l.LocV, f.LocV) || !slices.Equal(l.ScaleV, f.ScaleV) ||
			sized && (l.Offset != f.Offset || l.Size != f.Size) {
			was, now := latentType(f.Support, f.Shape, f.Loc, f.Scale), latentType(l.Support, l.Shape, l.Loc, l.Scale)
			if f.ScaleV != nil || l.ScaleV != nil {
				was, now = elemBoundsType(f.Support, f.Shape, f.LocV, f.ScaleV), elemBoundsType(l.Support, l.Shape, l.LocV, l.ScaleV)
				if was == now { // the same kind of bounds, other values
					was, now = was+" with other bounds", now+" with these"
				}
			}
			return fmt.Sprintf("`%s` was %s, is now %s", l.Name, was, now)
		}
	}
	if sized && dim != res.Dim {
		return "the coordinates changed"
	}
	return ""
}

// latentType writes a latent's type as a param declares it: "positive",
// "real<lower=0, upper=2>[3]", "simplex[4]".
func latentType(s dist.Support, shape []int, loc, scale float64) string {
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	t := s.String()
	if s == dist.SumToZeroMatrix && len(shape) == 2 { // M×N from its (M−1)×(N−1) coordinates
		shape = []int{shape[0] + 1, shape[1] + 1}
	}
	if s.IsCoords() && len(shape) == 1 && shape[0] >= 0 { // K from its K(K−1)/2 (K(K+1)/2, K−1) coordinates
		k := 1
		for s.MatrixSize(k) < shape[0] {
			k++
		}
		shape = []int{k}
	}
	switch {
	case scale == 0:
	case s == dist.Unit:
		t = "real<lower=" + g(loc) + ", upper=" + g(loc+scale) + ">"
	case scale > 0:
		t = "real<lower=" + g(loc) + ">"
	default:
		t = "real<upper=" + g(loc) + ">"
	}
	if len(shape) > 0 {
		dims := make([]string, len(shape))
		for i, d := range shape {
			dims[i] = "?"
			if d >= 0 {
				dims[i] = strconv.Itoa(d)
			}
		}
		t += "[" + strings.Join(dims, ", ") + "]"
	}
	return t
}

// elemBoundsType writes the type of a latent whose bounds may be per
// element (locs and scales nil: as latentType without bounds):
// "real<lower=per element>[3]".
func elemBoundsType(s dist.Support, shape []int, locs, scales []float64) string {
	if scales == nil {
		return latentType(s, shape, 0, 0)
	}
	t := latentType(dist.Real, shape, 0, 0)
	switch {
	case s == dist.Unit:
		return strings.Replace(t, "real", "real<lower=per element, upper=per element>", 1)
	case scales[0] > 0:
		return strings.Replace(t, "real", "real<lower=per element>", 1)
	}
	return strings.Replace(t, "real", "real<upper=per element>", 1)
}

// staleParams reports, and refuses, a fit or sample (the session's last
// result) made for other latents than the session's model has now
// (latentChange): its answers would be wrong, not just old. It reports
// whether it refused.
func (r *repl) staleParams(change string) bool {
	if r.sample != nil {
		return r.staleOf(change, "sample")
	}
	return r.staleOf(change, "fit")
}

// staleOf is staleParams for the session's last fit or sample (what).
func (r *repl) staleOf(change, what string) bool {
	if change == "" {
		return false
	}
	r.errorf("the model's params changed since the last :%s (%s): the %s is of another model; run :%s again", what, change, what, what)
	return true
}

// boundModel parses the session's model with its :set values and binds it
// to its data, as :sample and :sensitivity run it.
func (r *repl) boundModel() (*pipeline.Loaded, error) {
	l, err := pipeline.ParseSource(replModel, []byte(r.src), r.sets)
	if err == nil {
		l.Order = r.order.of(l.Info)
		err = l.Bind(r.inputs(), r.sets)
	}
	return l, err
}

// modelLatents returns the latents of the session's model: compiled with
// the session's data when it binds (sized), else as the checker sees them,
// with -1 for a size it does not know.
func (r *repl) modelLatents() (lats []compile.Latent, dim int, sized bool) {
	l, err := r.boundModel()
	if err == nil {
		return l.Model.Latents, l.Model.Dim, true
	}
	for _, c := range r.info.Latents {
		loc, scale := c.Affine()
		var shape []int
		for _, d := range c.Dims {
			shape = append(shape, d.N)
		}
		if c.Support == dist.SumToZeroMatrix && len(shape) == 2 { // the fit's factor is of its (M−1)×(N−1) coordinates
			for i, n := range shape {
				if n >= 0 {
					shape[i] = n - 1
				}
			}
		} else if c.Support.IsCoords() && len(c.Dims) > 0 { // the fit's factor is of its K(K−1)/2 (K(K+1)/2, K−1) coordinates
			shape = []int{-1}
			if k := c.Dims[0].N; k >= 0 {
				shape[0] = c.Support.MatrixSize(k)
			}
		}
		lats = append(lats, compile.Latent{Name: c.Name, Shape: shape, Support: c.Support, Loc: loc, Scale: scale})
	}
	return lats, 0, false
}

// evalFixed evaluates an expression that depends on data and constants
// only. It compiles the model's data, constants and data-only lets with the
// expression (no params, no density), bound to the session's data; an
// expression of constants alone needs no data.
func (r *repl) evalFixed(ctx context.Context, full *ast.File, info *check.Info, out *ast.OutputStmt, mode replMode, srcs sources) {
	var withData, constsOnly []ast.Stmt
	for _, s := range full.Stmts {
		switch s := s.(type) {
		case *ast.DataDecl:
			withData = append(withData, s)
		case *ast.ConstDecl:
			withData = append(withData, s)
			constsOnly = append(constsOnly, s)
		case *ast.LetStmt:
			if info.Types[s.Value].DataOnly {
				withData = append(withData, s)
			}
		case *ast.FnDecl:
			withData = append(withData, s)
			constsOnly = append(constsOnly, s)
		}
	}
	withData = append(withData, out)
	constsOnly = append(constsOnly, out)
	m, err := compileFixed(withData, r.inputs(), r.sets, r.order)
	if err != nil {
		if m2, err2 := compileFixed(withoutMissingData(info, withData), r.inputs(), r.sets, r.order); err2 == nil {
			m, err = m2, nil
		}
	}
	if err != nil {
		var err2 error
		if m, err2 = compileFixed(constsOnly, nil, r.sets, nil); err2 != nil {
			r.printError(err, srcs)
			return
		}
	}
	ev, err := m.NewEvaluator()
	if err != nil {
		r.printError(err, srcs)
		return
	}
	_, outs, err := ev.Eval(make([]float64, m.Dim))
	if ctx.Err() != nil {
		r.interrupted("the expression stopped")
		return
	}
	if err != nil {
		r.printError(err, srcs)
		return
	}
	oi := outputIndex(m, replExprName)
	if oerr := ev.OutputErr(); oerr != nil && !allFinite(outs[oi]) {
		// a failure the value shows (an ODE solve that stopped): say why
		r.printError(oerr, srcs)
		return
	}
	v := append([]float64(nil), outs[oi]...)
	if mode == modeSD {
		for k := range v {
			v[k] = 0
		}
	}
	printValue(r.out, m.Outputs[oi].Shape, sliceAt(v), formatNum)
}

// compileFixed checks, binds and compiles statements as a model.
func compileFixed(stmts []ast.Stmt, inputs []data.Input, sets setFlags, order levelFlags) (*compile.Model, error) {
	f := &ast.File{Name: replModel, Stmts: stmts}
	used := setFlags{}
	info0, _ := check.Check(f, nil)
	for k, v := range sets {
		if info0 != nil && info0.Lookup(k) != nil {
			used[k] = v
		}
	}
	info, err := check.Check(f, &check.Config{Overrides: used})
	if err != nil {
		return nil, err
	}
	bound, err := data.BindOrdered(info, inputs, used, order.of(info))
	if err != nil {
		return nil, err
	}
	return compile.Compile(f, info, bound)
}

// printValue prints a value, element k (row-major) being at(k): a number,
// a vector as [a, b, c], a matrix one row per line; at most replMaxElems
// elements of a vector or of a matrix row, and replMaxElems rows
// (shownElems).
func printValue(w io.Writer, shape []int, at func(k int) float64, format func(float64) string) {
	row := func(start, n int) string {
		var parts []string
		for k := range n {
			if k == replMaxElems {
				parts = append(parts, fmt.Sprintf("... (%d more)", n-k))
				break
			}
			parts = append(parts, format(at(start+k)))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	switch len(shape) {
	case 0:
		fmt.Fprintln(w, format(at(0)))
	case 1:
		fmt.Fprintln(w, row(0, shape[0]))
	default:
		n := shape[0]
		m := compile.ShapeLen(shape) / max(n, 1)
		for i := 0; i < n; i++ {
			if i == replMaxElems {
				fmt.Fprintf(w, " ... (%d more rows)]\n", n-i)
				break
			}
			open, end := " ", ","
			if i == 0 {
				open = "["
			}
			if i == n-1 {
				end = "]"
			}
			fmt.Fprintln(w, open+row(i*m, m)+end)
		}
	}
}

// sliceAt returns the accessor of printValue for the values v.
func sliceAt(v []float64) func(int) float64 { return func(k int) float64 { return v[k] } }

// outputValues maps the model's outputs (of the form output NAME = EXPR)
// to their expressions.
func outputValues(f *ast.File) map[string]ast.Expr {
	vals := map[string]ast.Expr{}
	for _, s := range f.Stmts {
		if o, ok := s.(*ast.OutputStmt); ok && o.Value != nil {
			vals[o.Name.Name] = o.Value
		}
	}
	return vals
}

// substOutputs replaces the names of outputs in e by their expressions, in
// parentheses: the compiler gives an output no value inside another
// expression, and an expression typed at the prompt becomes an output.
func substOutputs(e ast.Expr, vals map[string]ast.Expr) ast.Expr {
	if len(vals) == 0 || e == nil {
		return e
	}
	sub := func(x ast.Expr) ast.Expr { return substOutputs(x, vals) }
	switch x := e.(type) {
	case *ast.Ident:
		if v, ok := vals[x.Name]; ok {
			return &ast.ParenExpr{Lparen: x.NamePos, X: v, Rparen: x.NamePos}
		}
	case *ast.UnaryExpr:
		x.X = sub(x.X)
	case *ast.BinaryExpr:
		x.X, x.Y = sub(x.X), sub(x.Y)
	case *ast.ParenExpr:
		x.X = sub(x.X)
	case *ast.TransposeExpr:
		x.X = sub(x.X)
	case *ast.CallExpr:
		for i := range x.Args {
			x.Args[i] = sub(x.Args[i])
		}
	case *ast.IndexExpr:
		x.X = sub(x.X)
		for i := range x.Indices {
			x.Indices[i] = sub(x.Indices[i])
		}
	case *ast.SliceExpr:
		x.Lo, x.Hi = sub(x.Lo), sub(x.Hi)
	case *ast.VectorLit:
		for i := range x.Elems {
			x.Elems[i] = sub(x.Elems[i])
		}
	}
	return e
}

// nonFinite reports whether v has a NaN value and whether it has a ±Inf.
func nonFinite(v []float64) (hasNaN, hasInf bool) {
	for _, x := range v {
		hasNaN = hasNaN || math.IsNaN(x)
		hasInf = hasInf || math.IsInf(x, 0)
	}
	return hasNaN, hasInf
}

// allFinite reports whether every value of v is finite.
func allFinite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// joinAnd joins phrases as a list in prose: "a", "a and b", "a, b and c".
func joinAnd(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// readsMissing reports whether x reads data whose missing cells the model
// fits (y_missing), itself or through lets (a covariate's: let xc = 2 * x):
// x then depends on the params, and is evaluated at draws of q with those
// cells filled in, as an output is.
func (r *repl) readsMissing(info *check.Info, x ast.Expr) bool {
	var names []string
	info.VisitReads(x, true, func(sym *check.Symbol) bool {
		if d := info.DataVar(sym.Name); d != nil && d.Missing != nil && sym == d.Symbol {
			names = append(names, sym.Name)
		}
		return false
	})
	if len(names) == 0 {
		return false
	}
	bound, err := data.BindOrdered(info, r.inputs(), r.sets, r.order.of(info))
	if err != nil {
		return false // evalFixed reports it
	}
	for _, n := range names {
		if a := bound[n]; a != nil && len(a.Missing) > 0 {
			return true
		}
	}
	return false
}

// leafReadError is the error of a query x that reads data whose missing
// cells the fit (or sample) res summed out of the likelihood as leaves:
// read by the query they are no leaves, and m fits them as the latent
// NAME_missing that res has not, which would read as "the params
// changed". Their draws are the output NAME_missing, which a query may
// name alone. nil where x reads no such data.
func leafReadError(x ast.Expr, info *check.Info, m *compile.Model, res *sgvb.Result) error {
	for _, l := range m.Latents {
		base, ok := strings.CutSuffix(l.Name, compile.MissingSuffix)
		if !ok || res.Factor(l.Name) != nil || info.DataVar(base) == nil {
			continue
		}
		return ast.Errorf(x.Pos(), "`%s`'s missing cells were summed out of the likelihood (each observed by its ~ alone) and drawn as `%s`: a query that reads `%s` would need them fitted; type `%s` for their draws",
			base, l.Name, base, l.Name)
	}
	return nil
}

// outputIndex returns the index of m's output named name (the REPL's
// query, replExprName, is not always the last: a leaf's NAME_missing
// draws come after the model's statements); -1 where there is none.
func outputIndex(m *compile.Model, name string) int {
	return slices.IndexFunc(m.Outputs, func(o compile.Output) bool { return o.Name == name })
}

// fittedParams returns the params of the session's last sample, or else
// of its last fit, as a Result's factors (of a sample: latentsResult).
func (r *repl) fittedParams() *sgvb.Result {
	if smp := r.sample; smp != nil {
		return latentsResult(smp.lats, smp.dim)
	}
	return r.fit.res
}

// leafQuery returns NAME_missing where x is that name alone and NAME is
// data of f with missing cells that the fit or sample summed out as leaves (drawn
// at each draw as that output), which is no name of the model; else "".
func (r *repl) leafQuery(f *ast.File, x ast.Expr) string {
	id, ok := x.(*ast.Ident)
	if !ok || r.fit == nil && r.sample == nil {
		return ""
	}
	base, isMissing := strings.CutSuffix(id.Name, compile.MissingSuffix)
	if !isMissing || r.fittedParams().Factor(id.Name) != nil { // fitted as a latent, not summed out
		return ""
	}
	data := false
	for _, s := range f.Stmts {
		if declName(s) == id.Name {
			return "" // the model's own name
		}
		_, isData := s.(*ast.DataDecl)
		data = data || isData && declName(s) == base
	}
	if !data {
		return ""
	}
	return id.Name
}

// missingNameHint adds to the error of an expression that names a fit's
// missing values (y_missing), which are no name of the model, how to
// read them.
func (r *repl) missingNameHint(err error, x ast.Expr) error {
	if r.fit == nil || r.sample != nil {
		return err
	}
	var hint error
	ast.Inspect(x, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok || hint != nil {
			return hint == nil
		}
		base, isMissing := strings.CutSuffix(id.Name, compile.MissingSuffix)
		if isMissing && r.fit.res.Factor(id.Name) != nil {
			hint = ast.Errorf(id.Pos(), "`%s` is the fit's missing values of `%s`, not a name in the model: read `%s`, whose missing cells are %s at each draw, or :show %s for q's factor",
				id.Name, base, base, id.Name, id.Name)
		}
		return true
	})
	if hint != nil {
		return hint
	}
	return err
}

// withoutMissingData leaves out of the statements of evalFixed the
// declarations of data whose missing cells the model fits (y_missing), or
// that nothing reads yet, and that no other statement among them reads:
// evalFixed tries them when the statements fail to bind, as without the
// model's ~ those missing cells would have no distribution, and a
// data-only expression does not need them (x[4] beside a y with NA cells).
func withoutMissingData(info *check.Info, stmts []ast.Stmt) []ast.Stmt {
	read := map[string]bool{}
	for _, s := range stmts {
		if _, ok := s.(*ast.DataDecl); ok {
			continue
		}
		ast.Inspect(s, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				read[id.Name] = true
			}
			return true
		})
	}
	return slices.DeleteFunc(slices.Clone(stmts), func(s ast.Stmt) bool {
		d, ok := s.(*ast.DataDecl)
		if !ok || read[d.Name.Name] {
			return false
		}
		v := info.DataVar(d.Name.Name)
		return v != nil && (v.Missing != nil || v.Unused)
	})
}

// labelNote says below a REPL table that names elements by their labels
// how a query names them: by the language's 0-based indices (pairs such
// as "a[AITKIN] is a[0]").
func labelNote(pairs []string) string {
	return "labels name the elements of an axis the data labelled, in the order of the indices; a query indexes them from 0: " + strings.Join(pairs, ", ")
}

// labelAxes returns the labels that name the elements of the param or
// output name of the session's last result, as its table names them, if
// they fit shape; else nil (a query of an expression, named by indices).
func (r *repl) labelAxes(name string, shape []int) [][]string {
	axes := r.resultAxes(name)
	if len(axes) != len(shape) {
		return nil
	}
	for a, labels := range axes {
		if labels != nil && len(labels) != shape[a] {
			return nil
		}
	}
	return axes
}

// labelIndexHint returns the error, or nil, for a query that indexes a
// param or output by a label, as the tables print its elements
// (a_raw[Beta], where Beta is no name of the model, or another one), in
// place of the checker's: how a query names that element, by the
// language's 0-based index, a_raw[0]. Queries are expressions of the
// language, whose indices are numbers; a label that is also a name the
// model declares and that checks is left alone (its query answers).
func (r *repl) labelIndexHint(x ast.Expr) error {
	var hint error
	ast.Inspect(x, func(n ast.Node) bool {
		ix, ok := n.(*ast.IndexExpr)
		if !ok || hint != nil {
			return hint == nil
		}
		id, ok := ix.X.(*ast.Ident)
		if !ok {
			return true
		}
		axes := r.resultAxes(id.Name)
		for a, e := range ix.Indices {
			l, ok := e.(*ast.Ident)
			if !ok || a >= len(axes) {
				continue
			}
			if i := slices.Index(axes[a], l.Name); i >= 0 {
				idx := make([]string, len(ix.Indices)) // the query as written, the label replaced by its index
				for b, e := range ix.Indices {
					idx[b] = ast.FormatExpr(e)
				}
				idx[a] = strconv.Itoa(i)
				hint = ast.Errorf(l.Pos(), "`%s` is the tables' label of index %d on axis %d of `%s`; a query indexes by the language's 0-based indices: `%s[%s]` (:show lists the labels in index order)",
					l.Name, i, a, id.Name, id.Name, strings.Join(idx, ", "))
				return false
			}
		}
		return true
	})
	return hint
}

// resultAxes returns the labelled axes of the param or output name of the
// session's last result, whatever its shape, or nil.
func (r *repl) resultAxes(name string) [][]string {
	switch {
	case r.sample != nil:
		for _, v := range r.sample.run.sd.ds.vars {
			if v.name == name {
				return v.axes
			}
		}
	case r.fit != nil:
		return r.fit.axes[name]
	}
	return nil
}

// replFitNotices returns the warnings and hints :fit prints after its
// summary, in the order printed: slow (the hint to warm-start, or ""),
// the fit's warnings, --evidence's, fitHints, the draws' non-finite
// values and NaNs, LOO's k̂ (looWritten: loo.csv was written),
// moment matching's and inexact integer outputs.
func replFitNotices(cfg *fitConfig, s sgvb.Settings, l *pipeline.Loaded, res *sgvb.Result, ds *drawSet, st []stats, ev *evidenceOutcome, curv *curvCheck, slow string, looWritten bool) notices {
	var ns notices
	ns.hint(slow)
	ns.warn(res.Warnings...)
	ns.hint(risingHint(cfg, s, res, nil, true))
	ns.hint(degenerateScaleHint(s, l.Model, res, nil, observedScales(l.File, l.Info)))
	ns.evidence(ev)
	ns.fitHints(s, l, res, nil, structureHints(l, res, nil, ds), res.ParetoK, res.ParetoRelESS, curv, cfg.autoLost, cfg.warmInit, cfg.curvSkipped)
	ns.warn(badDrawsWarning(ds, "draws had a non-finite log joint or output"))
	ns.warn(nanWarnings(ds, st)...)
	ns.warn(boundPileWarning(res, ds, st), boundNearWarning(res, ds, st))
	if w := drawsLOOWarning(ds, l, res.ParetoK, res.ParetoRelESS, looWritten, len(res.Groups) > 0, "--output-draws", jointAllFlag(s, l.Model)); w != "" {
		ns.warn(w + momentMatchAdvice(cfg, ds))
	}
	ns.warn(looPWarning(ds, res.Dim, res.ParetoK, res.ParetoRelESS, len(res.Groups) > 0, jointAllFlag(s, l.Model)))
	ns.warn(momentMatchWarning(ds.mm))
	ns.warn(inexactWarnings(ds, l.Info)...)
	ns.warn(indexWarnings(ds, l.Info)...)
	return ns
}
