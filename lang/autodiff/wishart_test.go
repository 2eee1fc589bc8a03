package autodiff

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/dist"
	"gonum.org/v1/gonum/mat"
)

// wishartRef is log Wishart(X | nu, S) (or the inverse Wishart) written
// out with gonum's factorisations and an explicit inverse: (ν − K − 1)/2
// log|X| − tr(S⁻¹X)/2 − νK/2 log 2 − ν/2 log|S| − log Γ_K(ν/2), and ν/2
// log|S| − (ν + K + 1)/2 log|X| − tr(S X⁻¹)/2 − νK/2 log 2 − log Γ_K(ν/2).
func wishartRef(x, s []float64, k int, nu float64, inverse bool) float64 {
	var cx, cs mat.Cholesky
	if !cx.Factorize(mat.NewSymDense(k, append([]float64(nil), x...))) || !cs.Factorize(mat.NewSymDense(k, append([]float64(nil), s...))) {
		return math.NaN()
	}
	inv, other := &cs, x
	if inverse {
		inv, other = &cx, s
	}
	var ai mat.SymDense
	if err := inv.InverseTo(&ai); err != nil {
		return math.NaN()
	}
	tr := 0.0
	for i := range k {
		for j := range k {
			tr += ai.At(i, j) * other[j*k+i]
		}
	}
	kf := float64(k)
	lmg := kf * (kf - 1) / 4 * math.Log(math.Pi)
	for j := range k {
		v, _ := math.Lgamma(nu/2 - float64(j)/2)
		lmg += v
	}
	if inverse {
		return nu/2*cs.LogDet() - (nu+kf+1)/2*cx.LogDet() - tr/2 - nu*kf/2*math.Ln2 - lmg
	}
	return (nu-kf-1)/2*cx.LogDet() - tr/2 - nu*kf/2*math.Ln2 - nu/2*cs.LogDet() - lmg
}

// llt is L L' of the lower triangle of l.
func llt(l []float64, k int) []float64 {
	x := make([]float64, k*k)
	for i := range k {
		for j := range k {
			for m := 0; m <= min(i, j); m++ {
				x[i*k+j] += l[i*k+m] * l[j*k+m]
			}
		}
	}
	return x
}

// symOf is (a + a')/2, as checkCase makes an spd input.
func symOf(a []float64, k int) []float64 {
	s := make([]float64, k*k)
	for i := range k {
		for j := range k {
			s[i*k+j] = 0.5 * (a[i*k+j] + a[j*k+i])
		}
	}
	return s
}

func TestGradWishart(t *testing.T) {
	var k int
	coords := func(r *rand.Rand) Shape { n, _, _ := dims(r); k = n; return Vector(dist.CholCovSize(k)) }
	sq := func() Shape { return Matrix(k, k) }
	// nu = K − 1 + x for a positive x
	nuOf := func(b *Builder, x ID) ID { return b.Add(b.Scalar(float64(k-1), testPos), x, testPos) }
	var cases []gradCase
	for _, inverse := range []bool{false, true} {
		name := "Wishart"
		if inverse {
			name = "InvWishart"
		}
		cases = append(cases, gradCase{
			// a cov_matrix param, nu and S params
			name: name + "/cov_matrix",
			args: func(r *rand.Rand) []arg { return []arg{in(coords(r), real), in(Scalar(), pos), in(sq(), spd)} },
			build: func(b *Builder, x []ID) ID {
				return b.Wishart(b.CovMatrix(x[0], k, testPos), nuOf(b, x[1]), x[2], inverse, testPos)
			},
			ref: func(v [][]float64, _ []Shape) []float64 {
				x, l := make([]float64, k*k), make([]float64, k*k)
				dist.CovMatrixValues(x, l, v[0], k)
				return []float64{wishartRef(x, symOf(v[2], k), k, float64(k-1)+v[1][0], inverse)}
			},
		}, gradCase{
			// a data value (factored in the node), S a param
			name: name + "/data",
			args: func(r *rand.Rand) []arg {
				k = 2 + r.IntN(3)
				return []arg{data(sq(), spd), data(Scalar(), pos), in(sq(), spd)}
			},
			build: func(b *Builder, x []ID) ID { return b.Wishart(x[0], nuOf(b, x[1]), x[2], inverse, testPos) },
			ref: func(v [][]float64, _ []Shape) []float64 {
				return []float64{wishartRef(v[0], symOf(v[2], k), k, float64(k-1)+v[1][0], inverse)}
			},
		}, gradCase{
			// a param matrix value, factored in the node (its adjoint through the factorisation)
			name: name + "/matrix",
			args: func(r *rand.Rand) []arg {
				k = 2 + r.IntN(3)
				return []arg{in(sq(), spd), data(Scalar(), pos), data(sq(), spd)}
			},
			build: func(b *Builder, x []ID) ID { return b.Wishart(x[0], nuOf(b, x[1]), x[2], inverse, testPos) },
			ref: func(v [][]float64, _ []Shape) []float64 {
				return []float64{wishartRef(symOf(v[0], k), v[2], k, float64(k-1)+v[1][0], inverse)}
			},
		}, gradCase{
			// the density of the factor: of X = L L' plus K log 2 + Σ (K − i) log L_ii
			name: name + "Cholesky",
			args: func(r *rand.Rand) []arg {
				k = 2 + r.IntN(3)
				return []arg{in(sq(), cholf), in(Scalar(), pos), in(sq(), cholf)}
			},
			build: func(b *Builder, x []ID) ID {
				return b.WishartCholesky(x[0], nuOf(b, x[1]), x[2], inverse, testPos)
			},
			ref: func(v [][]float64, _ []Shape) []float64 {
				jac := float64(k) * math.Ln2
				for i := range k {
					jac += float64(k-i) * math.Log(v[0][i*k+i])
				}
				return []float64{wishartRef(llt(v[0], k), llt(v[2], k), k, float64(k-1)+v[1][0], inverse) + jac}
			},
		})
	}
	runCases(t, cases)
}

func TestWishartErrors(t *testing.T) {
	s := []float64{1, 0, 0, 1}
	err := runOne(t, []float64{0.5}, func(b *Builder) ID {
		return b.Wishart(b.Const(s, Matrix(2, 2), at(1, 1)), b.Input("nu", Scalar(), at(2, 1)), b.Const(s, Matrix(2, 2), at(1, 1)), false, at(3, 5))
	})
	wantPositioned(t, err, "model.gpp:3:5: Wishart: nu must be > K − 1 = 1 and finite (got 0.5)")
	err = runOne(t, []float64{3, 1, 2, 2, 1}, func(b *Builder) ID {
		x := b.Input("x", Vector(5), at(1, 1))
		sig := b.Reshape(b.Slice(x, 1, 5, at(1, 1)), Matrix(2, 2), at(1, 1))
		return b.Wishart(b.Const(s, Matrix(2, 2), at(1, 1)), b.Elem(x, 0, at(1, 1)), sig, true, at(4, 2))
	})
	wantPositioned(t, err, "model.gpp:4:2: InvWishart: the scale matrix S is not positive definite (leading minor 2)")
	// data checked before any fit, at the argument
	_, err = NewBuilder().wishartDataProgram(t, []float64{1, 2, 2, 1})
	wantPositioned(t, err, "model.gpp:5:9: InvWishart: the value is not positive definite (leading minor 2); it is data, so no fit can change it")
}

// wishartDataProgram finishes InvWishart(Y | nu, I) for a data Y and a
// param nu.
func (b *Builder) wishartDataProgram(t *testing.T, y []float64) (*Program, error) {
	t.Helper()
	nu := b.Exp(b.Input("nu", Scalar(), at(1, 1)), at(1, 1))
	return b.Finish(b.Wishart(b.Const(y, Matrix(2, 2), at(5, 9)), nu, b.Const([]float64{1, 0, 0, 1}, Matrix(2, 2), at(1, 1)), true, at(5, 1)))
}

// A steady-state evaluation of every form, with S a param matrix
// (factored and differentiated through its factor), makes no allocations.
func TestWishartZeroAllocs(t *testing.T) {
	const k = 3
	b := NewBuilder()
	y := b.Input("y", Vector(dist.CholCovSize(k)), testPos)
	nu := b.Add(b.Scalar(k-1, testPos), b.Exp(b.Input("nu", Scalar(), testPos), testPos), testPos)
	sigma := b.CovMatrix(y, k, testPos)
	l := b.CholCov(b.Input("l", Vector(dist.CholCovSize(k)), testPos), k, testPos)
	root := b.Add(b.Wishart(sigma, nu, b.CovMatrix(y, k, testPos), false, testPos), b.Wishart(sigma, nu, sigma, true, testPos), testPos)
	root = b.Add(root, b.WishartCholesky(l, nu, l, true, testPos), testPos)
	p, err := b.Finish(root)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, p.Dim())
	for i := range x {
		x[i] = 0.2 - 0.05*float64(i)
	}
	wantZeroAllocs(t, p, x)
}

// A Wishart-family replicate node draws what dist.WishartRand draws from
// the same stream (S factored by the node), for every form; a nu not
// > K − 1 at a draw makes the whole draw NaN, with an output error that
// says why.
func TestRandWishart(t *testing.T) {
	s := []float64{1.5, 0.4, 0.4, 0.9}
	ls := []float64{math.Sqrt(1.5), 0, 0.4 / math.Sqrt(1.5), 0}
	ls[3] = math.Sqrt(0.9 - ls[2]*ls[2])
	for _, f := range []dist.WishartForm{{}, {Inverse: true}, {Chol: true}, {Inverse: true, Chol: true}} {
		b := NewBuilder()
		nu := b.Input("nu", Scalar(), at(1, 1))
		scale := s
		if f.Chol {
			scale = ls
		}
		r := b.RandWishart(nu, b.Const(scale, Matrix(2, 2), at(1, 1)), f.Inverse, f.Chol, at(2, 3))
		p, err := b.Finish(b.Sum(b.Square(nu, at(1, 1)), at(1, 1)), r)
		if err != nil {
			t.Fatal(err)
		}
		p.SetRand(rand.New(rand.NewPCG(8, 9)))
		ref := rand.New(rand.NewPCG(8, 9))
		want, tt, u := make([]float64, 4), make([]float64, 4), make([]float64, 4)
		for range 20 {
			if _, err := p.Forward([]float64{3.5}); err != nil {
				t.Fatal(err)
			}
			dist.WishartRand(f, want, ls, 2, 3.5, tt, u, ref)
			for i, w := range want {
				if got := p.Value(r)[i]; math.Abs(got-w) > 1e-12*(1+math.Abs(w)) {
					t.Fatalf("%s: element %d: %v, dist.WishartRand draws %v", f.Name(), i, got, w)
				}
			}
		}
		if _, err := p.Forward([]float64{0.5}); err != nil {
			t.Fatalf("Forward: %v (the log joint does not read the draw)", err)
		}
		for _, v := range p.Value(r) {
			if !math.IsNaN(v) {
				t.Fatalf("%s: draw %v at nu = 0.5, want NaN", f.Name(), p.Value(r))
			}
		}
		want1 := f.Name() + " draw: nu must be > K − 1 = 1 and finite (got 0.5)"
		if err := p.OutputErr(); err == nil || !strings.Contains(err.Error(), want1) {
			t.Fatalf("OutputErr = %v, want %q", err, want1)
		}
	}
}

// BenchmarkWishart is one evaluation and reverse sweep of InvWishart(Σ |
// nu, S) for a cov_matrix[K] Σ and a param S (factored at each
// evaluation), K = 10.
func BenchmarkWishart(b *testing.B) {
	const k = 10
	bd := NewBuilder()
	y := bd.Input("y", Vector(dist.CholCovSize(k)), testPos)
	s := bd.Input("s", Vector(dist.CholCovSize(k)), testPos)
	nu := bd.Add(bd.Scalar(k+1, testPos), bd.Exp(bd.Input("nu", Scalar(), testPos), testPos), testPos)
	root := bd.Add(bd.Wishart(bd.CovMatrix(y, k, testPos), nu, bd.CovMatrix(s, k, testPos), true, testPos), bd.CovMatrixLogJac(y, k, testPos), testPos)
	p, err := bd.Finish(root)
	if err != nil {
		b.Fatal(err)
	}
	x := make([]float64, p.Dim())
	for i := range x {
		x[i] = 0.1 * math.Sin(float64(i))
	}
	grad := make([]float64, p.Dim())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.LogJoint(x, grad); err != nil {
			b.Fatal(err)
		}
	}
}

// A scale matrix known while building (data) is factored once, into a
// constant factor, not at every evaluation; the density is the same.
func TestWishartKnownScaleFactoredOnce(t *testing.T) {
	const k = 2
	s := []float64{2, 0.3, 0.3, 1}
	b := NewBuilder()
	y := b.Input("y", Vector(dist.CholCovSize(k)), testPos)
	sigma := b.CovMatrix(y, k, testPos)
	p, err := b.Finish(b.Wishart(sigma, b.Scalar(5, testPos), b.Const(s, Matrix(k, k), testPos), true, testPos))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for i := range p.nodes {
		n := &p.nodes[i]
		if n.op != OpWishart {
			continue
		}
		found = true
		if n.i0&wishartSFull != 0 || p.arg(n, 2).op != OpConst {
			t.Errorf("the known scale is factored at every evaluation (flags %b, argument op %v)", n.i0, p.arg(n, 2).op)
		}
	}
	if !found {
		t.Fatal("no Wishart node")
	}
	yv := []float64{0.1, -0.4, 0.3}
	lp, err := p.LogJoint(yv, make([]float64, len(yv)))
	if err != nil {
		t.Fatal(err)
	}
	x, l := make([]float64, k*k), make([]float64, k*k)
	dist.CovMatrixValues(x, l, yv, k)
	want := wishartRef(x, s, k, 5, true)
	if math.Abs(lp-want) > 1e-12*math.Abs(want) {
		t.Errorf("log density %.15g, want %.15g", lp, want)
	}
}
