package data

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/parser"
)

// TestMatrixData: data declared cov_matrix, corr_matrix,
// cholesky_factor_cov or cholesky_factor_corr is checked as Stan checks
// it when it loads, each error at the cell (an asymmetric pair, a
// diagonal, an entry above the diagonal, a row's norm) or, for a matrix
// not positive definite, at the matrix's key, naming its smallest
// eigenvalue; valid ones (a PSD matrix's rounding asymmetry within 1e-8
// too) bind. Real data read as abs or fmax of its eigenvalues_sym is
// refused where it has an eigenvalue below zero beyond rounding.
func TestMatrixData(t *testing.T) {
	const cov = "data C: cov_matrix[K]\n"
	for _, c := range []struct {
		name, model, json string
		want              string // "" binds
	}{
		{"cov_matrix", cov, `{"C": [[2, 0.5], [0.5, 1]]}`, ""},
		{"cov_matrix within tolerance", cov, `{"C": [[2, 0.5], [0.500000000001, 1]]}`, ""},
		{"cov_matrix not symmetric", cov, `{"C": [[2, 0.5], [0.4, 1]]}`,
			"d.json:1:12: C: element [0, 1] is 0.5 but [1, 0] is 0.4: not symmetric (to within 1e-08), as a cov_matrix needs; `C` is declared cov_matrix[K] at m.gpp:1:6\x00"},
		{"cov_matrix indefinite", cov, `{"C": [[1, 1.5, 0], [1.5, 1, 0], [0, 0, 1]]}`,
			"d.json:1:7: C: not positive definite, as a cov_matrix needs: its smallest eigenvalue is -0.5 (the largest 2.5) (Cholesky fails at leading minor 2); `C` is declared cov_matrix[K] at m.gpp:1:6\x00"},
		{"cov_matrix singular", cov, `{"C": [[1, 1], [1, 1]]}`,
			"C: not positive definite, as a cov_matrix needs: its smallest eigenvalue is 0 (the largest 2) (Cholesky fails at leading minor 2)"},
		{"cov_matrix not square", cov, `{"C": [[1, 0, 0], [0, 1, 0]]}`, "size K is 3 here"},
		{"corr_matrix", "data C: corr_matrix[K]\n", `{"C": [[1, 0.3], [0.3, 1]]}`, ""},
		{"corr_matrix diagonal", "data C: corr_matrix[K]\n", `{"C": [[1, 0.3], [0.3, 1.5]]}`,
			"d.json:1:24: C: diagonal element [1, 1] is 1.5, not 1 (to within 1e-08), as a corr_matrix needs; `C` is declared corr_matrix[K] at m.gpp:1:6\x00"},
		{"corr_matrix indefinite", "data C: corr_matrix[K]\n", `{"C": [[1, 0.9, -0.9], [0.9, 1, 0.9], [-0.9, 0.9, 1]]}`,
			"C: not positive definite, as a corr_matrix needs: its smallest eigenvalue is -0.8"},
		{"cholesky_factor_cov", "data L: cholesky_factor_cov[K]\n", `{"L": [[2, 0], [-1, 0.5]]}`, ""},
		{"cholesky_factor_cov above the diagonal", "data L: cholesky_factor_cov[K]\n", `{"L": [[2, 0.1], [-1, 0.5]]}`,
			"d.json:1:12: L: element [0, 1] is 0.1, above the diagonal, where a cholesky_factor_cov, lower triangular, has 0; `L` is declared cholesky_factor_cov[K] at m.gpp:1:6\x00"},
		{"cholesky_factor_cov diagonal", "data L: cholesky_factor_cov[K]\n", `{"L": [[2, 0], [-1, 0]]}`,
			"d.json:1:21: L: diagonal element [1, 1] is 0, not > 0, as a cholesky_factor_cov needs"},
		{"cholesky_factor_corr", "data L: cholesky_factor_corr[K]\n", `{"L": [[1, 0], [0.6, 0.8]]}`, ""},
		{"cholesky_factor_corr row norm", "data L: cholesky_factor_corr[K]\n", `{"L": [[1, 0], [0.6, 0.9]]}`,
			"d.json:1:17: L: row 1 has norm 1.0816653826391966, not 1 (to within 1e-08), as a cholesky_factor_corr needs (its L L' a correlation matrix)"},
		// eigenbasis clamps of real data
		{"abs of an indefinite matrix", "data C: real[N, N]\nlet d = abs(eigenvalues_sym(C))\n", `{"C": [[1, 1.5, 0], [1.5, 1, 0], [0, 0, 1]]}`,
			"d.json:1:7: C: its smallest eigenvalue is -0.5 (the largest 2.5): the matrix is not positive semidefinite, as a covariance matrix is, and abs(eigenvalues_sym(C)) at m.gpp:2:9 would turn that eigenvalue positive in silence, fitting another matrix; mend the data (an indefinite matrix comes of pairwise estimates or imputed values), or declare `C` cov_matrix[N] to have it checked positive definite when it loads; `C` is declared real[N, N] at m.gpp:1:6\x00"},
		{"abs of an indefinite matrix in parentheses", "data C: real[N, N]\nlet d = abs((eigenvalues_sym((C))))\n", `{"C": [[1, 1.5, 0], [1.5, 1, 0], [0, 0, 1]]}`,
			"abs(eigenvalues_sym(C)) at m.gpp:2:9 would turn that eigenvalue positive in silence"},
		{"fmax of an indefinite matrix", "data C: real[N, N]\nlet d = fmax(eigenvalues_sym(C), 1e-12)\n", `{"C": [[1, 1.5, 0], [1.5, 1, 0], [0, 0, 1]]}`,
			"fmax(eigenvalues_sym(C), ...) at m.gpp:2:9 would raise that eigenvalue to its floor in silence"},
		// X X' of X 4×2: rank 2, its smallest eigenvalue -1.3e-16 by rounding
		{"abs of a singular matrix", "data C: real[N, N]\nlet d = abs(eigenvalues_sym(C))\n",
			`{"C": [[0.49999999999999994, -0.10999999999999999, 0.355, 0.5700000000000001], [-0.10999999999999999, 0.13, 0.26, -0.36], [0.355, 0.26, 1.3325000000000002, -0.34500000000000003], [0.5700000000000001, -0.36, -0.34500000000000003, 1.17]]}`, ""},
		{"eigenvalues without a clamp", "data C: real[N, N]\nlet d = eigenvalues_sym(C)\n", `{"C": [[1, 1.5, 0], [1.5, 1, 0], [0, 0, 1]]}`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := parser.ParseFile("m.gpp", []byte(c.model))
			if err != nil {
				t.Fatal(err)
			}
			info, err := check.Check(f, &check.Config{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = Bind(info, []Input{jsonInput(t, "d.json", c.json)}, nil)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("error %v, want none", err)
			case c.want == "":
			case err == nil:
				t.Fatalf("no error, want %q", c.want)
			case !strings.Contains(err.Error()+"\x00", c.want):
				t.Errorf("error:\n%v\nwant it to contain:\n%s", err, c.want)
			}
		})
	}
}
