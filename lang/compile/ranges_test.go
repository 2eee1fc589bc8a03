package compile

import (
	"math"
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

// A bounded or unit param's value is kept inside its interval where the
// map from the coordinate rounds onto an end: at phi's coordinate ±40,
// −1 + 2·inv_logit(x) is ±1 in floats and 1 - phi * phi is 0, which made
// the AR(1)'s stationary start non-finite there, and a default fit ran
// into those draws (docs/inference.md). So with sigma - 0.1 at sigma's
// coordinate −40 (0.1 + e^−40 is 0.1). The log joint and its gradient are
// finite, and the gradient pushes phi back from the ends (at ±40; at 800
// it has underflowed to 0). A unit u is kept below 1, so 2 * u - 1 stays
// below 1 too; near 0 it rounds to −1 (a bounded param is the better way
// to write phi).
func TestBoundedValueInside(t *testing.T) {
	y := &data.Array{Name: "y", Shape: []int{5}, Values: []float64{0.3, -0.5, 0.1, 0.8, 0.4}}
	in := data.Input{File: "y.json", JSON: map[string]*data.Array{"y": y}}
	for _, c := range []struct {
		src string
		xs  [][]float64
	}{{`data y: real[T]
param phi: real<lower=-1, upper=1> ~ Uniform(-1, 1)
param sigma: real<lower=0.1> ~ HalfNormal(1)
y[0] ~ Normal(0, (sigma - 0.1) / sqrt(1 - phi * phi))
y[1:T] ~ Normal(phi * y[0:T-1], sigma - 0.1)
`, [][]float64{{40, 0}, {-40, 0}, {800, -40}, {-800, -40}, {0.5, -800}}}, {`data y: real[T]
param u: unit ~ Beta(2, 2)
param sigma: real<lower=0.1> ~ HalfNormal(1)
y[0] ~ Normal(0, (sigma - 0.1) / sqrt(1 - square(2 * u - 1)))
y[1:T] ~ Normal((2 * u - 1) * y[0:T-1], sigma - 0.1)
`, [][]float64{{40, 0}, {800, -40}, {0.5, -800}}}} {
		m := compileSrc(t, "ar.gpp", c.src, nil, in)
		grad := make([]float64, m.Dim)
		for _, x := range c.xs {
			lp, err := m.LogJoint(x, grad)
			if err != nil || math.IsNaN(lp) || math.IsInf(lp, 0) || !finiteAll(grad) {
				t.Errorf("%s at %v: log joint %v, gradient %v, error %v", m.Latents[0].Name, x, lp, grad, err)
				continue
			}
			if x[0] == 40 && grad[0] >= 0 || x[0] == -40 && grad[0] <= 0 {
				t.Errorf("%s at %v: gradient %v does not point inside", m.Latents[0].Name, x, grad)
			}
		}
	}
}

func finiteAll(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
