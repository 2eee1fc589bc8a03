package data

import (
	"math"
	"strings"
	"testing"
)

// TestDesignNotes: a real matrix that the model uses as a design matrix
// (X * b) with a constant column, or with a column repeated, is noted by
// its columns' names (a JSON matrix by index); a column with a missing
// cell, an int matrix and a matrix of fewer than designMinRows rows are
// not.
func TestDesignNotes(t *testing.T) {
	const design = "data X: real[N, D]\nparam b: real[D]\nlet m = X * b\n"
	f, info := checkedFile(t, design)
	for _, c := range []struct{ model, src, want string }{
		{design, "a,b,c\n1,1,3\n2,1,5\n4,1,6\n",
			"d.csv: `X` has a constant column, b = 1 in every row: its coefficient is collinear with an intercept, if the model has one, so that only the priors tell the two apart (lm gives NA); drop it, unless it is the intercept"},
		{design, "a,b,c,d\n0,1,3,0\n0,1,5,0\n0,1,6,0\n",
			"d.csv: `X` has 3 constant columns, a = 0, b = 1, d = 0 in every row: their coefficients are collinear with an intercept"},
		{design, "a,b,c,d\n1,2,1,2\n2,3,2,3\n4,5,4,7\n",
			"d.csv: `X` has identical columns, c = a: the coefficients of a pair share one effect"},
		{design, "a,b,c\n1,2,3\n2,3,4\n4,5,7\n", ""},
		{design, "a,b\n1,1\n2,1\n", ""},                                                      // two rows
		{"data X: int[N, D]\nparam b: real[D]\nlet m = X * b\n", "a,b\n1,1\n2,1\n3,1\n", ""}, // counts
		// through a let, and a row in a loop by dot_product
		{"data X: real[N, D]\nparam b: real[D]\nlet Z = 2 * X\nlet m = Z * b\n", "a,b\n1,1\n2,1\n3,1\n", "d.csv: `X` has a constant column, b = 1"},
		{"data X: real[N, D]\nparam b: real[D]\nfor n in 0:N {\n  target += dot_product(X[n], b)\n}\n", "a,b\n1,1\n2,1\n3,1\n", "d.csv: `X` has a constant column, b = 1"},
		// a choice's attribute per alternative, read elementwise or
		// scaled: its columns are alternatives, none a coefficient's
		{"data X: real[N, D]\nparam b: real\nlet m = b * X\n", "a,b,c\n1,1,3\n2,1,5\n4,1,6\n", ""},
		{"data X: real[N, D]\nparam b: real[N]\nlet m = b .* X\n", "a,b,c\n1,2,1\n2,3,2\n4,5,4\n", ""},
		// a product of data alone (a convolution of cases by a generation
		// interval's matrix) has no coefficients
		{"data X: real[N, D]\nparam r: positive\nlet m = r * (X * X')\n", "a,b,c\n1,1,3\n2,1,5\n4,1,6\n", ""},
		{"data X: real[N, D]\nparam b: real\nfor n in 0:N {\n  target += b * dot_product(X[n], X[n])\n}\n", "a,b\n1,1\n2,1\n3,1\n", ""},
		// a covariance's factor (an animal model's LG * z, G duplicated
		// individuals) is no design matrix; G itself times params is
		{"data X: real[N, N]\nparam z: real[N]\nlet LG = chol(X)\nlet u = LG * z\n", "a,b,c\n1,1,0\n1,1,0\n0,0,1\n", ""},
		{"data X: real[N, N]\nparam z: real[N]\nlet u = inverse(0.9 * X + 0.1 * I(N)) * z\n", "a,b,c\n1,1,0\n1,1,0\n0,0,1\n", ""},
		{"data X: real[N, N]\nparam z: real[N]\nlet u = (0.9 * X + 0.1 * I(N)) * z\n", "a,b,c\n1,1,0\n1,1,0\n0,0,1\n", "d.csv: `X` has identical columns, b = a"},
	} {
		f, info := checkedFile(t, c.model) // shadows: the int matrix's
		bound, err := Bind(info, []Input{csvInput(t, "X", "d.csv", c.src)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		notes, warns := DesignNotes(f, info, bound)
		got := strings.Join(notes, "\n")
		if c.want == "" && got != "" || !strings.HasPrefix(got, c.want) || len(warns) > 0 {
			t.Errorf("%s: %s: notes %q, want %q; warnings %q", c.model, strings.ReplaceAll(c.src, "\n", " "), got, c.want, warns)
		}
	}
	// a column with a missing cell (X fitted where missing) is left out
	nan := math.NaN()
	bound := map[string]*Array{"X": {Name: "X", Shape: []int{3, 3}, Values: []float64{1, 2, 1, nan, 2, nan, 3, 2, 3}, Missing: []int{3, 5}, Columns: []string{"a", "b", "c"}}}
	notes, _ := DesignNotes(f, info, bound)
	if got, want := strings.Join(notes, "\n"), "X: `X` has a constant column, b = 2 in every row"; !strings.HasPrefix(got, want) || strings.Contains(got, "identical") {
		t.Errorf("missing: notes %q, want %q alone", got, want)
	}
	// JSON: no names, the columns by 0-based index, as the model slices them
	bound, err := Bind(info, []Input{jsonInput(t, "d.json", `{"X": [[1, 5, 5], [2, 6, 6], [3, 8, 8]]}`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	notes, _ = DesignNotes(f, info, bound)
	if got, want := strings.Join(notes, "\n"), "d.json: `X` has identical columns, X[:, 2] = X[:, 1]"; !strings.HasPrefix(got, want) {
		t.Errorf("JSON: notes %q, want %q", got, want)
	}
}

// TestDesignConstantWarning: a real matrix constant in every cell (a
// choice's feature coded 0 for every alternative) is a warning naming
// its value and where the model reads it, not a note, whether the model
// multiplies it by a scalar (elementwise) or uses it as a design matrix
// of two columns or more; a design matrix of one column of 1s (an
// intercept) keeps its note.
func TestDesignConstantWarning(t *testing.T) {
	for _, c := range []struct{ model, src, warn, note string }{
		{"data X: real[N, D]\nparam b: real\nlet m = b * X\n", "a,b,c\n0,0,0\n0,0,0\n0,0,0\n",
			"d.csv: `X` is 0 in every cell (3 rows × 3 columns): it carries no information, so a coefficient that multiplies it (read at m.gpp:3:13) is set by its prior alone", ""},
		{"data X: real[N, D]\nparam b: real[D]\nlet m = X * b\n", "a,b\n1,1\n1,1\n1,1\n",
			"d.csv: `X` is 1 in every cell (3 rows × 2 columns)", ""},
		{"data X: real[N, D]\nparam b: real[D]\nlet m = X * b\n", "a\n1\n1\n1\n",
			"", "d.csv: `X` has a constant column, a = 1 in every row"},
		// constant columns of different values: no warning, and no note
		// where X is not a design matrix
		{"data X: real[N, D]\nparam b: real\nlet m = b * X\n", "a,b\n0,1\n0,1\n0,1\n", "", ""},
	} {
		f, info := checkedFile(t, c.model)
		bound, err := Bind(info, []Input{csvInput(t, "X", "d.csv", c.src)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		notes, warns := DesignNotes(f, info, bound)
		got, gotNote := strings.Join(warns, "\n"), strings.Join(notes, "\n")
		if c.warn == "" && got != "" || !strings.HasPrefix(got, c.warn) || c.note == "" && gotNote != "" || !strings.HasPrefix(gotNote, c.note) {
			t.Errorf("%s: %s: warnings %q, want %q; notes %q, want %q", c.model, strings.ReplaceAll(c.src, "\n", " "), got, c.warn, gotNote, c.note)
		}
	}
}
