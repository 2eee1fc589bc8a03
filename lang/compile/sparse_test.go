package compile

import (
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// csrInput is rstan's extract_sparse_parts example, A = [[19, 27, 0, 0],
// [0, 0, 0, 0], [0, 0, 0, 52], [81, 0, 95, 33]], both dense and as the
// 1-based w, v, u that rstan's documentation prints for it (w = 19 27 52
// 81 95 33, v = 1 2 4 1 3 4, u = 1 3 3 4 7).
func csrInput(t *testing.T) data.Input {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"A": [[19, 27, 0, 0], [0, 0, 0, 0], [0, 0, 0, 52], [81, 0, 95, 33]],
"w": [19, 27, 52, 81, 95, 33], "v": [1, 2, 4, 1, 3, 4], "u": [1, 3, 3, 4, 7]}`))
	if err != nil {
		t.Fatal(err)
	}
	return data.Input{File: "d.json", JSON: js}
}

const csrDecls = "data A: int[M, N]\ndata w: real[NZ]\ndata v: int[NZ]\ndata u: int[M + 1]\nparam b: real[N]\nparam s: positive\n"

// TestCSRExtract: csr_extract_w, csr_extract_v and csr_extract_u of
// rstan's example are its w, v - 1 and u - 1.
func TestCSRExtract(t *testing.T) {
	m := compileSrc(t, "a.gpp", csrDecls+"target += s * sum(b)\noutput ew = csr_extract_w(A)\noutput ev = csr_extract_v(A)\noutput eu = csr_extract_u(A)\noutput er = csr_extract_w(A * 0.5)\n", nil, csrInput(t))
	ev, err := m.NewEvaluator()
	if err != nil {
		t.Fatal(err)
	}
	_, outs, err := ev.Eval(make([]float64, m.Dim))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range [][]float64{{19, 27, 52, 81, 95, 33}, {0, 1, 3, 0, 2, 3}, {0, 2, 2, 3, 6}, {9.5, 13.5, 26, 40.5, 47.5, 16.5}} {
		if !slices.Equal(outs[i], want) {
			t.Errorf("%s = %v, want %v", m.Outputs[i].Name, outs[i], want)
		}
	}
}

// TestCSRModel: csr_matrix_times_vector and csr_to_dense_matrix through
// the compiler, on Stan's data shifted in the model and on the extracts,
// against the dense product (log joint and gradient), and the gradient
// against finite differences; w a param too.
func TestCSRModel(t *testing.T) {
	in := csrInput(t)
	dense := "target += -0.5 * dot_self(A * b - [1, -2, 0.5, 3]) / s + dot_product(s * b, [1, 2, 3, 4])\n"
	for _, c := range []plainCase{
		{"Stan's data", "target += -0.5 * dot_self(csr_matrix_times_vector(M, N, w, v - 1, u - 1, b) - [1, -2, 0.5, 3]) / s + dot_product(s * b, [1, 2, 3, 4])\n", dense},
		{"extracts", "let W = csr_extract_w(A)\nlet V = csr_extract_v(A)\nlet U = csr_extract_u(A)\ntarget += -0.5 * dot_self(csr_matrix_times_vector(M, N, W, V, U, b) - [1, -2, 0.5, 3]) / s + dot_product(s * b, [1, 2, 3, 4])\n", dense},
		{"to dense of data", "target += -0.5 * dot_self(csr_to_dense_matrix(M, N, w, v - 1, u - 1) * b - [1, -2, 0.5, 3]) / s + dot_product(s * b, [1, 2, 3, 4])\n", dense},
		{"w a param", "target += sum(csr_matrix_times_vector(M, N, s * w, v - 1, u - 1, b))\n", "target += s * sum(A * b)\n"},
		{"to dense of a param", "target += sum(csr_to_dense_matrix(M, N, s * w, v - 1, u - 1) .* (exp(b[0:M]) * b'))\n", "target += s * sum(A .* (exp(b[0:M]) * b'))\n"},
	} {
		checkGradient(t, wantSamePlain(t, csrDecls, in, [][]float64{{0.1, 0.4, -1.2, 0.3, 0.2}, {-0.5, 0.9, 0.3, -0.2, -1}}, c), 7, 0.5)
	}
}

// TestCSRCompileErrors: a sparsity pattern that the data make invalid is
// an error when the model compiles, at the faulty element's data cell
// or vector literal element (with where it is used), else at the
// argument, naming the element; Stan's
// 1-based v and u given as they are name the shift.
func TestCSRCompileErrors(t *testing.T) {
	in := csrInput(t)
	const call = "target += sum(csr_matrix_times_vector(M, N, w, %s, %s, b))\n"
	for _, c := range []struct{ v, u, want string }{
		{"v", "u - 1", "d.json:2:44: csr_matrix_times_vector: v[2] = 4 is out of range [0, 4) as a column index (used at m.gpp:7:48); column indices are 0-based and these run from 1 to 4, as Stan's 1-based ones do: pass v - 1"},
		{"v - 1", "u", "d.json:2:63: csr_matrix_times_vector: u[0] = 1, but the first row starts at 0 (u is 0-based) (used at m.gpp:7:55); Stan's u counts from 1: pass u - 1"},
		{"v - 1", "u - 2", "m.gpp:7:55: csr_matrix_times_vector: u[0] = -1, but the first row starts at 0 (u is 0-based)"},
		{"v - 1", "[0, 3, 2, 4, 6]", "m.gpp:7:62: csr_matrix_times_vector: u[2] = 2 is less than u[1] = 3: the rows' starts must not decrease (used at m.gpp:7:55)"},
		{"v - 1", "[0, 2, 2, 3, 5]", "m.gpp:7:68: csr_matrix_times_vector: u[4] = 5, but the last element of u is size(w) = 6 (used at m.gpp:7:55)"},
		{"v - 1", "[0, 2, 3, 6]", "m.gpp:7:55: csr_matrix_times_vector: u has 4 elements but the matrix has 4 rows: u holds where each row starts in w, then size(w), m + 1 = 5 in all"},
		{"[0, 1, 3, 0, 2]", "u - 1", "m.gpp:7:48: csr_matrix_times_vector: v has 5 elements but w has 6: v holds the column of each non-zero"},
		{"[0, 1, 3, 0, -2, 3]", "u - 1", "m.gpp:7:61: csr_matrix_times_vector: v[4] = -2 is out of range [0, 4) as a column index (used at m.gpp:7:48)"},
	} {
		src := csrDecls + strings.ReplaceAll(strings.Replace(call, "%s", c.v, 1), "%s", c.u)
		_, err := compileSrcErr(t, "m.gpp", src, nil, in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("v = %s, u = %s: error\n%v\nwant\n%s", c.v, c.u, err, c.want)
		}
	}
}
