package check

import (
	"fmt"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/stdlib"
)

// Calls whose first argument names a user function that the op evaluates
// as a program of its own (ODE solvers, algebraic solvers, integrate_1d):
// looking the function up, checking the arguments after it, expanding its
// body once for the call with its parameters bound, and refusing a
// comparison in it on an argument that depends on a param.

// takesFn reports whether e calls a built-in whose first argument names
// a user function (an ODE or algebraic solver, integrate_1d).
func takesFn(e *ast.CallExpr) bool {
	f := stdlib.LookupFunc(e.Fun.Name)
	return f != nil && (f.Shape == stdlib.ODE || f.Shape == stdlib.Algebra || f.Shape == stdlib.Integrate1D)
}

// fnCallArgs checks the arguments of e after its first and looks up the
// user function the first names (fnArg, with sig and role): their types
// (index 0 unset) and the function, nil after an error.
func (c *checker) fnCallArgs(e *ast.CallExpr, name, sig, role string) ([]Type, *fnDef) {
	types := make([]Type, len(e.Args))
	ok := true
	for i, a := range e.Args[1:] {
		types[i+1] = c.expr(a)
		ok = ok && types[i+1].Valid()
	}
	fd := c.fnArg(e, name, sig, role)
	if !ok {
		return types, nil
	}
	return types, fd
}

// fnArg returns the user function that argument 1 of call e names, or
// reports why it names none and returns nil. sig is the function's form
// ("f(t, y, ...)") and role what it returns, for the messages.
func (c *checker) fnArg(e *ast.CallExpr, name, sig, role string) *fnDef {
	id, isId := ast.Unparen(e.Args[0]).(*ast.Ident)
	if !isId {
		c.errorf(e.Args[0].Pos(), "%s expects argument 1 (f) to name a user function fn %s %s; `%s` is an expression", name, sig, role, exprString(e.Args[0]))
		return nil
	}
	if fd := c.fns[id.Name]; fd != nil {
		return fd
	}
	switch k := builtinKind(id.Name); {
	case k != "":
		c.errorf(id.NamePos, "%s expects argument 1 (f) to name a user function fn %s; `%s` is a built-in %s", name, sig, id.Name, k)
	case c.fnLater(id.Name) != nil:
		c.errorf(id.NamePos, "function `%s` used before its declaration at %s", id.Name, c.fnLater(id.Name).Name.NamePos)
	case c.lookup(id.Name) != nil:
		sym := c.lookup(id.Name)
		c.errorf(id.NamePos, "%s expects argument 1 (f) to name a user function fn %s %s; `%s` is %s (declared at %s)", name, sig, role, id.Name, sym.Kind.Phrase(), sym.Pos)
	default:
		c.errorf(id.NamePos, "%s expects argument 1 (f) to name a user function fn %s; there is no function `%s`%s", name, sig, id.Name, suggest(id.Name, c.fnNames()))
	}
	return nil
}

// solverArgs checks call e of an ODE or algebraic solver (f its table
// entry: the function, the settings, then "..." for the arguments passed
// on): its arguments' count and types (fnCallArgs, with sig and role) and
// the settings (settingArgs). It returns the types, the function (nil
// after an error) and the count of arguments before those passed on.
func (c *checker) solverArgs(e *ast.CallExpr, f *stdlib.Func, sig, role string) ([]Type, *fnDef, int) {
	fixed := len(f.Args) - 1 // before the "..."
	if len(e.Args) < fixed {
		for _, a := range e.Args[min(1, len(e.Args)):] {
			c.expr(a)
		}
		c.errorf(e.Rparen, "too few arguments to %s: expected at least %d (%s), found %d", f.Name, fixed, f.Signature(), len(e.Args))
		return nil, nil, fixed
	}
	types, fd := c.fnCallArgs(e, f.Name, sig, role)
	if fd == nil || !c.settingArgs(e, f, types, fixed) {
		return types, nil, fixed
	}
	return types, fd, fixed
}

// settingArgs checks the arguments of e (of types) from the second to
// the fixed-th, a solver's settings before those passed on to its
// function, against f's table entry: rank, int, known before the fit.
func (c *checker) settingArgs(e *ast.CallExpr, f *stdlib.Func, types []Type, fixed int) bool {
	ok := true
	for i, spec := range f.Args[1:fixed] {
		a, arg := types[i+1], e.Args[i+1]
		switch {
		case a.Shape.Rank() != rankOf(spec.Ranks):
			c.errorf(arg.Pos(), "%s expects a %s as argument %d (%s); `%s` is %s", f.Name, spec.Ranks, i+2, spec.Name, exprString(arg), a.Shape.describe())
			ok = false
		case spec.Int && a.Elem != Int:
			c.errorf(arg.Pos(), "%s expects an int argument %d (%s); `%s` is real", f.Name, i+2, spec.Name, exprString(arg))
			ok = false
		case spec.Data != "" && !a.DataOnly:
			c.errorf(arg.Pos(), "%s needs argument %d (%s) known before the fit (data, constants and lets of them); `%s` %s: %s",
				f.Name, i+2, spec.Name, exprString(arg), c.dependsOnParam(arg), spec.Data)
			ok = false
		}
	}
	return ok
}

// expandFn expands the body of d, the function of call e of name, with
// its parameters bound to values of the types args (expand; the first
// lead are the op's), role naming it in the errors found there
// ("right-hand side"), and refuses a comparison in it on an argument that
// depends on a param (paramSteps, with compare). It returns a nil Inline
// after an error.
func (c *checker) expandFn(e *ast.CallExpr, name string, d *ast.FnDecl, role, compare string, lead int, args []Type, values []ast.Expr) (*Inline, Type) {
	where := fmt.Sprintf(" (in the %s %s of %s at %s)", role, d.Name.Name, name, e.Fun.NamePos)
	in, body := c.expand(e, d, args, values, where)
	if in == nil || !body.Valid() || !c.paramSteps(in, name, role, compare, lead, args[lead:]) {
		return nil, invalid
	}
	return in, body
}

// paramSteps reports each comparison or logical operator in in, the
// body of the function f of a call of name expanded with its lead
// parameters first (the op's: x and xc, t and y, y), then the arguments of
// the types args, that reads an argument that depends on a param (its
// derivative there would be zero), and returns whether there is none.
// Those that read the lead parameters and data alone are f's pieces
// (Stan's if (x > 0.5) in an integrand), which the op smooths. role names
// f and compare says what to compare instead.
func (c *checker) paramSteps(in *Inline, name, role, compare string, lead int, args []Type) bool {
	bad := map[*Symbol]bool{}   // arguments that depend on a param
	fixed := map[*Symbol]bool{} // the lead parameters and the data arguments: read no further
	for i, b := range in.Binds[:lead+len(args)] {
		if i >= lead && !args[i-lead].DataOnly {
			bad[b.Sym] = true
		} else {
			fixed[b.Sym] = true
		}
	}
	memo := map[*Symbol]*ast.Ident{}
	// reads returns the argument identifier e reads a bad argument
	// through (following the lets of the body and of the functions it
	// calls), or nil.
	var reads func(e ast.Expr) *ast.Ident
	reads = func(e ast.Expr) *ast.Ident {
		var found *ast.Ident
		ast.Inspect(e, func(n ast.Node) bool {
			if found != nil {
				return false
			}
			if call, ok := n.(*ast.CallExpr); ok {
				if inl := c.info.Inlines[call]; inl != nil {
					found = reads(inl.Body)
					return found == nil
				}
			}
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			sym := c.info.Uses[id]
			switch {
			case sym == nil || fixed[sym]:
			case bad[sym]:
				found = id
			case sym.Kind == Let && sym.Fn != nil:
				if r, done := memo[sym]; done {
					found = r
					break
				}
				memo[sym] = nil
				if let, ok := sym.Decl.(*ast.LetStmt); ok {
					memo[sym] = reads(let.Value)
					found = memo[sym]
				}
			}
			return true
		})
		return found
	}
	ok := true
	for _, s := range c.stepsOf(in.Body) {
		var pos ast.Pos
		var operands []ast.Expr
		switch x := s.op.(type) {
		case *ast.BinaryExpr:
			pos, operands = x.OpPos, []ast.Expr{x.X, x.Y}
		case *ast.UnaryExpr:
			pos, operands = x.OpPos, []ast.Expr{x.X}
		default:
			continue
		}
		for _, o := range operands {
			if id := reads(o); id != nil {
				c.errorf(pos, "%s: a comparison or logical operator in the %s %s reads `%s`, which depends on a param: its derivative would be zero; %s", name, role, in.Fn.Name.Name, id.Name, compare)
				ok = false
				break
			}
		}
	}
	return ok
}

// fnArity reports whether d, the function that call e of name passes
// nargs arguments after its lead parameters (leads, "after" them), takes
// that many; if not it reports the error at the function argument.
func (c *checker) fnArity(e *ast.CallExpr, name string, d *ast.FnDecl, leads, after string, lead, nargs int) bool {
	if len(d.Params) == lead+nargs {
		return true
	}
	c.errorf(e.Args[0].Pos(), "%s calls %s(%s, ...) with %s after %s; %s takes %s, %s (declared at %s)",
		name, d.Name.Name, leads, plural(nargs, "argument"), after, d.Name.Name, plural(len(d.Params), "argument"), fnSignature(d), d.Name.NamePos)
	return false
}

// allData says whether every argument of ts is known before the fit: a
// solver's result is data when all it reads is.
func allData(ts []Type) bool {
	for _, t := range ts {
		if !t.DataOnly {
			return false
		}
	}
	return true
}
