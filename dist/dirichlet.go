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
	if a0 >= stirlingMin {
		return d.evalLarge(dx, dalpha, x, isLog)
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
			dx[i] = dxOf(a, x[i], isLog)
		}
		if dalpha != nil {
			dalpha[i] = pa0 - Digamma(a) + lx
		}
	}
	return lp
}

// dxOf is the partial with respect to x (or log x when isLog) of one
// component.
func dxOf(a, x float64, isLog bool) float64 {
	if isLog {
		return a - 1
	}
	return (a - 1) / x
}

// evalLarge is eval for valid α with α₀ = Σα ≥ stirlingMin, at a point
// inside the support. There log Γ(α₀) and the (α_k − 1)·log x_k, each about
// α₀·log α₀, cancel to a log density of order K·log α₀ (at α = 1e8 they
// left an error of 6e-7 on a log density of 19), and ψ(α₀) − ψ(α_k) + log x_k
// cancels to about 1/α_k near the mean. With Stirling's series for the
// log-gammas of α₀ and of each α_k ≥ stirlingMin, and m_k = α₀·x_k,
//
//	log p = Σ_k U_k − ½·log α₀ + ½·log 2π + corr(α₀),
//	U_k = −bd0(α_k, m_k) + (m_k − α_k) + ½·log α_k − ½·log 2π − corr(α_k) − log x_k,
//	U_k = α_k·log m_k − α_k − log Γ(α_k) − log x_k  (α_k < stirlingMin),
//
// where bd0 (Loader's deviance term) and m_k − α_k in one rounding keep
// the digits; Σ(m_k − α_k) = α₀·(Σx − 1) is the only sum that cancels, and
// its terms are each exact to a rounding of their own size. The rounding
// error of α₀ itself (which enters through ψ(α₀) ≈ log α₀ times α₀) is
// added back from a two-sum. Likewise ψ(α₀) − ψ(α_k) + log x_k =
// log(m_k/α_k) + asymp(α₀) − asymp(α_k), the log by log1p of
// (m_k − α_k)/α_k near the mean.
func (d Dirichlet) evalLarge(dx, dalpha, x []float64, isLog bool) float64 {
	var a0, lo float64
	for _, a := range d.Alpha {
		var e float64
		a0, e = twoSum(a0, a)
		lo += e
	}
	la0 := math.Log(a0)
	lp := lo - 0.5*la0 + lnSqrt2Pi + stirlingCorr(a0)
	asymp0 := digammaAsymp(a0)
	for i, a := range d.Alpha {
		var lx, xi float64
		if isLog {
			lx, xi = x[i], math.Exp(x[i])
		} else {
			lx, xi = logx(x[i]), x[i]
		}
		m := a0 * xi
		normal := m >= 0x1p-1022 && m < math.Inf(1)
		lm := la0 + lx // log m_k, also where m_k underflows
		if normal {
			lm = math.Log(m)
		}
		if a >= stirlingMin {
			t, lr := a*(lm-math.Log(a)), lm-math.Log(a) // lr = log(m_k/α_k)
			if normal {
				dm := math.FMA(a0, xi, -a) // m_k − α_k
				t = dm - bd0(a, m)
				if math.Abs(dm) < 0.5*a {
					lr = math.Log1p((dm + lo*xi) / a) // m_k from the unrounded α₀
				}
			}
			lp += t + 0.5*math.Log(a) - lnSqrt2Pi - stirlingCorr(a) - lx
			if dalpha != nil {
				dalpha[i] = lr + (asymp0 - digammaAsymp(a))
			}
		} else {
			lg, _ := math.Lgamma(a)
			lp += a*lm - a - lg - lx
			if dalpha != nil {
				dalpha[i] = lm + asymp0 - Digamma(a)
			}
		}
		if dx != nil {
			dx[i] = dxOf(a, x[i], isLog)
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
