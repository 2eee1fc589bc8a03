package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/gpplang/gpp/dist"
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
// with all their components alike (collapsedAxes) where the model makes
// those components exchangeable (componentsExchangeable): of the fit r,
// or of the restarts of mix that did, with their ELBOs against the
// others'. "" where none.
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
				if !componentsExchangeable(m, res, f.Shape[a]) {
					continue
				}
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

// exchangeTol is the relative change of the log density within which
// componentsExchangeable calls a permutation of the components a
// symmetry: sums taken in another order, not a different density.
const exchangeTol = 1e-9

// componentsExchangeable reports whether m's log density, at a draw from
// r's q, is unchanged by permuting K components (a cyclic shift, and a
// swap of the first two: together they make every permutation) along
// every axis of size K declared by a const or a number of every param
// whose coordinates are its elements (real, positive, unit): a gamma
// process's W[N, K] together with its weights r[K]. Only then is the
// fit's symmetric point one of copies of the same component. A bivariate
// probit's latent utilities e[N, 2] have columns that data signs (s .* e)
// and a correlation tell apart: their columns alike are no collapse. A
// log density that cannot be evaluated at the draw says nothing: true.
func componentsExchangeable(m *compile.Model, r *sgvb.Result, K int) bool {
	if m == nil || r == nil || K < 2 || r.Dim != m.Dim {
		return true
	}
	x := r.Mean()
	r.SampleCoords(rand.New(rand.NewPCG(1, uint64(K))), x)
	lp, err := m.LogJointValue(x)
	if err != nil || math.IsNaN(lp) || math.IsInf(lp, 0) {
		return true
	}
	shift, swap := make([]int, K), make([]int, K)
	for k := range K {
		shift[k], swap[k] = (k+1)%K, k
	}
	swap[0], swap[1] = 1, 0
	for _, perm := range [][]int{shift, swap} {
		lq, err := m.LogJointValue(permuteComponents(m, x, K, perm))
		if err != nil || !(math.Abs(lq-lp) <= exchangeTol*(1+math.Abs(lp))) {
			return false
		}
	}
	return true
}

// permuteComponents returns x with component k moved to perm[k] along
// the axes componentsExchangeable permutes.
func permuteComponents(m *compile.Model, x []float64, K int, perm []int) []float64 {
	y := slices.Clone(x)
	for i := range m.Latents {
		lat := &m.Latents[i]
		if lat.Value != nil || lat.LocV != nil || lat.Support != dist.Real && lat.Support != dist.Positive && lat.Support != dist.Unit {
			continue
		}
		var axes []int
		for a, n := range lat.Shape {
			if n == K && m.ConstSize(lat.Name, a) {
				axes = append(axes, a)
			}
		}
		if len(axes) == 0 {
			continue
		}
		idx := make([]int, len(lat.Shape))
		for j := range lat.Size {
			rest, to := j, 0
			for a := len(lat.Shape) - 1; a >= 0; a-- {
				idx[a] = rest % lat.Shape[a]
				rest /= lat.Shape[a]
			}
			for _, a := range axes {
				idx[a] = perm[idx[a]]
			}
			for a, n := range lat.Shape {
				to = to*n + idx[a]
			}
			y[lat.Offset+to] = x[lat.Offset+j]
		}
	}
	return y
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
