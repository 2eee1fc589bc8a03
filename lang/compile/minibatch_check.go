package compile

import (
	"fmt"

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
// sum(...)) is the sum over the rows, and allowed. Outputs are not
// checked: they are evaluated with the full data. A user function's body
// is checked at each call, its parameters reading the batch where their
// arguments do; a user density's body, like a target +=, may sum.
func checkRows(f *ast.File, info *check.Info, plan *batchPlan, errs *ast.ErrorList) {
	c := &rowChecker{info: info, plan: plan, errs: errs, sub: map[*check.Symbol]bool{}, loop: map[*check.Symbol]bool{}}
	for _, name := range plan.names {
		for _, dv := range info.Data {
			if dv.Name == name {
				c.sub[dv.Symbol] = true
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
	sub  map[*check.Symbol]bool // subsampled data, and the lets that read them
	loop map[*check.Symbol]bool // loop variables; true: over the rows (a bound reads N)
	size *check.Symbol          // N
	// bounds is true in a for loop's bounds, where N counts the batch's
	// rows as it should.
	bounds bool
	at     map[ast.Pos]bool
	// in names the calls of user functions being checked, for messages
	// at their bodies: " (in the call of f at m.gpp:4:9)".
	in string
}

func (c *rowChecker) errorf(pos ast.Pos, format string, args ...any) {
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
			if c.expr(s.Value) {
				c.sub[c.info.Defs[s.Name]] = true
			}
		case *ast.TildeStmt:
			if call := c.info.UserDensities[s.Dist]; call != nil {
				c.target(call) // the density's body is the term: a sum in it is over the rows
				continue
			}
			lhs := c.expr(s.LHS)
			args := false
			for _, a := range s.Dist.Args {
				args = c.expr(a) || args
			}
			if s.Trunc != nil {
				for _, b := range []ast.Expr{s.Trunc.Lower, s.Trunc.Upper} {
					if b != nil {
						args = c.expr(b) || args
					}
				}
			}
			if !lhs {
				continue // a prior reading the rows is the lowerer's error
			}
			if d := stdlib.LookupDist(s.Dist.Fun.Name); d != nil && d.Shape != stdlib.DistElementwise &&
				d.Shape != stdlib.DistCategorical && d.Shape != stdlib.DistOrdinal && d.Shape != stdlib.DistMvNormalRows {
				if t, ok := c.info.Types[s.LHS]; !ok || t.Shape.Rank() != 2 {
					c.errorf(s.Dist.Fun.Pos(), "%s here is one density over all the rows (a vector whose elements are the rows), not a term per row: it cannot be subsampled", s.Dist.Fun.Name)
				}
			}
		case *ast.TargetStmt:
			c.target(s.Value)
		case *ast.ForStmt:
			c.bounds = true
			rows := false
			for _, b := range []ast.Expr{s.Lo, s.Hi} {
				if c.expr(b) {
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
			c.stmts(s.Body)
		case *ast.IfStmt:
			for _, br := range s.Branches {
				if c.expr(br.Cond) {
					c.errorf(br.Cond.Pos(), "a condition on the subsampled rows picks its branch when the model compiles: a batch cannot change it; write both cases as one density (a mixture, or logpdf per element), or fit the full data")
				}
				c.stmts(br.Body.Stmts)
			}
			if s.ElseBody != nil {
				c.stmts(s.ElseBody.Stmts)
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

// target checks the value of a target +=: sums, sums of sums, negations
// and scalings at its top are the sum over the rows.
func (c *rowChecker) target(e ast.Expr) {
	switch x := e.(type) {
	case *ast.ParenExpr:
		c.target(x.X)
		return
	case *ast.UnaryExpr:
		if x.Op == ast.Neg {
			c.target(x.X)
			return
		}
	case *ast.BinaryExpr:
		switch x.Op {
		case ast.Add, ast.Sub:
			c.target(x.X)
			c.target(x.Y)
			return
		case ast.Mul: // a constant or param times a sum over the rows
			l, r := c.reads(x.X), c.reads(x.Y)
			switch {
			case l && r:
				c.errorf(x.OpPos, "a product of two values read from the subsampled rows is not a sum over them")
			case l:
				c.target(x.X)
				c.expr(x.Y)
			default:
				c.expr(x.X)
				c.target(x.Y)
			}
			return
		}
	case *ast.CallExpr:
		if in := c.info.Inlines[x]; in != nil { // a user function's body is the value
			c.binds(in)
			defer c.inCall(x)()
			c.target(in.Body)
			return
		}
		if x.Fun.Name == "sum" && len(x.Args) == 1 {
			c.expr(x.Args[0])
			return
		}
	}
	c.expr(e)
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
		if c.expr(b.Value) {
			c.sub[b.Sym] = true
		}
	}
}

// reads reports whether e reads the subsampled rows, reporting nothing.
func (c *rowChecker) reads(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && c.sub[c.info.Uses[id]] {
			found = true
		}
		return !found
	})
	return found
}

// batchIndex reports whether an index that reads the batch is subsampled
// int data itself or picked from it (g, g[i], g[:, 0]): the batch build
// refreshes such indices with each batch (autodiff.GatherSub). One
// computed from them (g[i] - 1, a let) would be fixed when compiling.
func (c *rowChecker) batchIndex(ix ast.Expr) bool {
	ix = unparen(ix)
	if x, ok := ix.(*ast.IndexExpr); ok {
		ix = unparen(x.X)
	}
	id, ok := ix.(*ast.Ident)
	if !ok {
		return false
	}
	sym := c.info.Uses[id]
	return sym != nil && sym.Kind == check.Data && c.sub[sym]
}

// rowSafe lists the shape rules whose result row i is made from row i of
// each argument only.
var rowSafe = map[stdlib.ShapeRule]bool{
	stdlib.Elementwise1: true, stdlib.Elementwise2: true, stdlib.RowSum: true, stdlib.LogPDF: true,
	stdlib.DiagPre: true, stdlib.DiagPost: true, stdlib.AppendCol: true, stdlib.Constant: true,
	stdlib.Rep: true, stdlib.RepMatrix: true, stdlib.RowsDot: true,
}

// rowMixing lists the Elementwise1 functions that mix their argument's
// elements all the same.
var rowMixing = map[string]bool{
	"softmax": true, "log_softmax": true, "cumulative_sum": true, "sort_asc": true, "sort_desc": true,
	"reverse": true, "rank": true, "sort_indices_asc": true, "sort_indices_desc": true,
}

// expr reports whether e reads the subsampled rows, reporting the uses
// that mix them.
func (c *rowChecker) expr(e ast.Expr) bool {
	switch x := e.(type) {
	case nil:
		return false
	case *ast.Ident:
		sym := c.info.Uses[x]
		if sym != nil && sym == c.size && !c.bounds {
			c.errorf(x.Pos(), "%s as a value would be the batch size B in the batch model: write the model without it (a loop over 0:%s is fine), or fit the full data", x.Name, x.Name)
		}
		return c.sub[sym]
	case *ast.ParenExpr:
		return c.expr(x.X)
	case *ast.UnaryExpr:
		return c.expr(x.X)
	case *ast.BinaryExpr:
		l, r := c.expr(x.X), c.expr(x.Y)
		return l || r
	case *ast.TransposeExpr:
		if c.expr(x.X) {
			c.errorf(x.Quote, "the transpose of a value read from the subsampled rows makes their rows columns (a product with it sums over the rows): write the model on the rows, or fit the full data")
			return true
		}
		return false
	case *ast.VectorLit:
		any := false
		for _, el := range x.Elems {
			any = c.expr(el) || any
		}
		return any
	case *ast.IndexExpr:
		r := c.expr(x.X)
		for k, ix := range x.Indices {
			if _, ok := ix.(*ast.SliceExpr); ok {
				c.sliceBounds(ix.(*ast.SliceExpr))
				if r && k == 0 && !fullSlice(ix.(*ast.SliceExpr)) {
					c.errorf(ix.Pos(), "a range of the subsampled rows is not a batch of them: index the rows by a loop variable or not at all")
				}
				continue
			}
			if c.expr(ix) && !c.batchIndex(ix) {
				c.errorf(ix.Pos(), "an index computed from the subsampled rows: not supported (the tape fixes it when the model compiles); index by the int data itself (u[g], or u[g[i]] in a loop over the rows), or fit the full data")
			}
			id, isVar := ix.(*ast.Ident)
			_, isLoop := c.loop[c.info.Uses[id]]
			switch {
			case r && k == 0 && !(isVar && isLoop):
				c.errorf(ix.Pos(), "a row of the subsampled data picked by %s: only a loop variable (y[i]) picks the row the term is about", ast.FormatExpr(ix))
			case !r && isVar && c.loop[c.info.Uses[id]]:
				c.errorf(ix.Pos(), "%s runs over the batch's rows, but %s is not subsampled: in a batch, row %s is not the data's row %s; index only data whose first dimension is %s by it", id.Name, ast.FormatExpr(x.X), id.Name, id.Name, c.plan.size)
			}
		}
		return r
	case *ast.CallExpr:
		if in := c.info.Inlines[x]; in != nil {
			c.binds(in)
			defer c.inCall(x)()
			return c.expr(in.Body)
		}
		any := false
		for _, a := range x.Args {
			any = c.expr(a) || any
		}
		if !any {
			return false
		}
		if f := stdlib.LookupFunc(x.Fun.Name); f != nil && (!rowSafe[f.Form(len(x.Args)).Shape] || rowMixing[f.Name]) {
			c.errorf(x.Fun.Pos(), "%s of a value read from the subsampled rows mixes the rows (a batch's %s is not a share of the full data's): only elementwise and per-row functions of the data, and sum(...) at the top of a target +=, can be subsampled", x.Fun.Name, x.Fun.Name)
		}
		return true
	case *ast.SliceExpr:
		c.sliceBounds(x)
		return false
	}
	return false
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
