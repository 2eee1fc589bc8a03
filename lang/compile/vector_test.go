package compile

import (
	"math"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/parser"
)

// lnNormal is log N(x | mu, sigma), written out.
func lnNormal(x, mu, sigma float64) float64 {
	z := (x - mu) / sigma
	return -0.5*z*z - math.Log(sigma) - 0.5*math.Log(2*math.Pi)
}

// vectorLitModel uses vector literals of params (stacked), of constants,
// of data-only values, and of int data as an index.
const vectorLitModel = `data y: real[3]
data idx: int[2]
param a: real
param s: positive
param b: real[2] ~ Normal([a, 1], [s, 2 * s])
y[[idx[1], 0]] ~ Normal([a, b[0]], 1)
y ~ Normal([mean(y), a, 2.5], [1, s, 1])
let c = [mean(y), 2]
target += sum([a, s] .* [3, -1]) + [a, s][1] + sum(c)
output pair = [a, s]
output row = [b[1], 7]'
`

func vectorLitData() data.Input {
	return data.Input{File: "d.json", JSON: map[string]*data.Array{
		"y":   {Name: "y", Shape: []int{3}, Values: []float64{0.4, -1.2, 2.0}},
		"idx": {Name: "idx", Shape: []int{2}, Values: []float64{0, 2}, Int: true},
	}}
}

// TestVectorLitLogJoint checks a model written with vector literals: its
// log joint against the terms written out, its gradient against finite
// differences, its outputs, and that the data-only literal is computed
// once.
func TestVectorLitLogJoint(t *testing.T) {
	m := compileSrc(t, "m.gpp", vectorLitModel, nil, vectorLitData())
	if m.Dim != 4 {
		t.Fatalf("Dim = %d, want 4", m.Dim)
	}
	y := []float64{0.4, -1.2, 2.0}
	ybar := (y[0] + y[1] + y[2]) / 3
	for _, x := range [][]float64{{0.3, -0.2, 1.1, -0.4}, {-1.5, 0.7, 0.2, 2.5}} {
		a, s, b0, b1 := x[0], math.Exp(x[1]), x[2], x[3]
		want := lnNormal(b0, a, s) + lnNormal(b1, 1, 2*s) +
			lnNormal(y[2], a, 1) + lnNormal(y[0], b0, 1) +
			lnNormal(y[0], ybar, 1) + lnNormal(y[1], a, s) + lnNormal(y[2], 2.5, 1) +
			3*a - s + s + ybar + 2
		got, err := m.LogJoint(x, make([]float64, m.Dim))
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("log joint at %v = %.15g, want %.15g", x, got, want)
		}
		ev, err := m.NewEvaluator()
		if err != nil {
			t.Fatal(err)
		}
		_, outs, err := ev.Eval(x)
		if err != nil {
			t.Fatal(err)
		}
		if len(outs) != 2 || len(outs[0]) != 2 || outs[0][0] != a || outs[0][1] != s || len(outs[1]) != 2 || outs[1][0] != b1 || outs[1][1] != 7 {
			t.Errorf("outputs %v, want [[%v %v] [%v 7]]", outs, a, s, b1)
		}
	}
	if got := m.Outputs[1].Shape; len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Errorf("output row has shape %v, want [1 2]", got)
	}
	checkGradient(t, m, 6, 0.7)
	if len(m.dataNodes) == 0 {
		t.Fatal("no data-only nodes recorded")
	}
	for _, id := range m.dataNodes {
		if n := m.prog.Evals(id); n > 1 {
			t.Errorf("data-only node %v evaluated %d times, want at most once", id, n)
		}
	}
}

// TestVectorLitForms checks that a literal means what the same vector
// built otherwise means: the log joint and gradient of each model with a
// literal equal those of the model without one.
// logJointTol is the relative tolerance between a model and the same model
// written out by hand: they differ by rounding only.
const logJointTol = 1e-12

func TestVectorLitForms(t *testing.T) {
	const decls = "param a: real\nparam s: positive\nparam v: real[2]\nparam w: simplex[3]\n"
	for _, c := range []struct{ name, lit, ref string }{
		{"params", "v ~ Normal([a, s], 1)", "v[0] ~ Normal(a, 1)\nv[1] ~ Normal(s, 1)"},
		{"constants", "v ~ Normal(0, [1, 2.5])", "v[0] ~ Normal(0, 1)\nv[1] ~ Normal(0, 2.5)"},
		{"dirichlet", "w ~ Dirichlet([2, 1, 1])", "target += log(w[0]) + log(6)"}, // log Γ(4) − log Γ(2) + log w0
		{"repeated", "target += sum([a, a, s] .* [1, 2, 3])", "target += 3 * a + 3 * s"},
		{"indexed", "target += [a, s][1] * [a, s][0]", "target += s * a"},
		{"matrix product", "target += sum(v' * [a, s])", "target += v[0] * a + v[1] * s"},
		{"row", "target += sum([a, s]' .* v')", "target += v[0] * a + v[1] * s"},
		{"nested scalars", "target += sum([[a, s][0], ([s])[0]])", "target += a + s"},
		{"left of ~", "[a, v[0]] ~ Normal(0, [1, 2])", "a ~ Normal(0, 1)\nv[0] ~ Normal(0, 2)"},
		{"loop", "for i in 0:2 { target += [a, i][1] * v[[1, i]][1] }", "target += v[1]"},
		// A negated int literal stays a known int: a loop bound, an index.
		{"negative bound", "for i in -1:1 { target += [a, s][i + 1] * (i - 1) }", "target += -2 * a - s"},
		{"negative index", "target += [a, s][-(-1)]", "target += s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := compileSrc(t, "a.gpp", decls+c.lit+"\n", nil)
			ref := compileSrc(t, "b.gpp", decls+c.ref+"\n", nil)
			for _, x := range [][]float64{{0.3, -0.2, 1.1, -0.4, 0.1, 0.5, -0.3}, {-1.5, 0.7, 0.2, 2.5, -1, 0, 1}} {
				sameLogJoint(t, m, ref, "the model written out", x, logJointTol, logJointTol)
			}
			checkGradient(t, m, 7, 0.5)
		})
	}
}

// TestVectorLitIndexRange: an index from a literal that is out of range only
// when the data or a loop variable is known is reported at its element of
// the literal, or at its data cell.
func TestVectorLitIndexRange(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"loop variable", "data y: real[3]\nparam a: real\nfor i in 0:3 {\n  target += a * sum(y[[i, i + 1]])\n}\n",
			"m.gpp:4:27: 3 is out of range [0, 3) as an index (used at m.gpp:4:23) at i = 2"},
		{"int data", "data y: real[3]\ndata k: int\nparam a: real\ntarget += a * sum(y[[0, k]])\n",
			"d.json:2:7: 5 is out of range [0, 3) as an index (used at m.gpp:4:21)"},
		// The one error: the index that idx[3] feeds is not also "not int data".
		{"nested", "data idx: int[M]\nparam w: real[3]\nfor i in 0:M+1 { target += w[idx[i]] }\n",
			"\x00m.gpp:3:34: index 3 out of range [0, 3) along axis 0 of `idx` (indices are 0-based) at i = 3\x00"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := parser.ParseFile("m.gpp", []byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			info, err := check.Check(f, nil)
			if err != nil {
				t.Fatal(err)
			}
			in := data.Input{File: "d.json", JSON: map[string]*data.Array{
				"y":   {Name: "y", Shape: []int{3}, Values: []float64{1, 2, 3}},
				"k":   {Name: "k", Values: []float64{5}, Int: true, Pos: ast.Pos{File: "d.json", Line: 2, Col: 7}},
				"idx": {Name: "idx", Shape: []int{3}, Values: []float64{0, 1, 2}, Int: true},
			}}
			bound, err := data.Bind(info, []data.Input{in}, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Compile(f, info, bound)
			if err == nil || !strings.Contains("\x00"+err.Error()+"\x00", c.want) { // \x00 marks an end
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}

// TestVectorLitSize: a literal's constant element, picked by a constant
// index, sizes a param and sets a const.
func TestVectorLitSize(t *testing.T) {
	m := compileSrc(t, "m.gpp", "const K = [4, 5][1]\nparam v: real[[2, K][0]] ~ Normal(0, [1, K])\ntarget += K\n", nil)
	if m.Dim != 2 || len(m.Latents) != 1 || len(m.Latents[0].Shape) != 1 || m.Latents[0].Shape[0] != 2 {
		t.Fatalf("Dim %d, latents %+v; want v of shape [2]", m.Dim, m.Latents)
	}
	x := []float64{0.5, -2}
	lp, err := m.LogJoint(x, make([]float64, 2))
	if err != nil {
		t.Fatal(err)
	}
	if want := lnNormal(0.5, 0, 1) + lnNormal(-2, 0, 5) + 5; math.Abs(lp-want) > 1e-13 {
		t.Errorf("log joint %.17g, want %.17g", lp, want)
	}
}

// cumsum and variance against the same quantities written out (a vector
// literal of running sums; the deviations' squares over n − 1), with the
// gradient against finite differences.
func TestCumSumVariance(t *testing.T) {
	const head = `param z: real[4] ~ Normal(0, 1)
param s: positive[3] ~ Gamma(2, 1)
`
	m := compileSrc(t, "f.gpp", head+`let w = cumsum(z)
target += sum(square(w - 1)) + variance(z) + log(variance(s)) + sum(log(cumsum(s)))
`, nil)
	ref := compileSrc(t, "ref.gpp", head+`let w = [z[0], z[0] + z[1], z[0] + z[1] + z[2], z[0] + z[1] + z[2] + z[3]]
let m = mean(z)
let ms = mean(s)
target += sum(square(w - 1)) + sum(square(z - m)) / 3
target += log(sum(square(s - ms)) / 2) + log(s[0]) + log(s[0] + s[1]) + log(s[0] + s[1] + s[2])
`, nil)
	for _, x := range [][]float64{{0.3, -1.2, 0.5, 2, 0.1, -0.4, 0.9}, {-2, 0, 1, 0.25, 1.5, 0.2, -1}} {
		sameLogJoint(t, m, ref, "written out", x, logJointTol, logJointTol)
	}
	checkGradient(t, m, 7, 0.8)
}

// sd against its square root of the variance written out, and of one
// element 0 (Stan's sd, as variance), with the gradient against finite
// differences; a param named sd still declares (a call of sd is the
// built-in's).
func TestSD(t *testing.T) {
	const head = `param z: real[4] ~ Normal(0, 1)
param sd: positive[3] ~ Gamma(2, 1)
param u: real[1] ~ Normal(0, 1)
`
	m := compileSrc(t, "f.gpp", head+`target += sd(z) + log(sd(sd)) + sd(u) + sum(u)
`, nil)
	ref := compileSrc(t, "ref.gpp", head+`let m = mean(z)
let ms = mean(sd)
target += sqrt(sum(square(z - m)) / 3) + 0.5 * log(sum(square(sd - ms)) / 2) + sum(u)
`, nil)
	for _, x := range [][]float64{{0.3, -1.2, 0.5, 2, 0.1, -0.4, 0.9, 1.5}, {-2, 0, 1, 0.25, 1.5, 0.2, -1, -0.3}} {
		sameLogJoint(t, m, ref, "written out", x, logJointTol, logJointTol)
	}
	checkGradient(t, m, 7, 0.8)
}

// A prior whose scale is computed from the data checks (its support is
// checked with the values when the model compiles) and is the prior with
// that number written in.
func TestScaleFromData(t *testing.T) {
	y := &data.Array{Name: "y", Shape: []int{4}, Values: []float64{1, 3, 2, 6}}
	in := data.Input{File: "y.json", JSON: map[string]*data.Array{"y": y}}
	m := compileSrc(t, "m.gpp", "data y: real[N]\nparam mu: real ~ Normal(mean(y), 10 * sqrt(variance(y)))\ny ~ Normal(mu, 1)\n", nil, in)
	// mean 3, variance (4 + 0 + 1 + 9) / 3 = 14/3
	ref := compileSrc(t, "ref.gpp", "data y: real[N]\nparam mu: real ~ Normal(3, 21.602468994692867)\ny ~ Normal(mu, 1)\n", nil, in)
	sameLogJoint(t, m, ref, "the scale written in", []float64{0.7}, logJointTol, logJointTol)
}

// TestIntLimitLiteral: 2^53, the largest int literal, is a known int to the
// compiler too, so a loop or rep that long gets its size error rather than
// "needs an int constant"; and int arithmetic of data past 2^53 is an
// error, as the checker's of constants is.
func TestIntLimitLiteral(t *testing.T) {
	for _, c := range []struct {
		src  string
		sets map[string]string
		want string
	}{
		{"param a: real\nfor i in 0:9007199254740992 {\n  target += a\n}\n", nil, "m.gpp:2:1: loops unroll to more than"},
		{"param a: real\ntarget += sum(rep(a, 9007199254740992))\n", nil, "m.gpp:2:22: rep(x, 9007199254740992) would take the model past"},
		// Int data past 2^53 in arithmetic: N * N wrapped to 0 in int64
		// (w had 3 elements), and past 2^53 it is rounded.
		{"data N: int\nparam w: real[N * N + 3]\n", map[string]string{"N": "4294967296"},
			"m.gpp:2:17: int `N * N` is 1.8446744073709552e+19 with these data: an int holds at most 2^53 in magnitude"},
		{"data N: int\nparam w: real\noutput k = N * N\n", map[string]string{"N": "94906267"}, "m.gpp:3:14: int `N * N` is 9.007199515875288e+15"},
		{"data N: int\nparam w: real\noutput k = N + N\n", map[string]string{"N": "9007199254740992"}, "m.gpp:3:14: int `N + N` is 1.8014398509481984e+16"},
	} {
		if _, err := compileSrcErr(t, "m.gpp", c.src, c.sets); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.src, err, c.want)
		}
	}
}

// TestTruncatedArgs: a prior truncated to a param's values needs
// arguments that do not depend on params (its normaliser would), except a
// zero-centred Normal, Cauchy, Laplace or StudentT on the positive half
// line, whose mass there is ½ at any scale (Stan's half-normal, half-Cauchy
// and half-t idiom).
func TestTruncatedArgs(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"param s: positive ~ Exponential(1)\nparam tau: positive ~ Normal(0, s)\n", ""},
		{"param s: positive ~ Exponential(1)\nparam tau: positive ~ Cauchy(0, 2 * s)\n", ""},
		{"param s: positive ~ Exponential(1)\nparam nu: positive ~ Gamma(2, 0.1)\nparam tau: positive[3] ~ StudentT(nu, 0, s)\n", ""},
		{"param s: positive ~ Exponential(1)\nparam tau: positive ~ Normal(1, s)\n",
			"m.gpp:2:33: Normal truncated to the positive support of tau needs arguments that do not depend on params (its normalising constant would depend on `s`); centre it at the constant 0 (a half-Normal, whose mass on the positive support is ½ at any scale), use arguments of data and constants, or declare tau real\x00"},
		// Other families get the general hint.
		{"param s: positive ~ Exponential(1)\nparam tau: unit ~ Gamma(2, s)\n",
			"m.gpp:2:28: Gamma truncated to the unit support of tau needs arguments that do not depend on params (its normalising constant would depend on `s`); declare tau with a support inside Gamma's, or use a prior on the unit support\x00"},
		// A lower bound of 1 is not the half line: its mass depends on s.
		{"param s: positive ~ Exponential(1)\nparam tau: real<lower=1> ~ Normal(0, s)\n",
			"m.gpp:2:38: Normal truncated to the bounds (1, ∞) of tau needs arguments that do not depend on params (its normalising constant would depend on `s`); use arguments of data and constants, or a prior whose support is (1, ∞); for the density without its normaliser, as Stan's ~ (censored values imputed inside their bounds), write target += sum(logpdf(tau, Normal(0, s)))\x00"},
		// So for a let that is x: a ~ on it is a ~ on x.
		{"param mu: real ~ Normal(0, 1)\nparam x: positive\nlet xs = x\nxs ~ Normal(mu, 1)\n",
			"m.gpp:4:13: Normal truncated to the positive support of x needs arguments that do not depend on params (its normalising constant would depend on `mu`)"},
		// So for an element: x[i] ~ D is truncated as x ~ D is.
		{"param mu: real ~ Normal(0, 1)\nparam x: positive[5]\nfor i in 0:5 {\n  x[i] ~ Normal(mu, 1)\n}\n",
			"m.gpp:4:17: Normal truncated to the positive support of x needs arguments that do not depend on params (its normalising constant would depend on `mu`)"},
	} {
		f, err := parser.ParseFile("m.gpp", []byte(c.src))
		if err != nil {
			t.Fatal(err)
		}
		info, err := check.Check(f, nil) // the checker refuses params in the arguments
		if err == nil {
			_, err = Compile(f, info, map[string]*data.Array{})
		}
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: error %v, want none", c.src, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error()+"\x00", c.want)):
			t.Errorf("%q: error %v, want it to contain %q", c.src, err, c.want)
		}
	}
}

// TestErrorFlood: an error in a loop body is reported once, not once per
// iteration (a loop of a million printed 999 997 lines and took 9 s), and
// a compile reports at most ast.MaxErrors errors and then says so.
func TestErrorFlood(t *testing.T) {
	_, err := compileSrcErr(t, "m.gpp", "param w: real[3]\nfor i in 0:1000000 {\n  target += w[i]\n}\n", nil)
	if want := "m.gpp:3:15: index 3 out of range [0, 3) along axis 0 of `w` (indices are 0-based) at i = 3"; err == nil || err.Error() != want {
		t.Errorf("loop: error %v, want just %q", err, want)
	}
	src := "data N: int\nparam m: real\n" + strings.Repeat("target += sum(rep(m, N - 1))\n", 25)
	_, err = compileSrcErr(t, "m.gpp", src, map[string]string{"N": "0"})
	list, _ := ast.Positioned(err)
	if len(list) != ast.MaxErrors+1 || list[ast.MaxErrors].Msg != "too many errors; the rest are not reported" {
		t.Errorf("%d errors, the last %v; want %d and a last saying there are more", len(list), list[len(list)-1], ast.MaxErrors+1)
	}
}
