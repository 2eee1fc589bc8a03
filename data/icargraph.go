package data

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
)

// GraphWarnings checks the graph of each ICAR-style term the model writes:
// the square (dot_self, square) of a difference phi[a] - phi[b] in a
// target statement, with phi a param vector and a, b int data vectors (or
// their elements at a loop variable), or phi[i] - phi[segment(adj,
// start[i], num[i])] in a loop over i (the GeoBUGS neighbour list). gpp has
// no ICAR built-in, so nothing else looks at the edges: a self-loop, an
// edge listed twice, a node in no edge and a graph of several connected
// components all fit silently. Warnings, not errors: a user may mean them.
func GraphWarnings(file *ast.File, info *check.Info, bound map[string]*Array) []string {
	if file == nil || info == nil {
		return nil
	}
	var warns []string
	seen := map[string]bool{}
	ast.Inspect(file, func(n ast.Node) bool {
		t, ok := n.(*ast.TargetStmt)
		if !ok {
			return true
		}
		ast.Inspect(t.Value, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || (call.Fun.Name != "dot_self" && call.Fun.Name != "square") || len(call.Args) != 1 {
				return true
			}
			d, ok := ast.Unparen(call.Args[0]).(*ast.BinaryExpr)
			if !ok || d.Op != ast.Sub {
				return true
			}
			g := icarGraph(info, bound, d)
			if g == nil {
				return true
			}
			if key := g.phi + "|" + g.what; !seen[key] {
				seen[key] = true
				warns = append(warns, g.warnings(d.Pos())...)
			}
			return false
		})
		return false
	})
	return warns
}

// edge is one listed pair of nodes and the data cell that lists it (its
// first node's for an edge list, the neighbour's for a neighbour list).
type edge struct {
	u, v int
	pos  ast.Pos
	cell string // the cells' names: "the pair node1[3], node2[3]", or "adj[7]"
}

// spatialGraph is the graph of one ICAR term.
type spatialGraph struct {
	phi   string // the param
	n     int    // phi's length
	what  string // the edge data, "node1/node2"
	edges []edge
	// neighbours is true when each pair is meant to be listed twice, once
	// from each end: a segment of a neighbour list, or an edge list with
	// most pairs in both orientations (phi[owner] - phi[adj]).
	neighbours bool
}

// icarIndex is an index of phi in an ICAR difference: an int data
// vector (vec), a loop variable (loop) or a segment of a neighbour list
// (adj, start, num).
type icarIndex struct {
	vec             *Array
	loop            *check.Symbol
	adj, start, num *Array
	segments        bool
}

// icarGraph returns the graph of the difference d when it is an ICAR
// difference of one param vector whose edge data are bound, else nil.
func icarGraph(info *check.Info, bound map[string]*Array, d *ast.BinaryExpr) *spatialGraph {
	x, ok1 := ast.Unparen(d.X).(*ast.IndexExpr)
	y, ok2 := ast.Unparen(d.Y).(*ast.IndexExpr)
	if !ok1 || !ok2 || len(x.Indices) != 1 || len(y.Indices) != 1 {
		return nil
	}
	px, okx := ast.Unparen(x.X).(*ast.Ident)
	py, oky := ast.Unparen(y.X).(*ast.Ident)
	if !okx || !oky {
		return nil
	}
	sym := info.Uses[px]
	if sym == nil || sym != info.Uses[py] || sym.Kind != check.Param {
		return nil
	}
	n := paramLength(info, bound, sym)
	if n <= 0 {
		return nil
	}
	a, b := icarIndexOf(info, bound, x.Indices[0]), icarIndexOf(info, bound, y.Indices[0])
	if a == nil || b == nil {
		return nil
	}
	g := &spatialGraph{phi: sym.Name, n: n}
	switch {
	case a.vec != nil && b.vec != nil:
		if len(a.vec.Values) != len(b.vec.Values) {
			return nil
		}
		g.what = a.vec.Name + "/" + b.vec.Name
		for k := range a.vec.Values {
			g.edges = append(g.edges, edge{int(a.vec.Values[k]), int(b.vec.Values[k]), a.vec.Locate(k), "the pair " + elemName(a.vec.Name, a.vec.Shape, k) + ", " + elemName(b.vec.Name, b.vec.Shape, k)})
		}
		g.neighbours = mostlyBothWays(g.edges)
	case a.loop != nil && b.segments && b.loop == a.loop:
		g.segmentEdges(b)
	case b.loop != nil && a.segments && a.loop == b.loop:
		g.segmentEdges(a)
	default:
		return nil
	}
	for _, e := range g.edges {
		if e.u < 0 || e.u >= n || e.v < 0 || e.v >= n {
			return nil // out of range: the compiler's error, not a graph
		}
	}
	return g
}

// segmentEdges lists the edges of a neighbour list: node i's neighbours
// are adj[start[i]], ..., adj[start[i] + num[i] - 1].
func (g *spatialGraph) segmentEdges(s *icarIndex) {
	g.what = s.adj.Name + " (by " + s.start.Name + " and " + s.num.Name + ")"
	g.neighbours = true
	for i := range s.num.Values {
		if i >= len(s.start.Values) {
			break
		}
		st, k := int(s.start.Values[i]), int(s.num.Values[i])
		for j := st; j < st+k; j++ {
			if j < 0 || j >= len(s.adj.Values) {
				break
			}
			g.edges = append(g.edges, edge{i, int(s.adj.Values[j]), s.adj.Locate(j), elemName(s.adj.Name, s.adj.Shape, j)})
		}
	}
}

// icarIndexOf classifies an index of phi, or returns nil.
func icarIndexOf(info *check.Info, bound map[string]*Array, e ast.Expr) *icarIndex {
	intVec := func(e ast.Expr) *Array {
		id, ok := ast.Unparen(e).(*ast.Ident)
		if !ok {
			return nil
		}
		s := info.Uses[id]
		if s == nil || s.Kind != check.Data {
			return nil
		}
		a := bound[s.Name]
		if a == nil || len(a.Shape) != 1 || !a.Int || len(a.Missing) > 0 {
			return nil
		}
		return a
	}
	loopVar := func(e ast.Expr) *check.Symbol {
		id, ok := ast.Unparen(e).(*ast.Ident)
		if !ok {
			return nil
		}
		if s := info.Uses[id]; s != nil && s.Kind == check.LoopVar {
			return s
		}
		return nil
	}
	switch e := ast.Unparen(e).(type) {
	case *ast.BinaryExpr: // node1 - 1, Stan's 1-based ids shifted
		lit, ok := ast.Unparen(e.Y).(*ast.NumberLit)
		a := intVec(e.X)
		if !ok || !lit.IsInt || a == nil || (e.Op != ast.Sub && e.Op != ast.Add) {
			return nil
		}
		d := lit.Value
		if e.Op == ast.Sub {
			d = -d
		}
		shifted := *a
		shifted.Values = make([]float64, len(a.Values))
		for i, v := range a.Values {
			shifted.Values[i] = v + d
		}
		return &icarIndex{vec: &shifted}
	case *ast.Ident:
		if a := intVec(e); a != nil {
			return &icarIndex{vec: a}
		}
		if s := loopVar(e); s != nil {
			return &icarIndex{loop: s}
		}
	case *ast.IndexExpr: // node1[e] in a loop over edges
		if len(e.Indices) == 1 && loopVar(e.Indices[0]) != nil {
			if a := intVec(e.X); a != nil {
				return &icarIndex{vec: a}
			}
		}
	case *ast.CallExpr: // segment(adj, start[i], num[i])
		if e.Fun.Name != "segment" || len(e.Args) != 3 {
			return nil
		}
		adj := intVec(e.Args[0])
		at := func(x ast.Expr) (*Array, *check.Symbol) {
			ix, ok := ast.Unparen(x).(*ast.IndexExpr)
			if !ok || len(ix.Indices) != 1 {
				return nil, nil
			}
			return intVec(ix.X), loopVar(ix.Indices[0])
		}
		start, i := at(e.Args[1])
		num, j := at(e.Args[2])
		if adj != nil && start != nil && num != nil && i != nil && i == j {
			return &icarIndex{adj: adj, start: start, num: num, loop: i, segments: true}
		}
	}
	return nil
}

// paramLength returns the length of a param vector, or 0.
func paramLength(info *check.Info, bound map[string]*Array, s *check.Symbol) int {
	for _, l := range info.Latents {
		if l.Symbol != s || len(l.Dims) != 1 {
			continue
		}
		if d := l.Dims[0]; d.Known() {
			return d.N
		} else if a := bound[d.Name]; a != nil && len(a.Shape) == 0 && len(a.Values) == 1 {
			return int(a.Values[0])
		}
	}
	return 0
}

// mostlyBothWays reports whether at least half the pairs of an edge list
// are listed in both orientations: a neighbour list, each pair from both
// ends, not an edge list with a few repeats.
func mostlyBothWays(edges []edge) bool {
	dir := directed(edges)
	both, pairs := 0, 0
	for p := range dir {
		if p[0] < p[1] {
			pairs++
			if dir[[2]int{p[1], p[0]}] {
				both++
			}
		} else if p[0] > p[1] && !dir[[2]int{p[1], p[0]}] {
			pairs++
		}
	}
	return pairs > 0 && 2*both >= pairs
}

// directed is the set of edges' ordered pairs (u, v).
func directed(edges []edge) map[[2]int]bool {
	dir := map[[2]int]bool{}
	for _, e := range edges {
		dir[[2]int{e.u, e.v}] = true
	}
	return dir
}

// maxListed is how many self-loops, repeats or one-way neighbours are
// warned of one by one; the rest are counted.
const maxListed = 5

// warnings returns the graph's warnings; at is the model's difference.
func (g *spatialGraph) warnings(at ast.Pos) []string {
	var warns []string
	var loops, repeats, oneWay []string
	first := map[[2]int]edge{}
	dir := directed(g.edges)
	deg := make([]int, g.n)
	parent := make([]int, g.n)
	for i := range parent {
		parent[i] = i
	}
	root := func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for _, e := range g.edges {
		if e.u == e.v {
			loops = append(loops, fmt.Sprintf("%s: self-loop: %s joins %s[%d] to itself (the ICAR term's %s[%d] - %s[%d] is 0, but a degree or a BYM2 scaling factor computed from this list counts it)", e.pos, e.cell, g.phi, e.u, g.phi, e.u, g.phi, e.u))
			continue
		}
		deg[e.u]++
		deg[e.v]++
		parent[root(e.u)] = root(e.v)
		key := [2]int{min(e.u, e.v), max(e.u, e.v)}
		if g.neighbours {
			key = [2]int{e.u, e.v} // each pair once from each end
			if !dir[[2]int{e.v, e.u}] {
				oneWay = append(oneWay, fmt.Sprintf("%s: %s lists %d as a neighbour of %d, but %d is not listed as a neighbour of %d: a neighbour list holds each pair from both ends, and this one's weight in the ICAR term is half the others'", e.pos, e.cell, e.v, e.u, e.u, e.v))
			}
		}
		if f, ok := first[key]; ok {
			orient := ""
			if !g.neighbours && f.u != e.u {
				orient = ", reversed"
			}
			repeats = append(repeats, fmt.Sprintf("%s: duplicate edge: %s lists %d-%d again (first at %s as %s%s): its term counts twice in the ICAR sum, doubling the edge's weight", e.pos, e.cell, e.u, e.v, f.pos, f.cell, orient))
		} else {
			first[key] = e
		}
	}
	for _, list := range [][]string{loops, repeats, oneWay} {
		warns = append(warns, list[:min(len(list), maxListed)]...)
		if len(list) > maxListed {
			warns = append(warns, fmt.Sprintf("%s: and %d more like the above in %s", at, len(list)-maxListed, g.what))
		}
	}
	var isolated []string
	sizes := map[int]int{}
	for i := range g.n {
		if deg[i] == 0 {
			isolated = append(isolated, fmt.Sprintf("%s[%d]", g.phi, i))
		} else {
			sizes[root(i)]++
		}
	}
	if len(isolated) > 0 {
		shown := strings.Join(isolated[:min(len(isolated), maxListed)], ", ")
		if len(isolated) > maxListed {
			shown += fmt.Sprintf(" and %d more", len(isolated)-maxListed)
		}
		verb := "is"
		if len(isolated) > 1 {
			verb = "are"
		}
		warns = append(warns, fmt.Sprintf("%s: %s %s in no edge of %s: the ICAR term does not hold such an element, its prior is flat (improper) along it and its value is set by its own data alone; give it its edges, or its own proper prior (as BYM2's theta)", at, shown, verb, g.what))
	}
	if len(sizes) > 1 {
		var comp []int
		for _, s := range sizes {
			comp = append(comp, s)
		}
		slices.Sort(comp)
		slices.Reverse(comp)
		words := make([]string, len(comp))
		for i, s := range comp {
			words[i] = fmt.Sprint(s)
		}
		warns = append(warns, fmt.Sprintf("%s: the graph of %s has %d connected components (of %s nodes): the ICAR term is flat along each component's level, so %s needs one sum-to-zero constraint per component (a sum_to_zero_vector for each component's nodes, each with its own edges, or, for gpp sample, a soft constraint on each component's sum); a single sum_to_zero_vector over all nodes removes only one of these %d flat directions and leaves the components' levels free against each other, set by the data alone (and a BYM2 scaling factor assumes one component)", at, g.what, len(comp), strings.Join(words, ", "), g.phi, len(comp)))
	}
	return warns
}
