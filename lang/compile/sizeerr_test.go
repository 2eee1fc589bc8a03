package compile

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// TestMatMulSizeErrorWithData: a matrix product whose sizes differ only
// once the data give them (z [J, 2] with J = 5) is an error at the
// product, and the two-index reads of its result after it are not blamed
// on their own (the product's failed value has no shape of its own): the
// user trial's error named only those reads, "got scalar".
func TestMatMulSizeErrorWithData(t *testing.T) {
	src := "data J: int\n" +
		"param sd: positive[2] ~ HalfNormal(1)\n" +
		"param z: real[J, 2] ~ Normal(0, 1)\n" +
		"let r = (diag(sd) * z)'\n" +
		"target += sum(r[:, 0]) + r[0, 1]\n"
	_, err := compileSrcErr(t, "m.gpp", src, map[string]string{"J": "5"})
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if !strings.Contains(msg, "m.gpp:4:19: matmul: inner dimensions do not match: [2, 2] * [5, 2]") {
		t.Errorf("error %q, want the product's at 4:19", msg)
	}
	if strings.Contains(msg, "two indices") {
		t.Errorf("error %q blames the reads of the failed product", msg)
	}
}

// TestMatMulInFnNamesCall: a row times a matrix in a user function's body,
// sized by the data (a wrapped Cauchy's r * cos(th - mu), r a row [1, 2]:
// user trial t77), is an error at the body's product that hints `.*` and
// names the call it was inlined at, as errors outside a function do.
func TestMatMulInFnNamesCall(t *testing.T) {
	src := "data N: int\n" +
		"fn f(th, r) = sum(r * cos(th))\n" +
		"param r: unit[2] ~ Beta(1, 1)\n" +
		"param th: real[N, 2] ~ Normal(0, 1)\n" +
		"target += f(th, r')\n"
	_, err := compileSrcErr(t, "m.gpp", src, map[string]string{"N": "6"})
	if err == nil {
		t.Fatal("no error")
	}
	const want = "m.gpp:2:21: matmul: inner dimensions do not match: [1, 2] * [6, 2]; `*` is a matrix product: `.*` multiplies elementwise, and [1, 2] .* [6, 2] is [6, 2] (in the call of f at m.gpp:5:11)"
	if msg := err.Error(); !strings.Contains(msg, want) {
		t.Errorf("error %q, want %q", msg, want)
	}
}

// TestMvNormalCovNotSquare: a covariance that is not square once the data
// give its sizes is an error at the MvNormal that names it as the user
// wrote it, not by the tape's op (gauss_rows_ss, a GP trial's slice
// K[1:N, :]).
func TestMvNormalCovNotSquare(t *testing.T) {
	src := "data y: real[N]\n" +
		"param rho: positive ~ InvGamma(5, 5)\n" +
		"let K = gp_exp_quad_cov(y, 1, rho)\n" +
		"y ~ MvNormal(0, K[1:N, :])\n"
	_, err := compileSrcErr(t, "m.gpp", src, nil, data.Input{File: "y.csv", Table: csvTable(t, "y.csv", "y", [][]float64{{1}, {2}, {3}})})
	if err == nil || err.Error() != "m.gpp:4:5: MvNormal: covariance matrix is [2, 3]: it must be square, [d, d]" {
		t.Errorf("error %v, want MvNormal's at 4:5", err)
	}
}
