package check_test

import (
	"reflect"
	"testing"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
)

// TestRowBranch: a datum read only as t[i] in the branches of one if on
// data rows, in a loop over i, gets the branches' conditions and which
// branches read it (the else's last); a read of another form, or in two
// ifs, or a condition that is no data row against a number, gets none.
func TestRowBranch(t *testing.T) {
	const head = "data t: positive[N]\ndata c: int<lower=0, upper=2>[N]\ndata x: real[N]\nparam k: positive ~ Gamma(2, 1)\n"
	const lcdf = "target += logcdf(t[i], Weibull(k, 1))"
	for _, c := range []struct {
		name, body string
		want       *check.RowBranch
	}{
		{"if", "for i in 0:N {\n  if c[i] == 1 {\n    " + lcdf + "\n  }\n}\n",
			&check.RowBranch{Conds: []check.RowCond{{Data: "c", Op: ast.Eq, K: 1}}, Reads: []bool{true, false}}},
		{"else", "for i in 0:N {\n  if c[i] == 0 {\n    x[i] ~ Normal(0, k)\n  } else {\n    " + lcdf + "\n  }\n}\n",
			&check.RowBranch{Conds: []check.RowCond{{Data: "c", Op: ast.Eq, K: 0}}, Reads: []bool{false, true}}},
		{"flipped, else if", "for i in 0:N {\n  if 1 < c[i] {\n    x[i] ~ Normal(0, k)\n  } else if x[i] >= 0.5 {\n    " + lcdf + "\n  }\n}\n",
			&check.RowBranch{Conds: []check.RowCond{{Data: "c", Op: ast.Lt, K: 1, Flip: true}, {Data: "x", Op: ast.Ge, K: 0.5}}, Reads: []bool{false, true, false}}},
		{"read outside too", "for i in 0:N {\n  if c[i] == 1 {\n    " + lcdf + "\n  }\n}\noutput m = mean(t)\n", nil},
		{"another row", "for i in 1:N {\n  if c[i] == 1 {\n    target += logcdf(t[i - 1], Weibull(k, 1))\n  }\n}\n", nil},
		{"two ifs", "for i in 0:N {\n  if c[i] == 1 {\n    " + lcdf + "\n  }\n  if c[i] == 2 {\n    " + lcdf + "\n  }\n}\n", nil},
		{"computed condition", "for i in 0:N {\n  if c[i] + 1 == 2 {\n    " + lcdf + "\n  }\n}\n", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, info := checkSource(t, "m.gpp", head+c.body, nil)
			if got := info.DataVar("t").RowBranch; !reflect.DeepEqual(got, c.want) {
				t.Errorf("RowBranch %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestRowCondHolds: each comparison, either way round.
func TestRowCondHolds(t *testing.T) {
	for _, c := range []struct {
		cond check.RowCond
		v    float64
		want bool
	}{
		{check.RowCond{Op: ast.Eq, K: 1}, 1, true}, {check.RowCond{Op: ast.Ne, K: 1}, 1, false},
		{check.RowCond{Op: ast.Lt, K: 1}, 0, true}, {check.RowCond{Op: ast.Lt, K: 1, Flip: true}, 0, false},
		{check.RowCond{Op: ast.Le, K: 1}, 1, true}, {check.RowCond{Op: ast.Gt, K: 1}, 1, false},
		{check.RowCond{Op: ast.Ge, K: 1, Flip: true}, 2, false}, {check.RowCond{Op: ast.Gt, K: 1, Flip: true}, 0, true},
	} {
		if got := c.cond.Holds(c.v); got != c.want {
			t.Errorf("%+v at %g: %v, want %v", c.cond, c.v, got, c.want)
		}
	}
}
