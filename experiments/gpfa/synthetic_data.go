package gpfa

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Synthetic is one synthetic GPFA data set (Knowles 2015, §4.2).
type Synthetic struct {
	W *mat.Dense // true loadings, D×K
	Y *mat.Dense // observations, N×D
}

// Synthetic-experiment constants of the paper.
const (
	SynthD        = 50  // observed dimensions
	SynthK        = 10  // true factors (and the model's truncation K)
	SynthDensity  = 0.2 // P(w_dk ≠ 0)
	SynthNoiseVar = 0.1 // noise variance σ²
)

// GenerateSynthetic draws a data set of the paper's synthetic experiment
// from a PCG stream seeded with (seed, n): loadings w_dk = b_dk·u_dk with
// b_dk ~ Bernoulli(density) and u_dk ~ U[0, 1] (the spike-and-slab
// 0.8·δ₀ + 0.2·U[0, 1] for density 0.2), factors x_n ~ N(0, I_K) and
// y_n = W x_n + e_n with e_n ~ N(0, noiseVar·I_D).
//
// The loadings are drawn first from the stream seeded (seed, 0), so every N
// of one seed shares the same true W; the rows come from (seed, n) and the
// data sets of different N are independent.
func GenerateSynthetic(n, d, k int, density, noiseVar float64, seed uint64) *Synthetic {
	wr := rand.New(rand.NewPCG(seed, 0x9fa0))
	w := mat.NewDense(d, k, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < k; j++ {
			b := wr.Float64() < density
			u := wr.Float64()
			if b {
				w.Set(i, j, u)
			}
		}
	}
	yr := rand.New(rand.NewPCG(seed, uint64(n)))
	sd := math.Sqrt(noiseVar)
	y := mat.NewDense(n, d, nil)
	x := make([]float64, k)
	for r := 0; r < n; r++ {
		for j := range x {
			x[j] = yr.NormFloat64()
		}
		for i := 0; i < d; i++ {
			v := 0.0
			for j := 0; j < k; j++ {
				v += w.At(i, j) * x[j]
			}
			y.Set(r, i, v+sd*yr.NormFloat64())
		}
	}
	return &Synthetic{W: w, Y: y}
}
