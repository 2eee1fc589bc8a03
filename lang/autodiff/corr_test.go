package autodiff

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// corrRef is L L' of the reference factor, summed in full.
func corrRef(y []float64, k int) []float64 {
	l := cholCorrRef(y, k)
	o := make([]float64, k*k)
	for i := range k {
		for j := range k {
			for m := range k {
				o[i*k+j] += l[i*k+m] * l[j*k+m]
			}
		}
	}
	return o
}

func TestGradCorrMatrix(t *testing.T) {
	var k int
	coords := func(r *rand.Rand) Shape { n, _, _ := dims(r); k = n; return Vector(dist.CholCorrSize(k)) }
	runCases(t, []gradCase{{
		name:  "corr_matrix",
		args:  func(r *rand.Rand) []arg { return []arg{in(coords(r), real)} },
		build: func(b *Builder, x []ID) ID { return b.CorrMatrix(x[0], k, testPos) },
		ref:   func(v [][]float64, _ []Shape) []float64 { return corrRef(v[0], k) },
	}, {
		name:  "corr_matrix_jacobian",
		args:  func(r *rand.Rand) []arg { return []arg{in(coords(r), real)} },
		build: func(b *Builder, x []ID) ID { return b.CorrMatrixLogJac(x[0], k, testPos) },
		ref: func(v [][]float64, _ []Shape) []float64 {
			// that of y → L, and Σ_{i≥1} (K − i − 1)·log L[i,i]
			l, s := cholCorrRef(v[0], k), cholCorrLogJacRef(v[0], k)
			for i := 1; i < k; i++ {
				s += float64(k-i-1) * math.Log(l[i*k+i])
			}
			return []float64{s}
		},
	}, {
		// the density of a correlation matrix made by CorrMatrix, eta a param
		name: "LKJCorr",
		args: func(r *rand.Rand) []arg { return []arg{in(coords(r), real), in(Scalar(), pos)} },
		build: func(b *Builder, x []ID) ID {
			return b.LKJCorr(b.CorrMatrix(x[0], k, testPos), x[1], testPos)
		},
		ref: func(v [][]float64, _ []Shape) []float64 {
			l, eta := cholCorrRef(v[0], k), v[1][0]
			lp := 0.0
			for i := 1; i < k; i++ {
				lp += 2 * (eta - 1) * math.Log(l[i*k+i])
			}
			c, _ := dist.LKJLogNorm(eta, k)
			return []float64{lp - c}
		},
	}})
}

func TestLKJCorrErrors(t *testing.T) {
	err := runOne(t, []float64{0.3, -1}, func(b *Builder) ID {
		o := b.CorrMatrix(b.Input("y", Vector(1), at(1, 1)), 2, at(1, 1))
		return b.LKJCorr(o, b.Input("eta", Scalar(), at(2, 1)), at(3, 5))
	})
	wantPositioned(t, err, "model.gpp:3:5: LKJCorr: eta must be > 0 and finite (got -1)")
}

// A steady-state evaluation of Ω, its Jacobian and LKJCorr makes no
// allocations.
func TestCorrMatrixZeroAllocs(t *testing.T) {
	b := NewBuilder()
	y := b.Input("y", Vector(6), testPos)
	eta := b.Exp(b.Input("eta", Scalar(), testPos), testPos)
	omega := b.CorrMatrix(y, 4, testPos)
	root := b.Add(b.Add(b.LKJCorr(omega, eta, testPos), b.CorrMatrixLogJac(y, 4, testPos), testPos), b.Sum(omega, testPos), testPos)
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
