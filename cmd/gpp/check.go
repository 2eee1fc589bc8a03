package main

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/compile"
)

// setFlags collects repeated --set NAME=VALUE flags.
type setFlags map[string]string

// levelFlags collects repeated --levels NAME=LABEL,LABEL,... flags: the
// order of the labels of the column of labels that binds data NAME, as
// R's factor(levels=) and pandas' Categorical(categories=) give it. The
// list is a CSV record, so a label holding a comma or a quote is quoted
// as in a CSV file: --levels 'county="ST. LOUIS, MN",AITKIN'.
type levelFlags map[string][]string

const levelsUsage = "code the column of labels that binds the int data NAME in the\norder given, as `NAME=LABEL,LABEL,...` (R's factor(levels=)), or\nNAME=@FILE, one label per line (a kinship matrix's row ids): the\nfirst label is the declaration's lower bound (0 without one), the\nnext one more, ...; a label not listed is an error at its cell; the\nlist is a CSV record: quote a label holding a comma; it codes too\nthe int data bounded above by the same size (home and away, both\nupper=J-1) (repeatable; default: the labels of all of them in byte\norder)"

func (l levelFlags) String() string {
	var parts []string
	for k, v := range l {
		parts = append(parts, k+"="+strings.Join(v, ","))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

func (l levelFlags) Set(v string) error {
	name, list, ok := strings.Cut(v, "=")
	if !ok || name == "" || list == "" {
		return fmt.Errorf("expected NAME=LABEL,LABEL,..., got %q", v)
	}
	if _, dup := l[name]; dup {
		return fmt.Errorf("%s: its order is given twice", name)
	}
	if path, ok := strings.CutPrefix(list, "@"); ok {
		return l.setFile(name, path)
	}
	r := csv.NewReader(strings.NewReader(list))
	labels, err := r.Read()
	if err != nil {
		return fmt.Errorf("%s: the labels are not a CSV record (quote a label with a comma as \"a, b\"): %v", name, err)
	}
	if _, err := r.Read(); err != io.EOF {
		return fmt.Errorf("%s: the labels must be on one line", name)
	}
	seen := map[string]bool{}
	for _, s := range labels {
		switch {
		case s == "":
			return fmt.Errorf("%s: an empty label in %q", name, list)
		case seen[s]:
			return fmt.Errorf("%s: label %q is listed twice", name, s)
		}
		seen[s] = true
	}
	l[name] = labels
	return nil
}

// setFile reads NAME=@FILE's order: one label per line, as written (a
// kinship matrix's row ids, row 0 first), a final newline optional.
func (l levelFlags) setFile(name, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	text := strings.TrimSuffix(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
	if text == "" {
		return fmt.Errorf("%s: %s holds no labels", name, path)
	}
	labels := strings.Split(text, "\n")
	seen := map[string]int{}
	for i, s := range labels {
		switch {
		case s == "":
			return fmt.Errorf("%s:%d: an empty line: one label per line", path, i+1)
		case seen[s] > 0:
			return fmt.Errorf("%s:%d: label %q is listed twice (first at line %d)", path, i+1, s, seen[s])
		}
		seen[s] = i + 1
	}
	l[name] = labels
	return nil
}

// listFlag is a repeatable flag of comma-separated items: each use adds
// its items to the string, so --fullrank a --fullrank b is --fullrank a,b
// (the standard flag package would keep the last).
type listFlag struct{ s *string }

func (l listFlag) String() string {
	if l.s == nil {
		return ""
	}
	return *l.s
}

func (l listFlag) Set(v string) error {
	if *l.s != "" {
		v = *l.s + "," + v
	}
	*l.s = v
	return nil
}

func (s setFlags) String() string {
	var parts []string
	for k, v := range s {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

func (s setFlags) Set(v string) error {
	name, val, ok := strings.Cut(v, "=")
	if !ok || name == "" || val == "" {
		return fmt.Errorf("expected NAME=VALUE, got %q", v)
	}
	if prev, ok := s[name]; ok && prev != val && !sameNumber(prev, val) {
		return fmt.Errorf("%s is set twice, to %s and to %s", name, prev, val)
	}
	s[name] = val
	return nil
}

// sameNumber reports whether a and b are numbers of the same value (1 and
// 1.0), so that repeating a --set is no conflict.
func sameNumber(a, b string) bool {
	x, err1 := strconv.ParseFloat(strings.TrimSpace(a), 64)
	y, err2 := strconv.ParseFloat(strings.TrimSpace(b), 64)
	return err1 == nil && err2 == nil && x == y
}

// newFlagSet returns a command's flag set, which reports errors to stderr and
// does not exit; its usage (--help) is the synopsis, the help text and the
// flags, written to the flag set's output (stdout after --help, as
// parseCommand sets it).
func newFlagSet(name, synopsis, help string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "usage: gpp %s\n\n", synopsis)
		if help != "" {
			fmt.Fprintf(w, "%s\n", help)
		}
		fmt.Fprint(w, "flags:\n")
		printFlags(fs)
	}
	return fs
}

// printFlags prints the flag set's flags as PrintDefaults does, but spelt
// with two dashes, as the docs and the error messages spell them (the flag
// package accepts either).
func printFlags(fs *flag.FlagSet) {
	var b strings.Builder
	out := fs.Output()
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(out)
	io.WriteString(out, strings.ReplaceAll("\n"+b.String(), "\n  -", "\n  --")[1:])
}

// flagMessage rewrites the flag package's error line with the flag spelt
// with two dashes: "unknown flag --iters" for "flag provided but not
// defined: -iters".
func flagMessage(line string) string {
	line = strings.Replace(line, "flag provided but not defined: -", "unknown flag --", 1)
	line = strings.Replace(line, "for flag -", "for flag --", 1)
	return strings.Replace(line, "flag needs an argument: -", "flag needs an argument: --", 1)
}

// flagTypeMessage replaces the flag package's "parse error" in line, the
// error of a value that is no number of the flag's type ("invalid value
// "-1" for flag --seed: parse error"), by what the flag takes.
func flagTypeMessage(fs *flag.FlagSet, line string) string {
	if b, ok := strings.CutPrefix(line, "invalid boolean value "); ok {
		if v, name, ok := strings.Cut(b, " for -"); ok {
			line = "invalid value " + v + " for flag --" + name // as other flags' errors read
		}
	}
	rest, ok := strings.CutSuffix(line, ": parse error")
	if !ok {
		return line
	}
	_, name, ok := strings.Cut(rest, " for flag --")
	if !ok {
		return line
	}
	f := fs.Lookup(name)
	if f == nil {
		return line
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return line
	}
	var want string
	switch g.Get().(type) {
	case int, int64:
		want = "a whole number"
	case uint, uint64:
		want = "a whole number, 0 or more"
	case float64:
		want = "a number"
	case bool:
		want = "true or false"
	case time.Duration:
		want = "a duration, as 30s or 5m"
	default:
		return line
	}
	return rest + ": want " + want
}

// parseCommand parses a command's flags (parseFlags) and returns its
// positional arguments, or ok false with the exit code when the command
// must stop: 0 after --help (written to stdout), 2 after a bad flag (the
// flag package's message, with its hint, on the flag set's output).
func parseCommand(fs *flag.FlagSet, args []string, stdout io.Writer) (pos []string, code int, ok bool) {
	if isHelp(args) {
		fs.SetOutput(stdout)
	}
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil, exitOK, false
	}
	if err != nil {
		return nil, exitUsage, false
	}
	return pos, 0, true
}

// usageError prints a command's usage error, its synopsis and where its
// flags are listed, and returns the usage exit code.
func usageError(stderr io.Writer, name, synopsis, format string, args ...any) int {
	errorf(stderr, format, args...)
	fmt.Fprintf(stderr, "usage: gpp %s\nRun 'gpp %s --help' for the flags.\n", synopsis, name)
	return exitUsage
}

// parseFlags parses args allowing flags after positional arguments (as in
// `gpp check model.gpp --set K=3`) and returns the positional arguments.
// -h and --help print the whole usage; a bad flag prints its error and a
// pointer to --help, not the page of flags under it.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	full := fs.Usage
	fs.Usage = func() {}
	defer func() { fs.Usage = full }()
	var pos []string
	for {
		out := fs.Output()
		var msg strings.Builder // the flag package's message, to which a hint is added
		fs.SetOutput(&msg)
		err := fs.Parse(args)
		fs.SetOutput(out)
		if err != nil {
			if errors.Is(err, flag.ErrHelp) {
				full()
			} else {
				line := flagMessage(strings.TrimSpace(msg.String()))
				line = flagTypeMessage(fs, line)
				if name := flagSuggestion(fs, err); name != "" {
					line += "; did you mean --" + name + "?"
				}
				fmt.Fprintf(out, "%s\nRun 'gpp %s --help' for the flags.\n", line, fs.Name())
			}
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// flagSuggestion returns the flag that an undefined one most likely means,
// or "": CmdStan's name for it (--iter is gpp's for both iters and CmdStan's
// iter), else the nearest by spelling.
func flagSuggestion(fs *flag.FlagSet, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return ""
	}
	name = strings.TrimPrefix(name, "-")
	if alias, ok := stanFlags[strings.ReplaceAll(name, "_", "-")]; ok {
		if flagName, _, _ := strings.Cut(alias, " "); fs.Lookup(flagName) != nil {
			return alias
		}
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return check.Suggest(name, names)
}

// stanFlags maps the names of CmdStan's and PyMC's ADVI settings (with
// dashes for underscores) to gpp fit's flags, with a value where the flag
// needs one to mean the same.
var stanFlags = map[string]string{
	"output-samples": "output-draws",
	"num-draws":      "output-draws",
	"samples":        "output-draws",
	"grad-samples":   "draws",
	"eta":            "step-size",
	"learning-rate":  "step-size",
	"tol-rel-obj":    "tol",
	"eval-elbo":      "eval-every",
	"iterations":     "iter",
	"n":              "iter",
	"random-seed":    "seed",
	"algorithm":      "fullrank all",
	"output-dir":     "out",
	"output":         "out",
	"out-dir":        "out",
	"outdir":         "out",
	"o":              "out", // -o DIR, as compilers write it
	"num-samples":    "output-draws",
	"init-file":      "init",
	"map":            "family map",
	"optimize":       "family map",
	"laplace":        "family laplace",
	"pathfinder":     "family pathfinder",
	"cores":          "workers",
	"threads":        "workers",
	"waic":           "ic waic", // gpp compare's; rethinking's compare(func = WAIC)
	"num-threads":    "workers",
}

// checkSynopsis is gpp check's usage line.
const checkSynopsis = "check [--set NAME=VALUE ...] model.gpp [data.csv|data.tsv|data.json|data.R|NAME=FILE ...]"

// checkHelpText is what gpp check --help says before the flags.
const checkHelpText = `Parses and checks a model, and prints its latents (shape, support and
variational family), data, constants and outputs, or every error with its file,
line and column. Given the data files too (or for a model that reads none), it
also binds and compiles the model and evaluates its log density where a fit
starts, so that everything fit would refuse before its first step is reported
here. Exit 0 for a valid model, 1 for errors, 2 for a bad command line.
`

func cmdCheck(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("check", checkSynopsis, checkHelpText, stderr)
	sets := setFlags{}
	fs.Var(sets, "set", "override a constant, as `NAME=VALUE` (repeatable)")
	order := levelFlags{}
	fs.Var(order, "levels", levelsUsage)
	pos, code, ok := parseCommand(fs, args, stdout)
	if !ok {
		return code
	}
	if len(pos) == 0 {
		errorf(stderr, "check takes a model file and, optionally, its data files; got no arguments")
		fs.Usage()
		return exitUsage
	}
	l, ok := loadChecked(pos, sets, order, stderr)
	if !ok {
		return exitError
	}
	var lats []compile.Latent
	if l.Model != nil {
		lats = l.Model.Latents
	}
	printSummary(stdout, pos[0], l.Info, lats)
	if len(l.Info.Data) > 0 {
		if l.Model == nil {
			fmt.Fprintln(stdout, "\ndata not given: sizes and values read from the data are checked with it (gpp check model.gpp DATA...)")
		} else {
			fmt.Fprintln(stdout, boundLine(pos[1:], l.Info, l.Data))
		}
	}
	return exitOK
}

// loadChecked parses and checks the model pos[0] and reads the data files
// pos[1:], and given data (or for a model that reads none) binds and
// compiles it and tries its log density at a fit's start (bindAndStart):
// gpp check's path, which gpp graph shares. Warnings and errors go to
// stderr; ok is false after an error.
func loadChecked(pos []string, sets setFlags, order levelFlags, stderr io.Writer) (l *pipeline.Loaded, ok bool) {
	l, err := pipeline.Parse(pos[0], sets)
	var inputs []data.Input
	if err == nil {
		l.Order = order
		inputs, err = pipeline.ReadInputsFor(pos[1:], l.Sources, l.Info)
	}
	if err != nil {
		printError(stderr, err, sourcesOf(l))
		return nil, false
	}
	printWarnings(stderr, l.Info.Warnings, sources(l.Sources))
	if (len(pos) > 1 || allSet(l.Info.Data, sets)) && !bindAndStart(context.Background(), stderr, l, inputs, sets, sources(l.Sources)) {
		return nil, false
	}
	return l, true
}

// allSet reports whether --set gives every datum, so that gpp check binds
// and compiles the model as fit would with no data file (a model with no
// data at all included).
func allSet(vars []*check.DataVar, sets map[string]string) bool {
	for _, d := range vars {
		if _, ok := sets[d.Name]; !ok {
			return false
		}
	}
	return true
}

// bindAndStart binds and compiles l with inputs, as fit does before its
// first step, so that sizes, data values and everything else fit would
// refuse are reported, and tries its log density at a fit's start
// (startError). It prints any error to w, with startNote after a failure at
// the start, and reports whether all went well. gpp check and REPL :check
// call it with the data, or for a model that reads none; a cancelled ctx
// stops it, unreported, with false.
func bindAndStart(ctx context.Context, w io.Writer, l *pipeline.Loaded, inputs []data.Input, sets map[string]string, srcs sources) bool {
	if err := l.Bind(inputs, sets); err != nil {
		printError(w, err, srcs)
		return false
	}
	for _, warn := range l.Warnings {
		errorf(w, "warning: %s", warn)
	}
	for _, n := range l.Notes {
		errorf(w, "note: %s", n)
	}
	if err := startError(ctx, l.Model); err != nil {
		if ctx.Err() != nil {
			return false // the caller says it was interrupted
		}
		printError(w, err, srcs)
		errorf(w, "%s", startNoteFor(err))
		return false
	}
	if err := fixedOutputError(l.Model, l.Model.Info()); err != nil { // its types: an output reading an imputed covariate changes
		printWarnings(w, []*ast.Error{err}, srcs)
	}
	return true
}

// fixedOutputError returns a warning, at the first failure, if an output
// that depends on data and constants alone is not finite: it is so in
// every draw of a fit, as chol of a constant matrix that is not positive
// definite is. Outputs that read params are left alone: where the fit
// starts says little about the posterior's draws (sqrt(mu - 3) fails at
// mu = 0 and is fine where the data put mu).
func fixedOutputError(m *compile.Model, info *check.Info) *ast.Error {
	fixed := map[string]*check.OutputVar{}
	for _, o := range info.Outputs {
		if o.Value != nil && o.Type.DataOnly {
			fixed[o.Name] = o
		}
	}
	ev, err := m.NewEvaluator()
	if err != nil {
		return nil
	}
	// Any point will do for outputs that read no param; the replicates,
	// which are evaluated with them, need a stream.
	ev.SetRand(rand.New(rand.NewPCG(1, 2)))
	_, outs, _ := ev.Eval(make([]float64, m.Dim))
	var names []string
	var at *check.OutputVar // the first
	for i, o := range outs {
		if v := fixed[m.Outputs[i].Name]; v != nil && !allFinite(o) {
			names = append(names, "`"+v.Name+"`")
			if at == nil {
				at = v
			}
		}
	}
	if at == nil {
		return nil
	}
	what := "output " + names[0] + " is"
	if len(names) > 1 {
		what = "outputs " + joinAnd(names) + " are"
	}
	msg := what + " not finite in every draw: it depends on data and constants alone"
	// The evaluator explains the first output that failed, which may be
	// one that reads params; its explanation is given when it is this
	// output's (on its line).
	if first, ok := ev.OutputErr().(*ast.Error); ok && first.Pos.File == at.Pos.File && first.Pos.Line == at.Pos.Line {
		return ast.Errorf(first.Pos, "%s; %s", msg, first.Msg)
	}
	return ast.Errorf(at.Pos, "%s", msg)
}

// startError evaluates the log joint and its gradient at the centre of a
// fit's default start (sgvb.StartPoint: each param at its prior mean where
// that is a constant, otherwise at 0, 1, 1/2 or 1/K by its support) and
// returns its positioned error if it fails there and at each of
// startTries points around it (every coordinate moved by U(−0.1, 0.1), a
// fixed stream): a point where the log density is merely singular, such as
// log(x * x) at x = 0, does not count, since a fit's draws miss it.
// Failures that only the data reveal, such as an asymmetric covariance read
// from the data, are then found before a fit, which would stop on them after
// its first steps. It returns ctx's error if ctx is cancelled before it is
// done (Ctrl-C at REPL :check).
func startError(ctx context.Context, m *compile.Model) error {
	if m.Dim == 0 {
		return nil
	}
	x0 := sgvb.StartPoint(pipeline.Latents(m), m.Dim)
	grad := make([]float64, m.Dim)
	_, first := m.LogJoint(x0, grad)
	if first == nil {
		return nil
	}
	rng := rand.New(rand.NewPCG(1, 1))
	found := sgvb.TryNear(x0, make([]float64, m.Dim), 0.1, startTries, rng, func(x []float64) bool {
		if ctx.Err() != nil {
			return true // stop trying
		}
		_, err := m.LogJoint(x, grad)
		return err == nil
	})
	if err := ctx.Err(); err != nil {
		return err
	}
	if found > 0 {
		return nil
	}
	return first
}

// dataOnlyError is the log density's error at the default start where no
// start mends it (autodiff.NoStartHelps: of the data and constants alone,
// or an HMM's Gamma or rho of params that cannot sum to 1): gpp fit
// reports it before fitting, as no start or step could; nil otherwise.
func dataOnlyError(m *compile.Model) error {
	if m.Dim == 0 {
		return nil
	}
	_, err := m.LogJoint(sgvb.StartPoint(pipeline.Latents(m), m.Dim), make([]float64, m.Dim))
	if !autodiff.NoStartHelps(err) {
		return nil
	}
	return err
}

// startTries is how many points around the start startError tries.
const startTries = 20

// defaultStartRule says where a fit's default start, which startError
// tries, puts each param (startNote, ranStartNote).
const defaultStartRule = "(each param at its prior mean, or at 0, 1, 1/2 or 1/K by its support)"

// startNote follows startError's error.
const startNote = "the log density fails at a fit's default start " + defaultStartRule + " and around it, where a fit begins"

// dataOnlyNote follows startError's error where it is of the data and
// constants alone (autodiff.DataOnly: a row of a log of a sum whose terms
// are all −Inf for any params), where no start helps.
const dataOnlyNote = "the log density fails for any values of the params, by the data and constants alone: no start (--init) helps"

// startNoteFor is the note after startError's err: dataOnlyNote,
// noStartNote or startNote.
func startNoteFor(err error) string {
	switch {
	case autodiff.DataOnly(err):
		return dataOnlyNote
	case autodiff.NoStartHelps(err):
		return noStartNote
	}
	return startNote
}

// noStartNote follows startError's error where no start mends it but the
// params take part (autodiff.HMMSumNote).
const noStartNote = "the log density fails for any values of the params: no start (--init) helps"

// boundLine reports the data files bound and the sizes taken from them.
func boundLine(files []string, info *check.Info, bound map[string]*data.Array) string {
	var sizes []string
	for _, d := range info.Data {
		if d.Implicit && bound[d.Name] != nil && len(bound[d.Name].Values) == 1 {
			sizes = append(sizes, fmt.Sprintf("%s = %s", d.Name, formatNum(bound[d.Name].Values[0])))
		}
	}
	line := "\ndata bound from " + strings.Join(files, ", ")
	if len(files) == 0 {
		line = "\ndata given by --set"
	}
	if len(sizes) > 0 {
		line += ": " + strings.Join(sizes, ", ")
	}
	return line
}

// printSummary writes what gpp check reports about a valid model; lats,
// when the model was compiled with its data, give the values of bounds
// that depend on the data.
func printSummary(w io.Writer, path string, info *check.Info, lats []compile.Latent) {
	fmt.Fprintf(w, "%s: ok\n", path)
	var missing []compile.Latent // the missing values of data, after the params
	if len(lats) > len(info.Latents) {
		missing = lats[len(info.Latents):]
	}
	fmt.Fprintf(w, "\nlatents (%d):\n", len(info.Latents)+len(missing))
	t := &table{}
	t.row("  name", "shape", "support", "family", "prior")
	for i, l := range info.Latents {
		support, family := l.Support.String(), l.Family
		if l.Bounded() { // the factor is of the value on the base support
			support = l.Range().String()
			if l.DataBounds() {
				support = l.BoundsString()
				if i < len(lats) && lats[i].Name == l.Name {
					support += " = " + boundsValues(lats[i])
				}
			}
			family = l.Family + " on " + l.Support.String()
		}
		if l.Support == dist.SumToZero && len(l.Dims) == 1 { // the factor is of the K−1 isometric coordinates
			family = l.Family + " on " + l.Dims[0].String() + "−1 coordinates"
			if k := l.Dims[0].N; k >= 0 {
				family = fmt.Sprintf("%s on %d coordinate%s", l.Family, k-1, plural(k-1))
			}
		}
		if l.Support == dist.SumToZeroMatrix && len(l.Dims) == 2 { // the factor is of the (M−1)(N−1) isometric coordinates
			family = fmt.Sprintf("%s on (%s−1)(%s−1) coordinates", l.Family, l.Dims[0], l.Dims[1])
			if m, n := l.Dims[0].N, l.Dims[1].N; m >= 0 && n >= 0 {
				family = fmt.Sprintf("%s on %d coordinate%s", l.Family, (m-1)*(n-1), plural((m-1)*(n-1)))
			}
		}
		if l.Support.IsMatrix() && len(l.Dims) == 2 { // the factor is of L's (or Ω's factor's) unconstrained coordinates
			sign := "−"
			if l.Support.IsCov() {
				sign = "+"
			}
			family = l.Family + " on " + l.Dims[0].String() + "(" + l.Dims[0].String() + sign + "1)/2 coordinates"
			if k := l.Dims[0].N; k >= 0 {
				n := l.Support.MatrixSize(k)
				family = fmt.Sprintf("%s on %d coordinate%s", l.Family, n, plural(n))
			}
		}
		t.row("  "+l.Name, shapeString(l.Dims), support, family, priorString(l))
	}
	for _, l := range missing {
		support, family := l.Support.String(), l.Family
		if l.Bounded() {
			support, family = boundsValues(l), l.Family+" on "+l.Support.String()
		}
		data := strings.TrimSuffix(l.Name, compile.MissingSuffix)
		t.row("  "+l.Name, fmt.Sprintf("[%d]", l.Size), support, family, "the ~ on "+data+" (its missing values)")
	}
	t.print(w)
	fmt.Fprintf(w, "\ndata (%d):\n", len(info.Data))
	t = &table{}
	for _, d := range info.Data {
		t.row("  "+d.Name, d.TypeString(), d.Note())
	}
	t.print(w)
	if len(info.Truncations) > 0 {
		fmt.Fprintf(w, "\ntruncated data (%d):\n", len(info.Truncations))
		t = &table{}
		for _, s := range info.Truncations {
			t.row("  "+ast.FormatExpr(s.LHS), "~ "+check.TruncationString(s), "normalised per element")
		}
		t.print(w)
	}
	if len(info.Consts) > 0 {
		fmt.Fprintf(w, "\nconstants (%d):\n", len(info.Consts))
		t = &table{}
		for _, c := range info.Consts {
			t.row("  "+c.Name, "= "+c.ValueString(), c.Note())
		}
		t.print(w)
	}
	if len(info.Outputs) > 0 {
		fmt.Fprintf(w, "\noutputs (%d):\n", len(info.Outputs))
		t = &table{}
		for _, o := range info.Outputs {
			if o.Stmt != nil && o.Stmt.Dist != nil {
				what := "replicate ~ " + o.Stmt.Dist.Fun.Name
				if tr := o.Stmt.Trunc; tr != nil { // " truncated to [0, ∞)", as truncated data reads
					what += strings.TrimPrefix(check.TruncationString(&ast.TildeStmt{Dist: o.Stmt.Dist, Trunc: tr}), ast.FormatExpr(o.Stmt.Dist))
				}
				t.row("  "+o.Name, shapeString(o.Dims), what)
				continue
			}
			t.row("  "+o.Name, shapeString(o.Dims))
		}
		t.print(w)
	}
	if len(info.Functions) > 0 {
		fmt.Fprintf(w, "\nfunctions (%d):\n", len(info.Functions))
		t = &table{}
		for _, f := range info.Functions {
			note := ""
			for _, suf := range []string{"_lpdf", "_lpmf"} {
				if base, ok := strings.CutSuffix(f.Name.Name, suf); ok && len(f.Params) > 0 {
					note = fmt.Sprintf("density: %s ~ %s(...)", f.Params[0].Name, base)
				}
			}
			t.row("  "+fnHead(f), note)
		}
		t.print(w)
	}
}

// fnHead is a user function's name and parameters, "f(a, b)".
func fnHead(f *ast.FnDecl) string {
	ps := make([]string, len(f.Params))
	for i, p := range f.Params {
		ps[i] = p.Name
	}
	return f.Name.Name + "(" + strings.Join(ps, ", ") + ")"
}

func shapeString(s check.Shape) string { return s.String() }

// priorString describes a latent's prior for gpp check.
func priorString(l *check.Latent) string {
	if l.Prior == nil {
		if len(l.Tildes) > 0 {
			return "from ~ statement(s)"
		}
		if l.Support == dist.Unit || l.Support == dist.Simplex || l.HasLower() && l.HasUpper() {
			return "flat (uniform) on the support"
		}
		return "flat (improper) on the support"
	}
	s := ast.FormatExpr(l.Prior)
	switch {
	case l.Truncated && l.DataBounds():
		s += " truncated to " + l.BoundsString()
	case l.Truncated:
		s += " truncated to " + l.Range().String()
	}
	if l.Support.IsOrdered() {
		if l.OrderedIID && l.Dims.Rank() == 2 {
			s += " restricted to increasing rows (normalised: + log K! per row)"
		} else if l.OrderedIID {
			s += " restricted to increasing vectors (normalised: + log K!)"
		} else {
			s += " restricted to increasing vectors (unnormalised)"
		}
	}
	return s
}

// boundsValues writes the interval of a bounded latent's values from its
// compiled map loc + scale·b: "(3.4, 10)"; for bounds per element, the
// least and greatest of each end: "per element (0.5…2, 10)".
func boundsValues(l compile.Latent) string {
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	if l.ScaleV != nil {
		var lo, hi [2]float64 // least and greatest of each end
		for i := range l.ScaleV {
			a, b := l.LocV[i], l.LocV[i]+l.ScaleV[i]
			switch {
			case l.Support == dist.Unit:
			case l.ScaleV[i] > 0:
				b = math.Inf(1)
			default:
				a, b = math.Inf(-1), l.LocV[i]
			}
			if i == 0 {
				lo, hi = [2]float64{a, a}, [2]float64{b, b}
			}
			lo = [2]float64{min(lo[0], a), max(lo[1], a)}
			hi = [2]float64{min(hi[0], b), max(hi[1], b)}
		}
		end := func(e [2]float64) string {
			switch {
			case math.IsInf(e[0], -1):
				return "-∞"
			case math.IsInf(e[0], 1):
				return "∞"
			case e[0] == e[1]:
				return num(e[0])
			}
			return num(e[0]) + "…" + num(e[1])
		}
		return "per element (" + end(lo) + ", " + end(hi) + ")"
	}
	switch {
	case l.Support == dist.Unit:
		return "(" + num(l.Loc) + ", " + num(l.Loc+l.Scale) + ")"
	case l.Scale > 0:
		return "(" + num(l.Loc) + ", ∞)"
	}
	return "(-∞, " + num(l.Loc) + ")"
}
