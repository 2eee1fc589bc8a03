package autodiff

import (
	"fmt"
	"slices"

	"github.com/gpplang/gpp/internal/par"
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
		if o := &b.nodes[args[i]]; o.op == OpGather && o.soff == nil && b.nodes[o.args[0]].shape.Rank == 2 {
			args[i], rows[i] = o.args[0], o.idx
		}
	}
	n := node{op: OpRowSumProd, args: args, shape: Vector(sx.Rows), pos: pos,
		idx: rows[0], idy: rows[1]}
	n.rsi = newRowIndex(&n, b.nodes[args[0]].shape.Rows, b.nodes[args[1]].shape.Rows)
	// the reverse pass's row sums: one [rows, cols] block per pass
	n.nscr = n.rsi.passes * (len(n.rsi.cum) - 1) * sx.Cols
	return b.push(n)
}

// rspWork is the multiply-adds of a RowSumProd's reverse pass over elems
// elements of k columns: each element's two rows (x's and y's roles).
func rspWork(elems, k int) int {
	return 2 * elems * k
}

// rowIndex lists a RowSumProd's elements by destination row, so that its
// reverse pass can be shared by rows of the adjoints without two parts
// adding into one row: for each pass (one if x and y are the same matrix,
// else x's rows then y's), ent[2·off[r] : 2·off[r+1]] holds pairs (element
// e, row of the other operand) in increasing e, with x's role before y's
// for one e: the order in which the reverse pass adds them, whatever the
// team. cum[r] counts the entries of rows below r over all passes.
type rowIndex struct {
	passes int
	off    [2][]int32
	ent    [2][]int32
	cum    []int32
}

func newRowIndex(n *node, xrows, yrows int) *rowIndex {
	same := n.args[0] == n.args[1]
	rows := max(xrows, yrows)
	ri := &rowIndex{passes: 2, cum: make([]int32, rows+1)}
	if same {
		ri.passes = 1
	}
	elems := n.shape.Rows
	for q := range ri.passes {
		ri.off[q] = make([]int32, rows+1)
		ri.ent[q] = make([]int32, 0, 4*elems/ri.passes)
	}
	// x's row i_e goes to pass 0, y's row j_e to pass 0 (same matrix) or 1
	count := func(f func(q, dst, e, src int)) {
		for e := range elems {
			i, j := n.rowsOf(e)
			f(0, i, e, j)
			f(ri.passes-1, j, e, i)
		}
	}
	count(func(q, dst, _, _ int) { ri.off[q][dst+1]++ })
	for q := range ri.passes {
		for r := range rows {
			ri.off[q][r+1] += ri.off[q][r]
		}
		ri.ent[q] = ri.ent[q][:2*ri.off[q][rows]]
	}
	next := [2][]int32{append([]int32(nil), ri.off[0]...), nil}
	if ri.passes == 2 {
		next[1] = append([]int32(nil), ri.off[1]...)
	}
	count(func(q, dst, e, src int) {
		k := next[q][dst]
		ri.ent[q][2*k], ri.ent[q][2*k+1] = int32(e), int32(src)
		next[q][dst]++
	})
	for r := range rows {
		c := ri.off[0][r+1] - ri.off[0][r]
		if ri.passes == 2 {
			c += ri.off[1][r+1] - ri.off[1][r]
		}
		ri.cum[r+1] = ri.cum[r] + c
	}
	return ri
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
	if n.sumOf > 0 {
		p.evalSumRowSumProd(n)
		return
	}
	p.rt = rspTask{p: p, n: n}
	p.share(&p.rt, len(p.v(n))*len(p.v(p.arg(n, 2))))
	p.rt = rspTask{}
}

// share runs t on p's team when work (multiply-adds) is large enough and
// the team has goroutines to spare, else on the caller alone.
func (p *Program) share(t par.Task, work int) {
	if p.team != nil && work >= parMinWork && p.team.Size() > 1 {
		p.team.Run(t)
		return
	}
	t.RunPart(0, 1)
}

// rspTask is a RowSumProd's forward pass (g nil), shared by elements, or
// its reverse pass, shared by the rows of x and y its adjoints go to; for a
// summed RowSumProd (sum true), the row sums of one pass, shared by rows.
type rspTask struct {
	p    *Program
	n    *node
	g    []float64
	sum  bool
	pass int
}

func (t *rspTask) RunPart(i, parts int) {
	switch {
	case t.sum:
		t.p.sumPassPart(t.n, t.pass, i, parts)
	case t.g == nil:
		z := t.p.v(t.n)
		t.p.rowSumProdRange(t.n, i*len(z)/parts, (i+1)*len(z)/parts)
	default:
		t.p.gradRowSumProdPart(t.n, t.g, i, parts)
	}
}

// rowSumProdRange computes elements [lo, hi) of a RowSumProd.
func (p *Program) rowSumProdRange(n *node, lo, hi int) {
	xv, yv, w := p.v(p.arg(n, 0)), p.v(p.arg(n, 1)), p.v(p.arg(n, 2))
	k := len(w)
	z := p.v(n)
	for e := lo; e < hi; e++ {
		i, j := n.rowsOf(e)
		z[e] = dot3(xv[i*k:][:k], yv[j*k:][:k], w)
	}
}

// dot3 returns Σ_l x_l y_l w_l (len(w) terms), with two accumulators to
// halve the chain of dependent additions.
func dot3(x, y, w []float64) float64 {
	x, y = x[:len(w)], y[:len(w)]
	var s0, s1 float64
	l := 0
	for ; l+2 <= len(w); l += 2 {
		s0 += x[l] * y[l] * w[l]
		s1 += x[l+1] * y[l+1] * w[l+1]
	}
	if l < len(w) {
		s0 += x[l] * y[l] * w[l]
	}
	return s0 + s1
}

// gradRowSumProd: for z_e = Σ_l x_il y_jl w_l, row i of x gets
// t_i .* w with t_i = Σ_{e: i_e = i} g_e y_je, row j of y gets the like sum
// of g_e x_ie times w, and w gets Σ_e g_e x_ie .* y_je = Σ_i x_i .* t_i.
// Summing g_e y_je per destination row before multiplying by w takes one
// multiply-add per product instead of three (one per adjoint), and w's
// adjoint then costs one pass over the rows, not over the elements. The rows are shared by the team (see gradRowSumProdPart); w's
// adjoint is added afterwards in row order, so the numbers do not depend
// on the team.
func (p *Program) gradRowSumProd(n *node, g []float64) {
	if n.sumOf > 0 {
		p.gradSumRowSumProd(n, g[0])
		return
	}
	x, wn := p.arg(n, 0), p.arg(n, 2)
	p.rt = rspTask{p: p, n: n, g: g}
	p.share(&p.rt, rspWork(len(g), len(p.v(wn))))
	p.rt = rspTask{}
	if wn.aoff < 0 {
		return
	}
	xv, aw := p.v(x), p.a(wn)
	k := len(aw)
	if k == 0 {
		return
	}
	t := p.s(n)
	// With x and y one matrix, pass 0 sums both roles: Σ_i x_i .* t_i
	// counts every element twice.
	scale := 1.0
	if n.rsi.passes == 1 {
		scale = 0.5
	}
	for r := range len(xv) / k {
		xr, tr := xv[r*k:][:k], t[r*k:][:k]
		for l := range aw {
			aw[l] += xr[l] * tr[l] * scale
		}
	}
}

// gradRowSumProdPart is part i of parts of gradRowSumProd's x and y
// adjoints. Each part takes its own range of destination rows, read from
// the node's rowIndex, so no two parts add into one row, and every row
// receives the same additions in the same order whatever the parts. The
// sums t of pass 0 (x's rows) are kept in the node's scratch for w's
// adjoint. The rows are cut so that each part has a 1/parts share of the
// multiply-adds.
func (p *Program) gradRowSumProdPart(n *node, g []float64, part, parts int) {
	x, y, wn := p.arg(n, 0), p.arg(n, 1), p.arg(n, 2)
	xv, yv, w := p.v(x), p.v(y), p.v(wn)
	k := len(w)
	ri := n.rsi
	rows := len(ri.cum) - 1
	lo, hi := ri.partRows(part, parts)
	scr := p.s(n)
	for q := range ri.passes {
		dst, src := x, yv // pass 0: x's rows, from y's values
		if q == 1 {
			dst, src = y, xv
		}
		if dst.aoff < 0 && (q == 1 || wn.aoff < 0) {
			continue // no adjoint wants these sums
		}
		var ad []float64
		if dst.aoff >= 0 {
			ad = p.a(dst)
		}
		off, ent := ri.off[q], ri.ent[q]
		t := scr[q*rows*k:]
		for r := lo; r < hi; r++ {
			tr := t[r*k:][:k]
			if off[r] == off[r+1] {
				clear(tr)
				continue // also past the end of the shorter of x and y
			}
			rowSums(tr, g, src, ent[2*off[r]:2*off[r+1]])
			if ad != nil {
				ar := ad[r*k:][:k]
				for l, wl := range w {
					ar[l] += tr[l] * wl
				}
			}
		}
	}
}

// partRows returns the destination rows [lo, hi) of part of parts: cut so
// that each part has a 1/parts share of the entries.
func (ri *rowIndex) partRows(part, parts int) (lo, hi int) {
	rows := len(ri.cum) - 1
	cut := func(q int) int { // first row of part q
		r, _ := slices.BinarySearch(ri.cum, int32(int(ri.cum[rows])*q/parts))
		return min(r, rows)
	}
	lo, hi = cut(part), rows
	if part+1 < parts {
		hi = cut(part + 1)
	}
	return lo, hi
}

// A Sum of a RowSumProd that nothing else reads (the EPM's missing pairs,
// sum(rowsum(W[i] .* W[j] .* r'))) is made one node by Finish (fuseSums):
// Σ_e Σ_l x_il y_jl w_l = Σ_i x_i · (t_i .* w), with t_i = Σ_{e: i_e = i}
// y_je the row sums that the reverse pass needs anyway (with x and y one
// matrix, t_i sums both roles and the total is halved). The forward pass
// forms t and keeps it in the node's scratch, the reverse pass multiplies
// it by the adjoint and w: one pass over the products where the
// elementwise node and its Sum take two. The scratch holds the row sums of
// each pass, then as many ones as elements (the weights g of rowSums).

// evalSumRowSumProd forms pass 0's row sums (shared by rows) and the total
// from them, in row order whatever the team.
func (p *Program) evalSumRowSumProd(n *node) {
	x, wn := p.arg(n, 0), p.arg(n, 2)
	xv, w := p.v(x), p.v(wn)
	k := len(w)
	p.rt = rspTask{p: p, n: n, sum: true}
	p.share(&p.rt, sumPassWork(n, 0, k))
	p.rt = rspTask{}
	// With one matrix each row's share is halved before it is added
	// (exactly), so the total overflows only where the true one does.
	s, h := 0.0, 1.0
	if n.rsi.passes == 1 {
		h = 0.5
	}
	if k > 0 {
		t := p.s(n)
		for r := range len(xv) / k {
			s += h * dot3(xv[r*k:], t[r*k:], w)
		}
	}
	p.v(n)[0] = s
}

// sumPassWork is the multiply-adds of pass q's row sums of a summed
// RowSumProd with k columns.
func sumPassWork(n *node, q, k int) int {
	return len(n.rsi.ent[q]) / 2 * k
}

// sumPassPart sets pass q's row sums (with unit weights) for part of parts
// of the destination rows.
func (p *Program) sumPassPart(n *node, q, part, parts int) {
	src := p.v(p.arg(n, 1)) // pass 0: x's rows, from y's values
	if q == 1 {
		src = p.v(p.arg(n, 0))
	}
	ri := n.rsi
	rows := len(ri.cum) - 1
	k := p.nodes[n.args[2]].n
	scr := p.s(n)
	t, ones := scr[q*rows*k:], scr[ri.passes*rows*k:]
	off, ent := ri.off[q], ri.ent[q]
	lo, hi := ri.partRows(part, parts)
	for r := lo; r < hi; r++ {
		tr := t[r*k:][:k]
		if off[r] == off[r+1] {
			clear(tr)
			continue
		}
		rowSums(tr, ones, src, ent[2*off[r]:2*off[r+1]])
	}
}

// gradSumRowSumProd adds g times the summed RowSumProd's partials: row r of
// x gets g t_r .* w (y's rows likewise from pass 1's sums, formed here; with
// one matrix pass 0 serves both roles), w gets g Σ_r x_r .* t_r (halved with
// one matrix).
func (p *Program) gradSumRowSumProd(n *node, g float64) {
	x, y, wn := p.arg(n, 0), p.arg(n, 1), p.arg(n, 2)
	w := p.v(wn)
	k := len(w)
	if k == 0 {
		return
	}
	ri := n.rsi
	rows := len(ri.cum) - 1
	t := p.s(n)
	if ri.passes == 2 && y.aoff >= 0 {
		p.rt = rspTask{p: p, n: n, sum: true, pass: 1}
		p.share(&p.rt, sumPassWork(n, 1, k))
		p.rt = rspTask{}
		addRowsTimes(p.a(y), t[rows*k:], w, g)
	}
	if x.aoff >= 0 {
		addRowsTimes(p.a(x), t, w, g)
	}
	if wn.aoff >= 0 {
		if ri.passes == 1 {
			g *= 0.5
		}
		xv, aw := p.v(x), p.a(wn)
		for r := range len(xv) / k {
			xr, tr := xv[r*k:][:k], t[r*k:][:k]
			for l := range aw {
				aw[l] += g * xr[l] * tr[l]
			}
		}
	}
}

// addRowsTimes adds g t_r .* w to each row r of the adjoint a (len(w)
// columns; t has at least as many rows).
func addRowsTimes(a, t, w []float64, g float64) {
	k := len(w)
	for r := range len(a) / k {
		ar, tr := a[r*k:][:k], t[r*k:][:k]
		for l, wl := range w {
			ar[l] += g * tr[l] * wl
		}
	}
}

// fuseSums makes each live Sum of a RowSumProd that no other live node and
// no caller (ext: the root and the kept nodes) reads a summed RowSumProd,
// and drops the RowSumProd.
func (p *Program) fuseSums(ext []int32) {
	uses := make([]int32, len(p.nodes))
	for _, i := range ext {
		uses[i]++
	}
	for i := range p.nodes {
		if n := &p.nodes[i]; n.live {
			for _, a := range n.args {
				uses[a]++
			}
		}
	}
	for i := range p.nodes {
		s := &p.nodes[i]
		if !s.live || s.op != OpSum {
			continue
		}
		a := s.args[0]
		r := &p.nodes[a]
		if r.op != OpRowSumProd || r.sumOf > 0 || uses[a] != 1 {
			continue
		}
		s.op, s.args, s.idx, s.idy, s.rsi = OpRowSumProd, r.args, r.idx, r.idy, r.rsi
		s.nscr = r.nscr + r.n // the row sums, then a one per element
		s.sumOf = a + 1
		r.live = false
	}
}

// fillOnes writes the unit weights into the scratch of every summed
// RowSumProd (once: clones copy the scratch).
func (p *Program) fillOnes() {
	for i := range p.nodes {
		if n := &p.nodes[i]; n.live && n.sumOf > 0 {
			src := &p.nodes[n.sumOf-1]
			ones := p.s(n)[src.nscr:]
			for j := range ones {
				ones[j] = 1
			}
		}
	}
}

// rowSums sets t to Σ g_e s_j over the pairs (e, j) of ent, for rows s_j
// of src of len(t) columns, each column's sum taken in the order of ent.
// The columns go four at a time with their sums in registers: summing
// into t in memory chained every addition to the store of the one before.
func rowSums(t, g, src []float64, ent []int32) {
	k := len(t)
	l := 0
	for ; l+4 <= k; l += 4 {
		var t0, t1, t2, t3 float64
		for c := 0; c+1 < len(ent); c += 2 {
			ge, sr := g[ent[c]], src[int(ent[c+1])*k+l:][:4]
			t0 += ge * sr[0]
			t1 += ge * sr[1]
			t2 += ge * sr[2]
			t3 += ge * sr[3]
		}
		t[l], t[l+1], t[l+2], t[l+3] = t0, t1, t2, t3
	}
	for ; l+2 <= k; l += 2 {
		var t0, t1 float64
		for c := 0; c+1 < len(ent); c += 2 {
			ge, sr := g[ent[c]], src[int(ent[c+1])*k+l:][:2]
			t0 += ge * sr[0]
			t1 += ge * sr[1]
		}
		t[l], t[l+1] = t0, t1
	}
	if l < k {
		var t0 float64
		for c := 0; c+1 < len(ent); c += 2 {
			t0 += g[ent[c]] * src[int(ent[c+1])*k+l]
		}
		t[l] = t0
	}
}

// sumRowSumProdError explains a non-finite summed RowSumProd: by the first
// element of the rowsum that is not finite, at the rowsum's position as
// unfused, or else by the total.
func (p *Program) sumRowSumProdError(n *node, bad string) error {
	src := &p.nodes[n.sumOf-1]
	xv, yv, w := p.v(p.arg(n, 0)), p.v(p.arg(n, 1)), p.v(p.arg(n, 2))
	k := len(w)
	for e := range src.n {
		i, j := n.rowsOf(e)
		s := 0.0
		for l, wl := range w {
			s += xv[i*k+l] * yv[j*k+l] * wl
		}
		if firstBad([]float64{s}) >= 0 {
			return p.rowSumProdError(src, e, kind(s))
		}
	}
	return ast.Errorf(n.pos, "sum: result is %s (the sum of the elements of rowsum overflows)", bad)
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
				fmt.Sprintf("product %s * %s * %s at column %d is %s", short(a), short(b), short(wl), l, kind(t))))
		}
	}
	return ast.Errorf(n.pos, "%s", msg("rowsum: result is "+bad, el, "the sum of the products overflows"))
}
