package pipeline_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// TestMultiStudentTFit fits a bivariate Student t, Y ~
// MultiStudentTCholesky(nu, mu', diag_pre_multiply(tau, L)), to 400 rows
// simulated from dist.MultiStudentT (one PCG stream seeded (2026, 29)),
// and checks the posterior means of the location, the scales, the
// correlation and the degrees of freedom against the truth within 3
// posterior sds, and against the fit of the same model written with the
// scale matrix, MultiStudentT(nu, mu', quad_form_diag(L * L', tau)),
// within half an sd.
func TestMultiStudentTFit(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	const (
		n              = 400
		nu             = 4.0
		mu0, mu1       = 1.0, -2.0
		tau0, tau1     = 1.5, 0.8
		rho            = 0.5
		decls          = "data Y: real[N, 2]\nparam nu: positive ~ Gamma(2, 0.1)\nparam mu: real[2] ~ Normal(0, 5)\nparam tau: positive[2] ~ HalfNormal(3)\nparam L: cholesky_factor_corr[2] ~ LKJCorrCholesky(2)\noutput rho = (L * L')[0, 1]\n"
		cholModel      = decls + "Y ~ MultiStudentTCholesky(nu, mu', diag_pre_multiply(tau, L))\n"
		sigmaModel     = decls + "Y ~ MultiStudentT(nu, mu', quad_form_diag(L * L', tau))\n"
		sdFromTruth    = 3
		sdFromCholForm = 0.5
	)
	rng := rand.New(rand.NewPCG(2026, 29))
	m := dist.MultiStudentT{Nu: nu, Mu: []float64{mu0, mu1},
		Sigma: []float64{tau0 * tau0, rho * tau0 * tau1, rho * tau0 * tau1, tau1 * tau1}}
	var b bytes.Buffer
	b.WriteString("Y.1,Y.2\n")
	y := make([]float64, 2)
	for range n {
		if _, err := m.Rand(y, nil, rng); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%.17g,%.17g\n", y[0], y[1])
	}
	fits := fitForms(t, b.String(), map[string]string{"chol": cholModel, "sigma": sigmaModel})
	checkRecovered(t, "MultiStudentT", fits["sigma"], fits["chol"],
		map[string]float64{"mu[1]": mu0, "mu[2]": mu1, "tau[1]": tau0, "tau[2]": tau1, "rho": rho, "nu": nu}, sdFromTruth, sdFromCholForm)
	// heavy tails are what the fit is for: the posterior of nu excludes the
	// nearly normal (nu ≥ 30)
	if r := fits["sigma"]["nu"]; !(r.mean+3*r.sd < 30) || math.IsNaN(r.mean) {
		t.Errorf("nu: posterior %.2f ± %.2f does not exclude 30", r.mean, r.sd)
	}
}
