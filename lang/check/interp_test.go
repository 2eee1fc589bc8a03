package check_test

import (
	"testing"

	"github.com/gpplang/gpp/dist"
)

// interp's errors, each at what it blames: fp's length against xp's, a
// literal xp that does not increase (at its element), a param xp, and a
// real table's values as a scale.
func TestInterpErrors(t *testing.T) {
	const head = "data xp: real[G]\ndata fp: real[G]\ndata y: real[N]\nparam t: real[N]\nparam k: real[3]\n"
	for _, c := range []struct{ src, want string }{
		{"output o = interp(t, xp, fp[1:G])\n", "m.gpp:6:26: interp: `fp[1:G]` has G - 1 elements but `xp` has G: fp holds the table's value at each point of xp"},
		{"output o = interp(t, [0, 2, 2], [1, 2, 3])\n", "m.gpp:6:29: interp: xp's element [2] is 2, not greater than the one before it, 2: the points of interp's xp must be strictly increasing"},
		{"output o = interp(t, [0.0], [1.0, 2.0])\n", "m.gpp:6:29: interp: `[1.0, 2.0]` has 2 elements but `[0.0]` has 1: fp holds the table's value at each point of xp"},
		{"output o = interp(t, k, [1, 2, 3])\n", "m.gpp:6:22: interp needs argument 2 (xp) known before the fit (data, constants and lets of them); `k` is the param `k`: the table's grid is fixed, and checked to increase, when the model compiles"},
		{"y ~ Normal(t, interp(t, xp, fp))\n", "m.gpp:6:15: Normal expects a positive argument 2 (sigma); `interp(t, xp, fp)` is real because `fp` is real (data declared at m.gpp:2:6; if its values are positive, declare it `data fp: positive[G]`, checked when it loads)"},
	} {
		wantOneError(t, head+c.src, c.want)
	}
}

// interp's type: x's shape, the support of an average of fp's values,
// data-only when x and fp are.
func TestInterpType(t *testing.T) {
	src := "data N: int\ndata M: int\ndata xp: real[G]\ndata fp: positive[G]\ndata u: unit[G]\ndata x: real[M, 2]\nparam t: real[N]\nparam f: real[G]\n" +
		"let a1 = interp(t, xp, fp)\nlet a2 = interp(x, xp, u)\nlet a3 = interp(t[0], xp, f)\nlet a4 = interp(x, xp, exp(f))\n"
	f, info := checkSource(t, "m.gpp", src, nil)
	for _, c := range []struct {
		expr, shape string
		sup         dist.Support
		data        bool
	}{
		{"interp(t, xp, fp)", "[N]", dist.Positive, false},
		{"interp(x, xp, u)", "[M, 2]", dist.Unit, true},
		{"interp(t[0], xp, f)", "scalar", dist.Real, false},
		{"interp(x, xp, exp(f))", "[M, 2]", dist.Positive, false},
	} {
		tp := info.Types[findExpr(t, f, src, c.expr)]
		if got := tp.Shape.String(); got != c.shape || tp.DataOnly != c.data || tp.Support != c.sup {
			t.Errorf("%s: shape %s, support %v, data-only %v; want %s, %v, %v", c.expr, got, tp.Support, tp.DataOnly, c.shape, c.sup, c.data)
		}
	}
}
