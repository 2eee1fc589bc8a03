package data

import (
	"cmp"
	"fmt"
	"iter"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/internal/onebased"
	"github.com/gpplang/gpp/internal/textenc"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
)

// Input is one data file given on the command line: a CSV table or a JSON
// object, bound by its column or key names, or — with Name set, as in
// `links=train.csv` — bound as a whole to the declaration of that name.
type Input struct {
	Name  string            // "" for a positional input
	File  string            // for messages
	Table *Table            // a CSV file (its selected columns, with Columns), or nil
	JSON  map[string]*Array // a JSON or R dump file (its names), or nil
	// Columns are the columns selected by NAME=FILE.csv:a,b (Table holds
	// only those, in that order), or nil for every column.
	Columns []string
}

// from describes a named input for messages: "wine.csv", or "columns
// "x1", "x2" of wine.csv".
func (in Input) from() string {
	switch len(in.Columns) {
	case 0:
		return in.File
	case 1:
		return fmt.Sprintf("column %q of %s", in.Columns[0], in.File)
	}
	return fmt.Sprintf("columns %s of %s", strings.Join(quoteAll(in.Columns), ", "), in.File)
}

// Bind matches the inputs and the --set values against the model's data
// declarations, checks element types, shapes, declared sizes, supports and
// bounds, and returns every data value and size name by name. A matrix
// declaration X takes a positional CSV file's columns X.1, X.2, ...
// (Table.Indexed), else every column of the one positional CSV file. Every
// problem is an error naming the data file, line and column and the
// declaration.
func Bind(info *check.Info, inputs []Input, sets map[string]string) (map[string]*Array, error) {
	b := bind(info, inputs, sets, false, nil, nil, nil, nil, nil)
	if err := b.errs.Err(); err != nil {
		return nil, err
	}
	return b.out, nil
}

// BindOrdered binds as Bind does, coding the column of labels that binds
// each declaration named in order by that order of its labels (label k is
// the int k from the declaration's lower bound), as R's factor(levels=)
// and pandas' Categorical(categories=) do, instead of sorting them (gpp's
// --levels): a label the order does not list is an error at its cell, and
// an order for a name that is no int vector coded from labels is an error.
func BindOrdered(info *check.Info, inputs []Input, sets map[string]string, order map[string][]string) (map[string]*Array, error) {
	b := bind(info, inputs, sets, false, nil, nil, order, nil, nil)
	if err := b.errs.Err(); err != nil {
		return nil, err
	}
	return b.out, nil
}

// BindPartial binds the data that the inputs and the --set values give, as
// Bind does, and returns the names of the declarations that none gives
// (missing) where Bind reports them: the REPL checks data as they arrive,
// before the rest of the model's data are loaded. Every problem of the data
// given is still an error. A matrix declaration with no source of its own
// is missing too, rather than taking every column of the one positional CSV
// file, since a file still to come may give it; a size that no data bind
// yet is missing. With missing empty, the data bound are Bind's.
func BindPartial(info *check.Info, inputs []Input, sets map[string]string) (bound map[string]*Array, missing []string, err error) {
	b := bind(info, inputs, sets, true, nil, nil, nil, nil, nil)
	if err := b.errs.Err(); err != nil {
		return nil, b.missing, err
	}
	return b.out, b.missing, nil
}

// BindOptional binds as Bind does, except that the declarations and size
// names in optional may be left unbound: one that no input gives is not an
// error, and is absent from the result. gpp predict binds new data this
// way, the observed values that only the likelihood reads (which it does
// not compile) being optional (compile.PredictReads). A size name that is
// not optional stays an error when only optional data would bind it. An
// optional matrix declaration takes every column of the one positional CSV
// file only when it is the one optional matrix left and nothing else was
// bound from that file.
func BindOptional(info *check.Info, inputs []Input, sets map[string]string, optional map[string]bool) (map[string]*Array, error) {
	b := bind(info, inputs, sets, false, optional, nil, nil, nil, nil)
	if err := b.errs.Err(); err != nil {
		return nil, err
	}
	return b.out, nil
}

// BindCoded binds as BindOptional does, for data given to a fit's model
// (gpp predict): a column of labels is coded as the fit coded the
// declaration it binds (fit holds its codings by declaration name), not
// by its own labels, of which a new data set may hold a few in another
// order. A label that the fit did not see, labels for a declaration that
// the fit did not code, and numbers for one it did, are errors. With
// optional not nil (gpp predict's new data), data that a ~ observes may
// have missing cells whatever its type, int counts too: predict fits
// nothing, so they are no discrete latent, and it draws them from the ~
// (compile.CompilePredictOptions says which it cannot). An int size that
// the fit bound from the largest value of numeric ids (sizes, by name:
// its CodeSizes), and that no input gives, is the fit's, or the largest
// value of the new ids + c where that is more (a group the fit did not
// see, which gpp predict --new-levels draws from the prior): new data
// holding a few of the groups do not make it smaller than the fit's
// params. Numeric ids bind no other size here.
func BindCoded(info *check.Info, inputs []Input, sets map[string]string, optional map[string]bool, fit map[string]Levels, sizes map[string]int) (map[string]*Array, error) {
	return BindFitted(info, inputs, sets, optional, fit, sizes, nil)
}

// BindFitted binds as BindCoded does, and binds each matrix that the fit
// bound from named CSV columns (columns, by declaration: MatrixColumns)
// from the new table's columns of those names, in the fit's order, so
// that a file whose columns are in another order is not bound by
// position. A table that lacks some of them is an error at its header
// naming the columns missing and extra and the fit's order, unless its
// columns were selected by name (X=FILE.csv:a,b,c), which binds them by
// position as the user ordered them (a note says so).
func BindFitted(info *check.Info, inputs []Input, sets map[string]string, optional map[string]bool, fit map[string]Levels, sizes map[string]int, columns map[string][]string) (map[string]*Array, error) {
	if fit == nil {
		fit = map[string]Levels{}
	}
	b := bind(info, inputs, sets, false, optional, fit, nil, sizes, columns)
	if err := b.errs.Err(); err != nil {
		return nil, err
	}
	return b.out, nil
}

// bind runs Bind, or BindPartial with partial set, or BindOptional, or
// BindCoded with fit and fitSizes set (BindFitted: fitColumns too), or
// BindOrdered with order set.
func bind(info *check.Info, inputs []Input, sets map[string]string, partial bool, optional map[string]bool, fit map[string]Levels, order map[string][]string, fitSizes map[string]int, fitColumns map[string][]string) *binder {
	b := &binder{info: info, inputs: inputs, sets: sets, out: map[string]*Array{}, sizes: map[string]sizeBinding{},
		whole: map[*Table][]*check.DataVar{}, named: map[*Table][]string{}, unread: map[string]bool{}, partial: partial,
		optional: optional, fitLevels: fit, order: order, raw: map[string]*Array{}, fitSizes: fitSizes, fitColumns: fitColumns}
	for _, in := range inputs {
		if in.Name != "" && info.DataVar(in.Name) == nil {
			b.errs.Add(ast.Pos{File: in.File}, "%s", b.noDataNamed(in.Name))
		}
	}
	var leftOut []*check.DataVar // optional matrices no input named
	// Every value is found before any is checked: the columns of labels
	// that index one axis are coded together (labelGroup).
	found := make([]*Array, len(info.Data))
	failed := make([]bool, len(info.Data)) // find reported an error
	for i, d := range info.Data {
		if d.Implicit {
			continue
		}
		n := len(b.errs)
		if a, ok := b.find(d); ok {
			found[i], b.raw[d.Name] = a, a
		}
		failed[i] = len(b.errs) > n
	}
	for i, d := range info.Data {
		if d.Implicit {
			continue
		}
		a := found[i]
		if a == nil {
			if b.optional[d.Name] && len(d.Dims) == 2 && b.errs.Err() == nil {
				leftOut = append(leftOut, d)
			}
			if failed[i] {
				// reported: its sizes are not also unbound
				for _, dim := range d.Dims {
					b.unread[dim.Name] = true
				}
			}
			b.skipSizes(d)
			continue
		}
		b.check(d, a)
	}
	b.optionalWhole(leftOut)
	b.checkWhole()
	b.bindInferred()
	// Size names and int data scalars used as sizes.
	for _, d := range info.Data {
		if !d.Implicit {
			continue
		}
		sz, ok := b.sizes[d.Name]
		if !ok && b.optional != nil && !b.optional[d.Name] {
			// BindOptional: the data that would bind it may be left
			// out, so that --set or a JSON key gives it
			sz, ok = b.givenSize(d.Name)
		}
		if !ok {
			switch {
			case b.unread[d.Name], b.optional[d.Name]:
			case b.partial:
				b.missing = append(b.missing, d.Name)
			default:
				b.errs.Add(d.Pos, "size %s (declared at %s) is not bound by any data", d.Name, d.Pos)
			}
			continue
		}
		b.checkSize(d, sz)
		b.out[d.Name] = &Array{Name: d.Name, Values: []float64{float64(sz.n)}, Int: true, Pos: sz.pos, sizeFrom: sz.from}
	}
	b.emptyColumns()
	b.orderUnused()
	b.errs.Sort()
	return b
}

// orderUnused reports each order of labels (BindOrdered) given for a name
// that no column of labels bound: a misspelt name or numbers would
// otherwise leave the order silently unused.
func (b *binder) orderUnused() {
	names := make([]string, 0, len(b.order))
	for name := range b.order {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		d := b.info.DataVar(name)
		switch a := b.out[name]; {
		case d == nil || d.Implicit:
			b.errs.Add(ast.Pos{File: "--levels"}, "%s", b.noDataNamed(name))
		case a != nil && a.Levels == nil && !a.rowless():
			b.errs.Add(a.Pos, "--levels %s: `%s` is given as numbers, not labels: its codes are the numbers, so no order of labels applies", name, name)
		}
	}
}

// emptyMatrix is a matrix given as [] whose column count waits for the
// sizes: a.Shape is [0, -1] until emptyColumns sets it.
type emptyMatrix struct {
	d *check.DataVar
	a *Array
}

// emptyColumns gives each matrix given as [] its declared column count,
// from a constant or a size the other data bind.
func (b *binder) emptyColumns() {
	for _, e := range b.empty {
		dim := e.d.Dims[1]
		sz, ok := b.sizes[dim.Name]
		errs := len(b.errs)
		if !ok && !dim.Derived && !dim.Known() {
			sz, ok = b.givenSize(dim.Name)
		}
		switch {
		case len(b.errs) > errs: // givenSize said why
		case dim.Known():
			e.a.Shape[1] = dim.N
		case !ok && !dim.Derived && b.partial:
			b.missing = append(b.missing, dim.Name)
		case ok && !dim.Derived && sz.n < 0:
			b.errs.Add(sz.pos, "%s is %d: a size must be 0 or more (the columns of %s)", dim.Name, sz.n, e.a.Name)
		case ok && !dim.Derived:
			e.a.Shape[1] = sz.n
		default:
			b.errs.Add(e.a.Pos, "%s is [] (no rows), and its column count %s is not given by other data; give %s", e.a.Name, dim.Name, dim.Name)
		}
	}
}

// given returns the values that JSON keys and --set give for size name d,
// which the data do not read (checkSize compares them with the size the
// data bound). A --set value that is not a number is the error.
func (b *binder) given(d *check.DataVar) ([]*Array, *ast.Error) {
	var given []*Array
	for _, in := range b.inputs {
		if a, ok := in.JSON[d.Name]; ok && in.Name == "" {
			given = append(given, a)
		}
	}
	if v, ok := b.sets[d.Name]; ok {
		a, err := setValue(d, v)
		if err != nil {
			return nil, err
		}
		given = append(given, a)
	}
	return given, nil
}

// givenSize is the value of size name n given only as a JSON key or by
// --set (an empty matrix binds none of its sizes), recorded as bound.
func (b *binder) givenSize(n string) (sizeBinding, bool) {
	d := b.info.DataVar(n)
	if d == nil {
		return sizeBinding{}, false
	}
	given, err := b.given(d)
	if err != nil {
		b.errs = append(b.errs, err)
		return sizeBinding{}, false
	}
	if len(given) == 0 {
		return sizeBinding{}, false
	}
	a := given[0]
	if a.problem() != nil || len(a.Shape) != 0 && !a.rLength1 || !a.Int {
		return sizeBinding{}, false
	}
	sz := sizeBinding{n: int(a.Values[0]), pos: a.Pos, what: n}
	b.sizes[n] = sz
	b.out[n] = &Array{Name: n, Values: []float64{a.Values[0]}, Int: true, Pos: a.Pos}
	return sz, true
}

type sizeBinding struct {
	n    int
	pos  ast.Pos // where the size was read
	what string  // e.g. "axis 0 of Y"
	from string  // for a size bound by a shape, its source: "the rows of teachers.csv"
}

// sizeFrom says where axis axis of d's value a, which binds a size, came
// from, for errors that show the size: "the rows of teachers.csv" for a
// CSV file's rows, "the columns of X in x.csv", or "the length of
// `tschool` in d.json".
func (b *binder) sizeFrom(d *check.DataVar, a *Array, axis int) string {
	file := a.Pos.File
	if file == "" {
		return ""
	}
	for _, in := range b.inputs {
		if in.Table == nil || in.Table.File != file {
			continue
		}
		if axis == 0 && axis < len(a.Shape) && a.Shape[0] == in.Table.Rows {
			return "the rows of " + file
		}
		return fmt.Sprintf("the columns of `%s` in %s", d.Name, file) // a matrix's, or a vector's from x.1, x.2, ...
	}
	if len(d.Dims) == 1 {
		return fmt.Sprintf("the length of `%s` in %s", d.Name, file)
	}
	return fmt.Sprintf("axis %d of `%s` in %s", axis, d.Name, file)
}

type binder struct {
	info   *check.Info
	inputs []Input
	sets   map[string]string
	out    map[string]*Array
	sizes  map[string]sizeBinding
	errs   ast.ErrorList
	// whole lists the matrix declarations that take every column of a
	// positional CSV file, named its columns bound by name.
	whole map[*Table][]*check.DataVar
	named map[*Table][]string
	empty []emptyMatrix
	// partial is set by BindPartial: a declaration that no input gives is
	// added to missing, not reported.
	partial bool
	missing []string
	// optional holds the names that BindOptional may leave unbound.
	optional map[string]bool
	// inferred lists the int scalars declared as data, used as sizes of
	// other data and given by no input: bindInferred takes their values
	// from those data's shapes, as Stan users' `data N: int` expects.
	inferred []*check.DataVar
	// unread holds the size names of declarations whose value was not
	// bound for an error already reported (missing, unreadable, of the
	// wrong rank): they are not also reported as unbound.
	unread map[string]bool
	// fitLevels holds the fit's codings of columns of labels, by
	// declaration, for BindCoded: not nil, a column of labels is coded
	// as the fit coded it, and numbers for one it coded are an error.
	fitLevels map[string]Levels
	// fitSizes holds the sizes that the fit bound from the largest value
	// of numeric ids (CodeSizes), by name, for BindCoded: boundByCodes
	// binds no smaller one.
	fitSizes map[string]int
	// order holds the orders of labels given for declarations (--levels),
	// for BindOrdered.
	order map[string][]string
	// raw holds each declaration's value as found, before it is checked:
	// the columns of labels of a group (labelGroup) are coded from all of
	// theirs.
	raw map[string]*Array
	// fitColumns holds the CSV columns each matrix was fitted on, in
	// order, by declaration (BindFitted): a new table's columns bind by
	// those names (fitTable).
	fitColumns map[string][]string
}

// drawsMissing reports whether observed data may have missing cells that
// the model does not fit: gpp predict's new data, which it draws
// (BindCoded with optional).
func (b *binder) drawsMissing() bool { return b.optional != nil && b.fitLevels != nil }

// noDataNamed says that the model declares no data of the name, and
// which it declares.
func (b *binder) noDataNamed(name string) string {
	msg := "the model has no data named " + strconv.Quote(name)
	if names := b.declNames(); len(names) > 0 {
		msg += " (it declares " + strings.Join(names, ", ") + ")"
	}
	return msg
}

func (b *binder) declNames() []string {
	var names []string
	for _, d := range b.info.Data {
		if !d.Implicit {
			names = append(names, d.Name)
		}
	}
	return names
}

// candidate is one place a declaration's value could come from.
type candidate struct {
	a    *Array
	from string
}

// find locates the value of d among the inputs.
func (b *binder) find(d *check.DataVar) (*Array, bool) {
	var cands []candidate
	var positional []*Table
	for _, in := range b.inputs {
		switch {
		case in.Name == d.Name && in.Table != nil && in.Columns != nil && len(d.Dims) == 2 && d.Dims[1].Known() && len(in.Columns) != d.Dims[1].N:
			// said at the selection, not as a row of the file that "has" too few columns
			b.errs.Add(ast.Pos{File: in.File, Line: in.Table.headerLine, Col: 1}, "%s=%s:%s selects %d column%s, but `%s` is declared %s at %s: select %d", d.Name, in.File, strings.Join(in.Columns, ","), len(in.Columns), plural(len(in.Columns)), d.Name, d.TypeString(), d.Pos, d.Dims[1].N)
			return nil, false
		case in.Name == d.Name && in.Table != nil:
			_, excluded := ExcludedColumns(in.Columns)
			t, note, err := b.fitTable(d, in.Table, in.Columns != nil && !excluded)
			var a *Array
			if err == nil {
				a, err = tableFor(d, t)
			}
			if err != nil {
				b.errs = append(b.errs, err)
				return nil, false
			}
			cands = append(cands, candidate{noteColumns(a, note), in.from()})
		case in.Name == d.Name && in.JSON != nil:
			b.errs.Add(ast.Pos{File: in.File}, "%s=%s: a JSON or R dump file is bound by its names; give it without the name", d.Name, in.File)
			return nil, false
		case in.Name == "" && in.Table != nil:
			positional = append(positional, in.Table)
			c := in.Table.Column(d.Name)
			var cols *Table
			var names []string
			if len(d.Dims) == 1 || len(d.Dims) == 2 {
				var err *ast.Error
				if cols, names, err = in.Table.Indexed(d.Name, len(d.Dims) == 1); err != nil {
					b.errs = append(b.errs, err)
					return nil, false
				}
			}
			what := "columns"
			if len(d.Dims) == 1 {
				what = "elements"
			}
			switch {
			case c != nil && cols != nil:
				j := slices.Index(in.Table.Columns, c)
				b.errs.Add(in.Table.header(j), "the header has both a column %q and columns %s numbering the %s of `%s` (declared %s at %s): rename one, or select with %s=%s:COL1,COL2", d.Name, spanNames(names), what, d.Name, d.TypeString(), d.Pos, d.Name, in.File)
				return nil, false
			case cols != nil && len(d.Dims) == 1:
				// x.1, x.2, ... (or x[1], ...) of a file of one row, as R
				// writes a vector as a wide row: the elements of vector x
				if cols.Rows != 1 {
					b.errs.Add(in.Table.header(slices.Index(in.Table.Columns, cols.Columns[0])), "columns %s number the elements of `%s` (declared %s at %s), a vector, which takes them from a file of one row; %s has %d rows: a column %q of one value per row, or a matrix declaration, reads them", spanNames(names), d.Name, d.TypeString(), d.Pos, in.File, cols.Rows, d.Name)
					return nil, false
				}
				v := cols.Matrix(d.Name)
				v.Shape = []int{len(names)}
				cands = append(cands, candidate{v, fmt.Sprintf("columns %s of %s", spanNames(names), in.File)})
				b.named[in.Table] = append(b.named[in.Table], names...)
			case cols != nil:
				// X.1, X.2, ... (or X[1], ...): the columns of matrix X
				cands = append(cands, candidate{cols.Matrix(d.Name), fmt.Sprintf("columns %s of %s", spanNames(names), in.File)})
				b.named[in.Table] = append(b.named[in.Table], names...)
			case c != nil:
				cands = append(cands, candidate{c, fmt.Sprintf("column %q of %s", d.Name, in.File)})
				b.named[in.Table] = append(b.named[in.Table], d.Name)
			}
		case in.Name == "" && in.JSON != nil:
			if a, ok := in.JSON[d.Name]; ok {
				cands = append(cands, candidate{a, fmt.Sprintf("key %q of %s", d.Name, in.File)})
			}
		}
	}
	if v, ok := b.sets[d.Name]; ok {
		a, err := setValue(d, v)
		if err != nil {
			b.errs = append(b.errs, err)
			return nil, false
		}
		cands = append(cands, candidate{a, "--set " + d.Name + "=" + v})
	}
	// A matrix declaration with no source of its own takes every column of
	// the one positional CSV file.
	if len(cands) == 0 && len(d.Dims) == 2 && len(positional) == 1 && !b.partial && !b.optional[d.Name] {
		t, note, err := b.fitTable(d, positional[0], false)
		if err != nil {
			b.errs = append(b.errs, err)
			return nil, false
		}
		cands = append(cands, candidate{noteColumns(t.Matrix(d.Name), note), "all columns of " + positional[0].File})
		b.whole[positional[0]] = append(b.whole[positional[0]], d)
	}
	switch len(cands) {
	case 0:
		if b.optional[d.Name] {
			return nil, false
		}
		if e, _ := b.labelBounded(d, nil); b.sizesData(d) || e != nil {
			b.inferred = append(b.inferred, d) // bound from the data it sizes or the labels it bounds, or reported then
			return nil, false
		}
		if b.partial {
			b.missing = append(b.missing, d.Name)
			return nil, false
		}
		b.errs.Add(d.Pos, "no data for `%s` (%s): expected %s", d.Name, d.TypeString(), b.expected(d))
		return nil, false
	case 1:
		return cands[0].a, true
	}
	var froms []string
	for _, c := range cands {
		froms = append(froms, c.from)
	}
	b.errs.Add(d.Pos, "data `%s` is given more than once: %s", d.Name, strings.Join(froms, "; "))
	return nil, false
}

// sizesData reports whether d is an int scalar that sizes an axis of
// another data declaration, so that the data can bind it.
func (b *binder) sizesData(d *check.DataVar) bool {
	if len(d.Dims) != 0 || d.Elem != check.Int {
		return false
	}
	for _, o := range b.info.Data {
		for _, dim := range o.Dims {
			if !dim.Known() && !dim.Derived && dim.Name == d.Name {
				return true
			}
		}
	}
	return false
}

// bindInferred binds each int scalar that no input gave to the size its
// data bound, checked against its declared support and bounds.
func (b *binder) bindInferred() {
	for _, d := range b.inferred {
		sz, ok := b.sizes[d.Name]
		if !ok && (b.boundByLabels(d) || b.boundByCodes(d)) {
			continue
		}
		if !ok {
			switch {
			case b.unread[d.Name], b.optional[d.Name]:
			case b.partial:
				b.missing = append(b.missing, d.Name)
			case b.idsFailed(d):
				// the error of the ids that would have given it (boundByCodes) says why
			case !b.sizesData(d):
				why := ""
				switch e, _ := b.labelBounded(d, nil); {
				case b.out[e.Name] == nil:
				case b.fitLevels != nil && b.out[e.Name].Levels == nil:
					// new data's ids, a few of the groups, are no count of them
					why = fmt.Sprintf(" (the ids of `%s` give no size for a fit's model: the fit recorded none)", e.Name)
				case e.Observed && b.out[e.Name].Levels == nil:
					why = fmt.Sprintf(" (`%s`, declared with upper=%s, is the value of a ~, whose largest value is not its number of categories: a category may go unobserved)", e.Name, ast.FormatExpr(e.UpperExpr))
				default:
					why = fmt.Sprintf(" (`%s`, declared with upper=%s, would give it by its labels' count or its largest value, but holds no value)", e.Name, ast.FormatExpr(e.UpperExpr))
				}
				b.errs.Add(d.Pos, "no data for `%s` (%s)%s: expected %s", d.Name, d.TypeString(), why, b.expected(d))
			default:
				b.errs.Add(d.Pos, "no data for `%s` (%s): expected %s, or data that it sizes", d.Name, d.TypeString(), b.expected(d))
			}
			continue
		}
		a := &Array{Name: d.Name, Values: []float64{float64(sz.n)}, Int: true, Pos: sz.pos, sizeFrom: sz.from}
		if b.checkValues(d, a, fmt.Sprintf("`%s`, the number of %s, is declared %s at %s", d.Name, sz.what, d.TypeString(), d.Pos)) {
			b.out[d.Name] = a
		}
	}
}

// idsFailed reports whether int vector data that would give int scalar d
// by their largest value (boundByCodes: bounded above by d, observed by no
// ~) were given but are in error, so that d, left unbound, is no second
// error.
func (b *binder) idsFailed(d *check.DataVar) bool {
	if b.errs.Err() == nil {
		return false
	}
	for _, e := range b.info.Data {
		if e.Elem != check.Int || len(e.Dims) != 1 || e.Observed {
			continue
		}
		if name, _ := sizeBound(e); name == d.Name && b.raw[e.Name] != nil && b.out[e.Name] == nil {
			return true
		}
	}
	return false
}

// labelBounded returns the first int vector data declaration (of those
// that keep reports true for, every one when keep is nil) whose upper
// bound is int scalar d, or d − c for an int literal c, with c: Stan's
// `array[N] int<lower=1, upper=J> county`, whose labels, when the data give
// them, also give J (boundByLabels). nil if there is none.
func (b *binder) labelBounded(d *check.DataVar, keep func(*check.DataVar) bool) (*check.DataVar, int) {
	if len(d.Dims) != 0 || d.Elem != check.Int {
		return nil, 0
	}
	for _, e := range b.info.Data {
		if e.Elem != check.Int || len(e.Dims) != 1 || e.UpperExpr == nil {
			continue
		}
		if name, c := sizeBound(e); name == d.Name && (keep == nil || keep(e)) {
			return e, c
		}
	}
	return nil, 0
}

// sizeBound matches d's upper bound against a size J alone (c = 0) or
// J − c for an int literal c, parentheses allowed, and returns J and c;
// J is "" for any other bound, and when d's bounds are per element (an
// int vector bounded by an int vector of data, which no labels give).
func sizeBound(d *check.DataVar) (name string, c int) {
	if d.ElemBounds {
		return "", 0
	}
	x := d.UpperExpr
	sub := false
	for {
		switch y := x.(type) {
		case *ast.ParenExpr:
			x = y.X
		case *ast.Ident:
			return y.Name, c
		case *ast.BinaryExpr:
			n, isNum := y.Y.(*ast.NumberLit)
			if sub || y.Op != ast.Sub || !isNum || !n.IsInt || n.Value != math.Trunc(n.Value) || math.Abs(n.Value) > 1e9 {
				return "", 0
			}
			sub, c, x = true, int(n.Value), y.X
		default:
			return "", 0
		}
	}
}

// boundByLabels binds int scalar d, which no input gave, from the column
// of labels coded for the declaration whose upper bound it is
// (labelBounded; the first of them with labels): with upper=J (or J − c) the labels' largest code
// First + L − 1 is J (or J − c), so J is the number of labels under
// Stan's lower=1, upper=J and under lower=0, upper=J-1. The coding
// records it for its note. It reports whether it bound d.
func (b *binder) boundByLabels(d *check.DataVar) bool {
	// the first such declaration with labels: a poll's column of no rows
	// leaves the census's to give the size
	e, c := b.labelBounded(d, func(x *check.DataVar) bool {
		xa := b.out[x.Name]
		return xa != nil && xa.Levels != nil && len(xa.Levels.Labels) > 0
	})
	if e == nil {
		return false
	}
	a := b.out[e.Name]
	lv := a.Levels
	v := lv.First + len(lv.Labels) - 1 + c
	j := &Array{Name: d.Name, Values: []float64{float64(v)}, Int: true, Pos: a.Pos}
	if b.checkValues(d, j, fmt.Sprintf("`%s`, from the %d labels of column %q (`%s` is declared with upper=%s at %s), is declared %s at %s", d.Name, len(lv.Labels), lv.Column, e.Name, ast.FormatExpr(e.UpperExpr), e.Pos, d.TypeString(), d.Pos)) {
		b.out[d.Name] = j
		lv.Bounds = append(lv.Bounds, fmt.Sprintf("%s = %d", d.Name, v))
		lv.Sizes = append(lv.Sizes, d.Name)
	}
	return true
}

// boundByCodes binds int scalar d, which no input gave and no labels
// bound, from the int vectors of numbers whose declarations it bounds
// above (upper=S, or S − c for an int literal c; sizeBound): S is the
// largest code + c over them, so that numeric group ids 0..19 under
// lower=0, upper=S-1 give S = 20, as Stan's 1-based ids 1..20 under
// upper=S do, and brms counts the groups of a numeric id column. The
// value keeps the note that says so (LevelNotes), naming the codes in
// range that no row holds (their groups are fitted from the prior) and
// ids that look 1-based; ids of which more codes in range have no rows
// than have some (subject numbers 101..150, a huge id) are an error, as
// are, past a fit's S (BindCoded), more empty new codes than the fit has
// groups. For BindCoded, S is the fit's (fitSizes) unless the new ids
// reach past it, and is not bound from ids where the fit recorded none.
// It reports whether it bound d.
func (b *binder) boundByCodes(d *check.DataVar) bool {
	if len(d.Dims) != 0 || d.Elem != check.Int {
		return false
	}
	type column struct {
		e      *check.DataVar
		a      *Array
		c, hi  int
		lo, nv int // the least value and the number of values
	}
	var cols []column
	best := -1
	for _, e := range b.info.Data {
		if e.Elem != check.Int || len(e.Dims) != 1 || e.UpperExpr == nil {
			continue
		}
		name, c := sizeBound(e)
		a := b.out[e.Name]
		if name != d.Name || a == nil || a.Levels != nil || e.Observed {
			// an outcome's largest value is no count of its categories,
			// whose top ones may go unobserved (a rating scale's 5)
			continue
		}
		lo, hi, nv, ok := onebased.Range(a.Values)
		if !ok {
			continue
		}
		cols = append(cols, column{e, a, c, hi, lo, nv})
		if k := len(cols) - 1; best < 0 || hi+c > cols[best].hi+cols[best].c {
			best = k
		}
	}
	fitN, fitted := b.fitSizes[d.Name]
	if best < 0 && !fitted || b.fitLevels != nil && !fitted {
		// new data given to a fit that did not bind S so (it was given,
		// or the fit is older): the new ids, a few of the groups, are
		// not its count, and no data for S says the fit's --set
		return false
	}
	if best < 0 || fitted && cols[best].hi+cols[best].c <= fitN {
		// new data holding a few of the fit's groups, or none: the fit's
		// params are of its size
		j := &Array{Name: d.Name, Values: []float64{float64(fitN)}, Int: true}
		note := fmt.Sprintf("%s = %d from the fit (the largest value of its ids", d.Name, fitN)
		if best >= 0 {
			w := cols[best]
			j.Pos = w.a.Pos
			note = fmt.Sprintf("%s: %s; here %s's is %d", w.a.Pos.File, note, w.e.Name, w.hi)
		}
		j.codesNote = note + ")"
		b.out[d.Name] = j
		return true
	}
	w := cols[best]
	v := w.hi + w.c
	from := fmt.Sprintf("the largest value of %s (%d)", w.e.Name, w.hi)
	if w.c != 0 {
		from += fmt.Sprintf(" + %d", w.c)
	}
	j := &Array{Name: d.Name, Values: []float64{float64(v)}, Int: true, Pos: w.a.Pos}
	if !b.checkValues(d, j, fmt.Sprintf("`%s`, %s (`%s` is declared with upper=%s at %s), is declared %s at %s", d.Name, from, w.e.Name, ast.FormatExpr(w.e.UpperExpr), w.e.Pos, d.TypeString(), d.Pos)) {
		return true
	}
	note := fmt.Sprintf("%s: %s = %d from %s", w.a.Pos.File, d.Name, v, from)
	var others []string
	held := map[int]bool{}
	for _, col := range cols {
		if col.e != w.e {
			others = append(others, fmt.Sprintf("%s's is %d", col.e.Name, col.hi))
		}
		col.a.holdCodes(held)
	}
	lo := w.lo
	if w.e.Lower != nil {
		lo = int(*w.e.Lower)
	}
	if fitted { // ids the fit did not see: new groups (gpp predict --new-levels)
		lo = fitN - w.c + 1
	}
	inRange := 0
	for k := range held {
		if k >= lo && k <= v-w.c {
			inRange++
		}
	}
	most := inRange // of the new groups past a fit's, as many as the fit has
	if fitted {
		most = max(inRange, fitN)
	}
	if span := v - w.c - lo + 1; span-inRange > most {
		// more groups without rows than with: ids that are no codes
		// (subject numbers 101..150), whose S would fit mostly the prior
		// and could be too large to lay out
		k := slices.Index(w.a.Values, float64(w.hi))
		b.errs.Add(w.a.Locate(k), "%s: %s would be %d from %s, but %d of the %d codes from %d have no rows: %s is read as group codes %d to %s, each its own element; recode it to the %d ids it holds, write them as text (s101) to code them as labels, or give %s (--set %s=N) to keep these codes",
			w.e.Name, d.Name, v, from, span-inRange, span, lo, w.e.Name, lo, ast.FormatExpr(w.e.UpperExpr), len(held), d.Name, d.Name)
		return true
	}
	if fitted {
		j.codesNote = fmt.Sprintf("%s, above the fit's %d: the groups after its are new", note, fitN)
		b.out[d.Name] = j
		return true
	}
	if len(others) > 0 {
		note += " (" + strings.Join(others, ", ") + ")"
	}
	empty, nEmpty := emptyCodes(held, lo, v-w.c)
	// 0-based codes that run 1..max, each held, with no 0 are Stan's
	// 1-based ids: S is then one too many, its group 0 fitted from the
	// prior alone.
	oneBased := w.e.Lower != nil && *w.e.Lower == 0 && w.c == 1 && nEmpty == 1 && empty[0] == 0 && onebased.Is(w.lo, w.hi, w.nv, w.hi)
	if nEmpty > 0 {
		var ids []string
		for _, col := range cols {
			ids = append(ids, col.e.Name)
		}
		note += "; " + noRows(strings.Join(ids, " or "), empty, nEmpty)
		if !oneBased {
			// groups without rows in range: there may be more past
			// the largest id, which no value shows
			note += fmt.Sprintf("; give %s if there are groups past code %d too", d.Name, v-w.c)
		}
	}
	if oneBased {
		note += "; " + oneBasedAdvice(w.e.Name, onebased.Span(w.lo, w.hi), d.Name)
	}
	j.codesNote = note
	b.out[d.Name] = j
	return true
}

// holdCodes adds to held the codes a's cells hold, its missing cells left
// out.
func (a *Array) holdCodes(held map[int]bool) {
	for i, x := range a.Values {
		if !a.isMissing(i) {
			held[int(x)] = true
		}
	}
}

// noRowsMost is how many of the codes without rows a note lists.
const noRowsMost = 5

// emptyCodes returns the first noRowsMost of the codes lo … hi that held
// lacks, in order, and how many it lacks in all, in O(len(held)) however
// wide the range: a size given as 3·10⁸ over twenty ids once built a list
// of every empty code (10 GB).
func emptyCodes(held map[int]bool, lo, hi int) (first []int, n int) {
	if hi < lo {
		return nil, 0
	}
	n = hi - lo + 1
	for k := range held {
		if k >= lo && k <= hi {
			n--
		}
	}
	for k := lo; k <= hi && len(first) < min(n, noRowsMost); k++ {
		if !held[k] {
			first = append(first, k)
		}
	}
	return first, n
}

// noRows says which codes of group index ids no row holds, n of them,
// codes the first few (emptyCodes): "codes 3, 7 have no rows: terms indexed by subj say nothing of
// their groups". Another term may (a Poisson factorisation's sum over
// every cell reads users whose counts are all 0), so it does not say
// they are fitted from the prior.
func noRows(ids string, codes []int, n int) string {
	if n == 1 {
		return fmt.Sprintf("code %d has no rows: terms indexed by %s say nothing of its group", codes[0], ids)
	}
	var parts []string
	for _, k := range codes {
		parts = append(parts, strconv.Itoa(k))
	}
	if n > len(codes) {
		parts = append(parts, fmt.Sprintf("… (%d in all)", n))
	}
	return fmt.Sprintf("codes %s have no rows: terms indexed by %s say nothing of their groups", strings.Join(parts, ", "), ids)
}

// optionalWhole gives the one optional matrix declaration that BindOptional
// left unbound every column of the one positional CSV file, as Bind gives a
// matrix, when no other declaration took anything from that file: gpp
// predict on the fit's own data (gpfa's Y from wine_std.csv) then binds the
// sizes the params need (D) as the fit did, while a file of new covariates
// bound by name is not also taken whole.
func (b *binder) optionalWhole(leftOut []*check.DataVar) {
	if len(leftOut) != 1 {
		return
	}
	var positional []*Table
	for _, in := range b.inputs {
		if in.Name == "" && in.Table != nil {
			positional = append(positional, in.Table)
		}
	}
	if len(positional) != 1 {
		return
	}
	t, d := positional[0], leftOut[0]
	if len(b.named[t]) > 0 || len(b.whole[t]) > 0 {
		return
	}
	b.whole[t] = append(b.whole[t], d)
	ft, note, err := b.fitTable(d, t, false)
	if err != nil {
		b.errs = append(b.errs, err)
		return
	}
	b.check(d, noteColumns(ft.Matrix(d.Name), note))
}

// checkWhole reports a positional CSV file whose every column a matrix
// declaration takes while another declaration takes some of them too:
// two matrices taking the same file, or a column bound by name (y) that
// would also be a column of the matrix (X in y ~ Normal(X * b, s)).
func (b *binder) checkWhole() {
	for t, ds := range b.whole {
		for _, d := range ds[1:] {
			b.errs.Add(d.Pos, "`%s` and `%s` would both take every column of %s: give each its own columns, as %s=%s:COL1,COL2 (or a file of its own, %s=FILE.csv)", ds[0].Name, d.Name, t.File, d.Name, t.File, d.Name)
		}
		if names := b.named[t]; len(names) > 0 {
			cols := fmt.Sprintf("column %q, which is", names[0])
			if len(names) > 1 {
				cols = fmt.Sprintf("columns %s, which are", someNames(quoteAll(names)))
			}
			x := ds[0].Name
			if other := otherColumns(t, names); len(other) > 0 {
				b.errs.Add(ds[0].Pos, "`%s` would take every column of %s, including %s bound by name: give `%s` its columns, as %s=%s:%s (or a file of its own, %s=FILE.csv)", x, t.File, cols, x, x, t.File, strings.Join(other, ","), x)
			} else { // the named ones are all it has
				b.errs.Add(ds[0].Pos, "`%s` would take every column of %s, including %s bound by name: give `%s` a file of its own, %s=FILE.csv", x, t.File, cols, x, x)
			}
		}
	}
}

// otherColumns lists t's numeric columns not among names: those a matrix
// could take beside the columns bound by name, all of them up to 12 (to be
// copied into the command line), else the first three and "...".
func otherColumns(t *Table, names []string) []string {
	var out []string
	for _, c := range t.Columns {
		if !slices.Contains(names, c.Name) && c.problem() == nil {
			out = append(out, c.Name)
		}
	}
	if len(out) > 12 {
		out = append(out[:3], "...")
	}
	return out
}

// someNames joins names for a message, all of them up to 12, else the
// first eight and how many there are: a file of 2000 columns (a gene
// matrix) must not make a message of 25 KB.
func someNames(names []string) string {
	if len(names) <= 12 {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:8], ", ") + fmt.Sprintf(", ... (%d in all)", len(names))
}

// spanNames describes the columns names, numbered from 1 in order, for a
// message: "X.1", "X.1, X.2" or "X.1 ... X.12".
func spanNames(names []string) string {
	if len(names) <= 2 {
		return strings.Join(names, ", ")
	}
	return names[0] + " ... " + names[len(names)-1]
}

func quoteAll(ss []string) []string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return q
}

// expected describes where data for d could come from, and what the inputs
// offer instead.
func (b *binder) expected(d *check.DataVar) string {
	var s string
	switch len(d.Dims) {
	case 0:
		s = fmt.Sprintf("a JSON key %q or --set %s=VALUE", d.Name, d.Name)
	case 1:
		s = fmt.Sprintf("a CSV column %q, a JSON key %q, or %s=FILE.csv (%s=FILE.csv:COLUMN for a column of another name)", d.Name, d.Name, d.Name, d.Name)
	default:
		s = fmt.Sprintf("a JSON key %q, CSV columns %s.1, %s.2, ..., %s=FILE.csv (%s=FILE.csv:COL1,COL2 for some of its columns), or a single positional CSV file", d.Name, d.Name, d.Name, d.Name, d.Name)
	}
	var have []string
	columnTable := map[string]*Table{} // the table of a CSV column, for a misspelt declaration's hint
	hint := ""                         // for a file of one column, which the separators may explain
	for _, in := range b.inputs {
		if in.Name != "" {
			continue
		}
		if in.Table != nil {
			for _, c := range in.Table.Columns {
				have = append(have, c.Name)
				if _, ok := columnTable[c.Name]; !ok {
					columnTable[c.Name] = in.Table
				}
			}
			if len(in.Table.Columns) == 1 && hint == "" {
				hint = in.Table.format.sepHint([]string{in.Table.Columns[0].Name})
			}
		}
		for k := range in.JSON {
			have = append(have, k)
		}
	}
	if len(have) > 0 {
		sort.Strings(have)
		have = slices.Compact(have) // a column of two files, named once
		s += "; the data has " + textenc.EscapeBidi(someNames(have)) + hint
		if best := check.Suggest(d.Name, have); best != "" && len(d.Dims) <= 1 { // a matrix binds columns X.1, X.2, ...
			file := ""
			if t := columnTable[best]; t != nil {
				file = t.File
			}
			other, by := "", ""
			if file != "" && len(d.Dims) == 1 {
				other, by = b.rowsBindOther(d, columnTable[best])
			}
			switch {
			case other != "":
				// the column would bind d's size to rows that give another
				s += fmt.Sprintf("; not column %q of %s, whose rows give %s (the rows of `%s`): %s=%s:%s would make %s = %d, the rows of %s, too; `%s` has one value per %s, a table of its own: give its file",
					textenc.EscapeBidi(best), file, other, by, d.Name, file, textenc.EscapeBidi(best), d.Dims[0].Name, columnTable[best].Rows, file, d.Name, d.Dims[0].Name)
			case file != "" && len(d.Dims) == 1:
				s += fmt.Sprintf("; did you mean %q? (rename the column or the declaration, or give %s=%s:%s)", textenc.EscapeBidi(best), d.Name, file, textenc.EscapeBidi(best))
			default:
				s += fmt.Sprintf("; did you mean %q?", textenc.EscapeBidi(best))
			}
		}
	} else if len(b.inputs) == 0 {
		s += "; no data files were given"
	}
	return s
}

// rowsBindOther returns, for vector d sized by a size name, the other
// size name that the rows of t bind (by a column of t named for a vector
// declared with it) and that declaration: a column of t given as d would
// make d's size t's row count too, silently (tschool[J] from a column of
// students.csv, whose rows give N). "" when there is none.
func (b *binder) rowsBindOther(d *check.DataVar, t *Table) (size, by string) {
	dim := d.Dims[0]
	if t == nil || dim.Known() || dim.Derived || dim.Name == "" {
		return "", ""
	}
	for _, e := range b.info.Data {
		if e == d || e.Implicit || len(e.Dims) != 1 || t.Column(e.Name) == nil {
			continue
		}
		if o := e.Dims[0]; !o.Known() && !o.Derived && o.Name != "" && o.Name != dim.Name {
			return o.Name, e.Name
		}
	}
	return "", ""
}

// checkSize checks the values that a JSON key or --set gives for size name
// d against the size the data bound it to: they are not used, so one that
// differs is an error rather than silently ignored.
func (b *binder) checkSize(d *check.DataVar, sz sizeBinding) {
	given, err := b.given(d)
	if err != nil {
		b.errs = append(b.errs, err)
		return
	}
	for _, a := range given {
		if err := a.problem(); err != nil {
			b.errs = append(b.errs, err)
			continue
		}
		if len(a.Shape) != 0 && !a.rLength1 {
			b.errs.Add(a.Pos, "%s is a size, bound to %d by the %s (%s), but here has %s", d.Name, sz.n, sz.what, sz.pos, shapeWords(a.Shape))
		} else if v := a.Values[0]; v != float64(sz.n) && !a.Pos.IsValid() && sz.pos.IsValid() {
			// A --set value has no place in a file: the error is at the data.
			b.errs.Add(sz.pos, "size %s is %d here (%s), but %s=%s", d.Name, sz.n, sz.what, a.Pos.File, strconv.FormatFloat(v, 'g', -1, 64))
		} else if v != float64(sz.n) {
			b.errs.Add(a.Pos, "%s is %s here but the data has %d %s (%s)", d.Name, strconv.FormatFloat(v, 'g', -1, 64), sz.n, sz.what, sz.pos)
		}
	}
}

// ColumnsRead returns which columns of a positional CSV file (FILE.csv,
// not NAME=FILE.csv) Bind may read for the model of info, for ParseCSV's
// keep: a column named as a data declaration, or numbering the elements of
// one (x.1, x[1]); nil, every column, when a declaration of two or more
// dimensions may take a whole file. Bind reads no other column's values;
// it reports another's first bad cell (Err) and names it, which ParseCSV
// keeps.
func ColumnsRead(info *check.Info) func(column string) bool {
	for _, d := range info.Data {
		if len(d.Dims) >= 2 {
			return nil
		}
	}
	return func(col string) bool {
		if info.DataVar(col) != nil {
			return true
		}
		for _, d := range info.Data {
			if _, ok := columnIndex(col, d.Name); ok {
				return true
			}
		}
		return false
	}
}

// tableFor binds a whole CSV file to declaration d.
func tableFor(d *check.DataVar, t *Table) (*Array, *ast.Error) {
	switch len(d.Dims) {
	case 2:
		return t.Matrix(d.Name), nil
	case 1:
		if len(t.Columns) == 1 {
			c := *t.Columns[0]
			c.Name = d.Name
			return &c, nil
		}
		if c := t.Column(d.Name); c != nil {
			return c, nil
		}
		return nil, ast.Errorf(ast.Pos{File: t.File, Line: 1, Col: 1}, "%s is a vector (declared at %s) but %s has %d columns and none is named %q", d.Name, d.Pos, t.File, len(t.Columns), d.Name)
	}
	if t.Rows == 1 && len(t.Columns) == 1 {
		c := *t.Columns[0]
		c.Name, c.Shape = d.Name, nil
		return &c, nil
	}
	return nil, ast.Errorf(ast.Pos{File: t.File, Line: 1, Col: 1}, "%s is a scalar (declared at %s) but %s holds %d×%d values", d.Name, d.Pos, t.File, t.Rows, len(t.Columns))
}

// setValue parses --set NAME=VALUE for a scalar data declaration.
func setValue(d *check.DataVar, v string) (*Array, *ast.Error) {
	pos := ast.Pos{File: "--set " + d.Name}
	if len(d.Dims) != 0 {
		return nil, ast.Errorf(pos, "%s is %s (declared at %s): --set gives only scalars", d.Name, d.TypeString(), d.Pos)
	}
	text := strings.TrimSpace(v)
	x, isInt, exact, err := parseNumber(text)
	if err != nil {
		return nil, ast.Errorf(pos, "%v", err)
	}
	a := &Array{Name: d.Name, Values: []float64{x}, Int: isInt, Pos: pos}
	if !exact {
		a.noteInexact(0, text)
	}
	return a, nil
}

// skipSizes marks d's size names as not to be reported unbound: d's value
// was not bound, for an error already reported, or d is optional and left
// out (BindOptional; then only the optional sizes).
func (b *binder) skipSizes(d *check.DataVar) {
	for _, dim := range d.Dims {
		if b.optional[d.Name] && !b.optional[dim.Name] {
			continue // an optional declaration left out: the size is wanted all the same
		}
		b.unread[dim.Name] = true
	}
}

// check validates a against declaration d and records it and its sizes.
func (b *binder) check(d *check.DataVar, a *Array) {
	decl := fmt.Sprintf("`%s` is declared %s at %s", d.Name, d.TypeString(), d.Pos)
	if a.labels != nil && d.Elem == check.Int && len(d.Dims) == 1 {
		coded, err := b.codeLabels(d, a)
		if err != nil {
			b.errs = append(b.errs, err)
			b.skipSizes(d)
			if name, _ := sizeBound(d); name != "" {
				b.unread[name] = true // the labels would have given it (boundByLabels): not a second error
			}
			return
		}
		a = coded
	}
	if a.bad != nil { // the value was not read as numbers of one shape
		err := a.bad
		if a.labelColumn != "" {
			hint := labelHint(d, a.labelColumn)
			if len(a.labels) > 0 && isDate(a.labels[firstLabel(a)]) {
				hint = dateHint(d)
			}
			err = ast.Errorf(err.Pos, "%s%s", err.Msg, hint)
		}
		b.errs = append(b.errs, err)
		b.skipSizes(d)
		return
	}
	if lv, ok := b.fitLevels[d.Name]; ok && a.Levels == nil {
		// numbers where the fit had labels: codes that need not be the fit's
		for i, v := range a.Values {
			if !a.isMissing(i) {
				b.errs.Add(a.Locate(i), "%s: %s is a number, but the fit coded `%s` from labels (%d labels: %s): give the labels, which are coded as the fit coded them", a.Name, a.text(i, v), d.Name, len(lv.Labels), listCodes(lv, lv.Labels, 5))
				b.skipSizes(d)
				return
			}
		}
	}
	if len(a.Missing) > 0 && d.Missing == nil && b.partial && d.Unused {
		// the REPL: a declaration typed before the ~ that observes it
		// waits for it, as data still to come do
		b.missing = append(b.missing, d.Name)
		b.skipSizes(d)
		return
	}
	if len(a.Missing) > 0 && d.Missing == nil && !d.LeftOut && !(b.drawsMissing() && d.Observed) {
		b.errs = append(b.errs, missingError(d, a, b.raw))
		b.skipSizes(d)
		return
	}
	// JSON writes a matrix of no rows as [] (CmdStan and posteriordb do):
	// its column count is not in the value, so it is the declared size,
	// settled once every size is bound (emptyColumns).
	if len(d.Dims) == 2 && len(a.Shape) == 1 && a.Shape[0] == 0 {
		e := *a
		e.Shape = []int{0, -1}
		a = &e
		b.empty = append(b.empty, emptyMatrix{d, a})
		b.unread[d.Dims[1].Name] = true // reported by emptyColumns if nothing binds it
	}
	// R has no scalars: an R dump value of one element serves a scalar
	// and a vector of one element alike.
	if a.rLength1 && len(a.Shape) != len(d.Dims) && len(d.Dims) <= 1 {
		e := *a
		e.Shape = nil
		if len(d.Dims) == 1 {
			e.Shape = []int{1}
		}
		a = &e
	}
	// Rank: a single-column matrix serves a vector, a [n] vector of length
	// one a scalar only when declared so.
	if len(a.Shape) != len(d.Dims) {
		hint := ""
		if len(a.Shape) == 0 && len(d.Dims) == 1 && len(a.Values) == 1 && strings.HasSuffix(strings.ToLower(a.Pos.File), ".json") {
			// cmdstanr writes an R vector of length one so
			v, more := a.text(0, a.Values[0]), ""
			if a.isMissing(0) {
				// as the file wrote it: CmdStan's "NaN" is a missing
				// value as null is, not a string where a number belongs
				v = cmp.Or(a.missJSON, "null")
				if v != "null" {
					more = " (or [null]: either is a missing value)"
				}
			}
			hint = fmt.Sprintf(" (a vector of one element is written [%s]%s; from R, pass array(x, dim = 1) to write_stan_json)", v, more)
		}
		b.errs.Add(a.Pos, "%s has %s, but %s%s", a.Name, shapeWords(a.Shape), decl, hint)
		b.skipSizes(d)
		return
	}
	for axis, dim := range d.Dims {
		n := a.Shape[axis]
		switch {
		case n < 0: // an empty matrix's columns
		case dim.Known():
			if n != dim.N {
				word := axisWord(len(d.Dims), axis)
				if n == 1 {
					word = strings.TrimSuffix(word, "s")
				}
				// the size's value, when a name (a const) gives it
				val := ""
				if dim.Name != "" {
					val = fmt.Sprintf(", where %s = %d", dim.Name, dim.N)
				}
				b.errs.Add(a.Pos, "%s has %d %s, but %s%s", a.Name, n, word, decl, val)
				b.skipSizes(d)
				return
			}
		case !dim.Derived:
			if prev, ok := b.sizes[dim.Name]; ok && prev.n != n {
				b.errs.Add(a.Pos, "size %s is %d here (%s of %s) but %d from %s (%s)", dim.Name, n, axisWord(len(d.Dims), axis), d.Name, prev.n, prev.what, prev.pos)
				b.skipSizes(d)
				return
			}
			if _, ok := b.sizes[dim.Name]; !ok {
				b.sizes[dim.Name] = sizeBinding{n: n, pos: a.Pos, what: fmt.Sprintf("%s of %s", axisWord(len(d.Dims), axis), d.Name), from: b.sizeFrom(d, a, axis)}
			}
		}
	}
	if d.Elem == check.Int {
		for i, v := range a.Values {
			// An element read inexactly is an integer past 2^53 rounded to
			// one within, or a fraction rounded to an integer.
			text, inexact := a.inexact[i]
			integer := true
			if inexact {
				integer, _ = check.IntegerText(text, v)
			}
			switch {
			case math.Abs(v) > check.MaxInt || inexact && integer:
				b.errs.Add(a.Locate(i), "%s: %s is too large for an int (at most 2^53 in magnitude); %s", a.Name, a.text(i, v), decl)
				return
			case inexact:
				b.errs.Add(a.Locate(i), "%s: %s is not an integer, but %s", a.Name, text, decl)
				return
			}
		}
	}
	if d.Elem == check.Int && !a.Int { // 2.0 is accepted as the int 2
		for i, v := range a.Values {
			if v != math.Trunc(v) && !(math.IsNaN(v) && a.isMissing(i)) { // a missing cell is no value (pandas writes 3.0 for the int 3 in a column with NaN)
				b.errs.Add(a.Locate(i), "%s: %s is not an integer, but %s", a.Name, strconv.FormatFloat(v, 'g', -1, 64), decl)
				return
			}
		}
	}
	if !b.checkValues(d, a, decl) || !b.clampValues(d, a, decl) {
		return
	}
	// A declared int scalar may itself be a size used elsewhere.
	if len(d.Dims) == 0 && d.Elem == check.Int {
		n := int(a.Values[0])
		if prev, ok := b.sizes[d.Name]; ok && prev.n != n {
			b.errs.Add(a.Pos, "%s is %d here but the data has %d %s (%s)", d.Name, n, prev.n, prev.what, prev.pos)
			return
		}
		b.sizes[d.Name] = sizeBinding{n: n, pos: a.Pos, what: d.Name}
	}
	b.out[d.Name] = a
}

// codeLabels codes a column of labels for int vector d: by the distinct
// labels of its group (labelGroup: the columns that index one axis, coded
// together, as R's factor(levels = union(...)) codes them) sorted in byte
// order, or in the order --levels gives any one of the group, from d's
// lower bound (Stan's 1-based habit: int<lower=1> codes 1, 2, ...) or 0;
// for predict (fitLevels not nil), as the fit coded d, a label it did not
// see being an error at its cell, or, with the fit's coding's Grow, coded
// after the fit's labels with the group's other new labels. Missing cells
// stay missing.
func (b *binder) codeLabels(d *check.DataVar, a *Array) (*Array, *ast.Error) {
	var lv Levels
	group := b.labelGroup(d)
	orderOf := d.Name // the declaration whose --levels order codes d
	if b.fitLevels != nil {
		fit, ok := b.fitLevels[d.Name]
		if !ok {
			return nil, ast.Errorf(a.bad.Pos, "column %q: %q is a label, but the fit recorded no labels for `%s` (a fit from before gpp coded labels, or of data that gave `%s` as numbers): give the ints it was fitted with", a.labelColumn, a.labels[firstLabel(a)], d.Name, d.Name)
		}
		lv = Levels{First: fit.First, Labels: fit.Labels} // not the fit's Bounds: this Bind's own
		if fit.Grow {
			// the new labels of every column of the group, once each, in
			// one order: the group's columns in declaration order, each
			// in its order of cells, so that each has one code in all
			lv.Labels = slices.Clone(fit.Labels)
			seen := make(map[string]bool, len(lv.Labels))
			for _, s := range lv.Labels {
				seen[s] = true
			}
			for _, e := range b.groupColumns(d, a, group) {
				for i, s := range e.labels {
					if !e.isMissing(i) && !seen[s] {
						seen[s] = true
						lv.Labels = append(lv.Labels, s)
						lv.New++
					}
				}
			}
		}
	} else {
		if err := b.mixedCoding(d, a, group); err != nil {
			return nil, err
		}
		name, order, err := b.groupOrder(d, group)
		switch {
		case err != nil:
			return nil, err
		case order != nil:
			lv.Labels, lv.Given, orderOf = slices.Clone(order), true, name
		default:
			own := labelSet(a)
			if err := unicodeForms(a, own); err != nil {
				return nil, err
			}
			for _, e := range b.groupColumns(d, a, group) {
				lv.Labels = append(lv.Labels, labelSet(e)...)
			}
			slices.Sort(lv.Labels)
			lv.Labels = slices.Compact(lv.Labels)
			if err := otherForms(a, own, lv.Labels); err != nil {
				return nil, err
			}
		}
		for _, e := range group {
			if e != d && b.raw[e.Name] != nil && b.raw[e.Name].labels != nil {
				lv.With = append(lv.With, b.raw[e.Name].labelColumn)
			}
		}
		lv.First = groupFirst(group)
	}
	lv.Column, lv.File = a.labelColumn, a.Pos.File
	code := make(map[string]int, len(lv.Labels))
	for k, s := range lv.Labels {
		code[s] = lv.First + k
	}
	out := *a
	out.Values = make([]float64, len(a.Values))
	out.Int, out.bad, out.labels, out.labelColumn, out.Levels = true, nil, nil, "", &lv
	for i, s := range a.labels {
		if a.isMissing(i) {
			out.Values[i] = math.NaN()
			continue
		}
		k, ok := code[s]
		if !ok && lv.Given {
			also := ""
			if orderOf != d.Name {
				also = fmt.Sprintf(", which codes `%s` too (both %s)", d.Name, groupWhyIn(b.info.DataVar(orderOf), d, group))
			}
			return nil, ast.Errorf(a.Locate(i), "column %q: label %q is not in the order --levels gives `%s`%s (its %d labels: %s)%s", a.labelColumn, s, orderOf, also, len(lv.Labels), listNames(lv.Labels, 20), labelSuggestion(s, lv.Labels))
		}
		if !ok {
			return nil, ast.Errorf(a.Locate(i), "column %q: label %q is not one the fit coded `%s` from%s (its %d labels: %s)", a.labelColumn, s, d.Name, labelSuggestion(s, lv.Labels), len(lv.Labels), listNames(lv.Labels, 20))
		}
		out.Values[i] = float64(k)
	}
	return &out, nil
}

// groupFirst is the first code of a group of labelGroup: the largest of
// its lower bounds (Stan's 1-based habit: int<lower=1> codes 1, 2, ...),
// which the codes of each must respect, or 0.
func groupFirst(group []*check.DataVar) int {
	first, any := 0, false
	for _, e := range group {
		if e.Lower != nil {
			if lo := int(math.Ceil(*e.Lower)); !any || lo > first {
				first, any = lo, true
			}
		}
	}
	return first
}

// labelSet returns the distinct labels of column a, sorted in byte order.
func labelSet(a *Array) []string {
	var labels []string
	for i, s := range a.labels {
		if !a.isMissing(i) {
			labels = append(labels, s)
		}
	}
	slices.Sort(labels)
	return slices.Compact(labels)
}

// labelGroup returns the int vector declarations whose codes index one
// axis with d's, d among them, in declaration order: those bounded above
// by the same size (home and away, both int<lower=0, upper=J-1>, or g and
// g_new, int<lower=1, upper=J>), and those that index the same axis of
// the same value (d[t] and d[base]: check.DataVar.Indexes), and so on
// through each of them. Their columns of labels are coded together, each
// label with one code in all of them. Just d when it shares no axis.
func (b *binder) labelGroup(d *check.DataVar) []*check.DataVar {
	if b.info == nil {
		return []*check.DataVar{d}
	}
	in := map[*check.DataVar]bool{d: true}
	for grown := true; grown; {
		grown = false
		for _, e := range b.info.Data {
			if in[e] || e.Implicit || e.Elem != check.Int || len(e.Dims) != 1 {
				continue
			}
			for o := range in {
				if groupWhy(o, e) != "" {
					in[e], grown = true, true
					break
				}
			}
		}
	}
	var group []*check.DataVar
	for _, e := range b.info.Data {
		if in[e] {
			group = append(group, e)
		}
	}
	return group
}

// groupWhy says why int vector declarations d and e index one axis, for
// messages ("are bounded by J", "index `d`"), or "" if they share none
// directly.
func groupWhy(d, e *check.DataVar) string {
	if size, _ := sizeBound(d); size != "" {
		if other, _ := sizeBound(e); other == size {
			return "are bounded by " + size
		}
	}
	for _, x := range d.Indexes {
		for _, y := range e.Indexes {
			if x.Of == y.Of && x.Axis == y.Axis {
				if len(x.Of.Type.Shape) > 1 {
					return fmt.Sprintf("index axis %d of `%s`", x.Axis+1, x.Of.Name)
				}
				return fmt.Sprintf("index `%s`", x.Of.Name)
			}
		}
	}
	return ""
}

// groupWhyIn is groupWhy for two declarations of one group (labelGroup),
// which may share their axis through others of it.
func groupWhyIn(d, e *check.DataVar, group []*check.DataVar) string {
	if why := groupWhy(d, e); why != "" {
		return why
	}
	var via []string
	for _, o := range group {
		if o != d && o != e {
			via = append(via, "`"+o.Name+"`")
		}
	}
	return "index one axis through " + strings.Join(via, ", ")
}

// groupColumns returns the columns of labels found for the declarations
// of group (d's, whose is a), in its order.
func (b *binder) groupColumns(d *check.DataVar, a *Array, group []*check.DataVar) []*Array {
	var cols []*Array
	for _, e := range group {
		if e == d {
			cols = append(cols, a)
		} else if a := b.raw[e.Name]; a != nil && a.labels != nil {
			cols = append(cols, a)
		}
	}
	return cols
}

// groupOrder returns the order of labels that --levels gives a
// declaration of d's group, and its name, or nil: one order codes every
// column of the group. Two different orders are an error, reported for
// the later declaration's.
func (b *binder) groupOrder(d *check.DataVar, group []*check.DataVar) (string, []string, *ast.Error) {
	first := ""
	for _, e := range group {
		order, ok := b.order[e.Name]
		if !ok {
			continue
		}
		if first == "" {
			first = e.Name
			continue
		}
		if e == d && !slices.Equal(order, b.order[first]) {
			return "", nil, ast.Errorf(ast.Pos{File: "--levels"}, "`%s` and `%s` are given different orders, but they index one axis (both %s), so one order codes both: give it once, for either", first, e.Name, groupWhyIn(b.info.DataVar(first), e, group))
		}
	}
	if first == "" {
		return "", nil, nil
	}
	return first, b.order[first], nil
}

// mixedCoding is the error for column of labels a, for d, when another
// declaration of its group is given as numbers: the labels' codes and
// those numbers would index one axis with no coding between them. It is
// at a's first label, which it names.
func (b *binder) mixedCoding(d *check.DataVar, a *Array, group []*check.DataVar) *ast.Error {
	for _, e := range group {
		o := b.raw[e.Name]
		if e == d || o == nil || o.labels != nil || o.bad != nil || o.rowless() {
			continue // a column of no rows is neither labels nor numbers
		}
		i := firstLabel(a)
		return ast.Errorf(a.Locate(i), "column %q: label %q cannot be coded to index the axis that `%s` indexes too (both %s): `%s` is given as numbers (%s), and no coding makes labels and codes name the same elements; give both as labels, coded together (in the order --levels %s=LABEL,LABEL,... gives, if that matters), or both as codes", a.labelColumn, a.labels[i], e.Name, groupWhyIn(d, e, group), e.Name, o.Pos, d.Name)
	}
	return nil
}

// labelSuggestion returns "; did you mean X?" for the label of labels
// that s most likely misspells: one equal to it but for case, spaces and
// punctuation ("Man City" for "ManCity"), else the one check.Suggest
// finds (case, or a few edits); "" if none.
func labelSuggestion(s string, labels []string) string {
	best := ""
	if k := labelKey(s); k != "" {
		for _, l := range labels {
			if labelKey(l) == k {
				best = l
				break
			}
		}
	}
	if best == "" {
		best = check.Suggest(s, labels)
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// nfcTwins yields each of labels that is one text in two Unicode forms
// (the same in NFC) with an earlier one, and the first such earlier one.
func nfcTwins(labels []string) iter.Seq2[string, string] {
	return func(yield func(s, first string) bool) {
		first := make(map[string]string, len(labels))
		for _, s := range labels {
			n := norm.NFC.String(s)
			if o, seen := first[n]; seen {
				if !yield(s, o) {
					return
				}
				continue
			}
			first[n] = s
		}
	}
}

// unicodeForms is the error for two of a column's distinct labels that
// are one text in two Unicode forms (canonically equivalent: é as one
// code point, and as e with a combining acute accent, as macOS and
// Windows may write the same name), at the first cell of the second: they
// print alike, but would be coded as two groups.
func unicodeForms(a *Array, labels []string) *ast.Error {
	for s, o := range nfcTwins(labels) {
		at := slices.Index(a.labels, s)
		if i := slices.Index(a.labels, o); i > at {
			o, s, at = s, o, slices.Index(a.labels, o)
		}
		return ast.Errorf(a.Locate(at), "column %q: labels %q (%+q) and %+q are one text in two Unicode forms (an accent as part of its letter, or as a combining mark after it, as macOS and Windows may write the same name): they would be coded as two groups that print alike; write the file in one form (NFC, as Python's unicodedata.normalize(\"NFC\", text) gives)",
			a.labelColumn, s, s, o)
	}
	return nil
}

// otherForms is the error for a label of column a (own, its labels) that
// is one text in two Unicode forms with a label of another column coded
// with it (union, their labels, sorted), at a's first cell of it: found
// once, by the column that holds the later of the two in byte order.
func otherForms(a *Array, own, union []string) *ast.Error {
	for s, o := range nfcTwins(union) {
		if _, mine := slices.BinarySearch(own, s); !mine {
			continue
		}
		if _, both := slices.BinarySearch(own, o); both {
			continue // unicodeForms's
		}
		return ast.Errorf(a.Locate(slices.Index(a.labels, s)), "column %q: label %q (%+q) and %+q, a label of a column coded with it, are one text in two Unicode forms (an accent as part of its letter, or as a combining mark after it, as macOS and Windows may write the same name): they would be coded as two groups that print alike; write the files in one form (NFC, as Python's unicodedata.normalize(\"NFC\", text) gives)",
			a.labelColumn, s, s, o)
	}
	return nil
}

// firstLabel returns the element of a's first label (a.bad's cell).
func firstLabel(a *Array) int {
	for i, s := range a.labels {
		if s != "" {
			return i
		}
	}
	return 0
}

// labelHint is the hint for a column of labels bound to declaration d,
// which does not code it: only an int vector does.
func labelHint(d *check.DataVar, column string) string {
	const coded = "to code its labels 0, 1, ... in sorted order"
	switch len(d.Dims) {
	case 1:
		return fmt.Sprintf(" (a column of labels: declare it int (data %s: int[%s]) %s)", d.Name, d.Dims[0], coded)
	case 2:
		return fmt.Sprintf(" (a column of labels, which matrix `%s` cannot take: leave it out of its columns (%s=FILE.csv:-%s, every other column, or %s=FILE.csv:COL1,COL2), or bind it to an int vector of its own (data %s: int[N]) %s)", d.Name, d.Name, column, d.Name, column, coded)
	}
	return fmt.Sprintf(" (a column of labels: declare an int vector (data %s: int[N]) %s)", d.Name, coded)
}

// isDate reports whether s reads as a calendar date, year first (ISO
// 8601's 2010-01-31, 2010/1/31), with a time of day or none.
func isDate(s string) bool {
	date, _, _ := strings.Cut(strings.Replace(s, "T", " ", 1), " ")
	parts := strings.FieldsFunc(date, func(r rune) bool { return r == '-' || r == '/' })
	if len(parts) != 3 || len(parts[0]) != 4 || strings.Count(date, "-")+strings.Count(date, "/") != 2 {
		return false
	}
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || len(p) > 4 || i > 0 && (len(p) > 2 || v < 1 || v > [3]int{0, 12, 31}[i]) {
			return false
		}
	}
	return true
}

// dateHint is the hint for a column of dates bound to declaration d: gpp
// reads no dates, and coding them as labels counts only the days present.
func dateHint(d *check.DataVar) string {
	return fmt.Sprintf(" (a column of dates, which gpp does not read as numbers: give `%s` a number per row computed before the fit, a time index in days (R's as.numeric(as.Date(x)) counts them from 1970-01-01, Python's date.toordinal() from the year 1) or the day of the year; declared int, the dates would be coded as labels 0, 1, ... in sorted order, which counts only the dates present, not the days between them)", d.Name)
}

// Codes lists lv's labels with their codes for a message, as notes do
// (18-29 0, 30-39 1, …, 70+ 5: the first most-1 and the last of more
// than most).
func (lv Levels) Codes(most int) string { return listCodes(lv, lv.Labels, most) }

// listCodes lists labels (of lv) with their codes for a message: every
// one of up to most, else the first most-1, "…" and the last.
func listCodes(lv Levels, labels []string, most int) string {
	code := func(s string) string {
		k := slices.Index(lv.Labels, s)
		return fmt.Sprintf("%s %d", textenc.QuoteLabel(s), lv.First+k)
	}
	var parts []string
	for i, s := range labels {
		if len(labels) > most && i == most-1 {
			parts = append(parts, "…", code(labels[len(labels)-1]))
			break
		}
		parts = append(parts, code(s))
	}
	return strings.Join(parts, ", ")
}

// oneBasedBound is the advice for int data d declared from 0 whose values
// a, above its upper bound U, run from 1 to U + 1 as Stan's 1-based
// categories and ids do (a choice of 1..4 against int<lower=0, upper=3>);
// "" for any other.
func oneBasedBound(d *check.DataVar, a *Array) string {
	if d.Lower == nil || *d.Lower != 0 || d.Upper == nil || *d.Upper != math.Trunc(*d.Upper) {
		return ""
	}
	n := int(*d.Upper) + 1
	lo, hi, count, ok := onebased.Range(a.Values)
	if !ok || !onebased.Is(lo, hi, count, n) {
		return ""
	}
	return "; " + oneBasedAdvice(d.Name, onebased.Span(lo, n), strconv.Itoa(n))
}

// oneBasedAdvice is the advice for int data name whose values, as span
// says (onebased.Span), look like Stan's 1-based ids: how to give them
// 0-based, or declare them 1-based with upper bound upper.
func oneBasedAdvice(name, span, upper string) string {
	return fmt.Sprintf("categories and indices are 0-based and %s: give 0-based ids, or declare `%s` int<lower=1, upper=%s> and write %s - 1 where the model reads it as a category or an index", span, name, upper, name)
}

// zeroDeclHint is the end of the error at a value v of data d declared
// positive, when v is 0 and a ~ on d is of a family with a hurdle version
// (dist.ZeroHint): to declare d real<lower=0> and use that family; ""
// for any other.
func zeroDeclHint(d *check.DataVar, a *Array, i int) string {
	if _, under := a.inexact[i]; under || a.Values[i] != 0 || d.Kind != ast.Positive {
		return "" // a value that underflows to 0 is no exact zero
	}
	for _, u := range d.Uses {
		if h := dist.ZeroHint(u.Dist, d.Name); h != "" {
			return fmt.Sprintf("%sdeclare `%s` real<lower=0> and %s", dist.ZeroAmounts, d.Name, h)
		}
	}
	return ""
}

// checkValues checks supports and bounds element by element.
func (b *binder) checkValues(d *check.DataVar, a *Array, decl string) bool {
	hinted := func(i int, want, hint string) bool {
		v := strconv.FormatFloat(a.Values[i], 'g', -1, 64)
		if t, ok := a.inexact[i]; ok && a.Values[i] == 0 {
			v = t + " (which underflows to 0 in double precision)"
		}
		b.errs.Add(a.Locate(i), "%s: value %s is not %s; %s%s", a.Name, v, want, decl, hint)
		return false
	}
	bad := func(i int, want string) bool { return hinted(i, want, "") }
	for i, v := range a.Values {
		if a.isMissing(i) {
			continue // a latent value, in the support the compiler gives it
		}
		switch d.Kind {
		case ast.Positive, ast.PositiveOrdered:
			if !(v > 0) {
				return hinted(i, "> 0", zeroDeclHint(d, a, i))
			}
		case ast.Unit:
			if !(v > 0 && v < 1) {
				return bad(i, "in (0, 1)")
			}
		case ast.Simplex:
			if v < 0 {
				return bad(i, ">= 0")
			}
		}
		if d.Lower != nil && v < *d.Lower {
			return bad(i, ">= "+strconv.FormatFloat(*d.Lower, 'g', -1, 64))
		}
		if d.Upper != nil && v > *d.Upper {
			return hinted(i, "<= "+strconv.FormatFloat(*d.Upper, 'g', -1, 64), oneBasedBound(d, a))
		}
	}
	for _, u := range d.Uses {
		for i, v := range a.Values {
			if want, ok := u.Support.Admits(v); !ok && !a.isMissing(i) {
				hint := ""
				if _, under := a.inexact[i]; !under && v == 0 { // an exact zero
					if h := dist.ZeroHint(u.Dist, d.Name); h != "" {
						hint = dist.ZeroAmounts + h
					}
				}
				b.errs.Add(a.Locate(i), "%s: value %s is not %s, as %s ~ %s at %s needs%s", a.Name, strconv.FormatFloat(v, 'g', -1, 64), want, d.Name, u.Dist, u.Pos, hint)
				return false
			}
		}
	}
	if d.Kind.IsOrdered() {
		// strictly increasing: each element above the one before it
		what := "an ordered"
		if d.Kind == ast.PositiveOrdered {
			what = "a positive_ordered"
		}
		k, rows := len(a.Values), ""
		if len(a.Shape) == 2 { // each row increasing: ordered[G, K]
			k, rows = a.Shape[1], " row"
		}
		for i := 1; i < len(a.Values); i++ {
			if i%k != 0 && !(a.Values[i] > a.Values[i-1]) {
				return bad(i, fmt.Sprintf("above the element before it (%s), as %s vector%s needs", strconv.FormatFloat(a.Values[i-1], 'g', -1, 64), what, rows))
			}
		}
	}
	if d.Kind == ast.SumToZero && len(a.Values) > 0 {
		if !b.sumsToZero(a, "its elements sum", 0, 1, len(a.Values), "a sum_to_zero_vector", decl) {
			return false
		}
	}
	if d.Kind == ast.SumToZeroMatrix && len(a.Shape) == 2 && len(a.Values) > 0 {
		m, n := a.Shape[0], a.Shape[1]
		for r := range m {
			if !b.sumsToZero(a, fmt.Sprintf("row %d sums", r), r*n, 1, n, "a sum_to_zero_matrix", decl) {
				return false
			}
		}
		for c := range n {
			if !b.sumsToZero(a, fmt.Sprintf("column %d sums", c), c, n, m, "a sum_to_zero_matrix", decl) {
				return false
			}
		}
	}
	if d.Kind.IsMatrix() && len(a.Shape) == 2 && a.Shape[0] == a.Shape[1] && len(a.Missing) == 0 {
		return b.matrixValues(d, a, decl)
	}
	if d.Kind == ast.Simplex && len(a.Values) > 0 {
		k := a.Shape[len(a.Shape)-1]
		for r := 0; r < len(a.Values)/k; r++ {
			var s float64
			for _, v := range a.Values[r*k : (r+1)*k] {
				s += v
			}
			if math.Abs(s-1) > simplexTol {
				b.errs.Add(a.Locate(r*k), "%s: row %d sums to %g, not 1; %s", a.Name, r, s, decl)
				return false
			}
		}
	}
	return true
}

// sumsToZero checks that the n values of a from off on, stride apart, sum
// to zero within sumToZeroTol, reporting the error at the first of them
// (what: "row 2 sums").
func (b *binder) sumsToZero(a *Array, what string, off, stride, n int, need, decl string) bool {
	var s, abs float64
	for k := range n {
		v := a.Values[off+k*stride]
		s += v
		abs += math.Abs(v)
	}
	if math.Abs(s) > sumToZeroTol*max(1, abs) {
		b.errs.Add(a.Locate(off), "%s: %s to %g, not 0 (to within %g times the sum of their absolute values), as %s needs; %s",
			a.Name, what, s, sumToZeroTol, need, decl)
		return false
	}
	return true
}

// simplexTol is how far from 1 a simplex row of data may sum.
const simplexTol = 1e-8

// sumToZeroTol is how far from 0 a sum_to_zero_vector of data (a row or
// column of a sum_to_zero_matrix) may sum, relative to the sum of its
// absolute values (at least 1).
const sumToZeroTol = 1e-8

func shapeWords(s []int) string {
	switch len(s) {
	case 0:
		return "a single value"
	case 1:
		return fmt.Sprintf("a vector of %d value%s", s[0], plural(s[0]))
	}
	return fmt.Sprintf("a %d×%d matrix", s[0], s[1])
}

func axisWord(rank, axis int) string {
	if rank == 1 {
		return "elements"
	}
	if axis == 0 {
		return "rows"
	}
	return "columns"
}

// missingError is the error for a missing cell of data whose missing
// values the model does not fit: at the first missing cell, with why
// (check.DataVar.NoMissing) and what to do.
func missingError(d *check.DataVar, a *Array, raw map[string]*Array) *ast.Error {
	n := ""
	if len(a.Missing) > 1 {
		n = fmt.Sprintf(" (the first of %d)", len(a.Missing))
	}
	why := d.NoMissing
	if why == "" {
		why = "data cannot have missing values"
	}
	first := a.missErr
	if first == nil { // an Array made in code
		first = ast.Errorf(a.Locate(a.Missing[0]), "%s: element %d is missing", a.Name, a.Missing[0])
	}
	at, rows, needed := rowBranchNote(d, a, raw)
	if rows != "" {
		why = strings.TrimSuffix(why, check.IfMissingNote(d.Name)) + rows
		if at != a.Missing[0] {
			first = ast.Errorf(a.Locate(at), "column %q: the cell of row %d is missing", a.Name, at+1)
			n = ""
		}
	}
	label := ""
	if a.Levels != nil && strings.Contains(first.Msg, "is read as a missing value") {
		// "none" beside "right": meant as a label, most likely
		label = fmt.Sprintf(" (or, if that text is a label of `%s`, not a missing value, write it otherwise in the file: NA, N/A, NaN, null and none, in any case, are always read as missing)", d.Name)
	}
	remedy := d.Remedy
	switch {
	case remedy != "":
	case needed: // a fill would change the likelihood
		remedy = fmt.Sprintf("mend that row's `%s` or drop the row", d.Name)
	default:
		remedy = fmt.Sprintf("drop or fill in the rows with missing `%s`", d.Name)
	}
	return ast.Errorf(first.Pos, "%s%s: %s; %s%s", first.Msg, n, why, remedy, label)
}

// rowBranchNote says, for d's missing cells in a, which rows' branches of
// an if on data read them (check.DataVar.RowBranch), from the data of the
// conditions in raw: at the first missing cell whose row's branch reads
// d, needed, the row's error; where none is, that they may be filled.
// at is the missing cell's element the note is of; "" where the rows are
// not known. needed reports a cell that its row's branch reads.
func rowBranchNote(d *check.DataVar, a *Array, raw map[string]*Array) (at int, note string, needed bool) {
	rb := d.RowBranch
	if rb == nil {
		return 0, "", false
	}
	read, unread := -1, 0
	var cond check.RowCond
	for _, m := range a.Missing {
		k, ok := rb.Branch(func(name string) (float64, bool) {
			c := raw[name]
			if c == nil || c.labels != nil || c.bad != nil || m >= len(c.Values) || math.IsNaN(c.Values[m]) {
				return 0, false
			}
			return c.Values[m], true
		})
		switch {
		case !ok:
			return 0, "", false
		case rb.Reads[k] && read < 0:
			read = m
			cond = rb.Conds[min(k, len(rb.Conds)-1)]
		case !rb.Reads[k]:
			unread++
		}
	}
	if read < 0 {
		return a.Missing[0], fmt.Sprintf("; but no row with a missing `%[1]s` takes a branch of the if that reads it (as `%[2]s` decides): gpp binds the whole column first and refuses a missing value anywhere in it, so fill those cells with any value of `%[1]s`'s type, which no branch taken reads", d.Name, rb.Conds[0].Data), false
	}
	v := raw[cond.Data].Values[read]
	note = fmt.Sprintf("; on this row `%s` is %s, and the branch of the if that this row takes reads `%s`: the cell is needed, a data error to mend at this row (a fill would change the likelihood)", cond.Data, strconv.FormatFloat(v, 'g', -1, 64), d.Name)
	if unread > 0 {
		note += fmt.Sprintf("; %d other missing cell%s of `%s` %s on rows whose branch never reads it, which may be filled with any value of its type", unread, plural(unread), d.Name, map[bool]string{true: "is", false: "are"}[unread == 1])
	}
	return read, note, true
}

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
