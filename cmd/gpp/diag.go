package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/gpplang/gpp/lang/ast"
)

// sources maps a file name to its contents, so that errors can quote the
// offending line.
type sources map[string][]byte

// errorf prints a plain error message prefixed with "gpp: ".
func errorf(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "gpp: "+format+"\n", args...)
}

// printError prints err. Positioned errors (ast.Error, ast.ErrorList) are
// printed one per error as "file:line:col: message", followed by the source
// line and a caret under the column when the source is known.
func printError(w io.Writer, err error, src sources) {
	list, ok := ast.Positioned(err)
	if !ok {
		errorf(w, "%v", err)
		return
	}
	for _, e := range list {
		fmt.Fprintln(w, e.Error())
		if line, ok := sourceLine(src[e.Pos.File], e.Pos.Line); ok && e.Pos.Col > 0 {
			fmt.Fprintf(w, "    %s\n    %s^\n", line, caretPad(line, e.Pos.Col))
		}
	}
}

// sourceLine returns line n (1-based) of src without its newline, with tabs
// kept so that the caret lines up.
func sourceLine(src []byte, n int) (string, bool) {
	if src == nil || n < 1 {
		return "", false
	}
	src = bytes.TrimPrefix(src, []byte("\ufeff")) // positions count from after a byte-order mark
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(src, '\n')
		if j < 0 {
			return "", false
		}
		src = src[j+1:]
	}
	if j := bytes.IndexByte(src, '\n'); j >= 0 {
		src = src[:j]
	}
	if bytes.IndexByte(src, 0) >= 0 {
		return "", false // not text (a UTF-16 file, say): a quote would print NUL bytes
	}
	return strings.TrimRight(string(src), "\r"), true
}

// caretPad returns the whitespace that puts a caret under byte column col of
// line: one space per character before it (so that a multi-byte character
// such as é takes one), copying tabs so that terminals align it.
func caretPad(line string, col int) string {
	var b strings.Builder
	for _, r := range line[:min(max(col-1, 0), len(line))] {
		if r == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
	}
	for i := len(line); i < col-1; i++ {
		b.WriteByte(' ')
	}
	return b.String()
}
