package model

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/nuts"
	"gonum.org/v1/gonum/stat"
)

// fixedSigmas is how many standard errors a Monte Carlo estimate may be
// off its true value here.
const fixedSigmas = 4

// TestSampleFixedParam: Sample with FixedParam holds mu at Inits' value in
// every draw, and Outputs drawn at the draws (y ~ Normal(mu, 1)) have mean
// mu and sd 1 within Monte Carlo error; Inits that leave a param out are
// an error naming it.
func TestSampleFixedParam(t *testing.T) {
	m, err := Compile("fixed.gpp", []byte("param mu: real ~ Normal(0, 10)\noutput y ~ Normal(mu, 1)\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := SampleSettings()
	s.FixedParam, s.Draws = true, 500
	res, err := m.Sample(context.Background(), s, Inits(map[string]any{"mu": -2.5}))
	if err != nil {
		t.Fatal(err)
	}
	draws, err := m.SampleDraws(res)
	if err != nil {
		t.Fatal(err)
	}
	if len(draws) != nuts.DefaultChains*500 {
		t.Fatalf("%d draws, want %d", len(draws), nuts.DefaultChains*500)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var ys []float64
	for c, ch := range res.Chains {
		for i := range ch.LogP {
			if draws[c*500+i][0] != -2.5 || ch.LogP[i] != 0 {
				t.Fatalf("chain %d draw %d: mu %v lp %v, want -2.5 and 0", c+1, i+1, draws[c*500+i][0], ch.LogP[i])
			}
			y, err := m.Outputs(ch.Draws[i*res.Dim:(i+1)*res.Dim], rng)
			if err != nil {
				t.Fatal(err)
			}
			ys = append(ys, y[0])
		}
	}
	mean, sd := stat.MeanStdDev(ys, nil)
	n := float64(len(ys))
	if se := 1 / math.Sqrt(n); math.Abs(mean+2.5) > fixedSigmas*se {
		t.Errorf("y's mean %.4f, want -2.5 within %d × %.4f", mean, fixedSigmas, se)
	}
	if se := 1 / math.Sqrt(2*n); math.Abs(sd-1) > fixedSigmas*se {
		t.Errorf("y's sd %.4f, want 1 within %d × %.4f", sd, fixedSigmas, se)
	}

	m2, err := Compile("fixed2.gpp", []byte("param mu: real ~ Normal(0, 10)\nparam sigma: positive ~ Exponential(1)\noutput y ~ Normal(mu, sigma)\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = m2.Sample(context.Background(), s, Inits(map[string]any{"mu": 1}))
	if err == nil || !strings.Contains(err.Error(), "does not give sigma") {
		t.Errorf("partial Inits with FixedParam: got %v, want an error naming sigma", err)
	}
}

// TestSampleNoParams: a model with no params samples by the fixed_param
// sampler whatever the settings say: draws of no coordinates, at which
// Outputs draws the outputs afresh.
func TestSampleNoParams(t *testing.T) {
	m, err := Compile("sim.gpp", []byte("output y ~ Normal(4, 2)\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := SampleSettings()
	s.Chains, s.Draws = 2, 800
	res, err := m.Sample(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Dim != 0 || len(res.Chains) != 2 || len(res.Chains[1].LogP) != 800 {
		t.Fatalf("Dim %d, %d chains: want 0 coordinates, 2 chains of 800 draws", res.Dim, len(res.Chains))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var ys []float64
	for range 2 * 800 {
		y, err := m.Outputs(nil, rng)
		if err != nil {
			t.Fatal(err)
		}
		ys = append(ys, y[0])
	}
	mean, sd := stat.MeanStdDev(ys, nil)
	if se := 2 / math.Sqrt(float64(len(ys))); math.Abs(mean-4) > fixedSigmas*se {
		t.Errorf("y's mean %.4f, want 4 within %d × %.4f", mean, fixedSigmas, se)
	}
	if se := 2 / math.Sqrt(2*float64(len(ys))); math.Abs(sd-2) > fixedSigmas*se {
		t.Errorf("y's sd %.4f, want 2 within %d × %.4f", sd, fixedSigmas, se)
	}
}
