package data

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/lang/check"
)

// designMinRows: a matrix of fewer rows is not read as a design matrix
// (two rows make any two columns look alike).
const designMinRows = 3

// designMaxList caps the columns a note names.
const designMaxList = 5

// DesignNotes returns a note for each real matrix among the bound data
// with a constant column or two identical columns, which lm answers with
// NA coefficients and rstanarm's users expect to hear of: a constant
// column is collinear with an intercept, if the model has one, and
// identical columns split one effect between their coefficients, which
// only the priors tell apart; either way the fit runs and says nothing
// (a trial's X with a column of 1s, or a column repeated). Columns with a
// missing cell are left out; so are int matrices (counts, outcomes).
func DesignNotes(info *check.Info, bound map[string]*Array) []string {
	var notes []string
	for _, d := range info.Data {
		a := bound[d.Name]
		if a == nil || d.Elem == check.Int || len(d.Dims) != 2 || len(a.Shape) != 2 || a.Shape[0] < designMinRows || a.Shape[1] < 1 {
			continue
		}
		rows, cols := a.Shape[0], a.Shape[1]
		name := func(j int) string {
			if len(a.Columns) == cols {
				return a.Columns[j]
			}
			return fmt.Sprintf("%s[, %d]", d.Name, j+1) // 1-based, as R and summary.csv count
		}
		hasMissing := make([]bool, cols)
		for _, i := range a.Missing {
			hasMissing[i%cols] = true
		}
		var constant []string
		first := map[uint64][]int{} // a column's hash → the earlier columns of that hash
		var dups []string
		col := func(j, i int) float64 { return a.Values[i*cols+j] }
	columns:
		for j := range cols {
			if hasMissing[j] || math.IsNaN(a.Values[j]) {
				continue
			}
			h := fnv.New64a()
			var buf [8]byte
			same := true
			for i := range rows {
				v := col(j, i)
				same = same && v == a.Values[j]
				binary.LittleEndian.PutUint64(buf[:], math.Float64bits(v+0)) // +0: −0 hashes as 0
				h.Write(buf[:])
			}
			if same {
				constant = append(constant, name(j)+" = "+strconv.FormatFloat(a.Values[j], 'g', -1, 64))
				continue // a second constant column is named as constant, not as a copy
			}
			key := h.Sum64()
			for _, k := range first[key] {
				if equalColumns(col, j, k, rows) {
					dups = append(dups, fmt.Sprintf("%s = %s", name(j), name(k)))
					continue columns
				}
			}
			first[key] = append(first[key], j)
		}
		where := a.Pos.File
		if where == "" {
			where = d.Name
		}
		if n := len(constant); n > 0 {
			notes = append(notes, fmt.Sprintf("%s: `%s` has %s, %s in every row: %s collinear with an intercept, if the model has one, so that only the priors tell %s apart (lm gives NA); drop %s, unless %s the intercept",
				where, d.Name, pick(n, "a constant column", strconv.Itoa(n)+" constant columns"), columnList(constant), pick(n, "its coefficient is", "their coefficients are"), pick(n, "the two", "them"), pick(n, "it", "them"), pick(n, "it is", "one of them is")))
		}
		if len(dups) > 0 {
			notes = append(notes, fmt.Sprintf("%s: `%s` has identical columns, %s: the coefficients of a pair share one effect that only the priors split between them (lm gives NA); drop one of each pair",
				where, d.Name, columnList(dups)))
		}
	}
	return notes
}

// equalColumns reports whether columns j and k of col are equal in every row.
func equalColumns(col func(j, i int) float64, j, k, rows int) bool {
	for i := range rows {
		if col(j, i) != col(k, i) {
			return false
		}
	}
	return true
}

// columnList joins at most designMaxList items, counting the rest.
func columnList(items []string) string {
	if len(items) <= designMaxList {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:designMaxList], ", "), len(items)-designMaxList)
}

// pick returns one for a single item, more otherwise.
func pick(n int, one, more string) string {
	if n == 1 {
		return one
	}
	return more
}
