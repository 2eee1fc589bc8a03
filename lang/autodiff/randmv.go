package autodiff

import (
	"fmt"
	"math"

	"github.com/gpplang/gpp/lang/ast"
)

// RandMvNormal adds a draw x = mu + L z per row of mu, L the lower
// Cholesky factor of Sigma [d, d] and z standard normals: the replicate of
// `y ~ MvNormal(mu, Sigma)` (rows unset) or MvNormalRows (rows set, and
// mu then a matrix). mu is a scalar or a vector [d] (one draw, a vector
// [d]), a row [1, d] (one draw, a row) or a matrix [n, d] (a draw per
// row, each with its row of mu: Stan's multi_normal_rng of an array of
// means); the result has mu's shape, or [d] for a scalar mu. Sigma is
// factored into the node's scratch at every evaluation, with the
// likelihood's tests (symmetric to 1e-8 of √(Σ_ii Σ_jj), positive
// definite); where it fails the whole draw is NaN.
func (b *Builder) RandMvNormal(mu, sigma ID, rows bool, pos ast.Pos) ID {
	kind := randMvNormal
	if rows {
		kind = randMvNormalRows
	}
	return b.randMv(mu, sigma, kind, pos)
}

// randMv adds the draw node of kind randMvNormal, randMvNormalRows or
// randMvNormalChol (whose second argument is L, needing no scratch).
func (b *Builder) randMv(mu, sigma ID, kind int, pos ast.Pos) ID {
	rows := kind == randMvNormalRows
	name, sname := randRowsName(kind), "Sigma"
	if kind == randMvNormalChol {
		sname = "L"
	}
	args, ok := b.operands(mu, sigma)
	if !ok {
		return b.invalid(pos)
	}
	ms, cs := b.shapeOf(args[0]), b.shapeOf(args[1])
	if !cs.IsSquare() {
		return b.fail(pos, "%s: %s must be a square matrix [d, d], got %v", name, sname, cs)
	}
	d := cs.Rows
	out := Vector(d)
	switch {
	case rows && ms.Rank != 2:
		return b.fail(pos, "%s: a draw has a row per row of mu, which must be a matrix [n, %d], got %v", name, d, ms)
	case ms.Rank == 0:
	case ms.Rank == 1 && ms.Rows == d:
	case ms.Rank == 2 && ms.Cols == d:
		out = ms
	default:
		return b.fail(pos, "%s: mu must be a scalar, a vector [%d] or a matrix [n, %d] (a draw per row), got %v", name, d, d, ms)
	}
	nscr := d * d // Sigma's factor
	if kind == randMvNormalChol {
		nscr = 0
	}
	return b.randNode(node{op: OpRand, args: args, shape: out, pos: pos, i0: kind, nscr: nscr})
}

// RandMvNormalCholesky adds a draw x = mu + L z per row of mu, given the
// lower Cholesky factor L [d, d] itself: the replicate of `y ~
// MvNormalCholesky(mu, L)`. mu is as for RandMvNormal without rows (a
// scalar or [d]: one vector; [1, d]: one row; [n, d]: a draw per row). No
// factorisation: only L's lower triangle is read, as by the density, and
// where a diagonal entry is not > 0 or an entry is not finite the whole
// draw is NaN.
func (b *Builder) RandMvNormalCholesky(mu, l ID, pos ast.Pos) ID {
	return b.randMv(mu, l, randMvNormalChol, pos)
}

// drawMvNormal draws every row of an MvNormal replicate into z: d standard
// normals per row, in element order, taken whether or not Sigma is valid
// (so that an invalid Sigma does not shift the draws of the replicates
// that follow), then x = mu + L z in place, row by row from the last
// element up (x_i reads z_0 … z_i only). A Sigma that has no Cholesky
// factor makes every element NaN; a mean that is not finite its element.
// For MvNormalCholesky L is the argument, which must have a positive
// diagonal and finite entries below it.
func (p *Program) drawMvNormal(n *node, z []float64) {
	mu, sig := p.arg(n, 0), p.arg(n, 1)
	d := sig.shape.Rows
	for i := range z {
		z[i] = p.rng.NormFloat64()
	}
	var l []float64
	if n.i0 == randMvNormalChol {
		l = p.v(sig)
		if !cholFactorOK(l, d) {
			fillNaN(z)
			return
		}
	} else {
		l = p.s(n)
		sv := p.v(sig)
		if _, _, ok := asymmetric(sv, d); !ok {
			fillNaN(z)
			return
		}
		symLower(l, sv, d)
		if cholesky(l, d) > 0 {
			fillNaN(z)
			return
		}
	}
	mv := p.v(mu)
	rstep, cstep := mvSteps(mu.shape, d)
	for r := 0; r < len(z)/max(d, 1); r++ {
		x := z[r*d : r*d+d]
		for i := d - 1; i >= 0; i-- {
			m := mv[r*rstep+i*cstep]
			if math.IsNaN(m) || math.IsInf(m, 0) {
				x[i] = math.NaN()
				continue
			}
			x[i] = m + dot(l[i*d:i*d+i+1], x)
		}
	}
}

// mvSteps returns how far apart in mu's values the means of consecutive
// rows and of consecutive columns of an MvNormal draw are: 0 where mu is
// shared (a scalar; a vector or row along the rows).
func mvSteps(ms Shape, d int) (rstep, cstep int) {
	if ms.Rank == 0 {
		return 0, 0
	}
	if ms.Rank == 2 && ms.Rows > 1 {
		rstep = d
	}
	return rstep, 1
}

func fillNaN(z []float64) {
	for i := range z {
		z[i] = math.NaN()
	}
}

// sigmaBad says why Sigma [d, d] has no Cholesky factor for a draw, or "":
// an entry that is not finite, an asymmetric pair, a leading minor that is
// not positive. It is for the error path and allocates.
func sigmaBad(sv []float64, d int) string {
	for k, v := range sv {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Sprintf("Sigma[%d, %d] is %g, not finite", k/d, k%d, v)
		}
	}
	if i, j, ok := asymmetric(sv, d); !ok {
		sa, sb := shortPair(sv[i*d+j], sv[j*d+i])
		return fmt.Sprintf("Sigma is not symmetric: element [%d, %d] is %s, [%d, %d] is %s", i, j, sa, j, i, sb)
	}
	l := make([]float64, d*d)
	symLower(l, sv, d)
	if k := cholesky(l, d); k > 0 {
		return fmt.Sprintf("Sigma is not positive definite: its leading minor of order %d is not positive", k)
	}
	return ""
}

// mvRandError explains NaN element k of an MvNormal replicate.
func (p *Program) mvRandError(n *node, k int, name, el string) error {
	mu, sig := p.arg(n, 0), p.arg(n, 1)
	d := sig.shape.Rows
	why := ""
	if n.i0 == randMvNormalChol {
		why = cholFactorBad(p.v(sig), d)
	} else {
		why = sigmaBad(p.v(sig), d)
	}
	if why != "" {
		return ast.Errorf(n.pos, "%s", msg(name+": "+why, el))
	}
	rstep, cstep := mvSteps(mu.shape, d)
	if m := p.v(mu)[k/d*rstep+k%d*cstep]; math.IsNaN(m) || math.IsInf(m, 0) {
		return ast.Errorf(n.pos, "%s", msg(fmt.Sprintf("%s: mu = %g is not finite", name, m), el))
	}
	return ast.Errorf(n.pos, "%s", msg(name+": result is not finite", el))
}

// cholFactorOK reports whether the lower triangle of l [d, d] is a
// Cholesky factor: a diagonal > 0 and every entry finite (no allocation).
func cholFactorOK(l []float64, d int) bool {
	if cholDiagBad(l, d) >= 0 {
		return false
	}
	for i := 0; i < d; i++ {
		for _, v := range l[i*d : i*d+i] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
	}
	return true
}
