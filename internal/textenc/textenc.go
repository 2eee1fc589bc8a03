// Package textenc recognises the text encodings that gpp's readers (UTF-8
// only) cannot read, so that a model or data file saved as UTF-16 or
// UTF-32 gets one clear error instead of one per NUL byte, and escapes or
// quotes the characters of user text (names, labels) that would garble an
// error, a note or a table quoting it.
package textenc

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Sample is how many bytes at the start of a file Wide looks at.
const Sample = 64

// Wide names the encoding of a file that starts with head when it is
// UTF-16 or UTF-32 (as Excel's "Unicode text" and Windows tools save
// files), which a UTF-8 reader would see as text with a NUL byte after or
// before every character; "" otherwise. It goes by the byte-order mark, or
// without one by NUL bytes at every other position.
func Wide(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte{0xFF, 0xFE, 0, 0}), bytes.HasPrefix(head, []byte{0, 0, 0xFE, 0xFF}):
		return "UTF-32"
	case bytes.HasPrefix(head, []byte{0xFF, 0xFE}), bytes.HasPrefix(head, []byte{0xFE, 0xFF}):
		return "UTF-16"
	}
	n := len(head) &^ 1
	if n < 2 {
		return ""
	}
	var nul [2]int // NUL bytes at even and odd offsets
	for i, c := range head[:n] {
		if c == 0 {
			nul[i%2]++
		}
	}
	if nul[0] == n/2 && nul[1] == 0 || nul[1] == n/2 && nul[0] == 0 {
		return "UTF-16"
	}
	return ""
}

// Binary names the kind of a file that starts with head when it is no
// text at all, as a data file saved in a spreadsheet's, R's or NumPy's
// own format, or compressed, would be: "a zip archive (an Excel .xlsx
// workbook?)", ...; "" for text. It goes by the formats' magic numbers,
// and else by a NUL byte, which no text but UTF-16 or UTF-32 (Wide) has.
func Binary(head []byte) string {
	for _, m := range []struct{ magic, kind string }{
		{"PK\x03\x04", "a zip archive (an Excel .xlsx or OpenDocument .ods workbook?)"},
		{"\xd0\xcf\x11\xe0", "an old Excel .xls workbook"},
		{"\x1f\x8b", "gzip-compressed"},
		{"BZh", "bzip2-compressed"},
		{"\xfd7zXZ\x00", "xz-compressed"},
		{"(\xb5/\xfd", "zstd-compressed"},
		{"RDX", "an R data file (saveRDS/save)"},
		{"PAR1", "a Parquet file"},
		{"ARROW1", "an Arrow/Feather file"},
		{"\x93NUMPY", "a NumPy .npy file"},
		{"\x89HDF", "an HDF5 file"},
	} {
		if bytes.HasPrefix(head, []byte(m.magic)) {
			return m.kind
		}
	}
	if Wide(head) == "" && bytes.IndexByte(head, 0) >= 0 {
		return "binary, not text"
	}
	return ""
}

// IsBidi reports whether r is a bidirectional control character: the
// embeddings, overrides and isolates U+202A–U+202E and U+2066–U+2069, and
// the marks U+200E and U+200F. Printed raw they make a terminal reorder the
// text around them ("Trojan source"), so that an error would show a name
// or a line other than the one it quotes.
func IsBidi(r rune) bool {
	return 0x202a <= r && r <= 0x202e || 0x2066 <= r && r <= 0x2069 || r == 0x200e || r == 0x200f
}

// EscapeBidi returns s with each bidirectional control character (IsBidi)
// written as Go escapes it, \u202e; s itself when it has none.
func EscapeBidi(s string) string {
	if !strings.ContainsFunc(s, IsBidi) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if IsBidi(r) {
			fmt.Fprintf(&b, "\\u%04x", r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// QuoteLabel writes a label (a CSV column's text naming an element) as
// a name's index or a list's item: as it is, or quoted as a Go string
// ("A, B") when it holds a bracket, a comma or a quote, which would make
// the name or the list ambiguous, space at an end, which would be lost,
// or a character that does not print (a line break, a tab, a bidi
// control that would reorder the line), which the quotes escape.
func QuoteLabel(s string) string {
	if strings.ContainsAny(s, "[],\"") || strings.TrimSpace(s) != s || strings.ContainsFunc(s, func(r rune) bool { return !strconv.IsPrint(r) }) {
		return strconv.Quote(s)
	}
	return s
}
