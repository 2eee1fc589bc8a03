package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// mvCholRef is Σ_r log MvNormal(y_r | mu_r, L L') by package dist, which
// factors L L' again: the reference the triangular solve must match. Only
// L's lower triangle counts.
func mvCholRef(y, mu, l []float64, ms Shape, d int) float64 {
	sigma := make([]float64, d*d)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			s := 0.0
			for k := 0; k <= min(i, j); k++ {
				s += l[i*d+k] * l[j*d+k]
			}
			sigma[i*d+j] = s
		}
	}
	rstep, cstep := mvSteps(ms, d)
	total := 0.0
	for r := 0; r < len(y)/d; r++ {
		m := make([]float64, d)
		for j := range m {
			m[j] = mu[r*rstep+j*cstep]
		}
		lp, err := dist.MvNormal{Mu: m, Sigma: sigma}.LogProb(y[r*d:r*d+d], nil)
		if err != nil {
			panic(err)
		}
		total += lp
	}
	return total
}

func TestGradMvNormalCholesky(t *testing.T) {
	var n, d int
	size := func(r *rand.Rand) { n, d, _ = dims(r) }
	ref := func(v [][]float64, s []Shape) []float64 {
		return []float64{mvCholRef(v[0], v[1], v[2], s[1], d)}
	}
	build := func(b *Builder, x []ID) ID { return b.MvNormalCholesky(x[0], x[1], x[2], testPos) }
	runCases(t, []gradCase{{
		name: "vector",
		args: func(r *rand.Rand) []arg {
			size(r)
			return []arg{in(Vector(d), real), in(Vector(d), real), in(Matrix(d, d), cholf)}
		},
		build: build, ref: ref,
	}, {
		name: "rows/mu-per-row",
		args: func(r *rand.Rand) []arg {
			size(r)
			return []arg{in(Matrix(n, d), real), in(Matrix(n, d), real), in(Matrix(d, d), cholf)}
		},
		build: build, ref: ref,
	}, {
		name: "rows/mu-row",
		args: func(r *rand.Rand) []arg {
			size(r)
			return []arg{in(Matrix(n, d), real), in(Matrix(1, d), real), in(Matrix(d, d), cholf)}
		},
		build: build, ref: ref,
	}, {
		name: "rows/mu-vector",
		args: func(r *rand.Rand) []arg {
			size(r)
			return []arg{in(Matrix(n, d), real), in(Vector(d), real), in(Matrix(d, d), cholf)}
		},
		build: build, ref: ref,
	}, {
		name: "rows/mu-scalar",
		args: func(r *rand.Rand) []arg {
			size(r)
			return []arg{in(Matrix(n, d), real), in(Scalar(), real), in(Matrix(d, d), cholf)}
		},
		build: build, ref: ref,
	}, {
		name: "data-value",
		args: func(r *rand.Rand) []arg {
			size(r)
			return []arg{data(Matrix(n, d), real), in(Vector(d), real), in(Matrix(d, d), cholf)}
		},
		build: build, ref: ref,
	}, {
		name: "data-factor",
		args: func(r *rand.Rand) []arg {
			size(r)
			return []arg{in(Matrix(n, d), real), data(Scalar(), real), data(Matrix(d, d), cholf)}
		},
		build: build, ref: ref,
	}})
	// MvNormalCholeskyRows: a term per row, each the density of its row.
	rowsRef := func(v [][]float64, s []Shape) []float64 {
		out := make([]float64, s[0].Rows)
		rstep, _ := mvSteps(s[1], d)
		for r := range out {
			mu, ms := v[1], s[1]
			if rstep > 0 {
				mu, ms = v[1][r*d:r*d+d], Vector(d)
			}
			out[r] = mvCholRef(v[0][r*d:r*d+d], mu, v[2], ms, d)
		}
		return out
	}
	rows := func(b *Builder, x []ID) ID { return b.MvNormalCholeskyRows(x[0], x[1], x[2], testPos) }
	runCases(t, []gradCase{{
		name: "per-row/mu-per-row",
		args: func(r *rand.Rand) []arg {
			size(r)
			return []arg{in(Matrix(n, d), real), in(Matrix(n, d), real), in(Matrix(d, d), cholf)}
		},
		build: rows, ref: rowsRef,
	}, {
		name: "per-row/mu-vector",
		args: func(r *rand.Rand) []arg {
			size(r)
			return []arg{in(Matrix(n, d), real), in(Vector(d), real), in(Matrix(d, d), cholf)}
		},
		build: rows, ref: rowsRef,
	}, {
		name: "per-row/mu-scalar",
		args: func(r *rand.Rand) []arg {
			size(r)
			return []arg{in(Matrix(n, d), real), in(Scalar(), real), in(Matrix(d, d), cholf)}
		},
		build: rows, ref: rowsRef,
	}})
}

// The density equals MvNormal's with covariance L L' built on the tape
// (tril(L) times its transpose, through GaussRowsSS), value and gradient,
// to mvCholTol: every argument a param, the entries above L's diagonal
// included (they are ignored by both).
const mvCholTol = 1e-10

func TestMvNormalCholeskyMatchesMvNormal(t *testing.T) {
	const n, d = 5, 3
	mask := make([]float64, d*d)
	for i := 0; i < d; i++ {
		for j := 0; j <= i; j++ {
			mask[i*d+j] = 1
		}
	}
	build := func(chol bool) *Program {
		b := NewBuilder()
		y := b.Input("y", Matrix(n, d), testPos)
		mu := b.Input("mu", Matrix(1, d), testPos)
		l := b.Input("L", Matrix(d, d), testPos)
		var root ID
		if chol {
			root = b.MvNormalCholesky(y, mu, l, testPos)
		} else {
			lt := b.Mul(l, b.Const(mask, Matrix(d, d), testPos), testPos)
			c := b.Sub(y, mu, testPos)
			cov := b.MatMul(lt, b.Transpose(lt, testPos), testPos)
			root = b.GaussRowsSS(cov, b.MatMul(b.Transpose(c, testPos), c, testPos), n, testPos)
		}
		p, err := b.Finish(root)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	pc, pm := build(true), build(false)
	r := rand.New(rand.NewPCG(7, 7))
	for trial := range 5 {
		x := make([]float64, pc.Dim())
		for i := range x {
			x[i] = -2 + 4*r.Float64()
		}
		for i := 0; i < d; i++ { // L's diagonal
			x[n*d+d+i*d+i] = 0.3 + 2*r.Float64()
		}
		gc, gm := make([]float64, len(x)), make([]float64, len(x))
		vc, err := pc.LogJoint(x, gc)
		if err != nil {
			t.Fatal(err)
		}
		vm, err := pm.LogJoint(x, gm)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(vc-vm) > mvCholTol*max(1, math.Abs(vm)) {
			t.Errorf("trial %d: value %.17g, MvNormal %.17g", trial, vc, vm)
		}
		for i := range gc {
			if math.Abs(gc[i]-gm[i]) > mvCholTol*max(1, math.Abs(gm[i])) {
				t.Errorf("trial %d: grad[%d] %.17g, MvNormal %.17g", trial, i, gc[i], gm[i])
			}
		}
	}
}

// Values against the closed form in one dimension: N(y | mu, l²) per
// element.
func TestMvNormalCholeskyValues(t *testing.T) {
	b := NewBuilder()
	y := b.Const([]float64{0.5, -1, 2}, Matrix(3, 1), testPos)
	root := b.MvNormalCholesky(y, b.Scalar(0.25, testPos), b.Const([]float64{1.5}, Matrix(1, 1), testPos), testPos)
	p, err := b.Finish(root)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Forward(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := 0.0
	for _, v := range []float64{0.5, -1, 2} {
		z := (v - 0.25) / 1.5
		want += -0.5*log2Pi - math.Log(1.5) - 0.5*z*z
	}
	if math.Abs(got-want) > valueTol*math.Abs(want) {
		t.Errorf("log density %.17g, want %.17g", got, want)
	}
}

func TestMvNormalCholeskyErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		l    []float64
		want string
	}{
		{"zero diagonal", []float64{1, 0, 0.3, 0}, "model.gpp:3:5: MvNormalCholesky: the diagonal of L must be > 0 (got 0 at L[1, 1])"},
		{"negative diagonal", []float64{-2, 0, 0.3, 1}, "model.gpp:3:5: MvNormalCholesky: the diagonal of L must be > 0 (got -2 at L[0, 0])"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := runOne(t, append([]float64{0.1, 0.2}, c.l...), func(b *Builder) ID {
				y := b.Input("y", Vector(2), at(1, 1))
				l := b.Input("L", Matrix(2, 2), at(2, 1))
				return b.MvNormalCholesky(y, b.Scalar(0, at(3, 20)), l, at(3, 5))
			})
			wantPositioned(t, err, c.want)
		})
	}
	b := NewBuilder()
	b.MvNormalCholesky(b.Input("y", Vector(3), at(1, 1)), b.Scalar(0, at(1, 1)), b.Input("L", Matrix(2, 2), at(1, 1)), at(4, 2))
	b.MvNormalCholesky(b.Input("z", Matrix(4, 2), at(1, 1)), b.Input("m", Matrix(3, 2), at(1, 1)), b.Input("K", Matrix(2, 2), at(1, 1)), at(5, 2))
	b.MvNormalCholesky(b.Input("w", Vector(2), at(1, 1)), b.Scalar(0, at(1, 1)), b.Input("J", Matrix(2, 3), at(1, 1)), at(6, 2))
	err := b.Err()
	for _, want := range []string{
		"model.gpp:4:2: MvNormalCholesky: the value must be a vector [2] or a matrix [n, 2], got [3]",
		"model.gpp:5:2: MvNormalCholesky: mu must be a scalar, a vector [2], a row [1, 2] or a matrix of the value's shape, got [3, 2]",
		"model.gpp:6:2: MvNormalCholesky: L must be a square matrix [d, d], d ≥ 1, got [2, 3]",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("build errors %v, want %q", err, want)
		}
	}
}

// A steady-state evaluation of the density and its gradient in every
// argument makes no allocations.
func TestMvNormalCholeskyZeroAllocs(t *testing.T) {
	const n, d = 40, 4
	b := NewBuilder()
	y := b.Input("y", Matrix(n, d), testPos)
	mu := b.Input("mu", Vector(d), testPos)
	l := b.Input("L", Matrix(d, d), testPos)
	p, err := b.Finish(b.MvNormalCholesky(y, mu, l, testPos))
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, p.Dim())
	for i := range x {
		x[i] = math.Sin(float64(i))
	}
	for i := 0; i < d; i++ {
		x[n*d+d+i*d+i] = 1 + 0.1*float64(i)
	}
	wantZeroAllocs(t, p, x)
}

// The replicate x = mu + L z has mean mu and covariance L L' (the
// entries above L's diagonal ignored): every sample moment within mvSDs
// standard errors, as TestRandMvNormalMoments; mvSigma's factor is
// computed here and noise written above its diagonal.
func TestRandMvNormalCholeskyMoments(t *testing.T) {
	const d = 3
	l := cholRef(mvSigma, d)
	l[0*d+1], l[0*d+2], l[1*d+2] = 7, -3, 100 // ignored
	b := NewBuilder()
	x := b.Input("x", Scalar(), testPos)
	r := b.RandMvNormalCholesky(b.Const(mvMu, Matrix(2, 3), testPos), b.Const(l, Matrix(d, d), testPos), testPos)
	p, err := b.Finish(b.Mul(x, x, testPos), r)
	if err != nil {
		t.Fatal(err)
	}
	if s := p.Shape(r); s != Matrix(2, 3) {
		t.Fatalf("shape %v, want [2, 3]", s)
	}
	p.SetRand(rand.New(rand.NewPCG(5, 9)))
	checkMvMoments(t, p, r)
}

// An invalid factor at a draw makes the whole draw NaN, explained at the
// replicate's position; the draws after it are not shifted.
func TestRandMvNormalCholeskyInvalid(t *testing.T) {
	b := NewBuilder()
	x := b.Input("x", Scalar(), testPos)
	lv := b.Input("L", Matrix(2, 2), testPos)
	r := b.RandMvNormalCholesky(b.Scalar(0, testPos), lv, at(7, 12))
	p, err := b.Finish(b.Mul(x, x, testPos), r)
	if err != nil {
		t.Fatal(err)
	}
	p.SetRand(rand.New(rand.NewPCG(1, 2)))
	if _, err := p.Forward([]float64{0, 1, 0, 0.5, -1}); err != nil {
		t.Fatal(err)
	}
	for _, v := range p.Value(r) {
		if !math.IsNaN(v) {
			t.Fatalf("draw %v, want NaN", p.Value(r))
		}
	}
	wantPositioned(t, p.OutputErr(), "model.gpp:7:12: MvNormalCholesky draw: the diagonal of L must be > 0 (got -1 at L[1, 1]) (element [0])")
}

// A factor of data alone that is not one is an error when the program is
// finished, at L, before any fit.
func TestMvNormalCholeskyDataFactor(t *testing.T) {
	b := NewBuilder()
	mu := b.Input("mu", Vector(2), at(1, 1))
	l := b.Const([]float64{1, 0, 0.5, -0.2}, Matrix(2, 2), at(4, 25))
	_, err := b.Finish(b.MvNormalCholesky(b.Const([]float64{1, 2}, Vector(2), at(4, 1)), mu, l, at(4, 5)))
	wantPositioned(t, err, "model.gpp:4:25: MvNormalCholesky argument 2 (L): the diagonal of L must be > 0 (got -0.2 at L[1, 1]); it depends on the data alone, so no fit can change it")
}

// BenchmarkMvNormalCholesky: the density of n rows of d and its gradient
// in the value, mu and L, against MvNormal's scatter path with covariance
// L L' (a factorisation and inverse per evaluation): 40 rows of 2 (a
// varying-slopes prior) and 200 rows of 10.
func BenchmarkMvNormalCholesky(b *testing.B) {
	for _, c := range []struct {
		n, d int
		chol bool
	}{{40, 2, true}, {40, 2, false}, {200, 10, true}, {200, 10, false}} {
		n, d := c.n, c.d
		name := fmt.Sprintf("MvNormalCholesky/n=%d/d=%d", n, d)
		if !c.chol {
			name = fmt.Sprintf("MvNormal/n=%d/d=%d", n, d)
		}
		chol := c.chol
		b.Run(name, func(b *testing.B) {
			bl := NewBuilder()
			y := bl.Input("y", Matrix(n, d), testPos)
			mu := bl.Input("mu", Matrix(1, d), testPos)
			l := bl.Input("L", Matrix(d, d), testPos)
			var root ID
			if chol {
				root = bl.MvNormalCholesky(y, mu, l, testPos)
			} else {
				c := bl.Sub(y, mu, testPos)
				cov := bl.MatMul(l, bl.Transpose(l, testPos), testPos)
				root = bl.GaussRowsSS(cov, bl.MatMul(bl.Transpose(c, testPos), c, testPos), float64(n), testPos)
			}
			p, err := bl.Finish(root)
			if err != nil {
				b.Fatal(err)
			}
			x := make([]float64, p.Dim())
			for i := range x {
				x[i] = 0.1 * math.Sin(float64(i))
			}
			for i := 0; i < d; i++ {
				x[n*d+d+i*d+i] = 1
				for j := i + 1; j < d; j++ {
					x[n*d+d+i*d+j] = 0
				}
			}
			grad := make([]float64, len(x))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.LogJoint(x, grad); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
