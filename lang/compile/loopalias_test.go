package compile

import (
	"strings"
	"testing"
)

// TestLoopLetIndexAlias checks that a let of the body whose value is a
// row index (let k = g[i], then u[k]; a let of such a let; one outside
// the if that reads it) is seen through: the loop is lowered as vectors
// (its tape does not grow with N) to the same program as the loop that
// indexes by g[i] itself — as many nodes, the same log joint and gradient
// bit for bit. A let that is no row index (g[i] * 1) leaves the loop
// unrolled, with a note naming the loop and the let.
func TestLoopLetIndexAlias(t *testing.T) {
	for _, c := range []struct{ name, direct, alias string }{
		{"let",
			"for i in 0:N {\n    y[i] ~ Normal(a + u[g[i]] * x[i], s * exp(0.1 * u[g[i]]))\n}",
			"for i in 0:N {\n    let k = g[i]\n    y[i] ~ Normal(a + u[k] * x[i], s * exp(0.1 * u[k]))\n}"},
		{"let of a let",
			"for i in 0:N {\n    y[i] ~ Normal(a + u[g[i]] * x[i] + u[h[i]], s)\n}",
			"for i in 0:N {\n    let k = g[i]\n    let j = k\n    let m = h[i]\n    y[i] ~ Normal(a + u[j] * x[i] + u[m], s)\n}"},
		{"in an if on data",
			"for i in 0:N {\n    if c[i] == 0 {\n        y[i] ~ Normal(a + b * u[g[i]], s)\n    }\n}",
			"for i in 0:N {\n    if c[i] == 0 {\n        let k = g[i]\n        y[i] ~ Normal(a + b * u[k], s)\n    }\n}"},
		{"outside the if",
			"for i in 0:N {\n    if c[i] == 0 {\n        y[i] ~ Normal(a + b * u[g[i]], s)\n    }\n}",
			"for i in 0:N {\n    let k = g[i]\n    if c[i] == 0 {\n        y[i] ~ Normal(a + b * u[k], s)\n    }\n}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := loopData(300)
			direct := compileSrc(t, "direct.gpp", loopHead+c.direct+"\n", nil, in)
			alias := compileSrc(t, "alias.gpp", loopHead+c.alias+"\n", nil, in)
			large := compileSrc(t, "alias.gpp", loopHead+c.alias+"\n", nil, loopData(3000))
			if alias.prog.Len() != large.prog.Len() {
				t.Errorf("not lowered as vectors: %d nodes at N = 300, %d at N = 3000", alias.prog.Len(), large.prog.Len())
			}
			if alias.prog.Len() != direct.prog.Len() {
				t.Errorf("%d nodes through the let, %d indexing by the expression", alias.prog.Len(), direct.prog.Len())
			}
			if len(alias.Notes) != 0 {
				t.Errorf("notes %q", alias.Notes)
			}
			for seed := range uint64(3) {
				sameLogJoint(t, alias, direct, "indexing by the expression", randomPoint(alias, seed), 0, 0)
			}
		})
	}
	t.Run("no row index", func(t *testing.T) {
		body := "for i in 0:N {\n    let k = g[i] * 1\n    y[i] ~ Normal(a + u[k] * x[i], s)\n}\n"
		small := compileSrc(t, "loop.gpp", loopHead+body, nil, loopData(40))
		large := compileSrc(t, "loop.gpp", loopHead+body, nil, loopData(400))
		if small.prog.Len() >= large.prog.Len() {
			t.Errorf("not unrolled: %d nodes at N = 40, %d at N = 400", small.prog.Len(), large.prog.Len())
		}
		want := "loop.gpp:17:1: the loop over i is unrolled, an iteration at a time, not lowered as vector operations, because it indexes by `k` (loop.gpp:18:9), whose value `g[i] * 1` is not the loop variable, one shifted by an int constant (i - 1), or int data indexed by one"
		if len(small.Notes) != 1 || !strings.HasPrefix(small.Notes[0], want) {
			t.Errorf("notes %q, want one starting %q", small.Notes, want)
		}
	})
}
