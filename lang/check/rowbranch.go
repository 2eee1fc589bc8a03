package check

import (
	"github.com/gpplang/gpp/lang/ast"
)

// RowBranch says which rows of a data vector read their cells: every
// read of it is d[i] in a branch of one if, directly in a loop over i,
// whose conditions compare a data vector's row i with a number
// (`if censored[i] == 1`). Bind then tells, for a missing cell, whether
// its row's branch reads it (DataVar.RowBranch).
type RowBranch struct {
	Conds []RowCond // each branch's condition, in order
	Reads []bool    // whether each branch reads it, the else's last
}

// RowCond is a condition Data[i] Op K (K Op Data[i] when Flip).
type RowCond struct {
	Data string
	Op   ast.Op
	K    float64
	Flip bool
}

// Holds reports whether the condition holds for the value v of its
// data's row.
func (c RowCond) Holds(v float64) bool {
	x, y := v, c.K
	if c.Flip {
		x, y = y, x
	}
	switch c.Op {
	case ast.Lt:
		return x < y
	case ast.Le:
		return x <= y
	case ast.Gt:
		return x > y
	case ast.Ge:
		return x >= y
	case ast.Eq:
		return x == y
	case ast.Ne:
		return x != y
	}
	return false
}

// Branch returns the branch that a row takes, given its values of the
// conditions' data (value), as an index of Reads; ok is false where a
// value is not known.
func (r *RowBranch) Branch(value func(name string) (float64, bool)) (int, bool) {
	for k, c := range r.Conds {
		v, ok := value(c.Data)
		if !ok {
			return 0, false
		}
		if c.Holds(v) {
			return k, true
		}
	}
	return len(r.Conds), true
}

// rowBranch returns d's RowBranch, or nil where its reads are of another
// form.
func (c *checker) rowBranch(d *DataVar) *RowBranch {
	var found *RowBranch
	uses, inForm := 0, 0 // d's reads in all, and as d[i] in a branch found
	ast.Inspect(c.file, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && c.info.Uses[id] == d.Symbol {
			uses++
		}
		f, ok := n.(*ast.ForStmt)
		if !ok {
			return true
		}
		for _, s := range f.Body {
			ifs, ok := s.(*ast.IfStmt)
			if !ok {
				continue
			}
			rb := &RowBranch{}
			bodies := make([]*ast.Block, 0, len(ifs.Branches)+1)
			for _, b := range ifs.Branches {
				cond, ok := c.rowCond(b.Cond, f.Var)
				if !ok {
					rb = nil
					break
				}
				rb.Conds = append(rb.Conds, cond)
				bodies = append(bodies, b.Body)
			}
			if rb == nil {
				continue
			}
			bodies = append(bodies, ifs.ElseBody)
			reads := 0
			for _, body := range bodies {
				n := 0
				if body != nil {
					n = c.rowReads(body, d, f.Var)
				}
				rb.Reads = append(rb.Reads, n > 0)
				reads += n
			}
			if reads > 0 {
				if found != nil {
					found = &RowBranch{} // two ifs: not followed
				} else {
					found = rb
				}
				inForm += reads
			}
		}
		return true
	})
	if found == nil || found.Conds == nil || uses != inForm {
		return nil
	}
	return found
}

// rowCond reads cond as Data[v] Op K or K Op Data[v], Data a data vector.
func (c *checker) rowCond(cond ast.Expr, v *ast.Ident) (RowCond, bool) {
	b, ok := ast.Unparen(cond).(*ast.BinaryExpr)
	if !ok || b.Op < ast.Lt || b.Op > ast.Ne {
		return RowCond{}, false
	}
	if name, ok := c.rowOf(b.X, v); ok {
		if k, ok := ast.Unparen(b.Y).(*ast.NumberLit); ok {
			return RowCond{Data: name, Op: b.Op, K: k.Value}, true
		}
	}
	if name, ok := c.rowOf(b.Y, v); ok {
		if k, ok := ast.Unparen(b.X).(*ast.NumberLit); ok {
			return RowCond{Data: name, Op: b.Op, K: k.Value, Flip: true}, true
		}
	}
	return RowCond{}, false
}

// rowOf reports whether e is D[v], D a data vector, and names D.
func (c *checker) rowOf(e ast.Expr, v *ast.Ident) (string, bool) {
	ix, ok := ast.Unparen(e).(*ast.IndexExpr)
	if !ok || len(ix.Indices) != 1 {
		return "", false
	}
	id, ok := ast.Unparen(ix.X).(*ast.Ident)
	s := c.info.Uses[id]
	if !ok || s == nil || s.Kind != Data {
		return "", false
	}
	if !c.isVar(ix.Indices[0], v) {
		return "", false
	}
	return id.Name, true
}

// isVar reports whether e is the loop variable v.
func (c *checker) isVar(e ast.Expr, v *ast.Ident) bool {
	i, ok := ast.Unparen(e).(*ast.Ident)
	s := c.info.Uses[i]
	return ok && s != nil && (s == c.info.Defs[v] || s == c.info.Uses[v])
}

// rowReads counts the reads of d in body that are d[v] (the caller
// compares them with all of d's reads: one of another form, d alone or
// d[v + 1], is not followed).
func (c *checker) rowReads(body *ast.Block, d *DataVar, v *ast.Ident) int {
	n := 0
	visit := func(x ast.Node) bool {
		ix, ok := x.(*ast.IndexExpr)
		if !ok {
			return true
		}
		if id, ok := ast.Unparen(ix.X).(*ast.Ident); ok && c.info.Uses[id] == d.Symbol && len(ix.Indices) == 1 {
			if c.isVar(ix.Indices[0], v) {
				n++
			}
		}
		return true
	}
	for _, s := range body.Stmts {
		ast.Inspect(s, visit)
	}
	return n
}
