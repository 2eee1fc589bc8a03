package ast

import "fmt"

// CloneExpr returns a deep copy of e with the same positions: fresh nodes,
// so that a phase keyed by node (the checker's types) can annotate each
// copy apart. The checker expands a user function's body at every call
// site from a copy. A nil e gives nil.
func CloneExpr(e Expr) Expr {
	if e == nil {
		return nil
	}
	list := func(es []Expr) []Expr {
		if es == nil {
			return nil
		}
		out := make([]Expr, len(es))
		for i, x := range es {
			out[i] = CloneExpr(x)
		}
		return out
	}
	switch e := e.(type) {
	case *Ident:
		c := *e
		return &c
	case *NumberLit:
		c := *e
		return &c
	case *UnaryExpr:
		return &UnaryExpr{OpPos: e.OpPos, Op: e.Op, X: CloneExpr(e.X)}
	case *BinaryExpr:
		return &BinaryExpr{X: CloneExpr(e.X), OpPos: e.OpPos, Op: e.Op, Y: CloneExpr(e.Y), Start: e.Start}
	case *ParenExpr:
		return &ParenExpr{Lparen: e.Lparen, X: CloneExpr(e.X), Rparen: e.Rparen}
	case *TransposeExpr:
		return &TransposeExpr{X: CloneExpr(e.X), Quote: e.Quote}
	case *CallExpr:
		return &CallExpr{Fun: CloneExpr(e.Fun).(*Ident), Lparen: e.Lparen, Args: list(e.Args), Rparen: e.Rparen}
	case *IndexExpr:
		return &IndexExpr{X: CloneExpr(e.X), Lbrack: e.Lbrack, Indices: list(e.Indices), Rbrack: e.Rbrack}
	case *VectorLit:
		return &VectorLit{Lbrack: e.Lbrack, Elems: list(e.Elems), Rbrack: e.Rbrack}
	case *SliceExpr:
		return &SliceExpr{Lo: CloneExpr(e.Lo), Colon: e.Colon, Hi: CloneExpr(e.Hi)}
	}
	panic(fmt.Sprintf("ast.CloneExpr: unexpected expression %T", e))
}
