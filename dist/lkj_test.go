package dist

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
)

// Tolerances of the LKJ tests.
const (
	lkjFDTol    = 1e-6 // finite-difference partials, relative to max(1, |g|)
	lkjExactTol = 1e-12
	lkjQuadTol  = 1e-8 // the trapezoid rule of TestLKJK3Integral
)

func randCoords(r *rand.Rand, k int) []float64 {
	y := make([]float64, CholCorrSize(k))
	for i := range y {
		y[i] = -2 + 4*r.Float64()
	}
	return y
}

// Each row of L has unit norm, the diagonal is positive, the upper
// triangle 0, and L L' has a unit diagonal and entries inside (−1, 1),
// even for coordinates far out (y = ±30, where 1 − tanh² underflows 1).
func TestCholCorrValues(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for k := 1; k <= 6; k++ {
		for trial := range 20 {
			y := randCoords(r, k)
			if trial == 0 {
				for i := range y {
					y[i] = 30 * float64(1-2*(i%2))
				}
			}
			l := make([]float64, k*k)
			CholCorrValues(l, y, k)
			for i := range k {
				n := 0.0
				for j := range k {
					v := l[i*k+j]
					if j > i && v != 0 {
						t.Fatalf("K=%d: L[%d,%d] = %g above the diagonal", k, i, j, v)
					}
					n += v * v
				}
				if math.Abs(n-1) > lkjExactTol || !(l[i*k+i] >= 0) {
					t.Errorf("K=%d y=%v: row %d has squared norm %.17g, diagonal %g", k, y, i, n, l[i*k+i])
				}
			}
			lm := mat.NewDense(k, k, l)
			var rm mat.Dense
			rm.Mul(lm, lm.T())
			for i := range k {
				for j := range k {
					if v := rm.At(i, j); i == j && math.Abs(v-1) > lkjExactTol || math.Abs(v) > 1+lkjExactTol {
						t.Errorf("K=%d: (LL')[%d,%d] = %g", k, i, j, v)
					}
				}
			}
		}
	}
}

// CholCorrEntry walks the entries below the diagonal row by row.
func TestCholCorrEntry(t *testing.T) {
	c := 0
	for i := 1; i < 7; i++ {
		for j := range i {
			if gi, gj := CholCorrEntry(c); gi != i || gj != j {
				t.Errorf("coordinate %d: L[%d, %d], want L[%d, %d]", c, gi, gj, i, j)
			}
			c++
		}
	}
}

// CholCorrGrad against finite differences of Σ g_ij·L_ij.
func TestCholCorrGrad(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for k := 2; k <= 5; k++ {
		y := randCoords(r, k)
		g := make([]float64, k*k)
		for i := range g {
			g[i] = -1 + 2*r.Float64()
		}
		f := func(y []float64) float64 {
			l := make([]float64, k*k)
			CholCorrValues(l, y, k)
			return mat.Dot(mat.NewVecDense(k*k, l), mat.NewVecDense(k*k, g))
		}
		want := fd.Gradient(nil, f, y, &fd.Settings{Formula: fd.Central})
		l := make([]float64, k*k)
		CholCorrValues(l, y, k)
		got := make([]float64, len(y))
		CholCorrGrad(got, y, l, g, k)
		for i := range got {
			if math.Abs(got[i]-want[i]) > lkjFDTol*max(1, math.Abs(want[i])) {
				t.Errorf("K=%d: ∂/∂y[%d] = %.10g, fd %.10g", k, i, got[i], want[i])
			}
		}
	}
}

// CholCorrLogJac is log |det| of the finite-difference Jacobian of y → the
// entries of L below the diagonal, and its gradient the finite difference
// of it.
func TestCholCorrLogJac(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for k := 2; k <= 5; k++ {
		m := CholCorrSize(k)
		y := randCoords(r, k)
		below := func(dst, y []float64) {
			l := make([]float64, k*k)
			CholCorrValues(l, y, k)
			c := 0
			for i := 1; i < k; i++ {
				for j := range i {
					dst[c] = l[i*k+j]
					c++
				}
			}
		}
		jac := mat.NewDense(m, m, nil)
		fd.Jacobian(jac, below, y, &fd.JacobianSettings{Formula: fd.Central})
		want := math.Log(math.Abs(mat.Det(jac)))
		if got := CholCorrLogJac(y, k); math.Abs(got-want) > lkjFDTol*max(1, math.Abs(want)) {
			t.Errorf("K=%d: log Jacobian %.12g, fd log det %.12g", k, got, want)
		}
		checkLogJacGrad(t, k, y, CholCorrLogJac, CholCorrLogJacGrad)
	}
	// far out the terms stay finite: log sech²(800) = 2·(log 2 − 800)
	if got, want := CholCorrLogJac([]float64{800}, 2), 2*(math.Ln2-800); math.Abs(got-want) > lkjExactTol*math.Abs(want) {
		t.Errorf("log Jacobian at y = 800: %g, want %g", got, want)
	}
}

// For K = 2, L = [[1, 0], [r, √(1 − r²)]] and the LKJ density of r is
// (1 − r²)^{η−1} / (2^{2η−1}·B(η, η)): (r + 1)/2 is Beta(η, η).
func TestLKJK2(t *testing.T) {
	for _, eta := range []float64{0.5, 1, 2, 7.3, 40} {
		for _, r := range []float64{-0.97, -0.3, 0, 0.5, 0.999} {
			l := []float64{1, 0, r, math.Sqrt(1 - r*r)}
			got, _ := LKJCorrCholeskyLogPDF(l, 2, eta)
			want := lkjK2Ref(eta, r)
			if math.Abs(got-want) > 1e-12*max(1, math.Abs(want)) {
				t.Errorf("η=%g r=%g: log p = %.15g, Beta reference %.15g", eta, r, got, want)
			}
		}
	}
}

// For K = 3 the density of the coordinates y, LKJ(L(y))·|J(y)|,
// integrates to 1. It is analytic and falls off as e^{−c|y|}, so the
// trapezoid rule on a grid of step 1/4 over [−12, 12]³ is exact to about
// e^{−2π(π/2)/h} (the poles of tanh are iπ/2 away).
func TestLKJK3Integral(t *testing.T) {
	const h, lim = 0.25, 12.0
	n := int(2*lim/h) + 1
	for _, eta := range []float64{0.8, 1, 2, 3.5} {
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
					lp, _ := LKJCorrCholeskyLogPDF(l, 3, eta)
					sum += math.Exp(lp + CholCorrLogJac(y, 3))
				}
			}
		}
		sum *= h * h * h
		if math.Abs(sum-1) > lkjQuadTol {
			t.Errorf("η=%g: the K = 3 density integrates to %.10f", eta, sum)
		}
	}
}

// For K = 3 and η = 1 the normaliser is the volume of the 3×3 correlation
// matrices, π²/2; the η partial against finite differences for K = 2..6.
func TestLKJLogNorm(t *testing.T) {
	if got, _ := LKJLogNorm(1, 3); math.Abs(got-math.Log(math.Pi*math.Pi/2)) > lkjExactTol {
		t.Errorf("log c_3(1) = %.15g, want log(π²/2) = %.15g", got, math.Log(math.Pi*math.Pi/2))
	}
	for k := 2; k <= 6; k++ {
		for _, eta := range []float64{0.4, 1, 2.5, 30} {
			_, d := LKJLogNorm(eta, k)
			want := fd.Derivative(func(e float64) float64 { v, _ := LKJLogNorm(e, k); return v }, eta, &fd.Settings{Formula: fd.Central})
			if math.Abs(d-want) > lkjFDTol*max(1, math.Abs(want)) {
				t.Errorf("K=%d η=%g: d log c/dη = %.10g, fd %.10g", k, eta, d, want)
			}
		}
	}
}

// checkLogJacGrad checks the gradient grad writes (times 1) of the log
// Jacobian logJ of a K×K transform at y against central differences.
func checkLogJacGrad(t *testing.T, k int, y []float64, logJ func([]float64, int) float64, grad func(ay, y []float64, k int, g float64)) {
	t.Helper()
	gw := fd.Gradient(nil, func(y []float64) float64 { return logJ(y, k) }, y, &fd.Settings{Formula: fd.Central})
	gg := make([]float64, len(y))
	grad(gg, y, k, 1)
	for i := range gg {
		if math.Abs(gg[i]-gw[i]) > lkjFDTol*max(1, math.Abs(gw[i])) {
			t.Errorf("K=%d: ∂logJ/∂y[%d] = %.10g, fd %.10g", k, i, gg[i], gw[i])
		}
	}
}

// lkjK2Ref is the LKJ log density of the one correlation r for K = 2:
// (r + 1)/2 is Beta(η, η), so p(r) = (1 − r²)^{η−1} / (2^{2η−1}·B(η, η)).
func lkjK2Ref(eta, r float64) float64 {
	u := (r + 1) / 2
	return (eta-1)*math.Log(u) + (eta-1)*math.Log1p(-u) - LogBeta(eta, eta) - math.Ln2
}
