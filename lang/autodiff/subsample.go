package autodiff

import (
	"slices"

	"github.com/gpplang/gpp/lang/ast"
)

// Subsample marks the data named in names as subsampled (a minibatch of
// rows, rewritten between evaluations): their DataConst nodes built from
// now on, and every node built from those, are Subsampled. A program
// finished from the builder refreshes them (Program.Refresh).
func (b *Builder) Subsample(names []string) {
	b.subsample = map[string]bool{}
	for _, n := range names {
		b.subsample[n] = true
	}
}

// Subsampled reports whether x reads subsampled data (see Subsample).
func (b *Builder) Subsampled(x ID) bool { return b.nodes[b.index(x)].sub }

// GatherSub is Gather(x, idx) for indices read from subsampled int data
// (u[g] with g a column of the batch, or u[g[i]] in a loop over its rows):
// idx[k] is the value of data name at offset offs[k] of its batch values.
// The node reads the batch, and its indices are rewritten with each batch
// (SubIndices) before Program.Refresh. A fused product does not absorb it.
func (b *Builder) GatherSub(x ID, idx []int, name string, offs []int, pos ast.Pos) ID {
	id := b.Gather(x, idx, pos)
	if i := b.index(id); b.nodes[i].op == OpGather {
		n := &b.nodes[i]
		n.sub, n.name = true, name
		n.soff = make([]int32, len(offs))
		for k, o := range offs {
			n.soff[k] = int32(o)
		}
	}
	return id
}

// GatherSubCells is GatherSub for a cell of each row: the elements
// x[k, idx[k]] of a matrix x [n, m] (v[c[i]] of a per-row vector v in a
// loop over the batch's rows), idx read from subsampled int data as
// GatherSub's, a vector [n]. Its slot's Stride is m: index k gathers
// element k·m + idx[k] of x's elements.
func (b *Builder) GatherSubCells(x ID, idx []int, name string, offs []int, pos ast.Pos) ID {
	sh := b.Shape(x)
	if sh.Rank != 2 || len(idx) != sh.Rows {
		return b.fail(pos, "gather: needs a matrix of a row per index, got %s", sh)
	}
	flat := make([]int, len(idx))
	for k, i := range idx {
		flat[k] = k*sh.Cols + i
	}
	id := b.GatherSub(b.Reshape(x, Vector(sh.Len()), pos), flat, name, offs, pos)
	if i := b.index(id); b.nodes[i].op == OpGather {
		b.nodes[i].i1 = sh.Cols
	}
	return id
}

// GatherSlot is one live GatherSub node of a program.
type GatherSlot struct {
	Name string  // the subsampled int data
	Offs []int32 // index k is the batch's value at Offs[k] (read-only)
	Rows int     // the gathered axis' length: an index must be in [0, Rows)
	// Stride, when not 0, makes index k the cell k·Stride + the batch's
	// value of a flat matrix (GatherSubCells), the value in [0, Stride).
	Stride int
	Pos    ast.Pos
}

// SubGathers returns the program's live GatherSub nodes, in build order;
// SubIndices(k) is slot k's indices.
func (p *Program) SubGathers() []GatherSlot {
	out := make([]GatherSlot, len(p.subGather))
	for k, i := range p.subGather {
		n := &p.nodes[i]
		out[k] = GatherSlot{Name: n.name, Offs: n.soff, Rows: p.arg(n, 0).shape.Rows, Stride: n.i1, Pos: n.pos}
		if n.i1 > 0 {
			out[k].Rows = n.i1
		}
	}
	return out
}

// SubIndices returns the indices of slot k of SubGathers, which the
// caller overwrites (each in [0, Rows)) with a new batch's before calling
// Refresh.
func (p *Program) SubIndices(k int) []int { return p.nodes[p.subGather[k]].idx }

// DataSlot is one live DataConst node of subsampled data in a program.
type DataSlot struct {
	Name  string
	Shape Shape
	Pos   ast.Pos
}

// SubData returns the program's live DataConst nodes of subsampled data,
// in build order; SubValues(k) is slot k's storage.
func (p *Program) SubData() []DataSlot {
	out := make([]DataSlot, len(p.subConst))
	for k, i := range p.subConst {
		n := &p.nodes[i]
		out[k] = DataSlot{Name: n.name, Shape: n.shape, Pos: n.pos}
	}
	return out
}

// SubValues returns the values of slot k of SubData, which the caller
// overwrites with a new minibatch before calling Refresh.
func (p *Program) SubValues(k int) []float64 { return p.v(&p.nodes[p.subConst[k]]) }

// indexSubsampled records, after Finish, the subsampled DataConst nodes
// and the data-only nodes that read them (in topological order): the
// ones Refresh evaluates again.
func (p *Program) indexSubsampled() {
	for i := range p.nodes {
		n := &p.nodes[i]
		if n.live && n.soff != nil {
			p.subGather = append(p.subGather, int32(i))
		}
		if !n.live || !n.sub || n.dyn {
			continue
		}
		if n.op == OpConst {
			p.subConst = append(p.subConst, int32(i))
		} else {
			p.subOrder = append(p.subOrder, int32(i))
		}
	}
}

// Refresh evaluates again every data-only node that reads subsampled data
// (GPFA's Y'Y, a data mean, a column of a matrix), after the caller has
// rewritten the SubValues: Finish evaluated them once, for the data then
// in place. It allocates nothing. A value that is not finite is an error
// at the node's expression, as in Finish.
func (p *Program) Refresh() error {
	p.ready = false
	for _, i := range p.subOrder {
		n := &p.nodes[i]
		ok := p.eval(n)
		p.evals[i]++
		if (!ok || firstBad(p.val[n.off:n.off+n.n]) >= 0) && n.joint {
			return p.nodeError(i, ok)
		}
	}
	return nil
}

// FirstDifference compares two programs built by the same code from
// different data: it returns the position of the first node whose
// operation, shape, operands or integer attributes (a gather's indices,
// a loop's unrolled body) differ, or, for a live data-only node, whose
// value differs, and false; true if none does. A minibatch program
// rewritten by Refresh must equal one built from the batch directly: a
// difference is data the build fixed in the tape's structure (an index,
// a branch) or in a constant that Refresh does not see.
func FirstDifference(a, b *Program) (ast.Pos, bool) {
	if len(a.nodes) != len(b.nodes) {
		k := min(len(a.nodes), len(b.nodes)) - 1
		for i := 0; i <= k; i++ {
			if a.nodes[i].op != b.nodes[i].op || a.nodes[i].shape != b.nodes[i].shape {
				return a.nodes[i].pos, false
			}
		}
		return a.nodes[max(k, 0)].pos, false
	}
	for i := range a.nodes {
		x, y := &a.nodes[i], &b.nodes[i]
		same := x.op == y.op && x.shape == y.shape && x.live == y.live && x.dyn == y.dyn &&
			slices.Equal(x.args, y.args) && x.i0 == y.i0 && x.i1 == y.i1 &&
			x.gr == y.gr && x.gc == y.gc && slices.Equal(x.bc, y.bc) &&
			slices.Equal(x.idx, y.idx) && slices.Equal(x.idy, y.idy) && slices.Equal(x.soff, y.soff) &&
			x.nsets == y.nsets && x.pmode == y.pmode && x.sumOf == y.sumOf &&
			sameFloat(x.f0, y.f0) && sameFloat(x.f1, y.f1)
		if same && x.live && !x.dyn {
			same = slices.EqualFunc(a.v(x), b.v(y), sameFloat)
		}
		if !same {
			return x.pos, false
		}
	}
	return ast.Pos{}, true
}

// sameFloat is == with NaN equal to NaN.
func sameFloat(x, y float64) bool { return x == y || x != x && y != y }

// ScaleSubsampled returns the sum of x's elements with each of its
// additive terms that reads subsampled data multiplied by scale (N/B, so
// that a batch's terms estimate the full data's), the others left as
// they are: x = prior + likelihood scales the likelihood only. The terms
// are found through sums, differences, negations, sum(), and products
// and quotients by a scalar that reads no subsampled data; a scalar added
// to every element of a value that reads the batch is part of each row's
// term and scaled with it. A term whose parts are not separable in this
// way is scaled whole (the compiler refuses, before building, the terms
// where that would be wrong: a sum over the rows inside a function).
// When every term reads the batch the result is x's sum times scale, as
// without the split.
func (b *Builder) ScaleSubsampled(x ID, scale float64, pos ast.Pos) ID {
	var terms []ID
	var rows []bool
	b.additiveTerms(x, false, func(t ID, row bool) {
		terms, rows = append(terms, t), append(rows, row)
	})
	total := func(x ID) ID {
		if b.Shape(x).IsScalar() {
			return x
		}
		return b.Sum(x, pos)
	}
	if !slices.Contains(rows, false) {
		return b.Mul(total(x), b.Scalar(scale, pos), pos)
	}
	var sum ID
	for k, t := range terms {
		if rows[k] {
			t = b.Mul(t, b.Scalar(scale, pos), pos)
		}
		if k == 0 {
			sum = t
		} else {
			sum = b.Add(sum, t, pos)
		}
	}
	return sum
}

// additiveTerms calls emit with scalar nodes whose sum is the sum of x's
// elements, each with whether it is a term of the rows: it reads
// subsampled data, or (row) it is repeated once per row of a value that
// does.
func (b *Builder) additiveTerms(x ID, row bool, emit func(ID, bool)) {
	n := b.nodes[b.index(x)] // a copy: emit builds nodes
	pos := n.pos
	leaf := func() {
		t := x
		if !n.shape.IsScalar() {
			t = b.Sum(x, pos)
		}
		emit(t, row || n.sub)
	}
	if row || !n.sub {
		leaf()
		return
	}
	arg := func(k int) ID { return b.id(int(n.args[k])) }
	scalarFixed := func(k int) bool { a := &b.nodes[n.args[k]]; return a.shape.Len() == 1 && !a.sub }
	switch op := n.op; {
	case op == OpSum:
		b.additiveTerms(arg(0), false, emit)
	case op == OpNeg:
		b.additiveTerms(arg(0), false, func(t ID, r bool) { emit(b.Neg(t, pos), r) })
	case op == OpAdd || op == OpSub:
		out := n.shape
		reps := [2]int{}
		for k := range 2 {
			switch s := b.nodes[n.args[k]].shape; {
			case s == out:
				reps[k] = 1
			case s.Len() == 1:
				reps[k] = out.Len()
			default: // a row or a column added to each row of a matrix
				leaf()
				return
			}
		}
		for k := range 2 {
			// A scalar added to each element of a value of the rows is
			// part of each row's term, also where a batch of one row
			// makes that value one element (a scalar broadcast to [1]
			// or [1, 1]: the same term as for a larger batch).
			rowsOf := b.nodes[n.args[k]].shape != out && b.nodes[n.args[1-k]].sub
			rep, neg := reps[k], k == 1 && op == OpSub
			b.additiveTerms(arg(k), rowsOf, func(t ID, r bool) {
				if rep > 1 {
					t = b.Mul(t, b.Scalar(float64(rep), pos), pos)
				}
				if neg {
					t = b.Neg(t, pos)
				}
				emit(t, r)
			})
		}
	case op == OpMul && (scalarFixed(0) || scalarFixed(1)):
		f, k := arg(1), 0 // the factor and the operand split
		if !scalarFixed(1) {
			f, k = arg(0), 1
		}
		b.additiveTerms(arg(k), false, func(t ID, r bool) { emit(b.Mul(t, f, pos), r) })
	case op == OpMul && b.nodes[n.args[0]].shape.Len() == 1 != (b.nodes[n.args[1]].shape.Len() == 1):
		// a scalar of the rows (a sum over them) times each element of a
		// value that is not: the scalar times that value's sum
		k := 0
		if b.nodes[n.args[1]].shape.Len() == 1 {
			k = 1
		}
		if b.nodes[n.args[1-k]].sub {
			leaf()
			return
		}
		s := b.Sum(arg(1-k), pos)
		b.additiveTerms(arg(k), false, func(t ID, r bool) { emit(b.Mul(t, s, pos), r) })
	case op == OpDiv && scalarFixed(1):
		f := arg(1)
		b.additiveTerms(arg(0), false, func(t ID, r bool) { emit(b.Div(t, f, pos), r) })
	default:
		leaf()
	}
}
