package compile

// Posterior predictive draws of left-out data in predict mode: PyMC's
// pm.set_data + pm.sample_posterior_predictive draws each observed
// variable from its likelihood at every posterior draw. gpp predict does
// the same for a data declaration that the model observes with ~ and that
// the new data leave out: its ~ statements are lowered as replicates
// (lowerer.predictive, the sampler of `output y ~ D(args)`), element by
// element where a loop observes y[i], and the draw is an output named as
// the data, after the model's outputs.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/stdlib"
)

// PredictOptions choose what a predict-mode build draws besides the
// outputs.
type PredictOptions struct {
	// Draw names the data declarations to draw when the data leave them
	// out: nil draws every one that a ~ observes (PyMC's default), an
	// empty non-nil slice none. A name given here that cannot be drawn is
	// an error; left to the default, it is a note.
	Draw []string
}

// predictDraws chooses the ~ statements that a predict-mode build draws:
// those of each data declaration that bound leaves out and that opt
// selects, when every one of them can be drawn. It returns them with their
// declarations, the drawn declarations in order with their shapes (and
// the note that says so), and a note per other left-out declaration that
// the model observes, saying why it is not drawn: a warning (warns) where
// the reason is an input that the new data leave out too (a covariate of
// its ~), since drawing the observed data is what predict is mostly for,
// and the data could give it.
func predictDraws(f *ast.File, info *check.Info, bound map[string]*data.Array, opt PredictOptions) (draw map[*ast.TildeStmt]*check.DataVar, drawn []drawnDecl, notes, warns []string, err error) {
	named := map[string]bool{}
	for _, name := range opt.Draw {
		d := info.DataVar(name)
		switch {
		case d == nil || d.Implicit:
			return nil, nil, nil, nil, fmt.Errorf("--draw %s: the model has no data declaration %s (--draw names left-out data to draw, or is none)", name, name)
		case bound[name] != nil && len(bound[name].Missing) == 0:
			return nil, nil, nil, nil, fmt.Errorf("--draw %s: %s is in the data given; predict draws only the data left out (or its missing values)", name, name)
		}
		named[name] = true
	}
	tildes, firstUse := observations(f, info)
	draw = map[*ast.TildeStmt]*check.DataVar{}
	var errs ast.ErrorList
	for _, d := range info.Data {
		a := bound[d.Name]
		partial := a != nil && len(a.Missing) > 0 // drawn where missing, whether fitted or not (an int count)
		if d.Implicit || a != nil && !partial || opt.Draw != nil && !named[d.Name] {
			continue
		}
		use, read := firstUse[d.Symbol]
		ts := tildes[d.Symbol]
		if len(ts) == 0 && !read && !named[d.Name] {
			continue // not observed: a covariate, or unused
		}
		what, verb := d.Name+" is not in the data", "is"
		if partial {
			what, verb = fmt.Sprintf("%s has %d missing value%s in the data", d.Name, len(a.Missing), plural(len(a.Missing))), "it is"
			if len(a.Missing) > 1 {
				verb = "they are"
			}
		}
		shape, why, input := predictDrawable(f, info, bound, d, ts, use.At)
		if why == "" && partial {
			shape, why = a.Shape, partialDrawable(info, d, ts)
		}
		switch {
		case why == "":
		case named[d.Name]:
			errs.Add(d.Pos, "--draw %s: %s cannot be drawn: %s", d.Name, d.Name, why)
		case input:
			warns = append(warns, fmt.Sprintf("%s and %s not drawn: %s (--draw none: the outputs alone, without this warning)", what, verb, why))
		default:
			notes = append(notes, fmt.Sprintf("%s and %s not drawn: %s", what, verb, why))
		}
		if why != "" {
			continue
		}
		for _, t := range ts {
			draw[t] = d
		}
		dd := drawnDecl{d: d, shape: shape, named: named[d.Name], what: what, verb: verb,
			note: fmt.Sprintf("%s: drawn from its likelihood at each draw (%s), as a posterior predictive", what, ts[0].Pos())}
		if partial {
			dd.given = a
			dd.note = fmt.Sprintf("%s: %s drawn from its likelihood at each draw (%s), as a posterior predictive, and its given values kept", what, verb, ts[0].Pos())
		}
		drawn = append(drawn, dd)
	}
	if err := errs.Err(); err != nil {
		return nil, nil, nil, nil, err
	}
	return draw, drawn, notes, warns, nil
}

// observations finds the data that the model observes: the ~ statements
// on each data declaration, and the data that a target += or the left
// side of a ~ on an expression reads (check.Info.TargetReads; data
// observed without a ~ of their own) as the value of a logpdf, logcdf or
// logccdf, an outcome, directly or through the lets it reads, or in its
// own expression (a likelihood written out: target += -square(y - mu)),
// each with its first read as a value if it has one, else its first read.
// A covariate that only the arguments of a ~ read is not observed, nor
// one that a target += reads only through a let and not as a value (let
// s = exp(b * x); target += logpdf(t, Weibull(k, s))): without it,
// predict fails and says what needs it, as for any covariate.
func observations(f *ast.File, info *check.Info) (map[*check.Symbol][]*ast.TildeStmt, map[*check.Symbol]check.TargetRead) {
	tildes := map[*check.Symbol][]*ast.TildeStmt{}
	firstUse := map[*check.Symbol]check.TargetRead{}
	ast.Inspect(f, func(n ast.Node) bool {
		if n, ok := n.(*ast.TildeStmt); ok {
			if sym := info.Uses[check.ObservedIdent(n.LHS)]; sym != nil && sym.Kind == check.Data {
				tildes[sym] = append(tildes[sym], n)
			}
		}
		return true
	})
	for _, r := range info.TargetReads(f) {
		if !r.Value && r.Let != nil {
			continue
		}
		if u, ok := firstUse[r.Symbol]; !ok || r.Value && !u.Value {
			firstUse[r.Symbol] = r
		}
	}
	return tildes, firstUse
}

// predictDrawable returns the shape of the left-out data d with this run's
// sizes, or why it cannot be drawn from its ~ statements ts (use: where
// the model first reads d), with input true when the reason is an input
// that the data leave out (a covariate, a size), which they could give.
func predictDrawable(f *ast.File, info *check.Info, bound map[string]*data.Array, d *check.DataVar, ts []*ast.TildeStmt, use ast.Pos) (shape []int, why string, input bool) {
	if len(ts) == 0 && use == (ast.Pos{}) {
		return nil, fmt.Sprintf("no ~ observes %s or its elements (%s ~ D(...), %s[i] ~ D(...))", d.Name, d.Name, d.Name), false
	}
	if len(ts) == 0 {
		return nil, fmt.Sprintf("no ~ observes %s or its elements (%s ~ D(...), %s[i] ~ D(...)), and what reads it (at %s: a target +=, a logcdf, or a ~ on an expression of it) has no distribution of %s to draw from; write output %s_rep ~ D(...) to draw one",
			d.Name, d.Name, d.Name, use, d.Name, d.Name), false
	}
	for _, t := range ts {
		if call := info.UserDensities[t.Dist]; call != nil {
			return nil, fmt.Sprintf("its ~ at %s is the user density %s, which has no sampler; draw a replicate as an output instead: output %s_rep ~ D(...) where a built-in distribution D fits, else by the inverse CDF of a uniform draw, output u ~ Uniform(%s, 1) and output %s_rep = F⁻¹(u) with %s's quantile function written out (a GEV's mu + sigma / xi * (pow(-log(u), -xi) - 1))",
				t.Pos(), t.Dist.Fun.Name, d.Name, uniformZeros(d), d.Name, t.Dist.Fun.Name), false
		}
		if dd := info.Dists[t.Dist]; dd != nil && dd.Shape == stdlib.DistMultinomial && len(t.Dist.Args) < 2 {
			return nil, fmt.Sprintf("its ~ at %s leaves out %s's number of trials n (the counts' totals gave it); write %s(%s, n) to draw the counts", t.Pos(), dd.Name, dd.Name, dd.Params[0].Name), false
		}
	}
	shape = make([]int, len(d.Dims))
	for i, dim := range d.Dims {
		switch {
		case dim.Known():
			shape[i] = dim.N
		case !dim.Derived && bound[dim.Name] != nil && len(bound[dim.Name].Values) == 1:
			shape[i] = int(bound[dim.Name].Values[0])
		case !dim.Derived && info.DataVar(dim.Name) != nil:
			return nil, fmt.Sprintf("its size %s is not bound: only %s would bind it; give it with --set %s=... to draw %s", dim.Name, d.Name, dim.Name, d.Name), true
		default:
			return nil, fmt.Sprintf("its size %s is not known without it", dim), false
		}
	}
	one := map[*ast.TildeStmt]*check.DataVar{}
	for _, t := range ts {
		one[t] = d
	}
	p := planPredict(f, info, one, nil)
	type reason struct {
		why   string
		input bool
	}
	var missing []reason
	for sym, s := range p.reads {
		if bound[sym.Name] != nil && sym != d.Symbol {
			continue
		}
		t, ok := s.(*ast.TildeStmt)
		if !ok || one[t] == nil {
			continue // an output's or a param's, which binding checked
		}
		dv := info.DataVar(sym.Name)
		switch {
		case sym == d.Symbol:
			missing = append(missing, reason{fmt.Sprintf("its ~ at %s reads %s itself (an autoregression): give %s, or write the replicate as an output", t.Pos(), d.Name, d.Name), false})
		case dv != nil && dv.Implicit:
			missing = append(missing, reason{fmt.Sprintf("its ~ at %s needs the size %s, which only left-out data would bind: give it with --set %s=... to draw %s", t.Pos(), sym.Name, sym.Name, d.Name), true})
		default:
			missing = append(missing, reason{fmt.Sprintf("its ~ at %s reads %s, which is not in the data either: give %s to draw %s", t.Pos(), sym.Name, sym.Name, d.Name), true})
		}
	}
	if len(missing) > 0 {
		first := slices.MinFunc(missing, func(a, b reason) int { return strings.Compare(a.why, b.why) })
		return nil, first.why, first.input
	}
	return shape, "", false
}

// uniformZeros is the lower bound of a uniform draw for d in a message:
// 0 for a scalar, else rep(0, N) of d's first size N.
func uniformZeros(d *check.DataVar) string {
	if len(d.Dims) == 0 {
		return "0"
	}
	return fmt.Sprintf("rep(0, %s)", d.Dims[0])
}

// partialDrawable says why the missing cells of data d, given in part,
// cannot be drawn from its ~ statements ts, or returns "": each must be
// of an elementwise family, whose draw of a cell does not depend on the
// cells given (a row-wise one's would be conditional on them).
func partialDrawable(info *check.Info, d *check.DataVar, ts []*ast.TildeStmt) string {
	for _, t := range ts {
		if dd := info.Dists[t.Dist]; dd == nil || dd.Shape != stdlib.DistElementwise {
			return fmt.Sprintf("its ~ at %s is of %s, a row-wise family, whose missing cells would be drawn given the cells of their row that are given; give %s whole, or leave it out", t.Pos(), t.Dist.Fun.Name, d.Name)
		}
	}
	return ""
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// drawPiece is the draw of one ~ statement's left side: the node and the
// elements (row-major) of the data it covers, in the node's order.
type drawPiece struct {
	id    autodiff.ID
	cells []int
	pos   ast.Pos
}

// drawTilde lowers a ~ on left-out data d as a replicate of its left
// side: the left side's indices are traced by binding d to the ints
// 0..n−1 of its shape, so that y, y[i], Y[i] or y[a:b] give the elements
// it covers, and the distribution is drawn with that shape.
func (l *lowerer) drawTilde(s *ast.TildeStmt, d *check.DataVar) {
	var dd *drawnDecl
	drawn := l.leafDrawn
	if l.predict != nil {
		drawn = l.predict.drawn
	}
	for i := range drawn {
		if drawn[i].d == d {
			dd = &drawn[i]
		}
	}
	n := ShapeLen(dd.shape)
	cells := make([]int, n)
	for i := range cells {
		cells[i] = i
	}
	old, had := l.env[d.Symbol]
	l.env[d.Symbol] = value{ints: cells, shape: dd.shape, isInt: true}
	tr := l.expr(s.LHS)
	if had {
		l.env[d.Symbol] = old
	} else {
		delete(l.env, d.Symbol)
	}
	if !tr.isInt {
		return // an index error, reported
	}
	l.b.AltRand(true) // the data's stream (Evaluator.SetDrawRand)
	v := l.predictive(s.Dist, len(tr.shape) == 1, s.Tilde, tr.shape, s.Trunc)
	l.b.AltRand(false)
	if !v.node {
		return
	}
	if got := dimsOf(l.b.Shape(v.id)); !slices.Equal(got, tr.shape) {
		l.undrawn(dd, s.Tilde, fmt.Sprintf("%s is %s, but the draw of its ~ at %s is %s", ast.FormatExpr(s.LHS), shapeText(tr.shape), s.Pos(), shapeText(got)))
		return
	}
	if l.drawPieces == nil {
		l.drawPieces = map[*check.DataVar][]drawPiece{}
	}
	l.drawPieces[d] = append(l.drawPieces[d], drawPiece{id: v.id, cells: tr.ints, pos: s.Pos()})
}

// drawOutputs assembles the draws of each drawn declaration from its
// pieces, which must cover each element once, and adds them as outputs
// named as the data, after the model's outputs.
func (l *lowerer) drawOutputs() {
	drawn := l.leafDrawn
	if l.predict != nil {
		drawn = l.predict.drawn
	}
	for _, dd := range drawn {
		d, pieces := dd.d, l.drawPieces[dd.d]
		if dd.leaf != nil && !l.undrawnAt[d] {
			l.leafOutput(dd, pieces) // no piece: no leaves, as where a piece misses a cell
			continue
		}
		if l.undrawnAt[d] || len(pieces) == 0 {
			continue // a note or an error said why, or a loop ran no iteration
		}
		n := ShapeLen(dd.shape)
		from, at, _ := covering(n, pieces, func(c, p, q int) bool {
			l.undrawn(&dd, pieces[q].pos, fmt.Sprintf("%s is observed by two ~ (at %s and %s), whose product has no sampler",
				elemText(d.Name, dd.shape, c), pieces[p].pos, pieces[q].pos))
			return true
		})
		if c := slices.Index(from, 0); c >= 0 {
			covered := 0
			for _, p := range from {
				if p != 0 {
					covered++
				}
			}
			l.undrawn(&dd, d.Pos, fmt.Sprintf("no ~ observes %s (the ~ statements on %s cover %d of its %d elements)",
				elemText(d.Name, dd.shape, c), d.Name, covered, n))
		}
		if l.undrawnAt[d] {
			continue
		}
		b := l.b
		var id autodiff.ID
		if len(pieces) == 1 && slices.IsSorted(pieces[0].cells) {
			id = pieces[0].id
		} else {
			flat := l.flatPieces(pieces, d.Pos)
			elems := make([]autodiff.ID, n)
			for c := range elems {
				elems[c] = l.pieceElem(flat[from[c]-1], at[c], d.Pos)
			}
			id = b.Stack(elems, d.Pos)
			switch len(dd.shape) {
			case 0:
				id = b.Elem(id, 0, d.Pos)
			case 2:
				id = b.Reshape(id, autodiff.Matrix(dd.shape[0], dd.shape[1]), d.Pos)
			}
		}
		if a := dd.given; a != nil { // the given cells kept, the missing ones drawn
			flat := id
			if s := b.Shape(id); s.Rank != 1 {
				flat = b.Reshape(id, autodiff.Vector(s.Len()), d.Pos)
			}
			id = l.mixed(a, b.Gather(flat, a.Missing, d.Pos), d.Pos)
		}
		l.outIDs = append(l.outIDs, id)
		l.outs = append(l.outs, Output{Name: d.Name, Pos: d.Pos, Shape: dd.shape})
		l.drawnNotes = append(l.drawnNotes, dd.note)
	}
}

// leafOutput adds the output NAME_missing of a fit's draws of the cells
// of data left out (drawnDecl.leaf), from the pieces of its ~ statements:
// those cells alone, in their order. A cell of real data that the ~
// covers twice (a gather that repeats it) is no leaf: Compile fits the
// data's missing cells after all (noLeaf), as where no ~ covers one; int
// data's, which no latent can fit, stay left out, undrawn with a note.
func (l *lowerer) leafOutput(dd drawnDecl, pieces []drawPiece) {
	d, b := dd.d, l.b
	from, at, once := covering(ShapeLen(dd.shape), pieces, func(c, _, _ int) bool {
		_, leaf := slices.BinarySearch(dd.leaf, c)
		return leaf
	})
	if !once {
		if d.IntLeftOut() {
			l.undrawn(&dd, d.Pos, "a ~ observes one of its missing cells twice, and their product has no sampler; they stay left out")
			return
		}
		l.notLeaf(d.Name, "a ~ observes one of its missing cells twice")
		return
	}
	if s := l.info.Lookup(d.Name + MissingSuffix); s != nil {
		l.undrawn(&dd, d.Pos, fmt.Sprintf("the model declares %s%s at %s", d.Name, MissingSuffix, s.Pos))
		return
	}
	flat := l.flatPieces(pieces, d.Pos)
	if len(pieces) == 1 && !b.Shape(pieces[0].id).IsScalar() && !slices.Contains(from, 0) {
		// one ~ over every cell (y ~ D(...)): its draws' missing cells
		idx := make([]int, len(dd.leaf))
		for k, c := range dd.leaf {
			idx[k] = at[c]
		}
		l.outIDs = append(l.outIDs, b.Gather(flat[0], idx, d.Pos))
		l.outs = append(l.outs, Output{Name: d.Name + MissingSuffix, Pos: d.Pos, Shape: []int{len(dd.leaf)}})
		return
	}
	elems := make([]autodiff.ID, len(dd.leaf))
	for k, c := range dd.leaf {
		if from[c] == 0 {
			if d.IntLeftOut() {
				l.undrawn(&dd, d.Pos, fmt.Sprintf("no ~ that runs observes %s, which has no distribution to draw from; they stay left out", elemText(d.Name, dd.shape, c)))
				return
			}
			// read by no statement that runs: skipped as before (Compile's
			// unread), the note its own
			l.notLeaf(d.Name, "")
			return
		}
		elems[k] = l.pieceElem(flat[from[c]-1], at[c], d.Pos)
	}
	l.outIDs = append(l.outIDs, b.Stack(elems, d.Pos))
	l.outs = append(l.outs, Output{Name: d.Name + MissingSuffix, Pos: d.Pos, Shape: []int{len(dd.leaf)}})
}

// covering returns, for the n elements of a drawn declaration, the piece
// that covers each, +1 (0: none), and its element there. An element that
// piece q covers after piece p is given to twice, which stops the scan by
// returning true (once false then).
func covering(n int, pieces []drawPiece, twice func(c, p, q int) bool) (from, at []int, once bool) {
	from, at = make([]int, n), make([]int, n)
	for q, pc := range pieces {
		for k, c := range pc.cells {
			if from[c] != 0 && twice(c, from[c]-1, q) {
				return from, at, false
			}
			from[c], at[c] = q+1, k
		}
	}
	return from, at, true
}

// flatPieces returns the nodes of pieces with each matrix as a vector
// (row-major), so that a piece's element k is element k of its node.
func (l *lowerer) flatPieces(pieces []drawPiece, pos ast.Pos) []autodiff.ID {
	flat := make([]autodiff.ID, len(pieces))
	for p, pc := range pieces {
		flat[p] = pc.id
		if s := l.b.Shape(pc.id); s.Rank == 2 {
			flat[p] = l.b.Reshape(pc.id, autodiff.Vector(s.Len()), pos)
		}
	}
	return flat
}

// pieceElem returns element k of a piece's flat node (flatPieces): the
// node itself when it is a scalar.
func (l *lowerer) pieceElem(flat autodiff.ID, k int, pos ast.Pos) autodiff.ID {
	if l.b.Shape(flat).IsScalar() {
		return flat
	}
	return l.b.Elem(flat, k, pos)
}

// undrawn leaves the data of dd undrawn for the reason why, found while
// lowering its ~ statements: a note (lowerer.undrawnNotes), or an error
// at pos when --draw named it.
func (l *lowerer) undrawn(dd *drawnDecl, pos ast.Pos, why string) {
	if l.undrawnAt[dd.d] {
		return // one reason is enough
	}
	if l.undrawnAt == nil {
		l.undrawnAt = map[*check.DataVar]bool{}
	}
	l.undrawnAt[dd.d] = true
	if dd.named {
		l.errorf(pos, "--draw %s: %s cannot be drawn: %s", dd.d.Name, dd.d.Name, why)
		return
	}
	l.undrawnNotes = append(l.undrawnNotes, fmt.Sprintf("%s and %s not drawn: %s", dd.what, dd.verb, why))
}

// shapeText writes a shape as the messages do: a scalar, [3], [2, 4].
func shapeText(s []int) string {
	if len(s) == 0 {
		return "a scalar"
	}
	return strings.ReplaceAll(fmt.Sprint(s), " ", ", ")
}

// elemText names element c (row-major) of data of the given shape.
func elemText(name string, shape []int, c int) string {
	switch len(shape) {
	case 0:
		return name
	case 1:
		return fmt.Sprintf("%s[%d]", name, c)
	}
	return fmt.Sprintf("%s[%d, %d]", name, c/shape[1], c%shape[1])
}

// broadcastDraw broadcasts the lowered arguments of a drawn ~ to the shape
// want of its left side, as the density broadcasts them, so that the
// replicate has that shape: an elementwise family's arguments to want
// (Normal(mu, sigma) with scalars, for y [N]), and the row argument of a
// row-wise family (MvNormal's mean, a categorical's probabilities, a
// Dirichlet's or Multinomial's) to a row per row of a matrix want, or an
// ordinal eta to each element. Anything else is left as it is, and a
// replicate of another shape is an error of drawTilde.
func (l *lowerer) broadcastDraw(d *stdlib.Dist, args []autodiff.ID, want []int, pos ast.Pos) {
	if d == nil || len(args) == 0 || len(want) == 0 {
		return
	}
	b := l.b
	to := func(x autodiff.ID, s []int) autodiff.ID {
		if slices.Equal(dimsOf(b.Shape(x)), s) {
			return x
		}
		return b.Add(x, b.Const(make([]float64, ShapeLen(s)), shapeOf(s), pos), pos)
	}
	// row makes a vector argument [K] the row [1, K], which a matrix
	// [N, K] broadcasts along its rows.
	row := func(x autodiff.ID) autodiff.ID {
		if s := b.Shape(x); s.Rank == 1 {
			return b.Reshape(x, autodiff.Matrix(1, s.Rows), pos)
		}
		return x
	}
	switch d.Shape {
	case stdlib.DistElementwise:
		for _, a := range args {
			if slices.Equal(dimsOf(b.Shape(a)), want) {
				return
			}
		}
		args[0] = to(args[0], want)
	case stdlib.DistMvNormal, stdlib.DistMvNormalRows, stdlib.DistMvNormalChol, stdlib.DistMvNormalPrec, stdlib.DistDirichlet:
		if len(want) == 2 {
			args[0] = to(row(args[0]), want)
		} else {
			args[0] = to(args[0], want)
		}
	case stdlib.DistMultiStudentT, stdlib.DistMultiStudentTChol: // mu after nu
		if len(want) == 2 {
			args[1] = to(row(args[1]), want)
		} else {
			args[1] = to(args[1], want)
		}
	case stdlib.DistCategorical:
		if len(want) == 1 && b.Shape(args[0]).Rank == 1 { // a shared row for each of y [N]
			k := b.Shape(args[0]).Rows
			args[0] = to(row(args[0]), []int{want[0], k})
		}
	case stdlib.DistPoissonBinomial:
		if s := b.Shape(args[0]); len(want) == 1 && (s.Rank == 1 || s.Rows == 1) { // a shared theta for each of y [N]
			args[0] = to(row(args[0]), []int{want[0], s.Len()})
		}
	case stdlib.DistMultinomial:
		if len(want) == 2 {
			args[0] = to(row(args[0]), want)
		}
	case stdlib.DistOrdinal:
		args[0] = to(args[0], want)
	}
}

// notLeaf records that data name's missing cells are no leaves, with why
// ("" for a note of its own elsewhere): Compile builds it again with them
// fitted (Model.noLeaf).
func (l *lowerer) notLeaf(name, why string) {
	if l.noLeaf == nil {
		l.noLeaf = map[string]string{}
	}
	l.noLeaf[name] = why
}
