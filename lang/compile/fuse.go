package compile

import (
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
)

// Pattern-matched lowerings onto the tape's fused ops. Each one recognises
// an expression form in the AST, emits one fused node in place of a chain
// of elementwise nodes, and keeps the positions the chain would have had
// (the fused node takes the position of the outermost call).

// emulFactors appends the operands of a chain of .* products, through
// parentheses, left to right.
func emulFactors(e ast.Expr, out []ast.Expr) []ast.Expr {
	e = ast.Unparen(e)
	if b, ok := e.(*ast.BinaryExpr); ok && b.Op == ast.EMul {
		return emulFactors(b.Y, emulFactors(b.X, out))
	}
	return append(out, e)
}

// rowSumProd lowers rowsum(x .* y .* w) onto RowSumProd when two of the
// factors are matrices of one shape [n, m] (typically gathered rows, EPM's
// W[links[, 0]]) and the third, if any, is a row [1, m] (r'), in any order
// and grouping of the product. The gathers are read in place by the fused
// node. It reports false, having lowered nothing, when the argument is not
// a product of two or three factors or depends only on data (then it is
// computed once anyway); otherwise it lowers the call, falling back to the
// plain product and rowsum when the shapes do not fit.
func (l *lowerer) rowSumProd(e *ast.CallExpr, pos ast.Pos) (value, bool) {
	if len(e.Args) != 1 || l.info.Types[e].DataOnly {
		return value{}, false
	}
	fs := emulFactors(e.Args[0], nil)
	if len(fs) < 2 || len(fs) > 3 {
		return value{}, false
	}
	leaves := make(map[ast.Expr]value, len(fs))
	ids := make([]autodiff.ID, len(fs))
	nodes := true
	for i, f := range fs {
		v := l.expr(f)
		leaves[f] = v
		nodes = nodes && v.node
		ids[i] = v.id
	}
	b := l.b
	if nodes {
		if x, y, w, ok := rowProductFactors(b, ids, pos); ok {
			return value{id: b.RowSumProd(x, y, w, pos), node: true}, true
		}
	}
	arg := l.rebuild(e.Args[0], leaves)
	return value{id: b.RowSum(l.node(arg, e.Args[0].Pos()), pos), node: true}, true
}

// rowProductFactors picks the two matrix factors and the row of weights
// (a row of ones when there are two factors) among the lowered factors.
func rowProductFactors(b *autodiff.Builder, ids []autodiff.ID, pos ast.Pos) (x, y, w autodiff.ID, ok bool) {
	mats := func(i, j int) bool {
		si, sj := b.Shape(ids[i]), b.Shape(ids[j])
		return si.Rank == 2 && si == sj
	}
	if len(ids) == 2 {
		if !mats(0, 1) {
			return 0, 0, 0, false
		}
		m := b.Shape(ids[0]).Cols
		ones := make([]float64, m)
		for i := range ones {
			ones[i] = 1
		}
		return ids[0], ids[1], b.Const(ones, autodiff.Matrix(1, m), pos), true
	}
	for k := 2; k >= 0; k-- { // the weights are usually written last
		i, j := (k+1)%3, (k+2)%3
		if i > j {
			i, j = j, i
		}
		if mats(i, j) && b.Shape(ids[k]) == autodiff.Matrix(1, b.Shape(ids[i]).Cols) {
			return ids[i], ids[j], ids[k], true
		}
	}
	return 0, 0, 0, false
}

// rebuild lowers a .* chain whose factors are lowered already, as binary
// would have, recording data-only products as expr does.
func (l *lowerer) rebuild(e ast.Expr, leaves map[ast.Expr]value) value {
	if v, ok := leaves[e]; ok {
		return v
	}
	var v value
	switch x := e.(type) {
	case *ast.ParenExpr:
		v = l.rebuild(x.X, leaves)
	case *ast.BinaryExpr:
		v = l.binaryOf(x, l.rebuild(x.X, leaves), l.rebuild(x.Y, leaves))
	default:
		panic("compile: rebuild of an expression that is not a factor or a product")
	}
	if v.node && l.info.Types[e].DataOnly {
		l.dataNodes = append(l.dataNodes, v.id)
	}
	return v
}
