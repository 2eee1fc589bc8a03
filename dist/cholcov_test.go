package dist

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
)

// cholCovFDTol bounds the difference of CholCovLogJac and the partials
// from central finite differences, relative to max(1, |value|).
const cholCovFDTol = 1e-6

// CholCovValues is lower triangular with diagonal exp(y_ii) in Stan's
// order; CholCovEntry inverts the order; the log Jacobian of y → L (on
// and below the diagonal) matches the log-determinant of a
// finite-difference Jacobian; CholCovGrad and CholCovLogJacGrad match
// finite differences.
func TestCholCov(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for k := 1; k <= 5; k++ {
		m := CholCovSize(k)
		for range 3 {
			y := make([]float64, m)
			for i := range y {
				y[i] = r.NormFloat64()
			}
			l := make([]float64, k*k)
			CholCovValues(l, y, k)
			for c := range m {
				i, j := CholCovEntry(c)
				want := y[c]
				if i == j {
					want = math.Exp(y[c])
				}
				if l[i*k+j] != want {
					t.Errorf("K=%d: coordinate %d is L[%d,%d] = %g, want %g", k, c, i, j, l[i*k+j], want)
				}
			}
			for i := range k {
				for j := i + 1; j < k; j++ {
					if l[i*k+j] != 0 {
						t.Errorf("K=%d: L[%d,%d] = %g above the diagonal", k, i, j, l[i*k+j])
					}
				}
			}
			lower := func(dst, y []float64) {
				l := make([]float64, k*k)
				CholCovValues(l, y, k)
				c := 0
				for i := range k {
					for j := 0; j <= i; j++ {
						dst[c] = l[i*k+j]
						c++
					}
				}
			}
			jac := mat.NewDense(m, m, nil)
			fd.Jacobian(jac, lower, y, &fd.JacobianSettings{Formula: fd.Central})
			want := math.Log(math.Abs(mat.Det(jac)))
			if got := CholCovLogJac(y, k); math.Abs(got-want) > cholCovFDTol*max(1, math.Abs(want)) {
				t.Errorf("K=%d: log Jacobian %.12g, fd log det %.12g", k, got, want)
			}
			g := make([]float64, k*k)
			for i := range g {
				g[i] = r.NormFloat64()
			}
			gw := fd.Gradient(nil, func(y []float64) float64 {
				l := make([]float64, k*k)
				CholCovValues(l, y, k)
				return mat.Dot(mat.NewVecDense(k*k, l), mat.NewVecDense(k*k, g))
			}, y, &fd.Settings{Formula: fd.Central})
			gg := make([]float64, m)
			CholCovGrad(gg, l, g, k)
			jw := fd.Gradient(nil, func(y []float64) float64 { return CholCovLogJac(y, k) }, y, &fd.Settings{Formula: fd.Central})
			jg := make([]float64, m)
			CholCovLogJacGrad(jg, k, 1)
			for i := range gg {
				if math.Abs(gg[i]-gw[i]) > cholCovFDTol*max(1, math.Abs(gw[i])) {
					t.Errorf("K=%d: ∂(g·L)/∂y[%d] = %.10g, fd %.10g", k, i, gg[i], gw[i])
				}
				if math.Abs(jg[i]-jw[i]) > cholCovFDTol*max(1, math.Abs(jw[i])) {
					t.Errorf("K=%d: ∂logJ/∂y[%d] = %.10g, fd %.10g", k, i, jg[i], jw[i])
				}
			}
		}
	}
}

// Σ = CovMatrixValues(y) is exactly symmetric and L L' to rounding; the
// log Jacobian of y → Σ (on and below the diagonal) matches the
// log-determinant of a finite-difference Jacobian, and equals that of
// y → L plus Stan's K·log 2 + Σ (K − i + 1)·log L_ii (1-based i); the
// gradients of CovFromCholGrad (through CholCovGrad) and of the log
// Jacobian match finite differences.
func TestCovMatrix(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for k := 1; k <= 5; k++ {
		m := CholCovSize(k)
		for range 3 {
			y := make([]float64, m)
			for i := range y {
				y[i] = r.NormFloat64()
			}
			sigma, l := make([]float64, k*k), make([]float64, k*k)
			CovMatrixValues(sigma, l, y, k)
			lm := mat.NewDense(k, k, l)
			var rm mat.Dense
			rm.Mul(lm, lm.T())
			for i := range k {
				for j := range k {
					if v := sigma[i*k+j]; v != sigma[j*k+i] || math.Abs(v-rm.At(i, j)) > 1e-14*max(1, math.Abs(v)) {
						t.Errorf("K=%d: Σ[%d,%d] = %.17g, (LL')[%d,%d] = %.17g", k, i, j, v, i, j, rm.At(i, j))
					}
				}
			}
			lower := func(dst, y []float64) {
				s, l := make([]float64, k*k), make([]float64, k*k)
				CovMatrixValues(s, l, y, k)
				c := 0
				for i := range k {
					for j := 0; j <= i; j++ {
						dst[c] = s[i*k+j]
						c++
					}
				}
			}
			jac := mat.NewDense(m, m, nil)
			fd.Jacobian(jac, lower, y, &fd.JacobianSettings{Formula: fd.Central})
			want := math.Log(math.Abs(mat.Det(jac)))
			got := CovMatrixLogJac(y, k)
			if math.Abs(got-want) > cholCovFDTol*max(1, math.Abs(want)) {
				t.Errorf("K=%d: log Jacobian %.12g, fd log det %.12g", k, got, want)
			}
			stan := CholCovLogJac(y, k) + float64(k)*math.Ln2
			for i := 1; i <= k; i++ {
				stan += float64(k-i+1) * math.Log(l[(i-1)*k+i-1])
			}
			if math.Abs(got-stan) > 1e-13*max(1, math.Abs(stan)) {
				t.Errorf("K=%d: log Jacobian %.15g, Stan's %.15g", k, got, stan)
			}
			g := make([]float64, k*k)
			for i := range g {
				g[i] = r.NormFloat64()
			}
			gw := fd.Gradient(nil, func(y []float64) float64 {
				s, l := make([]float64, k*k), make([]float64, k*k)
				CovMatrixValues(s, l, y, k)
				return mat.Dot(mat.NewVecDense(k*k, s), mat.NewVecDense(k*k, g))
			}, y, &fd.Settings{Formula: fd.Central})
			al, gg := make([]float64, k*k), make([]float64, m)
			CovFromCholGrad(al, l, g, k)
			CholCovGrad(gg, l, al, k)
			jw := fd.Gradient(nil, func(y []float64) float64 { return CovMatrixLogJac(y, k) }, y, &fd.Settings{Formula: fd.Central})
			jg := make([]float64, m)
			CovMatrixLogJacGrad(jg, k, 1)
			for i := range gg {
				if math.Abs(gg[i]-gw[i]) > cholCovFDTol*max(1, math.Abs(gw[i])) {
					t.Errorf("K=%d: ∂(g·Σ)/∂y[%d] = %.10g, fd %.10g", k, i, gg[i], gw[i])
				}
				if math.Abs(jg[i]-jw[i]) > cholCovFDTol*max(1, math.Abs(jw[i])) {
					t.Errorf("K=%d: ∂logJ/∂y[%d] = %.10g, fd %.10g", k, i, jg[i], jw[i])
				}
			}
		}
	}
}
