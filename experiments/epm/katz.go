package epm

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/gpplang/gpp/experiments/metrics"
)

// Adjacency returns the symmetric 0/1 adjacency matrix of n nodes with the
// given links.
func Adjacency(n int, links []Pair) *mat.SymDense {
	a := mat.NewSymDense(n, nil)
	for _, p := range links {
		a.SetSym(p.I, p.J, 1)
	}
	return a
}

// SpectralRadius returns the largest eigenvalue of a symmetric
// non-negative matrix (its spectral radius, by Perron–Frobenius).
func SpectralRadius(a *mat.SymDense) (float64, error) {
	var eig mat.EigenSym
	if !eig.Factorize(a, false) {
		return 0, errors.New("epm: eigendecomposition failed")
	}
	v := eig.Values(nil) // ascending
	return v[len(v)-1], nil
}

// Katz returns the Katz index S = Σ_{l≥1} β^l A^l = (I − βA)⁻¹ − I of the
// adjacency a; the series converges for 0 < β < 1/λ_max(A).
func Katz(a *mat.SymDense, beta float64) (*mat.Dense, error) {
	n := a.SymmetricDim()
	m := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := -beta * a.At(i, j)
			if i == j {
				v++
			}
			m.Set(i, j, v)
		}
	}
	var s mat.Dense
	if err := s.Inverse(m); err != nil {
		return nil, err
	}
	for i := 0; i < n; i++ {
		s.Set(i, i, s.At(i, i)-1)
	}
	return &s, nil
}

// KatzGrid is the grid of β·λ_max searched by ChooseKatzBeta.
var KatzGrid = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 0.95, 0.99}

// ChooseKatzBeta picks β = f/λ_max, f ∈ KatzGrid, by the AUC-ROC on the
// validation pairs of the inner split (Katz on the inner training links,
// scored on inner.Test); ties go to the smaller f. It never looks at the
// outer test pairs. It returns f and its validation AUC.
func ChooseKatzBeta(n int, inner *Split) (f, auc float64, err error) {
	a := Adjacency(n, inner.Train)
	lam, err := SpectralRadius(a)
	if err != nil {
		return 0, 0, err
	}
	best, bestF := math.Inf(-1), KatzGrid[0]
	for _, g := range KatzGrid {
		s, err := Katz(a, g/lam)
		if err != nil {
			return 0, 0, err
		}
		v := metrics.AUCROC(pairScores(s, inner.Test), inner.TestLink)
		if v > best {
			best, bestF = v, g
		}
	}
	return bestF, best, nil
}

// KatzScores returns the Katz scores of the test pairs of split s of a
// network with n nodes, with β = f/λ_max of the training adjacency.
func KatzScores(n int, s *Split, f float64) ([]float64, error) {
	a := Adjacency(n, s.Train)
	lam, err := SpectralRadius(a)
	if err != nil {
		return nil, err
	}
	k, err := Katz(a, f/lam)
	if err != nil {
		return nil, err
	}
	return pairScores(k, s.Test), nil
}

func pairScores(s *mat.Dense, pairs []Pair) []float64 {
	out := make([]float64, len(pairs))
	for i, p := range pairs {
		out[i] = s.At(p.I, p.J)
	}
	return out
}
