package check_test

import "testing"

// TestFoldNaNArgs: a constant call that is not a number shows its
// arguments' values, so that the one outside the domain shows (a
// reliability above 1 makes sqrt(1 / rel - 1) the square root of a
// negative number).
func TestFoldNaNArgs(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"const rel = 1.25\nlet se = sqrt(1 / rel - 1)\n", "m.gpp:2:10: `sqrt(1 / rel - 1)` is not a number: sqrt of -0.2 (`1 / rel - 1`)"},
		{"const v = log(-2)\n", "m.gpp:1:11: `log(-2)` is not a number: log of -2"},
		{"const a = -1\nconst v = pow(a, 0.5)\n", "m.gpp:2:11: `pow(a, 0.5)` is not a number: pow of -1 (`a`), 0.5"},
		{"const rel = 0.8\nlet se = sqrt(1 / rel - 1)\n", ""},
	} {
		wantOneError(t, c.src, c.want)
	}
}
