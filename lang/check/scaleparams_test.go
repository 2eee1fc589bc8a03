package check_test

import (
	"slices"
	"testing"

	"github.com/gpplang/gpp/lang/ast"
)

// TestScaleParams: the params that a ~'s sigma reads, through a let too,
// and none for a family without a sigma or a sigma of data alone.
func TestScaleParams(t *testing.T) {
	f, info := checkSource(t, "m.gpp", "data N: int\ndata g: int[N]\ndata y: real[N]\ndata c: int[N]\ndata w: positive\n"+
		"param mu: real ~ Normal(0, 1)\nparam s_e: positive[2] ~ HalfNormal(1)\nparam k: positive ~ HalfNormal(1)\nparam r: positive ~ HalfNormal(1)\n"+
		"let s = k * w\ny ~ Normal(mu, s_e[g] + s)\nc ~ Poisson(r)\ny ~ Normal(mu, w)\n", nil)
	var got [][]string
	ast.Inspect(f, func(n ast.Node) bool {
		if ts, ok := n.(*ast.TildeStmt); ok && ts.Tilde.Line >= 11 {
			got = append(got, info.ScaleParams(ts))
		}
		return true
	})
	if len(got) != 3 || !slices.Equal(got[0], []string{"s_e", "k"}) || got[1] != nil || got[2] != nil {
		t.Errorf("ScaleParams = %q, want [s_e k], none, none", got)
	}
}
