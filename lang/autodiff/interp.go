package autodiff

import (
	"math"

	"github.com/gpplang/gpp/lang/ast"
)

// Interp returns the piecewise linear interpolation of the table (xp, fp)
// at each element of x, in x's shape (numpy.interp): for xp[j] <= x <
// xp[j+1] the point on the segment from (xp[j], fp[j]) to (xp[j+1],
// fp[j+1]); fp[0] below xp[0] and fp[n−1] from xp[n−1] on, with
// derivative 0 there. At a knot the derivative in x is the slope of the
// segment to its right. xp [n] must be known before the fit, finite and
// strictly increasing (the compiler checks it with its data's positions
// first; a table not so here is a programmer's error, reported at pos);
// fp [n] may be an input. A value and its gradient cost O(log n) per
// element of x (a binary search) and allocate nothing.
func (b *Builder) Interp(x, xp, fp ID, pos ast.Pos) ID {
	args, ok := b.operands(x, xp, fp)
	if !ok {
		return b.invalid(pos)
	}
	sxp, sfp := b.shapeOf(args[1]), b.shapeOf(args[2])
	switch {
	case sxp.Rank != 1 || sfp.Rank != 1:
		return b.fail(pos, "interp: xp is %s and fp %s; both must be vectors", sxp, sfp)
	case sxp.Rows == 0:
		return b.fail(pos, "interp: the table has no points")
	case sxp.Rows != sfp.Rows:
		return b.fail(pos, "interp: xp has %d elements but fp %d", sxp.Rows, sfp.Rows)
	}
	vals, known := b.Known(xp)
	if !known {
		return b.fail(pos, "interp: xp must be known before the fit (data or constants)")
	}
	if k := InterpUnordered(vals); k >= 0 {
		return b.fail(pos, "interp: xp[%d] = %g is not finite, or not greater than the element before it", k, vals[k])
	}
	return b.push(node{op: OpInterp, args: args, shape: b.shapeOf(args[0]), pos: pos})
}

// InterpUnordered returns the first k at which xp is not finite or not
// greater than xp[k−1], or −1 when xp is a valid table.
func InterpUnordered(xp []float64) int {
	for k, v := range xp {
		if math.IsNaN(v) || math.IsInf(v, 0) || k > 0 && !(v > xp[k-1]) {
			return k
		}
	}
	return -1
}

// interpSegment returns the j with xp[j] <= x < xp[j+1] (0 <= j < n−1) by
// binary search, or −1 when x is below xp[0], n−1 from xp[n−1] on (or
// NaN): the clamped ends.
func interpSegment(xp []float64, x float64) int {
	n := len(xp)
	switch {
	case x < xp[0]:
		return -1
	case !(x < xp[n-1]):
		return n - 1
	}
	lo, hi := 0, n-1 // xp[lo] <= x < xp[hi]
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if xp[mid] <= x {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// evalInterp is OpInterp's forward rule.
func (p *Program) evalInterp(n *node, z []float64) {
	x, xp, fp := p.v(p.arg(n, 0)), p.v(p.arg(n, 1)), p.v(p.arg(n, 2))
	last := len(xp) - 1
	for i, xi := range x {
		switch j := interpSegment(xp, xi); {
		case math.IsNaN(xi):
			z[i] = xi
		case j < 0:
			z[i] = fp[0]
		case j == last:
			z[i] = fp[last]
		default:
			w := (xi - xp[j]) / (xp[j+1] - xp[j])
			z[i] = fp[j] + w*(fp[j+1]-fp[j])
		}
	}
}

// gradInterp is OpInterp's reverse rule: x̄_i += ḡ_i times the segment's
// slope (0 at the clamped ends), and ḡ_i split between the segment's two
// fp by the weights 1 − w and w (all of it to the end's fp when clamped).
func (p *Program) gradInterp(n *node, g []float64) {
	xn, fn := p.arg(n, 0), p.arg(n, 2)
	x, xp, fp := p.v(xn), p.v(p.arg(n, 1)), p.v(fn)
	last := len(xp) - 1
	var ax, af []float64
	if xn.aoff >= 0 {
		ax = p.a(xn)
	}
	if fn.aoff >= 0 {
		af = p.a(fn)
	}
	for i, gi := range g {
		j := interpSegment(xp, x[i])
		switch {
		case math.IsNaN(x[i]):
			continue
		case j < 0 || j == last:
			if af != nil {
				af[max(j, 0)] += gi
			}
			continue
		}
		h := xp[j+1] - xp[j]
		if ax != nil {
			ax[i] += gi * (fp[j+1] - fp[j]) / h
		}
		if af != nil {
			w := (x[i] - xp[j]) / h
			af[j] += gi * (1 - w)
			af[j+1] += gi * w
		}
	}
}
