package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/stdlib"
)

// ReplicateSuffixes name a replicate of data y by the usual conventions:
// y_rep (Stan's), yrep (bayesplot's), y_pred, y_sim.
var ReplicateSuffixes = []string{"_rep", "rep", "_pred", "_sim"}

// Mirror is observed data that a replicate output mirrors: the data gpp
// fit --plots draws it against (cmd/gpp's findReplicates) and whose shape
// the checker expects it to have (replicateShapes).
type Mirror struct {
	Data *DataVar
	// Named is true when the output is named after the data: y_rep,
	// yrep, y_pred or y_sim.
	Named bool
	// Tilde is the first top-level `y ~ D(args)` of the data whole with
	// the replicate's distribution expression and truncation; nil if none.
	Tilde *ast.TildeStmt
}

// Mirrors returns, for each replicate output `output NAME ~ D(args)` of a
// checked file, the data declarations it mirrors, in declaration order:
// data y mirrors when the model observes y whole at the top level with
// the same distribution expression and truncation (`y ~ D(args)`, `y ~
// D(args) T[L, U]`), or when NAME is y_rep, yrep, y_pred or y_sim. A ~ of an
// element or a slice of y, or one inside a for or an if body, does not
// count. Outputs that mirror nothing have no entry; size names are never
// mirrored.
func Mirrors(f *ast.File, info *Info) map[*OutputVar][]Mirror {
	observed := map[string][]*ast.TildeStmt{} // data name → its top-level whole ~'s
	for _, s := range f.Stmts {
		t, ok := s.(*ast.TildeStmt)
		if !ok {
			continue
		}
		id, ok := t.LHS.(*ast.Ident)
		if !ok {
			continue
		}
		if sym := info.Uses[id]; sym != nil && sym.Kind == Data {
			observed[id.Name] = append(observed[id.Name], t)
		}
	}
	out := map[*OutputVar][]Mirror{}
	for _, o := range info.Outputs {
		if o.Stmt == nil || o.Stmt.Dist == nil {
			continue // not a replicate
		}
		text := DistText(o.Stmt.Dist, o.Stmt.Trunc)
		for _, d := range info.Data {
			if d.Implicit {
				continue
			}
			m := Mirror{Data: d, Named: slices.ContainsFunc(ReplicateSuffixes, func(s string) bool { return o.Name == d.Name+s })}
			if i := slices.IndexFunc(observed[d.Name], func(t *ast.TildeStmt) bool { return DistText(t.Dist, t.Trunc) == text }); i >= 0 {
				m.Tilde = observed[d.Name][i]
			}
			if m.Named || m.Tilde != nil {
				out[o] = append(out[o], m)
			}
		}
	}
	return out
}

// DistText writes a distribution and its truncation (nil: none) as
// source text, "Normal(mu, sigma) T[0, ]": two are the same expression
// when their texts are equal.
func DistText(call *ast.CallExpr, t *ast.Truncation) string {
	s := ast.FormatExpr(call)
	if t == nil {
		return s
	}
	end := func(e ast.Expr) string {
		if e == nil {
			return ""
		}
		return ast.FormatExpr(e)
	}
	return s + " T[" + end(t.Lower) + ", " + end(t.Upper) + "]"
}

// distString is DistText for messages, shortened as exprString shortens
// an expression.
func distString(call *ast.CallExpr, t *ast.Truncation) string {
	return shorten(DistText(call, t))
}

// replicateShapes warns of a replicate output whose shape is not that of
// the data it mirrors (Mirrors): a replicate takes the broadcast shape of
// its arguments, as Stan's _rng, so `output y_rep ~ Normal(mu, sigma)`
// with scalar mu and sigma draws one value, not one per observation of y
// as PyMC's sample_posterior_predictive would, and gpp fit --plots has no
// replicate of y to draw. Only a replicate whose name says it is one is
// warned of: named after y (y_rep, yrep, y_pred, y_sim) or ending in rep;
// another of y's expression, such as a one-step-ahead forecast `output
// x_next ~ StudentT(nu, mu, s)` of iid x, is a single draw on purpose.
// Scalar data are left out, and so is a replicate that has the shape of
// any data it mirrors; shapes differ when their ranks do or when a dim
// known at check time differs.
func (c *checker) replicateShapes() {
	mirrors := Mirrors(c.file, c.info)
	for _, o := range c.info.Outputs {
		ms := mirrors[o]
		if !o.Type.Valid() || o.Name == LogLikOutput || slices.ContainsFunc(ms, func(m Mirror) bool { return !shapesDiffer(o.Type.Shape, m.Data.Dims) }) {
			continue // log_lik as a replicate has a warning of its own (logLik)
		}
		repName := strings.HasSuffix(strings.ToLower(o.Name), "rep")
		ms = slices.DeleteFunc(ms, func(m Mirror) bool { return m.Data.Dims.Rank() == 0 || !m.Named && !repName })
		if len(ms) == 0 {
			continue
		}
		m := ms[0]
		if i := slices.IndexFunc(ms, func(m Mirror) bool { return m.Named }); i >= 0 {
			m = ms[i]
		}
		y := m.Data
		where := fmt.Sprintf("by its name; %s declared at %s", y.Name, y.Pos)
		if m.Tilde != nil {
			where = fmt.Sprintf("`%s ~ %s` at %s", y.Name, distString(m.Tilde.Dist, m.Tilde.Trunc), m.Tilde.Pos())
		}
		draws := "a scalar"
		if o.Type.Shape.Rank() > 0 {
			draws = o.Type.Shape.String()
		}
		fix := fmt.Sprintf("give it an argument of %s's shape %s", y.Name, y.Dims)
		if s := repSuggestion(o, y, c.info.Dists[o.Stmt.Dist]); s != "" {
			fix = fmt.Sprintf("repeat a scalar argument to %s's shape: %s", y.Name, s)
		}
		c.info.Warnings = append(c.info.Warnings, ast.Errorf(o.Pos,
			"output `%s ~ %s` draws %s, but it mirrors %s %s (%s): a replicate takes the shape of its arguments, as Stan's _rng; for one replicate per observation %s",
			o.Name, distString(o.Stmt.Dist, o.Stmt.Trunc), draws, y.Name, y.Dims, where, fix))
	}
}

// shapesDiffer reports whether a value of shape a cannot have shape b:
// their ranks differ, or a dim known at check time differs.
func shapesDiffer(a, b Shape) bool {
	if a.Rank() != b.Rank() {
		return true
	}
	for i := range a {
		if a[i].Known() && b[i].Known() && a[i].N != b[i].N {
			return true
		}
	}
	return false
}

// repSuggestion returns the replicate's distribution with its first
// argument repeated to the shape of vector data y, `Normal(rep(mu, N),
// sigma)`, when that is simple and right: an elementwise distribution
// drawing a scalar (so each argument a scalar) and y's size a name or a
// number. Else "".
func repSuggestion(o *OutputVar, y *DataVar, d *stdlib.Dist) string {
	call := o.Stmt.Dist
	if d == nil || d.Shape != stdlib.DistElementwise || o.Type.Shape.Rank() != 0 || y.Dims.Rank() != 1 || len(call.Args) == 0 {
		return ""
	}
	var n ast.Expr
	switch dim := y.Dims[0]; {
	case dim.Derived:
		return ""
	case dim.Name != "":
		n = &ast.Ident{Name: dim.Name}
	case dim.Known():
		n = &ast.NumberLit{Raw: strconv.Itoa(dim.N), Value: float64(dim.N), IsInt: true}
	default:
		return ""
	}
	args := slices.Clone(call.Args)
	args[0] = &ast.CallExpr{Fun: &ast.Ident{Name: "rep"}, Args: []ast.Expr{args[0], n}}
	return DistText(&ast.CallExpr{Fun: call.Fun, Args: args}, o.Stmt.Trunc)
}
