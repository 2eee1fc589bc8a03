package check_test

import (
	"fmt"
	"testing"
)

// Real data whose missing cells are leaves (observed by one ~ of a built-in
// elementwise family, truncated by constants if at all, read by no output
// and by no expression but at constant indices) is LeftOut, its missing
// values still fittable (Missing) where a constant read hits one, with
// LeafReads those reads and Fill a value inside the families' supports; data
// whose cells something else reads or couples keeps them fitted.
func TestRealLeaves(t *testing.T) {
	const head = "data x: real[N]\ndata y: real[N]\ndata p: positive[N]\ndata u: unit[N]\nparam a: real ~ Normal(0, 1)\nparam s: positive ~ Gamma(2, 2)\n"
	for _, c := range []struct {
		name, body, data string
		leaf             bool
		reads            string  // LeafReads, %v
		fill             float64 // Fill of a leaf
	}{
		{"whole", "y ~ Normal(a + x, s)\n", "y", true, "[]", 0},
		{"in a loop", "for n in 0:N {\n  y[n] ~ StudentT(3, a * x[n], s)\n}\n", "y", true, "[]", 0},
		{"positive", "p ~ Gamma(2, s)\n", "p", true, "[]", 1},
		{"unit", "u ~ Beta(s, 2)\n", "u", true, "[]", 0.5},
		{"truncated by constants", "y ~ Normal(a, s) T[1, 3]\n", "y", true, "[]", 2},
		{"read at a constant index", "param m: real ~ Normal(y[0], 5)\ny ~ Normal(m, s)\n", "y", true, "[[0]]", 0},
		// not leaves, and why
		{"an autoregression reads y[n - 1]", "for n in 1:N {\n  y[n] ~ Normal(a * y[n - 1], s)\n}\n", "y", false, "", 0},
		{"a covariate read by another ~", "x ~ Normal(0, 1)\ny ~ Normal(a * x, s)\n", "x", false, "", 0},
		{"an output reads it", "y ~ Normal(a, s)\noutput z = y\n", "y", false, "", 0},
		{"two ~ observe it", "y ~ Normal(a, s)\ny ~ Normal(0, 10)\n", "y", false, "", 0},
		{"Pareto's support moves with its argument", "p ~ Pareto(0.1, s)\n", "p", false, "", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, info := checkSource(t, "m.gpp", head+c.body, nil)
			d := info.DataVar(c.data)
			if d.Missing == nil {
				t.Fatalf("%s: missing values not fittable: %s", c.data, d.NoMissing)
			}
			if d.LeftOut != c.leaf {
				t.Fatalf("%s: LeftOut %v, want %v", c.data, d.LeftOut, c.leaf)
			}
			if !c.leaf {
				return
			}
			if got := fmt.Sprint(d.LeafReads); got != c.reads && !(c.reads == "[]" && d.LeafReads == nil) {
				t.Errorf("LeafReads %s, want %s", got, c.reads)
			}
			if d.Fill != c.fill {
				t.Errorf("Fill %v, want %v", d.Fill, c.fill)
			}
		})
	}
}

// LeavesOut is per cell: a constant read of a missing cell (y[0] missing,
// read by the prior of m) keeps every missing cell fitted.
func TestLeavesOutConstantRead(t *testing.T) {
	_, info := checkSource(t, "m.gpp", "data y: real[N]\nparam s: positive ~ Gamma(2, 2)\nparam m: real ~ Normal(y[1], 5)\ny ~ Normal(m, s)\n", nil)
	d := info.DataVar("y")
	for _, c := range []struct {
		missing []int
		want    bool
	}{{[]int{0, 3}, true}, {[]int{1, 3}, false}, {[]int{3}, true}} {
		if got := d.LeavesOut([]int{4}, c.missing); got != c.want {
			t.Errorf("missing %v: LeavesOut %v, want %v", c.missing, got, c.want)
		}
		if got := d.Fitted([]int{4}, c.missing); got == c.want {
			t.Errorf("missing %v: Fitted %v, want %v", c.missing, got, !c.want)
		}
	}
}
