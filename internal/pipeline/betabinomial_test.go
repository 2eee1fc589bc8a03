package pipeline_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// TestBetaBinomialGroups fits a beta-binomial to 40 groups of 10 to 60
// trials each, simulated from it (one PCG stream seeded (2026, 19)), y ~
// BetaBinomial(n, mu * kappa, (1 - mu) * kappa), and checks the posterior
// means of the mean success probability and the precision against the
// truth within 3 posterior sds, and against the fit of the same model with
// its log mass written out (lchoose and lbeta) within half an sd.
func TestBetaBinomialGroups(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	const (
		groups           = 40
		mu, kappa        = 0.3, 12.0
		decls            = "data n: int<lower=0>[N]\ndata y: int<lower=0>[N]\nparam mu: unit ~ Beta(2, 2)\nparam kappa: positive ~ Gamma(2, 0.1)\n"
		bbModel          = decls + "y ~ BetaBinomial(n, mu * kappa, (1 - mu) * kappa)\n"
		writtenModel     = decls + "target += sum(lchoose(n, y) + lbeta(y + mu * kappa, n - y + (1 - mu) * kappa) - lbeta(mu * kappa, (1 - mu) * kappa))\n"
		sdFromTruth      = 3
		sdFromWrittenOut = 0.5
	)
	rng := rand.New(rand.NewPCG(2026, 19))
	var b bytes.Buffer
	b.WriteString("n,y\n")
	for range groups {
		n := float64(10 + rng.IntN(51))
		y := dist.BetaBinomial{N: n, A: mu * kappa, B: (1 - mu) * kappa}.Rand(rng)
		fmt.Fprintf(&b, "%d,%d\n", int(n), int(y))
	}
	fits := fitForms(t, b.String(), map[string]string{"bb": bbModel, "written": writtenModel})
	checkRecovered(t, "BetaBinomial", fits["bb"], fits["written"], map[string]float64{"mu": mu, "kappa": kappa}, sdFromTruth, sdFromWrittenOut)
}
