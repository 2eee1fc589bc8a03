package compile

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// mvLogPDFData is five rows [5, 2] for the logpdf tests of the
// multivariate normals.
func mvLogPDFData(t *testing.T) data.Input {
	t.Helper()
	return jsonData(t, `{"Y": [[0.3, -1.2], [2.5, 0.4], [-0.7, 1.9], [1.1, 1.0], [-2.2, -0.5]]}`)
}

// mvPts is two points of a model's coordinates, away from zero.
func mvPts(m *Model) [][]float64 {
	z := [][]float64{make([]float64, m.Dim), make([]float64, m.Dim)}
	for i := range m.Dim {
		z[0][i], z[1][i] = 0.1+0.13*float64(i), 0.4-0.21*float64(i)
	}
	return z
}

// target += sum(logpdf(Y, D(...))) is Y ~ D(...), log joint and gradient,
// for MvNormal, MvNormalRows and MvNormalCholesky, the mean shared ([2],
// a row [1, 2]) or a row per row of Y, the value data or a param; and
// logpdf of one vector [d] is a scalar, the ~ of that vector.
func TestLogPDFMvNormalSumsToTilde(t *testing.T) {
	in := mvLogPDFData(t)
	const head = "data Y: real[5, 2]\nparam mu: real[2]\nparam b: real\nparam S: cov_matrix[2]\nparam L: cholesky_factor_cov[2]\nparam X: real[3, 2]\n"
	for _, c := range []struct{ v, lik string }{
		{"Y", "MvNormal(mu, S)"},
		{"Y", "MvNormal(mu', S)"},
		{"Y", "MvNormal(b * Y, S)"},
		{"Y", "MvNormalRows(mu', S)"},
		{"Y", "MvNormalCholesky(mu, L)"},
		{"Y", "MvNormalCholesky(b * Y, L)"},
		{"Y[1]", "MvNormal(mu, S)"},
		{"Y[1]", "MvNormalCholesky(mu', L)"},
		{"X", "MvNormal(mu, S)"},
		{"X[2]", "MvNormalCholesky(mu, L)"},
	} {
		sum := "sum(logpdf(" + c.v + ", " + c.lik + "))"
		if strings.Contains(c.v, "[") {
			sum = "logpdf(" + c.v + ", " + c.lik + ")" // a scalar: sum would hide a vector
		}
		a := compileSrc(t, "a.gpp", head+"target += "+sum+"\n", nil, in)
		b := compileSrc(t, "b.gpp", head+c.v+" ~ "+c.lik+"\n", nil, in)
		wantSameLogJointAt(t, "logpdf("+c.v+", "+c.lik+")", a, b, mvPts(a))
	}
}

// The two-component mixture of bivariate normals with full covariances
// (Stan's log_mix of two multi_normal_lpdf per y[n]): log_mix of the
// vectors of per-row log densities, against the same mixture with each
// bivariate normal written out by hand from Sigma's entries, log joint and
// gradient, and the gradient against central differences.
func TestLogPDFMvNormalMixture(t *testing.T) {
	in := mvLogPDFData(t)
	const head = `data Y: real[5, 2]
param w: unit ~ Beta(2, 2)
param mu1: real[2] ~ Normal(0, 5)
param mu2: real[2] ~ Normal(0, 5)
param S1: cov_matrix[2] ~ Wishart(4, I(2))
param S2: cov_matrix[2] ~ Wishart(4, I(2))
`
	const hand = `fn bvn(x, y, mx, my, a, c, d) = -1.8378770664093453 - 0.5 * log(a * d - c^2) - 0.5 / (a * d - c^2) * (d * (x - mx)^2 - 2 * c * (x - mx) .* (y - my) + a * (y - my)^2)
let l1 = bvn(Y[:, 0], Y[:, 1], mu1[0], mu1[1], S1[0, 0], S1[1, 0], S1[1, 1])
let l2 = bvn(Y[:, 0], Y[:, 1], mu2[0], mu2[1], S2[0, 0], S2[1, 0], S2[1, 1])
target += sum(log_mix(w, l1, l2))
`
	ref := compileSrc(t, "hand.gpp", head+hand, nil, in)
	for _, mix := range []string{
		"target += sum(log_mix(w, logpdf(Y, MvNormal(mu1, S1)), logpdf(Y, MvNormal(mu2, S2))))\n",
		"let l1 = logpdf(Y, MvNormalRows(mu1', S1))\nlet l2 = logpdf(Y, MvNormalRows(mu2', S2))\ntarget += sum(log_mix(w, l1, l2))\n",
		"target += sum(log_sum_exp(log(w) + logpdf(Y, MvNormalCholesky(mu1, chol(S1))), log1m(w) + logpdf(Y, MvNormalCholesky(mu2, chol(S2)))))\n",
	} {
		m := compileSrc(t, "mix.gpp", head+mix, nil, in)
		wantSameLogJointAt(t, strings.TrimSpace(mix), m, ref, mvPts(m))
		checkGradient(t, m, 5, 0.5)
	}
}
