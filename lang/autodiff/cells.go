package autodiff

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gpplang/gpp/lang/ast"
)

// cellTrace is what traceCell found of one element of a value computed
// elementwise: the one data cell it is computed from, and the params
// that enter it.
type cellTrace struct {
	src     *node    // the data node of the cell (nil: none found)
	at      ast.Pos  // the cell in its file
	srcK    int      // the element of src
	dyn     bool     // params enter the element
	names   []string // the params that enter, each named (shift[2], sigma)
	unnamed bool     // a param value entered that has no one name (a matrix product, say)
	bad     bool     // no one datum: two data cells, or data read otherwise along the axis
	budget  int      // nodes left to visit, against a DAG of shared operands
}

// traceBudget bounds the nodes traceCell visits: an elementwise chain of
// shared operands (x + x, then that + itself, …) would double them per
// step.
const traceBudget = 4096

// traceCell follows element k of node i, computed by elementwise ops,
// back to the one data cell it is computed from along the broadcast axis
// (rt[k] of rt[k] - shift[subj[k]], y[k] of (y - m) / s), where every
// other operand is a single value, a constant, or a param's value that
// reads no data along the axis (a param, an element of one picked by a
// data index); ok is false where no one datum makes the element, so that
// a value computed from two data columns names neither.
func (p *Program) traceCell(i int32, k int) (cellTrace, bool) {
	t := cellTrace{budget: traceBudget}
	p.visitCell(i, k, &t, map[int32]bool{})
	return t, !t.bad && t.src != nil
}

// visitCell is traceCell's walk over element k of node i; reads memoises
// readsData.
func (p *Program) visitCell(i int32, k int, t *cellTrace, reads map[int32]bool) {
	if t.bad {
		return
	}
	if t.budget--; t.budget < 0 {
		t.bad = true
		return
	}
	if src, at, sk, ok := cellIn(p.nodes, i, k); ok {
		if t.src != nil {
			t.bad = true // a second datum
			return
		}
		t.src, t.at, t.srcK = src, at, sk
		return
	}
	m := &p.nodes[i]
	switch {
	case m.op.isUnary():
		p.visitCell(m.args[0], k, t, reads)
	case m.op.isBinary():
		gc := max(m.gc, 1)
		for a, x := range m.args {
			if o := &p.nodes[x]; o.n == 1 && m.n > 1 && !o.dyn {
				continue // a single value, on no axis (a data scalar, a literal)
			}
			p.visitCell(x, k/gc*m.bc[2*a]+k%gc*m.bc[2*a+1], t, reads)
		}
	case m.dyn:
		if m.n > 1 && p.readsData(i, reads, &t.budget) {
			t.bad = true // data along the axis that is not traced (x * beta)
			return
		}
		t.dyn = true
		name, ok := p.paramElem(i, k)
		switch {
		case !ok:
			t.unnamed = true
		case !slices.Contains(t.names, name):
			t.names = append(t.names, name)
		}
	case m.n == 1, m.op == OpConst && m.name == "":
		// a value of data alone that is one number, or a literal
	default:
		t.bad = true // data computed otherwise (sort(x)), or given without a file
	}
}

// readsData reports whether node i depends on a data node (a DataConst):
// its value, not only its indices. budget bounds the nodes it visits; when
// spent, it answers true.
func (p *Program) readsData(i int32, memo map[int32]bool, budget *int) bool {
	if r, ok := memo[i]; ok {
		return r
	}
	if *budget--; *budget < 0 {
		return true
	}
	n := &p.nodes[i]
	r := n.op == OpConst && n.name != ""
	for _, a := range n.args {
		if r {
			break
		}
		r = p.readsData(a, memo, budget)
	}
	memo[i] = r
	return r
}

// paramElem names the param element that element k of node i is: it
// follows indexing (shift[subj] picks shift[subj[k]]), then the
// elementwise map from a param's coordinates to its value (a bound's
// inv_logit, scale and shift), to an Input: "shift[2]", "sigma". ok is
// false where the element is no one param's.
func (p *Program) paramElem(i int32, k int) (string, bool) {
	for range traceBudget {
		i, k = indexedElem(p.nodes, i, k)
		m := &p.nodes[i]
		switch {
		case m.op == OpInput:
			if m.name == "" {
				return "", false
			}
			return m.name + m.shape.elem(k), true
		case m.op == OpInside, m.op.isUnary():
			i = m.args[0] // Inside's ends per element, if any, are constants
		case m.op.isBinary():
			// lo + scale * z: one operand the param's, the other
			// constants (one per element for bounds per element)
			gc, next := max(m.gc, 1), -1
			for a, x := range m.args {
				if p.nodes[x].dyn {
					if next >= 0 {
						return "", false // two params' (mu + sigma * z)
					}
					next = a
				}
			}
			if next < 0 {
				return "", false
			}
			i, k = m.args[next], k/gc*m.bc[2*next]+k%gc*m.bc[2*next+1]
		default:
			return "", false
		}
	}
	return "", false
}

// fromParams is traceCell's words for the params that enter a value, after
// its data cell: " and param shift[2]", " and params m, s", or " and params"
// where one has no name or they are many; "" when none enter.
func (t *cellTrace) fromParams() string {
	switch {
	case !t.dyn:
		return ""
	case t.unnamed || len(t.names) == 0 || len(t.names) > 3:
		return " and params"
	case len(t.names) == 1:
		return " and param " + t.names[0]
	}
	return " and params " + strings.Join(t.names, ", ")
}

// computedCell is the note of the data cell element k of node i is
// computed from, with the params that enter it ("computed from rt's at
// d.csv:169:3 and param shift[2]"), after "is" in an error's note; ok false
// where traceCell finds no one datum.
func (p *Program) computedCell(i int32, k int) (string, bool) {
	t, ok := p.traceCell(i, k)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("computed from %s's at %s%s", t.src.name, t.at, t.fromParams()), true
}

// boundNote explains a value below 0 of a density whose support starts at
// 0 that is a datum minus a bounded param's element (rt[k] -
// shift[subj[k]]), where the param's upper bound is above the datum, so
// that some of the param's values put the value outside the support:
// "; shift's upper bound 0.4 is above this row's rt 0.11, which shift[2]
// must stay below". "" for any other value.
func (p *Program) boundNote(v int32, k int) string {
	n := &p.nodes[v]
	if n.op != OpSub {
		return ""
	}
	gc := max(n.gc, 1)
	at := func(a int) int { return k/gc*n.bc[2*a] + k%gc*n.bc[2*a+1] }
	src, _, sk, ok := cellIn(p.nodes, n.args[0], at(0))
	if !ok {
		return ""
	}
	j, e := indexedElem(p.nodes, n.args[1], at(1))
	in := &p.nodes[j]
	if in.op != OpInside {
		return ""
	}
	hi, own := in.f1, false
	if in.i0 != 0 { // ends per element (InsideEach): the upper is the last operand
		if in.i0&insideHi == 0 {
			return ""
		}
		hi, own = p.v(p.arg(in, len(in.args)-1))[e], true
	}
	elem, ok := p.paramElem(j, e)
	if !ok || math.IsInf(hi, 1) {
		return ""
	}
	x := p.val[src.off+sk]
	if !(hi > x) {
		return ""
	}
	if own { // shift[2]'s own bound
		return fmt.Sprintf("; %s's upper bound %g is above this row's %s %g, which it must stay below", elem, hi, src.name, x)
	}
	base := elem
	if b := strings.IndexByte(elem, '['); b >= 0 {
		base = elem[:b]
	}
	return fmt.Sprintf("; %s's upper bound %g is above this row's %s %g, which %s must stay below", base, hi, src.name, x, elem)
}
