package compile

import (
	"math"
	"strings"
	"testing"

	"github.com/gpplang/gpp/data"
	"github.com/gpplang/gpp/dist"
)

// ziJointTol bounds the difference of the log joint of a zero-inflated or
// hurdle family from the dist struct's LogProb summed over the counts,
// relative to max(1, |value|).
const ziJointTol = 1e-12

// The zero-inflated and hurdle families in the log joint are the dist
// structs summed over the counts (zeros among them), with psi =
// inv_logit(t) and the rate, mean and dispersion exp of real params (no
// Jacobian), psi and the rate broadcast or one per count; the gradient
// matches finite differences and LogJoint does not allocate.
func TestZeroInflatedLogJoint(t *testing.T) {
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"y": [0, 3, 0, 1, 7, 0, 2]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: js}
	y := []float64{0, 3, 0, 1, 7, 0, 2}
	const decls = "data y: int<lower=0>[7]\nparam t: real\nparam a: real\nparam b: real\nparam v: real[7]\n"
	// x: t, a, b, v[7]
	sum := func(d func(x []float64, i int) interface{ LogProb(float64) float64 }) func(x []float64) float64 {
		return func(x []float64) float64 {
			var lp float64
			for i, k := range y {
				lp += d(x, i).LogProb(k)
			}
			return lp
		}
	}
	ps := func(x []float64) float64 { return dist.InvLogit(x[0]) }
	for _, c := range []struct {
		name, src string
		want      func(x []float64) float64
	}{
		{"ZeroInflatedPoisson", "y ~ ZeroInflatedPoisson(inv_logit(t), exp(a))\n",
			sum(func(x []float64, _ int) interface{ LogProb(float64) float64 } {
				return dist.ZeroInflatedPoisson{Psi: ps(x), Rate: math.Exp(x[1])}
			})},
		{"ZeroInflatedPoisson, a rate per count", "y ~ ZeroInflatedPoisson(inv_logit(t), exp(v))\n",
			sum(func(x []float64, i int) interface{ LogProb(float64) float64 } {
				return dist.ZeroInflatedPoisson{Psi: ps(x), Rate: math.Exp(x[3+i])}
			})},
		{"ZeroInflatedNegBinomial, psi per count", "y ~ ZeroInflatedNegBinomial(inv_logit(v), exp(a), exp(b))\n",
			sum(func(x []float64, i int) interface{ LogProb(float64) float64 } {
				return dist.ZeroInflatedNegBinomial{Psi: dist.InvLogit(x[3+i]), Mu: math.Exp(x[1]), Phi: math.Exp(x[2])}
			})},
		{"HurdlePoisson", "y ~ HurdlePoisson(inv_logit(t), exp(v))\n",
			sum(func(x []float64, i int) interface{ LogProb(float64) float64 } {
				return dist.HurdlePoisson{Psi: ps(x), Rate: math.Exp(x[3+i])}
			})},
		{"HurdleNegBinomial", "y ~ HurdleNegBinomial(inv_logit(t), exp(a), exp(b))\n",
			sum(func(x []float64, _ int) interface{ LogProb(float64) float64 } {
				return dist.HurdleNegBinomial{Psi: ps(x), Mu: math.Exp(x[1]), Phi: math.Exp(x[2])}
			})},
		{"logpdf", "target += sum(logpdf(y, HurdleNegBinomial(inv_logit(t), exp(v), exp(b))))\n",
			sum(func(x []float64, i int) interface{ LogProb(float64) float64 } {
				return dist.HurdleNegBinomial{Psi: ps(x), Mu: math.Exp(x[3+i]), Phi: math.Exp(x[2])}
			})},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkLogJoint(t, compileSrc(t, "zi.gpp", decls+c.src, nil, in), c.want, "dist", ziJointTol, 0.8)
		})
	}
}
