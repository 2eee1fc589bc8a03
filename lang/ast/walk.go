package ast

// Inspect traverses the tree rooted at n in depth-first order, calling f for
// each node before its children. If f returns false, the children of that node
// are skipped. Nil optional children are not visited.
func Inspect(n Node, f func(Node) bool) {
	if n == nil || !f(n) {
		return
	}
	expr := func(e Expr) {
		if e != nil {
			Inspect(e, f)
		}
	}
	switch n := n.(type) {
	case *File:
		for _, s := range n.Stmts {
			Inspect(s, f)
		}
	case *Ident, *NumberLit:
	case *UnaryExpr:
		expr(n.X)
	case *BinaryExpr:
		expr(n.X)
		expr(n.Y)
	case *ParenExpr:
		expr(n.X)
	case *TransposeExpr:
		expr(n.X)
	case *CallExpr:
		Inspect(n.Fun, f)
		for _, a := range n.Args {
			expr(a)
		}
	case *IndexExpr:
		expr(n.X)
		for _, a := range n.Indices {
			expr(a)
		}
	case *VectorLit:
		for _, e := range n.Elems {
			expr(e)
		}
	case *SliceExpr:
		expr(n.Lo)
		expr(n.Hi)
	case *TypeExpr:
		expr(n.Lower)
		expr(n.Upper)
		for _, d := range n.Dims {
			expr(d)
		}
	case *DataDecl:
		Inspect(n.Name, f)
		Inspect(n.Type, f)
	case *ConstDecl:
		Inspect(n.Name, f)
		if n.Type != nil {
			Inspect(n.Type, f)
		}
		expr(n.Value)
	case *ParamDecl:
		Inspect(n.Name, f)
		Inspect(n.Type, f)
		if n.Prior != nil {
			Inspect(n.Prior, f)
		}
	case *TildeStmt:
		expr(n.LHS)
		Inspect(n.Dist, f)
		if n.Trunc != nil {
			Inspect(n.Trunc, f)
		}
	case *Truncation:
		expr(n.Lower)
		expr(n.Upper)
	case *LetStmt:
		Inspect(n.Name, f)
		expr(n.Value)
	case *TargetStmt:
		expr(n.Value)
	case *ForStmt:
		Inspect(n.Var, f)
		expr(n.Lo)
		expr(n.Hi)
		for _, s := range n.Body {
			Inspect(s, f)
		}
	case *IfStmt:
		for _, b := range n.Branches {
			expr(b.Cond)
			for _, s := range b.Body.Stmts {
				Inspect(s, f)
			}
		}
		if n.ElseBody != nil {
			for _, s := range n.ElseBody.Stmts {
				Inspect(s, f)
			}
		}
	case *OutputStmt:
		Inspect(n.Name, f)
		expr(n.Value)
		if n.Dist != nil {
			Inspect(n.Dist, f)
		}
		if n.Trunc != nil {
			Inspect(n.Trunc, f)
		}
	case *FnDecl:
		Inspect(n.Name, f)
		for _, id := range n.Params {
			Inspect(id, f)
		}
		for _, l := range n.Lets {
			Inspect(l, f)
		}
		expr(n.Body)
	default:
		panic("ast.Inspect: unexpected node type")
	}
}

// Unparen returns e without the parentheses around it: (x) and ((x)) are
// x, which checks and rewrites that look at an expression's form want.
func Unparen(e Expr) Expr {
	for {
		p, ok := e.(*ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}
