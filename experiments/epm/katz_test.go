package epm

import (
	"math"
	"testing"
)

// The path 0–1–2: (I − βA)⁻¹ = [[1−β², β, β²], [β, 1, β], [β², β, 1−β²]] /
// (1 − 2β²), and λ_max = √2.
func TestKatzPath(t *testing.T) {
	a := Adjacency(3, []Pair{{0, 1}, {1, 2}})
	lam, err := SpectralRadius(a)
	if err != nil || math.Abs(lam-math.Sqrt2) > 1e-12 {
		t.Fatalf("λ_max = %v (%v), want √2", lam, err)
	}
	for _, beta := range []float64{0.1, 0.5, 0.7} {
		s, err := Katz(a, beta)
		if err != nil {
			t.Fatal(err)
		}
		d := 1 - 2*beta*beta
		want := [3][3]float64{
			{(1-beta*beta)/d - 1, beta / d, beta * beta / d},
			{beta / d, 1/d - 1, beta / d},
			{beta * beta / d, beta / d, (1-beta*beta)/d - 1},
		}
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				if math.Abs(s.At(i, j)-want[i][j]) > 1e-12 {
					t.Errorf("β=%v: S[%d,%d] = %v, want %v", beta, i, j, s.At(i, j), want[i][j])
				}
			}
		}
	}
	// β = ½: S01 = 1, S02 = ½ (the series ½·1 + ¼·… summed by hand).
	s, _ := Katz(a, 0.5)
	if math.Abs(s.At(0, 1)-1) > 1e-12 || math.Abs(s.At(0, 2)-0.5) > 1e-12 {
		t.Errorf("β=½: S01 = %v, S02 = %v; want 1, ½", s.At(0, 1), s.At(0, 2))
	}
}

// The truncated series Σ_{l≤60} β^l A^l agrees with the inverse.
func TestKatzSeries(t *testing.T) {
	g := randomNetwork(12, 0.3, 5)
	a := Adjacency(g.N, g.Links)
	lam, _ := SpectralRadius(a)
	beta := 0.5 / lam
	s, err := Katz(a, beta)
	if err != nil {
		t.Fatal(err)
	}
	n := g.N
	pow := make([][]float64, n) // β^l A^l
	sum := make([][]float64, n)
	for i := range pow {
		pow[i] = make([]float64, n)
		sum[i] = make([]float64, n)
		pow[i][i] = 1
	}
	for l := 1; l <= 60; l++ {
		next := make([][]float64, n)
		for i := range next {
			next[i] = make([]float64, n)
			for j := 0; j < n; j++ {
				for k := 0; k < n; k++ {
					next[i][j] += pow[i][k] * beta * a.At(k, j)
				}
				sum[i][j] += next[i][j]
			}
		}
		pow = next
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if math.Abs(s.At(i, j)-sum[i][j]) > 1e-10 {
				t.Fatalf("S[%d,%d] = %v, series %v", i, j, s.At(i, j), sum[i][j])
			}
		}
	}
}
