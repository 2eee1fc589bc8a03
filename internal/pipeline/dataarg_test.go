package pipeline

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestSplitDataArg: NAME=FILE and NAME=FILE.csv:a,b split, a ':' or '='
// elsewhere in a path does not, and a relative path whose first directory
// holds '=' (x=y/wine.csv) is that file when it exists and y/wine.csv
// does not.
func TestSplitDataArg(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.MkdirAll(filepath.Join(dir, "x=y"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "x=y", "wine.csv"), []byte("a\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		arg, name, file string
		cols            []string
	}{
		{"wine.csv", "", "wine.csv", nil},
		{"X=wine.csv", "X", "wine.csv", nil},
		{"X=wine.csv:a,b", "X", "wine.csv", []string{"a", "b"}},
		{"runs:3/wine.csv", "", "runs:3/wine.csv", nil},
		{"d/x=y/wine.csv", "", "d/x=y/wine.csv", nil},
		{"x=y/wine.csv", "", "x=y/wine.csv", nil},                // the file exists, y/wine.csv does not
		{"x=y/other.csv", "x", "y/other.csv", nil},               // neither exists: NAME=FILE, whose error names y/other.csv
		{"a=x=y/wine.csv:a", "a", "x=y/wine.csv", []string{"a"}}, // a selection from that file
	} {
		name, file, cols := SplitDataArg(c.arg)
		if name != c.name || file != c.file || !slices.Equal(cols, c.cols) {
			t.Errorf("SplitDataArg(%q) = %q, %q, %q; want %q, %q, %q", c.arg, name, file, cols, c.name, c.file, c.cols)
		}
	}
}
