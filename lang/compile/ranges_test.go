package compile

import (
	"testing"

	"github.com/gpplang/gpp/data"
)

// An AR(1) with its stationary start, written as a Stan user would: the
// checker's intervals accept sigma / sqrt(1 - phi * phi) as an sd (phi is
// in (-1, 1)), and the log joint and gradient are those of the density
// written out with target +=.
func TestAR1StationaryStart(t *testing.T) {
	y := &data.Array{Name: "y", Shape: []int{5}, Values: []float64{0.3, -0.5, 0.1, 0.8, 0.4}}
	in := data.Input{File: "y.json", JSON: map[string]*data.Array{"y": y}}
	const head = `data y: real[T]
param u: unit ~ Beta(2, 2)
param sigma: positive ~ HalfNormal(1)
let phi = 2 * u - 1
y[1:T] ~ Normal(phi * y[0:T-1], sigma)
`
	m := compileSrc(t, "ar.gpp", head+"y[0] ~ Normal(0, sigma / sqrt(1 - phi * phi))\n", nil, in)
	ref := compileSrc(t, "ref.gpp", head+
		"target += -0.9189385332046727 - log(sigma) + 0.5 * log(1 - phi * phi) - 0.5 * square(y[0]) * (1 - phi * phi) / square(sigma)\n", nil, in)
	for _, x := range [][]float64{{0.3, -0.2}, {2.5, 0.7}, {-1.5, -1}} {
		sameLogJoint(t, m, ref, "the density written out", x, logJointTol, logJointTol)
	}
	checkGradient(t, m, 5, 0.8)
}

// Bounded params: the log joint's gradient through the maps from the
// factors' supports (L + (U − L)·b, L + b, U − b) and the truncated priors.
func TestBoundedParamGradient(t *testing.T) {
	m := compileSrc(t, "b.gpp", `param x: real<lower=-2, upper=3>[2] ~ Normal(0, 1)
param lam: real<lower=1> ~ Gamma(2, 1)
param d: real<upper=0> ~ Normal(0, 1)
target += x[0] * lam * d + square(x[1] - lam)
`, nil)
	if len(m.Latents) != 3 || m.Latents[0].Loc != -2 || m.Latents[0].Scale != 5 || m.Latents[1].Scale != 1 || m.Latents[2].Loc != 0 || m.Latents[2].Scale != -1 {
		t.Fatalf("latents %+v: want loc/scale -2/5, 1/1, 0/-1", m.Latents)
	}
	checkGradient(t, m, 6, 1)
}
