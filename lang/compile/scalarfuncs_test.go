package compile

import (
	"math"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// scalarFuncsInput is data for TestScalarFuncs: x for broadcasting, n and
// k for lchoose, t for the tails.
func scalarFuncsInput(t *testing.T) data.Input {
	js, err := data.ReadJSON("d.json", strings.NewReader(
		`{"x": [-1.5, 0.25, 2.0], "n": [50, 1e10, 7], "k": [20.5, 3, 7], "t": [-800, 800, 40]}`))
	if err != nil {
		t.Fatal(err)
	}
	return data.Input{File: "d.json", JSON: js}
}

const scalarFuncsDecls = "data x: real[3]\ndata n: real[3]\ndata k: real[3]\ndata t: real[3]\n" +
	"param a: real\nparam s: positive\nparam u: unit\n"

// TestScalarFuncs checks Stan's scalar functions through the compiled
// model against the same quantity written with older built-ins, in value
// and gradient, where the plain form is accurate (moderate arguments),
// and each model's gradient against finite differences.
func TestScalarFuncs(t *testing.T) {
	in := scalarFuncsInput(t)
	for _, c := range []struct{ name, f, plain string }{
		{"log1m", "target += sum(log1m(u * x / 2))\n", "target += sum(log(1 - u * x / 2))\n"},
		{"log_inv_logit", "target += sum(log_inv_logit(a * x))\n", "target += sum(log(inv_logit(a * x)))\n"},
		{"log1m_inv_logit", "target += sum(log1m_inv_logit(a * x))\n", "target += sum(log(1 - inv_logit(a * x)))\n"},
		{"inv_cloglog", "target += sum(inv_cloglog(a + x))\n", "target += sum(1 - exp(-exp(a + x)))\n"},
		{"Phi", "target += sum(Phi(a * x))\n", "target += sum(exp(logcdf(a * x, Normal(0, 1))))\n"},
		{"Phi_approx", "target += sum(Phi_approx(a * x))\n", "target += sum(inv_logit(0.07056 * pow(a * x, 3) + 1.5976 * a * x))\n"},
		{"inv_Phi", "target += sum(Phi(inv_Phi(u * inv_logit(x))))\n", "target += sum(u * inv_logit(x))\n"},
		{"tanh", "target += sum(tanh(a * x))\n", "target += sum(2 * inv_logit(2 * a * x) - 1)\n"},
		{"sin and cos", "target += sum(square(sin(a * x)) + square(cos(a * x)))\n", "target += 3\n"},
		{"atan", "target += sum(atan(s * x))\n", "target += sum(atan(s * x))\n"},
		{"inv", "target += sum(inv(s + x .* x))\n", "target += sum(1 / (s + x .* x))\n"},
		{"inv_sqrt", "target += sum(inv_sqrt(s + x .* x))\n", "target += sum(1 / sqrt(s + x .* x))\n"},
		{"inv_square", "target += sum(inv_square(s + x))\n", "target += sum(1 / square(s + x))\n"},
		{"fmin", "target += sum(fmin(a, x))\n", "target += sum((a + x - abs(a - x)) / 2)\n"},
		{"fmax", "target += sum(fmax(x, a * s))\n", "target += sum((a * s + x + abs(a * s - x)) / 2)\n"},
		{"lbeta", "target += sum(lbeta(s, s + abs(x)))\n", "target += sum(lgamma(s) + lgamma(s + abs(x)) - lgamma(2 * s + abs(x)))\n"},
		{"lchoose", "target += sum(lchoose(s + 10, s * abs(x)))\n",
			"target += sum(lgamma(s + 11) - lgamma(s * abs(x) + 1) - lgamma(s + 10 - s * abs(x) + 1))\n"},
		{"log_mix", "target += sum(log_mix(u, a * x, -square(x - s)))\n", "target += sum(log(u * exp(a * x) + (1 - u) * exp(-square(x - s))))\n"},
		{"log_mix broadcasting a scalar", "target += sum(log_mix(u, a * x, s))\n", "target += sum(log(u * exp(a * x) + (1 - u) * exp(s)))\n"},
	} {
		m := compileSrc(t, "a.gpp", scalarFuncsDecls+c.f, nil, in)
		plain := compileSrc(t, "b.gpp", scalarFuncsDecls+c.plain, nil, in)
		wantSameLogJoint(t, c.name, m, plain)
		checkGradient(t, m, 7, 0.5)
	}
}

// TestScalarFuncsTails: the composed functions keep their digits where the
// plain forms lose them. References: mpmath at 50 digits.
func TestScalarFuncsTails(t *testing.T) {
	in := scalarFuncsInput(t)
	for _, c := range []struct {
		name, f string
		want    float64
	}{
		{"log_inv_logit(-800)", "target += log_inv_logit(t[0])\n", -800},
		{"log1m_inv_logit(800)", "target += log1m_inv_logit(t[1])\n", -800},
		{"log1m_inv_logit(40)", "target += log1m_inv_logit(t[2])\n", -40.000000000000000004},
		{"lchoose(1e10, 3)", "target += lchoose(n[1], k[1])\n", 67.28579332029331552},
		{"lchoose(50, 20.5)", "target += lchoose(n[0], k[0])\n", 31.672369906928463139},
		{"lchoose(7, 7)", "target += lchoose(n[2], k[2])\n", 0},
		{"log_mix(0.3, -1000, -1001)", "target += log_mix(0.3, t[0] / 0.8, t[0] / 0.8 - 1)\n", -1000.5842647781563713},
	} {
		m := compileSrc(t, "a.gpp", scalarFuncsDecls+c.f, nil, in)
		z := []float64{0, 0, 0}
		// The params add no term: the model is the one target line.
		got, err := m.LogJoint(z, make([]float64, 3))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if math.Abs(got-c.want) > 1e-14*math.Max(1, math.Abs(c.want)) {
			t.Errorf("%s = %.17g, want %.17g", c.name, got, c.want)
		}
	}
}

// TestScalarFuncsErrors: a domain error at fit time is positioned at the
// call.
func TestScalarFuncsErrors(t *testing.T) {
	in := scalarFuncsInput(t)
	for _, c := range []struct{ f, want string }{
		{"target += sum(log1m(x + s))\n", "a.gpp:8:15: log1m: argument 1.25 > 1 (element [1])"},
		{"target += sum(inv_Phi(s * x))\n", "a.gpp:8:15: inv_Phi: argument -1.5 is outside [0, 1] (element [0])"},
		{"target += sum(lbeta(s, x))\n", "a.gpp:8:15: lbeta: arguments 1 and -1.5 must be > 0 (element [0])"},
	} {
		m := compileSrc(t, "a.gpp", scalarFuncsDecls+c.f, nil, in)
		_, err := m.LogJoint([]float64{0, 0, 0}, make([]float64, 3))
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: error %q, want %q", strings.TrimSpace(c.f), err, c.want)
		}
	}
}

// TestScalarFuncsDataErrors: on data alone the error comes at compile
// time, positioned likewise.
func TestScalarFuncsDataErrors(t *testing.T) {
	in := scalarFuncsInput(t)
	for _, c := range []struct{ f, want string }{
		{"target += sum(log1m(x + 0.5))\n", "a.gpp:8:15: log1m: argument 2.5 > 1 (element [2])"},
		{"target += sum(inv_Phi(x))\n", "a.gpp:8:15: inv_Phi: argument -1.5 is outside [0, 1] (element [0])"},
	} {
		_, err := compileSrcErr(t, "a.gpp", scalarFuncsDecls+c.f, nil, in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q, want %q", strings.TrimSpace(c.f), err, c.want)
		}
	}
}
