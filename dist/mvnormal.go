package dist

import (
	"errors"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// ErrNotPositiveDefinite is returned when a covariance matrix has no
// Cholesky factor (it is not positive definite, or has a NaN or infinite
// entry). It is a user error, not a panic: a fit can wander there.
var ErrNotPositiveDefinite = errors.New("dist: covariance matrix is not positive definite")

// MvWork is reusable workspace for MvNormal and MvNormalRows of one
// dimension, so that repeated evaluation does not allocate. It is not safe
// for concurrent use.
type MvWork struct {
	d         int
	chol, inv []float64 // d×d: Cholesky factor (lower), Σ⁻¹ (full)
	tmp       []float64 // d×d
	r, v      []float64 // d
}

// NewMvWork returns workspace for dimension d ≥ 1.
func NewMvWork(d int) *MvWork {
	if d < 1 {
		panic(errDim)
	}
	return &MvWork{
		d:    d,
		chol: make([]float64, d*d), inv: make([]float64, d*d), tmp: make([]float64, d*d),
		r: make([]float64, d), v: make([]float64, d),
	}
}

// Dim returns the dimension the workspace is for.
func (w *MvWork) Dim() int { return w.d }

// work returns w, or new workspace if w is nil; a wrong size panics.
func mvWork(w *MvWork, d int) *MvWork {
	if w == nil {
		return NewMvWork(d)
	}
	if w.d != d {
		panic(errDim)
	}
	return w
}

// factor sets w.chol to the Cholesky factor L of sigma (only its lower
// triangle is read) and returns log det sigma.
func (w *MvWork) factor(sigma []float64) (float64, error) {
	d := w.d
	for i, s := range sigma {
		if !finite(s) && i%d <= i/d { // lower triangle, row-major
			return math.NaN(), ErrNotPositiveDefinite
		}
	}
	copy(w.chol, sigma)
	if _, ok := lapack64.Potrf(w.sym(w.chol)); !ok {
		return math.NaN(), ErrNotPositiveDefinite
	}
	var logdet float64
	for i := 0; i < d; i++ {
		logdet += math.Log(w.chol[i*d+i])
	}
	return 2 * logdet, nil
}

// inverse sets w.inv to Σ⁻¹ (both triangles) from w.chol.
func (w *MvWork) inverse() error {
	d := w.d
	copy(w.inv, w.chol)
	if _, ok := lapack64.Potri(w.tri(w.inv)); !ok {
		return ErrNotPositiveDefinite
	}
	for i := 0; i < d; i++ {
		for j := 0; j < i; j++ {
			w.inv[j*d+i] = w.inv[i*d+j]
		}
	}
	return nil
}

// solve overwrites v with Σ⁻¹v, using w.chol; it returns |L⁻¹v|², the
// quadratic form v'Σ⁻¹v.
func (w *MvWork) solve(v []float64) float64 {
	l := w.tri(w.chol)
	x := blas64.Vector{N: w.d, Data: v, Inc: 1}
	blas64.Trsv(blas.NoTrans, l, x) // v ← L⁻¹v
	q := blas64.Dot(x, x)
	blas64.Trsv(blas.Trans, l, x) // v ← L⁻ᵀL⁻¹v
	return q
}

func (w *MvWork) sym(a []float64) blas64.Symmetric {
	return blas64.Symmetric{Uplo: blas.Lower, N: w.d, Data: a, Stride: w.d}
}

func (w *MvWork) tri(a []float64) blas64.Triangular {
	return blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: w.d, Data: a, Stride: w.d}
}

func (w *MvWork) gen(a []float64) blas64.General {
	return blas64.General{Rows: w.d, Cols: w.d, Data: a, Stride: w.d}
}

// MvNormal is the multivariate normal distribution with mean Mu (length d)
// and covariance Sigma (d×d, row-major). Only the lower triangle of Sigma is
// read; it must be symmetric positive definite, or evaluation returns
// ErrNotPositiveDefinite. Methods take a workspace w of dimension d; a nil w
// allocates a fresh one.
type MvNormal struct {
	Mu, Sigma []float64
}

// Dim returns the dimension d.
func (m MvNormal) Dim() int { return len(m.Mu) }

func (m MvNormal) check(x []float64) int {
	d := len(m.Mu)
	if d == 0 || len(m.Sigma) != d*d || (x != nil && len(x) != d) {
		panic(errDim)
	}
	return d
}

// LogProb returns the log density at x.
func (m MvNormal) LogProb(x []float64, w *MvWork) (float64, error) {
	return m.Grad(nil, nil, nil, x, w)
}

// Grad returns the log density at x and writes its partials with respect to
// x, Mu and Sigma into dx, dmu (length d) and dsigma (d×d); a nil
// destination is skipped. With α = Σ⁻¹(x−μ): dx = −α, dmu = α and
// dsigma = ½(αα' − Σ⁻¹), the gradient that treats the d² entries of Sigma
// as free (symmetric, so a symmetric perturbation E of Sigma changes the log
// density by Σ_ij dsigma_ij·E_ij). On error the log density and all
// partials are NaN. Destinations must not alias the inputs.
func (m MvNormal) Grad(dx, dmu, dsigma, x []float64, w *MvWork) (float64, error) {
	d := m.check(x)
	if (dx != nil && len(dx) != d) || (dmu != nil && len(dmu) != d) || (dsigma != nil && len(dsigma) != d*d) {
		panic(errLength)
	}
	w = mvWork(w, d)
	logdet, err := w.factor(m.Sigma)
	if err == nil && dsigma != nil {
		err = w.inverse()
	}
	if err != nil {
		fillNaN(dx, dmu, dsigma)
		return math.NaN(), err
	}
	a := w.r
	for i := range a {
		a[i] = x[i] - m.Mu[i]
	}
	q := w.solve(a) // a = α
	for i, ai := range a {
		if dx != nil {
			dx[i] = -ai
		}
		if dmu != nil {
			dmu[i] = ai
		}
	}
	if dsigma != nil {
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				dsigma[i*d+j] = 0.5 * (a[i]*a[j] - w.inv[i*d+j])
			}
		}
	}
	return -0.5 * (float64(d)*ln2Pi + logdet + q), nil
}

// Rand writes a draw Mu + L·z (Sigma = LL', z standard normal) into dst
// (allocated if nil) and returns it.
func (m MvNormal) Rand(dst []float64, w *MvWork, rng *rand.Rand) ([]float64, error) {
	d := m.check(nil)
	dst = scoreDst(dst, d)
	w = mvWork(w, d)
	if _, err := w.factor(m.Sigma); err != nil {
		return dst, err
	}
	for i := range w.v {
		w.v[i] = rng.NormFloat64()
	}
	for i := 0; i < d; i++ {
		s := m.Mu[i]
		for j := 0; j <= i; j++ {
			s += w.chol[i*d+j] * w.v[j]
		}
		dst[i] = s
	}
	return dst, nil
}

// fillNaN sets every element of the non-nil slices to NaN.
func fillNaN(s ...[]float64) {
	for _, v := range s {
		for i := range v {
			v[i] = math.NaN()
		}
	}
}
