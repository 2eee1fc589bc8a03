package data

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpplang/gpp/internal/textenc"
	"github.com/gpplang/gpp/lang/check"
)

// Unused returns warnings about the data files of a successful Bind that
// look like mistakes: a column or key that names a param, const, let or
// output of the model (a value for something the fit estimates or computes,
// which is ignored), and a file that gives nothing the model reads (the
// wrong file, or a column misspelt). Other columns and keys are ignored
// silently, as CmdStan ignores the keys a model does not use.
func Unused(info *check.Info, inputs []Input) []string {
	matrix := false // a matrix declaration may take a whole CSV file
	for _, d := range info.Data {
		matrix = matrix || !d.Implicit && len(d.Dims) == 2
	}
	var warns []string
	for _, in := range inputs {
		if in.Name != "" {
			continue // NAME=FILE binds NAME
		}
		var names []string
		what := "keys"
		if in.Table != nil {
			what = "columns"
			for _, c := range in.Table.Columns {
				names = append(names, c.Name)
			}
		} else {
			for k := range in.JSON {
				names = append(names, k)
			}
			sort.Strings(names)
		}
		reads := in.Table != nil && matrix
		for _, n := range names {
			s := info.Lookup(n)
			switch {
			case info.DataVar(n) != nil:
				reads = true
			case s != nil && s.Kind != check.LoopVar:
				how := "it is ignored"
				if s.Kind == check.Const {
					how = "it is ignored (set a const with --set " + n + "=VALUE)"
				}
				warns = append(warns, fmt.Sprintf("%s: %s %q names %s of the model, not data: %s", in.File, strings.TrimSuffix(what, "s"), n, s.Kind.Phrase(), how))
			}
		}
		if !reads && len(names) > 0 {
			warns = append(warns, fmt.Sprintf("%s gives no data the model reads (its %s: %s)", in.File, what, listNames(names, 8)))
		}
	}
	return warns
}

// listNames joins up to limit names, with a count of the rest, their
// bidirectional controls escaped (textenc.EscapeBidi).
func listNames(names []string, limit int) string {
	if len(names) <= limit {
		return textenc.EscapeBidi(strings.Join(names, ", "))
	}
	return fmt.Sprintf("%s and %d more", textenc.EscapeBidi(strings.Join(names[:limit], ", ")), len(names)-limit)
}
