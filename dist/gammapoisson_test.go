package dist

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Gamma–Poisson conjugate checks of gamma_numerics.md §4.5 and §7 item 9,
// using only this package: y_i ~ Poisson(λ), λ ~ Gamma(α₀, β₀), and a
// Gamma(a, b) variational factor. (The SGVB convergence part of item 9
// belongs to the engine's tests.)

type gammaPoissonCase struct {
	y              []float64
	alpha0, beta0  float64
	logEvidence    float64 // log p(y), mpmath
	postA, postB   float64 // the posterior Gamma(α₀+Σy, β₀+n)
	elboOther      float64 // the ELBO at (otherA, otherB), mpmath; 0 if none
	otherA, otherB float64
}

var gammaPoissonCases = []gammaPoissonCase{
	{[]float64{3, 1, 4, 1, 5, 9, 2, 6}, 1, 1, -22.050493836453272, 32, 9, -55.725216526957081, 1, 1},
	{[]float64{0}, 0.01, 0.01, -0.046151205168412595, 0.01, 1.01, -4.0840880716493851, 1, 1},
	{[]float64{0, 0, 0, 0, 0}, 0.1, 1, -0.17917594692280551, 0.1, 6, 0, 0, 0},
}

// gammaPoissonELBO returns the analytic ELBO E_q[log p(y, λ)] + H(q) for
// q = Gamma(a, b), with the entropy H = a − log b + log Γ(a) + (1−a)ψ(a).
func gammaPoissonELBO(c gammaPoissonCase, a, b float64) float64 {
	elog := Digamma(a) - math.Log(b) // E_q[log λ]
	mean := a / b
	var e float64
	for _, y := range c.y {
		lg, _ := math.Lgamma(y + 1)
		e += y*elog - mean - lg
	}
	lg0, _ := math.Lgamma(c.alpha0)
	e += c.alpha0*math.Log(c.beta0) - lg0 + (c.alpha0-1)*elog - c.beta0*mean
	lga, _ := math.Lgamma(a)
	return e + a - math.Log(b) + lga + (1-a)*Digamma(a)
}

func TestGammaPoissonELBO(t *testing.T) {
	for i, c := range gammaPoissonCases {
		if got := gammaPoissonELBO(c, c.postA, c.postB); math.Abs(got-c.logEvidence) > 1e-12*math.Max(1, math.Abs(c.logEvidence)) {
			t.Errorf("case %d: ELBO at the posterior %.17g, log p(y) %.17g", i, got, c.logEvidence)
		}
		if c.elboOther != 0 {
			if got := gammaPoissonELBO(c, c.otherA, c.otherB); math.Abs(got-c.elboOther) > 1e-12*math.Abs(c.elboOther) {
				t.Errorf("case %d: ELBO at (%v, %v) = %.17g, want %.17g", i, c.otherA, c.otherB, got, c.elboOther)
			}
		}
	}
}

// TestGammaPoissonGradientMC: the single-sample reparameterisation estimate
// ĝ_a = f′(λ)·∂λ/∂a + 1 + (1−a)ψ₁(a), ĝ_b = f′(λ)·(−λ/b) − 1/b, with
// f′ assembled from Poisson.Score and Gamma.ScoreInput, has mean
// (42.992956072295, −23) at (a, b) = (1, 1) in case A.
func TestGammaPoissonGradientMC(t *testing.T) {
	const n = 100000
	c := gammaPoissonCases[0]
	a, b := 1.0, 1.0
	rng := rand.New(rand.NewPCG(51, 52))
	ga, gb := make([]float64, n), make([]float64, n)
	dp := make([]float64, 1)
	prior := Gamma{c.alpha0, c.beta0}
	for i := range ga {
		lam, dlda, dldb := SampleGamma(a, b, Implicit{}, rng)
		fp := prior.ScoreInput(lam)
		for _, y := range c.y {
			fp += Poisson{lam}.Score(dp, y)[0]
		}
		ga[i] = fp*dlda + 1 + (1-a)*Trigamma(a)
		gb[i] = fp*dldb - 1/b
	}
	checkMean(t, "E[ĝ_a]", ga, 42.992956072295)
	checkMean(t, "E[ĝ_b]", gb, -23)
}
