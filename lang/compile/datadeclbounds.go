package compile

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
	"github.com/gpplang/gpp/lang/check"
)

// checkDataBounds checks the values of each data declaration against its
// bounds that depend on other data (real<lower=0, upper=u>[N] with u data
// of N values, one bound per element, or upper=m with m a data scalar),
// which data.Bind cannot evaluate: it checks constant bounds, and this the
// rest, as inclusively as Stan does. A violation is an error at the value's
// cell naming the bound's element (and its cell, when the bound is data
// read unchanged); missing cells are skipped. A bound that reads data not
// bound here (left out of a prediction's data) is not checked.
func checkDataBounds(info *check.Info, bound map[string]*data.Array) error {
	var errs ast.ErrorList
	var l *lowerer
	for _, d := range info.Data {
		a := bound[d.Name]
		if d.Implicit || a == nil || len(a.Values) == 0 {
			continue
		}
		for _, side := range []struct {
			e     ast.Expr
			c     *float64
			which string
		}{{d.LowerExpr, d.Lower, "lower"}, {d.UpperExpr, d.Upper, "upper"}} {
			if side.e == nil || side.c != nil || !boundReadable(info, bound, side.e) {
				continue
			}
			if l == nil {
				l = &lowerer{info: info, data: bound, b: autodiff.NewBuilder(), env: map[*check.Symbol]value{}}
			}
			err := l.checkDataBound(d, a, side.e, side.which)
			if err != nil {
				if list, ok := ast.Positioned(err); ok {
					errs = append(errs, list...)
				} else {
					return err
				}
				break // one error per declaration, as data.Bind gives
			}
		}
	}
	errs.Sort()
	return errs.Err()
}

// boundReadable reports whether every datum that bound expression e reads
// is bound with no missing cells, so that e can be evaluated.
func boundReadable(info *check.Info, bound map[string]*data.Array, e ast.Expr) bool {
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		if x, isIdent := n.(*ast.Ident); isIdent {
			if sym := info.Uses[x]; sym != nil && sym.Kind == check.Data {
				if a := bound[sym.Name]; a == nil || len(a.Missing) > 0 {
					ok = false
				}
			}
		}
		return ok
	})
	return ok
}

// checkDataBound checks the values a of data d against its bound e (which:
// "lower" or "upper"), a scalar or one per element.
func (l *lowerer) checkDataBound(d *check.DataVar, a *data.Array, e ast.Expr, which string) error {
	n := len(l.errs) // l's errors of earlier bounds, reported already
	v, sh, ok := l.knownExpr(e)
	perElem := sh.Rank > 0 // else one bound for every element
	switch {
	case len(l.errs) > n:
		return l.errs[n:]
	case !ok:
		return ast.Errorf(e.Pos(), "compile: the %s bound of `%s` is not known before the fit", which, d.Name)
	case perElem && !slices.Equal(dimsOf(sh), a.Shape):
		return boundShapeErr(e, which, d.Name, sh, a.Shape)
	}
	// The bound's cells, when it is data read unchanged.
	var cells *data.Array
	if x, isIdent := ast.Unparen(e).(*ast.Ident); isIdent {
		if sym := l.info.Uses[x]; sym != nil && sym.Kind == check.Data {
			cells = l.data[sym.Name]
		}
	}
	for i, x := range a.Values {
		if _, missing := slices.BinarySearch(a.Missing, i); missing {
			continue // a latent value, or one predict draws
		}
		k := 0
		if perElem {
			k = i
		}
		b := v[k]
		if which == "lower" && !(x >= b) || which == "upper" && !(x <= b) {
			val := "value " + strconv.FormatFloat(x, 'g', -1, 64)
			if lv := a.Levels; lv != nil && x == math.Trunc(x) && int(x)-lv.First >= 0 && int(x)-lv.First < len(lv.Labels) {
				// a column of labels: the cell holds the label, not its code
				label := lv.Labels[int(x)-lv.First]
				val = fmt.Sprintf("label %q, coded %s of %d labels,", label, strconv.FormatFloat(x, 'g', -1, 64), len(lv.Labels))
				for _, o := range lv.Labels {
					if o != label && strings.EqualFold(o, label) { // st05 beside ST05: one label twice
						val = fmt.Sprintf("label %q (%q but for case), coded %s of %d labels,", label, o, strconv.FormatFloat(x, 'g', -1, 64), len(lv.Labels))
						break
					}
				}
			}
			return ast.Errorf(a.Locate(i), "%s: %s is %s its %s bound %s = %s%s%s; `%s` is declared %s at %s",
				a.Name, val, map[string]string{"lower": "below", "upper": "above"}[which], which,
				boundElem(e, cells != nil, perElem, k, sh), strconv.FormatFloat(b, 'g', -1, 64), boundCell(e, cells, k), l.sizesFrom(e),
				d.Name, d.TypeString(), d.Pos)
		}
	}
	return nil
}

// boundElem names element k of bound e: u[3], (u * 2)[3], or for a scalar
// bound m or `max(c)`.
func boundElem(e ast.Expr, ident, perElem bool, k int, sh autodiff.Shape) string {
	text := ast.FormatExpr(e)
	switch {
	case perElem && ident:
		return text + "[" + shapeElem(sh, k) + "]"
	case perElem:
		return "(" + text + ")[" + shapeElem(sh, k) + "]"
	case ident:
		return text
	}
	return "`" + text + "`"
}

// boundCell says where element k of bound e, data read unchanged (cells),
// was given: " (u's cell d.csv:5:2)"; "" for any other bound.
func boundCell(e ast.Expr, cells *data.Array, k int) string {
	if cells == nil {
		return ""
	}
	at := cells.Locate(k)
	if at.Line == 0 {
		return ""
	}
	return fmt.Sprintf(" (%s's cell %s)", ast.FormatExpr(e), at)
}

// sizesFrom says where the sizes that bound e reads were bound from by
// the shape of other data: " (J = 199: the rows of teachers.csv)", so
// that a file cut short shows as the cause; "" when none was.
func (l *lowerer) sizesFrom(e ast.Expr) string {
	var notes []string
	seen := map[string]bool{}
	ast.Inspect(e, func(n ast.Node) bool {
		x, isIdent := n.(*ast.Ident)
		if !isIdent {
			return true
		}
		sym := l.info.Uses[x]
		if sym == nil || sym.Kind != check.Data || seen[sym.Name] {
			return true
		}
		seen[sym.Name] = true
		if a := l.data[sym.Name]; a != nil && len(a.Values) == 1 && a.SizeFrom() != "" {
			notes = append(notes, fmt.Sprintf("%s = %s: %s", sym.Name, strconv.FormatFloat(a.Values[0], 'g', -1, 64), a.SizeFrom()))
		}
		return true
	})
	if len(notes) == 0 {
		return ""
	}
	return " (" + strings.Join(notes, "; ") + ")"
}
