package autodiff

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gpplang/gpp/lang/ast"
)

// cellTrace is what traceCell found of one element of a value computed
// elementwise: the data cells it is computed from (one, or several of one
// row of a file), and the params that enter it.
type cellTrace struct {
	cells   []tracedCell // the data cells, each once (none: none found)
	idx     []tracedCell // the data indices that pick the params' elements (gauge[k] of xi[gauge])
	again   bool         // a cell was read twice (x - x)
	dyn     bool         // params enter the element
	names   []string     // the params that enter, each named (shift[2], sigma)
	unnamed bool         // a param value entered that has no one name (a matrix product, say)
	bad     bool         // no cells to name: data read otherwise along the axis, or too many cells
	budget  int          // nodes left to visit, against a DAG of shared operands
}

// tracedCell is one data cell an element is computed from: element k of
// data node src (or index k of a GatherData src), at its place in its
// file, of value v.
type tracedCell struct {
	src *node
	at  ast.Pos
	k   int
	v   float64
}

// hasCell reports whether cs holds c's cell: the same data at the same
// place, read through any node.
func hasCell(cs []tracedCell, c tracedCell) bool {
	return slices.ContainsFunc(cs, func(d tracedCell) bool { return d.src.name == c.src.name && d.at == c.at })
}

// maxRowCells bounds the distinct data cells of one row that traceCell
// names (y, ts, w of one CSV line): more, and it names none.
const maxRowCells = 8

// traceBudget bounds the nodes traceCell visits: an elementwise chain of
// shared operands (x + x, then that + itself, …) would double them per
// step.
const traceBudget = 4096

// traceCell follows element k of node i, computed by elementwise ops,
// back to the data cells it is computed from along the broadcast axis
// (rt[k] of rt[k] - shift[subj[k]], y[k] of (y - m) / s), where every
// other operand is a single value, a constant, or a param's value that
// reads no data along the axis (a param, an element of one picked by a
// data index); ok is false where no one datum makes the element, unless
// its data cells are all of one row of one file (y[k] and ts[k] of
// (y - (a + b * ts)) / s, from one CSV line: oneRow), so that a value
// computed from two data columns of different rows names neither.
func (p *Program) traceCell(i int32, k int) (cellTrace, bool) {
	t := cellTrace{budget: traceBudget}
	p.visitCell(i, k, &t, map[int32]bool{})
	if t.bad || len(t.cells) == 0 {
		return t, false
	}
	if len(t.cells) == 1 {
		return t, !t.again // x - x, as of two cells, names none
	}
	return t, p.oneRow(t.cells)
}

// oneRow reports whether data cells cs, two or more, lie on one line of
// one file, each of a datum laid out one row a line (a CSV column, not a
// JSON array written on one line, whose elements share the line): the
// element after or before each cell in its data is on another line.
func (p *Program) oneRow(cs []tracedCell) bool {
	for _, c := range cs {
		if c.at.File != cs[0].at.File || c.at.Line != cs[0].at.Line || c.at.Line == 0 {
			return false
		}
		step, n := 1, c.src.n // the next row's element
		if c.src.op == OpGather {
			n = len(c.src.idx) // of the indices (GatherData)
		} else if c.src.shape.Rank == 2 {
			step = c.src.shape.Cols
		}
		j := c.k + step
		if j >= n {
			j = c.k - step
		}
		if j < 0 || c.src.cells(j).Line == c.at.Line {
			return false // one element, or a row that is not a line
		}
	}
	return true
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
		c := tracedCell{src, at, sk, p.val[src.off+sk]}
		switch {
		case hasCell(t.cells, c): // the same cell again: (y - ts) / y names y once
			t.again = true
		case len(t.cells) == maxRowCells:
			t.bad = true
		default:
			t.cells = append(t.cells, c) // a second is of its row, or bad (oneRow)
		}
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
		p.paramsIn(i, k, t, map[int32]bool{})
	case m.n == 1, m.op == OpConst && m.name == "":
		// a value of data alone that is one number, or a literal
	default:
		t.bad = true // data computed otherwise (sort(x)), or given without a file
	}
}

// paramsIn adds to t the param elements that element k of node i, which
// reads no data along the axis, is computed from: through indexing (a data
// index's pick, whose cell goes to t.idx), bounds' transforms and
// elementwise ops with their broadcasts, so that a let c = a + b read as
// c[g] names a[g[k]] and b, not only a single param's element. Where an
// op is no elementwise one (a matrix product, a sum), the params it reads
// are named whole (beta); whole names holds those already named.
func (p *Program) paramsIn(i int32, k int, t *cellTrace, whole map[int32]bool) {
	if t.budget--; t.budget < 0 {
		t.unnamed = true
		return
	}
	i, k = indexedElemVia(p.nodes, i, k, func(g *node, j int) {
		c := tracedCell{g, g.cells(j), j, float64(g.idx[j])}
		if len(t.idx) < maxRowCells && !hasCell(t.idx, c) { // xi[gauge], a[gauge]: one gauge
			t.idx = append(t.idx, c)
		}
	})
	m := &p.nodes[i]
	switch {
	case !m.dyn:
		// data or constants: traced by visitCell, or read along no axis
	case m.op == OpInput:
		t.addParam(m.name, m.name+m.shape.elem(k))
	case m.op == OpInside, m.op.isUnary():
		p.paramsIn(m.args[0], k, t, whole) // Inside's ends per element, if any, are constants
	case m.op.isBinary():
		gc := max(m.gc, 1)
		for a, x := range m.args {
			p.paramsIn(x, k/gc*m.bc[2*a]+k%gc*m.bc[2*a+1], t, whole)
		}
	default:
		p.wholeParams(i, t, whole)
	}
}

// wholeParams adds to t, by name, every param that node i reads.
func (p *Program) wholeParams(i int32, t *cellTrace, seen map[int32]bool) {
	if seen[i] {
		return
	}
	seen[i] = true
	if t.budget--; t.budget < 0 {
		t.unnamed = true
		return
	}
	m := &p.nodes[i]
	if !m.dyn {
		return
	}
	if m.op == OpInput {
		t.addParam(m.name, m.name)
		return
	}
	for _, a := range m.args {
		p.wholeParams(a, t, seen)
	}
}

// addParam adds name, the element of param param that enters, to t's
// names, once; a param without a name makes t unnamed.
func (t *cellTrace) addParam(param, name string) {
	switch {
	case param == "":
		t.unnamed = true
	case !slices.Contains(t.names, name):
		t.names = append(t.names, name)
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
		i, k = indexedElemVia(p.nodes, i, k, nil)
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

// maxParamNames bounds the params fromParams names: a row's location,
// scale and shape, each picked by the row's group, and a slope are four.
const maxParamNames = 4

// fromParams is traceCell's words for the params that enter a value, after
// its data cell: " and param shift[2]", " and params m, s", the first
// maxParamNames of many with how many more, " and params" alone only where
// none has a name; "" when none enter.
func (t *cellTrace) fromParams() string {
	names := t.names
	more := ""
	if len(names) > maxParamNames {
		more = fmt.Sprintf(" and %d more", len(names)-maxParamNames)
		names = names[:maxParamNames]
	} else if t.unnamed && len(names) > 0 {
		more = " and others"
	}
	switch {
	case !t.dyn:
		return ""
	case len(names) == 0:
		return " and params"
	case len(names) == 1 && more == "":
		return " and param " + names[0]
	}
	return " and params " + strings.Join(names, ", ") + more
}

// computedCell is the note of the data cells element k of node i is
// computed from, with the params that enter it, after "is" in an error's
// note: one cell at its place ("computed from rt's at d.csv:169:3 and
// param shift[2]"), cells of one row at its line with their values
// ("computed from the row at gev.csv:696 (y = 209.8006, ts = 0.45) and
// params a[11], b"); ok false where traceCell finds neither.
func (p *Program) computedCell(i int32, k int) (string, bool) {
	t, ok := p.traceCell(i, k)
	if !ok {
		return "", false
	}
	if c := t.cells[0]; len(t.cells) == 1 {
		return fmt.Sprintf("computed from %s's at %s%s", c.src.name, c.at, t.fromParams()), true
	}
	cells := t.cells
	for _, c := range t.idx { // the row's own indices (gauge), not another file's
		if row := append(cells, c); p.oneRow(row) {
			cells = row
		}
	}
	vals := make([]string, len(cells))
	for j, c := range cells {
		vals[j] = fmt.Sprintf("%s = %s", c.src.name, g(c.v)) // as in the file
	}
	at := cells[0].at
	return fmt.Sprintf("computed from the row at %s:%d (%s)%s", at.File, at.Line, strings.Join(vals, ", "), t.fromParams()), true
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

// HugeData is the magnitude above which a data value is named as the cause
// of a density's argument that overflows: its square overflows float64,
// so a model's sums of squares, variances and products with params of
// order 1e-150 or more are Inf.
const HugeData = 1e150

// hugeCell names the data cell of largest magnitude above HugeData that
// element k of node i is computed from, through indexing (r[1:] of r),
// elementwise ops and matrix products (a row of F in F * beta): "temp
// is 1e+300 at d.csv:102:9"; ok false where none is. An argument that
// overflows at a draw then names the datum rather than the draw.
func (p *Program) hugeCell(i int32, k int) (string, bool) {
	var best tracedCell
	budget := traceBudget
	var visit func(i int32, k int)
	visit = func(i int32, k int) {
		if budget--; budget < 0 {
			return
		}
		i, k = indexedElem(p.nodes, i, k)
		m := &p.nodes[i]
		if k < 0 || k >= m.n {
			return
		}
		if src, at, sk, ok := cellIn(p.nodes, i, k); ok {
			if v := p.val[src.off+sk]; math.Abs(v) > HugeData && !(math.Abs(v) <= math.Abs(best.v)) {
				best = tracedCell{src, at, sk, v}
			}
			return
		}
		switch {
		case m.op.isUnary():
			visit(m.args[0], k)
		case m.op.isBinary() && len(m.bc) >= 4:
			gc := max(m.gc, 1)
			for a, x := range m.args {
				visit(x, k/gc*m.bc[2*a]+k%gc*m.bc[2*a+1])
			}
		case m.op == OpMatMul:
			sa, sb := p.nodes[m.args[0]].shape, p.nodes[m.args[1]].shape
			tA, tB := m.i0&mmTransA != 0, m.i0&mmTransB != 0
			r, c := k/max(m.shape.Cols, 1), k%max(m.shape.Cols, 1)
			for t := range m.i1 {
				ea, eb := r*sa.Cols+t, t*sb.Cols+c
				if tA {
					ea = t*sa.Cols + r
				}
				if tB {
					eb = c*sb.Cols + t
				}
				visit(m.args[0], ea)
				visit(m.args[1], eb)
			}
		}
	}
	visit(i, k)
	if best.src == nil {
		return "", false
	}
	return fmt.Sprintf("%s is %g at %s", best.src.name, best.v, best.at), true
}

// HugeDataNote ends a density's error whose value or argument overflows
// because of a data value above HugeData (hugeNote): the data, not the
// start, q or a bound, is to mend.
const HugeDataNote = "a data value that large overflows the arithmetic (its square is Inf): mend or rescale the data"

// hugeNote is densityErrorAt's note for term k of density node n whose
// value x or an argument in par is not finite or above HugeData in
// magnitude, computed from a huge data value (hugeCell): "; mu is
// 3.4e+296 because temp is 1e+300 at d.csv:102:9: " + HugeDataNote. ""
// where no such value is.
func (p *Program) hugeNote(n *node, k int, x float64, par []float64) string {
	big := func(v float64) bool { return !(math.Abs(v) <= HugeData) }
	gc := max(n.gc, 1)
	i, j := k/gc, k%gc
	bc := n.bc
	if big(x) && len(bc) >= 3 {
		if c, ok := p.hugeCell(n.args[0], i*bc[1]+j*bc[2]); ok {
			return fmt.Sprintf("; the value is %s because %s: %s", short(x), c, HugeDataNote)
		}
	}
	for a, v := range par {
		if big(v) && len(bc) >= 3*a+6 && a+1 < len(n.args) {
			if c, ok := p.hugeCell(n.args[a+1], i*bc[3*a+4]+j*bc[3*a+5]); ok {
				return fmt.Sprintf("; %s is %s because %s: %s", paramName(n.dist, a), short(v), c, HugeDataNote)
			}
		}
	}
	return ""
}
