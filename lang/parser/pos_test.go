package parser

import (
	"testing"

	"github.com/gpplang/gpp/lang/ast"
)

func TestPositions(t *testing.T) {
	const src = "data Y: real<lower=0>[N, D]  # comment\n" + // line 1
		"param W: positive[D, K] ~ Gamma(0.1, 1)\n" + // line 2
		"let s = -x[1:, ]' + f(a)\n" + // line 3
		"for i in 0:N {\n" + // line 4
		"    target -= (s ^ 2)\n" + // line 5
		"}\n" + // line 6
		"output s\n" // line 7
	f, err := ParseFile("p.gpp", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	pos := func(line, col int) ast.Pos { return ast.Pos{File: "p.gpp", Line: line, Col: col} }

	data := f.Stmts[0].(*ast.DataDecl)
	param := f.Stmts[1].(*ast.ParamDecl)
	let := f.Stmts[2].(*ast.LetStmt)
	sum := let.Value.(*ast.BinaryExpr)
	neg := sum.X.(*ast.UnaryExpr)
	tr := neg.X.(*ast.TransposeExpr)
	ix := tr.X.(*ast.IndexExpr)
	slice := ix.Indices[0].(*ast.SliceExpr)
	empty := ix.Indices[1].(*ast.SliceExpr)
	loop := f.Stmts[3].(*ast.ForStmt)
	target := loop.Body[0].(*ast.TargetStmt)
	paren := target.Value.(*ast.ParenExpr)
	out := f.Stmts[4].(*ast.OutputStmt)

	for _, tc := range []struct {
		what     string
		n        ast.Node
		pos, end ast.Pos
	}{
		{"file", f, pos(1, 1), pos(7, 9)},
		{"data decl", data, pos(1, 1), pos(1, 28)},
		{"data name", data.Name, pos(1, 6), pos(1, 7)},
		{"type", data.Type, pos(1, 9), pos(1, 28)},
		{"lower bound", data.Type.Lower, pos(1, 20), pos(1, 21)},
		{"second dim", data.Type.Dims[1], pos(1, 26), pos(1, 27)},
		{"param decl", param, pos(2, 1), pos(2, 40)},
		{"prior", param.Prior, pos(2, 27), pos(2, 40)},
		{"prior arg", param.Prior.Args[0], pos(2, 33), pos(2, 36)},
		{"let", let, pos(3, 1), pos(3, 25)},
		{"sum", sum, pos(3, 9), pos(3, 25)},
		{"negation", neg, pos(3, 9), pos(3, 18)},
		{"transpose", tr, pos(3, 10), pos(3, 18)},
		{"index", ix, pos(3, 10), pos(3, 17)},
		{"slice 1:", slice, pos(3, 12), pos(3, 14)},
		{"empty index", empty, pos(3, 16), pos(3, 17)},
		{"call", sum.Y, pos(3, 21), pos(3, 25)},
		{"for", loop, pos(4, 1), pos(6, 2)},
		{"loop var", loop.Var, pos(4, 5), pos(4, 6)},
		{"target", target, pos(5, 5), pos(5, 22)},
		{"paren", paren, pos(5, 15), pos(5, 22)},
		{"power", paren.X, pos(5, 16), pos(5, 21)},
		{"output", out, pos(7, 1), pos(7, 9)},
	} {
		if tc.n.Pos() != tc.pos || tc.n.End() != tc.end {
			t.Errorf("%s %s: span %v-%v, want %v-%v", tc.what, ast.Dump(tc.n), tc.n.Pos(), tc.n.End(), tc.pos, tc.end)
		}
	}
	for _, tc := range []struct {
		what      string
		got, want ast.Pos
	}{
		{"sum operator", sum.OpPos, pos(3, 19)},
		{"negation operator", neg.OpPos, pos(3, 9)},
		{"quote", tr.Quote, pos(3, 17)},
		{"lbrack", ix.Lbrack, pos(3, 11)},
		{"colon", slice.Colon, pos(3, 13)},
		{"prior lparen", param.Prior.Lparen, pos(2, 32)},
		{"target op", target.OpPos, pos(5, 12)},
		{"lbrace", loop.Lbrace, pos(4, 14)},
		{"rbrace", loop.Rbrace, pos(6, 1)},
		{"paren", paren.Rparen, pos(5, 21)},
	} {
		if tc.got != tc.want {
			t.Errorf("%s at %v, want %v", tc.what, tc.got, tc.want)
		}
	}
	checkSpans(t, "p.gpp", []byte(src), f)
}

// TestBinaryStart checks that the parser records each binary node's start,
// which keeps Pos constant-time on long operator chains (a left-deep chain of
// 100 000 "+" made gpp check take 97 s when every Pos walked the spine).
func TestBinaryStart(t *testing.T) {
	const src = "let a = (x + y * z) - w ^ v ^ u / f(b) .* c[1] + d'\n"
	f, err := ParseFile("b.gpp", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	ast.Inspect(f, func(node ast.Node) bool {
		if b, ok := node.(*ast.BinaryExpr); ok {
			n++
			if !b.Start.IsValid() || b.Start != b.X.Pos() {
				t.Errorf("%s: Start %v, X at %v", ast.FormatExpr(b), b.Start, b.X.Pos())
			}
		}
		return true
	})
	if n != 8 {
		t.Errorf("found %d binary expressions, want 8", n)
	}
}

// TestIntOpPositions checks the spans and operator positions of Stan's int
// operators, % and the three-character %/%.
func TestIntOpPositions(t *testing.T) {
	const src = "let w = (t + 3) %/% 7 % n\n"
	f, err := ParseFile("i.gpp", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	pos := func(col int) ast.Pos { return ast.Pos{File: "i.gpp", Line: 1, Col: col} }
	mod := f.Stmts[0].(*ast.LetStmt).Value.(*ast.BinaryExpr)
	div := mod.X.(*ast.BinaryExpr)
	for _, tc := range []struct {
		what      string
		got, want ast.Pos
	}{
		{"% start", mod.Pos(), pos(9)}, {"% operator", mod.OpPos, pos(23)}, {"% end", mod.End(), pos(26)},
		{"%/% start", div.Pos(), pos(9)}, {"%/% operator", div.OpPos, pos(17)}, {"%/% end", div.End(), pos(22)},
		{"divisor", div.Y.Pos(), pos(21)},
	} {
		if tc.got != tc.want {
			t.Errorf("%s at %v, want %v", tc.what, tc.got, tc.want)
		}
	}
	if mod.Op != ast.Mod || div.Op != ast.IntDiv {
		t.Errorf("operators %s and %s, want %% and %%/%%", mod.Op, div.Op)
	}
	checkSpans(t, "i.gpp", []byte(src), f)
}
