package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
)

// nearZeroShape is the gamma shape below which a factor's q puts its mass
// at ~0: its median is about 2^(−1/shape)/shape of its mean (10⁻²⁸ at 0.01), and
// log x has sd 1/shape, which each draw's log q − log p carries, so the
// ELBO estimate is heavy-tailed. The bundled examples' smallest shapes are
// 0.041 and 0.046 (EPM's W, seeds 2 and 1) and 0.10 and 0.18 (GPFA's W,
// K = 6, seeds 2 and 1); a Poisson
// factorisation whose shape had collapsed to the floor early in its fit
// ended at 0.0012, its element's mean 300 times the truth and its final
// ELBO 300 nats below its evaluations.
const nearZeroShape = 0.01

// nearZeroShapeWarnings names, per gamma factor, the elements whose shape
// ended below nearZeroShape, with q's shape and the prior's (the first
// argument of a declared Gamma prior, else the prior as gpp check prints
// it), says what such a q means, and what to try (shapeZeroRemedy, for
// the estimator est the fit used).
func nearZeroShapeWarnings(r *sgvb.Result, vars []variable, info *check.Info, est sgvb.Estimator) []string {
	var out []string
	for _, f := range r.Factors {
		if f.Family != sgvb.FamilyGamma || len(f.Params) == 0 {
			continue
		}
		var low []int
		for i, a := range f.Params[0] {
			if a < nearZeroShape {
				low = append(low, i)
			}
		}
		if len(low) == 0 {
			continue
		}
		var v *variable
		for i := range vars {
			if vars[i].name == f.Name && !vars[i].output {
				v = &vars[i]
				break
			}
		}
		least := low[0]
		var names []string
		for _, i := range low {
			if f.Params[0][i] < f.Params[0][least] {
				least = i
			}
			if len(names) < 5 {
				name := fmt.Sprintf("%s[%d]", f.Name, i)
				if v != nil {
					name = v.elemName(i)
				}
				names = append(names, fmt.Sprintf("%s (shape %.2g)", name, f.Params[0][i]))
			}
		}
		list := strings.Join(names, ", ")
		if len(low) > len(names) {
			list += fmt.Sprintf(" and %d more", len(low)-len(names))
		}
		a := f.Params[0][least]
		// the median of Gamma(a, b) over its mean a/b, for small a:
		// (Γ(a+1)/2)^(1/a) / a
		lg, _ := math.Lgamma(a + 1)
		ratio := ((lg-math.Ln2)/a - math.Log(a)) / math.Ln10
		out = append(out, fmt.Sprintf("%s: %d of %d shapes of its gamma factor ended near 0 (below %g): %s, against %s. q then puts nearly all its mass at ~0 (at shape %.2g its median is 1e%.0f of its mean) and the rest in a long tail: the element's draws are mostly ~0 and now and then far above its posterior, its mean and sd are the tail's, and the ELBO estimate is heavy-tailed (log x has sd 1/shape), so that more draws find it lower. A shape that fell to ~0 early in the fit climbs back slowly: %s",
			f.Name, len(low), len(f.Params[0]), nearZeroShape, list, priorShapeText(info, f.Name), a, ratio, shapeZeroRemedy(est)))
	}
	return out
}

// shapeZeroRemedy is what nearZeroShapeWarnings suggests. Under a control
// variate (stl-cv, the default, and entropy-cv) plain STL is one more
// remedy: until 2026-12-01 the control variate's coefficient, a running
// mean of the draws' ∂(log p − log q)/∂log x, was pulled far below 0 by
// the rare draws from a small shape's tail, and its term c·ψ₁(a) then
// pushed the shape down at every step (a topic-model trial's Poisson
// factorisations of 500 × 1000 and 2000 × 5000 counts collapsed 2 and 6
// shapes, seed 1, where --estimator stl kept them). Below shape 1 the
// coefficient is now kept within [0, 2cw] of its d²-weighted mean
// (sgvb's cvCoef), which keeps those shapes; a collapse that remains may
// be the control variate's still, which STL has none of.
func shapeZeroRemedy(est sgvb.Estimator) string {
	if est == sgvb.EstimatorAuto {
		est = sgvb.STLCV
	}
	if est == sgvb.STLCV || est == sgvb.EntropyCV {
		return "another --seed, a smaller --step-size or --estimator stl (no control variate, docs/inference.md, The gradient) may avoid it"
	}
	return "another --seed or a smaller --step-size may avoid it"
}

// priorShapeText describes the prior shape of a latent for
// nearZeroShapeWarnings: "the prior's shape 0.3 (Gamma(0.3, eta))" for a
// declared Gamma prior, else its prior as gpp check prints it.
func priorShapeText(info *check.Info, name string) string {
	lat := info.Latent(name)
	if lat == nil {
		return "the prior's"
	}
	if lat.Prior != nil && lat.PriorDist != nil && lat.PriorDist.Name == "Gamma" && len(lat.Prior.Args) == 2 {
		return fmt.Sprintf("the prior's shape %s (%s)", ast.FormatExpr(lat.Prior.Args[0]), ast.FormatExpr(lat.Prior))
	}
	return "the prior (" + priorString(lat) + ")"
}
