package check_test

import (
	"testing"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/check"
)

// TestIntOpTypes checks Stan's int % and %/%: ints of the operands'
// broadcast shape, counts where the sign is known to be non-negative,
// folded in constants with Stan's signs (truncation toward 0), usable as
// a size.
func TestIntOpTypes(t *testing.T) {
	src := `data N: int<lower=0>
data t: int[N]
data g: int<lower=0>[N]
param s: positive ~ HalfNormal(1)
param season: real[7] ~ Normal(0, s)
const a = -7 % 3
const b = -7 %/% 3
const c = 7 % -3
const d = 7 %/% -3
const e = 2 * 7 % 4 %/% 2
param w: real[N %/% 7 + 1] ~ Normal(0, 1)
let m1 = t % 7
let m2 = g % 7
let m3 = g %/% -7
let m4 = N %/% 7
output o = season[g % 7] + m1 + m2 + m3 + m4 + w[0]
`
	f, info := checkSource(t, "m.gpp", src, nil)
	for _, c := range []struct {
		expr, typ string
		support   dist.Support
	}{
		{"t % 7", "int[N]", dist.Real},
		{"g % 7", "count int[N]", dist.Count},
		{"g %/% -7", "int[N]", dist.Real},
		{"N %/% 7", "count int", dist.Count},
	} {
		got := info.Types[findExpr(t, f, src, c.expr)]
		if got.String() != c.typ || got.Support != c.support || !got.DataOnly || got.Const != nil {
			t.Errorf("%s: %v (support %s, data-only %v, const %v), want %s (support %s, data-only, no const)",
				c.expr, got, got.Support, got.DataOnly, got.Const, c.typ, c.support)
		}
	}
	for name, want := range map[string]float64{"a": -1, "b": -2, "c": 1, "d": -2, "e": 1} {
		if k := info.Const(name); k == nil || k.Value != want || k.Elem != check.Int {
			t.Errorf("const %s = %+v, want the int %g", name, k, want)
		}
	}
	if w := info.Latent("w"); w == nil || w.Dims.String() != "[N %/% 7 + 1]" {
		t.Errorf("w's dims: %+v, want [N %%/%% 7 + 1]", w)
	}
}

// TestIntOpErrors checks the errors of % and %/% the checker finds: a real
// operand (naming fmod and trunc(a / b), the real forms), an operand that
// depends on a param, a constant zero divisor.
func TestIntOpErrors(t *testing.T) {
	const head = "data n: int\ndata x: real\ndata k: int[3]\nparam mu: real ~ Normal(0, 1)\n"
	for _, c := range []struct{ src, want string }{
		{"output o = n % x", "m.gpp:5:16: % is the remainder of ints, and `x` is real: the remainder of reals is fmod(n, x)"},
		{"output o = 2.5 % n", "m.gpp:5:12: % is the remainder of ints, and `2.5` is real: the remainder of reals is fmod(2.5, n)"},
		{"output o = x %/% n", "m.gpp:5:12: %/% is the division of ints, and `x` is real: the truncated quotient of reals is trunc(x / n)"},
		{"output o = k %/% (n / 2)", "m.gpp:5:18: %/% is the division of ints, and `(n / 2)` is real: the truncated quotient of reals is trunc(k / (n / 2))"},
		{"output o = (mu > 0) % 2", "m.gpp:5:12: the operands of % are ints known before the fit, and `(mu > 0)` depends on the param `mu`"},
		{"output o = n % 0", "m.gpp:5:16: modulus by zero"},
		{"output o = k %/% (3 - 3)", "m.gpp:5:18: integer division by zero"},
		{"const K = 5 % 2.0", "m.gpp:5:15: % is the remainder of ints, and `2.0` is real: the remainder of reals is fmod(5, 2.0)"},
		{"output o = to_int(mu) % 2", "m.gpp:5:19: to_int needs argument 1 (x) known before the fit (data, constants and lets of them); `mu` is the param `mu`: an int is known when the model compiles (an index, a size); trunc(x) is a real of a param"},
		{"const K = to_int(not_a_number())", "m.gpp:5:11: `to_int(not_a_number())` is not a number: to_int of NaN (`not_a_number()`)"},
		{"output o = n % 3 + k %/% 2 + to_int(x * 2) % 3", ""},
	} {
		wantOneError(t, head+c.src+"\n", c.want)
	}
}
