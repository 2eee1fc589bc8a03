package check

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
)

// softSumLimit is the largest scale per element that softSums warns of:
// sum(v) ~ Normal(c, s) over n elements holds their mean within a few
// times s / n of c (mean(v) ~ Normal(c, s) within a few s), and at 0.01 or
// below that is a constraint, not a prior. Stan's old advice,
// sum(v) ~ normal(0, 0.001 * N), is 0.001.
const softSumLimit = 0.01

// softSums warns of each ~ on sum(v) or mean(v) of a real vector param v,
// of a family in scaleArg with a constant location and a constant scale
// that holds v's mean within softSumLimit: a soft sum constraint, whose
// narrow ridge a fit follows poorly (a Lee–Carter trial's soft
// sum(k) ~ Normal(0, 0.001) ended at ELBO −7991, its sum_to_zero_vector
// form at −2792), where a sum_to_zero_vector makes the sum exact; a sum c
// over n elements is c/n plus one, the recipe the warning writes out.
func (c *checker) softSums() {
	ast.Inspect(c.file, func(n ast.Node) bool {
		if s, ok := n.(*ast.TildeStmt); ok {
			c.softSum(s)
		}
		return true
	})
}

// softSum warns if s is a soft sum constraint (softSums).
func (c *checker) softSum(s *ast.TildeStmt) {
	call, ok := ast.Unparen(s.LHS).(*ast.CallExpr)
	if !ok || len(call.Args) != 1 || call.Fun.Name != "sum" && call.Fun.Name != "mean" || c.info.Calls[call] == nil {
		return
	}
	id, ok := ast.Unparen(call.Args[0]).(*ast.Ident)
	if !ok {
		return
	}
	lat := c.latents[c.info.Uses[id]]
	if lat == nil || lat.Dims.Rank() != 1 || lat.Support != dist.Real || lat.HasLower() || lat.HasUpper() {
		return
	}
	i, ok := scaleArg[s.Dist.Fun.Name]
	if !ok || s.Dist.Fun.Name == "LogNormal" || c.info.UserDensities[s.Dist] != nil {
		return
	}
	loc := 0
	if s.Dist.Fun.Name == "StudentT" {
		loc = 1
	}
	n := lat.Dims[0]
	centre := c.constArg(s.Dist, loc)
	if centre == nil || i >= len(s.Dist.Args) {
		return
	}
	perElem, ok := c.sumScale(s.Dist.Args[i], n, call.Fun.Name == "sum")
	if !ok || perElem > softSumLimit {
		return
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	scaleText := exprString(s.Dist.Args[i])
	if v := c.info.Types[s.Dist.Args[i]].Const; v != nil {
		scaleText = num(*v)
	}
	what := "sum"
	if call.Fun.Name == "mean" {
		what = "mean"
	}
	msg := fmt.Sprintf("`%s ~ %s` is a soft constraint: it holds the %s of the param `%s` within a few times %s of %s, a narrow ridge in %s's elements that a fit follows poorly (a mean-field q cannot, NUTS takes tiny steps along it); ",
		exprString(s.LHS), exprString(s.Dist), what, lat.Name, scaleText, num(*centre), lat.Name)
	decl := "sum_to_zero_vector[" + n.String() + "]"
	if *centre == 0 {
		msg += fmt.Sprintf("make the %s exactly 0 instead: declare `param %s: %s` (with its prior, if any) and leave out this ~ (docs/language.md, Sum-to-zero vectors)", what, lat.Name, decl)
	} else {
		// a sum c over n elements is the mean c/n plus a zero-sum vector
		shift := num(*centre)
		if what == "sum" {
			shift = floatText(*centre) + " / " + n.String()
			if n.Known() {
				shift = num(*centre / float64(n.N))
			}
		}
		z := lat.Name + "_z"
		msg += fmt.Sprintf("make the %s exactly %s instead: declare `param %s: %s` (with %s's prior, if any), `let %s = %s + %s` and leave out this ~ (docs/language.md, Sum-to-zero vectors)",
			what, num(*centre), z, decl, lat.Name, lat.Name, shift, z)
	}
	c.info.Warnings = append(c.info.Warnings, ast.Errorf(s.LHS.Pos(), "%s", msg))
}

// sumScale returns the scale e allows each element's mean of a vector of
// n elements, for a sum (sum) or a mean: a positive constant s gives s / n
// for a sum of a known n, and s where n is known only with the data (at
// most s / n, so below the limit only when s is); Stan's k * N, N the
// vector's size name, gives k. ok is false for any other scale.
func (c *checker) sumScale(e ast.Expr, n Dim, sum bool) (float64, bool) {
	if v := c.info.Types[e].Const; v != nil {
		if *v <= 0 {
			return 0, false
		}
		if sum && n.Known() && n.N > 0 {
			return *v / float64(n.N), true
		}
		return *v, true
	}
	b, ok := ast.Unparen(e).(*ast.BinaryExpr)
	if !sum || !ok || b.Op != ast.Mul || n.Known() {
		return 0, false
	}
	for _, p := range [][2]ast.Expr{{b.X, b.Y}, {b.Y, b.X}} {
		k := c.info.Types[p[0]].Const
		if id, isID := ast.Unparen(p[1]).(*ast.Ident); isID && k != nil && *k > 0 && id.Name == n.String() {
			return *k, true
		}
	}
	return 0, false
}

// floatText writes v as a real literal (1.0, not 1, which divided by an
// int size would be an int division).
func floatText(v float64) string {
	t := strconv.FormatFloat(v, 'g', -1, 64)
	if !strings.ContainsAny(t, ".eE") && !strings.Contains(t, "Inf") && !strings.Contains(t, "NaN") {
		t += ".0"
	}
	return t
}
