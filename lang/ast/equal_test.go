package ast_test

import (
	"testing"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/parser"
)

// TestEqualExpr: trees that differ only in positions, spaces and
// parentheses are equal; any other difference (a name, an operator, a
// number, an argument, an index, a slice's end) is not.
func TestEqualExpr(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"1 - sp1", "(1-sp1)", true},
		{"((x))[i, 0:n]'", "x[i,0:n]'", true},
		{"f(a, [1, 2]) * -b", "(f(a,[1,2]))*(-b)", true},
		{"1 - sp1", "1 - sp2", false},
		{"1 - sp1", "1 + sp1", false},
		{"1 - sp1", "1.5 - sp1", false},
		{"1 - sp1", "1.0 - sp1", false}, // an int and a real literal
		{"a - b - c", "a - (b - c)", false},
		{"f(a)", "g(a)", false},
		{"f(a)", "f(a, b)", false},
		{"x[i]", "x[j]", false},
		{"x[0:n]", "x[0:m]", false},
		{"x[:n]", "x[0:n]", false},
		{"x'", "x", false},
		{"-x", "!x", false},
		{"[1, 2]", "[1, 3]", false},
	} {
		a, err := parser.ParseExpr(c.a)
		if err != nil {
			t.Fatal(err)
		}
		b, err := parser.ParseExpr(c.b)
		if err != nil {
			t.Fatal(err)
		}
		if got := ast.EqualExpr(a, b); got != c.want {
			t.Errorf("EqualExpr(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
		if got := ast.EqualExpr(b, a); got != c.want {
			t.Errorf("EqualExpr(%s, %s) = %v, want %v", c.b, c.a, got, c.want)
		}
	}
}
