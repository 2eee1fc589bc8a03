package autodiff

import (
	"math"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
)

// CholCorr returns the K×K Cholesky factor of a correlation matrix of a
// cholesky_factor_corr[K] param from its K(K−1)/2 unconstrained
// coordinates y, a vector (dist.CholCorrValues: Stan's transform through
// the canonical partial correlations tanh(y)). Its log Jacobian is a node
// of its own, CholCorrLogJac.
func (b *Builder) CholCorr(y ID, k int, pos ast.Pos) ID {
	args, ok := b.operands(y)
	if !ok {
		return b.invalid(pos)
	}
	s := b.shapeOf(args[0])
	if k < 1 || s.Rank != 1 || s.Len() != dist.CholCorrSize(k) {
		return b.fail(pos, "cholesky_factor_corr: a %d×%d factor needs a vector of %d coordinates, got %s", k, k, dist.CholCorrSize(k), s)
	}
	return b.push(node{op: OpCholCorr, args: args, shape: Matrix(k, k), pos: pos})
}

// CholCorrLogJac returns the log absolute Jacobian determinant of the map
// CholCorr makes from the coordinates y of a K×K factor to its entries
// below the diagonal (dist.CholCorrLogJac), a scalar.
func (b *Builder) CholCorrLogJac(y ID, k int, pos ast.Pos) ID {
	return b.corrLogJac(y, k, 0, pos)
}

// corrLogJac pushes an OpCholCorrJac node: of y → L for omega 0, of
// y → L L' for omega 1.
func (b *Builder) corrLogJac(y ID, k, omega int, pos ast.Pos) ID {
	args, ok := b.operands(y)
	if !ok {
		return b.invalid(pos)
	}
	s := b.shapeOf(args[0])
	if k < 1 || s.Rank != 1 || s.Len() != dist.CholCorrSize(k) {
		return b.fail(pos, "cholesky_factor_corr: a %d×%d factor needs a vector of %d coordinates, got %s", k, k, dist.CholCorrSize(k), s)
	}
	return b.push(node{op: OpCholCorrJac, args: args, shape: Scalar(), pos: pos, i0: k, i1: omega})
}

// CorrMatrix returns the K×K correlation matrix L L' of a corr_matrix[K]
// param from its K(K−1)/2 unconstrained coordinates y, with L =
// CholCorr(y): exactly symmetric, unit diagonal (dist.CorrFromChol). Its
// log Jacobian is a node of its own, CorrMatrixLogJac.
func (b *Builder) CorrMatrix(y ID, k int, pos ast.Pos) ID {
	l := b.CholCorr(y, k, pos)
	args, ok := b.operands(l)
	if !ok {
		return b.invalid(pos)
	}
	return b.push(node{op: OpCorrFromChol, args: args, shape: Matrix(k, k), pos: pos})
}

// CorrMatrixLogJac returns the log absolute Jacobian determinant of the
// map CorrMatrix makes from the coordinates y to the entries of L L'
// below the diagonal (dist.CorrMatrixLogJac), a scalar.
func (b *Builder) CorrMatrixLogJac(y ID, k int, pos ast.Pos) ID {
	return b.corrLogJac(y, k, 1, pos)
}

// LKJCorr returns log LKJCorr(Ω | eta) of a K×K correlation matrix Ω (the
// value of a CorrMatrix node) and a scalar eta > 0, normalised
// (dist.LKJCorrLogPDF): 2(η − 1)·Σ_{i≥1} log L[i,i] − log c_K(η) from Ω's
// factor L. An eta that is not positive fails the evaluation.
func (b *Builder) LKJCorr(omega, eta ID, pos ast.Pos) ID {
	args, ok := b.operands(omega, eta)
	if !ok {
		return b.invalid(pos)
	}
	o := b.nodes[args[0]]
	if o.op != OpCorrFromChol {
		return b.fail(pos, "LKJCorr: the value must be a corr_matrix param, got %s", o.shape)
	}
	if es := b.shapeOf(args[1]); es.Len() != 1 {
		return b.fail(pos, "LKJCorr: eta must be a scalar, got %s", es)
	}
	return b.push(node{op: OpLKJCorrChol, args: []int32{o.args[0], args[1]}, shape: Scalar(), pos: pos, i0: 1})
}

// LKJCorrCholesky returns log LKJCorrCholesky(L | eta) of a K×K factor L
// (the value of a CholCorr node) and a scalar eta > 0, normalised
// (dist.LKJCorrCholeskyLogPDF): Σ_{i≥1} (K − i − 1 + 2(η − 1))·log L[i,i]
// − log c_K(η). An eta that is not positive fails the evaluation.
func (b *Builder) LKJCorrCholesky(l, eta ID, pos ast.Pos) ID {
	args, ok := b.operands(l, eta)
	if !ok {
		return b.invalid(pos)
	}
	ls, es := b.shapeOf(args[0]), b.shapeOf(args[1])
	if ls.Rank != 2 || ls.Rows != ls.Cols {
		return b.fail(pos, "LKJCorrCholesky: the value must be a square matrix, got %s", ls)
	}
	if es.Len() != 1 {
		return b.fail(pos, "LKJCorrCholesky: eta must be a scalar, got %s", es)
	}
	return b.push(node{op: OpLKJCorrChol, args: args, shape: Scalar(), pos: pos})
}

// evalLKJ is OpLKJCorrChol's forward rule; false when eta is not > 0.
func (p *Program) evalLKJ(n *node, z []float64) bool {
	l, e := p.arg(n, 0), p.arg(n, 1)
	eta := p.v(e)[0]
	if !(eta > 0) || math.IsInf(eta, 1) {
		return false
	}
	if n.i0 == 1 {
		z[0], _ = dist.LKJCorrLogPDF(p.v(l), l.shape.Rows, eta)
		return true
	}
	z[0], _ = dist.LKJCorrCholeskyLogPDF(p.v(l), l.shape.Rows, eta)
	return true
}

// gradLKJ: ∂/∂L[i,i] = (K − i − 1 + 2(η − 1))/L[i,i] for i ≥ 1 (without
// K − i − 1 for LKJCorr), and ∂/∂η = 2·Σ log L[i,i] − d log c_K/dη.
func (p *Program) gradLKJ(n *node, g float64) {
	l, e := p.arg(n, 0), p.arg(n, 1)
	lv, eta, k := p.v(l), p.v(e)[0], l.shape.Rows
	if l.aoff >= 0 {
		al := p.a(l)
		for i := 1; i < k; i++ {
			c := 2 * (eta - 1)
			if n.i0 != 1 {
				c += float64(k - i - 1)
			}
			al[i*k+i] += g * c / lv[i*k+i]
		}
	}
	if e.aoff >= 0 {
		_, d := dist.LKJCorrCholeskyLogPDF(lv, k, eta)
		if n.i0 == 1 {
			_, d = dist.LKJCorrLogPDF(lv, k, eta)
		}
		p.a(e)[0] += g * d
	}
}

// lkjError describes a failed or non-finite LKJCorrCholesky or LKJCorr
// node.
func (p *Program) lkjError(n *node) error {
	l, e := p.arg(n, 0), p.arg(n, 1)
	eta := p.v(e)[0]
	name := "LKJCorrCholesky"
	if n.i0 == 1 {
		name = "LKJCorr"
	}
	if !(eta > 0) || math.IsInf(eta, 1) {
		return ast.Errorf(n.pos, name+": eta must be > 0 and finite (got %s)", short(eta, 0))
	}
	k, lv := l.shape.Rows, p.v(l)
	for i := 1; i < k; i++ {
		if d := lv[i*k+i]; !(d > 0) || math.IsInf(d, 0) {
			return ast.Errorf(n.pos, name+": the diagonal of the factor must be > 0 (got %s at [%d, %d])", short(d, 0), i, i)
		}
	}
	return ast.Errorf(n.pos, name+": log density is %s", kind(p.v(n)[0]))
}

// CholCov returns the K×K Cholesky factor of a covariance matrix of a
// cholesky_factor_cov[K] param from its K(K+1)/2 unconstrained
// coordinates y, a vector (dist.CholCovValues: Stan's transform, the
// diagonal exp(y_ii), the entries below it y_ij). Its log Jacobian is a
// node of its own, CholCovLogJac.
func (b *Builder) CholCov(y ID, k int, pos ast.Pos) ID {
	return b.cholCov(OpCholCov, Matrix(k, k), y, k, 0, pos)
}

// CholCovLogJac returns the log absolute Jacobian determinant of the map
// CholCov makes from the coordinates y of a K×K factor to its entries on
// and below the diagonal, Σ_i y_ii (dist.CholCovLogJac), a scalar.
func (b *Builder) CholCovLogJac(y ID, k int, pos ast.Pos) ID {
	return b.cholCov(OpCholCovJac, Scalar(), y, k, 0, pos)
}

// CovMatrix returns the K×K covariance matrix L L' of a cov_matrix[K]
// param from its K(K+1)/2 unconstrained coordinates y, with L =
// CholCov(y): exactly symmetric (dist.CovFromChol). Its log Jacobian is a
// node of its own, CovMatrixLogJac.
func (b *Builder) CovMatrix(y ID, k int, pos ast.Pos) ID {
	l := b.CholCov(y, k, pos)
	args, ok := b.operands(l)
	if !ok {
		return b.invalid(pos)
	}
	return b.push(node{op: OpCovFromChol, args: args, shape: Matrix(k, k), pos: pos})
}

// CovMatrixLogJac returns the log absolute Jacobian determinant of the
// map CovMatrix makes from the coordinates y to the entries of L L' on
// and below the diagonal (dist.CovMatrixLogJac), a scalar.
func (b *Builder) CovMatrixLogJac(y ID, k int, pos ast.Pos) ID {
	return b.cholCov(OpCholCovJac, Scalar(), y, k, 1, pos)
}

// cholCov pushes an OpCholCov or OpCholCovJac node of shape s on the
// K(K+1)/2 coordinates y of a K×K factor; i1 is the Jacobian's (1 for
// that of y → L L').
func (b *Builder) cholCov(op Op, s Shape, y ID, k, i1 int, pos ast.Pos) ID {
	args, ok := b.operands(y)
	if !ok {
		return b.invalid(pos)
	}
	if ys := b.shapeOf(args[0]); k < 1 || ys.Rank != 1 || ys.Len() != dist.CholCovSize(k) {
		return b.fail(pos, "cholesky_factor_cov: a %d×%d factor needs a vector of %d coordinates, got %s", k, k, dist.CholCovSize(k), ys)
	}
	return b.push(node{op: op, args: args, shape: s, pos: pos, i0: k, i1: i1})
}
