package onebased

import (
	"math"
	"testing"
)

// TestIs: ids from 1 to n, or from above 1 to n when there are at least
// n of them, are 1-based; ids with a 0, short of n, or a few from above 1
// are not.
func TestIs(t *testing.T) {
	for _, c := range []struct {
		lo, hi, count, n int
		want             bool
	}{
		{1, 4, 10, 4, true},
		{2, 4, 4, 4, true}, // an edge list's second column
		{2, 4, 2, 4, false},
		{0, 4, 10, 4, false},
		{1, 3, 10, 4, false},
	} {
		if got := Is(c.lo, c.hi, c.count, c.n); got != c.want {
			t.Errorf("Is(%d, %d, %d, %d) = %v, want %v", c.lo, c.hi, c.count, c.n, got, c.want)
		}
	}
	if lo, hi, count, ok := Range([]float64{3, 1, math.NaN(), 4}); !ok || lo != 1 || hi != 4 || count != 3 {
		t.Errorf("Range = %d, %d, %d, %v; want 1, 4, 3, true", lo, hi, count, ok)
	}
	if _, _, _, ok := Range([]float64{1, 1.5}); ok {
		t.Error("Range of a fraction: ok")
	}
}
