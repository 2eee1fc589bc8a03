package compile

import (
	"fmt"
	"math"
	"slices"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/stdlib"
)

// A for loop whose iterations are independent and elementwise is lowered
// as vector operations over its index range, the way its vectorised form
// `y ~ Normal(a + b * x + u[g], s)` is, instead of being unrolled into a
// few scalar nodes per iteration: the loop variable is bound to the int
// vector lo, ..., hi−1, so that x[i] gathers x at the range and u[g[i]]
// gathers u by g there, and each ~ or target += adds the sum of its
// elements once. The tape then holds O(1) nodes in the loop's length, not
// O(N), and a gradient costs what the vectorised form's does.
//
// That is exact only when every quantity the body computes from the loop
// variable is a scalar per iteration (so that the vector form is the
// iterations side by side), each index it builds from i is i itself, i
// shifted by an int constant (x[t − 1], a lag: the terms of the rows side
// by side are the iterations', whichever rows they read), such an index
// % or %/% an int (season[t % 7]), or int data indexed by such an index, and each function it applies to them is
// elementwise. An if on data splits the rows into the rows of each
// branch, each lowered over its rows; a nested for over a fixed range
// makes each row as many rows, one per inner iteration. Stan's per-row
// vectors (X[i]' * B, softmax, log_sum_exp of a row) are the rows'
// matrix (looprows.go). A truncated ~ whose bounds are scalars per
// iteration is the vector truncation over the rows (truncData). Anything
// else — an inner range that depends on i, user functions, other uses of
// a vector per iteration, a ~ that does not depend on i — is unrolled as
// before (vecScan decides).

// unrollLoops turns vecFor off: the tests compare the two lowerings.
var unrollLoops = false

// vecLoop is the state of a loop being lowered as vectors.
type vecLoop struct {
	dep  map[*check.Symbol]bool // the loop variable, and the lets of the body computed from it
	rows map[*check.Symbol]bool // the lets of dep that are a vector per iteration (looprows.go)
	memo map[ast.Expr]bool      // vecScan.rowVec's answers
	n    int                    // rows lowered now: the range, or a branch's part of it
	sym  *check.Symbol          // the loop variable
	errs []rowErr               // the errors found in the rows, until the loop ends
}

// rowErr is an error found at a row of a loop lowered as vectors: its
// iteration it (the loop variable's value) and the error.
type rowErr struct {
	it  int
	pos ast.Pos
	msg string
}

// flushErrs reports the errors of the first iteration that has any, in
// the order found (the body's order): the unrolled loop reports that
// iteration's and stops.
func (l *lowerer) flushErrs(errs []rowErr) {
	if len(errs) == 0 {
		return
	}
	first := errs[0].it
	for _, e := range errs {
		first = min(first, e.it)
	}
	for _, e := range errs {
		if e.it == first {
			l.report(e.pos, "%s", e.msg)
		}
	}
}

// vecScan checks that a loop body can be lowered as vectors, collecting
// the lets that depend on the loop variable.
type vecScan struct {
	l    *lowerer
	dep  map[*check.Symbol]bool
	rows map[*check.Symbol]bool // the lets of dep that are per-row vectors
	memo map[ast.Expr]bool      // rowVec's answers, so that nested products stay linear
	// stop is the first let of the body used as an index that is no row
	// index (let k = g[i] - 1, then u[k]), for the note that the loop is
	// unrolled because of it.
	stop *ast.LetStmt
}

// vecFor lowers s over lo, ..., hi−1 as vector operations when it can and
// reports whether it did.
func (l *lowerer) vecFor(s *ast.ForStmt, lo, hi int) bool {
	// A range past the unrolled loops' limit keeps its error (lower.go).
	if unrollLoops || hi-lo < 1 || hi-lo > autodiff.MaxNodes || l.vec != nil || l.predict != nil || l.prior {
		return false
	}
	sym := l.info.Defs[s.Var]
	c := &vecScan{l: l, dep: map[*check.Symbol]bool{sym: true}, rows: map[*check.Symbol]bool{}, memo: map[ast.Expr]bool{}}
	if sym == nil || !c.stmts(s.Body) {
		if c.stop != nil && l.noteUnrolled != nil && !l.noteUnrolled[s] {
			l.noteUnrolled[s] = true
			l.notes = append(l.notes, fmt.Sprintf("%s: the loop over %s is unrolled, an iteration at a time, not lowered as vector operations, because it indexes by `%s` (%s), whose value `%s` is not the loop variable, one shifted by an int constant (%s - 1), or int data indexed by one (g[%s], directly or through such a let): an index of that form keeps the loop vectorised",
				s.For, s.Var.Name, c.stop.Name.Name, c.stop.Name.Pos(), ast.FormatExpr(c.stop.Value), s.Var.Name, s.Var.Name))
		}
		return false
	}
	rows := make([]int, hi-lo)
	for k := range rows {
		rows[k] = lo + k
	}
	l.vec = &vecLoop{dep: c.dep, rows: c.rows, memo: c.memo, n: len(rows), sym: sym}
	defer func() {
		errs := l.vec.errs
		l.vec = nil
		l.flushErrs(errs)
	}()
	defer l.b.InLoop(true)()
	defer l.inLoop(s, sym)()
	l.env[sym] = value{ints: rows, shape: []int{len(rows)}, isInt: true}
	defer l.iterAt()()
	l.vecStmts(s.Body)
	return true
}

// inLoop pushes the variable of loop s onto l.loops until done is called.
func (l *lowerer) inLoop(s *ast.ForStmt, sym *check.Symbol) (done func()) {
	if len(l.loops) == 0 {
		l.loopAt = s.Pos()
	}
	l.loops = append(l.loops, sym)
	return func() { l.loops = l.loops[:len(l.loops)-1] }
}

// iterAt marks the nodes built until done is called as those of the
// current iterations of l.loops (autodiff.Builder.AtIter), with the
// loop variables' values in l.env: one per iteration unrolled, one per
// row of a loop lowered as vectors. A batch build's loop over the rows
// runs over the batch, not the data's rows: its iterations are not named.
func (l *lowerer) iterAt() (done func()) {
	if l.batch != nil && l.batch.rowLoop > 0 {
		return l.b.AtIter(nil)
	}
	it := &autodiff.Iters{Loop: l.loopAt}
	for _, sym := range l.loops {
		if v, ok := l.env[sym]; ok && v.isInt && len(v.ints) > 0 {
			it.Vars = append(it.Vars, sym.Name)
			it.Vals = append(it.Vals, v.ints)
		}
	}
	if len(it.Vars) == 0 {
		return l.b.AtIter(nil)
	}
	return l.b.AtIter(it)
}

// vecStmts lowers a loop body, or a branch of one, over l.vec.n rows.
func (l *lowerer) vecStmts(body []ast.Stmt) {
	for _, t := range body {
		switch t := t.(type) {
		case *ast.IfStmt:
			l.vecIf(t)
		case *ast.ForStmt:
			l.vecNested(t)
		case *ast.LetStmt:
			if sym := l.info.Defs[t.Name]; l.vec.rows[sym] {
				l.env[sym] = value{id: l.rowMatrix(t.Value), node: true}
				break
			}
			l.stmt(t)
		case *ast.TargetStmt:
			if l.depends(t.Value) {
				l.stmt(t)
				break
			}
			// The same term in every row: added once per row.
			restore := l.splitPart(t)
			v := l.node(l.expr(t.Value), t.Value.Pos())
			if !l.b.Shape(v).IsScalar() {
				v = l.b.Sum(v, t.Value.Pos())
			}
			v = l.b.Mul(v, l.b.Scalar(float64(l.vec.n), t.Value.Pos()), t.Value.Pos())
			if t.Op == ast.Sub {
				v = l.b.Neg(v, t.OpPos)
			}
			l.add(v, t.Target)
			restore()
		default:
			l.stmt(t)
		}
	}
}

// vecNested lowers a for loop nested in a vectorised one: each current
// row becomes hi−lo rows, one per iteration of the inner loop, in the
// unrolled loops' order (the outer row's iterations together), with the
// outer loop variable and the lets computed from it repeated and the inner
// one running lo, ..., hi−1 along each.
func (l *lowerer) vecNested(s *ast.ForStmt) {
	lo, hi := l.expr(s.Lo), l.expr(s.Hi)
	if !lo.isInt || !hi.isInt || len(lo.ints) != 1 || len(hi.ints) != 1 {
		l.errorf(s.Lo.Pos(), "loop bounds must be int constants or data")
		return
	}
	n, m := l.vec.n, hi.ints[0]-lo.ints[0]
	if m < 1 {
		return
	}
	if int64(n)*int64(m) > autodiff.MaxNodes {
		l.errorf(s.Pos(), "loops unroll to more than %d iterations in all (this one has %d): write long loops as vector operations", autodiff.MaxNodes, n*m)
		return
	}
	outer, inner := make([]int, n*m), make([]int, n*m)
	for p := range n {
		for q := range m {
			outer[p*m+q], inner[p*m+q] = p, lo.ints[0]+q
		}
	}
	if l.rowLoop(s) {
		l.batch.rowLoop++
		defer func() { l.batch.rowLoop-- }()
	}
	sym := l.info.Defs[s.Var]
	defer l.inLoop(s, sym)()
	l.vecSubset(outer, s.For, func() {
		l.env[sym] = value{ints: inner, shape: []int{n * m}, isInt: true}
		defer l.iterAt()()
		l.vecStmts(s.Body)
	})
}

// cells lowers X[i, j] with two row indices (sel.row) of a vectorised
// loop: element (i_k, j_k) of X for each row k, gathered from X's
// elements row by row.
func (l *lowerer) cells(e *ast.IndexExpr, x value, r, c sel) value {
	dims := l.valueDims(x)
	if len(dims) != 2 {
		l.errorf(e.Lbrack, "two indices need a matrix")
		return value{}
	}
	flat := rowCells(r, c, dims[1])
	if x.isInt {
		w := value{ints: make([]int, len(flat)), shape: []int{len(flat)}, isInt: true, data: x.data}
		for k, f := range flat {
			w.ints[k] = x.ints[f]
		}
		if x.at != nil {
			w.at, w.atExpr = func(k int) ast.Pos { return x.at(flat[k]) }, x.atExpr
		}
		return w
	}
	sh := l.b.Shape(x.id)
	v := l.b.Reshape(x.id, autodiff.Vector(sh.Len()), e.Lbrack)
	return value{id: l.b.Gather(v, flat, e.Lbrack), node: true}
}

// rowCells returns the element, row by row in a matrix of cols columns,
// of each pair (i_k, j_k) of two row indices (cells).
func rowCells(r, c sel, cols int) []int {
	flat := make([]int, len(r.many))
	for k := range flat {
		flat[k] = r.many[k]*cols + c.many[k]
	}
	return flat
}

// depends reports whether e reads the loop variable or a let computed
// from it.
func (l *lowerer) depends(e ast.Expr) bool { return dependsOn(e, l.vec.dep, l.info) }

func dependsOn(e ast.Expr, dep map[*check.Symbol]bool, info *check.Info) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && dep[info.Uses[id]] {
			found = true
		}
		return !found
	})
	return found
}

// vecIf lowers an if in a vectorised loop: the rows whose first true
// condition is a branch's are lowered through that branch, with the loop
// variable and the lets computed from it gathered at them; the rows of no
// branch go to the else. Each condition is evaluated on the rows that the
// branches before it left, as the unrolled loop evaluates it.
func (l *lowerer) vecIf(s *ast.IfStmt) {
	left := make([]int, l.vec.n) // positions among the current rows
	for k := range left {
		left[k] = k
	}
	for _, br := range s.Branches {
		if len(left) == 0 {
			return
		}
		var vals []float64
		ok := true
		l.vecSubset(left, br.Cond.Pos(), func() { vals, _, ok = l.knownExpr(br.Cond) })
		if !ok {
			return
		}
		var take, rest []int
		for k, p := range left {
			if vals[min(k, len(vals)-1)] != 0 {
				take = append(take, p)
			} else {
				rest = append(rest, p)
			}
		}
		if len(take) > 0 {
			l.vecSubset(take, br.Cond.Pos(), func() { l.vecStmts(br.Body.Stmts) })
		}
		left = rest
	}
	if s.ElseBody != nil && len(left) > 0 {
		l.vecSubset(left, s.Else, func() { l.vecStmts(s.ElseBody.Stmts) })
	}
}

// vecSubset runs f with the loop variable and the lets computed from it
// restricted to the rows at positions sub of the current ones, then
// restores them.
func (l *lowerer) vecSubset(sub []int, pos ast.Pos, f func()) {
	n := l.vec.n
	saved := map[*check.Symbol]value{}
	defer func() {
		// The lets of the branch end with it (its scope); the others
		// are the outer rows' again.
		for sym := range l.vec.dep {
			if v, ok := saved[sym]; ok {
				l.env[sym] = v
			} else {
				delete(l.env, sym)
			}
		}
		l.vec.n = n
	}()
	for sym := range l.vec.dep {
		v, ok := l.env[sym]
		if !ok {
			continue
		}
		saved[sym] = v
		if len(sub) == n { // all of them, in order
			continue
		}
		w := value{}
		if v.isInt && len(v.ints) == n {
			w.ints, w.shape, w.isInt = make([]int, len(sub)), []int{len(sub)}, true
			for k, p := range sub {
				w.ints[k] = v.ints[p]
			}
			if v.at != nil {
				w.at, w.atExpr = func(k int) ast.Pos { return v.at(sub[k]) }, v.atExpr
			}
			w.data = v.data
		}
		if v.node {
			w.id, w.node = l.b.Gather(v.id, sub, pos), true
		}
		l.env[sym] = w
	}
	l.vec.n = len(sub)
	defer l.iterAt()()
	f()
}

// identityRows reports whether s gathers every row of an axis of n, in
// order (a loop over the whole axis: x[i] is x).
func identityRows(s sel, n int) bool {
	if s.kind != selMany || len(s.many) != n {
		return false
	}
	for k, i := range s.many {
		if i != k {
			return false
		}
	}
	return true
}

// vecIndexInRange checks, in a vectorised loop, an index vector built from
// the loop variable as the unrolled loop checked each iteration's scalar
// index (oneInRange): the first out of range is reported at the index,
// or, for an index read from data (a[g[n]]), at its data cell with the
// advice on 1-based ids that the vectorised form (a[g]) gives.
func (l *lowerer) vecIndexInRange(e *ast.IndexExpr, s sel, n, axis int) bool {
	for k, i := range s.many {
		if s.at != nil && (i < 0 || i >= n) {
			l.dataIndexError(e, i, n, axis, k, s.at(k), s.atExpr, s.pos, s.many)
			return false
		}
		if !l.oneInRangeRow(e, sel{kind: selOne, one: i, pos: s.pos}, n, axis, k) {
			return false
		}
	}
	return true
}

func (c *vecScan) stmts(body []ast.Stmt) bool {
	for _, t := range body {
		if !c.stmt(t) {
			return false
		}
	}
	return true
}

func (c *vecScan) stmt(s ast.Stmt) bool {
	info := c.l.info
	switch s := s.(type) {
	case *ast.TildeStmt:
		if info.UserDensities[s.Dist] != nil || slices.Contains(info.OrderedIID, s) {
			return false
		}
		if s.Trunc != nil && !c.truncBounds(s.Trunc) {
			return false
		}
		if s.Trunc == nil && (c.rowCategorical(s) || c.rowMultinomial(s) || c.rowDirichlet(s) || c.rowMvNormal(s) || c.rowMvNormalChol(s)) {
			return true
		}
		if !c.univariate(s.Dist) {
			return false
		}
		dep, ok := c.expr(s.LHS, false)
		if !ok || !dep {
			return false // a term not of the rows
		}
		for _, a := range s.Dist.Args {
			if _, ok := c.expr(a, false); !ok {
				return false
			}
		}
		return true
	case *ast.TargetStmt:
		_, ok := c.expr(s.Value, false)
		return ok
	case *ast.LetStmt:
		if c.rowVec(s.Value) { // let lp = log(w) + logpdf(y[i], Normal(m, s))
			sym := info.Defs[s.Name]
			c.dep[sym], c.rows[sym] = true, true
			return true
		}
		dep, ok := c.expr(s.Value, false)
		if ok && dep {
			c.dep[info.Defs[s.Name]] = true
		}
		return ok
	case *ast.ForStmt:
		// A nested loop over a range that the outer rows do not change:
		// its iterations for every outer row, side by side.
		sym := info.Defs[s.Var]
		if sym == nil || c.mentions(s.Lo) || c.mentions(s.Hi) {
			return false
		}
		c.dep[sym] = true
		return c.stmts(s.Body)
	case *ast.IfStmt:
		for _, br := range s.Branches {
			// A condition that is not a scalar is the unrolled loop's
			// error to report.
			t := info.Types[br.Cond]
			if _, ok := c.expr(br.Cond, true); !ok || !t.Valid() || t.Shape.Rank() != 0 || !c.stmts(br.Body.Stmts) {
				return false
			}
		}
		return s.ElseBody == nil || c.stmts(s.ElseBody.Stmts)
	}
	return false
}

// truncBounds reports whether the bounds of a truncation T[L, U] in a
// loop can be lowered as vectors: each a scalar per iteration (a bound of
// the row, lo[i], or of none), so that truncData's normaliser takes the
// rows' bounds side by side as it takes a vector ~'s.
func (c *vecScan) truncBounds(t *ast.Truncation) bool {
	for _, b := range []ast.Expr{t.Lower, t.Upper} {
		if b == nil {
			continue
		}
		if _, ok := c.expr(b, false); !ok {
			return false
		}
		if tb := c.l.info.Types[b]; !tb.Valid() || tb.Shape.Rank() != 0 {
			return false // a vector bound is the unrolled loop's error
		}
	}
	return true
}

// expr reports whether e depends on the loop variable (dep) and whether it
// can be lowered as vectors (ok). cond allows the comparisons of an if
// condition.
func (c *vecScan) expr(e ast.Expr, cond bool) (dep, ok bool) {
	info := c.l.info
	dep, ok = c.expr1(e, cond)
	if ok && dep {
		// Per iteration a scalar, so that the rows side by side are a
		// vector and every operator on them is elementwise.
		t, known := info.Types[e]
		ok = known && t.Valid() && t.Shape.Rank() == 0
	}
	return dep, ok
}

func (c *vecScan) expr1(e ast.Expr, cond bool) (dep, ok bool) {
	info := c.l.info
	switch e := e.(type) {
	case *ast.NumberLit:
		return false, true
	case *ast.Ident:
		return c.dep[info.Uses[e]], true
	case *ast.ParenExpr:
		return c.expr(e.X, cond)
	case *ast.TransposeExpr:
		if t := info.Types[e.X]; t.Valid() && t.Shape.Rank() == 0 {
			return c.expr(e.X, cond) // a scalar's transpose is itself
		}
	case *ast.UnaryExpr:
		if e.Op == ast.Not && !cond {
			return false, !c.mentions(e)
		}
		return c.expr(e.X, cond)
	case *ast.BinaryExpr:
		if e.Op.IsLogical() && (!cond || e.Op == ast.And || e.Op == ast.Or) {
			// && and || short-circuit per iteration; a comparison outside
			// a condition is a step node. Both stay unrolled.
			return false, !c.mentions(e)
		}
		dx, okx := c.expr(e.X, cond)
		dy, oky := c.expr(e.Y, cond)
		return dx || dy, okx && oky
	case *ast.CallExpr:
		dep = c.mentions(e)
		if !dep {
			return false, true
		}
		f := info.Calls[e]
		if info.Inlines[e] != nil || info.ODEs[e] != nil || info.Algebras[e] != nil || info.Integrals[e] != nil || f == nil {
			return true, false
		}
		if f.Op == "logpdf" || f.Op == "logcdf" || f.Op == "logccdf" {
			// logpdf(y[i], D(args)) of an elementwise D: per element.
			d, ok := ast.Unparen(e.Args[1]).(*ast.CallExpr)
			if !ok || !c.univariate(d) {
				return true, false
			}
			if _, ok := c.expr(e.Args[0], cond); !ok {
				return true, false
			}
			for _, a := range d.Args {
				if _, ok := c.expr(a, cond); !ok {
					return true, false
				}
			}
			return true, true
		}
		if f.Name == "dot_product" {
			if _, _, _, ok := c.rowDot(e); ok {
				return true, true
			}
		}
		if c.rowReduce(e) {
			return true, true
		}
		if f.Shape == stdlib.Interp {
			// elementwise in x, the table the same for every row
			if c.mentions(e.Args[1]) || c.mentions(e.Args[2]) {
				return true, false
			}
			_, ok := c.expr(e.Args[0], cond)
			return true, ok
		}
		if f.Shape != stdlib.Elementwise1 && f.Shape != stdlib.Elementwise2 {
			return true, false
		}
		for _, a := range e.Args {
			if _, ok := c.expr(a, cond); !ok {
				return true, false
			}
		}
		return true, true
	case *ast.IndexExpr:
		if c.rowElem(e) { // v[0] of a vector per iteration
			return true, true
		}
		if dx, ok := c.expr(e.X, cond); dx || !ok {
			return dx, false
		}
		n := 0
		for _, ix := range e.Indices {
			if !c.mentions(ix) {
				continue
			}
			n++
			if !c.rowIndex(ix) {
				return true, false
			}
		}
		// Two row indices, X[i, j], pick one element per row.
		return n > 0, n <= 1 || n == 2 && len(e.Indices) == 2
	}
	// Anything else (a vector literal, a transpose) only when the rows
	// do not enter it.
	return false, !c.mentions(e)
}

// rowDot recognises dot_product(X[i], beta) (either way round) with a
// matrix X and a vector beta that do not depend on the loop: per
// iteration a row of X times beta, which the rows side by side make the
// rows' sums of X[rows] .* beta'. It returns the row, the vector and the
// row's argument (0 or 1).
func (c *vecScan) rowDot(e *ast.CallExpr) (row *ast.IndexExpr, v ast.Expr, k int, ok bool) {
	info := c.l.info
	if len(e.Args) != 2 {
		return nil, nil, 0, false
	}
	for k := range 2 {
		r, isIndex := ast.Unparen(e.Args[k]).(*ast.IndexExpr)
		other := e.Args[1-k]
		if !isIndex || len(r.Indices) != 1 || c.mentions(r.X) || c.mentions(other) || !c.rowIndex(r.Indices[0]) {
			continue
		}
		tx, tv := info.Types[r.X], info.Types[other]
		if tx.Valid() && tx.Shape.Rank() == 2 && tv.Valid() && tv.Shape.Rank() == 1 {
			return r, other, k, true
		}
	}
	return nil, nil, 0, false
}

// rowDot lowers dot_product(X[i], beta) in a vectorised loop
// (vecScan.rowDot) as the unrolled loop's sum of the products, a row at a
// time: rowsum(X[rows] .* beta'), the products' node a vector per row, so
// that an overflow names its row and element as the unrolled loop's does.
func (l *lowerer) rowDot(e *ast.CallExpr) (value, bool) {
	c := l.rowVecScan()
	r, v, k, ok := c.rowDot(e)
	if !ok {
		return value{}, false
	}
	b, pos := l.b, e.Fun.Pos()
	x := l.expr(r.X)
	s, ok := l.resolve(r.Indices[0])
	if !ok || !l.rowsInRange(r, x, []sel{s}) {
		return value{}, true
	}
	id := l.gatherRows(l.node(x, r.X.Pos()), s)
	w := l.node(l.expr(v), v.Pos())
	cols := b.Shape(w).Rows
	w = b.Reshape(w, autodiff.Matrix(1, cols), v.Pos())
	done := l.iterEach(autodiff.Vector(cols))
	var p autodiff.ID
	if k == 0 {
		p = b.Mul(id, w, pos)
	} else {
		p = b.Mul(w, id, pos)
	}
	done()
	return value{id: b.RowSum(p, pos), node: true}, true
}

// univariate reports whether call is an elementwise distribution, whose
// log density of a vector is the sum of its elements'.
func (c *vecScan) univariate(call *ast.CallExpr) bool {
	d := c.l.info.Dists[call]
	if d == nil || d.Shape != stdlib.DistElementwise {
		return false
	}
	_, ok := dist.LookupUnivariate(d.Name)
	return ok
}

// rowIndex reports whether an index is the loop variable itself or int
// data indexed by one (g[i], g[h[i]]), one of them % or %/% an int of the
// data (i % 7), or a let of the body whose value is one (let k = g[i],
// then u[k]), as its value is.
func (c *vecScan) rowIndex(e ast.Expr) bool {
	info := c.l.info
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		sym := info.Uses[e]
		if sym != nil && sym.Kind == check.Let && c.dep[sym] {
			// let i = g[n], then u[i]: the let's value in its place
			ls, ok := sym.Decl.(*ast.LetStmt)
			if ok && c.rowIndex(ls.Value) {
				return true
			}
			if ok && c.stop == nil {
				c.stop = ls
			}
			return false
		}
		return sym != nil && sym.Kind == check.LoopVar && c.dep[sym]
	case *ast.IndexExpr:
		id, ok := ast.Unparen(e.X).(*ast.Ident)
		if !ok || len(e.Indices) != 1 {
			return false
		}
		sym := info.Uses[id]
		if sym == nil || sym.Kind != check.Data {
			return false
		}
		if dv := info.DataVar(sym.Name); dv == nil || dv.Elem != check.Int {
			return false
		}
		return c.rowIndex(e.Indices[0])
	case *ast.BinaryExpr:
		if e.Op == ast.Mod || e.Op == ast.IntDiv {
			// i % 7, g[i] %/% K: ints of the rows computed on the Go side
			// (intOp), a zero divisor reported at its row's iteration
			return (c.rowIndex(e.X) || c.invariantInt(e.X)) && (c.rowIndex(e.Y) || c.invariantInt(e.Y)) && (c.mentions(e.X) || c.mentions(e.Y))
		}
		// i - 1, i + c, c + i: a row index shifted by an int constant
		// (a lag, x[t - 1]); rowsInRange reports a row it takes out of
		// range at that row's iteration, as the unrolled loop did
		if e.Op != ast.Add && e.Op != ast.Sub {
			return false
		}
		if c.rowIndex(e.X) && c.intConst(e.Y) {
			return true
		}
		return e.Op == ast.Add && c.intConst(e.X) && c.rowIndex(e.Y)
	}
	return false
}

// intConst reports whether e is an int known before the fit from
// constants alone (1, K - 1 of a const K), not from the loop.
func (c *vecScan) intConst(e ast.Expr) bool {
	t, ok := c.l.info.Types[e]
	return ok && t.Valid() && t.Const != nil && *t.Const == math.Trunc(*t.Const) && !c.mentions(e)
}

// invariantInt reports whether e is an int scalar of the data and
// constants alone (7, K, n_weeks) that does not read the loop.
func (c *vecScan) invariantInt(e ast.Expr) bool {
	t, ok := c.l.info.Types[e]
	return ok && t.Valid() && t.Elem == check.Int && t.DataOnly && t.Shape.Rank() == 0 && !c.mentions(e)
}

// mentions reports whether e reads the loop variable or a let computed
// from it.
func (c *vecScan) mentions(e ast.Expr) bool { return dependsOn(e, c.dep, c.l.info) }

// valueDims returns the dimensions of x, an int value known when the
// model compiles or a node; nil for another.
func (l *lowerer) valueDims(x value) []int {
	switch {
	case x.isInt:
		return x.shape
	case x.node:
		return dimsOf(l.b.Shape(x.id))
	}
	return nil
}

// rowsInRange checks the row indices of e (sel.row) as vecIndexInRange
// does, and drops their cells: an index out of range is reported at the
// index expression, as the unrolled loop reported it.
func (l *lowerer) rowsInRange(e *ast.IndexExpr, x value, sels []sel) bool {
	if l.vec == nil {
		return true
	}
	dims := l.valueDims(x)
	for k, s := range sels {
		if !s.row || k >= len(dims) {
			continue
		}
		if !l.vecIndexInRange(e, s, dims[k], k) {
			return false
		}
		sels[k].at = nil
	}
	return true
}
