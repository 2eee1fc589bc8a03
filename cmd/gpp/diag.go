package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"

	"github.com/gpplang/gpp/internal/pipeline"
	"github.com/gpplang/gpp/internal/textenc"
	"github.com/gpplang/gpp/lang/ast"
)

// sources maps a file name to its contents, so that errors can quote the
// offending line.
type sources map[string][]byte

// errorf prints a plain error message prefixed with "gpp: ". Bidirectional
// controls in it (from a file name or a data file's text) are escaped, so
// that the terminal shows the text as it is (textenc.EscapeBidi).
func errorf(w io.Writer, format string, args ...any) {
	fmt.Fprint(w, "gpp: "+textenc.EscapeBidi(fmt.Sprintf(format, args...))+"\n")
}

// printError prints err. Positioned errors (ast.Error, ast.ErrorList) are
// printed one per error as "file:line:col: message", followed by the source
// line and a caret under the column when the source is known. As errorf,
// it escapes bidirectional controls.
func printError(w io.Writer, err error, src sources) {
	list, ok := ast.Positioned(err)
	if !ok {
		errorf(w, "%v", err)
		return
	}
	for _, e := range list {
		fmt.Fprintln(w, textenc.EscapeBidi(e.Error()))
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

// printReplLoadWarnings is printLoadWarnings less the lets read nowhere:
// a session's lets are there to be printed at the prompt.
func printReplLoadWarnings(w io.Writer, l *pipeline.Loaded) {
	l.Info.Drop(l.Info.UnreadLets...)
	printLoadWarnings(w, l)
}

// printLoadWarnings prints what a loaded model and its data may have wrong
// (check.Info.Warnings, pipeline.Loaded.Warnings), and the missing data
// values it fits (pipeline.Loaded.Notes), before a fit or a diagnosis
// starts.
func printLoadWarnings(w io.Writer, l *pipeline.Loaded) {
	loadNotices(l).print(w, sources(l.Sources))
	for _, msg := range l.Notes {
		errorf(w, "note: %s", msg)
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
// cursor or garble it, and bidirectional controls as escapes (\u202e), so
// that it cannot reorder the text shown. The caret goes by display width:
// a wide or fullwidth character (日, ｘ) takes two columns of padding, a
// combining mark none, and a tab is copied as a tab.
func quoteLine(line string, col int) (shown, pad string) {
	var cells []string // each character as shown
	at := -1           // index in cells of the character at col
	for i, r := range line {
		if at < 0 && i >= col-1 {
			at = len(cells)
		}
		cells = append(cells, showRune(r))
	}
	if at < 0 {
		at = len(cells) + max(col-1-len(line), 0) // past the end: at the end or beyond
	}
	lo, hi := 0, len(cells)
	if hi > quoteWidth {
		lo = min(max(at-quoteWidth/2, 0), hi-quoteWidth)
		hi = lo + quoteWidth
	}
	var text, space strings.Builder
	if lo > 0 {
		text.WriteString("…")
		space.WriteByte(' ')
	}
	text.WriteString(strings.Join(cells[lo:hi], ""))
	if hi < len(cells) {
		text.WriteString("…")
	}
	for i := lo; i < at; i++ {
		switch {
		case i >= len(cells):
			space.WriteByte(' ')
		case cells[i] == "\t":
			space.WriteByte('\t')
		default:
			for _, r := range cells[i] {
				space.WriteString(strings.Repeat(" ", runeWidth(r)))
			}
		}
	}
	return text.String(), space.String()
}

// showRune returns r as a quoted source line shows it (quoteLine).
func showRune(r rune) string {
	switch {
	case r == utf8.RuneError || r < ' ' && r != '\t' || 0x7f <= r && r < 0xa0:
		return "?"
	case textenc.IsBidi(r):
		return textenc.EscapeBidi(string(r))
	}
	return string(r)
}

// runeWidth is the number of terminal columns r takes: 2 for East Asian
// wide and fullwidth characters, 0 for combining marks and zero-width
// characters, else 1 (East Asian ambiguous ones too, as terminals outside
// CJK locales show them).
func runeWidth(r rune) int {
	if unicode.In(r, unicode.Mn, unicode.Me) || r == 0x200b || r == 0x200c || r == 0x200d || r == 0x2060 || r == 0xfeff {
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}
