package parser

import (
	"os"
	"regexp"
	"testing"
)

// FuzzParse checks the front end's invariants on any input: no panic, every
// error positioned inside the input, and for a successful parse, print →
// parse gives the same tree and every node's span holds its own source.
//
//	go test ./lang/parser -run x -fuzz FuzzParse -fuzztime 10m -parallel 1
func FuzzParse(f *testing.F) {
	for _, path := range exampleFiles(f) {
		src, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	if data, err := os.ReadFile("testdata/errors.gpp"); err == nil {
		for _, chunk := range regexp.MustCompile(`(?m)^---\n`).Split(string(data), -1) {
			f.Add([]byte(chunk))
		}
	}
	for _, tc := range exprTests {
		f.Add([]byte("let e = " + tc.src))
	}
	for _, tc := range stmtTests {
		f.Add([]byte(tc.src))
	}
	for _, tc := range syntaxErrorTests {
		if len(tc.src) < 200 {
			f.Add([]byte(tc.src))
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := ParseFile("fuzz.gpp", src)
		if file == nil {
			t.Fatal("ParseFile returned a nil file")
		}
		if err != nil {
			checkErrorPositions(t, "fuzz.gpp", string(src), err)
		} else {
			checkRoundTrip(t, "fuzz.gpp", src, file)
		}
		if _, err := ParseExpr(string(src)); err != nil {
			checkErrorPositions(t, "", string(src), err)
		}
	})
}
