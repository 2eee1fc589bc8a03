package sgvb

import (
	"errors"
	"math"
	"math/rand/v2"

	"github.com/gpplang/gpp/dist"
)

// gammaPoisson is y_i ~ Poisson(λ), λ ~ Gamma(α₀, β₀) in the log coordinate
// l = log λ, with every constant kept so that the ELBO is comparable with
// log p(y).
type gammaPoisson struct {
	y          []float64
	a0, b0     float64
	s, n, cnst float64
}

func newGammaPoisson(y []float64, a0, b0 float64) *gammaPoisson {
	g := &gammaPoisson{y: y, a0: a0, b0: b0, n: float64(len(y))}
	g.cnst = a0*math.Log(b0) - lgamma(a0)
	for _, v := range y {
		g.s += v
		g.cnst -= lgamma(v + 1)
	}
	return g
}

func (g *gammaPoisson) LogJoint(x, grad []float64) (float64, error) {
	l := x[0]
	e := math.Exp(l)
	m := g.n + g.b0
	grad[0] = g.s + g.a0 - 1 - m*e
	return (g.s+g.a0-1)*l - m*e + g.cnst, nil
}

func (g *gammaPoisson) Clone() Target { c := *g; return &c }

// posterior returns the exact posterior shape and rate.
func (g *gammaPoisson) posterior() (float64, float64) { return g.a0 + g.s, g.b0 + g.n }

// logEvidence returns log p(y).
func (g *gammaPoisson) logEvidence() float64 {
	a, b := g.posterior()
	return g.cnst + lgamma(a) - a*math.Log(b)
}

func (g *gammaPoisson) latents() []Latent {
	return []Latent{{Name: "lambda", Offset: 0, Size: 1, Shape: []int{}, Support: dist.Positive}}
}

// klGamma returns KL(Gamma(a1, b1) ‖ Gamma(a2, b2)), rates b.
func klGamma(a1, b1, a2, b2 float64) float64 {
	return (a1-a2)*dist.Digamma(a1) - lgamma(a1) + lgamma(a2) + a2*(math.Log(b1)-math.Log(b2)) + a1*(b2-b1)/b1
}

// normalNormal is y_i ~ N(μ, σ²) with σ known and μ ~ N(m₀, s₀²).
type normalNormal struct {
	y             []float64
	sigma, m0, s0 float64
}

func (t *normalNormal) LogJoint(x, grad []float64) (float64, error) {
	mu := x[0]
	lp := -0.5*(mu-t.m0)*(mu-t.m0)/(t.s0*t.s0) - math.Log(t.s0) - halfLog2Pi
	g := -(mu - t.m0) / (t.s0 * t.s0)
	for _, v := range t.y {
		r := (v - mu) / t.sigma
		lp += -0.5*r*r - math.Log(t.sigma) - halfLog2Pi
		g += r / t.sigma
	}
	grad[0] = g
	return lp, nil
}

func (t *normalNormal) Clone() Target { c := *t; return &c }

// posterior returns the exact posterior mean and sd.
func (t *normalNormal) posterior() (float64, float64) {
	prec := 1/(t.s0*t.s0) + float64(len(t.y))/(t.sigma*t.sigma)
	s := 0.0
	for _, v := range t.y {
		s += v
	}
	m := (t.m0/(t.s0*t.s0) + s/(t.sigma*t.sigma)) / prec
	return m, math.Sqrt(1 / prec)
}

// betaBernoulli is k successes in n trials with θ ~ Beta(α₀, β₀), in the
// coordinate logit θ.
type betaBernoulli struct{ a, b float64 } // posterior α, β

func (t *betaBernoulli) LogJoint(x, grad []float64) (float64, error) {
	u := x[0]
	lz, l1z := -softplus(-u), -softplus(u)
	z := sigmoid(u)
	grad[0] = (t.a-1)*(1-z) - (t.b-1)*z
	return (t.a-1)*lz + (t.b-1)*l1z - dist.LogBeta(t.a, t.b), nil // normalised: log p(y) = 0
}

func (t *betaBernoulli) Clone() Target { c := *t; return &c }

// dirichletCounts is counts ~ Multinomial(θ), θ ~ Dirichlet(α₀), for
// several independent simplex vectors, in the coordinates log θ_k; alpha
// holds the posterior parameters, and the density is normalised.
type dirichletCounts struct {
	alpha []float64
	k     int
}

func (t *dirichletCounts) LogJoint(x, grad []float64) (float64, error) {
	lp := 0.0
	for v := 0; v < len(x); v += t.k {
		a0 := 0.0
		for j := v; j < v+t.k; j++ {
			a := t.alpha[j]
			a0 += a
			lp += (a-1)*x[j] - lgamma(a)
			grad[j] = a - 1
		}
		lp += lgamma(a0)
	}
	return lp, nil
}

func (t *dirichletCounts) Clone() Target { c := *t; return &c }

// poissonGamma is the synthetic benchmark: n independent y_i ~ Poisson(λ_i),
// λ_i ~ Gamma(α₀, β₀), log coordinates.
type poissonGamma struct {
	y      []float64
	a0, b0 float64
}

func (t *poissonGamma) LogJoint(x, grad []float64) (float64, error) {
	lp := 0.0
	for i, l := range x {
		e := math.Exp(l)
		lp += (t.y[i]+t.a0-1)*l - (1+t.b0)*e
		grad[i] = t.y[i] + t.a0 - 1 - (1+t.b0)*e
	}
	return lp, nil
}

func (t *poissonGamma) Clone() Target { c := *t; return &c }

func newPoissonGamma(n int, a0, b0 float64) (*poissonGamma, []Latent) {
	t := &poissonGamma{y: make([]float64, n), a0: a0, b0: b0}
	for i := range t.y {
		t.y[i] = float64(i % 4)
	}
	return t, []Latent{{Name: "lambda", Offset: 0, Size: n, Shape: []int{n}, Support: dist.Positive}}
}

// unbounded has log p(x) = −x: no mode, L-BFGS runs towards −∞.
type unbounded struct{}

func (unbounded) LogJoint(x, grad []float64) (float64, error) {
	if math.IsInf(x[0], 0) || math.IsNaN(x[0]) {
		return math.NaN(), errors.New("x is not finite")
	}
	grad[0] = -1
	return -x[0], nil
}

func (u unbounded) Clone() Target { return u }

// logistic is a Bayesian logistic regression with an intercept and one
// slope, N(0, 5²) priors, on fixed synthetic data: a small non-conjugate
// posterior, so the one-draw gradient stays noisy at the optimum.
type logistic struct{ x, y []float64 }

func newLogistic(n int) *logistic {
	rng := rand.New(rand.NewPCG(7, 0))
	t := &logistic{x: make([]float64, n), y: make([]float64, n)}
	for i := range t.x {
		t.x[i] = rng.NormFloat64()
		if rng.Float64() < 1/(1+math.Exp(-(0.5+1.5*t.x[i]))) {
			t.y[i] = 1
		}
	}
	return t
}

func (t *logistic) LogJoint(x, grad []float64) (float64, error) {
	a, b := x[0], x[1]
	lp := -0.5*(a*a+b*b)/25 - 2*(math.Log(5)+halfLog2Pi)
	ga, gb := -a/25, -b/25
	for i, xi := range t.x {
		eta := a + b*xi
		// log σ(η) if y = 1, log σ(−η) if y = 0
		s := 2*t.y[i] - 1
		lp -= math.Log1p(math.Exp(-s * eta))
		r := t.y[i] - 1/(1+math.Exp(-eta))
		ga += r
		gb += r * xi
	}
	grad[0], grad[1] = ga, gb
	return lp, nil
}

func (t *logistic) Clone() Target { c := *t; return &c }

func (t *logistic) latents() []Latent {
	return []Latent{{Name: "beta", Size: 2, Shape: []int{2}, Support: dist.Real}}
}
