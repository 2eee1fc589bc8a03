package sgvb

import (
	"math"
	"math/rand/v2"
	"sort"
	"sync"
)

// Importance resampling corrects q's draws towards the posterior, as
// Stan's Pathfinder does by default (psis_resample) and as Yao, Vehtari,
// Simpson and Gelman ("Yes, but did it work?", 2018) advise where the
// Pareto k̂ of the weights p/q is below 0.7: M candidates θ_d are drawn
// from q, weighted by p(θ_d, y)/q(θ_d), the weights are Pareto smoothed
// (PSIS), and n draws are taken from the candidates with replacement, each
// with probability proportional to its smoothed weight (sampling-
// importance-resampling, Rubin 1988).

// Proposal is the q of importance resampling: a fit's Result or a Mixture
// of restarts.
type Proposal interface {
	// Candidate draws candidate d of the resampling with seed into x (in
	// the Target's coordinates) and returns log q there. The same seed
	// and d give the same draw.
	Candidate(seed uint64, d int, x []float64) (logq float64)
	// Candidates draws candidate ds[k] into xs[k] and its log q into
	// lq[k] for each k: the numbers of as many calls of Candidate.
	Candidates(seed uint64, ds []int, xs [][]float64, lq []float64)
}

// Candidate draws candidate d from q with a stream of its own (seed,
// streamResample, d), so that a candidate can be drawn again by its index.
func (r *Result) Candidate(seed uint64, d int, x []float64) float64 {
	return r.SampleCoords(candidateRand(seed, d), x)
}

// Candidate draws candidate d from restart d mod R (a stratified sample of
// the mixture, as its final estimate draws) and returns the mixture's log
// density there.
func (m *Mixture) Candidate(seed uint64, d int, x []float64) float64 {
	return m.SampleCoords(candidateRand(seed, d), x, d%len(m.Components))
}

func candidateRand(seed uint64, d int) *rand.Rand {
	return rand.New(rand.NewPCG(streamSeed(seed, streamResample, 0, d)))
}

// Resampling is the outcome of Resample.
type Resampling struct {
	Candidates int // M, the draws of q weighted
	// Index holds the candidate of each resampled draw, in the order
	// drawn (Proposal.Candidate draws it again).
	Index []int
	// K is the Pareto k̂ of the candidates' log weights log p − log q,
	// and ESS the effective sample size 1/Σ w̃_d² of their smoothed
	// weights w̃ normalised to sum to 1 (at most M; Kish's, as
	// Pathfinder and the loo package report it).
	K, ESS float64
	// Bad counts the candidates whose log joint was not finite (weight
	// 0).
	Bad int
}

// Reliable reports whether the weights' k̂ is at most 0.7 (or −Inf, a
// flat tail), where PSIS estimates converge at a practical rate (Vehtari
// et al. 2024) and Yao et al. trust the importance-weighted correction.
func (rs *Resampling) Reliable() bool { return rs.K <= 0.7 }

// Candidates of gpp fit --psis-resample: M = max(ResampleFactor·S,
// MinCandidates) draws of q for S output draws. Resampling with
// replacement gives draws of the posterior as M/S grows (Rubin 1988;
// Skare, Bølviken and Holden 2003: the error of the resampled draws'
// distribution is O(1/M)); with M = S, Pathfinder's default, a draw of
// weight w is repeated about S·w times, and the resampled draws hold about
// as many distinct values as the weights' effective sample size, which
// M = 10·S lifts near S for weights of ESS M/10 or more. At least 1000
// candidates give k̂ a tail of 95 weights to fit.
const (
	ResampleFactor = 10
	MinCandidates  = 1000
)

// ResampleCandidates returns M, the candidates gpp fit --psis-resample
// weights for S output draws.
func ResampleCandidates(S int) int { return max(ResampleFactor*S, MinCandidates) }

// Usable reports whether the resampled draws replace q's, as gpp fit
// --psis-resample decides: the weights' k̂ is at most 0.7, where Yao et
// al. trust the importance-weighted correction, or, above 0.7, their ESS
// is still at least the len(Index) draws asked for. A k̂ above 0.7 with a
// small ESS means the resampled draws would be copies of a few candidates
// (examples/sv.gpp with --fullrank all --rank 2: k̂ 1.48, ESS 3, 84
// distinct draws of 1000), which describe the posterior worse than q;
// with an ESS of len(Index) or more they cannot be, and such k̂ arise
// where q is close to the posterior and the tail fit sees a
// pre-asymptotic shape: a 1-D q whose log weight has a plateau in the
// bulk and a slow rise in one tail had k̂ 3–5 at ESS 35–99.5 % of 10000
// (docs/inference.md). Pathfinder resamples whatever k̂ and ESS. With
// fewer than PSISMinDraws (21) finite weights there is no k̂ and nothing
// to resample.
func (rs *Resampling) Usable() bool {
	return rs.Index != nil && !math.IsNaN(rs.K) && (rs.Reliable() || rs.ESS >= float64(len(rs.Index)))
}

// Resample draws M candidates from q (Proposal.Candidate, with seed),
// evaluates the log joint of t at each on par goroutines (each with a
// clone of t after the first; the result does not depend on par),
// Pareto-smooths the log weights log p − log q, and draws n candidates
// with replacement with probabilities proportional to the smoothed
// weights (PSISResampleIndex). dim is the length of the coordinates.
func Resample(t Target, q Proposal, dim, M, n int, seed uint64, par int) *Resampling {
	lw := importanceLogWeights(t, dim, M, par, func(ds []int, xs [][]float64, lq []float64) {
		q.Candidates(seed, ds, xs, lq)
	})
	rs := &Resampling{Candidates: M}
	for _, v := range lw {
		if math.IsNaN(v) {
			rs.Bad++
		}
	}
	rng := rand.New(rand.NewPCG(streamSeed(seed, streamResampleChoice, 0, 0)))
	rs.Index, rs.K, rs.ESS = PSISResampleIndex(lw, n, rng)
	return rs
}

// PSISResampleIndex Pareto-smooths the log weights lw (PSIS; a non-finite
// one has weight 0) and draws n indices of lw with replacement, each with
// probability proportional to its smoothed weight (multinomial
// resampling, as Pathfinder's). It returns them in the order drawn, the
// Pareto k̂ of lw and the effective sample size 1/Σ w̃² of the normalised
// smoothed weights w̃. With no finite weight the indices are nil and the
// ESS 0.
func PSISResampleIndex(lw []float64, n int, rng *rand.Rand) (idx []int, k, ess float64) {
	lws, k := PSIS(lw)
	cum := make([]float64, len(lws))
	s, s2 := 0.0, 0.0
	for i, v := range lws {
		w := math.Exp(v) // lws sums to 1 on this scale: no overflow
		s += w
		s2 += w * w
		cum[i] = s
	}
	if !(s > 0) {
		return nil, k, 0
	}
	ess = s * s / s2
	last := sort.Search(len(cum), func(i int) bool { return cum[i] >= s }) // the last of positive weight
	idx = make([]int, n)
	for j := range idx {
		u := rng.Float64() * s
		// the first index whose cumulative weight passes u: cum[i−1] ≤ u <
		// cum[i], so that its own weight is positive
		i := sort.Search(len(cum), func(i int) bool { return cum[i] > u })
		idx[j] = min(i, last) // u rounded up to s
	}
	return idx, k, ess
}

// importanceLogWeights returns the log weights log p − log r of M draws of
// a proposal r, draw(ds, xs, lq) writing draw ds[k] into xs[k] (len dim)
// and log r there into lq[k], evaluated on par goroutines (each with a
// clone of t after the first; the weights do not depend on par). A draw
// whose log joint fails or is not finite has the weight NaN.
func importanceLogWeights(t Target, dim, M, par int, draw func(ds []int, xs [][]float64, lq []float64)) []float64 {
	lw := make([]float64, M)
	par = max(1, min(par, M))
	var wg sync.WaitGroup
	for w, tw := range workerTargets(t, par) {
		wg.Go(func() {
			g := make([]float64, dim)
			forBatches(w, M, par, dim, func(ds []int, xs [][]float64, _, lq []float64) {
				draw(ds, xs, lq)
				for k, d := range ds {
					lp, err := logJointValue(tw, xs[k], g)
					lw[d] = lp - lq[k]
					if err != nil || !finite(lw[d]) {
						lw[d] = math.NaN()
					}
				}
			})
		})
	}
	wg.Wait()
	return lw
}

// forBatches calls f with worker w's draws d = w, w + par, … below M in
// batches of at most qBatch, each with as many coordinate vectors (len
// dim) and two vectors of log densities, reused from batch to batch.
func forBatches(w, M, par, dim int, f func(ds []int, xs [][]float64, lq1, lq2 []float64)) {
	ds := make([]int, 0, qBatch)
	xs := make([][]float64, qBatch)
	for k := range xs {
		xs[k] = make([]float64, dim)
	}
	lq1, lq2 := make([]float64, qBatch), make([]float64, qBatch)
	for d := w; d < M; d += par {
		ds = append(ds, d)
		if len(ds) == qBatch || d+par >= M {
			f(ds, xs[:len(ds)], lq1[:len(ds)], lq2[:len(ds)])
			ds = ds[:0]
		}
	}
}

// workerTargets returns t and n−1 clones of it, one per worker goroutine,
// all cloned before any goroutine starts: cloning t copies its buffers,
// which a goroutine already evaluating t would be writing (a data race).
func workerTargets(t Target, n int) []Target {
	out := make([]Target, max(n, 0))
	for w := range out {
		out[w] = t
		if w > 0 {
			out[w] = t.Clone()
		}
	}
	return out
}
