// Package textenc recognises the text encodings that gpp's readers (UTF-8
// only) cannot read, so that a model or data file saved as UTF-16 or
// UTF-32 gets one clear error instead of one per NUL byte.
package textenc

import "bytes"

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
