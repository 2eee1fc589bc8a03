package autodiff

import (
	"math"
	"math/rand/v2"
	"testing"
)

// sumToZeroRef is SumToZero's value as the product V y with the basis
// matrix written out: column i (1-based) is i ones, then −i, then zeros,
// over √(i(i+1)).
func sumToZeroRef(v [][]float64, _ []Shape) []float64 {
	y := v[0]
	k := len(y) + 1
	z := make([]float64, k)
	for i := 1; i < k; i++ {
		c := 1 / math.Sqrt(float64(i*(i+1)))
		for j := range i {
			z[j] += c * y[i-1]
		}
		z[i] -= float64(i) * c * y[i-1]
	}
	return z
}

// sumToZeroMatrixRef is SumToZeroMatrix's value: sumToZeroRef along each
// row of Y, then along each column of the result.
func sumToZeroMatrixRef(v [][]float64, s []Shape) []float64 {
	a, b := s[0].Rows, s[0].Cols
	w := make([][]float64, a) // rows [b+1]
	for i := range a {
		w[i] = sumToZeroRef([][]float64{v[0][i*b : (i+1)*b]}, nil)
	}
	z := make([]float64, (a+1)*(b+1))
	for j := range b + 1 {
		col := make([]float64, a)
		for i := range a {
			col[i] = w[i][j]
		}
		for i, x := range sumToZeroRef([][]float64{col}, nil) {
			z[i*(b+1)+j] = x
		}
	}
	return z
}

func TestGradSumToZero(t *testing.T) {
	runCases(t, []gradCase{{
		name:  "sum_to_zero_matrix",
		args:  func(r *rand.Rand) []arg { m, n, _ := dims(r); return []arg{in(Matrix(m, n), real)} },
		build: func(b *Builder, x []ID) ID { return b.SumToZeroMatrix(x[0], testPos) },
		ref:   sumToZeroMatrixRef,
	}, {
		name:  "sum_to_zero_matrix/one-column",
		args:  func(r *rand.Rand) []arg { return []arg{in(Matrix(3, 1), real)} },
		build: func(b *Builder, x []ID) ID { return b.SumToZeroMatrix(x[0], testPos) },
		ref:   sumToZeroMatrixRef,
	}, {
		name:  "sum_to_zero_vector",
		args:  func(r *rand.Rand) []arg { n, _, _ := dims(r); return []arg{in(Vector(n), real)} },
		build: func(b *Builder, x []ID) ID { return b.SumToZero(x[0], testPos) },
		ref:   sumToZeroRef,
	}, {
		name: "sum_to_zero_vector/icar", // the hand-written ICAR density on a ring: −½ Σ (phi[i] − phi[i+1])²
		args: func(r *rand.Rand) []arg { return []arg{in(Vector(4), real)} },
		build: func(b *Builder, x []ID) ID {
			phi := b.SumToZero(x[0], testPos)
			d := b.Sub(phi, b.Gather(phi, []int{1, 2, 3, 4, 0}, testPos), testPos)
			return b.Mul(b.Scalar(-0.5, testPos), b.Sum(b.Mul(d, d, testPos), testPos), testPos)
		},
		ref: func(v [][]float64, s []Shape) []float64 {
			z := sumToZeroRef(v, s)
			t := 0.0
			for i := range z {
				d := z[i] - z[(i+1)%len(z)]
				t += d * d
			}
			return []float64{-0.5 * t}
		},
	}})
}

// A steady-state evaluation of SumToZero and SumToZeroMatrix makes no
// allocations.
func TestSumToZeroZeroAllocs(t *testing.T) {
	b := NewBuilder()
	z := b.SumToZero(b.Input("y", Vector(3), testPos), testPos)
	zm := b.SumToZeroMatrix(b.Input("Y", Matrix(2, 2), testPos), testPos)
	p, err := b.Finish(b.Add(b.Sum(b.Mul(z, z, testPos), testPos), b.Sum(b.Exp(zm, testPos), testPos), testPos))
	if err != nil {
		t.Fatal(err)
	}
	wantZeroAllocs(t, p, []float64{0.1, -0.2, 0.3, 0.5, -1, 2, 0.25})
}
