package check_test

import (
	"testing"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/check"
)

// TestMatrixLitTypes checks the types of matrix literals: rows of one
// length give [n, m], int when every element is, with the support that
// holds every row's (a simplex only when every row is one).
func TestMatrixLitTypes(t *testing.T) {
	src := `data N: int
data x: real[N]
data q: simplex[2]
param a: real
param p: positive
param w: simplex[2]
let m1 = [[1, 2, 3], [4, 5, 6]]
let m2 = [[1, 0.8], [0.8, 1]]
let m3 = [[0, 1], [1, 0]]
let m4 = [[p, 0], [a * p, p]]
let m5 = [[p, 1], [2, p]]
let m6 = [x, x, x]
let m7 = [w, w]
let m8 = [w, q]
let m9 = [w, [0.5, 0.5]]
let m14 = [q, [0.5, 0.5]]
let m10 = [[a], [p]]
let m11 = [[p, 2], [3, 4]][1]
let m12 = [[p, 2], [3, 4]]'
let m13 = [[1, 2], [4, 5]][1, 0]
const K = [[1, 2], [4, 5]][1, 1]
`
	f, info := checkSource(t, "m.gpp", src, nil)
	for _, c := range []struct {
		expr, typ string
		support   dist.Support
		dataOnly  bool
	}{
		{"[[1, 2, 3], [4, 5, 6]]", "positive int[2, 3]", dist.Positive, true},
		{"[[1, 0.8], [0.8, 1]]", "positive real[2, 2]", dist.Positive, true},
		{"[[0, 1], [1, 0]]", "binary int[2, 2]", dist.Binary, true},
		{"[[p, 0], [a * p, p]]", "real[2, 2]", dist.Real, false},
		{"[[p, 1], [2, p]]", "positive real[2, 2]", dist.Positive, false},
		{"[x, x, x]", "real[3, N]", dist.Real, true},
		{"[w, w]", "simplex real[2, 2]", dist.Simplex, false},
		{"[w, q]", "simplex real[2, 2]", dist.Simplex, false},
		{"[w, [0.5, 0.5]]", "unit real[2, 2]", dist.Unit, false}, // a literal row is never a simplex; a simplex param's entries are in (0, 1)
		{"[q, [0.5, 0.5]]", "non-negative real[2, 2]", dist.NonNegative, true},
		{"[[a], [p]]", "real[2, 1]", dist.Real, false},
		{"[[p, 2], [3, 4]][1]", "positive real[2]", dist.Positive, false},
		{"[[p, 2], [3, 4]]'", "positive real[2, 2]", dist.Positive, false},
	} {
		got := info.Types[findExpr(t, f, src, c.expr)]
		if got.String() != c.typ || got.Support != c.support || got.DataOnly != c.dataOnly || got.Const != nil {
			t.Errorf("%s: %v (support %s, data-only %v, const %v), want %s (support %s, data-only %v, no const)",
				c.expr, got, got.Support, got.DataOnly, got.Const, c.typ, c.support, c.dataOnly)
		}
	}
	// A constant element picked by constant indices is a constant.
	if got := info.Types[findExpr(t, f, src, "[[1, 2], [4, 5]][1, 0]")]; got.Const == nil || *got.Const != 4 || got.Elem != check.Int {
		t.Errorf("[[1, 2], [4, 5]][1, 0]: %v (const %v), want the int constant 4", got, got.Const)
	}
	if k := info.Const("K"); k == nil || k.Value != 5 || k.Elem != check.Int {
		t.Errorf("const K = %+v, want the int 5", k)
	}
}
