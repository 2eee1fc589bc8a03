package check

import (
	"fmt"

	"github.com/gpplang/gpp/lang/ast"
)

// oneBasedLoops warns about a for loop carried over from Stan's 1-based
// `for (i in 1:N)`: it starts at the literal 1, ends at the length of an
// axis its body indexes with the loop variable alone (y[i], X[i, j]), and
// never reads a shifted i - k (a recursion such as mu[i] = mu[i-1] + ...
// starts at 1 on purpose). gpp's loops are half-open and 0-based, so such
// a loop skips element 0 without a word, and the fit uses one observation
// fewer.
func (c *checker) oneBasedLoops() {
	ast.Inspect(c.file, func(n ast.Node) bool {
		s, ok := n.(*ast.ForStmt)
		if !ok {
			return true
		}
		if w := c.oneBasedLoop(s); w != nil {
			c.info.Warnings = append(c.info.Warnings, w)
		}
		return true
	})
}

// oneBasedLoop returns the warning for one loop, or nil.
func (c *checker) oneBasedLoop(s *ast.ForStmt) *ast.Error {
	lit, ok := ast.Unparen(s.Lo).(*ast.NumberLit)
	if !ok || !lit.IsInt || lit.Value != 1 {
		return nil
	}
	hiType, ok := c.info.Types[s.Hi]
	if !ok || !hiType.Valid() {
		return nil
	}
	var hi Dim
	if hiType.Const != nil {
		hi = knownDim(int(*hiType.Const))
	} else {
		hi = c.symbolicDim(s.Hi)
	}
	loopVar := c.info.Defs[s.Var]
	isVar := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && loopVar != nil && c.info.Uses[id] == loopVar
	}
	shifted := false
	var hit string     // the element never used, as y[0]
	var hitSym *Symbol // its array, where a name
	for _, b := range s.Body {
		ast.Inspect(b, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if n.Op == ast.Sub && isVar(n.X) {
					shifted = true
				}
			case *ast.IndexExpr:
				if hit != "" {
					return true
				}
				t, ok := c.info.Types[n.X]
				if !ok || !t.Valid() || t.Shape.Rank() != len(n.Indices) {
					return true
				}
				for axis, ix := range n.Indices {
					if !isVar(ix) || compareDims(hi, t.Shape[axis]) != dimEqual {
						continue
					}
					hit = elementZero(exprString(n.X), len(n.Indices), axis)
					if id, ok := ast.Unparen(n.X).(*ast.Ident); ok {
						hitSym = c.info.Uses[id]
					}
					break
				}
			}
			return true
		})
	}
	if shifted || hit == "" || hitSym != nil && c.readElsewhere(hitSym) {
		return nil
	}
	return ast.Errorf(s.Lo.Pos(), "loop starts at 1, so %s is never used: gpp indexes from 0 and a loop lo:hi runs lo, ..., hi-1 (for %s in 0:%s)",
		hit, s.Var.Name, exprString(s.Hi))
}

// readElsewhere reports whether the model reads array sym so that its
// element 0 is used anyway: whole (sum(t), t - mu) or through a slice
// (a Hawkes process's t[0:i] in a loop from 1), here or anywhere; the
// loop may then start at 1 on purpose. Single elements (y[i - 1], y[k])
// elsewhere do not count: where they reach 0 is not known here.
func (c *checker) readElsewhere(sym *Symbol) bool {
	indexed := map[*ast.Ident]bool{} // sym's names read through an index
	found := false
	ast.Inspect(c.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IndexExpr:
			if id, ok := ast.Unparen(n.X).(*ast.Ident); ok && c.info.Uses[id] == sym {
				indexed[id] = true
				for _, ix := range n.Indices {
					if _, ok := ix.(*ast.SliceExpr); ok {
						found = true
					}
				}
			}
		case *ast.Ident:
			if c.info.Uses[n] == sym && !indexed[n] {
				found = true
			}
		}
		return !found
	})
	return found
}

// elementZero names the elements at index 0 of one axis: y[0], X[0, :].
func elementZero(x string, rank, axis int) string {
	switch {
	case rank == 1:
		return x + "[0]"
	case axis == 0:
		return fmt.Sprintf("row %s[0, :]", x)
	}
	return fmt.Sprintf("column %s[:, 0]", x)
}
