package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/stdlib"
)

const usageText = `gpp — Bayesian models fitted by gamma-aware stochastic gradient variational Bayes

usage: gpp <command> [arguments]

commands:
  check     check a model: print its latents, families, data and constants, or its errors
  graph     print the model's graph (params, data, lets, plates) as Graphviz DOT
  fit       fit a model to data by SGVB (or MAP, Laplace or Pathfinder) and write
            summary, draws and fit files; with --prior, draw from the priors instead
            (a prior predictive check)
  sample    sample the posterior by NUTS, Stan's sampler, to check a fit against MCMC
  summary   summarise saved draws (gpp's or CmdStan's CSVs) again, with Stan's
            warnings, as CmdStan's stansummary and diagnose
  diagnose  check a model's gradient against finite differences at random points
  logprob   the log density and its gradient at given points (CmdStan's log_prob)
  compare   rank fits of the same data by leave-one-out cross-validation (elpd_loo),
            or by log evidence with Bayes factors (--evidence)
  kfold     K-fold cross-validation: refit without each fold and predict it (elpd_kfold)
  predict   evaluate a model's outputs at draws of a saved fit on new data (predictions)
  sensitivity
            how sensitive a saved posterior is to its prior and to its likelihood
  sbc       simulation-based calibration: is q calibrated for this model and design?
  repl      an interactive session: build a model line by line, fit it, query the fit
  version   print the gpp version
  help      help on a command, or on the language's distributions and functions

Run 'gpp help <command>' or 'gpp <command> --help' for a command's flags,
'gpp help distributions' and 'gpp help functions' for the built-in tables,
'gpp help NAME' for one distribution or function.
`

func usage(w io.Writer) { fmt.Fprint(w, usageText) }

// cmdHelp prints help on a command, or on the built-in tables.
func cmdHelp(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stdout)
		return exitOK
	}
	if len(args) > 1 {
		errorf(stderr, "help takes one topic, got %d", len(args))
		return exitUsage
	}
	topic := args[0]
	if c := lookupCmd(topic); c != nil {
		return c.run([]string{"--help"}, strings.NewReader(""), stdout, stdout)
	}
	switch topic {
	case "version":
		fmt.Fprintln(stdout, "usage: gpp version\n\nPrints gpp's version and the Go toolchain and platform it was built with.")
		return exitOK
	case "help":
		usage(stdout)
		return exitOK
	case "distributions":
		t := &table{}
		t.row("distribution", "value", "description")
		for _, d := range stdlib.Dists() {
			t.row(d.Signature(), d.ValueDoc(), d.Doc)
		}
		t.print(stdout)
		return exitOK
	case "functions":
		t := &table{}
		t.row("function", "shape", "description")
		for _, g := range stdlib.Funcs() {
			for _, f := range g.Forms() {
				t.row(f.Signature(), f.ShapeDoc(), f.Doc)
			}
		}
		t.print(stdout)
		fmt.Fprintln(stdout, "\nA model declares its own functions at the top level, fn NAME(A, B) = EXPR or\nfn NAME(A, B) { let U = ...; return EXPR }, expanded at each call; a function\nNAME_lpdf(y, ...) makes y ~ NAME(...) a user density (docs/language.md §2).")
		return exitOK
	}
	if d := stdlib.LookupDist(topic); d != nil {
		fmt.Fprintf(stdout, "%s — %s\n\n  value:     %s\n  arguments: %s\n  shapes:    %s\n", d.Signature(), d.Doc, d.ValueDoc(), d.ParamsDoc(), d.Shape)
		if d.Example != "" {
			fmt.Fprintf(stdout, "  example:   %s\n", d.Example)
		}
		if _, ok := dist.LogCDF(d.Name, false); ok && d.Shape == stdlib.DistElementwise && !dist.PointMassAtZero(d.Name) {
			fmt.Fprintf(stdout, "  truncated: y ~ %s T[L, U], T[L, ] or T[, U] on data y; output y_rep ~ %s T[L, U] draws truncated\n", d.Signature(), d.Signature())
		}
		return exitOK
	}
	if g := stdlib.LookupFunc(topic); g != nil {
		for i, f := range g.Forms() {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			fmt.Fprintf(stdout, "%s — %s\n\n  shape:   %s\n  support: %s\n", f.Signature(), f.Doc, f.ShapeDoc(), f.SupportDoc())
			if f.Example != "" {
				fmt.Fprintf(stdout, "  example: %s\n", f.Example)
			}
		}
		return exitOK
	}
	if h := check.StanHint(topic); h != "" {
		// a name from Stan or PyMC that gpp writes otherwise: the
		// checker's hint at it is its help (an error's "gpp help NAME"
		// leads here)
		fmt.Fprintf(stdout, "%s is not built into gpp: %s\n", topic, h)
		return exitOK
	}
	if best := check.Suggest(topic, helpTopics()); best != "" {
		errorf(stderr, "no help topic %q; did you mean %q?", topic, best)
		return exitUsage
	}
	errorf(stderr, "no help topic %q: try a command, 'distributions', 'functions', or a distribution or function name", topic)
	return exitUsage
}

// helpTopics lists what gpp help takes: commands, the two tables, and every
// distribution and function name.
func helpTopics() []string {
	topics := append(commandNames(), "distributions", "functions")
	for _, d := range stdlib.Dists() {
		topics = append(topics, d.Name)
	}
	for _, f := range stdlib.Funcs() {
		topics = append(topics, f.Name)
	}
	return topics
}
