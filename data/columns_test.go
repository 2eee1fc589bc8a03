package data

import (
	"slices"
	"strings"
	"testing"
)

// TestBindFittedColumns binds a matrix from the columns a fit recorded
// (MatrixColumns): a new file's columns of those names bind in the fit's
// order, whatever the file's, a column the fit did not bind is left out
// (noted), and one it lacks is an error at the header.
func TestBindFittedColumns(t *testing.T) {
	info := checked(t, "data X: real[N, D]\n")
	fit, err := Bind(info, []Input{csvInput(t, "X", "train.csv", "a,b,c\n1,2,3\n")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cols := MatrixColumns(info, fit)
	if !slices.Equal(cols["X"], []string{"a", "b", "c"}) {
		t.Fatalf("MatrixColumns = %v, want X: [a b c]", cols)
	}
	for _, c := range []struct{ src, note string }{
		{"a,b,c\n1,2,3\n4,5,6\n", ""},
		{"c,a,b\n3,1,2\n6,4,5\n", "new.csv: the columns of `X` bound by name in the fit's order (a, b, c), not in the file's (c, a, b)"},
		{"d,c,b,a\n9,3,2,1\n9,6,5,4\n", "new.csv: the columns of `X` bound by name in the fit's order (a, b, c); d, which the fit did not bind, left out"},
	} {
		bound, err := BindFitted(info, []Input{csvInput(t, "X", "new.csv", c.src)}, nil, nil, nil, nil, cols)
		if err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		if got := bound["X"].Values; !slices.Equal(got, []float64{1, 2, 3, 4, 5, 6}) {
			t.Errorf("%q: X = %v, want the fit's order 1..6", c.src, got)
		}
		if got := strings.Join(ColumnNotes(info, bound), "\n"); got != c.note {
			t.Errorf("%q: notes %q, want %q", c.src, got, c.note)
		}
	}
	_, err = BindFitted(info, []Input{csvInput(t, "X", "new.csv", "a,c\n1,3\n")}, nil, nil, nil, nil, cols)
	if want := "new.csv:1:1: `X` was fitted on the columns a, b, c, in that order, which bind new data by name; the columns of new.csv lack \"b\""; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("a column left out: %v, want %s", err, want)
	}
	// a fit that recorded no columns (an older fit.json) binds by position
	bound, err := BindFitted(info, []Input{csvInput(t, "X", "new.csv", "c,a,b\n3,1,2\n")}, nil, nil, nil, nil, nil)
	if err != nil || !slices.Equal(bound["X"].Values, []float64{3, 1, 2}) {
		t.Errorf("no recorded columns: X = %v (%v), want the file's order", bound["X"], err)
	}
}
