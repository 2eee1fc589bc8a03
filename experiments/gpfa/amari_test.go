package gpfa

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestAmariIndexExtremes(t *testing.T) {
	k := 4
	id := mat.NewDense(k, k, nil)
	ones := mat.NewDense(k, k, nil)
	for i := 0; i < k; i++ {
		id.Set(i, i, 1)
		for j := 0; j < k; j++ {
			ones.Set(i, j, -2.5)
		}
	}
	if a := AmariIndex(id); a != 0 {
		t.Errorf("Amari(I) = %v, want 0", a)
	}
	if a := AmariIndex(ones); math.Abs(a-1) > 1e-15 {
		t.Errorf("Amari(all equal) = %v, want 1", a)
	}
	// A zero column is the worst case for that column.
	z := mat.DenseCopyOf(id)
	z.Set(2, 2, 0)
	if a := AmariIndex(z); !(a > 0) {
		t.Errorf("Amari with a zero column = %v, want > 0", a)
	}
}

// synthW returns a synthetic true W (seed 3).
func synthW() *mat.Dense {
	return GenerateSynthetic(1, SynthD, SynthK, SynthDensity, SynthNoiseVar, 3).W
}

func TestAmariErrorInvariantToPermutationAndScale(t *testing.T) {
	w := synthW()
	d, k := w.Dims()
	rng := rand.New(rand.NewPCG(1, 2))
	perm := rng.Perm(k)
	what := mat.NewDense(d, k, nil)
	for j := 0; j < k; j++ {
		s := 0.1 + 5*rng.Float64()
		if j%3 == 0 {
			s = -s // sign flips are scalings too
		}
		for i := 0; i < d; i++ {
			what.Set(i, perm[j], s*w.At(i, j))
		}
	}
	if a := AmariError(w, what); a > 1e-12 {
		t.Errorf("Amari of a permuted, rescaled copy = %g, want 0", a)
	}
	if a := AmariError(w, w); a > 1e-12 {
		t.Errorf("Amari(W, W) = %g, want 0", a)
	}
}

func TestAmariErrorPositiveOtherwise(t *testing.T) {
	w := synthW()
	d, k := w.Dims()
	// Mixing two factors.
	mix := mat.DenseCopyOf(w)
	for i := 0; i < d; i++ {
		mix.Set(i, 0, w.At(i, 0)+0.3*w.At(i, 1))
	}
	a1 := AmariError(w, mix)
	if !(a1 > 0) {
		t.Errorf("Amari of a mixed copy = %g, want > 0", a1)
	}
	// Small noise gives a small error, more noise a larger one.
	rng := rand.New(rand.NewPCG(5, 6))
	noisy := func(sd float64) *mat.Dense {
		m := mat.DenseCopyOf(w)
		for i := 0; i < d; i++ {
			for j := 0; j < k; j++ {
				m.Set(i, j, m.At(i, j)+sd*rng.NormFloat64())
			}
		}
		return m
	}
	small, large := AmariError(w, noisy(0.01)), AmariError(w, noisy(0.1))
	if !(small > 0 && small < large && large < 1) {
		t.Errorf("Amari with noise sd 0.01 = %g, 0.1 = %g: want 0 < small < large < 1", small, large)
	}
	// A random matrix is far from W.
	r := noisy(0)
	for i := 0; i < d; i++ {
		for j := 0; j < k; j++ {
			r.Set(i, j, rng.Float64())
		}
	}
	if a := AmariError(w, r); !(a > 0.3) {
		t.Errorf("Amari of a random matrix = %g, want > 0.3", a)
	}
}

func TestGenerateSyntheticShapes(t *testing.T) {
	s := GenerateSynthetic(2000, SynthD, SynthK, SynthDensity, SynthNoiseVar, 1)
	n, d := s.Y.Dims()
	if n != 2000 || d != SynthD {
		t.Fatalf("Y is %d×%d", n, d)
	}
	nz := 0
	for _, v := range s.W.RawMatrix().Data {
		if v != 0 {
			nz++
			if v < 0 || v > 1 {
				t.Fatalf("loading %v outside [0, 1]", v)
			}
		}
	}
	if frac := float64(nz) / float64(SynthD*SynthK); math.Abs(frac-SynthDensity) > 0.07 {
		t.Errorf("fraction of non-zero loadings %.3f, want ≈ %.1f", frac, SynthDensity)
	}
	// The same seed gives the same W for another N.
	if !mat.Equal(s.W, GenerateSynthetic(10, SynthD, SynthK, SynthDensity, SynthNoiseVar, 1).W) {
		t.Error("W differs between N for one seed")
	}
	// The sample covariance approaches W Wᵀ + 0.1 I.
	mu := ColumnMeans(s.Y)
	emp := EmpiricalCovariance(s.Y, mu)
	var want mat.Dense
	want.Mul(s.W, s.W.T())
	maxErr := 0.0
	for i := 0; i < d; i++ {
		want.Set(i, i, want.At(i, i)+SynthNoiseVar)
		for j := 0; j < d; j++ {
			maxErr = math.Max(maxErr, math.Abs(emp.At(i, j)-want.At(i, j)))
		}
	}
	if maxErr > 0.15 {
		t.Errorf("max |S − (WWᵀ + σ²I)| = %.3f with N = 2000", maxErr)
	}
}
