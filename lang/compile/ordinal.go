package compile

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/lang/check"

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
	vals, ok := l.knownValues(v)
	if !ok || len(vals) < 2 {
		return
	}
	if sh.Rank == 2 {
		l.ordinalGroupEmptyNote(call, e, vals, sh.Cols)
		return
	}
	if sh.Rank != 1 {
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

// ordinalGroupEmptyNote is ordinalEmptyNote for cutpoints per group: y ~
// OrderedLogistic(eta, c[g]), c an ordered[G, C] param and g int data with
// a group per value of y. Each group's row of c is fitted from that
// group's values alone, so a group whose values leave a category empty has
// a cutpoint set by the prior alone on one side. A sensory panel's
// 9-point ratings, 24 per panelist against ordered[24, 8] (brms's
// thres(gr = panelist)), left 17 of 24 panelists with an empty category,
// 11 of them an end one; VI gave c[P02, 0] −4.08 ± 0.32 where NUTS gave
// −5.27 ± 1.54, with no note (2026-12-02).
func (l *lowerer) ordinalGroupEmptyNote(call *ast.CallExpr, y ast.Expr, vals []float64, c int) {
	ix, ok := call.Args[1].(*ast.IndexExpr)
	if !ok || len(ix.Indices) != 1 || l.info.Types[ix.X].Shape.Rank() != 2 {
		return
	}
	gid, ok := ix.Indices[0].(*ast.Ident)
	if !ok {
		return
	}
	sym := l.info.Uses[gid]
	if sym == nil || sym.Kind != check.Data {
		return
	}
	a := l.data[sym.Name]
	if a == nil || len(a.Values) != len(vals) {
		return
	}
	rows := map[int][]int{} // group: rows per category
	var order []int
	for i, y := range vals {
		k, g := int(y), a.Values[i]
		if float64(k) != y || k < 0 || k > c || g != math.Trunc(g) {
			return
		}
		gi := int(g)
		if rows[gi] == nil {
			rows[gi] = make([]int, c+1)
			order = append(order, gi)
		}
		rows[gi][k]++
	}
	sort.Ints(order)
	var named []string
	gaps, ends := 0, 0
	for _, g := range order {
		r := rows[g]
		if !slices.Contains(r, 0) {
			continue
		}
		gaps++
		if r[0] == 0 || r[c] == 0 {
			ends++
		}
		if len(named) < ordinalMostEmpty {
			var empty []string
			for k, n := range r {
				if n == 0 {
					empty = append(empty, fmt.Sprint(k))
				}
			}
			what := "categories"
			if len(empty) == 1 {
				what = "category"
			}
			named = append(named, fmt.Sprintf("%s (%s %s)", l.groupLabel(a, g), what, strings.Join(empty, ", ")))
		}
	}
	if gaps == 0 {
		return
	}
	list := strings.Join(named, ", ")
	if gaps > len(named) {
		list += fmt.Sprintf(" and %d more", gaps-len(named))
	}
	cs := ast.FormatExpr(ix.X)
	msg := fmt.Sprintf("%s: %s leaves some of the %d categories (0 to %d) without rows in %d of the %d groups of %s, each of which has its own row of %s's cutpoints: %s", call.Pos(), ast.FormatExpr(y), c+1, c, gaps, len(order), gid.Name, cs, list)
	if ends > 0 {
		msg += fmt.Sprintf("; in %d of them an end category, whose cutpoint is bounded by the data on one side only and set by its prior alone on the other", ends)
	}
	msg += fmt.Sprintf("; those cutpoints are identified by the prior only, and a mean-field q of them can be far too narrow: read %s from gpp sample, or share cutpoints across groups (ordered[%d] plus a group effect on eta)", cs, c)
	l.notes = append(l.notes, msg)
}

// groupLabel names group g of int data a: its label when the column was
// coded from labels, else the number.
func (l *lowerer) groupLabel(a *data.Array, g int) string {
	if lv := a.Levels; lv != nil && g-lv.First >= 0 && g-lv.First < len(lv.Labels) {
		return lv.Labels[g-lv.First]
	}
	return fmt.Sprint(g)
}

// ordinalBoundCheck reports an ordinal ~ on data (y ~ OrderedLogistic(eta,
// c)) whose declared upper bound on y is past the last category that c's
// K cutpoints make (0..K): the declaration says which categories the scale
// has, so the cutpoints are too few whatever values the data hold. A
// 9-point scale declared int<lower=0, upper=8> against ordered[7] was
// found only at the first 8, at a fit's start (2026-12-02). The bound is
// evaluated on a builder of its own, so that the model's tape is as it was.
func (l *lowerer) ordinalBoundCheck(call *ast.CallExpr, lhs ast.Node, cut autodiff.ID) {
	id, ok := lhs.(*ast.Ident)
	if !ok {
		return
	}
	sym := l.info.Uses[id]
	if sym == nil || sym.Kind != check.Data {
		return
	}
	d := l.info.DataVar(sym.Name)
	if d == nil || d.UpperExpr == nil {
		return
	}
	var up float64
	switch {
	case d.Upper != nil:
		up = *d.Upper
	case boundReadable(l.info, l.data, d.UpperExpr):
		sub := &lowerer{info: l.info, data: l.data, b: autodiff.NewBuilder(), env: map[*check.Symbol]value{}}
		v, sh, ok := sub.knownExpr(d.UpperExpr)
		if !ok || sh.Rank != 0 || len(v) != 1 {
			return
		}
		up = v[0]
	default:
		return
	}
	k := cutCount(l.b.Shape(cut))
	if up <= float64(k) || up != math.Trunc(up) {
		return
	}
	perRow := ""
	if l.b.Shape(cut).Rank == 2 {
		perRow = " a row"
	}
	l.errorf(d.UpperExpr.Pos(), "%s is declared upper=%s (categories 0..%g), but %s at %s has %d cutpoints%s, which give categories 0..%d: K cutpoints give K+1 categories 0..K; declare the cutpoints ordered[%g]",
		sym.Name, ast.FormatExpr(d.UpperExpr), up, ast.FormatExpr(call.Args[1]), call.Pos(), k, perRow, k, up)
}

// cutCount is the number of cutpoints per row of cutpoints of shape sh: a
// vector's length, a matrix's columns.
func cutCount(sh autodiff.Shape) int {
	if sh.Rank == 1 {
		return sh.Rows
	}
	return sh.Cols
}
