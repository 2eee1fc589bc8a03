package main

import (
	"fmt"
	"math"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/lang/compile"
)

// boundPile is the share of a declared range within which 90% of a
// param's draws (q5 to q95) lying against one end reads as piled there.
const boundPile = 1e-3

// boundPileWarning returns a warning for the params declared with both
// bounds by the modeller (real<lower=a, upper=b>, a factor's Loc and
// Scale; not unit or <lower=0, upper=1>, a probability's own range, whose
// Scale is 0) whose draws lie, from their 5% to
// their 95% point, within boundPile of the range from one end, and no
// farther from it than their own spread (q95 − q5): the log density rises
// to that end, so the data would put the param beyond it.
// A radiocarbon user's age past the calibration curve's end (14C 9000,
// the curve's top 4330) fitted t = 4495 ± 0.126 against the prior's
// upper bound 4495 with no word but a step rollback. It names the first
// such element and counts the others; "" where none.
func boundPileWarning(r *sgvb.Result, ds *drawSet, st []stats) string {
	if r == nil {
		return ""
	}
	return boundPileText(factorBounds(r), ds, st)
}

// boundPileText is boundPileWarning of the latents bs.
func boundPileText(bs []bounds, ds *drawSet, st []stats) string {
	if ds == nil {
		return ""
	}
	first, n := "", 0
	eachBounded(bs, ds, st, func(v *variable, f *bounds, e int, lo, hi float64, s stats) {
		if f.Support != dist.Unit {
			return
		}
		tol := boundPile * (hi - lo)
		end, which := 0.0, ""
		switch width := s.q95 - s.q5; {
		// the draws near the end, and the end nearer to them than
		// their own spread: a scale of 0.00095 ± 0.00013 declared in
		// [0, 10] lies within 0.1 % of the range from 0 but 7 sds
		// from it, where its data put it
		case s.q5 >= hi-tol && hi-s.q95 <= width:
			end, which = hi, "upper"
		case s.q95 <= lo+tol && s.q5-lo <= width:
			end, which = lo, "lower"
		default:
			return
		}
		n++
		if first == "" {
			first = fmt.Sprintf("%s's draws lie against its %s bound %s (5%%–95%%: %s to %s, mean %s, sd %s, within %s%% of its range [%s, %s])",
				v.elemName(e), which, num3(end), num3(s.q5), num3(s.q95), num3(s.mean), num3(s.sd), numSig(100*boundPile, 1), num3(lo), num3(hi))
		}
	})
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

// boundNear is how close to a declared bound, as a share of the width of
// the draws' middle 90% (q95 − q5), their 5% point (95% at an upper
// bound) reads as piled against it: the draws between the bound and that
// point (5% of them) are then at least 1.5 times as dense as across their
// middle 90% (0.05/(q5 − lo) ≥ 1.5 · 0.9/(q95 − q5)). A normal truncated
// at its mean (its density highest at the bound) has 0.033, a posterior
// flat across the range (the prior's) 0.056, a normal whose mean is 2 sds
// inside 0.11.
const boundNear = 0.05 / (1.5 * 0.9)

// boundNearWarning returns a warning for the params declared with a
// bound by the modeller (real<lower=0.05>, real<lower=a, upper=b>; not
// positive, unit or a bound at 0, a scale's or a probability's own end,
// where draws near 0 are common and fine) whose draws pile against the
// bound (boundNear) without lying on it (boundPileWarning's case): the
// data push the param past the bound. A calibration user's theta with
// prior Uniform(0.05, 1) and data from theta 0.03 fitted 0.0554 ± 0.0054,
// its 5% point 0.0502, with no word. It names the first such element and
// counts the others; "" where none.
func boundNearWarning(r *sgvb.Result, ds *drawSet, st []stats) string {
	if r == nil {
		return ""
	}
	return boundNearText(factorBounds(r), ds, st)
}

// factorBounds are the bounds of r's factors.
func factorBounds(r *sgvb.Result) []bounds {
	bs := make([]bounds, len(r.Factors))
	for i, f := range r.Factors {
		bs[i] = bounds{f.Name, f.Support, f.Loc, f.Scale, f.LocV, f.ScaleV}
	}
	return bs
}

// sampleBoundWarnings are boundPileWarning and boundNearWarning of gpp
// sample's draws of m, those that apply.
func sampleBoundWarnings(m *compile.Model, ds *drawSet, st []stats) []string {
	bs := make([]bounds, len(m.Latents))
	for i, l := range m.Latents {
		bs[i] = bounds{l.Name, l.Support, l.Loc, l.Scale, l.LocV, l.ScaleV}
	}
	var out []string
	for _, w := range []string{boundPileText(bs, ds, st), boundNearText(bs, ds, st)} {
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

// bounds are a latent's support and declared bounds (sgvb.Latent's Loc,
// Scale, LocV, ScaleV), in the order of ds's latent indices.
type bounds struct {
	Name         string
	Support      dist.Support
	Loc, Scale   float64
	LocV, ScaleV []float64
}

// bounds returns the bounds in bs of v's param (nil: v is an output or
// not of bs).
func (v *variable) bounds(bs []bounds) *bounds {
	if v.output || v.index < 0 || v.index >= len(bs) || bs[v.index].Name != v.name {
		return nil
	}
	return &bs[v.index]
}

// rangeOf returns the declared range [lo, hi] of element e of a unit or
// positive param: Loc + Scale·b for b in (0, 1) or (0, ∞); false where
// none is declared (Scale 0) or the support is another.
func (f *bounds) rangeOf(e int) (lo, hi float64, ok bool) {
	loc, w := f.Loc, f.Scale
	if f.ScaleV != nil {
		loc, w = f.LocV[e], f.ScaleV[e]
	}
	if w == 0 || (f.Support != dist.Unit && f.Support != dist.Positive) {
		return 0, 0, false
	}
	lo, hi = loc, loc+w
	switch {
	case f.Support == dist.Positive && w > 0:
		hi = math.Inf(1)
	case f.Support == dist.Positive:
		lo, hi = math.Inf(-1), loc
	case w < 0:
		lo, hi = hi, lo
	}
	return lo, hi, true
}

// eachBounded calls visit with each element e of ds's params in bs that
// has a declared range [lo, hi] (rangeOf) and stats s in st.
func eachBounded(bs []bounds, ds *drawSet, st []stats, visit func(v *variable, f *bounds, e int, lo, hi float64, s stats)) {
	for vi := range ds.vars {
		v := &ds.vars[vi]
		f := v.bounds(bs)
		if f == nil {
			continue
		}
		for j, e := range v.elems {
			if lo, hi, ok := f.rangeOf(e); ok && v.first+j < len(st) {
				visit(v, f, e, lo, hi, st[v.first+j])
			}
		}
	}
}

// boundNearText is boundNearWarning of the latents bs.
func boundNearText(bs []bounds, ds *drawSet, st []stats) string {
	if ds == nil {
		return ""
	}
	first, n := "", 0
	eachBounded(bs, ds, st, func(v *variable, _ *bounds, e int, lo, hi float64, s stats) {
		width := s.q95 - s.q5
		if !(width > 0) {
			return
		}
		if tol := boundPile * (hi - lo); !math.IsInf(tol, 0) && (s.q5 >= hi-tol || s.q95 <= lo+tol) {
			return // on the bound: boundPileWarning's
		}
		end, which, q, qn, side := 0.0, "", 0.0, "", ""
		switch {
		case lo != 0 && !math.IsInf(lo, 0) && s.q5-lo <= boundNear*width:
			end, which, q, qn, side = lo, "lower", s.q5, "5%", "below"
		case hi != 0 && !math.IsInf(hi, 0) && hi-s.q95 <= boundNear*width:
			end, which, q, qn, side = hi, "upper", s.q95, "95%", "above"
		default:
			return
		}
		n++
		if first == "" {
			first = fmt.Sprintf("%s's posterior piles against its %s bound %s (%s point %s, mean %s, sd %s): the data push past the bound the model declares; widen it if values %s are possible, else the prior and the data disagree",
				v.elemName(e), which, num3(end), qn, num3(q), num3(s.mean), num3(s.sd), side)
		}
	})
	switch {
	case n == 0:
		return ""
	case n == 2:
		return first + " (and 1 more element does the same)"
	case n > 2:
		return fmt.Sprintf("%s (and %d more elements do the same)", first, n-1)
	}
	return first
}
