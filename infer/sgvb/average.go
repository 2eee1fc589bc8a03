package sgvb

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// dropNonFinite removes from ws the warning of finalEstimate on n draws
// that non-finite ones were left out, if it is ws[nw-1], the last of an
// averaged q's estimate: averageCheck replaced that q by the last iterate,
// whose own estimate warns of its own draws.
func dropNonFinite(ws []string, nw, n int) []string {
	if nw > 0 && nw <= len(ws) && strings.HasSuffix(ws[nw-1], fmt.Sprintf(nonFiniteFinal[len("%d"):], n)) {
		return slices.Delete(ws, nw-1, nw)
	}
	return ws
}

// nonFiniteFinal is finalEstimate's warning of its non-finite draws: the
// bad ones and all n (dropNonFinite matches it from after the count).
const nonFiniteFinal = "%d of the final ELBO estimate's %d draws had a non-finite log joint"

// averager keeps the sums of the unconstrained parameters over the last
// `len(sum)` evaluation blocks of EvalEvery steps each: the Polyak–Ruppert
// average of the iterates over up to Window·EvalEvery steps. A new block
// replaces the oldest one.
type averager struct {
	sum   [][]float64
	n     []int
	cur   int  // the block being filled
	fresh bool // the next add starts a new block
}

func newAverager(blocks, np int) *averager {
	a := &averager{sum: make([][]float64, blocks), n: make([]int, blocks), cur: -1, fresh: true}
	for i := range a.sum {
		a.sum[i] = make([]float64, np)
	}
	return a
}

// add adds one iterate to the current block.
func (a *averager) add(theta []float64) {
	if a.fresh {
		a.cur = (a.cur + 1) % len(a.sum)
		clear(a.sum[a.cur])
		a.n[a.cur] = 0
		a.fresh = false
	}
	for i, v := range theta {
		a.sum[a.cur][i] += v
	}
	a.n[a.cur]++
}

// endBlock makes the next add start a new block.
func (a *averager) endBlock() { a.fresh = true }

// reset forgets every iterate (after a rollback).
func (a *averager) reset() {
	for b := range a.sum {
		clear(a.sum[b])
		a.n[b] = 0
	}
	a.fresh = true
}

// count is the number of iterates kept.
func (a *averager) count() int {
	n := 0
	for _, c := range a.n {
		n += c
	}
	return n
}

// mean writes the average of the kept iterates into dst; false if there
// are none (dst is then untouched).
func (a *averager) mean(dst []float64) bool {
	n := a.count()
	if n == 0 {
		return false
	}
	clear(dst)
	for b := range a.sum {
		if a.n[b] == 0 {
			continue
		}
		for i, v := range a.sum[b] {
			dst[i] += v
		}
	}
	for i := range dst {
		dst[i] /= float64(n)
	}
	return true
}

// stopRule is the convergence rule. Both variants look at relative ELBO
// changes |ΔELBO|/max(|ELBO|, 1) over the last `window` evaluations (the
// scale capped and, for the averaged rule, floored: see stopScalePerCoord
// and stopScalePerSE):
//
//   - averaged (the default): each estimate is of the averaged q (the mean
//     of the last window·EvalEvery iterates), all from the same draws of the
//     base distribution, so that two estimates differ by what q moved and
//     hardly by Monte Carlo noise. The change is taken against the estimate
//     `window` evaluations earlier, whose average shares no iterate with the
//     current one, and the fit has converged when the median of the last
//     `window` such changes is below tol.
//   - last iterate (Stan ADVI's rule): each estimate is of the current
//     iterate from fresh draws; the change is against the previous
//     estimate, and the fit has converged when the mean or the median of
//     the last `window` changes is below tol.
type stopRule struct {
	averaged bool
	window   int
	tol      float64
	n        int       // estimates since the start or the last rollback
	hist     []float64 // the last of them, oldest first (at most window + 1)
	rel      []float64 // the last changes, oldest first (at most window)
	sorted   []float64
	// scaleCap, if positive, caps the scale the changes are relative to
	// (|ELBO|): see stopScalePerCoord.
	scaleCap float64
	// batched: the estimates are of a minibatch target (Settings.Minibatch),
	// and the floor is stopScalePerBatchSE standard errors.
	batched bool
}

// stopScalePerCoord caps the scale of the stop rule's relative changes at
// this many nats per coordinate: the changes are |ΔELBO| / min(|ELBO|,
// 100·dim). A posterior's log density varies over some dim/2 nats; an
// |ELBO| far beyond that is made of constants (a data term's normalisers,
// a target += constant) that say nothing of how far q still has to move,
// and under a plain relative rule a fit to 50 000 observations (|ELBO|
// 9·10⁴, one latent) stopped with q still moving by 9 nats a window and
// its sd 8–40 % off the exact posterior's, and adding target += −10⁶ to a
// Poisson–gamma model stopped it with an sd 2.8 times too wide. Fits with
// |ELBO| below 100·dim (every example and test model) are unchanged.
const stopScalePerCoord = 100

// stopScalePerSE floors the scale of the averaged rule's relative changes
// at this many standard errors of the ELBO estimate, so that at the default
// tolerance (1e-4) a change below a tenth of the estimate's standard error
// counts as none. The estimates share their draws, so their differences are
// mostly what q moved; but q is an average of iterates that keep the
// one-draw gradient's noise, and it moves by about that much however long
// the fit runs. Where |ELBO| is small that motion exceeds tol·|ELBO|: a
// normal mean and scale from five observations (|ELBO| 11, estimates ±0.03)
// or the cultivar example (|ELBO| 43, ±0.26) ran all 10⁴ steps, "not
// converged", while their ELBO stayed within 0.04 nats of the 10⁴-step
// value from 3000 steps on. The standard error is the noise's measure: it
// vanishes where q is exact, and so does the gradient's noise at the
// optimum (sticking the landing). Bundled models with an |ELBO| in the
// thousands stop where they did.
const stopScalePerSE = 1000

// stopScalePerBatchSE is stopScalePerSE for a minibatch fit, whose
// estimates' standard error is mostly the spread of their batches (common
// to every estimate, which draws the same batches: it is no motion of q),
// so that a thousand of them would make the rule stop at once whatever q
// did. On a regression of 20 000 rows fitted on batches of 200 (SE ≈ 87
// nats) the averaged q moved by 0.4–2 nats a window from 3000 steps to
// 10⁴, a plateau of the batches' gradient noise: fits stopped at 3000,
// 5000 and 10⁴ steps reached full-data ELBOs within 0.2–0.9 nats of the
// full fit's, with no trend. A hundred standard errors stop it there
// (docs/inference.md, "Minibatch SGVB").
const stopScalePerBatchSE = 100

func newStopRule(averaged bool, window int, tol, scaleCap float64) *stopRule {
	return &stopRule{averaged: averaged, window: window, tol: tol, scaleCap: scaleCap,
		hist: make([]float64, 0, window+1), rel: make([]float64, 0, window), sorted: make([]float64, window)}
}

// stopScale is what the stop rule divides an ELBO change by at estimate
// elbo of standard error spread: |elbo| capped at scaleCap (if positive),
// for the averaged rule floored at stopScalePerSE (stopScalePerBatchSE
// where batched) standard errors, and at least 1.
func stopScale(elbo, spread, scaleCap float64, averaged, batched bool) float64 {
	scale := math.Abs(elbo)
	if scaleCap > 0 {
		scale = math.Min(scale, scaleCap)
	}
	if averaged && spread > 0 { // not NaN
		per := float64(stopScalePerSE)
		if batched {
			per = stopScalePerBatchSE
		}
		scale = math.Max(scale, per*spread)
	}
	return math.Max(scale, 1)
}

// Rise is how far a fit's ELBO estimate moved over its last Window
// evaluations (LastRise): from the estimate at iteration From to the one
// at To, by Gain nats, Rel relative to the scale the convergence rule
// divides by (Fit; the change it compares with Tol), SE the standard
// error of the last estimate and Tol the fit's tolerance (Settings.Tol
// with its default; ≤ 0: the fit ran MaxIter steps).
type Rise struct {
	From, To           int
	Gain, Rel, SE, Tol float64
}

// LastRise returns how far the ELBO estimates of r (an SGVB fit with
// settings s) moved over its last Window evaluations, the lag of the
// averaged convergence rule, whose estimates then share no iterate; false
// where the trace holds fewer than Window + 1 estimates or the last is not
// finite. A fit stopped at MaxIter with a Rel many times Tol was still
// moving, not wobbling at the tolerance.
func LastRise(r *Result, s Settings) (Rise, bool) {
	s = s.withDefaults()
	if r == nil || len(r.Trace) < s.Window+1 {
		return Rise{}, false
	}
	n := len(r.Trace)
	last, first := r.Trace[n-1], r.Trace[n-1-s.Window]
	if !finite(last.ELBO) || !finite(first.ELBO) || math.IsInf(last.SE, 0) {
		return Rise{}, false
	}
	gain := last.ELBO - first.ELBO
	scale := stopScale(last.ELBO, last.SE, stopScalePerCoord*float64(r.Dim), !s.LastIterate, s.Minibatch != nil)
	return Rise{From: first.Iter, To: last.Iter, Gain: gain, Rel: gain / scale, SE: last.SE, Tol: s.Tol}, true
}

// reset forgets every estimate (after a rollback).
func (s *stopRule) reset() {
	s.n, s.hist, s.rel = 0, s.hist[:0], s.rel[:0]
}

// observe records an estimate and its standard error (spread) and returns
// the relative change it makes (NaN if there is none yet, or if spread is
// infinite: an estimate whose spread overflows says nothing of convergence)
// and whether the fit has converged.
func (s *stopRule) observe(elbo, spread float64) (change float64, converged bool) {
	lag := 1
	if s.averaged {
		lag = s.window
	}
	if len(s.hist) == lag+1 {
		copy(s.hist, s.hist[1:])
		s.hist = s.hist[:lag]
	}
	s.hist = append(s.hist, elbo)
	s.n++
	// the estimate lag evaluations back, the oldest kept; with averaging
	// it must itself be of a full window of iterates (the lag-th estimate
	// since the start or later)
	if s.n-1-lag < lag-1 || math.IsInf(spread, 0) {
		return math.NaN(), false
	}
	change = math.Abs(elbo-s.hist[0]) / stopScale(elbo, spread, s.scaleCap, s.averaged, s.batched)
	if math.IsNaN(change) {
		return change, false
	}
	if len(s.rel) == s.window {
		copy(s.rel, s.rel[1:])
		s.rel = s.rel[:s.window-1]
	}
	s.rel = append(s.rel, change)
	if s.tol <= 0 || len(s.rel) < s.window {
		return change, false
	}
	copy(s.sorted, s.rel)
	sort.Float64s(s.sorted)
	median := s.sorted[s.window/2]
	if s.averaged {
		return change, median < s.tol
	}
	mean := 0.0
	for _, v := range s.rel {
		mean += v
	}
	mean /= float64(s.window)
	return change, mean < s.tol || median < s.tol
}
