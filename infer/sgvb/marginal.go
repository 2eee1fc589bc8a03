package sgvb

import (
	"fmt"

	"github.com/gpplang/gpp/dist"
)

// Marginal returns the group's q over the coordinates where keep is true
// (len(keep) is the group's size), named names: the marginal of a normal
// is a normal. gpp predict and the REPL's :predict drop a fit's missing
// values (NAME_missing), which a model compiled to predict does not lay
// out, from its joint factor this way, keeping the params' correlations. A
// low-rank group keeps those rows of its mean, d and B, which is its
// marginal exactly; a full-rank one the Cholesky factor of the kept rows'
// covariance L_S L_Sᵀ.
func (g Group) Marginal(names []string, keep []bool) (Group, error) {
	if len(g.Params) == 0 || len(g.Params[0]) != len(keep) {
		return Group{}, fmt.Errorf("sgvb: Marginal of a group with %d flags for its coordinates", len(keep))
	}
	if g.Band > 0 {
		return Group{}, fmt.Errorf("sgvb: the marginal of part of a banded group is not banded")
	}
	var idx []int
	for i, k := range keep {
		if k {
			idx = append(idx, i)
		}
	}
	rows := func(v []float64) []float64 {
		out := make([]float64, len(idx))
		for j, i := range idx {
			out[j] = v[i]
		}
		return out
	}
	out := Group{Names: names, Rank: g.Rank}
	if g.Rank > 0 {
		for _, p := range g.Params {
			out.Params = append(out.Params, rows(p))
		}
		return out, nil
	}
	// Σ_S = L_S L_Sᵀ over the n kept rows of L (Params[1+j] is column j).
	n, cols := len(idx), len(g.Params)-1
	cov := make([]float64, n*n)
	for a, i := range idx {
		for b, j := range idx[:a+1] {
			var s float64
			for k := range cols {
				s += g.Params[1+k][i] * g.Params[1+k][j]
			}
			cov[a*n+b], cov[b*n+a] = s, s
		}
	}
	l := cov // its lower Cholesky factor, in place
	if dist.CholLower(l, n) != 0 {
		return Group{}, fmt.Errorf("sgvb: the kept coordinates' covariance is not positive definite")
	}
	out.Params = append(out.Params, rows(g.Params[0]))
	for j := range n {
		c := make([]float64, n)
		for i := j; i < n; i++ {
			c[i] = l[i*n+j]
		}
		out.Params = append(out.Params, c)
	}
	return out, nil
}
