package compile

import (
	"math"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// pkTol bounds the relative error of the matrix-exponential solution of
// the two-compartment model against its closed form.
const pkTol = 1e-10

// pkInput: sampling times (hours) and concentrations of one subject.
func pkInput(t *testing.T) data.Input {
	js, err := data.ReadJSON("pk.json", strings.NewReader(
		`{"t": [0.25, 0.5, 1, 2, 4, 8, 12, 24], "y": [3.1, 2.9, 2.4, 1.9, 1.3, 0.8, 0.55, 0.2]}`))
	if err != nil {
		t.Fatal(err)
	}
	return data.Input{File: "pk.json", JSON: js}
}

// pkDecls is a two-compartment model with an intravenous bolus D into the
// central compartment: A' = K A, K = [[-(k10 + k12), k21], [k12, -k21]],
// A(0) = (D, 0), concentration A_0 / V.
const pkDecls = `data t: positive[N]
data y: real[N]
const D = 100
param k10: positive ~ LogNormal(-1, 0.5)
param k12: positive ~ LogNormal(-1, 0.5)
param k21: positive ~ LogNormal(-1.5, 0.5)
param V: positive ~ LogNormal(3.5, 0.5)
param sigma: positive ~ Exponential(1)
let K = append_col([-(k10 + k12), k12], [k21, -k21])
`

// pkClosed is the closed-form concentration: with α > β the roots of
// x² − (k10 + k12 + k21) x + k10 k21,
// A_0(t) = D ((α − k21) e^{−αt} + (k21 − β) e^{−βt}) / (α − β).
func pkClosed(k10, k12, k21, v, t float64) float64 {
	s := k10 + k12 + k21
	disc := math.Sqrt(s*s - 4*k10*k21)
	alpha, beta := (s+disc)/2, 2*k10*k21/(s+disc) // β = k10 k21 / α, no cancellation
	return 100 / v * ((alpha-k21)*math.Exp(-alpha*t) + (k21-beta)*math.Exp(-beta*t)) / (alpha - beta)
}

// TestTwoCompartmentMatrixExp: the concentrations of a linear
// two-compartment PK model written with scale_matrix_exp_multiply,
// matrix_exp_multiply and matrix_exp, as Stan users write linear ODEs,
// match the closed form to pkTol at every sampling time; the log joint
// and its gradient match the model written with the closed form; the
// gradient matches finite differences.
func TestTwoCompartmentMatrixExp(t *testing.T) {
	in := pkInput(t)
	src := pkDecls + `for n in 0:N {
  y[n] ~ Normal(scale_matrix_exp_multiply(t[n], K, [D, 0])[0] / V, sigma)
}
output c0 = scale_matrix_exp_multiply(t[0], K, [D, 0])[0] / V
output c3 = matrix_exp_multiply(t[3] * K, [D, 0])[0] / V
output c7 = (matrix_exp(t[7] * K) * [D, 0])[0] / V
output k = [k10, k12, k21, V]
`
	closed := pkDecls + `let s = k10 + k12 + k21
let alpha = (s + sqrt(square(s) - 4 * k10 * k21)) / 2
let beta = k10 * k21 / alpha
y ~ Normal(D / V * ((alpha - k21) * exp(-alpha * t) + (k21 - beta) * exp(-beta * t)) / (alpha - beta), sigma)
`
	m := compileSrc(t, "pk.gpp", src, nil, in)
	plain := compileSrc(t, "pk_closed.gpp", closed, nil, in)
	zs := [][]float64{{0.1, 0.4, -1.2, 0.3, -0.5}, {-0.5, 0.9, 0.3, -1, 0.2}, {-2, -3, 1, 0.5, 0}}
	wantSameLogJointAt(t, "two-compartment", m, plain, zs)
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	ts := []float64{0.25, 2, 24}
	worst := 0.0
	for _, z := range zs {
		_, outs, err := ev.Eval(z)
		if err != nil {
			t.Fatal(err)
		}
		k := outs[3]
		for i, c := range outs[:3] {
			want := pkClosed(k[0], k[1], k[2], k[3], ts[i])
			e := math.Abs(c[0]-want) / want
			worst = max(worst, e)
			if e > pkTol {
				t.Errorf("at %v, t = %g: %.17g, closed form %.17g (rel %.2g)", z, ts[i], c[0], want, e)
			}
		}
	}
	t.Logf("worst relative error against the closed form: %.2g", worst)
	checkGradient(t, m, 5, 0.5)
}

// TestMatrixFuncsModel: the matrix and array built-ins through the
// compiler, each against the same quantity written with older built-ins
// (value and gradient) and finite differences.
func TestMatrixFuncsModel(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(
		`{"x": [0.5, -1.5, 2.25, 0.0, 1.0], "k": [3, 1, 4, 1, 5]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: js}
	const decls = "data x: real[5]\ndata k: int[5]\nparam a: real[3]\nparam s: positive\n" +
		"let M = append_col(append_col(a, [s, a[0], 1]), [0.5, -a[2], s])\n"
	for _, c := range []struct{ name, f, plain string }{
		{"sort_asc", "target += dot_product(sort_asc(s * x), [1, 2, 3, 4, 5])\n",
			"target += s * (1 * x[1] + 2 * x[3] + 3 * x[0] + 4 * x[4] + 5 * x[2])\n"},
		{"sort_desc of a param", "target += dot_product(sort_desc(a), [3, 2, 1])\n",
			"target += 3 * fmax(fmax(a[0], a[1]), a[2]) + 2 * (sum(a) - fmax(fmax(a[0], a[1]), a[2]) - fmin(fmin(a[0], a[1]), a[2])) + fmin(fmin(a[0], a[1]), a[2])\n"},
		{"reverse", "target += dot_product(reverse(a), [1, 2, 3])\n", "target += 3 * a[0] + 2 * a[1] + a[2]\n"},
		{"reverse of int data indexes", "target += s * sum(x[reverse(k)[0:2] - 1])\n", "target += 1.5 * s\n"},
		{"sort_asc of int data indexes", "target += s * sum(x[sort_asc(k)[0:2]])\n", "target += -3 * s\n"},
		{"sort_indices_asc", "target += s * sum(x[sort_indices_asc(x)] .* [1, 2, 3, 4, 5])\n", "target += s * dot_product(sort_asc(x), [1, 2, 3, 4, 5])\n"},
		{"sort_indices_desc", "target += a[sort_indices_desc(x)[0] - 1]\n", "target += a[1]\n"},
		{"rank", "target += a[rank(x, 2) - 2]\n", "target += a[2]\n"},
		{"matrix_power", "target += sum(matrix_power(M, 5))\n", "target += sum(M * M * M * M * M)\n"},
		{"matrix_power 0", "target += sum(matrix_power(M, 0)) * s\n", "target += 3 * s\n"},
		{"to_matrix of a vector", "let R = to_matrix(append_row(a, a), 2, 3)\ntarget += R[0, 0] + 2 * R[1, 0] + 3 * R[0, 1] + 5 * R[1, 1]\n",
			"target += 6 * a[0] + 2 * a[1] + 3 * a[2]\n"},
		{"to_matrix of a matrix", "target += sum(to_matrix(M, 1, 9) .* to_vector(M)')\n", "target += dot_self(to_vector(M))\n"},
		{"mdivide_right_tri_low", "target += sum(mdivide_right_tri_low(a', chol(tcrossprod(M) + I(3))))\n",
			"target += sum(a' * inverse(chol(tcrossprod(M) + I(3))))\n"},
		{"eigenvalues_sym", "target += dot_product(eigenvalues_sym(tcrossprod(M)), [1, 2, 3])\n", "target += 0\n"},
		{"eigenvectors_sym", "target += sum(eigenvectors_sym(tcrossprod(M)) .* tcrossprod(M))\n", "target += 0\n"},
		{"eigenvalues_sym trace", "target += sum(eigenvalues_sym(tcrossprod(M)))\n", "target += trace(tcrossprod(M))\n"},
		{"singular_values", "target += sum(square(singular_values(M)))\n", "target += dot_self(to_vector(M))\n"},
		{"matrix_exp determinant", "target += log(determinant(matrix_exp(M)))\n", "target += trace(M)\n"},
	} {
		m := compileSrc(t, "a.gpp", decls+c.f, nil, in)
		if !strings.Contains(c.plain, "target += 0\n") {
			plain := compileSrc(t, "b.gpp", decls+c.plain, nil, in)
			wantSameLogJointAt(t, c.name, m, plain, [][]float64{{0.1, 0.4, -1.2, 0.3}, {-0.5, 0.9, 0.3, -0.2}})
		}
		checkGradient(t, m, 7, 0.5)
	}
}

// TestMatrixFuncsCompileErrors: sizes and indices that only the data
// fix are checked when the model compiles, at the argument.
func TestMatrixFuncsCompileErrors(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"x": [0.5, -1.5, 2.25, 0.0, 1.0]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: js}
	wantCompileErrors(t, "m.gpp", "", in, []srcWant{
		{"data x: real[N]\nparam a: real\ntarget += a * sum(to_matrix(x, 2, 3))\n", "m.gpp:3:29: to_matrix: x has 5 elements but [2, 3] holds 6"},
		{"data x: real[N]\nparam a: real\ntarget += a * rank(x, N)\n", "m.gpp:3:23: rank: index 5 is out of range for length 5 (s counts from 0)"},
	})
}

// The step functions of params (rank, sort_indices_*, the rounding
// functions) are evaluated in outputs at each point, as they are of data:
// each against the definition computed here, at random points and at one
// with ties (kept in index order), and with the log joint's gradient
// untouched by them.
func TestStepFunctionsOfParamsInOutputs(t *testing.T) {
	const src = `param a: real[4] ~ Normal(0, 1)
let d = append_row(0, a)
output r0 = rank(d, 0)
output r3 = rank(d, 3)
output up = sort_indices_asc(d)
output down = sort_indices_desc(d)
output f = floor(3 * a)
output c = ceil(3 * a)
output n = round(3 * a)
output z = trunc(3 * a)
`
	m := compileSrc(t, "steps.gpp", src, nil)
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	points := append(randomPoints(9, 6, m.Dim), []float64{0.5, 0, 0.5, -1})
	for _, x := range points {
		_, outs, err := ev.Eval(x)
		if err != nil {
			t.Fatal(err)
		}
		d := append([]float64{0}, x...)
		rank := func(s int) float64 {
			r := 0
			for _, v := range d {
				if v < d[s] {
					r++
				}
			}
			return float64(r)
		}
		order := func(desc bool) []float64 {
			idx := []int{0, 1, 2, 3, 4}
			sort.SliceStable(idx, func(i, j int) bool {
				if desc {
					return d[idx[i]] > d[idx[j]]
				}
				return d[idx[i]] < d[idx[j]]
			})
			out := make([]float64, len(idx))
			for i, k := range idx {
				out[i] = float64(k)
			}
			return out
		}
		elem := func(f func(float64) float64) []float64 {
			out := make([]float64, len(x))
			for i, v := range x {
				out[i] = f(3 * v)
			}
			return out
		}
		want := [][]float64{{rank(0)}, {rank(3)}, order(false), order(true),
			elem(math.Floor), elem(math.Ceil), elem(math.Round), elem(math.Trunc)}
		for i, o := range m.Outputs {
			if !slices.Equal(outs[i], want[i]) {
				t.Errorf("at %v: %s = %v, want %v", x, o.Name, outs[i], want[i])
			}
		}
	}
	checkGradient(t, m, 5, 0.5)
}
