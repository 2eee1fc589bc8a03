package ast

import (
	"bytes"
	"testing"
)

func id(name string) *Ident { return &Ident{Name: name} }

func num(raw string, v float64) *NumberLit {
	return &NumberLit{Raw: raw, Value: v, IsInt: raw != "" && !bytes.ContainsAny([]byte(raw), ".eE")}
}

func bin(x Expr, op Op, y Expr) *BinaryExpr { return &BinaryExpr{X: x, Op: op, Y: y} }
func neg(x Expr) *UnaryExpr                 { return &UnaryExpr{Op: Neg, X: x} }
func call(f string, args ...Expr) *CallExpr { return &CallExpr{Fun: id(f), Args: args} }

func TestFormatExpr(t *testing.T) {
	a, b, c := id("a"), id("b"), id("c")
	for _, tc := range []struct {
		x    Expr
		want string
	}{
		{a, "a"},
		{num("1e-3", 1e-3), "1e-3"},
		{num("", 0.25), "0.25"}, // no source text: the value
		{bin(a, Add, bin(b, Mul, c)), "a + b * c"},
		{bin(bin(a, Sub, b), Sub, c), "a - b - c"},
		{bin(a, Pow, bin(b, Pow, c)), "a ^ b ^ c"},
		{bin(a, Mul, neg(b)), "a * -b"},
		{bin(neg(a), Mul, b), "-a * b"},
		{neg(bin(a, Pow, b)), "-a ^ b"},
		{bin(a, Pow, neg(b)), "a ^ -b"},
		{&ParenExpr{X: bin(a, Add, b)}, "(a + b)"},
		{&ParenExpr{X: &ParenExpr{X: a}}, "((a))"},
		{&TransposeExpr{X: &IndexExpr{X: id("W"), Indices: []Expr{id("i")}}}, "W[i]'"},
		{&IndexExpr{X: &TransposeExpr{X: id("x")}, Indices: []Expr{num("0", 0)}}, "x'[0]"},
		{&IndexExpr{X: id("A"), Indices: []Expr{&SliceExpr{}, num("0", 0)}}, "A[:, 0]"},
		{&IndexExpr{X: id("x"), Indices: []Expr{&SliceExpr{Lo: num("1", 1), Hi: id("n")}}}, "x[1:n]"},
		{&IndexExpr{X: id("x"), Indices: []Expr{&SliceExpr{Hi: id("n")}, &SliceExpr{Lo: num("2", 2)}}}, "x[:n, 2:]"},
		{call("f"), "f()"},
		{call("f", a, call("g", b, c)), "f(a, g(b, c))"},
		{&VectorLit{Elems: []Expr{num("1", 1)}}, "[1]"},
		{&VectorLit{Elems: []Expr{a, bin(b, Add, c), neg(num("2.5", 2.5))}}, "[a, b + c, -2.5]"},
		{&IndexExpr{X: &VectorLit{Elems: []Expr{a, b}}, Indices: []Expr{num("0", 0)}}, "[a, b][0]"},
		{&TransposeExpr{X: &VectorLit{Elems: []Expr{a, b}}}, "[a, b]'"},
		{neg(&VectorLit{Elems: []Expr{a}}), "-[a]"},
		{&VectorLit{Elems: []Expr{&VectorLit{Elems: []Expr{a, num("0", 0)}}, &VectorLit{Elems: []Expr{bin(b, Mul, a), c}}}}, "[[a, 0], [b * a, c]]"},
		{&TransposeExpr{X: &VectorLit{Elems: []Expr{id("x"), &VectorLit{Elems: []Expr{a, b}}}}}, "[x, [a, b]]'"},

		// Hand-built trees that the precedence rules cannot express
		// get the parentheses they need.
		{bin(bin(a, Add, b), Mul, c), "(a + b) * c"},
		{bin(a, Sub, bin(b, Sub, c)), "a - (b - c)"},
		{bin(a, Div, bin(b, Mul, c)), "a / (b * c)"},
		{bin(a, Mod, bin(b, IntDiv, c)), "a % (b %/% c)"},
		{bin(bin(a, Mul, b), Mod, c), "a * b % c"},
		{bin(bin(a, Add, b), IntDiv, neg(c)), "(a + b) %/% -c"},
		{bin(bin(a, Pow, b), Pow, c), "(a ^ b) ^ c"},
		{bin(neg(a), Pow, b), "(-a) ^ b"},
		{neg(bin(a, Add, b)), "-(a + b)"},
		{neg(neg(a)), "--a"},
		{&TransposeExpr{X: bin(a, Mul, b)}, "(a * b)'"},
		{&TransposeExpr{X: neg(a)}, "(-a)'"},
		{&IndexExpr{X: bin(a, Add, b), Indices: []Expr{num("0", 0)}}, "(a + b)[0]"},

		// Comparisons and logical operators: || < && < comparisons < +;
		// comparisons do not chain, so either side that is one is grouped.
		{bin(bin(a, Add, b), Lt, c), "a + b < c"},
		{bin(bin(a, Lt, b), And, bin(b, Ge, c)), "a < b && b >= c"},
		{bin(bin(a, And, b), Or, c), "a && b || c"},
		{bin(a, And, bin(b, Or, c)), "a && (b || c)"},
		{bin(bin(a, Lt, b), Lt, c), "(a < b) < c"},
		{bin(a, Eq, bin(b, Ne, c)), "a == (b != c)"},
		{bin(bin(a, Lt, b), Add, c), "(a < b) + c"},
		{&UnaryExpr{Op: Not, X: bin(a, Eq, b)}, "!(a == b)"},
		{bin(&UnaryExpr{Op: Not, X: a}, Or, neg(b)), "!a || -b"},
		{&UnaryExpr{Op: Not, X: &UnaryExpr{Op: Not, X: a}}, "!!a"},
	} {
		if got := FormatExpr(tc.x); got != tc.want {
			t.Errorf("FormatExpr(%s) = %q, want %q", Dump(tc.x), got, tc.want)
		}
	}
}

func TestFormatStmt(t *testing.T) {
	typ := &TypeExpr{Kind: Int, Lower: num("0", 0), Upper: id("K"), Dims: []Expr{id("N"), num("2", 2)}}
	loop := &ForStmt{Var: id("i"), Lo: num("0", 0), Hi: id("N"), Body: []Stmt{
		&TargetStmt{Op: Sub, Value: id("x")},
		&ForStmt{Var: id("j"), Lo: id("i"), Hi: id("N"), Body: []Stmt{
			&TildeStmt{LHS: &IndexExpr{X: id("y"), Indices: []Expr{id("i"), id("j")}}, Dist: call("Normal", num("0", 0), num("1", 1))},
		}},
	}}
	for _, tc := range []struct {
		s    Stmt
		want string
	}{
		{&DataDecl{Name: id("x"), Type: typ}, "data x: int<lower=0, upper=K>[N, 2]"},
		{&DataDecl{Name: id("p"), Type: &TypeExpr{Kind: Real, Upper: num("1", 1)}}, "data p: real<upper=1>"},
		{&ConstDecl{Name: id("K"), Value: num("10", 10)}, "const K = 10"},
		{&ConstDecl{Name: id("s"), Type: &TypeExpr{Kind: Real}, Value: num("0.5", 0.5)}, "const s: real = 0.5"},
		{&ParamDecl{Name: id("t"), Type: &TypeExpr{Kind: Simplex, Dims: []Expr{id("K")}}}, "param t: simplex[K]"},
		{&ParamDecl{Name: id("u"), Type: &TypeExpr{Kind: Unit}, Prior: call("Beta", num("1", 1), num("1", 1))}, "param u: unit ~ Beta(1, 1)"},
		{&ParamDecl{Name: id("g"), Type: &TypeExpr{Kind: Positive}}, "param g: positive"},
		{&LetStmt{Name: id("s"), Value: call("colsum", id("W"))}, "let s = colsum(W)"},
		{&TargetStmt{Op: Add, Value: id("x")}, "target += x"},
		{&OutputStmt{Name: id("theta")}, "output theta"},
		{&OutputStmt{Name: id("c"), Value: bin(id("W"), Mul, &TransposeExpr{X: id("W")})}, "output c = W * W'"},
		{loop, "for i in 0:N {\n    target -= x\n    for j in i:N {\n        y[i, j] ~ Normal(0, 1)\n    }\n}"},
		{&ForStmt{Var: id("i"), Lo: num("0", 0), Hi: id("N")}, "for i in 0:N {\n}"},
		{&IfStmt{Branches: []*IfBranch{{Cond: bin(id("y"), Eq, num("0", 0)), Body: &Block{Stmts: []Stmt{&TargetStmt{Op: Add, Value: id("a")}}}}}},
			"if y == 0 {\n    target += a\n}"},
		{&IfStmt{
			Branches: []*IfBranch{
				{Cond: id("a"), Body: &Block{}},
				{Cond: id("b"), Body: &Block{Stmts: []Stmt{loop}}},
			},
			ElseBody: &Block{Stmts: []Stmt{&TargetStmt{Op: Sub, Value: id("x")}}},
		}, "if a {\n} else if b {\n    for i in 0:N {\n        target -= x\n        for j in i:N {\n            y[i, j] ~ Normal(0, 1)\n        }\n    }\n} else {\n    target -= x\n}"},
	} {
		if got := FormatStmt(tc.s); got != tc.want {
			t.Errorf("FormatStmt(%s) =\n%s\nwant\n%s", Dump(tc.s), got, tc.want)
		}
	}
	if got, want := FormatType(typ), "int<lower=0, upper=K>[N, 2]"; got != want {
		t.Errorf("FormatType = %q, want %q", got, want)
	}
}

func TestFprint(t *testing.T) {
	f := &File{Name: "m.gpp", Stmts: []Stmt{
		&DataDecl{Name: id("y"), Type: &TypeExpr{Kind: Real, Dims: []Expr{id("N")}}},
		&ParamDecl{Name: id("mu"), Type: &TypeExpr{Kind: Real}, Prior: call("Normal", num("0", 0), num("5", 5))},
		&ForStmt{Var: id("i"), Lo: num("0", 0), Hi: id("N"), Body: []Stmt{
			&TildeStmt{LHS: &IndexExpr{X: id("y"), Indices: []Expr{id("i")}}, Dist: call("Normal", id("mu"), num("1", 1))},
		}},
	}}
	var b bytes.Buffer
	if err := Fprint(&b, f); err != nil {
		t.Fatal(err)
	}
	want := "data y: real[N]\nparam mu: real ~ Normal(0, 5)\nfor i in 0:N {\n    y[i] ~ Normal(mu, 1)\n}\n"
	if b.String() != want {
		t.Errorf("Fprint:\n%s\nwant\n%s", b.String(), want)
	}
	if err := Fprint(&b, &File{}); err != nil {
		t.Errorf("Fprint of an empty file: %v", err)
	}
}
