package check

import (
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/stdlib"
)

// Shapes of the vector and matrix built-ins that take Stan's names:
// dot_product, head, tail, segment, append_row and append_col.

// dotProduct checks dot_product(x, y): vectors, or rows [1, n], of one
// length.
func (c *checker) dotProduct(e *ast.CallExpr, f *stdlib.Func, args []Type) bool {
	var n [2]Dim
	for i, a := range args {
		s := a.Shape
		switch {
		case s.Rank() == 1:
			n[i] = s[0]
		case s[0].isOne():
			n[i] = s[1]
		default:
			c.errorf(e.Args[i].Pos(), "%s expects a vector or a row [1, n] as argument %d; `%s` is %s",
				f.Name, i+1, exprString(e.Args[i]), s.describe())
			return false
		}
	}
	if compareDims(n[0], n[1]) == dimDiffer {
		c.errorf(e.Args[1].Pos(), "%s: `%s` has %s but `%s` has %s; they need one length",
			f.Name, exprString(e.Args[1]), plural1(n[1]), exprString(e.Args[0]), plural1(n[0]))
		return false
	}
	return true
}

// segment checks head(x, k), tail(x, k) and segment(x, i, k): k elements
// (rows) of x, k a size known before the fit, i a 0-based start known
// before the fit; constants out of x's known length are errors here.
func (c *checker) segment(e *ast.CallExpr, f *stdlib.Func, args []Type) (Shape, bool) {
	ki := len(args) - 1
	k := c.dimOf(e.Args[ki], args[ki], f.Name+"'s length")
	if k == unknownDim {
		return nil, false
	}
	s := args[0].Shape
	d := s[0]
	start := 0
	if f.Shape == stdlib.Segment {
		it := args[1]
		if !c.knownIndex(e.Args[1], it, "segment's start") {
			return nil, false
		}
		if it.Const != nil {
			if *it.Const < 0 {
				c.errorf(e.Args[1].Pos(), "segment's start must not be negative; `%s` is %g (it is 0-based)", exprString(e.Args[1]), *it.Const)
				return nil, false
			}
			start = int(*it.Const)
			if d.Known() && start > d.N {
				c.errorf(e.Args[1].Pos(), "segment's start %d is out of range: `%s` has %s (indices are 0-based)", start, exprString(e.Args[0]), plural1(d))
				return nil, false
			}
		}
	}
	if k.Known() && d.Known() && start+k.N > d.N {
		what := plural1(d)
		if s.Rank() == 2 {
			what = plural(d.N, "row")
		}
		msg := "%s: %d is too long: `%s` has %s"
		if f.Shape == stdlib.Segment {
			msg += " and the segment starts at %d"
			c.errorf(e.Args[ki].Pos(), msg, f.Name, k.N, exprString(e.Args[0]), what, start)
		} else {
			c.errorf(e.Args[ki].Pos(), msg, f.Name, k.N, exprString(e.Args[0]), what)
		}
		return nil, false
	}
	if s.Rank() == 2 {
		return Shape{k, s[1]}, true
	}
	return Shape{k}, true
}

// diffShape checks diff(x) and diff(x, d): d, when given, a constant int
// from 1 to n − 1 for x [n] (checked when n is known: else when the data
// load), and the result [n − d]. A d that is not constant would make the
// result's length change with the data alone; a d ≥ n leaves no
// difference.
func (c *checker) diffShape(e *ast.CallExpr, args []Type) (Shape, bool) {
	n := args[0].Shape[0]
	d := 1
	if len(args) == 2 {
		t := args[1]
		if t.Const == nil {
			c.errorf(e.Args[1].Pos(), "diff's order d must be a constant int (diff(x, 2) for second differences); `%s` is not one", exprString(e.Args[1]))
			return nil, false
		}
		if *t.Const < 1 {
			c.errorf(e.Args[1].Pos(), "diff's order d must be at least 1; `%s` is %g (diff(x, 1) is diff(x), the first differences)", exprString(e.Args[1]), *t.Const)
			return nil, false
		}
		d = int(*t.Const)
	}
	if n.Known() && d >= n.N {
		c.errorf(e.Args[len(args)-1].Pos(), "diff of order %d needs more than %d elements: `%s` has %s, so it has no differences of that order", d, d, exprString(e.Args[0]), plural1(n))
		return nil, false
	}
	return Shape{opDim(n, knownDim(d), "-", n.N-d)}, true
}

// appendShape checks append_row(x, y) and append_col(x, y). append_row:
// two vectors, or a scalar (as [1]) and a vector, give a vector; otherwise
// matrices, a vector as a column [n, 1], with equal columns give their rows
// in turn. append_col: matrices, vectors as columns, with equal rows.
func (c *checker) appendShape(e *ast.CallExpr, f *stdlib.Func, args []Type) (Shape, bool) {
	a, b := args[0].Shape, args[1].Shape
	if f.Shape == stdlib.AppendRow && a.Rank() <= 1 && b.Rank() <= 1 {
		if a.Rank() == 0 && b.Rank() == 0 {
			c.errorf(e.Args[0].Pos(), "append_row of two scalars: write the vector [%s, %s]", exprString(e.Args[0]), exprString(e.Args[1]))
			return nil, false
		}
		length := func(s Shape) Dim {
			if s.Rank() == 0 {
				return one
			}
			return s[0]
		}
		return Shape{addDim(length(a), length(b))}, true
	}
	for i, s := range []Shape{a, b} {
		if s.Rank() == 0 {
			c.errorf(e.Args[i].Pos(), "append_row: `%s` is a scalar, which goes only with a vector; `%s` is %s",
				exprString(e.Args[i]), exprString(e.Args[1-i]), args[1-i].Shape.describe())
			return nil, false
		}
	}
	ra, ca := a.matrix()
	rb, cb := b.matrix()
	if f.Shape == stdlib.AppendRow {
		if compareDims(ca, cb) == dimDiffer {
			c.errorf(e.Args[1].Pos(), "append_row: `%s` (%s) has %s columns but `%s` (%s) has %s; stacked rows need equal columns",
				exprString(e.Args[1]), b, cb, exprString(e.Args[0]), a, ca)
			return nil, false
		}
		return Shape{addDim(ra, rb), moreInformative(ca, cb)}, true
	}
	if compareDims(ra, rb) == dimDiffer {
		c.errorf(e.Args[1].Pos(), "append_col: `%s` (%s) has %s rows but `%s` (%s) has %s; columns side by side need equal rows",
			exprString(e.Args[1]), b, rb, exprString(e.Args[0]), a, ra)
		return nil, false
	}
	return Shape{moreInformative(ra, rb), addDim(ca, cb)}, true
}

// addDim is the size a + b; mulDim the size a · b: a number when both are
// known, else the expression, known when the data load.
func addDim(a, b Dim) Dim { return opDim(a, b, "+", a.N+b.N) }
func mulDim(a, b Dim) Dim { return opDim(a, b, "*", a.N*b.N) }

func opDim(a, b Dim, op string, n int) Dim {
	if a.Known() && b.Known() {
		return knownDim(n)
	}
	text := func(d Dim) string {
		if d.Derived {
			return "(" + d.String() + ")"
		}
		return d.String()
	}
	return derivedDim(text(a) + " " + op + " " + text(b))
}
