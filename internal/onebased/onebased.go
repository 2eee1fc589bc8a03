// Package onebased recognises Stan's 1-based ids among gpp's 0-based ones: an
// index vector, a categorical outcome or int data declared from 0 whose
// values run from 1 to n instead of from 0 to n − 1. The compiler (an index
// out of range), the data binder (a bound broken) and the tape (a value
// that is not a category) word their advice alike from it.
package onebased

import "fmt"

// Is reports whether count ids, the least lo and the greatest hi,
// into n places 0..n−1 look like Stan's 1-based ids: they hold no 0 and
// reach n, and either start at 1 or are at least n of them (an edge
// list's second column, each edge written node1 < node2, starts above 1,
// and only its greatest id gives it away; a short vector such as a loop's
// [i, i + 1] is not taken for ids).
func Is(lo, hi, count, n int) bool {
	return lo >= 1 && hi == n && (lo == 1 || count >= n)
}

// Span words ids that Is recognises, for a hint: "these run from 1
// to 4, as Stan's 1-based ids do", or with "with no 0" when they start
// above 1.
func Span(lo, n int) string {
	if lo == 1 {
		return fmt.Sprintf("these run from 1 to %d, as Stan's 1-based ids do", n)
	}
	return fmt.Sprintf("these run from %d to %d, with no 0, as Stan's 1-based ids do", lo, n)
}

// Range returns the least and the greatest of vals and whether they are
// all whole numbers (NaN, a missing value, is skipped); of no whole
// numbers, ok is false.
func Range(vals []float64) (lo, hi, count int, ok bool) {
	for _, v := range vals {
		if v != v {
			continue
		}
		if v != float64(int(v)) {
			return 0, 0, 0, false
		}
		i := int(v)
		if count == 0 || i < lo {
			lo = i
		}
		if count == 0 || i > hi {
			hi = i
		}
		count++
	}
	return lo, hi, count, count > 0
}
