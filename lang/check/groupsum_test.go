package check_test

import (
	"testing"

	"github.com/gpplang/gpp/dist"
)

// TestGroupSumTypes: group_sum(x, g, K) is [K] of a vector and [K, m] of
// a matrix [N, m]; int of ints; a sum's sign, but positive values give
// non-negative sums (a group with no element sums to 0); data-only when x
// is.
func TestGroupSumTypes(t *testing.T) {
	src := `data N: int
data S: int
data g: int<lower=0, upper=S-1>[N]
data x: real[N]
data n: int<lower=0>[N]
data X: real[N, 3]
param p: positive[N]
param a: real[N]
let l1 = group_sum(x, g, S)
let l2 = group_sum(n, g, S)
let l3 = group_sum(p, g, S)
let l4 = group_sum(X, g, S)
let l5 = group_sum(a .* x, g, 4)
let l6 = group_sum(n .* p, g, S) / group_sum(n, g, S)
`
	f, info := checkSource(t, "m.gpp", src, nil)
	for _, c := range []struct {
		expr, typ string
		support   dist.Support
		dataOnly  bool
	}{
		{"group_sum(x, g, S)", "real[S]", dist.Real, true},
		{"group_sum(n, g, S)", "count int[S]", dist.Count, true},
		{"group_sum(p, g, S)", "non-negative real[S]", dist.NonNegative, false},
		{"group_sum(X, g, S)", "real[S, 3]", dist.Real, true},
		{"group_sum(a .* x, g, 4)", "real[4]", dist.Real, false},
		{"group_sum(n .* p, g, S)", "non-negative real[S]", dist.NonNegative, false},
	} {
		got := info.Types[findExpr(t, f, src, c.expr)]
		if got.String() != c.typ || got.Support != c.support || got.DataOnly != c.dataOnly {
			t.Errorf("%s: %v (support %s, data-only %v), want %s (support %s, data-only %v)",
				c.expr, got, got.Support, got.DataOnly, c.typ, c.support, c.dataOnly)
		}
	}
}
