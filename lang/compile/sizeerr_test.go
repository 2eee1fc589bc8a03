package compile

import (
	"strings"
	"testing"
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
