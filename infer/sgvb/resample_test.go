package sgvb

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gpplang/gpp/dist"
	"gonum.org/v1/gonum/mat"
)

// TestPSISResampleIndex: weights 1, 2 and 3 in turn (a flat tail, which
// PSIS leaves as it is) and some non-finite ones: the indices are drawn
// in proportion to the weights, never a non-finite one, and the ESS is
// Kish's (Σw)²/Σw² exactly.
func TestPSISResampleIndex(t *testing.T) {
	const M, n = 3000, 60000
	lw := make([]float64, M)
	for i := range lw {
		lw[i] = math.Log(float64(1 + i%3))
	}
	lw[5], lw[7], lw[8] = math.NaN(), math.Inf(1), math.Inf(-1)
	idx, k, ess := PSISResampleIndex(lw, n, rand.New(rand.NewPCG(1, 2)))
	if !math.IsInf(k, -1) {
		t.Errorf("k̂ = %v, want −Inf (a flat tail)", k)
	}
	var s, s2 float64
	for _, v := range lw {
		if w := math.Exp(v); !math.IsNaN(v) && !math.IsInf(v, 0) {
			s, s2 = s+w, s2+w*w
		}
	}
	if want := s * s / s2; math.Abs(ess-want) > 1e-9*want {
		t.Errorf("ESS = %v, want %v", ess, want)
	}
	count := [3]int{}
	for _, i := range idx {
		if i == 5 || i == 7 || i == 8 {
			t.Fatalf("drew index %d, whose weight is not finite", i)
		}
		count[i%3]++
	}
	for c, got := range count {
		p := float64(c+1) / 6
		if se := math.Sqrt(n * p * (1 - p)); math.Abs(float64(got)-n*p) > 4*se {
			t.Errorf("weight %d: drawn %d times, want %.0f ± %.0f", c+1, got, n*p, se)
		}
	}
	if idx, _, ess := PSISResampleIndex([]float64{math.NaN(), math.Inf(-1)}, 5, rand.New(rand.NewPCG(1, 2))); idx != nil || ess != 0 {
		t.Errorf("no finite weight: indices %v, ESS %v; want none, 0", idx, ess)
	}
}

// TestResampleNormal: q = N(0.3, 0.8²) of the posterior N(0, 1), too
// narrow and shifted (weights of k = 1 − 0.8² = 0.36, Yao et al.'s
// Gaussian case): 5000 draws resampled from 20000 have mean 0 and sd 1
// within 0.05 (Monte Carlo errors near 0.015 and 0.012, and the smoothing's
// bias towards q is small at this k), where q's are 0.3 and 0.8. The
// result does not depend on the goroutines.
func TestResampleNormal(t *testing.T) {
	tg := newMVGauss([]float64{0}, mat.NewSymDense(1, []float64{1}), false)
	q := &Result{Method: SGVB, Dim: 1, Factors: []Factor{{Name: "x", Family: FamilyNormal, Support: dist.Real, Size: 1, Shape: []int{},
		Params: [][]float64{{0.3}, {0.8}}}}}
	rs := Resample(tg, q, 1, 20000, 5000, 3, 1)
	if rs.Candidates != 20000 || len(rs.Index) != 5000 || rs.Bad != 0 || !rs.Reliable() {
		t.Fatalf("resampling: %d candidates, %d draws, %d bad, k̂ %v", rs.Candidates, len(rs.Index), rs.Bad, rs.K)
	}
	var m, m2 float64
	x := make([]float64, 1)
	for _, d := range rs.Index {
		q.Candidate(3, d, x)
		m += x[0]
		m2 += x[0] * x[0]
	}
	m /= 5000
	sd := math.Sqrt(m2/5000 - m*m)
	t.Logf("k̂ %.3f, ESS %.0f, mean %.4f, sd %.4f", rs.K, rs.ESS, m, sd)
	if math.Abs(m) > 0.05 || math.Abs(sd-1) > 0.05 {
		t.Errorf("resampled mean %.4f, sd %.4f; want 0 and 1 within 0.05", m, sd)
	}
	if rs.K > 0.6 || rs.ESS < 5000 {
		t.Errorf("k̂ %.3f, ESS %.0f: want about 0.36 and thousands", rs.K, rs.ESS)
	}
	if par := Resample(tg, q, 1, 20000, 5000, 3, 3); !slices.Equal(par.Index, rs.Index) || par.K != rs.K {
		t.Error("the resampling differs on 3 goroutines")
	}
}

// TestResamplingUsable checks gpp fit --psis-resample's rule: resampled
// draws replace q's where k̂ ≤ 0.7, or above it where the ESS is at least
// the draws asked for; never without a k̂ or indices.
func TestResamplingUsable(t *testing.T) {
	idx := make([]int, 100)
	for _, c := range []struct {
		rs   Resampling
		want bool
	}{
		{Resampling{Index: idx, K: 0.5, ESS: 10}, true},
		{Resampling{Index: idx, K: 0.7, ESS: 10}, true},
		{Resampling{Index: idx, K: math.Inf(-1), ESS: 10}, true},
		{Resampling{Index: idx, K: 0.9, ESS: 99}, false},
		{Resampling{Index: idx, K: 0.9, ESS: 100}, true},
		{Resampling{Index: idx, K: math.NaN(), ESS: 1000}, false},
		{Resampling{K: 0.2, ESS: 1000}, false},
	} {
		if got := c.rs.Usable(); got != c.want {
			t.Errorf("k̂ %v, ESS %v, %d draws: Usable %v, want %v", c.rs.K, c.rs.ESS, len(c.rs.Index), got, c.want)
		}
	}
	if got := ResampleCandidates(50); got != MinCandidates {
		t.Errorf("candidates for 50 draws: %d, want %d", got, MinCandidates)
	}
	if got := ResampleCandidates(400); got != 4000 {
		t.Errorf("candidates for 400 draws: %d, want 4000", got)
	}
}
