package pipeline_test

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/internal/pipeline"
)

// TestSelectColumns: X=FILE.csv:x3,x1 binds the matrix X to those columns
// in that order and y=FILE.csv:quality a vector to a column of another
// name, from the one file that also holds columns nothing reads; a file
// whose own name holds a ':' is read whole, and DataArg strips the
// selection for callers that want the file.
func TestSelectColumns(t *testing.T) {
	dir := t.TempDir()
	csv := "quality,x1,x2,x3,note\n5,1.5,10,100,a\n6,2.5,20,200,b\n7,3.5,30,300,c\n"
	file := filepath.Join(dir, "wine.csv")
	if err := os.WriteFile(file, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "m.gpp")
	src := "data X: real[N, K]\ndata y: int[N]\nparam b: real[K] ~ Normal(0, 1)\nparam s: positive ~ Exponential(1)\ny ~ Normal(X * b, s)\n"
	if err := os.WriteFile(model, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := pipeline.Load(model, []string{"X=" + file + ":x3,x1", "y=" + file + ":quality"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	X, y := l.Data["X"], l.Data["y"]
	if !slices.Equal(X.Shape, []int{3, 2}) || !slices.Equal(X.Values, []float64{100, 1.5, 200, 2.5, 300, 3.5}) {
		t.Errorf("X = %v %v, want columns x3, x1", X.Shape, X.Values)
	}
	if !slices.Equal(y.Values, []float64{5, 6, 7}) || !y.Int {
		t.Errorf("y = %v (int %v), want the column quality", y.Values, y.Int)
	}
	if l.Data["K"].Values[0] != 2 {
		t.Errorf("K = %v", l.Data["K"].Values)
	}
	if name, f := pipeline.DataArg("X=" + file + ":x3,x1"); name != "X" || f != file {
		t.Errorf("DataArg = %q, %q", name, f)
	}

	// A cell that is not a number is an error at its own line and column
	// of the file, through the selection: x2 of row 2 is column 7.
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("quality,x1,x2\n5,1.5,10\n6,2.5,oops\n"), 0o644)
	_, err = pipeline.Load(model, []string{"X=" + bad + ":x2,x1", "y=" + bad + ":quality"}, nil)
	if err == nil || !strings.Contains(err.Error(), bad+":3:7: ") {
		t.Errorf("a bad cell through a selection: %v", err)
	}

	// Unknown, repeated and empty names, and a selection with no name.
	for _, tc := range []struct{ arg, want string }{
		{"X=" + file + ":x1,x4", file + ":1:1: X=" + file + ":x1,x4: the header of " + file + " has no column \"x4\" (its columns: quality, x1, x2, x3, note)"},
		{"X=" + file + ":qualty", file + ":1:1: X=" + file + ":qualty: the header of " + file + " has no column \"qualty\"; did you mean \"quality\"? (its columns: quality, x1, x2, x3, note)"},
		{"X=" + file + ":x1,x1", file + ":1:1: X=" + file + ":x1,x1: column \"x1\" is selected twice"},
		{"X=" + file + ":x1,", file + ":1:1: X=" + file + ":x1,: an empty column name in the selection"},
		{file + ":x1", file + ":x1: a column selection binds one declaration: write NAME=" + file + ":x1"},
	} {
		_, err := pipeline.Load(model, []string{tc.arg, "y=" + file + ":quality"}, nil)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: error %v\nwant %s", tc.arg, err, tc.want)
		}
	}

	if runtime.GOOS == "windows" {
		return // no ':' in file names
	}
	// A ':' elsewhere in the path is part of it: the selection follows
	// the last one, after .csv.
	sub := filepath.Join(dir, "run:3")
	os.Mkdir(sub, 0o755)
	colon := filepath.Join(sub, "w.csv")
	os.WriteFile(colon, []byte("a,b,q\n1,2,7\n3,4,8\n5,6,9\n"), 0o644)
	l, err = pipeline.Load(model, []string{"X=" + colon, "y=" + colon + ":q"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if X := l.Data["X"]; !slices.Equal(X.Values, []float64{1, 2, 7, 3, 4, 8, 5, 6, 9}) {
		t.Errorf("X from %s = %v", colon, X.Values)
	}
	if y := l.Data["y"]; !slices.Equal(y.Values, []float64{7, 8, 9}) {
		t.Errorf("y from %s:q = %v", colon, y.Values)
	}
}

// TestSelectLeftOut: X=FILE.csv:-gene binds X to every column but gene, in
// the file's order (a wide genes × samples file whose first column names
// the genes); an unknown name to leave out is an error with a suggestion,
// and a selection that both lists and leaves out columns is refused.
func TestSelectLeftOut(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "counts.csv")
	if err := os.WriteFile(file, []byte("gene,s1,s2,s3\ng0,1,2,3\ng1,4,5,6\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "m.gpp")
	if err := os.WriteFile(model, []byte("data Y: int<lower=0>[G, S]\nparam m: positive ~ Gamma(1, 1)\nY ~ Poisson(m)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := pipeline.Load(model, []string{"Y=" + file + ":-gene"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if Y := l.Data["Y"]; !slices.Equal(Y.Shape, []int{2, 3}) || !slices.Equal(Y.Values, []float64{1, 2, 3, 4, 5, 6}) {
		t.Errorf("Y = %v %v, want the columns s1, s2, s3", Y.Shape, Y.Values)
	}
	if l, err := pipeline.Load(model, []string{"Y=" + file + ":-s2,-gene"}, nil); err != nil {
		t.Errorf("-s2,-gene: %v", err)
	} else if Y := l.Data["Y"]; !slices.Equal(Y.Shape, []int{2, 2}) || !slices.Equal(Y.Values, []float64{1, 3, 4, 6}) {
		t.Errorf("-s2,-gene: Y = %v %v, want the columns s1, s3", Y.Shape, Y.Values)
	}
	for _, tc := range []struct{ arg, want string }{
		{"Y=" + file + ":-gen", file + ":1:1: Y=" + file + ":-gen: the header of " + file + " has no column \"gen\" to leave out; did you mean \"gene\"?"},
		{"Y=" + file + ":-gene,s1", file + ":1:1: Y=" + file + ":-gene,s1: a selection lists the columns to take (a,b) or those to leave out (-gene,-id), not both"},
		{"Y=" + file + ":-", file + ":1:1: Y=" + file + ":-: a column name is missing after '-'; name the column to leave out, as Y=" + file + ":-gene"},
		{"Y=" + file + ":-gene,-s1,-s2,-s3", file + ":1:1: Y=" + file + ":-gene,-s1,-s2,-s3: leaves out every column of " + file},
		{"Y=" + file + ":-gene,-gene", file + ":1:1: Y=" + file + ":-gene,-gene: column \"gene\" is left out twice"},
		{"Y=" + file + ":-gene,", file + ":1:1: Y=" + file + ":-gene,: an empty column name in the selection"},
	} {
		_, err := pipeline.Load(model, []string{tc.arg}, nil)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: error %v\nwant %s", tc.arg, err, tc.want)
		}
	}
	// A declared column count is checked against the columns bound, which
	// the error counts and names (not the one name left out).
	two := filepath.Join(dir, "two.gpp")
	if err := os.WriteFile(two, []byte("data Y: int<lower=0>[G, 2]\nparam m: positive ~ Gamma(1, 1)\nY ~ Poisson(m)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := file + ":1:1: Y=" + file + ":s1,s2,s3 selects 3 columns, but `Y` is declared int<lower=0>[G, 2]"
	if _, err := pipeline.Load(two, []string{"Y=" + file + ":-gene"}, nil); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("-gene against [G, 2]: error %v\nwant %s", err, want)
	}
}
