// Command gpp-experiments reproduces the experiments of Knowles (2015) with
// gpp on the shared real data (../shared/data) and writes, for each, a CSV of
// results, PNG plots and a Markdown fragment into an output directory
// (docs/results by default); docs/results.md collects the fragments.
//
//	gpp-experiments [flags] epm             EPM link prediction on NIPS234 (experiment 1)
//	gpp-experiments [flags] epm-nuts        the same splits at K = 10 by NUTS (experiment 1's MCMC baseline)
//	gpp-experiments [flags] optimizers      optimizer comparison on EPM/NIPS234 (experiment 4)
//	gpp-experiments [flags] gpfa-synthetic  GPFA loadings recovery, Amari error vs N (experiment 2)
//	gpp-experiments [flags] gpfa-cytof      GPFA test perplexity on CyTOF vs n (experiment 3)
//	gpp-experiments [flags] pmf             Poisson matrix factorisation of the UCI digits (beyond the paper)
//	gpp-experiments [flags] vi-nuts         SGVB against NUTS on the bundled examples and posteriordb (beyond the paper)
//	gpp-experiments [flags] all             all seven
//	gpp-experiments football-auc DIR        score a gpp fit of the football example (examples/README.md)
//
// Flags: --out DIR (default docs/results), --quick (a small smoke run),
// --quiet (no progress lines).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/gpplang/gpp/experiments/epm"
	"github.com/gpplang/gpp/experiments/gpfa"
	"github.com/gpplang/gpp/experiments/pmf"
	"github.com/gpplang/gpp/experiments/vinuts"
	"github.com/gpplang/gpp/internal/modroot"
	"github.com/gpplang/gpp/internal/shareddata"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stderr))
}

// experiments maps a name to its runner.
var experiments = map[string]func(ctx context.Context, out string, quick bool, log io.Writer) error{
	"epm": func(ctx context.Context, out string, quick bool, log io.Writer) error {
		_, err := epm.Run(ctx, epm.Options{Out: out, Quick: quick, Log: log})
		return err
	},
	"epm-nuts": func(ctx context.Context, out string, quick bool, log io.Writer) error {
		_, err := epm.RunNUTS(ctx, epm.Options{Out: out, Quick: quick, Log: log})
		return err
	},
	"optimizers": func(ctx context.Context, out string, quick bool, log io.Writer) error {
		_, err := epm.RunOptimizers(ctx, epm.Options{Out: out, Quick: quick, Log: log})
		return err
	},
	"gpfa-synthetic": func(ctx context.Context, out string, quick bool, log io.Writer) error {
		_, err := gpfa.RunSynthetic(ctx, gpfa.Options{Out: out, Quick: quick, Log: log})
		return err
	},
	"gpfa-cytof": func(ctx context.Context, out string, quick bool, log io.Writer) error {
		_, err := gpfa.RunCyTOF(ctx, gpfa.Options{Out: out, Quick: quick, Log: log})
		return err
	},
	"pmf": func(ctx context.Context, out string, quick bool, log io.Writer) error {
		_, err := pmf.Run(ctx, pmf.Options{Out: out, Quick: quick, Log: log})
		return err
	},
	"vi-nuts": func(ctx context.Context, out string, quick bool, log io.Writer) error {
		_, err := vinuts.Run(ctx, vinuts.Options{Out: out, Quick: quick, Log: log})
		return err
	},
}

var order = []string{"epm", "epm-nuts", "optimizers", "gpfa-synthetic", "gpfa-cytof", "pmf", "vi-nuts"}

func run(ctx context.Context, args []string, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "football-auc" {
		return footballAUC(args[1:], os.Stdout, stderr)
	}
	fs := flag.NewFlagSet("gpp-experiments", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "docs/results", "output directory for CSV, PNG and Markdown results")
	quick := fs.Bool("quick", false, "a small smoke run instead of the full experiment")
	quiet := fs.Bool("quiet", false, "no progress lines")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: gpp-experiments [flags] epm|epm-nuts|optimizers|gpfa-synthetic|gpfa-cytof|pmf|vi-nuts|all\n       gpp-experiments football-auc DIR\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	names := []string{fs.Arg(0)}
	if names[0] == "all" {
		names = order
	} else if experiments[names[0]] == nil {
		fmt.Fprintf(stderr, "gpp-experiments: unknown experiment %q\n", names[0])
		fs.Usage()
		return 2
	}
	var log io.Writer = stderr
	if *quiet {
		log = nil
	}
	for _, name := range names {
		if err := experiments[name](ctx, *out, *quick, log); err != nil {
			fmt.Fprintf(stderr, "gpp-experiments: %s: %v\n", name, err)
			return 1
		}
	}
	return 0
}

// footballAUC scores the fit in args[0] (a gpp fit's --out folder) of the
// football example of examples/README.md: the AUC-ROC and AUC-PR of its
// posterior mean p_unknown against which held-out pairs are games, rebuilt
// from the shared football network by the example's split. The example's
// held-out file is found beside go.mod (examples/football_heldout.csv).
func footballAUC(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintf(stderr, "usage: gpp-experiments football-auc DIR\n\nDIR is the --out folder of\n"+
			"  gpp fit examples/epm.gpp links=examples/football_train.csv unknown=examples/football_heldout.csv --set N=115 ...\n")
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "gpp-experiments: football-auc: %v\n", err)
		return 1
	}
	root := shareddata.Root()
	if root == "" {
		return fail(fmt.Errorf("shared data folder not found: expected ../shared/data beside the repository (or set GPP_SHARED_DATA)"))
	}
	mod, err := modroot.Find()
	if err != nil {
		return fail(err)
	}
	sc, err := epm.ScoreFootball(args[0], filepath.Join(mod, "examples", "football_heldout.csv"), filepath.Join(root, "networks"))
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(stdout, "held-out pairs  %d (%d games)\nAUC-ROC         %.3f\nAUC-PR          %.3f\n", sc.Pairs, sc.Links, sc.AUCROC, sc.AUCPR)
	return 0
}
