package main

import (
	"fmt"
	"math"
	"slices"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/lang/compile"
)

// collapseSD is the joint-sd distance (componentDistance) within which
// every component of a gamma matrix along an axis must lie of every other
// for collapsedHint to call them copies. A fit that found no structure sits
// far inside it (a simulated 4-block network's EPM fit that collapsed:
// 0.1 joint sds between its 10 communities' columns of W), and components
// that model something differ by several.
const collapseSD = 0.5

// collapsedAxes returns, for a gamma factor of a matrix param, the axes
// of components (those whose size is a number or a const, component(a):
// K of positive[N, K], not the data's N) along which its components are
// copies of one another: at least two components of at least two
// elements each, every pair within collapseSD joint sds. A mean-field fit of a model with exchangeable components (a
// gamma process's communities or factors, Poisson factorisation's
// components) starts them alike, and the gradients' noise may never pull
// them apart: the symmetric point, where the K components act as one.
func collapsedAxes(f *sgvb.Factor, component func(a int) bool) []int {
	if f.Family != sgvb.FamilyGamma || len(f.Shape) != 2 || f.Shape[0] < 2 || f.Shape[1] < 2 {
		return nil
	}
	m, s := f.Mean(), f.SD()
	var axes []int
	for a := range 2 {
		if !component(a) {
			continue
		}
		d := componentDistance(f.Shape, a, m, s, m, s)
		alike := true
		for i := 0; i < f.Shape[a] && alike; i++ {
			for j := i + 1; j < f.Shape[a]; j++ {
				if !(d(i, j) < collapseSD) {
					alike = false
					break
				}
			}
		}
		if alike {
			axes = append(axes, a)
		}
	}
	return axes
}

// collapsedHint says which matrix params of m with a gamma factor ended
// with all their components alike (collapsedAxes): of the fit r, or of
// the restarts of mix that did, with their ELBOs against the others'. ""
// where none.
func collapsedHint(m *compile.Model, r *sgvb.Result, mix *sgvb.Mixture) string {
	comps, restarts := []*sgvb.Result{r}, []int{0}
	if mix != nil {
		comps, restarts = mix.Components, mix.Restarts
	}
	var what []string
	var who []int
	var bad, good []float64
	for c, res := range comps {
		found := false
		for i := range res.Factors {
			f := &res.Factors[i]
			for _, a := range collapsedAxes(f, func(a int) bool { return m.ConstSize(f.Name, a) }) {
				w := fmt.Sprintf("the %d %s of %s", f.Shape[a], axisWord(a), f.Name)
				if !slices.Contains(what, w) {
					what = append(what, w)
				}
				found = true
			}
		}
		if found {
			who = append(who, restarts[c])
			bad = append(bad, res.ELBO)
		} else {
			good = append(good, res.ELBO)
		}
	}
	if len(what) == 0 {
		return ""
	}
	text := joinAnd(what) + " are alike, each within " + fmt.Sprint(collapseSD) +
		" joint sds of every other: the fit sits at the symmetric point where its components are copies of one another and act as one, so it describes no structure that tells them apart"
	if mix == nil {
		return text + ". If the data have such structure (communities, factors), fit from other seeds (--seed) or with restarts (gpp fit --restarts N) and keep a fit whose components differ: its ELBO is higher where the structure is real"
	}
	if len(good) == 0 {
		return "every restart: " + text + ". If the data have such structure, try other seeds or more restarts"
	}
	return fmt.Sprintf("%s (ELBO %s against %s for the others): %s. The equal-weight mixture includes them: refit from other seeds, or add --psis-resample, which resamples the mixture's draws by p/q",
		restartList(who), elboRange(bad), elboRange(good), text)
}

// elboRange is "−2467.3" or "−2480.1 to −2467.3".
func elboRange(v []float64) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range v {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	if lo == hi {
		return fmt.Sprintf("%.1f", lo)
	}
	return fmt.Sprintf("%.1f to %.1f", lo, hi)
}
