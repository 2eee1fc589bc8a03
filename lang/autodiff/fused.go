package autodiff

import (
	"fmt"

	"github.com/gpplang/gpp/lang/ast"
)

// RowSumProd returns rowsum(x .* y .* w) for matrices x and y of one shape
// [n, m] and a row w [1, m]: element e is Σ_l x[e, l] y[e, l] w[l]. It is
// the fused form of the EPM rate rowsum(W[i] .* W[j] .* r'): one pass over
// the n×m products forward and one backward, with no [n, m] intermediate.
// A Gather operand (rows of a matrix) is read in place, so W[i] costs no
// copy and its adjoint is added straight into W's rows; the Gather node is
// dropped unless something else needs it.
func (b *Builder) RowSumProd(x, y, w ID, pos ast.Pos) ID {
	args, ok := b.operands(x, y, w)
	if !ok {
		return b.invalid(pos)
	}
	sx, sy, sw := b.shapeOf(args[0]), b.shapeOf(args[1]), b.shapeOf(args[2])
	if sx.Rank != 2 || sy != sx {
		return b.fail(pos, "rowsum: a product of rows needs two matrices of one shape, got %s and %s", sx, sy)
	}
	if sw != Matrix(1, sx.Cols) {
		return b.fail(pos, "rowsum: the weights must be a row [1, %d], got %s", sx.Cols, sw)
	}
	var rows [2][]int
	for i := range rows {
		if o := &b.nodes[args[i]]; o.op == OpGather && b.nodes[o.args[0]].shape.Rank == 2 {
			args[i], rows[i] = o.args[0], o.idx
		}
	}
	return b.push(node{op: OpRowSumProd, args: args, shape: Vector(sx.Rows), pos: pos,
		idx: rows[0], idy: rows[1], nscr: sx.Cols})
}

// rowsOf returns the rows of a RowSumProd's operands that make element e.
func (n *node) rowsOf(e int) (i, j int) {
	i, j = e, e
	if n.idx != nil {
		i = n.idx[e]
	}
	if n.idy != nil {
		j = n.idy[e]
	}
	return i, j
}

func (p *Program) evalRowSumProd(n *node) {
	xv, yv, w := p.v(p.arg(n, 0)), p.v(p.arg(n, 1)), p.v(p.arg(n, 2))
	k := len(w)
	z := p.v(n)
	for e := range z {
		i, j := n.rowsOf(e)
		xr, yr := xv[i*k:][:len(w)], yv[j*k:][:len(w)]
		// Two accumulators halve the chain of dependent additions.
		var s0, s1 float64
		l := 0
		for ; l+2 <= len(w); l += 2 {
			s0 += xr[l] * yr[l] * w[l]
			s1 += xr[l+1] * yr[l+1] * w[l+1]
		}
		if l < len(w) {
			s0 += xr[l] * yr[l] * w[l]
		}
		z[e] = s0 + s1
	}
}

// gradRowSumProd: for z_e = Σ_l x_il y_jl w_l, x_il gets g_e y_jl w_l, y_jl
// gets g_e x_il w_l and w_l gets g_e x_il y_jl. The three updates share one
// loop (they read only values, so x and y may be rows of one matrix, even
// the same row).
func (p *Program) gradRowSumProd(n *node, g []float64) {
	x, y, wn := p.arg(n, 0), p.arg(n, 1), p.arg(n, 2)
	xv, yv, w := p.v(x), p.v(y), p.v(wn)
	k := len(w)
	if x.aoff < 0 || y.aoff < 0 || wn.aoff < 0 {
		p.gradRowSumProdSome(n, g)
		return
	}
	ax, ay, aw := p.a(x), p.a(y), p.a(wn)[:len(w)]
	for e, ge := range g {
		i, j := n.rowsOf(e)
		xr, yr := xv[i*k:][:len(w)], yv[j*k:][:len(w)]
		ar, br := ax[i*k:][:len(w)], ay[j*k:][:len(w)]
		for l, wl := range w {
			gw := ge * wl
			ar[l] += gw * yr[l]
			br[l] += gw * xr[l]
			aw[l] += ge * xr[l] * yr[l]
		}
	}
}

// gradRowSumProdSome is gradRowSumProd when some operand has no adjoint
// (data).
func (p *Program) gradRowSumProdSome(n *node, g []float64) {
	x, y, wn := p.arg(n, 0), p.arg(n, 1), p.arg(n, 2)
	xv, yv, w := p.v(x), p.v(y), p.v(wn)
	k := len(w)
	gw := p.s(n)[:len(w)] // g_e w
	for e, ge := range g {
		i, j := n.rowsOf(e)
		xr, yr := xv[i*k:][:len(w)], yv[j*k:][:len(w)]
		for l, wl := range w {
			gw[l] = ge * wl
		}
		if x.aoff >= 0 {
			ar := p.a(x)[i*k:][:len(w)]
			for l, v := range gw {
				ar[l] += v * yr[l]
			}
		}
		if y.aoff >= 0 {
			ar := p.a(y)[j*k:][:len(w)]
			for l, v := range gw {
				ar[l] += v * xr[l]
			}
		}
		if wn.aoff >= 0 {
			aw := p.a(wn)[:len(w)]
			for l := range aw {
				aw[l] += ge * xr[l] * yr[l]
			}
		}
	}
}

// rowSumProdError explains a non-finite element of a RowSumProd: the first
// product that is not finite, or else the sum that overflowed.
func (p *Program) rowSumProdError(n *node, k int, bad string) error {
	xv, yv, w := p.v(p.arg(n, 0)), p.v(p.arg(n, 1)), p.v(p.arg(n, 2))
	m := len(w)
	i, j := n.rowsOf(k)
	el := elemPart(n.shape, k)
	for l, wl := range w {
		a, b := xv[i*m+l], yv[j*m+l]
		if t := a * b * wl; firstBad([]float64{t}) >= 0 {
			return ast.Errorf(n.pos, "%s", msg("rowsum: result is "+bad, el,
				fmt.Sprintf("product %g * %g * %g at column %d is %s", a, b, wl, l, kind(t))))
		}
	}
	return ast.Errorf(n.pos, "%s", msg("rowsum: result is "+bad, el, "the sum of the products overflows"))
}
