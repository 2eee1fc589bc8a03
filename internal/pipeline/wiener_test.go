package pipeline_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestWienerFit simulates 400 trials of a drift diffusion (an Euler walk
// of step 2e-5 s between 0 and alpha from beta·alpha, the time of the
// first crossing plus tau, and which boundary it crossed; PCG seeded
// (2026, 29)) and fits Wiener to both responses, the lower ones as
// Wiener(alpha, tau, 1 − beta, −delta): every posterior mean within 3
// posterior sds of the truth. The walk's overshoot moves the boundaries
// by about 0.58·√dt = 0.003, far inside the sds.
func TestWienerFit(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a model")
	}
	const (
		n                       = 400
		alpha, tau, beta, delta = 1.2, 0.3, 0.55, 0.8
		dt                      = 2e-5
		sdFromTruth             = 3
	)
	rng := rand.New(rand.NewPCG(2026, 29))
	sq := math.Sqrt(dt)
	var b bytes.Buffer
	b.WriteString("rt,upper\n")
	for range n {
		x, s := beta*alpha, 0.0
		for x > 0 && x < alpha {
			x += delta*dt + sq*rng.NormFloat64()
			s += dt
		}
		up := 0
		if x >= alpha {
			up = 1
		}
		fmt.Fprintf(&b, "%.17g,%d\n", tau+s, up)
	}
	src := `data rt: real[N]
data upper: int<lower=0, upper=1>[N]
param alpha: positive ~ LogNormal(0, 1)
param tau: real<lower=0, upper=min(rt)>  # flat on (0, min(rt)): tau below every reaction time
param beta: real<lower=0, upper=1> ~ Beta(2, 2)
param delta: real ~ Normal(0, 2)
let sign = 2 * upper - 1  # +1 for an upper response, -1 for a lower one
rt ~ Wiener(alpha, tau, inv_logit(sign * logit(beta)), sign * delta)  # 1 - beta, -delta for a lower one
`
	fit := fitForms(t, b.String(), map[string]string{"wiener": src})["wiener"]
	checkRecovered(t, "Wiener", fit, nil, map[string]float64{"alpha": alpha, "tau": tau, "beta": beta, "delta": delta}, sdFromTruth, 0)
}
