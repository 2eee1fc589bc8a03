package ast

import "testing"

func TestDump(t *testing.T) {
	a, b, c := id("a"), id("b"), id("c")
	for _, tc := range []struct {
		n    Node
		want string
	}{
		{bin(a, Add, bin(b, Mul, c)), "(binary + (ident a) (binary * (ident b) (ident c)))"},
		{neg(&ParenExpr{X: num("2.5", 2.5)}), "(unary - (paren (real 2.5)))"},
		{&TransposeExpr{X: num("3", 3)}, "(transpose (int 3))"},
		{call("f", a, b), "(call f (ident a) (ident b))"},
		{call("g"), "(call g)"},
		{&VectorLit{Elems: []Expr{a, num("2", 2)}}, "(vector (ident a) (int 2))"},
		{&IndexExpr{X: a, Indices: []Expr{&SliceExpr{}, &SliceExpr{Lo: b}, &SliceExpr{Hi: c}}},
			"(index (ident a) (slice _ _) (slice (ident b) _) (slice _ (ident c)))"},
		{&TypeExpr{Kind: Int, Lower: num("0", 0), Dims: []Expr{id("N")}}, "(type int (lower (int 0)) (dims (ident N)))"},
		{&TypeExpr{Kind: Unit, Upper: num("1", 1)}, "(type unit (upper (int 1)))"},
		{&DataDecl{Name: id("x"), Type: &TypeExpr{Kind: Real}}, "(data x (type real))"},
		{&ConstDecl{Name: id("K"), Value: num("3", 3)}, "(const K (int 3))"},
		{&ConstDecl{Name: id("K"), Type: &TypeExpr{Kind: Int}, Value: num("3", 3)}, "(const K (type int) (int 3))"},
		{&ParamDecl{Name: id("p"), Type: &TypeExpr{Kind: Positive}}, "(param p (type positive))"},
		{&ParamDecl{Name: id("p"), Type: &TypeExpr{Kind: Positive}, Prior: call("Gamma", a, b)},
			"(param p (type positive) (call Gamma (ident a) (ident b)))"},
		{&TildeStmt{LHS: a, Dist: call("Normal", b, c)}, "(tilde (ident a) (call Normal (ident b) (ident c)))"},
		{&LetStmt{Name: id("s"), Value: a}, "(let s (ident a))"},
		{&TargetStmt{Op: Sub, Value: a}, "(target -= (ident a))"},
		{&ForStmt{Var: id("i"), Lo: num("0", 0), Hi: id("N"), Body: []Stmt{&LetStmt{Name: id("s"), Value: a}}},
			"(for i (int 0) (ident N) (let s (ident a)))"},
		{&OutputStmt{Name: id("o")}, "(output o)"},
		{&OutputStmt{Name: id("o"), Value: a}, "(output o (ident a))"},
		{&FnDecl{Name: id("f"), Params: []*Ident{id("a"), id("b")}, Body: bin(a, Add, b)}, "(fn f (a b) (binary + (ident a) (ident b)))"},
		{&FnDecl{Name: id("g"), Lets: []*LetStmt{{Name: id("u"), Value: a}}, Body: id("u")}, "(fn g () (let u (ident a)) (ident u))"},
		{&File{}, "(file)"},
		{&File{Stmts: []Stmt{&OutputStmt{Name: id("o")}, &OutputStmt{Name: id("p")}}}, "(file\n  (output o)\n  (output p))"},
	} {
		if got := Dump(tc.n); got != tc.want {
			t.Errorf("Dump = %s, want %s", got, tc.want)
		}
	}
}

// TestCloneExpr: a clone dumps as the original, keeps its positions, and
// shares no node with it.
func TestCloneExpr(t *testing.T) {
	a := &Ident{NamePos: Pos{File: "m", Line: 2, Col: 5}, Name: "a"}
	e := bin(neg(&ParenExpr{X: call("f", a, &VectorLit{Elems: []Expr{num("2", 2)}})}), Mul,
		&IndexExpr{X: &TransposeExpr{X: id("x")}, Indices: []Expr{&SliceExpr{Lo: id("b")}, id("c")}})
	c := CloneExpr(e)
	if Dump(c) != Dump(e) {
		t.Fatalf("clone %s of %s", Dump(c), Dump(e))
	}
	seen := map[Node]bool{}
	Inspect(e, func(n Node) bool { seen[n] = true; return true })
	Inspect(c, func(n Node) bool {
		if seen[n] {
			t.Errorf("clone shares %s", Dump(n))
		}
		if id, ok := n.(*Ident); ok && id.Name == "a" && id.NamePos != a.NamePos {
			t.Errorf("clone of a at %v, want %v", id.NamePos, a.NamePos)
		}
		return true
	})
	if CloneExpr(nil) != nil {
		t.Error("CloneExpr(nil) is not nil")
	}
}
