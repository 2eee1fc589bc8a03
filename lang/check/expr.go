package check

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/stdlib"
)

// expr checks an expression and records its type.
func (c *checker) expr(e ast.Expr) Type {
	t := c.expr1(e)
	if t.Valid() {
		t.Range = c.rangeOf(e, t)
		t = refine(t)
		t.Support = normSupport(t.Elem, t.Support)
	}
	c.info.Types[e] = t
	return t
}

func (c *checker) expr1(e ast.Expr) Type {
	switch e := e.(type) {
	case *ast.Ident:
		return c.ident(e)
	case *ast.NumberLit:
		v := e.Value
		elem := Real
		if e.IsInt {
			elem = Int
			if _, exact := IntegerText(e.Raw, v); !exact || math.Abs(v) > MaxInt {
				c.errorf(e.Pos(), "integer %s is too large: an int holds at most 2^53 in magnitude", e.Raw)
				return invalid
			}
		}
		return Type{Elem: elem, Support: valueSupport(elem, v), DataOnly: true, Const: &v}
	case *ast.ParenExpr:
		return c.expr(e.X)
	case *ast.UnaryExpr:
		x := c.expr(e.X)
		if !x.Valid() {
			return invalid
		}
		if e.Op == ast.Not {
			return c.logical(e, []Type{x}, x.Shape)
		}
		t := Type{Elem: x.Elem, Shape: x.Shape, Support: dist.Real, DataOnly: x.DataOnly}
		if x.Const != nil {
			v := -*x.Const
			t.Const, t.Support = &v, valueSupport(x.Elem, v)
		}
		return t
	case *ast.BinaryExpr:
		return c.binary(e)
	case *ast.TransposeExpr:
		x := c.expr(e.X)
		if !x.Valid() {
			return invalid
		}
		if x.Support == dist.Simplex && len(x.Shape) == 2 && !x.Shape[0].isOne() {
			// a matrix's simplex rows become columns: its rows need not sum to 1
			x.Support = dist.NonNegative
		}
		x.Shape = transpose(x.Shape)
		return x
	case *ast.CallExpr:
		return c.call(e)
	case *ast.IndexExpr:
		return c.index(e)
	case *ast.VectorLit:
		return c.vectorLit(e)
	case *ast.SliceExpr:
		c.errorf(e.Colon, "a slice lo:hi is allowed only inside an index")
		return invalid
	}
	panic(fmt.Sprintf("check: unexpected expression %T", e))
}

func (c *checker) ident(id *ast.Ident) Type {
	sym := c.lookup(id.Name)
	if sym == nil {
		c.undeclared(id)
		return invalid
	}
	c.info.Uses[id] = sym
	if sym.Kind == Output && !c.inOutput {
		cure := "use a let"
		if o, ok := sym.Decl.(*ast.OutputStmt); ok && o.Dist != nil {
			// a replicate is drawn at each draw: no let can be
			cure = fmt.Sprintf("`%s` is drawn at each draw of q, which no let can be, so make what reads it an output too (output NAME = EXPR after %s's)", id.Name, id.Name)
		}
		c.errorf(id.NamePos, "`%s` is an output (declared at %s): outputs are computed after the fit and can be used only in later outputs; %s",
			id.Name, sym.Pos, cure)
		return invalid
	}
	t := sym.Type
	switch sym.Kind {
	case Param, Output:
		t.DataOnly = false
	}
	return t
}

// undeclared reports an unknown name once per name, with the most useful
// explanation: a built-in used as a value, a use before the declaration, a
// name used in its own definition, or a suggestion.
func (c *checker) undeclared(id *ast.Ident) {
	name := id.Name
	if c.reported[name] {
		return
	}
	c.reported[name] = true
	switch {
	case freeName(name):
		c.errorf(id.NamePos, "undeclared name `%s` (the built-in function is called as %s)", name, stdlib.LookupFunc(name).Signature())
	case builtinKind(name) == "function":
		c.errorf(id.NamePos, "`%s` is a built-in function; call it as %s (built-in names are reserved: give a size or a value of your own another name)", name, stdlib.LookupFunc(name).Signature())
	case builtinKind(name) == "distribution":
		c.errorf(id.NamePos, "`%s` is a distribution; use it on the right of ~ as %s", name, stdlib.LookupDist(name).Signature())
	case c.fns[name] != nil:
		fd := c.fns[name]
		c.errorf(id.NamePos, "`%s` is a function (declared at %s); call it as %s", name, fd.decl.Name.NamePos, fnSignature(fd.decl))
	case name == c.defining && c.definingLet:
		// Stan's loop that fills x[t] from x[t-1] has no gpp form but this.
		c.errorf(id.NamePos, "`%s` is used in its own definition; gpp has no assignment, so a recursion cannot fill a let element by element: a linear one, x[t] = e[t] + phi * x[t-1], is ar_filter(phi, e), with a coefficient per time step, x[t] = a[t] * x[t-1] + e[t], tv_filter(a, e), and the renewal equation, x[t] = R[t] * (w[0] * x[t-1] + ... + w[S-1] * x[t-S]), renewal(R, w, x0) with x0 the S values before x[0] (docs/language.md §3, Time series)", name)
	case name == c.defining:
		c.errorf(id.NamePos, "`%s` is used in its own definition", name)
	default:
		if pos, ok := c.locals[name]; ok && pos.Before(id.NamePos) {
			c.errorf(id.NamePos, "`%s` is not visible here: it is local to the %s body where it is declared (%s)", name, strings.TrimPrefix(strings.TrimPrefix(c.localIn[name], "an "), "a "), pos)
			return
		}
		if pos, ok := c.declared[name]; ok {
			c.errorf(id.NamePos, "`%s` used before its declaration at %s", name, pos)
			return
		}
		if pos, ok := c.sizes[name]; ok {
			c.errorf(id.NamePos, "size name `%s` used before its first mention in a data declaration at %s", name, pos)
			return
		}
		if isConstant(name) { // Stan's pi, written bare
			c.errorf(id.NamePos, "undeclared name `%s`; the built-in constant is written %s", name, stdlib.LookupFunc(name).Signature())
			return
		}
		if base, ok := strings.CutSuffix(name, "_missing"); ok {
			switch sym := c.lookup(base); {
			case sym == nil || sym.Kind != Data:
			case sym.Type.Elem == Int:
				c.errorf(id.NamePos, "`%s` is not a name in the model: the missing cells of `%s` are the fit's values %s, drawn after the model from its ~ (a missing count is no latent, so no statement can read them); draw such values in the model, output %s_rep ~ the family of the ~ on %s, and read that, and gpp repl reads %s after a :fit or :sample that drew them",
					name, base, name, base, base, name)
				return
			default:
				// Stan's and PyMC's habit: the imputed values by name.
				c.errorf(id.NamePos, "`%s` is not a name in the model: the missing cells of `%s` are the fit's values %s, drawn after the model where they are left out of the likelihood, fitted as a latent otherwise; read `%s`, whose missing cells are then fitted as %s and filled in at each draw (`%s[a:b]` for a forecast's rows), and gpp repl reads %s after a :fit or :sample that drew them",
					name, base, name, base, name, base, name)
				return
			}
		}
		hint := ""
		if len(c.errs) < ast.MaxErrors { // past it the error is not shown
			hint = suggest(name, c.visibleNames())
		}
		if c.inDim && hint == "" {
			// Stan declares every size; here only those of data are implicit
			hint = fmt.Sprintf(": a size that no data declaration has is declared as `data %s: int` (given with the data) or `const %s = ...`", name, name)
			if g := c.idColumn(name); g != nil {
				// both lines: the bound alone names J undeclared
				bounds, count := fmt.Sprintf("lower=0, upper=%s-1", name), "one more than its largest id"
				if lo, ok := ast.Unparen(g.Type.Lower).(*ast.NumberLit); ok && lo.Value == 1 {
					bounds, count = "lower=1, upper="+name, "its largest id"
				}
				hint += fmt.Sprintf(", or counted from a column of ids: in place of line %d, the two lines `data %s: int` and `data %s: int<%s>[%s]` make %s %s (docs/language.md, section 1)", g.Pos().Line, name, g.Name.Name, bounds, ast.FormatExpr(g.Type.Dims[0]), name, count)
			}
		}
		c.errorf(id.NamePos, "undeclared name `%s`%s", name, hint)
	}
}

// idColumn returns the int data vector that counts the size name: one
// whose bound names it, else the first used as an index into something
// sized by it (z[hood] with z: real[J]); nil if none (never the outcome y
// just because it is an int column).
func (c *checker) idColumn(size string) *ast.DataDecl {
	mentions := func(e ast.Node) bool {
		found := false
		ast.Inspect(e, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && id.Name == size {
				found = true
			}
			return !found
		})
		return found
	}
	ids := map[string]*ast.DataDecl{} // int data vectors
	sized := map[string][]ast.Expr{}  // names sized by size: their dims (empty for a let)
	observed := map[string]bool{}
	for _, s := range c.file.Stmts {
		if t, ok := s.(*ast.TildeStmt); ok {
			if y, ok := ast.Unparen(t.LHS).(*ast.Ident); ok {
				observed[y.Name] = true
			}
		}
	}
	for _, s := range c.file.Stmts {
		switch s := s.(type) {
		case *ast.DataDecl:
			if s.Type.Kind == ast.Int && len(s.Type.Dims) == 1 {
				if (s.Type.Upper != nil && mentions(s.Type.Upper)) || (s.Type.Lower != nil && mentions(s.Type.Lower)) {
					return s
				}
				ids[s.Name.Name] = s
			}
			if mentions(s.Type) {
				sized[s.Name.Name] = s.Type.Dims
			}
		case *ast.ParamDecl:
			if mentions(s.Type) {
				sized[s.Name.Name] = s.Type.Dims
			}
		case *ast.LetStmt: // sized by what it reads whole: let u = sd * z
			ast.Inspect(s.Value, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && sized[id.Name] != nil {
					sized[s.Name.Name] = []ast.Expr{}
				}
				_, ix := n.(*ast.IndexExpr)
				return !ix
			})
		}
	}
	var found *ast.DataDecl
	ast.Inspect(c.file, func(n ast.Node) bool {
		if found != nil {
			return false
		}
		ix, ok := n.(*ast.IndexExpr)
		if !ok {
			return true
		}
		x, ok := ast.Unparen(ix.X).(*ast.Ident)
		if !ok || sized[x.Name] == nil {
			return true
		}
		dims := sized[x.Name]
		for k, e := range ix.Indices {
			if k < len(dims) && !mentions(dims[k]) {
				continue // an axis of another size
			}
			ast.Inspect(e, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && found == nil && ids[id.Name] != nil && !observed[id.Name] {
					found = ids[id.Name]
				}
				return found == nil
			})
		}
		return found == nil
	})
	return found
}

func (c *checker) visibleNames() []string {
	var names []string
	for n := range c.top {
		names = append(names, n)
	}
	for _, s := range c.scopes {
		for n := range s {
			names = append(names, n)
		}
	}
	return names
}

func (c *checker) binary(e *ast.BinaryExpr) Type {
	x := c.expr(e.X)
	y := c.expr(e.Y)
	if !x.Valid() || !y.Valid() {
		return invalid
	}
	if e.Op.IsLogical() {
		b := broadcast(x.Shape, y.Shape)
		if b.Err != "" {
			c.errorf(e.OpPos, "%s: %s", e.Op, b.Err)
			return invalid
		}
		return c.logical(e, []Type{x, y}, b.Shape)
	}
	if (e.Op == ast.Mod || e.Op == ast.IntDiv) && !c.intOperands(e, x, y) {
		return invalid
	}
	t := Type{Elem: Real, DataOnly: x.DataOnly && y.DataOnly}
	if x.Elem == Int && y.Elem == Int && e.Op != ast.Div && e.Op != ast.Pow {
		t.Elem = Int
	}
	if e.Op == ast.Mul && x.Shape.Rank() == 1 && y.Shape.Rank() == 1 {
		// A column times a column is a product only when the second has
		// one element, which is never what is meant; Stan refuses it too.
		xs := exprString(e.X)
		switch e.X.(type) {
		case *ast.Ident, *ast.IndexExpr, *ast.CallExpr, *ast.ParenExpr:
		default:
			xs = "(" + xs + ")"
		}
		ys := exprString(e.Y)
		switch e.Y.(type) {
		case *ast.Ident, *ast.IndexExpr, *ast.CallExpr, *ast.ParenExpr:
		default:
			ys = "(" + ys + ")"
		}
		msg := vectorProduct(xs, exprString(e.Y), ys, x.Shape, y.Shape)
		if ix, ok := e.X.(*ast.IndexExpr); ok && len(ix.Indices) == 1 && c.info.Types[ix.X].Shape.Rank() == 2 && c.info.Types[ix.Indices[0]].Shape.Rank() == 0 {
			// Stan's regression loop, X[n] * beta: there X[n] is a
			// row_vector and the product a dot product.
			msg += fmt.Sprintf("; `%s` is a row of %s, which gpp takes as a vector: Stan's %s * %s (a row_vector times a vector) is dot_product(%s, %s)",
				xs, exprString(ix.X), xs, exprString(e.Y), xs, exprString(e.Y))
		}
		c.errorf(e.OpPos, "%s", msg)
		return invalid
	}
	if e.Op == ast.Mul && x.Shape.Rank() > 0 && y.Shape.Rank() > 0 {
		shape, msg := matmul(x.Shape, y.Shape)
		if msg != "" {
			c.errorf(e.OpPos, "%s", msg)
			return invalid
		}
		t.Shape = shape
		t.Support = matmulSupport(x.Support, y.Support, y.Shape.Rank())
		if t.Support != dist.Simplex {
			t.Support = matmulSupport(entrySupport(x), entrySupport(y), y.Shape.Rank())
		}
		return t
	}
	b := broadcast(x.Shape, y.Shape)
	if b.BothStretch && e.Op != ast.EMul {
		c.errorf(e.OpPos, "%s: %s", e.Op, pairwiseAdvice(e, x.Shape, y.Shape, b.Shape))
		return invalid
	}
	if b.Err != "" {
		c.errorf(e.OpPos, "%s: %s", e.Op, b.Err)
		return invalid
	}
	t.Shape = b.Shape
	switch e.Op {
	case ast.Add:
		t.Support = addSupport(x.Support, y.Support)
	case ast.Sub:
		t.Support = subSupport(x.Const, y.Support)
	case ast.Mul, ast.EMul:
		t.Support = productSupport(entrySupport(x), entrySupport(y))
	case ast.Div:
		t.Support = divSupport(x.Support, y.Support)
		if y.Const != nil && *y.Const == 0 {
			c.errorf(e.Y.Pos(), "division by zero")
			return invalid
		}
	case ast.Pow:
		t.Support = powSupport(x.Support, y.Support, y.Const)
	case ast.Mod, ast.IntDiv:
		if y.Const != nil && *y.Const == 0 {
			c.errorf(e.Y.Pos(), "%s by zero", IntOpName(e.Op))
			return invalid
		}
		// a % b has the sign of a; a %/% b that of a / b
		t.Support = dist.Real
		if isNonNeg(x.Support) && (e.Op == ast.Mod || isPos(y.Support)) {
			t.Support = dist.Count
		}
	}
	if x.Const != nil && y.Const != nil {
		v := FoldBinary(e.Op, *x.Const, *y.Const)
		if t.Elem == Int && !IntInRange(e.Op, int64(*x.Const), int64(*y.Const)) {
			// As a literal past 2^53 is refused: the float would round it
			// (2^53 + 1 is 2^53), and sizes and indices made from it with it.
			c.errorf(e.OpPos, "int `%s` is too large: an int holds at most 2^53 in magnitude", exprString(e))
			return invalid
		}
		t.Const = &v
		t.Support = valueSupport(t.Elem, v)
	}
	return t
}

// intOperands reports whether the operands of e, a % b or a %/% b (of
// types x and y), are ints known before the fit, as Stan's int operators
// need; else it reports why at the operand.
func (c *checker) intOperands(e *ast.BinaryExpr, x, y Type) bool {
	for _, o := range []struct {
		e ast.Expr
		t Type
	}{{e.X, x}, {e.Y, y}} {
		switch {
		case o.t.Elem != Int && e.Op == ast.Mod:
			c.errorf(o.e.Pos(), "%% is the remainder of ints, and `%s` is real: the remainder of reals is fmod(%s, %s)", exprString(o.e), exprString(e.X), exprString(e.Y))
			return false
		case o.t.Elem != Int:
			c.errorf(o.e.Pos(), "%%/%% is the division of ints, and `%s` is real: the truncated quotient of reals is trunc(%s / %s)", exprString(o.e), exprString(e.X), exprString(e.Y))
			return false
		case !o.t.DataOnly:
			c.errorf(o.e.Pos(), "the operands of %s are ints known before the fit, and `%s` %s", e.Op, exprString(o.e), c.dependsOnParam(o.e))
			return false
		}
	}
	return true
}

// IntOpName names the int operator op (Mod or IntDiv) in messages.
func IntOpName(op ast.Op) string {
	if op == ast.Mod {
		return "modulus"
	}
	return "integer division"
}

// logical types a comparison, && , || or ! (e, with operands of types
// ts, broadcast to shape): an int 0 or 1 per element, folded when
// every operand is a constant. An operand may depend on a param: the
// value is then a step function of the params, which an output may read
// (the mean of `mu > 0` over the draws is P(mu > 0)) but the log joint
// may not, its derivative being zero wherever it exists; refuseSteps
// reports it where the log joint or the compiler would read it.
func (c *checker) logical(e ast.Expr, ts []Type, shape Shape) Type {
	op := ast.Not
	if b, ok := e.(*ast.BinaryExpr); ok {
		op = b.Op
	}
	t := Type{Elem: Int, Shape: shape, Support: dist.Binary, DataOnly: true}
	for _, x := range ts {
		t.DataOnly = t.DataOnly && x.DataOnly
	}
	vals := make([]float64, len(ts))
	for i, x := range ts {
		if x.Const == nil {
			return t
		}
		vals[i] = *x.Const
	}
	var v float64
	if op == ast.Not {
		v = FoldNot(vals[0])
	} else {
		v = FoldBinary(op, vals[0], vals[1])
	}
	t.Const, t.Support = &v, valueSupport(Int, v)
	return t
}

// dependsOnParam says why e is not known before the fit: "is the param
// `mu`", "depends on the param `mu`", the same of an output (a
// replicate, in a later output), or "depends on a param".
func (c *checker) dependsOnParam(e ast.Expr) string {
	var sym *Symbol
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && sym == nil {
			if s := c.info.Uses[id]; s != nil && (s.Kind == Param || s.Kind == Output || s.Kind == Data && c.cfg.Imputed[s.Name]) {
				sym = s
			}
		}
		return sym == nil
	})
	if sym == nil {
		if d, let := c.imputedVia(e, map[*Symbol]bool{}); d != nil {
			return "reads `" + d.Name + "` through the let `" + let.Name + "`, and the missing values of `" + d.Name + "` would be fitted, changing with the draws"
		}
		return "depends on a param"
	}
	if sym.Kind == Data { // a covariate whose missing values are fitted
		return "reads `" + sym.Name + "`, whose missing values would be fitted, changing with the draws"
	}
	kind := "param"
	if sym.Kind == Output {
		kind = "output"
	}
	if id, ok := ast.Unparen(e).(*ast.Ident); ok && id.Name == sym.Name {
		return "is the " + kind + " `" + sym.Name + "`"
	}
	return "depends on the " + kind + " `" + sym.Name + "`"
}

// imputedVia returns the covariate typed as changing with the fit
// (Config.Imputed) that e reads through lets, and the let of e that reads
// it, or nils.
func (c *checker) imputedVia(e ast.Node, seen map[*Symbol]bool) (d, let *Symbol) {
	if len(c.cfg.Imputed) == 0 {
		return nil, nil
	}
	ast.Inspect(e, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		s := c.info.Uses[id]
		if !ok || d != nil || s == nil || seen[s] {
			return d == nil
		}
		seen[s] = true
		switch {
		case s.Kind == Data && c.cfg.Imputed[s.Name]:
			d = s
		case s.Kind == Let && !s.Type.DataOnly && s.Decl != nil:
			if via, _ := c.imputedVia(s.Decl, seen); via != nil {
				d, let = via, s
			}
		}
		return d == nil
	})
	return d, let
}

// FoldNot is the value of !a: 1 when a is 0, else 0.
func FoldNot(a float64) float64 {
	if a == 0 {
		return 1
	}
	return 0
}

// IntInRange reports whether a op b (Add, Sub, Mul, EMul, Mod or IntDiv)
// of ints a and b, each at most MaxInt in magnitude, is too: an int is
// exact only up to 2^53. The checker asks it of constants, the compiler of
// int data.
func IntInRange(op ast.Op, a, b int64) bool {
	var r int64
	switch op {
	case ast.Mod, ast.IntDiv:
		return true // at most |a| in magnitude
	case ast.Add:
		r = a + b
	case ast.Sub:
		r = a - b
	default: // Mul, EMul
		if math.Abs(float64(a)*float64(b)) > 2*MaxInt { // and a*b might wrap
			return false
		}
		r = a * b
	}
	return r >= -MaxInt && r <= MaxInt
}

// IntOp is a % b (Mod) or a %/% b (IntDiv) of ints, b non-zero, as Stan's
// (and C's): the quotient truncated toward 0, the remainder with the sign
// of a (-7 %/% 3 is -2, -7 % 3 is -1, 7 % -3 is 1).
func IntOp(op ast.Op, a, b int64) int64 {
	if op == ast.Mod {
		return a % b
	}
	return a / b
}

// FoldBinary is the value of a op b for constants (and for the compiler's
// message about int data past 2^53).
func FoldBinary(op ast.Op, a, b float64) float64 {
	switch op {
	case ast.Add:
		return a + b
	case ast.Sub:
		return a - b
	case ast.Mul, ast.EMul:
		return a * b
	case ast.Div:
		return a / b
	case ast.Pow:
		return math.Pow(a, b)
	case ast.Mod, ast.IntDiv:
		return float64(IntOp(op, int64(a), int64(b)))
	}
	var r bool
	switch op {
	case ast.Lt:
		r = a < b
	case ast.Le:
		r = a <= b
	case ast.Gt:
		r = a > b
	case ast.Ge:
		r = a >= b
	case ast.Eq:
		r = a == b
	case ast.Ne:
		r = a != b
	case ast.And:
		r = a != 0 && b != 0
	case ast.Or:
		r = a != 0 || b != 0
	default:
		return math.NaN()
	}
	if r {
		return 1
	}
	return 0
}

// vectorLit checks [e1, ..., en]: a vector of the n scalars, int when
// every element is int, with the narrowest support that holds every
// element (language.md §6); never a simplex, whatever the elements sum to.
// Elements that are all vectors of one length m are the rows of a matrix
// [n, m] (matrixLit). It carries no constant value (Type.Const is for
// scalars); index folds a constant element picked by constant indices.
func (c *checker) vectorLit(e *ast.VectorLit) Type {
	ts := make([]Type, len(e.Elems))
	ok := true
	for i, x := range e.Elems {
		ts[i] = c.expr(x)
		ok = ok && ts[i].Valid()
	}
	for i, x := range e.Elems {
		if ts[i].Valid() && ts[i].Shape.Rank() == 2 {
			c.errorf(x.Pos(), "a literal's elements must be scalars (a vector) or rows (a matrix); `%s` is %s: a literal has at most two axes", exprString(x), ts[i].Shape.describe())
			ok = false
		}
	}
	if !ok {
		return invalid
	}
	if ts[0].Shape.Rank() == 1 {
		return c.matrixLit(e, ts)
	}
	t := Type{Elem: Int, Shape: Shape{knownDim(len(e.Elems))}, DataOnly: true}
	for i, x := range e.Elems {
		xt := ts[i]
		if xt.Shape.Rank() != 0 {
			c.errorf(x.Pos(), "a vector literal's elements must be scalars; `%s` is %s, element 0 `%s` a scalar (a matrix literal's elements are all rows, as [[1, 2], [3, 4]])",
				exprString(x), xt.Shape.describe(), exprString(e.Elems[0]))
			ok = false
			continue
		}
		if xt.Elem != Int {
			t.Elem = Real
		}
		t.DataOnly = t.DataOnly && xt.DataOnly
		if i == 0 {
			t.Support = joinSupport(xt.Support, xt.Support)
		} else {
			t.Support = joinSupport(t.Support, xt.Support)
		}
	}
	if !ok {
		return invalid
	}
	return t
}

// matrixLit checks [r0, ..., rn-1] whose first element is a vector: each
// element is a row (a literal or any vector expression) and all have one
// length m, giving the matrix [n, m] (row-major, as Stan's to_matrix of an
// array of row vectors). Its support is the narrowest holding every row's,
// a simplex when every row is one (a transition matrix of simplex params).
// Lengths known only with the data are compared when the model compiles.
func (c *checker) matrixLit(e *ast.VectorLit, ts []Type) Type {
	cols := ts[0].Shape[0]
	t := Type{Elem: Int, Shape: Shape{knownDim(len(e.Elems)), cols}, DataOnly: true, Support: ts[0].Support}
	simplex := true
	ok := true
	for i, x := range e.Elems {
		xt := ts[i]
		if xt.Shape.Rank() != 1 {
			c.errorf(x.Pos(), "a matrix literal's elements must be rows (vectors); `%s` (row %d) is %s, row 0 `%s` is %s",
				exprString(x), i, xt.Shape.describe(), exprString(e.Elems[0]), ts[0].Shape.describe())
			ok = false
			continue
		}
		switch compareDims(xt.Shape[0], cols) {
		case dimDiffer:
			c.errorf(x.Pos(), "a matrix literal's rows must have equal lengths: row %d `%s` has %s, row 0 has %s",
				i, exprString(x), plural1(xt.Shape[0]), plural1(cols))
			ok = false
			continue
		case dimEqual, dimDeferred:
			cols = moreInformative(cols, xt.Shape[0])
		}
		if xt.Elem != Int {
			t.Elem = Real
		}
		t.DataOnly = t.DataOnly && xt.DataOnly
		simplex = simplex && xt.Support == dist.Simplex
		t.Support = joinSupport(t.Support, xt.Support)
	}
	if !ok {
		return invalid
	}
	t.Shape[1] = cols
	if simplex {
		t.Support = dist.Simplex
	}
	return t
}

// ---------------------------------------------------------------------------
// Built-in function calls

func (c *checker) call(e *ast.CallExpr) Type {
	name := e.Fun.Name
	f := stdlib.LookupFunc(name)
	if f != nil && f.Shape == stdlib.ODE {
		return c.odeCall(e, f)
	}
	if f != nil && f.Shape == stdlib.Algebra {
		return c.algebraCall(e, f)
	}
	if f != nil && f.Shape == stdlib.Integrate1D {
		return c.integrateCall(e, f)
	}
	if fd := c.fns[name]; fd != nil {
		return c.inline(e, fd)
	}
	if (name == "algebra_solver" || name == "algebra_solver_newton") && f == nil && (len(e.Args) == 5 || len(e.Args) == 8) {
		return c.removedAlgebra(e)
	}
	if why, ok := odeRefused[name]; ok && f == nil {
		for _, a := range e.Args[min(1, len(e.Args)):] {
			c.expr(a)
		}
		c.errorf(e.Fun.NamePos, "%s", why)
		return invalid
	}
	if f != nil && f.Shape == stdlib.LogPDF {
		return c.logpdf(e, f)
	}
	if f != nil && f.Shape == stdlib.ICDF {
		return c.icdf(e, f)
	}
	args := make([]Type, len(e.Args))
	for i, a := range e.Args {
		args[i] = c.expr(a)
	}
	if f == nil {
		switch sym := c.lookup(name); {
		case stdlib.LookupDist(name) != nil:
			c.errorf(e.Fun.NamePos, "%s is a distribution: it can appear only on the right of ~, as a param's prior or in logpdf(value, %s(...))", name, name)
		case sym != nil:
			c.errorf(e.Fun.NamePos, "`%s` is %s (declared at %s), not a function", name, sym.Kind.Phrase(), sym.Pos)
		case c.fnLater(name) != nil:
			c.errorf(e.Fun.NamePos, "function `%s` used before its declaration at %s", name, c.fnLater(name).Name.NamePos)
		case stanHint(name, "") != "":
			arg := "x"
			if len(e.Args) == 1 {
				arg = exprString(e.Args[0])
			}
			c.errorf(e.Fun.NamePos, "unknown function `%s`; %s", name, stanHint(name, arg))
		default:
			c.errorf(e.Fun.NamePos, "unknown function `%s`%s", name, suggest(name, funcNames()))
		}
		return invalid
	}
	c.eigenClamp(e)
	forms := f.Forms()
	f = f.Form(len(e.Args)) // a covariance function's two-input form
	c.info.Calls[e] = f
	if ok := f.Alt == nil || c.arityForms(e, f); !ok || !c.arity(e, f.Name, f.Signature(), len(f.Args)) {
		return invalid
	}
	t := Type{Elem: Real, DataOnly: true}
	allInt := true
	ok := true
	supports := make([]dist.Support, len(args))
	for i, a := range args {
		if !a.Valid() {
			ok = false
			continue
		}
		supports[i] = a.Support
		if k := f.Support.Kind; k != stdlib.FromArg && k != stdlib.Fixed {
			supports[i] = entrySupport(a)
		}
		t.DataOnly = t.DataOnly && a.DataOnly
		allInt = allInt && a.Elem == Int
		spec := f.Args[i]
		if !spec.Ranks.Has(a.Shape.Rank()) {
			other := "" // a call of one form with the arguments of the other (gp_exp_quad_cov(x_new, x, rho))
			for _, g := range forms {
				if g != f && i < len(g.Args) && g.Args[i].Ranks.Has(a.Shape.Rank()) {
					other = fmt.Sprintf(" (%s is its form of %d arguments)", g.Signature(), len(g.Args))
				}
			}
			c.errorf(e.Args[i].Pos(), "%s expects a %s as argument %d (%s); `%s` is %s%s",
				f.Name, spec.Ranks, i+1, spec.Name, exprString(e.Args[i]), a.Shape.describe(), other)
			ok = false
			continue // its support is beside the point
		}
		if spec.Int && a.Elem != Int {
			c.errorf(e.Args[i].Pos(), "%s expects an int argument %d (%s); `%s` is real",
				f.Name, i+1, spec.Name, exprString(e.Args[i]))
			ok = false
		}
		if spec.Support != 0 && !satisfies(spec.Support, a) {
			c.errorf(e.Args[i].Pos(), "%s expects %s argument %d (%s); %s%s",
				f.Name, ast.Article(spec.Support.String()), i+1, spec.Name, c.explain(e.Args[i], spec.Support), c.supportHint(spec.Support, e.Args[i], a))
			ok = false
		}
		if spec.Data != "" && !a.DataOnly {
			c.errorf(e.Args[i].Pos(), "%s needs argument %d (%s) known before the fit (data, constants and lets of them); `%s` %s: %s",
				f.Name, i+1, spec.Name, exprString(e.Args[i]), c.dependsOnParam(e.Args[i]), spec.Data)
			ok = false
		}
	}
	if ok && f.Name == "log_mix" {
		ok = c.logMixTheta(e.Args[0], args[0])
	}
	if !ok {
		return invalid
	}
	if f.Elem == stdlib.IntIfAllInt && allInt || f.Elem == stdlib.IntResult {
		t.Elem = Int
	}
	if f.Random {
		t.DataOnly = false // a new draw at each draw of q, never computed once
	}
	shape, good := c.callShape(e, f, args)
	if !good {
		return invalid
	}
	t.Shape = shape
	t.Support = f.Support.Result(supports)
	if name == "eigenvalues_sym" && len(e.Args) == 1 && c.posDef(e.Args[0]) {
		t.Support = dist.Positive
	}
	if f.Fold != nil && t.Shape.Rank() == 0 {
		vals := make([]float64, len(args))
		for i, a := range args {
			if a.Const == nil {
				return t
			}
			vals[i] = *a.Const
		}
		v := f.Fold(vals)
		if math.IsNaN(v) && f.Shape != stdlib.Constant { // not_a_number() asks for it
			why := ""
			if f.FoldWhy != nil {
				if w := f.FoldWhy(vals); w != "" {
					why = ": " + w
				}
			}
			if why == "" { // the arguments' values, which show the one out of the domain
				why = ": " + foldArgs(f.Name, e.Args, vals)
			}
			c.errorf(e.Fun.NamePos, "`%s` is not a number%s", exprString(e), why)
			return invalid
		}
		if t.Elem == Int && math.Abs(v) > MaxInt { // as for a literal or an operator
			c.errorf(e.Fun.NamePos, "int `%s` is too large: an int holds at most 2^53 in magnitude", exprString(e))
			return invalid
		}
		t.Const = &v
		t.Support = valueSupport(t.Elem, v)
	}
	return t
}

// logpdf checks logpdf(value, D(args)), the log density per element that
// `value ~ D(args)` sums: D is an elementwise distribution, its arguments
// are checked as for ~, and the value and the arguments broadcast, a
// column value against row arguments too (rule 3 of language.md §5 does
// not apply: the [n, k] table of a mixture's components is what logpdf is
// for).
// predictive checks the distribution of `output NAME ~ D(args)` and
// returns the type of its draws. For an elementwise D: the broadcast shape
// of the arguments (a column against a row gives a matrix, as in logpdf),
// int for a discrete D. For Categorical and CategoricalLogit: an int
// scalar from a shared row ([k] or [1, k]), an int [n] from a matrix [n, k]
// (a draw per row). For OrderedLogistic and OrderedProbit: an int of eta's
// shape (a scalar or [n]), the cutpoints one vector or row. For Dirichlet:
// alpha's shape ([k], [1, k] or [n, k]), a simplex per row. For MvNormal
// and MvNormalRows: see mvPredictive; for Multinomial and
// MultinomialLogit, multinomialPredictive.
func (c *checker) predictive(call *ast.CallExpr) Type {
	if fd := c.userDensityOf(call); fd != nil {
		for _, a := range call.Args {
			c.expr(a)
		}
		c.errorf(call.Fun.NamePos, "%s is a user density (%s at %s), which gpp cannot draw from: a replicate output NAME ~ D(...) needs a built-in distribution (gpp has no user _rng functions)",
			call.Fun.Name, fnSignature(fd.decl), fd.decl.Name.NamePos)
		return invalid
	}
	d, args, ok := c.distArgs(call)
	if d == nil || !ok {
		return invalid
	}
	if d.Name == "Wiener" {
		c.errorf(call.Fun.NamePos, "Wiener has no replicate in gpp (no sampler of its first-passage times); for a posterior predictive check, simulate the diffusion outside gpp from the draws; output log_lik = logpdf(rt, Wiener(...)) gives each observation's log likelihood for gpp compare")
		return invalid
	}
	t := Type{Elem: Real, Support: d.Support}
	if d.Int {
		t.Elem = Int
	}
	switch d.Shape {
	case stdlib.DistLKJ:
		hint := "output L * L' reports the correlation matrix"
		if d.Support == dist.CorrMatrix {
			hint = "output Omega reports the correlation matrix"
		}
		c.errorf(call.Fun.NamePos, "%s has no replicate: it is a prior on %s param; %s", d.Name, ast.Article(d.Support.String()), hint)
		return invalid
	case stdlib.DistMvNormal, stdlib.DistMvNormalRows, stdlib.DistMvNormalChol, stdlib.DistMvNormalPrec, stdlib.DistMultiStudentT, stdlib.DistMultiStudentTChol:
		return c.mvPredictive(call, d, args, t)
	case stdlib.DistWishart:
		return c.wishartPredictive(call, d, args, t)
	case stdlib.DistCAR:
		c.errorf(call.Fun.NamePos, "%s has no replicate in gpp: it is a prior on a field param; an output of the field reports its draws", d.Name)
		return invalid
	case stdlib.DistGaussianDLM:
		c.errorf(call.Fun.NamePos, "%s has no replicate in gpp (its arguments do not give the number of times T): to draw observations, write the states as a param (theta_0 ~ MvNormal(m0, C0), theta_t ~ MvNormal(G theta_{t-1}, W)) and the replicate as output y_rep ~ MvNormal(F' theta_t, V)", d.Name)
		return invalid
	case stdlib.DistMultiGP, stdlib.DistMultiGPChol: // [K, N]: a row per element of w
		ss := args[0].Shape
		if compareDims(ss[0], ss[1]) == dimDiffer {
			c.errorf(call.Args[0].Pos(), "%s argument 1 (%s): `%s` is %s; it must be square [N, N]", d.Name, d.Params[0].Name, exprString(call.Args[0]), ss.String())
			return invalid
		}
		t.Shape = Shape{args[1].Shape[0], moreInformative(ss[0], ss[1])}
		return t
	case stdlib.DistDirichlet:
		if args[0].Shape.Rank() == 0 {
			c.errorf(call.Args[0].Pos(), "a Dirichlet replicate has alpha's shape, so alpha must be a vector [k] or a matrix [n, k]; `%s` is a scalar: write rep(%s, K) for one simplex of K",
				exprString(call.Args[0]), exprString(call.Args[0]))
			return invalid
		}
		t.Shape = args[0].Shape
		return t
	case stdlib.DistMultinomial:
		return c.multinomialPredictive(call, d, args, t)
	case stdlib.DistCategorical, stdlib.DistPoissonBinomial:
		if as := args[0].Shape; as.Rank() == 2 && !as[0].isOne() {
			t.Shape = Shape{as[0]}
		}
		return t
	case stdlib.DistOrdinal:
		t.Shape = args[0].Shape // eta: a scalar or [n]
		// a row of cutpoints per draw
		if cs := args[1].Shape; cs.Rank() == 2 && !cs[0].isOne() {
			if t.Shape.Rank() == 1 && compareDims(cs[0], t.Shape[0]) == dimDiffer {
				c.errorf(call.Args[1].Pos(), "%s argument 2 (c): `%s` is %s; the cutpoints are one vector [K] or row [1, K] shared by every element, or a matrix [%s, K] with a row per element of eta",
					d.Name, exprString(call.Args[1]), cs.String(), t.Shape[0])
				return invalid
			}
			t.Shape = Shape{cs[0]}
		}
		return t
	}
	return c.broadcastArgs(d, call, args, t, "the other arguments (%s)")
}

// multinomialPredictive checks a Multinomial or MultinomialLogit
// replicate, which needs its number of trials n (Stan's
// multinomial_rng(theta, N)): an int [k] of counts from a shared theta
// ([k] or [1, k]) and a scalar n; else a row of counts per row of theta
// [r, k] or per element of n [m] (r = m when both are per row): [r, k].
func (c *checker) multinomialPredictive(call *ast.CallExpr, d *stdlib.Dist, args []Type, t Type) Type {
	if len(args) < 2 {
		c.errorf(call.Rparen, "a %s replicate needs its number of trials, which theta does not give: write output y_rep ~ %s(%s, n), n an int known before the fit, a scalar or one per row (Stan's multinomial_rng(theta, N))",
			d.Name, d.Name, exprString(call.Args[0]))
		return invalid
	}
	ts, ns := args[0].Shape, args[1].Shape
	k := ts[ts.Rank()-1]
	shared := ts.Rank() == 1 || ts[0].isOne()
	switch {
	case shared && ns.Rank() == 0:
		t.Shape = Shape{k}
	case shared:
		t.Shape = Shape{ns[0], k}
	case ns.Rank() == 0:
		t.Shape = Shape{ts[0], k}
	case compareDims(ts[0], ns[0]) == dimDiffer:
		c.errorf(call.Args[1].Pos(), "%s argument 2 (n): `%s` is %s but `%s` has %s rows; n is a scalar or one per row",
			d.Name, exprString(call.Args[1]), ns.String(), exprString(call.Args[0]), ts[0])
		return invalid
	default:
		t.Shape = Shape{moreInformative(ts[0], ns[0]), k}
	}
	return t
}

// mvPredictive checks the arguments of an MvNormal, MvNormalRows,
// MvNormalCholesky, MvNormalPrec, MultiStudentT or MultiStudentTCholesky
// replicate (mu and the matrix after MultiStudentT's nu), which the
// likelihood's value would otherwise fix: the matrix (Sigma, L or Omega)
// square [d, d], and mu a scalar or [d] (MvNormal: one vector [d]), a row
// [1, d] (one row) or a matrix [n, d] (a draw per row with its mean: Stan's
// multi_normal_rng of an array of means). The replicate has mu's shape;
// MvNormalRows needs a matrix mu, which alone says how many rows to draw.
func (c *checker) mvPredictive(call *ast.CallExpr, d *stdlib.Dist, args []Type, t Type) Type {
	im := 0 // mu's index: after MultiStudentT's nu
	what := "the covariance"
	switch d.Shape {
	case stdlib.DistMvNormalChol, stdlib.DistMultiStudentTChol:
		what = "the Cholesky factor"
	case stdlib.DistMultiStudentT:
		what = "the scale matrix"
	case stdlib.DistMvNormalPrec:
		what = "the precision matrix"
	}
	if d.Shape == stdlib.DistMultiStudentT || d.Shape == stdlib.DistMultiStudentTChol {
		im = 1
	}
	cov, m := args[im+1].Shape, args[im].Shape
	arg := func(i int) string { return exprString(call.Args[im+i]) }
	if compareDims(cov[0], cov[1]) == dimDiffer {
		c.errorf(call.Args[im+1].Pos(), "%s argument %d (%s): `%s` is %s; %s must be square [d, d]",
			d.Name, im+2, d.Params[im+1].Name, arg(1), cov.String(), what)
		return invalid
	}
	k := cov[0]
	if d.Shape == stdlib.DistMvNormalRows && m.Rank() < 2 {
		dn := k.String()
		if k.Derived || !k.Known() && k.Name == "" {
			dn = "D"
		}
		how := "rep(1, N) * " + arg(0) + "'"
		if m.Rank() == 0 {
			how = "rep_matrix(" + arg(0) + ", N, " + dn + ")"
		}
		c.errorf(call.Args[0].Pos(), "an MvNormalRows replicate has a row per row of mu, so mu must be a matrix [n, %s] (as Stan's multi_normal_rng takes an array of means); `%s` is %s: write `%s` for N rows, or MvNormal for one vector",
			k, arg(0), m.describe(), how)
		return invalid
	}
	last := k
	if m.Rank() > 0 {
		last = m[m.Rank()-1]
	}
	if compareDims(last, k) == dimDiffer {
		want := "a scalar, [" + k.String() + "], [1, " + k.String() + "] or [n, " + k.String() + "] (a draw per row)"
		if d.Shape == stdlib.DistMvNormalRows {
			want = "[n, " + k.String() + "] (a draw per row)"
		}
		c.errorf(call.Args[im].Pos(), "%s argument %d (mu): `%s` is %s; with %s `%s` %s it must be %s",
			d.Name, im+1, arg(0), m.String(), what, arg(1), cov.String(), want)
		return invalid
	}
	t.Shape = Shape{moreInformative(last, k)}
	if m.Rank() == 2 {
		t.Shape = Shape{m[0], moreInformative(last, k)}
	}
	return t
}

func (c *checker) logpdf(e *ast.CallExpr, f *stdlib.Func) Type {
	if len(e.Args) == 2 {
		if d, ok := ast.Unparen(e.Args[1]).(*ast.CallExpr); ok {
			if fd := c.userDensityOf(d); fd != nil {
				return c.userLogpdf(e, f, d, fd)
			}
		}
	}
	c.info.Calls[e] = f
	isDist := func(i int) (*ast.CallExpr, bool) {
		if i >= len(e.Args) {
			return nil, false
		}
		call, ok := ast.Unparen(e.Args[i]).(*ast.CallExpr)
		return call, ok && stdlib.LookupDist(call.Fun.Name) != nil
	}
	if d0, ok := isDist(0); ok {
		if _, ok := isDist(1); !ok {
			c.errorf(e.Args[0].Pos(), "%s takes the value first: %s(value, %s(...))", f.Name, f.Name, d0.Fun.Name)
			return invalid
		}
	}
	call, _ := isDist(1)
	if call == nil && len(e.Args) > 1 {
		call, _ = ast.Unparen(e.Args[1]).(*ast.CallExpr) // a function: an error below
	}
	d := c.argDist(e, f, call)
	if d == nil {
		return invalid
	}
	val := c.info.Types[e.Args[0]]
	_, args, ok := c.distArgs(call) // the arguments as for ~; the shapes below
	if (f.Name == "logpdf" || d.Shape == stdlib.DistPoissonBinomial) && perObservationFamily(d) {
		if !ok || !val.Valid() {
			return invalid
		}
		return c.logpdfPerObservation(e, d, call, val, args)
	}
	if f.Name == "logpdf" && rowDensityFamily(d) {
		if !ok || !val.Valid() {
			return invalid
		}
		return c.logpdfRows(e, d, call, val, args)
	}
	if d.Shape != stdlib.DistElementwise {
		also := ""
		switch {
		case f.Name == "logpdf":
			also = "; logpdf takes Categorical, Multinomial, DirichletMultinomial, OrderedLogistic and their logit and probit forms too, and PoissonBinomial, a term per observation, and " + rowDensityNames + ", a term per row"
		case rowDensityFamily(d):
			also = "; it has no " + f.Name + " in gpp, but logpdf gives its log density per row"
		}
		c.errorf(call.Fun.NamePos, "%s takes an elementwise distribution; %s is multivariate (use it with ~)%s", f.Name, d.Name, also)
		return invalid
	}
	if _, ok := dist.LogCDF(d.Name, false); f.Name != "logpdf" && !ok {
		c.errorf(call.Fun.NamePos, "%s knows %s; not %s", f.Name, strings.Join(logCDFFamilies(), ", "), d.Name)
		return invalid
	}
	if !ok || !val.Valid() {
		return invalid
	}
	if d.Int && val.Elem != Int {
		c.errorf(e.Args[0].Pos(), "%s is discrete: the value of %s must be int; %s", d.Name, f.Name, c.describe(e.Args[0]))
		return invalid
	}
	t := Type{Elem: Real, Support: dist.Real, Shape: val.Shape, DataOnly: val.DataOnly}
	return c.broadcastArgs(d, call, args, t, "%s")
}

// argDist checks the arguments of f(x, D(args)) (logpdf's, icdf's) but
// D's own (call, when a call: distArgs checks those) and f's arity, and
// returns D; nil after an error.
func (c *checker) argDist(e *ast.CallExpr, f *stdlib.Func, call *ast.CallExpr) *stdlib.Dist {
	for i, a := range e.Args {
		if i != 1 || call == nil {
			c.expr(a) // the errors inside, and the uses of names
		}
	}
	if !c.arity(e, f.Name, f.Signature(), 2) {
		return nil
	}
	var d *stdlib.Dist
	if call != nil {
		d = stdlib.LookupDist(call.Fun.Name)
	}
	if d == nil {
		hint := " such as Normal(mu, sigma)"
		if call != nil {
			hint = "; `" + call.Fun.Name + "` is not one" + suggest(call.Fun.Name, distNames())
			if h := stanDistHint(call.Fun.Name); h != "" { // ZIP, neg_binomial_2
				hint = "; `" + call.Fun.Name + "` is not one: " + h
			}
		}
		c.errorf(e.Args[1].Pos(), "%s's second argument must be a distribution%s", f.Name, hint)
	}
	return d
}

// icdf checks icdf(p, D(args)): D an elementwise family with a quantile
// function (dist.Quantile), p real with a constant in [0, 1], p and the
// arguments broadcast as logcdf's value and arguments do. The result has
// the support of D's draws where that is positive or non-negative, else
// real (Uniform's bounds are not tracked).
func (c *checker) icdf(e *ast.CallExpr, f *stdlib.Func) Type {
	c.info.Calls[e] = f
	var call *ast.CallExpr
	if len(e.Args) > 1 {
		call, _ = ast.Unparen(e.Args[1]).(*ast.CallExpr)
	}
	if len(e.Args) > 0 {
		if d0, ok := ast.Unparen(e.Args[0]).(*ast.CallExpr); ok && stdlib.LookupDist(d0.Fun.Name) != nil && (call == nil || stdlib.LookupDist(call.Fun.Name) == nil) {
			if len(e.Args) > 1 {
				c.expr(e.Args[1]) // its errors and uses; not D(...)'s, no value
			}
			c.errorf(e.Args[0].Pos(), "icdf takes the probability first: icdf(p, %s(...))", d0.Fun.Name)
			return invalid
		}
	}
	d := c.argDist(e, f, call)
	if d == nil {
		return invalid
	}
	p := c.info.Types[e.Args[0]]
	_, args, ok := c.distArgs(call)
	_, okQ := dist.Quantile(d.Name)
	if d.Shape != stdlib.DistElementwise || !okQ {
		c.errorf(call.Fun.NamePos, "icdf knows %s; not %s", strings.Join(dist.QuantileNames(), ", "), d.Name)
		return invalid
	}
	if !ok || !p.Valid() {
		return invalid
	}
	if v := p.Const; v != nil && !(*v >= 0 && *v <= 1) {
		hint := ""
		if *v > 1 && *v <= 100 { // a percentage
			hint = fmt.Sprintf(" (a probability: the %g%% point is icdf(%.12g, ...))", *v, *v/100)
		}
		c.errorf(e.Args[0].Pos(), "icdf's p must be in [0, 1]; `%s` is %g%s", exprString(e.Args[0]), *v, hint)
		return invalid
	}
	sup := dist.Real // the support of D's draws (0 at p = 0 is a fit-time error where it matters, as a draw of 0 is)
	if orig, ok := dist.LookupUnivariate(d.Name); ok && (orig.Support == dist.Positive || orig.Support == dist.NonNegative) {
		sup = orig.Support
		if v := p.Const; v != nil && *v > 0 {
			sup = dist.Positive // above the lower end
		}
	}
	t := Type{Elem: Real, Support: sup, Shape: p.Shape, DataOnly: p.DataOnly}
	return c.broadcastArgs(d, call, args, t, "`"+exprString(e.Args[0])+"` %s")
}

// perObservationFamily reports whether logpdf takes d, not elementwise,
// with one log probability per observation: Categorical and
// CategoricalLogit (per category), Multinomial, MultinomialLogit and
// DirichletMultinomial (per row of counts), OrderedLogistic and
// OrderedProbit (per category), PoissonBinomial (per count; logcdf and
// logccdf too).
func perObservationFamily(d *stdlib.Dist) bool {
	switch d.Shape {
	case stdlib.DistCategorical, stdlib.DistMultinomial, stdlib.DistOrdinal, stdlib.DistPoissonBinomial:
		return true
	}
	return false
}

// logpdfPerObservation checks logpdf(value, D(args)) for a family of
// perObservationFamily (and logcdf and logccdf for PoissonBinomial): the value and arguments as for value ~ D(args),
// the value data, as the ~ needs. The type is real, one element per
// observation: the value's shape for categories, a scalar for one vector
// of counts [k] and [n] for a matrix [n, k] of count rows.
func (c *checker) logpdfPerObservation(e *ast.CallExpr, d *stdlib.Dist, call *ast.CallExpr, val Type, args []Type) Type {
	v := e.Args[0]
	if d.Int && val.Elem != Int {
		c.errorf(v.Pos(), "%s is discrete: the value of %s must be int; %s", d.Name, e.Fun.Name, c.describe(v))
		return invalid
	}
	if !val.DataOnly {
		c.errorf(v.Pos(), "%s of %s needs a value known before the fit (data, constants and lets of them), as y ~ %s does; `%s` %s",
			e.Fun.Name, d.Name, d.Name, exprString(v), c.dependsOnParam(v))
		return invalid
	}
	nerr := len(c.errs)
	c.distShape(call, d, val, args, v.Pos(), "`"+exprString(v)+"`")
	if len(c.errs) > nerr {
		return invalid
	}
	t := Type{Elem: Real, Support: dist.Real, Shape: val.Shape, DataOnly: true}
	if d.Shape == stdlib.DistMultinomial {
		t.Shape = nil // one row of counts: a scalar
		if val.Shape.Rank() == 2 {
			t.Shape = Shape{val.Shape[0]}
		}
	}
	for _, a := range args {
		t.DataOnly = t.DataOnly && a.DataOnly
	}
	return t
}

// rowDensityNames lists the families of rowDensityFamily, for messages.
const rowDensityNames = "MvNormal, MvNormalRows, MvNormalCholesky, MvNormalPrec, MultiStudentT, MultiStudentTCholesky and Dirichlet"

// rowDensityFamily reports whether logpdf takes d as a multivariate
// density of a vector, a log density per row of a matrix: the
// multivariate normals (MvNormal, MvNormalRows, MvNormalCholesky,
// MvNormalPrec), MultiStudentT and MultiStudentTCholesky, and Dirichlet.
func rowDensityFamily(d *stdlib.Dist) bool {
	switch d.Shape {
	case stdlib.DistMvNormal, stdlib.DistMvNormalRows, stdlib.DistMvNormalChol, stdlib.DistMvNormalPrec,
		stdlib.DistMultiStudentT, stdlib.DistMultiStudentTChol, stdlib.DistDirichlet:
		return true
	}
	return false
}

// logpdfRows checks logpdf(value, D(args)) for a family of
// rowDensityFamily: the value and the arguments as for value ~ D(args)
// (the value may depend on params, as a ~'s may). The type is real: a
// scalar for one vector [d], a vector [n] for the rows of a matrix [n, d],
// so that log_mix or log_sum_exp of two components' vectors is a
// mixture's log density per row (Stan's multi_normal_lpdf,
// multi_student_t_lpdf or dirichlet_lpdf per y[n]).
func (c *checker) logpdfRows(e *ast.CallExpr, d *stdlib.Dist, call *ast.CallExpr, val Type, args []Type) Type {
	v := e.Args[0]
	nerr := len(c.errs)
	c.distShape(call, d, val, args, v.Pos(), "`"+exprString(v)+"`")
	if len(c.errs) > nerr {
		return invalid
	}
	t := Type{Elem: Real, Support: dist.Real, DataOnly: val.DataOnly}
	if val.Shape.Rank() == 2 {
		t.Shape = Shape{val.Shape[0]}
	}
	for _, a := range args {
		t.DataOnly = t.DataOnly && a.DataOnly
	}
	return t
}

// broadcastArgs broadcasts t's shape with each argument of call, a call of
// d, as logpdf and predictive outputs do (here a column may meet a row);
// with names what a failing argument meets, given its shape.
func (c *checker) broadcastArgs(d *stdlib.Dist, call *ast.CallExpr, args []Type, t Type, with string) Type {
	for i, a := range call.Args {
		b := broadcast(t.Shape, args[i].Shape)
		if b.Err != "" && !b.BothStretch {
			c.errorf(a.Pos(), "%s argument %d (%s): `%s` is %s, which does not broadcast with "+with,
				d.Name, i+1, d.Params[i].Name, exprString(a), args[i].Shape.String(), t.Shape.String())
			return invalid
		}
		t.Shape, t.DataOnly = b.Shape, t.DataOnly && args[i].DataOnly
	}
	return t
}

// arity reports a wrong number of arguments: too few at the closing
// parenthesis, too many at the first extra argument.
func (c *checker) arity(e *ast.CallExpr, name, sig string, want int) bool {
	got := len(e.Args)
	switch {
	case got < want:
		hint := ""
		if name == "rep_matrix" && got == 2 {
			// Stan's rep_matrix(v, m) of a vector or row_vector
			hint = "; Stan's rep_matrix(v, m) of a vector v is v * rep(1, m)' (v in each of m columns), and of a row r, rep_matrix(r, n), rep(1, n) * r; + - .* / broadcast a vector or a row without either (section 5)"
		}
		c.errorf(e.Rparen, "too few arguments to %s: expected %d (%s), found %d%s", name, want, sig, got, hint)
	case got > want:
		hint := ""
		if (name == "max" || name == "min") && got == 2 {
			// Stan's max(a, b) of two values
			hint = fmt.Sprintf("; the %s of two values, elementwise, is f%s(%s, %s)", map[string]string{"max": "larger", "min": "smaller"}[name], name, exprString(e.Args[0]), exprString(e.Args[1]))
		}
		if name == "logsumexp" {
			// Stan's log_sum_exp(a, b) of two values
			hint = fmt.Sprintf("; log(exp(a) + exp(b)) of two values, elementwise, is log_sum_exp(%s, %s)", exprString(e.Args[0]), exprString(e.Args[1]))
		}
		c.errorf(e.Args[want].Pos(), "too many arguments to %s: expected %d (%s), found %d%s", name, want, sig, got, hint)
	default:
		return true
	}
	return false
}

// arityForms reports a count of arguments that fits neither form of a
// function with two (a covariance function and its cross-covariance):
// too few below the shorter, at the closing parenthesis; too many above
// the longer, at the first extra argument.
func (c *checker) arityForms(e *ast.CallExpr, f *stdlib.Func) bool {
	a := f.Alt
	forms := fmt.Sprintf("%d (%s) or %d (%s)", len(f.Args), f.Signature(), len(a.Args), a.Signature())
	switch got := len(e.Args); {
	case got < len(f.Args):
		c.errorf(e.Rparen, "too few arguments to %s: expected %s, found %d", f.Name, forms, got)
	case got > len(a.Args):
		c.errorf(e.Args[len(a.Args)].Pos(), "too many arguments to %s: expected %s, found %d", f.Name, forms, got)
	default:
		return true
	}
	return false
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// minDim is min(m, n) of a matrix's shape [m, n]: one of them when they
// are equal or both known, else a derived size.
func minDim(s Shape) Dim {
	switch {
	case compareDims(s[0], s[1]) == dimEqual:
		return moreInformative(s[0], s[1])
	case s[0].Known() && s[1].Known():
		return knownDim(min(s[0].N, s[1].N))
	}
	return derivedDim("min(" + s[0].String() + ", " + s[1].String() + ")")
}

func (c *checker) callShape(e *ast.CallExpr, f *stdlib.Func, args []Type) (Shape, bool) {
	square := func(i int) (Dim, bool) {
		s := args[i].Shape
		if compareDims(s[0], s[1]) == dimDiffer {
			c.errorf(e.Args[i].Pos(), "%s expects a square matrix; `%s` is %s", f.Name, exprString(e.Args[i]), s.String())
			return Dim{}, false
		}
		return moreInformative(s[0], s[1]), true
	}
	switch f.Shape {
	case stdlib.Elementwise1:
		return args[0].Shape, true
	case stdlib.Elementwise2: // two or more arguments (log_mix has three)
		out := args[0].Shape
		for i := 1; i < len(args); i++ {
			b := broadcast(out, args[i].Shape)
			if b.Err != "" {
				c.errorf(e.Args[i].Pos(), "%s: %s", f.Name, b.Err)
				return nil, false
			}
			out = b.Shape
		}
		return out, true
	case stdlib.ReduceScalar, stdlib.Constant:
		return nil, true
	case stdlib.RowSum:
		return Shape{args[0].Shape[0]}, true
	case stdlib.ColSum:
		return Shape{one, args[0].Shape[1]}, true
	case stdlib.Identity:
		d := c.dimOf(e.Args[0], args[0], f.Name+"'s size")
		return Shape{d, d}, true
	case stdlib.Rep:
		return Shape{c.dimOf(e.Args[1], args[1], f.Name+"'s length")}, true
	case stdlib.Sized:
		return Shape{c.dimOf(e.Args[0], args[0], f.Name+"'s length")}, true
	case stdlib.SizedRow:
		return Shape{one, c.dimOf(e.Args[0], args[0], f.Name+"'s length")}, true
	case stdlib.RepMatrix:
		return Shape{c.dimOf(e.Args[1], args[1], f.Name+"'s rows"), c.dimOf(e.Args[2], args[2], f.Name+"'s columns")}, true
	case stdlib.DiagRule:
		if args[0].Shape.Rank() == 1 {
			n := args[0].Shape[0]
			return Shape{n, n}, true
		}
		n, ok := square(0)
		return Shape{n}, ok
	case stdlib.SquareToScalar:
		_, ok := square(0)
		return nil, ok
	case stdlib.SquareSame:
		n, ok := square(0)
		return Shape{n, n}, ok
	case stdlib.Solve:
		n, ok := square(0)
		if !ok {
			return nil, false
		}
		b := args[1].Shape
		if compareDims(n, b[0]) == dimDiffer {
			c.errorf(e.Args[1].Pos(), "%s: `%s` has %s rows but the matrix is %s", f.Name, exprString(e.Args[1]), b[0], args[0].Shape)
			return nil, false
		}
		return b, true
	case stdlib.ScaleSolve: // t, A, B
		n, ok := square(1)
		if !ok {
			return nil, false
		}
		b := args[2].Shape
		if compareDims(n, b[0]) == dimDiffer {
			c.errorf(e.Args[2].Pos(), "%s: `%s` has %s rows but the matrix `%s` is %s", f.Name, exprString(e.Args[2]), b[0], exprString(e.Args[1]), args[1].Shape)
			return nil, false
		}
		return b, true
	case stdlib.SolveRight: // B [m, n], L [n, n]
		n, ok := square(1)
		if !ok {
			return nil, false
		}
		b := args[0].Shape
		if compareDims(n, b[1]) == dimDiffer {
			c.errorf(e.Args[0].Pos(), "%s: `%s` has %s columns but the matrix `%s` is %s", f.Name, exprString(e.Args[0]), b[1], exprString(e.Args[1]), args[1].Shape)
			return nil, false
		}
		return Shape{b[0], moreInformative(n, b[1])}, true
	case stdlib.Permute:
		return args[0].Shape, true
	case stdlib.Diff:
		return c.diffShape(e, args)
	case stdlib.CSRTimes:
		m, _, ok := c.csrShape(e, f, args)
		return Shape{m}, ok
	case stdlib.CSRToDense:
		m, n, ok := c.csrShape(e, f, args)
		return Shape{m, n}, ok
	case stdlib.GroupSum:
		return c.groupSumShape(e, f, args)
	case stdlib.Interp:
		return c.interpShape(e, f, args)
	case stdlib.CSRNonZeros:
		return Shape{csrNonZeros(e.Args[0])}, true
	case stdlib.CSRRowStarts:
		return Shape{addDim(args[0].Shape[0], one)}, true
	case stdlib.SquareToVector:
		n, ok := square(0)
		return Shape{n}, ok
	case stdlib.SingularVals:
		return Shape{minDim(args[0].Shape)}, true
	case stdlib.MinCols:
		s := args[0].Shape
		return Shape{s[0], minDim(s)}, true
	case stdlib.MinRows:
		s := args[0].Shape
		return Shape{minDim(s), s[1]}, true
	case stdlib.ColsByMin:
		s := args[0].Shape
		return Shape{s[1], minDim(s)}, true
	case stdlib.RowsSquare:
		s := args[0].Shape
		return Shape{s[0], s[0]}, true
	case stdlib.SameMatrix:
		return args[0].Shape, true
	case stdlib.Transposed:
		s := args[0].Shape
		return Shape{s[1], s[0]}, true
	case stdlib.TraceGenQuad: // D [k, k], A [n, n], B [n, k]
		k, ok1 := square(0)
		n, ok2 := square(1)
		if !ok1 || !ok2 {
			return nil, false
		}
		b := args[2].Shape
		if compareDims(n, b[0]) == dimDiffer || compareDims(k, b[1]) == dimDiffer {
			c.errorf(e.Args[2].Pos(), "%s: `%s` is %s but needs [%s, %s] (the rows of A, the columns of D)", f.Name, exprString(e.Args[2]), b, n, k)
			return nil, false
		}
		return nil, true
	case stdlib.QuantileRule:
		return args[1].Shape, true
	case stdlib.ToMatrix:
		m := c.dimOf(e.Args[1], args[1], f.Name+"'s rows")
		n := c.dimOf(e.Args[2], args[2], f.Name+"'s columns")
		s := args[0].Shape
		k := s[0]
		if s.Rank() == 2 {
			k = mulDim(s[0], s[1])
		}
		if mn := mulDim(m, n); k.Known() && mn.Known() && k.N != mn.N {
			c.errorf(e.Args[0].Pos(), "%s: `%s` has %d elements but [%s, %s] holds %d", f.Name, exprString(e.Args[0]), k.N, m, n, mn.N)
			return nil, false
		}
		return Shape{m, n}, true
	case stdlib.Outer:
		return Shape{args[0].Shape[0], args[1].Shape[0]}, true
	case stdlib.DiagPre, stdlib.DiagPost:
		vi, mi, axis, side := 0, 1, 0, "rows"
		if f.Shape == stdlib.DiagPost {
			vi, mi, axis, side = 1, 0, 1, "columns"
		}
		v, m := args[vi].Shape, args[mi].Shape
		if compareDims(v[0], m[axis]) == dimDiffer {
			c.errorf(e.Args[vi].Pos(), "%s: `%s` is %s but `%s` (%s) has %s %s; v needs one element per %s",
				f.Name, exprString(e.Args[vi]), v.String(), exprString(e.Args[mi]), m.String(), m[axis], side, side[:len(side)-1])
			return nil, false
		}
		out := Shape{m[0], m[1]}
		out[axis] = moreInformative(v[0], m[axis])
		return out, true
	case stdlib.QuadFormDiag:
		n, ok := square(0)
		if !ok {
			return nil, false
		}
		v := args[1].Shape
		if compareDims(n, v[0]) == dimDiffer {
			c.errorf(e.Args[1].Pos(), "%s: `%s` is %s but `%s` is %s; v needs one element per row of M",
				f.Name, exprString(e.Args[1]), v.String(), exprString(e.Args[0]), args[0].Shape.String())
			return nil, false
		}
		n = moreInformative(n, v[0])
		return Shape{n, n}, true
	case stdlib.GPCov:
		n, d := args[0].Shape.matrix()
		if !c.gpRho(e, f, args, 2, d) {
			return nil, false
		}
		return Shape{n, n}, true
	case stdlib.GPCross:
		return c.gpCross(e, f, args)
	case stdlib.AddDiag:
		n, ok := square(0)
		if !ok {
			return nil, false
		}
		if d := args[1].Shape; d.Rank() == 1 {
			if compareDims(n, d[0]) == dimDiffer {
				c.errorf(e.Args[1].Pos(), "%s: `%s` is %s but `%s` is %s; d is a scalar or one element per row of K",
					f.Name, exprString(e.Args[1]), d.String(), exprString(e.Args[0]), args[0].Shape.String())
				return nil, false
			}
			n = moreInformative(n, d[0])
		}
		return Shape{n, n}, true
	case stdlib.DotProduct:
		return nil, c.dotProduct(e, f, args)
	case stdlib.CrossProd:
		n := args[0].Shape[1]
		return Shape{n, n}, true
	case stdlib.TCrossProd:
		n := args[0].Shape[0]
		return Shape{n, n}, true
	case stdlib.QuadForm:
		n, ok := square(0)
		if !ok {
			return nil, false
		}
		v := args[1].Shape
		if compareDims(n, v[0]) == dimDiffer {
			c.errorf(e.Args[1].Pos(), "quad_form: `%s` has %s rows but the matrix is %s", exprString(e.Args[1]), v[0], args[0].Shape)
			return nil, false
		}
		if v.Rank() == 1 {
			return nil, true
		}
		return Shape{v[1], v[1]}, true
	case stdlib.Head, stdlib.Segment:
		return c.segment(e, f, args)
	case stdlib.ToVector:
		s := args[0].Shape
		switch {
		case s.Rank() == 1:
			return s, true
		case s[0].isOne():
			return Shape{s[1]}, true
		case s[1].isOne():
			return Shape{s[0]}, true
		}
		return Shape{mulDim(s[0], s[1])}, true
	case stdlib.AppendRow, stdlib.AppendCol:
		return c.appendShape(e, f, args)
	case stdlib.RowsDot, stdlib.ColsDot:
		x, y := args[0].Shape, args[1].Shape
		same := x.Rank() == y.Rank()
		for i := 0; same && i < x.Rank(); i++ {
			same = compareDims(x[i], y[i]) != dimDiffer
		}
		if !same {
			c.errorf(e.Args[1].Pos(), "%s: `%s` is %s but `%s` is %s; the two must have one shape",
				f.Name, exprString(e.Args[1]), y.String(), exprString(e.Args[0]), x.String())
			return nil, false
		}
		switch {
		case f.Shape == stdlib.RowsDot:
			return Shape{moreInformative(x[0], y[0])}, true
		case x.Rank() == 1:
			return Shape{one, one}, true
		}
		return Shape{one, moreInformative(x[1], y[1])}, true
	case stdlib.Filter: // the ranks were checked; p < T (a p ≥ T is the compiler's once sizes are known)
		if ps, es := args[0].Shape, args[1].Shape; ps.Rank() == 1 && filterPhiTooLong(ps[0], es[0]) {
			c.errorf(e.Args[0].Pos(), "%s", stdlib.FilterPhiTooLong(exprString(e.Args[0]), ps[0].String(), es[0].String()))
			return nil, false
		}
		return args[1].Shape, true
	case stdlib.TVFilter:
		as, es := args[0].Shape, args[1].Shape
		if compareDims(as[0], es[0]) == dimDiffer || as.Rank() == 2 && (es.Rank() == 1 || compareDims(as[1], es[1]) == dimDiffer) {
			c.errorf(e.Args[0].Pos(), "tv_filter: `%s` is %s but `%s` is %s; a has a coefficient per time step of e, a vector [T] (shared by e's columns) or e's shape",
				exprString(e.Args[0]), as.String(), exprString(e.Args[1]), es.String())
			return nil, false
		}
		return es, true
	case stdlib.Renewal:
		if ws, is := args[1].Shape, args[2].Shape; compareDims(ws[0], is[0]) == dimDiffer {
			c.errorf(e.Args[2].Pos(), "renewal: `%s` is %s but `%s` is %s; I0 holds the infections of the S days before t = 0, one for each lag of w [S]",
				exprString(e.Args[2]), is.String(), exprString(e.Args[1]), ws.String())
			return nil, false
		}
		return args[0].Shape, true
	case stdlib.HMM:
		return nil, c.hmmShape(e, args)
	case stdlib.HMMStates:
		so := args[0].Shape
		if so.Rank() == 1 { // one state's column, as hmmShape reads it
			so = Shape{so[0], one}
		}
		return so, c.hmmShape(e, args)
	case stdlib.HMMPath:
		return Shape{args[0].Shape[0]}, c.hmmShape(e, args)
	}
	panic("check: unknown shape rule " + f.Shape.String())
}

// filterPhiTooLong reports whether ar_filter's phi [p] certainly has as
// many coefficients as e has steps T (p ≥ T, p ≥ 2): both numbers, or one
// size named for both. A single coefficient is AR(1) whatever T.
func filterPhiTooLong(p, t Dim) bool {
	if p.Known() && t.Known() {
		return p.N >= 2 && p.N >= t.N
	}
	return compareDims(p, t) == dimEqual
}

// hmmShape checks the shapes of hmm_marginal, hmm_hidden_state_prob,
// hmm_latent_rng and hmm_viterbi:
// log_omega [N, K] (a row per observation, the transpose of Stan's),
// Gamma [K, K] or, time-varying, [N − 1, K·K] (hmmTimeVarying) and rho [K]. A vector [N] is the log_omega [N, 1] of one
// state: logpdf(y, Normal(mu', sigma)) of a mu [1] is one (§5, rule 4).
func (c *checker) hmmShape(e *ast.CallExpr, args []Type) bool {
	so, sg, sr := args[0].Shape, args[1].Shape, args[2].Shape
	vec := so.Rank() == 1
	if vec {
		so = Shape{so[0], one}
	}
	k := so[1]
	square := compareDims(sg[0], sg[1]) != dimDiffer && compareDims(k, sg[1]) != dimDiffer
	if tv := hmmTimeVarying(so, sg); tv == dimEqual || tv == dimDeferred && !square && compareDims(sg[0], sg[1]) != dimEqual {
		// one transition matrix per step, row-major: rho has K elements
		if compareDims(sr[0], k) == dimDiffer {
			c.errorf(e.Args[2].Pos(), "%s: `%s` is %s but log_omega has %s states: rho needs one element per state", e.Fun.Name, exprString(e.Args[2]), sr.String(), k.String())
			return false
		}
		return c.hmmTimeVaryingParam(e, args, k) && c.hmmParamSimplex(e, args)
	}
	if compareDims(sg[0], sg[1]) == dimDiffer {
		c.errorf(e.Args[1].Pos(), "%s expects a square Gamma [K, K], or [N - 1, K*K] for one transition matrix per step (row t, row-major, the step from t to t + 1); `%s` is %s", e.Fun.Name, exprString(e.Args[1]), sg.String())
		return false
	}
	g := moreInformative(sg[0], sg[1])
	if vec && compareDims(k, g) == dimDiffer {
		c.errorf(e.Args[0].Pos(), "%s: `%s` is a vector %s, the log_omega [N, 1] of one state, but Gamma is %s: log_omega needs a column per state",
			e.Fun.Name, exprString(e.Args[0]), args[0].Shape.String(), sg.String())
		return false
	}
	if compareDims(k, g) == dimDiffer {
		hint := ""
		if compareDims(so[0], g) == dimEqual {
			hint = " (gpp's log_omega has a row per observation, the transpose of Stan's [K, N]: write `" + exprString(e.Args[0]) + "'`)"
		}
		c.errorf(e.Args[0].Pos(), "%s: `%s` is %s but Gamma is %s: log_omega needs a column per state%s", e.Fun.Name, exprString(e.Args[0]), so.String(), sg.String(), hint)
		return false
	}
	if compareDims(sr[0], moreInformative(k, g)) == dimDiffer {
		c.errorf(e.Args[2].Pos(), "%s: `%s` is %s but Gamma is %s: rho needs one element per state", e.Fun.Name, exprString(e.Args[2]), sr.String(), sg.String())
		return false
	}
	return c.hmmParamSimplex(e, args)
}

// hmmTimeVarying says whether Gamma sg may be the time-varying
// [N − 1, K·K] of log_omega so [N, K]: row t the row-major transition
// matrix from step t to t + 1. dimEqual when it certainly is (the sizes
// known: its columns K² with K > 1, its rows N − 1), dimDiffer when it
// certainly is not, dimDeferred when the data decide.
func hmmTimeVarying(so, sg Shape) dimRel {
	k, n := so[1], so[0]
	kk, rows := Dim{N: -1, Name: k.String() + "*" + k.String(), Derived: true}, Dim{N: -1, Name: n.String() + " - 1", Derived: true}
	if k.Known() {
		kk = knownDim(k.N * k.N)
	}
	if n.Known() && n.N >= 1 {
		rows = knownDim(n.N - 1)
	}
	rc, cc := compareDims(sg[0], rows), compareDims(sg[1], kk)
	switch {
	case rc == dimDiffer || cc == dimDiffer:
		return dimDiffer
	case rc == dimEqual && cc == dimEqual && k.N > 1:
		return dimEqual
	}
	return dimDeferred
}

// hmmTimeVaryingParam refuses a param passed whole as the time-varying
// Gamma [N − 1, K·K] of K states: each K-block of a row must be a
// simplex, which no declared support gives (a simplex[N - 1, K*K]'s rows
// sum to 1 over the whole row, so its blocks do not, and the first
// evaluation fails whatever the start); the blocks are built instead.
func (c *checker) hmmTimeVaryingParam(e *ast.CallExpr, args []Type, k Dim) bool {
	id, ok := ast.Unparen(e.Args[1]).(*ast.Ident)
	if !ok {
		return true
	}
	if sym := c.lookup(id.Name); sym == nil || sym.Kind != Param {
		return true
	}
	what := "rows sum to 1 over the whole row, not per block"
	if args[1].Support != dist.Simplex {
		what = "rows need not be simplexes per block"
	}
	ks := k.String()
	c.errorf(e.Args[1].Pos(), "%s: Gamma `%s` is a param declared %s%s, a time-varying Gamma [N - 1, K*K] whose %s (entries i*K .. i*K + K - 1 of row t are the distribution of the state at step t + 1 after state i at step t, each block a simplex), so no start (--init) helps: build it from one simplex per from-state side by side, "+
		"params `g0, g1, ...: simplex[N - 1, %s]` (each row a simplex) and `let %s = append_col(g0, g1)` for 2 states (append_col(append_col(g0, g1), g2) for 3), or the softmax of each block's logits (language.md, Hidden Markov models: Time-varying transitions)",
		e.Fun.Name, id.Name, args[1].Support, args[1].Shape.String(), what, ks, id.Name)
	return false
}

// hmmParamSimplex refuses a param passed as the HMM's Gamma or rho whose
// declared support is not simplex: its rows need not sum to 1 (a
// positive[K, K] starts at all 1s), which no start mends.
func (c *checker) hmmParamSimplex(e *ast.CallExpr, args []Type) bool {
	for i, what := range [...]string{1: "Gamma", 2: "rho"} {
		if i == 0 {
			continue
		}
		id, ok := ast.Unparen(e.Args[i]).(*ast.Ident)
		if !ok {
			continue
		}
		sym := c.lookup(id.Name)
		if sym == nil || sym.Kind != Param || args[i].Support == dist.Simplex {
			continue
		}
		sums, want, why := "rows", "simplex[K, K]", "each row a simplex: row i is the distribution of the state after state i"
		if i == 2 {
			sums, want, why = "elements", "simplex[K]", "the first state's distribution"
		}
		c.errorf(e.Args[i].Pos(), "%s: %s `%s` is a param declared %s%s, whose %s need not sum to 1, so no start (--init) helps: declare it %s (%s)",
			e.Fun.Name, what, id.Name, args[i].Support, args[i].Shape.String(), sums, want, why)
		return false
	}
	return true
}

// dimOf resolves an int scalar argument used as a size (I(n)). The rank and
// int-ness were checked by the caller.
func (c *checker) dimOf(e ast.Expr, t Type, what string) Dim {
	if !t.DataOnly {
		c.errorf(e.Pos(), "%s must be a constant, a size name or int data; %s", what, c.paramCulprit(e))
		return unknownDim
	}
	if t.Const != nil {
		if *t.Const < 0 {
			c.errorf(e.Pos(), "%s must not be negative; `%s` is %g", what, exprString(e), *t.Const)
			return unknownDim
		}
		d := knownDim(int(*t.Const))
		if id, ok := ast.Unparen(e).(*ast.Ident); ok {
			d.Name = id.Name
		}
		return d
	}
	return c.symbolicDim(e)
}

func funcNames() []string {
	var names []string
	for _, f := range stdlib.Funcs() {
		names = append(names, f.Name)
	}
	return names
}

func distNames() []string {
	var names []string
	for _, d := range stdlib.Dists() {
		names = append(names, d.Name)
	}
	return names
}

// ---------------------------------------------------------------------------
// Indexing (language.md §4)

func (c *checker) index(e *ast.IndexExpr) Type {
	x := c.expr(e.X)
	idx := make([]Type, len(e.Indices))
	ok := true
	for i, ix := range e.Indices {
		if s, isSlice := ix.(*ast.SliceExpr); isSlice {
			for _, b := range []ast.Expr{s.Lo, s.Hi} {
				if b == nil {
					continue
				}
				if bt := c.expr(b); !c.intScalar(b, bt, "a slice bound") || !c.knownIndex(b, bt, "a slice bound") {
					ok = false
				}
			}
			continue
		}
		idx[i] = c.expr(ix)
		if !idx[i].Valid() {
			ok = false
		}
	}
	if !x.Valid() {
		return invalid
	}
	rank := x.Shape.Rank()
	if rank == 0 {
		c.errorf(e.Lbrack, "cannot index `%s`: it is a scalar", exprString(e.X))
		return invalid
	}
	if len(e.Indices) > rank {
		c.errorf(e.Indices[rank].Pos(), "too many indices: `%s` is %s", exprString(e.X), x.Shape.describe())
		return invalid
	}
	if len(e.Indices) == 0 {
		c.errorf(e.Rbrack, "missing index")
		return invalid
	}
	t := Type{Elem: x.Elem, Support: x.Support, DataOnly: x.DataOnly}
	var out Shape
	gathered := -1   // the axis of the first index vector, if any
	lastKept := true // whether the last axis is kept whole (for simplex rows)
	for axis, d := range x.Shape {
		if axis >= len(e.Indices) {
			out = append(out, d)
			continue
		}
		ix := e.Indices[axis]
		last := axis == rank-1
		if s, isSlice := ix.(*ast.SliceExpr); isSlice {
			n, whole, good := c.slice(e, s, d)
			ok = ok && good
			out = append(out, n)
			if last && !whole {
				lastKept = false
			}
			for _, b := range []ast.Expr{s.Lo, s.Hi} {
				if b != nil {
					t.DataOnly = t.DataOnly && c.info.Types[b].DataOnly
				}
			}
			continue
		}
		it := idx[axis]
		if !it.Valid() {
			continue
		}
		t.DataOnly = t.DataOnly && it.DataOnly
		if last {
			lastKept = false
		}
		if it.Elem != Int {
			c.errorf(ix.Pos(), "index must be int; `%s` is real", exprString(ix))
			ok = false
			continue
		}
		// An index that changes with the draws is picked per draw
		// (outputs only: refuseSteps reports it where the log joint or
		// the compiler reads it, Info.DynamicIndex).
		// A constant index, alone or in a literal, is checked against a
		// known size here.
		inRange := func(ix ast.Expr, v *float64) {
			if v != nil && (*v < 0 || d.Known() && int(*v) >= d.N) {
				c.errorf(ix.Pos(), "index %d out of range: `%s` has %s along axis %d (indices are 0-based)",
					int(*v), exprString(e.X), plural1(d), axis)
				ok = false
			}
		}
		switch it.Shape.Rank() {
		case 0:
			if v := it.Const; v != nil && *v < 0 {
				c.errorf(ix.Pos(), "index %d out of range: %s", int(*v), negativeIndexHint(exprString(e.X), rank, axis, d, int(-*v)))
				ok = false
				continue
			}
			inRange(ix, it.Const)
		case 1:
			if gathered >= 0 {
				// Paired gathering, NumPy's: A[r, c] is the vector of
				// the elements A[r[k], c[k]], one axis, not the block.
				prev := idx[gathered]
				if !c.pairedLengths(e, e.Indices[gathered], prev, ix, it) {
					ok = false
					continue
				}
				out[len(out)-1] = moreInformative(prev.Shape[0], it.Shape[0])
			} else {
				gathered = axis
				out = append(out, it.Shape[0])
			}
			if lit, isLit := ast.Unparen(ix).(*ast.VectorLit); isLit {
				for _, el := range lit.Elems {
					inRange(el, c.info.Types[el].Const)
				}
			}
		case 2:
			// NumPy's x[idx] of a vector by an int matrix: the elements
			// x[idx[i, j]] in the index's shape (a weekday effect per cell
			// of a report triangle).
			if rank != 1 || len(e.Indices) != 1 {
				c.errorf(ix.Pos(), "index must be an int scalar or vector; `%s` is %s (an int matrix indexes a vector only: x[idx] is the matrix of the elements x[idx[i, j]])", exprString(ix), it.Shape.describe())
				ok = false
				continue
			}
			if !it.DataOnly {
				c.errorf(ix.Pos(), "an int matrix index must be known before the fit (data, constants and lets of them); `%s` %s", exprString(ix), c.dependsOnParam(ix))
				ok = false
				continue
			}
			out = append(out, it.Shape[0], it.Shape[1])
		default:
			c.errorf(ix.Pos(), "index must be an int scalar or vector; `%s` is %s", exprString(ix), it.Shape.describe())
			ok = false
		}
	}
	if !ok {
		return invalid
	}
	t.Shape = out
	// Rows of a simplex stay simplexes while the last axis is kept whole;
	// single entries are merely non-negative.
	if x.Support == dist.Simplex && !(lastKept && len(out) > 0) {
		t.Support = dist.NonNegative
	}
	// A constant element of a literal, picked by constant indices, is a
	// constant: [4, 5][1] and [[1, 2], [4, 5]][1, 0] may be a const's
	// value or a size.
	if lit, isLit := ast.Unparen(e.X).(*ast.VectorLit); isLit && len(out) == 0 && idx[0].Const != nil {
		el := lit.Elems[int(*idx[0].Const)]
		if row, isRow := ast.Unparen(el).(*ast.VectorLit); isRow && len(idx) == 2 && idx[1].Const != nil {
			el = row.Elems[int(*idx[1].Const)]
		}
		if v := c.info.Types[el].Const; v != nil {
			t.Const, t.Support = v, valueSupport(t.Elem, *v)
		}
	}
	return t
}

// pairedLengths reports whether the index vectors r and c of the paired
// gather e (A[r, c]: the elements A[r[k], c[k]]) may have equal lengths;
// lengths that certainly differ are an error naming both, and saying how
// to write the block of rows r and columns c (Stan's A[r, c]). Lengths
// known only with the data are compared when the model compiles.
func (c *checker) pairedLengths(e *ast.IndexExpr, r ast.Expr, rt Type, col ast.Expr, ct Type) bool {
	if compareDims(rt.Shape[0], ct.Shape[0]) != dimDiffer {
		return true
	}
	c.errorf(col.Pos(), "paired gather `%s`: the index vectors have different lengths, %s for `%s` and %s for `%s`; `%s` is the vector of the elements %s[%s[k], %s[k]], so they must be as long (for the block of rows %s and columns %s, Stan's multi-index, write `%s[%s][:, %s]`)",
		exprString(e), rt.Shape[0], exprString(r), ct.Shape[0], exprString(col), exprString(e),
		exprString(e.X), exprString(r), exprString(col), exprString(r), exprString(col), exprString(e.X), exprString(r), exprString(col))
	return false
}

// knownIndex reports an index or a slice bound (what), of type t, that is
// not known before the fit: a slice bound fixes a shape, and the log joint
// reads elements the compiler picks while it builds the tape, so an int
// that changes with the draws (a comparison on a param, a replicate) cannot
// be one there (an output's index may: stepError reports the others).
func (c *checker) knownIndex(e ast.Expr, t Type, what string) bool {
	if t.Valid() && !t.DataOnly {
		c.errorf(e.Pos(), "%s must be known before the fit (data, constants, loop variables and lets of them); `%s` %s, whose value changes with the draws",
			what, exprString(e), c.dependsOnParam(e))
		return false
	}
	return true
}

// negativeIndexHint says how to write Python's x[-k] (along axis of x,
// of rank rank, whose size is d): gpp counts only from the front.
func negativeIndexHint(x string, rank, axis int, d Dim, k int) string {
	size := d.String()
	if d.Derived {
		size = "(" + size + ")"
	}
	from := fmt.Sprintf("%s-%d", size, k)
	if d.Name == "" && d.Known() {
		from = strconv.Itoa(d.N - k)
	}
	msg := "gpp has no negative indices (they are 0-based, counting from the front): "
	if rank == 1 {
		msg += fmt.Sprintf("Python's %s[-%d] is %s[%s]", x, k, x, from)
		if k == 1 {
			return msg + fmt.Sprintf(", and tail(%s, 1) is the last element as a vector [1]", x)
		}
		return msg + fmt.Sprintf(", and tail(%s, %d) the last %d elements", x, k, k)
	}
	return msg + fmt.Sprintf("the %s along axis %d is index %s", ordinalFromEnd(k), axis, from)
}

// ordinalFromEnd names the k-th element from the end.
func ordinalFromEnd(k int) string {
	if k == 1 {
		return "last"
	}
	return fmt.Sprintf("element %d from the end", k)
}

func plural1(d Dim) string {
	if d.Known() {
		return plural(d.N, "element")
	}
	return d.String() + " elements"
}

// slice resolves lo:hi along a dim of size d: the resulting size, whether
// it is the whole extent, and whether the constant bounds are in range.
func (c *checker) slice(e *ast.IndexExpr, s *ast.SliceExpr, d Dim) (Dim, bool, bool) {
	var lo, hi *float64
	if s.Lo != nil {
		lo = c.info.Types[s.Lo].Const
	}
	if s.Hi != nil {
		hi = c.info.Types[s.Hi].Const
	}
	if s.Lo == nil && s.Hi == nil {
		return d, true, true
	}
	for _, b := range []struct {
		v *float64
		e ast.Expr
	}{{lo, s.Lo}, {hi, s.Hi}} {
		if b.v == nil {
			continue
		}
		if *b.v < 0 || d.Known() && int(*b.v) > d.N {
			c.errorf(b.e.Pos(), "slice bound %d out of range: `%s` has %s", int(*b.v), exprString(e.X), plural1(d))
			return unknownDim, false, false
		}
	}
	l := 0
	if lo != nil {
		l = int(*lo)
	}
	switch {
	case (s.Lo == nil || lo != nil) && hi != nil:
		if int(*hi) < l {
			c.errorf(s.Hi.Pos(), "reversed slice: its end %d is before its start %d (x[a:b] takes a, ..., b-1)", int(*hi), l)
			return unknownDim, false, false
		}
		n := knownDim(int(*hi) - l)
		return n, d.Known() && l == 0 && n.N == d.N, true
	case s.Hi == nil && lo != nil && d.Known():
		return knownDim(d.N - l), l == 0, true
	case s.Hi == nil && lo != nil && l == 0:
		return d, true, true
	}
	// A size known only when the data loads: hi - lo, written out.
	hiText := d.String()
	if s.Hi != nil {
		hiText = exprString(s.Hi)
	}
	name := hiText
	if s.Lo != nil && !(lo != nil && *lo == 0) {
		loText := exprString(s.Lo)
		if _, ok := ast.Unparen(s.Lo).(*ast.BinaryExpr); ok {
			loText = "(" + loText + ")" // N - (K - 1), not N - K - 1
		}
		name = hiText + " - " + loText
	}
	if s.Hi == nil && (s.Lo == nil || lo != nil && *lo == 0) {
		return d, true, true
	}
	return derivedDim(name), false, true
}

// pairwiseAdvice is the error of a binary op other than .* whose operands
// are a column and a row (x - y'), stretched both ways into the table of
// all pairs, shape: gpp does not stretch both, so the advice makes the
// column's side a matrix, whose op with the row then broadcasts: x * rep(1,
// m)' - y' for x[i] − y[j]. outer(x, y), the advice of .*, is a product
// and no help for a difference or a sum. xs and ys are the operands' shapes.
func pairwiseAdvice(e *ast.BinaryExpr, xs, ys, shape Shape) string {
	operand := func(x ast.Expr) string {
		s := exprString(x)
		switch x.(type) {
		case *ast.Ident, *ast.IndexExpr, *ast.CallExpr, *ast.ParenExpr, *ast.TransposeExpr:
			return s
		}
		return "(" + s + ")"
	}
	n, m := shape[0].String(), shape[1].String()
	l, r := operand(e.X), operand(e.Y)
	if _, cols := xs.matrix(); cols.isOne() { // the left a column: in each of m columns
		l = fmt.Sprintf("%s * rep(1, %s)'", l, m)
	} else { // the left a row: in each of n rows
		l = fmt.Sprintf("rep(1, %s) * %s", n, l)
	}
	if e.Op == ast.Pow { // ^ binds tighter than *
		l = "(" + l + ")"
	}
	what := "pairwise results"
	switch e.Op {
	case ast.Sub:
		what = "pairwise differences"
	case ast.Add:
		what = "pairwise sums"
	}
	return fmt.Sprintf("broadcasting would stretch both %s and %s (a column against a row), which gpp does not do; for the %s, the [%s, %s] table, make one side a matrix, which then broadcasts with the other: %s %s %s",
		xs, ys, what, n, m, l, e.Op, r)
}

// foldArgs shows the values of a constant call's arguments, for the error
// when it is not a number: "sqrt of -0.1667 (`1 / rel - 1`)".
func foldArgs(name string, args []ast.Expr, vals []float64) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = strconv.FormatFloat(v, 'g', 6, 64)
		if i < len(args) {
			if text := exprString(args[i]); text != parts[i] { // not a literal
				parts[i] += " (`" + text + "`)"
			}
		}
	}
	return name + " of " + strings.Join(parts, ", ")
}

// eigenClamp records, on real data X, a call abs(eigenvalues_sym(X)) or
// fmax(eigenvalues_sym(X), ...) (DataVar.Clamps): the eigenbasis recipe's
// guard against rounding, which would also turn the negative eigenvalue
// of an indefinite X positive in silence.
func (c *checker) eigenClamp(e *ast.CallExpr) {
	if e.Fun.Name != "abs" && e.Fun.Name != "fabs" && e.Fun.Name != "fmax" {
		return
	}
	for _, a := range e.Args {
		in, ok := unparen(a).(*ast.CallExpr)
		if !ok || in.Fun.Name != "eigenvalues_sym" || len(in.Args) != 1 {
			continue
		}
		id, ok := unparen(in.Args[0]).(*ast.Ident)
		if !ok {
			continue
		}
		sym := c.lookup(id.Name)
		if sym == nil || sym.Kind != Data {
			continue
		}
		for _, d := range c.info.Data {
			if d.Symbol == sym && d.Kind == ast.Real {
				d.Clamps = append(d.Clamps, Clamp{Fn: e.Fun.Name, Pos: e.Fun.NamePos})
			}
		}
	}
}

// unparen returns e without the parentheses around it: (C) and ((C))
// read as C where a form is matched by its shape.
func unparen(e ast.Expr) ast.Expr {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

// posDef reports whether e names data or a param declared cov_matrix or
// corr_matrix: positive definite by its type (data checked so when it
// loads), so that its eigenvalues are positive.
func (c *checker) posDef(e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return false
	}
	sym := c.lookup(id.Name)
	if sym == nil {
		return false
	}
	pd := func(k ast.ElemKind) bool { return k == ast.CovMatrix || k == ast.CorrMatrix }
	if lat := c.latents[sym]; lat != nil {
		return pd(lat.Kind)
	}
	for _, d := range c.info.Data {
		if d.Symbol == sym {
			return pd(d.Kind)
		}
	}
	return false
}
