// Package check is gpp's semantic checker: it resolves names, evaluates
// constants (with command-line overrides), infers every expression's element
// type, shape (with broadcasting) and support, checks calls and
// distributions against the stdlib table, expands each call of a user
// function at its call site (fns.go), and collects the latents with their
// variational families.
//
// Place in the pipeline: lang/parser → lang/ast → check → compile. Check
// reads an *ast.File and returns an Info for the compiler and the CLI, or an
// ast.ErrorList with every independent error of the file. The rules are
// those of docs/language.md, sections 2 to 6.
package check

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/stdlib"
)

// Check checks a parsed file. It returns the Info and a nil error for a
// valid file; otherwise the Info gathered so far and an ast.ErrorList of
// every independent error, sorted by position. cfg may be nil.
func Check(f *ast.File, cfg *Config) (*Info, error) {
	if cfg == nil {
		cfg = &Config{}
	}
	c := &checker{
		file: f,
		cfg:  cfg,
		info: &Info{
			Types: map[ast.Expr]Type{},
			Uses:  map[*ast.Ident]*Symbol{},
			Defs:  map[*ast.Ident]*Symbol{},
			Calls: map[*ast.CallExpr]*stdlib.Func{},
			Dists: map[*ast.CallExpr]*stdlib.Dist{},

			Inlines:       map[*ast.CallExpr]*Inline{},
			ODEs:          map[*ast.CallExpr]*ODECall{},
			Algebras:      map[*ast.CallExpr]*AlgebraCall{},
			Integrals:     map[*ast.CallExpr]*IntegralCall{},
			UserDensities: map[*ast.CallExpr]*ast.CallExpr{},
			PositiveData:  map[ast.Expr]DataFactor{},
			CountData:     map[ast.Expr]string{},
		},
		fns:        map[string]*fnDef{},
		top:        map[string]*Symbol{},
		declared:   map[string]ast.Pos{},
		sizes:      map[string]ast.Pos{},
		reported:   map[string]bool{},
		locals:     map[string]ast.Pos{},
		localIn:    map[string]string{},
		latents:    map[*Symbol]*Latent{},
		outputs:    map[string]*OutputVar{},
		usedOverds: map[string]bool{},
	}
	c.info.cfg = cfg
	c.prepass()
	var stopped ast.Stmt // the first statement left unchecked after ast.MaxErrors errors
	for _, s := range f.Stmts {
		if len(c.errs) >= ast.MaxErrors {
			stopped = s
			break
		}
		c.stmt(s)
	}
	if stopped == nil {
		c.checkOverrides()
	}
	c.errs.Sort()
	switch {
	case len(c.errs) > ast.MaxErrors:
		pos := c.errs[ast.MaxErrors].Pos
		c.errs = append(c.errs[:ast.MaxErrors:ast.MaxErrors], ast.Errorf(pos, "too many errors; the rest are not reported"))
	case stopped != nil:
		c.errs = append(c.errs, ast.Errorf(stopped.Pos(), "too many errors; the file was not checked beyond here"))
	case len(c.errs) == 0:
		c.improper()
		c.unread()
		c.oneBasedLoops()
		c.intDivisions()
		c.matrixLogSumExps()
		c.missingData()
		c.replicateShapes()
		c.tinyScales()
		c.logitProbs()
		c.signScales()
		c.orderedIntercepts()
		c.softSums()
		c.dataIndexes()
		ast.ErrorList(c.info.Warnings).Sort()
	}
	return c.info, c.errs.Err()
}

type checker struct {
	file *ast.File
	cfg  *Config
	info *Info
	errs ast.ErrorList

	top      map[string]*Symbol   // top-level names declared so far
	scopes   []map[string]*Symbol // for and if bodies, innermost last
	blocks   []string             // the kind of each scope's body: "for" or "if"
	declared map[string]ast.Pos   // every top-level declaration (pre-pass), first position
	sizes    map[string]ast.Pos   // implicit size names (pre-pass), first mention
	reported map[string]bool      // undeclared names already reported
	locals   map[string]ast.Pos   // names declared in for and if bodies, first position
	localIn  map[string]string    // "a for" or "an if": the body of that first declaration

	latents    map[*Symbol]*Latent
	outputs    map[string]*OutputVar
	usedOverds map[string]bool

	steps         map[*Symbol][]stepUse // stepsOf each let's value, once computed
	stepsReported map[ast.Expr]bool     // comparisons on params reported by refuseSteps

	fns          map[string]*fnDef   // user functions declared so far
	inlined      int                 // calls of user functions expanded so far
	inlinedNodes int                 // nodes of the bodies expanded so far (fnSize)
	fnSizes      map[*ast.FnDecl]int // fnSize of each function, once computed

	defining    string // the name whose declaration is being checked
	definingLet bool   // defining is a let: a self-reference is a recursion
	inOutput    bool   // checking an output's expression
	inDim       bool   // checking a dimension of a declared type, or a data bound
}

func (c *checker) errorf(pos ast.Pos, format string, args ...any) {
	if !pos.IsValid() && pos.File == "" {
		pos.File = c.file.Name
	}
	c.errs.Add(pos, format, args...)
}

// prepass records every top-level declaration and the implicit size names:
// names in a data declaration's dims that are declared nowhere else.
func (c *checker) prepass() {
	for _, s := range c.file.Stmts {
		var id *ast.Ident
		switch s := s.(type) {
		case *ast.DataDecl:
			id = s.Name
		case *ast.ConstDecl:
			id = s.Name
		case *ast.ParamDecl:
			id = s.Name
		case *ast.LetStmt:
			id = s.Name
		case *ast.OutputStmt:
			if s.Value != nil || s.Dist != nil {
				id = s.Name
			}
		}
		if id != nil {
			if _, ok := c.declared[id.Name]; !ok {
				c.declared[id.Name] = id.NamePos
			}
		}
	}
	for _, s := range c.file.Stmts {
		d, ok := s.(*ast.DataDecl)
		if !ok || d.Type == nil {
			continue
		}
		for _, e := range d.Type.Dims {
			id, ok := e.(*ast.Ident)
			if !ok || builtinKind(id.Name) != "" {
				continue
			}
			if _, ok := c.declared[id.Name]; ok {
				continue
			}
			if _, ok := c.sizes[id.Name]; !ok {
				c.sizes[id.Name] = id.NamePos
			}
		}
	}
}

// builtinKind says whether name is a built-in function or distribution,
// the names a model cannot declare. The constants of no arguments (pi, e)
// are not among them: a model may name a value pi or e (a call pi() is
// the built-in's, a bare pi the model's).
func builtinKind(name string) string {
	if f := stdlib.LookupFunc(name); f != nil && f.Shape != stdlib.Constant {
		return "function"
	}
	if stdlib.LookupDist(name) != nil {
		return "distribution"
	}
	return ""
}

// freeName says whether name is a built-in function's that a model may
// still declare (stdlib.Func.FreeName).
func freeName(name string) bool {
	f := stdlib.LookupFunc(name)
	return f != nil && f.FreeName
}

// isConstant says whether name is a built-in constant of no arguments.
func isConstant(name string) bool {
	f := stdlib.LookupFunc(name)
	return f != nil && f.Shape == stdlib.Constant
}

// ---------------------------------------------------------------------------
// Scopes

// lookup resolves a name in the innermost scope outwards; the scope of an
// expanded function call (kind "fn") sees nothing outside it.
func (c *checker) lookup(name string) *Symbol {
	for i := len(c.scopes) - 1; i >= 0; i-- {
		if s, ok := c.scopes[i][name]; ok {
			return s
		}
		if c.blocks[i] == "fn" {
			return nil
		}
	}
	return c.top[name]
}

// declare enters sym under id, reporting reserved names, redeclarations and
// (in a for or if body) shadowing. It returns false if the name was not entered.
func (c *checker) declare(id *ast.Ident, sym *Symbol) bool {
	c.info.Defs[id] = sym
	if k := builtinKind(id.Name); k != "" && !freeName(id.Name) {
		hint := ""
		if sym.Kind == Data {
			// a column's name in the data need not be the model's
			hint = fmt.Sprintf(" (a data column named %s binds to another name on the command line: gpp fit model.gpp NAME=data.csv:%s)", id.Name, id.Name)
		}
		c.errorf(id.NamePos, "`%s` is a built-in %s; choose another name%s", id.Name, k, hint)
	}
	if f := c.fns[id.Name]; f != nil {
		c.errorf(id.NamePos, "`%s` redeclared; first declared at %s (function %s)", id.Name, f.decl.Name.NamePos, fnSignature(f.decl))
		return false
	}
	if prev := c.lookup(id.Name); prev != nil {
		if len(c.scopes) == 0 {
			c.errorf(id.NamePos, "`%s` redeclared; first declared at %s", id.Name, prev.Pos)
		} else {
			c.errorf(id.NamePos, "`%s` shadows the %s declared at %s; names inside %s body must be new",
				id.Name, prev.Kind, prev.Pos, c.bodyWords())
		}
		return false
	}
	if len(c.scopes) > 0 {
		if _, ok := c.locals[id.Name]; !ok {
			c.locals[id.Name] = id.NamePos
			c.localIn[id.Name] = c.bodyWords()
		}
		sym.Local = true
		c.scopes[len(c.scopes)-1][id.Name] = sym
		return true
	}
	c.top[id.Name] = sym
	c.info.Symbols = append(c.info.Symbols, sym)
	return true
}

// ---------------------------------------------------------------------------
// Statements

func (c *checker) stmt(s ast.Stmt) {
	local := len(c.scopes) > 0
	switch s := s.(type) {
	case *ast.DataDecl:
		if local {
			c.notTopLevel(s.Data, "data", s.Name, s)
			return
		}
		c.dataDecl(s)
	case *ast.ConstDecl:
		if local {
			c.notTopLevel(s.Const, "const", s.Name, s)
			return
		}
		c.constDecl(s)
	case *ast.ParamDecl:
		if local {
			c.notTopLevel(s.Param, "param", s.Name, s)
			return
		}
		c.paramDecl(s)
	case *ast.OutputStmt:
		if local {
			c.notTopLevel(s.Output, "output", s.Name, s)
			return
		}
		c.outputStmt(s)
	case *ast.LetStmt:
		c.defining, c.definingLet = s.Name.Name, true
		t := c.expr(s.Value)
		c.defining, c.definingLet = "", false
		c.declare(s.Name, &Symbol{Name: s.Name.Name, Kind: Let, Decl: s, Pos: s.Name.NamePos, Type: t})
	case *ast.TildeStmt:
		c.tildeStmt(s)
	case *ast.TargetStmt:
		c.expr(s.Value)
		c.refuseSteps(s.Value)
	case *ast.ForStmt:
		c.forStmt(s)
	case *ast.IfStmt:
		c.ifStmt(s)
	case *ast.FnDecl:
		c.fnDecl(s) // the parser allows it only at the top level
	default:
		panic(fmt.Sprintf("check: unexpected statement %T", s))
	}
}

// bodyWords is "a for" or "an if": the kind of the innermost body.
func (c *checker) bodyWords() string {
	if len(c.blocks) > 0 && c.blocks[len(c.blocks)-1] == "if" {
		return "an if"
	}
	return "a for"
}

// push opens the scope of a for or if body; pop closes it.
func (c *checker) push(kind string) {
	c.scopes = append(c.scopes, map[string]*Symbol{})
	c.blocks = append(c.blocks, kind)
}

func (c *checker) pop() {
	c.scopes = c.scopes[:len(c.scopes)-1]
	c.blocks = c.blocks[:len(c.blocks)-1]
}

// notTopLevel reports a declaration inside a for or if body and enters its
// name with an invalid type so that its uses raise no further errors.
func (c *checker) notTopLevel(pos ast.Pos, what string, name *ast.Ident, decl ast.Node) {
	c.errorf(pos, "%s declarations are allowed only at the top level, not inside %s body", what, c.bodyWords())
	if name != nil && c.lookup(name.Name) == nil {
		c.scopes[len(c.scopes)-1][name.Name] = &Symbol{Name: name.Name, Kind: Let, Decl: decl, Pos: name.NamePos, Local: true}
	}
}

func (c *checker) forStmt(s *ast.ForStmt) {
	lo := c.expr(s.Lo)
	hi := c.expr(s.Hi)
	c.intScalar(s.Lo, lo, "loop bound")
	c.intScalar(s.Hi, hi, "loop bound")
	// A bound that depends on a param can only hold a comparison on it,
	// reported here; the loop variable is then taken as known, so that its
	// uses in the body raise no further errors. So it is after a bound
	// whose error is reported already (`0:I`, I being the identity).
	known := c.refuseSteps(s.Lo, s.Hi) || lo.DataOnly && hi.DataOnly || !lo.Valid() || !hi.Valid()
	sup := dist.Real
	if lo.Valid() && lo.Const != nil && *lo.Const >= 0 {
		sup = dist.Count
	}
	c.push("for")
	c.declare(s.Var, &Symbol{Name: s.Var.Name, Kind: LoopVar, Decl: s, Pos: s.Var.NamePos,
		Type: Type{Elem: Int, Support: sup, DataOnly: known}})
	for _, b := range s.Body {
		c.stmt(b)
	}
	c.pop()
}

// ifStmt checks an if: each condition must be a scalar known before the
// fit (the compiler evaluates it and lowers only the branch taken), and each
// body is a scope of its own, as a for body is.
func (c *checker) ifStmt(s *ast.IfStmt) {
	body := func(b *ast.Block) {
		c.push("if")
		for _, st := range b.Stmts {
			c.stmt(st)
		}
		c.pop()
	}
	for _, b := range s.Branches {
		t := c.expr(b.Cond)
		switch {
		case !t.Valid():
		case c.refuseSteps(b.Cond): // a comparison on a param, reported at its operator
		case t.Shape.Rank() != 0:
			c.errorf(b.Cond.Pos(), "an if condition must be a scalar; `%s` is %s (to test every element, combine them first, e.g. sum(%s) > 0)",
				exprString(b.Cond), t.Shape.describe(), exprString(b.Cond))
		case !t.DataOnly:
			c.errorf(b.Cond.Pos(), "an if condition must be known before the fit: `%s` %s; the branch taken would change with the draws, which gradients cannot follow, so write the condition on data, constants and loop variables",
				exprString(b.Cond), c.dependsOnParam(b.Cond))
		}
		body(b.Body)
	}
	if s.ElseBody != nil {
		body(s.ElseBody)
	}
}

// intScalar reports an expression that should be an int scalar and is not.
func (c *checker) intScalar(e ast.Expr, t Type, what string) bool {
	if !t.Valid() {
		return false
	}
	if t.Shape.Rank() != 0 {
		c.errorf(e.Pos(), "%s must be an int scalar; `%s` is %s", what, exprString(e), t.Shape.describe())
		return false
	}
	if t.Elem != Int {
		c.errorf(e.Pos(), "%s must be int; `%s` is real", what, exprString(e))
		return false
	}
	return true
}

func (c *checker) outputStmt(s *ast.OutputStmt) {
	name := s.Name.Name
	if prev, ok := c.outputs[name]; ok {
		c.errorf(s.Name.NamePos, "output `%s` declared twice; first at %s", name, prev.Pos)
		if s.Value != nil {
			c.expr(s.Value)
		}
		return
	}
	out := &OutputVar{Name: name, Pos: s.Name.NamePos, Stmt: s}
	if s.Value == nil && s.Dist == nil {
		sym := c.lookup(name)
		switch {
		case sym == nil:
			c.errorf(s.Name.NamePos, "`output %s` names no let: the short form reports a top-level let; write `output %s = EXPR`", name, name)
			return
		case sym.Kind != Let:
			c.info.Uses[s.Name] = sym
			c.errorf(s.Name.NamePos, "`output %s` must name a top-level let; `%s` is %s (declared at %s); write `output NAME = %s`",
				name, name, sym.Kind.Phrase(), sym.Pos, name)
			return
		}
		c.info.Uses[s.Name] = sym
		out.Let = sym
		out.Value = sym.Decl.(*ast.LetStmt).Value
		out.Type = sym.Type
	} else {
		c.inOutput = true
		c.defining = name
		if s.Dist != nil { // a predictive replicate
			out.Type = c.predictive(s.Dist)
			if s.Trunc != nil {
				c.replicateTruncation(s, out.Type)
			}
		} else {
			out.Value = s.Value
			out.Type = c.expr(s.Value)
		}
		c.inOutput = false
		c.defining = ""
		if !c.declare(s.Name, &Symbol{Name: name, Kind: Output, Decl: s, Pos: s.Name.NamePos, Type: out.Type}) {
			return
		}
	}
	out.Dims = out.Type.Shape
	c.logLik(out)
	c.outputs[name] = out
	c.info.Outputs = append(c.info.Outputs, out)
}

// ---------------------------------------------------------------------------
// Declarations

func (c *checker) dataDecl(s *ast.DataDecl) {
	t := s.Type
	dv := &DataVar{Name: s.Name.Name, Pos: s.Name.NamePos, Decl: s, Kind: t.Kind}
	var sizes []*DataVar
	// Size names first mentioned here are declared before the dims are
	// resolved, so that the data var's shape refers to them.
	for axis, e := range t.Dims {
		id, ok := e.(*ast.Ident)
		if !ok {
			continue
		}
		if _, isSize := c.sizes[id.Name]; !isSize || c.top[id.Name] != nil {
			continue
		}
		sym := &Symbol{Name: id.Name, Kind: Size, Decl: s, Pos: id.NamePos,
			Type: Type{Elem: Int, Support: dist.Count, DataOnly: true}}
		c.declare(id, sym)
		sizes = append(sizes, &DataVar{Name: id.Name, Pos: id.NamePos, Decl: s, Symbol: sym, Kind: ast.Int,
			Elem: Int, Support: dist.Count, Implicit: true, SizeOf: dv, Axis: axis})
	}
	dv.Dims = c.dims(t)
	dv.Elem = Real
	if t.Kind == ast.Int {
		dv.Elem = Int
	}
	dv.LowerExpr, dv.UpperExpr = t.Lower, t.Upper
	dv.Lower = c.bound(dv, t.Lower, "lower")
	dv.Upper = c.bound(dv, t.Upper, "upper")
	if dv.Lower != nil && dv.Upper != nil && *dv.Lower > *dv.Upper {
		c.errorf(t.Upper.Pos(), "upper bound %g is below the lower bound %g", *dv.Upper, *dv.Lower)
	}
	if (t.Kind == ast.Simplex || t.Kind.IsOrdered() || t.Kind.IsSumToZero() || t.Kind.IsMatrix()) && (t.Lower != nil || t.Upper != nil) {
		pos := t.KindPos
		if t.Lower != nil {
			pos = t.Lower.Pos()
		} else if t.Upper != nil {
			pos = t.Upper.Pos()
		}
		c.errorf(pos, "bounds are not allowed on %s data", t.Kind)
	}
	if t.Kind.IsOrdered() {
		c.orderedDims(t)
	}
	if t.Kind.IsSumToZero() {
		c.sumToZeroDims(t, dv.Dims) // the sums are checked when the data load
	}
	if t.Kind.IsMatrix() {
		// [K, K], checked as the param type's values when the data load
		// (symmetric, positive definite, ...), so chol of it cannot fail.
		dv.Dims = c.cholCorrDims(t, dv.Dims)
	}
	dv.Support = dataSupport(t.Kind, dv.Lower, dv.Upper)
	sym := &Symbol{Name: dv.Name, Kind: Data, Decl: s, Pos: dv.Pos,
		Type: Type{Elem: dv.Elem, Shape: dv.Dims, Support: dv.Support, DataOnly: !c.cfg.Imputed[dv.Name],
			Range: boundsInterval(dv.Support, dv.Lower, dv.Upper)}}
	dv.Symbol = sym
	c.declare(s.Name, sym)
	c.info.Data = append(c.info.Data, dv)
	c.info.Data = append(c.info.Data, sizes...)
}

// dataSupport is the support of data of a kind with constant bounds
// (inclusive, as in Stan). Real data bounded within [0, 1] counts as unit.
func dataSupport(kind ast.ElemKind, lo, hi *float64) dist.Support {
	switch kind {
	case ast.Positive:
		if hi != nil && *hi <= 1 {
			return dist.Unit
		}
		return dist.Positive
	case ast.Unit:
		return dist.Unit
	case ast.Simplex:
		return dist.Simplex
	case ast.PositiveOrdered: // its elements; increasing is checked when it loads
		return dist.Positive
	case ast.Int:
		switch {
		case lo != nil && *lo >= 0 && hi != nil && *hi <= 1:
			return dist.Binary
		case lo != nil && *lo >= 1:
			return dist.Positive
		case lo != nil && *lo >= 0:
			return dist.Count
		}
		return dist.Real
	}
	switch {
	case lo != nil && *lo >= 0 && hi != nil && *hi <= 1:
		return dist.Unit
	case lo != nil && *lo > 0:
		return dist.Positive
	case lo != nil && *lo >= 0:
		return dist.NonNegative
	}
	return dist.Real
}

// bound checks a bound of data dv: a scalar, or an array of dv's shape (a
// bound per element: real<lower=0, upper=u>[N] with u data of N values,
// dv.ElemBounds), that depends only on data and constants. It returns its
// value when constant. A bound that is not constant gives dv no support or
// range: its values are checked against the data's when they load
// (compile.Compile).
func (c *checker) bound(dv *DataVar, e ast.Expr, which string) *float64 {
	if e == nil {
		return nil
	}
	c.inDim = true // an undeclared name in a data bound (upper=J-1) is a size as one in a dimension is
	t := c.expr(e)
	c.inDim = false
	if !t.Valid() {
		return nil
	}
	switch {
	case t.Shape.Rank() != 0 && len(dv.Dims) == 0:
		c.errorf(e.Pos(), "%s bound must be a scalar; `%s` is %s", which, exprString(e), t.Shape.describe())
		return nil
	case t.Shape.Rank() != 0 && !sameShape(t.Shape, dv.Dims):
		c.errorf(e.Pos(), "%s bound must be a scalar or have `%s`'s shape %s (a bound per element); `%s` is %s",
			which, dv.Name, dv.Dims, exprString(e), t.Shape.describe())
		return nil
	}
	if !t.DataOnly {
		c.errorf(e.Pos(), "%s bound must depend only on data and constants; %s", which, c.paramCulprit(e))
		return nil
	}
	if t.Shape.Rank() != 0 {
		dv.ElemBounds = true
		return nil
	}
	return t.Const
}

// SimplexTooShort is the error for a simplex param whose last dimension,
// written dim, is n < 2: a simplex of one element is the constant 1, nothing
// to infer. The checker reports it for a constant size, the compiler for a
// size the data give.
func SimplexTooShort(dim string, n int) string {
	const msg = "a simplex needs at least 2 elements along its last dimension"
	if dim == strconv.Itoa(n) {
		return fmt.Sprintf("%s; this one has %d", msg, n)
	}
	return fmt.Sprintf("%s; `%s` is %d", msg, dim, n)
}

// dims resolves a declaration's dimensions.
func (c *checker) dims(t *ast.TypeExpr) Shape {
	es := t.Dims
	if t.Kind == ast.Simplex && len(es) == 0 {
		c.errorf(t.KindPos, "simplex needs a dimension: simplex[K] or simplex[N, K]")
	}
	if len(es) > 2 {
		c.errorf(es[2].Pos(), "at most two dimensions are allowed; found %d", len(es))
		es = es[:2]
	}
	shape := make(Shape, len(es))
	for i, e := range es {
		shape[i] = c.dim(e, "dimension")
	}
	return shape
}

// unknownDim stands for a dim whose expression had an error: it compares
// as deferred with everything, so it causes no further errors.
var unknownDim = Dim{N: -1, Name: "?", Derived: true}

// dim resolves one dimension (or the argument of I): an int scalar that
// depends only on data and constants.
func (c *checker) dim(e ast.Expr, what string) Dim {
	c.inDim = true
	t := c.expr(e)
	c.inDim = false
	if !t.Valid() {
		return unknownDim
	}
	if !c.intScalar(e, t, what) {
		return unknownDim
	}
	if !t.DataOnly {
		c.errorf(e.Pos(), "%s must be a constant, a size name or int data; %s", what, c.paramCulprit(e))
		return unknownDim
	}
	if t.Const != nil {
		switch v := *t.Const; {
		case v < 0:
			c.errorf(e.Pos(), "%s must not be negative; `%s` is %g", what, exprString(e), v)
			return unknownDim
		case v > MaxInt:
			c.errorf(e.Pos(), "%s is too large; `%s` is %g", what, exprString(e), v)
			return unknownDim
		}
		v := int(*t.Const)
		d := knownDim(v)
		if id, ok := ast.Unparen(e).(*ast.Ident); ok {
			d.Name = id.Name
		}
		return d
	}
	return c.symbolicDim(e)
}

// symbolicDim names a data-dependent size: a size name or int data scalar
// by its name (following lets), anything else by its text.
func (c *checker) symbolicDim(e ast.Expr) Dim {
	e = ast.Unparen(e)
	if id, ok := e.(*ast.Ident); ok {
		if sym := c.info.Uses[id]; sym != nil {
			switch sym.Kind {
			case Size, Data:
				return Dim{N: -1, Name: id.Name}
			case Let:
				if let, ok := sym.Decl.(*ast.LetStmt); ok {
					return c.symbolicDim(let.Value)
				}
			}
		}
	}
	return derivedDim(exprString(e))
}

func (c *checker) paramDecl(s *ast.ParamDecl) {
	t := s.Type
	name := s.Name.Name
	lat := &Latent{Name: name, Pos: s.Name.NamePos, Decl: s, Kind: t.Kind, Prior: s.Prior}
	switch t.Kind {
	case ast.Int:
		c.errorf(t.KindPos, "param `%s` cannot be int: params are continuous latents; declare it real, positive, unit or simplex (a discrete latent, such as a mixture's component or a true class, is summed out of the log density, as in Stan: target += sum(rowlogsumexp(lp)) of lp[i, k], the log joint of observation i with the value k; docs/language.md, Log densities per element, and mixtures)", name)
		lat.Kind = ast.Real
	}
	lat.Dims = c.dims(t)
	if t.Kind.IsMatrix() {
		lat.Dims = c.cholCorrDims(t, lat.Dims)
		if t.Lower != nil || t.Upper != nil {
			why := "its entries lie in [−1, 1] by its type"
			switch t.Kind {
			case ast.CholCov:
				why = "its diagonal is positive by its type, the entries below it are real"
			case ast.CovMatrix:
				why = "it is positive definite by its type"
			}
			c.errorf(t.KindPos, "bounds are not allowed on %s param: %s", ast.Article(t.Kind.String()), why)
			t = &ast.TypeExpr{Kind: t.Kind, KindPos: t.KindPos, Dims: t.Dims}
		}
	}
	if t.Kind.IsSumToZero() {
		c.sumToZeroDims(t, lat.Dims)
		if t.Lower != nil || t.Upper != nil {
			c.errorf(t.KindPos, "bounds are not allowed on %s param: its elements are reals that sum to zero", ast.Article(t.Kind.String()))
			t = &ast.TypeExpr{Kind: t.Kind, KindPos: t.KindPos, Dims: t.Dims}
		}
	}
	if t.Lower != nil || t.Upper != nil {
		c.paramBounds(lat, t)
	}
	if t.Kind.IsOrdered() {
		c.orderedDims(t)
	}
	if n := len(lat.Dims); t.Kind == ast.Simplex && n > 0 && lat.Dims[n-1].Known() && lat.Dims[n-1].N < 2 {
		c.errorf(t.Dims[n-1].Pos(), "%s", SimplexTooShort(exprString(t.Dims[n-1]), lat.Dims[n-1].N))
	}
	switch {
	case lat.HasLower() && lat.HasUpper():
		lat.Support, lat.Family = dist.Unit, "beta"
	case lat.Bounded():
		lat.Support, lat.Family = dist.Positive, "gamma"
	case lat.Kind == ast.Positive:
		lat.Support, lat.Family = dist.Positive, "gamma"
	case lat.Kind == ast.Unit:
		lat.Support, lat.Family = dist.Unit, "beta"
	case lat.Kind == ast.Simplex:
		lat.Support, lat.Family = dist.Simplex, "dirichlet"
	case lat.Kind == ast.Ordered:
		lat.Support, lat.Family = dist.Ordered, OrderedFamily
	case lat.Kind == ast.PositiveOrdered:
		lat.Support, lat.Family = dist.PositiveOrdered, "gamma" // on log x_0 and the log increments
	case lat.Kind == ast.CholCorr:
		lat.Support, lat.Family = dist.CholCorr, "normal" // on the K(K−1)/2 coordinates
	case lat.Kind == ast.CorrMatrix:
		lat.Support, lat.Family = dist.CorrMatrix, "normal" // on the K(K−1)/2 coordinates of its factor
	case lat.Kind == ast.CholCov:
		lat.Support, lat.Family = dist.CholCov, "normal" // on the K(K+1)/2 coordinates
	case lat.Kind == ast.CovMatrix:
		lat.Support, lat.Family = dist.CovMatrix, "normal" // on the K(K+1)/2 coordinates of its factor
	case lat.Kind == ast.SumToZero:
		lat.Support, lat.Family = dist.SumToZero, "normal" // on the K−1 isometric coordinates
	case lat.Kind == ast.SumToZeroMatrix:
		lat.Support, lat.Family = dist.SumToZeroMatrix, "normal" // on the (M−1)(N−1) isometric coordinates
	default:
		lat.Support, lat.Family = dist.Real, "normal"
	}
	support := lat.Support
	if lat.Bounded() || support == dist.Ordered || support.IsMatrix() || support.IsSumToZero() { // the values' support follows from the bounds, not the factor's; ordered and sum-to-zero elements and a factor's or correlation matrix's entries are reals
		support = dist.Real
	}
	if support == dist.PositiveOrdered { // its elements are positive reals
		support = dist.Positive
	}
	r := lat.Range()
	if support == dist.Simplex {
		// A simplex param's elements are strictly positive (Stan's open
		// simplex: its Dirichlet factor normalises gamma draws in log
		// space), so kappa * p is positive, as Dirichlet(kappa * p)
		// needs; a data simplex may hold zeros and keeps [0, 1].
		r = Interval{Lo: 0, Hi: 1, Known: true}
	}
	typ := refine(Type{Elem: Real, Shape: lat.Dims, Support: support, Range: r})
	sym := &Symbol{Name: name, Kind: Param, Decl: s, Pos: s.Name.NamePos, Type: typ}
	lat.Symbol = sym
	if fd := c.userDensityOf(s.Prior); fd != nil {
		c.userPrior(s, sym, fd)
	} else if s.Prior != nil {
		c.defining = name
		d := c.distCall(s.Prior, typ, s.Name.NamePos, "`"+name+"`")
		c.refuseSteps(s.Prior)
		c.defining = ""
		lat.PriorDist = d
		if d != nil && d.Int {
			c.errorf(s.Prior.Pos(), "%s is discrete and cannot be the prior of the param `%s`: params are continuous", d.Name, name)
		} else if d != nil {
			nerr := len(c.errs)
			c.latentSupport(lat, d, s.Prior, "`"+name+"`")
			if lat.Support.IsOrdered() {
				lat.OrderedIID = c.orderedPrior(lat, d, s.Prior, len(c.errs) > nerr)
			}
		}
	}
	if c.declare(s.Name, sym) {
		c.latents[sym] = lat
		c.info.Latents = append(c.info.Latents, lat)
	}
}

// OrderedFamily is the variational factor of an ordered[K] param, as gpp
// check lists it: a normal on its first element and gammas on the K − 1
// increments.
const OrderedFamily = "normal+gamma"

// cholCorrDims checks the one dimension of cholesky_factor_corr[K] or
// corr_matrix[K], K ≥ 2 when known (of cholesky_factor_cov[K] or
// cov_matrix[K], K ≥ 1), and returns the shape of the param's value,
// [K, K].
func (c *checker) cholCorrDims(t *ast.TypeExpr, dims Shape) Shape {
	if len(t.Dims) != 1 {
		c.errorf(t.KindPos, "%[1]s is a K×K matrix: declare it %[1]s[K] with one dimension (it has %[2]d)", t.Kind, len(t.Dims))
		return dims
	}
	if t.Kind == ast.CholCov || t.Kind == ast.CovMatrix {
		if dims[0].Known() && dims[0].N < 1 {
			c.errorf(t.Dims[0].Pos(), "%s[%s] needs K ≥ 1 (got %d)", t.Kind, exprString(t.Dims[0]), dims[0].N)
		}
		return Shape{dims[0], dims[0]}
	}
	if dims[0].Known() && dims[0].N < 2 {
		what := "the factor of a 1×1 correlation matrix"
		if t.Kind == ast.CorrMatrix {
			what = "a 1×1 correlation matrix"
		}
		c.errorf(t.Dims[0].Pos(), "%s[%s] needs K ≥ 2 (got %d): %s is the constant 1", t.Kind, exprString(t.Dims[0]), dims[0].N, what)
	}
	return Shape{dims[0], dims[0]}
}

// sumToZeroDims checks that a sum_to_zero_vector type is a vector of at
// least 2 elements, sum_to_zero_vector[K], and a sum_to_zero_matrix one a
// matrix of at least 2 rows and 2 columns, sum_to_zero_matrix[M, N]. One
// element (one row or column) would be the constant 0, nothing to infer.
func (c *checker) sumToZeroDims(t *ast.TypeExpr, dims Shape) {
	if t.Kind == ast.SumToZeroMatrix {
		if len(t.Dims) != 2 {
			c.errorf(t.KindPos, "sum_to_zero_matrix is a matrix whose rows and columns sum to zero: declare it sum_to_zero_matrix[M, N] with two dimensions (it has %d)", len(t.Dims))
			return
		}
		for i, d := range dims {
			if i < len(t.Dims) && d.Known() && d.N < 2 {
				c.errorf(t.Dims[i].Pos(), "%s", SumToZeroTooShort(t.Kind, exprString(t.Dims[i]), d.N))
			}
		}
		return
	}
	if len(t.Dims) != 1 {
		c.errorf(t.KindPos, "sum_to_zero_vector is a vector whose elements sum to zero: declare it sum_to_zero_vector[K] with one dimension (it has %d)", len(t.Dims))
		return
	}
	if len(dims) == 1 && dims[0].Known() && dims[0].N < 2 {
		c.errorf(t.Dims[0].Pos(), "%s", SumToZeroTooShort(t.Kind, exprString(t.Dims[0]), dims[0].N))
	}
}

// SumToZeroTooShort is the error for a sum_to_zero_vector[K] whose K, or a
// sum_to_zero_matrix[M, N] whose M or N, written dim, is n < 2. The checker
// reports it for a constant size, the compiler for a size the data give.
func SumToZeroTooShort(kind ast.ElemKind, dim string, n int) string {
	msg := "a sum_to_zero_vector needs at least 2 elements (one is the constant 0)"
	if kind == ast.SumToZeroMatrix {
		msg = "a sum_to_zero_matrix needs at least 2 rows and 2 columns (one is the constant 0)"
	}
	if dim == strconv.Itoa(n) {
		return fmt.Sprintf("%s; this one has %d", msg, n)
	}
	return fmt.Sprintf("%s; `%s` is %d", msg, dim, n)
}

// orderedDims checks that an ordered or positive_ordered type is a
// vector, ordered[K], or a matrix of G such rows, ordered[G, K] (Stan's
// array[G] ordered[K]).
func (c *checker) orderedDims(t *ast.TypeExpr) {
	if len(t.Dims) == 0 { // more than two are refused for every type
		c.errorf(t.KindPos, "%[1]s is a vector of increasing values: declare it %[1]s[K], or %[1]s[G, K] for G rows each increasing", t.Kind)
	}
}

// orderedPrior decides the normaliser of a prior on an ordered param (its
// declared prior or a ~ on it whole), the elementwise density restricted
// to the increasing vectors. With scalar arguments (iid elements) the
// restricted density is K!·Π p(x_k): it returns true, and the compiler adds
// log K! (Latent.OrderedIID, Info.OrderedIID). With arguments that vary per
// element no normaliser is known; when they are data and constants it is
// left out (a constant, as in Stan), and when they depend on params it
// would vary with them: an error (unless reported says the prior was
// refused already).
//
// A positive_ordered param's prior is first restricted to the positive
// half line as a positive param's is (latentSupport: a prior wider than it
// is truncated, normalised from arguments of data and constants, or ½ per
// element for a Normal, Cauchy, Laplace or StudentT centred at 0); the
// restriction to the increasing vectors then adds log K! the same way.
func (c *checker) orderedPrior(lat *Latent, d *stdlib.Dist, call *ast.CallExpr, reported bool) bool {
	iid := true
	for _, a := range call.Args {
		t := c.info.Types[a]
		if !t.Valid() || t.Shape.Rank() == 0 {
			continue
		}
		iid = false
		if !t.DataOnly && !reported {
			c.errorf(a.Pos(), "%s on the %s param `%s` needs arguments that are the same for every element, or that do not depend on params: `%s` varies per element and depends on params, so the normalising constant of the density restricted to increasing vectors would depend on them",
				d.Name, lat.Kind, lat.Name, exprString(a))
		}
	}
	return iid
}

// paramBoundAdvice says how to write the param lat, of declaration t,
// whose bound (which; the bounds' types lt, ut) depends on a param, as
// Stan's real<lower=-sigma / max(y)> xi of a generalised Pareto: a free
// param (of lat's dims) moved by the bounds, its Jacobian in the log joint
// (per element), and its prior as a target term (an unnormalised density,
// as Stan's is on bounds of params). Pasted in place of the declaration,
// the rewrite checks (TestParamBoundAdviceChecks), and L + (U - L) * x_u
// is between L and U to the checker (convexRange).
func paramBoundAdvice(lat *Latent, t *ast.TypeExpr, which string, lt, ut Type) string {
	x := lat.Name
	free := &ast.TypeExpr{Kind: ast.Positive, Dims: t.Dims}
	var how string
	switch {
	case t.Lower != nil && t.Upper != nil:
		free.Kind = ast.Unit
		lo, hi := asOperand(t.Lower), exprString(t.Upper)
		mul, jac := " * ", "log("+hi+" - "+lo+")"
		if len(t.Dims) > 0 {
			mul = " .* "
			if lt.Shape.Rank() > 0 || ut.Shape.Rank() > 0 {
				jac = "sum(" + jac + ")"
			} else { // one term per element
				n := make([]string, len(t.Dims))
				for i, d := range t.Dims {
					n[i] = asOperand(d)
				}
				jac = strings.Join(n, " * ") + " * " + jac
			}
		}
		how = fmt.Sprintf("`param %s_u: %s`, `let %s = %s + (%s - %s)%s%s_u` and `target += %s`, its Jacobian", x, ast.FormatType(free), x, lo, hi, lo, mul, x, jac)
	case which == "lower":
		how = fmt.Sprintf("`param %s_u: %s` and `let %s = %s + %s_u` (a shift: its Jacobian is 1)", x, ast.FormatType(free), x, exprString(t.Lower), x)
	default:
		how = fmt.Sprintf("`param %s_u: %s` and `let %s = %s - %s_u` (a shift: its Jacobian is 1)", x, ast.FormatType(free), x, exprString(t.Upper), x)
	}
	prior := "D(...)"
	if lat.Prior != nil {
		prior = exprString(lat.Prior)
	}
	return fmt.Sprintf("a bound that moves with a param is written through a free param, %s, with %s's prior as `target += logpdf(%s, %s)` (docs/language.md, Bounds that depend on params)", how, x, x, prior)
}

// asOperand is e's text as an operand: as is for a name, a number, or a
// call or index of one, else in parentheses.
func asOperand(e ast.Expr) string {
	switch ast.Unparen(e).(type) {
	case *ast.Ident, *ast.NumberLit, *ast.CallExpr, *ast.IndexExpr:
		return exprString(e)
	}
	return "(" + exprString(e) + ")"
}

// paramBounds checks the bounds of a bounded param, real<lower=L,
// upper=U>: constants, L below U, and only on real params.
func (c *checker) paramBounds(lat *Latent, t *ast.TypeExpr) {
	// bound returns a constant bound's value, or for one of data (a data
	// scalar, max(y)) the interval its values may take; fails says it was
	// refused.
	dataBounds, advised := false, false
	var lt, ut Type // both bounds' types, for the advice
	if t.Lower != nil {
		lt = c.expr(t.Lower)
	}
	if t.Upper != nil {
		ut = c.expr(t.Upper)
	}
	bound := func(e ast.Expr, which string) (v *float64, r Interval, fails bool) {
		if e == nil {
			return nil, wholeLine(), false
		}
		bt := c.info.Types[e]
		switch {
		case !bt.Valid():
			return nil, r, true
		case bt.Shape.Rank() != 0 && len(lat.Dims) == 0:
			c.errorf(e.Pos(), "a param's %s bound must be a scalar; `%s` is %s", which, exprString(e), bt.Shape.describe())
			return nil, r, true
		case bt.Shape.Rank() != 0 && !sameShape(bt.Shape, lat.Dims):
			c.errorf(e.Pos(), "a param's %s bound must be a scalar or have the param's shape %s (a bound per element); `%s` is %s",
				which, lat.Dims, exprString(e), bt.Shape.describe())
			return nil, r, true
		case !bt.DataOnly && advised: // the lower bound's error gave the recipe for both
			return nil, r, true
		case !bt.DataOnly:
			c.errorf(e.Pos(), "a param's %s bound must be known before the fit (a number, a const, data or arithmetic of them); `%s` %s; %s",
				which, exprString(e), c.dependsOnParam(e), paramBoundAdvice(lat, t, which, lt, ut))
			advised = true
			return nil, r, true
		case bt.Const == nil && c.letIn(e) != nil:
			// The compiler evaluates the bounds before it lowers the lets.
			let := c.letIn(e)
			c.errorf(e.Pos(), "a param's %s bound may use data and constants, not the let `%s` (declared at %s): write its expression in the bound", which, let.Name, let.Pos)
			return nil, r, true
		case bt.Const == nil:
			// A bound per element is checked element by element, and its
			// shape against the param's, when the model compiles.
			dataBounds = true
			lat.ElemBounds = lat.ElemBounds || bt.Shape.Rank() != 0
			return nil, intersect(bt.Range, supportInterval(bt.Support)).norm(), false
		case math.IsInf(*bt.Const, 0) || math.IsNaN(*bt.Const):
			c.errorf(e.Pos(), "a param's %s bound must be finite; leave it out for none", which)
			return nil, r, true
		}
		return bt.Const, pointInterval(*bt.Const), false
	}
	if t.Kind != ast.Real {
		pos := t.KindPos
		if t.Lower != nil {
			pos = t.Lower.Pos()
		} else {
			pos = t.Upper.Pos()
		}
		how := ""
		if (t.Kind == ast.Ordered || t.Kind == ast.PositiveOrdered) && len(lat.Dims) == 1 {
			how = orderedBoundsHint(lat, t)
		}
		c.errorf(pos, "bounds go on real params, as real<lower=0, upper=10>; %s param's support is fixed by its kind%s", ast.Article(t.Kind.String()), how)
		return
	}
	lo, loR, loFails := bound(t.Lower, "lower")
	hi, hiR, hiFails := bound(t.Upper, "upper")
	if loFails || hiFails {
		return
	}
	if dataBounds {
		// Known when the model compiles with its data (compile checks
		// them then); until then the values lie above the least value the
		// lower bound may take and below the greatest of the upper.
		if lo != nil && hiR.Known && hiR.Hi <= *lo || hi != nil && loR.Known && loR.Lo >= *hi {
			c.errorf(t.Upper.Pos(), "upper bound `%s` is never above the lower bound `%s`", exprString(t.Upper), exprString(t.Lower))
			return
		}
		lat.Lower, lat.Upper = lo, hi
		if lo == nil && t.Lower != nil {
			lat.LowerData = t.Lower
		}
		if hi == nil && t.Upper != nil {
			lat.UpperData = t.Upper
		}
		lat.dataRange = Interval{Lo: loR.Lo, Hi: hiR.Hi, Known: true}
		return
	}
	if lo != nil && hi != nil && *lo >= *hi {
		c.errorf(t.Upper.Pos(), "upper bound %g is not above the lower bound %g", *hi, *lo)
		return
	}
	if lo != nil && hi != nil && math.IsInf(*hi-*lo, 0) {
		// The param is lo + (hi − lo)·u with u in (0, 1).
		c.errorf(t.Upper.Pos(), "the bounds %g and %g are too far apart: upper − lower overflows a double", *lo, *hi)
		return
	}
	switch {
	case lo != nil && *lo == 0 && hi == nil: // Stan's real<lower=0>: positive
		lat.Kind = ast.Positive
	case lo != nil && *lo == 0 && hi != nil && *hi == 1: // unit
		lat.Kind = ast.Unit
	default:
		lat.Lower, lat.Upper = lo, hi
	}
}

// orderedIntervalHint is the remedy for an ordered (or positive_ordered)
// vector lat with a Uniform(lo, hi) prior, whose support an ordered param
// cannot be bounded to: the first K cumulative sums of a simplex[K + 1]
// under Dirichlet(1), scaled to (lo, hi), are uniform on the increasing
// vectors there (the spacings of K uniform order statistics), as the
// prior means; with a lower bound alone, a lower boundary plus positive gaps.
func orderedIntervalHint(lat *Latent, lo, hi string) string {
	return "; bounds do not go on an ordered param, so for increasing values uniform in (" + lo + ", " + hi + "), as this prior means, " +
		orderedSimplex(lat, lo, hi) + "; with a lower bound alone, " + orderedGaps(lat, lo)
}

// orderedSimplex is lat's K increasing values in (lo, hi) as a simplex's
// cumulative sums, and orderedGaps its values above lo as lo plus positive
// gaps (orderedIntervalHint).
func orderedSimplex(lat *Latent, lo, hi string) string {
	k := lat.Dims[0]
	k1 := k.String() + " + 1"
	if k.Known() {
		k1 = strconv.Itoa(k.N + 1)
	}
	return fmt.Sprintf("write `param s: simplex[%s] ~ Dirichlet(1)` and `let %s = %s + (%s - %s) * head(cumsum(s), %s)` in its place (Dirichlet(1) makes them uniform there)",
		k1, lat.Name, lo, hi, lo, k)
}

func orderedGaps(lat *Latent, lo string) string {
	k := lat.Dims[0]
	gaps := k.String() + " - 1"
	if k.Known() {
		gaps = strconv.Itoa(k.N - 1)
	}
	return fmt.Sprintf("`param lo: real<lower=%s>`, `param gap: positive[%s]` and `let %s = append_row(lo, lo + cumsum(gap))`", lo, gaps, lat.Name)
}

// orderedBoundsHint is the remedy for bounds on an ordered vector lat
// (type t): within both, a simplex's cumulative sums (orderedSimplex);
// above a lower one, positive gaps (orderedGaps); a prior on the values
// goes on the let (target += sum(logpdf(b, D))), the maps being linear.
func orderedBoundsHint(lat *Latent, t *ast.TypeExpr) string {
	switch {
	case t.Lower != nil && t.Upper != nil:
		lo, hi := exprString(t.Lower), exprString(t.Upper)
		return fmt.Sprintf("; for increasing values within (%s, %s), %s, and a prior on them as target += sum(logpdf(%s, D)); above %s alone, %s",
			lo, hi, orderedSimplex(lat, lo, hi), lat.Name, lo, orderedGaps(lat, lo))
	case t.Lower != nil && t.Kind == ast.Ordered && exprString(t.Lower) == "0":
		return fmt.Sprintf("; for increasing values above 0, declare it positive_ordered%s", lat.Dims)
	case t.Lower != nil:
		lo := exprString(t.Lower)
		return fmt.Sprintf("; for increasing values above %s, %s, and a prior on them as target += sum(logpdf(%s, D))", lo, orderedGaps(lat, lo), lat.Name)
	}
	return ""
}

// letIn returns the first let that e reads, or nil.
func (c *checker) letIn(e ast.Expr) *Symbol {
	var let *Symbol
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && let == nil {
			if sym := c.info.Uses[id]; sym != nil && sym.Kind == Let {
				let = sym
			}
		}
		return let == nil
	})
	return let
}

// latentSupport checks that the distribution d on (part of) the latent has
// a support containing the latent's declared one, recording a truncation
// when it is wider.
func (c *checker) latentSupport(lat *Latent, d *stdlib.Dist, call *ast.CallExpr, lhs string) {
	if d.Int {
		return // reported as a discrete distribution on a param (a ~ statement's check)
	}
	if lat.Bounded() {
		c.boundedPrior(lat, d, call, lhs)
		return
	}
	if d.Support == dist.Interval {
		lo, hi := c.constArg(call, 0), c.constArg(call, 1)
		if lo != nil && hi != nil && *lo >= *hi {
			return // reported with the arguments
		}
		if lat.Support == dist.Unit && lo != nil && hi != nil && *lo <= 0 && *hi >= 1 {
			if *lo < 0 || *hi > 1 {
				lat.Truncated = true
				c.truncationArgs(lat, d, call)
			}
			return
		}
		hint := ""
		if lat.Support == dist.Positive || lat.Support == dist.Real {
			hint = "; declare a bounded param as real<lower=..., upper=...>"
		}
		if lat.Support.IsOrdered() && lo != nil && hi != nil && len(lat.Dims) == 1 {
			hint = orderedIntervalHint(lat, exprString(call.Args[0]), exprString(call.Args[1]))
		}
		c.errorf(call.Fun.NamePos, "%s puts no mass on part of the %s support of %s (declared at %s)%s",
			exprString(call), lat.Support, lhs, lat.Pos, hint)
		return
	}
	if d.Support.Contains(lat.Support) {
		own := lat.Support
		if own == dist.PositiveOrdered { // restricted to the positive half line as a positive param's, then to the increasing vectors (orderedPrior)
			own = dist.Positive
		}
		if own.IsSumToZero() { // a real density on the zero-sum vectors, unnormalised there as in Stan
			own = dist.Real
		}
		if d.Support != own && lat.Support != dist.Ordered { // a real prior restricted to the ordered set: orderedPrior
			lat.Truncated = true
			c.truncationArgs(lat, d, call)
		}
		return
	}
	c.errorf(call.Fun.NamePos, "%s has %s support, which does not contain the %s support of %s (declared %s at %s)",
		d.Name, d.Support, lat.Support, lhs, lat.Kind, lat.Pos)
}

// boundedPrior checks a distribution on a bounded param: its support must
// hold the param's interval, and it is truncated to it when wider (the
// compiler adds the normalising constant, from constant arguments).
func (c *checker) boundedPrior(lat *Latent, d *stdlib.Dist, call *ast.CallExpr, lhs string) {
	if lat.DataBounds() {
		// The bounds' values come with the data: the compiler checks that
		// the prior's support holds them and normalises it there, from
		// arguments of data and constants.
		lat.Truncated = true
		c.truncationArgs(lat, d, call)
		return
	}
	r := lat.Range()
	ds := supportInterval(d.Support)
	if d.Support == dist.Interval {
		lo, hi := c.constArg(call, 0), c.constArg(call, 1)
		if lo == nil || hi == nil {
			c.errorf(call.Fun.NamePos, "%s on %s, bounded to %s (declared at %s), needs constant bounds", exprString(call), lhs, r, lat.Pos)
			return
		}
		if *lo >= *hi {
			return // reported with the arguments
		}
		ds = Interval{Lo: *lo, Hi: *hi, Known: true}
	}
	if ds.Lo > r.Lo || ds.Hi < r.Hi {
		c.errorf(call.Fun.NamePos, "%s puts no mass on part of %s, where %s lies (declared at %s)", exprString(call), r, lhs, lat.Pos)
		return
	}
	if ds.Lo < r.Lo || ds.Hi > r.Hi {
		lat.Truncated = true
		c.truncationArgs(lat, d, call)
	}
}

// truncationArgs checks the arguments of a prior truncated to the latent's
// values: the compiler computes the normaliser from them, so they may
// depend on data and constants but not on params, except for a prior whose
// mass there is ½ whatever its arguments (Latent.HalfMass).
func (c *checker) truncationArgs(lat *Latent, d *stdlib.Dist, call *ast.CallExpr) {
	if lat.HalfMass(d, call, c.info) {
		return
	}
	for _, a := range call.Args {
		if t := c.info.Types[a]; t.DataOnly || !t.Valid() || len(c.stepsOf(a)) > 0 { // invalid, or a comparison on a param: said why
			continue
		}
		hint := fmt.Sprintf("declare %s with a support inside %s's, or use a prior on the %s support", lat.Name, d.Name, lat.Support)
		switch {
		case lat.DataBounds():
			hint = "use arguments of data and constants"
		case lat.Bounded():
			hint = "use arguments of data and constants, or a prior whose support is " + lat.Range().String()
		case (lat.Support == dist.Positive || lat.Support == dist.PositiveOrdered) && halfNames[d.Name]:
			hint = fmt.Sprintf("centre it at the constant 0 (a half-%s, whose mass on the positive support is ½ at any scale), use arguments of data and constants, or declare %s real", d.Name, lat.Name)
		}
		if lat.Bounded() && d.Shape == stdlib.DistElementwise {
			// Stan's ~ leaves the normaliser out: censored observations
			// imputed above their censoring points are written so.
			hint += fmt.Sprintf("; for the density without its normaliser, as Stan's ~ (censored values imputed inside their bounds), write target += sum(logpdf(%s, %s))", lat.Name, exprString(call))
		}
		c.errorf(a.Pos(), "%s truncated to %s of %s needs arguments that do not depend on params (its normalising constant would depend on `%s`); %s",
			d.Name, lat.Values(), lat.Name, exprString(a), hint)
		return
	}
}

// halfNames are the families symmetric about a location argument that
// HalfMass knows: centred at 0, they put mass ½ on the positive half line.
var halfNames = map[string]bool{"Normal": true, "Cauchy": true, "Laplace": true, "StudentT": true}

// HalfMass reports whether the prior call of distribution d, truncated to
// the latent's values, has mass ½ there whatever its scale: a Normal,
// Cauchy, Laplace or StudentT centred at the constant 0 on the positive
// half line (the half-normal, half-Cauchy and half-t of Stan's
// `real<lower=0> sigma; sigma ~ normal(0, tau)`).
func (l *Latent) HalfMass(d *stdlib.Dist, call *ast.CallExpr, info *Info) bool {
	if l.Support != dist.Positive && l.Support != dist.PositiveOrdered || l.Bounded() {
		return false
	}
	if !halfNames[d.Name] {
		return false
	}
	loc := 0
	if d.Name == "StudentT" {
		loc = 1
	}
	if loc >= len(call.Args) {
		return false
	}
	v := info.Types[call.Args[loc]].Const
	return v != nil && *v == 0
}

// constArg returns the constant value of argument i of call, or nil.
func (c *checker) constArg(call *ast.CallExpr, i int) *float64 {
	if i >= len(call.Args) {
		return nil
	}
	return c.info.Types[call.Args[i]].Const
}

func (c *checker) tildeStmt(s *ast.TildeStmt) {
	if fd := c.userDensityOf(s.Dist); fd != nil {
		c.userTilde(s, fd)
		return
	}
	lt := c.expr(s.LHS)
	d := c.distCall(s.Dist, lt, s.LHS.Pos(), "`"+exprString(s.LHS)+"`")
	steps := c.refuseSteps(s.LHS, s.Dist)
	// Latents mentioned on the left.
	var mentioned []*Latent
	ast.Inspect(s.LHS, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if lat := c.latents[c.info.Uses[id]]; lat != nil {
				for _, m := range mentioned {
					if m == lat {
						return true
					}
				}
				mentioned = append(mentioned, lat)
				lat.Tildes = append(lat.Tildes, s)
			}
		}
		return true
	})
	// A let that selects a latent (let xs = x; xs ~ D) is a ~ on it too.
	root := c.info.SelectedLatent(s.LHS)
	if root != nil && !slices.Contains(mentioned, root) {
		root.Tildes = append(root.Tildes, s)
	}
	if s.Trunc != nil {
		c.truncation(s, lt, d, mentioned)
	}
	if d == nil || !lt.Valid() || steps { // steps: reported at the comparison
		return
	}
	c.dataUse(s, d)
	if d.Name == "Wiener" && !lt.DataOnly { // its support starts at tau, and it has no CDF to normalise a prior by
		c.errorf(s.LHS.Pos(), "Wiener models reaction times known before the fit (data, constants and lets of them); `%s` %s",
			exprString(s.LHS), c.dependsOnParam(s.LHS))
		return
	}
	if d.Int {
		switch {
		case len(mentioned) > 0:
			c.errorf(s.LHS.Pos(), "%s is discrete and cannot model the param `%s` (declared at %s): params are continuous",
				d.Name, mentioned[0].Name, mentioned[0].Pos)
		case lt.Elem != Int:
			c.errorf(s.LHS.Pos(), "%s is discrete: the left side of ~ must be int; %s", d.Name, c.describe(s.LHS))
		}
		return
	}
	if root != nil && root.ElemBounds && !c.isIdentOf(s.LHS, root) {
		// Its truncation would be to the bounds of the elements selected,
		// which the compiler does not follow through the selection.
		c.errorf(s.LHS.Pos(), "a ~ on part of `%s`, whose bounds are per element, is not supported: write it on `%s` whole (%s ~ %s) or as the prior in its declaration",
			root.Name, root.Name, root.Name, d.Name+"(...)")
		return
	}
	if d.Shape == stdlib.DistLKJ && (root == nil || root.Support != d.Support || !c.isIdentOf(s.LHS, root)) {
		c.errorf(s.LHS.Pos(), "%[1]s models a %[2]s param, written whole (X ~ %[1]s(eta) after param X: %[2]s[K]); `%[3]s` is not one",
			d.Name, d.Support, exprString(s.LHS))
		return
	}
	if d.Shape == stdlib.DistWishart && !c.wishartValue(s, d, lt, root, mentioned) {
		return
	}
	if root != nil {
		nerr := len(c.errs)
		c.latentSupport(root, d, s.Dist, "`"+exprString(s.LHS)+"`")
		if root.Support.IsOrdered() && c.isIdentOf(s.LHS, root) && c.orderedPrior(root, d, s.Dist, len(c.errs) > nerr) {
			c.info.OrderedIID = append(c.info.OrderedIID, s)
		}
	}
}

// isIdentOf reports whether e is the name of the latent lat itself.
func (c *checker) isIdentOf(e ast.Expr, lat *Latent) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && c.info.Uses[id] == lat.Symbol
}

// dataUse records on data that is the whole left side of s that its values
// must lie in d's support (a count for a bounded count: its bound is an
// argument), for the data binder to check cell by cell.
func (c *checker) dataUse(s *ast.TildeStmt, d *stdlib.Dist) {
	id, ok := ast.Unparen(s.LHS).(*ast.Ident)
	if !ok {
		return
	}
	sup := d.Support
	if u, ok := dist.LookupUnivariate(d.Name); ok {
		sup = u.Support // the kernel's: Exponential and the half families take 0
	}
	switch sup {
	case dist.BoundedCount:
		sup = dist.Count
	case dist.Real, dist.Interval, dist.Simplex, dist.CovMatrix, dist.CholCov:
		return // finite anyway, or bounded by the arguments, or row-wise (a matrix checked whole)
	}
	for _, dv := range c.info.Data {
		if dv.Symbol == c.info.Uses[id] && !dv.Implicit {
			dv.Uses = append(dv.Uses, DataUse{Dist: d.Name, Support: sup, Pos: s.Dist.Fun.NamePos})
		}
	}
}

// SelectedLatent returns the latent whose elements e selects, through
// indexing, transposes and lets that are such selections themselves (let
// xs = x; xs ~ D is a ~ on x), or nil if e is no such selection. Both the
// checker and the compiler use it, so that a prior on a selection is
// truncated to the latent's support as one on x is.
func (info *Info) SelectedLatent(e ast.Expr) *Latent {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.Ident:
			sym := info.Uses[x]
			if sym == nil {
				return nil
			}
			if let, ok := sym.Decl.(*ast.LetStmt); ok && sym.Kind == Let {
				e = let.Value
				continue
			}
			if sym.Kind != Param {
				return nil
			}
			return info.Latent(sym.Name)
		case *ast.IndexExpr:
			e = x.X
		case *ast.TransposeExpr:
			e = x.X
		default:
			return nil
		}
	}
}

// checkOverrides reports overrides that name no constant, and validates
// those that name scalar data.
func (c *checker) checkOverrides() {
	var names []string
	for name := range c.cfg.Overrides {
		if !c.usedOverds[name] {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	pos := ast.Pos{File: c.file.Name}
	for _, name := range names {
		text := c.cfg.Overrides[name]
		sym := c.top[name]
		switch {
		case sym == nil:
			var cands []string
			for _, k := range c.info.Consts {
				cands = append(cands, k.Name)
			}
			c.errorf(pos, "--set %s=%s: the model has no constant `%s`%s", name, text, name, suggest(name, cands))
		case sym.Kind == Data || sym.Kind == Size:
			if sym.Type.Shape.Rank() != 0 {
				c.errorf(sym.Pos, "--set %s=%s: `%s` is %s data; --set gives scalars only", name, text, name, sym.Type.Shape.describe())
			} else if _, msg := parseOverride(text, sym.Type.Elem); msg != "" {
				c.errorf(sym.Pos, "--set %s=%s: `%s` is %s data and %s", name, text, name, sym.Type.Elem, msg)
			}
		default:
			c.errorf(sym.Pos, "--set %s=%s: `%s` is %s, not a constant", name, text, name, sym.Kind.Phrase())
		}
	}
}
