package check_test

import (
	"strings"
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

// TestGroupSumBoundWarning: group_sum's codes declared with the upper
// bound of another size than its count (a census's cell counts grouped by
// cage, upper=A-1, into S states) are warned of at the codes, naming the
// column of that length bounded by the count; codes bounded by K − 1, or
// by K − 1 plus a constant (1-based codes: the compile-time check's), are
// not.
func TestGroupSumBoundWarning(t *testing.T) {
	decls := `data S: int
data A: int
data cstate: int<lower=0, upper=S-1>[M]
data cage: int<lower=0, upper=A-1>[M]
data one: int<lower=1, upper=S>[M]
data count: real[M]
`
	for _, c := range []struct{ out, want string }{
		{"output t = group_sum(count, cage, S)",
			"m.gpp:7:29 group_sum(count, cage, S): `cage` is declared with upper=A - 1 (m.gpp:4:6), so its codes count A groups, but group_sum counts S: where A < S, groups A to S - 1 are empty (sums of 0), and where A > S, a code past S - 1 is an error; group by `cstate` (upper=S - 1), or pass A as the count (even where the data make the two equal, each names its own groups)"},
		{"output t = group_sum(count, cstate, 3)",
			"m.gpp:7:29 group_sum(count, cstate, 3): `cstate` is declared with upper=S - 1 (m.gpp:3:6), so its codes count S groups, but group_sum counts 3: where S < 3, groups S to 2 are empty (sums of 0), and where S > 3, a code past 2 is an error; pass S as the count (even where the data make the two equal, each names its own groups)"},
		{"output t = group_sum(count, cstate, S)\noutput u = group_sum(count, cage, A)\noutput v = group_sum(count, one, S + 1) + group_sum(count, one, S)", ""},
	} {
		_, info := checkSource(t, "m.gpp", decls+c.out+"\n", nil)
		var got []string
		for _, w := range warningLines(info) {
			if strings.Contains(w, "group_sum(") {
				got = append(got, w)
			}
		}
		if strings.Join(got, "\n") != c.want {
			t.Errorf("%s: warnings\n%s\nwant\n%s", c.out, strings.Join(got, "\n"), c.want)
		}
	}
}
