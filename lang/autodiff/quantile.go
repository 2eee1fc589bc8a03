package autodiff

import (
	"fmt"
	"math"
	"slices"

	"github.com/gpplang/gpp/lang/ast"
)

// Quantile returns the sample quantile of the vector x at p, a scalar or a
// vector of probabilities in [0, 1] (Stan's quantile, R's type 7): with h
// = (n − 1) p into the sorted x, x₍⌊h⌋₎ + (h − ⌊h⌋)(x₍⌊h⌋+1₎ − x₍⌊h⌋₎). The
// result has p's shape. x must not be empty; a NaN in x or a p outside
// [0, 1] fails the node. No derivative: the checker lets it read params in outputs
// only (of data the compiler folds it to a constant).
func (b *Builder) Quantile(x, p ID, pos ast.Pos) ID {
	args, ok := b.operands(x, p)
	if !ok {
		return b.invalid(pos)
	}
	xs, ps := b.shapeOf(args[0]), b.shapeOf(args[1])
	if xs.Rank != 1 {
		return b.fail(pos, "quantile: x needs a vector, got %s", xs)
	}
	if xs.Rows == 0 {
		return b.fail(pos, "quantile: x has no elements")
	}
	if ps.Rank > 1 {
		return b.fail(pos, "quantile: p needs a scalar or a vector, got %s", ps)
	}
	return b.push(node{op: OpQuantile, args: args, shape: ps, pos: pos, nscr: xs.Rows})
}

// evalQuantile is OpQuantile's forward rule: x sorted into scratch, then
// each p's type-7 quantile. It fails with p.fail −(i + 1) for a NaN x[i]
// and k for p[k] outside [0, 1].
func (p *Program) evalQuantile(n *node, z []float64) bool {
	x, pv := p.v(p.arg(n, 0)), p.v(p.arg(n, 1))
	for i, v := range x {
		if math.IsNaN(v) {
			p.fail = -(i + 1)
			return false
		}
	}
	sorted := p.s(n)[:len(x)]
	copy(sorted, x)
	slices.Sort(sorted)
	for k, q := range pv {
		if !(q >= 0 && q <= 1) {
			p.fail = k
			return false
		}
		z[k] = SortedQuantile(sorted, q)
	}
	return true
}

// SortedQuantile is the type-7 quantile of the sorted values (at least
// one) at q in [0, 1], as Quantile's node and the compiler's fold of data
// compute it.
func SortedQuantile(sorted []float64, q float64) float64 {
	last := len(sorted) - 1
	h := float64(last) * q
	lo := int(h) // h ≥ 0: the floor
	if lo >= last {
		return sorted[last]
	}
	return sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
}

// quantileError explains a failed OpQuantile as the compiler's fold of
// data does, at this evaluation.
func (p *Program) quantileError(n *node) error {
	pn := p.arg(n, 1)
	if p.fail < 0 {
		return ast.Errorf(n.pos, "quantile: x[%d] is NaN at this draw", -p.fail-1)
	}
	v := p.v(pn)[p.fail]
	el := ""
	if pn.shape.Rank == 1 && pn.shape.Rows > 1 {
		el = fmt.Sprintf(" (element %d)", p.fail)
	}
	return ast.Errorf(n.pos, "quantile: p %s%s is outside [0, 1] at this draw", short(v), el)
}
