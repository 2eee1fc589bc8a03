// Package data reads a model's inputs — CSV files with a header and
// Stan-style JSON objects — into named numeric arrays that remember where
// each number came from, and binds them to a checked model's data
// declarations.
//
// Place in the pipeline: beside the front end. cmd/gpp reads files with this
// package, binds them against lang/check's declarations, and hands the result
// to the compiler. Every problem is an *ast.Error naming the data file, line
// and column (and, when binding, the model declaration).
package data

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
	"unique"

	"github.com/gpplang/gpp/internal/textenc"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
)

// Array is a named numeric input: a scalar, a vector or a matrix in row-major
// order.
type Array struct {
	Name   string
	Shape  []int     // nil for a scalar, [n] for a vector, [n, m] for a matrix
	Values []float64 // row-major
	Int    bool      // every number was written as an integer
	Pos    ast.Pos   // where the array starts in its file
	loc    func(i int) ast.Pos
	// inexact holds the text of each element whose float64 is an integer
	// other than the number written (see parseNumber), by element index:
	// such an element is no int, though the float64 looks like one.
	inexact map[int]string
	// bad is the first problem reading the value as numbers (see Err),
	// other than a missing cell.
	bad *ast.Error
	// Missing lists the elements (row-major, increasing) whose cells were
	// missing: empty, NA, NaN, a blank line of a one-column CSV file, a
	// JSON null, "NaN" or "NA". Their Values are NaN. Bind keeps them for
	// data whose missing values the model fits (check.DataVar.Missing), and
	// the compiler makes them the latent NAME_missing; for other data the
	// first is an error (missErr, with why).
	Missing []int
	missErr *ast.Error
	// missJSON is how a JSON file wrote its first missing value (null,
	// "NaN", "NA" or NaN), for the hint that quotes it in a vector.
	missJSON string
	// blankTail counts the missing elements that are blank lines at the
	// end of a one-column CSV file (the last of Missing), for the note
	// that fits them (MissingNotes).
	blankTail int
	// rLength1 marks an R dump value of one element written bare or
	// with c(...): R has no scalars, so it binds a scalar and a vector of
	// one element alike.
	rLength1 bool
	// labels holds each element's text when the value is a CSV column of
	// labels: every cell that is not missing is text that is no number
	// (isLabelText), as a column of county names or "control"/"drug" is.
	// A missing element's is "". Bind codes such a column for an int
	// vector (codeLabels); nil for any other value. bad is then its first
	// cell, the error for any other declaration.
	labels []string
	// notLabels marks a column that has a cell that rules labels out
	// (a number, a logical, text that is a number written otherwise).
	notLabels bool
	// labelColumn names the column of labels whose first cell is bad (a
	// matrix's column, too), for the hint that an int vector codes it.
	labelColumn string
	// Levels is how Bind coded the labels of a CSV column into this
	// value's ints, or nil when it was given as numbers.
	Levels *Levels
	// sizeFrom is, for a size bound by the shape of other data, where
	// that shape came from ("the rows of teachers.csv"); see SizeFrom.
	sizeFrom string
	// codesNote is, for an int size bound from the largest value of the
	// numeric ids it bounds (boundByCodes), the note that says so; ""
	// for any other value.
	codesNote string
	// Columns names the CSV columns of a matrix made from a table, in
	// order (Table.Matrix), which a fit records (MatrixColumns); nil for
	// any other value.
	Columns []string
	// columnsNote says how a fit's columns were matched by name
	// (ColumnNotes); "" when they were not reordered.
	columnsNote string
}

// Levels is the coding of a column of labels as ints: Labels[k] is the
// int First+k. Bind codes a column by its distinct labels sorted in byte
// order (R's factor and bambi sort so too, in the C locale) from the
// declaration's lower bound, or 0, unless predict gives a fit's coding.
type Levels struct {
	First  int
	Labels []string
	// Column is the CSV column coded and File its file, for notes.
	Column, File string
	// Bounds lists the int data bound from the labels (boundByLabels),
	// as "J = 85", for notes; Sizes names them, in the same order.
	Bounds []string
	Sizes  []string
	// Grow, in a fit's coding given to BindCoded, codes a label that the
	// fit did not see after the fit's labels, in order of first
	// appearance, instead of refusing it (gpp predict --new-levels).
	Grow bool
	// New is the number of labels that Grow coded after the fit's.
	New int
	// Given says the labels' order came from the user (--levels), not
	// from sorting them.
	Given bool
	// With names the other columns coded together with this one (their
	// declarations index one axis: labelGroup), for notes.
	With []string
}

// problem is the first problem of the value, bad or its first missing
// cell (the first in the file), or nil.
func (a *Array) problem() *ast.Error {
	if a.bad == nil || a.missErr != nil && a.missErr.Pos.Before(a.bad.Pos) {
		return a.missErr
	}
	return a.bad
}

// miss records element i as missing, with err (at its cell) if it is the
// first.
func (a *Array) miss(i int, err *ast.Error) {
	if a.missErr == nil {
		a.missErr = err
	}
	a.Missing = append(a.Missing, i)
}

// isMissing reports whether element i is a missing cell.
func (a *Array) isMissing(i int) bool {
	_, ok := slices.BinarySearch(a.Missing, i)
	return ok
}

// rowless reports whether a is a column (or table) of no rows, which is
// neither labels nor numbers.
func (a *Array) rowless() bool { return a.Shape != nil && len(a.Values) == 0 }

// SizeFrom says where a size bound by the shape of other data came from
// ("the rows of teachers.csv"), for errors that show its value; "" for
// any other value.
func (a *Array) SizeFrom() string { return a.sizeFrom }

// Err returns why the value is not numbers of one shape — the first CSV
// cell that is not a number, or a JSON value of another type or shape — or
// nil. The readers keep such an error with the value rather than failing,
// so that data the model does not use is not read as numbers; Bind reports
// it when a declaration takes the value, and other users must check it.
func (a *Array) Err() error {
	if err := a.problem(); err != nil {
		return err
	}
	return nil
}

// noteInexact records that element i, written as text, was read inexactly.
func (a *Array) noteInexact(i int, text string) {
	if a.inexact == nil {
		a.inexact = map[int]string{}
	}
	a.inexact[i] = text
}

// text returns element i as written when that matters for a message (it
// was read inexactly), else v formatted.
func (a *Array) text(i int, v float64) string {
	if t, ok := a.inexact[i]; ok {
		return t
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// Locate returns the position of element i (row-major) in its source file.
func (a *Array) Locate(i int) ast.Pos {
	if a.loc == nil || i < 0 || i >= len(a.Values) {
		return a.Pos
	}
	return a.loc(i)
}

// Table is a CSV file: named columns of equal length.
type Table struct {
	File    string
	Columns []*Array // each a vector [rows]
	Rows    int
	// rowLine[r] is where row r starts and cellAt[r][j] where its cell
	// j does (a later line after a quoted cell holding a newline), to
	// locate cells for Matrix.
	rowLine []int
	cellAt  [][]lineCol
	// slot[j] is where column j's cell is in a row of cellAt, -1 for a
	// column whose cells were not kept (ParseCSV's keep); nil: j.
	slot []int
	// headerLine is the header's line (after comment lines), for messages.
	headerLine int
	// headerPos[j] is where column j's name is in the header.
	headerPos []ast.Pos
	format    delimited // how it was read, for hints about its separator
}

// lineCol is where a cell starts in its file; int32s halve the size of a
// large table's positions (a file read is under 2 GiB: maxDelimited).
type lineCol struct{ line, col int32 }

func (lc lineCol) pos(file string) ast.Pos {
	return ast.Pos{File: file, Line: int(lc.line), Col: int(lc.col)}
}

// lineCols hands out the rows of a table's cell positions from large
// blocks, not each row its own allocation.
type lineCols []lineCol

// next returns a row of n positions (to be set).
func (b *lineCols) next(n int) []lineCol {
	if len(*b) < n {
		*b = make([]lineCol, max(n, 64<<10/8)) // 64 KiB blocks
	}
	row := (*b)[:n:n]
	*b = (*b)[n:]
	return row
}

// take returns a copy of row in a block.
func (b *lineCols) take(row []lineCol) []lineCol {
	out := b.next(len(row))
	copy(out, row)
	return out
}

// Select returns the table of the named columns only, in that order, as
// NAME=FILE.csv:a,b,c binds them (a matrix of those columns, or a vector
// of one). A name not in the header, an empty one or one given twice is an
// error at the header naming the file, with the nearest column name and
// the header's columns; arg is the command-line argument, for messages.
func (t *Table) Select(names []string, arg string) (*Table, error) {
	pos := ast.Pos{File: t.File, Line: t.headerLine, Col: 1}
	var header []string
	for _, c := range t.Columns {
		header = append(header, c.Name)
	}
	if slices.Contains(names, "") {
		return nil, ast.Errorf(pos, "%s: an empty column name in the selection; list the header's names separated by commas, as NAME=%s:%s", arg, t.File, strings.Join(header[:min(len(header), 2)], ","))
	}
	if left, ok := ExcludedColumns(names); ok { // -gene: every column but these, in the file's order
		for i, n := range left {
			if slices.Contains(left[:i], n) {
				return nil, ast.Errorf(pos, "%s: column %q is left out twice", arg, n)
			}
			if !slices.Contains(header, n) {
				hint := ""
				if best := check.Suggest(n, header); best != "" {
					hint = fmt.Sprintf("; did you mean %q?", best)
				}
				return nil, ast.Errorf(pos, "%s: the header of %s has no column %q to leave out%s (its columns: %s)", arg, t.File, n, hint, listColumns(header))
			}
		}
		names = nil
		for _, h := range header {
			if !slices.Contains(left, h) {
				names = append(names, h)
			}
		}
		if len(names) == 0 {
			return nil, ast.Errorf(pos, "%s: leaves out every column of %s", arg, t.File)
		}
	} else if slices.Contains(names, "-") {
		return nil, ast.Errorf(pos, "%s: a column name is missing after '-'; name the column to leave out, as %s=%s:-%s", arg, strings.SplitN(arg, "=", 2)[0], t.File, header[0])
	} else if slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "-") }) {
		return nil, ast.Errorf(pos, "%s: a selection lists the columns to take (a,b) or those to leave out (-gene,-id), not both", arg)
	}
	index := make([]int, len(names))
	seen := map[string]bool{}
	for i, n := range names {
		if seen[n] {
			return nil, ast.Errorf(pos, "%s: column %q is selected twice", arg, n)
		}
		seen[n] = true
		index[i] = slices.IndexFunc(t.Columns, func(c *Array) bool { return c.Name == n })
		if index[i] < 0 {
			hint := ""
			if best := check.Suggest(n, header); best != "" {
				hint = fmt.Sprintf("; did you mean %q?", best)
			}
			return nil, ast.Errorf(pos, "%s: the header of %s has no column %q%s (its columns: %s)", arg, t.File, n, hint, listColumns(header))
		}
	}
	return t.sub(index), nil
}

// ExcludedColumns returns the columns a selection leaves out,
// NAME=FILE.csv:-gene,-id (each name after its -), and whether it is one:
// every name begins with "-" (a wide genes × samples file whose label
// column is not the matrix's). (Not LeftOutNotes' missing cells left out
// of the likelihood.)
func ExcludedColumns(sel []string) ([]string, bool) {
	if len(sel) == 0 {
		return nil, false
	}
	out := make([]string, len(sel))
	for i, n := range sel {
		if !strings.HasPrefix(n, "-") || len(n) == 1 {
			return nil, false
		}
		out[i] = n[1:]
	}
	return out, true
}

// sub returns the table of t's columns index, in that order.
func (t *Table) sub(index []int) *Table {
	out := &Table{File: t.File, Rows: t.Rows, rowLine: t.rowLine, headerLine: t.headerLine, format: t.format}
	for _, j := range index {
		if !t.kept(j) {
			panic(errNotKept)
		}
		out.Columns = append(out.Columns, t.Columns[j])
		out.headerPos = append(out.headerPos, t.header(j))
	}
	var rows lineCols
	for _, cells := range t.cellAt {
		row := rows.next(len(index))
		for i, j := range index {
			row[i] = cells[t.slotOf(j)]
		}
		out.cellAt = append(out.cellAt, row)
	}
	return out
}

// kept reports whether the cells of column j were kept (ParseCSV).
func (t *Table) kept(j int) bool { return t.slot == nil || t.slot[j] >= 0 }

// slotOf returns where column j's cells are in a row of t.cellAt.
func (t *Table) slotOf(j int) int {
	if t.slot == nil {
		return j
	}
	return t.slot[j]
}

// errNotKept is the panic of a table's method asked for the values of a
// column that ParseCSV did not keep: ColumnsRead must name every column
// that Bind reads.
const errNotKept = "data: the values of a column not kept (ParseCSV) are read"

// header returns where column j's name is in the header (the header's
// line for a table made in code).
func (t *Table) header(j int) ast.Pos {
	if j < len(t.headerPos) {
		return t.headerPos[j]
	}
	return ast.Pos{File: t.File, Line: max(t.headerLine, 1), Col: 1}
}

// Indexed returns the table of the columns that number the columns of a
// matrix named name, as draws.csv names the elements of a vector (CmdStan's
// convention: name.1, name.2, ..., 1-based) or bracketed with the same
// 1-based numbers (name[1], name[2], ...; gpp's summaries, which name
// elements 0-based, are not data), in the order of their numbers (name.10 after
// name.9), with their names; nil when the header has none. The numbers must
// run from 1 with none missing or given twice: else the error is at the
// header's column that breaks the run, naming the file. For a vector
// (vector true) the columns number its elements, which the errors say.
func (t *Table) Indexed(name string, vector bool) (*Table, []string, *ast.Error) {
	what, one := "columns", "column"
	if vector {
		what, one = "elements", "element"
	}
	type numbered struct{ k, j int }
	var cols []numbered
	for j, c := range t.Columns {
		if k, ok := columnIndex(c.Name, name); ok {
			cols = append(cols, numbered{k, j})
		}
	}
	if len(cols) == 0 {
		return nil, nil, nil
	}
	// stable: of two columns of one number, the later is the error
	slices.SortStableFunc(cols, func(a, b numbered) int { return a.k - b.k })
	index := make([]int, len(cols))
	names := make([]string, len(cols))
	for i, c := range cols {
		index[i], names[i] = c.j, t.Columns[c.j].Name
		at := t.header(c.j)
		switch {
		case c.k == 0:
			return nil, nil, ast.Errorf(at, "column %q: a data file numbers the %s of %s from 1 (%s, %s, ..., as CmdStan's draws.csv does), not from 0 as gpp's tables name elements", names[i], what, name, numberedLike(names[i], name, 1), numberedLike(names[i], name, 2))
		case i > 0 && c.k == cols[i-1].k:
			prev := cols[i-1].j
			return nil, nil, ast.Errorf(at, "column %q numbers %s %d of %s again, as %q at %s does", names[i], one, c.k, name, t.Columns[prev].Name, t.header(prev))
		case c.k != i+1:
			gap := numberedLike(names[i], name, i+1)
			if c.k > i+2 {
				gap += " to " + numberedLike(names[i], name, c.k-1)
			}
			return nil, nil, ast.Errorf(at, "column %q: the header has no %s before it; the %s of %s are numbered %s, %s, ... with none left out", names[i], gap, what, name, numberedLike(names[i], name, 1), numberedLike(names[i], name, 2))
		}
	}
	return t.sub(index), names, nil
}

// numberedLike names column k of matrix name as col, a column of it, is
// named: name.k or name[k].
func numberedLike(col, name string, k int) string {
	if strings.HasSuffix(col, "]") {
		return fmt.Sprintf("%s[%d]", name, k)
	}
	return fmt.Sprintf("%s.%d", name, k)
}

// columnIndex reports whether the column named col numbers a column of
// the matrix name, as name.k or name[k] with k decimal digits, and k.
func columnIndex(col, name string) (int, bool) {
	rest, ok := strings.CutPrefix(col, name)
	if !ok || len(rest) < 2 {
		return 0, false
	}
	switch {
	case rest[0] == '.':
		rest = rest[1:]
	case rest[0] == '[' && rest[len(rest)-1] == ']':
		rest = rest[1 : len(rest)-1]
	default:
		return 0, false
	}
	if rest == "" || strings.Trim(rest, "0123456789") != "" {
		return 0, false
	}
	k, err := strconv.Atoi(rest)
	if err != nil {
		return 0, false // too many digits to be a column's number
	}
	return k, true
}

// listColumns lists a header's names for a message, the first 20 of a
// longer one.
func listColumns(header []string) string {
	const most = 20
	if len(header) <= most {
		return strings.Join(header, ", ")
	}
	return fmt.Sprintf("%s, ... (%d in all)", strings.Join(header[:most], ", "), len(header))
}

// Column returns the column with the given name, or nil.
func (t *Table) Column(name string) *Array {
	for _, c := range t.Columns {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Matrix returns all columns of the table as one [rows, columns] matrix named
// name, integer when every column is.
func (t *Table) Matrix(name string) *Array {
	m := &Array{Name: name, Shape: []int{t.Rows, len(t.Columns)}, Int: true, Pos: ast.Pos{File: t.File, Line: 1, Col: 1}}
	m.Values = make([]float64, t.Rows*len(t.Columns))
	for j, c := range t.Columns {
		if !t.kept(j) {
			panic(errNotKept)
		}
		m.Columns = append(m.Columns, c.Name)
		m.Int = m.Int && c.Int
		for i, v := range c.Values {
			m.Values[i*len(t.Columns)+j] = v
		}
		for i, text := range c.inexact {
			m.noteInexact(i*len(t.Columns)+j, text)
		}
		if c.bad != nil && (m.bad == nil || c.bad.Pos.Before(m.bad.Pos)) {
			m.bad = c.bad // the first in the file
			m.labelColumn = c.labelColumn
		}
		if c.missErr != nil && (m.missErr == nil || c.missErr.Pos.Before(m.missErr.Pos)) {
			m.missErr = c.missErr
		}
		for _, i := range c.Missing {
			m.Missing = append(m.Missing, i*len(t.Columns)+j)
		}
	}
	slices.Sort(m.Missing)
	if t.Rows > 0 {
		m.Pos = ast.Pos{File: t.File, Line: t.rowLine[0], Col: 1}
	}
	// the positions only, not t: the columns a model does not read are
	// garbage once the data are bound
	cellAt, cols, file, slot := t.cellAt, len(t.Columns), t.File, t.slot
	m.loc = func(k int) ast.Pos {
		i, j := k/cols, k%cols
		if slot != nil {
			j = slot[j]
		}
		return cellAt[i][j].pos(file)
	}
	return m
}

// bom is the UTF-8 byte-order mark, which some editors and spreadsheets put
// at the start of a file; the readers skip it.
const bom = "\ufeff"

// readText reads a whole text data file (JSON, an R dump) without its
// byte-order mark; a file in a wide encoding or a binary one is an error
// at its start, advice saying what to write instead of a binary file.
func readText(file string, r io.Reader, advice string) ([]byte, error) {
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, ast.Errorf(ast.Pos{File: file}, "%v", err)
	}
	if head := src[:min(len(src), textenc.Sample)]; textenc.Wide(head) != "" {
		return nil, encodingError(file, head)
	} else if kind := textenc.Binary(head); kind != "" {
		return nil, ast.Errorf(ast.Pos{File: file, Line: 1, Col: 1}, "the file is %s: %s", kind, advice)
	}
	return bytes.TrimPrefix(src, []byte(bom)), nil
}

// encodingError is the error for a file in a wide encoding (textenc.Wide).
func encodingError(file string, head []byte) error {
	return ast.Errorf(ast.Pos{File: file, Line: 1, Col: 1}, "the file is %s encoded; save it as UTF-8", textenc.Wide(head))
}

// delimited is a text table's format: the comma-separated files that
// most tools write, or the tab-separated ones of R's write.table(sep =
// "\t"), pandas' to_csv(sep="\t") and spreadsheets' "Text (tab delimited)".
type delimited struct {
	sep  rune
	kind string // CSV or TSV, as the messages name the file
	what string // what gpp reads of this kind: "comma-separated files"
}

var (
	csvFormat = delimited{',', "CSV", "comma-separated files"}
	tsvFormat = delimited{'\t', "TSV", "a .tsv file as tab-separated"}
)

// ReadTSV reads a tab-separated file as ReadCSV reads a comma-separated
// one: the same header, cells, missing values and errors.
func ReadTSV(file string, r io.Reader) (*Table, error) {
	return readDelimited(file, r, tsvFormat)
}

// ReadCSV reads a CSV file with a header row of column names and numeric
// cells. A file that is not well-formed CSV is an error naming the file,
// line and column. A non-numeric or infinite cell is kept as its column's
// error (Array.Err, read as NaN) instead: it is an error only for a column
// that the model reads, so that a file may carry columns of names or notes
// beside the data. A missing cell (empty, NA, NaN, a blank line of a
// one-column file) is NaN in Array.Missing, an error unless the model fits
// it (Bind). A logical cell, TRUE or FALSE in any case, is the int 1 or 0.
func ReadCSV(file string, r io.Reader) (*Table, error) {
	return readDelimited(file, r, csvFormat)
}

// ParseCSV is ReadCSV of a file's contents src, which it does not copy
// and which must not change while the table is in use: gpp holds a data
// file's contents anyway, to quote them in messages. A column whose name
// keep rejects (nil keeps all) is read as ReadCSV reads it, for its Err
// and Int, but its cells' values and positions are not kept: its Values
// and Missing are nil. ColumnsRead gives the columns Bind may read.
func ParseCSV(file string, src []byte, keep func(column string) bool) (*Table, error) {
	return parseDelimited(file, src, csvFormat, keep)
}

// ParseTSV is ReadTSV of a file's contents src, as ParseCSV.
func ParseTSV(file string, src []byte, keep func(column string) bool) (*Table, error) {
	return parseDelimited(file, src, tsvFormat, keep)
}

// readDelimited reads a table of format f (ReadCSV, ReadTSV).
func readDelimited(file string, r io.Reader, f delimited) (*Table, error) {
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return parseDelimited(file, src, f, nil)
}

// maxDelimited is the size of the largest text table read, so that every
// line and column number fits the int32s of the cells' positions.
const maxDelimited = math.MaxInt32 - 1

// parseDelimited reads the contents src of a table of format f.
func parseDelimited(file string, src []byte, f delimited, keep func(string) bool) (*Table, error) {
	if head := src[:min(len(src), textenc.Sample)]; textenc.Wide(head) != "" {
		return nil, encodingError(file, head)
	} else if kind := textenc.Binary(head); kind != "" {
		return nil, ast.Errorf(ast.Pos{File: file, Line: 1, Col: 1}, "the file is %s: save the data as a CSV file (text)", kind)
	}
	src = bytes.TrimPrefix(src, []byte(bom)) // Excel's "CSV UTF-8" starts with one
	if len(src) > maxDelimited {
		return nil, ast.Errorf(ast.Pos{File: file, Line: 1, Col: 1}, "the file is %d bytes: gpp reads %s of less than 2 GiB", len(src), f.what)
	}
	if err := notUTF8(file, src); err != nil {
		return nil, err
	}
	if bytes.IndexByte(src, '\n') < 0 && bytes.Count(src, []byte("\r")) > 1 {
		// The CSV reader would see one line, a header and no rows.
		return nil, ast.Errorf(ast.Pos{File: file, Line: 1, Col: 1}, "the lines end with a carriage return alone (old Mac line endings): save the file with LF or CRLF line endings")
	}
	if first, _, _ := bytes.Cut(src, []byte("\n")); bytes.HasPrefix(first, []byte("sep=")) {
		// Excel's separator line: "sep=," is read as a comment, keeping
		// the lines' numbers; another separator is not read.
		sep := string(bytes.TrimRight(first[len("sep="):], "\r"))
		if sep != string(f.sep) {
			advice := "save it as CSV with commas"
			switch {
			case sep == "," && f.sep != ',':
				advice = "name it FILE.csv"
			case sep == "\t" && f.sep != '\t':
				advice = "name it FILE.tsv"
			}
			return nil, ast.Errorf(ast.Pos{File: file, Line: 1, Col: 1}, "the file says its cells are separated by %q (Excel's sep= line); gpp reads %s: %s", sep, f.what, advice)
		}
		src = slices.Clone(src)
		src[0] = '#'
	}
	cr := csv.NewReader(bytes.NewReader(src))
	cr.Comma = f.sep
	cr.Comment = '#'
	// Leading space is trimmed from each cell below; the reader's own
	// trimming would take a tab for space too, and merge a tab-separated
	// file's empty cells ("1\t\t3" read as 1 and 3).
	cr.TrimLeadingSpace = f.sep != '\t'
	cr.ReuseRecord = true // each row's cells are read before the next
	header, err := cr.Read()
	header = slices.Clone(header)
	headerLine := 1
	if err == nil {
		headerLine, _ = cr.FieldPos(0)
	}
	if err == io.EOF {
		return nil, ast.Errorf(ast.Pos{File: file, Line: 1, Col: 1}, "empty %s file: expected a header row of column names", f.kind)
	}
	if err != nil {
		return nil, csvError(file, src, err, f.sep, nil)
	}
	if err := f.otherSep(file, src, header, headerLine); err != nil {
		return nil, err
	}
	t := &Table{File: file, headerLine: headerLine, format: f}
	// Each line after the header holds a row at most, and each row but
	// the last takes a byte for each column at least (its separators and
	// newline): the slices of the rows are made that long at once, not
	// grown by doubling, and no longer than the file allows.
	rowsAtMost := max(0, min(bytes.Count(src, []byte("\n"))+1-headerLine, len(src)/len(header)+1))
	seen := map[string]int{}
	for j, h := range header {
		line, col := cr.FieldPos(j)
		h = strings.TrimSpace(h)
		pos := ast.Pos{File: file, Line: line, Col: col}
		if h == "" {
			hint := ""
			switch {
			case j == 0 && len(header) > 1:
				hint = " (a row index, as pandas and R write by default? write the file with to_csv(..., index=False) in pandas, write.csv(..., row.names = FALSE) in R)"
			case j > 0 && strings.TrimSpace(strings.Join(header[j:], "")) == "":
				hint = " (a " + f.sepName() + " at the end of the line, as spreadsheets write after the last column? remove it, or name the column)"
			}
			return nil, ast.Errorf(pos, "column %d has an empty name in the header%s", j+1, hint)
		}
		if _, err := strconv.ParseFloat(h, 64); err == nil {
			return nil, ast.Errorf(pos, "the header cell %q is a number: the first row must name the columns", h)
		}
		if k, dup := seen[h]; dup {
			return nil, ast.Errorf(pos, "column name %q appears twice in the header (columns %d and %d)", h, k+1, j+1)
		}
		seen[h] = j
		t.Columns = append(t.Columns, &Array{Name: h, Int: true, Pos: pos})
		t.headerPos = append(t.headerPos, pos)
	}
	// the columns kept (all of a one-column file, whose blank lines are
	// rows) and where each's cells are in a row of t.cellAt
	kept := len(header)
	if keep != nil && len(header) > 1 {
		t.slot = make([]int, len(header))
		kept = 0
		for j, c := range t.Columns {
			t.slot[j] = -1
			if keep(c.Name) {
				t.slot[j] = kept
				kept++
			}
		}
	}
	for j, c := range t.Columns {
		if t.kept(j) {
			c.Values = make([]float64, 0, rowsAtMost)
		}
	}
	var cellRows lineCols
	if rowsAtMost*kept <= 1<<26 { // 512 MiB of positions; else in blocks
		cellRows = make(lineCols, rowsAtMost*kept)
	}
	t.rowLine = make([]int, 0, rowsAtMost)
	t.cellAt = make([][]lineCol, 0, rowsAtMost)
	// A blank line in a one-column file is a missing value (pandas writes
	// NaN so), which the CSV reader would skip: it is the column's empty
	// cell, a row of its own. In a wider file a missing row would be ",,",
	// and blank lines are only spacing.
	var lines [][]byte
	if len(header) == 1 {
		lines = bytes.Split(src, []byte("\n"))
	}
	prevEnd := headerLine
	// notNum counts each column's cells that are not numbers, for its
	// error (notNumbers), with the first few's lines.
	notNum := make([]notNumbers, len(header))
	const atEnd = " (a blank line at the end: delete it if it is not a missing value)"
	lastText := len(lines) // the last line that is not blank
	for lastText > 0 && len(bytes.TrimSpace(lines[lastText-1])) == 0 {
		lastText--
	}
	blanks := func(upTo int) { // blank lines after prevEnd, before line upTo
		c := t.Columns[0]
		for l := prevEnd + 1; l < upTo && l <= len(lines); l++ {
			if len(bytes.TrimSpace(lines[l-1])) == 0 && l < len(lines) {
				// A blank line at the end is a missing last value as
				// pandas writes it, or an editor's: the message says both.
				at := ""
				if l > lastText {
					at = atEnd
					c.blankTail++
				}
				c.miss(len(c.Values), ast.Errorf(ast.Pos{File: file, Line: l, Col: 1}, "column %q: line %d is blank, an empty cell in a one-column file%s", header[0], l, at))
				c.Values = append(c.Values, math.NaN())
				t.rowLine = append(t.rowLine, l)
				t.cellAt = append(t.cellAt, cellRows.take([]lineCol{{int32(l), 1}}))
				t.Rows++
			}
		}
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			if len(header) == 1 {
				blanks(len(lines))
			}
			break
		}
		if err != nil {
			if errors.Is(err, csv.ErrFieldCount) && rec != nil { // Read returns the row with this error
				line, _ := cr.FieldPos(0)
				pos := ast.Pos{File: file, Line: line, Col: 1}
				hint := f.countHint(header, rec)
				if len(rec) > len(header) && f.sepHint(header) == "" && strings.TrimSpace(strings.Join(rec[len(header):], "")) == "" {
					// Empty cells past the header's: a separator
					// after the last column, at the caret (the one
					// before the first such cell: the last column's
					// own cell may be empty too).
					l, c := cr.FieldPos(len(header))
					text := bytes.Split(src, []byte("\n"))[l-1]
					space := " \t"
					if f.sep == '\t' {
						space = " "
					}
					pos.Line, pos.Col = l, len(bytes.TrimRight(text[:min(c-1, len(text))], space))
					hint = fmt.Sprintf(" (a %s at the end of the line, as spreadsheets write after the last column? remove it from the rows, or name the column in the header)", f.sepName())
				}
				return nil, ast.Errorf(pos, "this row has %d cell%s, the header %d%s", len(rec), plural(len(rec)), len(header), hint)
			}
			return nil, csvError(file, src, err, f.sep, header)
		}
		line, _ := cr.FieldPos(0)
		if len(header) == 1 {
			blanks(line)
			prevEnd = line + strings.Count(rec[0], "\n")
		}
		cells := cellRows.next(kept)
		for j, cell := range rec {
			cellLine, col := cr.FieldPos(j)
			at := lineCol{int32(cellLine), int32(col)}
			pos := at.pos(file)
			text := strings.TrimSpace(cell)
			c := t.Columns[j]
			// a column not kept is read for its error and Int alone
			store := t.kept(j)
			if store {
				cells[t.slotOf(j)] = at
			} else if t.Rows == 0 {
				c.Pos = pos
			}
			if isMissingText(text) && f.sepHint(header) == "" {
				what := "empty cell"
				if text != "" {
					what = strconv.Quote(text) + " is read as a missing value"
				} else if len(header) == 1 && line > lastText { // spaces alone
					what += atEnd
					c.blankTail++
				}
				var err *ast.Error
				if c.missErr == nil { // only the first is kept
					err = ast.Errorf(pos, "column %q: %s", header[j], what)
				}
				if !store {
					c.missErr = cmp.Or(c.missErr, err)
					continue
				}
				c.miss(len(c.Values), err)
				c.Values = append(c.Values, math.NaN())
				continue
			}
			v, isInt, exact, fail := scanNumber(text)
			if b, ok := logicalText(text); ok {
				v, isInt, exact, fail = b, true, true, numberOK
			}
			if fail != numberOK {
				if c.bad == nil {
					hint := f.cellHint(header, cell)
					if hint == "" && censoredText(text) {
						hint = censoredHint
					}
					c.bad = ast.Errorf(pos, "column %q: %v", header[j], fail.err(text))
					notNum[j].hint = hint
				}
				notNum[j].add(cellLine)
				v, isInt, exact = math.NaN(), false, true
				if !store {
					c.notLabels = true // no labels are kept
				} else if !c.notLabels && isLabelText(text) && f.cellHint(header, cell) == "" {
					for len(c.labels) < len(c.Values) {
						c.labels = append(c.labels, "") // missing cells before it
					}
					// a copy, shared by the cells of one label: text
					// is part of the row's string, which it would keep
					c.labels = append(c.labels, unique.Make(text).Value())
				} else {
					c.notLabels = true
				}
			} else {
				c.notLabels = true // a number or a logical
				notNum[j].nums++
			}
			c.Int = c.Int && isInt
			if !store {
				continue
			}
			if !exact {
				c.noteInexact(len(c.Values), text)
			}
			c.Values = append(c.Values, v)
		}
		t.rowLine = append(t.rowLine, line)
		t.cellAt = append(t.cellAt, cells)
		t.Rows++
	}
	for j, c := range t.Columns {
		notNum[j].tell(c.bad, t.Rows)
		c.Shape = []int{t.Rows}
		if c.notLabels || c.labels == nil {
			c.labels = nil // a column mixing numbers and text is no column of labels
		} else {
			for len(c.labels) < t.Rows {
				c.labels = append(c.labels, "")
			}
			c.labelColumn = c.Name
		}
		if !t.kept(j) {
			continue // c.Pos is its first cell's
		}
		// the positions only, not t: the columns a model does not read
		// are garbage once the data are bound
		cellAt, k := t.cellAt, t.slotOf(j)
		c.loc = func(i int) ast.Pos { return cellAt[i][k].pos(file) }
		if t.Rows > 0 {
			c.Pos = c.loc(0)
		}
	}
	if t.Rows == 0 {
		// columns of no rows, as JSON's [] gives them: an empty
		// held-out set; a column's position is the header's
		for _, c := range t.Columns {
			c.Pos = ast.Pos{File: file, Line: headerLine, Col: 1}
		}
	}
	return t, nil
}

// cellHint explains the common causes of a cell that is not a number: a
// file separated by semicolons or tabs (see sepHint), Stata's and SAS's
// missing value ".", and a number written with a thousands separator or a
// decimal comma in a quoted cell ("1,000", "1,5").
func (f delimited) cellHint(header []string, cell string) string {
	if h := f.sepHint(header); h != "" {
		return h
	}
	text := strings.TrimSpace(cell)
	if strings.ContainsRune(text, '\u2212') {
		return fmt.Sprintf(" (the minus sign \u2212 of typeset text? write %s)", strings.ReplaceAll(text, "\u2212", "-"))
	}
	if text == "." {
		return " (a missing value, as Stata, SAS and NONMEM write it? write NA or leave the cell empty)"
	}
	if ascii, ok := otherDigits(text); ok {
		return fmt.Sprintf(" (digits of another script? write %s)", ascii)
	}
	if !strings.Contains(text, ",") {
		return ""
	}
	plain := strings.ReplaceAll(text, ",", "")
	if _, err := strconv.ParseFloat(plain, 64); err != nil || strings.ContainsAny(plain, "_xXnN") {
		return ""
	}
	if thousands(text) {
		return fmt.Sprintf(" (a thousands separator? write %s)", plain)
	}
	if strings.Count(text, ",") == 1 && !strings.Contains(text, ".") {
		return fmt.Sprintf(" (a decimal comma? write %s)", strings.Replace(text, ",", ".", 1))
	}
	return ""
}

// censoredHint follows the error of a cell that reads as a value below a
// detection limit (censoredText).
const censoredHint = " (a value below a detection limit, as lab exports write it? give the column as numbers, the limit in such rows and the value measured in the others, and add a 0/1 column that is 1 where the value is censored, which the model reads in an if: docs/language.md, Censored data: logcdf and logccdf)"

// censoredText reports whether a cell's text is a value below a detection
// limit as laboratories export it: "<5.0", "< 5", "<LOD", "ND", "n.d.",
// "BDL".
func censoredText(text string) bool {
	if strings.HasPrefix(text, "<") || strings.HasPrefix(text, "\u2264") {
		return true
	}
	t := strings.NewReplacer(".", "", " ", "", "_", "", "-", "").Replace(strings.ToLower(text))
	switch t {
	case "nd", "bdl", "bql", "blq", "lod", "loq", "belowdl", "belowlod", "notdetected", "nondetect":
		return true
	}
	return false
}

// notNumbers counts the cells of a column that are not numbers, with the
// lines of the first few, so that its error says how many there are.
type notNumbers struct {
	n, nums int // cells that are not numbers, and that are
	lines   []int
	hint    string // the first's (cellHint, censoredHint)
}

// add counts a cell at line.
func (b *notNumbers) add(line int) {
	b.n++
	if len(b.lines) < 5 {
		b.lines = append(b.lines, line)
	}
}

// tell adds the count to err, the column's error at its first such cell,
// when there are more than one among numbers (of rows: a column of text
// alone is one of labels, or of another kind, which its hint names), and
// then the first's hint.
func (b *notNumbers) tell(err *ast.Error, rows int) {
	if err == nil {
		return
	}
	defer func() { err.Msg += b.hint }()
	if b.n < 2 || b.nums == 0 {
		return
	}
	lines := make([]string, 0, len(b.lines)+1)
	for _, l := range b.lines[1:] {
		lines = append(lines, strconv.Itoa(l))
	}
	if b.n > len(b.lines) {
		lines = append(lines, "…")
	}
	more := fmt.Sprintf("are %d more of the column's %d cells, on lines", b.n-1, rows)
	if b.n == 2 {
		more = fmt.Sprintf("is 1 more of the column's %d cells, on line", rows)
	}
	err.Msg += fmt.Sprintf(", nor %s %s", more, strings.Join(lines, ", "))
}

// otherDigits rewrites s in ASCII digits when it is a number written with
// decimal digits of another script (Arabic-Indic ١٢, fullwidth １２), at
// least one of them not ASCII, with signs, points and commas (fullwidth
// too): such text is a number, which must stay an error, never a label
// (isLabelText).
// Unicode assigns each script's digits 0 to 9 in a contiguous run
// starting at a multiple of ten from the run's first, so a digit's value
// is its distance from the start of its run, mod 10.
func otherDigits(s string) (string, bool) {
	var b strings.Builder
	other := false
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9' || strings.ContainsRune("+-.,", r):
			b.WriteRune(r)
		case r >= '\uff0b' && r <= '\uff0e': // fullwidth + , - .
			b.WriteRune(r - '\uff0b' + '+')
		case unicode.IsDigit(r):
			start := r
			for unicode.IsDigit(start - 1) {
				start--
			}
			b.WriteByte(byte('0' + (r-start)%10))
			other = true
		default:
			return "", false
		}
	}
	return b.String(), other
}

// thousands reports whether s is an integer part grouped by commas in
// threes (1,000 or -12,345,678.5), as spreadsheets format numbers.
func thousands(s string) bool {
	s = strings.TrimLeft(s, "+-")
	s, _, _ = strings.Cut(s, ".")
	groups := strings.Split(s, ",")
	if len(groups[0]) < 1 || len(groups[0]) > 3 {
		return false
	}
	for _, g := range groups[1:] {
		if len(g) != 3 {
			return false
		}
	}
	return true
}

// countHint explains a row of more cells than a one-column header has:
// a file separated by semicolons or tabs (sepHint), whose decimal commas
// split its numbers, or a one-column file of decimal commas (1,5).
func (f delimited) countHint(header, rec []string) string {
	if h := f.sepHint(header); h != "" {
		return h
	}
	if f.sep != ',' || len(header) != 1 || len(rec) < 2 {
		return ""
	}
	for i, cell := range rec {
		cell = strings.TrimSpace(cell)
		if i == 0 {
			cell = strings.TrimLeft(cell, "+-")
		}
		if cell == "" || strings.Trim(cell, "0123456789") != "" {
			return ""
		}
	}
	return fmt.Sprintf(" (decimal commas, as in %s? gpp reads numbers with a decimal point, %s)", strings.Join(rec, ","), strings.Join(rec, "."))
}

// logicalText reads a logical cell as R's write.csv (TRUE, FALSE) and
// pandas' to_csv (True, False) write it: 1 or 0, an int, as R's
// as.integer and NumPy read it.
func logicalText(s string) (float64, bool) {
	if len(s) != len("true") && len(s) != len("false") {
		return 0, false
	}
	switch strings.ToLower(s) {
	case "true":
		return 1, true
	case "false":
		return 0, true
	}
	return 0, false
}

// isLabelText reports whether a cell's text, which is not a number gpp
// reads (parseNumber) nor a logical, may be a label: text that is no
// number written in any other way either (an infinity, a number too large
// for a float64, Go's hexadecimal floats). Text that a cell hint reads as
// a number written otherwise (a thousands separator, a decimal comma,
// Stata's ".") is ruled out by the caller: a numeric column written so
// must stay an error, not become categories.
func isLabelText(s string) bool {
	if s != "" && !mayBeFloat(s) {
		return true // not even the start of a number
	}
	_, err := strconv.ParseFloat(s, 64)
	return err != nil && !errors.Is(err, strconv.ErrRange)
}

// isMissingText reports whether a cell's text marks a missing value: empty,
// or NA, N/A, NaN, null or None in any case (as R, pandas and spreadsheets
// write them).
func isMissingText(s string) bool {
	if len(s) > len("none") && notSpace(s[0]) && notSpace(s[len(s)-1]) {
		return false // longer than any marker, with no space to trim: a number, mostly
	}
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "na", "n/a", "nan", "null", "none", "":
		return true
	}
	return false
}

// notSpace reports whether byte c is ASCII and no space, so that
// strings.TrimSpace would not trim a string at it.
func notSpace(c byte) bool { return c > ' ' && c < utf8.RuneSelf }

// sepName names f's separator for messages: "comma" or "tab".
func (f delimited) sepName() string {
	if f.sep == '\t' {
		return "tab"
	}
	return "comma"
}

// notUTF8 is the error for text src that is not UTF-8, at its first byte
// that is not: a file saved as Windows-1252 or Latin-1 (Excel's plain
// "CSV" on Windows, older editors) has é as the single byte 0xE9. Read on,
// its labels would be no text that fit.json can record, and a column
// holding one would be taken for numbers; so it is refused wherever the
// byte is, a column the model does not read or a comment as well.
func notUTF8(file string, src []byte) error {
	if utf8.Valid(src) {
		return nil
	}
	at := 0
	for at < len(src) {
		r, n := utf8.DecodeRune(src[at:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		at += n
	}
	line := 1 + bytes.Count(src[:at], []byte("\n"))
	col := at - bytes.LastIndexByte(src[:at], '\n')
	return ast.Errorf(ast.Pos{File: file, Line: line, Col: col}, "the file is not UTF-8: the byte 0x%02X here is no UTF-8 text (a Windows-1252 or Latin-1 file, as Excel's plain \"CSV\" saves one?); save it as \"CSV UTF-8\" (Excel), with the encoding UTF-8 (LibreOffice, an editor), or convert it: iconv -f WINDOWS-1252 -t UTF-8", src[at])
}

// otherSep is the error at the header for a file separated by another
// separator than f's, which the reader read as one column (a header of
// one name holding the separator): semicolons, as spreadsheets save "CSV"
// where the decimal mark is a comma (its numbers then written 0,5);
// tabs in a .csv file; commas in a .tsv file. It is that only when every
// row splits into as many cells as the header by that separator, so that
// a one-column file whose name holds a ";" is read as it is.
func (f delimited) otherSep(file string, src []byte, header []string, headerLine int) error {
	if len(header) != 1 {
		return nil
	}
	for _, sep := range []rune{';', '\t', ','} {
		if sep == f.sep || !strings.ContainsRune(header[0], sep) {
			continue
		}
		cr := csv.NewReader(bytes.NewReader(src))
		cr.Comma, cr.Comment, cr.TrimLeadingSpace = sep, '#', sep != '\t'
		rows, err := cr.ReadAll()
		if err != nil || len(rows) == 0 || len(rows[0]) < 2 {
			continue
		}
		decimal := "" // the first number written with a decimal comma
		if sep == ';' {
		find:
			for _, row := range rows[1:] {
				for _, cell := range row {
					if c := strings.TrimSpace(cell); strings.Count(c, ",") == 1 && !strings.Contains(c, ".") {
						if _, err := strconv.ParseFloat(strings.Replace(c, ",", ".", 1), 64); err == nil {
							decimal = c
							break find
						}
					}
				}
			}
		}
		line := bytes.Split(src, []byte("\n"))[headerLine-1]
		pos := ast.Pos{File: file, Line: headerLine, Col: 1 + max(0, bytes.IndexRune(line, sep))}
		switch {
		case sep == '\t':
			return ast.Errorf(pos, "the file is separated by tabs; gpp reads %s: name it FILE.tsv, which gpp reads as tab-separated", f.what)
		case sep == ',':
			return ast.Errorf(pos, "the file is separated by commas; gpp reads %s: name it FILE.csv", f.what)
		case decimal != "":
			return ast.Errorf(pos, "the file is separated by semicolons and writes numbers with a decimal comma (%s), as spreadsheets save \"CSV\" where the decimal mark is a comma; gpp reads %s with a decimal point (%s): save it with commas between the cells and decimal points, as pandas does with pd.read_csv(FILE, sep=\";\", decimal=\",\").to_csv(NEW, index=False) and R with write.csv(read.csv2(FILE), NEW, row.names = FALSE)", decimal, f.what, strings.Replace(decimal, ",", ".", 1))
		}
		return ast.Errorf(pos, "the file is separated by semicolons, as spreadsheets save \"CSV\" where the decimal mark is a comma; gpp reads %s: save it with commas between the cells, as pandas does with pd.read_csv(FILE, sep=\";\").to_csv(NEW, index=False) and R with write.csv(read.csv2(FILE), NEW, row.names = FALSE)", f.what)
	}
	return nil
}

// sepHint explains a header of one column whose name holds another
// separator than f's (semicolons, a spreadsheet's regional default; tabs;
// commas in a .tsv file): a file separated by it, read as one column.
func (f delimited) sepHint(header []string) string {
	if f.sep == 0 { // a Table built in Go, not read
		f = csvFormat
	}
	if len(header) == 1 {
		for _, sep := range []string{";", "\t", ","} {
			if sep != string(f.sep) && strings.Contains(header[0], sep) {
				hint := ""
				switch {
				case sep == "\t":
					hint = ": name it FILE.tsv"
				case sep == ",":
					hint = ": name it FILE.csv"
				}
				return fmt.Sprintf(" (the file looks separated by %q; gpp reads %s%s)", sep, f.what, hint)
			}
		}
	}
	return ""
}

// csvError is the positioned error for an error of the CSV reader reading
// src, cells separated by sep. A file that ends inside a quoted cell is an
// error at the end of its last line that is not blank, naming the line
// where the cell's row starts: the reader's position is past the text,
// after the last newline. A misplaced quote in a row of one line names
// its column from header (nil while the header is read) and says how a
// quote is written in a cell.
func csvError(file string, src []byte, err error, sep rune, header []string) error {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return ast.Errorf(ast.Pos{File: file}, "%v", err)
	}
	msg := pe.Err.Error()
	switch {
	case errors.Is(pe.Err, csv.ErrFieldCount):
		msg = "wrong number of cells in this row (the header has a different number of columns)"
	case errors.Is(pe.Err, csv.ErrBareQuote):
		msg = `a " inside a cell that does not start with one (` + msg + `): quote the whole cell and double each " in it (2"x is written "2""x"), or remove the "`
	case errors.Is(pe.Err, csv.ErrQuote):
		msg = `a quoted cell's closing " is followed by more text (` + msg + `): a " inside a quoted cell is written twice ("")`
	}
	pos := ast.Pos{File: file, Line: pe.Line, Col: pe.Column}
	lines := bytes.Split(src, []byte("\n"))
	if pe.Line < 1 || pe.Line > len(lines) {
		return ast.Errorf(pos, "%s", msg)
	}
	line := bytes.TrimRight(lines[pe.Line-1], "\r")
	pos.Col = min(pos.Col, len(line)+1)
	if j := cellIndex(line, pos.Col, sep); header != nil && pe.StartLine == pe.Line && j < len(header) {
		msg = fmt.Sprintf("column %q: %s", strings.TrimSpace(header[j]), msg)
	}
	rest := append([][]byte{line[max(pos.Col-1, 0):]}, lines[pe.Line:]...)
	if errors.Is(pe.Err, csv.ErrQuote) && len(bytes.TrimSpace(bytes.Join(rest, nil))) == 0 {
		msg = fmt.Sprintf("the file ends inside a quoted cell of the row on line %d: a \" is never closed", pe.StartLine)
		for pos.Line > pe.StartLine && len(bytes.TrimSpace(lines[pos.Line-1])) == 0 {
			pos.Line--
		}
		pos.Col = len(bytes.TrimRight(lines[pos.Line-1], "\r")) + 1
	}
	return ast.Errorf(pos, "%s", msg)
}

// cellIndex returns the index of the cell of line (a row of one line)
// that holds the byte at col (1-based): the separators sep before it that
// are outside quotes.
func cellIndex(line []byte, col int, sep rune) int {
	j, quoted := 0, false
	for _, r := range string(line[:min(max(col-1, 0), len(line))]) {
		switch {
		case r == '"':
			quoted = !quoted
		case r == sep && !quoted:
			j++
		}
	}
	return j
}

// parseNumber parses a numeric cell, rejecting empty cells, NaN and
// infinities, and reports whether it was written as an integer. Only
// decimal numbers are accepted: strconv.ParseFloat's Go syntax would also
// read "1_5" as 15 and "0x1p4" as 16. exact is false when v is an integer
// but not the number written (check.IntegerText): 9007199254740993 is read
// as 2^53, 1.00000000000000000001 as 1; either is an error for int data.
func parseNumber(s string) (v float64, isInt, exact bool, err error) {
	v, isInt, exact, fail := scanNumber(s)
	return v, isInt, exact, fail.err(s)
}

// numberFail is why scanNumber did not read a cell as a number, the
// error that parseNumber makes of it only when one is wanted: a column
// of labels has a failure at every cell, and only its first is reported.
type numberFail uint8

const (
	numberOK numberFail = iota
	numberEmpty
	numberRange
	numberSyntax
	numberInf
)

// err returns the error parseNumber gives for the failure on s, or nil.
func (f numberFail) err(s string) error {
	switch f {
	case numberEmpty:
		return errors.New("empty cell: expected a number")
	case numberRange:
		return fmt.Errorf("%q is out of range", s)
	case numberSyntax:
		return fmt.Errorf("%q is not a number", s)
	case numberInf:
		return errors.New(infError(s))
	}
	return nil
}

// scanNumber is parseNumber without making an error: it scans s once for
// the bytes that decide what was written, and skips strconv.ParseFloat
// for text that cannot start a number (a label such as "School 3").
func scanNumber(s string) (v float64, isInt, exact bool, fail numberFail) {
	if s == "" {
		return 0, false, false, numberEmpty
	}
	if !mayBeFloat(s) {
		return 0, false, false, numberSyntax
	}
	goSyntax, notInt := false, false // "_xX" and ".eEnN" in s
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '_', 'x', 'X':
			goSyntax = true
		case '.', 'e', 'E', 'n', 'N':
			notInt = true
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil && errors.Is(err, strconv.ErrRange) && !goSyntax {
		return 0, false, false, numberRange
	}
	if err != nil || goSyntax {
		return 0, false, false, numberSyntax
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false, false, numberInf
	}
	isInt = !notInt && v == math.Trunc(v)
	exact = true
	if v == math.Trunc(v) && !(isInt && math.Abs(v) < check.MaxInt) {
		_, exact = check.IntegerText(s, v)
	}
	return v, isInt, exact, numberOK
}

// mayBeFloat reports whether strconv.ParseFloat might read s (not
// empty): its syntax starts, after an optional sign, with a digit, a
// point, or the i or n of an infinity or a NaN, in any case. Other text
// is a syntax error for it.
func mayBeFloat(s string) bool {
	c := s[0]
	if (c == '+' || c == '-') && len(s) > 1 {
		c = s[1]
	}
	switch {
	case c >= '0' && c <= '9', c == '.', c == 'i', c == 'I', c == 'n', c == 'N':
		return true
	}
	return false
}

// isInfText reports whether s writes an infinity as CmdStan's JSON strings
// do: Inf, Infinity, +inf, -Infinity, ... in any case.
func isInfText(s string) bool {
	switch strings.ToLower(strings.TrimLeft(s, "+-")) {
	case "inf", "infinity":
		return len(s) <= len("-infinity") && strings.IndexAny(s[1:], "+-") < 0
	}
	return false
}

// infError is the error for a value written as an infinity (or as a NaN
// that is not a missing value's marker, "+NaN").
func infError(s string) string {
	return fmt.Sprintf("%q: infinite values are not allowed in data", s)
}

// ReadJSON reads a Stan-style JSON object mapping names to numbers, arrays of
// numbers, or arrays of equal-length arrays of numbers (matrices), as CmdStan
// and posteriordb write them. Invalid JSON is an error naming the file, line
// and column. A value of another type or shape is kept as its array's error
// (Array.Err) instead: it is an error only for a key that the model reads,
// as CmdStan ignores the keys a model does not use.
func ReadJSON(file string, r io.Reader) (map[string]*Array, error) {
	src, err := readText(file, r, "save the data as a JSON file (text)")
	if err != nil {
		return nil, err
	}
	p := &jsonReader{file: file, src: src}
	p.text = p.quoteAtoms()
	p.dec = json.NewDecoder(bytes.NewReader(p.text))
	p.dec.UseNumber()
	return p.object()
}

type jsonReader struct {
	file string
	src  []byte
	dec  *json.Decoder
	text []byte // what dec reads: src with its atoms quoted
	// atoms holds the bare NaN, Infinity and -Infinity values of the
	// file, by offset: CmdStan reads them, though JSON has no such tokens.
	atoms map[int64]string
	lines lineIndex // built at the first position asked for
}

// quoteAtoms returns the source with each bare NaN, Infinity and
// -Infinity in a value's place (after '[', ',' or ':', outside strings)
// replaced by a string of the same length, so that the decoder reads it
// and every offset stays the file's; p.atoms records them. The value
// reader reads them as CmdStan does: NaN as a missing value, the
// infinities as the error that data are finite.
func (p *jsonReader) quoteAtoms() []byte {
	var out []byte
	inString, escaped := false, false
	prev := byte('{')   // the last byte outside strings that is not a space
	var inObject []bool // the open '{' (true) and '[' (false), innermost last
	for i := 0; i < len(p.src); i++ {
		c := p.src[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			inObject = append(inObject, c == '{')
		case c == '}' || c == ']':
			if len(inObject) > 0 {
				inObject = inObject[:len(inObject)-1]
			}
		case c == 'N' || c == 'I' || c == '-':
			// a value's place: not an object's key, after its '{' or ','
			key := prev == ',' && len(inObject) > 0 && inObject[len(inObject)-1]
			if prev != '[' && prev != ',' && prev != ':' || key {
				break
			}
			for _, atom := range []string{"NaN", "Infinity", "-Infinity"} {
				end := i + len(atom)
				if !bytes.HasPrefix(p.src[i:], []byte(atom)) || end < len(p.src) && !bytes.ContainsRune([]byte(" \t\r\n,]}"), rune(p.src[end])) {
					continue
				}
				if out == nil {
					out = slices.Clone(p.src)
					p.atoms = map[int64]string{}
				}
				p.atoms[int64(i)] = atom
				out[i], out[end-1] = '"', '"'
				for k := i + 1; k < end-1; k++ {
					out[k] = 'x'
				}
				i = end - 1
				break
			}
		}
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			prev = c
		}
	}
	if out == nil {
		return p.src
	}
	return out
}

// pos converts a byte offset into a position.
func (p *jsonReader) pos(off int64) ast.Pos {
	return p.lines.posIn(p.file, p.src, int(off))
}

// lineIndex holds the offsets at which a file's lines start, so that a
// position costs a binary search, not a scan from the file's start (a
// reader asks one for each missing value).
type lineIndex []int

func newLineIndex(src []byte) lineIndex {
	l := lineIndex{0}
	for i, c := range src {
		if c == '\n' {
			l = append(l, i+1)
		}
	}
	return l
}

// posIn returns the position of byte offset off of src, clamped to
// [0, len(src)], building the index of src at the first call.
func (l *lineIndex) posIn(file string, src []byte, off int) ast.Pos {
	if *l == nil {
		*l = newLineIndex(src)
	}
	return l.pos(file, min(max(off, 0), len(src)))
}

// pos returns the position of byte offset off (0 <= off <= the file's
// length): its line and its column in bytes, both from 1.
func (l lineIndex) pos(file string, off int) ast.Pos {
	line := sort.SearchInts(l, off+1) - 1 // the last line start <= off
	return ast.Pos{File: file, Line: line + 1, Col: off - l[line] + 1}
}

// next returns the next token and the offset where it starts.
func (p *jsonReader) next() (json.Token, int64, error) {
	off := p.dec.InputOffset()
	// Skip whitespace and separators to point at the token itself.
	for int(off) < len(p.src) && strings.IndexByte(" \t\r\n,:", p.src[off]) >= 0 {
		off++
	}
	tok, err := p.dec.Token()
	if err != nil {
		return nil, off, p.syntaxError(err, off)
	}
	return tok, off, nil
}

// syntaxError positions err, which the decoder returned reading the token
// at off. The decoder's SyntaxError.Offset counts only the bytes it has
// scanned as values, not the delimiters between them, so the whole file is
// scanned again: the first error is the same, at its offset in the file.
func (p *jsonReader) syntaxError(err error, off int64) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return p.eofError()
	}
	var se *json.SyntaxError
	if errors.As(err, &se) && errors.As(json.Unmarshal(p.text, new(json.RawMessage)), &se) {
		// se.Offset bytes were read, the last the offending one.
		return ast.Errorf(p.pos(se.Offset-1), "invalid JSON: %v", se)
	}
	return ast.Errorf(p.pos(off), "invalid JSON: %v", err)
}

// eofError reports a file that ends before its JSON does, just past its
// last character (not on the empty line after it), with what is still open.
func (p *jsonReader) eofError() error {
	end := int64(len(bytes.TrimRight(p.src, " \t\r\n")))
	var open []int64 // offsets of the unclosed '[' and '{'
	inString, escaped := false, false
	var strStart int64
	for i, c := range p.src {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString:
			inString = c != '"'
		case c == '"':
			inString, strStart = true, int64(i)
		case c == '[' || c == '{':
			open = append(open, int64(i))
		case (c == ']' || c == '}') && len(open) > 0:
			open = open[:len(open)-1]
		}
	}
	what := "unexpected end of JSON input"
	switch {
	case inString:
		at := p.pos(strStart)
		what += fmt.Sprintf(": the string that starts at %d:%d is not closed", at.Line, at.Col)
	case len(open) > 0:
		at := p.pos(open[len(open)-1])
		what += fmt.Sprintf(": the '%c' opened at %d:%d is not closed", p.src[open[len(open)-1]], at.Line, at.Col)
	}
	return ast.Errorf(p.pos(end), "%s", what)
}

func (p *jsonReader) object() (map[string]*Array, error) {
	tok, off, err := p.next()
	if err != nil {
		if len(bytes.TrimSpace(p.src)) == 0 {
			return nil, ast.Errorf(ast.Pos{File: p.file, Line: 1, Col: 1}, "empty JSON file: expected an object mapping names to values")
		}
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, ast.Errorf(p.pos(off), "expected a JSON object mapping names to values, found %s", describe(tok))
	}
	out := map[string]*Array{}
	for p.dec.More() {
		tok, off, err := p.next()
		if err != nil {
			return nil, err
		}
		name := tok.(string) // object keys are always strings
		if _, dup := out[name]; dup {
			return nil, ast.Errorf(p.pos(off), "key %q appears twice", name)
		}
		a, err := p.value(name)
		if err != nil {
			return nil, err
		}
		out[name] = a
	}
	if _, _, err := p.next(); err != nil { // the closing brace
		return nil, err
	}
	off = p.dec.InputOffset()
	for int(off) < len(p.src) && strings.IndexByte(" \t\r\n", p.src[off]) >= 0 {
		off++
	}
	if int(off) < len(p.src) {
		return nil, ast.Errorf(p.pos(off), "unexpected data after the JSON object")
	}
	return out, nil
}

// value reads a number or a (nested) array of numbers for key name. A value
// of another type or shape is not an error here: the first problem is kept
// as the array's error (Array.Err) and the rest of the value skipped, so
// that only invalid JSON ends the read.
func (p *jsonReader) value(name string) (*Array, error) {
	a := &Array{Name: name, Int: true}
	var offs []int64
	a.loc = func(i int) ast.Pos { return p.pos(offs[i]) }
	depth := 0 // the arrays of the value open before the current token
	// bad keeps err, met at token tok, and skips the rest of the value.
	bad := func(err *ast.Error, tok json.Token) (*Array, error) {
		a.bad = err
		if tok == json.Delim('[') || tok == json.Delim('{') {
			depth++
		}
		if err := p.skip(depth); err != nil {
			return nil, err
		}
		return a, nil
	}
	add := func(tok json.Token, off int64) *ast.Error {
		what := describe(tok)
		if atom, ok := p.atoms[off]; ok {
			tok, what = atom, atom // a bare NaN reads as "NaN", an infinity as its string
		}
		if str, isStr := tok.(string); isStr && isInfText(str) {
			return ast.Errorf(p.pos(off), "%q: %s", name, infError(str))
		}
		if str, isStr := tok.(string); tok == nil || isStr && (str == "NaN" || str == "NA") {
			// a missing value: null, CmdStan's "NaN" or NaN, or the "NA"
			// R's jsonlite writes for a numeric NA (toJSON's default
			// na = "string")
			if a.missJSON == "" {
				a.missJSON = "null"
				if isStr {
					a.missJSON = strconv.Quote(str)
					if _, bare := p.atoms[off]; bare {
						a.missJSON = "NaN"
					}
				}
			}
			a.miss(len(a.Values), ast.Errorf(p.pos(off), "%q: %s, a missing value", name, what))
			a.Values = append(a.Values, math.NaN())
			offs = append(offs, off)
			return nil
		}
		n, ok := tok.(json.Number)
		if !ok {
			hint := ""
			if _, isBool := tok.(bool); isBool {
				hint = " (a logical? write 1 and 0, as cmdstanr's write_stan_json does)"
			}
			if tok == json.Delim('[') && depth == 2 {
				hint = " (an array of three or more dimensions: data are scalars, vectors and matrices)"
			}
			return ast.Errorf(p.pos(off), "%q: expected a number, found %s%s", name, describe(tok), hint)
		}
		v, isInt, exact, err := parseNumber(string(n))
		if err != nil {
			return ast.Errorf(p.pos(off), "%q: %v", name, err)
		}
		if !exact {
			a.noteInexact(len(a.Values), string(n))
		}
		a.Values = append(a.Values, v)
		a.Int = a.Int && isInt
		offs = append(offs, off)
		return nil
	}
	tok, off, err := p.next()
	if err != nil {
		return nil, err
	}
	a.Pos = p.pos(off)
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		if err := add(tok, off); err != nil {
			return bad(err, tok)
		}
		return a, nil
	}
	depth = 1
	rows, cols := 0, 0
	nested := false // the elements are arrays: the rows of a matrix
	for p.dec.More() {
		tok, off, err := p.next()
		if err != nil {
			return nil, err
		}
		d, isArray := tok.(json.Delim)
		isArray = isArray && d == '['
		if rows > 0 && isArray != nested {
			return bad(ast.Errorf(p.pos(off), "%q mixes numbers and arrays", name), tok)
		}
		nested = isArray
		rows++
		if !isArray {
			if err := add(tok, off); err != nil {
				return bad(err, tok)
			}
			continue
		}
		depth = 2
		n := 0
		for p.dec.More() {
			tok, off, err := p.next()
			if err != nil {
				return nil, err
			}
			if err := add(tok, off); err != nil {
				return bad(err, tok)
			}
			n++
		}
		if _, _, err := p.next(); err != nil {
			return nil, err
		}
		depth = 1
		if rows > 1 && n != cols {
			return bad(ast.Errorf(p.pos(off), "%q: row %d has %d elements, the rows before it %d", name, rows, n, cols), nil)
		}
		cols = n
	}
	if _, _, err := p.next(); err != nil {
		return nil, err
	}
	a.Shape = []int{rows}
	if nested { // [[]] is a 1×0 matrix, not a vector
		a.Shape = []int{rows, cols}
	}
	return a, nil
}

// skip reads the rest of a value in which depth arrays or objects are open.
func (p *jsonReader) skip(depth int) error {
	for depth > 0 {
		tok, _, err := p.next()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('['), json.Delim('{'):
			depth++
		case json.Delim(']'), json.Delim('}'):
			depth--
		}
	}
	return nil
}

func describe(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		return fmt.Sprintf("%q", string(t))
	case string:
		return fmt.Sprintf("the string %q", t)
	case bool:
		return fmt.Sprintf("%v", t)
	case nil:
		return "null"
	case json.Number:
		return string(t)
	}
	return fmt.Sprint(tok)
}

// WithoutMissing returns a copy of a in which the missing cells cells
// (a subset of a.Missing, increasing) are no longer missing: their values
// are v and they leave Missing. The compiler binds such a copy for cells
// that the model never reads (compile.Model.Skipped), which then fit no
// latent; the values are never read, so v only has to be a number.
func (a *Array) WithoutMissing(cells []int, v float64) *Array {
	c := *a
	c.Values = slices.Clone(a.Values)
	drop := map[int]bool{}
	for _, i := range cells {
		drop[i] = true
		c.Values[i] = v
	}
	c.Missing = nil
	tail := len(a.Missing) - a.blankTail // the first of the blank tail lines
	c.blankTail = 0
	for k, i := range a.Missing {
		if drop[i] {
			continue
		}
		c.Missing = append(c.Missing, i)
		if k >= tail {
			c.blankTail++
		}
	}
	return &c
}

// Rows returns the rows rows of a along its first axis (a row may come
// twice), each element still located at its cell in the file (Locate),
// so that errors in a subset (gpp kfold's folds) name the right cell.
func (a *Array) Rows(rows []int) *Array {
	if len(a.Shape) == 0 {
		return a
	}
	w := 1
	for _, d := range a.Shape[1:] {
		w *= d
	}
	c := *a
	c.Shape = slices.Clone(a.Shape)
	c.Shape[0] = len(rows)
	c.Values = make([]float64, 0, len(rows)*w)
	c.Missing, c.blankTail, c.inexact, c.labels = nil, 0, nil, nil
	missing := map[int]bool{}
	for _, i := range a.Missing {
		missing[i] = true
	}
	for k, r := range rows {
		c.Values = append(c.Values, a.Values[r*w:(r+1)*w]...)
		for j := range w {
			if missing[r*w+j] {
				c.Missing = append(c.Missing, k*w+j)
			}
			if t, ok := a.inexact[r*w+j]; ok {
				c.noteInexact(k*w+j, t)
			}
			if a.labels != nil {
				c.labels = append(c.labels, a.labels[r*w+j])
			}
		}
	}
	c.loc = func(i int) ast.Pos { return a.Locate(rows[i/w]*w + i%w) }
	return &c
}

// WithoutMissingCells returns bound with each datum named in cells
// replaced by its WithoutMissing(cells[name], 0) copy: the data a model
// whose unread missing cells are left out (compile.Model.Skipped) fits.
// bound itself is returned when cells is empty, and is never changed.
func WithoutMissingCells(bound map[string]*Array, cells map[string][]int) map[string]*Array {
	if len(cells) == 0 {
		return bound
	}
	out := maps.Clone(bound)
	for name, c := range cells {
		out[name] = bound[name].WithoutMissing(c, 0)
	}
	return out
}
