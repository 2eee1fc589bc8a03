package check

import "testing"

// TestDerivedDim: a linear size is printed with like terms collected and
// constants folded, a constant one is a number, anything else is kept as
// written.
func TestDerivedDim(t *testing.T) {
	for _, tc := range []struct {
		text, want string
		known      bool
	}{
		{"N + M - N", "M", false},
		{"(N + M) + (N + M)", "2 * N + 2 * M", false},
		{"N + M - (N - 1 + 2)", "M - 1", false},
		{"N - M", "N - M", false},
		{"-N + M", "M - N", false},
		{"-(N + 1) + 2 * (N + 1)", "N + 1", false},
		{"N + 3 - N", "3", true},
		{"2 * (N - 3) - 2 * N + 6", "0", true},
		{"N - N - 1", "N - N - 1", false}, // negative: left for the data load to report
		{"N * M - N", "N * M - N", false},
		{"N / 2 + 1", "N / 2 + 1", false},
		{"size(x) + 1 - 1", "size(x) + 1 - 1", false},
		{"x[0] + 1", "x[0] + 1", false},
		{"N + 1.5", "N + 1.5", false},
		{"N + 2e3", "N + 2e3", false},
		{"(N + 1", "(N + 1", false},
		{"N + 99999999999999999999", "N + 99999999999999999999", false},
		{"65536 * 65536 * N", "65536 * 65536 * N", false},
	} {
		d := derivedDim(tc.text)
		if d.String() != tc.want || d.Known() != tc.known {
			t.Errorf("derivedDim(%q) = %q (known %v), want %q (known %v)", tc.text, d.String(), d.Known(), tc.want, tc.known)
		}
		if !d.Known() && !d.Derived {
			t.Errorf("derivedDim(%q) is not derived", tc.text)
		}
	}
}
