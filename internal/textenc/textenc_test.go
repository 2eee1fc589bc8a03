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
