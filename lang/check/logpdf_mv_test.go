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
		{"target += sum(logcdf(Y, MvNormal(mu, S)))\n", "m.gpp:4:25: logcdf takes an elementwise distribution; MvNormal is multivariate (use it with ~); it has no logcdf in gpp, but logpdf gives its log density per row"},
	} {
		wantOneError(t, head+c.src, c.want)
	}
}

// logpdf of MvNormalPrec, MultiStudentT, MultiStudentTCholesky and
// Dirichlet is a log density per row, as the multivariate normals': a
// vector [N] for a matrix [N, d], a scalar for a vector [d], data-only
// when the value and the arguments are.
func TestLogPDFRowFamiliesType(t *testing.T) {
	src := "data Y: real[N, 2]\ndata P: real[N, 3]\ndata a: positive[3]\nparam mu: real[2]\nparam S: cov_matrix[2]\nparam nu: positive\nparam th: simplex[3]\n" +
		"let a1 = logpdf(Y, MvNormalPrec(mu, S))\nlet a2 = logpdf(Y, MultiStudentT(nu, mu', S))\nlet a3 = logpdf(Y, MultiStudentTCholesky(nu, Y, chol(S)))\n" +
		"let a4 = logpdf(Y[1], MultiStudentT(nu, mu, S))\nlet a5 = logpdf(P, Dirichlet(a))\nlet a6 = logpdf(th, Dirichlet(a))\nlet a7 = logpdf(P[0], Dirichlet(2))\n"
	f, info := checkSource(t, "m.gpp", src, nil)
	for _, c := range []struct {
		expr, shape string
		data        bool
	}{
		{"logpdf(Y, MvNormalPrec(mu, S))", "[N]", false},
		{"logpdf(Y, MultiStudentT(nu, mu', S))", "[N]", false},
		{"logpdf(Y, MultiStudentTCholesky(nu, Y, chol(S)))", "[N]", false},
		{"logpdf(Y[1], MultiStudentT(nu, mu, S))", "scalar", false},
		{"logpdf(P, Dirichlet(a))", "[N]", true},
		{"logpdf(th, Dirichlet(a))", "scalar", false},
		{"logpdf(P[0], Dirichlet(2))", "scalar", true},
	} {
		tp := info.Types[findExpr(t, f, src, c.expr)]
		if got := tp.Shape.String(); got != c.shape || tp.DataOnly != c.data {
			t.Errorf("%s: shape %s (data-only %v), want %s (data-only %v)", c.expr, got, tp.DataOnly, c.shape, c.data)
		}
	}
}

// logpdf's errors for MvNormalPrec, MultiStudentT and Dirichlet are the ~
// form's, at the value or argument they blame; logcdf and logccdf take
// none of them, and the families with no row density (Wishart, LKJ) stay
// refused.
func TestLogPDFRowFamiliesErrors(t *testing.T) {
	const head = "data Y: real[N, 2]\ndata P: real[N, 3]\nparam mu: real[2]\nparam S: cov_matrix[2]\n"
	for _, c := range []struct{ src, want string }{
		{"target += logpdf(Y[0, 0], MvNormalPrec(mu, S))\n", "m.gpp:5:18: MvNormalPrec models a vector [d] or a matrix [n, d] of independent rows; `Y[0, 0]` is a scalar"},
		{"target += sum(logpdf(Y, MvNormalPrec(mu, I(3))))\n", "m.gpp:5:42: MvNormalPrec argument 2 (Omega): `I(3)` is [3, 3]; for `Y` of shape [N, 2] the precision matrix must be [2, 2]"},
		{"target += sum(logpdf(Y, MultiStudentT(4, [1, 2, 3], S)))\n", "m.gpp:5:42: MultiStudentT argument 2 (mu): `[1, 2, 3]` is [3]; for `Y` of shape [N, 2] it must be a scalar, [2], [1, 2] or [N, 2] (a row per row)"},
		{"target += sum(logpdf(Y, MultiStudentTCholesky(4, mu, I(3))))\n", "m.gpp:5:54: MultiStudentTCholesky argument 3 (L): `I(3)` is [3, 3]; for `Y` of shape [N, 2] the Cholesky factor must be [2, 2]"},
		{"target += logpdf(P[0, 1], Dirichlet(1))\n", "m.gpp:5:18: Dirichlet models a vector or matrix; `P[0, 1]` is a scalar"},
		{"target += sum(logpdf(P, Dirichlet(rep(1, 2))))\n", "m.gpp:5:35: Dirichlet argument 1 (alpha): `rep(1, 2)` is [2]; for `P` of shape [N, 3] it must be a scalar, [3], [1, 3] or [N, 3] (a row per row)"},
		{"target += sum(logcdf(Y, MultiStudentT(4, mu, S)))\n", "m.gpp:5:25: logcdf takes an elementwise distribution; MultiStudentT is multivariate (use it with ~); it has no logcdf in gpp, but logpdf gives its log density per row"},
		{"target += logccdf(P[0], Dirichlet(1))\n", "m.gpp:5:25: logccdf takes an elementwise distribution; Dirichlet is multivariate (use it with ~); it has no logccdf in gpp, but logpdf gives its log density per row"},
		{"target += logcdf(Y, MvNormalPrec(mu, S))\n", "m.gpp:5:21: logcdf takes an elementwise distribution; MvNormalPrec is multivariate (use it with ~); it has no logcdf in gpp, but logpdf gives its log density per row"},
		{"target += logpdf(S, Wishart(3, I(2)))\n", "m.gpp:5:21: logpdf takes an elementwise distribution; Wishart is multivariate (use it with ~); logpdf takes Categorical, Multinomial, DirichletMultinomial, OrderedLogistic and their logit and probit forms too, and PoissonBinomial, a term per observation, and MvNormal, MvNormalRows, MvNormalCholesky, MvNormalPrec, MultiStudentT, MultiStudentTCholesky and Dirichlet, a term per row"},
	} {
		wantOneError(t, head+c.src, c.want)
	}
}
