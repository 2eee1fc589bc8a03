package dist

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
)

// stickBreakTol bounds the rounding of the sum and of the round trip for
// coordinates of size ≲ 5.
const stickBreakTol = 1e-12

// stickBreakFDTol bounds central differences of smooth maps of size ~1.
const stickBreakFDTol = 1e-6

// Every simplex StickBreakLog makes sums to 1 and y = 0 is its centre;
// StickBreakCoords gives the coordinates back (y → x → y, for K ≤ 10 and y
// of sd 1: where a stick is nearly used up, z_k near 1, y_k = logit z_k is
// ill-conditioned in log x, 4·10⁻¹⁰ at K = 30 and sd 2), and the simplex
// comes back from its coordinates (log x → y → log x, every K).
func TestStickBreakRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for k := 2; k <= 30; k++ {
		y0 := make([]float64, k-1)
		lx := make([]float64, k)
		StickBreakLog(lx, y0)
		for i, v := range lx {
			if math.Abs(math.Exp(v)-1/float64(k)) > stickBreakTol {
				t.Fatalf("K=%d: x_%d at y = 0 is %g, want 1/K", k, i, math.Exp(v))
			}
		}
		for range 20 {
			y := make([]float64, k-1)
			for i := range y {
				y[i] = r.NormFloat64()
			}
			StickBreakLog(lx, y)
			s := 0.0
			for _, v := range lx {
				s += math.Exp(v)
			}
			if math.Abs(s-1) > stickBreakTol {
				t.Fatalf("K=%d: the simplex sums to 1%+g", k, s-1)
			}
			back := make([]float64, k-1)
			StickBreakCoords(back, lx)
			if k <= 10 {
				for i := range y {
					if math.Abs(back[i]-y[i]) > stickBreakTol*(1+math.Abs(y[i])) {
						t.Fatalf("K=%d: y_%d = %.17g came back as %.17g", k, i, y[i], back[i])
					}
				}
			}
			lx2 := make([]float64, k)
			StickBreakLog(lx2, back)
			for i := range lx {
				if math.Abs(lx2[i]-lx[i]) > stickBreakTol*(1+math.Abs(lx[i])) {
					t.Fatalf("K=%d: log x_%d = %.17g came back as %.17g", k, i, lx[i], lx2[i])
				}
			}
		}
	}
}

// StickBreakLogJac is the log of the determinant of the finite-difference
// Jacobian of y ↦ (x_0, …, x_{K−2}).
func TestStickBreakLogJac(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for k := 2; k <= 8; k++ {
		for range 5 {
			y := make([]float64, k-1)
			for i := range y {
				y[i] = r.NormFloat64()
			}
			lx := make([]float64, k)
			J := mat.NewDense(k-1, k-1, nil)
			fd.Jacobian(J, func(dst, y []float64) {
				StickBreakLog(lx, y)
				for i := range dst {
					dst[i] = math.Exp(lx[i])
				}
			}, y, &fd.JacobianSettings{Formula: fd.Central})
			StickBreakLog(lx, y)
			want := math.Log(math.Abs(mat.Det(J)))
			if got := StickBreakLogJac(lx); math.Abs(got-want) > stickBreakFDTol*(1+math.Abs(want)) {
				t.Fatalf("K=%d y=%v: log Jacobian %g, finite differences %g", k, y, got, want)
			}
		}
	}
}

// StickBreakGrad is the gradient in y of f(log x(y)) = Σ c_k log x_k +
// Σ d_k x_k, against finite differences.
func TestStickBreakGrad(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for k := 2; k <= 8; k++ {
		c, d := make([]float64, k), make([]float64, k)
		for i := range c {
			c[i], d[i] = r.NormFloat64(), r.NormFloat64()
		}
		lx := make([]float64, k)
		f := func(y []float64) float64 {
			StickBreakLog(lx, y)
			s := 0.0
			for i, v := range lx {
				s += c[i]*v + d[i]*math.Exp(v)
			}
			return s
		}
		y := make([]float64, k-1)
		for i := range y {
			y[i] = r.NormFloat64()
		}
		want := fd.Gradient(nil, f, y, &fd.Settings{Formula: fd.Central})
		StickBreakLog(lx, y)
		g := make([]float64, k)
		for i, v := range lx {
			g[i] = c[i] + d[i]*math.Exp(v) // ∂f/∂log x_i
		}
		StickBreakGrad(g, lx)
		for i := range want {
			if math.Abs(g[i]-want[i]) > stickBreakFDTol*(1+math.Abs(want[i])) {
				t.Fatalf("K=%d: ∂f/∂y_%d = %g, finite differences %g", k, i, g[i], want[i])
			}
		}
	}
}
