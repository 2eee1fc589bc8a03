package dist

import (
	"math"
	"math/rand/v2"
	"testing"
)

// gammaSeriesDExact is gammaSeriesD with its stopping test taken exactly
// at every term (two divisions per term), as it was before the test got a
// division-free pre-test: the reference that the pre-test must not change.
func gammaSeriesDExact(a, x float64) (s, ds float64, ok bool) {
	s, t := 1.0, 1.0
	var h float64
	n := gammaMaxIter(a)
	for k := 1; k <= n; k++ {
		inv := 1 / (a + float64(k))
		r := x * inv
		t *= r
		h += inv
		s += t
		ds -= t * h
		q := t * r / (1 - r)
		if r < 1 && q <= seriesTol*s && q*(h+inv/(1-r)) <= -seriesTol*ds {
			return s, ds, true
		}
	}
	return s, ds, false
}

// TestGammaSeriesDPretest checks that gammaSeriesD's division-free pre-test
// stops the series at the same term as the exact test alone, so its S and
// S′ are the exact test's bit for bit: on a grid of shapes 1e-6–1e5 and
// points across the series branch (x up to a + 2 and 4, down to 1e-300),
// and at 200 000 random (a, x) pairs, log-uniform in both.
func TestGammaSeriesDPretest(t *testing.T) {
	check := func(a, x float64) {
		t.Helper()
		s, ds, ok := gammaSeriesD(a, x)
		s0, ds0, ok0 := gammaSeriesDExact(a, x)
		if math.Float64bits(s) != math.Float64bits(s0) || math.Float64bits(ds) != math.Float64bits(ds0) || ok != ok0 {
			t.Fatalf("a=%g x=%g: (%v, %v, %v), exact test (%v, %v, %v)", a, x, s, ds, ok, s0, ds0, ok0)
		}
	}
	for _, a := range []float64{1e-6, 1e-3, 0.01, 0.1, 0.3, 0.5, 1, 1.5, 2, 3.7, 10, 30, 100, 1e3, 1e4, 1e5} {
		for _, f := range []float64{1e-300, 1e-30, 1e-8, 1e-3, 0.01, 0.1, 0.3, 0.5, 0.9, 0.99, 1, 1.01} {
			check(a, f*a)
		}
		for x := 0.0; x <= math.Max(a, math.Min(a+2, 4)); x += 0.01 * math.Max(a, 1) {
			check(a, x)
		}
	}
	rng := rand.New(rand.NewPCG(89, 1))
	for range 200000 {
		a := math.Exp(math.Log(1e-6) + rng.Float64()*math.Log(1e11))
		x := math.Max(a, math.Min(a+2, 4)) * math.Exp(-rng.Float64()*40)
		check(a, x)
	}
}
