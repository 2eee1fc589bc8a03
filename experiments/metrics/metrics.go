// Package metrics holds the ranking metrics of the link-prediction
// experiments (experiments/epm): the area under the ROC curve by the
// rank-sum formula and the area under the precision–recall curve by the
// thresholded trapezoid of Zhou's EPM protocol, plus the average precision
// and small summary statistics.
//
// Place in the project: beside the pipeline, used only by experiments; it
// imports only the standard library.
//
// Scores are "larger means more likely positive"; labels are true for a
// positive (a held-out link). A metric that is undefined (no positives or
// no negatives) is NaN. Scores must not be NaN and must match the labels in
// length; misuse panics.
package metrics

import (
	"math"
	"sort"
)

// AUCROC returns the area under the ROC curve by the rank-sum
// (Mann–Whitney) formula: rank all scores ascending, giving tied scores the
// average of the ranks they span, and return
//
//	(Σ_{positives} rank − n₊(n₊+1)/2) / (n₊ n₋).
//
// With average ranks a tie between a positive and a negative counts ½, so
// the value equals P(s₊ > s₋) + ½ P(s₊ = s₋) and agrees with the trapezoid
// area under the empirical ROC curve. (Zhou's aucROC.m uses plain ranks, so
// its value for tied scores depends on the sort order; average ranks remove
// that arbitrariness.)
func AUCROC(scores []float64, labels []bool) float64 {
	checkLen(scores, labels)
	n := len(scores)
	idx := sortedIndex(scores)
	var npos, nneg int
	var rankSum float64
	for i := 0; i < n; {
		j := i + 1
		for j < n && scores[idx[j]] == scores[idx[i]] {
			j++
		}
		// ranks i+1 … j share the average rank (i+1+j)/2
		avg := float64(i+1+j) / 2
		for k := i; k < j; k++ {
			if labels[idx[k]] {
				rankSum += avg
				npos++
			} else {
				nneg++
			}
		}
		i = j
	}
	if npos == 0 || nneg == 0 {
		return math.NaN()
	}
	p, q := float64(npos), float64(nneg)
	return (rankSum - p*(p+1)/2) / (p * q)
}

// DefaultThresholds is the number of thresholds of the precision–recall
// curve in Zhou's EPM protocol (prec_rec with 3000 thresholds).
const DefaultThresholds = 3000

// PRCurve returns the points (recall, precision) of the precision–recall
// curve at nThresh thresholds, preceded by the pseudo point (0, 1), sorted
// by recall (ties: by decreasing precision).
//
// Thresholds: when the scores take at most nThresh distinct values, every
// distinct value is a threshold; otherwise the thresholds are the empirical
// quantiles of the scores at the probabilities q = i/(nThresh−1), i = 0 …
// nThresh−1 (linear interpolation between order statistics, Hyndman–Fan
// type 7), as Zhou's protocol takes them from the score distribution. At
// threshold t a pair is predicted positive when its score is ≥ t;
// precision = TP/(TP+FP), recall = TP/n₊. The lowest threshold predicts
// everything positive, so the curve always ends at recall 1. nThresh ≤ 1
// means DefaultThresholds.
func PRCurve(scores []float64, labels []bool, nThresh int) (recall, precision []float64) {
	checkLen(scores, labels)
	if nThresh <= 1 {
		nThresh = DefaultThresholds
	}
	n := len(scores)
	sorted := make([]float64, n)
	copy(sorted, scores)
	sort.Float64s(sorted)
	var distinct []float64
	for i, v := range sorted {
		if i == 0 || v != sorted[i-1] {
			distinct = append(distinct, v)
		}
	}
	var thresh []float64
	if len(distinct) <= nThresh {
		thresh = distinct
	} else {
		thresh = make([]float64, nThresh)
		for i := range thresh {
			h := float64(n-1) * float64(i) / float64(nThresh-1)
			lo := int(math.Floor(h))
			if lo >= n-1 {
				thresh[i] = sorted[n-1]
				continue
			}
			thresh[i] = sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
		}
	}
	// Counts of positives and of all scores ≥ t, by a sweep from the top
	// over the scores sorted descending.
	idx := sortedIndex(scores) // ascending
	npos := 0
	for _, l := range labels {
		if l {
			npos++
		}
	}
	recall = []float64{0}
	precision = []float64{1}
	if npos == 0 {
		return recall, precision
	}
	k := n - 1 // next score (descending) not yet counted
	tp, all := 0, 0
	for ti := len(thresh) - 1; ti >= 0; ti-- {
		t := thresh[ti]
		for k >= 0 && scores[idx[k]] >= t {
			all++
			if labels[idx[k]] {
				tp++
			}
			k--
		}
		if all == 0 {
			continue // nothing predicted positive: precision undefined
		}
		recall = append(recall, float64(tp)/float64(npos))
		precision = append(precision, float64(tp)/float64(all))
	}
	// The sweep visits thresholds from high to low, so recall is already
	// non-decreasing; order ties by decreasing precision for a clean curve.
	type pt struct{ r, p float64 }
	pts := make([]pt, len(recall))
	for i := range pts {
		pts[i] = pt{recall[i], precision[i]}
	}
	sort.SliceStable(pts, func(i, j int) bool {
		if pts[i].r != pts[j].r {
			return pts[i].r < pts[j].r
		}
		return pts[i].p > pts[j].p
	})
	for i, q := range pts {
		recall[i], precision[i] = q.r, q.p
	}
	return recall, precision
}

// AUCPR returns the area under the precision–recall curve of PRCurve by the
// trapezoid rule over recall (Zhou's EPM protocol: nThresh = 3000 and the
// pseudo point recall 0, precision 1). NaN if there is no positive.
func AUCPR(scores []float64, labels []bool, nThresh int) float64 {
	r, p := PRCurve(scores, labels, nThresh)
	if len(r) < 2 {
		return math.NaN()
	}
	area := 0.0
	for i := 1; i < len(r); i++ {
		area += (r[i] - r[i-1]) * (p[i] + p[i-1]) / 2
	}
	return area
}

// AveragePrecision returns the (non-interpolated) average precision
// Σ_t (R_t − R_{t−1}) P_t over the distinct score values t taken as
// thresholds from the top; tied scores enter together. NaN if there is no
// positive.
func AveragePrecision(scores []float64, labels []bool) float64 {
	checkLen(scores, labels)
	idx := sortedIndex(scores)
	npos := 0
	for _, l := range labels {
		if l {
			npos++
		}
	}
	if npos == 0 {
		return math.NaN()
	}
	ap, prevR := 0.0, 0.0
	tp, all := 0, 0
	for k := len(idx) - 1; k >= 0; {
		j := k
		for j >= 0 && scores[idx[j]] == scores[idx[k]] {
			all++
			if labels[idx[j]] {
				tp++
			}
			j--
		}
		r := float64(tp) / float64(npos)
		ap += (r - prevR) * float64(tp) / float64(all)
		prevR = r
		k = j
	}
	return ap
}

// MeanSD returns the mean and the sample standard deviation (n − 1) of x,
// skipping NaNs; the sd is NaN with fewer than two values.
func MeanSD(x []float64) (mean, sd float64) {
	n := 0
	for _, v := range x {
		if !math.IsNaN(v) {
			n++
			mean += v
		}
	}
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	mean /= float64(n)
	if n < 2 {
		return mean, math.NaN()
	}
	for _, v := range x {
		if !math.IsNaN(v) {
			sd += (v - mean) * (v - mean)
		}
	}
	return mean, math.Sqrt(sd / float64(n-1))
}

// Median returns the median of x (the mean of the two middle values for an
// even length), sorting x in place; NaN for none. Unlike MeanSD it does not
// skip NaNs: they sort first and count as values, so callers drop them.
func Median(x []float64) float64 {
	n := len(x)
	if n == 0 {
		return math.NaN()
	}
	sort.Float64s(x)
	return (x[(n-1)/2] + x[n/2]) / 2
}

// Misuse panics.
const (
	errLen = "metrics: scores and labels differ in length"
	errNaN = "metrics: a score is NaN"
)

func checkLen(scores []float64, labels []bool) {
	if len(scores) != len(labels) {
		panic(errLen)
	}
	for _, v := range scores {
		if math.IsNaN(v) {
			panic(errNaN)
		}
	}
}

// sortedIndex returns the indices of scores in ascending order of score
// (stable).
func sortedIndex(scores []float64) []int {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] < scores[idx[b]] })
	return idx
}
