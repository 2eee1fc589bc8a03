package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/chzyer/readline"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/parser"
)

const replSynopsis = "repl [model.gpp [data.csv|data.tsv|data.json|data.R|NAME=file.csv ...]] [--set NAME=VALUE ...] [--history FILE]"

const replHelpText = `Starts an interactive session: declarations and statements typed at the >>>
prompt build up a model, :fit fits it (:sample samples it by NUTS), and
expressions are evaluated on the fitted q (or the draws of the last :sample). A model file and data files given on the command line are loaded
first (as :load and :data do). Type :help in the session for its commands.

On a terminal, lines are edited with readline: history (kept in --history,
by default $XDG_STATE_HOME/gpp/history, or ~/.gpp_history when XDG_STATE_HOME
is not set), tab completion, and Ctrl-C to drop the line being typed or to
stop a running :fit, :sample, query or :check, or the checks of a change to the
model, data or values (the change is then not made). Otherwise gpp repl
reads lines from stdin and writes a transcript: each line read is echoed
after its prompt, and no history is kept. Ctrl-D (end of input) or :quit ends the session. An
error is printed and the session goes on, as it would at the terminal; the
exit code is 0, or 1 when stdin is not a terminal and any input (or a file
given on the command line) failed, as sqlite3 does with a script; 2 for a
bad command line.
`

// cmdRepl runs gpp repl.
func cmdRepl(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("repl", replSynopsis, replHelpText, stderr)
	sets := setFlags{}
	fs.Var(sets, "set", "set a constant or scalar data, as `NAME=VALUE` (repeatable; :set in the session)")
	order := levelFlags{}
	fs.Var(order, "levels", levelsUsage+"; for the session")
	history := fs.String("history", "", "history `FILE` (default $XDG_STATE_HOME/gpp/history or ~/.gpp_history; \"-\": none)")
	pos, code, ok := parseCommand(fs, args, stdout)
	if !ok {
		return code
	}
	r := newRepl(stdin, stdout, stderr)
	r.order = order
	switch *history {
	case "":
		r.history = defaultHistoryPath(os.Getenv)
	case "-":
		r.history = ""
	default:
		r.history = *history
	}
	// The model, then the values set, then the data, each one step of
	// :undo as if typed: the data are bound with the values set, as gpp
	// fit binds them.
	if len(pos) > 0 {
		r.input = ":load " + quoteArg(pos[0])
		r.load(pos[0])
	}
	if len(sets) > 0 {
		var args []string
		for _, name := range sortedKeys(sets) {
			args = append(args, name+"="+sets[name])
		}
		r.input = ":set " + quoteArgs(args)
		r.set(args)
	}
	if len(pos) > 1 {
		r.input = ":data " + quoteArgs(pos[1:])
		r.addData(pos[1:])
	}
	if interactive := r.run(); r.failed && !interactive {
		return exitError
	}
	return exitOK
}

// run reads and runs inputs until :quit or the end of the input: with
// readline when the input is a terminal, else as a script. It reports
// whether the session was interactive (read with readline).
func (r *repl) run() (interactive bool) {
	var lines lineSource = newScriptLines(r.in, r.out)
	if isTerminal(r.in) {
		rl, err := r.newReadline()
		if err != nil {
			errorf(r.err, "cannot start line editing: %v", err)
		} else {
			lines, interactive = rl, true
		}
	}
	defer lines.close()
	r.interactive = interactive
	r.loop(lines)
	return interactive
}

// eofAction is what the end of the input does to the input being read.
type eofAction int

const (
	eofEnd       eofAction = iota // end the session: nothing was typed
	eofSubmitEnd                  // run what was typed so far, then end the session
	eofDiscard                    // drop what was typed, and prompt again
)

// atEOF decides what the end of the input does: read from a terminal
// (Ctrl-D), at a continuation prompt ("... ") it drops the unfinished
// input and gives back the main prompt, as Python's and IPython's REPLs
// do, so that a stray Ctrl-D in a for loop does not end the session and
// lose its model; at the main prompt it ends the session. A script (a
// pipe or a file) runs its last input, unfinished or not, and ends.
func atEOF(interactive, continuing bool) eofAction {
	switch {
	case !continuing:
		return eofEnd
	case interactive:
		return eofDiscard
	}
	return eofSubmitEnd
}

// defaultHistoryPath returns where the history is kept:
// $XDG_STATE_HOME/gpp/history, else ~/.gpp_history, else "" (no history).
func defaultHistoryPath(getenv func(string) string) string {
	if d := getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "gpp", "history")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".gpp_history")
	}
	return ""
}

// repl is one interactive session. Everything it reads comes through a
// lineSource and everything it prints goes to out (results) and err
// (errors, warnings and progress), so that a session can be driven from
// tests without a terminal.
type repl struct {
	in       io.Reader
	out, err io.Writer
	history  string // history file, "" for none (a terminal session only)
	// order is gpp repl's --levels: the order of the labels of columns
	// of labels, for every binding of the session's data.
	order levelFlags

	replState            // the model, its data, the values set and the fit
	steps     []replStep // the states before each step, for :undo (trimSteps bounds them)
	forgotten int        // steps trimSteps forgot
	undoData  int        // bytes of data files :undo's history may hold (replUndoData; tests lower it)
	input     string     // the input or :command line being run, which a step records
	dataReads int        // data files read so far, which numbers them (replInput.read)
	fits      int        // fits made so far, which numbers them (replFit.n)
	samples   int        // :samples made so far, which numbers them (replSample.n)
	slowRefit float64    // seconds of a fit from the default start before a hint suggests --init last (replSlowRefit; tests lower it)
	quit      bool       // :quit was typed
	// interactive says the input is a terminal, read with readline (atEOF).
	interactive bool
	// savedSrc is the model as the last :save wrote it or :load read it,
	// for the note at the end of a session (unsavedNote).
	savedSrc string
	// loadedFrom is the file :load read savedSrc from ("" after a :save,
	// which formats the model anew): while the session's model is still
	// that file's text, errors in it are named by the file (inFile).
	loadedFrom string
	// failed records that an error was reported: a statement, command or
	// expression failed. A session read from a non-terminal then exits 1.
	failed bool

	ahead    string // a line read ahead: it starts the next input
	hasAhead bool

	// notify delivers Ctrl-C to a running fit, query, :check or the checks
	// of a step until stop is called (interruptible); tests replace it.
	notify func(c chan<- os.Signal) (stop func())
	// afterEval is called after each ELBO evaluation of a fit (tests).
	afterEval func(sgvb.Progress)
	// beforeCommit is called when a :fit --out has staged its files,
	// before their commit (tests).
	beforeCommit func()
	// afterBind is called when the checks of a step (stepError) have
	// bound the data, with the context that Ctrl-C cancels (tests).
	afterBind func(ctx context.Context)
	// afterDraw is called after each draw of a query, with the context
	// that Ctrl-C cancels (tests).
	afterDraw func(ctx context.Context)
	// afterSampleIter is called after each iteration of a :sample's chains
	// (tests).
	afterSampleIter func(chain, iter int)
}

// replModel is the file name of the session's model in positions:
// <repl>:LINE:COL is line LINE of the model as :list prints it (the
// loaded file's name while the model is that file's text: repl.inFile).
const replModel = "<repl>"

// replInputName names what was just typed in positions: <input>:LINE:COL is
// line LINE of the statement or expression typed at the prompt.
const replInputName = "<input>"

func newRepl(in io.Reader, out, err io.Writer) *repl {
	r := &repl{in: in, out: out, err: err}
	r.sets = setFlags{}
	r.undoData = replUndoData
	r.slowRefit = replSlowRefit
	r.notify = func(c chan<- os.Signal) func() {
		signal.Notify(c, os.Interrupt)
		return func() { signal.Stop(c) }
	}
	r.info, _ = check.Check(&ast.File{Name: replModel}, nil)
	return r
}

// errorf reports an error, as errorf does, and marks the session failed.
func (r *repl) errorf(format string, args ...any) {
	r.failed = true
	errorf(r.err, format, args...)
}

// flagError reports the first line of msgs, a command's flag parser's
// complaint, and where cmd's flags are listed, and marks the session
// failed.
func (r *repl) flagError(cmd string, msgs *strings.Builder) {
	r.failed = true
	first, _, _ := strings.Cut(msgs.String(), "\n")
	fmt.Fprintf(r.err, "%s\n%s --help lists the flags\n", first, cmd)
}

// printError reports err, as printError does, and marks the session failed.
func (r *repl) printError(err error, src sources) {
	r.failed = true
	err, src = r.inFile(err, src)
	printError(r.err, err, src)
}

// inFile returns err with its positions in the session's model named by
// the file :load read it from (bad.gpp:1:6, not <repl>:1:6), and src
// with that file's text, while the model is still the file's text: the
// lines are then the file's. Otherwise err and src as they are.
func (r *repl) inFile(err error, src sources) (error, sources) {
	list, ok := ast.Positioned(err)
	if !ok || r.loadedFrom == "" || r.src != r.savedSrc || src[replModel] == nil {
		return err, src
	}
	out := make(ast.ErrorList, len(list))
	for i, e := range list {
		c := *e
		if c.Pos.File == replModel {
			c.Pos.File = r.loadedFrom
		}
		c.Msg = strings.ReplaceAll(c.Msg, replModel+":", r.loadedFrom+":")
		out[i] = &c
	}
	named := maps.Clone(src)
	named[r.loadedFrom] = src[replModel]
	return out, named
}

// lineSource reads input lines; readLine returns errInterrupt for a Ctrl-C
// at the prompt and io.EOF at the end of the input.
type lineSource interface {
	readLine(prompt string) (string, error)
	close()
}

var errInterrupt = errors.New("interrupted")

// scriptLines reads lines from a non-terminal and echoes each one after its
// prompt, so that the output reads as a transcript.
type scriptLines struct {
	r   *bufio.Reader
	out io.Writer
}

func newScriptLines(in io.Reader, out io.Writer) *scriptLines {
	return &scriptLines{r: bufio.NewReader(in), out: out}
}

func (s *scriptLines) readLine(prompt string) (string, error) {
	line, err := s.r.ReadString('\n')
	if err != nil && line == "" {
		if err == io.EOF {
			return "", io.EOF
		}
		return "", err
	}
	line = strings.TrimRight(line, "\r\n")
	fmt.Fprintf(s.out, "%s%s\n", prompt, line)
	return line, nil
}

func (s *scriptLines) close() {}

// termLines reads lines from a terminal with readline.
type termLines struct{ rl *readline.Instance }

func (r *repl) newReadline() (*termLines, error) {
	cfg := &readline.Config{
		Prompt:          ">>> ",
		AutoComplete:    replCompleter{r},
		InterruptPrompt: "^C",
		EOFPrompt:       "",
		Stdout:          r.out,
		Stderr:          r.err,
	}
	if r.history != "" {
		if err := os.MkdirAll(filepath.Dir(r.history), 0o700); err != nil {
			errorf(r.err, "warning: no history: %v", err)
		} else {
			cfg.HistoryFile = r.history
		}
	}
	rl, err := readline.NewEx(cfg)
	if err != nil {
		return nil, err
	}
	return &termLines{rl}, nil
}

func (t *termLines) readLine(prompt string) (string, error) {
	t.rl.SetPrompt(prompt)
	line, err := t.rl.Readline()
	switch {
	case errors.Is(err, readline.ErrInterrupt):
		return "", errInterrupt
	case err != nil:
		return "", err
	}
	return line, nil
}

func (t *termLines) close() { t.rl.Close() }

// loop reads and runs inputs until :quit or the end of the input.
// At a terminal, a model changed since the last :save or :load gets a
// note as the session ends (unsavedNote); a script can be run again.
func (r *repl) loop(lines lineSource) {
	defer func() {
		if r.interactive {
			if note := r.unsavedNote(); note != "" {
				errorf(r.err, "%s", note)
			}
		}
	}()
	for !r.quit {
		input, err := r.readInput(lines)
		if strings.TrimSpace(input) != "" {
			r.handle(input)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				r.errorf("%v", err)
			}
			return
		}
	}
}

// readInput reads one input: a :command line, or lines up to a complete
// statement or expression (parser.NeedsMore). A blank line at the "..." prompt
// submits what was typed so far, so that an unclosed bracket is reported
// rather than waited on, unless a "{" block is open (a blank line inside a
// for loop's body is part of it); so do a line that names a :command and a
// line that starts with a statement keyword outside braces (that line then
// starts the next input); Ctrl-C drops it, and so does Ctrl-D at a
// terminal, where a script's end runs it (atEOF). A complete if waits for one more
// line, which goes on with it when it starts with else and otherwise ends
// it (a blank line, or the next input).
func (r *repl) readInput(lines lineSource) (string, error) {
	var buf []string
	prompt := ">>> "
	for {
		var line string
		var err error
		if r.hasAhead {
			line, r.hasAhead = r.ahead, false
		} else {
			line, err = lines.readLine(prompt)
		}
		if errors.Is(err, errInterrupt) {
			return "", nil
		}
		if errors.Is(err, io.EOF) && atEOF(r.interactive, len(buf) > 0) == eofDiscard {
			return "", nil
		}
		if err != nil {
			return strings.Join(buf, "\n"), err
		}
		if len(buf) > 0 && (parser.StartsStatement(line) && parser.OpenBraces(strings.Join(buf, "\n")) == 0 ||
			isCommandLine(line)) {
			// A statement keyword always starts a new statement (language.md
			// §1), and a :command is never part of one (not even :quit):
			// what came before is submitted as it is, and its parse error
			// reported, before the line runs. A line such as ":3]" that
			// names no command goes on with the input (a slice y[0 :3]).
			r.ahead, r.hasAhead = line, true
			return strings.Join(buf, "\n"), nil
		}
		if len(buf) == 0 {
			t := strings.TrimSpace(line)
			if t == "" {
				return "", nil
			}
			if strings.HasPrefix(t, ":") {
				return t, nil
			}
		} else if strings.TrimSpace(line) == "" && parser.OpenBraces(strings.Join(buf, "\n")) <= 0 {
			return strings.Join(buf, "\n"), nil
		}
		buf = append(buf, line)
		text := strings.Join(buf, "\n")
		if !parser.NeedsMore(text) {
			if parser.LeadingKeyword(text) != "if" {
				return text, nil
			}
			// A complete if may go on with an else on the next line, as it
			// may in a file: read that line first; any other line ends the
			// if and starts the next input, a blank one just ends it.
			next, err := lines.readLine("... ")
			switch {
			case errors.Is(err, errInterrupt):
				return "", nil
			case errors.Is(err, io.EOF) && atEOF(r.interactive, true) == eofDiscard:
				return text, nil // the if is complete: run it, and prompt again
			case err != nil:
				return text, err
			case parser.LeadingKeyword(next) == "else":
				r.ahead, r.hasAhead = next, true
			case strings.TrimSpace(next) == "":
				return text, nil
			default:
				r.ahead, r.hasAhead = next, true
				return text, nil
			}
		}
		prompt = "... "
	}
}

// handle runs one complete input: a command, an expression or statements.
func (r *repl) handle(input string) {
	r.input = input
	if t := strings.TrimSpace(input); strings.HasPrefix(t, ":") {
		r.command(t)
		return
	}
	x, xerr := parser.ParseExpr(input)
	if xerr == nil {
		r.evalExpr(input, x)
		return
	}
	stmts, serr := parser.ParseStmts(replInputName, []byte(input))
	if serr == nil {
		if len(stmts) > 0 {
			r.addStmts(input, stmts)
		}
		return
	}
	if parser.LooksLikeStatements(input) {
		r.printError(serr, sources{replInputName: []byte(input)})
		r.noteNoneAdded(input, stmtsBefore(input, serr))
	} else {
		r.printError(xerr, sources{"": []byte(input)})
	}
}

// replCommand is one :command: its usage (name and args), the line :help
// lists, and the text :help NAME prints.
type replCommand struct {
	name, args, doc, help string
	run                   func(r *repl, args []string)
}

// oneArg runs a command that takes one argument, or says so (usage).
func oneArg(usage string, run func(r *repl, arg string)) func(r *repl, a []string) {
	return func(r *repl, a []string) {
		if len(a) != 1 {
			r.errorf("%s", usage)
			return
		}
		run(r, a[0])
	}
}

// replCommands lists the commands in the order :help shows them.
var replCommands []replCommand

func init() {
	replCommands = []replCommand{
		{"load", "FILE", "replace the model with the one in FILE",
			`The model in FILE replaces the session's once it checks and the session's data bind to it as they would in gpp fit; else the errors are printed, positioned in FILE and the data files, and the session stays as it was (:drop the data to load a model without them), as it does when Ctrl-C stops the checks. The data stay, but a NAME=FILE entry whose NAME the new model does not declare is dropped, as are the :set values that name nothing in it (a note says which); the last fit is forgotten. :undo gives back the session before: its model, the data and values dropped, and its fit.`,
			oneArg(":load takes one model file", (*repl).load)},
		{"data", "[NAME=]FILE ...", "add .csv, .tsv, .json or .R (R dump) data (NAME=FILE binds a whole file)",
			`Each file is read and added to the session's data: a CSV file's columns and a JSON file's keys give the data of their names, and NAME=FILE gives the data NAME a whole CSV file, NAME=FILE.csv:a,b its columns a and b in that order (one column for a vector). A file given again, by any path to it, or a NAME= given again replaces its entry. The files are added all together or not at all: the whole model is bound to the data with them, as gpp fit would bind it, and when every data it reads is given, compiled and tried at a fit's start, as :check does; a file that cannot be read, a value outside a declared support or a family's, a size or shape that disagrees, a data given twice, an index out of range or a log density that fails at the start is printed with its position in the file or the model, and the data stay as they were. Data the model reads that no file gives yet are no error, and NAME=FILE for a NAME the model does not declare yet is added, with a note: it waits for the declaration, and :fit, :check and queries fail on it until then. Ctrl-C stops the checks, and the data stay as they were. Without arguments :data lists the entries, as :drop takes them. A path with a blank is written my\ y.csv or "my y.csv".`,
			(*repl).addData},
		{"drop", "FILE|NAME ...", "drop data added by :data (by the file, or the NAME of a NAME=FILE)",
			`Each argument drops the :data entries it names: FILE those of that file (by any path to it, so y.csv drops ./y.csv), NAME the entry given as NAME=FILE, or an entry as :data lists it. The entries are dropped all together or not at all: an argument that names none, or data left that the model does not bind to, keeps them all.`,
			(*repl).dropData},
		{"set", "NAME=VALUE ...", "set constants or scalar data, as --set does",
			`Each value sets a constant or a scalar data, as gpp fit's --set does, and replaces an earlier :set of the name. The model is checked with the values, bound to the data as far as they are loaded and, when they give every data it reads (or it reads none), compiled as :check does: the values are set all together or not at all, so one that fails, such as a size the model cannot store, keeps all the old values, and so does Ctrl-C during the checks. Without arguments :set lists the values; :unset drops them, and :fit --set sets them for a fit that succeeds.`,
			(*repl).set},
		{"unset", "NAME ...", "drop :set values",
			`Each NAME loses its :set value: a constant goes back to its default, a scalar data to the data files. The model is checked and bound with what is left as :set checks it, and the names are dropped all together or not at all.`,
			(*repl).unset},
		{"check", "", "gpp check's summary of the model; with the data loaded (or none to read) binds and compiles it as :fit would",
			`Prints gpp check's summary of the session's model: its params and their factors, data and constants. With the data loaded, or when the model reads none, it also binds and compiles the model and tries its log density at a fit's start, as a fit would begin, so that sizes, indices and data values are checked too; it prints their errors instead. Ctrl-C stops it.`,
			func(r *repl, a []string) { r.check() }},
		{"graph", "", "the model's graph as Graphviz DOT, as gpp graph prints it",
			`Prints the session's model as gpp graph does: its graph in Graphviz's DOT language (params, observed and other data, lets, outputs and target statements as nodes, an arrow from each quantity to what reads it, plates of the nodes of one shape). With the data loaded, the plates show the sizes read from them, N (234); data that do not bind yet leave the sizes as names. Render it with Graphviz's dot, from a file: write the model with :save and run gpp graph FILE.gpp | dot -Tpng -o model.png.`,
			func(r *repl, a []string) { r.graph() }},
		{"fit", "[flags]", "fit, with gpp fit's flags (see :fit --help)",
			`Fits the session's model to its data with gpp fit's flags (:fit --help lists them), prints the table of the fitted params and the fit's diagnostics, and keeps the fitted q for :show and the expressions typed after it. Files are written only with --out. --set NAME=VALUE sets the value for the session, as :set does, so that the fit is of the session's model and can be queried; if the fit fails, the values go back to what they were (a note says so), as a :set that fails keeps the old ones. Ctrl-C stops the fit; the session keeps the q reached, and the --set values with it. A fit starts from the default start, so the same flags give the same fit; --init last starts from the q of the session's last fit instead (after a changed prior, a refit takes fewer iterations): its params of the same name, shape and support keep their q, and the others (new, or of another shape or support) start from the default, named by a note; a fit whose ELBO overflowed is kept for inspection only and refused as a start. --init FILE|DIR and --init path start as gpp fit's do (a file named last or path is ./last, ./path). The summary's start line says where q started, naming the session's fits by number (fit 2 warm-started from q of fit 1); a fit from the default start that took more than 10 s, after a fit sharing params with it, ends with a hint to use --init last.`,
			(*repl).fitCmd},
		{"sample", "[flags]", "sample the posterior by NUTS, with gpp sample's flags (see :sample --help)",
			`Samples the session's model on its data by NUTS, as gpp sample does, with its flags (:sample --help lists them: --chains, --warmup, --draws, --seed, --adapt-delta, --metric, --max-depth, ...), and prints gpp sample's table (with the REPL's 0-based names) and Stan's warnings: divergences (with gpp sample's hint on a centred hierarchy behind them), tree depth, E-BFMI, R̂ and ESS. The draws answer the expressions typed after it and :show, whichever of :fit and :sample ran last (:show's title says which); :predict needs a fit's q (gpp predict takes a sample written by :sample --out DIR). Files are written only with --out. The model is sampled with the session's :set values (--set is refused: use :set). --against last compares the q of the session's last fit with the draws (its table with z and the sd ratio, as --against FIT), --init last starts chain c from draw c of that q instead of Stan's uniform(-2, 2) starts (a start in the posterior's bulk shortens warm-up); --against FIT and --init FIT name a fit's output directory or fit.json, a fit of this model. The same flags give the same draws. Ctrl-C stops the chains: the session keeps the first draws of each chain, as many as the shortest has (at least 2), or its previous fit or sample.`,
			(*repl).sampleCmd},
		{"sensitivity", "[flags]", "prior and likelihood sensitivity of the last sample or fit, as gpp sensitivity",
			`Power-scales the prior and the likelihood of the session's last result, as gpp sensitivity does with its flags (:sensitivity --help lists them: --prior NAMES, --likelihood NAMES, --threshold, --csv FILE, --plots DIR, ...): the draws of the last :sample, or, when a :fit ran last, its q's draws (--seed and --draws, default the fit's) weighted by p/q; the draws line under the table says which. It prints gpp sensitivity's table, with the REPL's 0-based names, and its warnings. The model, the data and the :set values must be those of that sample or fit (else :sample or :fit again); a MAP fit has no draws to power-scale.`,
			(*repl).sensitivityCmd},
		{"kfold", "[flags]", "K-fold cross-validation of the session's model, as gpp kfold",
			`Cross-validates the session's model and data by K folds, as gpp kfold does with its flags (:kfold --help lists them: --folds, --group, --nuts, --seed, and gpp fit's flags for each fit): each fold's rows are held out, the model fitted (or with --nuts sampled) on the others and the held-out rows' log_lik averaged over its draws. It prints the folds' table and elpd_kfold with its se and p_kfold, and the warnings of gpp kfold. The model needs an output log_lik, one element per row of the data. Nothing is written (gpp kfold --out DIR writes kfold.csv for gpp compare), --set is refused (use :set), and the session's fit, sample and values stay as they are. Ctrl-C stops the fits.`,
			(*repl).kfoldCmd},
		{"show", "[NAME]", "fitted factors: family, parameters, mean, sd",
			`Prints the last fit's factors: family, parameters, mean and sd of each element, of every param (at most 20 elements each) or of the params named (all their elements). A full-rank factor's parameters are each element's own marginal, a normal on the unconstrained scale (the log of a positive param), also for the members of a joint factor (:fit --fullrank a+b), which a note names.`,
			(*repl).show},
		{"predict", "[--new-levels] [NAME=]FILE ...", "the outputs at the last fit's draws on new data, as gpp predict",
			`Evaluates the outputs of the session's model at the last fit's draws of q on the data files given (written as :data takes them), as gpp predict does: the data that only the log density reads, such as the observed y of y ~ ..., may be left out, as may an output that reads them (log_lik = logpdf(y, ...) without y: a note says so), while the other data an output reads must be given; observed data left out is drawn from its ~ at each draw (a note says so) and its rows follow the outputs', as gpp predict's do. It uses the fit's --seed and --output-draws, so that on the fit's own data the outputs are the fit's, and prints their table. The session's model, data and fit stay as they are, and nothing is written; the params must be those of the fit (a param added, dropped or resized since needs a :fit), but for --new-levels: a param that the new data make larger (a group or a label the fit did not see) gets its new elements drawn from its prior at each draw, given that draw's params, as gpp predict --new-levels (brms's allow_new_levels).`,
			(*repl).predict},
		{"type", "EXPR", "the type of an expression: kind, support, shape, and whether it needs a fit",
			`Prints the type the checker gives EXPR in the session's model, as its errors name types: the element kind (real or int), the support when narrower than real (positive, unit, ...), the shape in the model's size names (real[N, K]), the value of a compile-time constant, and whether it depends on the params (typing it evaluates it on draws of the last fit) or on data and constants only (evaluated directly). For a param whose declared type is more than its value's type (sum_to_zero_vector[N], ordered[K], cholesky_factor_corr[K], cov_matrix[K]), the declaration follows. Nothing is evaluated, so no fit or data are needed.`,
			func(r *repl, a []string) { r.typeOf(strings.Join(a, " ")) }},
		{"list", "", "the model with line numbers (<repl>:LINE:COL)",
			`Prints the session's model with line numbers: an error at <repl>:LINE:COL is in line LINE of it.`,
			func(r *repl, a []string) { r.list() }},
		{"del", "LINE|NAME ...", "delete statements: the one on LINE of :list, or the declaration of NAME",
			`Takes statements out of the session's model: LINE the statement on that line of :list (with any other statement on its lines, as a; b), NAME the top-level declaration of NAME (data, const, param, let, output or fn). They go all together or not at all: the model without them must check and bind to the data, as after an input, so a let that a ~ still reads stays (:del both, or type the let again: a declaration of a name the model already declares replaces the old one where it stands, a note says so). One step of :undo.`,
			(*repl).del},
		{"undo", "", "take back the last change to the model, the data or the values set",
			`Takes back the last command that changed the session, as a whole: an input's statements (all of them, or the declaration one replaced), :del, :load, :data, :drop, :set, :unset or :fit --set. The model, the data and the :set values become what they were before it, so :undo after :load gives back the data and values the load dropped. A plain :fit, queries, :check and the listings change none of these and are not taken back, but a fit belongs to the session it was made in: :undo past a :fit drops that fit, and the session gets back the fit it had before the command undone, or none (a note says which). :undo again goes further back, up to 100 steps: to bound the memory a long session holds, older steps are forgotten, and so are steps whose data files, other than the session's own, pass 256 MB (the last step is always kept); the fits of steps more than 10 back are let go, so such an :undo leaves the session without a fit (run :fit). :undo past the oldest step kept says so; there is no redo.`,
			func(r *repl, a []string) { r.undo() }},
		{"save", "FILE", "write the model as canonical source (no comments) to a .gpp file",
			`Writes the session's model to FILE as canonical source (comments are not kept), replacing FILE at once. FILE must end in .gpp and may not be a data file of the session; the model file :load read may be saved over.`,
			oneArg(":save takes one file name", (*repl).save)},
		{"help", "[NAME]", "this help; :help COMMAND for a command, :help NAME for a distribution or function",
			`Without NAME, the session's commands. With a command's name (:help fit or :help :fit), that command; with any other NAME, gpp help NAME: a distribution or a function (:help Gamma), or the tables distributions and functions.`,
			func(r *repl, a []string) {
				switch {
				case len(a) == 0:
					fmt.Fprint(r.out, replSessionHelp())
				case len(a) > 1:
					r.errorf(":help takes one name")
				case strings.HasPrefix(a[0], ":") || lookupCommand(commandName(a[0])) != nil:
					r.commandHelp(a[0])
				case replQueryHelp[a[0]] != "":
					fmt.Fprint(r.out, wrapText(replQueryHelp[a[0]], 76, ""))
					if a[0] == "mean" || a[0] == "quantile" { // also the language's built-in
						fmt.Fprintln(r.out)
						if cmdHelp(a, r.out, r.err) != exitOK {
							r.failed = true
						}
					}
				case cmdHelp(a, r.out, r.err) != exitOK:
					r.failed = true
				}
			}},
		{"quit", "", "end the session (also Ctrl-D)",
			`Ends the session, as :q, :exit and Ctrl-D (the end of the input) at the ">>> " prompt do; at the "... " prompt of an unfinished input, Ctrl-D at a terminal drops that input instead, as Ctrl-C does. When the model changed since the last :save or :load, a note as the session ends says how many statements, and that :save FILE.gpp keeps them; a session read from a pipe or a file gets none.`,
			func(r *repl, a []string) { r.quit = true }},
	}
}

// replQueryHelp is :help NAME for the queries that only the REPL has
// (evalExpr): mean, sd and quantile around a whole input.
var replQueryHelp = map[string]string{
	"mean":     "mean(x) around a whole input at the prompt is the posterior mean of each element of x: exact for a param's name (its factor's mean), else over the draws of the last fit; for data and constants, x itself. Inside an expression mean is the language's built-in below; type (mean(x)) to get that at the top level.",
	"sd":       "sd(x) around a whole input at the prompt is the posterior sd of each element of x: exact for a param's name (its factor's sd), else over the draws of the last fit; for data and constants, 0. Inside an expression sd is the language's built-in below, the sample sd of all elements; type (sd(x)) to get that at the top level.",
	"quantile": "quantile(x, p) around a whole input at the prompt is the posterior p-quantile of each element of x over the draws of the last fit (R's type 7, as the 5 %, 50 % and 95 % columns of a query's table, whose draws it uses), for a number p in [0, 1], as quantile(beta, 0.9), or a column for each of a vector of them, as quantile(beta, [0.025, 0.975]); for data and constants, x itself. Inside an expression quantile is the language's built-in below, the sample quantile of a vector at each draw (R's type 7); type (quantile(x, 0.5)) to get that at the top level.",
}

// command runs a :command line, its words split by splitArgs. A command
// that takes no arguments refuses any.
func (r *repl) command(line string) {
	if word, rest, _ := strings.Cut(line, " "); word == ":type" {
		r.typeOf(strings.TrimSpace(rest)) // an expression, not words: x' is a transpose
		return
	}
	fields, err := splitArgs(line)
	if err != nil {
		r.errorf("%s: %v", strings.Fields(line)[0], err)
		return
	}
	name := commandName(fields[0])
	c := lookupCommand(name)
	switch {
	case c == nil:
		r.errorf("unknown command :%s (:help lists the commands)", name)
	case c.args == "" && len(fields) > 1:
		r.errorf(":%s takes no arguments, got %s (usage: :%s; :help %s)", name, strings.Join(fields[1:], " "), name, name)
	default:
		c.run(r, fields[1:])
	}
}

// commandHelp prints :help NAME for a command NAME (":fit" or "fit").
func (r *repl) commandHelp(word string) {
	name := commandName(word)
	c := lookupCommand(name)
	if c == nil {
		r.errorf("unknown command :%s (:help lists the commands)", name)
		return
	}
	head := ":" + c.name
	if c.args != "" {
		head += " " + c.args
	}
	fmt.Fprintf(r.out, "%s — %s\n\n%s", head, c.doc, wrapText(c.help, 76, "  "))
}

// wrapText breaks text into lines of at most width bytes (a longer word
// has its own line), each after indent.
func wrapText(text string, width int, indent string) string {
	var b strings.Builder
	n := 0
	for _, w := range strings.Fields(text) {
		switch {
		case n == 0:
			b.WriteString(indent)
			n = len(indent)
		case n+1+len(w) > width:
			b.WriteString("\n" + indent)
			n = len(indent)
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	if n > 0 {
		b.WriteByte('\n')
	}
	return b.String()
}

// commandName returns the command a ":word" names, aliases resolved.
func commandName(word string) string {
	switch name := strings.TrimPrefix(word, ":"); name {
	case "q", "exit":
		return "quit"
	case "h", "?":
		return "help"
	default:
		return name
	}
}

// lookupCommand returns the command called name, or nil.
func lookupCommand(name string) *replCommand {
	for i := range replCommands {
		if replCommands[i].name == name {
			return &replCommands[i]
		}
	}
	return nil
}

// isCommandLine reports whether line is a :command: a ":" and the name of
// one, not a continued input that starts with ":" (":3]").
func isCommandLine(line string) bool {
	fields := strings.Fields(line)
	return len(fields) > 0 && strings.HasPrefix(fields[0], ":") && lookupCommand(commandName(fields[0])) != nil
}

// replSessionHelp is what :help prints.
func replSessionHelp() string {
	var b strings.Builder
	b.WriteString(`Type declarations and statements (data, const, param, let, ~, target, for,
if, output, fn) to add them to the session's model: the whole model is checked again,
and with data loaded bound to them and compiled as :check does. An input (a
line, or the lines that continue it) is added whole or not at all: if any of
its statements fails, the errors are printed and none of them is added. So
are the files of a :data, the values of a :set and the model of a :load: the
model is checked against the data whenever either changes, and a change that
fails is refused. A declaration (let, param, data, const, output, fn) of a
name the model declares replaces the old one where it stands (a note says
so), and :del takes statements out. Each input or command that changes the
session is one step of :undo (:help undo). An input goes on over several
lines ("..." prompt) while a bracket is open or a line ends with an
operator; a blank line (except inside an open { block) or a :command
submits it as it is. After an if's closing }, the next line is read first:
one that starts with else goes on with the if, a blank line submits it, and
any other line submits it and starts the next input.

Commands:
`)
	w := 0
	for _, c := range replCommands {
		w = max(w, len(c.name)+len(c.args)+2)
	}
	for _, c := range replCommands {
		head := ":" + c.name
		if c.args != "" {
			head += " " + c.args
		}
		fmt.Fprintf(&b, "  %-*s  %s\n", w, head, c.doc)
	}
	b.WriteString(`
Without arguments, :data and :set list what they hold; :fit --set sets
values for the session, as :set does, if the fit succeeds; :fit --init last
starts from the last fit's q (a refit after a changed prior). :sample draws
from the posterior by NUTS, as gpp sample; --against last compares the last
fit's q with its draws, --init last starts the chains from that q.
:help COMMAND describes a command.
Ctrl-C stops a running :fit (the session keeps the q reached), :sample (it
keeps the draws so far), query or :check, or the checks of a change (which
is then not made), or drops the line being typed.

Any other input that parses as an expression is evaluated:
  - on 1000 draws of the fitted q (:fit --output-draws changes the number),
    or on the draws of the last :sample when it ran after the last :fit:
    mean, sd and 5/50/95 % quantiles of each element (at most 20 shown),
    e.g. lambda * 2, W[0, 1], r' * r; a comparison is 0 or 1 per draw, so
    mean(mu > 0) is P(mu > 0);
  - directly, with or without a fit, when it depends on data and constants
    only, e.g. sum(y) or K * 2;
  - mean(x) and sd(x) around a whole input are REPL-only: the posterior
    mean or sd of x, element by element (exact for a param name, else over
    the draws; for data, x itself and 0). Inside an expression mean and sd
    are the language's built-ins, the mean and sample sd of all elements:
    type (mean(x)) or (sd(x)) to get them at the top level. quantile(x, p) around a whole input is the posterior
    p-quantile of each element over the draws, e.g. quantile(beta, 0.9),
    with a column per p of a vector: quantile(beta, [0.025, 0.975]).
A query names elements with the language's 0-based indices, as in W[0, 1]
(draws.csv keeps CmdStan's 1-based columns, W.1.2). Where a column of labels
in the data sized an axis (data county: int<lower=0, upper=J-1>[N] read
from names), the tables (:fit's, :sample's, :show and a query of a bare
name) print that axis's elements by label, as gpp fit's tables and
summary.csv do; a query indexes them by number from 0, in the order of
the labels' codes: a[AITKIN] is a[0], as the notes of :show and of a
query's table say. An element that is NaN
in a draw is left out of its own summary, and one that is +Inf or -Inf is
kept in it, as in :fit's table; a warning counts such draws. After the
model, its data or the values set change, answers still come from the last
fit (a note says so) until the next :fit; a param added, dropped, or given
another support, bounds or size needs one. :undo past a :fit drops it.

Errors: <input>:LINE:COL is a position in what was just typed,
<repl>:LINE:COL one in the session's model (see :list), named by the
file :load read it from (model.gpp:LINE:COL) until the model changes. Tab completes
keywords, built-ins, distributions, the model's names and :commands.
`)
	return b.String()
}

// replLevelsRefusal says why a session's :fit, :sample or :kfold refuses
// --levels: every query and :predict of the session reads the data coded
// one way, which gpp repl --levels gives.
func replLevelsRefusal(cmd string) string {
	return cmd + " --levels: the order of a column's labels is the session's, for its queries too: give it to gpp repl (gpp repl --levels NAME=LABEL,LABEL,...)"
}

// of returns the orders given for data that info declares: a session's
// model, typed a statement at a time, may not declare them yet.
func (o levelFlags) of(info *check.Info) map[string][]string {
	var out map[string][]string
	for name, labels := range o {
		if info != nil && info.DataVar(name) != nil {
			if out == nil {
				out = map[string][]string{}
			}
			out[name] = labels
		}
	}
	return out
}
