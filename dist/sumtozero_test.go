package dist

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
)

// sumToZeroTestTol bounds the rounding of the sum, the round trip and the
// norm for coordinates of size ≲ 10.
const sumToZeroTestTol = 1e-12

// Every vector SumToZeroValues makes sums to zero, has the norm of its
// coordinates, and SumToZeroCoords gives the coordinates back.
func TestSumToZeroValues(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for k := 2; k <= 40; k++ {
		for range 20 {
			y := make([]float64, k-1)
			for i := range y {
				y[i] = 10 * r.NormFloat64()
			}
			z := make([]float64, k)
			SumToZeroValues(z, y)
			var s, n2z, n2y float64
			for _, v := range z {
				s += v
				n2z += v * v
			}
			for _, v := range y {
				n2y += v * v
			}
			if math.Abs(s) > sumToZeroTestTol*math.Sqrt(float64(k))*10 {
				t.Fatalf("K=%d: the values %v sum to %g", k, z, s)
			}
			if math.Abs(math.Sqrt(n2z)-math.Sqrt(n2y)) > sumToZeroTestTol*math.Sqrt(n2y) {
				t.Fatalf("K=%d: |z| = %g, |y| = %g: the map is not an isometry", k, math.Sqrt(n2z), math.Sqrt(n2y))
			}
			back := make([]float64, k-1)
			SumToZeroCoords(back, z)
			for i := range y {
				if math.Abs(back[i]-y[i]) > sumToZeroTestTol*10 {
					t.Fatalf("K=%d: coordinate %d round-trips to %g, not %g", k, i, back[i], y[i])
				}
			}
		}
	}
}

// The basis is Stan's (2.36's sum_to_zero_constrain): for K = 3 the
// coordinate e_1 gives (1, −1, 0)/√2 and e_2 gives (1, 1, −2)/√6, so that
// coordinates fitted by Stan and by gpp name the same vector.
func TestSumToZeroBasis(t *testing.T) {
	for _, c := range []struct{ y, want []float64 }{
		{[]float64{1, 0}, []float64{1 / math.Sqrt2, -1 / math.Sqrt2, 0}},
		{[]float64{0, 1}, []float64{1 / math.Sqrt(6), 1 / math.Sqrt(6), -2 / math.Sqrt(6)}},
		{[]float64{3}, []float64{3 / math.Sqrt2, -3 / math.Sqrt2}},
	} {
		z := make([]float64, len(c.want))
		SumToZeroValues(z, c.y)
		for i := range z {
			if math.Abs(z[i]-c.want[i]) > sumToZeroTestTol {
				t.Errorf("SumToZeroValues(%v) = %v, want %v", c.y, z, c.want)
				break
			}
		}
	}
}

// The Jacobian of y → z, by finite differences at random points, is the
// same matrix everywhere and has orthonormal columns (J'J = I): the volume
// element √det(J'J) on the zero-sum subspace is 1, so the log Jacobian is
// the constant 0 and nothing need be added to a log density. Its columns
// sum to zero (every direction stays in the subspace).
func TestSumToZeroJacobian(t *testing.T) {
	const tol = 1e-8
	r := rand.New(rand.NewPCG(3, 4))
	for k := 2; k <= 9; k++ {
		var first *mat.Dense
		for range 3 {
			y := make([]float64, k-1)
			for i := range y {
				y[i] = 3 * r.NormFloat64()
			}
			jac := mat.NewDense(k, k-1, nil)
			fd.Jacobian(jac, func(z, y []float64) { SumToZeroValues(z, y) }, y, &fd.JacobianSettings{Formula: fd.Central})
			var jtj mat.Dense
			jtj.Mul(jac.T(), jac)
			if !mat.EqualApprox(&jtj, eye(k-1), tol) {
				t.Fatalf("K=%d: J'J = %v, not I", k, mat.Formatted(&jtj))
			}
			for j := range k - 1 {
				if s := mat.Sum(jac.ColView(j)); math.Abs(s) > tol {
					t.Fatalf("K=%d: column %d of J sums to %g", k, j, s)
				}
			}
			if first == nil {
				first = jac
			} else if !mat.EqualApprox(first, jac, tol) {
				t.Fatalf("K=%d: the Jacobian differs between points", k)
			}
		}
	}
}

func eye(n int) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	for i := range n {
		m.Set(i, i, 1)
	}
	return m
}

// Every matrix SumToZeroMatrixValues makes has rows and columns summing
// to zero and the Frobenius norm of its coordinates; the coordinates come
// back; each column of the finite-difference Jacobian is V_N ⊗ V_M's
// (the vector transform of a one-hot row, then of each column), and J'J = I.
func TestSumToZeroMatrix(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for m := 2; m <= 6; m++ {
		for n := 2; n <= 6; n++ {
			y := make([]float64, (m-1)*(n-1))
			for i := range y {
				y[i] = 5 * r.NormFloat64()
			}
			z := make([]float64, m*n)
			SumToZeroMatrixValues(z, y, m, n)
			var ny, nz float64
			for _, v := range y {
				ny += v * v
			}
			for i := range m {
				s := 0.0
				for j := range n {
					s += z[i*n+j]
					nz += z[i*n+j] * z[i*n+j]
				}
				if math.Abs(s) > sumToZeroTestTol*10 {
					t.Fatalf("%d×%d: row %d sums to %g", m, n, i, s)
				}
			}
			for j := range n {
				s := 0.0
				for i := range m {
					s += z[i*n+j]
				}
				if math.Abs(s) > sumToZeroTestTol*10 {
					t.Fatalf("%d×%d: column %d sums to %g", m, n, j, s)
				}
			}
			if math.Abs(nz-ny) > sumToZeroTestTol*ny {
				t.Fatalf("%d×%d: |Z|² = %g, |Y|² = %g", m, n, nz, ny)
			}
			back := make([]float64, len(y))
			SumToZeroMatrixCoords(back, z, make([]float64, m*n), m, n)
			for i := range y {
				if math.Abs(back[i]-y[i]) > sumToZeroTestTol*10 {
					t.Fatalf("%d×%d: coordinate %d round-trips to %g, not %g", m, n, i, back[i], y[i])
				}
			}
			// Z = V_M Y V_N' entry by entry, V from SumToZeroValues of
			// unit vectors
			vm, vn := basis(m), basis(n)
			for i := range m {
				for j := range n {
					want := 0.0
					for a := range m - 1 {
						for b := range n - 1 {
							want += vm.At(i, a) * y[a*(n-1)+b] * vn.At(j, b)
						}
					}
					if math.Abs(z[i*n+j]-want) > sumToZeroTestTol*10 {
						t.Fatalf("%d×%d: Z[%d, %d] = %g, V_M Y V_N' has %g", m, n, i, j, z[i*n+j], want)
					}
				}
			}
			if len(y) > 0 {
				jac := mat.NewDense(m*n, len(y), nil)
				fd.Jacobian(jac, func(z, y []float64) { SumToZeroMatrixValues(z, y, m, n) }, y, &fd.JacobianSettings{Formula: fd.Central})
				var jtj mat.Dense
				jtj.Mul(jac.T(), jac)
				if !mat.EqualApprox(&jtj, eye(len(y)), 1e-8) {
					t.Fatalf("%d×%d: J'J is not I", m, n)
				}
			}
		}
	}
}

// basis is V_K (K×(K−1)), column i SumToZeroValues of the unit vector e_i.
func basis(k int) *mat.Dense {
	v := mat.NewDense(k, k-1, nil)
	for i := range k - 1 {
		e, z := make([]float64, k-1), make([]float64, k)
		e[i] = 1
		SumToZeroValues(z, e)
		v.SetCol(i, z)
	}
	return v
}
