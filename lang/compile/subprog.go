package compile

import (
	"errors"
	"fmt"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/autodiff"
	"github.com/gpplang/gpp/lang/check"
)

// A user function that a call evaluates as a program of its own (an ODE's
// right-hand side, an algebraic system, an integrand) is compiled here,
// from its body as the checker expanded it for the call.

// lead is one of a function's first parameters, which the op sets (t and
// y, y, or x and xc): an input of its program.
type lead struct {
	name  string
	shape autodiff.Shape
}

// fnProgram compiles the body of fd, expanded for call e as in, into a
// program of its own and completes it with finish (Builder.FinishRHS, and
// so on): the program's inputs are the leads, then each argument (args,
// lowered from argExprs) not known before the fit; inputs are those
// arguments' nodes on the model's tape, in order. role names the function
// in errors ("right-hand side"); an error found in the body or by finish
// is reported with the call appended.
func fnProgram[T any](l *lowerer, e *ast.CallExpr, fd *ast.FnDecl, in *check.Inline, role string, leads []lead, args []value, argExprs []ast.Expr,
	finish func(*autodiff.Builder, autodiff.ID, ast.Pos) (T, error)) (T, []autodiff.ID, bool) {
	var zero T
	name, pos := e.Fun.Name, e.Fun.Pos()
	sb := autodiff.NewBuilder()
	for i, ld := range leads {
		l.env[in.Binds[i].Sym] = value{id: sb.Input(ld.name, ld.shape, pos), node: true}
	}
	where := fmt.Sprintf(" (in the %s %s of %s at %s)", role, fd.Name.Name, name, pos)
	f, inputs, ok := l.fnBody(sb, in, len(leads), len(fd.Params), args, argExprs, where)
	if !ok {
		return zero, nil, false
	}
	prog, err := finish(sb, f, e.Args[0].Pos())
	if err != nil {
		l.subErr(err, pos, where)
		return zero, nil, false
	}
	return prog, inputs, true
}

// fnBody lowers the body of in, a user function expanded for a call,
// into sb, whose inputs for the first lead parameters (t and y, y, or x
// and xc) the caller has bound: each argument not known before the
// fit becomes an input of sb (inputs are their values on the model's
// tape, in order), a known one a constant there (ints stay ints, for sizes
// and indices). np is the function's parameter count; where is appended
// to the errors found in the body. It returns the body's value in sb.
func (l *lowerer) fnBody(sb *autodiff.Builder, in *check.Inline, lead, np int, args []value, argExprs []ast.Expr, where string) (autodiff.ID, []autodiff.ID, bool) {
	var inputs []autodiff.ID
	for i, v := range args {
		sym := in.Binds[lead+i].Sym
		a := argExprs[i]
		switch {
		case v.isInt && v.rows == nil:
			l.env[sym] = value{ints: v.ints, shape: v.shape, isInt: true, at: v.at, atExpr: v.atExpr, data: v.data}
		case !v.node:
			return 0, nil, false // an error was reported
		default:
			s := l.b.Shape(v.id)
			if vals, ok := l.b.Known(v.id); ok {
				l.env[sym] = value{id: sb.Const(vals, s, a.Pos()), node: true}
				continue
			}
			l.env[sym] = value{id: sb.Input(sym.Name, s, a.Pos()), node: true}
			inputs = append(inputs, v.id)
		}
	}
	nerr := len(l.errs)
	// The body's nodes are sb's: nothing of the model's build (its data
	// nodes, a loop lowered as vectors, the logpdf terms an evaluator
	// watches) may record them.
	b, vec, dataNodes, inTarget := l.b, l.vec, l.dataNodes, l.inTarget
	l.b, l.vec, l.inTarget = sb, nil, false
	for _, bind := range in.Binds[np:] {
		l.env[bind.Sym] = l.expr(bind.Value)
	}
	f := l.node(l.expr(in.Body), in.Body.Pos())
	l.b, l.vec, l.dataNodes, l.inTarget = b, vec, dataNodes, inTarget
	for _, err := range l.errs[nerr:] {
		err.Msg += where
	}
	return f, inputs, len(l.errs) == nerr
}

// subErr reports err, from finishing a function's program, with where
// appended.
func (l *lowerer) subErr(err error, pos ast.Pos, where string) {
	var list ast.ErrorList
	var one *ast.Error
	switch {
	case errors.As(err, &list):
		for _, x := range list {
			l.errorf(x.Pos, "%s%s", x.Msg, where)
		}
	case errors.As(err, &one):
		l.errorf(one.Pos, "%s%s", one.Msg, where)
	default:
		l.errorf(pos, "%s%s", err, where)
	}
}
