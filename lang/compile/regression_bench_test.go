package compile

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/data"
)

// BenchmarkRegressionRows times the log joint and gradient of the model a
// user most often brings, a linear regression y ~ Normal(a + b * x, s)
// over 10⁵ rows (data drawn here, seeded): the likelihood is one
// elementwise density over the rows, a mean per row and one scale, which
// the tape evaluates a run at a time (dist.HoistedRun). ns per row.
func BenchmarkRegressionRows(b *testing.B) {
	const n = 100000
	rng := rand.New(rand.NewPCG(11, 2))
	rows := make([][]float64, n)
	for i := range rows {
		x := rng.NormFloat64()
		rows[i] = []float64{x, 0.7 + 2.1*x + 1.3*rng.NormFloat64()}
	}
	in := data.Input{File: "d.csv", Table: csvTable(b, "d.csv", "x,y", rows)}
	const src = `data x: real[N]
data y: real[N]
param a: real ~ Normal(0, 10)
param b: real ~ Normal(0, 10)
param s: positive ~ Gamma(2, 1)
y ~ Normal(a + b * x, s)
`
	m := compileSrc(b, "r.gpp", src, nil, in)
	z := []float64{0.6, 2, math.Log(1.2)}
	grad := make([]float64, m.Dim)
	for b.Loop() {
		if _, err := m.LogJoint(z, grad); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/row")
}
