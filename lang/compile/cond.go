package compile

import (
	"math"
	"strconv"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
	"github.com/gpplang/gpp/lang/check"
)

// Comparisons, logical operators and if statements. A comparison whose
// operands are known before the fit (data, constants, loop variables) is
// evaluated while the compiler builds the tape, to a constant int 0/1
// value that can be a condition, a loop bound or an index; an if lowers
// only the branch whose condition holds — in a for loop, per iteration.
// One whose operands depend on the params becomes a step node of the tape
// (autodiff.Builder.Logical), evaluated at every draw: the checker allows
// it only where outputs alone read it, so it never enters the log joint,
// where its zero derivative would give the fit nothing to follow.

// ifStmt lowers the statements of the first branch whose condition holds,
// or of the else, if any.
func (l *lowerer) ifStmt(s *ast.IfStmt) {
	for _, b := range s.Branches {
		holds, ok := l.condition(b.Cond)
		if !ok {
			return
		}
		if holds {
			for _, t := range b.Body.Stmts {
				l.stmt(t)
			}
			return
		}
	}
	if s.ElseBody != nil {
		for _, t := range s.ElseBody.Stmts {
			l.stmt(t)
		}
	}
}

// condition evaluates an if condition: true when it is not 0.
func (l *lowerer) condition(e ast.Expr) (holds, ok bool) {
	vals, _, ok := l.knownExpr(e)
	if !ok {
		return false, false
	}
	if len(vals) != 1 {
		l.errorf(e.Pos(), "an if condition must be a scalar; `%s` has %d elements", ast.FormatExpr(e), len(vals))
		return false, false
	}
	return vals[0] != 0, true
}

// knownExpr lowers e and returns its values, which must be known now: ok
// is false, with an error reported, when they are not (or when lowering e
// failed, which reported its own).
func (l *lowerer) knownExpr(e ast.Expr) ([]float64, autodiff.Shape, bool) {
	failed := l.failed()
	v := l.expr(e)
	if l.failed() != failed {
		return nil, autodiff.Shape{}, false
	}
	return l.known(v, e)
}

// known returns the values of v, lowered from e, evaluating its node now
// if it has no ints. A NaN is an error: a comparison with it would be
// false whatever the operator, which is never what was meant.
func (l *lowerer) known(v value, e ast.Expr) ([]float64, autodiff.Shape, bool) {
	if !v.isInt && !v.node {
		return nil, autodiff.Shape{}, false // an error was reported
	}
	vals, ok := l.knownValues(v)
	if !ok {
		l.errorf(e.Pos(), "`%s` cannot be evaluated before the fit: a condition or a comparison may use data, constants, loop variables, arithmetic, indexing and the elementwise, reduction and matrix built-ins, but not densities or factorisations", ast.FormatExpr(e))
		return nil, autodiff.Shape{}, false
	}
	shape := shapeOf(v.shape)
	if !v.isInt {
		shape = l.b.Shape(v.id)
	}
	for k, x := range vals {
		if math.IsNaN(x) {
			row, where := l.elemAt(e, len(vals), shape, k)
			if where != "" {
				where = " (element " + where + ")"
			}
			l.rowErrorf(row, e.Pos(), "`%s` is NaN with these data%s, which no comparison or condition can use", ast.FormatExpr(e), where)
			return nil, autodiff.Shape{}, false
		}
	}
	return vals, shape, true
}

// shapeElem formats element k of shape as "3" or "2, 0".
func shapeElem(s autodiff.Shape, k int) string {
	if s.Rank < 2 {
		return strconv.Itoa(k)
	}
	c := max(s.Cols, 1)
	return strconv.Itoa(k/c) + ", " + strconv.Itoa(k%c)
}

// logical lowers a comparison, &&, || or ! to an int 0/1 value,
// elementwise with broadcasting: a constant when its operands are known
// before the fit, else a step node (logicalNode). && and || of scalars
// short-circuit as in Stan: in `i > 0 && y[i - 1] == 0` the index is not
// evaluated at i = 0.
func (l *lowerer) logical(e ast.Expr) value {
	var op ast.Op
	var xe, ye ast.Expr
	var opPos ast.Pos
	switch e := e.(type) {
	case *ast.UnaryExpr:
		op, xe, opPos = e.Op, e.X, e.OpPos
	case *ast.BinaryExpr:
		op, xe, ye, opPos = e.Op, e.X, e.Y, e.OpPos
	}
	if !l.info.Types[e].DataOnly {
		return l.logicalNode(e, op, opPos, xe, ye)
	}
	x, xs, ok := l.knownExpr(xe)
	if !ok {
		return value{}
	}
	if op == ast.Not {
		out := make([]float64, len(x))
		for i, a := range x {
			out[i] = check.FoldNot(a)
		}
		return l.boolValue(out, xs, e.Pos())
	}
	if (op == ast.And || op == ast.Or) && len(x) == 1 && l.info.Types[ye].Shape.Rank() == 0 && (x[0] == 0) == (op == ast.And) {
		// false && y, true || y of scalars: y is not evaluated.
		return l.boolValue([]float64{check.FoldNot(check.FoldNot(x[0]))}, autodiff.Scalar(), e.Pos())
	}
	y, ys, ok := l.knownExpr(ye)
	if !ok {
		return value{}
	}
	out, shape, ok := broadcastValues(x, xs, y, ys, func(a, b float64) float64 { return check.FoldBinary(op, a, b) })
	if !ok {
		l.errorf(e.(*ast.BinaryExpr).OpPos, "%s: shapes %s and %s do not broadcast", op, xs, ys)
		return value{}
	}
	return l.boolValue(out, shape, e.Pos())
}

// stepOps are the tape's ops of the comparisons and logical operators.
var stepOps = map[ast.Op]autodiff.Op{
	ast.Lt: autodiff.OpLt, ast.Le: autodiff.OpLe, ast.Gt: autodiff.OpGt, ast.Ge: autodiff.OpGe,
	ast.Eq: autodiff.OpEq, ast.Ne: autodiff.OpNe, ast.And: autodiff.OpAnd, ast.Or: autodiff.OpOr,
}

// logicalNode lowers e, a comparison or logical operator op (at opPos) of
// xe and ye (nil for !) whose value depends on the params, to a step node
// evaluated at every draw, at the operator's position. A scalar && or ||
// whose left operand is known before the fit short-circuits as logical's
// does; one whose left operand depends on the params cannot, so both
// operands are lowered.
func (l *lowerer) logicalNode(e ast.Expr, op ast.Op, opPos ast.Pos, xe, ye ast.Expr) value {
	x := l.expr(xe)
	if op == ast.Not {
		return value{id: l.b.Not(l.node(x, xe.Pos()), opPos), node: true}
	}
	scalars := l.info.Types[xe].Shape.Rank() == 0 && l.info.Types[ye].Shape.Rank() == 0
	if (op == ast.And || op == ast.Or) && scalars && l.info.Types[xe].DataOnly {
		v, _, ok := l.known(x, xe)
		if !ok {
			return value{}
		}
		if (v[0] == 0) == (op == ast.And) { // false && y, true || y: y is not lowered
			return l.boolValue([]float64{check.FoldNot(check.FoldNot(v[0]))}, autodiff.Scalar(), e.Pos())
		}
	}
	y := l.expr(ye)
	return value{id: l.b.Logical(stepOps[op], l.node(x, xe.Pos()), l.node(y, ye.Pos()), opPos), node: true}
}

// boolValue makes a constant int value of 0/1 values: a node, and the
// ints, so that it can be a condition, a loop bound or an index.
func (l *lowerer) boolValue(vals []float64, shape autodiff.Shape, pos ast.Pos) value {
	ints := make([]int, len(vals))
	for i, v := range vals {
		ints[i] = int(v)
	}
	return value{id: l.b.Const(vals, shape, pos), node: true, ints: ints, shape: dimsOf(shape), isInt: true}
}

// broadcastValues applies f elementwise to x and y, broadcast as the
// tape's elementwise ops are: a size-1 axis stretches to the other's.
func broadcastValues(x []float64, xs autodiff.Shape, y []float64, ys autodiff.Shape, f func(a, b float64) float64) ([]float64, autodiff.Shape, bool) {
	dim := func(a, b int) (int, bool) {
		switch {
		case a == b, b == 1:
			return a, true
		case a == 1:
			return b, true
		}
		return 0, false
	}
	rows, ok1 := dim(xs.Rows, ys.Rows)
	cols, ok2 := dim(xs.Cols, ys.Cols)
	if !ok1 || !ok2 {
		return nil, autodiff.Shape{}, false
	}
	shape := autodiff.Matrix(rows, cols)
	switch max(xs.Rank, ys.Rank) {
	case 0:
		shape = autodiff.Scalar()
	case 1:
		if cols != 1 {
			return nil, autodiff.Shape{}, false
		}
		shape = autodiff.Vector(rows)
	}
	at := func(v []float64, s autodiff.Shape, i, j int) float64 {
		if s.Rows == 1 {
			i = 0
		}
		if s.Cols == 1 {
			j = 0
		}
		return v[i*s.Cols+j]
	}
	out := make([]float64, rows*cols)
	for i := range rows {
		for j := range cols {
			out[i*cols+j] = f(at(x, xs, i, j), at(y, ys, i, j))
		}
	}
	return out, shape, true
}
