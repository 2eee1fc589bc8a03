package autodiff

import (
	"fmt"
	"math"
	"testing"

	"github.com/gpplang/gpp/internal/reftest"
)

// linalgRecord is one record of testdata/linalg_reference.json (written by
// testdata/linalg_reference.py, mpmath at 50 digits).
type linalgRecord struct {
	Kind                             string
	D, M, N, K                       int
	Cond                             float64
	A, B, WB, WL, S, W               []float64
	Scale                            float64
	L, GL, GLD, X, GXA, GXB, GGA, GW []float64
	LogDet, Gauss, GS                float64
}

// runRef builds root over inputs of the given shapes, evaluates it at the
// concatenated values and returns the log joint, its gradient split by
// input, and the values of the kept nodes.
func runRef(t *testing.T, shapes []Shape, vals [][]float64, build func(b *Builder, x []ID) (ID, []ID)) (float64, [][]float64, [][]float64) {
	t.Helper()
	b := NewBuilder()
	ids := make([]ID, len(shapes))
	var x []float64
	for i, s := range shapes {
		ids[i] = b.Input(fmt.Sprint("x", i), s, testPos)
		x = append(x, vals[i]...)
	}
	root, keep := build(b, ids)
	p, err := b.Finish(root, keep...)
	if err != nil {
		t.Fatal(err)
	}
	g := make([]float64, p.Dim())
	lp, err := p.LogJoint(x, g)
	if err != nil {
		t.Fatal(err)
	}
	var gs [][]float64
	off := 0
	for _, s := range shapes {
		gs = append(gs, g[off:off+s.Len()])
		off += s.Len()
	}
	var kv [][]float64
	for _, k := range keep {
		kv = append(kv, append([]float64(nil), p.Value(k)...))
	}
	return lp, gs, kv
}

// linalgRefUlps bounds the linear-algebra ops against mpmath in units of
// eps·d·κ (κ the condition number of the matrix, whose largest eigenvalue
// is 1 here, or 1 + ‖W‖²/s for the low-rank covariance), the order of the
// error of a backward-stable Cholesky factorisation and its solves. The
// gradient of gauss_rows with respect to its covariance, ½(C⁻¹SC⁻¹ − nC⁻¹),
// and with respect to the scale s of W W' + s I, its trace, are differences
// of terms of size ‖C⁻¹SC⁻¹‖ and n·tr C⁻¹, which join their scales.
const linalgRefUlps = 4

const eps = 0x1p-52

func frob(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

// TestLinalgReference checks chol, logdet, solve and gauss_rows (dense and
// low-rank), values and gradients, against mpmath at condition numbers 1e1
// to 1e12.
func TestLinalgReference(t *testing.T) {
	worst := map[string]float64{}
	check := func(what string, r linalgRecord, err, scale float64) {
		t.Helper()
		ratio := err / (eps * scale)
		worst[what] = math.Max(worst[what], ratio)
		if !(ratio <= linalgRefUlps) {
			t.Errorf("%s d=%d cond=%g: error %.3g is %.3g eps·scale (scale %.3g)", what, r.D, r.Cond, err, ratio, scale)
		}
	}
	for _, r := range reftest.ReadJSON[linalgRecord](t, "testdata/linalg_reference.json") {
		dk := float64(r.D) * r.Cond
		n := float64(r.N)
		if r.Kind == "lr" {
			d, k := r.D, r.K
			lp, g, _ := runRef(t, []Shape{Matrix(d, k), Scalar()}, [][]float64{r.W, {r.Scale}}, func(b *Builder, x []ID) (ID, []ID) {
				c := b.Add(b.MatMul(x[0], b.Transpose(x[0], testPos), testPos), b.Mul(b.Identity(d, testPos), x[1], testPos), testPos)
				return b.GaussRowsSS(c, b.Const(r.S, Matrix(d, d), testPos), n, testPos), nil
			})
			check("gauss_rows_lr value", r, math.Abs(lp-r.Gauss), dk*math.Abs(r.Gauss))
			check("gauss_rows_lr dW", r, reftest.NormRelErr(g[0], r.GW), dk)
			check("gauss_rows_lr ds", r, math.Abs(g[1][0]-r.GS), dk*(math.Abs(r.GS)+n*float64(d)/r.Scale))
			continue
		}
		d, m := r.D, r.M
		sq := Matrix(d, d)
		_, gl, kv := runRef(t, []Shape{sq}, [][]float64{r.A}, func(b *Builder, x []ID) (ID, []ID) {
			l := b.Chol(x[0], testPos)
			return b.Sum(b.Mul(b.Const(r.WL, sq, testPos), l, testPos), testPos), []ID{l}
		})
		ld, gld, _ := runRef(t, []Shape{sq}, [][]float64{r.A}, func(b *Builder, x []ID) (ID, []ID) {
			return b.LogDet(x[0], testPos), nil
		})
		_, gx, xv := runRef(t, []Shape{sq, Matrix(d, m)}, [][]float64{r.A, r.B}, func(b *Builder, x []ID) (ID, []ID) {
			s := b.Solve(x[0], x[1], testPos)
			return b.Sum(b.Mul(b.Const(r.WB, Matrix(d, m), testPos), s, testPos), testPos), []ID{s}
		})
		gv, gg, _ := runRef(t, []Shape{sq}, [][]float64{r.A}, func(b *Builder, x []ID) (ID, []ID) {
			return b.GaussRowsSS(x[0], b.Const(r.S, sq, testPos), n, testPos), nil
		})
		check("chol", r, reftest.NormRelErr(kv[0], r.L), dk)
		check("chol gradient", r, reftest.NormRelErr(gl[0], r.GL), dk)
		check("logdet", r, math.Abs(ld-r.LogDet), dk)
		check("logdet gradient", r, reftest.NormRelErr(gld[0], r.GLD), dk)
		check("solve", r, reftest.NormRelErr(xv[0], r.X), dk)
		check("solve gradient A", r, reftest.NormRelErr(gx[0], r.GXA), dk)
		check("solve gradient B", r, reftest.NormRelErr(gx[1], r.GXB), dk)
		check("gauss_rows value", r, math.Abs(gv-r.Gauss), dk*math.Abs(r.Gauss))
		// C⁻¹SC⁻¹ = 2G + nC⁻¹ (G the gradient): the size of the terms.
		check("gauss_rows gradient", r, reftest.NormRelErr(gg[0], r.GGA)*frob(r.GGA), dk*(frob(r.GGA)+n*frob(r.GLD)))
	}
	t.Logf("worst error / (eps·scale): %v", worst)
}

// syrk overwrites its output: a NaN left in it by a failed pass does not
// survive the next (gonum's Dsyrk scales the old lower triangle by beta = 0
// when x is transposed, and 0·NaN is NaN).
func TestSyrkOverwritesNaN(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5, 6} // 3×2
	for _, tX := range []bool{false, true} {
		r, k, ldx := 3, 2, 2
		if tX {
			r, k, ldx = 2, 3, 2
		}
		c := make([]float64, r*r)
		for i := range c {
			c[i] = math.NaN()
		}
		syrk(tX, r, k, x, ldx, c)
		for i := range r {
			for j := range r {
				want := 0.0
				for l := range k {
					if tX {
						want += x[l*ldx+i] * x[l*ldx+j]
					} else {
						want += x[i*ldx+l] * x[j*ldx+l]
					}
				}
				if c[i*r+j] != want {
					t.Errorf("tX %v: c[%d, %d] = %g, want %g", tX, i, j, c[i*r+j], want)
				}
			}
		}
	}
}
