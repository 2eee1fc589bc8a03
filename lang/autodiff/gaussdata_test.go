package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
)

// spdMatrix returns a random symmetric positive definite d×d matrix
// A A' + d I.
func spdMatrix(r *rand.Rand, d int) []float64 {
	a := make([]float64, d*d)
	for i := range a {
		a[i] = r.NormFloat64()
	}
	c := make([]float64, d*d)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			s := 0.0
			for k := 0; k < d; k++ {
				s += a[i*d+k] * a[j*d+k]
			}
			c[i*d+j] = s
		}
		c[i*d+i] += float64(d)
	}
	return c
}

// gaussCovModel builds Σ_r log N(y_r | mu, C) for data rows Y [n, d] and
// a mean mu [1, d] of params, as a loop lowered as vectors builds it. With
// dynCov the covariance reads a param z (C + 0·z, C itself at z = 0) so
// that the program factors it at every evaluation; with matmul the
// scatter is r'r by a matrix product instead of RowScatter: both
// together are an independent computation of what the data path gives. mean builds
// GaussRowsSSMean from the data's centred statistics instead. The params
// are mu, then z (dynCov).
func gaussCovModel(cov, y []float64, n, d int, dynCov, matmul, mean bool) (*Program, ID, error) {
	b := NewBuilder()
	mu := b.Input("mu", Matrix(1, d), testPos)
	c := b.DataConst("Sigma", cov, Matrix(d, d), testPos, nil)
	if dynCov {
		z := b.Input("z", Scalar(), testPos)
		c = b.Add(c, b.Mul(b.Scalar(0, testPos), z, testPos), testPos)
	}
	yc := b.Const(y, Matrix(n, d), testPos)
	var root ID
	switch {
	case mean:
		ybar := b.Div(b.Transpose(b.ColSum(yc, testPos), testPos), b.Scalar(float64(n), testPos), testPos)
		r := b.Sub(yc, b.Transpose(ybar, testPos), testPos)
		s := b.MatMul(b.Transpose(r, testPos), r, testPos)
		root = b.GaussRowsSSMean(c, s, ybar, b.Transpose(mu, testPos), float64(n), testPos)
	case matmul:
		r := b.Sub(yc, mu, testPos)
		s := b.MatMul(b.Transpose(r, testPos), r, testPos)
		root = b.GaussRowsSS(c, s, float64(n), testPos)
	default:
		root = b.GaussRowsSS(c, b.RowScatter(b.Sub(yc, mu, testPos), testPos), float64(n), testPos)
	}
	p, err := b.Finish(root)
	return p, root, err
}

// TestGaussRowsDataCov: a GaussRowsSS whose covariance is data is factored
// once, by Finish (cfix), and then gives the value and gradient of the
// program that factors it at each evaluation (and, for the loop's form,
// forms the scatter by a matrix product instead of RowScatter) to 1e-12, a
// gradient that finite differences confirm, and no allocation.
func TestGaussRowsDataCov(t *testing.T) {
	const n = 40
	for _, d := range []int{1, 3, 6} {
		for _, mean := range []bool{false, true} {
			t.Run(fmt.Sprintf("d=%d/mean=%v", d, mean), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(d), 7))
				cov := spdMatrix(r, d)
				y := make([]float64, n*d)
				for i := range y {
					y[i] = 2 + r.NormFloat64()
				}
				pn, root, err := gaussCovModel(cov, y, n, d, false, false, mean)
				if err != nil {
					t.Fatal(err)
				}
				if nd := &pn.nodes[pn.index(root)]; !nd.cfix {
					t.Fatal("data covariance not factored by Finish")
				}
				po, rootOld, err := gaussCovModel(cov, y, n, d, true, true, mean)
				if err != nil {
					t.Fatal(err)
				}
				if po.nodes[po.index(rootOld)].cfix {
					t.Fatal("a covariance of params marked as data")
				}
				for trial := range 3 {
					x := make([]float64, d)
					for i := range x {
						x[i] = 2 + r.NormFloat64()
					}
					g := make([]float64, d)
					v, err := pn.LogJoint(x, g)
					if err != nil {
						t.Fatal(err)
					}
					gOld := make([]float64, d+1)
					vOld, err := po.LogJoint(append(x[:d:d], 0), gOld)
					if err != nil {
						t.Fatal(err)
					}
					if math.Abs(v-vOld) > 1e-12*math.Abs(vOld) {
						t.Errorf("trial %d: value %.17g, factored each time %.17g", trial, v, vOld)
					}
					for i := range g {
						if math.Abs(g[i]-gOld[i]) > 1e-12*max(math.Abs(gOld[i]), 1) {
							t.Errorf("trial %d: grad[%d] = %.17g, factored each time %.17g", trial, i, g[i], gOld[i])
						}
					}
					want := fd.Gradient(nil, func(x []float64) float64 {
						v, err := pn.Forward(x)
						if err != nil {
							t.Fatal(err)
						}
						return v
					}, x, &fd.Settings{Formula: fd.Central})
					for i := range want {
						if e := math.Abs(g[i] - want[i]); e > gradTolAbs+gradTolRel*max(math.Abs(g[i]), math.Abs(want[i])) {
							t.Errorf("trial %d: grad[%d] = %.10g, fd %.10g", trial, i, g[i], want[i])
						}
					}
				}
				x, g := make([]float64, d), make([]float64, d)
				if a := testing.AllocsPerRun(20, func() { pn.LogJoint(x, g) }); a != 0 {
					t.Errorf("%v allocations per LogJoint, want 0", a)
				}
				// a clone's scratch, a copy, holds the factor too
				v1, _ := pn.LogJoint(x, g)
				if v2, err := pn.Clone().LogJoint(x, make([]float64, d)); err != nil || v2 != v1 {
					t.Errorf("clone: %v (%v), want %v", v2, err, v1)
				}
			})
		}
	}
}

// TestGaussRowsDataCovError: a data covariance that is not symmetric or
// not positive definite fails Finish with the error, at the same position,
// that the first evaluation of the program that factors it each time
// gives; in a data matrix's words there (dyn, where it differs, is that
// of a covariance that reads a param, + 0·z, a kernel's words, or,
// for an indefinite Sigma, that Sigma itself is).
func TestGaussRowsDataCovError(t *testing.T) {
	const n, d = 5, 2
	y := []float64{1, 2, 0, 1, -1, 0.5, 2, 2, 0, 0}
	for _, tc := range []struct {
		name      string
		cov       []float64
		want, dyn string
	}{
		// a data covariance gets a data matrix's remedies, not a kernel's
		{"indefinite", []float64{-1, 0, 0, 1}, "MvNormalRows: covariance matrix is not positive definite (leading minor 1); it is the data Sigma, not built from params: a covariance or relationship matrix given as data is singular where rows are duplicated (an individual twice), or where it was estimated from fewer variables than its size (a genomic G from fewer markers than individuals), and indefinite where it was assembled from pairwise estimates or imputed values; blend it with the identity, 0.95 * Sigma + 0.05 * I(N) or add_diag(Sigma, lambda) with lambda small beside its diagonal", "MvNormalRows: covariance matrix is not positive definite (leading minor 1); the data Sigma it is built from is itself not positive definite, its smallest eigenvalue -1 (the largest 1), the likely cause: declare Sigma cov_matrix to have it checked when the data load"},
		{"singular", []float64{1, 1, 1, 1}, "MvNormalRows: covariance matrix is not positive definite (leading minor 2); it is the data Sigma, not built from params: a covariance or relationship matrix given as data is singular where rows are duplicated (an individual twice) (its rows 0 and 1 are equal), or where it was estimated from fewer variables than its size (a genomic G from fewer markers than individuals), and indefinite where it was assembled from pairwise estimates or imputed values; it factors with 1e-09 added to its diagonal, 1e-9 of its largest diagonal element (1); blend it with the identity, 0.95 * Sigma + 0.05 * I(N) or add_diag(Sigma, lambda) with lambda small beside its diagonal, or drop the duplicates", "MvNormalRows: covariance matrix is not positive definite (leading minor 2), but it is with 1e-9 of its largest diagonal element (1) added to its diagonal, a jitter of 1e-09: a kernel or covariance matrix that is singular, or positive definite only in exact arithmetic, factors with a jitter; make it relative to the matrix's scale, e.g. add_diag(K, 1e-6 * square(alpha)) for a kernel of amplitude alpha (1e-06 at this point), or larger, as Stan's GP models add delta; its rows 0 and 1 are equal, as a kernel's are at two equal inputs (duplicate points or coordinates)"},
		{"asymmetric", []float64{1, 0.5, 0.4, 1}, "MvNormalRows: covariance matrix is not symmetric: element [1, 0] is 0.4, [0, 1] is 0.5", ""},
	} {
		for _, mean := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/mean=%v", tc.name, mean), func(t *testing.T) {
				_, _, err := gaussCovModel(tc.cov, y, n, d, false, false, mean)
				want := testPos.String() + ": " + tc.want
				wantPositioned(t, err, want)
				po, _, err := gaussCovModel(tc.cov, y, n, d, true, true, mean)
				if err != nil {
					t.Fatal(err)
				}
				_, err = po.LogJoint(make([]float64, d+1), make([]float64, d+1))
				if tc.dyn != "" {
					want = testPos.String() + ": " + tc.dyn
				}
				wantPositioned(t, err, want)
			})
		}
	}
}

// BenchmarkGaussRowsDataCov: the value and gradient of N = 2000 rows of
// MvNormal(mu, Sigma) with Sigma data, as a loop lowered as vectors builds
// it: refactor factors Sigma at each evaluation, as a covariance of
// params makes it; new reads the factor Finish made. Both form the
// scatter in one pass (RowScatter). (The [N, d²] row outer products that
// RowScatter replaced are gone; docs/performance.md keeps their figures.)
func BenchmarkGaussRowsDataCov(b *testing.B) {
	const n = 2000
	for _, d := range []int{5, 20} {
		r := rand.New(rand.NewPCG(uint64(d), 9))
		cov := spdMatrix(r, d)
		y := make([]float64, n*d)
		for i := range y {
			y[i] = r.NormFloat64()
		}
		for _, v := range []struct {
			name  string
			fixed bool
		}{{"refactor", false}, {"new", true}} {
			b.Run(fmt.Sprintf("d=%d/%s", d, v.name), func(b *testing.B) {
				// Sigma data: cfix cleared, the factorisation runs at
				// each evaluation, as a covariance of params makes it
				p, _, err := gaussCovModel(cov, y, n, d, false, false, false)
				if err != nil {
					b.Fatal(err)
				}
				if !v.fixed {
					for i := range p.nodes {
						p.nodes[i].cfix = false
					}
				}
				x := make([]float64, p.Dim())
				g := make([]float64, p.Dim())
				b.ReportAllocs()
				for b.Loop() {
					if _, err := p.LogJoint(x, g); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
