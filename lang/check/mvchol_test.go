package check_test

import (
	"testing"

	"github.com/gpplang/gpp/dist"
)

// MvNormalCholesky's shape errors are at the argument (or the value) they
// blame, to the column; diag_pre_multiply's at v.
func TestMvNormalCholeskyPositions(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"param x: real[4, 2]\nx ~ MvNormalCholesky(rep_matrix(0, 3, 2), I(2))\n",
			"m.gpp:2:22: MvNormalCholesky argument 1 (mu): `rep_matrix(0, 3, 2)` is [3, 2]; for `x` of shape [4, 2] it must be a scalar, [2], [1, 2] or [4, 2] (a row per row)"},
		{"param x: real[3]\nx ~ MvNormalCholesky(0, I(2))\n",
			"m.gpp:2:25: MvNormalCholesky argument 2 (L): `I(2)` is [2, 2]; for `x` of shape [3] the Cholesky factor must be [3, 3]"},
		{"param x: real\nx ~ MvNormalCholesky(0, I(2))\n",
			"m.gpp:2:1: MvNormalCholesky models a vector [d] or a matrix [n, d] of independent rows; `x` is a scalar"},
		{"param tau: positive[3] ~ HalfNormal(1)\nlet M = diag_pre_multiply(tau, I(2))\n",
			"m.gpp:2:27: diag_pre_multiply: `tau` is [3] but `I(2)` ([2, 2]) has 2 rows; v needs one element per row"},
		{"param tau: positive[3] ~ HalfNormal(1)\nlet M = quad_form_diag(I(2), tau)\n",
			"m.gpp:2:30: quad_form_diag: `tau` is [3] but `I(2)` is [2, 2]; v needs one element per row of M"},
		{"param tau: positive[3] ~ HalfNormal(1)\nparam W: real[3, 2] ~ Normal(0, 1)\nlet M = quad_form_diag(W, tau)\n",
			"m.gpp:3:24: quad_form_diag expects a square matrix; `W` is [3, 2]"},
	} {
		wantOneError(t, c.src, c.want)
	}
}

// diag_pre_multiply and diag_post_multiply keep the product rule's
// support: positive v and a positive matrix give a positive matrix; with
// a real matrix (a cholesky_factor_corr's entries) the result is real;
// so does quad_form_diag.
func TestDiagMultiplySupport(t *testing.T) {
	src := "param tau: positive[2] ~ HalfNormal(1)\nparam W: positive[2, 2] ~ Gamma(1, 1)\nparam L: cholesky_factor_corr[2]\n" +
		"let a = diag_pre_multiply(tau, W)\nlet b = diag_post_multiply(W, tau)\nlet c = diag_pre_multiply(tau, L)\n" +
		"let d = quad_form_diag(W, tau)\nlet e = quad_form_diag(L, tau)\n"
	f, info := checkSource(t, "m.gpp", src, nil)
	for text, want := range map[string]dist.Support{
		"diag_pre_multiply(tau, W)":  dist.Positive,
		"diag_post_multiply(W, tau)": dist.Positive,
		"diag_pre_multiply(tau, L)":  dist.Real,
		"quad_form_diag(W, tau)":     dist.Positive,
		"quad_form_diag(L, tau)":     dist.Real,
	} {
		e := findExpr(t, f, src, text)
		if got := info.Types[e].Support; got != want {
			t.Errorf("%s: support %v, want %v", text, got, want)
		}
		if s := info.Types[e].Shape.String(); s != "[2, 2]" {
			t.Errorf("%s: shape %s, want [2, 2]", text, s)
		}
	}
}
