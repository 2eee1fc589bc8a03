package check

import (
	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
)

// improper warns about each param with no prior, an unbounded support, and
// no term of the log density that reads it (through lets or not): its
// posterior is flat over the support, which no distribution is, so a fit
// has nothing to converge to and says only that it did not.
func (c *checker) improper() {
	reads := map[*Symbol]bool{} // symbols the log density reads
	lets := map[*Symbol]ast.Expr{}
	var work []ast.Expr
	var visit func(ss []ast.Stmt)
	visit = func(ss []ast.Stmt) {
		for _, s := range ss {
			switch s := s.(type) {
			case *ast.ParamDecl:
				if s.Prior != nil {
					work = append(work, s.Name, s.Prior)
				}
			case *ast.TildeStmt:
				work = append(work, s.LHS, s.Dist)
			case *ast.TargetStmt:
				work = append(work, s.Value)
			case *ast.LetStmt:
				if sym := c.info.Defs[s.Name]; sym != nil {
					lets[sym] = s.Value
				}
			case *ast.ForStmt:
				visit(s.Body)
			case *ast.IfStmt:
				for _, b := range s.Branches {
					visit(b.Body.Stmts)
				}
				if s.ElseBody != nil {
					visit(s.ElseBody.Stmts)
				}
			}
		}
	}
	visit(c.file.Stmts)
	for len(work) > 0 {
		e := work[len(work)-1]
		work = work[:len(work)-1]
		ast.Inspect(e, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			sym := c.info.Uses[id]
			if sym == nil {
				sym = c.info.Defs[id]
			}
			if sym == nil || reads[sym] {
				return true
			}
			reads[sym] = true
			if v, ok := lets[sym]; ok {
				work = append(work, v)
			}
			return true
		})
	}
	used := map[*Symbol]bool{} // read anywhere but in their own declaration
	for _, sym := range c.info.Uses {
		used[sym] = true
	}
	for _, lat := range c.info.Latents {
		sym := c.info.Defs[lat.Decl.Name]
		if lat.Prior != nil && !used[sym] {
			// a leftover of an edit, as a scale param that a
			// reparameterization no longer reads: the fit gives its prior back
			c.info.Warnings = append(c.info.Warnings, ast.Errorf(lat.Pos,
				"param `%s` is read nowhere but in its declaration: it does not enter the model, and its fit is its prior %s; leave it out, or use it",
				lat.Name, ast.FormatExpr(lat.Prior)))
			continue
		}
		if lat.Prior != nil || reads[sym] || lat.Support == dist.Unit || lat.Support == dist.Simplex ||
			lat.Support == dist.CholCorr || lat.Support == dist.CorrMatrix || lat.HasLower() && lat.HasUpper() {
			continue
		}
		c.info.Warnings = append(c.info.Warnings, ast.Errorf(lat.Pos,
			"param `%s` has no prior and no term of the log density reads it: its posterior is flat over %s, which is improper, and a fit cannot converge; give it a prior (param %s: ... ~ D(...)) or use it in the model",
			lat.Name, lat.Values(), lat.Name))
	}
}
