package main

import (
	"strings"
	"testing"
)

// TestIndexOutputWarning: an output of indices from sort_indices_desc (the
// best of N, an element of it) is warned of as such, with a scalar's most
// frequent index, since its mean (13.5 in the t67 trial) names no element;
// a rank, a count whose mean is meaningful, is not.
func TestIndexOutputWarning(t *testing.T) {
	dir := t.TempDir()
	m := writeFile(t, dir, "m.gpp", "data y: real[N]\nparam u: real[N] ~ Normal(0, 1)\ny ~ Normal(u, 1)\n"+
		"output r = sort_indices_desc(u)\noutput best = (sort_indices_desc(u))[0]\noutput rk = rank(u, 0)\n"+
		"output ranks = sort_indices_asc(sort_indices_asc(u))\noutput ranks0 = sort_indices_asc(sort_indices_desc(u))[0]\noutput back = sort_indices_desc(sort_indices_asc(u))\n")
	d := writeFile(t, dir, "d.json", `{"N": 3, "y": [0, 10, 0]}`) // u[1] near 5, the others near 0
	for _, cmd := range []string{"fit", "sample"} {
		code, _, stderr := runSafe(t, cmd, m, d, "--out", dir+"/"+cmd, "--quiet")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", cmd, code, stderr)
		}
		for _, want := range []string{
			"warning: r = sort_indices_desc(u) holds indices: the mean and sd of each element are of index numbers",
			"warning: best = (sort_indices_desc(u))[0] is an index: its mean and sd are of index numbers, which name elements and measure nothing; its most frequent value is 1, in ",
			"warning: back = sort_indices_desc(sort_indices_asc(u)) holds indices",
		} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%s: no %q in:\n%s", cmd, want, stderr)
			}
		}
		for _, rank := range []string{"rk = ", "ranks = ", "ranks0 = "} { // ranks: sort_indices_asc inverts a permutation
			if strings.Contains(stderr, rank) {
				t.Errorf("%s: the rank %q is warned of:\n%s", cmd, rank, stderr)
			}
		}
	}
}
