package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// lrDims returns d and k ≤ 3d/4 (the low-rank path's range).
func lrDims(r *rand.Rand) (d, k int) {
	d = 3 + r.IntN(3)
	return d, 1 + r.IntN(3*d/4)
}

// lrCov returns W W' + s I for W [d, k] (row-major) as a dense matrix.
func lrCov(w []float64, d, k int, s float64) []float64 {
	c := matmulRef(w, transposeRef(w, d, k), d, k, d)
	for i := 0; i < d; i++ {
		c[i*d+i] += s
	}
	return c
}

// lrRef is gaussRowsRef on the dense covariance X X' + scale(v) I, for
// operands X, the scale's operand (if any) and S.
func lrRef(n float64, scale func(v [][]float64) float64) func(v [][]float64, s []Shape) []float64 {
	return func(v [][]float64, s []Shape) []float64 {
		d, k := s[0].Rows, s[0].Cols
		c := lrCov(v[0], d, k, scale(v))
		sm := v[len(v)-1]
		return gaussRowsRef(n)([][]float64{c, sm}, []Shape{Matrix(d, d), Matrix(d, d)})
	}
}

// The forms of C = X X' + s I that take the low-rank path, each checked
// against the dense reference and finite differences.
func TestGradGaussRowsLR(t *testing.T) {
	wsS := func(latentS bool) func(r *rand.Rand) []arg {
		return func(r *rand.Rand) []arg {
			d, k := lrDims(r)
			sa := data(Matrix(d, d), spd)
			if latentS {
				sa = in(Matrix(d, d), spd)
			}
			return []arg{in(Matrix(d, k), real), in(Scalar(), pos), sa}
		}
	}
	gram := func(b *Builder, x ID) ID { return b.MatMul(x, b.Transpose(x, testPos), testPos) }
	id := func(b *Builder, x ID) ID { return b.Identity(b.Shape(x).Rows, testPos) }
	scaleOf := func(v [][]float64) float64 { return v[1][0] }
	runCases(t, []gradCase{
		{name: "gauss_rows_lr/div", args: wsS(false), build: func(b *Builder, x []ID) ID {
			return b.GaussRowsSS(b.Add(gram(b, x[0]), b.Div(id(b, x[0]), x[1], testPos), testPos), x[2], 7, testPos)
		}, ref: lrRef(7, func(v [][]float64) float64 { return 1 / v[1][0] })},
		{name: "gauss_rows_lr/mul", args: wsS(false), build: func(b *Builder, x []ID) ID {
			return b.GaussRowsSS(b.Add(gram(b, x[0]), b.Mul(id(b, x[0]), x[1], testPos), testPos), x[2], 5, testPos)
		}, ref: lrRef(5, scaleOf)},
		{name: "gauss_rows_lr/scale-first", args: wsS(false), build: func(b *Builder, x []ID) ID {
			return b.GaussRowsSS(b.Add(b.Mul(x[1], id(b, x[0]), testPos), gram(b, x[0]), testPos), x[2], 3, testPos)
		}, ref: lrRef(3, scaleOf)},
		{name: "gauss_rows_lr/identity", args: func(r *rand.Rand) []arg {
			d, k := lrDims(r)
			return []arg{in(Matrix(d, k), real), data(Matrix(d, d), spd)}
		}, build: func(b *Builder, x []ID) ID {
			return b.GaussRowsSS(b.Add(gram(b, x[0]), id(b, x[0]), testPos), x[1], 4, testPos)
		}, ref: lrRef(4, func([][]float64) float64 { return 1 })},
		{name: "gauss_rows_lr/latent-S", args: wsS(true), build: func(b *Builder, x []ID) ID {
			return b.GaussRowsSS(b.Add(gram(b, x[0]), b.Mul(id(b, x[0]), x[1], testPos), testPos), x[2], 2, testPos)
		}, ref: lrRef(2, scaleOf)},
	})
}

// opsOf returns the ops of the live nodes of p.
func opsOf(p *Program) map[Op]int {
	m := map[Op]int{}
	for _, n := range p.nodes {
		if n.live {
			m[n.op]++
		}
	}
	return m
}

// The low-rank path is taken exactly for X X' + s I with k < d, and the
// dense covariance nodes are then not evaluated.
func TestGaussRowsLRSelection(t *testing.T) {
	cases := []struct {
		name    string
		d, k    int
		cov     func(b *Builder, x, s ID) ID
		lowRank bool
	}{
		{"X X' + I/s", 4, 2, func(b *Builder, x, s ID) ID {
			return b.Add(b.MatMul(x, b.Transpose(x, testPos), testPos), b.Div(b.Identity(4, testPos), s, testPos), testPos)
		}, true},
		{"s I + X X'", 4, 2, func(b *Builder, x, s ID) ID {
			return b.Add(b.Mul(s, b.Identity(4, testPos), testPos), b.MatMul(x, b.Transpose(x, testPos), testPos), testPos)
		}, true},
		{"X X' + I", 4, 1, func(b *Builder, x, _ ID) ID {
			return b.Add(b.MatMul(x, b.Transpose(x, testPos), testPos), b.Identity(4, testPos), testPos)
		}, true},
		{"k = 3d/4", 4, 3, func(b *Builder, x, s ID) ID {
			return b.Add(b.MatMul(x, b.Transpose(x, testPos), testPos), b.Mul(b.Identity(4, testPos), s, testPos), testPos)
		}, true},
		{"k > 3d/4", 7, 6, func(b *Builder, x, s ID) ID {
			return b.Add(b.MatMul(x, b.Transpose(x, testPos), testPos), b.Mul(b.Identity(7, testPos), s, testPos), testPos)
		}, false},
		{"s / I is not isotropic", 4, 2, func(b *Builder, x, s ID) ID {
			return b.Add(b.MatMul(x, b.Transpose(x, testPos), testPos), b.Div(s, b.Add(b.Identity(4, testPos), b.Identity(4, testPos), testPos), testPos), testPos)
		}, false},
		{"diagonal not identity", 4, 2, func(b *Builder, x, s ID) ID {
			two := b.Const([]float64{2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, Matrix(4, 4), testPos)
			return b.Add(b.MatMul(x, b.Transpose(x, testPos), testPos), b.Mul(two, s, testPos), testPos)
		}, false},
		{"X' X", 4, 2, func(b *Builder, x, s ID) ID {
			xt := b.Transpose(x, testPos) // [2, 4]: X X' of a [4, 2] written as (X')' X'
			return b.Add(b.MatMul(b.Transpose(xt, testPos), xt, testPos), b.Mul(b.Identity(4, testPos), s, testPos), testPos)
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := NewBuilder()
			x := b.Input("W", Matrix(c.d, c.k), testPos)
			s := b.Input("s", Scalar(), testPos)
			out := b.GaussRowsSS(c.cov(b, x, s), b.Identity(c.d, testPos), 3, testPos)
			p, err := b.Finish(out)
			if err != nil {
				t.Fatal(err)
			}
			ops := opsOf(p)
			if got := ops[OpGaussRowsLR] == 1 && ops[OpGaussRowsSS] == 0 && ops[OpMatMul] == 0; got != c.lowRank {
				t.Errorf("low-rank path %v, want %v (live ops %v)", got, c.lowRank, ops)
			}
		})
	}
}

// At factor-analysis sizes and a small noise variance (‖W‖²/s ≈ 10³), the
// low-rank path agrees with the dense one in value and gradient.
func TestGaussRowsLRMatchesDense(t *testing.T) {
	for _, sz := range []struct{ d, k int }{{50, 10}, {42, 30}} {
		t.Run(fmt.Sprintf("d%dk%d", sz.d, sz.k), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(sz.d), uint64(sz.k)))
			d, k := sz.d, sz.k
			w := make([]float64, d*k)
			for i := range w {
				if r.Float64() < 0.5 {
					w[i] = r.ExpFloat64()
				}
			}
			sm := randValues(r, arg{shape: Matrix(d, d), dom: spd})
			x0 := append(append([]float64{}, w...), 1/0.1) // precision 10: s = 0.1
			build := func(dense bool) *Program {
				b := NewBuilder()
				x := b.Input("W", Matrix(d, k), testPos)
				prec := b.Input("prec", Scalar(), testPos)
				c := b.Add(b.MatMul(x, b.Transpose(x, testPos), testPos), b.Div(b.Identity(d, testPos), prec, testPos), testPos)
				if dense { // the same covariance, not in the matched form
					c = b.Add(c, b.Const(make([]float64, d*d), Matrix(d, d), testPos), testPos)
				}
				p, err := b.Finish(b.GaussRowsSS(c, b.Const(sm, Matrix(d, d), testPos), 500, testPos))
				if err != nil {
					t.Fatal(err)
				}
				if got := opsOf(p)[OpGaussRowsLR] == 1; got == dense {
					t.Fatalf("dense=%v built the low-rank op: %v", dense, got)
				}
				return p
			}
			gl, gd := make([]float64, len(x0)), make([]float64, len(x0))
			vl, err := build(false).LogJoint(x0, gl)
			if err != nil {
				t.Fatal(err)
			}
			vd, err := build(true).LogJoint(x0, gd)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(vl-vd) > 1e-10*math.Abs(vd) {
				t.Errorf("value %.17g, dense %.17g", vl, vd)
			}
			scale := 0.0
			for _, g := range gd {
				scale = max(scale, math.Abs(g))
			}
			for i := range gd {
				if math.Abs(gl[i]-gd[i]) > 1e-9*scale {
					t.Errorf("grad[%d] = %.17g, dense %.17g", i, gl[i], gd[i])
				}
			}
		})
	}
}

// A program with the low-rank op allocates nothing per gradient.
func TestGaussRowsLRZeroAllocs(t *testing.T) {
	b := NewBuilder()
	x := b.Input("W", Matrix(6, 2), testPos)
	s := b.Input("s", Scalar(), testPos)
	c := b.Add(b.MatMul(x, b.Transpose(x, testPos), testPos), b.Mul(b.Identity(6, testPos), s, testPos), testPos)
	p, err := b.Finish(b.GaussRowsSS(c, b.Identity(6, testPos), 10, testPos))
	if err != nil {
		t.Fatal(err)
	}
	x0 := []float64{1, 0.5, 0.2, 0.3, 0, 1, 2, 0.1, 0.4, 0.4, 1, 1, 0.7}
	g := make([]float64, len(x0))
	if a := testing.AllocsPerRun(20, func() { p.LogJoint(x0, g) }); a != 0 {
		t.Errorf("%v allocations per LogJoint, want 0", a)
	}
}
