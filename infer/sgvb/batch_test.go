package sgvb

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gpplang/gpp/dist"
	"gonum.org/v1/gonum/mat"
)

// lowerParams returns a full-rank factor's Params of n elements: random
// means, and the columns of a lower-triangular L with diagonal in
// [0.5, 1.5) and small entries below it.
func lowerParams(n int, rng *rand.Rand) [][]float64 {
	p := make([][]float64, n+1)
	p[0] = make([]float64, n)
	for i := range p[0] {
		p[0][i] = 0.3 * rng.NormFloat64()
	}
	for j := range n {
		col := make([]float64, n)
		col[j] = 0.5 + rng.Float64()
		for i := j + 1; i < n; i++ {
			col[i] = 0.5 * rng.NormFloat64() / math.Sqrt(float64(n))
		}
		p[1+j] = col
	}
	return p
}

// mixedDense returns a q with two full-rank blocks among others: a joint
// group of a real latent of n, a simplex of two rows of 3, a positive
// latent of 2 and a unit one; a mean-field normal; a gamma; a full-rank
// factor of a positive latent of n + 1; and one of a simplex of 4.
func mixedDense(n int, seed uint64) *Result {
	rng := rand.New(rand.NewPCG(seed, 1))
	o := n
	fs := []Factor{
		{Name: "a", Family: FamilyFullRank, Support: dist.Real, Offset: 0, Size: n},
		{Name: "w", Family: FamilyFullRank, Support: dist.Simplex, Shape: []int{2, 3}, Offset: o, Size: 6},
		{Name: "p", Family: FamilyFullRank, Support: dist.Positive, Offset: o + 6, Size: 2},
		{Name: "u", Family: FamilyFullRank, Support: dist.Unit, Offset: o + 8, Size: 1},
		{Name: "m", Family: FamilyNormal, Support: dist.Real, Offset: o + 9, Size: 2, Params: [][]float64{{0.1, -0.2}, {0.5, 0.7}}},
		{Name: "g", Family: FamilyGamma, Support: dist.Positive, Offset: o + 11, Size: 1, Params: [][]float64{{3}, {2}}},
		{Name: "v", Family: FamilyFullRank, Support: dist.Positive, Offset: o + 12, Size: n + 1, Params: lowerParams(n+1, rng)},
		{Name: "s", Family: FamilyFullRank, Support: dist.Simplex, Shape: []int{4}, Offset: o + 13 + n, Size: 4, Params: lowerParams(3, rng)},
	}
	g := Group{Names: []string{"a", "w", "p", "u"}, Params: lowerParams(n+4+2+1, rng)}
	return &Result{Method: SGVB, Dim: o + 17 + n, Factors: fs, Groups: []Group{g}}
}

// refFullRankSum is the sum over a full-rank block's elements of its log q
// given ε, as fullRankLogq summed it before batching.
func refFullRankSum(b *block, val, x, e []float64) float64 {
	n, p := b.n, b.poff
	s := 0.0
	for i := range n {
		s += -halfLog2Pi - math.Log(val[p+n+i]) - 0.5*e[i]*e[i]
		s -= b.logJacAt(x, i)
	}
	return s
}

// refBlockLogQ is block bi's log q at x as it was before batching: a
// full-rank block's ε by its own forward substitution.
func refBlockLogQ(r *Result, bi int, x []float64) float64 {
	r.prepare()
	val := r.cache.val
	b := &r.blocks[bi]
	if b.fam != FamilyFullRank {
		return b.logq(&r.cache, x, nil)
	}
	n, p := b.n, b.poff
	e, y := make([]float64, n), make([]float64, n)
	b.elems(y, x)
	for i := range n {
		r := y[i] - val[p+i]
		for j := range i {
			r -= val[p+lowIdx(n, i, j)] * e[j]
		}
		e[i] = r / val[p+n+i]
	}
	return refFullRankSum(b, val, x, e)
}

// refLogQ is Result.LogQCoords one draw at a time, as it was before
// batching.
func refLogQ(r *Result, x []float64) float64 {
	r.prepare()
	lq := 0.0
	for bi := range r.blocks {
		if r.blocks[bi].fam != FamilyPoint {
			lq += refBlockLogQ(r, bi, x)
		}
	}
	return lq
}

// refDefensive is Defensive.LogDensity as it was before batching.
func refDefensive(d *Defensive, x []float64) float64 {
	r := d.r
	lq := refLogQ(r, x)
	delta := 0.0
	for bi := range r.blocks {
		if d.wide[bi] == keep {
			continue
		}
		delta -= refBlockLogQ(r, bi, x) + r.blocks[bi].logJacobian(x)
		d.addWideLog(&delta, bi, x)
	}
	if delta > 0 {
		return lq + delta - math.Ln2 + math.Log1p(math.Exp(-delta))
	}
	return lq - math.Ln2 + math.Log1p(math.Exp(delta))
}

// refSample is Result.SampleCoords as it was before batching: each
// full-rank draw μ + Lε formed element by element.
func refSample(r *Result, rng *rand.Rand, x []float64) float64 {
	r.prepare()
	val := r.cache.val
	aux := make([]float64, len(val))
	lq := 0.0
	for bi := range r.blocks {
		b := &r.blocks[bi]
		if b.fam == FamilyFullRank {
			n, p := b.n, b.poff
			for i := range n {
				e := rng.NormFloat64()
				aux[p+i] = e
				v := val[p+i] + val[p+n+i]*e
				for j := range i {
					v += val[p+lowIdx(n, i, j)] * aux[p+j]
				}
				x[b.at(i)] = v
			}
			b.breakSticks(x)
			lq += refFullRankSum(b, val, x, aux[p:p+n])
			continue
		}
		b.sample(&r.cache, sampleOnly{}, rng, x, aux)
		if b.fam != FamilyPoint {
			lq += b.logq(&r.cache, x, aux)
		}
	}
	return lq
}

// refMixLogQ is Mixture.LogQCoords as it was before batching.
func refMixLogQ(m *Mixture, x []float64) float64 {
	mx := math.Inf(-1)
	lq := make([]float64, len(m.Components))
	for r, c := range m.Components {
		lq[r] = refLogQ(c, x)
		mx = math.Max(mx, lq[r])
	}
	s := 0.0
	for _, v := range lq {
		s += math.Exp(v - mx)
	}
	return mx + math.Log(s/float64(len(lq)))
}

// sameVec reports whether a and b are the same float64s, bit for bit.
func sameVec(a, b []float64) bool {
	for i := range a {
		if !sameBits(a[i], b[i]) {
			return false
		}
	}
	return len(a) == len(b)
}

// TestBatchedDenseExact: the batched draws and log densities of q (a
// batch through each full-rank block, four draws' substitutions
// interleaved) are bit for bit those of one draw at a time by the
// pre-batching arithmetic, for several sizes of joint blocks with
// simplex, positive and unit members, for numbers of draws that fill no
// whole batch, and for a mixture of such q's drawn from in turn.
func TestBatchedDenseExact(t *testing.T) {
	for _, n := range []int{1, 4, 9, 23} {
		comps := []*Result{mixedDense(n, 1), mixedDense(n, 2), mixedDense(n, 3)}
		r := comps[0]
		r.prepare()
		var sizes []int
		for i := range r.blocks {
			if r.blocks[i].fam == FamilyFullRank {
				sizes = append(sizes, r.blocks[i].n)
			}
		}
		if len(sizes) != 3 || sizes[0] != n+7 || sizes[1] != n+1 || sizes[2] != 3 || len(r.blocks) != 5 {
			t.Fatalf("n %d: %d blocks, full-rank ones of %v elements, want 5 and [%d %d 3]", n, len(r.blocks), sizes, n+7, n+1)
		}
		m := &Mixture{Components: comps}
		for _, K := range []int{1, 3, 7, 37} {
			want, wantLQ := make([][]float64, K), make([]float64, K)
			got, gotLQ := make([][]float64, K), make([]float64, K)
			rng := rand.New(rand.NewPCG(uint64(n), uint64(K)))
			for k := range K {
				want[k], got[k] = make([]float64, r.Dim), make([]float64, r.Dim)
				wantLQ[k] = refSample(r, rng, want[k])
				if !finite(wantLQ[k]) {
					t.Fatalf("n %d: log q of a draw %v", n, wantLQ[k])
				}
			}
			r.SampleCoordsBatch(rand.New(rand.NewPCG(uint64(n), uint64(K))), got, gotLQ)
			for k := range K {
				if !sameVec(got[k], want[k]) || !sameBits(gotLQ[k], wantLQ[k]) {
					t.Fatalf("n %d, %d draws: draw %d is %v, log q %v; one at a time %v, %v", n, K, k, got[k], gotLQ[k], want[k], wantLQ[k])
				}
			}
			// log q at the draws, batched and one at a time
			lq := make([]float64, K)
			r.logQBatch(want, nil, lq, nil)
			for k, x := range want {
				ref := refLogQ(r, x)
				if one := r.LogQCoords(x); !sameBits(lq[k], ref) || !sameBits(one, ref) {
					t.Fatalf("n %d, %d draws: log q of draw %d batched %v, LogQCoords %v, one at a time %v", n, K, k, lq[k], one, ref)
				}
			}
			// the defensive mixture of LOO: its density at the draws
			def := r.Defensive()
			def.LogDensities(want, lq)
			for k, x := range want {
				if ref, one := refDefensive(def, x), def.LogDensity(x); !sameBits(lq[k], ref) || !sameBits(one, ref) {
					t.Fatalf("n %d, %d draws: the defensive mixture's log density at draw %d batched %v, LogDensity %v, one at a time %v", n, K, k, lq[k], one, ref)
				}
			}
			// the mixture: draws from its components in turn with one
			// stream, and resampling candidates with a stream each
			comp := make([]int, K)
			ds := make([]int, K)
			for k := range K {
				comp[k], ds[k] = (k*7)%3, 5+3*k
			}
			rng = rand.New(rand.NewPCG(9, uint64(K)))
			for k := range K {
				refSample(comps[comp[k]], rng, want[k])
				wantLQ[k] = refMixLogQ(m, want[k])
			}
			m.SampleCoordsBatch(rand.New(rand.NewPCG(9, uint64(K))), got, comp, gotLQ)
			for k := range K {
				if !sameVec(got[k], want[k]) || !sameBits(gotLQ[k], wantLQ[k]) {
					t.Fatalf("n %d, %d draws of the mixture: draw %d log q %v, one at a time %v", n, K, k, gotLQ[k], wantLQ[k])
				}
				if one := m.LogQCoords(want[k]); !sameBits(one, wantLQ[k]) {
					t.Fatalf("n %d: the mixture's LogQCoords %v, one at a time %v", n, one, wantLQ[k])
				}
			}
			for k, d := range ds {
				refSample(comps[d%3], candidateRand(4, d), want[k])
				wantLQ[k] = refMixLogQ(m, want[k])
			}
			m.Candidates(4, ds, got, gotLQ)
			for k, d := range ds {
				if !sameVec(got[k], want[k]) || !sameBits(gotLQ[k], wantLQ[k]) {
					t.Fatalf("n %d, %d candidates of the mixture: candidate %d log q %v, one at a time %v", n, K, d, gotLQ[k], wantLQ[k])
				}
				if one := m.Candidate(4, d, got[k]); !sameBits(one, wantLQ[k]) || !sameVec(got[k], want[k]) {
					t.Fatalf("n %d: candidate %d by Candidate: log q %v, one at a time %v", n, d, one, wantLQ[k])
				}
			}
		}
	}
}

// TestBatchedWeightsExact: the importance log weights of a mixture of
// full-rank q's, drawn and evaluated a batch at a time on 1 to 3
// goroutines, and the mixture's final-estimate weights, are bit for bit
// log p − log q at each draw drawn one at a time by the pre-batching
// arithmetic, for numbers of draws that leave batches short.
func TestBatchedWeightsExact(t *testing.T) {
	const n, R = 9, 3
	m := &Mixture{}
	for c := range R {
		rng := rand.New(rand.NewPCG(uint64(c), 5))
		m.Components = append(m.Components, &Result{Method: Pathfinder, Dim: n, Factors: []Factor{
			{Name: "z", Family: FamilyFullRank, Support: dist.Real, Size: n, Params: lowerParams(n, rng)}}})
	}
	sigma := mat.NewSymDense(n, nil)
	for i := range n {
		sigma.SetSym(i, i, 1)
	}
	tg := newMVGauss(make([]float64, n), sigma, false)
	x, g := make([]float64, n), make([]float64, n)
	for _, M := range []int{1, 5, 21, 70} {
		want, gap := make([]float64, M), make([]float64, M)
		wantW := make([]float64, M)
		for d := range M {
			refSample(m.Components[d%R], candidateRand(8, d), x)
			lp, _ := logJointValue(tg, x, g)
			want[d] = lp - refMixLogQ(m, x)
			lqr := refSample(m.Components[d%R], rand.New(rand.NewPCG(streamSeed(8, streamMixture, 0, d))), x)
			lq := refMixLogQ(m, x)
			lp, _ = logJointValue(tg, x, g)
			wantW[d], gap[d] = lp-lq, lqr-lq
		}
		for par := 1; par <= 3; par++ {
			lw := importanceLogWeights(tg, n, M, par, func(ds []int, xs [][]float64, lq []float64) {
				m.Candidates(8, ds, xs, lq)
			})
			if !sameVec(lw, want) {
				t.Errorf("%d candidates on %d goroutines: log weights %v, one at a time %v", M, par, lw, want)
			}
			lw, gp, ok := m.weights(tg, M, 8, par)
			if !sameVec(lw, wantW) || !sameVec(gp, gap) || slices.Contains(ok, false) {
				t.Errorf("%d final draws on %d goroutines: log weights %v, gaps %v; one at a time %v, %v", M, par, lw, gp, wantW, gap)
			}
		}
	}
}

// denseMixture is the q of a Pathfinder fit of 993 coordinates with its
// default 4 paths: 4 full-rank normals of 993 real coordinates.
func denseMixture() *Mixture {
	const n = 993
	m := &Mixture{}
	for c := range 4 {
		rng := rand.New(rand.NewPCG(uint64(c), 2))
		m.Components = append(m.Components, &Result{Method: Pathfinder, Dim: n, Factors: []Factor{
			{Name: "z", Family: FamilyFullRank, Support: dist.Real, Size: n, Params: lowerParams(n, rng)}}})
	}
	return m
}

// BenchmarkDenseLogQ: the log density of 1000 draws under the 4-path
// Pathfinder q of 993 coordinates (denseMixture), one draw at a time
// (LogQCoords) and batched (as Resample evaluates it), and drawing 1000
// resampling candidates from it with their log densities.
func BenchmarkDenseLogQ(b *testing.B) {
	m := denseMixture()
	const N = 1000
	xs := make([][]float64, N)
	rng := rand.New(rand.NewPCG(1, 1))
	for d := range xs {
		xs[d] = make([]float64, m.Dim())
		m.SampleCoords(rng, xs[d], d%4)
	}
	lq := make([]float64, N)
	b.Run("one-at-a-time", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for d, x := range xs {
				lq[d] = m.LogQCoords(x)
			}
		}
	})
	b.Run("batched", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.logQBatch(xs, lq)
		}
	})
	ds := make([]int, N)
	for d := range ds {
		ds[d] = d
	}
	b.Run("candidates", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.Candidates(7, ds, xs, lq)
		}
	})
}
