package main

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
)

// looDominantMax is the most observations looDominantObs names, and
// looDominantMinN the fewest observations a LOO must have for it to name
// any: among a handful, one may well carry half of p_loo.
const (
	looDominantMax  = 3
	looDominantMinN = 10
)

// looDominantObs returns the few observations (i into ds.loo.Points, at
// most looDominantMax, largest p_loo first) that together carry more than
// half of a positive p_loo, each with k̂ above 0.7, or nil. One gross
// outlier does this (a call-centre trial's count of 1e9 among counts of
// about 20: p_loo 212 of 216 on it, k̂ 22.8), and it pulls every param
// toward itself, so that the other observations' k̂ and q's own look like
// a poor q; a better q does not mend it.
func looDominantObs(ds *drawSet) []int {
	lo := ds.loo
	if lo == nil || len(lo.Points) < looDominantMinN || !(lo.P > 0) || len(ds.looCond) > 0 {
		return nil
	}
	order := make([]int, len(lo.Points))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(lo.Points[b].P, lo.Points[a].P) }) // NaN last
	sum := 0.0
	for c, i := range order[:looDominantMax] {
		p := lo.Points[i]
		if !(p.K > 0.7) || !(p.P > 0) {
			return nil
		}
		if sum += p.P; sum > lo.P/2 {
			return order[:c+1]
		}
	}
	return nil
}

// looDominantNames returns log_lik's element names of the observations
// obs (looDominantObs).
func looDominantNames(ds *drawSet, obs []int) []string {
	v, ok := ds.looVar()
	names := make([]string, len(obs))
	for c, i := range obs {
		names[c] = fmt.Sprintf("observation %d", i)
		if ok && i < len(ds.looObs) {
			names[c] = v.elemName(v.elems[ds.looObs[i]])
		}
	}
	return names
}

// looDominant is the LOO warning's clause on the observations that carry
// most of p_loo (looDominantObs), or "": their log_lik elements, k̂ and
// share and, where log_lik is logpdf(y, D(...)) of data y of its shape,
// y's value there, its cell in the data file and y's median, with the
// advice to check it before refitting.
func looDominant(ds *drawSet, l *pipeline.Loaded) string {
	obs := looDominantObs(ds)
	if obs == nil {
		return ""
	}
	lo := ds.loo
	names := looDominantNames(ds, obs)
	ks, sum := make([]string, len(obs)), 0.0
	for c, i := range obs {
		ks[c] = num3(lo.Points[i].K)
		sum += lo.Points[i].P
	}
	who, it := fmt.Sprintf("one observation, %s (k̂ %s), carries %.3g of p_loo's %.3g", names[0], ks[0], sum, lo.P), "it"
	if len(obs) > 1 {
		who, it = fmt.Sprintf("%d observations, %s (k̂ %s), carry %.3g of p_loo's %.3g", len(obs), strings.Join(names, ", "), strings.Join(ks, ", "), sum, lo.P), "them"
	}
	cells := looDataCells(ds, l, obs)
	if cells != "" {
		cells = ": " + cells
	}
	return fmt.Sprintf("; %s%s; an observation the model cannot explain (a typo, a unit, a shifted row?) pulls every param toward itself, and no other q or sampler mends that: check %s in the data before refitting with another q", who, cells, it)
}

// looDataCells returns the data values and cells of the observations obs
// where log_lik's value is logpdf(y, D(...)) with y data of log_lik's
// shape, so that its element k is y's element k ("y[150] = 1e+09 at
// bad.csv:152:13, where y's median is 5"); else "".
func looDataCells(ds *drawSet, l *pipeline.Loaded, obs []int) string {
	v, ok := ds.looVar()
	if !ok || l == nil || l.Info == nil {
		return ""
	}
	var out *check.OutputVar
	for _, o := range l.Info.Outputs {
		if o.Name == looOutput {
			out = o
		}
	}
	if out == nil || out.Value == nil {
		return ""
	}
	call, ok := ast.Unparen(out.Value).(*ast.CallExpr)
	if !ok || call.Fun.Name != "logpdf" || len(call.Args) != 2 {
		return ""
	}
	id, ok := ast.Unparen(call.Args[0]).(*ast.Ident)
	if !ok {
		return ""
	}
	sym := l.Info.Uses[id]
	if sym == nil || sym.Kind != check.Data {
		return ""
	}
	a := l.Data[sym.Name]
	if a == nil || !slices.Equal(a.Shape, v.shape) || len(a.Values) == 0 {
		return ""
	}
	median := drawQuantile(a.Values, 0.5) // of the known values: NaN where none
	if math.IsNaN(median) {
		return ""
	}
	parts := make([]string, 0, len(obs))
	for _, i := range obs {
		if i >= len(ds.looObs) {
			return ""
		}
		k := v.elems[ds.looObs[i]]
		if k >= len(a.Values) {
			return ""
		}
		at := ""
		if p := a.Locate(k); p.IsValid() {
			at = " at " + p.String()
		}
		parts = append(parts, fmt.Sprintf("%s%s = %s%s", sym.Name, strings.TrimPrefix(v.elemName(k), looOutput), strconv.FormatFloat(a.Values[k], 'g', -1, 64), at))
	}
	return fmt.Sprintf("%s, where %s's median is %s", strings.Join(parts, ", "), sym.Name, strconv.FormatFloat(median, 'g', 4, 64))
}
