package compile

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/gpplang/gpp/internal/onebased"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
)

// carGraph is a CAR density's graph, known when the model compiles: the
// 0-based edges, each node's degree and the eigenvalues of D^-½ W D^-½.
type carGraph struct {
	node1, node2 []int
	deg          []float64
	lambda       []float64
}

// carGraphOf checks the edge lists of call (CAR(alpha, tau, node1, node2))
// for a field of n nodes and computes the graph's degrees and eigenvalues:
// ids in [0, n) (a fault at its data cell, with the shift when the ids
// look 1-based), no edge from a node to itself, no edge listed twice
// (either way round), every node in an edge. ok is false after an error.
func (l *lowerer) carGraphOf(call *ast.CallExpr, n int) (g carGraph, ok bool) {
	name := call.Fun.Name
	e := make([]value, 2)
	for i := range e {
		a := call.Args[2+i]
		e[i] = l.knownInts(a, l.expr(a))
		if !e[i].isInt {
			l.errorf(a.Pos(), "%s: node%d must be int data or constants", name, i+1)
			return g, false
		}
	}
	g.node1, g.node2 = e[0].ints, e[1].ints
	if len(g.node1) != len(g.node2) {
		l.errorf(call.Args[3].Pos(), "%s: node2 has %d ids but node1 has %d: edge k joins node1[k] and node2[k]", name, len(g.node2), len(g.node1))
		return g, false
	}
	for i, ids := range [][]int{g.node1, g.node2} {
		for k, v := range ids {
			if v >= 0 && v < n {
				continue
			}
			hint := ""
			all := append(slices.Clone(g.node1), g.node2...)
			if lo, hi := slices.Min(all), slices.Max(all); onebased.Is(lo, hi, len(all), n) {
				hint = "; node ids are 0-based and " + onebased.Span(lo, n) + ": pass node1 - 1 and node2 - 1"
			}
			l.csrElemErr(call, 2+i, e[i], k, hint, "%s: node%d[%d] = %d is out of range [0, %d) as a node of the field's %d", name, i+1, k, v, n, n)
			return g, false
		}
	}
	seen := make(map[[2]int]int, len(g.node1))
	g.deg = make([]float64, n)
	for k := range g.node1 {
		a, b := g.node1[k], g.node2[k]
		if a == b {
			l.csrElemErr(call, 3, e[1], k, "", "%s: edge %d joins node %d to itself (node1[%d] = node2[%d] = %d): a CAR graph has no such edge", name, k, a, k, k, a)
			return g, false
		}
		key := [2]int{min(a, b), max(a, b)}
		if j, dup := seen[key]; dup {
			l.csrElemErr(call, 3, e[1], k, "", "%s: edge %d joins nodes %d and %d again (first as edge %d): list each edge once", name, k, a, b, j)
			return g, false
		}
		seen[key] = k
		g.deg[a]++
		g.deg[b]++
	}
	for i, d := range g.deg {
		if d == 0 {
			l.errorf(call.Args[2].Pos(), "%s: node %d is in no edge of node1/node2: its degree is 0, so D − alpha W is singular there (a proper CAR needs every node to have a neighbour; give an island a neighbour, or model it apart)", name, i)
			return g, false
		}
	}
	// D^-½ W D^-½, symmetric: its eigenvalues, once
	s := mat.NewSymDense(n, nil)
	for k := range g.node1 {
		a, b := g.node1[k], g.node2[k]
		s.SetSym(a, b, 1/math.Sqrt(g.deg[a]*g.deg[b]))
	}
	var eig mat.EigenSym
	if !eig.Factorize(s, false) {
		l.errorf(call.Fun.Pos(), "%s: the eigenvalues of the graph's scaled adjacency D^-½ W D^-½ did not converge", name)
		return g, false
	}
	g.lambda = eig.Values(nil)
	return g, true
}

// car adds the log density of the proper CAR field phi [n] (Joseph 2016,
// "Exact sparse CAR models in Stan"): MvNormalPrec(0, tau (D − alpha W))
// with W the graph's adjacency and D its degrees,
//
//	½ Σ log d_i + ½ Σ log(1 − alpha λ_i) + n/2 log tau
//	  − tau/2 (Σ d_i phi_i² − 2 alpha Σ_edges phi_i phi_j) − n/2 log 2π
//
// λ the eigenvalues of D^-½ W D^-½ (carGraphOf, once), so that an
// evaluation costs O(n + E). An alpha outside (1/λ_min, 1/λ_max), where
// the precision is not positive definite, fails at log1m, the error
// naming the call and the range.
func (l *lowerer) car(call *ast.CallExpr, phi, alpha, tau autodiff.ID, pos ast.Pos) {
	b := l.b
	s := b.Shape(phi)
	if s.Rank != 1 {
		return // the checker made the value a vector: an error was reported already
	}
	n := s.Rows
	g, ok := l.carGraphOf(call, n)
	if !ok {
		return
	}
	lo, hi := slices.Min(g.lambda), slices.Max(g.lambda)
	done := b.InCall(fmt.Sprintf(" (in %s at %s: alpha must lie strictly between 1/λ_min = %.6g and 1/λ_max = %.6g, λ the eigenvalues of this graph's D^-½ W D^-½)",
		call.Fun.Name, pos, 1/lo, 1/hi))
	defer done()
	logd := 0.0
	for _, d := range g.deg {
		logd += math.Log(d)
	}
	// ½ Σ log(1 − alpha λ_i)
	ldet := b.Mul(b.Scalar(0.5, pos), b.Sum(b.Unary(autodiff.OpLog1m, b.Mul(alpha, b.Const(g.lambda, autodiff.Vector(n), pos), pos), pos), pos), pos)
	// Σ d_i phi_i² − 2 alpha Σ_edges phi_i phi_j
	dd := b.Sum(b.Mul(b.Const(g.deg, autodiff.Vector(n), pos), b.Square(phi, pos), pos), pos)
	cross := b.Sum(b.Mul(b.Gather(phi, g.node1, pos), b.Gather(phi, g.node2, pos), pos), pos)
	quad := b.Sub(dd, b.Mul(b.Mul(b.Scalar(2, pos), alpha, pos), cross, pos), pos)
	lp := b.Add(ldet, b.Mul(b.Scalar(float64(n)/2, pos), b.Log(tau, pos), pos), pos)
	lp = b.Sub(lp, b.Mul(b.Mul(b.Scalar(0.5, pos), tau, pos), quad, pos), pos)
	lp = b.Add(lp, b.Scalar(0.5*logd-float64(n)/2*math.Log(2*math.Pi), pos), pos)
	l.add(lp, pos)
}
