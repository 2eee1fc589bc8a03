package compile

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
)

// TestIndexFromTwoColumns: an index computed from two int columns row by
// row (a nowcast's delay, report - onset, user trial t68) that is out of
// range names the indexing as written and the row's cells of both, in the
// vector form, in a let and in a loop; an index with no cells names the
// indexing too, where it said "gather: index ...".
func TestIndexFromTwoColumns(t *testing.T) {
	arrays, err := data.ReadJSON("d.json", strings.NewReader(`{"onset": [0, 2, 5, 1],
"report": [1, 3, 3, 1], "count": [3, 4, 1, 2]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: arrays}
	const decls = "data onset: int[N]\ndata report: int[N]\ndata count: int[N]\nparam p: simplex[3] ~ Dirichlet(1)\n"
	cells := "report = 3 at d.json:2:18, onset = 5 at d.json:1:18"
	for _, c := range []struct{ name, src, want string }{
		{"vector", "count ~ Poisson(100 * p[report - onset])\n",
			"d.json:2:18: `p[report - onset]`: `report - onset` is -2 in row 2 (" + cells + "), out of range [0, 3) as an index (used at m.gpp:5:25)"},
		{"let", "let delay = report - onset\ncount ~ Poisson(100 * p[delay])\n",
			"d.json:2:18: `p[delay]`: `report - onset` is -2 in row 2 (" + cells + "), out of range [0, 3) as an index (used at m.gpp:6:25)"},
		{"loop", "for i in 0:N {\n  count[i] ~ Poisson(100 * p[report[i] - onset[i]])\n}\n",
			"d.json:2:18: `p[report[i] - onset[i]]`: `report[i] - onset[i]` is -2 (report[i] = 3 at d.json:2:18, onset[i] = 5 at d.json:1:18), out of range [0, 3) as an index along axis 0 of `p` (used at m.gpp:6:30, at i = 2)"},
		{"no cells", "count ~ Poisson(100 * p[cumsum(report)])\n",
			"m.gpp:5:25: `p[cumsum(report)]`: index 4 out of range [0, 3) (element 1 of the index vector)"},
	} {
		_, err := compileSrcErr(t, "m.gpp", decls+c.src, nil, in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}
