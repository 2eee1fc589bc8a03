package compile

import (
	"strings"
	"testing"
)

// TestOneBasedHint: an index vector with no 0 that reaches the axis size n
// reads as Stan's 1-based ids, whether it starts at 1 (group ids) or above
// (an edge list's node2, each edge written node1 < node2, then with at
// least n ids); one with a 0, one that overshoots n, or a short one
// starting above 1 is 0-based data gone wrong and gets no hint.
func TestOneBasedHint(t *testing.T) {
	var edges []int // node2 of 60 edges into 56 nodes: 5, 6, ..., 56, 56, ...
	for k := range 60 {
		edges = append(edges, min(5+k, 56))
	}
	for _, c := range []struct {
		many []int
		n    int
		want string // "" for no hint
	}{
		{[]int{1, 2, 3, 1}, 3, "these run from 1 to 3, as Stan's 1-based ids do"},
		{[]int{2, 3, 4, 4}, 4, "these run from 2 to 4, with no 0, as Stan's 1-based ids do"},
		{edges, 56, "these run from 5 to 56, with no 0"},
		{[]int{2, 3}, 3, ""}, // a loop's [i, i + 1]: too short for ids
		{[]int{0, 1, 3}, 3, ""},
		{[]int{1, 2, 5}, 3, ""},
		{[]int{-1, 2}, 2, ""},
	} {
		got := oneBasedHint(c.many, c.n)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("oneBasedHint(%v, %d) = %q, want %q", c.many, c.n, got, c.want)
		}
		if c.want != "" && !strings.Contains(got, "`x[ids - 1]`") {
			t.Errorf("oneBasedHint(%v, %d) = %q: no advice", c.many, c.n, got)
		}
	}
}
