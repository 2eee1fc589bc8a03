package dist

import (
	"math"
	"math/rand/v2"
)

// DiscreteUniform is uniform on the integers Lower, Lower + 1, …, Upper
// (PyMC's DiscreteUniform, Stan's discrete_range): mass 1/(Upper − Lower
// + 1) on each. Its bounds are integers with Lower ≤ Upper; anything else
// is an invalid parameter, and a value outside the range has log mass
// −Inf, as Stan's discrete_range_lpmf.
type DiscreteUniform struct {
	Lower, Upper float64
}

// LogProb returns the log mass at k.
func (d DiscreteUniform) LogProb(k float64) float64 {
	lp, _ := d.eval(k, nil)
	return lp
}

// Score writes the partials of LogProb(k) in Lower and Upper, 0 for
// integer bounds, into dst (allocated if nil) and returns it.
func (d DiscreteUniform) Score(dst []float64, k float64) []float64 {
	dst = scoreDst(dst, 2)
	d.eval(k, dst)
	return dst
}

// Rand returns a draw: Lower plus a uniform integer below the range's
// size, from the source's exact Uint64N.
func (d DiscreteUniform) Rand(rng *rand.Rand) float64 {
	if !d.valid() {
		return math.NaN()
	}
	return d.Lower + float64(rng.Uint64N(uint64(d.Upper-d.Lower+1)))
}

// Mean returns (Lower + Upper)/2.
func (d DiscreteUniform) Mean() float64 { return (d.Lower + d.Upper) / 2 }

// Variance returns ((Upper − Lower + 1)² − 1)/12.
func (d DiscreteUniform) Variance() float64 {
	n := d.Upper - d.Lower + 1
	return (n*n - 1) / 12
}

// discreteUniformMax bounds the range's size: its draw takes an integer
// below it, and its ends must be exact in a float64.
const discreteUniformMax = 1 << 53

func (d DiscreteUniform) valid() bool {
	lo, hi := d.Lower, d.Upper
	return lo == math.Trunc(lo) && hi == math.Trunc(hi) && lo <= hi && hi-lo < discreteUniformMax
}

func (d DiscreteUniform) eval(k float64, dp []float64) (lp, dx float64) {
	if !d.valid() || math.IsNaN(k) {
		return invalid(dp)
	}
	if k != math.Trunc(k) || k < d.Lower || k > d.Upper {
		return outside(dp)
	}
	clear(dp)
	return -math.Log(d.Upper - d.Lower + 1), 0
}

// discreteUniformLogCDF is log((k − lower + 1)/n) or log((upper − k)/n)
// at k = ⌊x⌋, n = upper − lower + 1; its partials in the integer bounds
// are 0.
func discreteUniformLogCDF(x float64, p, dp []float64, upper bool) (float64, float64) {
	d := DiscreteUniform{p[0], p[1]}
	if !d.valid() {
		return invalid(dp)
	}
	switch {
	case x < d.Lower:
		return belowSupport(dp, upper)
	case x >= d.Upper:
		return aboveSupport(dp, upper)
	}
	clear(dp)
	k, n := math.Floor(x), d.Upper-d.Lower+1
	if upper {
		return math.Log((d.Upper - k) / n), 0
	}
	return math.Log((k - d.Lower + 1) / n), 0
}
