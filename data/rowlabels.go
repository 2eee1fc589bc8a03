package data

import (
	"fmt"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
)

// rowLabelWarnings warns of each column of labels coded in sorted order
// (no --levels) that indexes a vector whose elements are tied to the rows
// of a data matrix (matrixTied): an animal model's u = sigma_a * (LG * z)
// or u ~ MvNormal(0, square(sigma_a) * G) read as u[id]. The codes are the
// labels' places in byte order (P10 is 2), not the matrix's rows, so each
// record pairs with another line's row of G, and a label G has no row for
// (P999) gets some row; the fit runs silently on a scrambled G. Once per
// column, at its first such index.
func rowLabelWarnings(file *ast.File, info *check.Info, bound map[string]*Array) []string {
	if file == nil {
		return nil
	}
	var warns []string
	done := map[string]bool{}
	ast.Inspect(file, func(n ast.Node) bool {
		e, ok := n.(*ast.IndexExpr)
		if !ok || len(e.Indices) != 1 {
			return true
		}
		x, ok := ast.Unparen(e.X).(*ast.Ident)
		id, isID := ast.Unparen(e.Indices[0]).(*ast.Ident)
		if !ok || !isID || done[id.Name] {
			return true
		}
		a := bound[id.Name]
		if s := info.Uses[id]; s == nil || s.Kind != check.Data || a == nil || a.Levels == nil || a.Levels.Given || len(a.Levels.Labels) < 2 {
			return true
		}
		vec := info.Uses[x]
		if vec == nil || info.Types[e.X].Shape.Rank() != 1 {
			return true
		}
		m, how := matrixTied(info, vec)
		if m == "" {
			return true
		}
		done[id.Name] = true
		lv := a.Levels
		warns = append(warns, fmt.Sprintf("%s: its %d labels are coded %d to %d in sorted (byte) order, %s, and `%s` indexes %s at %s, whose elements are tied to the rows of the data matrix %s (%s): the codes are the labels' places in byte order, not the matrix's rows, so a record pairs with another row of it unless its rows are in that order, and a label it has no row for gets some other row; give the matrix's row order with --levels %s=@FILE (one label per line, row 0 first), or the column as int ids in the matrix's row order (docs/language.md, Known-covariance random effects)",
			columnWhere(lv, id.Name), len(lv.Labels), lv.First, lv.First+len(lv.Labels)-1, listCodes(*lv, lv.Labels, 4), id.Name, x.Name, e.Pos(), m, how, id.Name))
		return true
	})
	return warns
}

// matrixTied reports whether the vector sym is tied to a data matrix's
// row order: a let whose value (through lets) multiplies a data matrix by
// something not data (LG * z), or a param with an MvNormal or
// MvNormalCholesky prior whose covariance or factor reads a data matrix.
// It returns the matrix, as written, and how sym is tied to it; "" for
// none.
func matrixTied(info *check.Info, sym *check.Symbol) (matrix, how string) {
	dataMatrix := func(e ast.Expr) bool {
		t := info.Types[e]
		return t.DataOnly && t.Shape.Rank() == 2
	}
	find := func(root ast.Expr, product bool) string {
		found := ""
		seen := map[*check.Symbol]bool{}
		var walk func(n ast.Node) bool
		walk = func(n ast.Node) bool {
			if found != "" {
				return false
			}
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if product && n.Op == ast.Mul && dataMatrix(n.X) && !info.Types[n.Y].DataOnly && info.Types[n.Y].Shape.Rank() >= 1 {
					found = ast.FormatExpr(n.X)
					return false
				}
			case ast.Expr:
				if !product && dataMatrix(n) {
					found = ast.FormatExpr(n)
					return false
				}
				if id, ok := n.(*ast.Ident); ok {
					s := info.Uses[id]
					if s != nil && s.Kind == check.Let && !seen[s] && !info.Types[id].DataOnly {
						seen[s] = true
						if ls, ok := s.Decl.(*ast.LetStmt); ok {
							ast.Inspect(ls.Value, walk)
						}
					}
				}
			}
			return true
		}
		ast.Inspect(root, walk)
		return found
	}
	switch sym.Kind {
	case check.Let:
		ls, ok := sym.Decl.(*ast.LetStmt)
		if !ok {
			return "", ""
		}
		if m := find(ls.Value, true); m != "" {
			return m, fmt.Sprintf("by the let %s at %d:%d", sym.Name, ls.Let.Line, ls.Let.Col)
		}
	case check.Param:
		for _, lat := range info.Latents {
			if lat.Symbol != sym {
				continue
			}
			prior, name := lat.Prior, ""
			if lat.PriorDist != nil {
				name = lat.PriorDist.Name
			}
			if prior == nil && len(lat.Tildes) == 1 {
				if lhs, ok := ast.Unparen(lat.Tildes[0].LHS).(*ast.Ident); ok && info.Uses[lhs] == sym {
					prior = lat.Tildes[0].Dist
					if d := info.Dists[prior]; d != nil {
						name = d.Name
					}
				}
			}
			if prior == nil || (name != "MvNormal" && name != "MvNormalCholesky") || len(prior.Args) != 2 {
				return "", ""
			}
			if m := find(prior.Args[1], false); m != "" {
				return m, fmt.Sprintf("by its prior %s at %d:%d", name, prior.Pos().Line, prior.Pos().Col)
			}
		}
	}
	return "", ""
}
