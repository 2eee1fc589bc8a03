package gpfa

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"
)

// ColumnMeans returns the mean of each column of the n×D matrix x.
func ColumnMeans(x *mat.Dense) []float64 {
	n, d := x.Dims()
	mu := make([]float64, d)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			mu[j] += x.At(i, j)
		}
	}
	for j := range mu {
		mu[j] /= float64(n)
	}
	return mu
}

// Center returns x minus the row vector mu.
func Center(x *mat.Dense, mu []float64) *mat.Dense {
	n, d := x.Dims()
	out := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			out.Set(i, j, x.At(i, j)-mu[j])
		}
	}
	return out
}

// EmpiricalCovariance returns the maximum-likelihood covariance (divide by
// n) of the rows of x about the column means mu: S = (x−μ)ᵀ(x−μ)/n.
func EmpiricalCovariance(x *mat.Dense, mu []float64) *mat.SymDense {
	n, d := x.Dims()
	xc := Center(x, mu)
	s := mat.NewSymDense(d, nil)
	s.SymOuterK(1/float64(n), xc.T())
	return s
}

// LedoitWolf returns the Ledoit–Wolf (2004) shrinkage estimate of the
// covariance of the rows of x about the column means mu, defined as
// sklearn.covariance.LedoitWolf defines it:
//
//	Σ̂ = (1−δ)·S + δ·μ_I·I,  μ_I = tr(S)/D,
//
// with S the ML covariance about mu (EmpiricalCovariance) and
//
//	δ = min(1, β̄/γ),  γ = ‖S − μ_I·I‖²_F,
//	β̄ = min(γ, (1/n²)·Σ_i ‖x_i x_iᵀ − S‖²_F),
//
// where x_i are the centred rows. β̄ is computed as
// (1/n²)·Σ_{jk} (Σ_i x_ij² x_ik²) − (1/n)·‖S‖²_F, which is the same sum
// expanded. It also returns δ.
func LedoitWolf(x *mat.Dense, mu []float64) (*mat.SymDense, float64) {
	n, d := x.Dims()
	xc := Center(x, mu)
	s := mat.NewSymDense(d, nil)
	s.SymOuterK(1/float64(n), xc.T())
	m := mat.Trace(s) / float64(d)
	// ‖S‖²_F and γ = ‖S − mI‖²_F = ‖S‖²_F − 2m·tr(S) + m²D = ‖S‖²_F − m²D.
	frob := 0.0
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			frob += s.At(i, j) * s.At(i, j)
		}
	}
	gamma := frob - m*m*float64(d)
	// Σ_{jk} Σ_i x_ij² x_ik² = ‖X²ᵀX²‖ summed, X² elementwise squares.
	x2 := mat.NewDense(n, d, nil)
	x2.Apply(func(_, _ int, v float64) float64 { return v * v }, xc)
	var q mat.Dense
	q.Mul(x2.T(), x2)
	sum4 := 0.0
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			sum4 += q.At(i, j)
		}
	}
	nf := float64(n)
	beta := sum4/(nf*nf) - frob/nf
	beta = math.Min(beta, gamma)
	delta := 0.0
	if gamma > 0 {
		delta = beta / gamma
	}
	out := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			v := (1 - delta) * s.At(i, j)
			if i == j {
				v += delta * m
			}
			out.SetSym(i, j, v)
		}
	}
	return out, delta
}

// ErrSingular is returned by GaussianNLL for a covariance that is not
// positive definite.
var ErrSingular = errors.New("gpfa: covariance is not positive definite")

// GaussianNLL returns the mean negative log-likelihood per row of x under
// N(mu, sigma), in nats: (1/n)·Σ_i ½[(x_i−μ)ᵀΣ⁻¹(x_i−μ) + log det(2πΣ)].
// A singular Σ gives +Inf and ErrSingular.
func GaussianNLL(x *mat.Dense, mu []float64, sigma mat.Symmetric) (float64, error) {
	n, d := x.Dims()
	var ch mat.Cholesky
	if !ch.Factorize(sigma) {
		return math.Inf(1), ErrSingular
	}
	logdet := ch.LogDet()
	xc := Center(x, mu)
	// Solve L z = (x−μ)ᵀ for all rows at once: quadratic form = ‖z‖².
	var l mat.TriDense
	ch.LTo(&l)
	var z mat.Dense
	if err := z.Solve(&l, xc.T()); err != nil {
		return math.Inf(1), ErrSingular
	}
	quad := 0.0
	zr, zc := z.Dims()
	for i := 0; i < zr; i++ {
		for j := 0; j < zc; j++ {
			v := z.At(i, j)
			quad += v * v
		}
	}
	return 0.5 * (quad/float64(n) + logdet + float64(d)*math.Log(2*math.Pi)), nil
}

// VarianceRatios returns, per column d, the mean square of x's column about
// mu[d] divided by sigma's diagonal entry: above 1 where the density
// understates a held-out variance, which a Gaussian NLL punishes more than
// overstating it by the same factor.
func VarianceRatios(x *mat.Dense, mu []float64, sigma mat.Symmetric) []float64 {
	n, d := x.Dims()
	out := make([]float64, d)
	for j := range d {
		ss := 0.0
		for i := range n {
			v := x.At(i, j) - mu[j]
			ss += v * v
		}
		out[j] = ss / float64(n) / sigma.At(j, j)
	}
	return out
}

// ActiveColumns counts the columns of w whose energy Σ_d w_dk² is more than
// frac of the total: the factors a loading matrix uses.
func ActiveColumns(w mat.Matrix, frac float64) int {
	r, c := w.Dims()
	en := make([]float64, c)
	total := 0.0
	for k := range c {
		for d := range r {
			en[k] += w.At(d, k) * w.At(d, k)
		}
		total += en[k]
	}
	n := 0
	for _, e := range en {
		if e > frac*total {
			n++
		}
	}
	return n
}
