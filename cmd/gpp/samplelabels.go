package main

// Label switching between NUTS chains: a mixture's components are
// exchangeable, so its posterior has one mode per order of their labels,
// and each chain settles in one. The chains then disagree (R̂ far above 1)
// about values they all found, only in different orders, and running
// longer does not help: the components need an order.

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/compile"
)

// chainMoments returns the mean and sd of each of elems' columns (per
// chain) in chain c, over its finite draws.
func chainMoments(elems [][][]float64, c int) (mean, sd []float64) {
	mean, sd = make([]float64, len(elems)), make([]float64, len(elems))
	for k, chains := range elems {
		n, m, m2 := 0.0, 0.0, 0.0
		for _, x := range chains[c] {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				continue
			}
			n++
			delta := x - m
			m += delta / n
			m2 += delta * (x - m)
		}
		mean[k], sd[k] = m, math.NaN()
		if n > 1 {
			sd[k] = math.Sqrt(m2 / (n - 1))
		}
		if n == 0 {
			mean[k] = math.NaN()
		}
	}
	return mean, sd
}

// everyChainMoments is chainMoments of each chain: mean[c][k] and
// sd[c][k] of element k in chain c.
func everyChainMoments(elems [][][]float64) (mean, sd [][]float64) {
	C := len(elems[0])
	mean, sd = make([][]float64, C), make([][]float64, C)
	for c := range C {
		mean[c], sd[c] = chainMoments(elems, c)
	}
	return mean, sd
}

// permutedChains returns the first pair of chains (a < b) whose means of
// a vector's elements are one another's in another order: elems[k][c] are
// the draws of element k in chain c. The test is the restarts' (orderOf):
// apart element by element by more than apartSD sds (the two chains' sds
// joined) somewhere, and within switchMatch sds everywhere after a
// permutation. An sd is the loose scale of "agree": two chains in one
// mode have means a few MCSE apart, which with a few hundred effective
// draws a chain is a tenth of an sd, while chains in modes that are not
// one another's permutation are sds apart somewhere; MCSEs would be too
// tight a tolerance, as a mixture's pooled ESS is a handful (chains in
// permuted modes) and the chains' own MCSEs vary. ok is false when no
// pair is.
func permutedChains(elems [][][]float64, apartSD float64) (a, b int, ok bool) {
	if len(elems) < 2 || len(elems) > switchMaxLen {
		return 0, 0, false
	}
	C := len(elems[0])
	mean, sd := everyChainMoments(elems)
	for a := range C {
		for b := a + 1; b < C; b++ {
			if orderApart(mean[a], sd[a], mean[b], sd[b], apartSD) {
				return a, b, true
			}
		}
	}
	return 0, 0, false
}

// switchedParams returns the vector params (2 to switchMaxLen elements,
// not outputs) with an element whose R̂ is above rhatWarn and whose chains
// found one another's values in another order (permutedChains, apart by
// switchApart sds), and the matrix params whose chains found one
// another's rows or columns (2 to switchMaxAxis of them: a factor model's
// components) in another order (permutedMatrixChains), with the first such
// pair of chains (numbered from 1); gram, the product that the rotation
// leaves (gramOf), when a matrix param's chains found it rotated or
// reflected rather than permuted (matrixAxisRotated), a and b then that
// param's pair. When there is one, the others with
// such an R̂ whose chains match in another order and not in their own by
// switchMatch sds join them: a mixture's weights switch with its means,
// but two chains' weights of 0.4 and 0.6 (sd 0.07) are not two sds apart.
// matrix reports whether a matrix param is among them.
func switchedParams(sd *sampleDraws, ms []mcmcStats) (names []string, a, b int, matrix bool, gram string) {
	if sd.chains < 2 || len(sd.ds.cols) == 0 {
		return nil, 0, 0, false, ""
	}
	type cand struct {
		name   string
		matrix bool
		test   func(apartSD float64) (a, b int, gram string, ok bool)
	}
	var cands []cand
	for _, v := range sd.ds.vars {
		n := len(v.elems)
		vector := len(v.shape) == 1 && v.shape[0] >= 2 && v.shape[0] <= switchMaxLen
		mat := len(v.shape) == 2 && n == v.shape[0]*v.shape[1] && max(v.shape[0], v.shape[1]) >= 2
		if v.output || v.corrK != 0 || !(vector || mat) {
			continue
		}
		if v.first+n > len(sd.ds.cols) || !slices.ContainsFunc(ms[v.first:v.first+n], func(m mcmcStats) bool { return m.rhat > rhatWarn }) {
			continue
		}
		elems := make([][][]float64, n) // by row-major element
		for j, k := range v.elems {
			elems[k] = sd.byChain(sd.ds.cols[v.first+j])
		}
		if vector {
			cands = append(cands, cand{v.name, false, func(apartSD float64) (int, int, string, bool) {
				a, b, ok := permutedChains(elems, apartSD)
				return a, b, "", ok
			}})
			continue
		}
		shape, name := v.shape, v.name
		cands = append(cands, cand{v.name, true, func(apartSD float64) (int, int, string, bool) {
			a, b, ax, rot, ok := permutedMatrixChains(elems, shape, apartSD)
			if rot {
				return a, b, gramOf(name, ax), ok
			}
			return a, b, "", ok
		}})
	}
	switched := make([]bool, len(cands))
	found := false
	for i, c := range cands {
		if ca, cb, g, ok := c.test(switchApart); ok {
			if !found || g != "" && gram == "" {
				a, b, found = ca+1, cb+1, true
			}
			switched[i] = true
			if gram == "" {
				gram = g
			}
		}
	}
	if !found {
		return nil, 0, 0, false, ""
	}
	for i, c := range cands {
		if _, _, _, ok := c.test(switchMatch); switched[i] || ok {
			names = append(names, c.name)
			matrix = matrix || c.matrix
		}
	}
	return names, a, b, matrix, gram
}

// permutedMatrixChains returns the first pair of chains (a < b) that
// found a matrix param's rows or columns (2 to switchMaxAxis of them) in
// one another's order, or else rotated or reflected (rot), along axis
// ax: elems[k][c] are the draws of row-major element k in chain c.
// Components are compared whole, as restarts' are (matrixSwitchAxis).
func permutedMatrixChains(elems [][][]float64, shape []int, apartSD float64) (a, b, ax int, rot, ok bool) {
	C := len(elems[0])
	mean, sd := everyChainMoments(elems)
	for a := range C {
		for b := a + 1; b < C; b++ {
			if ax, rot := matrixSwitchAxis(shape, mean[a], sd[a], mean[b], sd[b], apartSD); ax >= 0 {
				return a, b, ax, rot, true
			}
		}
	}
	return 0, 0, 0, false, false
}

// labelSwitchAdvice ends the R̂ warning when switchedParams finds params
// whose chains are in permuted modes: what happened and how to identify
// the components (an ordered param, by the first of names that can be
// one in m; m nil gives the general advice). "" when there are none.
func labelSwitchAdvice(sd *sampleDraws, ms []mcmcStats, m *compile.Model) string {
	names, a, b, matrix, gram := switchedParams(sd, ms)
	if len(names) == 0 {
		return ""
	}
	list := strings.Join(names, ", ")
	if gram != "" {
		return fmt.Sprintf("chains found the same values of %s rotated or reflected (chain %d holds chain %d's mixed by an orthogonal matrix Q, signs flipped included: "+
			"factor loadings that the likelihood reads only through a product such as %s are identified only up to such a Q, and longer chains do not help): "+
			"read quantities that do not depend on the rotation (%s, a covariance, a held-out log likelihood), or constrain the loadings so that one rotation fits "+
			"(Stan's factor models fix them above the diagonal at zero and the diagonal positive)",
			list, b, a, gram, gram)
	}
	if matrix {
		return fmt.Sprintf("chains found the same values of %s in different orders (label switching: chain %d holds chain %d's rows or columns, or elements, in another order; "+
			"the components of a factor model or a mixture are exchangeable, so the posterior has a mode per order of their labels, and longer chains do not help): "+
			"read quantities that do not depend on the labels (a product such as W * H, a held-out log likelihood), or give the components an order to identify them",
			list, b, a)
	}
	fix := "give the components an order (an ordered[K] param of theirs) to identify them"
	if m != nil {
		for _, n := range names {
			l := latentNamed(m, n)
			if l == nil || l.Scale != 0 {
				continue
			}
			at := "" // where to change it
			if l.Pos.IsValid() {
				at = " at " + l.Pos.String()
			}
			ordered := map[dist.Support]string{dist.Real: "ordered", dist.Positive: "positive_ordered"}[l.Support]
			if ordered != "" {
				fix = fmt.Sprintf("declare %s %s[%d] (param %s: %s[%d])%s, or put another order constraint on the components, to identify them", n, ordered, l.Size, n, ordered, l.Size, at)
				break
			}
		}
	}
	return fmt.Sprintf("chains found the same values of %s in different orders (label switching: chain %d holds chain %d's in another order; a mixture's components are exchangeable, so the posterior has a mode per order of their labels, and longer chains do not help): %s",
		list, b, a, fix)
}
