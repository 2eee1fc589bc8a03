package model

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gpplang/gpp/infer/nuts"
	"github.com/gpplang/gpp/infer/sgvb"
	"gonum.org/v1/gonum/diff/fd"
)

// groupedSrc is an ordinal regression with a row of cutpoints per group,
// brms's thres(gr = g), Stan's array[G] ordered[K] c with c[g[n]].
const groupedSrc = `
data y: int[N]
data x: real[N]
data g: int[N]
data G: int
param c: ordered[G, 3] ~ Normal(0, 3)
param b: real ~ Normal(0, 2)
y ~ OrderedLogistic(b * x, c[g])
`

// groupedCuts are the simulated cutpoints, a row per group, rows that a
// shared or swapped set would not fit.
var groupedCuts = [][]float64{{-1, 0, 1}, {-2, -0.5, 2}, {0, 1.5, 2.5}}

// groupedModel simulates n observations per group of the model with slope
// 0.8 (seeded) and compiles it on them.
func groupedModel(t *testing.T, n int) *Model {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 12))
	var y, x []float64
	var g []int
	for r, c := range groupedCuts {
		for range n {
			xi := rng.NormFloat64()
			u := rng.Float64()
			ystar := 0.8*xi + math.Log(u/(1-u)) // logistic noise
			k := 0
			for _, ck := range c {
				if ystar > ck {
					k++
				}
			}
			y, x, g = append(y, float64(k)), append(x, xi), append(g, r)
		}
	}
	m, err := Compile("grouped.gpp", []byte(groupedSrc), DataValues(map[string]any{"y": y, "x": x, "g": g, "G": len(groupedCuts)}))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A fit of simulated grouped-threshold data recovers each group's
// cutpoints: each posterior mean within 4 posterior sds of the truth
// (nine cutpoints: a miss at 4 sds has probability about 6e-5 each), by
// VI with a full-rank factor on c (whose sd is the posterior's, where a
// mean-field one's is about 1.5× too small, the hint gpp fit gives) and
// by NUTS. Cutpoints read from the wrong rows, or shared, miss by more
// than 1, over 6 sds.
func TestGroupedCutpointsRecovered(t *testing.T) {
	m := groupedModel(t, 300)
	r, err := m.Fit(context.Background(), sgvb.Settings{Seed: 1, Families: map[string]sgvb.Family{"c": sgvb.FamilyFullRank}})
	if err != nil {
		t.Fatal(err)
	}
	f := r.Factor("c")
	if f == nil || !slices.Equal(f.Shape, []int{3, 3}) {
		t.Fatalf("factor c: %+v, want shape [3, 3]", f)
	}
	mean, sd := f.Mean(), f.SD()
	res, err := m.Sample(context.Background(), nuts.Settings{Chains: 2, Warmup: 200, Draws: 200, Seed: 3, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	draws, err := m.SampleDraws(res)
	if err != nil {
		t.Fatal(err)
	}
	G := len(groupedCuts)
	for gi, row := range groupedCuts {
		for k, want := range row {
			if d := math.Abs(mean[gi*3+k] - want); !(d < 4*sd[gi*3+k]) {
				t.Errorf("VI: c[%d, %d] = %.3f ± %.3f, truth %v", gi, k, mean[gi*3+k], sd[gi*3+k], want)
			}
			var s, s2 float64
			for _, dr := range draws {
				v := dr[k*G+gi] // column-major
				s, s2 = s+v, s2+v*v
			}
			n := float64(len(draws))
			nm := s / n
			nsd := math.Sqrt(s2/n - nm*nm)
			if d := math.Abs(nm - want); !(d < 4*nsd) {
				t.Errorf("NUTS: c[%d, %d] = %.3f ± %.3f, truth %v", gi, k, nm, nsd, want)
			}
		}
	}
}

// An ordered[G, K] and a positive_ordered[G, K] param: each row of
// Constrain's values increasing, Unconstrain its inverse, and the
// gradient with the Jacobian that of finite differences.
func TestOrderedRowsParams(t *testing.T) {
	m, err := Compile("rows.gpp", []byte(`
data y: real[N]
param c: ordered[3, 4] ~ Normal(0, 2)
param d: positive_ordered[2, 3] ~ Gamma(2, 1)
y ~ Normal(c[1, 2] - c[2, 0] + d[1, 2] - d[0, 1], 1)
`), DataValues(map[string]any{"y": []float64{0.3, -1.2, 2.5}}))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 5 {
		u := make([]float64, m.Dim())
		for i := range u {
			u[i] = 2*rng.Float64() - 1
		}
		v, err := m.Constrain(u)
		if err != nil {
			t.Fatal(err)
		}
		// column-major: c[r, k] at k·3 + r, then d[r, k] at 12 + k·2 + r
		for _, p := range []struct{ off, g, k int }{{0, 3, 4}, {12, 2, 3}} {
			for r := range p.g {
				for k := 1; k < p.k; k++ {
					if a, b := v[p.off+(k-1)*p.g+r], v[p.off+k*p.g+r]; !(b > a) {
						t.Errorf("row %d of the param at %d: element %d = %v is not above %v", r, p.off, k, b, a)
					}
				}
			}
		}
		if v[12] <= 0 || v[13] <= 0 {
			t.Errorf("positive_ordered firsts %v, %v", v[12], v[13])
		}
		back, err := m.Unconstrain(v)
		if err != nil {
			t.Fatal(err)
		}
		for i := range u {
			if math.Abs(back[i]-u[i]) > 1e-9 {
				t.Fatalf("Unconstrain(Constrain(u))[%d] = %v, want %v", i, back[i], u[i])
			}
		}
		grad := make([]float64, m.Dim())
		if _, err := m.LogDensityGradient(u, grad); err != nil {
			t.Fatal(err)
		}
		want := fd.Gradient(nil, func(x []float64) float64 {
			lp, _ := m.LogDensity(x)
			return lp
		}, u, &fd.Settings{Formula: fd.Central})
		for i := range grad {
			if math.Abs(grad[i]-want[i]) > gradTol*max(1, math.Abs(want[i])) {
				t.Errorf("d/du[%d] = %v, differences %v", i, grad[i], want[i])
			}
		}
	}
}
