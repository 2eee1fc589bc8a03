package epm

import (
	"math"
	"math/rand/v2"
)

// SymNMF returns a non-negative H [n×k] (row-major) with H Hᵀ ≈ A, the
// training adjacency of n nodes, by the multiplicative update of symmetric
// NMF (Ding, He and Simon 2005), H ← H ∘ (½ + ½ (A H) ⊘ (H Hᵀ H)), from a
// random start (PCG(seed, 0x3c6ef372fe94f82b), entries uniform on
// (0, 2·√(mean degree / (n k)))), for iters iterations. It uses only the
// links it is given.
func SymNMF(n, k int, links []Pair, iters int, seed uint64) []float64 {
	adj := make([][]int, n)
	for _, p := range links {
		adj[p.I] = append(adj[p.I], p.J)
		adj[p.J] = append(adj[p.J], p.I)
	}
	rng := rand.New(rand.NewPCG(seed, 0x3c6ef372fe94f82b))
	scale := 2 * math.Sqrt(2*float64(len(links))/float64(n)/float64(n*k))
	h := make([]float64, n*k)
	for i := range h {
		h[i] = scale * (rng.Float64() + 1e-3)
	}
	ah := make([]float64, n*k)
	hth := make([]float64, k*k)
	hhth := make([]float64, n*k)
	for it := 0; it < iters; it++ {
		clear(ah)
		for i := 0; i < n; i++ {
			for _, j := range adj[i] {
				for c := 0; c < k; c++ {
					ah[i*k+c] += h[j*k+c]
				}
			}
		}
		clear(hth)
		for i := 0; i < n; i++ {
			for a := 0; a < k; a++ {
				for b := 0; b < k; b++ {
					hth[a*k+b] += h[i*k+a] * h[i*k+b]
				}
			}
		}
		for i := 0; i < n; i++ {
			for c := 0; c < k; c++ {
				s := 0.0
				for b := 0; b < k; b++ {
					s += h[i*k+b] * hth[b*k+c]
				}
				hhth[i*k+c] = s
			}
		}
		for i := range h {
			if hhth[i] > 0 {
				h[i] *= 0.5 + 0.5*ah[i]/hhth[i]
			}
		}
	}
	return h
}
