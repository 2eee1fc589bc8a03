package main

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/sgvb"
	"github.com/gpplang/gpp/internal/pipeline"
)

// gammaMatrix returns a gamma factor W of shape [N, K] whose element
// (i, k) has mean mean(i, k) and sd 1 (shape mean², rate mean).
func gammaMatrix(N, K int, mean func(i, k int) float64) sgvb.Factor {
	a, b := make([]float64, N*K), make([]float64, N*K)
	for i := range N {
		for k := range K {
			m := mean(i, k)
			a[i*K+k], b[i*K+k] = m*m, m
		}
	}
	return sgvb.Factor{Name: "W", Family: sgvb.FamilyGamma, Shape: []int{N, K}, Size: N * K, Params: [][]float64{a, b}}
}

// TestCollapsedAxes: a gamma matrix whose K columns are one column give
// or take 0.1 sd is collapsed along its component axis, and only there:
// the rows (a data-sized axis) are not compared, and one column that
// stands apart (a community of its own) leaves none.
func TestCollapsedAxes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	base := make([]float64, 30)
	for i := range base {
		base[i] = 2 + rng.Float64()
	}
	alike := gammaMatrix(30, 5, func(i, k int) float64 { return base[i] + 0.1*rng.NormFloat64() })
	cols := func(a int) bool { return a == 1 }
	if got := collapsedAxes(&alike, cols); !slices.Equal(got, []int{1}) {
		t.Errorf("columns alike: collapsed axes %v, want [1]", got)
	}
	if got := collapsedAxes(&alike, func(int) bool { return false }); got != nil {
		t.Errorf("no component axis: collapsed axes %v, want none", got)
	}
	apart := gammaMatrix(30, 5, func(i, k int) float64 {
		if k == 4 && i < 8 {
			return base[i] + 3 // a community of 8 nodes, 3 sds apart
		}
		return base[i] + 0.1*rng.NormFloat64()
	})
	if got := collapsedAxes(&apart, cols); got != nil {
		t.Errorf("one column apart: collapsed axes %v, want none", got)
	}
	normal := alike
	normal.Family = sgvb.FamilyNormal
	if got := collapsedAxes(&normal, cols); got != nil {
		t.Errorf("a normal factor (signed: no exchangeable non-negative components): %v, want none", got)
	}
}

// TestFitCollapsedHint: the football EPM stopped after 10 steps, its
// communities still at their common start, gets the hint naming W's 10
// columns; its converged fit (seed 1: 2.6 joint sds between the farthest
// columns) does not; and restarts name the restarts that collapsed.
func TestFitCollapsedHint(t *testing.T) {
	ex := "../../examples/"
	args := []string{"fit", ex + "epm.gpp", "links=" + ex + "football_train.csv", "unknown=" + ex + "football_heldout.csv", "--set", "N=115", "--quiet"}
	code, _, stderr := runSafe(t, append(args, "--iter", "10", "--out", t.TempDir())...)
	if code != 0 || !strings.Contains(stderr, "hint: the 10 columns of W are alike, each within 0.5 joint sds of every other") {
		t.Errorf("10 steps: exit %d, stderr:\n%s\nwant the hint naming W's columns", code, stderr)
	}
	if testing.Short() {
		return
	}
	code, _, stderr = runSafe(t, append(args, "--out", t.TempDir())...)
	if code != 0 || strings.Contains(stderr, "are alike") {
		t.Errorf("converged fit: exit %d, stderr:\n%s\nwant no collapse hint", code, stderr)
	}
}

// TestCollapsedHintRestarts: of a mixture, the hint names the restarts
// that collapsed and their ELBOs against the others'.
func TestCollapsedHintRestarts(t *testing.T) {
	l, err := pipeline.ParseSource("w.gpp", []byte("const K = 4\ndata N: int\nparam W: positive[N, K] ~ Gamma(1, 1)\n"), map[string]string{"N": "20"})
	if err == nil {
		err = l.Bind(nil, map[string]string{"N": "20"})
	}
	if err != nil {
		t.Fatal(err)
	}
	m := l.Model
	rng := rand.New(rand.NewPCG(3, 4))
	flat := gammaMatrix(20, 4, func(i, k int) float64 { return 2 + 0.05*rng.NormFloat64() })
	blocks := gammaMatrix(20, 4, func(i, k int) float64 {
		if i/5 == k {
			return 6
		}
		return 1
	})
	comp := func(f sgvb.Factor, elbo float64) *sgvb.Result {
		return &sgvb.Result{Factors: []sgvb.Factor{f}, Dim: f.Size, ELBO: elbo}
	}
	mix := &sgvb.Mixture{Components: []*sgvb.Result{comp(blocks, -100), comp(flat, -180.5), comp(blocks, -101)}, Restarts: []int{0, 1, 2}}
	got := collapsedHint(m, mix.Components[0], mix)
	if want := "restart 1 (ELBO -180.5 against -101.0 to -100.0 for the others): the 4 columns of W are alike"; !strings.HasPrefix(got, want) {
		t.Errorf("hint %q, want it to start %q", got, want)
	}
	if got := collapsedHint(m, mix.Components[0], nil); got != "" {
		t.Errorf("a fit with its blocks apart: hint %q", got)
	}
}
