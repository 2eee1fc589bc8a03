package autodiff

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// cholCorrRef is the factor from its definition (Stan's loop over sums of
// squares, not the running product of dist.CholCorrValues).
func cholCorrRef(y []float64, k int) []float64 {
	l := make([]float64, k*k)
	l[0] = 1
	c := 0
	for i := 1; i < k; i++ {
		ss := 0.0
		for j := range i {
			l[i*k+j] = math.Tanh(y[c]) * math.Sqrt(1-ss)
			ss += l[i*k+j] * l[i*k+j]
			c++
		}
		l[i*k+i] = math.Sqrt(1 - ss)
	}
	return l
}

// lkjRef is Stan's lkj_corr_cholesky with LKJ's normaliser.
func lkjRef(l []float64, k int, eta float64) float64 {
	lp := 0.0
	for i := 1; i < k; i++ {
		lp += (float64(k-i-1) + 2*(eta-1)) * math.Log(l[i*k+i])
	}
	c, _ := dist.LKJLogNorm(eta, k)
	return lp - c
}

func TestGradCholCorr(t *testing.T) {
	var k int
	coords := func(r *rand.Rand) Shape { n, _, _ := dims(r); k = n; return Vector(dist.CholCorrSize(k)) }
	runCases(t, []gradCase{{
		name:  "cholesky_factor_corr",
		args:  func(r *rand.Rand) []arg { return []arg{in(coords(r), real)} },
		build: func(b *Builder, x []ID) ID { return b.CholCorr(x[0], k, testPos) },
		ref:   func(v [][]float64, _ []Shape) []float64 { return cholCorrRef(v[0], k) },
	}, {
		name:  "cholesky_factor_corr_jacobian",
		args:  func(r *rand.Rand) []arg { return []arg{in(coords(r), real)} },
		build: func(b *Builder, x []ID) ID { return b.CholCorrLogJac(x[0], k, testPos) },
		ref:   func(v [][]float64, _ []Shape) []float64 { return []float64{cholCorrLogJacRef(v[0], k)} },
	}, {
		// the density of a factor made by CholCorr, eta a param
		name: "LKJCorrCholesky",
		args: func(r *rand.Rand) []arg { return []arg{in(coords(r), real), in(Scalar(), pos)} },
		build: func(b *Builder, x []ID) ID {
			return b.LKJCorrCholesky(b.CholCorr(x[0], k, testPos), x[1], testPos)
		},
		ref: func(v [][]float64, _ []Shape) []float64 {
			return []float64{lkjRef(cholCorrRef(v[0], k), k, v[1][0])}
		},
	}, {
		name: "LKJCorrCholesky/constant-eta",
		args: func(r *rand.Rand) []arg { return []arg{in(coords(r), real)} },
		build: func(b *Builder, x []ID) ID {
			return b.LKJCorrCholesky(b.CholCorr(x[0], k, testPos), b.Scalar(2, testPos), testPos)
		},
		ref: func(v [][]float64, _ []Shape) []float64 {
			return []float64{lkjRef(cholCorrRef(v[0], k), k, 2)}
		},
	}})
}

func TestLKJErrors(t *testing.T) {
	err := runOne(t, []float64{0.3, -1}, func(b *Builder) ID {
		l := b.CholCorr(b.Input("y", Vector(1), at(1, 1)), 2, at(1, 1))
		return b.LKJCorrCholesky(l, b.Input("eta", Scalar(), at(2, 1)), at(3, 5))
	})
	wantPositioned(t, err, "model.gpp:3:5: LKJCorrCholesky: eta must be > 0 and finite (got -1)")
}

// A steady-state evaluation of the transform, its Jacobian and the
// density makes no allocations.
func TestCholCorrZeroAllocs(t *testing.T) {
	b := NewBuilder()
	y := b.Input("y", Vector(6), testPos)
	eta := b.Exp(b.Input("eta", Scalar(), testPos), testPos)
	root := b.Add(b.LKJCorrCholesky(b.CholCorr(y, 4, testPos), eta, testPos), b.CholCorrLogJac(y, 4, testPos), testPos)
	p, err := b.Finish(root)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, p.Dim())
	for i := range x {
		x[i] = 0.2 - 0.15*float64(i)
	}
	wantZeroAllocs(t, p, x)
}

// cholCorrLogJacRef is the log Jacobian of y → L of cholesky_factor_corr,
// written directly: Σ_{i>j} log(1 − z_ij²) + ½·log(1 − Σ_{k<j} L[i,k]²).
func cholCorrLogJacRef(y []float64, k int) float64 {
	l, s, c := cholCorrRef(y, k), 0.0, 0
	for i := 1; i < k; i++ {
		ss := 0.0
		for j := range i {
			z := math.Tanh(y[c])
			s += math.Log(1-z*z) + 0.5*math.Log(1-ss)
			ss += l[i*k+j] * l[i*k+j]
			c++
		}
	}
	return s
}
