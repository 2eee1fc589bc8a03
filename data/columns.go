package data

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
)

// MatrixColumns returns, by declaration, the CSV column names that each
// matrix of a successful Bind was bound from, in order (X=train.csv:-y:
// x0, x1, ...): a fit records them so that gpp predict binds new data's
// columns by name (BindFitted), not by position. Nil when none was.
func MatrixColumns(info *check.Info, bound map[string]*Array) map[string][]string {
	var out map[string][]string
	for _, d := range info.Data {
		if a := bound[d.Name]; a != nil && len(d.Dims) == 2 && len(a.Shape) == 2 && len(a.Columns) == a.Shape[1] {
			if out == nil {
				out = map[string][]string{}
			}
			out[d.Name] = slices.Clone(a.Columns)
		}
	}
	return out
}

// ColumnNotes returns a note for each matrix of BindFitted whose columns
// were matched to the fit's by name (reordered, or some left out) or, as
// selected by name, bound by position to other names.
func ColumnNotes(info *check.Info, bound map[string]*Array) []string {
	var notes []string
	for _, d := range info.Data {
		if a := bound[d.Name]; a != nil && a.columnsNote != "" {
			notes = append(notes, a.columnsNote)
		}
	}
	return notes
}

// fitTable returns the table of t's columns that binds matrix d as the
// fit bound it (fitColumns): the columns of the fit's names in the fit's
// order, with a note when that is not t's own order. With selected (the
// user named the columns, X=FILE.csv:a,b,c) columns of other names bind
// by position, noted; otherwise a fit's column that t lacks is an error
// at t's header.
func (b *binder) fitTable(d *check.DataVar, t *Table, selected bool) (*Table, string, *ast.Error) {
	want := b.fitColumns[d.Name]
	if len(want) == 0 || len(d.Dims) != 2 {
		return t, "", nil
	}
	have := make([]string, len(t.Columns))
	for j, c := range t.Columns {
		have[j] = c.Name
	}
	if slices.Equal(have, want) {
		return t, "", nil
	}
	var missing, extra []string
	for _, n := range want {
		if !slices.Contains(have, n) {
			missing = append(missing, n)
		}
	}
	for _, n := range have {
		if !slices.Contains(want, n) {
			extra = append(extra, n)
		}
	}
	fitted := listColumns(want)
	if len(missing) == 0 {
		index := make([]int, len(want))
		for i, n := range want {
			index[i] = slices.Index(have, n)
		}
		note := fmt.Sprintf("%s: the columns of `%s` bound by name in the fit's order (%s), not in the file's (%s)", t.File, d.Name, fitted, listColumns(have))
		if len(extra) > 0 {
			note = fmt.Sprintf("%s: the columns of `%s` bound by name in the fit's order (%s); %s, which the fit did not bind, left out", t.File, d.Name, fitted, listColumns(extra))
		}
		return t.sub(index), note, nil
	}
	if selected && len(have) == len(want) {
		return t, fmt.Sprintf("%s: the columns selected (%s) bind the columns `%s` was fitted on (%s) by position, as selected, not by name", t.File, listColumns(have), d.Name, fitted), nil
	}
	what := "lack " + quoteList(missing)
	if len(extra) > 0 {
		what += " and have " + quoteList(extra) + ", which the fit did not bind"
	}
	pos := ast.Pos{File: t.File, Line: max(t.headerLine, 1), Col: 1}
	if len(extra) > 0 {
		pos = t.header(slices.Index(have, extra[0]))
	}
	return nil, "", ast.Errorf(pos, "`%s` was fitted on the columns %s, in that order, which bind new data by name; the columns of %s %s: name them as the fit's in the header (any order), or select the file's columns in the fit's order to bind them by position (%s=%s:%s)",
		d.Name, fitted, t.File, what, d.Name, t.File, strings.Join(guessColumns(want, missing, extra), ","))
}

// guessColumns lists a selection for the advice of fitTable: each of the
// fit's columns (want) by its own name where the file has it, else the
// file's next column that the fit lacks (extra), else its own name.
func guessColumns(want, missing, extra []string) []string {
	out := make([]string, len(want))
	for i, n := range want {
		out[i] = n
		if slices.Contains(missing, n) && len(extra) > 0 {
			out[i], extra = extra[0], extra[1:]
		}
	}
	return out
}

// quoteList quotes names for a message, the first 20 of more.
func quoteList(names []string) string {
	return listColumns(quoteAll(names))
}

// noteColumns marks a, bound from t, with fitTable's note.
func noteColumns(a *Array, note string) *Array {
	if note != "" {
		a.columnsNote = note
	}
	return a
}
