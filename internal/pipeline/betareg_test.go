package pipeline_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// TestBetaRegression fits a beta regression, y ~ BetaProportion(inv_logit(b0
// + b1 * x), kappa), to 300 observations simulated from it (one PCG stream
// seeded (2026, 13)), and checks the posterior means of the intercept, the
// slope and the precision against the truth within 3 posterior sds, and
// against the fit of the same model written with Beta's shapes (the
// kernel's path, where BetaProportion's is hoisted) within half an sd.
func TestBetaRegression(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	const (
		n              = 300
		b0, b1, kappa  = -0.5, 1.2, 15.0
		decls          = "data x: real[N]\ndata y: real<lower=0, upper=1>[N]\nparam b0: real ~ Normal(0, 2)\nparam b1: real ~ Normal(0, 2)\nparam kappa: positive ~ Gamma(2, 0.1)\nlet mu = inv_logit(b0 + b1 * x)\n"
		propModel      = decls + "y ~ BetaProportion(mu, kappa)\n"
		betaModel      = decls + "y ~ Beta(mu .* kappa, (1 - mu) .* kappa)\n"
		sdFromTruth    = 3
		sdFromBetaForm = 0.5
	)
	rng := rand.New(rand.NewPCG(2026, 13))
	var b bytes.Buffer
	b.WriteString("x,y\n")
	for range n {
		x := rng.NormFloat64()
		y := dist.BetaProportion{Mu: 1 / (1 + math.Exp(-(b0 + b1*x))), Kappa: kappa}.Rand(rng)
		fmt.Fprintf(&b, "%.6f,%.17g\n", x, y)
	}
	fits := fitForms(t, b.String(), map[string]string{"prop": propModel, "beta": betaModel})
	checkRecovered(t, "BetaProportion", fits["prop"], fits["beta"], map[string]float64{"b0": b0, "b1": b1, "kappa": kappa}, sdFromTruth, sdFromBetaForm)
}
