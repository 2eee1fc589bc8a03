package autodiff

import (
	"fmt"
	"math"

	"github.com/gpplang/gpp/lang/ast"
)

// GatherAt returns x[i] for an index i that is a node, picked at each
// evaluation (an output's x[s] with s drawn per draw): of a vector x, a
// scalar (i scalar) or the vector of x[i[k]]; of a matrix, its row i or
// the matrix of rows i[k]. An index that is not an int in [0, rows) fails
// the node, naming it with what (the expression it indexes, ""
// for none). No derivative: the checker lets an index that changes with
// the draws into outputs only, which are not differentiated.
func (b *Builder) GatherAt(x, i ID, what string, pos ast.Pos) ID {
	args, ok := b.operands(x, i)
	if !ok {
		return b.invalid(pos)
	}
	xs, is := b.shapeOf(args[0]), b.shapeOf(args[1])
	if xs.Rank == 0 {
		return b.fail(pos, "index: cannot index a scalar")
	}
	if is.Rank > 1 {
		return b.fail(pos, "index: needs an int scalar or vector, got %s", is)
	}
	var out Shape
	switch {
	case xs.Rank == 1 && is.Rank == 0:
		out = Scalar()
	case xs.Rank == 1:
		out = Vector(is.Rows)
	case is.Rank == 0:
		out = Vector(xs.Cols)
	default:
		out = Matrix(is.Rows, xs.Cols)
	}
	return b.push(node{op: OpGatherAt, args: args, shape: out, pos: pos, name: what})
}

// evalGatherAt is OpGatherAt's forward rule; it fails (p.fail the element
// of the index) at an index that is not an int in range.
func (p *Program) evalGatherAt(n *node, z []float64) bool {
	x, ix := p.arg(n, 0), p.v(p.arg(n, 1))
	xv, c := p.v(x), 1
	if x.shape.Rank == 2 {
		c = x.shape.Cols
	}
	for k, v := range ix {
		if !(v >= 0 && v < float64(x.shape.Rows)) || v != math.Trunc(v) {
			p.fail = k
			return false
		}
		i := int(v)
		copy(z[k*c:k*c+c], xv[i*c:i*c+c])
	}
	return true
}

// gatherAtError explains a failed OpGatherAt: the index's value at this
// evaluation and the range it must be in.
func (p *Program) gatherAtError(n *node) error {
	x, ix := p.arg(n, 0), p.arg(n, 1)
	v := p.v(ix)[p.fail]
	rows := x.shape.Rows
	val := short(v)
	if v == math.Trunc(v) && !math.IsInf(v, 0) {
		val = fmt.Sprintf("%d", int64(v))
	}
	el := ""
	if ix.shape.Rank == 1 {
		el = fmt.Sprintf(" (element %d of the index vector)", p.fail)
	}
	what := n.name
	if what == "" {
		what = "index"
	}
	hint := ""
	switch {
	case v == float64(rows):
		hint = fmt.Sprintf("; indices are 0-based: the last is %d (for Stan's 1-based values, index with the value minus 1)", rows-1)
	case v < 0:
		hint = "; gpp has no negative indices (they are 0-based, counting from the front)"
	}
	return ast.Errorf(n.pos, "%s: index %s out of range [0, %d) at this draw%s%s", what, val, rows, el, hint)
}
