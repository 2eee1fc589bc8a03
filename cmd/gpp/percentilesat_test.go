package main

import (
	"strconv"
	"testing"

	"github.com/gpplang/gpp/infer/nuts"
)

// percentilesAt are the quantiles of every column at probs (R's type 7,
// over the draws that are not NaN), computed apart from summarise's
// stats.qs: the tests' reference for --percentiles' columns.
func percentilesAt(cols [][]float64, probs []float64) percentiles {
	pc := percentiles{probs: probs, q: make([][]float64, len(cols))}
	for c, col := range cols {
		v, _ := nuts.SortedFinite(col)
		pc.q[c] = make([]float64, len(probs))
		for i, p := range probs {
			pc.q[c][i] = nuts.Quantile(v, p)
		}
	}
	return pc
}

// TestPctText: a percentile's column name is the number given to
// --percentiles, not 100 × its probability's float error (q7, not
// q7.000000000000001).
func TestPctText(t *testing.T) {
	for _, v := range []float64{5, 50, 95, 2.5, 97.5, 7, 14, 28, 29, 55, 57, 58, 33.3, 0.1, 99.9, 0, 100} {
		want := strconv.FormatFloat(v, 'f', -1, 64)
		if got := pctText(v / 100); got != want {
			t.Errorf("pctText(%v / 100) = %q, want %q", v, got, want)
		}
	}
}
