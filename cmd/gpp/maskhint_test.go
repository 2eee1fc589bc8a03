package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// The mask that check suggests for int data read only as logpdf values
// picks the cells its term reads: pasted into the model, with the mask
// column added and the missing cell filled, the model checks clean
// (o_y .* logpdf(y[:, 0], ...) would not broadcast: [S, J] against [S, K]).
func TestMaskHintCompiles(t *testing.T) {
	const model, csv = "testdata/check_mask_indexed.gpp", "testdata/check_mask_indexed.csv"
	code, _, stderr := runSafe(t, "check", model, csv)
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	decl := regexp.MustCompile("declare `(data o_y: int\\[S, J\\])`").FindStringSubmatch(stderr)
	term := regexp.MustCompile("`(o_y(?:\\[[^\\]]*\\])? \\.\\* (logpdf\\(y\\[:, 0\\], [^`]*))`").FindStringSubmatch(stderr)
	if decl == nil || term == nil {
		t.Fatalf("no declaration or masked term in:\n%s", stderr)
	}
	b, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	if !strings.Contains(src, term[2]) {
		t.Fatalf("the term %q is not the model's", term[2])
	}
	src = strings.Replace(src, "let lp", decl[1]+"\nlet lp", 1)
	src = strings.Replace(src, term[2], "("+term[1]+")", 1)
	dir := t.TempDir()
	m := writeFile(t, dir, "m.gpp", src)
	d := writeFile(t, dir, "d.csv", "y.1,y.2,o_y.1,o_y.2\n2,1,1,1\n3,0,1,0\n0,1,1,1\n4,2,1,1\n")
	if code, _, stderr := runSafe(t, "check", m, d); code != 0 {
		t.Errorf("the masked model (%s) does not check: %s", term[1], stderr)
	}
}
