package data

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/internal/textenc"
	"github.com/gpplang/gpp/lang/ast"
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
			case info.DataVar(n) != nil, in.Table != nil && numbersVector(info, n):
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

// numbersVector reports whether the column named col numbers an element
// of a vector data declaration (x.1 or x[1] of x), which a file of one
// row binds.
func numbersVector(info *check.Info, col string) bool {
	for _, d := range info.Data {
		if _, ok := columnIndex(col, d.Name); ok && len(d.Dims) == 1 {
			return true
		}
	}
	return false
}

// listNames joins up to limit names, with a count of the rest, their
// bidirectional controls escaped (textenc.EscapeBidi).
func listNames(names []string, limit int) string {
	if len(names) <= limit {
		return textenc.EscapeBidi(strings.Join(names, ", "))
	}
	return fmt.Sprintf("%s and %d more", textenc.EscapeBidi(strings.Join(names[:limit], ", ")), len(names)-limit)
}

// MissingNotes returns a note for each data value of a successful Bind
// whose missing cells the model fits (check.DataVar.Missing): "y: 3
// missing values (y.csv lines 5, 9, 17) are fitted as the latent
// y_missing", the cells in the latent's order, the first few of many; a
// value with no line (a Go value of the model package's DataValues) by its
// element, 0-based: "x: 1 missing value (x[1] of DataValues) ...".
func MissingNotes(info *check.Info, bound map[string]*Array, notLeaves map[string]bool) []string {
	var notes []string
	for _, d := range info.Data {
		a := bound[d.Name]
		if a == nil || len(a.Missing) == 0 || !fittedIn(d, a, notLeaves) {
			continue
		}
		n, what, where, are := missingCells(d.Name, a, a.Missing)
		notes = append(notes, fmt.Sprintf("%s: %d missing %s (%s) %s fitted as the latent %s_missing%s",
			d.Name, n, what, where, are, d.Name, blankTailNote(a)))
	}
	return notes
}

// LeftOutNotes returns a note for each data value of a successful Bind
// whose missing cells are left out of the likelihood
// (check.DataVar.LeftOut: int data that the model observes only by ~, so
// that summing a missing cell out of the joint removes its term): "Y: 7
// missing values (d.csv lines 3, 9, ...) are left out of the likelihood
// (int data observed only by ~) and drawn from its ~ at each draw as the
// output Y_missing", unless undrawn names Y; for real data observed by a family with
// a point mass at 0 (DataVar.ZeroMass), the note says why they are not
// fitted instead, and for other real data whose cells are leaves (summed
// out), that they are drawn as the output NAME_missing, unless undrawn
// names them (compile.Model.LeafUndrawn, whose own note says why not).
func LeftOutNotes(info *check.Info, bound map[string]*Array, notLeaves, undrawn map[string]bool) []string {
	var notes []string
	for _, d := range info.Data {
		a := bound[d.Name]
		if a == nil || len(a.Missing) == 0 || !d.LeavesOut(a.Shape, a.Missing) || notLeaves[d.Name] {
			continue
		}
		n, what, where, are := missingCells(d.Name, a, a.Missing)
		why, drawn := "int data observed only by ~", ""
		switch {
		case d.IntLeftOut():
			if !undrawn[d.Name] {
				drawn = fmt.Sprintf(" and drawn from its ~ at each draw as the output %s_missing", d.Name)
			}
		case d.Missing != nil:
			why = "summed out, observed by one ~ and read nowhere else: each term integrates to 1"
			if !undrawn[d.Name] {
				why += fmt.Sprintf("; drawn from that ~ at each draw as the output %s_missing", d.Name)
			}
		case d.ZeroMass != "":
			why = fmt.Sprintf("not fitted: %s's value is exactly 0 with probability 1 − psi, which a fitted continuous value could never be, so it would count every missing cell as a value above 0", d.ZeroMass)
		}
		notes = append(notes, fmt.Sprintf("%s: %d missing %s (%s) %s left out of the likelihood (%s)%s%s", d.Name, n, what, where, are, why, drawn, blankTailNote(a)))
	}
	return notes
}

// blankTailNote is the end of a note on the missing cells of a, when some
// are blank lines at the end of its file: to delete them if they are no
// missing values.
func blankTailNote(a *Array) string {
	switch {
	case a.blankTail == 1:
		return fmt.Sprintf("; the last is a blank line at the end of %s: delete it if it is not a missing value", a.Locate(a.Missing[0]).File)
	case a.blankTail > 1:
		return fmt.Sprintf("; the last %d are blank lines at the end of %s: delete them if they are not missing values", a.blankTail, a.Locate(a.Missing[0]).File)
	}
	return ""
}

// SkippedNotes returns a note for each data value with missing cells that
// the compiled model reads nowhere (skipped, compile.Model.Skipped: a ~
// on them under an if on data that is false at their rows, as a NONMEM
// data set's empty DV on its dose rows): "DV: 24 missing values (nm.csv
// lines 2, 13, ...) are read by no statement that runs (...) and are left
// out", in bound's locations.
func SkippedNotes(info *check.Info, bound map[string]*Array, skipped map[string][]int) []string {
	var notes []string
	for _, d := range info.Data {
		a, cells := bound[d.Name], skipped[d.Name]
		if a == nil || len(cells) == 0 {
			continue
		}
		n, what, where, are := missingCells(d.Name, a, cells)
		them := "it"
		if n > 1 {
			them = "them"
		}
		notes = append(notes, fmt.Sprintf("%s: %d missing %s (%s) %s read by no statement that runs (no ~ that runs observes %s: an if on data skips %s there, or an index leaves %s out) and %s left out: no latent is fitted for %s",
			d.Name, n, what, where, are, them, them, them, are, them))
	}
	return notes
}

// missingCells describes the missing cells cells of a, in the latent's
// order, the first few of many: their count, "value" or "values", where
// they are ("y.csv lines 5, 9, 17"; of a matrix or JSON by line:column;
// a value with no line, from the model package's DataValues, by its
// element, 0-based: "x[1] of DataValues") and "is" or "are".
func missingCells(name string, a *Array, cells []int) (n int, what, where, are string) {
	const most = 8
	var list []string
	file := ""
	// a cell of a CSV column by its line; of a matrix or JSON by
	// line:column (a vector read from a row of x.1, x.2, ... too);
	// a value with no line (Go's, from the model package's
	// DataValues) by its element, 0-based: x[1]
	byLine := len(a.Shape) == 1 && !strings.HasSuffix(strings.ToLower(a.Locate(0).File), ".json") &&
		(a.Shape[0] < 2 || a.Locate(0).Line != a.Locate(1).Line)
	byElem := !a.Locate(cells[0]).IsValid()
	for _, i := range cells[:min(len(cells), most)] {
		p := a.Locate(i)
		file = p.File
		switch {
		case byElem:
			list = append(list, elemName(name, a.Shape, i))
		case byLine:
			list = append(list, fmt.Sprint(p.Line))
		default:
			list = append(list, fmt.Sprintf("%d:%d", p.Line, p.Col))
		}
	}
	if len(cells) > most {
		list = append(list, "...")
	}
	what, are = "value", "is"
	if len(cells) > 1 {
		what, are = "values", "are"
	}
	if byLine {
		where = "line "
		if len(cells) > 1 {
			where = "lines "
		}
	}
	where = file + " " + where + strings.Join(list, ", ")
	if byElem {
		where = strings.Join(list, ", ") + " of " + file
	}
	return len(cells), what, where, are
}

// elemName names element i (row-major) of the value name of the shape by
// its 0-based indices, x[1] or X[0, 2], as compile.ElemName does (compile
// imports data).
func elemName(name string, shape []int, i int) string {
	if len(shape) == 0 {
		return name
	}
	idx := make([]string, len(shape))
	for k := len(shape) - 1; k >= 0; k-- {
		if shape[k] > 0 {
			idx[k] = strconv.Itoa(i % shape[k])
			i /= shape[k]
		} else {
			idx[k] = "0"
		}
	}
	return name + "[" + strings.Join(idx, ", ") + "]"
}

// Missing is where the missing values of one data declaration are, as the
// latent Latent's elements in order: Cells[k] is the cell of element k.
type Missing struct {
	Data, Latent string
	Cells        []ast.Pos
}

// MissingCells lists the missing values of a successful Bind that the
// model fits, by data declaration in order, for the output files;
// notLeaves (compile.Model.NotLeaves) as for MissingNotes.
func MissingCells(info *check.Info, bound map[string]*Array, notLeaves map[string]bool) []Missing {
	var out []Missing
	for _, d := range info.Data {
		a := bound[d.Name]
		if a == nil || len(a.Missing) == 0 || !fittedIn(d, a, notLeaves) {
			continue
		}
		m := Missing{Data: d.Name, Latent: d.Name + "_missing"}
		for _, i := range a.Missing {
			m.Cells = append(m.Cells, a.Locate(i))
		}
		out = append(out, m)
	}
	return out
}

// EmptyTables returns a warning for each CSV or TSV file of a successful
// Bind that has a header and no rows while the model reads one of its
// columns: the data it gives are empty, their sizes 0, and a fit of a
// model that observes only them is its prior's. Stan and PyMC accept
// such data too (N = 0 is a valid size), so it is no error, but a file
// cut short or saved empty is the likelier cause than a wish to fit the
// prior, and nothing else would say so.
func EmptyTables(info *check.Info, inputs []Input, bound map[string]*Array) []string {
	var warns []string
	for _, in := range inputs {
		if in.Table == nil || in.Table.Rows > 0 {
			continue
		}
		var read, sizes []string
		seen := map[string]bool{}
		for _, c := range in.Table.Columns {
			name := c.Name
			if in.Name != "" {
				name = in.Name // NAME=FILE binds NAME
			}
			d := info.DataVar(name)
			if d == nil || seen[name] {
				continue
			}
			seen[name] = true
			read = append(read, name)
			for _, dim := range d.Dims {
				if s := bound[dim.Name]; dim.Name != "" && !dim.Derived && s != nil && len(s.Shape) == 0 && len(s.Values) == 1 && s.Values[0] == 0 && !seen[dim.Name] {
					seen[dim.Name] = true
					sizes = append(sizes, dim.Name+" = 0")
				}
			}
		}
		if len(read) == 0 {
			continue
		}
		size := ""
		if len(sizes) > 0 {
			size = ", " + strings.Join(sizes, ", ")
		}
		warns = append(warns, fmt.Sprintf("%s has a header and no rows: %s %s empty (0 elements%s), so the model observes nothing from this file, and where nothing else informs the params a fit gives their prior (a file cut short, or saved before its rows?)", in.File, listNames(read, 8), map[bool]string{true: "is", false: "are"}[len(read) == 1], size))
	}
	return warns
}

// Underflows returns a warning for each bound data value with a number
// written nonzero that reads as 0, nearer 0 than the smallest float64
// (about 4.9e-324: 1e-400), naming its first such element's cell and
// counting the rest. A value above the largest is an error (out of
// range); one below the smallest is read as 0, as C's strtod and Go's
// strconv.ParseFloat read it, but a number that small in a data file is
// likelier a typo or a unit gone wrong than meant, and nothing else
// would say so. Tiny values that a float64
// holds (1e-300, or the subnormal 1e-310) are read as written, in
// silence.
func Underflows(bound map[string]*Array) []string {
	return flagged(bound, func(a *Array) (first, n int) {
		first = -1
		for i, text := range a.inexact {
			if i < len(a.Values) && a.Values[i] == 0 && text != "" {
				n++
				if first < 0 || i < first {
					first = i
				}
			}
		}
		return first, n
	}, func(a *Array, first int, more string) string {
		return fmt.Sprintf("%s: %s is written %s, nearer 0 than the smallest float64 (about 4.9e-324), so it is read as 0%s: a typo, or a unit to change?", a.Locate(first), elemName(a.Name, a.Shape, first), a.inexact[first], more)
	})
}

// flagged returns warn's warning for each of bound's arrays (by name) in
// which count finds values to warn of, with the first such element and,
// where there are more, a note counting them.
func flagged(bound map[string]*Array, count func(a *Array) (first, n int), warn func(a *Array, first int, more string) string) []string {
	var warns []string
	for _, name := range slices.Sorted(maps.Keys(bound)) {
		a := bound[name]
		first, n := count(a)
		if n == 0 {
			continue
		}
		more := ""
		if n > 1 {
			more = fmt.Sprintf(" (%d values of %s are, the first here)", n, name)
		}
		warns = append(warns, warn(a, first, more))
	}
	return warns
}

// HugeValue is the magnitude above which Huge warns of a data value: its
// square overflows float64 (autodiff.HugeData names such a cell where a
// density's argument overflows).
const HugeValue = 1e150

// Huge returns a warning for each bound data value whose magnitude is
// above HugeValue, naming its first such element's cell and counting the
// rest. Such a value is a float64, so the load reads it; but its square,
// and its product with a coefficient of 1e-150 or more, overflow, so a
// model that reads it (x * b, (y - mu)²) fails at a fit's draws, far from
// the cell (an energy trial's 1e300 in a temperature column passed gpp
// check, and the fit blamed the draws). A warning, not an error: log(x)
// of such a value is finite, and a model may take only that.
func Huge(bound map[string]*Array) []string {
	return flagged(bound, func(a *Array) (first, n int) {
		first = -1
		for i, v := range a.Values {
			if math.Abs(v) > HugeValue && !math.IsInf(v, 0) {
				n++
				if first < 0 {
					first = i
				}
			}
		}
		return first, n
	}, func(a *Array, first int, more string) string {
		return fmt.Sprintf("%s: %s is %g, above %g in magnitude%s: its square, and its product with a param of 1e-150 or more, overflow float64, so a model that reads it fails at a fit's draws: a typo, or a unit to change?", a.Locate(first), elemName(a.Name, a.Shape, first), a.Values[first], HugeValue, more)
	})
}

// fittedIn reports whether the missing cells of d, bound as a, are fitted
// as the latent NAME_missing: check.DataVar.Fitted, or leaves that the
// compiler found to be none after all (notLeaves, compile.Model.NotLeaves).
func fittedIn(d *check.DataVar, a *Array, notLeaves map[string]bool) bool {
	return d.Missing != nil && (notLeaves[d.Name] || d.Fitted(a.Shape, a.Missing))
}
