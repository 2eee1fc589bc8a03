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
// Flags: --out DIR (default docs/results for a whole run, a temporary
// folder for --quick or a partial one), --quick (a small smoke run),
// --quiet (no progress lines); a partial run of one experiment (a
// reviewer's check of one table row): --K, --splits, --methods, --n,
// --seeds, --iter (gpp-experiments --help says which experiment takes
// which).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

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

// subset is the flags that run part of an experiment: a reviewer's
// check of one table row instead of the whole grid (zero: the
// experiment's default).
type subset struct {
	ks      []int    // --K: truncation levels (epm, epm-nuts, pmf; gpfa-cytof's one K)
	splits  int      // --splits: splits (epm, epm-nuts, pmf)
	methods []string // --methods (epm, gpfa-synthetic, gpfa-cytof, pmf)
	ns      []int    // --n: sample sizes (gpfa-synthetic's N, gpfa-cytof's n)
	seeds   int      // --seeds: data sets per N (gpfa-synthetic)
	iter    int      // --iter: SGVB steps per fit (epm, gpfa-*, pmf)
}

// runConfig is what each experiment's runner is given.
type runConfig struct {
	out   string
	quick bool
	log   io.Writer
	sub   subset
}

// experiment is a runner and the subset flags it takes.
type experiment struct {
	run   func(ctx context.Context, c runConfig) error
	flags []string
}

// experiments maps a name to its runner.
var experiments = map[string]experiment{
	"epm": {func(ctx context.Context, c runConfig) error {
		ms, err := epmMethods(c.sub.methods)
		if err != nil {
			return err
		}
		_, err = epm.Run(ctx, epm.Options{Out: c.out, Quick: c.quick, Log: c.log, Ks: c.sub.ks, Splits: c.sub.splits, Methods: ms, Iterations: c.sub.iter})
		return err
	}, []string{"K", "splits", "methods", "iter"}},
	"epm-nuts": {func(ctx context.Context, c runConfig) error {
		_, err := epm.RunNUTS(ctx, epm.Options{Out: c.out, Quick: c.quick, Log: c.log, Ks: c.sub.ks, Splits: c.sub.splits})
		return err
	}, []string{"K", "splits"}},
	"optimizers": {func(ctx context.Context, c runConfig) error {
		_, err := epm.RunOptimizers(ctx, epm.Options{Out: c.out, Quick: c.quick, Log: c.log})
		return err
	}, nil},
	"gpfa-synthetic": {func(ctx context.Context, c runConfig) error {
		_, err := gpfa.RunSynthetic(ctx, gpfa.Options{Out: c.out, Quick: c.quick, Log: c.log, Ns: c.sub.ns, Seeds: c.sub.seeds, Methods: c.sub.methods, Iterations: c.sub.iter})
		return err
	}, []string{"n", "seeds", "methods", "iter"}},
	"gpfa-cytof": {func(ctx context.Context, c runConfig) error {
		o := gpfa.Options{Out: c.out, Quick: c.quick, Log: c.log, Ns: c.sub.ns, Methods: c.sub.methods, Iterations: c.sub.iter}
		if len(c.sub.ks) > 1 {
			return fmt.Errorf("--K: gpfa-cytof fits one K, not %d", len(c.sub.ks))
		}
		if len(c.sub.ks) == 1 {
			o.K = c.sub.ks[0]
		}
		_, err := gpfa.RunCyTOF(ctx, o)
		return err
	}, []string{"K", "n", "methods", "iter"}},
	"pmf": {func(ctx context.Context, c runConfig) error {
		_, err := pmf.Run(ctx, pmf.Options{Out: c.out, Quick: c.quick, Log: c.log, Ks: c.sub.ks, Splits: c.sub.splits, Methods: c.sub.methods, Iterations: c.sub.iter})
		return err
	}, []string{"K", "splits", "methods", "iter"}},
	"vi-nuts": {func(ctx context.Context, c runConfig) error {
		_, err := vinuts.Run(ctx, vinuts.Options{Out: c.out, Quick: c.quick, Log: c.log})
		return err
	}, nil},
}

// epmMethods parses --methods for the EPM experiment.
func epmMethods(names []string) ([]epm.Method, error) {
	var ms []epm.Method
	for _, n := range names {
		m, err := epm.ParseMethod(n)
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
	return ms, nil
}

var order = []string{"epm", "epm-nuts", "optimizers", "gpfa-synthetic", "gpfa-cytof", "pmf", "vi-nuts"}

// intList is a flag of comma-separated positive ints.
type intList struct{ v *[]int }

func (l intList) String() string {
	if l.v == nil {
		return ""
	}
	return strings.Trim(strings.Join(strings.Fields(fmt.Sprint(*l.v)), ","), "[]")
}

func (l intList) Set(s string) error {
	*l.v = nil
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return fmt.Errorf("%q is not a positive integer", f)
		}
		*l.v = append(*l.v, n)
	}
	return nil
}

// stringList is a flag of comma-separated names.
type stringList struct{ v *[]string }

func (l stringList) String() string {
	if l.v == nil {
		return ""
	}
	return strings.Join(*l.v, ",")
}

func (l stringList) Set(s string) error {
	*l.v = nil
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			*l.v = append(*l.v, f)
		}
	}
	return nil
}

// quickOut is the default --out of a --quick or partial run, which must
// not overwrite the committed results in docs/results.
func quickOut() string { return filepath.Join(os.TempDir(), "gpp-experiments") }

func run(ctx context.Context, args []string, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "football-auc" {
		return footballAUC(args[1:], os.Stdout, stderr)
	}
	fs := flag.NewFlagSet("gpp-experiments", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "output directory for CSV, PNG and Markdown results (default\ndocs/results of the repository for a whole run; for --quick or a\npartial run, "+quickOut()+", so that the committed results stay\nas they are)")
	quick := fs.Bool("quick", false, "a small smoke run instead of the full experiment")
	quiet := fs.Bool("quiet", false, "no progress lines")
	var sub subset
	fs.Var(intList{&sub.ks}, "K", "comma-separated truncation levels, e.g. 10 or 10,20\n(epm, epm-nuts, pmf; gpfa-cytof: one K)")
	fs.IntVar(&sub.splits, "splits", 0, "number of splits, seeds 0, 1, ... (epm, epm-nuts; pmf: seeds 1, 2, ...)")
	fs.Var(stringList{&sub.methods}, "methods", "comma-separated methods, as the results tables name them,\ne.g. gamma-implicit,lognormal (epm, gpfa-synthetic, gpfa-cytof, pmf)")
	fs.Var(intList{&sub.ns}, "n", "comma-separated sample sizes: N of gpfa-synthetic,\ntraining rows n of gpfa-cytof")
	fs.IntVar(&sub.seeds, "seeds", 0, "synthetic data sets per N, seeds 1, 2, ... (gpfa-synthetic)")
	fs.IntVar(&sub.iter, "iter", 0, "SGVB steps per fit (epm, gpfa-synthetic, gpfa-cytof, pmf)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: gpp-experiments [flags] EXPERIMENT\n       gpp-experiments football-auc DIR\n\nEXPERIMENT is epm, epm-nuts, optimizers, gpfa-synthetic, gpfa-cytof,\npmf, vi-nuts or all.\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	var given []string // the subset flags given
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "out" && f.Name != "quick" && f.Name != "quiet" {
			given = append(given, f.Name)
		}
	})
	for _, c := range []struct {
		name string
		n    int
	}{{"splits", sub.splits}, {"seeds", sub.seeds}, {"iter", sub.iter}} {
		// 0 or less would silently run the experiment's default
		if slices.Contains(given, c.name) && c.n <= 0 {
			fmt.Fprintf(stderr, "gpp-experiments: --%s %d: give a positive number\n", c.name, c.n)
			return 2
		}
	}
	names := []string{fs.Arg(0)}
	if names[0] == "all" {
		if len(given) > 0 {
			fmt.Fprintf(stderr, "gpp-experiments: --%s picks part of one experiment, not of all: name the experiment\n", given[0])
			return 2
		}
		names = order
	} else if _, ok := experiments[names[0]]; !ok {
		fmt.Fprintf(stderr, "gpp-experiments: unknown experiment %q\n", names[0])
		fs.Usage()
		return 2
	}
	for _, g := range given {
		if e := experiments[names[0]]; !slices.Contains(e.flags, g) {
			takes := "none of them"
			if len(e.flags) > 0 {
				takes = "--" + strings.Join(e.flags, ", --")
			}
			fmt.Fprintf(stderr, "gpp-experiments: --%s does not apply to %s (it takes %s)\n", g, names[0], takes)
			return 2
		}
	}
	if *out == "" {
		if *quick || len(given) > 0 {
			*out = quickOut()
		} else {
			root, err := modroot.Find()
			if err != nil {
				fmt.Fprintf(stderr, "gpp-experiments: %v (run it inside the repository, or give --out)\n", err)
				return 1
			}
			*out = filepath.Join(root, "docs", "results")
		}
	}
	var log io.Writer = stderr
	if *quiet {
		log = nil
	} else {
		fmt.Fprintf(stderr, "gpp-experiments: writing into %s\n", *out)
	}
	for _, name := range names {
		if err := experiments[name].run(ctx, runConfig{out: *out, quick: *quick, log: log, sub: sub}); err != nil {
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
