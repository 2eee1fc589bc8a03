package compile

import (
	"fmt"
	"slices"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/stdlib"
)

// checkRows refuses, before the batch model is built, the uses of the
// subsampled data that mix its rows, where scaling a batch's term by N/B
// would not estimate the full one: a function whose result row does not
// come from the same row of its argument (a sum, a mean, a sort, a
// covariance, a transpose), a row picked by anything but a loop variable
// (y[i - 1]), and a ~ whose value is one vector over the rows under a
// multivariate density. A sum at the top of a target += (target +=
// sum(...)) is the sum over the rows, and allowed. In a loop over the
// rows, any function of one row (X[i], y[i]) and of values that read no
// row is that row's: dot_product(X[i], beta), log_sum_exp of a row's
// vector; all the rows there, or one with all of them (x[i] * y), are
// refused. Outputs are not checked: they are evaluated with the full data. A user function's body
// is checked at each call, its parameters reading the batch where their
// arguments do; a user density's body, like a target +=, may sum.
func checkRows(f *ast.File, info *check.Info, plan *batchPlan, errs *ast.ErrorList) {
	c := &rowChecker{info: info, plan: plan, errs: errs, sub: map[*check.Symbol]int{}, sums: map[*check.Symbol]ast.Expr{}, loop: map[*check.Symbol]bool{}}
	for _, name := range plan.names {
		for _, dv := range info.Data {
			if dv.Name == name {
				c.sub[dv.Symbol] = readsRows
			}
			if dv.Name == plan.size {
				c.size = dv.Symbol
			}
		}
	}
	c.stmts(f.Stmts)
}

type rowChecker struct {
	info *check.Info
	plan *batchPlan
	errs *ast.ErrorList
	sub  map[*check.Symbol]int // subsampled data, and the lets that read them: what they read (readsRow, readsRows)
	// sums are the lets whose value holds a sum over the rows (target), by
	// their values.
	sums map[*check.Symbol]ast.Expr
	rows int                    // loops over the rows around the statements checked
	loop map[*check.Symbol]bool // loop variables; true: over the rows (a bound reads N)
	size *check.Symbol          // N
	// bounds is true in a for loop's bounds, where N counts the batch's
	// rows as it should.
	bounds bool
	at     map[ast.Pos]bool
	// in names the calls of user functions being checked, for messages
	// at their bodies: " (in the call of f at m.gpp:4:9)".
	in string
	// links, when not nil, collects the uses that tie a row to rows by
	// their places (RowLinks) instead of the minibatch errors.
	links *[]RowLink
}

// RowLink is a use of the rows of data that reads them by their places:
// a range of them (y[1:]), a row picked by a number or an expression
// (y[t - 1], y[0]), a loop over part of them, or a function whose row i
// reads other rows in order (cumsum, ar_filter, diff). What describes it.
type RowLink struct {
	Pos  ast.Pos
	What string
}

// RowLinks returns the uses in f of the data names (a first axis of
// size rows) and of the values computed from them that read the rows by
// their places, in source order (outputs too). A model with none may be
// fitted to a subset of the rows (K-fold): its terms of the rows kept do
// not change; one with some ties a row's term to its neighbours (an
// AR(1)'s r[1:] ~ Normal(phi * r[:T-1], s)), which dropping rows rewires.
// Functions that mix the rows without an order (a mean, a sum, a GP
// covariance) are not links.
func RowLinks(f *ast.File, info *check.Info, names []string, size string) []RowLink {
	var links []RowLink
	c := &rowChecker{info: info, plan: &batchPlan{names: names, size: size}, errs: &ast.ErrorList{}, sub: map[*check.Symbol]int{}, sums: map[*check.Symbol]ast.Expr{}, loop: map[*check.Symbol]bool{}, links: &links}
	for _, dv := range info.Data {
		if slices.Contains(names, dv.Name) && dv.Name != size {
			c.sub[dv.Symbol] = readsRows
		}
		if dv.Name == size {
			c.size = dv.Symbol
		}
	}
	c.stmts(f.Stmts)
	slices.SortStableFunc(links, func(a, b RowLink) int {
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line - b.Pos.Line
		}
		return a.Pos.Col - b.Pos.Col
	})
	return links
}

// link records a RowLink (RowLinks); outside RowLinks it does nothing.
func (c *rowChecker) link(pos ast.Pos, format string, args ...any) {
	if c.links == nil {
		return
	}
	for _, l := range *c.links {
		if l.Pos == pos {
			return
		}
	}
	*c.links = append(*c.links, RowLink{pos, fmt.Sprintf(format, args...)})
}

// rowOrder lists the shape rules whose result row i reads other rows of
// an argument by their order (RowLinks); cumsum is Elementwise1.
var rowOrder = map[stdlib.ShapeRule]bool{
	stdlib.Filter: true, stdlib.TVFilter: true, stdlib.Diff: true, stdlib.Renewal: true, stdlib.HMM: true,
	stdlib.HMMStates: true, stdlib.HMMPath: true, stdlib.Head: true, stdlib.Segment: true, stdlib.Permute: true,
}

func (c *rowChecker) errorf(pos ast.Pos, format string, args ...any) {
	if c.links != nil { // RowLinks: the minibatch's errors are not links
		return
	}
	if c.at == nil {
		c.at = map[ast.Pos]bool{}
	}
	if c.at[pos] {
		return
	}
	c.at[pos] = true
	c.errs.Add(pos, "--minibatch "+c.plan.size+": "+format+c.in, args...)
}

func (c *rowChecker) stmts(ss []ast.Stmt) {
	for _, s := range ss {
		switch s := s.(type) {
		case *ast.LetStmt:
			c.let(c.info.Defs[s.Name], s.Value)
		case *ast.TildeStmt:
			if call := c.info.UserDensities[s.Dist]; call != nil {
				if c.target(call) == termRows { // the density's body is the term: a sum in it is over the rows
					c.term(call, readsRows)
				}
				continue
			}
			lhs := c.term(s.LHS, c.expr(s.LHS))
			for _, a := range s.Dist.Args {
				c.term(a, c.expr(a))
			}
			if s.Trunc != nil {
				for _, b := range []ast.Expr{s.Trunc.Lower, s.Trunc.Upper} {
					if b != nil {
						c.term(b, c.expr(b))
					}
				}
			}
			if lhs != readsRows {
				// a prior reading the rows is the lowerer's error; one
				// row's value (Y[i] ~ MvNormal(...) in a loop over the
				// rows) is that row's term under any density
				continue
			}
			if d := stdlib.LookupDist(s.Dist.Fun.Name); d != nil && d.Shape != stdlib.DistElementwise &&
				d.Shape != stdlib.DistCategorical && d.Shape != stdlib.DistOrdinal && d.Shape != stdlib.DistPoissonBinomial && d.Shape != stdlib.DistMvNormalRows {
				if t, ok := c.info.Types[s.LHS]; !ok || t.Shape.Rank() != 2 {
					c.errorf(s.Dist.Fun.Pos(), "%s here is one density over all the rows (a vector whose elements are the rows), not a term per row: it cannot be subsampled", s.Dist.Fun.Name)
				}
			}
		case *ast.TargetStmt:
			if c.target(s.Value) == termRows {
				c.term(s.Value, readsRows)
			}
		case *ast.ForStmt:
			c.bounds = true
			rows := false
			for _, b := range []ast.Expr{s.Lo, s.Hi} {
				if c.expr(b) != readsNone {
					c.errorf(b.Pos(), "a loop bound read from the subsampled rows is fixed when the model compiles: a batch cannot change it")
				}
				ast.Inspect(b, func(n ast.Node) bool {
					if id, ok := n.(*ast.Ident); ok && c.info.Uses[id] == c.size {
						rows = true
					}
					return true
				})
			}
			c.bounds = false
			c.loop[c.info.Defs[s.Var]] = rows
			if rows {
				c.rowLoop(s)
				c.rows++
			}
			c.stmts(s.Body)
			if rows {
				c.rows--
			}
		case *ast.IfStmt:
			for _, br := range s.Branches {
				if c.expr(br.Cond) != readsNone {
					c.errorf(br.Cond.Pos(), "a condition on the subsampled rows picks its branch when the model compiles: a batch cannot change it; write both cases as one density (a mixture, or logpdf per element), or fit the full data")
				}
				c.stmts(br.Body.Stmts)
			}
			if s.ElseBody != nil {
				c.stmts(s.ElseBody.Stmts)
			}
		case *ast.OutputStmt:
			if c.links != nil { // K-fold scores the held-out rows by the outputs
				c.expr(s.Value)
				if s.Dist != nil {
					for _, a := range s.Dist.Args {
						c.expr(a)
					}
				}
			}
		case *ast.ParamDecl:
			if s.Prior != nil {
				for _, a := range s.Prior.Args {
					c.expr(a)
				}
			}
		}
	}
}

// rowLoop refuses a loop over the rows that is not over all of them, 0:N
// (the batch's rows are not the data's rows 1 to N − 1: a batch of those
// is the data's B − 1 random rows), and one inside another (pairs of
// rows, N² terms, are not a batch's B²).
func (c *rowChecker) rowLoop(s *ast.ForStmt) {
	lo, ok := ast.Unparen(s.Lo).(*ast.NumberLit)
	hi, ok2 := ast.Unparen(s.Hi).(*ast.Ident)
	switch {
	case c.rows > 0:
		c.errorf(s.Var.Pos(), "a loop over the rows inside another pairs the rows: a batch's pairs are not a share of the full data's N² pairs; fit the full data")
	case !ok || lo.Value != 0 || !ok2 || c.info.Uses[hi] != c.size:
		c.link(s.Lo.Pos(), "a loop over part of the rows (%s:%s) picks them by their places", ast.FormatExpr(s.Lo), ast.FormatExpr(s.Hi))
		c.errorf(s.Lo.Pos(), "a loop over the rows must run over all of them, 0:%s: in a batch model it runs over the batch's B rows, and a part of them is not a share of the data's part", c.plan.size)
	}
}

// What a value reads of the subsampled data (rowChecker.expr): nothing,
// one row of them (in a loop over the rows, the row its variable picks:
// y[i], X[i], g[i], and what is computed from them and from values that
// read no row), or all the batch's rows, one per row of the value.
const (
	readsNone = iota
	readsRow
	readsRows
)

// Kinds of the value of a term (rowChecker.target): reading no
// subsampled data, one row's value (in a loop over the rows), made of the
// rows elementwise (a row's value per row, summed over them by the term),
// or a sum over the rows (a scalar). The first three are the reads*
// values.
const (
	termFixed = readsNone
	termRow   = readsRow
	termRows  = readsRows
	termSum   = readsRows + 1
)

// target checks the value of a term (a target +=, a user density's body)
// and returns its kind. Sums over the rows may appear in its additive
// structure: under +, −, a negation, sum(...), and a product or quotient
// by a value that reads no row, where the batch build scales each part
// that reads the rows by N/B and leaves the others
// (autodiff.Builder.ScaleSubsampled). A sum anywhere else (log(sum(...)),
// a product of it with a value of the rows, added to each row) is not a
// share of the full data's, and is refused here. A sum of one row's
// values in a loop over the rows (sum(X[i] .* beta)) is that row's.
func (c *rowChecker) target(e ast.Expr) int {
	switch x := e.(type) {
	case *ast.ParenExpr:
		return c.target(x.X)
	case *ast.UnaryExpr:
		if x.Op == ast.Neg {
			return c.target(x.X)
		}
	case *ast.Ident:
		if sym := c.info.Uses[x]; c.sums[sym] != nil {
			if c.rows > 0 {
				c.errorf(x.Pos(), "a sum over the subsampled rows inside a loop over them counts every row once per row: a term in the loop is one row's")
			}
			return termSum
		}
	case *ast.BinaryExpr:
		switch x.Op {
		case ast.Add, ast.Sub:
			l, r := c.target(x.X), c.target(x.Y)
			if l == termSum && r == termRows && !c.scalar(x.Y) || r == termSum && l == termRows && !c.scalar(x.X) {
				c.errorf(x.OpPos, "a sum over the subsampled rows added to each of their rows counts every row in each row's term: the batch's total is not a share of the full data's; add the sum to the target as a term of its own")
			}
			if k := c.mix(x.OpPos, min(l, termRows), min(r, termRows)); max(l, r) != termSum {
				return k
			}
			return termSum
		case ast.Mul, ast.Div:
			l, r := c.target(x.X), c.target(x.Y)
			switch {
			case r == termFixed:
				return l
			case l == termFixed && x.Op == ast.Mul:
				return r
			case l == termSum || r == termSum:
				c.errorf(x.OpPos, "a sum over the subsampled rows in a product or quotient with a value read from them is not a sum over the rows: the batch's is not a share of the full data's; only a sum times or divided by a value that reads no row can be subsampled")
			}
			return c.mix(x.OpPos, min(l, termRows), min(r, termRows)) // values of the rows, row by row
		}
	case *ast.CallExpr:
		if in := c.info.Inlines[x]; in != nil { // a user function's body is the value
			c.binds(in)
			defer c.inCall(x)()
			return c.target(in.Body)
		}
		if x.Fun.Name == "sum" && len(x.Args) == 1 {
			k := c.target(x.Args[0])
			switch {
			case k != termRows:
				return k // a sum of a sum, of one row's values, or of values that read no row
			case c.rows == 0:
				return termSum
			}
			c.errorf(x.Fun.Pos(), "a sum over the subsampled rows inside a loop over them counts every row once per row: a term in the loop is one row's (sum one row's values: sum(X[i] .* beta))")
			return termRow // reported: the term is not refused again
		}
	}
	return c.expr(e)
}

// term refuses, in a loop over the rows, a value of a term (e, which
// reads r) that holds all the batch's rows: each row's term would hold
// every row, N² pairs in the full model and B² in a batch's. It returns
// r.
func (c *rowChecker) term(e ast.Expr, r int) int {
	if c.rows > 0 && r == readsRows {
		c.errorf(e.Pos(), "%s holds all the subsampled rows in a loop over them, where a term is one row's: each row's term would count every row; pick the row by the loop variable (y[i], X[i])", ast.FormatExpr(e))
	}
	return r
}

// mix returns what a value made of values that read l and r reads, and
// refuses one row of the subsampled data combined with all of them (in a
// loop over the rows, x[i] * y pairs row i with every row); such a value,
// reported, counts as the row's, so that what holds it is not refused
// again.
func (c *rowChecker) mix(pos ast.Pos, l, r int) int {
	if min(l, r) == readsRow && max(l, r) == readsRows {
		c.errorf(pos, "one row of the subsampled data (picked by the loop variable) with all of them pairs each row with every other: a batch's pairs are not a share of the full data's; pick the same row of both (x[i] * y[i])")
		return readsRow
	}
	return max(l, r)
}

// scalar reports whether the checker typed e a scalar.
func (c *rowChecker) scalar(e ast.Expr) bool {
	t, ok := c.info.Types[e]
	return ok && t.Valid() && t.Shape.Rank() == 0
}

// let checks the value of a let (or a user function's argument or local
// let) bound to sym and records what sym reads; a value that holds a sum
// over the rows may be used in the additive structure of a term only
// (target), elsewhere it is the sum's error.
func (c *rowChecker) let(sym *check.Symbol, value ast.Expr) {
	switch k := c.target(value); k {
	case termSum:
		c.sub[sym], c.sums[sym] = readsRows, value
	default:
		c.sub[sym] = k
	}
}

// inCall records that the body of the call is being checked, and returns
// the function that ends it.
func (c *rowChecker) inCall(call *ast.CallExpr) func() {
	outer := c.in
	c.in = fmt.Sprintf(" (in the call of %s at %s)", call.Fun.Name, call.Fun.Pos()) + outer
	return func() { c.in = outer }
}

// binds checks the arguments and local lets of an expanded call of a user
// function, marking those that read the batch.
func (c *rowChecker) binds(in *check.Inline) {
	for _, b := range in.Binds {
		c.let(b.Sym, b.Value)
	}
}

// batchIndex reports whether an index that reads the batch is subsampled
// int data itself or picked from it (g, g[i], g[:, 0]): the batch build
// refreshes such indices with each batch (autodiff.GatherSub). One
// computed from them (g[i] - 1, a let) would be fixed when compiling.
func (c *rowChecker) batchIndex(ix ast.Expr) bool {
	ix = ast.Unparen(ix)
	if x, ok := ix.(*ast.IndexExpr); ok {
		ix = ast.Unparen(x.X)
	}
	id, ok := ix.(*ast.Ident)
	if !ok {
		return false
	}
	sym := c.info.Uses[id]
	return sym != nil && sym.Kind == check.Data && c.sub[sym] != readsNone
}

// dataIndex reports whether an index is int data or picked from it (g,
// g[i]).
func (c *rowChecker) dataIndex(ix ast.Expr) bool {
	ix = ast.Unparen(ix)
	if x, ok := ix.(*ast.IndexExpr); ok {
		ix = ast.Unparen(x.X)
	}
	id, ok := ix.(*ast.Ident)
	sym := c.info.Uses[id]
	return ok && sym != nil && sym.Kind == check.Data
}

// rowSafe lists the shape rules whose result row i is made from row i of
// each argument only.
var rowSafe = map[stdlib.ShapeRule]bool{
	stdlib.Elementwise1: true, stdlib.Elementwise2: true, stdlib.RowSum: true, stdlib.LogPDF: true, stdlib.ICDF: true,
	stdlib.DiagPre: true, stdlib.DiagPost: true, stdlib.AppendCol: true, stdlib.Constant: true,
	stdlib.Rep: true, stdlib.RepMatrix: true, stdlib.RowsDot: true,
}

// rowMixing lists the Elementwise1 functions that mix their argument's
// elements all the same (TestMinibatchRowMixing lists the others).
var rowMixing = map[string]bool{"softmax": true, "log_softmax": true, "cumsum": true}

// expr reports what e reads of the subsampled rows (readsNone, readsRow,
// readsRows), reporting the uses that mix them. A built-in of one row's
// values and of values that read no row is that row's, whatever it
// computes (dot_product(X[i], beta), log_sum_exp(log(w) + lp) of a row's
// vector lp, softmax(B' * X[i])); of all the rows it is per row only if
// its shape rule is (rowSafe).
func (c *rowChecker) expr(e ast.Expr) int {
	switch x := e.(type) {
	case nil:
		return readsNone
	case *ast.Ident:
		sym := c.info.Uses[x]
		if v := c.sums[sym]; v != nil {
			c.expr(v) // the sum's own error, at the sum
		}
		if sym != nil && sym == c.size && !c.bounds {
			c.errorf(x.Pos(), "%s as a value would be the batch size B in the batch model: write the model without it (a loop over 0:%s is fine), or fit the full data", x.Name, x.Name)
		}
		return c.sub[sym]
	case *ast.ParenExpr:
		return c.expr(x.X)
	case *ast.UnaryExpr:
		return c.expr(x.X)
	case *ast.BinaryExpr:
		return c.mix(x.OpPos, c.expr(x.X), c.expr(x.Y))
	case *ast.TransposeExpr:
		r := c.expr(x.X)
		if r == readsRows {
			c.errorf(x.Quote, "the transpose of a value read from the subsampled rows makes their rows columns (a product with it sums over the rows): write the model on the rows, or fit the full data")
		}
		return r // one row's transpose is that row's
	case *ast.VectorLit:
		r := readsNone
		for _, el := range x.Elems {
			r = c.mix(el.Pos(), r, c.expr(el))
		}
		return r
	case *ast.IndexExpr:
		r := c.expr(x.X)
		ixr := readsNone
		for k, ix := range x.Indices {
			if _, ok := ix.(*ast.SliceExpr); ok {
				c.sliceBounds(ix.(*ast.SliceExpr))
				if r == readsRows && k == 0 && !fullSlice(ix.(*ast.SliceExpr)) {
					c.link(ix.Pos(), "%s is a range of the rows, each paired with a row by its place", ast.FormatExpr(x))
					c.errorf(ix.Pos(), "a range of the subsampled rows is not a batch of them: index the rows by a loop variable or not at all")
				}
				continue
			}
			ri := c.expr(ix)
			if ri != readsNone && !c.batchIndex(ix) {
				c.errorf(ix.Pos(), "an index computed from the subsampled rows: not supported (the tape fixes it when the model compiles); index by the int data itself (u[g], or u[g[i]] in a loop over the rows), or fit the full data")
			}
			ixr = max(ixr, ri)
			id, isVar := ix.(*ast.Ident)
			rowVar, isLoop := c.loop[c.info.Uses[id]]
			switch {
			case r == readsRows && k == 0 && !(isVar && isLoop):
				if !c.dataIndex(ix) { // int data of row numbers are renumbered to the rows kept
					c.link(ix.Pos(), "%s picks a row by its place", ast.FormatExpr(x))
				}
				c.errorf(ix.Pos(), "a row of the subsampled data picked by %s: only a loop variable (y[i]) picks the row the term is about", ast.FormatExpr(ix))
			case r == readsRows && k == 0 && !rowVar:
				c.link(ix.Pos(), "%s picks a row by %s, whose loop is not over the rows", ast.FormatExpr(x), id.Name)
				c.errorf(ix.Pos(), "a row of the subsampled data picked by %s, whose loop is not over the rows (for %s in 0:%s): in a batch, row %s is a random row, not the data's row %s; loop over the rows or fit the full data", id.Name, id.Name, c.plan.size, id.Name, id.Name)
			case r == readsRows && k == 0 && rowVar:
				r = readsRow // y[i], X[i]: the row the loop's term is about
			case r == readsNone && isVar && rowVar:
				c.errorf(ix.Pos(), "%s runs over the batch's rows, but %s is not subsampled: in a batch, row %s is not the data's row %s; index only data whose first dimension is %s by it", id.Name, ast.FormatExpr(x.X), id.Name, id.Name, c.plan.size)
			}
		}
		return c.mix(x.Pos(), r, ixr) // u[g[i]] is row i's, u[g] the rows'
	case *ast.CallExpr:
		if in := c.info.Inlines[x]; in != nil {
			c.binds(in)
			defer c.inCall(x)()
			return c.expr(in.Body)
		}
		interp := c.info.Calls[x] != nil && c.info.Calls[x].Shape == stdlib.Interp
		r, table := readsNone, readsNone // table: what interp's xp and fp read
		for i, a := range x.Args {
			ra := c.expr(a)
			if i > 0 {
				table = max(table, ra)
			}
			r = c.mix(a.Pos(), r, ra)
		}
		if r != readsRows {
			return r // of one row (and values that read none), any function is that row's
		}
		if interp && table == readsNone {
			return readsRows // elementwise in x, its table the full data's
		}
		if f := stdlib.LookupFunc(x.Fun.Name); f != nil && (rowOrder[f.Form(len(x.Args)).Shape] || f.Name == "cumsum") {
			c.link(x.Fun.Pos(), "%s of the rows reads each row's predecessors in order", x.Fun.Name)
		}
		if f := stdlib.LookupFunc(x.Fun.Name); f != nil && (!rowSafe[f.Form(len(x.Args)).Shape] || rowMixing[f.Name]) {
			why := ""
			if f.Name == "group_sum" {
				why = "; group_sum's groups would be a batch's rows, not the data's: take it of data that is not subsampled (census cells beside survey rows), or fit the full data"
			}
			if f.Name == "sum" {
				why = "; a sum over the rows enters a term only through +, −, sum(...) and a product or quotient by a value that reads no row, which split the term into parts the batch scales by N/B apart from the others (target += prior + sum(...)): not inside a function (log(prior * likelihood)), a prior, or a let used elsewhere"
			}
			c.errorf(x.Fun.Pos(), "%s of a value read from the subsampled rows mixes the rows (a batch's %s is not a share of the full data's): only elementwise and per-row functions of the data, and sum(...) at the top of a target +=, can be subsampled; in a loop over the rows any function of one row is fine (dot_product(X[i], beta))%s", x.Fun.Name, x.Fun.Name, why)
		}
		return readsRows
	case *ast.SliceExpr:
		c.sliceBounds(x)
		return readsNone
	}
	return readsNone
}

func (c *rowChecker) sliceBounds(s *ast.SliceExpr) {
	if s.Lo != nil {
		c.expr(s.Lo)
	}
	if s.Hi != nil {
		c.expr(s.Hi)
	}
}

func fullSlice(s *ast.SliceExpr) bool { return s.Lo == nil && s.Hi == nil }
