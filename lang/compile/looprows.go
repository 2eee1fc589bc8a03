package compile

import (
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/stdlib"
)

// A loop lowered as vectors may also compute a vector per iteration from
// a row of a matrix, as Stan's per-row idioms do: X[i]' * B (a row times
// the weights of several outputs), softmax of it, its log_sum_exp, the
// sum of X[i] .* beta. The rows side by side are then a matrix [n, K], one
// row per iteration, and each per-iteration operation is the matrix
// operation over them: X[i]' * B is row i of X * B, sum and log_sum_exp
// of a row are rowsum and rowlogsumexp, max, min and prod of a row
// rowmax, rowmin and rowprod, mean of a row its rowsum over its length,
// softmax of a row is exp(v − rowlogsumexp(v)), cumsum of a row the
// running sums along each row, v[k] at a k of no row the column k and
// v[c[i]] at the row's int data each row's cell, gathered, y[i] ~
// CategoricalLogit(v) and Y[i] ~ Multinomial(theta) (Y's count rows
// [n, K]) take the matrix as one row per observation, W[i] ~
// Dirichlet(alpha) is the rows' terms over the matrix W (dirichletRows), X[i] ~
// MvNormal(mu, S) sums the centred rows' outer products into one scatter
// matrix (gaussLoop), and X[i] ~ MvNormalCholesky(mu, L) is one node over
// the rows, a term each. Only these shapes are lowered so
// (rowVec); a per-iteration vector anywhere else leaves the loop unrolled.

// rowVec reports whether e is a vector per iteration that the lowering
// keeps as a matrix of rows: X[i] of a matrix X, its transpose, a literal
// of scalars per iteration, a row of them times a matrix (X[i]' * B, or
// B' * X[i]), softmax or log_softmax of one, elementwise operators and
// built-ins (logpdf of an elementwise distribution included) of ones,
// scalars and vectors that do not depend on the loop, and a let of one.
func (c *vecScan) rowVec(e ast.Expr) bool {
	if v, ok := c.memo[e]; ok {
		return v
	}
	v := c.rowVec1(e)
	c.memo[e] = v
	return v
}

func (c *vecScan) rowVec1(e ast.Expr) bool {
	info := c.l.info
	t, known := info.Types[e]
	if !known || !t.Valid() || !c.mentions(e) || !perRowShape(t) {
		return false
	}
	switch e := e.(type) {
	case *ast.Ident:
		return c.rows[info.Uses[e]]
	case *ast.ParenExpr:
		return c.rowVec(e.X)
	case *ast.TransposeExpr:
		return c.rowVec(e.X)
	case *ast.VectorLit: // [alcohol[i], flavanoids[i]]: scalars per iteration
		for _, x := range e.Elems {
			if !c.scalarOperand(x) {
				return false
			}
		}
		return true
	case *ast.UnaryExpr:
		return e.Op == ast.Neg && c.rowVec(e.X)
	case *ast.IndexExpr:
		if len(e.Indices) != 1 || c.mentions(e.X) || !c.rowIndex(e.Indices[0]) {
			return false
		}
		tx := info.Types[e.X]
		return tx.Valid() && tx.Shape.Rank() == 2 && tx.Elem != check.Int
	case *ast.BinaryExpr:
		switch e.Op {
		case ast.Mul:
			tx, ty := info.Types[e.X], info.Types[e.Y]
			// a row [1, K] per iteration times a matrix, or a matrix
			// times a column [K]
			if c.rowVec(e.X) && !c.mentions(e.Y) && isRowType(tx) && ty.Valid() && ty.Shape.Rank() > 0 {
				return true
			}
			if c.rowVec(e.Y) && !c.mentions(e.X) && ty.Shape.Rank() == 1 && tx.Valid() && tx.Shape.Rank() == 2 {
				return true
			}
			return c.rowScaled(e)
		case ast.Add, ast.Sub, ast.EMul, ast.Div:
			// y[i] - m of a scalar per iteration and a vector is one too
			return c.rowOperand(e.X) && c.rowOperand(e.Y)
		}
	case *ast.CallExpr:
		f := info.Calls[e]
		if info.Inlines[e] != nil || info.ODEs[e] != nil || info.Algebras[e] != nil || info.Integrals[e] != nil || f == nil {
			return false
		}
		if f.Name == "softmax" || f.Name == "log_softmax" || f.Name == "cumsum" {
			// mixing a row's elements only: the rows' softmaxes, running sums
			return len(e.Args) == 1 && c.rowVec(e.Args[0])
		}
		if f.Op == "logpdf" || f.Op == "logcdf" || f.Op == "logccdf" {
			// logpdf(y[i], Normal(m, s)) of a mixture's means m
			d, ok := ast.Unparen(e.Args[1]).(*ast.CallExpr)
			if !ok || !c.univariate(d) || !c.rowOperand(e.Args[0]) {
				return false
			}
			for _, a := range d.Args {
				if !c.rowOperand(a) {
					return false
				}
			}
			return true
		}
		// elementwise, not mixing a vector's elements (cumsum)
		if f.Shape != stdlib.Elementwise1 && f.Shape != stdlib.Elementwise2 || rowMixing[f.Name] {
			return false
		}
		for _, a := range e.Args {
			if !c.rowOperand(a) {
				return false
			}
		}
		return true
	}
	return false
}

// rowScaled reports whether e, a vector per iteration, is a vector times
// a scalar, one of which depends on the loop.
func (c *vecScan) rowScaled(e *ast.BinaryExpr) bool {
	info := c.l.info
	tx, ty := info.Types[e.X], info.Types[e.Y]
	if !tx.Valid() || !ty.Valid() {
		return false
	}
	if ty.Shape.Rank() == 0 {
		return c.rowOperand(e.X) && c.scalarOperand(e.Y)
	}
	return tx.Shape.Rank() == 0 && c.scalarOperand(e.X) && c.rowOperand(e.Y)
}

// scalarOperand reports whether a scalar e can stand beside per-row
// vectors: per iteration a scalar lowered as vectors, or a value of none.
func (c *vecScan) scalarOperand(e ast.Expr) bool {
	_, ok := c.expr(e, false)
	return ok
}

// rowOperand reports whether e can be an operand of an elementwise
// operator beside a per-row vector: one itself, a scalar, or a vector
// that does not depend on the loop.
func (c *vecScan) rowOperand(e ast.Expr) bool {
	if c.rowVec(e) {
		return true
	}
	t := c.l.info.Types[e]
	if !t.Valid() {
		return false
	}
	if t.Shape.Rank() == 0 {
		return c.scalarOperand(e)
	}
	return !c.mentions(e) && perRowShape(t)
}

// perRowShape reports whether a per-iteration type is a vector or a row.
func perRowShape(t check.Type) bool {
	switch t.Shape.Rank() {
	case 1:
		return true
	case 2:
		return isRowType(t)
	}
	return false
}

// isRowType reports whether t is a row [1, K].
func isRowType(t check.Type) bool {
	return t.Valid() && t.Shape.Rank() == 2 && t.Shape[0].Known() && t.Shape[0].N == 1
}

// rowReduce recognises the scalars per iteration made from a per-row
// vector: sum(v), log_sum_exp(v) and dot_product(v, w) (w a vector of no
// row, or another per-row vector). X[i]' * beta is a vector [1] per
// iteration, whose sum is the scalar.
func (c *vecScan) rowReduce(e ast.Expr) bool {
	info := c.l.info
	if e, ok := e.(*ast.CallExpr); ok {
		f := info.Calls[e]
		if info.Inlines[e] != nil || info.ODEs[e] != nil || info.Algebras[e] != nil || info.Integrals[e] != nil || f == nil {
			return false
		}
		switch f.Name {
		case "sum":
			return len(e.Args) == 1 && c.rowVec(e.Args[0])
		case "log_sum_exp", "logsumexp", "max", "min", "prod", "mean":
			return len(e.Args) == 1 && c.rowVec(e.Args[0])
		case "dot_product":
			return len(e.Args) == 2 && c.rowOperand(e.Args[0]) && c.rowOperand(e.Args[1]) &&
				(c.rowVec(e.Args[0]) || c.rowVec(e.Args[1])) &&
				info.Types[e.Args[0]].Shape.Rank() > 0 && info.Types[e.Args[1]].Shape.Rank() > 0
		}
	}
	return false
}

// rowCategorical recognises y[i] ~ Categorical(v) and CategoricalLogit(v)
// of a per-row vector v: the observations' rows of probabilities.
func (c *vecScan) rowCategorical(s *ast.TildeStmt) bool {
	d := c.l.info.Dists[s.Dist]
	if d == nil || d.Shape != stdlib.DistCategorical || len(s.Dist.Args) != 1 || !c.rowVec(s.Dist.Args[0]) {
		return false
	}
	t := c.l.info.Types[s.LHS]
	dep, ok := c.expr(s.LHS, false)
	return dep && ok && t.Valid() && t.Shape.Rank() == 0
}

// rowMultinomial recognises Y[i] ~ Multinomial(theta) and
// MultinomialLogit(eta) of the counts Y[i], a row of an int data matrix,
// and an argument that is a vector per row or of no row, without a number
// of trials: Multinomial takes the count rows [n, k] as one value, one
// observation per row (rowCounts).
func (c *vecScan) rowMultinomial(s *ast.TildeStmt) bool {
	d := c.l.info.Dists[s.Dist]
	if d == nil || d.Shape != stdlib.DistMultinomial || len(s.Dist.Args) != 1 || !c.rowCounts(s.LHS) {
		return false
	}
	a := s.Dist.Args[0]
	t := c.l.info.Types[a]
	return c.rowVec(a) || !c.mentions(a) && t.Valid() && t.Shape.Rank() == 1
}

// rowDirichlet recognises W[i] ~ Dirichlet(alpha) of a row W[i] of a
// simplex matrix (data or param) and a
// concentration alpha of no row (a scalar or a vector) or a vector per
// row: the rows' independent Dirichlets (dirichletRows).
func (c *vecScan) rowDirichlet(s *ast.TildeStmt) bool {
	info := c.l.info
	d := info.Dists[s.Dist]
	if d == nil || d.Name != "Dirichlet" || len(s.Dist.Args) != 1 {
		return false
	}
	t, a := info.Types[s.LHS], s.Dist.Args[0]
	ta := info.Types[a]
	if _, ok := ast.Unparen(s.LHS).(*ast.IndexExpr); !ok {
		return false // a value computed per row: lower.go's expr of it is one iteration's
	}
	if !t.Valid() || t.Shape.Rank() != 1 || !c.rowVec(s.LHS) || !ta.Valid() {
		return false
	}
	if c.mentions(a) {
		return ta.Shape.Rank() == 1 && c.rowVec(a)
	}
	return ta.Shape.Rank() <= 1
}

// rowCounts reports whether e is Y[i], a row of an int data matrix Y at
// the loop's rows: a vector of counts per iteration.
func (c *vecScan) rowCounts(e ast.Expr) bool {
	ix, ok := ast.Unparen(e).(*ast.IndexExpr)
	if !ok || len(ix.Indices) != 1 || c.mentions(ix.X) || !c.rowIndex(ix.Indices[0]) {
		return false
	}
	tx := c.l.info.Types[ix.X]
	return tx.Valid() && tx.Shape.Rank() == 2 && tx.Elem == check.Int
}

// rowMvNormal recognises X[i] ~ MvNormal(mu, Sigma) of a vector per
// iteration X[i] (looprows.go's rows), a mean mu that is a scalar, a
// vector of no row or one per row, and a covariance Sigma of no row: the
// rows' independent multivariate normals (gaussLoop).
func (c *vecScan) rowMvNormal(s *ast.TildeStmt) bool {
	info := c.l.info
	d := info.Dists[s.Dist]
	if d == nil || d.Name != "MvNormal" || len(s.Dist.Args) != 2 || c.mentions(s.Dist.Args[1]) {
		return false
	}
	t := info.Types[s.LHS]
	return t.Valid() && t.Shape.Rank() == 1 && c.rowVec(s.LHS) && c.rowOperand(s.Dist.Args[0])
}

// rowMvNormalChol recognises X[i] ~ MvNormalCholesky(mu, L) of a vector
// per iteration X[i], a mean mu of no row or a vector per row, and a
// factor L of no row: MvNormalCholesky takes the rows as a matrix [n, d]
// of independent rows, their means shared or one row each.
func (c *vecScan) rowMvNormalChol(s *ast.TildeStmt) bool {
	info := c.l.info
	d := info.Dists[s.Dist]
	if d == nil || d.Name != "MvNormalCholesky" || len(s.Dist.Args) != 2 || c.mentions(s.Dist.Args[1]) {
		return false
	}
	t := info.Types[s.LHS]
	mu := s.Dist.Args[0]
	return t.Valid() && t.Shape.Rank() == 1 && c.rowVec(s.LHS) && (!c.mentions(mu) || c.rowVec(mu))
}

// gaussLoop adds the log density of rows y [n, k], each MvNormal(mu, cov)
// with mu as rowOperand lowers it (a scalar, a vector of no row, one scalar
// per row, or the rows' means [n, k]), as the sum of
// the unrolled loop's terms: each row centred (errors name the row's
// iteration, as the unrolled loop's Sub does) and the sum of the rows'
// outer products formed in one symmetric rank-n update (RowScatter, whose
// overflow names the row as the unrolled loop's Outer does), the scatter
// of one GaussRowsSS over the n rows.
func (l *lowerer) gaussLoop(y, mu, cov autodiff.ID, what string, pos ast.Pos) {
	b := l.b
	k := b.Shape(y).Cols
	done := l.iterEach(autodiff.Vector(k))
	c := b.Sub(y, mu, pos)
	done()
	done = l.iterEach(autodiff.Matrix(k, k))
	ss := b.RowScatter(c, pos)
	done()
	// The density over the rows is no row's: a covariance that fails
	// names the first iteration, as the unrolled loop's first GaussRowsSS
	// does.
	defer b.Whole()()
	l.gaussRows(cov, ss, float64(b.Shape(y).Rows), what, pos)
}

// dirichletRows adds the log density of rows z [n, k], each
// Dirichlet(alpha) with alpha a scalar or vector [k] of no row or the
// rows' [n, k]: the unrolled loop's terms, Σ_j (alpha_j − 1)·log z_j +
// lgamma(Σ_j alpha_j) − Σ_j lgamma(alpha_j) per row, the per-row nodes
// naming the row's iteration and the element within it as the unrolled
// loop's vectors do.
func (l *lowerer) dirichletRows(z, alpha autodiff.ID, pos ast.Pos) {
	b := l.b
	zs, as := b.Shape(z), b.Shape(alpha)
	n, k := zs.Rows, zs.Cols
	perRow := as.Rank == 2 && as.Rows == n && n != 1
	if as.Rank == 0 { // the same alpha for each of the k components
		v := make([]float64, k)
		for i := range v {
			v[i] = 1
		}
		alpha = b.Mul(alpha, b.Const(v, autodiff.Vector(k), pos), pos)
	}
	// the concentrations of every row: the rows' own, or alpha as a row
	rows := alpha
	if !perRow {
		rows = b.Reshape(alpha, autodiff.Matrix(1, k), pos)
	}
	done := l.iterEach(autodiff.Vector(k))
	logz := b.Log(z, pos)
	kern := b.Mul(b.Sub(rows, b.Scalar(1, pos), pos), logz, pos)
	var lgAlpha autodiff.ID
	if perRow {
		lgAlpha = b.Lgamma(alpha, pos)
	}
	done()
	var norm autodiff.ID
	if perRow { // a normaliser per row
		norm = b.Sub(b.Lgamma(b.RowSum(alpha, pos), pos), b.RowSum(lgAlpha, pos), pos)
	} else { // one, as the unrolled loop's first iteration's
		norm = b.Sub(b.Lgamma(b.Sum(alpha, pos), pos), b.Sum(b.Lgamma(alpha, pos), pos), pos)
	}
	// The sums over the rows are no row's (Builder.Whole), as in gaussLoop.
	defer b.Whole()()
	total := b.Sum(kern, pos)
	if perRow {
		total = b.Add(total, b.Sum(norm, pos), pos)
	} else {
		total = b.Add(total, b.Mul(b.Scalar(float64(n), pos), norm, pos), pos)
	}
	l.add(total, pos)
}

// rowVecScan is a vecScan over the current vectorised loop's lets.
func (l *lowerer) rowVecScan() *vecScan {
	return &vecScan{l: l, dep: l.vec.dep, rows: l.vec.rows, memo: l.vec.memo}
}

// rowMatrix lowers a per-row vector (vecScan.rowVec) as the matrix [n, K]
// of its rows, one per iteration.
func (l *lowerer) rowMatrix(e ast.Expr) autodiff.ID {
	b := l.b
	switch e := e.(type) {
	case *ast.Ident: // a let of a per-row vector
		return l.node(l.expr(e), e.Pos())
	case *ast.ParenExpr:
		return l.rowMatrix(e.X)
	case *ast.TransposeExpr: // the rows stay rows
		return l.rowMatrix(e.X)
	case *ast.VectorLit:
		// the elements' columns side by side; one of no row is the
		// same in every row
		var m autodiff.ID
		for k, x := range e.Elems {
			col := l.node(l.expr(x), x.Pos())
			if b.Shape(col).IsScalar() {
				col = b.Add(b.Const(make([]float64, l.vec.n), autodiff.Matrix(l.vec.n, 1), e.Lbrack), col, e.Lbrack)
			} else {
				col = b.Reshape(col, autodiff.Matrix(l.vec.n, 1), x.Pos())
			}
			if k == 0 {
				m = col
			} else {
				m = b.Concat(m, col, true, e.Lbrack)
			}
		}
		return m
	case *ast.UnaryExpr:
		x := l.rowMatrix(e.X)
		defer l.iterCols(e, l.rowWidth(x))()
		return b.Neg(x, e.OpPos)
	case *ast.IndexExpr:
		x := l.expr(e.X)
		s, ok := l.resolve(e.Indices[0])
		if !ok || !l.rowsInRange(e, x, []sel{s}) {
			return b.Scalar(0, e.Pos()) // the error is reported
		}
		return l.gatherRows(l.node(x, e.X.Pos()), s)
	case *ast.BinaryExpr:
		c := l.rowVecScan()
		if e.Op == ast.Mul && !c.rowScaled(e) {
			if c.rowVec(e.X) { // X[i]' * B: rows of X * B
				x := l.rowMatrix(e.X)
				m := l.node(l.expr(e.Y), e.Y.Pos())
				return l.rowProduct(e, x, m)
			}
			// B' * X[i]: rows of X * B
			m := l.node(l.expr(e.X), e.X.Pos())
			y := l.rowMatrix(e.Y)
			return l.rowProduct(e, y, b.Transpose(m, e.OpPos))
		}
		x, y := l.rowOperand(e.X), l.rowOperand(e.Y)
		op := autodiff.OpMul // .* or * by a scalar
		switch e.Op {
		case ast.Add:
			op = autodiff.OpAdd
		case ast.Sub:
			op = autodiff.OpSub
		case ast.Div:
			op = autodiff.OpDiv
		}
		if bad, ok := l.rowMismatch([]ast.Expr{e.X, e.Y}, []autodiff.ID{x, y}, false, func(ids ...autodiff.ID) autodiff.ID {
			return b.Binary(op, ids[0], ids[1], e.OpPos)
		}); ok {
			return bad
		}
		done := l.iterCols(e, l.rowWidth(x, y))
		id := b.Binary(op, x, y, e.OpPos)
		done()
		return id
	case *ast.CallExpr:
		f, pos := l.info.Calls[e], e.Fun.Pos()
		if f.Name == "cumsum" { // the running sums of each row
			x := l.rowMatrix(e.Args[0])
			defer l.iterCols(e, l.rowWidth(x))()
			return b.RowCumSum(x, pos)
		}
		if f.Op == "logpdf" || f.Op == "logcdf" || f.Op == "logccdf" {
			v := l.logpdfOf(e, pos, l.rowOperand, func(ids ...autodiff.ID) func() {
				return l.iterCols(e, l.rowWidth(ids...))
			}, l.rowMismatch)
			return l.node(v, pos)
		}
		if f.Name != "softmax" && f.Name != "log_softmax" { // elementwise
			args := make([]autodiff.ID, len(e.Args))
			for k, a := range e.Args {
				args[k] = l.rowOperand(a)
			}
			if bad, ok := l.rowMismatch(e.Args, args, false, func(ids ...autodiff.ID) autodiff.ID {
				return l.node(l.apply(e, f, ids, pos), pos)
			}); ok {
				return bad
			}
			defer l.iterCols(e, l.rowWidth(args...))()
			return l.node(l.apply(e, f, args, pos), pos)
		}
		// as vecCall's softmax and log_softmax, a row at a time
		x := l.rowMatrix(e.Args[0])
		lse := b.RowLogSumExp(x, pos)
		defer l.iterCols(e, l.rowWidth(x))()
		if f.Name == "log_softmax" {
			return b.Sub(x, lse, pos)
		}
		return b.Exp(b.Sub(x, lse, pos), pos)
	}
	l.errorf(e.Pos(), "compile: not a per-row vector")
	return b.Scalar(0, e.Pos())
}

// gatherRows picks the rows s.many of id for the rows of a loop lowered
// as vectors, as index does: all of them in order as they are, and by the
// batch's int data (u[g[i]] in a minibatch build) through GatherSub, whose
// indices follow the batch.
func (l *lowerer) gatherRows(id autodiff.ID, s sel) autodiff.ID {
	switch {
	case identityRows(s, l.b.Shape(id).Rows):
		return id
	case s.rows != nil:
		return l.b.GatherSub(id, s.many, s.data, s.rows, s.pos)
	}
	return l.b.Gather(id, s.many, s.pos)
}

// rowProduct is x * m for the rows x [n, K] of a loop, the lowering of
// product e: each row times m, a matrix [K, C] (rows [n, C]) or a vector
// [K] (a column [n, 1]).
func (l *lowerer) rowProduct(e *ast.BinaryExpr, x, m autodiff.ID) autodiff.ID {
	b, pos := l.b, e.OpPos
	defer l.iterCols(e, b.Shape(m).Cols)()
	id := b.MatMul(x, m, pos)
	if s := b.Shape(id); s.Rank == 1 {
		id = b.Reshape(id, autodiff.Matrix(s.Rows, 1), pos)
	}
	return id
}

// rowOperand lowers an operand beside a per-row vector: the matrix of a
// per-row vector, a scalar per iteration as the column [n] it is, or a
// vector of no row as a row [1, K], which broadcasts down the rows.
func (l *lowerer) rowOperand(e ast.Expr) autodiff.ID {
	if l.rowVecScan().rowVec(e) {
		return l.rowMatrix(e)
	}
	id := l.node(l.expr(e), e.Pos())
	if s := l.b.Shape(id); s.Rank == 1 && !l.depends(e) {
		id = l.b.Reshape(id, autodiff.Matrix(1, s.Rows), e.Pos())
	}
	return id
}

// rowMismatch reports whether the operands es of an elementwise node,
// lowered as ids beside per-row vectors (rowOperand), fail to broadcast
// in one iteration (iterShape; as columns, dot_product's, when asCol).
// If so it builds the node by build over zero constants of those shapes,
// so that the builder's error names each iteration's shapes, as the
// unrolled loop's does, not the rows' side by side, and returns that
// invalid node.
func (l *lowerer) rowMismatch(es []ast.Expr, ids []autodiff.ID, asCol bool, build func(ids ...autodiff.ID) autodiff.ID) (autodiff.ID, bool) {
	shapes := make([]autodiff.Shape, len(ids))
	for k, id := range ids {
		shapes[k] = l.iterShape(es[k], id)
		if asCol && shapes[k].Rank == 2 {
			shapes[k] = autodiff.Vector(shapes[k].Len())
		}
	}
	if _, ok := autodiff.Broadcast(shapes...); ok {
		return 0, false
	}
	one := make([]autodiff.ID, len(ids))
	for k, s := range shapes {
		one[k] = l.b.Const(make([]float64, s.Len()), s, es[k].Pos())
	}
	return build(one...), true
}

// iterShape returns the shape that operand e, lowered beside per-row
// vectors as id (rowOperand), has in one iteration: a per-row vector's
// [K] or row [1, K] (its type's), a scalar per iteration's scalar, and a
// value of no row its own.
func (l *lowerer) iterShape(e ast.Expr, id autodiff.ID) autodiff.Shape {
	s, t := l.b.Shape(id), l.info.Types[e]
	if l.depends(e) && !l.rowVecScan().rowVec(e) {
		return autodiff.Scalar()
	}
	if s.Rank == 2 && t.Valid() && t.Shape.Rank() == 1 { // as a row [1, K] or rows [n, K]
		return autodiff.Vector(s.Cols)
	}
	if s.Rank == 2 {
		return autodiff.Matrix(1, s.Cols)
	}
	return s
}

// rowScalar lowers a scalar per iteration made from a per-row vector
// (vecScan.rowReduce) as the vector [n] of its rows.
func (l *lowerer) rowScalar(e *ast.CallExpr) value {
	b, pos := l.b, e.Fun.Pos()
	var id autodiff.ID
	switch l.info.Calls[e].Name {
	case "sum":
		id = b.RowSum(l.rowMatrix(e.Args[0]), pos)
	case "dot_product": // as vecCall's: the sum of the products
		x, y := l.rowOperand(e.Args[0]), l.rowOperand(e.Args[1])
		if bad, ok := l.rowMismatch(e.Args, []autodiff.ID{x, y}, true, func(ids ...autodiff.ID) autodiff.ID {
			return b.Mul(ids[0], ids[1], pos)
		}); ok {
			return value{id: bad, node: true}
		}
		done := l.iterEach(autodiff.Vector(l.rowWidth(x, y)))
		p := b.Mul(x, y, pos)
		done()
		id = b.RowSum(p, pos)
	case "max":
		id = b.RowMax(l.rowMatrix(e.Args[0]), pos)
	case "min":
		id = b.RowMin(l.rowMatrix(e.Args[0]), pos)
	case "prod":
		id = b.RowProd(l.rowMatrix(e.Args[0]), pos)
	case "mean": // as Mean: the sum, then divided by the count
		x := l.rowMatrix(e.Args[0])
		id = b.Div(b.RowSum(x, pos), b.Scalar(float64(l.rowWidth(x)), pos), pos)
	default: // log_sum_exp
		id = b.RowLogSumExp(l.rowMatrix(e.Args[0]), pos)
	}
	return value{id: id, node: true}
}

// rowElem recognises v[k], an element of a per-row vector v (a vector per
// iteration) at an index k that does not depend on the loop (per
// iteration a scalar, the rows' column k) or that is the row's int data
// (v[c[i]]: each row's own column, gathered).
func (c *vecScan) rowElem(e *ast.IndexExpr) bool {
	info := c.l.info
	if len(e.Indices) != 1 || c.mentions(e.Indices[0]) && !c.rowIndex(e.Indices[0]) {
		return false
	}
	if _, isSlice := e.Indices[0].(*ast.SliceExpr); isSlice {
		return false
	}
	tx, tk := info.Types[e.X], info.Types[e.Indices[0]]
	return tx.Valid() && tx.Shape.Rank() == 1 && tk.Valid() && tk.Shape.Rank() == 0 && c.rowVec(e.X)
}

// rowElem lowers v[k] of a per-row vector v (vecScan.rowElem) as column k
// of v's rows, checking k as the unrolled loop checked it in each
// iteration.
func (l *lowerer) rowElem(e *ast.IndexExpr) value {
	m := l.rowMatrix(e.X)
	s, ok := l.resolve(e.Indices[0])
	if !ok {
		return value{}
	}
	cols := l.rowWidth(m)
	if s.kind == selMany && s.row { // v[c[i]]: row k's element c_k
		if !l.vecIndexInRange(e, s, cols, 0) {
			return value{}
		}
		if l.b.Shape(m).Rank != 2 { // one element per row: v[0] of each
			m = l.b.Reshape(m, autodiff.Matrix(len(s.many), 1), s.pos)
		}
		if s.rows != nil { // the batch's, rewritten with each batch
			return value{id: l.b.GatherSubCells(m, s.many, s.data, s.rows, s.pos), node: true}
		}
		flat := make([]int, len(s.many))
		for k, c := range s.many {
			flat[k] = k*cols + c
		}
		v := l.b.Reshape(m, autodiff.Vector(l.b.Shape(m).Len()), s.pos)
		return value{id: l.b.Gather(v, flat, s.pos), node: true}
	}
	if s.kind != selOne {
		l.errorf(e.Indices[0].Pos(), "index must be int data")
		return value{}
	}
	if !l.oneInRange(e, s, l.b.Shape(m).Cols, 0) {
		return value{}
	}
	return value{id: l.b.Col(m, s.one, s.pos), node: true}
}

// rowWidth returns the number of elements per iteration of an
// elementwise node over operands xs: the columns of the widest matrix
// (a per-row vector's [n, K], or a vector of no row as [1, K]).
func (l *lowerer) rowWidth(xs ...autodiff.ID) int {
	k := 1
	for _, x := range xs {
		if s := l.b.Shape(x); s.Rank == 2 {
			k = max(k, s.Cols)
		}
	}
	return k
}

// iterCols marks the nodes built until done is called as rows of k
// elements, each iteration's value of e (a vector or a row per
// iteration) side by side: an error at an element names its row's
// iteration and the element within e (iterAt, autodiff.Iters.Each).
func (l *lowerer) iterCols(e ast.Expr, k int) (done func()) {
	each := autodiff.Vector(k)
	if t := l.info.Types[e]; t.Valid() && t.Shape.Rank() == 2 {
		each = autodiff.Matrix(1, k)
	}
	return l.iterEach(each)
}

// iterEach is iterCols for iterations whose values have shape each.
func (l *lowerer) iterEach(each autodiff.Shape) (done func()) {
	if l.batch != nil && l.batch.rowLoop > 0 {
		return func() {}
	}
	k := each.Len()
	it := &autodiff.Iters{Loop: l.loopAt, Each: each}
	for _, sym := range l.loops {
		v, ok := l.env[sym]
		if !ok || !v.isInt || len(v.ints) == 0 {
			continue
		}
		vals := v.ints
		if len(v.ints) > 1 { // one value holds for every row
			vals = make([]int, 0, len(v.ints)*k)
			for _, i := range v.ints {
				for range k {
					vals = append(vals, i)
				}
			}
		}
		it.Vars = append(it.Vars, sym.Name)
		it.Vals = append(it.Vals, vals)
	}
	if len(it.Vars) == 0 {
		return func() {}
	}
	return l.b.AtIter(it)
}
