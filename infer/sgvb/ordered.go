package sgvb

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/gpplang/gpp/dist"
)

// Ordered latents. An ordered[K] latent x (Support dist.Ordered) is fitted
// as two parts, each an ordinary factor on its own coordinates: the first
// element x_0, a real latent of one element with a normal factor, and the
// K − 1 increments d_k = x_k − x_{k−1} > 0, a positive latent with the
// gamma factor (or the lognormal one that Settings.Family or
// Settings.Families names) on the coordinates log d_k. x_k = x_0 + Σ_{j≤k}
// d_j is linear in (x_0, d) with unit Jacobian, so the Target's log joint
// in these coordinates is log p(x). The engine fits the parts as two
// blocks; the Result has one Factor of family FamilyOrdered whose Parts are
// the two.
//
// A positive_ordered[K] latent (Support dist.PositiveOrdered) is fitted as
// one part: x_0 > 0 and the increments d_k > 0 are all positive, one
// positive latent of K elements (partPositive) on the coordinates log x_0,
// log d_1, …, with the gamma factor or the lognormal one as the
// increments of an ordered latent; x_k = x_0 + Σ_{j≤k} d_j, again with
// unit Jacobian. The Result has one Factor of family FamilyOrdered and
// support dist.PositiveOrdered whose one Part is that factor.
//
// An ordered[G, K] latent (Shape [G, K]) is G such rows: its first part
// the G firsts, its second the rows' increments, one after the other, as
// dist.OrderedRowsValues lays its coordinates out; a positive_ordered[G,
// K] one's one part is its rows' coordinates, row-major.

// orderedRows is the number of rows of an ordered latent of the given
// shape: G of [G, K], 1 of a vector.
func orderedRows(shape []int) int {
	if len(shape) == 2 {
		return shape[0]
	}
	return 1
}

// Parts of an ordered latent, in Latent.part and block.part.
const (
	partNone       = iota
	partFirst      // x_0: a real latent of one element
	partIncrements // d_1 … d_{K−1}: a positive latent
	partPositive   // x_0, d_1 … d_{K−1} of a positive_ordered latent: a positive latent
)

// expandOrdered returns the latents with each ordered one replaced by its
// two parts (one, for K = 1), or lats itself when there is none. An
// ordered latent that s.Families makes full-rank becomes a group of its
// own in s (new Families and FullRankGroups, the caller's left alone):
// one full-rank factor over both parts' coordinates.
func expandOrdered(lats []Latent, s *Settings) ([]Latent, error) {
	has := false
	for _, l := range lats {
		has = has || l.Support.IsOrdered()
	}
	if !has {
		return lats, nil
	}
	var out []Latent
	for _, l := range lats {
		if l.Support != dist.Ordered && l.Support != dist.PositiveOrdered {
			out = append(out, l)
			continue
		}
		if f, ok := s.Families[l.Name]; ok && f == FamilyFullRank { // one full-rank factor of its parts: their group
			fams := maps.Clone(s.Families)
			delete(fams, l.Name)
			s.Families = fams
			s.FullRankGroups = append(slices.Clone(s.FullRankGroups), []string{l.Name})
		}
		if l.Scale != 0 || l.ScaleV != nil {
			return nil, fmt.Errorf("sgvb: latent %s: an %v latent has no bounds", l.Name, l.Support)
		}
		g, rows := orderedRows(l.Shape), 0 // rows: G of a matrix, 0 of a vector
		if len(l.Shape) == 2 {
			rows = g
		}
		k := l.Size / g
		if l.Support == dist.PositiveOrdered {
			all := Latent{Name: l.Name, Offset: l.Offset, Size: l.Size, Shape: []int{l.Size}, Support: dist.Positive, part: partPositive, rows: rows}
			if len(l.Init) == l.Size { // values x: each row's x_0 and increments
				all.Init = make([]float64, l.Size)
				for j, v := range l.Init {
					prev := 0.0
					if j%k != 0 {
						prev = l.Init[j-1]
					}
					all.Init[j] = v - prev
				}
			}
			out = append(out, all)
			continue
		}
		first := Latent{Name: l.Name, Offset: l.Offset, Size: g, Shape: []int{g}, Support: dist.Real, part: partFirst, rows: rows}
		inc := Latent{Name: l.Name, Offset: l.Offset + g, Size: l.Size - g, Shape: []int{l.Size - g}, Support: dist.Positive, part: partIncrements, rows: rows}
		if len(l.Init) == l.Size { // values x: each row's x_0 and increments
			first.Init = make([]float64, g)
			inc.Init = make([]float64, l.Size-g)
			for r := range g {
				first.Init[r] = l.Init[r*k]
				for c := 1; c < k; c++ {
					inc.Init[r*(k-1)+c-1] = l.Init[r*k+c] - l.Init[r*k+c-1]
				}
			}
		}
		out = append(out, first)
		if l.Size > g {
			out = append(out, inc)
		}
	}
	return out, nil
}

// mergeOrdered returns the factors with the parts of each ordered latent
// (consecutive, as expandOrdered lays them out) made one Factor of family
// FamilyOrdered; fs itself when there are none. rows is each part's
// latent's number of rows (Latent.rows, 0 for a vector), which gives an
// ordered[G, K] factor its shape [G, K].
func mergeOrdered(fs []Factor, parts, rows []int) []Factor {
	has := false
	for _, p := range parts {
		has = has || p != partNone
	}
	if !has {
		return fs
	}
	var out []Factor
	for i := 0; i < len(fs); i++ {
		if parts[i] == partPositive {
			f := Factor{Name: fs[i].Name, Family: FamilyOrdered, Support: dist.PositiveOrdered, Offset: fs[i].Offset, Size: fs[i].Size,
				Shape: orderedShape(fs[i].Size, rows[i]), Parts: []Factor{fs[i]}}
			out = append(out, f)
			continue
		}
		if parts[i] != partFirst {
			out = append(out, fs[i])
			continue
		}
		f := Factor{Name: fs[i].Name, Family: FamilyOrdered, Support: dist.Ordered, Offset: fs[i].Offset, Size: fs[i].Size,
			Parts: []Factor{fs[i]}}
		g := rows[i]
		if i+1 < len(fs) && parts[i+1] == partIncrements {
			i++
			f.Parts = append(f.Parts, fs[i])
			f.Size += fs[i].Size
		}
		f.Shape = orderedShape(f.Size, g)
		out = append(out, f)
	}
	return out
}

// orderedShape is the shape of an ordered factor of size elements in g
// rows: [size] for none (a vector), else [g, size/g].
func orderedShape(size, g int) []int {
	if g > 0 {
		return []int{g, size / g}
	}
	return []int{size}
}

// flatFactor is a factor as the engine fits it: a part of an ordered
// latent's factor, or a whole other factor.
type flatFactor struct {
	f    *Factor
	part int
}

// flatten lists the factors as blocks: the parts of ordered ones in
// their place.
func flatten(fs []Factor) []flatFactor {
	var out []flatFactor
	for i := range fs {
		f := &fs[i]
		if f.Family != FamilyOrdered {
			out = append(out, flatFactor{f, partNone})
			continue
		}
		if f.Support == dist.PositiveOrdered {
			out = append(out, flatFactor{&f.Parts[0], partPositive})
			continue
		}
		for j := range f.Parts {
			out = append(out, flatFactor{&f.Parts[j], partFirst + j})
		}
	}
	return out
}

// orderedMoments writes the mean and sd of each element x_k of an ordered
// factor: under a joint full-rank factor from its coordinates' marginal
// (linkOrdered); else the parts are independent under q, so the mean of
// x_k is the sum of the means of x_0 and d_1 … d_k and its variance the
// sum of their variances.
func (f *Factor) orderedMoments(mean, sd []float64) {
	positive, g := f.Support == dist.PositiveOrdered, orderedRows(f.Shape)
	if f.joint != nil {
		jointOrderedMoments(f.joint, positive, g, mean, sd)
		return
	}
	off := 0
	for j := range f.Parts {
		p := &f.Parts[j]
		p.moments(mean[off:off+p.Size], sd[off:off+p.Size])
		off += p.Size
	}
	if g > 1 && !positive { // the parts' moments, the firsts' then the increments', to rows
		orderedRowsOrder(mean, g)
		orderedRowsOrder(sd, g)
	}
	k := len(mean) / g
	for r := range g {
		v := 0.0
		for c := range k {
			i := r*k + c
			v += sd[i] * sd[i]
			if c > 0 {
				mean[i] += mean[i-1]
			}
			sd[i] = math.Sqrt(v)
		}
	}
}

// orderedRowsOrder reorders per-coordinate numbers of an ordered[g, K]
// latent (the g firsts, then the rows' increments) row by row, each row's
// first then its increments, in place.
func orderedRowsOrder(v []float64, g int) {
	u := make([]float64, len(v))
	k := len(v) / g
	for j := range v {
		r, c := dist.OrderedRowIndex(j, g, k, false)
		u[r*k+c] = v[j]
	}
	copy(v, u)
}

// linkOrdered gives each ordered factor of fs that is a member of a
// full-rank or low-rank group of gs the marginal of its coordinates under
// the group as full-rank params (x_0 or log x_0, then the log
// increments), which its moments need (jointOrderedMoments): its parts
// are marginals, without the correlations between them. A fit's factors
// and those read back from a file (Result.LinkOrdered) get it here alike.
func linkOrdered(fs []Factor, gs []Group) {
	for _, g := range gs {
		if g.Band > 0 || len(g.Params) == 0 || g.Rank == 0 && len(g.Params) != len(g.Params[0])+1 || g.Rank > 0 && len(g.Params) != g.Rank+2 {
			continue
		}
		lo := 0
		for _, name := range g.Names {
			k := slices.IndexFunc(fs, func(f Factor) bool { return f.Name == name })
			if k < 0 {
				break
			}
			f := &fs[k]
			n := FactorElems(f.Family, f.Support, f.Shape)
			if lo+n > len(g.Params[0]) {
				break
			}
			switch {
			case f.Family == FamilyOrdered && g.Rank > 0:
				f.joint = lowRankMarginal(g.Params, lo, n)
			case f.Family == FamilyOrdered:
				f.joint = marginal(g.Params, lo, n)
			}
			lo += n
		}
	}
}

// LinkOrdered gives the ordered factors that are members of r's full-rank
// and low-rank groups the joint marginal of their coordinates, so that
// their Mean and SD include the correlations between x_0 and the
// increments. Fit does it; a Result built by hand from a fit file, Factors
// then Groups, needs it.
func (r *Result) LinkOrdered() { linkOrdered(r.Factors, r.Groups) }

// jointOrderedMoments writes the mean and sd of each element x_k = Σ_{j≤k}
// t_j of an ordered latent whose coordinates y are N(μ, Σ) (p: the mean,
// then the columns of Σ's Cholesky factor): t_0 = y_0 (e^{y_0} when
// positive), t_j = e^{y_j}. With e_j = E e^{y_j} = e^{μ_j + Σ_jj/2},
// Cov(y_0, e^{y_j}) = Σ_0j·e_j (Stein's lemma) and Cov(e^{y_i}, e^{y_j}) =
// e_i·e_j·(e^{Σ_ij} − 1).
//
// Of g rows (an ordered[g, K] latent) each row's elements are so, from its
// own coordinates (dist.OrderedRowIndex).
func jointOrderedMoments(p [][]float64, positive bool, g int, mean, sd []float64) {
	if g > 1 {
		k := len(mean) / g
		idx := make([]int, len(mean))
		for j := range idx {
			r, c := dist.OrderedRowIndex(j, g, k, positive)
			idx[r*k+c] = j
		}
		for r := range g {
			rowOrderedMoments(p, positive, idx[r*k:(r+1)*k], mean[r*k:(r+1)*k], sd[r*k:(r+1)*k])
		}
		return
	}
	idx := make([]int, len(mean))
	for j := range idx {
		idx[j] = j
	}
	rowOrderedMoments(p, positive, idx, mean, sd)
}

// rowOrderedMoments is jointOrderedMoments of one row, element k's
// coordinate at idx[k].
func rowOrderedMoments(p [][]float64, positive bool, idx []int, mean, sd []float64) {
	K := len(mean)
	cov := func(i, j int) float64 {
		i, j = idx[i], idx[j]
		s := 0.0
		for c := 0; c <= min(i, j); c++ {
			s += p[1+c][i] * p[1+c][j]
		}
		return s
	}
	real := func(j int) bool { return j == 0 && !positive }
	e := make([]float64, K) // E t_j
	for j := range K {
		e[j] = p[0][idx[j]]
		if !real(j) {
			e[j] = math.Exp(p[0][idx[j]] + cov(j, j)/2)
		}
	}
	m, v := 0.0, 0.0
	for k := range K {
		m += e[k]
		for i := 0; i <= k; i++ { // the terms of Var x_k new at k: Cov(t_i, t_k), twice off the diagonal
			var c float64
			switch {
			case real(i) && real(k):
				c = cov(i, k)
			case real(i):
				c = cov(i, k) * e[k]
			default:
				c = e[i] * e[k] * math.Expm1(cov(i, k))
			}
			if i < k {
				c *= 2
			}
			v += c
		}
		mean[k], sd[k] = m, math.Sqrt(math.Max(v, 0))
	}
}

// orderedNatural maps an ordered latent's coordinates (x_0, log d_k) to its
// values x, or a positive_ordered one's (log x_0, log d_k) when positive
// (dst may be src); of shape [G, K], each row's (dist.OrderedRowsValues).
func orderedNatural(dst, src []float64, shape []int, positive bool) {
	dist.OrderedRowsValues(dst, src, orderedRows(shape), positive)
}

// orderedCoords maps an ordered latent's values x to its coordinates
// (x_0, log(x_k − x_{k−1})), or a positive_ordered one's to (log x_0,
// log(x_k − x_{k−1})) when positive (dst may be src); of shape [G, K],
// each row's (dist.OrderedRowsCoords).
func orderedCoords(dst, src []float64, shape []int, positive bool) {
	dist.OrderedRowsCoords(dst, src, orderedRows(shape), positive)
}
