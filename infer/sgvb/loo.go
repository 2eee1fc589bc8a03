package sgvb

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// PSIS returns Pareto-smoothed log importance weights for the log weights
// lw, normalised to sum to 1 on the exponential scale, and the Pareto k̂
// of their tail (Vehtari, Simpson, Gelman, Yao and Gabry, "Pareto smoothed
// importance sampling", 2024): the M largest weights (ParetoK's M) are
// replaced by the quantiles (z − ½)/M, z = 1…M, of the generalized Pareto
// distribution fitted to them, in the same order, and truncated at the
// largest raw weight. A non-finite log weight has weight 0 (−Inf). With
// fewer than PSISMinDraws finite weights the weights are only normalised
// and k̂ is NaN; a flat tail (k̂ −Inf) needs no smoothing.
func PSIS(lw []float64) (lws []float64, k float64) {
	lws = make([]float64, len(lw))
	return lws, psisInto(lws, lw, nil, 1)
}

// psisInto is PSIS writing the smoothed log weights to lws (len(lw)),
// with the tail fit's buffers in sc (nil: allocated afresh) and the
// draws' relative efficiency reff (fitTail).
func psisInto(lws, lw []float64, sc *psisScratch, reff float64) (k float64) {
	for i, v := range lw {
		lws[i] = v
		if math.IsNaN(v) || math.IsInf(v, 0) {
			lws[i] = math.Inf(-1)
		}
	}
	t, ok := fitTail(lw, sc, reff)
	k = math.NaN()
	if ok {
		k = t.k
		if t.flat {
			k = math.Inf(-1)
		} else {
			for z, i := range t.tail {
				w := t.cut + gpdQuantile((float64(z)+0.5)/float64(t.M), t.k, t.sigma)
				lws[i] = t.mx + math.Log(math.Min(w, 1))
			}
		}
	}
	lse := logSumExp(lws)
	for i := range lws {
		lws[i] -= lse
	}
	return k
}

// gpdQuantile is the p-quantile of the generalized Pareto distribution
// with shape k and scale sigma (location 0).
func gpdQuantile(p, k, sigma float64) float64 {
	if k == 0 {
		return -sigma * math.Log1p(-p)
	}
	return sigma * math.Expm1(-k*math.Log1p(-p)) / k
}

// logSumExp returns log Σ exp(v) over v (−Inf for none or all −Inf).
func logSumExp(v []float64) float64 {
	mx := math.Inf(-1)
	for _, x := range v {
		mx = math.Max(mx, x)
	}
	if math.IsInf(mx, -1) {
		return mx
	}
	s := 0.0
	for _, x := range v {
		s += math.Exp(x - mx)
	}
	return mx + math.Log(s)
}

// logSumExpSum returns log Σ_s exp(u[s] + v[s]), a NaN sum counting as −Inf
// (weight 0), with tmp (len(u)) holding the sums.
func logSumExpSum(tmp, u, v []float64) float64 {
	for s := range tmp {
		tmp[s] = u[s] + v[s]
		if math.IsNaN(tmp[s]) {
			tmp[s] = math.Inf(-1)
		}
	}
	return logSumExp(tmp)
}

// relEff is a relative efficiency for fitTail: r, or 1 when r is not a
// positive finite number.
func relEff(r float64) float64 {
	if !(r > 0) || math.IsInf(r, 1) {
		return 1
	}
	return r
}

// LOO holds approximate leave-one-out cross-validation from draws of q
// (see PSISLOO).
type LOO struct {
	ELPD, SE float64 // Σ_i elpd_i and its standard error √n·sd(elpd_i)
	P        float64 // p_loo = Σ_i (lpd_i − elpd_i), the effective number of parameters
	QK       float64 // the Pareto k̂ of the draws' weights p/q themselves (q the proposal)
	Points   []LOOPoint
}

// LOOPoint is one observation's share of a LOO.
type LOOPoint struct {
	ELPD, P float64 // elpd_i = log p(y_i | y_−i) and lpd_i − elpd_i
	K       float64 // the Pareto k̂ of its importance weights
}

// BadK counts the observations whose k̂ is above 0.7 (or not a number):
// their elpd_i is unreliable (Vehtari et al.'s threshold for S draws large
// enough). NoK counts those of them whose k̂ is not a number.
func (l *LOO) BadK() int {
	n := 0
	for _, p := range l.Points {
		if !(p.K <= 0.7) {
			n++
		}
	}
	return n
}

// NoK counts the observations whose k̂ could not be estimated (NaN): fewer
// than PSISMinDraws of their draws have a finite weight, too few to fit a
// tail, so their weights are not smoothed (the loo package's "not enough
// tail samples").
func (l *LOO) NoK() int {
	n := 0
	for _, p := range l.Points {
		if math.IsNaN(p.K) {
			n++
		}
	}
	return n
}

// PSISLOO estimates leave-one-out cross-validation from S draws θ_s of an
// approximate posterior q (or of any proposal q, such as a Defensive
// mixture), as Magnusson, Andersen, Jonasson and Vehtari ("Bayesian
// leave-one-out cross-validation for large data", 2019) do for
// variational approximations: logRatio[s] is log p(θ_s, y) − log q(θ_s)
// and logLik[i][s] is log p(y_i | θ_s). Observation i's draws are weighted
// by p(θ_s | y_−i)/q(θ_s) ∝ exp(logRatio[s] − logLik[i][s]), Pareto
// smoothed (PSIS), and elpd_i = log Σ_s w_is p(y_i | θ_s); lpd_i is the same
// with the weights p(θ_s | y)/q(θ_s) of the whole data. A draw whose
// logRatio or logLik[i][s] is not finite has weight 0 for i.
//
// The observations are shared among min(GOMAXPROCS, 4) goroutines; each
// observation's numbers are computed as they would be alone and the totals
// summed in order, so the result does not depend on the split.
func PSISLOO(logRatio []float64, logLik [][]float64) *LOO {
	return psisLOO(logRatio, logLik, nil, min(runtime.GOMAXPROCS(0), looMaxWorkers))
}

// PSISLOOMCMC is PSISLOO for S draws of the posterior itself from Markov
// chains (logRatio 0: observation i's weights are 1/p(y_i | θ_s)), as the
// loo package's loo(log_lik, r_eff) computes it: reff[i] is the relative
// efficiency ESS/S of the draws of exp(logLik[i]), by which the smoothed
// tail is M = ⌈min(S/5, 3√(S/reff[i]))⌉ weights long rather than
// independent draws' ⌈min(S/5, 3√S)⌉. A reff[i] that is not a positive
// number counts as 1. QK is −Inf (the draws' own weights are equal), NaN
// below PSISMinDraws draws, where no tail can be fitted.
func PSISLOOMCMC(logLik [][]float64, reff []float64) *LOO {
	if len(reff) != len(logLik) {
		panic(fmt.Sprintf("sgvb: PSISLOOMCMC: %d relative efficiencies for %d observations", len(reff), len(logLik)))
	}
	S := 0
	if len(logLik) > 0 {
		S = len(logLik[0])
	}
	return psisLOO(make([]float64, S), logLik, reff, min(runtime.GOMAXPROCS(0), looMaxWorkers))
}

// looMaxWorkers is the most goroutines PSISLOO shares its observations
// among, and looChunk how many observations a goroutine takes at a time.
const (
	looMaxWorkers = 4
	looChunk      = 32
)

// psisLOO is PSISLOO on at most workers goroutines, with observation i's
// tail by the relative efficiency reff[i] (reff nil: 1 for all).
func psisLOO(logRatio []float64, logLik [][]float64, reff []float64, workers int) *LOO {
	S := len(logRatio)
	for i, ll := range logLik {
		if len(ll) != S {
			panic(fmt.Sprintf("sgvb: PSISLOO: logLik[%d] has %d draws, logRatio %d", i, len(ll), S))
		}
	}
	full, qk := PSIS(logRatio)
	out := &LOO{QK: qk, Points: make([]LOOPoint, len(logLik))}
	chunks := (len(logLik) + looChunk - 1) / looChunk
	workers = max(1, min(workers, chunks))
	var next atomic.Int64
	work := func() {
		sc := &looScratch{lr: make([]float64, S), lws: make([]float64, S), tmp: make([]float64, S)}
		for {
			c := int(next.Add(1)) - 1
			if c >= chunks {
				return
			}
			for i := c * looChunk; i < min((c+1)*looChunk, len(logLik)); i++ {
				r := 1.0
				if reff != nil {
					r = relEff(reff[i])
				}
				out.Points[i] = sc.point(logRatio, full, logLik[i], r)
			}
		}
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	out.Total()
	return out
}

// Total sets l's ELPD, SE and P from its Points, in their order (after a
// point is replaced, as moment matching does).
func (l *LOO) Total() {
	l.ELPD, l.P, l.SE = pointTotals(l.Points, func(p LOOPoint) (float64, float64) { return p.ELPD, p.P })
}

// pointTotals returns Σ_i elpd_i and Σ_i p_i of the points (of gives a
// point's two), in their order, and the standard error of the first,
// √n·sd(elpd_i): 0 for fewer than two points.
func pointTotals[P any](points []P, of func(P) (elpd, p float64)) (elpd, p, se float64) {
	es := make([]float64, len(points))
	for i, pt := range points {
		e, q := of(pt)
		es[i] = e
		elpd += e
		p += q
	}
	if len(points) > 1 {
		se = SumSE(es)
	}
	return elpd, p, se
}

// SumSE is the standard error of Σ v_i, √n·sd(v) with the sample sd (the
// loo package's se of elpd and of an elpd difference); NaN for fewer than
// two values.
func SumSE(v []float64) float64 {
	n := float64(len(v))
	if len(v) < 2 {
		return math.NaN()
	}
	mean := 0.0
	for _, x := range v {
		mean += x
	}
	mean /= n
	ss := 0.0
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return math.Sqrt(n * ss / (n - 1))
}

// looScratch holds one goroutine's buffers for PSISLOO's observations.
type looScratch struct {
	lr, lws, tmp []float64 // S each
	tail         psisScratch
}

// point is one observation's LOOPoint from its log likelihoods ll at the
// draws, with full the smoothed log weights of the whole data and reff the
// draws' relative efficiency for ll (fitTail).
func (sc *looScratch) point(logRatio, full, ll []float64, reff float64) LOOPoint {
	lr := sc.lr
	for s := range lr {
		lr[s] = logRatio[s] - ll[s]
	}
	k := psisInto(sc.lws, lr, &sc.tail, reff)
	elpd := logSumExpSum(sc.tmp, sc.lws, ll)
	lpd := logSumExpSum(sc.tmp, full, ll)
	return LOOPoint{ELPD: elpd, P: lpd - elpd, K: k}
}

// LOOLogWeights returns observation i's Pareto-smoothed log importance
// weights, normalised to sum to 1 on the exponential scale, as PSISLOO
// (logRatio the draws' log p − log q; nil: 0 for all, draws of the
// posterior itself) and PSISLOOMCMC (reff the draws' relative efficiency;
// not a positive number: 1) weight its draws: exp(logRatio[s] − logLik[s])
// smoothed by PSIS. The LOO probability integral transform weights the
// draws of a replicate with them.
func LOOLogWeights(logRatio, logLik []float64, reff float64) []float64 {
	if logRatio != nil && len(logRatio) != len(logLik) {
		panic(fmt.Sprintf("sgvb: LOOLogWeights: %d log likelihoods for %d draws", len(logLik), len(logRatio)))
	}
	lr := make([]float64, len(logLik))
	for s, l := range logLik {
		lr[s] = -l
		if logRatio != nil {
			lr[s] += logRatio[s]
		}
	}
	lws := make([]float64, len(lr))
	psisInto(lws, lr, nil, relEff(reff))
	return lws
}
