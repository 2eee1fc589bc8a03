package compile

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// fnData is a small regression data set for the user-function tests.
func fnData(t *testing.T) data.Input {
	t.Helper()
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"X": [[1, -0.3], [0.5, 1.2], [-1.1, 0.4], [2.0, -0.7]],
		"y": [1, 0, 0, 1], "z": [0.4, -1.3, 2.2, 0.9]}`))
	if err != nil {
		t.Fatal(err)
	}
	return data.Input{File: "d.json", JSON: js}
}

// randomPoints returns n points of dim coordinates, seeded.
func randomPoints(seed uint64, n, dim int) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	out := make([][]float64, n)
	for i := range out {
		out[i] = make([]float64, dim)
		fillNormal(out[i], rng, 0, 1)
	}
	return out
}

// TestFunctionsInline: a model written with user functions (expression
// and block forms, nested calls, a parameter that shadows a data name, a
// call in a for body and in a prior) has exactly the log joint and gradient
// of the model inlined by hand, at random points.
func TestFunctionsInline(t *testing.T) {
	const decls = `data N: int
data X: real[N, 2]
data y: int<lower=0, upper=1>[N]
data z: real[N]
param beta: real[2] ~ Normal(0, 2)
param s: positive ~ Gamma(2, 2)
`
	fns := compileSrc(t, "f.gpp", `fn inv_logit2(x) = 1 / (1 + exp(-x))
fn sq(x) {
  let u = x - 1
  return u .* u
}
fn scaled(z, k) = sq(z) / k
`+decls+`param a: real ~ Normal(0, sq(2))
y ~ Bernoulli(inv_logit2(X * beta + a))
target += -sum(scaled(z - a, s))
for i in 0:N {
  target += -0.5 * scaled(beta[0] * z[i], 2)
}
`, nil, fnData(t))
	hand := compileSrc(t, "h.gpp", decls+`param a: real ~ Normal(0, (2 - 1) .* (2 - 1))
y ~ Bernoulli(1 / (1 + exp(-(X * beta + a))))
target += -sum(((z - a) - 1) .* ((z - a) - 1) / s)
for i in 0:N {
  target += -0.5 * (((beta[0] * z[i]) - 1) .* ((beta[0] * z[i]) - 1) / 2)
}
`, nil, fnData(t))
	if fns.Dim != 4 || hand.Dim != 4 {
		t.Fatalf("dims %d and %d, want 4", fns.Dim, hand.Dim)
	}
	wantSameLogJointAt(t, "functions", fns, hand, randomPoints(1, 5, 4))
	checkGradient(t, fns, 2, 1)
}

// TestUserDensity: a hand-written normal density, as a user _lpdf used in
// ~ statements on data and on params, in a param's prior and in logpdf
// (per element), gives the log joint of the built-in Normal.
func TestUserDensity(t *testing.T) {
	const decls = `data N: int
data z: real[N]
param s: positive ~ Gamma(2, 2)
`
	user := compileSrc(t, "u.gpp", `fn normal2_lpdf(y, mu, sigma) = -0.5 * ((y - mu) / sigma) ^ 2 - log(sigma) - 0.5 * log(2 * 3.141592653589793)
`+decls+`param m: real ~ normal2(0, 3)
param b: real
b ~ normal2(m, 1)
z ~ normal2(m + b, s)
target += 0.5 * logpdf(z, normal2(b, 2))
`, nil, fnData(t))
	builtin := compileSrc(t, "b.gpp", decls+`param m: real ~ Normal(0, 3)
param b: real
b ~ Normal(m, 1)
z ~ Normal(m + b, s)
target += 0.5 * logpdf(z, Normal(b, 2))
`, nil, fnData(t))
	wantSameLogJointAt(t, "user density", user, builtin, randomPoints(3, 5, 3))
}

// outputIndex compiles src with its outputs and returns the index of the
// last output's node in the tape: how many nodes precede it.
func outputIndex(t *testing.T, src string) int64 {
	t.Helper()
	m := compileSrc(t, "o.gpp", src, nil, fnData(t))
	_, ids, err := m.build(buildOutputs)
	if err != nil {
		t.Fatal(err)
	}
	return int64(ids[len(ids)-1]) & (1<<32 - 1)
}

// TestFunctionArgumentOnce: a parameter read four times evaluates its
// argument (a matrix product) once, as a let does: the tape of the call is
// as long as that of the let, and shorter than that of the argument written
// out four times.
func TestFunctionArgumentOnce(t *testing.T) {
	const decls = "data N: int\ndata X: real[N, 2]\nparam beta: real[2] ~ Normal(0, 1)\n"
	call := outputIndex(t, "fn f(x) = x .* x + x .* x\n"+decls+"output o = f(X * beta)\n")
	let := outputIndex(t, decls+"let t = X * beta\noutput o = t .* t + t .* t\n")
	subst := outputIndex(t, decls+"output o = (X * beta) .* (X * beta) + (X * beta) .* (X * beta)\n")
	t.Logf("tape lengths: call %d, let %d, substituted %d", call, let, subst)
	if call != let || subst <= let {
		t.Errorf("tape lengths: call %d, let %d, substituted %d; want call == let < substituted", call, let, subst)
	}
}

// TestFunctionCompileErrorNamesCall: an error found when the model
// compiles with its data, inside an expanded body, names the body's
// position and the call's.
func TestFunctionCompileErrorNamesCall(t *testing.T) {
	_, err := compileSrcErr(t, "e.gpp", `fn pick(x, i) = x[i]
data N: int
data z: real[N]
param m: real ~ Normal(0, 1)
target += -m * pick(z, 5)
`, nil, fnData(t))
	const want = "e.gpp:1:19: index 5 out of range [0, 4) along axis 0 of `x` (indices are 0-based) (in the call of pick at e.gpp:5:16)"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

// TestFunctionRunErrorNamesCall: a non-finite value found during a fit
// inside an expanded body (a log of a negative argument here, nested two
// calls deep), in the log joint or in an output, names the body's
// position and every call, innermost first, as the checker's errors do;
// the argument, lowered outside the body, names none.
func TestFunctionRunErrorNamesCall(t *testing.T) {
	m := compileSrc(t, "e.gpp", `fn g(x) = log(x)
fn f(x) = 2 * g(x - 10)
param s: positive ~ HalfNormal(2)
target += f(s)
output o = f(s + 5)
output a = f(log(s - 100))
`, nil)
	x := []float64{math.Log(3)} // s = 3
	_, err := m.LogJoint(x, nil)
	const want = "e.gpp:1:11: log: argument -7 < 0 (in the call of g at e.gpp:2:15) (in the call of f at e.gpp:4:11)"
	if err == nil || err.Error() != want {
		t.Errorf("log joint: got %v\nwant %s", err, want)
	}
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	x[0] = math.Log(20) // the log joint is finite; o's f(25) is too, a's argument is not
	if _, _, err := ev.Eval(x); err != nil {
		t.Fatal(err)
	}
	const wantOut = "e.gpp:6:14: log: argument -80 < 0"
	if err := ev.OutputErr(); err == nil || err.Error() != wantOut {
		t.Errorf("output: got %v\nwant %s", err, wantOut)
	}
}

// TestOutputErrAbsorbed: OutputErr explains a non-finite output, not a
// −Inf an output reads and takes in: log(w · e^mu) at w = 0 is −Inf, and
// logsumexp of it finite (a trial's HMM log_lik, rowlogsumexp(log(ps) −
// lo), warned of "an output that is not finite" at a draws.csv all finite).
func TestOutputErrAbsorbed(t *testing.T) {
	in := data.Input{File: "w.csv", Table: csvTable(t, "w.csv", "w", [][]float64{{0}, {1}})}
	for _, c := range []struct {
		name, outs string
		bad        bool
	}{
		{"absorbed", "output a = logsumexp(log(w * exp(mu)))\n", false},
		{"written", "output a = logsumexp(log(w * exp(mu)))\noutput b = log(w * exp(mu))\n", true},
	} {
		m := compileSrc(t, "o.gpp", "data w: real[N]\nparam mu: real ~ Normal(0, 1)\n"+c.outs, nil, in)
		ev, err := m.NewEvaluator()
		if err != nil {
			t.Fatal(err)
		}
		_, outs, err := ev.Eval([]float64{0.3})
		if err != nil {
			t.Fatal(err)
		}
		if want := 0.3; math.Abs(outs[0][0]-want) > 1e-12 {
			t.Errorf("%s: a = %v, want %v", c.name, outs[0][0], want)
		}
		oe := ev.OutputErr()
		if (oe != nil) != c.bad || c.bad && !strings.Contains(oe.Error(), "log: argument 0 gives -Inf") {
			t.Errorf("%s: OutputErr %v, want an error: %v", c.name, oe, c.bad)
		}
	}
}
