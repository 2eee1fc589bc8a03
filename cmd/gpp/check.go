package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/parser"
)

// setFlags collects repeated --set NAME=VALUE flags.
type setFlags map[string]string

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
	s[name] = val
	return nil
}

// newFlagSet returns a flag set that reports errors to stderr and does not
// exit, with a usage line.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: gpp %s\n\nflags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args allowing flags after positional arguments (as in
// `gpp check model.gpp --set K=3`) and returns the positional arguments.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
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

// loadModel reads, parses and checks a model file. On failure it prints
// every error with its source line and returns false.
func loadModel(path string, overrides map[string]string, stderr io.Writer) (*ast.File, *check.Info, sources, bool) {
	src, err := os.ReadFile(path)
	if err != nil {
		errorf(stderr, "cannot read model: %v", err)
		return nil, nil, nil, false
	}
	srcs := sources{path: src}
	f, err := parser.ParseFile(path, src)
	if err != nil {
		printError(stderr, err, srcs)
		return nil, nil, srcs, false
	}
	info, err := check.Check(f, &check.Config{Overrides: overrides})
	if err != nil {
		printError(stderr, err, srcs)
		return f, nil, srcs, false
	}
	return f, info, srcs, true
}

func cmdCheck(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("check", "check [--set NAME=VALUE ...] model.gpp", stderr)
	sets := setFlags{}
	fs.Var(sets, "set", "override a constant, as `NAME=VALUE` (repeatable)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(pos) != 1 {
		errorf(stderr, "check takes exactly one model file, got %d arguments", len(pos))
		fs.Usage()
		return exitUsage
	}
	_, info, _, ok := loadModel(pos[0], sets, stderr)
	if !ok {
		return exitError
	}
	printSummary(stdout, pos[0], info)
	return exitOK
}

// printSummary writes what gpp check reports about a valid model.
func printSummary(w io.Writer, path string, info *check.Info) {
	fmt.Fprintf(w, "%s: ok\n", path)
	fmt.Fprintf(w, "\nlatents (%d):\n", len(info.Latents))
	t := &table{}
	t.row("  name", "shape", "support", "family", "prior")
	for _, l := range info.Latents {
		support, family := l.Support.String(), l.Family
		if l.Bounded() { // the factor is of the value on the base support
			support = l.Range().String()
			family = l.Family + " on " + l.Support.String()
		}
		t.row("  "+l.Name, shapeString(l.Dims), support, family, priorString(l))
	}
	t.print(w)
	fmt.Fprintf(w, "\ndata (%d):\n", len(info.Data))
	t = &table{}
	for _, d := range info.Data {
		t.row("  "+d.Name, d.TypeString(), d.Note())
	}
	t.print(w)
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
				t.row("  "+o.Name, shapeString(o.Dims), "replicate ~ "+o.Stmt.Dist.Fun.Name)
				continue
			}
			t.row("  "+o.Name, shapeString(o.Dims))
		}
		t.print(w)
	}
}

func shapeString(s check.Shape) string { return s.String() }

// priorString describes a latent's prior for gpp check.
func priorString(l *check.Latent) string {
	if l.Prior == nil {
		if len(l.Tildes) > 0 {
			return "from ~ statement(s)"
		}
		return "flat (improper) on the support"
	}
	s := ast.FormatExpr(l.Prior)
	if l.Truncated {
		s += " truncated to " + l.Range().String()
	}
	return s
}
