package modroot

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestFind: from a package directory the root is two levels up and holds
// go.mod and examples/gpfa.gpp; Example names it relative to the working
// directory.
func TestFind(t *testing.T) {
	root, err := Find()
	if err != nil {
		t.Fatal(err)
	}
	cwd, _ := os.Getwd()
	if want := filepath.Dir(filepath.Dir(cwd)); root != want {
		t.Errorf("Find = %s, want %s", root, want)
	}
	p, err := Example("gpfa.gpp")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join("..", "..", "examples", "gpfa.gpp"); p != want {
		t.Errorf("Example = %s, want %s", p, want)
	}
	if _, err := os.Stat(p); err != nil {
		t.Error(err)
	}
}

// TestFindNone: outside any module Find reports ErrNotFound.
func TestFindNone(t *testing.T) {
	t.Chdir(t.TempDir())
	root, err := Find()
	if err == nil {
		t.Skipf("a go.mod at %s above the temporary directory", root)
	}
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("Find outside a module: %v, want ErrNotFound", err)
	}
}
