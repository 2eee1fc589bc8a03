package compile

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
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

// TestOneBasedHintZeroElsewhere: ids of an edge list's second column,
// node1 < node2, hold no 0 even when the list is 0-based; an id past the
// axis gets the 1-based advice only when no ids of the same axis hold a
// 0: not the list's other column, nor other int data indexing the same
// param (a held-out list). Else it reads as a typo.
func TestOneBasedHintZeroElsewhere(t *testing.T) {
	const src = `data N: int
data links: int[E, 2]
data unknown: int[M, 2]
param W: positive[N] ~ Gamma(1, 1)
target += sum(W[links[, 0]] .* W[links[, 1]])
target += sum(W[unknown[, 0]] .* W[unknown[, 1]])
`
	sets := map[string]string{"N": "4"}
	for _, c := range []struct {
		name           string
		links, unknown [][]float64
		want           string
	}{
		{"1-based", [][]float64{{1, 2}, {1, 3}, {2, 4}, {3, 4}}, [][]float64{{1, 4}}, "as Stan's 1-based ids do"},
		{"0 in the other column", [][]float64{{0, 2}, {1, 3}, {2, 4}, {1, 2}}, [][]float64{{1, 3}}, "`links`, which indexes this axis too (at m.gpp:5:15), holds a 0, so these are not 1-based ids"},
		{"0 in other data", [][]float64{{1, 2}, {1, 3}, {2, 4}, {3, 4}}, [][]float64{{0, 3}}, "`unknown`, which indexes this axis too (at m.gpp:6:15), holds a 0, so these are not 1-based ids"},
	} {
		_, err := compileSrcErr(t, "m.gpp", src, sets,
			data.Input{Name: "links", File: "links.csv", Table: csvTable(t, "links.csv", "i,j", c.links)},
			data.Input{Name: "unknown", File: "unknown.csv", Table: csvTable(t, "unknown.csv", "i,j", c.unknown)})
		if err == nil || !strings.HasSuffix(err.Error(), c.want) && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
		if strings.Contains(c.want, "holds a 0") && strings.Contains(err.Error(), "1-based ids do") {
			t.Errorf("%s: %v: 1-based advice for ids with a 0", c.name, err)
		}
	}
}

// TestOneBasedHintZeroOtherAxis: a 0 among the ids of another axis (a
// 0-based year beside 1-based counties) or among data that index the
// index (c in a[b[c]]) says nothing of this axis's ids: the 1-based advice
// stays.
func TestOneBasedHintZeroOtherAxis(t *testing.T) {
	for _, c := range []struct{ name, src string }{
		{"other axis", `data J: int
data T: int
data county: int[N]
data year: int[N]
data y: real[N]
param mu: real[J, T] ~ Normal(0, 1)
for i in 0:N {
  y[i] ~ Normal(mu[county[i], year[i]], 1)
}
target += mu[county[0], year[1]]
`},
		{"index of the index", `data J: int
data T: int
data county: int[N]
data year: int[N]
data y: real[N]
param mu: real[J] ~ Normal(0, 1)
y ~ Normal(mu[county], 1)
target += sum(mu[county[year]])
`},
	} {
		_, err := compileSrcErr(t, "m.gpp", c.src, map[string]string{"J": "3", "T": "2"},
			data.Input{File: "d.csv", Table: csvTable(t, "d.csv", "county,year,y", [][]float64{{1, 0, 0.5}, {2, 1, 0.1}, {3, 0, 0.2}})})
		if err == nil || !strings.Contains(err.Error(), "as Stan's 1-based ids do") {
			t.Errorf("%s: got %v, want the 1-based advice", c.name, err)
		}
	}
}
