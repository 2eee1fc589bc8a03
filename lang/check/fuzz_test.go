package check_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
	"github.com/gpplang/gpp/lang/parser"
)

// FuzzCheck checks that the checker never panics on a file the parser
// accepts, and that every error it reports is positioned inside the file.
func FuzzCheck(f *testing.F) {
	paths, _ := filepath.Glob("../../examples/*.gpp")
	more, _ := filepath.Glob("../../examples/*/*.gpp")
	tests, _ := filepath.Glob("testdata/*.gpp")
	for _, p := range append(append(paths, more...), tests...) {
		src, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, chunk := range strings.Split(string(src), "\n---\n") {
			f.Add(chunk)
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		file, err := parser.ParseFile("f.gpp", []byte(src))
		if err != nil {
			return
		}
		_, err = check.Check(file, &check.Config{Overrides: map[string]string{"K": "3"}})
		if err == nil {
			return
		}
		list, ok := err.(ast.ErrorList)
		if !ok || len(list) == 0 {
			t.Fatalf("error %T %v", err, err)
		}
		lines := strings.Count(src, "\n") + 1
		for _, e := range list {
			if e.Pos.File != "f.gpp" || e.Pos.Line > lines || e.Pos.Line < 0 || e.Pos.Line > 0 && e.Pos.Col < 1 {
				t.Errorf("error outside the file: %v", e)
			}
			if e.Pos.Line == 0 && !strings.HasPrefix(e.Msg, "--set ") {
				t.Errorf("unpositioned error: %v", e)
			}
		}
	})
}
