package main

import "time"

// A NUTS iteration's time is its tree's leapfrog steps times a gradient's
// cost, and the trees of early warm-up are the run's deepest: the chains
// still run on the initial metric, often badly scaled, so the step size
// adapts small and trajectories take hundreds of steps, until the first
// window learns a metric (nuts.FirstMetric) and the trees shrink, often
// 10–50 fold (user trials: the first iterations' pace foretold 3–7 times
// the run's time). The estimates below therefore split a gradient's cost
// from the tree sizes instead of extrapolating the pace.

// settledDepth is the tree depth assumed once the metric is learned, for
// the low end of the first estimate: adapted trees of a few to a few
// hundred dimensions are mostly of depth 3 to 5 (7 to 31 leapfrog steps).
const settledDepth = 4

// leapfrogs is the leapfrog steps of a tree of depth d, at most 2^d − 1;
// a last doubling cut short by a U-turn takes fewer, alike at every depth.
func leapfrogs(depth int) float64 {
	return float64(int64(1)<<min(depth, 62) - 1)
}

// sampleRunSpan estimates what a run of total iterations (across the
// chains) takes from its first len(leaps), which took el, leaps holding
// each one's leapfrog steps in the order they ended; settled is the
// iterations across the chains before every chain has learned its metric
// (0: none learned). A leapfrog step costs el/Σleaps; the iterations to
// settled run at the latest half's tree size, the rest, at high, at that
// size too (trees the learned metric does not shorten) and, at low, at
// depth settledDepth where the latest trees are deeper.
func sampleRunSpan(el time.Duration, leaps []float64, total, settled int64) (low, high time.Duration) {
	n := int64(len(leaps))
	if n == 0 || n >= total {
		return el, el
	}
	sum, now := leapSums(leaps)
	if sum <= 0 {
		return el, el
	}
	per := el.Seconds() / sum // a leapfrog step's cost, across the chains
	rest := float64(total - n)
	before := min(max(float64(settled-n), 0), rest) // iterations still on the initial metric
	after := now
	if settled > 0 {
		after = min(now, leapfrogs(settledDepth))
	}
	sec := func(s float64) time.Duration { return el + time.Duration(s*float64(time.Second)) }
	return sec(per * (now*before + after*(rest-before))), sec(per * now * rest)
}

// leapSums returns the leapfrog steps of all of leaps, and the mean of
// the latest half's (of leaps[len/2:]), non-empty.
func leapSums(leaps []float64) (sum, latest float64) {
	half := leaps[len(leaps)/2:]
	for _, l := range leaps {
		sum += l
	}
	for _, l := range half {
		latest += l
	}
	return sum, latest / float64(len(half))
}

// sampleRestSpan estimates what the total−len(leaps) iterations left
// take, from the first len(leaps), which took el: at a leapfrog step's
// cost so far, each of the trees' mean size since settled (the
// iterations before every chain learned its metric), or of the latest
// half's where fewer than a tenth of them came since.
func sampleRestSpan(el time.Duration, leaps []float64, total, settled int64) time.Duration {
	n := int64(len(leaps))
	if n == 0 || n >= total {
		return 0
	}
	var sum float64
	for _, l := range leaps {
		sum += l
	}
	if sum <= 0 {
		return 0
	}
	from := n / 2
	if settled > 0 && n-settled >= n/10 && n > settled {
		from = settled
	}
	var late float64
	for _, l := range leaps[from:] {
		late += l
	}
	each := el.Seconds() / sum * late / float64(n-from)
	return time.Duration(each * float64(total-n) * float64(time.Second))
}
