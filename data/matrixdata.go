package data

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
	"github.com/gpplang/gpp/lang/check"
)

// matrixTol is, as Stan's CONSTRAINT_TOLERANCE, how far a data
// cov_matrix or corr_matrix may be from symmetric (relative to its larger
// entry of the pair, at least 1), a corr_matrix's diagonal from 1 and a
// cholesky_factor_corr's row norms from 1.
const matrixTol = 1e-8

// matrixValues checks data declared cov_matrix[K], corr_matrix[K],
// cholesky_factor_cov[K] or cholesky_factor_corr[K] as Stan checks them
// in its data block: each error at the cell, or, for a matrix that is not
// positive definite, at the matrix, naming its smallest eigenvalue.
func (b *binder) matrixValues(d *check.DataVar, a *Array, decl string) bool {
	k := a.Shape[0]
	v := a.Values
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	what := ast.Article(d.Kind.String())
	if d.Kind == ast.CholCov || d.Kind == ast.CholCorr {
		for i := range k {
			for j := i + 1; j < k; j++ {
				if v[i*k+j] != 0 {
					b.errs.Add(a.Locate(i*k+j), "%s: element [%d, %d] is %s, above the diagonal, where %s, lower triangular, has 0; %s", a.Name, i, j, num(v[i*k+j]), what, decl)
					return false
				}
			}
			if !(v[i*k+i] > 0) {
				b.errs.Add(a.Locate(i*k+i), "%s: diagonal element [%d, %d] is %s, not > 0, as %s needs; %s", a.Name, i, i, num(v[i*k+i]), what, decl)
				return false
			}
			if d.Kind == ast.CholCorr {
				var s float64
				for j := 0; j <= i; j++ {
					s += v[i*k+j] * v[i*k+j]
				}
				if math.Abs(math.Sqrt(s)-1) > matrixTol {
					b.errs.Add(a.Locate(i*k), "%s: row %d has norm %s, not 1 (to within %g), as %s needs (its L L' a correlation matrix); %s", a.Name, i, num(math.Sqrt(s)), matrixTol, what, decl)
					return false
				}
			}
		}
		return true
	}
	for i := range k {
		for j := i + 1; j < k; j++ {
			x, y := v[i*k+j], v[j*k+i]
			if math.Abs(x-y) > matrixTol*max(1, math.Abs(x), math.Abs(y)) {
				b.errs.Add(a.Locate(i*k+j), "%s: element [%d, %d] is %s but [%d, %d] is %s: not symmetric (to within %g), as %s needs; %s", a.Name, i, j, num(x), j, i, num(y), matrixTol, what, decl)
				return false
			}
		}
		if d.Kind == ast.CorrMatrix && math.Abs(v[i*k+i]-1) > matrixTol {
			b.errs.Add(a.Locate(i*k+i), "%s: diagonal element [%d, %d] is %s, not 1 (to within %g), as %s needs; %s", a.Name, i, i, num(v[i*k+i]), matrixTol, what, decl)
			return false
		}
	}
	l := make([]float64, k*k)
	copy(l, v)
	if minor := dist.CholLower(l, k); minor > 0 {
		b.errs.Add(a.Pos, "%s: not positive definite, as %s needs: %s (Cholesky fails at leading minor %d); %s", a.Name, what, smallestEigen(v, k), minor, decl)
		return false
	}
	return true
}

// smallestEigen says what the smallest eigenvalue of the symmetric k×k
// matrix v (its lower triangle read) is, against the largest.
func smallestEigen(v []float64, k int) string {
	lo, hi, ok := eigenRange(v, k)
	if !ok {
		return "its eigenvalues could not be found"
	}
	return fmt.Sprintf("its smallest eigenvalue is %.4g (the largest %.4g)", lo, hi)
}

// eigenRange is the smallest and largest eigenvalue of the symmetric k×k
// matrix v, its lower triangle read.
func eigenRange(v []float64, k int) (lo, hi float64, ok bool) {
	s := mat.NewSymDense(k, nil)
	for i := range k {
		for j := 0; j <= i; j++ {
			s.SetSym(i, j, v[i*k+j])
		}
	}
	var e mat.EigenSym
	if !e.Factorize(s, false) {
		return 0, 0, false
	}
	w := e.Values(nil) // ascending
	return w[0], w[k-1], true
}

// clampValues refuses real data d that the model reads as
// abs(eigenvalues_sym(d)) or fmax(eigenvalues_sym(d), ...) (DataVar.Clamps)
// when d has an eigenvalue below zero beyond rounding (1e-8 of its
// largest in magnitude): the clamp would turn it positive and fit another
// matrix in silence. Rounding negatives of a positive semidefinite d pass.
func (b *binder) clampValues(d *check.DataVar, a *Array, decl string) bool {
	if len(d.Clamps) == 0 || len(a.Shape) != 2 || a.Shape[0] != a.Shape[1] || a.Shape[0] == 0 || len(a.Missing) > 0 {
		return true
	}
	k := a.Shape[0]
	lo, hi, ok := eigenRange(a.Values, k)
	if !ok || lo >= -matrixTol*max(math.Abs(lo), math.Abs(hi)) {
		return true
	}
	c := d.Clamps[0]
	how := "abs(eigenvalues_sym(%s)) at %s would turn that eigenvalue positive"
	if c.Fn == "fmax" {
		how = "fmax(eigenvalues_sym(%s), ...) at %s would raise that eigenvalue to its floor"
	}
	b.errs.Add(a.Pos, "%s: its smallest eigenvalue is %.4g (the largest %.4g): the matrix is not positive semidefinite, as a covariance matrix is, and "+how+" in silence, fitting another matrix; mend the data (an indefinite matrix comes of pairwise estimates or imputed values), or declare `%s` cov_matrix[%s] to have it checked positive definite when it loads; %s",
		a.Name, lo, hi, d.Name, c.Pos, d.Name, d.Dims[0], decl)
	return false
}
