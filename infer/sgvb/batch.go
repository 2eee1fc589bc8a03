package sgvb

import (
	"math"
	"math/rand/v2"
)

// Batched draws and densities of a fit's q. A full-rank block's log q at
// a point solves Lε = y − μ by forward substitution and its draw forms
// μ + Lε: n²/2 multiply-adds over the packed L, each element a serial
// chain of adds. One draw at a time, every draw streams all of L from
// memory (4 MB at n = 1000) and waits on each add; a batch of draws done
// row by row reads L once per batch and interleaves four draws' chains.
// Each draw's arithmetic is the one-draw order (r = y_i − μ_i, then
// r −= L_ij·ε_j for j = 0 … i−1, then ε_i = r/L_ii), so a batch gives the
// same bits as its draws one at a time, whatever the batch's size.

// qBatch is the number of draws evaluated together.
const qBatch = 16

// qScratch is a Result's scratch for a batch of draws (Result.scratch).
type qScratch struct {
	aux   []float64   // the sample record of the blocks drawn one draw at a time
	ys    [][]float64 // qBatch vectors of the largest full-rank block's size: y − μ's y
	es    [][]float64 // and its ε
	eps   [][]float64 // per draw, the ε of every full-rank block, at frOff
	ev    [][]float64 // views of one block's ε in eps
	frOff []int       // per block: its ε's offset in eps[k] (full-rank blocks)
	logd  [][]float64 // per block: log L_ii (full-rank blocks)
	lqb   []float64   // qBatch × blocks: each block's log q at each draw
}

// scratch returns a qScratch for r (prepared) from its pool; put it back
// with r.pool.Put.
func (r *Result) scratch() *qScratch {
	if sc, ok := r.pool.Get().(*qScratch); ok {
		return sc
	}
	nb := len(r.blocks)
	sc := &qScratch{frOff: make([]int, nb), logd: make([][]float64, nb),
		lqb: make([]float64, qBatch*nb)}
	maxN, tot := 0, 0
	for i := range r.blocks {
		b := &r.blocks[i]
		if b.fam != FamilyFullRank {
			continue
		}
		maxN = max(maxN, b.n)
		sc.frOff[i] = tot
		tot += b.n
		sc.logd[i] = make([]float64, b.n)
		for j := range b.n {
			sc.logd[i][j] = math.Log(r.cache.val[b.poff+b.n+j])
		}
	}
	sc.ys, sc.es, sc.eps, sc.ev = make([][]float64, qBatch), make([][]float64, qBatch), make([][]float64, qBatch), make([][]float64, qBatch)
	for k := range qBatch {
		sc.ys[k], sc.es[k], sc.eps[k] = make([]float64, maxN), make([]float64, maxN), make([]float64, tot)
	}
	return sc
}

// auxFor returns sc.aux, made for r's parameters on first use (log q
// alone does not need it).
func (sc *qScratch) auxFor(r *Result) []float64 {
	if sc.aux == nil {
		sc.aux = make([]float64, len(r.cache.val))
	}
	return sc.aux
}

// lowRow returns row i of a full-rank block's L below the diagonal,
// L_i0 … L_i,i−1.
func (b *block) lowRow(val []float64, i int) []float64 {
	o := b.poff + lowIdx(b.n, i, 0)
	return val[o : o+i]
}

// fullRankSolve sets es[k] = L⁻¹(ys[k] − μ) for each draw k by forward
// substitution (ys[k] and es[k] of at least n).
func (b *block) fullRankSolve(val []float64, ys, es [][]float64) {
	n, p := b.n, b.poff
	mu, dg := val[p:p+n], val[p+n:p+2*n]
	K := len(ys)
	for i := range n {
		row := b.lowRow(val, i)
		k := 0
		for ; k+4 <= K; k += 4 {
			e0, e1, e2, e3 := es[k][:len(row)], es[k+1][:len(row)], es[k+2][:len(row)], es[k+3][:len(row)]
			r0, r1, r2, r3 := ys[k][i]-mu[i], ys[k+1][i]-mu[i], ys[k+2][i]-mu[i], ys[k+3][i]-mu[i]
			for j, l := range row {
				r0 -= l * e0[j]
				r1 -= l * e1[j]
				r2 -= l * e2[j]
				r3 -= l * e3[j]
			}
			es[k][i], es[k+1][i], es[k+2][i], es[k+3][i] = r0/dg[i], r1/dg[i], r2/dg[i], r3/dg[i]
		}
		for ; k < K; k++ {
			e := es[k][:len(row)]
			r := ys[k][i] - mu[i]
			for j, l := range row {
				r -= l * e[j]
			}
			es[k][i] = r / dg[i]
		}
	}
}

// fullRankDraw sets the block's coordinates of xs[k] to μ + Lε_k for each
// draw k (ε_k = es[k]), the simplex rows' sticks broken, as sampleSpan
// draws them.
func (b *block) fullRankDraw(val []float64, es, xs [][]float64) {
	n, p := b.n, b.poff
	mu, dg := val[p:p+n], val[p+n:p+2*n]
	K := len(es)
	for i := range n {
		row := b.lowRow(val, i)
		at := b.at(i)
		k := 0
		for ; k+4 <= K; k += 4 {
			e0, e1, e2, e3 := es[k][:len(row)], es[k+1][:len(row)], es[k+2][:len(row)], es[k+3][:len(row)]
			v0, v1, v2, v3 := mu[i]+dg[i]*es[k][i], mu[i]+dg[i]*es[k+1][i], mu[i]+dg[i]*es[k+2][i], mu[i]+dg[i]*es[k+3][i]
			for j, l := range row {
				v0 += l * e0[j]
				v1 += l * e1[j]
				v2 += l * e2[j]
				v3 += l * e3[j]
			}
			xs[k][at], xs[k+1][at], xs[k+2][at], xs[k+3][at] = v0, v1, v2, v3
		}
		for ; k < K; k++ {
			e := es[k][:len(row)]
			v := mu[i] + dg[i]*es[k][i]
			for j, l := range row {
				v += l * e[j]
			}
			xs[k][at] = v
		}
	}
	for _, x := range xs {
		b.breakSticks(x)
	}
}

// fullRankLogqE returns a full-rank block's log q at x given its ε there:
// −½|ε|² − log det L − n·½log 2π, less the elements' log Jacobians. logd
// holds log L_ii (nil: computed here).
func (b *block) fullRankLogqE(val, x, e, logd []float64) float64 {
	n, p := b.n, b.poff
	s := 0.0
	for i := range n {
		var ld float64
		if logd != nil {
			ld = logd[i]
		} else {
			ld = math.Log(val[p+n+i])
		}
		s += -halfLog2Pi - ld - 0.5*e[i]*e[i]
		s -= b.logJacAt(x, i)
	}
	return s
}

// logQBatch sets out[k] to MarginalLogQCoords(xs[k], drop), a batch of
// qBatch draws at a time through each full-rank block, and, if per is
// not nil, per[k·len(r.blocks) + i] to block i's term of it.
func (r *Result) logQBatch(xs [][]float64, drop []bool, out, per []float64) {
	r.prepare()
	sc := r.scratch()
	defer r.pool.Put(sc)
	for k := range xs {
		out[k] = 0
	}
	val := r.cache.val
	for i := range r.blocks {
		b := &r.blocks[i]
		if b.fam == FamilyPoint || r.dropped(i, drop) {
			continue
		}
		if b.fam != FamilyFullRank {
			for k, x := range xs {
				v := b.logq(&r.cache, x, nil)
				out[k] += v
				if per != nil {
					per[k*len(r.blocks)+i] = v
				}
			}
			continue
		}
		for lo := 0; lo < len(xs); lo += qBatch {
			m := min(qBatch, len(xs)-lo)
			ys, es := sc.ys[:m], sc.es[:m]
			for k := range m {
				clear(ys[k])
				b.elems(ys[k][:b.n], xs[lo+k])
			}
			b.fullRankSolve(val, ys, es)
			for k := range m {
				v := b.fullRankLogqE(val, xs[lo+k], es[k], sc.logd[i])
				out[lo+k] += v
				if per != nil {
					per[(lo+k)*len(r.blocks)+i] = v
				}
			}
		}
	}
}

// drawOne draws slot k of a batch into x with rng, as SampleCoords does,
// but for the full-rank blocks' μ + Lε (finishDraws): each other block is
// drawn and its log q kept in sc.lqb, a full-rank block's ε in sc.eps[k].
// The random numbers are taken in SampleCoords' order: a full-rank block
// takes its n normals and nothing else.
func (r *Result) drawOne(sc *qScratch, k int, rng *rand.Rand, x []float64) {
	nb, aux := len(r.blocks), sc.auxFor(r)
	for i := range r.blocks {
		b := &r.blocks[i]
		if b.fam == FamilyFullRank {
			e := sc.eps[k][sc.frOff[i] : sc.frOff[i]+b.n]
			for j := range e {
				e[j] = rng.NormFloat64()
			}
			continue
		}
		clear(aux[b.poff : b.poff+b.np()]) // as SampleCoords' fresh record
		b.sample(&r.cache, sampleOnly{}, rng, x, aux)
		if b.fam != FamilyPoint {
			sc.lqb[k*nb+i] = b.logq(&r.cache, x, aux)
		}
	}
}

// finishDraws completes the draws xs (slots 0 … len(xs)−1 of sc, drawn by
// drawOne): each full-rank block's μ + Lε and log q, and sets lq[k] to the
// draw's log q, the blocks' sum in SampleCoords' order.
func (r *Result) finishDraws(sc *qScratch, xs [][]float64, lq []float64) {
	nb, val := len(r.blocks), r.cache.val
	for i := range r.blocks {
		b := &r.blocks[i]
		if b.fam != FamilyFullRank {
			continue
		}
		es := sc.ev[:len(xs)]
		for k := range es {
			es[k] = sc.eps[k][sc.frOff[i] : sc.frOff[i]+b.n]
		}
		b.fullRankDraw(val, es, xs)
		for k, x := range xs {
			sc.lqb[k*nb+i] = b.fullRankLogqE(val, x, es[k], sc.logd[i])
		}
	}
	for k := range xs {
		s := 0.0
		for i := range r.blocks {
			if r.blocks[i].fam != FamilyPoint {
				s += sc.lqb[k*nb+i]
			}
		}
		lq[k] = s
	}
}

// drawBatch draws xs[k] from q with rng(k), in the order k = 0, 1, …, and
// sets lq[k] to its log q: what SampleCoords(rng(k), xs[k]) returns, a
// batch of qBatch draws at a time through each full-rank block.
func (r *Result) drawBatch(rng func(k int) *rand.Rand, xs [][]float64, lq []float64) {
	r.prepare()
	sc := r.scratch()
	defer r.pool.Put(sc)
	for lo := 0; lo < len(xs); lo += qBatch {
		hi := min(lo+qBatch, len(xs))
		for k := lo; k < hi; k++ {
			r.drawOne(sc, k-lo, rng(k), xs[k])
		}
		r.finishDraws(sc, xs[lo:hi], lq[lo:hi])
	}
}

// SampleCoordsBatch draws len(xs) z from q into xs, one after another
// with rng, and their log q into lq: the numbers of as many calls of
// SampleCoords, computed faster for a full-rank q. Safe for concurrent
// use.
func (r *Result) SampleCoordsBatch(rng *rand.Rand, xs [][]float64, lq []float64) {
	r.drawBatch(func(int) *rand.Rand { return rng }, xs, lq)
}

// Candidates draws candidate ds[k] into xs[k] and its log q into lq[k] for
// each k, as Candidate does one at a time.
func (r *Result) Candidates(seed uint64, ds []int, xs [][]float64, lq []float64) {
	r.drawBatch(func(k int) *rand.Rand { return candidateRand(seed, ds[k]) }, xs, lq)
}

// logQBatch sets out[k] to LogQCoords(xs[k]).
func (m *Mixture) logQBatch(xs [][]float64, out []float64) {
	R := len(m.Components)
	lq := make([]float64, R*len(xs))
	for r, c := range m.Components {
		c.logQBatch(xs, nil, lq[r*len(xs):(r+1)*len(xs)], nil)
	}
	for k := range xs {
		mx := math.Inf(-1)
		for r := range R {
			mx = math.Max(mx, lq[r*len(xs)+k])
		}
		if math.IsInf(mx, 0) || math.IsNaN(mx) {
			out[k] = mx
			continue
		}
		s := 0.0
		for r := range R {
			s += math.Exp(lq[r*len(xs)+k] - mx)
		}
		out[k] = mx + math.Log(s/float64(R))
	}
}

// drawBatch draws xs[k] from component comp(k) with rng(k), in the order
// k = 0, 1, …, and sets lq[k] to the mixture's log density there and, if
// lqr is not nil, lqr[k] to the component's: what
// Components[comp(k)].SampleCoords and LogQCoords give one at a time.
func (m *Mixture) drawBatch(rng func(k int) *rand.Rand, comp func(k int) int, xs [][]float64, lqr, lq []float64) {
	R := len(m.Components)
	scs := make([]*qScratch, R)
	for r, c := range m.Components {
		c.prepare()
		scs[r] = c.scratch()
		defer c.pool.Put(scs[r])
	}
	slot := make([][]int, R)
	sub := make([][]float64, 0, qBatch)
	var subq [qBatch]float64
	for lo := 0; lo < len(xs); lo += qBatch {
		hi := min(lo+qBatch, len(xs))
		for r := range slot {
			slot[r] = slot[r][:0]
		}
		for k := lo; k < hi; k++ {
			r := comp(k)
			m.Components[r].drawOne(scs[r], len(slot[r]), rng(k), xs[k])
			slot[r] = append(slot[r], k)
		}
		for r, ks := range slot {
			if len(ks) == 0 {
				continue
			}
			sub = sub[:0]
			for _, k := range ks {
				sub = append(sub, xs[k])
			}
			m.Components[r].finishDraws(scs[r], sub, subq[:len(ks)])
			if lqr != nil {
				for j, k := range ks {
					lqr[k] = subq[j]
				}
			}
		}
		m.logQBatch(xs[lo:hi], lq[lo:hi])
	}
}

// SampleCoordsBatch draws xs[k] from component comp[k] of the mixture, one
// draw after another with rng, and the mixture's log density there into
// lq[k]: the numbers of as many calls of SampleCoords, computed faster for
// full-rank components. Safe for concurrent use.
func (m *Mixture) SampleCoordsBatch(rng *rand.Rand, xs [][]float64, comp []int, lq []float64) {
	m.drawBatch(func(int) *rand.Rand { return rng }, func(k int) int { return comp[k] }, xs, nil, lq)
}

// Candidates draws candidate ds[k] into xs[k] and the mixture's log
// density there into lq[k] for each k, as Candidate does one at a time.
func (m *Mixture) Candidates(seed uint64, ds []int, xs [][]float64, lq []float64) {
	R := len(m.Components)
	m.drawBatch(func(k int) *rand.Rand { return candidateRand(seed, ds[k]) }, func(k int) int { return ds[k] % R }, xs, nil, lq)
}
