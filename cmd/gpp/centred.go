package main

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
)

// centredParam is a param of a centred hierarchy: an unbounded real param
// whose declared prior is Normal(loc, scale) with a scale that depends on
// params, with its non-centred form, param z: typ ~ Normal(0, 1) and
// let NAME = let.
type centredParam struct {
	lat   *check.Latent
	scale ast.Expr // the prior's scale
	z     string   // NAME_z
	typ   string   // the param's declared type, which z takes
	let   string   // NAME in terms of z: loc + scale * z (.* for a vector scale)
}

// nonCentred spells out p's non-centred form.
func (p centredParam) nonCentred() string {
	return fmt.Sprintf("param %s: %s ~ Normal(0, 1) with let %s = %s", p.z, p.typ, p.lat.Name, p.let)
}

// centredParams returns the params of the model's centred hierarchies in
// declaration order (none for a nil info). Where the data say little
// about each element, the posterior of such a param and its scale is a
// funnel, which SGVB's normal q cannot follow and NUTS cannot enter
// without diverging, while the non-centred form is nearly normal.
func centredParams(info *check.Info) []centredParam {
	if info == nil {
		return nil
	}
	var out []centredParam
	for _, lat := range info.Latents {
		if lat.Kind != ast.Real || lat.Lower != nil || lat.Upper != nil || lat.LowerData != nil || lat.UpperData != nil ||
			lat.Prior == nil || lat.PriorDist == nil || lat.PriorDist.Name != "Normal" || len(lat.Prior.Args) != 2 {
			continue
		}
		loc, scale := lat.Prior.Args[0], lat.Prior.Args[1]
		if info.Types[scale].DataOnly {
			continue
		}
		z := lat.Name + "_z"
		sc := ast.FormatExpr(scale)
		if strings.ContainsRune(sc, ' ') {
			sc = "(" + sc + ")"
		}
		mul := " * "
		if info.Types[scale].Shape.Rank() > 0 {
			mul = " .* "
		}
		let := sc + mul + z
		if l := ast.FormatExpr(loc); l != "0" {
			let = l + " + " + let
		}
		out = append(out, centredParam{lat: lat, scale: scale, z: z, typ: ast.FormatType(lat.Decl.Type), let: let})
	}
	return out
}

// centredHints returns advice for a fit whose Pareto k̂ raises the alarm
// (sgvb.ParetoAlarm, from k̂ and its weights' relative ESS relESS: q
// misses part of the posterior) while the model has a centred hierarchy
// (centredParams): neither a mean-field nor a full-rank normal q follows
// its funnel (eight schools centred: tau 5.7 ± 1.2 against NUTS's 3.6 ±
// 3.2); one hint per such param, in declaration order, nil otherwise.
func centredHints(info *check.Info, paretoK, relESS float64) []string {
	if !sgvb.ParetoAlarm(paretoK, relESS) {
		return nil
	}
	var hints []string
	for _, p := range centredParams(info) {
		name, scale := p.lat.Name, ast.FormatExpr(p.scale)
		hints = append(hints, fmt.Sprintf("%s's prior %s has a scale that depends on params (a centred hierarchy): "+
			"where the data say little about each element of %s, the posterior is a funnel in %s that a normal q cannot follow, and q's %s and %s may be far off; "+
			"the non-centred form, %s, is the usual cure, but where the data pin each element down the centred form fits better: compare the two fits' ELBOs (docs/inference.md, Centred hierarchies)",
			name, ast.FormatExpr(p.lat.Prior), name, scale, scale, name, p.nonCentred()))
	}
	return hints
}

// Where a centred hierarchy's scale sits at the divergent iterations
// (divergenceHints): its values there are compared only from
// divEvidenceMin divergent iterations on, and the divergences are said to
// be in the funnel's neck when the median there is at most divNeckRank
// among all draws (of 5 divergent iterations picked at random, the median
// is so low about 1 time in 10).
const (
	divEvidenceMin = 5
	divNeckRank    = 0.25
)

// divergenceHints returns advice for a sample with divergent transitions
// after warm-up while the model has a centred hierarchy: one hint per
// such param (centredParams), in declaration order, with the non-centred
// form and, where the scale is a param or an element of one with constant
// indices, where the divergent iterations put it among all draws
// (divergenceEvidence), as bayesplot's mcmc_pairs shows with divergences
// marked; nil without divergences or such params.
func divergenceHints(info *check.Info, sd *sampleDraws) []string {
	ndiv := 0
	for _, d := range sd.divergent {
		if d {
			ndiv++
		}
	}
	if ndiv == 0 {
		return nil
	}
	var hints []string
	for _, p := range centredParams(info) {
		name, scale := p.lat.Name, ast.FormatExpr(p.scale)
		evidence := ""
		if col := scaleColumn(info, sd.ds, p.scale); col != nil {
			if e, ok := divergenceEvidence(col, sd.divergent); ok {
				evidence = " " + e.describe(scale)
			}
		}
		hints = append(hints, fmt.Sprintf("%s's prior %s has a scale that depends on params (a centred hierarchy): "+
			"where the data say little about each element of %s, the posterior is a funnel in %s, whose narrow neck at small %s the sampler's step size cannot enter without diverging.%s "+
			"The non-centred form, %s, removes the funnel (Stan User's Guide, Reparameterization); where the data pin each element down, the centred form samples better (docs/inference.md, Centred hierarchies)",
			name, ast.FormatExpr(p.lat.Prior), name, scale, scale, evidence, p.nonCentred()))
	}
	return hints
}

// scaleColumn returns the draws of a prior's scale where it is a param
// (scale) or an element of one with constant indices (scale[1]); nil for
// any other expression or a param the draws lack.
func scaleColumn(info *check.Info, ds *drawSet, scale ast.Expr) []float64 {
	id, ok := scale.(*ast.Ident)
	var idx []int
	if ix, isIndex := scale.(*ast.IndexExpr); isIndex {
		id, ok = ix.X.(*ast.Ident)
		for _, e := range ix.Indices {
			n, isNum := e.(*ast.NumberLit)
			if !isNum || !n.IsInt || n.Value < 0 {
				return nil
			}
			idx = append(idx, int(n.Value))
		}
	}
	if !ok {
		return nil
	}
	if sym := info.Uses[id]; sym == nil || sym.Kind != check.Param {
		return nil
	}
	for _, v := range ds.vars {
		if v.output || v.name != id.Name || len(idx) != len(v.shape) {
			continue
		}
		k := 0
		for i, n := range v.shape {
			if idx[i] >= n {
				return nil
			}
			k = k*n + idx[i]
		}
		if j := slices.Index(v.elems, k); j >= 0 {
			return ds.cols[v.first+j]
		}
	}
	return nil
}

// divEvidence is where the divergent iterations put a scale among all
// draws: the median of its n finite values at the divergent iterations,
// the median of all its finite values, and the share of those below the
// divergent median (ties counting half).
type divEvidence struct {
	n              int
	divMed, allMed float64
	rank           float64
}

// divergenceEvidence compares x at the divergent iterations with all of
// x's draws; ok is false when fewer than divEvidenceMin divergent draws
// are finite.
func divergenceEvidence(x []float64, divergent []bool) (divEvidence, bool) {
	var all, div []float64
	for d, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		all = append(all, v)
		if divergent[d] {
			div = append(div, v)
		}
	}
	if len(div) < divEvidenceMin {
		return divEvidence{}, false
	}
	e := divEvidence{n: len(div), divMed: median(div), allMed: median(all)}
	for _, v := range all {
		switch {
		case v < e.divMed:
			e.rank++
		case v == e.divMed:
			e.rank += 0.5
		}
	}
	e.rank /= float64(len(all))
	return e, true
}

// describe says where e puts the scale, named as written.
func (e divEvidence) describe(scale string) string {
	pc := int(math.Round(100 * e.rank))
	at := "its " + ordinal(pc) + " percentile"
	switch {
	case pc < 1:
		at = "below its 1st percentile"
	case pc > 99:
		at = "above its 99th percentile"
	}
	where := "the divergences are in the funnel's neck"
	if e.rank > divNeckRank {
		where = fmt.Sprintf("the divergences are not at small %s, and the funnel may not be what makes them", scale)
	}
	return fmt.Sprintf("The %d divergent iterations have %s's median %.3g against %.3g in all draws (%s): %s.", e.n, scale, e.divMed, e.allMed, at, where)
}

// median returns the median of xs (not empty), which it sorts.
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// ordinal writes n as an English ordinal: 1st, 2nd, 3rd, 4th, 11th, 21st.
func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return fmt.Sprintf("%d%s", n, suffix)
}
