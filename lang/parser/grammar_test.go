package parser

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// grammarEBNF is the grammar as participle reads it: the productions of
// ParseFile, then the root production of ParseExpr (whose others are the
// same).
func grammarEBNF() string {
	root, _, _ := strings.Cut(exprParser.String(), "\n")
	return fileParser.String() + "\n" + root + "\n"
}

// TestGrammarGolden fails when the grammar drifts from
// testdata/grammar.ebnf; go test ./lang/parser -update rewrites the file.
func TestGrammarGolden(t *testing.T) {
	const golden = "testdata/grammar.ebnf"
	got := grammarEBNF()
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./lang/parser -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("grammar differs from %s; if the change is intended, run go test ./lang/parser -update\n got:\n%s\nwant:\n%s", golden, got, want)
	}
}

// TestGrammarWordsCoverProductions keeps error messages in plain words: a
// production that can be expected must be described in words, or start with
// tokens that are.
func TestGrammarWordsCoverProductions(t *testing.T) {
	for name := range grammarProductions() {
		d := describeExpected(name)
		if d == "" || strings.Contains(strings.ReplaceAll(d, `"<"`, ""), "<") {
			t.Errorf("production %s is described as %q", name, d)
		}
	}
}
