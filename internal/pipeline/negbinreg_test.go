package pipeline_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// TestNegBinomialLogRegression fits a negative binomial count regression on
// the log scale, y ~ NegBinomialLog(b0 + b1 * x, phi), to 300 counts
// simulated from it (one PCG stream seeded (2026, 17)), and checks the
// posterior means of the intercept, the slope and the dispersion against
// the truth within 3 posterior sds, and against the fit of the same model
// written NegBinomial(exp(b0 + b1 * x), phi) within half an sd.
func TestNegBinomialLogRegression(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	const (
		n               = 300
		b0, b1, phi     = 0.7, 0.8, 4.0
		decls           = "data x: real[N]\ndata y: int<lower=0>[N]\nparam b0: real ~ Normal(0, 2)\nparam b1: real ~ Normal(0, 2)\nparam phi: positive ~ Gamma(2, 0.1)\n"
		logModel        = decls + "y ~ NegBinomialLog(b0 + b1 * x, phi)\n"
		meanModel       = decls + "y ~ NegBinomial(exp(b0 + b1 * x), phi)\n"
		sdFromTruth     = 3
		sdFromMeanScale = 0.5
	)
	rng := rand.New(rand.NewPCG(2026, 17))
	var b bytes.Buffer
	b.WriteString("x,y\n")
	for range n {
		x := rng.NormFloat64()
		y := dist.NegBinomialLog{Eta: b0 + b1*x, Phi: phi}.Rand(rng)
		fmt.Fprintf(&b, "%.6f,%d\n", x, int(y))
	}
	fits := fitForms(t, b.String(), map[string]string{"log": logModel, "mean": meanModel})
	checkRecovered(t, "NegBinomialLog", fits["log"], fits["mean"], map[string]float64{"b0": b0, "b1": b1, "phi": phi}, sdFromTruth, sdFromMeanScale)
}
