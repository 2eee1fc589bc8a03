package dist

import (
	"math"
	"math/rand/v2"
)

// Dirichlet is the Dirichlet distribution with concentrations Alpha (all
// > 0, length K ≥ 1) on the open simplex: x_k > 0 and Σx = 1 within
// simplexTol. Its log density is
// log Γ(Σα) − Σ log Γ(α_k) + Σ (α_k − 1)·log x_k.
//
// Samples from small concentrations have components that underflow to 0
// (outside the open simplex); the engine should work with log x through
// GradLog and SampleDirichletLog.
type Dirichlet struct {
	Alpha []float64
}

// simplexTol is how far Σx may be from 1 (relative to the length K).
const simplexTol = 1e-9

// Dim returns K.
func (d Dirichlet) Dim() int { return len(d.Alpha) }

// LogProb returns the log density at x.
func (d Dirichlet) LogProb(x []float64) float64 { return d.Grad(nil, nil, x) }

// Grad returns the log density at x and writes its partials with respect to
// x and Alpha into dx and dalpha (length K; nil is skipped):
// dx_k = (α_k − 1)/x_k, the gradient in the ambient space (x_k treated as
// free), and dalpha_k = ψ(Σα) − ψ(α_k) + log x_k.
func (d Dirichlet) Grad(dx, dalpha, x []float64) float64 {
	return d.eval(dx, dalpha, x, false, true)
}

// GradLog is Grad at x = exp(logx), exact when components of x underflow:
// it returns the log density of x (not of log x: no Jacobian term) and
// writes dlogx_k = x_k·∂/∂x_k = α_k − 1 and dalpha.
func (d Dirichlet) GradLog(dlogx, dalpha, logx []float64) float64 {
	return d.eval(dlogx, dalpha, logx, true, true)
}

// eval is Grad (or GradLog when isLog); check=false skips the simplex test
// so that tests can take finite differences off the simplex.
func (d Dirichlet) eval(dx, dalpha, x []float64, isLog, check bool) float64 {
	k := len(d.Alpha)
	if k == 0 || len(x) != k || (dx != nil && len(dx) != k) || (dalpha != nil && len(dalpha) != k) {
		panic(errLength)
	}
	var a0 float64
	bad := false
	for i, a := range d.Alpha {
		a0 += a
		bad = bad || !positive(a) || math.IsNaN(x[i])
	}
	if bad {
		fillNaN(dx, dalpha)
		return math.NaN()
	}
	var sum float64
	in := true
	for _, v := range x {
		if isLog {
			in = in && v < math.Inf(1) && v > math.Inf(-1)
			sum += math.Exp(v)
		} else {
			in = in && v > 0 && v < math.Inf(1)
			sum += v
		}
	}
	if !in || (check && math.Abs(sum-1) > simplexTol*float64(k)) {
		clear(dx)
		clear(dalpha)
		return math.Inf(-1)
	}
	lp, _ := math.Lgamma(a0)
	var pa0 float64
	if dalpha != nil {
		pa0 = Digamma(a0)
	}
	for i, a := range d.Alpha {
		lg, _ := math.Lgamma(a)
		lx := x[i]
		if !isLog {
			lx = logx(x[i])
		}
		lp += (a-1)*lx - lg
		if dx != nil {
			if isLog {
				dx[i] = a - 1
			} else {
				dx[i] = (a - 1) / x[i]
			}
		}
		if dalpha != nil {
			dalpha[i] = pa0 - Digamma(a) + lx
		}
	}
	return lp
}

// Rand writes a draw into dst (allocated if nil) and returns it;
// components may underflow to 0 for small Alpha.
func (d Dirichlet) Rand(dst []float64, rng *rand.Rand) []float64 {
	dst = scoreDst(dst, len(d.Alpha))
	m := math.Inf(-1)
	for i, a := range d.Alpha {
		dst[i] = SampleGammaLog(a, rng)
		m = math.Max(m, dst[i])
	}
	var s float64
	for i, l := range dst {
		dst[i] = math.Exp(l - m)
		s += dst[i]
	}
	for i := range dst {
		dst[i] /= s
	}
	return dst
}

// Mean writes Alpha/ΣAlpha into dst (allocated if nil) and returns it.
func (d Dirichlet) Mean(dst []float64) []float64 {
	dst = scoreDst(dst, len(d.Alpha))
	var a0 float64
	for _, a := range d.Alpha {
		a0 += a
	}
	for i, a := range d.Alpha {
		dst[i] = a / a0
	}
	return dst
}
