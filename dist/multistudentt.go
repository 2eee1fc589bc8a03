package dist

import (
	"math"
	"math/rand/v2"
)

// MultiStudentT is the multivariate Student t distribution with Nu > 0
// degrees of freedom, location Mu (length d) and scale matrix Sigma (d×d,
// row-major, symmetric positive definite; only its lower triangle is read)
// (Stan's multi_student_t): the law of Mu + z / √(w / Nu) for z ~
// MvNormal(0, Sigma) and an independent w ~ ChiSquare(Nu), whose
// covariance is Nu / (Nu − 2) · Sigma for Nu > 2. Its log density is
//
//	lgamma((ν+d)/2) − lgamma(ν/2) − d/2·log(νπ) − ½·log det Σ − (ν+d)/2·log1p(q/ν)
//
// for q = (x − μ)'Σ⁻¹(x − μ). Methods take a workspace w of dimension d; a
// nil w allocates a fresh one. The compiler writes the density with tape
// nodes (a Cholesky factor, a triangular solve); this type is its
// reference.
type MultiStudentT struct {
	Nu        float64
	Mu, Sigma []float64
}

// LogProb returns the log density at x; NaN and ErrNotPositiveDefinite for
// a Sigma with no Cholesky factor, NaN for a Nu not > 0.
func (m MultiStudentT) LogProb(x []float64, w *MvWork) (float64, error) {
	d := MvNormal{Mu: m.Mu, Sigma: m.Sigma}.check(x)
	w = mvWork(w, d)
	logdet, err := w.factor(m.Sigma)
	if err != nil {
		return math.NaN(), err
	}
	if !(m.Nu > 0) {
		return math.NaN(), nil
	}
	a := w.r
	for i := range a {
		a[i] = x[i] - m.Mu[i]
	}
	q := w.solve(a)
	return MultiStudentTNorm(m.Nu, d) - 0.5*logdet - 0.5*(m.Nu+float64(d))*math.Log1p(q/m.Nu), nil
}

// MultiStudentTNorm is the log normalising constant of a d-dimensional
// MultiStudentT with nu degrees of freedom and an identity scale:
// lgamma((ν+d)/2) − lgamma(ν/2) − d/2·log(νπ), the difference of the
// lgammas as LogRisingFactorial(ν/2, d/2), which keeps its digits for
// large ν (and, unlike the falling factorial of (ν+d)/2 − 1, for tiny ν).
func MultiStudentTNorm(nu float64, d int) float64 {
	h := float64(d) / 2
	return LogRisingFactorial(nu/2, h) - h*math.Log(nu*math.Pi)
}

// Rand writes a draw Mu + L·z / √u (Sigma = LL', z standard normal, u ~
// Gamma(Nu/2, Nu/2), so that Nu·u is ChiSquare(Nu)) into dst (allocated if
// nil) and returns it.
func (m MultiStudentT) Rand(dst []float64, w *MvWork, rng *rand.Rand) ([]float64, error) {
	// A zero mean held in dst itself: MvNormal.Rand reads each element of
	// its mean before it writes that element of dst, and nothing after.
	dst = scoreDst(dst, len(m.Mu))
	clear(dst)
	dst, err := MvNormal{Mu: dst, Sigma: m.Sigma}.Rand(dst, w, rng)
	if err != nil {
		return dst, err
	}
	s := 1 / math.Sqrt(Gamma{m.Nu / 2, m.Nu / 2}.Rand(rng))
	for i := range dst {
		dst[i] = m.Mu[i] + s*dst[i]
	}
	return dst, nil
}
