package autodiff

import "github.com/gpplang/gpp/dist"

// dataRunElemCost is what evaluating one element of a data run (a Poisson
// log mass: a logarithm or Loader's deviance, a branch on the count's
// kind) costs, in the multiply-adds of parMinWork, for deciding whether to
// share the density.
const dataRunElemCost = 10

// dataRunTask is a density whose value is data evaluated by its family's
// DataRun (node.dhoist), shared by ranges of its elements on p's team (the
// 19 200 counts of examples/pmf.gpp). Each element's log density and
// partials are written to its own cells, as the serial loop writes them,
// so they do not depend on the team. A summed density (OpDensity) writes
// the log densities to scratch (dataRunLP), which evalDensity adds in
// element order, the serial loop's order; with one part the part's own
// running sum is that loop's, and is kept (sum, whole).
type dataRunTask struct {
	p     *Program
	n     *node
	run   dist.DataRun
	elems []float64 // the log densities of an OpLogPDF; nil for OpDensity
	sum   float64
	whole bool
}

// RunPart evaluates elements [part·m/parts, (part+1)·m/parts), a run per
// row of the broadcast that the range meets.
func (t *dataRunTask) RunPart(part, parts int) {
	p, n := t.p, t.n
	m, gc := n.i0, n.gc
	lo, hi := part*m/parts, (part+1)*m/parts
	scr := p.s(n)
	dxs, dps := scr[2:2+m], scr[2+m:2+2*m]
	lps := t.elems
	if lps == nil && (parts > 1 || n.norm != 0) { // a normaliser is added to each after the run (evalDensity)
		lps = dataRunLP(n, scr)
	}
	bc, val := n.bc, p.val
	xo, xr, xc := bc[0], bc[1], bc[2]
	po, pr, pc := bc[3], bc[4], bc[5]
	sl := n.dhoist.DataStateLen()
	ds := p.dstate[n.doff : n.doff+m*sl]
	sum := 0.0
	for k := lo; k < hi; {
		i, c0 := k/gc, k%gc
		c1 := min(gc, c0+hi-k)
		var lp []float64
		if lps != nil {
			lp = lps[k : k+c1-c0]
		}
		sum = t.run.EvalDataRun(sum, val[xo+i*xr+c0*xc:], xc, val[po+i*pr+c0*pc:], pc, ds[k*sl:], lp, dxs[k:k+c1-c0], dps[k:k+c1-c0])
		k += c1 - c0
	}
	if parts == 1 {
		t.sum, t.whole = sum, true
	}
}

// dataRunLP is the scratch of a summed data-run density's log densities,
// one per element: the last m cells of its scratch, which dataRunScratch
// reserves after the kernel path's.
func dataRunLP(n *node, scr []float64) []float64 {
	return scr[len(scr)-n.i0:]
}

// dataRunScratch is the scratch that a density node of one argument whose
// DataHoisted is a DataRun needs beyond the kernel path's: its log
// densities per element when they are summed (OpDensity), for sharing.
func dataRunScratch(op Op, dh dist.DataHoisted, na, m int) int {
	if _, ok := dh.(dist.DataRun); ok && na == 1 && op == OpDensity {
		return m
	}
	return 0
}
