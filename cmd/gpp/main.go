// Command gpp checks and fits Bayesian models written in the gpp modelling
// language by stochastic gradient variational Bayes.
//
//	gpp check model.gpp          check a model and print its latents and data
//	gpp graph model.gpp          print the model's graph as Graphviz DOT
//	gpp fit model.gpp data.csv   fit a model to data by SGVB and write the results
//	gpp sample model.gpp data    sample the posterior by NUTS (Stan's sampler), to check a fit
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
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
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
	switch cmd {
	case "check":
		return cmdCheck(rest, stdout, stderr)
	case "graph":
		return cmdGraph(rest, stdout, stderr)
	case "fit":
		return cmdFit(rest, stdout, stderr)
	case "diagnose":
		return cmdDiagnose(rest, stdout, stderr)
	case "logprob":
		return cmdLogprob(rest, stdout, stderr)
	case "compare":
		return cmdCompare(rest, stdout, stderr)
	case "predict":
		return cmdPredict(rest, stdout, stderr)
	case "sensitivity":
		return cmdSensitivity(rest, stdout, stderr)
	case "sample":
		return cmdSample(rest, stdout, stderr)
	case "sbc":
		return cmdSBC(rest, stdout, stderr)
	case "kfold":
		return cmdKfold(rest, stdout, stderr)
	case "repl":
		return cmdRepl(rest, stdin, stdout, stderr)
	case "version", "--version", "-version":
		return cmdVersion(stdout)
	case "help", "-h", "-help", "--help":
		return cmdHelp(rest, stdout, stderr)
	}
	errorf(stderr, "unknown command %q", cmd)
	usage(stderr)
	return exitUsage
}
