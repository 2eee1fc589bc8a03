package dist

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// RowStats are the sufficient statistics of the rows y_1 … y_N (each of
// length D) of a data matrix for MvNormalRows: the count, the mean ȳ and the
// scatter matrix C = Σ_i (y_i − ȳ)(y_i − ȳ)' (D×D, row-major, both
// triangles). They are equivalent to (N, Σy, Σyy') but centred, so that the
// log density does not lose digits when the data mean is large compared with
// their spread. Compute them once for data-only matrices.
type RowStats struct {
	N       int
	Mean    []float64 // length D; zeros when N = 0
	Scatter []float64 // D×D
}

// NewRowStats returns the statistics of the rows of y (row-major, d
// columns).
func NewRowStats(y []float64, d int) *RowStats {
	s := &RowStats{}
	s.Set(y, d)
	return s
}

// Dim returns the row length D.
func (s *RowStats) Dim() int { return len(s.Mean) }

// Set recomputes the statistics from the rows of y (row-major, d columns),
// reusing s's slices when they have the right size. It makes two passes for
// accuracy.
func (s *RowStats) Set(y []float64, d int) {
	if d < 1 || len(y)%d != 0 {
		panic(errDim)
	}
	s.resize(d)
	n := len(y) / d
	s.N = n
	clear(s.Mean)
	clear(s.Scatter)
	if n == 0 {
		return
	}
	for i := 0; i < n; i++ {
		for j, v := range y[i*d : (i+1)*d] {
			s.Mean[j] += v
		}
	}
	for j := range s.Mean {
		s.Mean[j] /= float64(n)
	}
	for i := 0; i < n; i++ {
		row := y[i*d : (i+1)*d]
		for j := 0; j < d; j++ {
			cj := row[j] - s.Mean[j]
			for k := 0; k <= j; k++ {
				s.Scatter[j*d+k] += cj * (row[k] - s.Mean[k])
			}
		}
	}
	s.mirror()
}

// SetSums sets the statistics from the raw sums: n rows, sum = Σ_i y_i
// (length d) and sumOuter = Σ_i y_i y_i' (d×d).
func (s *RowStats) SetSums(n int, sum, sumOuter []float64) {
	d := len(sum)
	if d < 1 || len(sumOuter) != d*d || n < 0 {
		panic(errDim)
	}
	s.resize(d)
	s.N = n
	if n == 0 {
		clear(s.Mean)
		clear(s.Scatter)
		return
	}
	for j := range sum {
		s.Mean[j] = sum[j] / float64(n)
	}
	for j := 0; j < d; j++ {
		for k := 0; k <= j; k++ {
			s.Scatter[j*d+k] = sumOuter[j*d+k] - float64(n)*s.Mean[j]*s.Mean[k]
		}
	}
	s.mirror()
}

func (s *RowStats) resize(d int) {
	if len(s.Mean) != d {
		s.Mean = make([]float64, d)
		s.Scatter = make([]float64, d*d)
	}
}

// mirror copies the lower triangle of the scatter matrix to the upper.
func (s *RowStats) mirror() {
	d := len(s.Mean)
	for j := 0; j < d; j++ {
		for k := 0; k < j; k++ {
			s.Scatter[k*d+j] = s.Scatter[j*d+k]
		}
	}
}

// MvNormalRows is the distribution of an N×D matrix whose rows are iid
// MvNormal(Mu, Sigma), evaluated through the rows' RowStats: the cost is
// O(D³) whatever N. Only the lower triangle of Sigma is read. Methods take a
// workspace of dimension D (nil allocates one).
type MvNormalRows struct {
	Mu, Sigma []float64
}

func (m MvNormalRows) check(s *RowStats) int {
	d := len(m.Mu)
	if d == 0 || len(m.Sigma) != d*d || s.Dim() != d || len(s.Scatter) != d*d {
		panic(errDim)
	}
	return d
}

// LogProb returns the log density of the rows summarised by s.
func (m MvNormalRows) LogProb(s *RowStats, w *MvWork) (float64, error) {
	return m.Grad(nil, nil, s, w)
}

// Grad returns the log density of the rows summarised by s,
//
//	−½·[N·D·log 2π + N·log det Σ + tr(Σ⁻¹C) + N·r'Σ⁻¹r],  r = ȳ − μ,
//
// and writes its partials with respect to Mu and Sigma into dmu (length D)
// and dsigma (D×D), skipping nil ones: with β = Σ⁻¹r, dmu = N·β and
// dsigma = ½·(Σ⁻¹CΣ⁻¹ + N·ββ' − N·Σ⁻¹), the gradient that treats Sigma's
// entries as free (see MvNormal.Grad). On error the log density and the
// partials are NaN. Destinations must not alias the inputs.
func (m MvNormalRows) Grad(dmu, dsigma []float64, s *RowStats, w *MvWork) (float64, error) {
	d := m.check(s)
	if (dmu != nil && len(dmu) != d) || (dsigma != nil && len(dsigma) != d*d) {
		panic(errLength)
	}
	w = mvWork(w, d)
	logdet, err := w.factor(m.Sigma)
	if err == nil {
		err = w.inverse()
	}
	if err != nil {
		fillNaN(dmu, dsigma)
		return math.NaN(), err
	}
	n := float64(s.N)
	beta := w.r
	for i := range beta {
		beta[i] = s.Mean[i] - m.Mu[i]
	}
	q := w.solve(beta) // beta = Σ⁻¹r
	var tr float64
	for i, v := range w.inv {
		tr += v * s.Scatter[i]
	}
	if dmu != nil {
		for i, b := range beta {
			dmu[i] = n * b
		}
	}
	if dsigma != nil {
		// dsigma = ½·Σ⁻¹CΣ⁻¹, then add ½·N·(ββ' − Σ⁻¹).
		inv := w.sym(w.inv)
		blas64.Symm(blas.Left, 1, inv, w.gen(s.Scatter), 0, w.gen(w.tmp))
		blas64.Symm(blas.Right, 0.5, inv, w.gen(w.tmp), 0, w.gen(dsigma))
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				dsigma[i*d+j] += 0.5 * n * (beta[i]*beta[j] - w.inv[i*d+j])
			}
		}
	}
	return -0.5 * (n*float64(d)*ln2Pi + n*logdet + tr + n*q), nil
}
