package autodiff

import (
	"math"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
)

// SumToZero returns the zero-sum vector [K] of a sum_to_zero_vector[K]
// param from its K−1 unconstrained coordinates y (a vector), by Stan's
// isometric transform (dist.SumToZeroValues). The map is linear with
// orthonormal columns, so its Jacobian is constant and nothing is added to
// the log joint.
func (b *Builder) SumToZero(y ID, pos ast.Pos) ID {
	args, ok := b.operands(y)
	if !ok {
		return b.invalid(pos)
	}
	s := b.shapeOf(args[0])
	if s.Rank != 1 {
		return b.fail(pos, "sum_to_zero_vector: needs a vector of coordinates, got %s", s)
	}
	return b.push(node{op: OpSumToZero, args: args, shape: Vector(s.Len() + 1), pos: pos})
}

// SumToZeroMatrix returns the M×N matrix of a sum_to_zero_matrix[M, N]
// param, its rows and columns summing to zero, from its (M−1)×(N−1)
// unconstrained coordinates y (a matrix), by the isometric transform along
// both axes (dist.SumToZeroMatrixValues): linear, unit Jacobian. It is
// OpSumToZero with i0 = 1.
func (b *Builder) SumToZeroMatrix(y ID, pos ast.Pos) ID {
	args, ok := b.operands(y)
	if !ok {
		return b.invalid(pos)
	}
	s := b.shapeOf(args[0])
	if s.Rank != 2 {
		return b.fail(pos, "sum_to_zero_matrix: needs a matrix of coordinates, got %s", s)
	}
	out := Matrix(s.Rows+1, s.Cols+1)
	return b.push(node{op: OpSumToZero, args: args, shape: out, pos: pos, i0: 1, nscr: out.Len() + s.Len()})
}

// evalSumToZero is OpSumToZero's forward rule.
func (p *Program) evalSumToZero(n *node, z []float64) {
	y := p.v(p.arg(n, 0))
	if n.i0 == 1 {
		dist.SumToZeroMatrixValues(z, y, n.shape.Rows, n.shape.Cols)
		return
	}
	dist.SumToZeroValues(z, y)
}

// gradSumToZero is OpSumToZero's backward rule: the adjoint of y gains
// V'g (V_M' G V_N for a matrix).
func (p *Program) gradSumToZero(n *node, g []float64) {
	ay := p.a(p.arg(n, 0))
	if n.i0 != 1 {
		addSumToZeroAdjoint(ay, g)
		return
	}
	s := p.s(n)
	m, c := n.shape.Rows, n.shape.Cols
	tmp, coords := s[:m*c], s[m*c:]
	dist.SumToZeroMatrixCoords(coords, g, tmp, m, c)
	for i, v := range coords {
		ay[i] += v
	}
}

// addSumToZeroAdjoint adds V'g to ay, the adjoint of the coordinates of
// z = V y (dist.SumToZeroCoords without a buffer): ∂z_j/∂y_i is V_ji.
func addSumToZeroAdjoint(ay, g []float64) {
	s := 0.0 // g_0 + … + g_{i−1}
	for i := 1; i <= len(ay); i++ {
		n := float64(i)
		s += g[i-1]
		ay[i-1] += (s - n*g[i]) / math.Sqrt(n*(n+1))
	}
}
