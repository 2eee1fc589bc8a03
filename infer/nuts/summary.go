package nuts

import (
	"math"
	"slices"
)

// The location and scale statistics of a summary (gpp fit's, gpp
// sample's and gpp summary's summary.csv: mean, sd and percentiles), over
// a column's draws that are not NaN, for any reader of draws to share
// (the Go API's Summary).

// Quantile is the p-quantile of sorted values, linear between order
// statistics (R's type 7, as the posterior package): between an infinity
// and another value it is the infinity, unless it falls on the other
// value. NaN for no values.
func Quantile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	h := float64(len(sorted)-1) * p
	lo := int(math.Floor(h))
	if lo+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	a, b, f := sorted[lo], sorted[lo+1], h-float64(lo)
	switch {
	case f == 0 || a == b:
		return a
	case math.IsInf(a, -1):
		return a
	case math.IsInf(b, 1):
		return b
	}
	return a + f*(b-a)
}

// SortedFinite returns the values of xs that are not NaN, sorted, and how
// many were NaN: the draws a summary's mean, sd and quantiles are of.
func SortedFinite(xs []float64) (sorted []float64, nan int) {
	v := slices.DeleteFunc(slices.Clone(xs), math.IsNaN)
	slices.Sort(v)
	return v, len(xs) - len(v)
}

// MeanSD is the mean and sd (n − 1 denominator) of sorted values, summed
// in that order: one value has sd NaN, finite values all equal (a MAP's point)
// have exactly that value and sd 0, and finite values whose sums
// overflow (near 1e308) are summed divided by the largest magnitude.
// Infinities take part (mean ±Inf or NaN, sd NaN); no values give NaN.
func MeanSD(sorted []float64) (mean, sd float64) {
	n := len(sorted)
	switch {
	case n == 0:
		return math.NaN(), math.NaN()
	case n == 1:
		return sorted[0], math.NaN()
	case sorted[0] == sorted[n-1] && !math.IsInf(sorted[0], 0):
		return sorted[0], 0 // an infinite constant's sd is NaN (∞ − ∞), below
	}
	mean, sd = moments(sorted, 1)
	lo, hi := sorted[0], sorted[n-1]
	if !math.IsInf(lo, 0) && !math.IsInf(hi, 0) && (math.IsInf(mean, 0) || math.IsInf(sd, 0)) {
		scale := max(-lo, hi)
		mean, sd = moments(sorted, scale)
		mean, sd = mean*scale, sd*scale
	}
	return mean, sd
}

// moments is the mean and sd of v/scale.
func moments(v []float64, scale float64) (mean, sd float64) {
	for _, x := range v {
		mean += x / scale
	}
	mean /= float64(len(v))
	ss := 0.0
	for _, x := range v {
		ss += (x/scale - mean) * (x/scale - mean)
	}
	return mean, math.Sqrt(ss / float64(len(v)-1))
}
