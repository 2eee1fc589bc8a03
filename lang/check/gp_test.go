package check_test

import (
	"testing"

	"github.com/gpplang/gpp/dist"
)

// The covariance functions give [n, n] of a vector [n] or of n points by
// rows [n, d], and their two-input forms [n1, n2], with positive entries;
// add_diag keeps K's shape, positive when K is positive and d
// non-negative.
func TestGPShapesAndSupports(t *testing.T) {
	src := "data x: real[N]\ndata X: real[M, D]\ndata u: real[N]\n" +
		"param alpha: positive ~ HalfNormal(1)\nparam rho: positive ~ InvGamma(5, 5)\nparam s: real ~ Normal(0, 1)\n" +
		"let a = gp_exp_quad_cov(x, alpha, rho)\nlet b = gp_matern32_cov(X, alpha, rho)\nlet c = gp_periodic_cov(x, alpha, rho, 2)\n" +
		"let d = add_diag(gp_exp_quad_cov(X, 1, rho), square(s))\nlet e = add_diag(gp_exponential_cov(x, alpha, 1), s)\n" +
		"let f = add_diag(gp_matern52_cov(x, alpha, rho), u)\nlet g = add_diag(I(3), [1, 0, 2])\n" +
		"data w: real[K]\ndata W: real[L, D]\nparam z: real[3] ~ Normal(0, 1)\n" +
		"let h = gp_exp_quad_cov(w, x, alpha, rho)\nlet i = gp_periodic_cov(X, W, alpha, rho, 2)\nlet j = gp_exp_quad_cov(x, z, alpha, rho)\n" +
		"let k = gp_matern32_cov(W, X, alpha, rho)\n"
	f, info := checkSource(t, "m.gpp", src, nil)
	for _, c := range []struct {
		text, shape string
		support     dist.Support
	}{
		{"gp_exp_quad_cov(x, alpha, rho)", "[N, N]", dist.Positive},
		{"gp_matern32_cov(X, alpha, rho)", "[M, M]", dist.Positive},
		{"gp_periodic_cov(x, alpha, rho, 2)", "[N, N]", dist.Positive},
		{"add_diag(gp_exp_quad_cov(X, 1, rho), square(s))", "[M, M]", dist.Positive},
		{"add_diag(gp_exponential_cov(x, alpha, 1), s)", "[N, N]", dist.Real},
		{"add_diag(gp_matern52_cov(x, alpha, rho), u)", "[N, N]", dist.Real},
		{"add_diag(I(3), [1, 0, 2])", "[3, 3]", dist.NonNegative},
		{"gp_exp_quad_cov(w, x, alpha, rho)", "[K, N]", dist.Positive},
		{"gp_periodic_cov(X, W, alpha, rho, 2)", "[M, L]", dist.Positive},
		{"gp_exp_quad_cov(x, z, alpha, rho)", "[N, 3]", dist.Positive},
		{"gp_matern32_cov(W, X, alpha, rho)", "[L, M]", dist.Positive},
	} {
		e := findExpr(t, f, src, c.text)
		ty := info.Types[e]
		if got := ty.Shape.String(); got != c.shape {
			t.Errorf("%s: shape %s, want %s", c.text, got, c.shape)
		}
		if ty.Support != c.support {
			t.Errorf("%s: support %v, want %v", c.text, ty.Support, c.support)
		}
	}
}
