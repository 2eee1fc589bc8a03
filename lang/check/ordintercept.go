package check

import (
	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/stdlib"
)

// orderedIntercepts warns of an intercept in an ordinal family's linear
// predictor: a scalar real param added to the whole of eta (directly or
// through lets of sums) where the cutpoints are a param (c or c[g]). The
// cutpoints then hold the intercept already and shift with it, so it is
// identified by its prior alone (a trial's a0 ~ Normal(0, 5) came out
// 0.908 ± 0.069, its sd 15 times too small); brms drops it.
func (c *checker) orderedIntercepts() {
	warned := map[*Latent]bool{}
	ast.Inspect(c.file, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		d := c.info.Dists[call]
		if d == nil || d.Shape != stdlib.DistOrdinal || len(call.Args) < 2 {
			return true
		}
		// the cutpoints a param, whole or a row per group (c[g]): cutpoints
		// computed with one fixed, append_row(0, c_raw), leave an
		// intercept identified
		cut := ast.Unparen(call.Args[1])
		if ix, ok := cut.(*ast.IndexExpr); ok {
			cut = ast.Unparen(ix.X)
		}
		if c.identLatent(cut) == nil {
			return true
		}
		for _, h := range c.intercepts(call.Args[0], 0) {
			if warned[h.lat] {
				continue
			}
			warned[h.lat] = true
			c.info.Warnings = append(c.info.Warnings, ast.Errorf(h.at.Pos(),
				"`%s` is added to every element of %s's eta, whose cutpoints `%s` are a param and already hold the intercept: %s and the cutpoints shift together, so %s is identified only by its prior; drop it",
				h.lat.Name, call.Fun.Name, exprString(call.Args[1]), h.lat.Name, h.lat.Name))
		}
		return true
	})
}

type intercept struct {
	lat *Latent
	at  ast.Expr
}

// intercepts are the scalar real params that are terms of the sum e,
// following lets (to a depth of 8).
func (c *checker) intercepts(e ast.Expr, depth int) []intercept {
	if depth > 8 {
		return nil
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.BinaryExpr:
		if x.Op != ast.Add && x.Op != ast.Sub {
			return nil
		}
		return append(c.intercepts(x.X, depth+1), c.intercepts(x.Y, depth+1)...)
	case *ast.Ident:
		sym := c.info.Uses[x]
		if sym == nil {
			return nil
		}
		if l := c.latents[sym]; l != nil {
			if len(l.Dims) == 0 && l.Support == dist.Real && !l.Bounded() {
				return []intercept{{l, x}}
			}
			return nil
		}
		if let, ok := sym.Decl.(*ast.LetStmt); ok && sym.Kind == Let && !sym.Local {
			return c.intercepts(let.Value, depth+1)
		}
	}
	return nil
}
