package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/internal/textenc"
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
// name a size in sizes, with that many elements, to its labels
// (pipeline.LabelledAxes).
func labelAxes(vars []variable, info *check.Info, sizes map[string][]string) {
	for i := range vars {
		v := &vars[i]
		if axes := pipeline.LabelledAxes(info, sizes, v.name, v.output, v.shape); axes != nil {
			v.axes = axes
		}
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
	case !v.stanNames:
		return pipeline.LabelledName(v.name, v.shape, v.axes, k) // compile.ElemName's, with labels
	}
	idx := compile.Unravel(v.shape, k) // compile.StanName's, with labels
	parts := make([]string, len(idx))
	for a, i := range idx {
		if a < len(v.axes) && v.axes[a] != nil {
			parts[a] = textenc.QuoteLabel(v.axes[a][i])
		} else {
			parts[a] = strconv.Itoa(i + 1)
		}
	}
	return v.name + "[" + strings.Join(parts, ",") + "]"
}

// lookupElems finds what spec names among vars, as --params takes it: a
// variable by its name (every element, in vars' column order), or one
// element spelt any way gpp prints or writes it, spaces optional: the name
// the tables print (a_raw[Beta], z[grp00, 1]), the language's 0-based
// indices even on a labelled axis (a_raw[0], z[0, 1]), a label quoted as
// the tables quote it (z["A, B"]), or draws.csv's 1-based column (a_raw.1,
// z.1.2). A variable of a CmdStan CSV (stanNames) takes Stan's 1-based
// indices in brackets instead. It returns the variable and the row-major
// indices of the elements, or an error that names the closest printed name
// or the index's range.
func lookupElems(vars []variable, spec string) (*variable, []int, error) {
	s := strings.TrimSpace(spec)
	for i := range vars {
		if vars[i].name == s {
			return &vars[i], vars[i].elems, nil
		}
	}
	name, rest := s, ""
	if i := strings.IndexAny(s, ".["); i > 0 && !strings.HasSuffix(s, "__") {
		name, rest = strings.TrimSpace(s[:i]), strings.TrimSpace(s[i:])
	}
	var v *variable
	for i := range vars {
		if vars[i].name == name {
			v = &vars[i]
		}
	}
	if v == nil || rest == "" {
		return nil, nil, fmt.Errorf("the draws have no %s%s", s, suggestElem(vars, s))
	}
	var parts []string
	column := rest[0] == '.'
	switch {
	case column:
		parts = strings.Split(rest[1:], ".")
	case strings.HasSuffix(rest, "]"):
		parts = splitParams(rest[1 : len(rest)-1])
	default:
		return nil, nil, fmt.Errorf("%s is not an element's name: write %s%s", s, v.elemName(0), suggestElem(vars, s))
	}
	if len(v.shape) == 0 {
		return nil, nil, fmt.Errorf("%s is a scalar: name it %s, with no index", s, v.name)
	}
	if len(parts) != len(v.shape) {
		return nil, nil, fmt.Errorf("%s gives %s, but %s takes %d: its first element is %s", s, nIndices(len(parts)), v.name, len(v.shape), v.elemName(0))
	}
	idx := make([]int, len(parts))
	for a, p := range parts {
		i, err := v.axisIndex(a, strings.TrimSpace(p), column)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", s, err)
		}
		idx[a] = i
	}
	k := 0
	for a, i := range idx {
		k = k*v.shape[a] + i
	}
	return v, []int{k}, nil
}

// axisIndex is the 0-based index along axis a of v that p names: a label
// of a labelled axis (quoted or not; a label wins over a number it
// spells), else a number, 0-based (1-based in draws.csv's column, column,
// and in a CmdStan CSV's Stan names).
func (v *variable) axisIndex(a int, p string, column bool) (int, error) {
	n := v.shape[a]
	var labels []string
	if a < len(v.axes) {
		labels = v.axes[a]
	}
	if !column {
		label := p
		if strings.HasPrefix(p, `"`) {
			u, err := strconv.Unquote(p)
			if err != nil {
				return 0, fmt.Errorf("%s is not a quoted label", p)
			}
			label = u
		}
		if i := slices.Index(labels, label); i >= 0 {
			return i, nil
		}
		if label != p { // quoted: a label, never a number
			return 0, v.noLabel(a, label)
		}
	}
	i, err := strconv.Atoi(p)
	if err != nil {
		if column {
			return 0, fmt.Errorf("%q is not a column number: draws.csv names %s's elements %s", p, v.name, compile.CSVName(v.name, v.shape, 0)+", …")
		}
		return 0, v.noLabel(a, p)
	}
	lo, hi, note := 0, n, "indices are 0-based"
	switch {
	case column:
		lo, hi, note = 1, n+1, "draws.csv's columns are 1-based"
	case v.stanNames:
		lo, hi, note = 1, n+1, "this CmdStan CSV names elements by Stan's 1-based indices"
	}
	if i < lo || i >= hi {
		rng := fmt.Sprintf("[0, %d)", n)
		if lo == 1 {
			rng = fmt.Sprintf("[1, %d]", n)
		}
		return 0, fmt.Errorf("index %d out of range %s along axis %d of %s (%s)", i, rng, a, v.name, note)
	}
	return i - lo, nil
}

// noLabel is the error for p, which is neither a label of axis a of v nor
// a number.
func (v *variable) noLabel(a int, p string) error {
	if a >= len(v.axes) || v.axes[a] == nil {
		return fmt.Errorf("%q is not an index: axis %d of %s is numbered from %d", p, a, v.name, map[bool]int{false: 0, true: 1}[v.stanNames])
	}
	labels := v.axes[a]
	hint := ""
	if best := check.Suggest(p, labels); best != "" {
		hint = fmt.Sprintf("; did you mean %s?", textenc.QuoteLabel(best))
	}
	var shown []string // quoted as the tables quote them: "BLUE, EARTH" is one label
	for i, l := range labels {
		if i == 8 {
			shown = append(shown, "…")
			break
		}
		shown = append(shown, textenc.QuoteLabel(l))
	}
	return fmt.Errorf("axis %d of %s has no label %s%s (its labels: %s; or index it from 0)", a, v.name, textenc.QuoteLabel(p), hint, strings.Join(shown, ", "))
}

// suggestElem returns "; did you mean X?" for the printed name of an
// element or variable of vars closest to s, or "". Names are compared
// without their spaces (squeeze), which --params leaves optional.
func suggestElem(vars []variable, s string) string {
	var names []string
	printed := map[string]string{} // squeezed name → as printed
	add := func(name string) {
		names = append(names, squeeze(name))
		printed[squeeze(name)] = name
	}
	for i := range vars {
		v := &vars[i]
		add(v.name)
		if strings.ContainsAny(s, ".[") && !strings.HasSuffix(v.name, "__") {
			for _, k := range v.elems {
				add(v.elemName(k))
			}
		}
	}
	if best := check.Suggest(squeeze(s), names); best != "" && best != squeeze(s) {
		return "; did you mean " + printed[best] + "?"
	}
	return ""
}

// nIndices is "1 index" or "n indices".
func nIndices(n int) string {
	if n == 1 {
		return "1 index"
	}
	return strconv.Itoa(n) + " indices"
}

// latentNamer returns a function naming element k of the value name of
// the shape, one of m's latents, as elemName does, by the labels of l's data where they name an
// axis (nameByLabels; l nil: by number): for the tables of coordinates
// rather than of draws, gpp diagnose's and gpp logprob's header.
func latentNamer(m *compile.Model, l *pipeline.Loaded) func(name string, shape []int, k int) string {
	vars := make([]variable, len(m.Latents))
	for i, lat := range m.Latents {
		vars[i] = variable{name: lat.Name, shape: lat.Shape}
	}
	if l != nil {
		nameByLabels(vars, l)
	}
	byName := map[string]*variable{}
	for i := range vars {
		byName[vars[i].name] = &vars[i]
	}
	return func(name string, shape []int, k int) string {
		if v, ok := byName[name]; ok && slices.Equal(v.shape, shape) {
			return v.elemName(k)
		}
		return compile.ElemName(name, shape, k)
	}
}
