package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/lang/compile"
)

// This file holds the REPL's :sample: NUTS on the session's model and
// data, as gpp sample runs it. Its draws answer the queries and :show
// until the next :fit, as a fit's q does.

// replSample is a :sample the session keeps.
type replSample struct {
	run  *sampleRun
	n    int    // the sample's number in the session (repl.samples)
	seed uint64 // --seed: seeds the draws of expressions too (an output that draws)
	// lats and dim are the latents of the model sampled: a query of a
	// model whose params changed since is refused (latentChange).
	lats []compile.Latent
	dim  int
	made [3]string // what the sample is of (fitOf)
}

// describe names the sample's draws, as :show's title and notes do.
func (s *replSample) describe() string {
	sd := s.run.sd
	return fmt.Sprintf("NUTS draws of sample %d (%d chain%s × %d)", s.n, sd.chains, plural(sd.chains), sd.n)
}

// latentsResult returns a result with one factor per latent of lats, of
// its name, support, bounds and shape alone: what latentChange compares
// the session's model with.
func latentsResult(lats []compile.Latent, dim int) *sgvb.Result {
	res := &sgvb.Result{Dim: dim}
	for _, l := range lats {
		res.Factors = append(res.Factors, sgvb.Factor{Name: l.Name, Shape: l.Shape, Support: l.Support, Offset: l.Offset, Size: l.Size,
			Loc: l.Loc, Scale: l.Scale, LocV: l.LocV, ScaleV: l.ScaleV})
	}
	return res
}

// againstLast is the --against value that compares the session's last
// fit's q with the draws.
const againstLast = "last"

// sampleCmd runs :sample: gpp sample's flags, on the session's model and
// data. Ctrl-C stops the chains, and the session keeps the draws so far.
// No file is written unless --out is given. --init last starts chain c
// from draw c of the session's last fit's q, --against last compares that
// q with the draws.
func (r *repl) sampleCmd(args []string) {
	if isHelp(args) {
		fmt.Fprint(r.out, replSampleHelp+"\n")
		parseSampleArgs([]string{"--help"}, r.out, r.err)
		return
	}
	args, initLast := takeLast(args, "init")
	args, vsLast := takeLast(args, "against")
	for _, use := range []struct {
		on   bool
		flag string
	}{{initLast, "--init"}, {vsLast, "--against"}} {
		switch {
		case !use.on:
		case r.fit == nil:
			r.errorf(":sample %s last uses the session's last fit, and there is none yet: run :fit first", use.flag)
			return
		case sgvb.Overflows(r.fit.res.ELBO, r.fit.res.ELBOSE):
			r.errorf(":sample %s last: fit %d, the session's last, failed (its ELBO overflows): its q approximates no posterior", use.flag, r.fit.n)
			return
		case r.fit.res.Method == sgvb.MAP && use.flag == "--against":
			r.errorf(":sample --against last: fit %d is a MAP estimate, which has no q to compare with the posterior: :fit without --family map", r.fit.n)
			return
		}
	}
	var msgs strings.Builder
	sc, _, ok := parseSampleArgs(append([]string{replModel}, args...), r.out, &msgs)
	if !ok {
		r.flagError(":sample", &msgs)
		return
	}
	cfg := sc.cfg
	switch {
	case len(cfg.data) > 0:
		r.errorf(":sample takes flags only, not %s: add data with :data", strings.Join(cfg.data, " "))
		return
	case len(cfg.sets) > 0:
		r.errorf(":sample samples the session's model with its values: set them with :set before :sample")
		return
	case len(cfg.levels) > 0:
		r.errorf("%s", replLevelsRefusal(":sample"))
		return
	case sc.fixedParam:
		r.errorf(":sample --fixed-param: the fixed_param sampler is gpp sample's (gpp sample --fixed-param)")
		return
	case cfg.reloo:
		r.errorf(":sample --reloo: refits are gpp sample's (gpp sample --reloo); in the session, :kfold --nuts refits by folds")
		return
	}
	writeFiles := hasFlag(args, "out")
	if cfg.plots && !writeFiles {
		r.errorf(":sample --plots writes PNG files, and :sample writes files only with --out: add --out DIR")
		return
	}
	if len(cfg.drawsParams) > 0 && !writeFiles {
		r.errorf(":sample --draws-params chooses the columns of draws.csv, and :sample writes files only with --out: add --out DIR")
		return
	}
	cfg.sets = r.sets
	srcs := r.sources("")
	l, err := r.boundModel()
	if err != nil {
		r.printError(err, srcs)
		return
	}
	if len(l.Model.Latents) == 0 {
		r.errorf("the model has no params to sample: its outputs need no sampler; gpp sample draws them with Stan's fixed_param sampler")
		return
	}
	printReplLoadWarnings(r.err, l)
	con := newConsole(r.err, isTerminal(r.err), cfg.quiet, cfg.verbose)
	if cfg.evidence {
		if sc.evNotes, ok = evidenceCaveats(l.Model, func(err error) { r.printError(err, srcs) }); !ok {
			return
		}
	}
	if (initLast || vsLast) && r.staleOf(latentChange(l.Model.Latents, l.Model.Dim, true, r.fit.res), "fit") {
		return
	}
	var af *againstFit
	switch {
	case vsLast:
		if af, err = r.againstLastFit(l.Model); err != nil {
			r.printError(err, srcs)
			return
		}
	case cfg.against != "":
		if af, err = readAgainst(cfg.against, l, r.sets, fitfile.DataHashes(r.dataArgs(), srcs), srcs, con); err != nil {
			r.printError(err, srcs)
			return
		}
		if writeFiles && sameFile(cfg.out, filepath.Dir(af.fitJSON)) {
			r.errorf("--out %s is the fit's own directory (--against): its files would be replaced; give another --out directory", cfg.out)
			return
		}
	}
	if vsLast {
		cfg.against = againstLast // --out writes against.csv, as for --against FIT
	}
	switch {
	case initLast:
		sc.start = &initFit{res: r.fit.res, seed: r.fit.seed, what: fmt.Sprintf("q of fit %d, the session's last", r.fit.n)}
	case sc.init != "":
		if err = sc.readStarts(l, r.sets, srcs); err != nil {
			r.printError(err, srcs)
			return
		}
	}
	cfg.temps = &tempFiles{}
	var open func() (func(), func(), bool)
	if writeFiles {
		open = func() (func(), func(), bool) {
			if cfg.plots {
				if err := preparePlots(cfg, l); err != nil {
					r.errorf("%v", err)
					return nil, nil, false
				}
			}
			if err := checkDrawsParams(cfg, l); err != nil {
				r.errorf("%v", err)
				return nil, nil, false
			}
			if err := outputClash(cfg, l.Model, r.inputFiles()); err != nil {
				r.errorf("%v", err)
				return nil, nil, false
			}
			created, err := prepareOutDir(cfg.out)
			if err != nil {
				r.errorf("%v", err)
				return nil, nil, false
			}
			cfg.beforeCommit = r.beforeCommit
			lock, err := lockOutDir(cfg.out, cfg.temps)
			if err != nil {
				r.errorf("%v", err)
				return nil, nil, false
			}
			stopTerm := exitOnTerm(cfg.temps, r.err)
			var once sync.Once // sampleLoaded releases early and again on return
			release := func() {
				once.Do(func() {
					stopTerm()
					lock.release()
				})
			}
			return release, func() {
				release()
				if created {
					os.Remove(cfg.out) // only succeeds when nothing was written
				}
			}, true
		}
	}
	h := drawsHeader{model: replModel, modelHash: fitfile.ModelHash([]byte(r.src)), data: r.dataArgs(), dataHash: r.dataHashes(), cfg: cfg}
	h.recordData(l)
	ctx, stop := r.interruptible(func() { con.note("interrupted: stopping the chains; the session keeps the draws so far") })
	defer stop()
	sc.afterIter = r.afterSampleIter
	run, code := sampleLoaded(ctx, sc, l, srcs, af, h, con, open)
	if run == nil {
		if code == exitError {
			r.failed = true
		}
		con.note("the session keeps its previous fit or sample, if any")
		return
	}
	r.samples++
	r.sample = &replSample{run: run, n: r.samples, seed: sc.nuts.Seed, lats: l.Model.Latents, dim: l.Model.Dim, made: r.fitOf(r.sets)}
	printSampleReport(r.out, con, sc, l, af, run, func() { printReplSample(r.out, cfg.verbose, run, cfg.percentilesOf(run.st), cfg.num) })
	if run.sd.interrupted {
		con.note("interrupted: the session keeps the first %d draws of each chain", run.sd.n)
	}
	con.info("queries and :show answer from sample %d's draws until the next :fit", r.samples)
}

// againstLastFit is :sample --against last: the session's last fit's q,
// summarised by its draws as its :fit table was (its --seed and
// --output-draws), named as gpp fit's summary.csv names elements.
func (r *repl) againstLastFit(m *compile.Model) (*againstFit, error) {
	ds, err := makeDraws(r.fit.res, nil, m, r.fit.draws, r.fit.seed)
	if err != nil {
		return nil, err
	}
	st := summariseColumns(ds, 0, nil)
	af := &againstFit{label: fmt.Sprintf("fit %d, the session's last,", r.fit.n), ff: &fitfile.File{},
		mean: map[string]float64{}, sd: map[string]float64{}}
	af.ff.Settings.OutputDraws = r.fit.draws
	af.ff.Method = r.fit.res.Method.String() // intervals.png's legend: "Laplace q" after :fit --family laplace
	cols := map[string][]float64{}
	for _, v := range ds.vars {
		for j, k := range v.elems {
			name := v.elemName(k)
			af.names = append(af.names, name)
			af.mean[name], af.sd[name] = st[v.first+j].mean, st[v.first+j].sd
			cols[name] = ds.cols[v.first+j]
		}
	}
	af.qDraws = func([]intervalElem) (map[string][]float64, error) { return cols, nil }
	return af, nil
}

// printReplSample prints a sample's table as gpp sample's, with the
// REPL's 0-based element names in row-major order (at most replMaxElems
// of each variable without --verbose), the percentiles of pc, the numbers
// by num (:sample --sig-figs's cfg.num, or num3).
func printReplSample(w io.Writer, verbose bool, run *sampleRun, pc percentiles, num func(float64) string) {
	head := append(pc.hdiHead(pc.head([]string{"name", "mean", "mcse", "sd"}, "", "%")), "ess_bulk", "ess_tail", "R̂")
	t := headedTable(head, 1)
	for _, v := range run.sd.ds.vars {
		col := make([]int, len(v.elems)) // row-major element → column
		for j, k := range v.elems {
			col[k] = v.first + j
		}
		for k, c := range col {
			if k == replMaxElems && !verbose {
				t.note(fmt.Sprintf("... %d more elements of %s (:sample --verbose shows all)", len(col)-k, v.name))
				break
			}
			s, m := run.st[c], run.ms[c]
			t.row(markFinite(append(pc.hdiCells(pc.cells([]string{v.elemName(k), num(s.mean), num(m.mcse), num(s.sd)}, c, num), s, num),
				essText(m.essBulk), essText(m.essTail), rhatText(m.rhat)), 1, s)...)
		}
	}
	t.print(w)
}

// showSample is :show after a :sample: the draws' summary of every param
// (at most replMaxElems elements each) or of the params named (all their
// elements), under a title naming the sample.
func (r *repl) showSample(args []string) {
	s := r.sample
	lats, dim, sized := r.modelLatents()
	if r.staleParams(latentChange(lats, dim, sized, latentsResult(s.lats, s.dim))) {
		return
	}
	sd := s.run.sd
	var vars []variable
	for _, v := range sd.ds.vars {
		if !v.output && (len(args) == 0 || slices.Contains(args, v.name)) {
			vars = append(vars, v)
		}
	}
	for _, name := range args {
		if !slices.Contains(s.latNames(), name) {
			r.errorf(":show: sample %d has no param %s (it has %s)", s.n, name, strings.Join(s.latNames(), ", "))
			return
		}
	}
	r.noteStale()
	fmt.Fprintf(r.out, "%s, the session's last result:\n", s.describe())
	run := *s.run
	run.sd = &sampleDraws{}
	*run.sd = *sd
	ds := *sd.ds
	ds.vars = vars
	run.sd.ds = &ds
	printReplSample(r.out, len(args) > 0, &run, defaultPercentiles(run.st, 0), num3)
}

// latNames lists the sample's params.
func (s *replSample) latNames() []string {
	var out []string
	for _, l := range s.lats {
		out = append(out, l.Name)
	}
	return out
}

// replSampleHelp starts :sample --help.
const replSampleHelp = `The session's model is sampled by NUTS with gpp sample's flags, on its data
and with its :set values (set others with :set, not --set); files are
written only with --out. The draws answer the queries typed after it and
:show, until the next :fit. --init last starts chain c from draw c of the
session's last fit's q, --against last compares that q with the draws;
--init FIT and --against FIT name a fit's output directory, as gpp sample's.
Ctrl-C stops the chains and the session keeps the draws so far.
`
