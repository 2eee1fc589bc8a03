package main

import (
	"io"
	"path/filepath"
	"strings"
)

// graphSynopsis is gpp graph's usage line.
const graphSynopsis = "graph [--set NAME=VALUE ...] [--out FILE.dot] model.gpp [data.csv|data.tsv|data.json|data.R|NAME=FILE ...]"

// graphHelpText is what gpp graph --help says before the flags.
const graphHelpText = `Prints the model's graph in Graphviz's DOT language, as PyMC's
model_to_graphviz draws one: params as ellipses (their prior and variational
family under the name), observed data as grey ellipses, other data as rounded
boxes, lets as boxes, outputs as dashed boxes, each target statement as an
octagon, an arrow from every quantity to what reads it, and quantities of one
shape in a plate labelled by its dims. Given the data files, which are bound and
checked as gpp check binds them, the plates show the sizes: N (234) × K (10).
Render it with Graphviz: gpp graph model.gpp | dot -Tpng -o model.png.
Exit 0 for a valid model, 1 for errors, 2 for a bad command line.
`

func cmdGraph(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("graph", graphSynopsis, graphHelpText, stderr)
	sets := setFlags{}
	fs.Var(sets, "set", "override a constant, as `NAME=VALUE` (repeatable)")
	// the graph does not depend on the order, but the data's warning of a
	// column of labels coded in byte order names --levels
	order := levelFlags{}
	fs.Var(order, "levels", levelsUsage)
	out := fs.String("out", "", "write the graph to `FILE` (.dot or .gv) instead of stdout")
	pos, code, ok := parseCommand(fs, args, stdout)
	if !ok {
		return code
	}
	if len(pos) == 0 {
		return usageError(stderr, "graph", graphSynopsis, "graph takes a model file and, optionally, its data files; got no arguments")
	}
	if *out != "" {
		if ext := strings.ToLower(filepath.Ext(*out)); ext != ".dot" && ext != ".gv" {
			return usageError(stderr, "graph", graphSynopsis, "--out %s: the graph is written as DOT, to a .dot or .gv file; for a picture pipe it into Graphviz: gpp graph %s | dot -Tpng -o model.png", *out, pos[0])
		}
	}
	l, ok := loadChecked(pos, sets, order, stderr)
	if !ok {
		return exitError
	}
	g := l.Graph()
	return writeOut(*out, stdout, stderr, g.WriteDOT)
}
