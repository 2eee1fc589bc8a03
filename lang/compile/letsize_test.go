package compile

import (
	"slices"
	"testing"

	"github.com/gpplang/gpp/data"
)

// TestLetOfDataSizesParam: a let of the data alone sizes a param, as
// Stan's transformed data int U = max(uid) + 1 does: the param gets that
// size, and the log joint reads the let's data as before.
func TestLetOfDataSizesParam(t *testing.T) {
	src := `data uid: int[N]
data y: real[N]
let U = max(uid) + 1
param a: real[U] ~ Normal(0, 5)
param s: positive ~ HalfNormal(1)
y ~ Normal(a[uid], s)
output nu = U
`
	in := data.Input{File: "d.csv", Table: csvTable(t, "d.csv", "uid,y", [][]float64{{0, 1}, {3, 2}, {1, 0.5}})}
	m := compileSrc(t, "m.gpp", src, nil, in)
	i := slices.IndexFunc(m.Latents, func(l Latent) bool { return l.Name == "a" })
	if i < 0 || !slices.Equal(m.Latents[i].Shape, []int{4}) {
		t.Fatalf("latents %+v, want a of shape [4]", m.Latents)
	}
	x := make([]float64, m.Dim)
	lp, err := m.LogJoint(x, make([]float64, m.Dim))
	if err != nil || lp == 0 {
		t.Errorf("log joint %v, %v", lp, err)
	}
}
