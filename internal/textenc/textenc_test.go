package textenc

import "testing"

func TestWide(t *testing.T) {
	for _, c := range []struct{ head, want string }{
		{"\xff\xfey\x00", "UTF-16"},
		{"\xfe\xff\x00y", "UTF-16"},
		{"\xff\xfe\x00\x00y\x00\x00\x00", "UTF-32"},
		{"\x00\x00\xfe\xff\x00\x00\x00y", "UTF-32"},
		{"y\x00,\x00z\x00", "UTF-16"}, // no mark, little-endian
		{"\x00y\x00,\x00z", "UTF-16"}, // no mark, big-endian
		{"y,z\n1,2\n", ""},
		{"\ufeffy,z\n", ""},        // UTF-8 with its mark
		{"y\x00,z\n", ""},          // a stray NUL is not an encoding
		{"y\x00\x00\x00z\x00", ""}, // NUL at both parities
		{"", ""},
		{"y", ""},
	} {
		if got := Wide([]byte(c.head)); got != c.want {
			t.Errorf("Wide(%q) = %q, want %q", c.head, got, c.want)
		}
	}
}

func TestEscapeBidi(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"x\u202ey", `x\u202ey`},
		{"\u202a\u202b\u202c\u202d\u202e", `\u202a\u202b\u202c\u202d\u202e`},
		{"a\u2066b\u2067c\u2068d\u2069", `a\u2066b\u2067c\u2068d\u2069`},
		{"\u200e\u200f", `\u200e\u200f`},
		{"naïve 日本 \u200d \u2065 \u2029", "naïve 日本 \u200d \u2065 \u2029"}, // not bidi controls
		{"", ""},
	} {
		if got := EscapeBidi(c.in); got != c.want {
			t.Errorf("EscapeBidi(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestBinary(t *testing.T) {
	for _, c := range []struct{ head, want string }{
		{"PK\x03\x04\x14\x00\x06\x00", "a zip archive (an Excel .xlsx or OpenDocument .ods workbook?)"},
		{"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Excel .xls workbook"},
		{"\x1f\x8b\x08\x00", "gzip-compressed"},
		{"RDX3\nX\n", "an R data file (saveRDS/save)"},
		{"\x93NUMPY\x01\x00", "a NumPy .npy file"},
		{"y,z\n1,\x002\n", "binary, not text"},
		{"y,z\n1,2\n", ""},
		{"\ufeffy,z\n", ""},
		{"y\x00,\x00z\x00", ""}, // UTF-16: Wide's error, not this one
		{"PK,x\n1,2\n", ""},     // a column named PK
		{"", ""},
	} {
		if got := Binary([]byte(c.head)); got != c.want {
			t.Errorf("Binary(%q) = %q, want %q", c.head, got, c.want)
		}
	}
}

// TestQuoteLabel: a label is written as it is unless a bracket, comma or
// quote would make a name or a list ambiguous, space at an end would be
// lost, or a character that does not print would garble the line.
func TestQuoteLabel(t *testing.T) {
	for _, c := range []struct{ label, want string }{
		{"AITKIN", "AITKIN"},
		{"YELLOW MEDICINE", "YELLOW MEDICINE"},
		{"Zürich", "Zürich"},
		{"ST. LOUIS, MN", `"ST. LOUIS, MN"`},
		{"a[1]", `"a[1]"`},
		{`say "hi"`, `"say \"hi\""`},
		{" padded ", `" padded "`},
		{"two\nlines", `"two\nlines"`},
		{"tab\there", `"tab\there"`},
		{"abc\u202edef", `"abc\u202edef"`},
	} {
		if got := QuoteLabel(c.label); got != c.want {
			t.Errorf("QuoteLabel(%q) = %s, want %s", c.label, got, c.want)
		}
	}
}
