package main

// gpp sample's fixed_param sampler: Stan's algorithm=fixed_param, the
// trivial Markov chain that keeps the params at their start while the
// outputs are drawn afresh at each iteration. A model with no params runs
// it instead of NUTS, as CmdStan does (simulating data from the priors
// written into its outputs); --fixed-param runs it on a model with params,
// held where --init puts them (simulating data from known params, then
// fitting it back). The draws go through gpp sample's own machinery
// (makeSampleDraws, its summary and coords.csv); draws.csv has CmdStan's
// fixed_param columns, lp__ and accept_stat__ both 0, and no others.

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/fitfile"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/compile"
)

// fixedParamAlgorithm is CmdStan's name of the sampler, in draws.csv and
// on the console.
const fixedParamAlgorithm = "fixed_param"

// nutsOnlyFlags are gpp sample's flags that steer NUTS or read its
// posterior draws: refused with the fixed_param sampler, which has no
// trajectory, adaptation or posterior.
var nutsOnlyFlags = []string{"against", "metric", "max-depth", "adapt-delta", "evidence", "evidence-method",
	"moment-match", "reloo", "plots", "save-warmup", "save-metric", "stepsize", "metric-file", "adapt"}

// fixedParamFlags records which flags the command line set, for the
// refusals and notes of the fixed_param sampler (fixedParamRefusal).
func fixedParamFlags(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// fixedParamRefusal returns the error of the first NUTS-only flag in set,
// or "": why names why the fixed_param sampler runs.
func fixedParamRefusal(set map[string]bool, why string) string {
	for _, name := range nutsOnlyFlags {
		if set[name] {
			return fmt.Sprintf("--%s is NUTS's: not with the fixed_param sampler (%s), which keeps the params at their start and draws the outputs", name, why)
		}
	}
	return ""
}

// runFixedParam runs the fixed_param sampler on the loaded model l for gpp
// sample (runSample): with --fixed-param, or on a model with no params.
func runFixedParam(ctx context.Context, sc *sampleConfig, l *pipeline.Loaded, stdout io.Writer, con *console) int {
	cfg, s := sc.cfg, sc.nuts
	m := l.Model
	srcs := sources(l.Sources)
	why := "--fixed-param"
	if !sc.fixedParam {
		why = "the model has no params"
		if msg := fixedParamRefusal(sc.set, why); msg != "" {
			con.note("%s", msg)
			return exitUsage
		}
	}
	if sc.set["warmup"] {
		con.note("note: --warmup %d: not used, the fixed_param sampler has no warm-up (CmdStan's ignores num_warmup)", s.Warmup)
	}
	h := drawsHeader{model: l.Path, modelHash: fitfile.ModelHash(l.Source), data: cfg.data, dataHash: fitfile.DataHashes(cfg.data, srcs), cfg: cfg}
	h.recordData(l)
	if sc.init != "" && len(m.Latents) > 0 {
		if err := sc.readStarts(l, cfg.sets, srcs); err != nil {
			printError(con, err, srcs)
			return exitError
		}
		for c := range s.Chains {
			if v := sc.valuesOf(c); v != nil && !v.All() {
				con.note("--init %s: --fixed-param holds every param where it starts, and %s does not give %s: give every param's value, or leave --init out for gpp sample's random start",
					sc.init, v.file, strings.Join(v.Missing(m), ", "))
				return exitError
			}
		}
	} else if sc.init != "" {
		con.note("note: --init %s: not used, the model has no params", sc.init)
	}
	if sc.radius != nil && (sc.start != nil || sc.values != nil || len(m.Latents) == 0) {
		con.note("note: --init-radius %v: not used, no param starts at random", *sc.radius)
	}
	u, err := sgvb.NewUnconstrained(pipeline.Target{M: m}, pipeline.Latents(m))
	if err != nil {
		printError(con, err, srcs)
		return exitError
	}
	inits, ok := fixedStarts(sc, u, con, srcs)
	if !ok {
		return exitError
	}
	lock, removeIfEmpty, ok := claimOutDir(cfg, l, con)
	if !ok {
		return exitError
	}
	defer lock.release()

	from := fixedStartText(sc, m)
	what := "the params " + from
	if len(m.Latents) == 0 {
		what = "the model has no params"
	}
	con.info("sampling %s: the fixed_param sampler (%s), %d chain%s of %d iterations drawing the outputs (thin %d), seed %d",
		l.Path, what, s.Chains, plural(s.Chains), s.Draws, s.Thin, s.Seed)
	s.FixedParam = true
	s.Warmup = 0
	stopWatch := watchSample(con, &s, "")
	begin := time.Now()
	res, err := nuts.Sample(ctx, nil, inits, s)
	stopWatch()
	con.finish()
	if err != nil {
		printError(con, err, srcs)
		con.note("no output written")
		removeIfEmpty()
		return exitError
	}
	sd, err := makeSampleDraws(u, m, res, s.Seed)
	if err != nil {
		printError(con, err, srcs)
		removeIfEmpty()
		return exitError
	}
	nameByLabels(sd.ds.vars, l)
	if sd.n < 2 {
		con.note("interrupted before a chain kept 2 draws: no output written")
		removeIfEmpty()
		return exitInterrupted
	}
	st, ms := summariseChains(sd, s.Workers, cfg.hdi, cfg.probs)
	files := []outputFile{
		{summaryFile, func(w io.Writer) error { return writeSampleSummaryCSV(w, cfg, sd, st, ms) }},
		{drawsFile, func(w io.Writer) error { return writeFixedDrawsCSV(w, s, h, sd) }},
		{coordsFile, func(w io.Writer) error { return writeCoordsCSV(w, h, sd, m) }},
	}
	written, err := commitFiles(cfg, files, func(names []string) []string { return staleInDir(cfg.out, names) })
	if err != nil {
		con.note("%v", err)
		con.note("no output written")
		removeIfEmpty()
		return exitError
	}
	lock.release()

	printSampleTable(stdout, cfg, sd, st, ms)
	fmt.Fprintln(stdout)
	fmt.Fprintf(stdout, "draws        %d chain%s × %d (thin %d), %s sampler, seed %d\n", s.Chains, plural(s.Chains), sd.n, s.Thin, fixedParamAlgorithm, s.Seed)
	fmt.Fprintf(stdout, "params       %s\n", from)
	fmt.Fprintf(stdout, "written      %s: %s\n", cfg.out, strings.Join(written, " "))
	for _, w := range outputWarnings(sd.ds, st, l.Info, "draws had an output that is not finite (written as it is)") {
		con.note("warning: %s", w)
	}
	con.info("sampling took %.3g s", time.Since(begin).Seconds())
	if sd.interrupted {
		con.note("interrupted: the outputs hold the first %d draws of each chain and are marked interrupted", sd.n)
		return exitInterrupted
	}
	return exitOK
}

// fixedStarts returns each chain's fixed point on u's coordinates: a fit's
// draw c (--init FIT), the values of --init FILE.json, or gpp sample's
// random start (uniform on (−R, R), drawn again while the log density is
// not finite), as gpp sample starts NUTS. It prints what fails.
func fixedStarts(sc *sampleConfig, u *sgvb.Unconstrained, con *console, srcs sources) ([][]float64, bool) {
	s := sc.nuts
	inits := make([][]float64, s.Chains)
	var starts func(c int, dst []float64) error
	if sc.start != nil {
		starts = sc.start.starts(u)
	}
	stop := &atomic.Bool{}
	for c := range inits {
		inits[c] = make([]float64, u.Dim())
		if u.Dim() == 0 {
			continue
		}
		var err error
		if starts != nil {
			err = starts(c, inits[c])
		} else {
			d := u.Clone()
			d.SetStop(stop)
			err = sc.randomStart(d, c, inits[c])
		}
		if err == nil {
			continue
		}
		switch {
		case sc.valuesOf(c) != nil:
			con.note("%s: the log density or its gradient is not finite at these values: hold the params elsewhere", sc.valuesOf(c).file)
		default:
			con.note("chain %d: no finite start:", c+1)
		}
		printError(con, err, srcs)
		con.note("no output written")
		return nil, false
	}
	return inits, true
}

// fixedStartText says where the params are held, for the console and the
// report.
func fixedStartText(sc *sampleConfig, m *compile.Model) string {
	switch {
	case len(m.Latents) == 0:
		return "no params"
	case sc.start != nil:
		return "held in chain c at draw c of the " + sc.start.what
	case sc.values != nil:
		return "held at " + sc.describeValues()
	}
	r := sc.initRadius()
	if r == 0 {
		return "held at gpp sample's default start, every unconstrained coordinate 0 (--init-radius 0)"
	}
	return fmt.Sprintf("held at gpp sample's default start, each chain's unconstrained coordinates uniform on (-%v, %v): give their values with --init FILE.json", r, r)
}

// writeFixedDrawsCSV writes draws.csv of the fixed_param sampler in
// CmdStan's layout: its comment lines (algorithm = fixed_param, no
// adaptation), the columns chain__, draw__ (gpp's), lp__ and accept_stat__
// (both 0, as CmdStan writes them) and the params and outputs, then the
// elapsed times. num_warmup is 0: none ran.
func writeFixedDrawsCSV(w io.Writer, s nuts.Settings, h drawsHeader, sd *sampleDraws) error {
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format+"\n", args...) }
	writeModelHeader(p, h)
	p("# method = sample (Default)")
	p("#   sample")
	p("#     num_samples = %d", s.Draws)
	p("#     num_warmup = 0")
	p("#     save_warmup = 0")
	p("#     thin = %d", s.Thin)
	p("#     adapt")
	p("#       engaged = 0")
	p("#     algorithm = %s", fixedParamAlgorithm)
	p("#     num_chains = %d", s.Chains)
	writeRunHeader(p, h)
	p("# interrupted = %d", b2i(sd.interrupted))
	if sd.interrupted {
		p("# INTERRUPTED: the chains were stopped by Ctrl-C; these are the first %d draws of each", sd.n)
	}
	kept := chosenDraws(sd.ds, h.cfg.drawsParams)
	bw.WriteString("chain__,draw__,lp__,accept_stat__")
	writeColumnNames(bw, kept.vars)
	for d := range sd.ds.logp {
		fmt.Fprintf(bw, "%d,%d,0,0", sd.chain[d], sd.draw[d])
		kept.writeRow(bw, d)
	}
	p("#")
	for c, ch := range sd.res.Chains {
		p("# chain %d: Elapsed Time: %.3f seconds (Warm-up)", c+1, 0.0)
		p("# chain %d:               %.3f seconds (Sampling)", c+1, ch.Sampling.Seconds())
	}
	return bw.Flush()
}
