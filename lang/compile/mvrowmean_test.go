package compile

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"gonum.org/v1/gonum/diff/fd"
)

// mvRowMeanHead is a bivariate instrumental-variable model (the
// econometrics trial's): each observation's row (x, y) has its own mean
// from the first stage (g0 + g1 z) and the second (b0 + b1 x).
const mvRowMeanHead = `data z: real[N]
data x: real[N]
data y: real[N]
param g: real[2] ~ Normal(0, 5)
param b: real[2] ~ Normal(0, 5)
param s: positive[2] ~ HalfNormal(2)
param L: cholesky_factor_corr[2] ~ LKJCorrCholesky(2)
let mu = append_col(g[0] + g[1] * z, b[0] + b[1] * x)
let S = diag_pre_multiply(s, L) * diag_pre_multiply(s, L)'
`

// Y ~ MvNormal(Mu, Sigma) with a mean per row of a data Y [N, 2] is the
// sum of the rows' MvNormal(Mu[i], Sigma), written one statement a row
// and as a loop, value and gradient, and its gradient is the finite
// differences'. The shared-mean lowering (the data's sufficient
// statistics, which do not see a per-row mean) would fail this.
func TestMvNormalRowMeans(t *testing.T) {
	const n = 7
	rng := rand.New(rand.NewPCG(15, 2))
	rows := make([][]float64, n)
	for i := range rows {
		z := rng.NormFloat64()
		x := 0.5 + z + 0.7*rng.NormFloat64()
		rows[i] = []float64{z, x, 1 - 2*x + rng.NormFloat64()}
	}
	in := data.Input{File: "iv.csv", Table: csvTable(t, "iv.csv", "z,x,y", rows)}
	var unrolled strings.Builder
	for i := range n {
		fmt.Fprintf(&unrolled, "append_col(x, y)[%d] ~ MvNormal(mu[%d], S)\n", i, i)
	}
	whole := compileSrc(t, "whole.gpp", mvRowMeanHead+"append_col(x, y) ~ MvNormal(mu, S)\n", nil, in)
	rowsM := compileSrc(t, "rows.gpp", mvRowMeanHead+"append_col(x, y) ~ MvNormalRows(mu, S)\n", nil, in)
	refs := map[string]*Model{
		"unrolled": compileSrc(t, "unrolled.gpp", mvRowMeanHead+unrolled.String(), nil, in),
		"loop":     compileSrc(t, "loop.gpp", mvRowMeanHead+"let Y = append_col(x, y)\nfor i in 0:N {\n    Y[i] ~ MvNormal(mu[i], S)\n}\n", nil, in),
	}
	x := make([]float64, whole.Dim)
	g, gr, gref := make([]float64, whole.Dim), make([]float64, whole.Dim), make([]float64, whole.Dim)
	f := func(m *Model) func([]float64) float64 {
		return func(u []float64) float64 {
			v, _ := m.LogJoint(u, make([]float64, len(u)))
			return v
		}
	}
	for trial := range 4 {
		fillNormal(x, rng, 0, 0.6)
		v, err := whole.LogJoint(x, g)
		if err != nil {
			t.Fatal(err)
		}
		vr, err := rowsM.LogJoint(x, gr)
		if err != nil {
			t.Fatal(err)
		}
		if vr != v || fmt.Sprint(gr) != fmt.Sprint(g) {
			t.Errorf("trial %d: MvNormalRows %v %v, MvNormal %v %v", trial, vr, gr, v, g)
		}
		for name, ref := range refs {
			want, err := ref.LogJoint(x, gref)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(v-want) > 1e-10*max(1, math.Abs(want)) {
				t.Errorf("trial %d: log joint %.17g, %s %.17g", trial, v, name, want)
			}
			for i := range g {
				if math.Abs(g[i]-gref[i]) > 1e-10*max(1, math.Abs(gref[i])) {
					t.Errorf("trial %d: d/dx[%d] (%s) = %.17g, %s %.17g", trial, i, whole.LatentOf(i), g[i], name, gref[i])
				}
			}
		}
		want := fd.Gradient(nil, f(whole), x, &fd.Settings{Formula: fd.Central, Step: 1e-6})
		for i := range g {
			if math.Abs(g[i]-want[i]) > 1e-5*max(1, math.Abs(want[i])) {
				t.Errorf("trial %d: d/dx[%d] (%s) = %.10g, finite differences %.10g", trial, i, whole.LatentOf(i), g[i], want[i])
			}
		}
	}
}

// A mean whose rows are neither one nor the value's is refused, by both
// shapes.
func TestMvNormalRowMeansShapeError(t *testing.T) {
	rows := [][]float64{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}}
	in := data.Input{File: "iv.csv", Table: csvTable(t, "iv.csv", "z,x,y", rows)}
	_, err := compileSrcErr(t, "bad.gpp", mvRowMeanHead+"append_col(x, y) ~ MvNormal(mu[0:2], S)\n", nil, in)
	if err == nil {
		t.Fatal("a [2, 2] mean of [3, 2] rows compiled")
	}
	for _, want := range []string{"MvNormal argument 1 (mu)", "`mu[0:2]` is [2, 2]", "`append_col(x, y)` of shape [3, 2]", "[3, 2] (a row per row)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}
