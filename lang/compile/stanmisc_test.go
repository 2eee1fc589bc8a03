package compile

import "testing"

// TestStanMiscFuncs checks fmod, ldexp, lmgamma and the hypergeometric
// functions through the compiled model against closed forms they reduce
// to, in value and gradient (₂F₁(1, 1; 2; −z) = log(1 + z)/z through
// Pfaff's transformation past z = −1, ₂F₁(a, b; b; z) = (1 − z)^(−a)
// with b a param, whose partials in b and c cancel, pFq of repeated
// parameters), and each model's gradient against finite differences.
func TestStanMiscFuncs(t *testing.T) {
	in := stanFuncsInput(t)
	for _, c := range []plainCase{
		{"fmod", "target += sum(fmod(a * x + 10, s + 2.5))\n", ""}, // quotients 1 to 4: the partial in y is not 0
		{"fmod of a negative divisor", "target += sum(fmod(s + x + 5, -2 - u))\n", ""},
		{"ldexp", "target += sum(ldexp(a * x, b))\n", "target += sum(a * x .* exp2(b))\n"},
		{"ldexp of an int constant", "target += ldexp(s, -3)\n", "target += s / 8\n"},
		{"lmgamma", "target += sum(lmgamma(3, s + abs(x) + 1))\n",
			"target += sum(1.5 * log(pi()) + lgamma(s + abs(x) + 1) + lgamma(s + abs(x) + 0.5) + lgamma(s + abs(x)))\n"},
		{"hypergeometric_2F1 of -z", "target += sum(hypergeometric_2F1(1, 1, 2, -s * abs(x)))\n",
			"target += sum(log1p(s * abs(x)) / (s * abs(x)))\n"},
		{"hypergeometric_2F1(a, b; b; z)", "target += sum(hypergeometric_2F1(s, a + 3, a + 3, 0.9 * u * x / 2))\n",
			"target += sum(pow(1 - 0.9 * u * x / 2, -s))\n"},
		{"hypergeometric_pFq 1F0", "target += hypergeometric_pFq([s], rep(0.0, 0), 0.8 * u)\n", "target += pow(1 - 0.8 * u, -s)\n"},
		{"hypergeometric_pFq 1F1(a; a; z)", "target += hypergeometric_pFq([s + 1], [s + 1], a * x[2])\n", "target += exp(a * x[2])\n"},
		{"hypergeometric_3F2", "target += hypergeometric_3F2([s, 2, a + 3], [a + 3, 2], -0.7 * u)\n", "target += pow(1 + 0.7 * u, -s)\n"},
		{"hypergeometric_pFq 2F1 past z = -1", "target += hypergeometric_pFq([s, a], [u + 1], -3 * s)\n", "target += hypergeometric_2F1(s, a, u + 1, -3 * s)\n"},
		{"hypergeometric_2F1 polynomial past z = 1", "target += hypergeometric_2F1(-2, s, 3, 1.5)\n", "target += 1 - s + s * (s + 1) * 0.1875\n"},
		{"hypergeometric_pFq polynomial past |z| = 1, a constant among params", "target += hypergeometric_pFq([-1, s, 2], [3], 4.5 * s)\n", "target += 1 - 3 * s * s\n"},
		// c = a = -3: the polynomial ends before (c)ₖ's zero; only the partial in the constant a is infinite
		{"hypergeometric_2F1 of c = a = -3", "target += hypergeometric_2F1(-3, s, -3, 0.5)\n",
			"target += 1 + 0.5 * s + 0.125 * s * (s + 1) + 0.125 / 6 * s * (s + 1) * (s + 2)\n"},
		{"hypergeometric_pFq of a vector", "target += hypergeometric_pFq(x / 4, [3, s], 0.9 * u)\n", ""},
		{"hypergeometric_pFq of params", "target += hypergeometric_pFq([s, a, 0.5], [s + 2, u + 1.5], -0.6)\n", ""},
	} {
		m := wantSamePlain(t, stanFuncsDecls, in, nil, c)
		checkGradient(t, m, 7, 0.5)
		x, g := []float64{0.1, 0.4, -1.2}, make([]float64, 3)
		if _, err := m.LogJoint(x, g); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if a := testing.AllocsPerRun(10, func() { m.LogJoint(x, g) }); a != 0 {
			t.Errorf("%s: %v allocations per step, want 0", c.name, a)
		}
	}
}

// TestStanMiscErrors: a domain error at fit time names the function, the
// argument and the element (and why a series gives no value); sizes are
// checked when the model compiles.
func TestStanMiscErrors(t *testing.T) {
	in := stanFuncsInput(t)
	wantFitErrors(t, "a.gpp", stanFuncsDecls, in, []srcWant{
		{"target += sum(fmod(s, x - x))\n", "a.gpp:9:15: fmod: argument 2 is 0 (element [0])"},
		{"target += sum(lmgamma(3, s * x))\n", "a.gpp:9:15: lmgamma: argument 2 (-1.5) must be > (k - 1)/2 = 1 (element [0]); argument 2 is computed from x's at d.json:1:8 and param s"},
		{"target += sum(hypergeometric_2F1(s, 1, 2, s + x))\n",
			"a.gpp:9:15: hypergeometric_2F1: z must be < 1, or 1 where c - a - b > 0 (Gauss's theorem); past 1 lies ₂F₁'s branch cut (a 1, b 1, c 2, z 1.25, element [1]); argument 4 is computed from x's at d.json:1:14 and param s"},
		{"target += sum(hypergeometric_2F1(s, 1, -2 * s, x / 4))\n",
			"a.gpp:9:15: hypergeometric_2F1: a lower parameter (c) is an integer <= 0, a pole (a 1, b 1, c -2, z -0.375, element [0])"},
		{"target += hypergeometric_pFq([s, 1], [s + 1, 2], -60 * s)\n",
			"a.gpp:9:11: hypergeometric_pFq: the series' terms cancel, losing more than 4 digits (a[0] 1, a[1] 1, b[0] 2, b[1] 2, z -60)"},
		{"target += hypergeometric_pFq([s, 2, 1], [3, 4], s)\n",
			"a.gpp:9:11: hypergeometric_pFq: |z| must be < 1 where p = q + 1 (a[0] 1, a[1] 2, a[2] 1, b[0] 3, b[1] 4, z 1)"},
		{"target += hypergeometric_pFq([s, 2], [3], s)\n",
			"a.gpp:9:11: hypergeometric_pFq: z must be < 1, or 1 where c - a - b > 0 (Gauss's theorem); past 1 lies ₂F₁'s branch cut (a[0] 1, a[1] 2, b[0] 3, z 1)"},
	})
	wantCompileErrors(t, "a.gpp", stanFuncsDecls, in, []srcWant{
		{"target += a * hypergeometric_3F2([1, 2], [3, 4], 0.5)\n", "a.gpp:9:15: hypergeometric_3F2 takes a [3] and b [2], got a [2] and b [2]"},
		{"target += a * hypergeometric_pFq(rep(1.0, 9), [3], 0.5)\n", "a.gpp:9:15: hypergeometric_pFq takes at most 8 upper and 8 lower parameters, got a [9] and b [1]"},
	})
}

// TestSizedConstructors: Stan's array, row and int forms of the sized
// constructors, against the same values written out, and their errors.
func TestSizedConstructors(t *testing.T) {
	in := stanFuncsInput(t)
	for _, c := range []plainCase{
		{"linspaced_array", "target += dot_product(linspaced_array(3, a, s), x)\n", "target += dot_product(a + (s - a) * [0, 0.5, 1], x)\n"},
		{"linspaced_row_vector", "target += sum(linspaced_row_vector(3, a, s) * x)\n", "target += dot_product(a + (s - a) * [0, 0.5, 1], x)\n"},
		{"linspaced_int_array repeating", "target += a * sum(linspaced_int_array(8, 1, 4) .* [1, 2, 3, 4, 5, 6, 7, 8])\n",
			"target += a * (1 + 2 + 2 * 3 + 2 * 4 + 3 * 5 + 3 * 6 + 4 * 7 + 4 * 8)\n"},
		{"linspaced_int_array lowering hi", "target += a * sum(linspaced_int_array(4, 0, 8) .* [1, 10, 100, 1000])\n",
			"target += a * (0 + 2 * 10 + 4 * 100 + 6 * 1000)\n"},
		{"linspaced_int_array negative", "target += a * sum(linspaced_int_array(3, -4, 0) .* [1, 10, 100])\n",
			"target += a * (-4 - 2 * 10 + 0)\n"},
		{"linspaced_int_array of one", "target += a * sum(linspaced_int_array(1, 2, 5))\n", "target += 5 * a\n"},
		{"linspaced_int_array indexes", "target += sum(x[linspaced_int_array(3, 0, 2)]) * a\n", "target += sum(x) * a\n"},
		{"one_hot_array", "target += dot_product(one_hot_array(3, 1), x) * a\n", "target += x[1] * a\n"},
		{"one_hot_int_array indexes", "target += a * x[sum(one_hot_int_array(3, 2) .* [0, 1, 2])]\n", "target += a * x[2]\n"},
		{"one_hot_row_vector", "target += (one_hot_row_vector(3, 0) * x)[0] * s\n", "target += x[0] * s\n"},
		{"ones and zeros", "target += a * (sum(ones_vector(2)) + sum(ones_array(3)) + sum(ones_int_array(4)) + sum(ones_row_vector(5)) + sum(zeros_vector(2)) + sum(zeros_array(2)) + sum(zeros_int_array(2)) + sum(zeros_row_vector(2)))\n",
			"target += 14 * a\n"},
		{"uniform_simplex", "target += dot_product(uniform_simplex(4), [s, a, 1, 2])\n", "target += (s + a + 3) / 4\n"},
	} {
		checkGradient(t, wantSamePlain(t, stanFuncsDecls, in, nil, c), 7, 0.5)
	}
	wantCompileErrors(t, "a.gpp", stanFuncsDecls, in, []srcWant{
		{"target += a * sum(one_hot_int_array(3, 3))\n", "a.gpp:9:40: one_hot_int_array: index 3 is out of range for length 3 (k counts from 0)"},
		{"target += a * sum(one_hot_row_vector(3, -1))\n", "a.gpp:9:41: one_hot_row_vector: index -1 is out of range for length 3 (k counts from 0)"},
		{"target += a * sum(linspaced_int_array(3, 4, 2))\n", "a.gpp:9:45: linspaced_int_array: hi (2) is below lo (4)"},
		{"target += a * sum(uniform_simplex(0))\n", "a.gpp:9:35: uniform_simplex: a simplex needs n >= 1"},
	})
}
