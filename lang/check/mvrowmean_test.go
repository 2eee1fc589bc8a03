package check_test

import "testing"

// MvNormal and MvNormalRows take a mean with a row per row of a matrix
// value, as MvNormalCholesky does (Stan's array of means); a mean with
// other rows is refused at it, naming both shapes.
func TestMvNormalRowMeanShapes(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"param x: real[4, 2]\nx ~ MvNormal(rep_matrix(0, 4, 2), I(2))\n", ""},
		{"param x: real[4, 2]\nx ~ MvNormalRows(rep_matrix(0, 4, 2), I(2))\n", ""},
		{"param x: real[4, 2]\nx ~ MvNormal(rep_matrix(0, 3, 2), I(2))\n",
			"m.gpp:2:14: MvNormal argument 1 (mu): `rep_matrix(0, 3, 2)` is [3, 2]; for `x` of shape [4, 2] it must be a scalar, [2], [1, 2] or [4, 2] (a row per row)"},
		{"param x: real[4, 2]\nx ~ MvNormalRows(rep_matrix(0, 3, 2), I(2))\n",
			"m.gpp:2:18: MvNormalRows argument 1 (mu): `rep_matrix(0, 3, 2)` is [3, 2]; for `x` of shape [4, 2] it must be a scalar, [2], [1, 2] or [4, 2] (a row per row)"},
		{"param x: real[2]\nx ~ MvNormal(rep_matrix(0, 4, 2), I(2))\n",
			"m.gpp:2:14: MvNormal argument 1 (mu): `rep_matrix(0, 4, 2)` is [4, 2]; for `x` of shape [2] it must be a scalar, [2] or [1, 2]"},
	} {
		wantOneError(t, c.src, c.want)
	}
}
