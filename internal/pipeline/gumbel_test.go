package pipeline_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// TestGumbelLogisticFit fits Gumbel(mu, beta) and Logistic(mu, sigma)
// location and scale to 300 points simulated from each (one PCG stream
// seeded (2026, 17)) and checks the posterior means against the truth
// within 3 posterior sds.
func TestGumbelLogisticFit(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	const (
		n           = 300
		mu, scale   = 1.5, 0.8
		sdFromTruth = 3
	)
	rng := rand.New(rand.NewPCG(2026, 17))
	for _, c := range []struct {
		name string
		draw func() float64
	}{
		{"Gumbel", func() float64 { return dist.Gumbel{Mu: mu, Beta: scale}.Rand(rng) }},
		{"Logistic", func() float64 { return dist.Logistic{Mu: mu, Sigma: scale}.Rand(rng) }},
	} {
		var b bytes.Buffer
		b.WriteString("y\n")
		for range n {
			fmt.Fprintf(&b, "%.17g\n", c.draw())
		}
		src := "data y: real[N]\nparam mu: real ~ Normal(0, 5)\nparam s: positive ~ HalfNormal(2)\ny ~ " + c.name + "(mu, s)\n"
		fit := fitForms(t, b.String(), map[string]string{c.name: src})[c.name]
		checkRecovered(t, c.name, fit, nil, map[string]float64{"mu": mu, "s": scale}, sdFromTruth, 0)
	}
}
