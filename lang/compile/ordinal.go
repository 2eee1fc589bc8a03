package compile

import (
	"fmt"
	"strings"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
)

// ordinalMostEmpty is how many empty categories ordinalEmptyNote lists.
const ordinalMostEmpty = 5

// ordinalEmptyNote notes an ordinal ~ on data (y ~ OrderedLogistic(eta,
// c), y a vector known now, c a vector of C cutpoints: categories 0..C)
// whose values leave a category without rows. The cutpoints beside it are
// then set by the prior alone on one side: an end category's cutpoint can
// go as far out as the prior lets it, and an inner category's two
// cutpoints are not told apart by the data. A psycholinguist's 7-point
// Likert ratings, 1..7 against 7 cutpoints (categories 0..7), fitted
// c[0] at −8.08 ± 0.024 where NUTS gave −11.5 ± 2.64, with no word of
// the empty category 0 (2026-12-01). Values outside 0..C are left to the
// density, which reports them at their cell.
func (l *lowerer) ordinalEmptyNote(call *ast.CallExpr, lhs ast.Node, v value, cut autodiff.ID) {
	e, ok := lhs.(ast.Expr)
	if !ok || l.vec != nil || len(l.loops) > 0 || l.noteUnrolled == nil {
		return // in a loop, a row at a time; or not the fit's first build
	}
	sh := l.b.Shape(cut)
	if sh.Rank != 1 {
		return
	}
	vals, ok := l.knownValues(v)
	if !ok || len(vals) < 2 {
		return
	}
	c := sh.Rows
	rows := make([]int, c+1)
	for _, y := range vals {
		k := int(y)
		if float64(k) != y || k < 0 || k > c {
			return
		}
		rows[k]++
	}
	var empty []string
	n := 0
	for k, r := range rows {
		if r == 0 {
			if n < ordinalMostEmpty {
				empty = append(empty, fmt.Sprint(k))
			}
			n++
		}
	}
	if n == 0 {
		return
	}
	list := strings.Join(empty, ", ")
	if n > len(empty) {
		list += fmt.Sprintf(" and %d more", n-len(empty))
	}
	y, cs := ast.FormatExpr(e), ast.FormatExpr(call.Args[1])
	what := "categories"
	if n == 1 {
		what = "category"
	}
	msg := fmt.Sprintf("%s: %s has no rows in %s %s of the %d (0 to %d) that %s's %d cutpoints make", call.Pos(), y, what, list, c+1, c, cs, c)
	switch {
	case n == 1 && rows[0] == 0: // every value in 1..C, each there
		msg += fmt.Sprintf(": its values run 1 to %d; if they are 1-based (Stan's ordered_logistic counts categories from 1), write %s - 1 and give %s %d cutpoints", c, y, cs, c-1)
	case rows[0] == 0 || rows[c] == 0:
		msg += ", so the cutpoint beside an empty end category is bounded by the data on one side only and its prior alone sets how far out it goes"
	default:
		msg += ", so the data do not tell apart the two cutpoints around an empty category"
	}
	msg += "; a mean-field q of such a cutpoint can be far too narrow: merge the empty categories into their neighbours, or read the cutpoints from gpp sample"
	l.notes = append(l.notes, msg)
}
