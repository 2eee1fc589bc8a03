package main

import (
	"fmt"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
)

// boundPile is the share of a declared range within which 90% of a
// param's draws (q5 to q95) lying against one end reads as piled there.
const boundPile = 1e-3

// boundPileWarning returns a warning for the params declared with both
// bounds by the modeller (real<lower=a, upper=b>, a factor's Loc and
// Scale; not unit or <lower=0, upper=1>, a probability's own range, whose
// Scale is 0) whose draws lie, from their 5% to
// their 95% point, within boundPile of the range from one end: the log
// density rises to that end, so the data would put the param beyond it.
// A radiocarbon user's age past the calibration curve's end (14C 9000,
// the curve's top 4330) fitted t = 4495 ± 0.126 against the prior's
// upper bound 4495 with no word but a step rollback. It names the first
// such element and counts the others; "" where none.
func boundPileWarning(r *sgvb.Result, ds *drawSet, st []stats) string {
	if r == nil || ds == nil {
		return ""
	}
	first, n := "", 0
	for vi := range ds.vars {
		v := &ds.vars[vi]
		if v.output || v.index < 0 || v.index >= len(r.Factors) {
			continue
		}
		f := &r.Factors[v.index]
		if f.Support != dist.Unit || f.Name != v.name {
			continue
		}
		for j, e := range v.elems {
			lo, w := f.Loc, f.Scale
			if f.ScaleV != nil {
				lo, w = f.LocV[e], f.ScaleV[e]
			}
			if w == 0 || v.first+j >= len(st) {
				continue
			}
			hi := lo + w
			if w < 0 {
				lo, hi = hi, lo
			}
			s, tol := st[v.first+j], boundPile*(hi-lo)
			end, which := 0.0, ""
			switch {
			case s.q5 >= hi-tol:
				end, which = hi, "upper"
			case s.q95 <= lo+tol:
				end, which = lo, "lower"
			default:
				continue
			}
			n++
			if first == "" {
				first = fmt.Sprintf("%s's draws lie against its %s bound %s (5%%–95%%: %s to %s, mean %s, sd %s, within %s%% of its range [%s, %s])",
					v.elemName(e), which, num3(end), num3(s.q5), num3(s.q95), num3(s.mean), num3(s.sd), numSig(100*boundPile, 1), num3(lo), num3(hi))
			}
		}
	}
	if n == 0 {
		return ""
	}
	more := ""
	switch {
	case n == 2:
		more = ", and 1 more element does the same"
	case n > 2:
		more = fmt.Sprintf(", and %d more elements do the same", n-1)
	}
	return fmt.Sprintf("%s%s: the log density rises to the bound, so the data would put it beyond: where the bound is a modelling choice (a prior's range), not the quantity's own, widen it or check the data for a value the model cannot reach inside it (a 14C age past the end of its calibration curve)", first, more)
}
