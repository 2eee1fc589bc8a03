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
	for _, c := range []plainCase{
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
		checkGradient(t, wantSamePlain(t, scalarFuncsDecls, in, nil, c), 7, 0.5)
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

// TestLogMixEnds: log_mix at theta 0 and 1 is lp2 and lp1, as Stan's, in
// value and gradient (composed of log(theta) and log1m(theta) it failed
// there, "log: argument 0 gives -Inf"), also where theta is a param's
// expression; theta outside [0, 1] is an error that names it.
func TestLogMixEnds(t *testing.T) {
	in := scalarFuncsInput(t)
	for _, c := range []plainCase{
		{"log_mix at 0", "target += log_mix(0, a * x[0], -s)\n", "target += -s\n"},
		{"log_mix at 1", "target += log_mix(1, a * x[0], -s)\n", "target += a * x[0]\n"},
		{"log_mix at 0 of a param", "target += log_mix(0 * u, a * x[0], -s)\n", "target += -s + 0 * u\n"},
		{"log_mix at 1 of vectors", "target += sum(log_mix(1, a * x, -s * x))\n", "target += sum(a * x)\n"},
	} {
		wantSamePlain(t, scalarFuncsDecls, in, nil, c)
	}
	wantFitErrors(t, "a.gpp", scalarFuncsDecls, in, []srcWant{
		{"target += log_mix(1 + s, a, a)\n", "a.gpp:8:11: log_mix: theta must be in [0, 1] (got 2) (lp1 0, lp2 0)"},
	})
}

// TestSoftmaxRows: softmax and log_softmax of a matrix are each row's, as
// the rows of a loop's softmax(M[i]) (the help's "same shape as the
// argument"; a matrix was refused), against the plain per-row forms.
func TestSoftmaxRows(t *testing.T) {
	in := scalarFuncsInput(t)
	const m = "let M = outer(x, [a, s, u])\n"
	for _, c := range []plainCase{
		{"log_softmax of a matrix", m + "target += sum(log_softmax(M) .* outer(x, x))\n", m + "target += sum((M - rowlogsumexp(M)) .* outer(x, x))\n"},
		{"softmax of a matrix", m + "target += sum(softmax(M) .* outer(x, x))\n", m + "target += sum(exp(M - rowlogsumexp(M)) .* outer(x, x))\n"},
		{"softmax of a row", "target += sum(softmax([a, s, u]') .* x')\n", "target += sum(exp([a, s, u]' - logsumexp([a, s, u])) .* x')\n"},
	} {
		wantSamePlain(t, scalarFuncsDecls, in, nil, c)
	}
}

// TestScalarFuncsErrors: a domain error at fit time is positioned at the
// call, and an argument read from a data file is named at its cell.
func TestScalarFuncsErrors(t *testing.T) {
	in := scalarFuncsInput(t)
	wantFitErrors(t, "a.gpp", scalarFuncsDecls, in, []srcWant{
		{"target += sum(log1m(x + s))\n", "a.gpp:8:15: log1m: argument 1.25 > 1 (element [1]); the argument is computed from x's at d.json:1:14 and param s"},
		{"target += sum(inv_Phi(s * x))\n", "a.gpp:8:15: inv_Phi: argument -1.5 is outside [0, 1] (element [0]); the argument is computed from x's at d.json:1:8 and param s"},
		{"target += sum(lbeta(s, x))\n", "a.gpp:8:15: lbeta: arguments 1 and -1.5 must be > 0 (element [0]); argument 2 is x's at d.json:1:8"},
		// computed from data alone, element by element: the datum's cell
		{"target += sum(lbeta(s, 2 * x - 1))\n", "a.gpp:8:15: lbeta: arguments 1 and -4 must be > 0 (element [0]); argument 2 is computed from x's at d.json:1:8"},
		{"target += sum(lbeta(s, x - n))\n", "a.gpp:8:15: lbeta: arguments 1 and -51.5 must be > 0 (element [0])"}, // two data: no one datum
	})
}

// TestScalarFuncsDataErrors: on data alone the error comes at compile
// time, positioned likewise.
func TestScalarFuncsDataErrors(t *testing.T) {
	in := scalarFuncsInput(t)
	wantCompileErrors(t, "a.gpp", scalarFuncsDecls, in, []srcWant{
		{"target += sum(log1m(x + 0.5))\n", "a.gpp:8:15: log1m: argument 2.5 > 1 (element [2]); the argument is computed from x's at d.json:1:20"}, // element [2]'s cell
		{"target += sum(inv_Phi(x))\n", "a.gpp:8:15: inv_Phi: argument -1.5 is outside [0, 1] (element [0])"},
	})
}

// stanFuncsInput is scalarFuncsInput with b, binary outcomes.
func stanFuncsInput(t *testing.T) data.Input {
	js, err := data.ReadJSON("d.json", strings.NewReader(
		`{"x": [-1.5, 0.25, 2.0], "n": [50, 1e10, 7], "k": [20.5, 3, 7], "t": [-800, 800, 40], "b": [0, 1, 1]}`))
	if err != nil {
		t.Fatal(err)
	}
	return data.Input{File: "d.json", JSON: js}
}

const stanFuncsDecls = "data b: int<lower=0, upper=1>[3]\n" + scalarFuncsDecls

// TestStanFuncs checks more of Stan's functions through the compiled
// model against the same quantity written with older built-ins, in value
// and gradient, at moderate arguments where the plain form is accurate,
// and each model's gradient against finite differences (plain "" for a
// function with no plain form: the gradient alone, its values being
// checked against mpmath in lang/autodiff).
func TestStanFuncs(t *testing.T) {
	in := stanFuncsInput(t)
	for _, c := range []struct{ name, f, plain string }{
		{"log_diff_exp", "target += sum(log_diff_exp(s + x, x))\n", "target += sum(log(exp(s + x) - exp(x)))\n"},
		{"log_sum_exp of two", "target += sum(log_sum_exp(a, x))\n", "target += sum(log(exp(a) + exp(x)))\n"},
		{"log_sum_exp of one", "target += log_sum_exp(a * x)\n", "target += logsumexp(a * x)\n"},
		{"fma", "target += sum(fma(a, x, s))\n", "target += sum(a * x + s)\n"},
		{"hypot", "target += sum(hypot(a, x))\n", "target += sum(sqrt(a * a + x .* x))\n"},
		{"atan2", "target += sum(atan2(s, x))\n", "target += sum(2 * atan(s / (sqrt(s * s + x .* x) + x)))\n"},
		{"tan", "target += sum(tan(u * x / 2))\n", "target += sum(sin(u * x / 2) / cos(u * x / 2))\n"},
		{"asin", "target += sum(asin(u * x / 2))\n", "target += sum(atan(u * x / 2 / sqrt(1 - square(u * x / 2))))\n"},
		{"acos", "target += sum(acos(u * x / 2))\n", "target += sum(pi() / 2 - atan(u * x / 2 / sqrt(1 - square(u * x / 2))))\n"},
		{"sinh", "target += sum(sinh(a * x))\n", "target += sum((exp(a * x) - exp(-a * x)) / 2)\n"},
		{"cosh", "target += sum(cosh(a * x))\n", "target += sum((exp(a * x) + exp(-a * x)) / 2)\n"},
		{"asinh", "target += sum(asinh(a * x))\n", "target += sum(log(a * x + sqrt(square(a * x) + 1)))\n"},
		{"acosh", "target += sum(acosh(s + 1 + abs(x)))\n", "target += sum(log(s + 1 + abs(x) + sqrt(square(s + 1 + abs(x)) - 1)))\n"},
		{"atanh", "target += sum(atanh(u * x / 2))\n", "target += sum(0.5 * log((1 + u * x / 2) / (1 - u * x / 2)))\n"},
		{"erf", "target += sum(erf(a * x))\n", "target += sum(2 * Phi(a * x * sqrt2()) - 1)\n"},
		{"erfc", "target += sum(erfc(a * x))\n", "target += sum(2 * Phi(-a * x * sqrt2()))\n"},
		{"exp2", "target += sum(exp2(a * x))\n", "target += sum(pow(2, a * x))\n"},
		{"log2 of one", "target += sum(log2(s + abs(x)))\n", "target += sum(log(s + abs(x)) / log2())\n"},
		{"log10 of one", "target += sum(log10(s + abs(x)))\n", "target += sum(log(s + abs(x)) / log10())\n"},
		{"cbrt", "target += sum(cbrt(s + abs(x)))\n", "target += sum(pow(s + abs(x), 1.0 / 3))\n"},
		{"tgamma", "target += sum(tgamma(s + abs(x)))\n", "target += sum(exp(lgamma(s + abs(x))))\n"},
		{"trigamma", "target += sum(trigamma(s + x))\n", ""},
		{"lmultiply", "target += sum(lmultiply(x, s))\n", "target += sum(x * log(s))\n"},
		{"binary_log_loss", "target += sum(binary_log_loss(b, inv_logit(a * x)))\n",
			"target += -sum(b .* log(inv_logit(a * x)) + (1 - b) .* log(1 - inv_logit(a * x)))\n"},
		{"log_inv_logit_diff", "target += sum(log_inv_logit_diff(a + 2.5, a + x))\n", "target += sum(log(inv_logit(a + 2.5) - inv_logit(a + x)))\n"},
		{"log_falling_factorial", "target += sum(log_falling_factorial(s + 10, abs(x)))\n", "target += sum(lgamma(s + 11) - lgamma(s + 11 - abs(x)))\n"},
		{"gamma_p", "target += sum(gamma_p(s + 1, s + abs(x)))\n", "target += sum(exp(logcdf(s + abs(x), Gamma(s + 1, 1))))\n"},
		{"gamma_q", "target += sum(gamma_q(s + abs(x), 2 * s))\n", "target += sum(exp(logccdf(2 * s, Gamma(s + abs(x), 1))))\n"},
		{"inc_beta", "target += sum(inc_beta(s + 1, s + abs(x), u))\n", "target += sum(exp(logcdf(u, Beta(s + 1, s + abs(x)))))\n"},
		{"inc_beta of a vector x", "target += sum(inc_beta(s, 2.5, u * abs(x) / 3))\n", "target += sum(exp(logcdf(u * abs(x) / 3, Beta(s, 2.5))))\n"},
		{"inv_inc_beta", "target += sum(inc_beta(s + 1, 2, inv_inc_beta(s + 1, 2, u * abs(x) / 3)))\n", "target += sum(u * abs(x) / 3)\n"},
		{"inv_inc_beta of shapes", "target += sum(inv_inc_beta(s + abs(x), s + 2, u))\n", ""},
		{"log_modified_bessel_first_kind", "target += sum(log_modified_bessel_first_kind(s + abs(x), s + 1))\n", ""},
		{"modified_bessel_first_kind", "target += sum(modified_bessel_first_kind(b, s * abs(x)))\n", "target += sum(exp(log_modified_bessel_first_kind(b, s * abs(x))))\n"},
		{"modified_bessel_first_kind of any sign", "target += sum(modified_bessel_first_kind(b, a * x))\n", ""},
		{"bessel_first_kind", "target += sum(bessel_first_kind(b, a * x))\n", ""},
		{"bessel_second_kind", "target += sum(bessel_second_kind(b, s + abs(x)))\n", ""},
		{"modified_bessel_second_kind", "target += sum(modified_bessel_second_kind(b, s + abs(x)))\n", ""},
		{"lambert_w0", "target += sum(lambert_w0(s * abs(x)))\n", ""},
		{"lambert_wm1", "target += sum(lambert_wm1(-0.3 * u * abs(x) / 2))\n", ""},
		{"owens_t", "target += sum(owens_t(a + x, s * x))\n", ""},
		{"log_rising_factorial", "target += sum(log_rising_factorial(s + abs(x), s))\n", "target += sum(lgamma(s + abs(x) + s) - lgamma(s + abs(x)))\n"},
		{"rising_factorial", "target += sum(rising_factorial(a + x, b))\n", "target += sum(1 - b + b .* (a + x))\n"},
		{"falling_factorial", "target += sum(falling_factorial(s + x, b))\n", "target += sum(1 - b + b .* (s + x))\n"},
		{"prod", "target += prod(s + x)\n", "target += (s + x[0]) * (s + x[1]) * (s + x[2])\n"},
		{"rows_dot_product", "target += sum(rows_dot_product(a * outer(x, x), outer(x, n)))\n", "target += sum(rowsum(a * outer(x, x) .* outer(x, n)))\n"},
		{"columns_dot_product", "target += sum(columns_dot_product(a * outer(x, x), outer(x, k)))\n", "target += sum(colsum(a * outer(x, x) .* outer(x, k)))\n"},
		{"colmean", "target += sum(colmean(a * outer(x, x) .* outer(x, k)))\n", "target += sum(colsum(a * outer(x, x) .* outer(x, k))) / 3\n"},
		{"rowmean", "target += sum(rowmean(a * outer(x, x) .* outer(x, n)))\n", "target += sum(rowsum(a * outer(x, x) .* outer(x, n))) / 3\n"},
		{"columns_dot_product of vectors", "target += sum(columns_dot_product(a * x, x))\n", "target += a * dot_self(x)\n"},
		{"rounding of data", "target += a * sum(floor(x) + ceil(x) + round(x) + trunc(x + 0.5))\n", "target += a * (-2 + 0 + 2 - 1 + 1 + 2 - 2 + 0 + 2 - 1 + 0 + 2)\n"},
	} {
		m := compileSrc(t, "a.gpp", stanFuncsDecls+c.f, nil, in)
		if c.plain != "" {
			plain := compileSrc(t, "b.gpp", stanFuncsDecls+c.plain, nil, in)
			wantSameLogJoint(t, c.name, m, plain)
		}
		checkGradient(t, m, 7, 0.5)
	}
}

// TestStanFuncsTails: the log-space differences and erfc keep their
// digits where the plain forms lose them. References: mpmath at 40 digits.
func TestStanFuncsTails(t *testing.T) {
	in := stanFuncsInput(t)
	for _, c := range []struct {
		name, f string
		want    float64
	}{
		{"log_diff_exp(800, 800 - 1e-8)", "target += log_diff_exp(t[1], t[1] - 1e-8)\n", 781.57932004433042268},
		{"log_sum_exp(-800, -800)", "target += log_sum_exp(t[0], t[0])\n", -799.30685281944005469},
		{"log_inv_logit_diff(-800, -801)", "target += log_inv_logit_diff(t[0], t[0] - 1)\n", -800.45867514538708189},
		{"log_inv_logit_diff(40, 39)", "target += log_inv_logit_diff(t[2], t[2] - 1)\n", -39.458675145387081907},
		{"erfc(20)", "target += erfc(t[2] / 2) * 1e175\n", 0.53958656116079009289},
		{"log_falling_factorial(1e10, 3)", "target += log_falling_factorial(n[1], k[1])\n", 69.077552789521370521},
		// mpmath: gammainc(2, 40, inf, regularized=True) * 1e16
		{"gamma_q(2, 40)", "target += gamma_q(2, t[2]) * 1e16\n", 1.7418252446695514881},
	} {
		m := compileSrc(t, "a.gpp", stanFuncsDecls+c.f, nil, in)
		got, err := m.LogJoint([]float64{0, 0, 0}, make([]float64, 3))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if math.Abs(got-c.want) > 1e-14*math.Max(1, math.Abs(c.want)) {
			t.Errorf("%s = %.17g, want %.17g", c.name, got, c.want)
		}
	}
}

// TestStanFuncsErrors: a domain error at fit time is positioned at the
// call, an argument read from a data file named at its cell; on data
// alone it comes when the model compiles.
func TestStanFuncsErrors(t *testing.T) {
	in := stanFuncsInput(t)
	wantFitErrors(t, "a.gpp", stanFuncsDecls, in, []srcWant{
		{"target += sum(log_diff_exp(x, s))\n", "a.gpp:9:15: log_diff_exp: argument 1 (-1.5) < argument 2 (1): the difference would be negative (element [0]); argument 1 is x's at d.json:1:8"},
		{"target += sum(acosh(s * x))\n", "a.gpp:9:15: acosh: argument -1.5 < 1 (element [0]); the argument is computed from x's at d.json:1:8 and param s"},
		{"target += sum(atanh(s * x / 2))\n", "a.gpp:9:15: atanh: argument 1 gives +Inf (element [2]); the argument is computed from x's at d.json:1:20 and param s"},
		{"target += sum(inc_beta(s, 2, x))\n", "a.gpp:9:15: inc_beta: argument 3 (-1.5) is outside [0, 1] (element [0]); argument 3 is x's at d.json:1:8"},
		{"target += sum(inc_beta(a, 2, u))\n", "a.gpp:9:15: inc_beta: a must be > 0 (got 0)"},
		{"target += sum(gamma_q(s, x))\n", "a.gpp:9:15: gamma_q: argument 2 (-1.5) must be >= 0 (element [0]); argument 2 is x's at d.json:1:8"},
		{"target += sum(log_modified_bessel_first_kind(s, x))\n", "a.gpp:9:15: log_modified_bessel_first_kind: argument 2 (-1.5) must be >= 0 (element [0]); argument 2 is x's at d.json:1:8"},
		{"target += sum(lambert_wm1(s * x))\n", "a.gpp:9:15: lambert_wm1: argument -1.5 is outside [-1/e, 0) (element [0]); the argument is computed from x's at d.json:1:8 and param s"},
		{"target += sum(lmultiply(s, x))\n", "a.gpp:9:15: lmultiply: argument 2 (-1.5) < 0 (element [0]); argument 2 is x's at d.json:1:8"},
	})
	wantCompileErrors(t, "a.gpp", stanFuncsDecls, in, []srcWant{
		{"target += a * sum(asin(x))\n", "a.gpp:9:19: asin: argument -1.5 is outside [-1, 1] (element [0])"},
		{"target += a * sum(log10(x))\n", "a.gpp:9:19: log10: argument -1.5 < 0 (element [0])"},
	})
}

// TestStanMatrixFuncs checks inverse, inverse_spd, determinant,
// log_determinant and mdivide_left_tri_low through the compiled model
// against older built-ins (or each other), in value and gradient, with
// the gradient against finite differences: S = M M' + I is symmetric
// positive definite, A = M + 3 I is not symmetric.
func TestStanMatrixFuncs(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"y": [0.5, -1.25, 2]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: js}
	const decls = "data y: real[3]\nparam M: real[3, 3]\nlet S = tcrossprod(M) + I(3)\nlet A = M + 3 * I(3)\n"
	at := [][]float64{
		{0.1, 0.4, -1.2, -0.5, 0.9, 0.3, 0.7, -0.2, 0.05},
		{-0.3, 0.2, 0.6, 1.1, -0.4, 0.25, -0.8, 0.5, 0.9},
	}
	for _, c := range []struct{ name, f, plain string }{
		{"inverse_spd", "target += sum(inverse_spd(S) .* S)\n", "target += 3\n"},
		{"inverse of an spd matrix", "target += sum(inverse(S) .* A)\n", "target += sum(inverse_spd(S) .* A)\n"},
		{"inverse", "target += sum(inverse(A) * A) + sum(A * inverse(A))\n", "target += 6\n"},
		{"inverse solves", "target += sum(inverse(A) * y)\n", "target += sum(inverse(A') ' * y)\n"},
		{"determinant", "target += determinant(S)\n", "target += exp(logdet(S))\n"},
		{"log_determinant of an spd matrix", "target += log_determinant(S)\n", "target += logdet(S)\n"},
		{"log_determinant", "target += log_determinant(A) + log_determinant(A')\n", "target += 2 * log(abs(determinant(A)))\n"},
		{"mdivide_left_tri_low", "target += dot_self(mdivide_left_tri_low(chol(S), y))\n", "target += dot_product(y, solve(S, y))\n"},
		{"mdivide_left_tri_low of a matrix", "target += sum(mdivide_left_tri_low(chol(S), A))\n",
			"target += sum(inverse(chol(S)) * A)\n"},
	} {
		m := compileSrc(t, "a.gpp", decls+c.f, nil, in)
		plain := compileSrc(t, "b.gpp", decls+c.plain, nil, in)
		wantSameLogJointAt(t, c.name, m, plain, at)
		checkGradient(t, m, 7, 0.3)
	}
}

// TestSizedVectors: linspaced_vector of params (its gradient to lo and hi)
// and of constants, one_hot_vector with its 0-based index, and the error
// at an index past the end.
func TestSizedVectors(t *testing.T) {
	in := stanFuncsInput(t)
	for _, c := range []plainCase{
		{"linspaced_vector", "target += sum(linspaced_vector(5, a, s) .* linspaced_vector(5, -1, 1))\n",
			"target += -a - (a + (s - a) / 4) / 2 + (a + 3 * (s - a) / 4) / 2 + s\n"},
		{"linspaced_vector of one", "target += sum(linspaced_vector(1, a, s))\n", "target += s\n"},
		{"one_hot_vector", "target += dot_product(one_hot_vector(3, 2), x) * a\n", "target += x[2] * a\n"},
	} {
		checkGradient(t, wantSamePlain(t, stanFuncsDecls, in, nil, c), 7, 0.5)
	}
	_, err := compileSrcErr(t, "a.gpp", stanFuncsDecls+"target += a * sum(one_hot_vector(3, 3))\n", nil, in)
	if want := "a.gpp:9:37: one_hot_vector: index 3 is out of range for length 3 (k counts from 0)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
}
