package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/gpplang/gpp/internal/pipeline"
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
			shown, pad := quoteLine(line, e.Pos.Col)
			fmt.Fprintf(w, "    %s\n    %s^\n", shown, pad)
		}
	}
}

// sourcesOf returns the files l read, for quoting an error of loading it;
// l is nil when the model could not be read at all.
func sourcesOf(l *pipeline.Loaded) sources {
	if l == nil {
		return nil
	}
	return sources(l.Sources)
}

// printLoadWarnings prints what a loaded model and its data may have wrong
// (check.Info.Warnings, pipeline.Loaded.Warnings), before a fit or a
// diagnosis starts.
func printLoadWarnings(w io.Writer, l *pipeline.Loaded) {
	printWarnings(w, l.Info.Warnings, sources(l.Sources))
	for _, msg := range l.Warnings {
		errorf(w, "warning: %s", msg)
	}
}

// printWarnings prints positioned warnings as printError prints errors,
// with "warning:" before each message.
func printWarnings(w io.Writer, list []*ast.Error, src sources) {
	for _, e := range list {
		printError(w, ast.Errorf(e.Pos, "warning: %s", e.Msg), src)
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

// quoteWidth is how many characters of a source line an error quotes: a
// longer line (minified JSON, a model generated on one line) is cut to this
// many around the column, with "…" where it was cut.
const quoteWidth = 100

// quoteLine returns line as an error quotes it, and the whitespace that puts
// a caret under byte column col of it. Control characters and bytes that are
// not UTF-8 are shown as "?", so that a quote cannot move the terminal's
// cursor or garble it, and each still takes one column.
func quoteLine(line string, col int) (shown, pad string) {
	var runes []rune
	at := -1 // index in runes of the character at col
	for i, r := range line {
		if at < 0 && i >= col-1 {
			at = len(runes)
		}
		if r == utf8.RuneError || r < ' ' && r != '\t' || 0x7f <= r && r < 0xa0 {
			r = '?'
		}
		runes = append(runes, r)
	}
	if at < 0 {
		at = len(runes) + max(col-1-len(line), 0) // past the end: at the end or beyond
	}
	lo, hi := 0, len(runes)
	if hi > quoteWidth {
		lo = min(max(at-quoteWidth/2, 0), hi-quoteWidth)
		hi = lo + quoteWidth
	}
	var text, space strings.Builder
	if lo > 0 {
		text.WriteString("…")
		space.WriteByte(' ')
	}
	text.WriteString(string(runes[lo:hi]))
	if hi < len(runes) {
		text.WriteString("…")
	}
	for i := lo; i < at; i++ {
		if i < len(runes) && runes[i] == '\t' {
			space.WriteByte('\t')
		} else {
			space.WriteByte(' ')
		}
	}
	return text.String(), space.String()
}
