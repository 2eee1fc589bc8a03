package compile

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// intTransposeData: y [6], the int matrix M [2, 3] of 0..5 by rows, and
// the int vector k.
func intTransposeData(t *testing.T, m string) data.Input {
	t.Helper()
	arrays, err := data.ReadJSON("d.json", strings.NewReader(`{"y": [0.5, -1, 2, 0.25, 3, -2],
"M": `+m+`, "k": [4, 0, 5]}`))
	if err != nil {
		t.Fatal(err)
	}
	return data.Input{File: "d.json", JSON: arrays}
}

const intTransposeDecls = "data y: real[6]\ndata M: int[2, 3]\ndata k: int[3]\nparam a: real ~ Normal(0, 1)\n"

// TestIntTransposeIndexes: the transpose of int data stays int (language.md
// §5 types k' and M' int), so it indexes, alone and through the shape-only
// built-ins: each index below equals the literal written out.
func TestIntTransposeIndexes(t *testing.T) {
	in := intTransposeData(t, "[[0, 1, 2], [3, 4, 5]]")
	for _, c := range []struct{ idx, ref string }{
		{"to_vector(M')", "[0, 1, 2, 3, 4, 5]"}, // M' by columns is M by rows
		{"to_vector(M)", "[0, 3, 1, 4, 2, 5]"},
		{"k'[0]", "[4, 0, 5]"}, // the one row of k'
		{"k'[0, 1:3]", "[0, 5]"},
		{"to_vector(k'[:, [2, 0]])", "[5, 4]"},
		{"M'[1]", "[1, 4]"}, // row 1 of M' is column 1 of M
		{"M'[:, 1]", "[3, 4, 5]"},
		{"to_vector(M'[1:3, 0:1])", "[1, 2]"},
		{"M''[1]", "[3, 4, 5]"},
		{"head(to_vector(M'), 4)", "[0, 1, 2, 3]"},
		{"tail(M'[2], 1)", "[5]"},
		{"segment(k'[0], 1, 2)", "[0, 5]"},
		{"append_row(k, M'[0])", "[4, 0, 5, 0, 3]"},
		{"to_vector(append_col(k, k)')", "[4, 4, 0, 0, 5, 5]"},
		{"append_row(k', M)[1]", "[0, 1, 2]"},
		{"to_vector(append_row(k', M)')", "[4, 0, 5, 0, 1, 2, 3, 4, 5]"},
	} {
		t.Run(c.idx, func(t *testing.T) {
			body := func(idx string) string {
				return intTransposeDecls + "y[" + idx + "] ~ Normal(a, 1)\ntarget += a * sum(cumsum(y[" + idx + "]))\n" // weighs by position
			}
			m, err := compileSrcErr(t, "m.gpp", body(c.idx), nil, in)
			if err != nil {
				t.Fatal(err)
			}
			ref := compileSrc(t, "ref.gpp", body(c.ref), nil, in)
			for _, x := range [][]float64{{0.3}, {-1.2}} {
				sameLogJoint(t, m, ref, "the indices written out", x, logJointTol, logJointTol)
			}
		})
	}
}

// TestIntTransposeRange: an index out of range that comes from int data
// through a transpose is reported at its cell in the data file.
func TestIntTransposeRange(t *testing.T) {
	in := intTransposeData(t, "[[0, 1, 2], [3, 9, 5]]")
	for _, idx := range []string{"to_vector(M')", "M'[1]", "head(to_vector(M'), 5)", "M'[:, 1]", "append_row(k, M'[1])"} {
		_, err := compileSrcErr(t, "m.gpp", intTransposeDecls+"y["+idx+"] ~ Normal(a, 1)\n", nil, in)
		if err == nil || !strings.Contains(err.Error(), "d.json:2:22: 9 is out of range [0, 6) as an index (used at m.gpp:5:3)") {
			t.Errorf("y[%s]: error %v, want it at M[1, 1]'s cell", idx, err)
		}
	}
}
