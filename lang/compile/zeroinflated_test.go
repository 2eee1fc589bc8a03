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

// The continuous hurdles and ZeroInflatedBinomial in the log joint, as
// TestZeroInflatedLogJoint: the dist structs summed over values with exact
// zeros (and counts of n trials), psi = inv_logit(t), the other arguments
// exp of real params or real params, one per value or broadcast; and
// their logcdf and logccdf (censored values), the dist kernels summed;
// and T[L, U] of a zero-inflated and a hurdle count, less the log mass of
// [L, U] from the log CDF.
func TestZeroInflatedMoreLogJoint(t *testing.T) {
	y := []float64{0, 3.5, 0, 0.25, 7, 0, 2}
	k := []float64{0, 3, 0, 1, 7, 0, 2}
	js, err := data.ReadJSON("d.json", strings.NewReader(`{"y": [0, 3.5, 0, 0.25, 7, 0, 2], "k": [0, 3, 0, 1, 7, 0, 2]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := data.Input{File: "d.json", JSON: js}
	const decls = "data y: real<lower=0>[7]\ndata k: int<lower=0>[7]\nparam t: real\nparam a: real\nparam b: real\nparam v: real[7]\n"
	ps := func(x []float64) float64 { return dist.InvLogit(x[0]) }
	sum := func(vals []float64, d func(x []float64, i int) interface{ LogProb(float64) float64 }) func(x []float64) float64 {
		return func(x []float64) float64 {
			var lp float64
			for i, v := range vals {
				lp += d(x, i).LogProb(v)
			}
			return lp
		}
	}
	// kernelSum sums a dist kernel (a log CDF's) over the values.
	kernelSum := func(kern dist.Kernel, vals []float64, args func(x []float64, i int) []float64) func(x []float64) float64 {
		return func(x []float64) float64 {
			var lp float64
			for i, v := range vals {
				p := args(x, i)
				l, _ := kern(v, p, make([]float64, len(p)))
				lp += l
			}
			return lp
		}
	}
	sfGamma, _ := dist.LogCDF("HurdleGamma", true)
	cdfZIB, _ := dist.LogCDF("ZeroInflatedBinomial", false)
	sfHNB, _ := dist.LogCDF("HurdleNegBinomial", true)
	cdfZIP, _ := dist.LogCDF("ZeroInflatedPoisson", false)
	for _, c := range []struct {
		name, src string
		want      func(x []float64) float64
	}{
		{"HurdleGamma", "y ~ HurdleGamma(inv_logit(t), exp(a), exp(v))\n",
			sum(y, func(x []float64, i int) interface{ LogProb(float64) float64 } {
				return dist.HurdleGamma{Psi: ps(x), Shape: math.Exp(x[1]), Rate: math.Exp(x[3+i])}
			})},
		{"HurdleLogNormal", "y ~ HurdleLogNormal(inv_logit(v), a, exp(b))\n",
			sum(y, func(x []float64, i int) interface{ LogProb(float64) float64 } {
				return dist.HurdleLogNormal{Psi: dist.InvLogit(x[3+i]), Mu: x[1], Sigma: math.Exp(x[2])}
			})},
		{"ZeroInflatedBinomial", "k ~ ZeroInflatedBinomial(inv_logit(t), 9, inv_logit(v))\n",
			sum(k, func(x []float64, i int) interface{ LogProb(float64) float64 } {
				return dist.ZeroInflatedBinomial{Psi: ps(x), N: 9, P: dist.InvLogit(x[3+i])}
			})},
		{"logccdf HurdleGamma", "target += sum(logccdf(y, HurdleGamma(inv_logit(t), exp(a), exp(v))))\n",
			kernelSum(sfGamma, y, func(x []float64, i int) []float64 { return []float64{ps(x), math.Exp(x[1]), math.Exp(x[3+i])} })},
		{"logcdf ZeroInflatedBinomial", "target += sum(logcdf(k, ZeroInflatedBinomial(inv_logit(t), 9, inv_logit(v))))\n",
			kernelSum(cdfZIB, k, func(x []float64, i int) []float64 { return []float64{ps(x), 9, dist.InvLogit(x[3+i])} })},
		{"logccdf HurdleNegBinomial", "target += sum(logccdf(k, HurdleNegBinomial(inv_logit(t), exp(v), exp(b))))\n",
			kernelSum(sfHNB, k, func(x []float64, i int) []float64 { return []float64{ps(x), math.Exp(x[3+i]), math.Exp(x[2])} })},
		// truncated: each term less log P(L ≤ X ≤ U), here F(8) for
		// [0, 8] and, for T[1, ] on a hurdle, P(X > 0) = psi
		{"ZeroInflatedPoisson T[0, 8]", "k ~ ZeroInflatedPoisson(inv_logit(t), exp(v)) T[0, 8]\n",
			func(x []float64) float64 {
				var lp float64
				for i, v := range k {
					d := dist.ZeroInflatedPoisson{Psi: ps(x), Rate: math.Exp(x[3+i])}
					l8, _ := cdfZIP(8, []float64{d.Psi, d.Rate}, make([]float64, 2))
					lp += d.LogProb(v) - l8
				}
				return lp
			}},
		{"HurdlePoisson T[1, ]", "k[3:5] ~ HurdlePoisson(inv_logit(t), exp(a)) T[1, ]\n",
			func(x []float64) float64 {
				var lp float64
				for _, v := range k[3:5] {
					if v > 0 {
						lp += dist.HurdlePoisson{Psi: ps(x), Rate: math.Exp(x[1])}.LogProb(v) - math.Log(ps(x))
					}
				}
				return lp
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkLogJoint(t, compileSrc(t, "zi.gpp", decls+c.src, nil, in), c.want, "dist", ziJointTol, 0.8)
		})
	}
}
