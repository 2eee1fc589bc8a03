package data

import (
	"slices"
	"testing"
)

// TestArrayRows: a subset of rows (gpp kfold's folds) keeps each cell's
// place in the file, a matrix's row by row, and its missing cells.
func TestArrayRows(t *testing.T) {
	info := checked(t, "data X: real[N, 2]\ndata y: real[N]\nparam mu: real ~ Normal(0, 1)\ny ~ Normal(mu + X[, 0], 1)\n")
	bound, err := Bind(info, []Input{csvInput(t, "", "m.csv", "y,X.1,X.2\n10,1,2\nNA,3,4\n30,5,6\n")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if bound["X"] == nil || bound["y"] == nil {
		t.Fatalf("bound %v", bound)
	}
	rows := []int{0, 2, 1, 2}
	for _, name := range []string{"X", "y"} {
		a := bound[name]
		sub := a.Rows(rows)
		w := len(a.Values) / a.Shape[0]
		if sub.Shape[0] != 4 || len(sub.Values) != 4*w {
			t.Fatalf("%s: shape %v, %d values", name, sub.Shape, len(sub.Values))
		}
		for i := range sub.Values {
			j := rows[i/w]*w + i%w
			if at, want := sub.Locate(i), a.Locate(j); at != want || at.Line != rows[i/w]+2 {
				t.Errorf("%s element %d at %s, want %s (element %d)", name, i, at, want, j)
			}
			if v, want := sub.Values[i], a.Values[j]; v != want && !(v != v && want != want) {
				t.Errorf("%s element %d = %g, want %g", name, i, v, want)
			}
		}
	}
	if m := bound["y"].Rows(rows).Missing; !slices.Equal(m, []int{2}) {
		t.Errorf("y's missing cells %v, want [2]", m)
	}
}
