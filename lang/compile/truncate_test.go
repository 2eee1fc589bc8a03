package compile

import (
	"math"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// logIntervalMass, the log normaliser of a truncated prior, against
// mpmath at 800 digits: bounds near the median, far out in either tail
// (where 1 − CDF rounds to a wrong number or to 0), and past where the mass
// itself underflows a float64.
func TestLogIntervalMass(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		name string
		args []float64
		a, b float64
		want float64
	}{
		{"Normal", []float64{0.0, 0.1}, 0.8, inf, -35.013437159914549896},
		{"Normal", []float64{0.0, 0.1}, 0.85, inf, -39.197396428217663311},
		{"Normal", []float64{0.0, 0.1}, 4.0, inf, -804.60844201375369929},
		{"Normal", []float64{0.0, 0.1}, 3.4, 3.6, -582.44616224687159063},
		{"Normal", []float64{0.0, 1.0}, -inf, -3.0, -6.6077262215103495433},
		{"Normal", []float64{0.0, 0.5}, 5.0, 6.0, -53.231285150745609211},
		{"Normal", []float64{0.0, 1.0}, 0.0, inf, -0.69314718055994530942},
		{"Normal", []float64{1.0, 2.0}, -1.0, 0.5, -1.4161829257383203437},
		{"Normal", []float64{0.0, 1.0}, -inf, -60.0, -1805.0135606805671387},
		{"LogNormal", []float64{0.0, 0.5}, 100.0, inf, -45.565909712207276804},
		{"LogNormal", []float64{0.0, 2.0}, 1e-30, 1e-20, -269.15233890039936531},
		{"HalfNormal", []float64{1.0}, 30.0, inf, -453.6280967757832518},
		{"HalfNormal", []float64{1.0}, 0.001, 0.002, -7.1335477982934366858},
		{"HalfNormal", []float64{2.0}, 0.1, 3.0, -0.19054569959527575997},
		{"Cauchy", []float64{0.0, 1.0}, 1e+17, inf, -40.288676466748176802},
		{"Cauchy", []float64{0.0, 1.0}, 0.0, inf, -0.69314718055994530942},
		{"Cauchy", []float64{-2.0, 0.5}, -inf, -1000000000.0, -22.561142901355756638},
		{"StudentT", []float64{3.0, 0.0, 1.0}, 1000000.0, inf, -41.348808234851822331},
		{"StudentT", []float64{3.0, 0.0, 1.0}, -inf, -50.0, -11.639784763243978004},
		{"StudentT", []float64{4.0, 1.0, 2.0}, -1.0, 2.0, -0.71052829016960025328},
		{"StudentT", []float64{3.0, 0.0, 1.0}, 1e+200, inf, -1381.4533323573828103},
		{"HalfCauchy", []float64{2.0}, 10000000000.0, inf, -22.784286454669966396},
		{"HalfCauchy", []float64{2.0}, 0.5, 1.0, -1.9717790608459309048},
		{"Gamma", []float64{2.0, 1.0}, 800.0, inf, -793.31413905293164078},
		{"Gamma", []float64{0.5, 2.0}, 0.0, 1e-10, -11.045569637121677191},
		{"Gamma", []float64{3.0, 1.0}, 1.0, 2.0, -1.4146025363298994684},
		{"Gamma", []float64{50.0, 2.0}, 60.0, inf, -29.463088537235263732},
		{"Exponential", []float64{2.0}, 400.0, inf, -800.0},
		{"Exponential", []float64{2.0}, 0.0, 1.0, -0.14541345786885905697},
		{"Weibull", []float64{2.0, 1.0}, 30.0, inf, -900.0},
		{"Weibull", []float64{2.0, 1.0}, 0.5, 1.5, -0.39541345786885905697},
		{"InvGamma", []float64{3.0, 2.0}, 0.0, 0.001, -1985.4903422616422807},
		{"InvGamma", []float64{3.0, 2.0}, 1000000.0, inf, -41.158851101440966385},
		{"Beta", []float64{2.0, 3.0}, 0.2, 0.7, -0.30720473894064491226},
		{"Beta", []float64{2.0, 300.0}, 0.5, 1.0, -202.9268743311686685},
		{"Uniform", []float64{-1.0, 2.0}, 0.0, 1.0, -1.0986122886681096914},
		// Narrow intervals near the centre, where the tails nearly cancel.
		{"Normal", []float64{0.0, 1.0}, 0.0, 1e-15, -35.457714928115357924},
		{"Normal", []float64{0.0, 1.0}, 0.0, 1e-17, -40.062885114103449299},
		{"Normal", []float64{0.0, 1.0}, 1.0, 1.000000000000001, -35.853154009887729012},
		// Past what a float64 holds, in log space.
		{"Beta", []float64{2.0, 3000.0}, 0.9999999, 1.0, -48346.280253708553224},
		{"StudentT", []float64{10000.0, 0.0, 1.0}, 40.0, inf, -746.63428247820686432},
		{"Laplace", []float64{0.0, 1.0}, 700.0, inf, -700.69314718055994531},
		{"Laplace", []float64{0.0, 1.0}, 800.0, 801.0, -801.1518223259470272},
	} {
		got, ok := logIntervalMass(c.name, c.args, c.a, c.b)
		// The mass to 1e-13 relative (1e-13 absolute in its log), and the
		// log to 1e-15 relative where it is large.
		if tol := max(1e-13, 1e-15*math.Abs(c.want)); !ok || !(got == c.want || math.Abs(got-c.want) <= tol) {
			t.Errorf("log P(%v < %s%v < %v) = %.17g (ok %v), want %.17g", c.a, c.name, c.args, c.b, got, ok, c.want)
		}
	}
	if _, ok := logIntervalMass("Dirichlet", nil, 0, 1); ok {
		t.Error("logIntervalMass knows Dirichlet")
	}
}

// A truncated prior's log joint is the prior's log density less log P,
// P its mass on the latent's values: the model with the prior, less the
// same density added by target += (which is not truncated), is −log P
// at any coordinate. Before the normaliser came from log tails, the
// 8-sigma bound was off by 0.1 and the 9- and 40-sigma ones were refused
// as having no mass; unit-support truncations of Uniform and Cauchy were
// refused as unsupported.
func TestTruncatedNormaliser(t *testing.T) {
	for _, c := range []struct {
		decl, prior string
		logP        float64
	}{
		{"real<lower=0.8>", "Normal(0, 0.1)", -35.013437159914549896},
		{"real<lower=0.9>", "Normal(0, 0.1)", -43.628149113332115497},
		{"real<lower=4>", "Normal(0, 0.1)", -804.60844201375369929},
		{"real<lower=100>", "LogNormal(0, 0.5)", -45.565909712207276804},
		{"real<lower=5, upper=6>", "Normal(0, 0.5)", -53.231285150745609211},
		{"real<lower=1e17>", "Cauchy(0, 1)", -40.288676466748176802},
		{"unit", "Uniform(-1, 2)", -1.0986122886681096914},
		{"unit", "Cauchy(0, 1)", math.Log(math.Atan(1) / math.Pi)},
	} {
		trunc := compileSrc(t, "a.gpp", "param x: "+c.decl+" ~ "+c.prior+"\n", nil)
		plain := compileSrc(t, "b.gpp", "param x: "+c.decl+"\ntarget += logpdf(x, "+c.prior+")\n", nil)
		for _, z := range []float64{-1, 0.5} {
			a, errA := trunc.LogJoint([]float64{z}, make([]float64, 1))
			b, errB := plain.LogJoint([]float64{z}, make([]float64, 1))
			if errA != nil || errB != nil || !(math.Abs(a-b+c.logP) <= 1e-12*max(1, math.Abs(c.logP))) {
				t.Errorf("%s ~ %s at %v: %.17g − %.17g (errors %v, %v), want −log P = %.17g", c.decl, c.prior, z, a, b, errA, errB, -c.logP)
			}
		}
	}
	_, err := compileSrcErr(t, "m.gpp", "param x: real<lower=1e300> ~ Exponential(1e10)\n", nil)
	if want := "m.gpp:1:30: Exponential puts too little mass on the bounds (1e+300, ∞) of x to normalise it (less than a float64 holds)"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

// TestTruncatedElements: the normaliser of a truncated prior on elements
// of a param (x[i] ~ D, x[0:2] ~ D), with arguments that differ per element
// (vector literals, data) or with a scale that is a param (the half-mass
// priors), against the same densities added by target +=. Before, a ~ on
// an element added no normaliser at all (the Stan loop idiom gave mu a
// posterior mean of 1.16 where its prior's is 0).
func TestTruncatedElements(t *testing.T) {
	lp := func(mu, s float64) float64 { // log P(X > 0), X ~ Normal(mu, s)
		return math.Log(0.5 * math.Erfc(-mu/s/math.Sqrt2))
	}
	for _, c := range []struct {
		name, decls, trunc, plain string
		sets                      map[string]string
		logP                      float64 // Σ log P over the elements
		json                      string  // data, or ""
	}{
		{"loop", "param x: positive[3]\n", "for i in 0:3 {\n  x[i] ~ Normal(1, 0.5)\n}\n", "target += logpdf(x, Normal(1, 0.5))\n", nil, 3 * lp(1, 0.5), ""},
		{"slice", "param x: positive[3]\n", "x[0:2] ~ Normal(1, 0.5)\nx[2] ~ Normal(-1, 2)\n", "target += logpdf(x[0:2], Normal(1, 0.5))\ntarget += logpdf(x[2], Normal(-1, 2))\n", nil, 2*lp(1, 0.5) + lp(-1, 2), ""},
		{"gather", "param x: positive[2]\n", "x[[0, 1]] ~ Laplace(0, 2)\n", "target += logpdf(x, Laplace(0, 2))\n", nil, 2 * math.Log(0.5), ""},
		{"let alias", "param x: real<lower=3>[2]\nlet xs = x\n", "xs ~ Normal(0, 1)\n", "target += logpdf(x, Normal(0, 1))\n", nil, 2 * lp(-3, 1), ""},
		{"transpose", "param x: real<lower=3>[2]\n", "x' ~ Normal(0, 1)\n", "target += logpdf(x, Normal(0, 1))\n", nil, 2 * lp(-3, 1), ""},
		{"let in a loop", "param x: positive[3]\n", "for i in 0:3 {\n  let e = x[i]\n  e ~ Normal(1, 0.5)\n}\n", "target += logpdf(x, Normal(1, 0.5))\n", nil, 3 * lp(1, 0.5), ""},
		{"vector args", "param x: positive[3]\n", "x ~ Normal(1, [1, 2, 5])\n", "target += logpdf(x, Normal(1, [1, 2, 5]))\n", nil, lp(1, 1) + lp(1, 2) + lp(1, 5), ""},
		{"data arg", "data sc: positive\nparam x: positive\n", "x ~ Normal(1, sc)\n", "target += logpdf(x, Normal(1, sc))\n", map[string]string{"sc": "3"}, lp(1, 3), ""},
		{"half-normal, param scale", "param s: positive ~ Exponential(1)\nparam x: positive[2]\n", "x ~ Normal(0, s)\n", "target += logpdf(x, Normal(0, s))\n", nil, 2 * math.Log(0.5), ""},
		{"loop over data", "data m: real[3]\nparam x: positive[3]\n", "for i in 0:3 {\n  x[i] ~ Normal(m[i], 0.5)\n}\n", "target += logpdf(x, Normal(m, 0.5))\n", nil,
			lp(1, 0.5) + lp(-1, 0.5) + lp(0.2, 0.5), `{"m": [1, -1, 0.2]}`},
		// Computations on data, as a bound of data may be (the trial's
		// xmin: real<lower=0, upper=min(L)> ~ Uniform(0, min(L)) was
		// refused as not known before the fit).
		{"computed arg", "data sc: positive\nparam x: positive\n", "x ~ Normal(1, 2 * sc)\n", "target += logpdf(x, Normal(1, 2 * sc))\n", map[string]string{"sc": "2"}, lp(1, 4), ""},
		{"reductions of data, bound and prior", "data L: positive[3]\nparam x: real<lower=0, upper=min(L)>\n", "x ~ Normal(mean(L), 2 * min(L))\n", "target += logpdf(x, Normal(mean(L), 2 * min(L)))\n", nil,
			math.Log(0.5*math.Erfc(-(0.5-2)/1/math.Sqrt2) - 0.5*math.Erfc(-(0-2)/1/math.Sqrt2)), `{"L": [3, 0.5, 2.5]}`},
		{"let of data", "data L: positive[3]\nlet s = sqrt(variance(L))\nparam x: positive\n", "x ~ Normal(-s, s)\n", "target += logpdf(x, Normal(-s, s))\n", nil,
			lp(-1, 1), `{"L": [1, 2, 3]}`},
		{"loop over computed data", "data m: real[3]\nparam x: positive[3]\n", "for i in 0:3 {\n  x[i] ~ Normal(2 * m[i], 0.5 + m[i] ^ 2)\n}\n", "target += logpdf(x, Normal(2 * m, 0.5 + m ^ 2))\n", nil,
			lp(2, 1.5) + lp(-2, 1.5) + lp(0.4, 0.54), `{"m": [1, -1, 0.2]}`},
		{"rows of computed data", "data M: real[2, 3]\nparam x: positive[2, 3]\n", "for i in 0:2 {\n  x[i, ] ~ Normal(2 * M[i, ], 1)\n}\n", "target += logpdf(x, Normal(2 * M, 1))\n", nil,
			lp(2, 1) + lp(4, 1) + lp(6, 1) + lp(-2, 1) + lp(-4, 1) + lp(-6, 1), `{"M": [[1, 2, 3], [-1, -2, -3]]}`},
		{"matrix, column and row args", "data mu: real[2]\ndata s: positive[3]\nparam x: positive[2, 3]\n", "x ~ Normal(mu, s')\n", "target += logpdf(x, Normal(mu, s'))\n", nil,
			lp(1, 1) + lp(1, 2) + lp(1, 4) + lp(-1, 1) + lp(-1, 2) + lp(-1, 4), `{"mu": [1, -1], "s": [1, 2, 4]}`},
		{"gather by int data", "data g: int[3]\ndata m: real[2]\nparam x: positive[3]\n", "x ~ Normal(m[g], 1)\n", "target += logpdf(x, Normal(m[g], 1))\n", nil,
			2*lp(0.5, 1) + lp(-2, 1), `{"g": [1, 0, 1], "m": [-2, 0.5]}`},
		{"matrix elements in a loop", "data M: real[2, 2]\nparam x: positive[2, 2]\n", "for i in 0:2 {\n  for j in 0:2 {\n    x[i, j] ~ Normal(M[i, j], 1)\n  }\n}\n", "target += logpdf(x, Normal(M, 1))\n", nil,
			lp(0.5, 1) + lp(-0.5, 1) + lp(3, 1) + lp(-4, 1), `{"M": [[0.5, -0.5], [3, -4]]}`},
		{"a row of data for a row", "data M: real[2, 3]\nparam x: positive[2, 3]\n", "for i in 0:2 {\n  x[i, ] ~ Normal(M[i, ], 1)\n}\n", "target += logpdf(x, Normal(M, 1))\n", nil,
			lp(1, 1) + lp(2, 1) + lp(3, 1) + lp(-1, 1) + lp(-2, 1) + lp(-3, 1), `{"M": [[1, 2, 3], [-1, -2, -3]]}`},
		{"half-t, param scale and dof", "param s: positive ~ Exponential(1)\nparam nu: positive ~ Gamma(2, 0.1)\nparam x: positive\n", "x ~ StudentT(nu, 0, s)\n", "target += logpdf(x, StudentT(nu, 0, s))\n", nil, math.Log(0.5), ""},
	} {
		var in []data.Input
		if c.json != "" {
			js, err := data.ReadJSON("d.json", strings.NewReader(c.json))
			if err != nil {
				t.Fatal(err)
			}
			in = append(in, data.Input{File: "d.json", JSON: js})
		}
		trunc := compileSrc(t, "a.gpp", c.decls+c.trunc, c.sets, in...)
		plain := compileSrc(t, "b.gpp", c.decls+c.plain, c.sets, in...)
		z := make([]float64, trunc.Dim)
		for i := range z {
			z[i] = 0.3 - 0.2*float64(i)
		}
		a, errA := trunc.LogJoint(z, make([]float64, len(z)))
		b, errB := plain.LogJoint(z, make([]float64, len(z)))
		if errA != nil || errB != nil || !(math.Abs(a-b+c.logP) <= 1e-12*max(1, math.Abs(c.logP))) {
			t.Errorf("%s: %.17g − %.17g (errors %v, %v), want −Σ log P = %.17g", c.name, a, b, errA, errB, -c.logP)
		}
	}
	// An argument that no bound of data could be either (a density of
	// data) is refused, saying what may be used.
	_, err := compileSrcErr(t, "m.gpp", "data sc: positive\nparam x: positive ~ Normal(1, exp(logpdf(sc, Normal(0, 1))))\n", map[string]string{"sc": "2"})
	if want := "m.gpp:2:31: Normal truncated to the positive support of x needs arguments known before the fit, as a param's bounds are: data, constants, loop variables, arithmetic, indexing and the elementwise, reduction and matrix built-ins of them, but not densities or factorisations; `exp(logpdf(sc, Normal(0, 1)))` is not (compute it in the data)"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	// An argument known before the fit must broadcast to the elements, and
	// an index into data must be in range.
	js, jerr := data.ReadJSON("d.json", strings.NewReader(`{"m": [1, 2]}`))
	if jerr != nil {
		t.Fatal(jerr)
	}
	in := data.Input{File: "d.json", JSON: js}
	for _, c := range []struct{ src, want string }{
		{"data m: real[N]\nparam x: positive[3] ~ Normal(m, 1)\n",
			"m.gpp:2:31: Normal truncated to the positive support of x: argument `m` is [2], which does not broadcast to the [3] the ~ covers"},
		{"data m: real[N]\nparam x: positive[3]\nfor i in 0:3 {\n  x[i] ~ Normal(m[i], 1)\n}\n",
			"m.gpp:4:19: index 2 out of range [0, 2) along axis 0 of `m` (indices are 0-based) at i = 2"},
	} {
		if _, err := compileSrcErr(t, "m.gpp", c.src, nil, in); err == nil || err.Error() != c.want {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}
