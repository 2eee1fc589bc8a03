// Command gpp checks and fits Bayesian models written in the gpp modelling
// language by stochastic gradient variational Bayes.
//
//	gpp check model.gpp          check a model and print its latents and data
//	gpp graph model.gpp          print the model's graph as Graphviz DOT
//	gpp fit model.gpp data.csv   fit a model to data by SGVB and write the results
//	gpp sample model.gpp data    sample the posterior by NUTS (Stan's sampler), to check a fit
//	gpp summary draws.csv ...    summarise saved draws again (gpp's or CmdStan's), as stansummary
//	gpp diagnose model.gpp data  check the model's gradient against finite differences
//	gpp logprob model.gpp data --params FILE  the log density and its gradient at given points
//	gpp compare DIR1 DIR2 ...    rank fits by leave-one-out cross-validation (elpd_loo)
//	gpp predict FIT model data   evaluate the outputs at draws of a saved fit on new data
//	gpp sensitivity FIT          power-scaling sensitivity of a posterior to its prior and likelihood
//	gpp sbc model.gpp [design]   simulation-based calibration of the fit for a model and design
//	gpp repl [model.gpp [data]]  an interactive session: build, check, fit and query a model
//	gpp version                  print the version
//	gpp help [topic]             help on commands, distributions and built-ins
//
// cmd/gpp is the only package that wires the pipeline together (parser →
// check → compile → autodiff → sgvb) and the only importer of readline.
package main

import (
	"io"
	"os"
	"strings"

	"github.com/gpplang/gpp/lang/check"
)

func main() {
	out := &checkedWriter{w: os.Stdout}
	code := run(os.Args[1:], os.Stdin, out, os.Stderr)
	os.Exit(out.exit(code, os.Stderr))
}

// checkedWriter is standard output that remembers its first failed
// write: a report written to a full disk or a closed file must not exit 0
// as if a pipeline had it.
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if err != nil && c.err == nil {
		c.err = err
	}
	return n, err
}

// exit returns the exit code of a command that returned code, saying on
// stderr why it is exitError when its output was not all written.
func (c *checkedWriter) exit(code int, stderr io.Writer) int {
	if c.err == nil || code != exitOK {
		return code
	}
	errorf(stderr, "writing standard output: %v", c.err)
	return exitError
}

// Exit codes.
const (
	exitOK    = 0 // success
	exitError = 1 // the model, the data or the fit is wrong
	exitUsage = 2 // the command line is wrong
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// run executes one gpp command and returns its exit code. It never panics on
// user input: every problem a user can cause is printed to stderr.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	cmd, rest := args[0], args[1:]
	if c := lookupCmd(cmd); c != nil {
		return c.run(rest, stdin, stdout, stderr)
	}
	switch cmd {
	case "version", "--version", "-version":
		return cmdVersion(rest, stdout, stderr)
	case "help", "-h", "-help", "--help":
		return cmdHelp(rest, stdout, stderr)
	}
	if why, ok := notCommands[cmd]; ok {
		errorf(stderr, "unknown command %q: %s", cmd, why)
		return exitUsage
	}
	if strings.HasSuffix(cmd, ".gpp") {
		// a model file first, as python script.py runs a script: gpp
		// needs the command before it
		errorf(stderr, "unknown command %q: a model is fitted by a command before it; did you mean %q?", cmd, "gpp fit "+strings.Join(args, " "))
		return exitUsage
	}
	if best := check.Suggest(cmd, commandNames()); best != "" {
		errorf(stderr, "unknown command %q; did you mean %q?", cmd, best)
	} else {
		errorf(stderr, "unknown command %q", cmd)
	}
	usage(stderr)
	return exitUsage
}

// notCommands are other tools' commands that gpp does as part of its
// own: what to run instead.
var notCommands = map[string]string{
	"loo":                 "PSIS-LOO is computed by gpp fit and gpp sample for an output log_lik of the observed data (loo.csv; docs/inference.md), and gpp compare DIR1 DIR2 ... ranks fits by it; a log_lik of data no ~ observes gets its held-out lppd (lppd.csv) instead",
	"optimize":            "gpp fit --family laplace finds the mode and the normal of its curvature (Stan's optimize and laplace)",
	"variational":         "gpp fit is variational inference (SGVB)",
	"generate_quantities": "gpp predict FIT model data evaluates the outputs at a fit's draws",
	"ppc":                 "gpp fit --plots draws the posterior predictive checks of an output y_rep ~ ...",
}

// command is one of gpp's commands: its name and what runs it.
type command struct {
	name string
	run  func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// commands are gpp's commands but version and help, which run, gpp help
// and its topics all read. They are set in init: the REPL's :help runs
// cmdHelp, which reads them, so an initializer would be a cycle.
var commands []command

func init() {
	noStdin := func(f func(args []string, stdout, stderr io.Writer) int) func([]string, io.Reader, io.Writer, io.Writer) int {
		return func(args []string, _ io.Reader, stdout, stderr io.Writer) int { return f(args, stdout, stderr) }
	}
	commands = []command{
		{"check", noStdin(cmdCheck)},
		{"graph", noStdin(cmdGraph)},
		{"fit", noStdin(cmdFit)},
		{"sample", noStdin(cmdSample)},
		{"summary", noStdin(cmdSummary)},
		{"repl", cmdRepl},
		{"diagnose", noStdin(cmdDiagnose)},
		{"logprob", noStdin(cmdLogprob)},
		{"compare", noStdin(cmdCompare)},
		{"kfold", noStdin(cmdKfold)},
		{"predict", noStdin(cmdPredict)},
		{"sensitivity", noStdin(cmdSensitivity)},
		{"sbc", noStdin(cmdSBC)},
	}
}

// lookupCmd returns the command of that name, or nil.
func lookupCmd(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

// commandNames lists the commands' names, version and help included.
func commandNames() []string {
	names := make([]string, 0, len(commands)+2)
	for _, c := range commands {
		names = append(names, c.name)
	}
	return append(names, "version", "help")
}
