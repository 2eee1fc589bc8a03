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
