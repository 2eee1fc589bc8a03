package ast

// EqualExpr reports whether a and b are the same expression: the same tree
// of operators, names, numbers and calls, positions and parentheses aside
// ((x) is x). Names are compared as text; whether they mean the same
// symbol is the caller's to know.
func EqualExpr(a, b Expr) bool {
	a, b = Unparen(a), Unparen(b)
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	list := func(xs, ys []Expr) bool {
		if len(xs) != len(ys) {
			return false
		}
		for i := range xs {
			if !EqualExpr(xs[i], ys[i]) {
				return false
			}
		}
		return true
	}
	switch a := a.(type) {
	case *Ident:
		b, ok := b.(*Ident)
		return ok && a.Name == b.Name
	case *NumberLit:
		b, ok := b.(*NumberLit)
		return ok && a.IsInt == b.IsInt && a.Value == b.Value
	case *UnaryExpr:
		b, ok := b.(*UnaryExpr)
		return ok && a.Op == b.Op && EqualExpr(a.X, b.X)
	case *BinaryExpr:
		b, ok := b.(*BinaryExpr)
		return ok && a.Op == b.Op && EqualExpr(a.X, b.X) && EqualExpr(a.Y, b.Y)
	case *TransposeExpr:
		b, ok := b.(*TransposeExpr)
		return ok && EqualExpr(a.X, b.X)
	case *CallExpr:
		b, ok := b.(*CallExpr)
		return ok && a.Fun.Name == b.Fun.Name && list(a.Args, b.Args)
	case *IndexExpr:
		b, ok := b.(*IndexExpr)
		return ok && EqualExpr(a.X, b.X) && list(a.Indices, b.Indices)
	case *VectorLit:
		b, ok := b.(*VectorLit)
		return ok && list(a.Elems, b.Elems)
	case *SliceExpr:
		b, ok := b.(*SliceExpr)
		return ok && EqualExpr(a.Lo, b.Lo) && EqualExpr(a.Hi, b.Hi)
	}
	return false
}
