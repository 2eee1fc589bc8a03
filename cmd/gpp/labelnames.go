package main

import (
	"strconv"
	"strings"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/compile"
)

// nameByLabels names the elements of vars by the labels of the data's
// columns of labels, as ArviZ names them by PyMC's coords (a[AITKIN]):
// an axis of a param or output declared with a size that the labels gave
// (data.SizeLabels) has its elements named by label in the summaries,
// summary.csv and the forest plot. draws.csv, coords.csv and fit.json keep
// CmdStan's numbers, which gpp's readers parse.
func nameByLabels(vars []variable, l *pipeline.Loaded) {
	labelAxes(vars, l.Info, data.SizeLabels(l.Info, l.Data))
}

// labelAxes sets the axes of each variable of vars whose declared dims
// name a size in sizes, with that many elements, to its labels.
func labelAxes(vars []variable, info *check.Info, sizes map[string][]string) {
	if len(sizes) == 0 {
		return
	}
	dims := map[string]check.Shape{}
	for _, lat := range info.Latents {
		dims[lat.Name] = lat.Dims
	}
	outs := map[string]check.Shape{}
	for _, o := range info.Outputs {
		outs[o.Name] = o.Dims
	}
	for i := range vars {
		v := &vars[i]
		ds, ok := dims[v.name]
		if v.output {
			ds, ok = outs[v.name]
		}
		if !ok || len(ds) != len(v.shape) {
			continue
		}
		var axes [][]string
		for a, d := range ds {
			labels := sizes[d.Name]
			if d.Derived || labels == nil || len(labels) != v.shape[a] {
				continue
			}
			if axes == nil {
				axes = make([][]string, len(ds))
			}
			axes[a] = labels
		}
		v.axes = axes
	}
}

// savedAxes returns the labelled axes of vars by name (nil when none has
// any), which coords.csv and fit.json record beside draws.csv: gpp
// summary names a saved run's elements as the run named them.
func savedAxes(vars []variable) map[string][][]string {
	var out map[string][][]string
	for _, v := range vars {
		if v.axes == nil {
			continue
		}
		if out == nil {
			out = map[string][][]string{}
		}
		out[v.name] = v.axes
	}
	return out
}

// setSavedAxes gives each variable of vars the labelled axes saved for its
// name where they fit its shape (as many axes, each labelled one as long),
// and leaves the others named by number.
func setSavedAxes(vars []variable, saved map[string][][]string) {
	for i := range vars {
		v := &vars[i]
		axes, ok := saved[v.name]
		if !ok || len(axes) != len(v.shape) {
			continue
		}
		fits := true
		for a, labels := range axes {
			fits = fits && (labels == nil || len(labels) == v.shape[a])
		}
		if fits {
			v.axes = axes
		}
	}
}

// elemName names element k (row-major) of v as every table, summary and
// message does: the language's 0-based indices (compile.ElemName,
// "W[0, 1]"), or an axis's label where labelAxes gave it labels:
// z[AITKIN], b[AITKIN, 1]. A variable read from a CmdStan CSV (stanNames,
// a Stan model's draws, which gpp summary summarises as stansummary) is
// named by Stan's 1-based indices instead: W[1,2].
func (v *variable) elemName(k int) string {
	switch {
	case v.axes == nil && v.stanNames:
		return compile.StanName(v.name, v.shape, k)
	case v.axes == nil:
		return compile.ElemName(v.name, v.shape, k)
	}
	base, sep := 0, ", " // as compile.ElemName, with labels
	if v.stanNames {
		base, sep = 1, "," // as compile.StanName
	}
	idx := compile.Unravel(v.shape, k)
	parts := make([]string, len(idx))
	for a, i := range idx {
		if a < len(v.axes) && v.axes[a] != nil {
			parts[a] = quoteLabel(v.axes[a][i])
		} else {
			parts[a] = strconv.Itoa(i + base)
		}
	}
	return v.name + "[" + strings.Join(parts, sep) + "]"
}

// quoteLabel writes a label as a name's index: as it is, or quoted as a
// Go string ("A, B") when it holds a bracket, a comma or a quote, which
// would make the name ambiguous, space at an end, which would be lost, or
// a character that does not print (a line break, a tab, a bidi control
// that would reorder the table), which the quotes escape.
func quoteLabel(s string) string {
	if strings.ContainsAny(s, "[],\"") || strings.TrimSpace(s) != s || strings.ContainsFunc(s, func(r rune) bool { return !strconv.IsPrint(r) }) {
		return strconv.Quote(s)
	}
	return s
}
