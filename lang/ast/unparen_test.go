package ast

import "testing"

// TestUnparen: nested parentheses are stripped down to the expression
// inside, and an expression without them is returned as it is.
func TestUnparen(t *testing.T) {
	x := &Ident{Name: "x"}
	if got := Unparen(&ParenExpr{X: &ParenExpr{X: x}}); got != x {
		t.Errorf("Unparen(((x))) = %v, want x", got)
	}
	if got := Unparen(x); got != x {
		t.Errorf("Unparen(x) = %v, want x", got)
	}
}
