package dist

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
)

// Ω = L L' is exactly symmetric with an exact unit diagonal, its entries
// those of L L' to rounding, and positive definite, even far out.
func TestCorrMatrixValues(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for k := 1; k <= 6; k++ {
		for trial := range 20 {
			y := randCoords(r, k)
			if trial == 0 {
				for i := range y {
					y[i] = 8 * float64(1-2*(i%2))
				}
			}
			omega, l := make([]float64, k*k), make([]float64, k*k)
			CorrMatrixValues(omega, l, y, k)
			lm := mat.NewDense(k, k, l)
			var rm mat.Dense
			rm.Mul(lm, lm.T())
			for i := range k {
				if omega[i*k+i] != 1 {
					t.Errorf("K=%d: Ω[%d,%d] = %.17g", k, i, i, omega[i*k+i])
				}
				for j := range k {
					if v := omega[i*k+j]; v != omega[j*k+i] || math.Abs(v-rm.At(i, j)) > lkjExactTol || math.Abs(v) > 1 {
						t.Errorf("K=%d: Ω[%d,%d] = %.17g, Ω[%d,%d] = %.17g, (LL')[%d,%d] = %.17g", k, i, j, v, j, i, omega[j*k+i], i, j, rm.At(i, j))
					}
				}
			}
			if trial > 0 {
				var ch mat.Cholesky
				if !ch.Factorize(mat.NewSymDense(k, omega)) {
					t.Errorf("K=%d y=%v: Ω is not positive definite", k, y)
				}
			}
		}
	}
}

// CorrFromCholGrad composed with CholCorrGrad against finite differences
// of Σ g_ij·Ω_ij(y).
func TestCorrFromCholGrad(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for k := 2; k <= 5; k++ {
		y := randCoords(r, k)
		g := make([]float64, k*k)
		for i := range g {
			g[i] = -1 + 2*r.Float64()
		}
		f := func(y []float64) float64 {
			omega, l := make([]float64, k*k), make([]float64, k*k)
			CorrMatrixValues(omega, l, y, k)
			return mat.Dot(mat.NewVecDense(k*k, omega), mat.NewVecDense(k*k, g))
		}
		want := fd.Gradient(nil, f, y, &fd.Settings{Formula: fd.Central})
		omega, l := make([]float64, k*k), make([]float64, k*k)
		CorrMatrixValues(omega, l, y, k)
		al := make([]float64, k*k)
		CorrFromCholGrad(al, l, g, k)
		got := make([]float64, len(y))
		CholCorrGrad(got, y, l, al, k)
		for i := range got {
			if math.Abs(got[i]-want[i]) > lkjFDTol*max(1, math.Abs(want[i])) {
				t.Errorf("K=%d: ∂/∂y[%d] = %.10g, fd %.10g", k, i, got[i], want[i])
			}
		}
	}
}

// CorrMatrixLogJac is log |det| of the finite-difference Jacobian of y →
// the entries of Ω below the diagonal (K = 2…5), and also CholCorrLogJac
// plus Σ_{i≥1} (K − i − 1)·log L[i,i]; its gradient the finite difference
// of it.
func TestCorrMatrixLogJac(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for k := 2; k <= 5; k++ {
		for range 3 {
			m := CholCorrSize(k)
			y := randCoords(r, k)
			below := func(dst, y []float64) {
				omega, l := make([]float64, k*k), make([]float64, k*k)
				CorrMatrixValues(omega, l, y, k)
				c := 0
				for i := 1; i < k; i++ {
					for j := range i {
						dst[c] = omega[i*k+j]
						c++
					}
				}
			}
			jac := mat.NewDense(m, m, nil)
			fd.Jacobian(jac, below, y, &fd.JacobianSettings{Formula: fd.Central})
			want := math.Log(math.Abs(mat.Det(jac)))
			got := CorrMatrixLogJac(y, k)
			if math.Abs(got-want) > lkjFDTol*max(1, math.Abs(want)) {
				t.Errorf("K=%d: log Jacobian %.12g, fd log det %.12g", k, got, want)
			}
			l := make([]float64, k*k)
			CholCorrValues(l, y, k)
			sum := CholCorrLogJac(y, k)
			for i := 1; i < k; i++ {
				sum += float64(k-i-1) * math.Log(l[i*k+i])
			}
			if math.Abs(got-sum) > lkjExactTol*max(1, math.Abs(sum)) {
				t.Errorf("K=%d: log Jacobian %.15g, that of L plus Σ (K−i−1) log L_ii %.15g", k, got, sum)
			}
			checkLogJacGrad(t, k, y, CorrMatrixLogJac, CorrMatrixLogJacGrad)
		}
	}
	// far out the terms stay finite: for K = 2, log sech²(800)
	if got, want := CorrMatrixLogJac([]float64{800}, 2), 2*(math.Ln2-800); math.Abs(got-want) > lkjExactTol*math.Abs(want) {
		t.Errorf("log Jacobian at y = 800: %g, want %g", got, want)
	}
}

// For K = 2, Ω = [[1, r], [r, 1]] and the LKJCorr density of r is
// (1 − r²)^{η−1} / (2^{2η−1}·B(η, η)): (r + 1)/2 is Beta(η, η). It is the
// same density LKJCorrCholesky gives L (whose L → Ω Jacobian is 1 for
// K = 2), and its η partial matches finite differences.
func TestLKJCorrK2(t *testing.T) {
	for _, eta := range []float64{0.5, 1, 2, 7.3, 40} {
		for _, r := range []float64{-0.97, -0.3, 0, 0.5, 0.999} {
			l := []float64{1, 0, r, math.Sqrt(1 - r*r)}
			got, deta := LKJCorrLogPDF(l, 2, eta)
			want := lkjK2Ref(eta, r)
			if math.Abs(got-want) > 1e-12*max(1, math.Abs(want)) {
				t.Errorf("η=%g r=%g: log p = %.15g, Beta reference %.15g", eta, r, got, want)
			}
			dw := fd.Derivative(func(e float64) float64 { v, _ := LKJCorrLogPDF(l, 2, e); return v }, eta, &fd.Settings{Formula: fd.Central})
			if math.Abs(deta-dw) > lkjFDTol*max(1, math.Abs(dw)) {
				t.Errorf("η=%g r=%g: ∂/∂η = %.10g, fd %.10g", eta, r, deta, dw)
			}
		}
	}
}

// For K = 3 the density of the coordinates y, LKJCorr(Ω(y))·|J(y)|,
// integrates to 1 (the trapezoid rule of TestLKJK3Integral).
func TestLKJCorrK3Integral(t *testing.T) {
	const h, lim = 0.25, 12.0
	n := int(2*lim/h) + 1
	for _, eta := range []float64{1, 2.5} {
		sum := 0.0
		y := make([]float64, 3)
		l := make([]float64, 9)
		for a := range n {
			for b := range n {
				for c := range n {
					for i, v := range [3]int{a, b, c} {
						y[i] = -lim + h*float64(v)
					}
					CholCorrValues(l, y, 3)
					lp, _ := LKJCorrLogPDF(l, 3, eta)
					sum += math.Exp(lp + CorrMatrixLogJac(y, 3))
				}
			}
		}
		sum *= h * h * h
		if math.Abs(sum-1) > lkjQuadTol {
			t.Errorf("η=%g: the K = 3 density integrates to %.10f", eta, sum)
		}
	}
}
