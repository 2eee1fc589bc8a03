package compile

import (
	"testing"

	"github.com/gpplang/gpp/data"
)

// TestGaussDataCovAtCompile: a covariance of data (here a let of data)
// that is not positive definite, under X[i] ~ MvNormal in a loop (lowered
// as vectors or unrolled) or under MvNormalRows, is found when the model
// is built, factored once there, with the words and position that its
// first evaluation gave, and the loop's first iteration.
func TestGaussDataCovAtCompile(t *testing.T) {
	const n = 6
	in := loopData(n)
	in.JSON["S"] = &data.Array{Name: "S", Shape: []int{3, 3}, Values: []float64{1, 0, 0, 0, -1, 0, 0, 0, 1}}
	head := loopHead + "data S: real[3, 3]\nlet Sig = S * 2\n"
	paramHead := loopHead + "data S: real[3, 3]\nlet Sig = S * (2 + 0 * a)\n"
	// the data's error names it with a data matrix's remedies; the same
	// covariance through a param gets the plain one, with S named as
	// itself indefinite
	const paramNote = "; the data S it is built from is itself not positive definite, its smallest eigenvalue -1 (the largest 1), the likely cause: declare S cov_matrix to have it checked when the data load"
	const dataNote = "; it is the data S, not built from params: a covariance or relationship matrix given as data is singular where rows are duplicated (an individual twice), or where it was estimated from fewer variables than its size (a genomic G from fewer markers than individuals), and indefinite where it was assembled from pairwise estimates or imputed values; blend it with the identity, 0.95 * S + 0.05 * I(N) or add_diag(S, lambda) with lambda small beside its diagonal"
	for _, tc := range []struct {
		name, body, want, wantParam string
	}{
		{"loop", "for i in 0:N {\n  X[i] ~ MvNormal(a, Sig)\n}",
			"m.gpp:20:10: MvNormal: covariance matrix is not positive definite (leading minor 2)" + dataNote + " at i = 0",
			"m.gpp:20:10: MvNormal: covariance matrix is not positive definite (leading minor 2)" + paramNote + " at i = 0"},
		{"rows", "X ~ MvNormalRows(a, Sig)",
			"m.gpp:19:5: MvNormalRows: covariance matrix is not positive definite (leading minor 2)" + dataNote,
			"m.gpp:19:5: MvNormalRows: covariance matrix is not positive definite (leading minor 2)" + paramNote},
	} {
		for _, unroll := range []bool{false, true} {
			unrollLoops = unroll
			_, err := compileSrcErr(t, "m.gpp", head+tc.body+"\n", nil, in)
			// the same covariance through a param (S * (2 + 0·a)):
			// factored at each evaluation, its error at the first
			m, errParam := compileSrcErr(t, "m.gpp", paramHead+tc.body+"\n", nil, in)
			unrollLoops = false
			if err == nil || err.Error() != tc.want {
				t.Errorf("%s (unrolled %v): compile error %v, want %q", tc.name, unroll, err, tc.want)
			}
			if errParam != nil {
				t.Fatal(errParam)
			}
			_, err = m.LogJoint(make([]float64, m.Dim), make([]float64, m.Dim))
			if err == nil || err.Error() != tc.wantParam {
				t.Errorf("%s (unrolled %v): error of a covariance of params %v, want %q", tc.name, unroll, err, tc.wantParam)
			}
		}
	}
}
