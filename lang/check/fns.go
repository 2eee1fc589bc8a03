package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/stdlib"
)

// User functions (language.md §2, *Functions*). `fn f(a, b) = EXPR` is
// pure and inlined: the checker expands every call at its call site into a
// copy of the body (ast.CloneExpr), in a scope of its own where each
// parameter is a hidden let bound to its argument (so the compiler
// evaluates an argument once however often the body reads it) and nothing
// else of the model is visible. Each call is checked with its own
// arguments' shapes, supports and types: a function is shape-polymorphic.
// Since a body may call only functions declared before it, recursion is
// impossible by construction. A function NAME_lpdf (or NAME_lpmf) is a
// user density: y ~ NAME(args) adds sum(NAME_lpdf(y, args)) to the log
// density.

// Inline is one call of a user function, expanded.
type Inline struct {
	Fn   *ast.FnDecl
	Call *ast.CallExpr
	// Binds are the parameters, each bound to its argument, then the
	// block form's local lets, each to a copy of its value: the compiler
	// lowers each Value and binds it to Sym before lowering Body.
	Binds []Bind
	Body  ast.Expr // a copy of the function's body, checked at this call
}

// Bind is a hidden let of an expanded call.
type Bind struct {
	Sym   *Symbol
	Value ast.Expr
}

// fnDef is a user function declared so far.
type fnDef struct {
	decl *ast.FnDecl
	ok   bool // its declaration had no error: calls expand it
}

// densitySuffixes make a function a user density.
var densitySuffixes = []string{"_lpdf", "_lpmf"}

// userDensity returns the user function NAME_lpdf or NAME_lpmf declared so
// far for the distribution name name, or nil.
func (c *checker) userDensity(name string) *fnDef {
	for _, s := range densitySuffixes {
		if f := c.fns[name+s]; f != nil {
			return f
		}
	}
	return nil
}

// userDensityFn returns the user density that a function name NAME_lpdf
// (or NAME_lpmf) declares, and NAME; nil if name is not one.
func (c *checker) userDensityFn(name string) (*fnDef, string) {
	for _, s := range densitySuffixes {
		if base, ok := strings.CutSuffix(name, s); ok && base != "" && c.fns[name] != nil {
			return c.fns[name], base
		}
	}
	return nil, ""
}

// userDensityOf returns the user density that the distribution call d
// names, or nil (a built-in distribution's name is never one).
func (c *checker) userDensityOf(d *ast.CallExpr) *fnDef {
	if d == nil || stdlib.LookupDist(d.Fun.Name) != nil {
		return nil
	}
	return c.userDensity(d.Fun.Name)
}

// fnDecl checks a function's declaration: its name, its parameters and
// the names its body reads and calls. The body's types are checked at each
// call, with the arguments' types.
func (c *checker) fnDecl(s *ast.FnDecl) {
	name := s.Name.Name
	fd := &fnDef{decl: s, ok: true}
	nerr := len(c.errs)
	switch {
	case builtinKind(name) != "":
		c.errorf(s.Name.NamePos, "`%s` is a built-in %s; choose another name", name, builtinKind(name))
	case c.fns[name] != nil:
		c.errorf(s.Name.NamePos, "function `%s` redeclared; first declared at %s", name, c.fns[name].decl.Name.NamePos)
	case c.top[name] != nil:
		c.errorf(s.Name.NamePos, "`%s` redeclared; first declared at %s", name, c.top[name].Pos)
	default:
		for _, suf := range densitySuffixes {
			base, ok := strings.CutSuffix(name, suf)
			if !ok {
				continue
			}
			if stdlib.LookupDist(base) != nil {
				c.errorf(s.Name.NamePos, "`%s` would define the density %s, a built-in distribution; choose another name", name, base)
			} else if other := c.userDensity(base); other != nil {
				c.errorf(s.Name.NamePos, "`%s` defines the density %s, which `%s` at %s defines already", name, base, other.decl.Name.Name, other.decl.Name.NamePos)
			} else if len(s.Params) == 0 {
				c.errorf(s.Name.NamePos, "the density `%s` needs the value as its first parameter: fn %s(y, ...)", name, name)
			}
		}
		c.fns[name] = fd
	}
	seen := map[string]ast.Pos{} // parameters and local lets
	bind := func(id *ast.Ident, what string) {
		if k := builtinKind(id.Name); k != "" && !freeName(id.Name) {
			c.errorf(id.NamePos, "`%s` is a built-in %s; choose another name", id.Name, k)
		}
		if pos, ok := seen[id.Name]; ok {
			c.errorf(id.NamePos, "%s `%s` of %s redeclared; first declared at %s", what, id.Name, name, pos)
			return
		}
		seen[id.Name] = id.NamePos
	}
	for _, p := range s.Params {
		bind(p, "parameter")
	}
	reported, calls := map[string]bool{}, map[string]bool{} // each name, each callee once
	for _, l := range s.Lets {
		c.fnBodyNames(s, l.Value, seen, reported, calls)
		bind(l.Name, "let")
	}
	c.fnBodyNames(s, s.Body, seen, reported, calls)
	fd.ok = len(c.errs) == nerr
	if fd.ok {
		c.info.Functions = append(c.info.Functions, s)
	}
}

// fnBodyNames reports each name in e, part of the body of s, that is not
// one of visible (its parameters and the lets before e), and each call of
// a function that is not a built-in or a function declared before s.
func (c *checker) fnBodyNames(s *ast.FnDecl, e ast.Expr, visible map[string]ast.Pos, reported, calls map[string]bool) {
	name := s.Name.Name
	funs := map[*ast.Ident]bool{}
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			funs[n.Fun] = true
			if id, ok := odeFnArg(n); ok && c.fns[id.Name] != nil && c.fns[id.Name].decl != s {
				funs[id] = true // ode_rk45(g, ...), solve_newton(g, ...) name the function g
			}
			f := n.Fun.Name
			// A built-in constant is no builtinKind (its name stays free for
			// a model's own values) but its call is a built-in's all the same,
			// unless it names this very function (`fn e(x)` calling e()) or
			// one declared after it, whose call it would be.
			if builtinKind(f) != "" || isConstant(f) && f != name && c.fnLater(f) == nil || c.fns[f] != nil && c.fns[f].decl != s || calls[f] {
				return true
			}
			calls[f] = true
			switch {
			case f == name:
				c.errorf(n.Fun.NamePos, "%s calls itself: a function may call only functions declared before it, so recursion is impossible", name)
			case c.fnLater(f) != nil:
				c.errorf(n.Fun.NamePos, "%s calls `%s`, declared after it at %s: a function may call only functions declared before it (no recursion)", name, f, c.fnLater(f).Name.NamePos)
			default:
				c.errorf(n.Fun.NamePos, "unknown function `%s`%s", f, suggest(f, append(funcNames(), c.fnNames()...)))
			}
		case *ast.Ident:
			if funs[n] || reported[n.Name] {
				return true
			}
			if _, ok := visible[n.Name]; ok {
				return true
			}
			reported[n.Name] = true
			switch k := builtinKind(n.Name); k {
			case "function":
				c.errorf(n.NamePos, "`%s` is a built-in function; call it as %s", n.Name, stdlib.LookupFunc(n.Name).Signature())
			case "distribution":
				c.errorf(n.NamePos, "`%s` is a distribution; use it on the right of ~ as %s", n.Name, stdlib.LookupDist(n.Name).Signature())
			default:
				if fd := c.fns[n.Name]; fd != nil {
					c.errorf(n.NamePos, "`%s` is a function (declared at %s); call it as %s", n.Name, fd.decl.Name.NamePos, fnSignature(fd.decl))
					return true
				}
				if isConstant(n.Name) { // Stan's pi, written bare
					c.errorf(n.NamePos, "`%s` is not a parameter of %s; the built-in constant is written %s", n.Name, name, stdlib.LookupFunc(n.Name).Signature())
					return true
				}
				c.errorf(n.NamePos, "`%s` is not a parameter of %s: a function body sees only its arguments (pass %s as an argument)", n.Name, name, n.Name)
			}
		}
		return true
	})
}

// fnLater returns the declaration of a function named name anywhere in the
// file, or nil.
func (c *checker) fnLater(name string) *ast.FnDecl {
	for _, s := range c.file.Stmts {
		if d, ok := s.(*ast.FnDecl); ok && d.Name.Name == name {
			return d
		}
	}
	return nil
}

// densityLater returns the declaration of the user density NAME_lpdf
// (or NAME_lpmf) for the distribution name name anywhere in the file, or
// nil: for a use before it.
func (c *checker) densityLater(name string) *ast.FnDecl {
	for _, s := range densitySuffixes {
		if d := c.fnLater(name + s); d != nil {
			return d
		}
	}
	return nil
}

func (c *checker) fnNames() []string {
	var out []string
	for n := range c.fns {
		out = append(out, n)
	}
	return out
}

// fnSignature is "f(a, b)".
func fnSignature(d *ast.FnDecl) string {
	ps := make([]string, len(d.Params))
	for i, p := range d.Params {
		ps[i] = p.Name
	}
	return d.Name.Name + "(" + strings.Join(ps, ", ") + ")"
}

// inline checks a call of the user function fd by expanding it (see
// Inline), and returns the type of its value.
func (c *checker) inline(e *ast.CallExpr, fd *fnDef) Type {
	d := fd.decl
	args := make([]Type, len(e.Args))
	ok := fd.ok
	for i, a := range e.Args {
		args[i] = c.expr(a)
		ok = ok && args[i].Valid()
	}
	if len(e.Args) != len(d.Params) {
		c.errorf(e.Fun.NamePos, "%s takes %s, %s (declared at %s); this call has %d",
			d.Name.Name, plural(len(d.Params), "argument"), fnSignature(d), d.Name.NamePos, len(e.Args))
		return invalid
	}
	if !ok {
		return invalid
	}
	in, t := c.expand(e, d, args, e.Args, fmt.Sprintf(" (in the call of %s at %s)", d.Name.Name, e.Fun.NamePos))
	if in == nil {
		return invalid
	}
	c.info.Inlines[e] = in
	return t
}

// odeFnArg returns the identifier a call of takesFn (an ODE or algebraic
// solver, integrate_1d) names its function with.
func odeFnArg(e *ast.CallExpr) (*ast.Ident, bool) {
	if !takesFn(e) || len(e.Args) == 0 {
		return nil, false
	}
	id, ok := ast.Unparen(e.Args[0]).(*ast.Ident)
	return id, ok
}

// expand checks the body of d at call e with its parameters bound to
// values of the types args (hidden lets), and returns the expansion and
// the body's type; where is appended to the errors found in the body. It
// returns nil past maxInlined expansions or maxInlinedNodes nodes.
func (c *checker) expand(e *ast.CallExpr, d *ast.FnDecl, args []Type, values []ast.Expr, where string) (*Inline, Type) {
	size := c.fnSize(d)
	if c.inlined >= maxInlined || c.inlinedNodes+size > maxInlinedNodes {
		switch {
		case c.inlined == maxInlined:
			c.errorf(e.Fun.NamePos, "the calls of user functions expand to more than %d copies of their bodies; call fewer, or nest them less", maxInlined)
		case c.inlined < maxInlined:
			c.errorf(e.Fun.NamePos, "the calls of user functions expand to more than %d nodes of expressions; call fewer, or nest them less", maxInlinedNodes)
		}
		c.inlined = maxInlined + 1
		return nil, invalid
	}
	c.inlined++
	c.inlinedNodes += size
	in := &Inline{Fn: d, Call: e}
	nerr := len(c.errs)
	c.push("fn")
	scope := c.scopes[len(c.scopes)-1]
	bind := func(id *ast.Ident, let ast.Pos, v ast.Expr, t Type) {
		hid := &ast.Ident{NamePos: id.NamePos, Name: id.Name}
		sym := &Symbol{Name: id.Name, Kind: Let, Decl: &ast.LetStmt{Let: let, Name: hid, Value: v}, Pos: id.NamePos, Type: t, Local: true, Fn: d}
		c.info.Defs[hid] = sym
		scope[id.Name] = sym
		in.Binds = append(in.Binds, Bind{Sym: sym, Value: v})
	}
	for i, p := range d.Params {
		bind(p, values[i].Pos(), values[i], args[i])
	}
	defining := c.defining
	c.defining = ""
	for _, l := range d.Lets {
		v := ast.CloneExpr(l.Value)
		bind(l.Name, l.Let, v, c.expr(v))
	}
	in.Body = ast.CloneExpr(d.Body)
	t := c.expr(in.Body)
	c.defining = defining
	c.pop()
	for _, err := range c.errs[nerr:] {
		err.Msg += where
	}
	return in, t
}

// maxInlined bounds the expanded calls of a file: a call of g, whose body
// calls f twice, expands three bodies, and k functions so nested expand
// 2^k.
const maxInlined = 100000

// maxInlinedNodes bounds the nodes of the expanded bodies of a file, the
// work of checking them: without it, bodies of a hundred nodes nested as
// above take the checker seconds to reach maxInlined copies.
const maxInlinedNodes = 1000000

// fnSize returns the number of nodes of d's local lets' values and body,
// which each expansion of d clones and checks.
func (c *checker) fnSize(d *ast.FnDecl) int {
	if n, ok := c.fnSizes[d]; ok {
		return n
	}
	n := 0
	count := func(ast.Node) bool { n++; return true }
	for _, l := range d.Lets {
		ast.Inspect(l.Value, count)
	}
	ast.Inspect(d.Body, count)
	if c.fnSizes == nil {
		c.fnSizes = map[*ast.FnDecl]int{}
	}
	c.fnSizes[d] = n
	return n
}

// userDensityCall builds NAME_lpdf(value, args...) for the distribution
// call d of the user density fd, or reports a wrong number of arguments and
// returns nil.
func (c *checker) userDensityCall(d *ast.CallExpr, fd *fnDef, value ast.Expr) *ast.CallExpr {
	decl := fd.decl
	if len(d.Args)+1 != len(decl.Params) {
		c.errorf(d.Fun.NamePos, "%s takes %s after the value, as the density %s (declared at %s) says; this one has %d",
			d.Fun.Name, plural(len(decl.Params)-1, "argument"), fnSignature(decl), decl.Name.NamePos, len(d.Args))
		for _, a := range d.Args {
			c.expr(a)
		}
		return nil
	}
	call := &ast.CallExpr{Fun: &ast.Ident{NamePos: d.Fun.NamePos, Name: decl.Name.Name}, Lparen: d.Lparen, Rparen: d.Rparen}
	call.Args = append([]ast.Expr{value}, d.Args...)
	return call
}

// userTilde checks y ~ NAME(args) for a user density: the term is
// sum(NAME_lpdf(y, args)).
func (c *checker) userTilde(s *ast.TildeStmt, fd *fnDef) {
	if s.Trunc != nil {
		c.errorf(s.Trunc.T, "T[...] truncates a built-in distribution, by its cdf; %s is a user density (%s at %s): subtract the log mass by hand with target -=",
			s.Dist.Fun.Name, fnSignature(fd.decl), fd.decl.Name.NamePos)
	}
	call := c.userDensityCall(s.Dist, fd, s.LHS)
	if call == nil {
		c.expr(s.LHS)
		return
	}
	c.expr(call)
	c.refuseSteps(call)
	c.info.UserDensities[s.Dist] = call
	// The latents on the left have a density from this ~ (for gpp check
	// and for prior draws, which refuse it).
	var mentioned []*Latent
	ast.Inspect(s.LHS, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if lat := c.latents[c.info.Uses[id]]; lat != nil && !slices.Contains(mentioned, lat) {
				mentioned = append(mentioned, lat)
				lat.Tildes = append(lat.Tildes, s)
			}
		}
		return true
	})
	if root := c.info.SelectedLatent(s.LHS); root != nil && !slices.Contains(mentioned, root) {
		root.Tildes = append(root.Tildes, s)
	}
}

// userPrior checks the prior NAME(args) of the param declared by s, whose
// symbol is sym, for a user density: the term is sum(NAME_lpdf(x, args)).
func (c *checker) userPrior(s *ast.ParamDecl, sym *Symbol, fd *fnDef) {
	name := s.Name.Name
	c.defining = name
	ok := true
	for _, a := range s.Prior.Args { // without the param: they may not read it
		ok = c.expr(a).Valid() && ok
	}
	c.defining = ""
	value := &ast.Ident{NamePos: s.Name.NamePos, Name: name}
	call := c.userDensityCall(s.Prior, fd, value)
	if call == nil || !ok {
		return
	}
	prev, had := c.top[name]
	c.top[name] = sym
	c.expr(call)
	if had {
		c.top[name] = prev
	} else {
		delete(c.top, name)
	}
	c.refuseSteps(call)
	c.info.UserDensities[s.Prior] = call
}

// userLogpdf checks logpdf(y, NAME(args)) for a user density: it is
// NAME_lpdf(y, args), expanded, whose value is per element when the body
// is written elementwise. A user density has no cdf for logcdf or logccdf.
func (c *checker) userLogpdf(e *ast.CallExpr, f *stdlib.Func, d *ast.CallExpr, fd *fnDef) Type {
	if f.Name != "logpdf" {
		c.expr(e.Args[0])
		for _, a := range d.Args {
			c.expr(a)
		}
		c.errorf(d.Fun.NamePos, "%s needs a built-in distribution's cdf; %s is a user density (%s at %s)",
			f.Name, d.Fun.Name, fnSignature(fd.decl), fd.decl.Name.NamePos)
		return invalid
	}
	call := c.userDensityCall(d, fd, e.Args[0])
	if call == nil {
		c.expr(e.Args[0])
		return invalid
	}
	t := c.expr(call)
	if in := c.info.Inlines[call]; in != nil {
		c.info.Inlines[e] = in
	}
	return t
}
