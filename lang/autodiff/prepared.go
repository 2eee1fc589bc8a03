package autodiff

import (
	"math"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
)

// Prepared and PreparedLog are dist's split kernels (dist.Univariate.Prepared):
// a Density whose arguments repeat along an axis of the broadcast (W ~
// Gamma(a, c) with a and c per row; W ~ Gamma(g * r', g) with the shape per
// column; any scalar arguments) pays for the parameter work once per
// distinct parameter set instead of once per element. Eval must return
// exactly what the Kernel returns: the tape explains a non-finite density by
// calling the Kernel.
type (
	Prepared    = dist.Prepared
	PreparedLog = dist.PreparedLog
)

// Layouts of the distinct parameter sets of a prepared density.
const (
	prepNone = iota // per element: the plain Kernel path
	prepRows        // every argument is constant along a row: one set per row
	prepCols        // every argument is constant down a column: one set per column
)

// DensityPrepared is Density with a prepared form of d's kernel. When every
// argument is constant along the rows of the broadcast (or down its
// columns), prep.Prepare runs once per row (or column) and prep.Eval once
// per element; otherwise the node calls d.Kernel per element, as Density
// does. The value (bit for bit, given an exact prep), the gradient (up to
// rounding: the partials are summed per parameter set) and the error
// messages are those of Density.
func (b *Builder) DensityPrepared(d dist.Univariate, prep Prepared, value ID, args []ID, pos ast.Pos) ID {
	return b.density(d, prep, value, args, pos)
}

// preparedLayout picks the parameter-set layout of a density node and sizes
// its scratch: par, dpar, the value partials per element, then per set the
// sums of the parameter partials, the parameters and the prepared state.
func (n *node) preparedLayout(prep Prepared) {
	na, m := len(n.args)-1, n.i0
	rowConst, colConst := true, true
	for a := 1; a <= na; a++ {
		rs, cs := n.bc[3*a+1], n.bc[3*a+2]
		rowConst = rowConst && cs == 0
		colConst = colConst && rs == 0
	}
	mode, ns := prepNone, m
	switch {
	case rowConst:
		mode, ns = prepRows, n.gr
	case colConst:
		mode, ns = prepCols, n.gc
	}
	if mode == prepNone || ns >= m {
		return // no parameter set is shared: the kernel path costs the same
	}
	n.prep, n.pmode, n.nsets = prep, mode, ns
	n.nscr = 2*na + m + ns*(2*na+prep.StateLen())
	if mode == prepRows {
		n.nscr += ns * (1 + na) // per row: its log density, its partials' scratch
	}
}

// prepCost and prepElemCost are what preparing one parameter set (a
// log-gamma, a digamma, logarithms) and evaluating one element cost, in
// the multiply-adds of parMinWork, for deciding whether to share a density.
const (
	prepCost     = 100
	prepElemCost = 10
)

// evalPrepared prepares each distinct parameter set, then evaluates every
// element, keeping the value partials per element and the parameter
// partials summed per set. A density with a set per row is shared by rows
// on p's team (the W ~ Gamma(a, c) prior of the EPM: 234 sets, 2340
// elements); each row's log density is summed from zero and the rows are
// added in order, as the serial loop does, so the value does not depend on
// the team.
func (p *Program) evalPrepared(n *node) {
	na, ns := len(n.args)-1, n.nsets
	sc := p.prepScratch(n)
	if n.pmode == prepRows {
		p.pt = prepTask{p: p, n: n}
		p.share(&p.pt, ns*prepCost+n.i0*prepElemCost)
		p.pt = prepTask{}
		sum := 0.0
		for _, v := range sc.rowLP {
			sum += v
		}
		p.v(n)[0] = sum
		return
	}
	sl := n.prep.StateLen()
	dpar, dxs, dsum, pset, state := sc.dpar, sc.dxs, sc.dsum, sc.pset, sc.state
	for s := range ns { // a set per column
		p.prepareSet(n, 0, s, pset[s*na:s*na+na], state[s*sl:s*sl+sl])
	}
	clear(dsum)
	xo, xr, xc := n.bc[0], n.bc[1], n.bc[2]
	eo := p.expOffset(n)
	run := runOf(n)
	val, sum := p.val, 0.0
	for i := 0; i < n.gr; i++ {
		xrow, erow, dxr := val[xo+i*xr:], val[eo+i*xr:], dxs[i*n.gc:(i+1)*n.gc]
		if run != nil {
			sum = preparedRun(run, sum, xrow, erow, xc, pset, state, 1, dxr, dsum, dpar)
			continue
		}
		for j := range dxr {
			var lp, dx float64
			ps, st := pset[j*na:j*na+na], state[j*sl:j*sl+sl]
			if n.expOf > 0 {
				lp, dx = n.prepLog.EvalLog(xrow[j*xc], erow[j*xc], ps, st, dpar)
			} else {
				lp, dx = n.prep.Eval(xrow[j*xc], ps, st, dpar)
			}
			sum += lp
			dxr[j] = dx
			ds := dsum[j*na : j*na+na]
			for a, d := range dpar {
				ds[a] += d
			}
		}
	}
	p.v(n)[0] = sum
}

// prepareSet gathers the parameters of the set at row i, column j of the
// broadcast into ps and prepares its state st.
func (p *Program) prepareSet(n *node, i, j int, ps, st []float64) {
	for a := range ps {
		q := n.bc[3+3*a : 6+3*a]
		ps[a] = p.val[q[0]+i*q[1]+j*q[2]]
	}
	n.prep.Prepare(ps, st)
}

// expOffset is where exp(value) of a density node starts on the tape, laid
// out as the value (the value's own offset when the node has none).
func (p *Program) expOffset(n *node) int {
	if n.expOf > 0 {
		return p.nodes[n.expOf-1].off
	}
	return n.bc[0]
}

// prepTask is a density with a parameter set per row, shared by rows.
type prepTask struct {
	p *Program
	n *node
}

// RunPart prepares and evaluates part's share of the rows: each row's log
// density goes to a cell of its own and it has its own scratch for the
// partials, so no two parts write the same memory.
func (t *prepTask) RunPart(part, parts int) {
	p, n := t.p, t.n
	na, ns := len(n.args)-1, n.nsets
	sl := n.prep.StateLen()
	sc := p.prepScratch(n)
	xo, xr, xc := n.bc[0], n.bc[1], n.bc[2]
	eo := p.expOffset(n)
	run := runOf(n)
	for i := part * ns / parts; i < (part+1)*ns/parts; i++ {
		ps, st, ds := sc.pset[i*na:i*na+na], sc.state[i*sl:i*sl+sl], sc.dsum[i*na:i*na+na]
		dpar := sc.rowDpar[i*na : i*na+na : i*na+na]
		p.prepareSet(n, i, 0, ps, st)
		clear(ds)
		xrow, erow, dxr := p.val[xo+i*xr:], p.val[eo+i*xr:], sc.dxs[i*n.gc:(i+1)*n.gc]
		if run != nil {
			sc.rowLP[i] = preparedRun(run, 0, xrow, erow, xc, ps, st, 0, dxr, ds, dpar)
		} else {
			sc.rowLP[i] = p.preparedRow(n, xrow, erow, xc, dxr, ps, st, dpar, ds)
		}
	}
}

// prepSlices are the parts of a prepared density's scratch (see
// preparedLayout): the partials of one element (dpar), the value partials
// per element, per set the sums of the parameter partials, the parameters
// and the prepared state; with a set per row also each row's log density
// and partials' scratch.
type prepSlices struct {
	dpar, dxs, dsum, pset, state, rowLP, rowDpar []float64
}

func (p *Program) prepScratch(n *node) prepSlices {
	na, m, ns, sl := len(n.args)-1, n.i0, n.nsets, n.prep.StateLen()
	scr := p.s(n)
	o := 2*na + m
	sc := prepSlices{
		dpar:  scr[na : 2*na : 2*na],
		dxs:   scr[2*na : o],
		dsum:  scr[o : o+ns*na],
		pset:  scr[o+ns*na : o+2*ns*na],
		state: scr[o+2*ns*na : o+2*ns*na+ns*sl],
	}
	if n.pmode == prepRows {
		o += 2*ns*na + ns*sl
		sc.rowLP, sc.rowDpar = scr[o:o+ns], scr[o+ns:o+ns+ns*na]
	}
	return sc
}

// runOf returns the run kernel of a prepared log-scale density, or nil: a
// run reads exp(value) from the tape, which has none without expOf.
func runOf(n *node) dist.PreparedLogRun {
	run, _ := n.prepLog.(dist.PreparedLogRun)
	if n.expOf == 0 {
		return nil
	}
	return run
}

// preparedRow evaluates one row of a density whose parameter set is that of
// the row: values x[j*xc] (exp(value) in e), value partials into dx, the
// sums of the parameter partials into ds. It returns the sum of the log
// densities.
func (p *Program) preparedRow(n *node, x, e []float64, xc int, dx, ps, st, dpar, ds []float64) float64 {
	sum := 0.0
	var d0, d1 float64 // the partials of a two-parameter family, summed in registers
	for j := range dx {
		var lp float64
		if n.expOf > 0 {
			lp, dx[j] = n.prepLog.EvalLog(x[j*xc], e[j*xc], ps, st, dpar)
		} else {
			lp, dx[j] = n.prep.Eval(x[j*xc], ps, st, dpar)
		}
		sum += lp
		if len(dpar) == 2 {
			d0 += dpar[0]
			d1 += dpar[1]
			continue
		}
		for a, d := range dpar {
			ds[a] += d
		}
	}
	if len(dpar) == 2 {
		ds[0] += d0
		ds[1] += d1
	}
	return sum
}

// preparedRun evaluates a row of a log-scale density through run, and an
// element that run leaves (invalid parameters, a NaN value) through
// EvalLog, adding the log densities to sum in element order: the numbers of
// the element-by-element loop. step is 0 for one parameter set (ps, st and
// ds are that set's) or 1 for a set per element (column).
func preparedRun(run dist.PreparedLogRun, sum float64, x, e []float64, xc int, ps, st []float64, step int, dx, ds, dpar []float64) float64 {
	na, sl := len(dpar), run.StateLen()
	for j := 0; j < len(dx); j++ {
		q := j * step
		var k int
		sum, k = run.EvalLogRun(sum, x[j*xc:], e[j*xc:], xc, ps[q*na:], st[q*sl:], step, dx[j:], ds[q*na:])
		if j += k; j == len(dx) {
			break
		}
		q = j * step
		var lp float64
		lp, dx[j] = run.EvalLog(x[j*xc], e[j*xc], ps[q*na:q*na+na], st[q*sl:q*sl+sl], dpar)
		sum += lp
		for a, d := range dpar {
			ds[q*na+a] += d
		}
	}
	return sum
}

// gradPrepared spreads g times the value partials onto the value and g
// times the per-set sums of the parameter partials onto the arguments.
func (p *Program) gradPrepared(n *node, g float64) {
	na, ns := len(n.args)-1, n.nsets
	sc := p.prepScratch(n)
	dxs, dsum := sc.dxs, sc.dsum
	if x := p.arg(n, 0); x.aoff >= 0 {
		scatterDensity(p.a(x), dxs, n.gr, n.gc, n.bc[1], n.bc[2], g)
	}
	for a := 1; a <= na; a++ {
		o := p.arg(n, a)
		if o.aoff < 0 {
			continue
		}
		ao := p.a(o)
		st := n.bc[3*a+1] // sets are rows
		if n.pmode == prepCols {
			st = n.bc[3*a+2]
		}
		for s := 0; s < ns; s++ {
			ao[s*st] += g * dsum[s*na+a-1]
		}
	}
}

// scatterDensity adds g times the per-element partials ds (gr rows of gc)
// to the adjoint a of an operand with row stride rs and column stride cs.
// A row of an operand broadcast along it (cs 0) is summed first, so the
// loop does not accumulate into one memory cell.
func scatterDensity(a, ds []float64, gr, gc, rs, cs int, g float64) {
	for i := 0; i < gr; i++ {
		ar, dr := a[i*rs:], ds[i*gc:(i+1)*gc]
		if cs == 0 {
			s := 0.0
			for _, d := range dr {
				s += d
			}
			ar[0] += g * s
			continue
		}
		for j, d := range dr {
			ar[j*cs] += g * d
		}
	}
}

// prepareData lays out and computes, once, the data state of every live
// density whose value is fixed data (node.dhoist): an element's state per
// element of the broadcast, in the order evalDensity visits them. The
// value and the arguments the state reads were evaluated by Finish and
// never change, so no evaluation repeats the work.
func (p *Program) prepareData() {
	total := 0
	for i := range p.nodes {
		n := &p.nodes[i]
		if n.mdata {
			if !n.live {
				n.mdata = false
				continue
			}
			y := p.arg(n, 0)
			n.doff = total
			total += multinomialStateLen(y.n, catCols(y.shape))
		}
		if n.dhoist != nil {
			if !n.live {
				n.dhoist = nil
				continue
			}
			n.doff = total
			total += n.i0 * n.dhoist.DataStateLen()
		}
	}
	if total == 0 {
		return
	}
	p.dstate = make([]float64, total)
	for i := range p.nodes {
		n := &p.nodes[i]
		if n.mdata {
			y := p.arg(n, 0)
			n.mdata = p.prepareMultinomial(n, p.dstate[n.doff:n.doff+multinomialStateLen(y.n, catCols(y.shape))])
			continue
		}
		if n.dhoist == nil {
			continue
		}
		na, sl, mask := n.nparams(), n.dhoist.DataStateLen(), n.dhoist.DataArgs()
		par := make([]float64, na)
		for a := range par {
			par[a] = math.NaN() // an argument the state does not read
		}
		xo, xr, xc := n.bc[0], n.bc[1], n.bc[2]
		ds := p.dstate[n.doff : n.doff+n.i0*sl]
		k := 0
		for r := 0; r < n.gr; r++ {
			for c := 0; c < n.gc; c++ {
				for a := range par {
					if mask&(1<<a) != 0 {
						q := n.bc[3+3*a : 6+3*a]
						par[a] = p.val[q[0]+r*q[1]+c*q[2]]
					}
				}
				n.dhoist.PrepareData(p.val[xo+r*xr+c*xc], par, ds[k*sl:k*sl+sl])
				k++
			}
		}
	}
}
