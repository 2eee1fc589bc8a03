package main

import (
	"fmt"
	"strings"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
)

// centredHints returns advice for a fit whose Pareto k̂ raises the alarm
// (sgvb.ParetoAlarm, from k̂ and its weights' relative ESS relESS: q
// misses part of the posterior) while the model has a centred hierarchy:
// an unbounded real param whose declared prior is Normal(loc, scale) with
// a scale that depends on params. Where the data say little about each
// element, the posterior is a funnel in the scale, which neither a
// mean-field nor a full-rank normal q follows (eight schools centred: tau
// 5.7 ± 1.2 against NUTS's 3.6 ± 3.2), while the non-centred form is
// nearly normal; one hint per such param, in declaration order, nil
// otherwise.
func centredHints(info *check.Info, paretoK, relESS float64) []string {
	if info == nil || !sgvb.ParetoAlarm(paretoK, relESS) {
		return nil
	}
	var hints []string
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
		typ := ast.FormatType(lat.Decl.Type)
		hints = append(hints, fmt.Sprintf("%s's prior %s has a scale that depends on params (a centred hierarchy): "+
			"where the data say little about each element of %s, the posterior is a funnel in %s that a normal q cannot follow, and q's %s and %s may be far off; "+
			"the non-centred form, param %s: %s ~ Normal(0, 1) with let %s = %s, is the usual cure, but where the data pin each element down the centred form fits better: compare the two fits' ELBOs (docs/inference.md, Centred hierarchies)",
			lat.Name, ast.FormatExpr(lat.Prior), lat.Name, ast.FormatExpr(scale), ast.FormatExpr(scale), lat.Name, z, typ, lat.Name, let))
	}
	return hints
}
