package compile

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// TestQRFuncsModel: the QR and SVD factors, chol2inv,
// generalized_inverse, symmetrize_from_lower_tri, trace_gen_quad_form,
// rows_dot_self, columns_dot_self and quantile, each through the checker
// and the compiler against the same quantity written with older
// built-ins (log joint at two points) and finite differences.
func TestQRFuncsModel(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(
		`{"x": [0.5, -1.5, 2.25, 0.0, 1.0], "X": [[1, 0.5], [-0.3, 2], [0.7, -1.1], [1.5, 0.2], [0.1, 0.9]], "D": [[1, 2], [2, 4], [3, 6]]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: js}
	const decls = "data x: real[5]\ndata X: real[5, 2]\ndata D: real[3, 2]\nparam a: real[3]\nparam s: positive\n" +
		"let M = append_col(append_col(a, [s, a[0], 1]), [0.5, -a[2], s])\n" +
		"let T = append_row(M, [a[1], 2, -s]')\n" + // [4, 3], a param
		"let W = [0.3, -1.2, 0.8, 2.0] * [1.5, -0.4, 0.7]'\n"
	for _, c := range []plainCase{
		{"qr_thin Q R", "target += sum(qr_thin_Q(T) * qr_thin_R(T) .* W)\n", "target += sum(T .* W)\n"},
		{"qr_thin_R norm", "target += dot_self(to_vector(qr_thin_R(T)))\n", "target += dot_self(to_vector(T))\n"},
		{"qr_thin_R Gram", "target += sum(crossprod(qr_thin_R(T)) .* M)\n", "target += sum(crossprod(T) .* M)\n"},
		{"qr_thin_Q projection", "target += sum(tcrossprod(qr_thin_Q(T)) * T .* W)\n", "target += sum(T .* W)\n"},
		{"qr_thin of a wide param", "target += sum(qr_thin_Q(T') * qr_thin_R(T') .* W')\n", "target += sum(T' .* W')\n"},
		{"qr_thin_Q columns", "target += sum(crossprod(qr_thin_Q(T))) * s\n", "target += 3 * s\n"},
		{"fat qr of data", "target += s * sum(qr_Q(X) * qr_R(X) .* X)\n", "target += s * dot_self(to_vector(X))\n"},
		{"qr_Q orthogonal", "target += s * sum(crossprod(qr_Q(X)))\n", "target += 5 * s\n"},
		{"svd of data", "target += s * sum(svd_U(X) * diag(singular_values(X)) * svd_V(X)' .* X)\n", "target += s * dot_self(to_vector(X))\n"},
		{"svd of a param", "target += sum(svd_U(T) * diag(singular_values(T)) * svd_V(T)' .* W)\n", "target += sum(T .* W)\n"},
		// svd_V(T') is svd_U(T) up to each column's sign: U U' agrees
		{"svd_V of a wide param", "target += sum(tcrossprod(svd_V(T')) .* tcrossprod(W))\n", "target += sum(tcrossprod(svd_U(T)) .* tcrossprod(W))\n"},
		{"chol2inv", "target += sum(chol2inv(chol(tcrossprod(M) + I(3))) .* M)\n", "target += sum(inverse(tcrossprod(M) + I(3)) .* M)\n"},
		{"generalized_inverse tall", "target += sum(generalized_inverse(T) .* W')\n", "target += sum(inverse(crossprod(T)) * T' .* W')\n"},
		{"generalized_inverse wide", "target += sum(generalized_inverse(T') .* W)\n", "target += sum(T * inverse(crossprod(T)) .* W)\n"},
		{"generalized_inverse square", "target += sum(generalized_inverse(M) .* M)\n", "target += sum(inverse(M) .* M)\n"},
		// a single row or column: A⁺ = Aᵀ / |A|², a matrix [3, 1] or [1, 3]
		{"generalized_inverse of a param row", "target += sum(generalized_inverse(a') .* to_matrix([1, -2, 0.5], 3, 1))\n",
			"target += dot_product(a / dot_self(a), [1, -2, 0.5])\n"},
		{"generalized_inverse of a param column", "target += sum(generalized_inverse(to_matrix(a, 3, 1)) .* [1, -2, 0.5]')\n",
			"target += dot_product(a / dot_self(a), [1, -2, 0.5])\n"},
		// a single column (one predictor's regression), which the tape
		// holds as a vector
		{"qr_thin of a param column", "target += sum(qr_thin_Q(to_matrix(a, 3, 1)) * qr_thin_R(to_matrix(a, 3, 1)) .* to_matrix([1, -2, 0.5], 3, 1))\n",
			"target += dot_product(a, [1, -2, 0.5])\n"},
		{"qr_R of a data column", "target += s * sum(qr_Q(to_matrix(x, 5, 1)) * qr_R(to_matrix(x, 5, 1)) .* to_matrix(x, 5, 1))\n", "target += s * dot_self(x)\n"},
		{"svd of a param column", "target += sum(svd_U(to_matrix(a, 3, 1)) * diag(singular_values(to_matrix(a, 3, 1))) * svd_V(to_matrix(a, 3, 1))' .* to_matrix([1, -2, 0.5], 3, 1))\n",
			"target += dot_product(a, [1, -2, 0.5])\n"},
		{"generalized_inverse of data", "target += sum(generalized_inverse(X) .* (a[0:2] * [1, 2, 3, 4, 5]'))\n",
			"target += sum(inverse(crossprod(X)) * X' .* (a[0:2] * [1, 2, 3, 4, 5]'))\n"},
		// rank 1: D = u v', D⁺ = D' / ‖D‖² = D' / 70, so sum(D⁺ .* D') = 1
		{"generalized_inverse of rank-deficient data", "target += s * sum(generalized_inverse(D) .* D')\n", "target += s\n"},
		{"symmetrize_from_lower_tri", "target += sum(symmetrize_from_lower_tri(M) .* W[0:3])\n",
			"target += sum(M .* W[0:3]) + W[0, 1] * (M[1, 0] - M[0, 1]) + W[0, 2] * (M[2, 0] - M[0, 2]) + W[1, 2] * (M[2, 1] - M[1, 2])\n"},
		{"trace_gen_quad_form", "target += trace_gen_quad_form(M, tcrossprod(T), T)\n", "target += trace(M * T' * tcrossprod(T) * T)\n"},
		{"rows_dot_self", "target += dot_product(rows_dot_self(T), [1, 2, 3, 4])\n", "target += dot_product(rowsum(T .* T), [1, 2, 3, 4])\n"},
		{"columns_dot_self", "target += sum(columns_dot_self(T) .* [1, -2, 3]')\n", "target += sum(colsum(T .* T) .* [1, -2, 3]')\n"},
		{"quantile", "target += s * quantile(x, 0.3) + dot_product(a, quantile(x, [0, 0.9, 1]))\n", "target += s * 0.1 + dot_product(a, [-1.5, 1.75, 2.25])\n"},
	} {
		m := wantSamePlain(t, decls, in, [][]float64{{0.1, 0.4, -1.2, 0.3}, {-0.5, 0.9, 0.3, -0.2}}, c)
		checkGradient(t, m, 7, 0.5)
	}
}

// TestQRFuncsCompileErrors: quantile's p and x are checked when the model
// compiles, at the argument; a rank-deficient matrix under
// generalized_inverse and a factor that is not one under chol2inv are
// errors at the call when the model is evaluated.
func TestQRFuncsCompileErrors(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"x": [0.5, -1.5, 2.25, 0.0, 1.0]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: js}
	wantCompileErrors(t, "m.gpp", "", in, []srcWant{
		{"data x: real[N]\nparam a: real\ntarget += a * quantile(x, 1.5)\n", "m.gpp:3:27: quantile: p 1.5 is outside [0, 1]"},
		{"data x: real[N]\nparam a: real\ntarget += a * sum(quantile(x, [0.5, -0.1]))\n", "m.gpp:3:31: quantile: p -0.1 (element 1) is outside [0, 1]"},
	})
	for _, c := range []struct{ src, want string }{
		{"param a: real\nlet A = [a, 2 * a]'\ntarget += sum(generalized_inverse(append_row(A, A)))\n", "m.gpp:3:15: "},
		{"param a: real\ntarget += sum(chol2inv(diag([1, a])))\n", "m.gpp:2:15: chol2inv: L's diagonal element [1, 1] is -0.5, not positive"},
	} {
		m := compileSrc(t, "m.gpp", c.src, nil)
		_, err := m.LogJoint([]float64{-0.5}, make([]float64, 1))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.src, err, c.want)
		}
	}
}
