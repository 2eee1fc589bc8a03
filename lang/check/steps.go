package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpplang/gpp/lang/ast"
)

// Comparisons and logical operators on params (language.md §3,
// *Conditions*). Their value is a step function of the params. An output,
// computed at every draw of q after the fit, may read one: the mean of
// `mu > 0` over the draws is P(mu > 0). The log joint may not: the
// derivative is zero wherever it exists, so the fit would get no gradient
// from it; nor may a for range or an if condition, which the compiler
// evaluates before the fit. The checker types such operators anywhere
// (logical), and a let may hold one; the statements that feed the log
// joint or the compiler report, through refuseSteps, each one they read,
// directly or through lets, at its operator.

// stepUse is a comparison or logical operator on params that an
// expression reads, and the let it reads it through (nil: directly).
type stepUse struct {
	op  ast.Expr // an *ast.BinaryExpr or a ! *ast.UnaryExpr
	via *ast.Ident
	// in are the expanded calls of user functions whose bodies hold op,
	// innermost first.
	in []*Inline
}

// stepsOf returns the comparisons and logical operators on params that e
// reads, directly or through lets: the innermost ones, whose operands hold
// none themselves (in `!(mu > 0)`, the >). Subexpressions whose type is
// invalid are skipped: their errors are reported.
func (c *checker) stepsOf(e ast.Expr) []stepUse {
	var found []stepUse
	ast.Inspect(e, func(n ast.Node) bool {
		x, ok := n.(ast.Expr)
		if !ok {
			return true
		}
		if t, ok := c.info.Types[x]; ok && !t.Valid() {
			return false
		}
		switch x := x.(type) {
		case *ast.CallExpr:
			if in := c.info.Inlines[x]; in != nil {
				// The expanded body, which reads the arguments through
				// its parameters.
				for _, s := range c.stepsOf(in.Body) {
					if s.via == nil || c.info.Uses[s.via] == nil || c.info.Uses[s.via].Fn != in.Fn {
						s.in = append(slices.Clip(s.in), in) // else op is in an argument
					}
					found = append(found, s)
				}
				return false
			}
			if f := c.info.Calls[x]; f != nil && f.OutputOnly != "" && !c.info.Types[x].DataOnly {
				found = append(found, stepUse{op: x})
				return false
			}
		case *ast.IndexExpr:
			ix := c.info.DynamicIndex(x)
			if ix == nil {
				return true
			}
			found = append(found, stepUse{op: x})
			found = append(found, c.stepsOf(x.X)...)
			return false
		case *ast.Ident:
			for _, s := range c.letSteps(c.info.Uses[x]) {
				found = append(found, stepUse{op: s.op, via: x})
			}
		case *ast.UnaryExpr, *ast.BinaryExpr:
			var operands []ast.Expr
			switch x := x.(type) {
			case *ast.UnaryExpr:
				if x.Op != ast.Not {
					return true
				}
				operands = []ast.Expr{x.X}
			case *ast.BinaryExpr:
				if !x.Op.IsLogical() {
					return true
				}
				operands = []ast.Expr{x.X, x.Y}
			}
			if c.info.Types[x].DataOnly {
				return false
			}
			n := len(found)
			for _, o := range operands {
				found = append(found, c.stepsOf(o)...)
			}
			if len(found) == n {
				found = append(found, stepUse{op: x})
			}
			return false
		}
		return true
	})
	return found
}

// letSteps returns stepsOf the value of sym when it is a let (nil
// otherwise), computed once per let, each operator once: a reader of the
// let keeps only the operators (stepsOf's Ident case), and without this a
// chain of lets each reading the one before twice (let b2 = b1 && b1)
// doubles the list at every let.
func (c *checker) letSteps(sym *Symbol) []stepUse {
	if sym == nil || sym.Kind != Let || !sym.Type.Valid() {
		return nil
	}
	let, ok := sym.Decl.(*ast.LetStmt)
	if !ok {
		return nil
	}
	if c.steps == nil {
		c.steps = map[*Symbol][]stepUse{}
	}
	if s, ok := c.steps[sym]; ok {
		return s
	}
	var s []stepUse
	seen := map[ast.Expr]bool{}
	for _, u := range c.stepsOf(let.Value) {
		if !seen[u.op] {
			seen[u.op] = true
			s = append(s, u)
		}
	}
	c.steps[sym] = s
	return s
}

// refuseSteps reports each comparison or logical operator on params that
// es read, directly or through lets, at its operator, once however many
// statements read it. es are expressions of a statement that feeds the
// log joint or that the compiler evaluates before the fit. It returns
// whether es read any.
func (c *checker) refuseSteps(es ...ast.Expr) bool {
	any := false
	for _, e := range es {
		if e == nil {
			continue
		}
		for _, s := range c.stepsOf(e) {
			any = true
			if c.stepsReported[s.op] {
				continue
			}
			if c.stepsReported == nil {
				c.stepsReported = map[ast.Expr]bool{}
			}
			c.stepsReported[s.op] = true
			c.stepError(s)
		}
	}
	return any
}

// stepError reports the comparison or logical operator s.op at its
// operator, naming the operand that depends on a param and, when it is
// read through a let, where.
func (c *checker) stepError(s stepUse) {
	if call, ok := s.op.(*ast.CallExpr); ok {
		c.outputOnlyError(call, s)
		return
	}
	if e, ok := s.op.(*ast.IndexExpr); ok {
		ix := c.info.DynamicIndex(e)
		if t := c.info.Types[ix]; s.via != nil {
			c.errorf(ix.Pos(), "an index must be known before the fit (data, constants, loop variables and lets of them); `%s` %s, whose value changes with the draws (the log joint reads it through the let `%s` at %s); an output may index by it",
				exprString(ix), c.dependsOnParam(ix), s.via.Name, s.via.NamePos)
		} else {
			c.knownIndex(ix, t, "an index")
		}
		return
	}
	var opPos ast.Pos
	var operands []ast.Expr
	what := "a comparison"
	switch x := s.op.(type) {
	case *ast.UnaryExpr:
		opPos, operands, what = x.OpPos, []ast.Expr{x.X}, "a logical !"
	case *ast.BinaryExpr:
		opPos, operands = x.OpPos, []ast.Expr{x.X, x.Y}
		if !x.Op.IsComparison() {
			what = "a logical " + x.Op.String()
		}
	}
	culprit := operands[0]
	for _, o := range operands {
		if !c.info.Types[o].DataOnly {
			culprit = o
			break
		}
	}
	through := ""
	if s.via != nil {
		what := "the let `" + s.via.Name + "`"
		if sym := c.info.Uses[s.via]; sym != nil && sym.Fn != nil {
			what = "the let `" + s.via.Name + "` of " + sym.Fn.Name.Name
			if slices.ContainsFunc(sym.Fn.Params, func(p *ast.Ident) bool { return p.Name == s.via.Name }) {
				what = "the parameter `" + s.via.Name + "` of " + sym.Fn.Name.Name
			}
		}
		through = " (it is read through " + what + " at " + s.via.NamePos.String() + ")"
	}
	calls := ""
	for _, in := range s.in {
		calls += fmt.Sprintf(" (in the call of %s at %s)", in.Fn.Name.Name, in.Call.Fun.NamePos)
	}
	hint := ""
	if !c.inIfCondition(s.op) {
		hint = indicatorHint(s.op)
	}
	c.errorf(opPos, "%s needs operands known before the fit%s, and `%s` %s: its value would be a step function of the params, whose derivative is zero almost everywhere, so the fit gets no gradient from it (Stan allows it; gpp does not); write the condition on data, constants and loop variables%s; in an output it is allowed: `output p = mu > 0` gives P(mu > 0) as its mean%s",
		what, through, exprString(culprit), c.dependsOnParam(culprit), hint, calls)
}

// outputOnlyError reports a call of a function without a derivative
// (stdlib's OutputOnly) on params in the log joint or before the fit.
func (c *checker) outputOnlyError(call *ast.CallExpr, s stepUse) {
	f := c.info.Calls[call]
	culprit := ast.Expr(call)
	for _, a := range call.Args {
		if !c.info.Types[a].DataOnly {
			culprit = a
			break
		}
	}
	through := ""
	if s.via != nil {
		through = " (it is read through the let `" + s.via.Name + "` at " + s.via.NamePos.String() + ")"
	}
	calls := ""
	for _, in := range s.in {
		calls += fmt.Sprintf(" (in the call of %s at %s)", in.Fn.Name.Name, in.Call.Fun.NamePos)
	}
	if f.Random {
		c.errorf(call.Fun.NamePos, "%s is a random draw, so the log joint cannot read it%s, nor a loop's range or an if's condition: %s; an output may call it (Stan's _rng functions are for generated quantities)%s",
			f.Name, through, f.OutputOnly, calls)
		return
	}
	c.errorf(call.Fun.NamePos, "%s has no derivative, so the log joint cannot read it%s where its arguments depend on params (`%s` %s): %s; an output may call it%s",
		f.Name, through, exprString(culprit), c.dependsOnParam(culprit), f.OutputOnly, calls)
}

// DynamicIndex returns the first index of e (not a slice) that changes
// with the draws (an output, a comparison on a param), nil if none: it is
// picked per draw, which an output may do (Stan's generated quantities)
// and the log joint may not, the compiler picking its elements while it
// builds the tape.
func (info *Info) DynamicIndex(e *ast.IndexExpr) ast.Expr {
	for _, ix := range e.Indices {
		if _, isSlice := ix.(*ast.SliceExpr); isSlice {
			continue
		}
		if t, ok := info.Types[ix]; ok && t.Valid() && t.Elem == Int && !t.DataOnly {
			return ix
		}
	}
	return nil
}

// indicatorHint suggests, for an order comparison a < b on params used
// as a 0/1 weight (GJR-GARCH's leverage term square(r - mu) .* (r < mu)),
// the same term through fmin or fmax, which have a gradient: the
// indicator times a power of a - b is that power of a clipped difference.
func indicatorHint(op ast.Expr) string {
	x, ok := op.(*ast.BinaryExpr)
	if !ok {
		return ""
	}
	clip := ""
	switch x.Op {
	case ast.Lt, ast.Le:
		clip = "fmin"
	case ast.Gt, ast.Ge:
		clip = "fmax"
	default:
		return ""
	}
	diff := exprString(x.X)
	if lit, ok := ast.Unparen(x.Y).(*ast.NumberLit); !ok || lit.Value != 0 {
		b := exprString(x.Y)
		if _, binary := x.Y.(*ast.BinaryExpr); binary {
			b = "(" + b + ")"
		}
		diff += " - " + b
	}
	ind, factor := exprString(x), diff
	if strings.Contains(diff, " - ") {
		factor = "(" + diff + ")"
	}
	return fmt.Sprintf("; for a term weighted by `%s` (an indicator), fold the comparison into %s, which has a gradient: square(%s) .* (%s) is square(%s(%s, 0)), and %s .* (%s) is %s(%s, 0)",
		ind, clip, diff, ind, clip, diff, factor, ind, clip, diff)
}

// inIfCondition reports whether e lies in the condition of an if, where
// the branch taken, not a weight, depends on it.
func (c *checker) inIfCondition(e ast.Expr) bool {
	in := false
	ast.Inspect(c.file, func(n ast.Node) bool {
		if s, ok := n.(*ast.IfStmt); ok {
			for _, b := range s.Branches {
				ast.Inspect(b.Cond, func(n ast.Node) bool {
					in = in || n == ast.Node(e)
					return !in
				})
			}
		}
		return !in
	})
	return in
}
