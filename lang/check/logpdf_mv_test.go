package check_test

import "testing"

// logpdf of a multivariate normal is a log density per row: a vector [N]
// for a matrix [N, d], a scalar for a vector [d].
func TestLogPDFMvNormalType(t *testing.T) {
	src := "data Y: real[N, 2]\nparam mu: real[2]\nparam S: cov_matrix[2]\nlet a = logpdf(Y, MvNormal(mu, S))\nlet b = logpdf(Y, MvNormalRows(mu', S))\nlet c = logpdf(Y, MvNormalCholesky(mu, chol(S)))\nlet d = logpdf(Y[0], MvNormal(mu, S))\n"
	f, info := checkSource(t, "m.gpp", src, nil)
	for _, c := range []struct{ expr, shape string }{
		{"logpdf(Y, MvNormal(mu, S))", "[N]"},
		{"logpdf(Y, MvNormalRows(mu', S))", "[N]"},
		{"logpdf(Y, MvNormalCholesky(mu, chol(S)))", "[N]"},
		{"logpdf(Y[0], MvNormal(mu, S))", "scalar"},
	} {
		tp := info.Types[findExpr(t, f, src, c.expr)]
		if got := tp.Shape.String(); got != c.shape || tp.DataOnly {
			t.Errorf("%s: shape %s (data-only %v), want %s of params", c.expr, got, tp.DataOnly, c.shape)
		}
	}
}

// logpdf's errors for the multivariate normals, at the value or argument
// they blame: a value of the wrong shape, and logcdf, which takes none of
// them.
func TestLogPDFMvNormalErrors(t *testing.T) {
	const head = "data Y: real[N, 2]\nparam mu: real[2]\nparam S: cov_matrix[2]\n"
	for _, c := range []struct{ src, want string }{
		{"target += logpdf(Y[0, 0], MvNormal(mu, S))\n", "m.gpp:4:18: MvNormal models a vector or matrix; `Y[0, 0]` is a scalar"},
		{"target += logpdf(Y[0], MvNormalRows(mu', S))\n", "m.gpp:4:18: MvNormalRows models a matrix (one row per draw); `Y[0]` is a vector [2]"},
		{"target += logpdf(Y, MvNormal(mu, I(3)))\n", "m.gpp:4:34: MvNormal argument 2 (Sigma): `I(3)` is [3, 3]; for `Y` of shape [N, 2] the covariance must be [2, 2]"},
		{"target += sum(logcdf(Y, MvNormal(mu, S)))\n", "m.gpp:4:25: logcdf takes an elementwise distribution; MvNormal is multivariate (use it with ~)"},
	} {
		wantOneError(t, head+c.src, c.want)
	}
}
