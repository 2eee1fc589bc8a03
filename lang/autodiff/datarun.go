package autodiff

import "github.com/gpplang/gpp/dist"

// dataRunElemCost is what evaluating one element of a data run (a Poisson
// log mass: a logarithm or Loader's deviance, a branch on the count's
// kind) costs, in the multiply-adds of parMinWork, for deciding whether to
// share the density.
const dataRunElemCost = 10

// dataRunTask is a density whose value is data evaluated by its family's
// DataRun or DataArgRun (node.dhoist, dataRunOf), shared by ranges of its
// elements on p's team (the 19 200 counts of examples/pmf.gpp, an
// N-mixture's Binomial grid). Each element's log density and
// partials are written to its own cells, as the serial loop writes them,
// so they do not depend on the team. A summed density (OpDensity) writes
// the log densities to scratch (dataRunLP), which evalDensity adds in
// element order, the serial loop's order; with one part the part's own
// running sum is that loop's, and is kept (sum, whole).
type dataRunTask struct {
	p     *Program
	n     *node
	run   dist.DataRun    // a family of one argument, or
	arg   dist.DataArgRun // of two whose first is data (Binomial's n)
	elems []float64       // the log densities of an OpLogPDF; nil for OpDensity
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
	na := n.nparams()
	dxs, dps := scr[2*na:2*na+m], scr[2*na+na*m:2*na+m+na*m] // the last argument's partials
	lps := t.elems
	if lps == nil && (parts > 1 || n.norm != 0) { // a normaliser is added to each after the run (evalDensity)
		lps = dataRunLP(n, scr)
	}
	bc, val := n.bc, p.val
	xo, xr, xc := bc[0], bc[1], bc[2]
	po, pr, pc := bc[3*na], bc[3*na+1], bc[3*na+2]
	do, dr, dc := bc[3], bc[4], bc[5] // the data argument of a DataArgRun
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
		x, par := val[xo+i*xr+c0*xc:], val[po+i*pr+c0*pc:]
		if t.arg != nil {
			sum = t.arg.EvalDataArgRun(sum, x, xc, val[do+i*dr+c0*dc:], dc, par, pc, ds[k*sl:], lp, dxs[k:k+c1-c0], dps[k:k+c1-c0])
		} else {
			sum = t.run.EvalDataRun(sum, x, xc, par, pc, ds[k*sl:], lp, dxs[k:k+c1-c0], dps[k:k+c1-c0])
		}
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

// dataRunScratch is the scratch that a density node on the data-run path
// (dataRunOf) needs beyond the kernel path's: its log densities per
// element when they are summed (OpDensity), for sharing.
func dataRunScratch(op Op, dh dist.DataHoisted, na, m int) int {
	if run, arg := dataRunOf(dh, na); (run != nil || arg != nil) && op == OpDensity {
		return m
	}
	return 0
}

// dataRunOf returns the run kernel of a data-hoisted density of na
// arguments: a DataRun of one argument, or a DataArgRun of two whose
// first is data; both nil otherwise (or with noDataRun set).
func dataRunOf(dh dist.DataHoisted, na int) (dist.DataRun, dist.DataArgRun) {
	if noDataRun {
		return nil, nil
	}
	switch r := dh.(type) {
	case dist.DataRun:
		if na == 1 {
			return r, nil
		}
	case dist.DataArgRun:
		if na == 2 && dh.DataArgs() == 1 {
			return nil, r
		}
	}
	return nil, nil
}

// noDataRun turns the data-run path off (dataRunOf returns nil), for the
// tests that compare it with the element-by-element loop.
var noDataRun bool
