package sgvb

import (
	"fmt"
	"math"
	"testing"

	"github.com/gpplang/gpp/dist"
	"gonum.org/v1/gonum/diff/fd"
)

// dirLinear is log p = Σ (a_k − 1) log z_k + Σ w_k z_k on the simplex
// (log coordinates): not conjugate to a Dirichlet q, yet its ELBO under
// Dirichlet(α) is closed-form (dirLinearELBO).
type dirLinear struct{ a, w []float64 }

func (t *dirLinear) LogJoint(x, grad []float64) (float64, error) {
	lp := 0.0
	for k := range x {
		e := math.Exp(x[k])
		lp += (t.a[k]-1)*x[k] + t.w[k]*e
		grad[k] = t.a[k] - 1 + t.w[k]*e
	}
	return lp, nil
}

func (t *dirLinear) Clone() Target { c := *t; return &c }

// dirLinearELBO is the exact ELBO of Dirichlet(e^th) for t: E[log z_k] =
// ψ(α_k) − ψ(α₀), E[z_k] = α_k/α₀, and the Dirichlet's entropy.
func dirLinearELBO(th []float64, t *dirLinear) float64 {
	al := make([]float64, len(th))
	a0 := 0.0
	for k := range th {
		al[k] = math.Exp(th[k])
		a0 += al[k]
	}
	e := -lgamma(a0) + (a0-float64(len(al)))*dist.Digamma(a0)
	for k, a := range al {
		e += (t.a[k]-1)*(dist.Digamma(a)-dist.Digamma(a0)) + t.w[k]*a/a0
		e += lgamma(a) - (a-1)*dist.Digamma(a)
	}
	return e
}

// The mean of the engine's gradient estimates of a mean-field Dirichlet
// factor of 100 components, 94 of them below 1 and 6 large (an R2-D2
// prior's phi on many predictors, 6 of them signals), is the finite
// difference gradient of the exact ELBO, with the default estimator (STL
// with control variates) and with the entropy's closed-form gradient: the
// implicit reparameterisation gradients hold at large K and small
// concentrations (docs/inference.md, R2-D2 on more predictors than rows).
func TestDirichletGradientLargeK(t *testing.T) {
	const k = 100
	tg := &dirLinear{a: make([]float64, k), w: make([]float64, k)}
	th0 := make([]float64, k)
	for i := range k {
		tg.a[i] = 0.5
		tg.w[i] = 30 * math.Sin(float64(i))
		th0[i] = math.Log(0.3 + 0.4*math.Abs(math.Cos(float64(3*i))))
	}
	for i := range 6 {
		th0[i] = math.Log(10 + 5*float64(i))
	}
	want := fd.Gradient(nil, func(th []float64) float64 { return dirLinearELBO(th, tg) }, th0, &fd.Settings{Formula: fd.Central, Step: 1e-6})
	lat := []Latent{{Name: "phi", Size: k, Shape: []int{k}, Support: dist.Simplex}}
	for _, est := range []Estimator{EstimatorAuto, Entropy} {
		s := Settings{Seed: 9, Estimator: est}.withDefaults()
		e, err := newEngine(tg, lat, &s)
		if err != nil {
			t.Fatal(err)
		}
		if len(e.theta) != k {
			t.Fatalf("%d parameters, want %d log concentrations", len(e.theta), k)
		}
		copy(e.theta, th0)
		checkMeanGrad(t, e, want, fmt.Sprint(est))
		e.close()
	}
}
