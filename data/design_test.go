package data

import (
	"math"
	"strings"
	"testing"
)

// TestDesignNotes: a real matrix with a constant column, or with a column
// repeated, is noted by its columns' names (a JSON matrix by index); a
// column with a missing cell, an int matrix and a matrix of fewer than
// designMinRows rows are not.
func TestDesignNotes(t *testing.T) {
	info := checked(t, "data X: real[N, D]\n")
	for _, c := range []struct{ model, src, want string }{
		{"data X: real[N, D]\n", "a,b,c\n1,1,3\n2,1,5\n4,1,6\n",
			"d.csv: `X` has a constant column, b = 1 in every row: its coefficient is collinear with an intercept, if the model has one, so that only the priors tell the two apart (lm gives NA); drop it, unless it is the intercept"},
		{"data X: real[N, D]\n", "a,b,c,d\n0,1,3,0\n0,1,5,0\n0,1,6,0\n",
			"d.csv: `X` has 3 constant columns, a = 0, b = 1, d = 0 in every row: their coefficients are collinear with an intercept"},
		{"data X: real[N, D]\n", "a,b,c,d\n1,2,1,2\n2,3,2,3\n4,5,4,7\n",
			"d.csv: `X` has identical columns, c = a: the coefficients of a pair share one effect"},
		{"data X: real[N, D]\n", "a,b,c\n1,2,3\n2,3,4\n4,5,7\n", ""},
		{"data X: real[N, D]\n", "a,b\n1,1\n2,1\n", ""},     // two rows
		{"data X: int[N, D]\n", "a,b\n1,1\n2,1\n3,1\n", ""}, // counts
	} {
		info := checked(t, c.model) // shadows: the int matrix's
		bound, err := Bind(info, []Input{csvInput(t, "X", "d.csv", c.src)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(DesignNotes(info, bound), "\n")
		if c.want == "" && got != "" || !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: notes %q, want %q", strings.ReplaceAll(c.src, "\n", " "), got, c.want)
		}
	}
	// a column with a missing cell (X fitted where missing) is left out
	nan := math.NaN()
	bound := map[string]*Array{"X": {Name: "X", Shape: []int{3, 3}, Values: []float64{1, 2, 1, nan, 2, nan, 3, 2, 3}, Missing: []int{3, 5}, Columns: []string{"a", "b", "c"}}}
	if got, want := strings.Join(DesignNotes(info, bound), "\n"), "X: `X` has a constant column, b = 2 in every row"; !strings.HasPrefix(got, want) || strings.Contains(got, "identical") {
		t.Errorf("missing: notes %q, want %q alone", got, want)
	}
	// JSON: no names, the columns by 1-based index
	bound, err := Bind(info, []Input{jsonInput(t, "d.json", `{"X": [[1, 5, 5], [2, 6, 6], [3, 8, 8]]}`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(DesignNotes(info, bound), "\n"), "d.json: `X` has identical columns, X[, 3] = X[, 2]"; !strings.HasPrefix(got, want) {
		t.Errorf("JSON: notes %q, want %q", got, want)
	}
}
