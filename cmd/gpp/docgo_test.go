package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocGo runs each ```go block of the docs, a main package using gpp's
// Go API (the model package), from the repository's root, so that it
// compiles as a Go user would paste it; where a ```text block follows it
// (only blank lines between), that is its output, compared line by line.
func TestDocGo(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds and runs the docs' Go programs")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	ran := 0
	for _, file := range docFiles {
		src, err := os.ReadFile(filepath.Join(repoRoot, file))
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := docBlocks(file, src)
		if err != nil {
			t.Fatal(err)
		}
		for i, b := range blocks {
			if b.lang != "go" {
				continue
			}
			ran++
			// a directory of the module, so that its packages resolve; _
			// keeps it out of ./... while it exists
			dir, err := os.MkdirTemp(repoRoot, "_docgo")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(dir)
			if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(strings.Join(b.body, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(gobin, "run", "./"+filepath.Base(dir))
			cmd.Dir = repoRoot
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("%s: go run: %v\n%s", b, err, out)
				continue
			}
			if i+1 < len(blocks) && blocks[i+1].lang == "text" && blocks[i+1].attr == "" && onlyBlank(src, b, blocks[i+1]) {
				want := strings.Join(blocks[i+1].body, "\n")
				if got := strings.TrimRight(string(out), "\n"); got != want {
					t.Errorf("%s: its output\n%s\nwant (%s)\n%s", b, got, blocks[i+1], want)
				}
			}
		}
	}
	if ran == 0 {
		t.Error("no ```go block in the docs: README.md's Go API section has one")
	}
}
