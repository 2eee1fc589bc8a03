package dist

import "math"

// Panic messages for programmer error (gonum style: package-prefixed
// constants).
const (
	errLength = "dist: slice length mismatch"
	errDim    = "dist: dimension mismatch"
)

// Frequently used constants.
const (
	lnSqrt2Pi = 0.918938533204672741780329736406 // log √(2π)
	lnPi      = 1.14472988584940017414342735135  // log π
	ln2Pi     = 1.83787706640934548356065947281  // log 2π
)

// finite reports whether v is neither NaN nor infinite.
func finite(v float64) bool { return v-v == 0 }

// positive reports whether v is in (0, ∞).
func positive(v float64) bool { return v > 0 && v < math.Inf(1) }

// nonNegative reports whether v is in [0, ∞).
func nonNegative(v float64) bool { return v >= 0 && v < math.Inf(1) }

// isCount reports whether v is a finite non-negative integer.
func isCount(v float64) bool { return v >= 0 && v == math.Trunc(v) && v < math.Inf(1) }

// invalid is the result for an invalid parameter or a NaN value: NaN log
// density, NaN partials.
func invalid(dp []float64) (lp, dx float64) {
	for i := range dp {
		dp[i] = math.NaN()
	}
	return math.NaN(), math.NaN()
}

// outside is the result for a value outside the support: −Inf log density
// and zero partials.
func outside(dp []float64) (lp, dx float64) {
	clear(dp)
	return math.Inf(-1), 0
}

// scoreDst returns dst, or a new slice of length n if dst is nil; any other
// length is a programmer error.
func scoreDst(dst []float64, n int) []float64 {
	if dst == nil {
		return make([]float64, n)
	}
	if len(dst) != n {
		panic(errLength)
	}
	return dst
}
