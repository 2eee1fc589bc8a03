package main

// gpp summary: CmdStan's stansummary and bin/diagnose for saved draws,
// gpp's and CmdStan's (drawsfile.go reads them): the table and the
// warnings gpp sample prints, from the files.

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/compile"
)

const summarySynopsis = "summary FILE.csv|DIR [FILE.csv ...] [--percentiles 5,50,95] [--params a,b] [--hdi P] [--sig-figs N] [--out summary.csv] [--plots DIR]"

const summaryHelpText = `Summarises saved draws again, as CmdStan's bin/stansummary and bin/diagnose
do: gpp sample's draws.csv (its chains by chain__), CmdStan's sample CSVs (a
chain a file: give each chain's file; with save_warmup = 1 the warm-up rows,
the first ceil(num_warmup / thin), are left out), gpp fit's draws.csv and
CmdStan's variational CSVs (the first row, q's mean, left out), and CmdStan's
pathfinder and laplace CSVs. The files' header rows say which they are; files
of different kinds or columns are not summarised together. A directory
stands for its draws.csv (gpp summary gpp-sample). Elements that a gpp run
named by the labels of a column of labels (a[AITKIN]) are named so again,
from the coords.csv or fit.json beside draws.csv when it is the same
model's and data's.

It prints gpp sample's table: each param and output element's mean, mcse,
sd, percentiles, bulk and tail ESS and R̂ (rank-normalised split R̂ and ESS,
as Stan ≥ 2.30), after the sampler's columns (lp__, accept_stat__, ...;
an approximation's columns of densities, its lp__, log_p__, log_g__ and
lp_approx__, are not summarised, as gpp fit's summary lists none). Draws of an
approximation (variational, pathfinder, laplace) are independent draws of
one distribution, not chains: their R̂ is NaN, their ESS still measures the
draws. Chains that each hold one value have no ESS or mcse; their R̂ is
inf where the values differ (NUTS chains frozen at their starts), NaN for
the sampler's columns (stepsize__) and in a fixed_param file, whose
sampler holds them by design. Then gpp sample's warnings, from the files:
divergent transitions, transitions at the maximum tree depth (max_depth
from the comment lines, 10 if none), chains with E-BFMI below 0.3,
elements with R̂ above 1.01 or a bulk or tail ESS below 100 per chain, a
stuck chain; or "no problems detected".

A gpp run's draws (their "# gpp_version" line) are a gpp model's, whose
elements are named by the language's 0-based indices, as gpp fit and gpp
sample name them (beta[0], W[0, 1]); a CmdStan CSV's are a Stan model's,
named by Stan's 1-based ones, as stansummary names them (beta[1], W[1,2]).

--params a,b shows only those: a name for all its elements, one element
as the table names it (beta[0], W[0, 1], a labelled axis's label,
a[AITKIN]: spaces optional), by its 0-based indices on a labelled axis
too (a[0]), or by its CSV column (beta.1, W.1.2), each element once (the
sampler's columns by name, lp__); the warnings still judge every column.
--out FILE writes the summary as gpp sample's
summary.csv (atomically), a column qP for each percentile P (each given
once); it refuses a file it reads and any file of the run whose draws it
reads (the files its fit.json lists), as --plots does. --sig-figs
sets the table's significant digits (the CSV keeps 6). --hdi P adds the
highest-density interval of probability P in (0, 1), as ArviZ's
az.summary (hdi_prob; its default 0.94): two columns after the
percentiles, in the table and the CSV, named as ArviZ's, hdi_3% and
hdi_97% for 0.94, hdi_5% and hdi_95% for 0.9. It is the narrowest
interval of ⌊P·n⌋ + 1 of the n draws sorted (all chains pooled; the
first where several are as narrow), ArviZ's for unimodal draws; NaN for
a column with a NaN draw.

--plots DIR draws gpp sample's plots of the draws into DIR (created if
missing; the plots staged and renamed into place together, other files in
DIR left alone): for MCMC files trace.png, rank.png, pairs.png (divergent
transitions in red where the files have divergent__), intervals.png and,
with energy__, energy.png (the marginal energy E - mean E and the energy
transitions dE, with each chain's E-BFMI); for an approximation's
independent draws intervals.png alone (no chains to trace or rank). They
show every param and output column, or those of --params (lp__ too when
named); a file does not say which params are positive, so pairs.png shows
values, not logs. A plot that cannot be drawn is left out with a note.

Exit 0 when summarised (warnings do not change it), 1 for a file that
cannot be read as draws (file:line:col) or a DIR that cannot be made, 2 for
a bad command line.
`

// summaryConfig is a parsed gpp summary command line.
type summaryConfig struct {
	files  []string
	probs  []float64 // nil: defaultPercentiles
	params []string  // nil: all
	sig    int
	out    string
	plots  string  // --plots DIR, or ""
	hdi    float64 // --hdi P, or 0: no HDI columns
}

func cmdSummary(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("summary", summarySynopsis, summaryHelpText, stderr)
	pcts := fs.String("percentiles", defaultPercentilesFlag, "the percentiles to show, `P,P,...` in [0, 100]")
	params := fs.String("params", "", "show only these params or elements, `a,b.2,...` (default all)")
	hdi := fs.Float64("hdi", 0, hdiFlagUsage)
	sig := fs.Int("sig-figs", 3, "significant digits of the table's numbers, `N` from 1 to 15")
	out := fs.String("out", "", "also write the summary to `FILE` as summary.csv")
	plots := fs.String("plots", "", "also draw gpp sample's plots of the draws into `DIR` (trace.png, rank.png,\npairs.png, intervals.png, energy.png; created if missing)")
	pos, code, ok := parseCommand(fs, args, stdout)
	if !ok {
		return code
	}
	if len(pos) == 0 {
		return usageError(stderr, "summary", summarySynopsis, "summary takes one or more draws files; got none")
	}
	sc := &summaryConfig{files: pos, sig: *sig, out: *out, plots: *plots, hdi: *hdi}
	plotsSet, hdiSet := false, false
	fs.Visit(func(f *flag.Flag) {
		plotsSet = plotsSet || f.Name == "plots"
		hdiSet = hdiSet || f.Name == "hdi"
	})
	if plotsSet && *plots == "" {
		return usageError(stderr, "summary", summarySynopsis, "--plots needs a directory: --plots DIR")
	}
	if err := validHDI(*hdi); hdiSet && err != nil {
		return usageError(stderr, "summary", summarySynopsis, "%v", err)
	}
	if err := validSigFigs(*sig); err != nil {
		return usageError(stderr, "summary", summarySynopsis, "%v", err)
	}
	probs, err := parsePercentiles(*pcts)
	if err != nil {
		return usageError(stderr, "summary", summarySynopsis, "%v", err)
	}
	sc.probs = probs
	if *params != "" {
		for _, p := range splitParams(*params) {
			sc.params = append(sc.params, strings.TrimSpace(p))
		}
	}
	return runSummary(sc, stdout, stderr)
}

// splitParams splits --params at the commas outside brackets and quotes,
// so that an element named as the summary prints it, W[0, 1] or
// z["A, B"], is one item.
func splitParams(s string) []string {
	var out []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '[':
			depth++
		case c == ']':
			depth = max(depth-1, 0)
		case c == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// squeeze drops the spaces of s outside double quotes, so that W[0,1]
// is compared with the summary's names as W[0, 1] is (suggestElem).
func squeeze(s string) string {
	var b strings.Builder
	quoted := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted && c == '\\' && i+1 < len(s):
			b.WriteByte(c)
			i++
			c = s[i]
		case c == '"':
			quoted = !quoted
		case !quoted && c == ' ':
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// runSummary reads the files, prints the summary and the warnings and
// writes --out.
func runSummary(sc *summaryConfig, stdout, stderr io.Writer) int {
	srcs := sources{}
	var files []*drawsFileData
	for i, path := range sc.files {
		if st, err := os.Stat(path); err == nil && st.IsDir() { // a run's directory: its draws
			path = filepath.Join(path, drawsFile)
			sc.files[i] = path
		}
		src, err := os.ReadFile(path)
		if err != nil {
			errorf(stderr, "%v", err)
			return exitError
		}
		srcs[path] = src
		f, err := readDrawsFile(path, src)
		if err == nil && len(files) > 0 {
			err = compatible(files[0], f)
		}
		if err != nil {
			printError(stderr, err, srcs)
			return exitError
		}
		files = append(files, f)
	}
	if err := summaryClash(sc); err != nil {
		errorf(stderr, "%v", err)
		return exitError
	}
	sd, err := pooledDraws(files)
	if err != nil {
		printError(stderr, err, srcs)
		return exitError
	}
	setSavedAxes(sd.ds.vars, axesBeside(files))
	if sc.plots != "" { // before the table: a bad --plots prints nothing but its error
		if err := os.MkdirAll(sc.plots, 0o755); err != nil {
			errorf(stderr, "--plots: %v", err)
			return exitError
		}
	}
	first := files[0]
	st, ms := summariseChains(sd, runtime.GOMAXPROCS(0), sc.hdi, sc.probs)
	if !first.kind.mcmc() { // independent draws: no chains to compare
		for c := range ms {
			ms[c].rhat, st[c].rhat = math.NaN(), math.NaN()
		}
	}
	rows := elemRows(sd.ds.vars)
	if sc.params != nil {
		if rows, err = pickRows(sd.ds.vars, rows, sc.params); err != nil {
			errorf(stderr, "%v", err)
			return exitError
		}
	}
	pc := statPercentiles(st, sc.probs, sc.hdi)
	printMCMCTable(stdout, rows, st, ms, pc, sc.sig)
	fmt.Fprintln(stdout)
	fmt.Fprintf(stdout, "draws        %s\n", drawsLine(files, sd))
	if sc.out != "" {
		if err := writeAtomic(sc.out, func(w io.Writer) error { return writeMCMCSummaryCSV(w, rows, st, ms, pc) }); err != nil {
			errorf(stderr, "%v", err)
			return exitError
		}
		fmt.Fprintf(stdout, "written      %s\n", sc.out)
	}
	if sc.plots != "" && !printSummaryPlots(sc.plots, files, sd, rows, sc.params != nil, stdout, stderr) {
		return exitError
	}
	var warns []string
	if first.kind.mcmc() {
		warns = samplerWarnings(sd, nuts.Settings{MaxDepth: first.maxDepth, Delta: first.delta}, divAdvice{})
	}
	params := *sd
	ds := *sd.ds
	ds.vars = slices.DeleteFunc(slices.Clone(ds.vars), func(v variable) bool { return v.family == samplerFamily })
	params.ds = &ds
	warns = append(warns, mixingWarnings(&params, ms, nil)...)
	warns = append(warns, nanWarnings(params.ds, st)...)
	for _, w := range warns {
		fmt.Fprintf(stdout, "warning: %s\n", w)
	}
	if len(warns) == 0 {
		fmt.Fprintln(stdout, "no problems detected")
	}
	return exitOK
}

// summaryPlotNames are the files that gpp summary --plots may write.
var summaryPlotNames = []string{tracePlot, rankPlot, pairsPlot, intervalsPlot, energyPlot}

// summaryClash reports an input that --out or --plots would overwrite:
// a draws file, the coords.csv and fit.json beside it that name its
// elements, or for --out any file of the gpp run whose directory holds it
// (runFiles: a fit's summary.csv that its fit.json lists with a sha256).
// --plots is refused only the run's plots that a fit.json or kfold.json
// lists (listedRunFiles: a fit's intervals.png, its sha256 recorded): a
// gpp sample's directory has no such list, and writing its plots there,
// as a repeated gpp summary DIR --plots DIR does, overwrites no input.
func summaryClash(sc *summaryConfig) error {
	var read, run, listed []inputFile
	for _, path := range sc.files {
		dir := filepath.Dir(path)
		read = append(read, inputFile{"the draws file", path},
			inputFile{"the file that names its elements", filepath.Join(dir, coordsFile)},
			inputFile{"the file that names its elements", filepath.Join(dir, fitFileName)})
		run = append(run, runInputs(dir)...)
		names, _ := listedRunFiles(dir)
		for _, n := range names {
			listed = append(listed, inputFile{"the gpp run's file", filepath.Join(dir, n)})
		}
	}
	if sc.out != "" {
		if err := fileClash("--out", sc.out, append(slices.Clip(read), run...)); err != nil {
			return err
		}
	}
	if sc.plots != "" {
		for _, n := range summaryPlotNames {
			if err := fileClash("--plots", filepath.Join(sc.plots, n), append(slices.Clip(read), listed...)); err != nil {
				return err
			}
		}
	}
	return nil
}

// axesBeside returns the labels that named the elements of the gpp run
// whose draws files are files (savedAxes), from the coords.csv (gpp
// sample) or fit.json (gpp fit) written with them, so that the summary
// names the elements as the run did (z[AITKIN]). It is nil when the files
// are not one run's (other directories or models), when neither file is
// there or readable, or when it is another model's, or data's, run. A
// fit's draws never take a coords.csv's labels: one beside them is an
// earlier gpp sample's into the same directory (a fit writes none and
// removes none), perhaps of other data.
func axesBeside(files []*drawsFileData) map[string][][]string {
	f := files[0]
	dir := filepath.Dir(f.path)
	for _, g := range files {
		if g.modelHash == "" || g.modelHash != f.modelHash || filepath.Dir(g.path) != dir {
			return nil
		}
	}
	if f.kind != variationalKind {
		if sc, err := readCoordsHeader(filepath.Join(dir, coordsFile)); err == nil && sc.hash == f.modelHash {
			return sc.axes
		}
	}
	var ff struct {
		ModelSHA256 string                `json:"model_sha256"`
		DataSHA256  []string              `json:"data_sha256"`
		Labels      map[string][][]string `json:"labels"`
	}
	src, err := os.ReadFile(filepath.Join(dir, fitFileName))
	if err != nil || json.Unmarshal(src, &ff) != nil || ff.ModelSHA256 != f.modelHash || !slices.Equal(ff.DataSHA256, f.dataHash) {
		return nil
	}
	return ff.Labels
}

// samplerFamily is the family of the sampler's columns (lp__, ...) in a
// summary.
const samplerFamily = "sampler"

// drawsLine says what the draws are and where they came from.
func drawsLine(files []*drawsFileData, sd *sampleDraws) string {
	f := files[0]
	names := make([]string, len(files))
	for i, g := range files {
		names[i] = g.path
	}
	from := strings.Join(names, ", ")
	if !f.kind.mcmc() {
		return fmt.Sprintf("%d independent draw%s of %s (%s): not chains, so R̂ is NaN", sd.n, plural(sd.n), methodName(f), from)
	}
	line := fmt.Sprintf("%d chain%s × %d, MCMC (%s)", sd.chains, plural(sd.chains), sd.n, from)
	var counts []string // each file's warm-up rows left out, where they differ
	same, some := true, false
	for _, g := range files {
		counts = append(counts, strconv.Itoa(g.warmupDropped))
		same = same && g.warmupDropped == f.warmupDropped
		some = some || g.warmupDropped > 0
	}
	switch {
	case same && some:
		line += fmt.Sprintf("; the %d warm-up rows of each chain left out (save_warmup = 1)", f.warmupDropped)
	case some:
		line += fmt.Sprintf("; the warm-up rows of each chain left out (save_warmup = 1): %s, file by file", strings.Join(counts, ", "))
	}
	return line
}

// methodName names the method of an approximation's draws.
func methodName(f *drawsFileData) string {
	if f.method != "" {
		return f.method
	}
	return map[drawsKind]string{variationalKind: "variational", pathfinderKind: "pathfinder", laplaceKind: "laplace"}[f.kind]
}

// compatible reports an error naming g when it cannot be summarised with
// f: another kind of file or other columns.
func compatible(f, g *drawsFileData) error {
	at := ast.Pos{File: g.path, Line: g.headerLine, Col: 1}
	if f.kind != g.kind {
		return ast.Errorf(at, "this is %s, %s %s: summarise draws of one kind together", drawsKinds[g.kind].what, f.path, strings.Replace(drawsKinds[f.kind].what, "a ", "is a ", 1))
	}
	for j := range max(len(f.header), len(g.header)) {
		switch {
		case j >= len(g.header):
			return ast.Errorf(at.Add(len(strings.Join(g.header, ","))), "the header ends before column %q of %s: not draws of the same model", f.header[j], f.path)
		case j >= len(f.header):
			return ast.Errorf(at.Add(cellCol(g.header, j)-1), "column %q is not in %s: not draws of the same model", g.header[j], f.path)
		case f.header[j] != g.header[j]:
			return ast.Errorf(at.Add(cellCol(g.header, j)-1), "column %d is %q, %s's %q: not draws of the same model", j+1, g.header[j], f.path, f.header[j])
		}
	}
	return nil
}

// pooledDraws pools the files' chains (an approximation's draws all into
// one) into a sampleDraws: the sampler's columns first, as variables of
// samplerFamily, then the params and outputs as CmdStan's column names
// give them.
func pooledDraws(files []*drawsFileData) (*sampleDraws, error) {
	f := files[0]
	var chains [][][]float64
	var from []*drawsFileData
	for _, g := range files {
		for _, ch := range g.chains {
			chains, from = append(chains, ch), append(from, g)
		}
	}
	if !f.kind.mcmc() { // independent draws: one "chain" of them all
		one := make([][]float64, len(f.header))
		for j := range one {
			for _, ch := range chains {
				one[j] = append(one[j], ch[j]...)
			}
		}
		chains = [][][]float64{one}
	}
	n := len(chains[0][0])
	for c, ch := range chains {
		if len(ch[0]) != n {
			return nil, ast.Errorf(ast.Pos{File: from[c].path}, "a chain of %d draws, %s's first %d: every chain needs as many draws", len(ch[0]), f.path, n)
		}
	}
	var keep []int // the file's columns summarised
	for j, h := range f.header {
		// An approximation's columns of densities, its kind's header prefix
		// (a variational lp__, 0, log_p__, log_g__; pathfinder's
		// lp_approx__, lp__), are its own bookkeeping, not params: gpp
		// fit's summary lists none of them. A param named mu__ stays.
		if !slices.Contains(bookkeeping, h) && (f.kind.mcmc() || !slices.Contains(drawsKinds[f.kind].prefix, h)) {
			keep = append(keep, j)
		}
	}
	names := make([]string, len(keep))
	for i, j := range keep {
		names[i] = f.header[j]
	}
	total := n * len(chains)
	ds := &drawSet{vars: columnVariables(names, methodFamily(f)), ncol: len(keep), cols: make([][]float64, len(keep)), R: 1}
	for i := range ds.vars { // a CmdStan CSV's: a Stan model's, named 1-based as stansummary names them
		ds.vars[i].stanNames = !f.gpp
	}
	for i, j := range keep {
		ds.cols[i] = make([]float64, 0, total)
		for _, ch := range chains {
			ds.cols[i] = append(ds.cols[i], ch[j]...)
		}
	}
	sd := &sampleDraws{ds: ds, n: n, chains: len(chains), fixedParam: f.algorithm == fixedParamAlgorithm}
	if !f.kind.mcmc() {
		return sd, nil
	}
	col := func(name string) []float64 { // nil when the file lacks it (fixed_param writes lp__ and accept_stat__ alone)
		if j := slices.Index(names, name); j >= 0 {
			return ds.cols[j]
		}
		return nil
	}
	ds.logp = col("lp__")
	sd.energy = col("energy__")
	sd.divergent, sd.depth = make([]bool, total), make([]int, total)
	for d, v := range col("divergent__") {
		sd.divergent[d] = v != 0
	}
	for d, v := range col("treedepth__") {
		sd.depth[d] = int(v)
	}
	return sd, nil
}

// methodFamily is the family column of a summary's params: "nuts" for
// MCMC, as gpp sample's summary.csv, else the method.
func methodFamily(f *drawsFileData) string {
	if f.kind.mcmc() {
		return "nuts"
	}
	return methodName(f)
}

// columnVariables groups CmdStan column names into variables: the
// sampler's columns (ending in __) each on its own, and a param's columns
// NAME.i.j, as many as its shape and in CmdStan's column-major order, into
// one of that shape; a column that fits no such shape is a scalar of its
// own name.
func columnVariables(names []string, family string) []variable {
	var vars []variable
	for i := 0; i < len(names); {
		base, _, _ := strings.Cut(names[i], ".")
		if strings.HasSuffix(names[i], "__") {
			vars = append(vars, variable{name: names[i], family: samplerFamily, elems: []int{0}, first: i})
			i++
			continue
		}
		end := i + 1
		for end < len(names) && strings.HasPrefix(names[end], base+".") {
			end++
		}
		if shape, ok := columnShape(base, names[i:end]); ok {
			vars = append(vars, variable{name: base, family: family, shape: shape, elems: compile.ColumnMajor(shape), first: i})
			i = end
			continue
		}
		for ; i < end; i++ {
			vars = append(vars, variable{name: names[i], family: family, elems: []int{0}, first: i})
		}
	}
	return vars
}

// columnShape is the shape whose elements CmdStan names cols, in its
// order, for the value base: NAME for a scalar, NAME.1 … NAME.K for a
// vector, NAME.1.1, NAME.2.1, … for a matrix.
func columnShape(base string, cols []string) ([]int, bool) {
	if len(cols) == 1 && cols[0] == base {
		return nil, true
	}
	var shape []int
	for _, c := range cols {
		parts := strings.Split(strings.TrimPrefix(c, base+"."), ".")
		if shape == nil {
			shape = make([]int, len(parts))
		}
		if len(parts) != len(shape) {
			return nil, false
		}
		for d, p := range parts {
			k, err := strconv.Atoi(p)
			if err != nil || k < 1 {
				return nil, false
			}
			shape[d] = max(shape[d], k)
		}
	}
	if shape == nil || compile.ShapeLen(shape) != len(cols) {
		return nil, false
	}
	for i, k := range compile.ColumnMajor(shape) {
		if compile.CSVName(base, shape, k) != cols[i] {
			return nil, false
		}
	}
	return shape, true
}

// pickRows keeps the rows of vars (elemRows) that --params names, in its
// order: a variable's every element, or one element spelt any way gpp
// prints or writes it (lookupElems), each row once however many ways it is
// named; a name of no row is an error.
func pickRows(vars []variable, rows []summaryRow, specs []string) ([]summaryRow, error) {
	byCol := map[int]summaryRow{}
	for _, r := range rows {
		byCol[r.col] = r
	}
	var out []summaryRow
	seen := map[int]bool{}
	for _, s := range specs {
		v, ks, err := lookupElems(vars, s)
		if err != nil {
			var vs []string
			for _, v := range vars {
				if v.family != samplerFamily {
					vs = append(vs, v.name)
				}
			}
			return nil, fmt.Errorf("--params: %v (the draws' params and outputs: %s)", err, strings.Join(vs, ", "))
		}
		for _, k := range ks {
			col := v.first + slices.Index(v.elems, k)
			if r, ok := byCol[col]; ok && !seen[col] {
				seen[col] = true
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// defaultPercentilesFlag is --percentiles' default, gpp's 5 %, 50 % and
// 95 % quantiles (defaultPercentiles).
const defaultPercentilesFlag = "5,50,95"

// parsePercentiles parses --percentiles P,P,... (gpp summary, fit, sample
// and predict), percentiles from 0 to 100, as probabilities; nil for the
// default, whose quantiles every summary's stats hold already.
func parsePercentiles(arg string) ([]float64, error) {
	if arg == defaultPercentilesFlag {
		return nil, nil
	}
	var probs []float64
	for _, p := range strings.Split(arg, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || !(v >= 0 && v <= 100) {
			return nil, fmt.Errorf("--percentiles %s: %q is not a percentile from 0 to 100", arg, p)
		}
		for _, q := range probs {
			if pctText(q) == pctText(v/100) {
				// The columns are named by the percentile (q50): two of one
				// name are one column twice, which no CSV reader takes.
				return nil, fmt.Errorf("--percentiles %s: %s is given twice: give each percentile once", arg, strings.TrimSpace(p))
			}
		}
		probs = append(probs, v/100)
	}
	return probs, nil
}
