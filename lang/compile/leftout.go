package compile

import (
	"fmt"
	"maps"
	"slices"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
	"github.com/gpplang/gpp/lang/check"
)

// Missing cells of int data (and of real data whose cells are leaves,
// filled with check.DataVar.Fill, leafDraws) left out of the likelihood
// (check.DataVar.LeftOut). A genes × samples count matrix with a few NA
// cells, observed only by
//
//	Y ~ NegBinomialLog(b0 + lfc * x' + log_sf', phi)
//
// has no discrete latent to fit: summing a missing count out of the joint
// removes its term, whatever the family, so the posterior is that of the
// other cells. Compile puts 0, in every count family's support, in the
// missing cells (so the data's ints stay ints for indexing and loops),
// and each ~ on the data weights its elementwise log density by a
// constant 0/1 mask of the cells it observes, as the hand-written
//
//	target += sum(M .* logpdf(Y, NegBinomialLog(...)))
//
// does: the same nodes, so the same log joint and gradient bit for bit.
// The mask is the ~'s value lowered again with the data's name bound to
// the mask of the whole data, so it follows any index the value takes,
// loops lowered as vectors (loopvec.go, looprows.go) among them. A ~
// whose mask is all ones is the fused density node as before; one whose
// mask is all zeros (y[i] ~ D at a missing i) adds nothing.

// leftOutCells returns, for each datum of info whose missing cells are
// left out (check.DataVar.LeftOut) and that has some in bound, those
// cells (row-major, increasing), or nil.
func leftOutCells(info *check.Info, bound map[string]*data.Array) map[string][]int {
	var out map[string][]int
	for _, d := range info.Data {
		if a := bound[d.Name]; a != nil && len(a.Missing) > 0 && d.LeavesOut(a.Shape, a.Missing) {
			if out == nil {
				out = map[string][]int{}
			}
			out[d.Name] = slices.Clone(a.Missing)
		}
	}
	return out
}

// withLeftOut returns bound with the cells left out (leftOutCells) no
// longer missing: each datum's check.DataVar.Fill in them, inside the
// support of every family observing it (0 for int data).
func withLeftOut(info *check.Info, bound map[string]*data.Array, left map[string][]int) map[string]*data.Array {
	if len(left) == 0 {
		return bound
	}
	out := maps.Clone(bound)
	for name, cells := range left {
		out[name] = bound[name].WithoutMissing(cells, info.DataVar(name).Fill)
	}
	return out
}

// LeftOut returns, for each datum with missing cells that are left out
// of the likelihood (int data, real leaves: check.DataVar.LeftOut, less
// NotLeaves), its shape and those
// cells (row-major), or nil when there are none: data.LeftOutNotes says
// so, and PSIS-LOO leaves them out of a log_lik of that shape, as it
// does imputed cells (ImputedCells).
func (m *Model) LeftOut() map[string]MissingCells {
	var out map[string]MissingCells
	for name, cells := range m.leftOut {
		if out == nil {
			out = map[string]MissingCells{}
		}
		out[name] = MissingCells{Shape: m.data[name].Shape, Cells: cells}
	}
	return out
}

// leafDraws returns the data whose missing cells are left out of the
// likelihood and drawn (drawsLeaf), in declaration order: gpp fit and gpp
// sample still report those cells, as PyMC's imputed values, by drawing
// each from its ~ at each draw (drawTilde, as gpp predict draws left-out
// data) as the output NAME_missing, from the evaluator's data stream
// (Evaluator.SetDrawRand), so that no other output changes: a forecast
// of counts, where future rows' y is NA.
func (m *Model) leafDraws() []drawnDecl {
	var out []drawnDecl
	for _, d := range m.info.Data {
		if cells := m.leftOut[d.Name]; cells != nil && drawsLeaf(d) {
			how := "summed out of the likelihood"
			if d.Missing == nil {
				how = "left out of the likelihood"
			}
			what, verb := fmt.Sprintf("%s has %d missing value%s in the data, %s,", d.Name, len(cells), plural(len(cells)), how), "it is"
			if len(cells) > 1 {
				verb = "they are"
			}
			out = append(out, drawnDecl{d: d, shape: m.data[d.Name].Shape, leaf: cells, what: what, verb: verb})
		}
	}
	return out
}

// drawsLeaf reports whether the left-out missing cells of d are drawn as
// NAME_missing: real data's leaves (d.Missing set) and int data; not real
// data of a family with a point mass at 0 (check.DataVar.ZeroMass), whose
// note says why they are left out.
func drawsLeaf(d *check.DataVar) bool {
	return d.Missing != nil || d.Kind == ast.Int
}

// drawLeaf draws the left side of ~ s when it observes data whose cells
// are left out and drawn (leafDraws).
func (l *lowerer) drawLeaf(s *ast.TildeStmt) {
	sym := l.info.Uses[check.ObservedIdent(s.LHS)]
	if sym == nil || sym.Kind != check.Data {
		return
	}
	for _, dd := range l.leafDrawn {
		if dd.d.Symbol == sym {
			l.drawTilde(s, dd.d)
		}
	}
}

// tildeMask returns the 0/1 mask of the cells that the value of ~ s
// observes, when s observes int data with missing cells left out
// (l.leftOut): a value without its node (value{}) when every cell that s
// observes is there, and skip true when none is (or lowering the mask
// failed, its errors reported).
func (l *lowerer) tildeMask(s *ast.TildeStmt) (mask value, skip bool) {
	sym := l.info.Uses[check.ObservedIdent(s.LHS)]
	if sym == nil || sym.Kind != check.Data || l.leftOut[sym.Name] == nil {
		return value{}, false
	}
	a := l.data[sym.Name]
	whole, ok := l.masks[sym]
	if !ok {
		whole = l.wholeMask(sym.Name, a, s.LHS.Pos())
		if l.masks == nil {
			l.masks = map[*check.Symbol]value{}
		}
		l.masks[sym] = whole // once, not per iteration of a loop
	}
	old, had := l.env[sym]
	l.env[sym] = whole
	failed := l.failed()
	mask = l.expr(s.LHS)
	if had {
		l.env[sym] = old
	} else {
		delete(l.env, sym)
	}
	if l.failed() != failed || !mask.node && !mask.isInt {
		return value{}, true
	}
	if !mask.isInt {
		return mask, false
	}
	switch {
	case !slices.Contains(mask.ints, 0):
		return value{}, false
	case !slices.Contains(mask.ints, 1):
		return value{}, true
	}
	if !mask.node {
		mask.id, mask.node = l.node(mask, s.LHS.Pos()), true
	}
	return mask, false
}

// maskedDensity adds the log density of u at val, its terms weighted by
// the 0/1 mask (tildeMask): the sum of mask .* logpdf(val, u(args)).
func (l *lowerer) maskedDensity(u autodiff.ID, mask autodiff.ID, pos ast.Pos) {
	l.add(l.b.Sum(l.b.Mul(mask, u, pos), pos), pos)
}

// wholeMask returns the 0/1 mask of the datum name's cells (a, its
// value), 0 at those left out, as an int data value made as ident makes
// the data's constant: outside any loop or iteration.
func (l *lowerer) wholeMask(name string, a *data.Array, pos ast.Pos) value {
	defer l.b.InLoop(false)()
	defer l.b.AtIter(nil)()
	ints, vals := make([]int, len(a.Values)), make([]float64, len(a.Values))
	for i := range ints {
		ints[i], vals[i] = 1, 1
	}
	for _, i := range l.leftOut[name] {
		ints[i], vals[i] = 0, 0
	}
	return value{id: l.b.Const(vals, shapeOf(a.Shape), pos), node: true, ints: ints, shape: a.Shape, isInt: true, at: a.Locate, data: name}
}
