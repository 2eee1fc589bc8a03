package dist

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/stat/distuv"
)

// Tolerances of the distribution tests.
const (
	partialTol   = 1e-6  // analytic partial vs central finite difference, relative to max(1, |partial|)
	gonumLogTol  = 1e-12 // LogProb vs gonum's distuv, relative to max(1, |log p|)
	massSumTol   = 1e-10 // Σ_k p(k) = 1 and exact moments of the discrete families
	momentDraws  = 40000 // draws per moment test
	chiSqMinP    = 1e-4  // chi-square goodness of fit of the discrete samplers
	fdRelStep    = 1e-5  // finite-difference step, relative to max(1, |v|)
	randPoints   = 6     // random evaluation points per family
	univariateNo = 60    // families in the registry
)

// uniDist is the method set every scalar family shares.
type uniDist interface {
	LogProb(x float64) float64
	Score(dst []float64, x float64) []float64
	Rand(rng *rand.Rand) float64
	Mean() float64
	Variance() float64
}

// uniCase describes a family for the table-driven tests.
type uniCase struct {
	name     string
	newDist  func(p []float64) uniDist
	params   func(rng *rand.Rand) []float64            // random valid parameters
	value    func(p []float64, rng *rand.Rand) float64 // random value inside the support
	gonum    func(p []float64) func(x float64) float64 // reference log density, or nil
	moments  [][]float64                               // parameter sets for the Rand test
	intParam int                                       // index of an integer parameter (partial 0), or −1
	allInt   bool                                      // every parameter is an integer (Hypergeometric)
}

// wienerNoRand is Wiener as a uniDist: it has no sampler, mean or
// variance (the registry's Rand is nil), which no test with moments asks
// of it.
type wienerNoRand struct{ Wiener }

func (wienerNoRand) Rand(*rand.Rand) float64 { panic("Wiener has no sampler") }
func (wienerNoRand) Mean() float64           { panic("Wiener has no mean") }
func (wienerNoRand) Variance() float64       { panic("Wiener has no variance") }

func unif(rng *rand.Rand, lo, hi float64) float64 { return lo + (hi-lo)*rng.Float64() }

func poissonDraw(lam float64, rng *rand.Rand) float64 { return samplePoisson(lam, rng) }

var uniCases = []uniCase{
	{
		name: "Normal", newDist: func(p []float64) uniDist { return Normal{p[0], p[1]} },
		params: func(r *rand.Rand) []float64 { return []float64{unif(r, -3, 3), unif(r, 0.2, 3)} },
		value:  func(p []float64, r *rand.Rand) float64 { return p[0] + p[1]*unif(r, -3, 3) },
		gonum: func(p []float64) func(float64) float64 {
			return distuv.Normal{Mu: p[0], Sigma: p[1]}.LogProb
		},
		moments: [][]float64{{1.5, 0.7}}, intParam: -1,
	},
	{
		name: "HalfNormal", newDist: func(p []float64) uniDist { return HalfNormal{p[0]} },
		params: func(r *rand.Rand) []float64 { return []float64{unif(r, 0.2, 3)} },
		value:  func(p []float64, r *rand.Rand) float64 { return p[0] * unif(r, 0.05, 3) },
		gonum: func(p []float64) func(float64) float64 {
			return func(x float64) float64 { return distuv.Normal{Mu: 0, Sigma: p[0]}.LogProb(x) + math.Ln2 }
		},
		moments: [][]float64{{2}}, intParam: -1,
	},
	{
		name: "Cauchy", newDist: func(p []float64) uniDist { return Cauchy{p[0], p[1]} },
		params: func(r *rand.Rand) []float64 { return []float64{unif(r, -3, 3), unif(r, 0.2, 3)} },
		value:  func(p []float64, r *rand.Rand) float64 { return p[0] + p[1]*unif(r, -10, 10) },
		gonum: func(p []float64) func(float64) float64 {
			return distuv.StudentsT{Mu: p[0], Sigma: p[1], Nu: 1}.LogProb
		},
		intParam: -1,
	},
	{
		name: "HalfCauchy", newDist: func(p []float64) uniDist { return HalfCauchy{p[0]} },
		params: func(r *rand.Rand) []float64 { return []float64{unif(r, 0.2, 3)} },
		value:  func(p []float64, r *rand.Rand) float64 { return p[0] * unif(r, 0.05, 10) },
		gonum: func(p []float64) func(float64) float64 {
			return func(x float64) float64 { return distuv.StudentsT{Sigma: p[0], Nu: 1}.LogProb(x) + math.Ln2 }
		},
		intParam: -1,
	},
	{
		name: "StudentT", newDist: func(p []float64) uniDist { return StudentT{p[0], p[1], p[2]} },
		params: func(r *rand.Rand) []float64 { return []float64{unif(r, 0.5, 30), unif(r, -3, 3), unif(r, 0.2, 3)} },
		value:  func(p []float64, r *rand.Rand) float64 { return p[1] + p[2]*unif(r, -6, 6) },
		gonum: func(p []float64) func(float64) float64 {
			return distuv.StudentsT{Nu: p[0], Mu: p[1], Sigma: p[2]}.LogProb
		},
		moments: [][]float64{{9, -1, 2}}, intParam: -1,
	},
	{
		name: "Laplace", newDist: func(p []float64) uniDist { return Laplace{p[0], p[1]} },
		params: func(r *rand.Rand) []float64 { return []float64{unif(r, -3, 3), unif(r, 0.2, 3)} },
		value:  func(p []float64, r *rand.Rand) float64 { return p[0] + p[1]*unif(r, -6, 6) },
		gonum: func(p []float64) func(float64) float64 {
			return distuv.Laplace{Mu: p[0], Scale: p[1]}.LogProb
		},
		moments: [][]float64{{-1, 1.5}}, intParam: -1,
	},
	{
		name: "LogNormal", newDist: func(p []float64) uniDist { return LogNormal{p[0], p[1]} },
		params: func(r *rand.Rand) []float64 { return []float64{unif(r, -2, 2), unif(r, 0.2, 1.5)} },
		value:  func(p []float64, r *rand.Rand) float64 { return math.Exp(p[0] + p[1]*unif(r, -3, 3)) },
		gonum: func(p []float64) func(float64) float64 {
			return distuv.LogNormal{Mu: p[0], Sigma: p[1]}.LogProb
		},
		moments: [][]float64{{0.3, 0.4}}, intParam: -1,
	},
	{
		name: "Exponential", newDist: func(p []float64) uniDist { return Exponential{p[0]} },
		params: func(r *rand.Rand) []float64 { return []float64{unif(r, 0.2, 5)} },
		value:  func(p []float64, r *rand.Rand) float64 { return unif(r, 0.01, 4) / p[0] },
		gonum: func(p []float64) func(float64) float64 {
			return distuv.Exponential{Rate: p[0]}.LogProb
		},
		moments: [][]float64{{2.5}}, intParam: -1,
	},
	{
		name: "Gamma", newDist: func(p []float64) uniDist { return Gamma{p[0], p[1]} },
		params: func(r *rand.Rand) []float64 { return []float64{unif(r, 0.1, 20), unif(r, 0.2, 5)} },
		value:  func(p []float64, r *rand.Rand) float64 { return unif(r, 0.05, 3) * (p[0] + 1) / p[1] },
		gonum: func(p []float64) func(float64) float64 {
			return distuv.Gamma{Alpha: p[0], Beta: p[1]}.LogProb
		},
		moments: [][]float64{{0.3, 2}, {4, 0.5}}, intParam: -1,
	},
	{
		name: "InvGamma", newDist: func(p []float64) uniDist { return InvGamma{p[0], p[1]} },
		params: func(r *rand.Rand) []float64 { return []float64{unif(r, 0.1, 20), unif(r, 0.2, 5)} },
		value:  func(p []float64, r *rand.Rand) float64 { return unif(r, 0.05, 3) * p[1] / p[0] },
		gonum: func(p []float64) func(float64) float64 {
			return distuv.InverseGamma{Alpha: p[0], Beta: p[1]}.LogProb
		},
		moments: [][]float64{{9, 3}}, intParam: -1,
	},
	{
		name: "Weibull", newDist: func(p []float64) uniDist { return Weibull{p[0], p[1]} },
		params: func(r *rand.Rand) []float64 { return []float64{unif(r, 0.3, 6), unif(r, 0.2, 5)} },
		value:  func(p []float64, r *rand.Rand) float64 { return p[1] * unif(r, 0.02, 2.5) },
		gonum: func(p []float64) func(float64) float64 {
			return distuv.Weibull{K: p[0], Lambda: p[1]}.LogProb
		},
		moments: [][]float64{{0.6, 2}, {1, 1.5}, {3.5, 0.8}, {40, 3}}, intParam: -1,
	},
	{
		name: "Beta", newDist: func(p []float64) uniDist { return Beta{p[0], p[1]} },
		params: func(r *rand.Rand) []float64 { return []float64{unif(r, 0.1, 10), unif(r, 0.1, 10)} },
		value:  func(p []float64, r *rand.Rand) float64 { return unif(r, 0.02, 0.98) },
		gonum: func(p []float64) func(float64) float64 {
			return distuv.Beta{Alpha: p[0], Beta: p[1]}.LogProb
		},
		moments: [][]float64{{0.2, 0.5}, {3, 7}}, intParam: -1,
	},
	{
		name: "BetaProportion", newDist: func(p []float64) uniDist { return BetaProportion{p[0], p[1]} },
		params: func(r *rand.Rand) []float64 { return []float64{unif(r, 0.05, 0.95), unif(r, 0.2, 40)} },
		value:  func(p []float64, r *rand.Rand) float64 { return unif(r, 0.02, 0.98) },
		gonum: func(p []float64) func(float64) float64 {
			return distuv.Beta{Alpha: p[0] * p[1], Beta: (1 - p[0]) * p[1]}.LogProb
		},
		moments: [][]float64{{0.3, 0.7}, {0.8, 10}, {0.02, 500}}, intParam: -1,
	},
	{
		name: "Uniform", newDist: func(p []float64) uniDist { return Uniform{p[0], p[1]} },
		params: func(r *rand.Rand) []float64 { lo := unif(r, -3, 3); return []float64{lo, lo + unif(r, 0.5, 4)} },
		value:  func(p []float64, r *rand.Rand) float64 { return p[0] + (p[1]-p[0])*unif(r, 0.05, 0.95) },
		gonum: func(p []float64) func(float64) float64 {
			return distuv.Uniform{Min: p[0], Max: p[1]}.LogProb
		},
		moments: [][]float64{{-1, 3}}, intParam: -1,
	},
	{
		name: "Logistic", newDist: func(p []float64) uniDist { return Logistic{p[0], p[1]} },
		params: func(r *rand.Rand) []float64 { return []float64{unif(r, -3, 3), unif(r, 0.2, 3)} },
		value:  func(p []float64, r *rand.Rand) float64 { return p[0] + p[1]*unif(r, -8, 8) },
		gonum: func(p []float64) func(float64) float64 {
			// distuv.Logistic.LogProb (v0.17) ignores Mu and S: the standard one at z
			return func(x float64) float64 { return distuv.Logistic{S: 1}.LogProb((x-p[0])/p[1]) - math.Log(p[1]) }
		},
		moments: [][]float64{{-1, 1.5}}, intParam: -1,
	},
	{
		name: "Gumbel", newDist: func(p []float64) uniDist { return Gumbel{p[0], p[1]} },
		params: func(r *rand.Rand) []float64 { return []float64{unif(r, -3, 3), unif(r, 0.2, 3)} },
		value:  func(p []float64, r *rand.Rand) float64 { return p[0] + p[1]*unif(r, -2, 8) },
		gonum: func(p []float64) func(float64) float64 {
			return distuv.GumbelRight{Mu: p[0], Beta: p[1]}.LogProb
		},
		moments: [][]float64{{2, 0.8}}, intParam: -1,
	},
	{
		name: "ChiSquare", newDist: func(p []float64) uniDist { return ChiSquare{p[0]} },
		params: func(r *rand.Rand) []float64 { return []float64{unif(r, 0.3, 30)} },
		value:  func(p []float64, r *rand.Rand) float64 { return unif(r, 0.05, 3) * (p[0] + 1) },
		gonum: func(p []float64) func(float64) float64 {
			return distuv.ChiSquared{K: p[0]}.LogProb
		},
		moments: [][]float64{{0.7}, {9}}, intParam: -1,
	},
	{
		name: "InvChiSquare", newDist: func(p []float64) uniDist { return InvChiSquare{p[0]} },
		params: func(r *rand.Rand) []float64 { return []float64{unif(r, 0.3, 30)} },
		value:  func(p []float64, r *rand.Rand) float64 { return unif(r, 0.05, 3) / (p[0] + 1) },
		gonum: func(p []float64) func(float64) float64 {
			return distuv.InverseGamma{Alpha: p[0] / 2, Beta: 0.5}.LogProb
		},
		moments: [][]float64{{14}}, intParam: -1,
	},
	{
		name: "ScaledInvChiSquare", newDist: func(p []float64) uniDist { return ScaledInvChiSquare{p[0], p[1]} },
		params: func(r *rand.Rand) []float64 { return []float64{unif(r, 0.3, 30), unif(r, 0.2, 3)} },
		value:  func(p []float64, r *rand.Rand) float64 { return unif(r, 0.05, 3) * p[1] * p[1] },
		gonum: func(p []float64) func(float64) float64 {
			return distuv.InverseGamma{Alpha: p[0] / 2, Beta: p[0] * p[1] * p[1] / 2}.LogProb
		},
		moments: [][]float64{{14, 1.7}}, intParam: -1,
	},
	{
		name: "Rayleigh", newDist: func(p []float64) uniDist { return Rayleigh{p[0]} },
		params: func(r *rand.Rand) []float64 { return []float64{unif(r, 0.2, 3)} },
		value:  func(p []float64, r *rand.Rand) float64 { return p[0] * unif(r, 0.05, 4) },
		gonum: func(p []float64) func(float64) float64 {
			return func(x float64) float64 { return distuv.Weibull{K: 2, Lambda: math.Sqrt2 * p[0]}.LogProb(x) }
		},
		moments: [][]float64{{1.3}}, intParam: -1,
	},
	{
		name: "Pareto", newDist: func(p []float64) uniDist { return Pareto{p[0], p[1]} },
		params: func(r *rand.Rand) []float64 { return []float64{unif(r, 0.2, 3), unif(r, 0.3, 8)} },
		value:  func(p []float64, r *rand.Rand) float64 { return p[0] * unif(r, 1.01, 20) },
		gonum: func(p []float64) func(float64) float64 {
			return distuv.Pareto{Xm: p[0], Alpha: p[1]}.LogProb
		},
		moments: [][]float64{{1.5, 9}}, intParam: -1,
	},
	{
		name: "ParetoType2", newDist: func(p []float64) uniDist { return ParetoType2{p[0], p[1], p[2]} },
		params:  func(r *rand.Rand) []float64 { return []float64{unif(r, -3, 3), unif(r, 0.2, 3), unif(r, 0.3, 8)} },
		value:   func(p []float64, r *rand.Rand) float64 { return p[0] + p[1]*unif(r, 0.01, 20) },
		moments: [][]float64{{-1, 2, 10}}, intParam: -1,
	},
	{
		name: "Frechet", newDist: func(p []float64) uniDist { return Frechet{p[0], p[1]} },
		params:  func(r *rand.Rand) []float64 { return []float64{unif(r, 0.3, 8), unif(r, 0.2, 3)} },
		value:   func(p []float64, r *rand.Rand) float64 { return p[1] * unif(r, 0.2, 10) },
		moments: [][]float64{{9, 1.5}}, intParam: -1,
	},
	{
		name: "GEV", newDist: func(p []float64) uniDist { return GEV{p[0], p[1], p[2]} },
		params: func(r *rand.Rand) []float64 { return []float64{unif(r, -3, 3), unif(r, 0.2, 3), unif(r, -0.6, 0.6)} },
		// L = log1p(ξz)/ξ in (−2, 4): inside the support whatever ξ's sign
		value:   func(p []float64, r *rand.Rand) float64 { return p[0] + p[1]*expm1Over(unif(r, -2, 4), p[2]) },
		moments: [][]float64{{100, 25, 0.15}, {0, 1, 0}, {1, 2, -0.3}, {-2, 0.5, 1e-9}}, intParam: -1,
	},
	{
		name: "GeneralizedPareto", newDist: func(p []float64) uniDist { return GeneralizedPareto{p[0], p[1], p[2]} },
		params:  func(r *rand.Rand) []float64 { return []float64{unif(r, -3, 3), unif(r, 0.2, 3), unif(r, -0.6, 0.6)} },
		value:   func(p []float64, r *rand.Rand) float64 { return p[0] + p[1]*expm1Over(unif(r, 0.02, 5), p[2]) },
		moments: [][]float64{{0, 1, 0.15}, {2, 3, 0}, {-1, 2, -0.4}, {0, 1, -1e-9}}, intParam: -1,
	},
	{
		name: "LogLogistic", newDist: func(p []float64) uniDist { return LogLogistic{p[0], p[1]} },
		params:  func(r *rand.Rand) []float64 { return []float64{unif(r, 0.2, 3), unif(r, 0.3, 8)} },
		value:   func(p []float64, r *rand.Rand) float64 { return p[0] * unif(r, 0.02, 10) },
		moments: [][]float64{{2, 9}}, intParam: -1,
	},
	{
		name: "SkewNormal", newDist: func(p []float64) uniDist { return SkewNormal{p[0], p[1], p[2]} },
		params:  func(r *rand.Rand) []float64 { return []float64{unif(r, -3, 3), unif(r, 0.2, 3), unif(r, -6, 6)} },
		value:   func(p []float64, r *rand.Rand) float64 { return p[0] + p[1]*unif(r, -3, 3) },
		moments: [][]float64{{1, 2, 4}, {-1, 0.5, -0.7}}, intParam: -1,
	},
	{
		name: "ExpModNormal", newDist: func(p []float64) uniDist { return ExpModNormal{p[0], p[1], p[2]} },
		params:  func(r *rand.Rand) []float64 { return []float64{unif(r, -3, 3), unif(r, 0.2, 3), unif(r, 0.2, 5)} },
		value:   func(p []float64, r *rand.Rand) float64 { return p[0] + p[1]*unif(r, -4, 4) + unif(r, 0, 3)/p[2] },
		moments: [][]float64{{1, 0.5, 0.8}, {-2, 2, 5}}, intParam: -1,
	},
	{
		// no moments: Variance is the circular one (TestVonMisesRand)
		name: "VonMises", newDist: func(p []float64) uniDist { return VonMises{p[0], p[1]} },
		params:   func(r *rand.Rand) []float64 { return []float64{unif(r, -3, 3), unif(r, 0.05, 60)} },
		value:    func(p []float64, r *rand.Rand) float64 { return p[0] + unif(r, -3, 3) },
		intParam: -1,
	},
	{
		// no moments: Variance is the circular one (TestWrappedCauchyRand)
		name: "WrappedCauchy", newDist: func(p []float64) uniDist { return WrappedCauchy{p[0], p[1]} },
		params:   func(r *rand.Rand) []float64 { return []float64{unif(r, -3, 3), unif(r, 0, 0.97)} },
		value:    func(p []float64, r *rand.Rand) float64 { return p[0] + unif(r, -3, 3) },
		intParam: -1,
	},
	{
		name: "SkewDoubleExponential", newDist: func(p []float64) uniDist { return SkewDoubleExponential{p[0], p[1], p[2]} },
		params:  func(r *rand.Rand) []float64 { return []float64{unif(r, -3, 3), unif(r, 0.2, 3), unif(r, 0.05, 0.95)} },
		value:   func(p []float64, r *rand.Rand) float64 { return p[0] + p[1]*unif(r, -8, 8) },
		moments: [][]float64{{-1, 1.5, 0.2}, {2, 0.5, 0.5}, {0, 1, 0.93}}, intParam: -1,
	},
	{
		name: "Wald", newDist: func(p []float64) uniDist { return Wald{p[0], p[1]} },
		params:  func(r *rand.Rand) []float64 { return []float64{unif(r, 0.2, 5), unif(r, 0.1, 20)} },
		value:   func(p []float64, r *rand.Rand) float64 { return p[0] * math.Exp(unif(r, -2, 1.5)) },
		moments: [][]float64{{1, 3}, {2.5, 0.4}, {0.3, 50}, {4, 1e4}}, intParam: -1,
	},
	{
		name: "Kumaraswamy", newDist: func(p []float64) uniDist { return Kumaraswamy{p[0], p[1]} },
		params:  func(r *rand.Rand) []float64 { return []float64{unif(r, 0.2, 8), unif(r, 0.2, 8)} },
		value:   func(p []float64, r *rand.Rand) float64 { return unif(r, 0.02, 0.98) },
		moments: [][]float64{{2, 5}, {0.5, 0.5}, {7, 1.3}}, intParam: -1,
	},
	{
		name: "LogitNormal", newDist: func(p []float64) uniDist { return LogitNormal{p[0], p[1]} },
		params:  func(r *rand.Rand) []float64 { return []float64{unif(r, -3, 3), unif(r, 0.2, 3)} },
		value:   func(p []float64, r *rand.Rand) float64 { return InvLogit(p[0] + p[1]*unif(r, -3, 3)) },
		moments: [][]float64{{0, 1}, {-1.5, 0.4}, {2, 2.5}}, intParam: -1,
	},
	{
		name: "AsymmetricLaplace", newDist: func(p []float64) uniDist { return AsymmetricLaplace{p[0], p[1], p[2]} },
		params:  func(r *rand.Rand) []float64 { return []float64{unif(r, 0.2, 5), unif(r, 0.2, 5), unif(r, -3, 3)} },
		value:   func(p []float64, r *rand.Rand) float64 { return p[2] + unif(r, -6, 6)/p[0] },
		moments: [][]float64{{1, 1, 0}, {2, 0.5, 1}, {0.7, 3, -2}}, intParam: -1,
	},
	{
		name: "Moyal", newDist: func(p []float64) uniDist { return Moyal{p[0], p[1]} },
		params:  func(r *rand.Rand) []float64 { return []float64{unif(r, -3, 3), unif(r, 0.2, 3)} },
		value:   func(p []float64, r *rand.Rand) float64 { return p[0] + p[1]*unif(r, -3, 12) },
		moments: [][]float64{{0, 1}, {2, 0.3}}, intParam: -1,
	},
	{
		name: "Rice", newDist: func(p []float64) uniDist { return Rice{p[0], p[1]} },
		params:  func(r *rand.Rand) []float64 { return []float64{unif(r, 0, 6), unif(r, 0.2, 3)} },
		value:   func(p []float64, r *rand.Rand) float64 { return p[0] + p[1]*unif(r, 0.05, 4) },
		moments: [][]float64{{0, 1}, {1, 1}, {5, 0.5}, {40, 2}}, intParam: -1,
	},
	{
		// no moments, no sampler: the density of the upper responses only
		name: "Wiener", newDist: func(p []float64) uniDist { return wienerNoRand{Wiener{p[0], p[1], p[2], p[3]}} },
		params: func(r *rand.Rand) []float64 {
			return []float64{unif(r, 0.5, 3), unif(r, 0, 0.5), unif(r, 0.05, 0.95), unif(r, -4, 4)}
		},
		value:    func(p []float64, r *rand.Rand) float64 { return p[1] + p[0]*p[0]*unif(r, 0.02, 3) },
		intParam: -1,
	},
	{
		name: "Poisson", newDist: func(p []float64) uniDist { return Poisson{p[0]} },
		params: func(r *rand.Rand) []float64 { return []float64{unif(r, 0.2, 50)} },
		value:  func(p []float64, r *rand.Rand) float64 { return poissonDraw(p[0], r) },
		gonum: func(p []float64) func(float64) float64 {
			return distuv.Poisson{Lambda: p[0]}.LogProb
		},
		moments: [][]float64{{0.7}, {5}, {30}, {1000}}, intParam: -1,
	},
	{
		name: "PoissonLog", newDist: func(p []float64) uniDist { return PoissonLog{p[0]} },
		params: func(r *rand.Rand) []float64 { return []float64{unif(r, -2, 4)} },
		value:  func(p []float64, r *rand.Rand) float64 { return poissonDraw(math.Exp(p[0]), r) },
		gonum: func(p []float64) func(float64) float64 {
			return distuv.Poisson{Lambda: math.Exp(p[0])}.LogProb
		},
		moments: [][]float64{{-0.4}, {2}, {7}}, intParam: -1,
	},
	{
		name: "Bernoulli", newDist: func(p []float64) uniDist { return Bernoulli{p[0]} },
		params: func(r *rand.Rand) []float64 { return []float64{unif(r, 0.05, 0.95)} },
		value:  func(p []float64, r *rand.Rand) float64 { return math.Floor(unif(r, 0, 2)) },
		gonum: func(p []float64) func(float64) float64 {
			return distuv.Bernoulli{P: p[0]}.LogProb
		},
		moments: [][]float64{{0.3}}, intParam: -1,
	},
	{
		name: "BernoulliLogit", newDist: func(p []float64) uniDist { return BernoulliLogit{p[0]} },
		params: func(r *rand.Rand) []float64 { return []float64{unif(r, -5, 5)} },
		value:  func(p []float64, r *rand.Rand) float64 { return math.Floor(unif(r, 0, 2)) },
		gonum: func(p []float64) func(float64) float64 {
			return distuv.Bernoulli{P: InvLogit(p[0])}.LogProb
		},
		moments: [][]float64{{-0.8}}, intParam: -1,
	},
	{
		name: "Binomial", newDist: func(p []float64) uniDist { return Binomial{p[0], p[1]} },
		params: func(r *rand.Rand) []float64 { return []float64{math.Floor(unif(r, 1, 200)), unif(r, 0.05, 0.95)} },
		value:  func(p []float64, r *rand.Rand) float64 { return sampleBinomial(p[0], p[1], r) },
		gonum: func(p []float64) func(float64) float64 {
			return distuv.Binomial{N: p[0], P: p[1]}.LogProb
		},
		moments: [][]float64{{10, 0.3}, {100, 0.4}, {1000, 0.02}, {500, 0.9}, {50, 0.5}, {3, 0.999}}, intParam: 0,
	},
	{
		name: "BinomialLogit", newDist: func(p []float64) uniDist { return BinomialLogit{p[0], p[1]} },
		params: func(r *rand.Rand) []float64 { return []float64{math.Floor(unif(r, 1, 200)), unif(r, -4, 4)} },
		value:  func(p []float64, r *rand.Rand) float64 { return sampleBinomial(p[0], InvLogit(p[1]), r) },
		gonum: func(p []float64) func(float64) float64 {
			return distuv.Binomial{N: p[0], P: InvLogit(p[1])}.LogProb
		},
		moments: [][]float64{{10, -0.8}, {200, 1.5}, {1000, -4}, {40, 6}}, intParam: 0,
	},
	{
		name: "BetaBinomial", newDist: func(p []float64) uniDist { return BetaBinomial{p[0], p[1], p[2]} },
		params: func(r *rand.Rand) []float64 {
			return []float64{float64(r.IntN(40)), unif(r, 0.2, 20), unif(r, 0.2, 20)}
		},
		value:   func(p []float64, r *rand.Rand) float64 { return float64(r.IntN(int(p[0]) + 1)) },
		moments: [][]float64{{10, 0.5, 0.5}, {40, 3, 7}, {200, 60, 30}, {5, 1e4, 2e4}}, intParam: 0,
	},
	{
		name: "Hypergeometric", newDist: func(p []float64) uniDist { return Hypergeometric{p[0], p[1], p[2]} },
		params: func(r *rand.Rand) []float64 {
			a, b := float64(r.IntN(30)), float64(r.IntN(30))
			return []float64{float64(r.IntN(int(a+b) + 1)), a, b}
		},
		value: func(p []float64, r *rand.Rand) float64 {
			return Hypergeometric{p[0], p[1], p[2]}.Rand(r)
		},
		moments: [][]float64{{10, 20, 15}, {40, 30, 100}, {1, 3, 4}}, intParam: 0, allInt: true,
	},
	{
		name: "BetaNegBinomial", newDist: func(p []float64) uniDist { return BetaNegBinomial{p[0], p[1], p[2]} },
		params: func(r *rand.Rand) []float64 { return []float64{unif(r, 0.2, 20), unif(r, 0.5, 20), unif(r, 0.2, 20)} },
		value: func(p []float64, r *rand.Rand) float64 {
			return BetaNegBinomial{p[0], p[1], p[2]}.Rand(r)
		},
		moments: [][]float64{{3, 12, 4}, {0.7, 30, 10}, {50, 9, 0.5}}, intParam: -1,
	},
	{
		name: "NegBinomial", newDist: func(p []float64) uniDist { return NegBinomial{p[0], p[1]} },
		params: func(r *rand.Rand) []float64 { return []float64{unif(r, 0.2, 40), unif(r, 0.2, 20)} },
		value: func(p []float64, r *rand.Rand) float64 {
			return NegBinomial{p[0], p[1]}.Rand(r)
		},
		moments: [][]float64{{3, 0.5}, {20, 5}, {7, 1e4}}, intParam: -1,
	},
	{
		name: "NegBinomialLog", newDist: func(p []float64) uniDist { return NegBinomialLog{p[0], p[1]} },
		params: func(r *rand.Rand) []float64 { return []float64{unif(r, -1.5, 3.7), unif(r, 0.2, 20)} },
		value: func(p []float64, r *rand.Rand) float64 {
			return NegBinomialLog{p[0], p[1]}.Rand(r)
		},
		moments: [][]float64{{1.1, 0.5}, {3, 5}, {-2, 1e4}}, intParam: -1,
	},
	{
		name: "ZeroInflatedPoisson", newDist: func(p []float64) uniDist { return ZeroInflatedPoisson{p[0], p[1]} },
		params: func(r *rand.Rand) []float64 { return []float64{unif(r, 0.02, 0.98), unif(r, 0.1, 30)} },
		value: func(p []float64, r *rand.Rand) float64 {
			return ZeroInflatedPoisson{p[0], p[1]}.Rand(r)
		},
		moments: [][]float64{{0.7, 3}, {0.1, 0.4}, {0.95, 40}, {1, 2}}, intParam: -1,
	},
	{
		name: "ZeroInflatedNegBinomial", newDist: func(p []float64) uniDist { return ZeroInflatedNegBinomial{p[0], p[1], p[2]} },
		params: func(r *rand.Rand) []float64 {
			return []float64{unif(r, 0.02, 0.98), unif(r, 0.1, 30), unif(r, 0.2, 20)}
		},
		value: func(p []float64, r *rand.Rand) float64 {
			return ZeroInflatedNegBinomial{p[0], p[1], p[2]}.Rand(r)
		},
		moments: [][]float64{{0.7, 3, 0.5}, {0.4, 20, 5}, {0.9, 0.2, 1e3}}, intParam: -1,
	},
	{
		name: "HurdlePoisson", newDist: func(p []float64) uniDist { return HurdlePoisson{p[0], p[1]} },
		params: func(r *rand.Rand) []float64 { return []float64{unif(r, 0.02, 0.98), unif(r, 0.05, 30)} },
		value: func(p []float64, r *rand.Rand) float64 {
			return HurdlePoisson{p[0], p[1]}.Rand(r)
		},
		moments: [][]float64{{0.7, 3}, {0.5, 0.2}, {0.95, 40}, {0.8, 1e-3}}, intParam: -1,
	},
	{
		name: "HurdleNegBinomial", newDist: func(p []float64) uniDist { return HurdleNegBinomial{p[0], p[1], p[2]} },
		params: func(r *rand.Rand) []float64 {
			return []float64{unif(r, 0.02, 0.98), unif(r, 0.05, 30), unif(r, 0.2, 20)}
		},
		value: func(p []float64, r *rand.Rand) float64 {
			return HurdleNegBinomial{p[0], p[1], p[2]}.Rand(r)
		},
		moments: [][]float64{{0.7, 3, 0.5}, {0.4, 20, 5}, {0.6, 0.3, 2}, {0.8, 1e-3, 1}}, intParam: -1,
	},
	{
		name: "ZeroInflatedBinomial", newDist: func(p []float64) uniDist { return ZeroInflatedBinomial{p[0], p[1], p[2]} },
		params: func(r *rand.Rand) []float64 {
			return []float64{unif(r, 0.02, 0.98), math.Floor(unif(r, 1, 60)), unif(r, 0.02, 0.98)}
		},
		value: func(p []float64, r *rand.Rand) float64 {
			return ZeroInflatedBinomial{p[0], p[1], p[2]}.Rand(r)
		},
		moments: [][]float64{{0.7, 10, 0.3}, {0.4, 200, 0.05}, {0.9, 3, 0.95}, {1, 12, 0.5}}, intParam: 1,
	},
	{
		name: "HurdleGamma", newDist: func(p []float64) uniDist { return HurdleGamma{p[0], p[1], p[2]} },
		params: func(r *rand.Rand) []float64 {
			return []float64{unif(r, 0.02, 0.98), unif(r, 0.3, 20), unif(r, 0.2, 5)}
		},
		// the positive part: the partials in the value are tested there
		value:   func(p []float64, r *rand.Rand) float64 { return Gamma{p[1], p[2]}.Rand(r) },
		moments: [][]float64{{0.7, 2, 1}, {0.3, 0.5, 4}, {0.95, 30, 0.2}, {1, 3, 2}}, intParam: -1,
	},
	{
		name: "HurdleLogNormal", newDist: func(p []float64) uniDist { return HurdleLogNormal{p[0], p[1], p[2]} },
		params: func(r *rand.Rand) []float64 {
			return []float64{unif(r, 0.02, 0.98), unif(r, -3, 3), unif(r, 0.1, 1.5)}
		},
		value:   func(p []float64, r *rand.Rand) float64 { return LogNormal{p[1], p[2]}.Rand(r) },
		moments: [][]float64{{0.7, 0, 0.5}, {0.3, 2, 0.2}, {0.95, -1, 0.8}, {1, 1, 0.3}}, intParam: -1,
	},
	{
		name: "Geometric", newDist: func(p []float64) uniDist { return Geometric{p[0]} },
		params:  func(r *rand.Rand) []float64 { return []float64{unif(r, 0.02, 0.98)} },
		value:   func(p []float64, r *rand.Rand) float64 { return Geometric{p[0]}.Rand(r) },
		moments: [][]float64{{0.3}, {0.9}, {0.02}}, intParam: -1,
	},
	// DiscreteUniform and Skellam take negative values, which
	// TestDiscreteMass's sum from 0 would miss: their masses, moments and
	// draws are checked in discretefamilies_test.go.
	{
		name: "DiscreteUniform", newDist: func(p []float64) uniDist { return DiscreteUniform{p[0], p[1]} },
		params: func(r *rand.Rand) []float64 {
			lo := math.Floor(unif(r, -20, 20))
			return []float64{lo, lo + math.Floor(unif(r, 0, 30))}
		},
		value:  func(p []float64, r *rand.Rand) float64 { return DiscreteUniform{p[0], p[1]}.Rand(r) },
		allInt: true, intParam: -1,
	},
	{
		name: "Skellam", newDist: func(p []float64) uniDist { return Skellam{p[0], p[1]} },
		params:   func(r *rand.Rand) []float64 { return []float64{unif(r, 0.1, 40), unif(r, 0.1, 40)} },
		value:    func(p []float64, r *rand.Rand) float64 { return Skellam{p[0], p[1]}.Rand(r) },
		intParam: -1,
	},
	{
		name: "DiscreteWeibull", newDist: func(p []float64) uniDist { return DiscreteWeibull{p[0], p[1]} },
		params:  func(r *rand.Rand) []float64 { return []float64{unif(r, 0.05, 0.95), unif(r, 0.3, 4)} },
		value:   func(p []float64, r *rand.Rand) float64 { return DiscreteWeibull{p[0], p[1]}.Rand(r) },
		moments: [][]float64{{0.5, 1}, {0.9, 0.8}, {0.2, 3}}, intParam: -1,
	},
}

func TestRegistryMatchesCases(t *testing.T) {
	want := []string{"Normal", "HalfNormal", "Cauchy", "HalfCauchy", "StudentT", "Laplace", "LogNormal",
		"Exponential", "Gamma", "InvGamma", "Weibull", "Beta", "BetaProportion", "Uniform",
		"Logistic", "Gumbel", "ChiSquare", "InvChiSquare", "ScaledInvChiSquare", "Rayleigh", "Pareto",
		"ParetoType2", "Frechet", "GEV", "GeneralizedPareto", "LogLogistic", "SkewNormal", "ExpModNormal", "VonMises", "WrappedCauchy", "SkewDoubleExponential",
		"Wald", "Kumaraswamy", "LogitNormal", "AsymmetricLaplace", "Moyal", "Rice", "Wiener", "Poisson", "PoissonLog", "Bernoulli",
		"BernoulliLogit", "Binomial", "BinomialLogit", "BetaBinomial", "Hypergeometric", "BetaNegBinomial", "NegBinomial", "NegBinomialLog",
		"ZeroInflatedPoisson", "ZeroInflatedNegBinomial", "HurdlePoisson", "HurdleNegBinomial",
		"ZeroInflatedBinomial", "HurdleGamma", "HurdleLogNormal",
		"Geometric", "DiscreteUniform", "Skellam", "DiscreteWeibull"}
	if len(Univariates) != univariateNo || len(uniCases) != univariateNo {
		t.Fatalf("%d families registered, %d tested, want %d", len(Univariates), len(uniCases), univariateNo)
	}
	for i, u := range Univariates {
		if u.Name != want[i] || uniCases[i].name != want[i] {
			t.Errorf("family %d is %q (test case %q), want %q", i, u.Name, uniCases[i].name, want[i])
		}
		if got, ok := LookupUnivariate(u.Name); !ok || got != u {
			t.Errorf("LookupUnivariate(%q) failed", u.Name)
		}
		if u.Doc == "" || strings.Contains(u.Doc, "\n") || u.Kernel == nil || (u.Rand == nil) != (u.Name == "Wiener") {
			t.Errorf("%s: missing Doc, Kernel or Rand", u.Name)
			continue
		}
		p := uniCases[i].params(rand.New(rand.NewPCG(1, uint64(i))))
		if len(p) != len(u.Params) {
			t.Errorf("%s: %d params registered, the struct takes %d", u.Name, len(u.Params), len(p))
		}
		// Rand is the struct's sampler with the parameters in order
		r1, r2 := rand.New(rand.NewPCG(2, uint64(i))), rand.New(rand.NewPCG(2, uint64(i)))
		d := uniCases[i].newDist(p)
		for k := 0; k < 5 && u.Rand != nil; k++ {
			if got, want := u.Rand(p, r1), d.Rand(r2); got != want {
				t.Errorf("%s%v: Rand draw %d = %g, the struct's %g", u.Name, p, k, got, want)
			}
		}
		_, cont := uniCases[i].newDist(p).(interface{ ScoreInput(float64) float64 })
		if cont == u.Support.Discrete() {
			t.Errorf("%s: ScoreInput present = %v but support %v", u.Name, cont, u.Support)
		}
	}
	if _, ok := LookupUnivariate("Norm"); ok {
		t.Error("LookupUnivariate found a family that does not exist")
	}
	// Supports named in the brief and the language reference.
	supp := map[string]Support{
		"HalfNormal": NonNegative, "HalfCauchy": NonNegative, "Exponential": NonNegative,
		"Gamma": Positive, "Beta": Unit, "BetaProportion": Unit, "Uniform": Interval, "Poisson": Count, "NegBinomial": Count,
		"Bernoulli": Binary, "BernoulliLogit": Binary, "Binomial": BoundedCount, "Normal": Real,
		"Laplace": Real, "Weibull": Positive, "PoissonLog": Count, "BinomialLogit": BoundedCount,
		"NegBinomialLog": Count, "BetaBinomial": BoundedCount, "HurdleGamma": NonNegative,
		"HurdleLogNormal": NonNegative, "ZeroInflatedBinomial": BoundedCount,
	}
	for name, s := range supp {
		if u, _ := LookupUnivariate(name); u.Support != s {
			t.Errorf("%s: support %v, want %v", name, u.Support, s)
		}
	}
	g, _ := LookupUnivariate("Gamma")
	if g.Params[0] != (Param{"shape", Positive}) || g.Params[1] != (Param{"rate", Positive}) {
		t.Errorf("Gamma params %v", g.Params)
	}
	b, _ := LookupUnivariate("Binomial")
	if b.Params[0] != (Param{"n", Count}) || b.Params[1] != (Param{"p", Unit}) {
		t.Errorf("Binomial params %v", b.Params)
	}
	bl, _ := LookupUnivariate("BinomialLogit")
	if bl.Params[0] != (Param{"n", Count}) || bl.Params[1] != (Param{"eta", Real}) {
		t.Errorf("BinomialLogit params %v", bl.Params)
	}
}

// TestUnivariatePartials checks every analytic partial (Score, ScoreInput and
// the kernel's dp and dx) against central finite differences of LogProb at
// random points, and the kernel against the struct methods.
func TestUnivariatePartials(t *testing.T) {
	for i, c := range uniCases {
		u := Univariates[i]
		rng := rand.New(rand.NewPCG(11, uint64(i)))
		for range randPoints {
			p := c.params(rng)
			x := c.value(p, rng)
			d := c.newDist(p)
			dp := make([]float64, len(p))
			lp, dx := u.Kernel(x, p, dp)
			if lp != d.LogProb(x) || math.IsInf(lp, 0) || math.IsNaN(lp) {
				t.Errorf("%s%v at %v: kernel %v, LogProb %v", c.name, p, x, lp, d.LogProb(x))
				continue
			}
			score := d.Score(nil, x)
			for j := range p {
				if score[j] != dp[j] {
					t.Errorf("%s: Score[%d] = %v, kernel dp = %v", c.name, j, score[j], dp[j])
				}
				if j == c.intParam || c.allInt {
					if dp[j] != 0 {
						t.Errorf("%s: partial in integer parameter %d = %v, want 0", c.name, j, dp[j])
					}
					continue
				}
				f := func(v float64) float64 {
					q := append([]float64(nil), p...)
					q[j] = v
					return c.newDist(q).LogProb(x)
				}
				want := fd.Derivative(f, p[j], &fd.Settings{Formula: fd.Central, Step: fdRelStep * math.Max(1, math.Abs(p[j]))})
				if e := math.Abs(dp[j]-want) / math.Max(1, math.Abs(dp[j])); !(e <= partialTol) {
					t.Errorf("%s%v at x=%v: ∂/∂p[%d] = %.10g, finite difference %.10g", c.name, p, x, j, dp[j], want)
				}
			}
			si, cont := d.(interface{ ScoreInput(float64) float64 })
			if !cont {
				if dx != 0 {
					t.Errorf("%s: discrete kernel dx = %v", c.name, dx)
				}
				continue
			}
			if si.ScoreInput(x) != dx {
				t.Errorf("%s: ScoreInput %v, kernel dx %v", c.name, si.ScoreInput(x), dx)
			}
			if c.name == "Uniform" {
				continue // piecewise constant: dx = 0
			}
			want := fd.Derivative(d.LogProb, x, &fd.Settings{Formula: fd.Central, Step: fdRelStep * math.Max(1e-3, math.Min(1, math.Abs(x)))})
			if e := math.Abs(dx-want) / math.Max(1, math.Abs(dx)); !(e <= partialTol) {
				t.Errorf("%s%v: ∂/∂x at %v = %.10g, finite difference %.10g", c.name, p, x, dx, want)
			}
		}
	}
}

// TestUnivariateAgainstGonum compares LogProb with gonum's distuv (or, for
// the half and Cauchy families, with Student's t at one degree of freedom).
func TestUnivariateAgainstGonum(t *testing.T) {
	for i, c := range uniCases {
		if c.gonum == nil {
			continue
		}
		rng := rand.New(rand.NewPCG(12, uint64(i)))
		for range 20 {
			p := c.params(rng)
			x := c.value(p, rng)
			got, want := c.newDist(p).LogProb(x), c.gonum(p)(x)
			if e := math.Abs(got-want) / math.Max(1, math.Abs(want)); !(e <= gonumLogTol) {
				t.Errorf("%s%v at %v: LogProb %.17g, gonum %.17g", c.name, p, x, got, want)
			}
		}
	}
}

// TestDiscreteMass checks that the discrete families' masses sum to 1 and
// give their stated mean and variance (NegBinomial has no gonum reference).
func TestDiscreteMass(t *testing.T) {
	for _, c := range uniCases {
		for _, p := range c.moments {
			u, _ := LookupUnivariate(c.name)
			if !u.Support.Discrete() {
				continue
			}
			d := c.newDist(p)
			mean := d.Mean() // DiscreteWeibull's sums a series: once, not per k
			var s, m1, m2 float64
			for k := 0.0; k < 1e5; k++ {
				pk := math.Exp(d.LogProb(k))
				s += pk
				m1 += k * pk
				m2 += k * k * pk
				if k > 10*mean+100 && pk < 1e-300 {
					break
				}
			}
			v := m2 - m1*m1
			if math.Abs(s-1) > massSumTol || math.Abs(m1-d.Mean()) > massSumTol*math.Max(1, d.Mean()) ||
				math.Abs(v-d.Variance()) > 1e-8*math.Max(1, d.Variance()) {
				t.Errorf("%s%v: Σp = %.15g, mean %.12g (want %.12g), variance %.12g (want %.12g)",
					c.name, p, s, m1, d.Mean(), v, d.Variance())
			}
		}
	}
}

// TestUnivariateRand checks each sampler's mean and variance within mcSE
// standard errors, and for the Cauchy families (no moments) two quantiles.
func TestUnivariateRand(t *testing.T) {
	x := make([]float64, momentDraws)
	for i, c := range uniCases {
		rng := rand.New(rand.NewPCG(13, uint64(i)))
		for _, p := range c.moments {
			d := c.newDist(p)
			for j := range x {
				x[j] = d.Rand(rng)
			}
			name := c.name + ftoa(p[0])
			checkMean(t, name+" mean", x, d.Mean())
			checkVariance(t, name+" variance", x, d.Variance())
		}
	}
	// Cauchy(1, 2): P(X ≤ 1) = ½, P(X ≤ 3) = ¾; HalfCauchy(2): P(X ≤ 2) = ½.
	rng := rand.New(rand.NewPCG(14, 0))
	ind := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	med, q3, hm := make([]float64, momentDraws), make([]float64, momentDraws), make([]float64, momentDraws)
	for j := range med {
		v := Cauchy{1, 2}.Rand(rng)
		med[j], q3[j] = ind(v <= 1), ind(v <= 3)
		hm[j] = ind(HalfCauchy{2}.Rand(rng) <= 2)
	}
	checkMean(t, "Cauchy median", med, 0.5)
	checkMean(t, "Cauchy upper quartile", q3, 0.75)
	checkMean(t, "HalfCauchy median", hm, 0.5)
}

// TestDiscreteSamplersChiSquare tests the Poisson (inversion and PTRS),
// binomial (inversion and BTRS) and negative binomial samplers against their
// masses with a chi-square goodness-of-fit test.
func TestDiscreteSamplersChiSquare(t *testing.T) {
	const n = 50000
	rng := rand.New(rand.NewPCG(15, 16))
	for _, c := range []struct {
		name string
		d    uniDist
	}{
		{"Poisson(0.7)", Poisson{0.7}}, {"Poisson(9.9)", Poisson{9.9}}, {"Poisson(10)", Poisson{10}},
		{"Poisson(37)", Poisson{37}}, {"Poisson(2500)", Poisson{2500}},
		{"Binomial(20, 0.3)", Binomial{20, 0.3}}, {"Binomial(100, 0.4)", Binomial{100, 0.4}},
		{"Binomial(1000, 0.02)", Binomial{1000, 0.02}}, {"Binomial(300, 0.93)", Binomial{300, 0.93}},
		{"Binomial(1e6, 0.5)", Binomial{1e6, 0.5}},
		{"NegBinomial(3, 0.5)", NegBinomial{3, 0.5}}, {"NegBinomial(40, 4)", NegBinomial{40, 4}},
		{"BetaNegBinomial(2, 9, 3)", BetaNegBinomial{2, 9, 3}}, {"BetaNegBinomial(0.5, 12, 6)", BetaNegBinomial{0.5, 12, 6}},
	} {
		counts := map[float64]int{}
		for range n {
			counts[c.d.Rand(rng)]++
		}
		// Bins of at least 20 expected draws, from the mode outwards by
		// merging tails into the end bins.
		m := math.Floor(c.d.Mean())
		sd := math.Sqrt(c.d.Variance())
		lo, hi := math.Max(0, math.Floor(m-8*sd-10)), math.Ceil(m+12*sd+10)
		var chi2 float64
		var bins int
		var obs, exp float64
		for k := lo; k <= hi; k++ {
			obs += float64(counts[k])
			exp += n * math.Exp(c.d.LogProb(k))
			if exp >= 20 {
				chi2 += (obs - exp) * (obs - exp) / exp
				bins++
				obs, exp = 0, 0
			}
		}
		var outside int
		for k, v := range counts {
			if k < lo || k > hi {
				outside += v
			}
		}
		if outside > 0 {
			t.Errorf("%s: %d draws outside [%v, %v]", c.name, outside, lo, hi)
		}
		p := distuv.ChiSquared{K: float64(bins - 1)}.Survival(chi2)
		if p < chiSqMinP {
			t.Errorf("%s: chi-square %.1f on %d bins, p = %.2e", c.name, chi2, bins, p)
		}
	}
}

// TestUnivariateConventions: a value outside the support gives −Inf with zero
// partials; an invalid parameter or a NaN value gives NaN.
func TestUnivariateConventions(t *testing.T) {
	nan := math.NaN()
	outsideCases := []struct {
		name string
		p    []float64
		x    float64
	}{
		{"Normal", []float64{0, 1}, math.Inf(1)},
		{"HalfNormal", []float64{1}, -0.1},
		{"HalfCauchy", []float64{1}, -1e-300},
		{"LogNormal", []float64{0, 1}, 0},
		{"Exponential", []float64{1}, -1},
		{"Gamma", []float64{0.5, 1}, 0},
		{"Gamma", []float64{2, 1}, -3},
		{"InvGamma", []float64{2, 1}, 0},
		{"Beta", []float64{2, 3}, 1},
		{"Beta", []float64{0.5, 3}, 0},
		{"Uniform", []float64{0, 1}, 1.5},
		{"Poisson", []float64{3}, 1.5},
		{"Poisson", []float64{3}, -1},
		{"Bernoulli", []float64{0.3}, 2},
		{"BernoulliLogit", []float64{0.3}, 0.5},
		{"Binomial", []float64{5, 0.3}, 6},
		{"Binomial", []float64{5, 0}, 1},
		{"PoissonLog", []float64{1}, 1.5},
		{"PoissonLog", []float64{1}, -1},
		{"PoissonLog", []float64{710}, 3}, // e^710 overflows: log mass below −MaxFloat64
		{"BinomialLogit", []float64{5, 0.3}, 6},
		{"BinomialLogit", []float64{5, 0.3}, 2.5},
		{"BinomialLogit", []float64{5, math.Inf(-1)}, 1},
		{"BinomialLogit", []float64{5, math.Inf(1)}, 4},
		{"NegBinomial", []float64{3, 2}, 2.5},
		{"Laplace", []float64{0, 1}, math.Inf(-1)},
		{"Weibull", []float64{0.5, 1}, 0},
		{"Weibull", []float64{2, 1}, -1},
		{"Weibull", []float64{2, 1}, math.Inf(1)},
	}
	for _, c := range outsideCases {
		u, _ := LookupUnivariate(c.name)
		dp := make([]float64, len(c.p))
		for i := range dp {
			dp[i] = 7 // must be cleared
		}
		lp, dx := u.Kernel(c.x, c.p, dp)
		if !math.IsInf(lp, -1) || dx != 0 {
			t.Errorf("%s%v at %v: (%v, %v), want (−Inf, 0)", c.name, c.p, c.x, lp, dx)
		}
		for _, v := range dp {
			if v != 0 {
				t.Errorf("%s%v at %v: partials %v, want zeros", c.name, c.p, c.x, dp)
				break
			}
		}
	}
	// Values on a support's edge that are inside it.
	for _, c := range []struct {
		name string
		p    []float64
		x    float64
	}{
		{"HalfNormal", []float64{1}, 0}, {"HalfCauchy", []float64{1}, 0}, {"Exponential", []float64{2}, 0},
		{"Uniform", []float64{0, 1}, 0}, {"Uniform", []float64{0, 1}, 1}, {"Poisson", []float64{3}, 0},
		{"Binomial", []float64{5, 0}, 0}, {"Binomial", []float64{5, 1}, 5}, {"Bernoulli", []float64{1}, 1},
		{"PoissonLog", []float64{-800}, 0}, {"PoissonLog", []float64{-800}, 2}, {"PoissonLog", []float64{700}, 0},
		{"BinomialLogit", []float64{5, math.Inf(-1)}, 0}, {"BinomialLogit", []float64{5, math.Inf(1)}, 5},
		{"BinomialLogit", []float64{5, 800}, 2}, {"BinomialLogit", []float64{0, 3}, 0},
	} {
		u, _ := LookupUnivariate(c.name)
		if lp, _ := u.Kernel(c.x, c.p, make([]float64, len(c.p))); math.IsInf(lp, 0) || math.IsNaN(lp) {
			t.Errorf("%s%v at %v: log density %v, want finite", c.name, c.p, c.x, lp)
		}
	}
	invalidCases := []struct {
		name string
		p    []float64
		x    float64
	}{
		{"Normal", []float64{0, 0}, 1}, {"Normal", []float64{0, -1}, 1}, {"Normal", []float64{nan, 1}, 1},
		{"Normal", []float64{0, 1}, nan}, {"HalfNormal", []float64{math.Inf(1)}, 1},
		{"Cauchy", []float64{0, -2}, 1}, {"HalfCauchy", []float64{0}, 1},
		{"StudentT", []float64{0, 0, 1}, 1}, {"StudentT", []float64{3, 0, nan}, 1},
		{"LogNormal", []float64{0, 0}, 1}, {"Exponential", []float64{-1}, 1},
		{"Gamma", []float64{0, 1}, 1}, {"Gamma", []float64{1, -1}, 1}, {"InvGamma", []float64{1, 0}, 1},
		{"Beta", []float64{0, 1}, 0.5}, {"Uniform", []float64{1, 1}, 1}, {"Uniform", []float64{2, 1}, 1.5},
		{"Poisson", []float64{-1}, 1}, {"Bernoulli", []float64{1.5}, 1}, {"BernoulliLogit", []float64{nan}, 1},
		{"Binomial", []float64{2.5, 0.5}, 1}, {"Binomial", []float64{-1, 0.5}, 0}, {"Binomial", []float64{3, -0.1}, 1},
		{"NegBinomial", []float64{-1, 1}, 1}, {"NegBinomial", []float64{1, -1}, 1},
		{"Laplace", []float64{0, 0}, 1}, {"Laplace", []float64{math.Inf(1), 1}, 1}, {"Laplace", []float64{0, 1}, nan},
		{"Weibull", []float64{-1, 1}, 1}, {"Weibull", []float64{1, 0}, 1}, {"Weibull", []float64{math.Inf(1), 1}, 1},
		{"Weibull", []float64{2, 1}, nan},
		{"PoissonLog", []float64{nan}, 1}, {"PoissonLog", []float64{math.Inf(1)}, 1}, {"PoissonLog", []float64{math.Inf(-1)}, 0},
		{"PoissonLog", []float64{0}, nan},
		{"BinomialLogit", []float64{2.5, 0}, 1}, {"BinomialLogit", []float64{-1, 0}, 0}, {"BinomialLogit", []float64{3, nan}, 1},
		{"BinomialLogit", []float64{3, 0}, nan},
	}
	for _, c := range invalidCases {
		u, _ := LookupUnivariate(c.name)
		dp := make([]float64, len(c.p))
		lp, dx := u.Kernel(c.x, c.p, dp)
		if !math.IsNaN(lp) || !math.IsNaN(dx) {
			t.Errorf("%s%v at %v: (%v, %v), want NaN", c.name, c.p, c.x, lp, dx)
		}
		for _, v := range dp {
			if !math.IsNaN(v) {
				t.Errorf("%s%v at %v: partials %v, want NaN", c.name, c.p, c.x, dp)
				break
			}
		}
	}
	// A nil dp skips the partials.
	for _, u := range Univariates {
		p := make([]float64, len(u.Params))
		for i := range p {
			p[i] = 0.5
		}
		if u.Name == "Uniform" {
			p[1] = 1
		}
		if u.Name == "Binomial" || u.Name == "BinomialLogit" {
			p[0] = 3
		}
		u.Kernel(0.25, p, nil)
	}
}

// TestScorePanics: a dst of the wrong length is programmer error.
func TestScorePanics(t *testing.T) {
	defer func() {
		if r := recover(); r != errLength {
			t.Errorf("recovered %v, want %q", r, errLength)
		}
	}()
	Normal{0, 1}.Score(make([]float64, 3), 0)
}

func TestUnivariateKernelAllocs(t *testing.T) {
	var sink float64
	for i, u := range Univariates {
		rng := rand.New(rand.NewPCG(17, uint64(i)))
		p := uniCases[i].params(rng)
		x := uniCases[i].value(p, rng)
		dp := make([]float64, len(p))
		if n := testing.AllocsPerRun(100, func() {
			lp, dx := u.Kernel(x, p, dp)
			sink += lp + dx
		}); n != 0 {
			t.Errorf("%s kernel: %v allocations", u.Name, n)
		}
	}
	_ = sink
}

// TestStudentTLargeNu checks the ν partial far into the normal limit, where
// ψ((ν+1)/2) − ψ(ν/2) − 1/ν nearly cancels.
func TestStudentTLargeNu(t *testing.T) {
	d := StudentT{1e5, 0.3, 1.7}
	x := 2.1
	got := d.Score(nil, x)[0]
	f := func(nu float64) float64 { return StudentT{nu, 0.3, 1.7}.LogProb(x) }
	want := fd.Derivative(f, 1e5, &fd.Settings{Formula: fd.Central, Step: 100})
	if math.Abs(got-want) > 1e-10 {
		t.Errorf("∂/∂ν at ν = 1e5: %.6g, finite difference %.6g", got, want)
	}
	if lp, ln := d.LogProb(x), (Normal{0.3, 1.7}).LogProb(x); math.Abs(lp-ln) > 1e-4 {
		t.Errorf("StudentT(1e5) log density %v, normal %v", lp, ln)
	}
}

// TestHeavyTailsFinite: the Cauchy and t partials stay finite for huge |z|.
func TestHeavyTailsFinite(t *testing.T) {
	for _, d := range []interface {
		Score([]float64, float64) []float64
		ScoreInput(float64) float64
		LogProb(float64) float64
	}{Cauchy{0, 1}, HalfCauchy{1}, StudentT{3, 0, 1}} {
		for _, x := range []float64{1e10, 1e200, 1e307} {
			s := d.Score(nil, x)
			v := append(s, d.ScoreInput(x), d.LogProb(x))
			for _, e := range v {
				if math.IsInf(e, 0) || math.IsNaN(e) {
					t.Errorf("%T at %v: %v", d, x, v)
					break
				}
			}
		}
	}
}

// Tolerances of the large-parameter tests.
const (
	largeParamTol  = 1e-13 // log density against mpmath, relative to max(1, |log p|)
	edgePartialTol = 1e-14 // partial against mpmath, relative to the scale of its terms
)

// TestLargeParameterDensities checks log densities and partials where the
// textbook formula cancels terms far larger than the result: counts near
// huge rates (k·log λ, λ and log k! are each ~1e11 at λ = 1e10), huge
// dispersions and degrees of freedom (log Γ differences), and the partials
// that are differences of nearly equal terms there. Reference values:
// mpmath 1.3, 60 digits, from the exact float64 inputs; the partials are
// 60-digit central differences of the mpmath log density.
func TestLargeParameterDensities(t *testing.T) {
	for _, c := range []struct {
		name string
		p    []float64
		x    float64
		lp   float64
	}{
		{"Poisson", []float64{1e10}, 1e10, -12.43186399818323449520362},
		{"Poisson", []float64{1e10}, 1.00001e10, -12.93186733149990119520354},
		{"Poisson", []float64{1e15}, 1e15, -18.1883267306600154552486},
		{"Binomial", []float64{1e9, 0.3}, 3e8, -10.50024757785903619758566},
		{"Binomial", []float64{1e9, 1e-8}, 3, -4.884004213245918281049765},
		{"Binomial", []float64{1e15, 0.5}, 5e14, -17.49517955010007031249803},
		{"NegBinomial", []float64{3, 1e15}, 3, -1.495922603223727426626742},
		{"NegBinomial", []float64{0.5, 1e10}, 1, -1.193147180597445309416399},
		{"NegBinomial", []float64{1e10, 1e15}, 1e10, -12.43186899815823466186987},
		{"StudentT", []float64{1e10, 0, 1}, 3, -5.41893853165467274279283},
		{"StudentT", []float64{1e15, 0, 1}, 0.5, -1.04393853320467310115533},
		{"StudentT", []float64{1e15, 0, 1}, 3, -5.41893853320465724178033},
		{"Gamma", []float64{1e10, 1.7}, 5882352941.176471, -11.90123574712106412758231},
		{"Gamma", []float64{1e10, 1.7}, 5882529411.764706, -16.4011757486767438449452},
		{"Gamma", []float64{1e6, 2}, 501500, -11.6275624254611846859317},
		{"Gamma", []float64{1e4, 0.5}, 21000, -18.36441270293544132411044},
		{"Gamma", []float64{1000, 1}, 1000, -4.372899506026296824156523},
		{"Gamma", []float64{1e15, 1e15}, 1.00000003, 15.90044964205905577383936},
		{"InvGamma", []float64{1e10, 1e10}, 1.00001, 10.09398359839233833979079},
		{"InvGamma", []float64{1e6, 3e6}, 3.001, 4.834340222532414094911221},
		{"InvGamma", []float64{1000, 999}, 1, 2.534355439372306727754469},
		{"Beta", []float64{1e10, 1e10}, 0.5, 11.63370770259297364243548},
		{"Beta", []float64{1e10, 1e10}, 0.50001, 7.63370770222938185209333},
		{"Beta", []float64{1e6, 3}, 0.999997, 12.31958945474179998837983},
		{"Beta", []float64{0.5, 1e12}, 1e-12, 26.05865617300422315131421},
		{"Beta", []float64{50, 70}, 0.4, 2.123390066736700594315089},
		{"Beta", []float64{1e15, 2e15}, 0.3333333333333333, 17.6517945069728616989611},
		{"Beta", []float64{5, 1e8}, 1e-7, 14.45296698558057302674486},
		{"Beta", []float64{2.5, 2.5}, 1e-300, -1033.554603757918450470126},
		// Rates and values so small that b·x (n·x for Beta) is subnormal
		// and (a−1)/(b·x) overflows: Loader's first-order term was 0·∞ = NaN
		// there (a fit's rate floored at the least normal met the first).
		{"Gamma", []float64{2247.364967960567, 2.2250738585072014e-308}, 0.06810845795476854, -1613154.264725812166019091},
		{"Gamma", []float64{1e6, 1e-300}, 1e-10, -726616860.3714508437036062},
		{"Gamma", []float64{5000, 3e-320}, 2, -3712760.726571595166027928},
		{"InvGamma", []float64{2247.364967960567, 1e-300}, 1e10, -1619289.003854238486770846},
		{"InvGamma", []float64{5000, 3e-320}, 0.5, -3712759.340277234046137309},
		{"Beta", []float64{3, 3}, 5e-324, -1485.478946461100369253},
		{"Beta", []float64{1e6, 3}, 1e-310, -713800624.2733878436161},
	} {
		u, _ := LookupUnivariate(c.name)
		lp, dx := u.Kernel(c.x, c.p, nil)
		if e := math.Abs(lp-c.lp) / math.Max(1, math.Abs(c.lp)); !(e <= largeParamTol) {
			t.Errorf("%s%v at %v: log p = %.17g, mpmath %.17g (rel %.1e)", c.name, c.p, c.x, lp, c.lp, e)
		}
		if _, ok := logKernels[c.name]; !ok {
			continue
		}
		// The exact log-scale kernel at l = log x: within the same tolerance
		// plus what the roundings of l = log x (|l| ulps of 1) and of e^l (2
		// ulps) move the density by: |x·∂ log p/∂x| per unit relative change.
		l := math.Log(c.x)
		llp, _ := LogScale(u).Kernel(l, c.p, nil)
		tol := largeParamTol*math.Max(1, math.Abs(c.lp)) + 1.2e-16*(math.Abs(l)+2)*math.Abs(c.x*dx)
		if e := math.Abs(llp - c.lp); !(e <= tol) {
			t.Errorf("LogScale(%s)%v at log %v: log p = %.17g, mpmath %.17g (error %.1e, tolerance %.1e)", c.name, c.p, c.x, llp, c.lp, e, tol)
		}
	}
	for _, c := range []struct {
		name  string
		p     []float64
		x     float64
		i     int     // parameter index
		want  float64 // ∂ log p/∂p[i]
		scale float64 // size of the terms that cancel in the partial
	}{
		{"Poisson", []float64{1e10}, 1.00001e10, 0, 1e-5, 1e-5},
		{"Binomial", []float64{1e9, 0.3}, 3e8, 1, 5.286776307738840780483978e-8, 5.286776307738840780483978e-8},
		{"Binomial", []float64{1e9, 1e-8}, 3, 1, -700000007.0000000762767692, 700000007},
		{"NegBinomial", []float64{0.5, 1e10}, 1, 0, 0.9999999999500000000025, 1},
		{"NegBinomial", []float64{3, 1e15}, 3, 1, 1.500000000008798084789138e-30, 1e-15},
		{"NegBinomial", []float64{1e10, 1e15}, 1e10, 1, 4.999950000499996666730609e-21, 1e-5},
		{"StudentT", []float64{1e15, 0, 1}, -1, 0, 5.000000000972396347192513e-31, 1e-15},
		{"StudentT", []float64{1e15, 0, 1}, 3, 0, -1.549999999990255769861408e-29, 1e-15},
		{"StudentT", []float64{1e15, 0, 1}, -1, 2, 0, 1},
		{"StudentT", []float64{1e15, 0, 1}, 0.5, 2, -0.7499999999999998125, 1},
		{"StudentT", []float64{1e10, 0, 1}, 3, 2, 7.99999999280000000648, 8},
		{"Gamma", []float64{1e10, 1.7}, 5882529411.764706, 0, 0.00002999960000893552961521475, 1},
		{"Gamma", []float64{1e6, 2}, 501500, 0, 0.002996008979881812144943953, 1},
		{"Gamma", []float64{1e15, 1e15}, 1.00000003, 0, 3.000000008972048360575246e-8, 1},
		{"Gamma", []float64{1e15, 1e15}, 1.00000003, 1, -3.000000003972047579736682e-8, 1e-15},
		{"InvGamma", []float64{1e10, 1e10}, 1.00001, 0, -0.00000999990000039884138514323, 1},
		{"InvGamma", []float64{1e6, 3e6}, 3.001, 0, -0.0003327777900370011607121207, 1},
		{"Beta", []float64{1e10, 1e10}, 0.50001, 0, 0.00001999982500257560858822987, 1},
		{"Beta", []float64{1e10, 1e10}, 0.50001, 1, -0.00002000017500257568369740891, 1},
		{"Beta", []float64{0.5, 1e12}, 1e-12, 0, 1.963510026021423459327624, 1},
		{"Beta", []float64{0.5, 1e12}, 1e-12, 1, -5.00000000000374979886648e-13, 5e-13},
		{"Beta", []float64{5, 1e8}, 1e-7, 1, -5.000000600000029880817006e-8, 5e-8},
		{"Beta", []float64{50, 70}, 0.4, 0, -0.03496111618351848774402617, 1},
	} {
		u, _ := LookupUnivariate(c.name)
		dp := make([]float64, len(c.p))
		u.Kernel(c.x, c.p, dp)
		if e := math.Abs(dp[c.i]-c.want) / c.scale; !(e <= edgePartialTol) {
			t.Errorf("%s%v at %v: ∂/∂p[%d] = %.17g, mpmath %.17g (error %.1e of %g)", c.name, c.p, c.x, c.i, dp[c.i], c.want, e, c.scale)
		}
	}
}

// TestInside: values on or past an end become the float next to it
// inside; others, and NaN, are unchanged; an infinite end keeps only
// the infinite value out.
func TestInside(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct{ v, lo, hi, want float64 }{
		{0.5, 0, 1, 0.5},
		{1, 0, 1, math.Nextafter(1, 0)},
		{2, 0, 1, math.Nextafter(1, 0)},
		{0, 0, 1, math.SmallestNonzeroFloat64},
		{-1, -1, 1, math.Nextafter(-1, 0)},
		{0.1, 0.1, inf, math.Nextafter(0.1, 1)},
		{1e300, 0.1, inf, 1e300},
		{inf, 0.1, inf, math.MaxFloat64},
		{5, -inf, 5, math.Nextafter(5, 0)},
		{-inf, -inf, 5, -math.MaxFloat64},
	} {
		if got := Inside(c.v, c.lo, c.hi); got != c.want {
			t.Errorf("Inside(%v, %v, %v) = %v, want %v", c.v, c.lo, c.hi, got, c.want)
		}
	}
	if v := Inside(math.NaN(), 0, 1); !math.IsNaN(v) {
		t.Errorf("Inside(NaN, 0, 1) = %v, want NaN", v)
	}
}

// TestPoissonSmallCounts: the Poisson kernels' shortcuts for small counts
// (no logarithm at k = 0, log k! from a table below stirlingMin) give the
// numbers of the plain formula k·log λ − λ − Lgamma(k + 1) bit for bit.
func TestPoissonSmallCounts(t *testing.T) {
	for _, lam := range []float64{1e-300, 1e-8, 0.3, 1, 2.5, 9.99, 1e3, 1e300} {
		for k := 0.0; k < stirlingMin; k++ {
			lg, _ := math.Lgamma(k + 1)
			want := k*logx(lam) - lam - lg
			if got, _ := (Poisson{lam}).eval(k, nil); math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("Poisson(%g) at %g: %v, want %v", lam, k, got, want)
			}
			eta := math.Log(lam)
			want = k*eta - math.Exp(eta) - lg
			if got, _ := (PoissonLog{eta}).eval(k, nil); math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("PoissonLog(%g) at %g: %v, want %v", eta, k, got, want)
			}
		}
	}
}

// TestPoissonZeroRate: rate 0 is the point mass at 0, as in Stan: log mass
// 0 at 0 with the right derivative −1 (the limit of the positive rates'
// partials), −Inf above with zero partials, log CDF 0 (and log CCDF −Inf),
// draws 0; a negative rate stays invalid.
func TestPoissonZeroRate(t *testing.T) {
	u, _ := LookupUnivariate("Poisson")
	dp := []float64{math.NaN()}
	if lp, dx := u.Kernel(0, []float64{0}, dp); lp != 0 || dx != 0 || dp[0] != -1 {
		t.Errorf("Poisson(0) at 0: (%v, %v), partial %v, want (0, 0), -1", lp, dx, dp[0])
	}
	small := []float64{0}
	u.Kernel(0, []float64{1e-12}, small)
	if small[0] != dp[0] {
		t.Errorf("Poisson(1e-12) at 0: partial %v, Poisson(0)'s %v: not its limit", small[0], dp[0])
	}
	for _, k := range []float64{1, 7, 40} {
		dp[0] = math.NaN()
		if lp, _ := u.Kernel(k, []float64{0}, dp); !math.IsInf(lp, -1) || dp[0] != 0 {
			t.Errorf("Poisson(0) at %v: %v, partial %v, want -Inf, 0", k, lp, dp[0])
		}
	}
	if lp, _ := u.Kernel(0, []float64{-1e-300}, dp); !math.IsNaN(lp) || !math.IsNaN(dp[0]) {
		t.Errorf("Poisson(-1e-300) at 0: %v, partial %v, want NaN", lp, dp[0])
	}
	for _, c := range []struct {
		x     float64
		upper bool
		lp    float64
		dp    float64
	}{{0, false, 0, -1}, {3, false, 0, 0}, {0, true, math.Inf(-1), 0}, {3, true, math.Inf(-1), 0}, {-1, false, math.Inf(-1), 0}} {
		k, _ := LogCDF("Poisson", c.upper)
		dp[0] = math.NaN()
		if lp, _ := k(c.x, []float64{0}, dp); lp != c.lp || dp[0] != c.dp {
			t.Errorf("Poisson(0) at %v, upper %v: %v, partial %v, want %v, %v", c.x, c.upper, lp, dp[0], c.lp, c.dp)
		}
		if c.lp == 0 {
			lp, _ := k(c.x, []float64{1e-12}, dp)
			if math.Abs(lp) > 1e-11 || math.Abs(dp[0]-c.dp) > 1e-11 {
				t.Errorf("Poisson(1e-12) at %v: log CDF %v, partial %v, want near Poisson(0)'s %v, %v", c.x, lp, dp[0], c.lp, c.dp)
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100 {
		if v := (Poisson{0}).Rand(rng); v != 0 {
			t.Fatalf("Poisson(0) drew %v", v)
		}
	}
}

// TestNegBinomialZeroMean: mean 0 is the point mass at 0, as Poisson's
// rate 0, in the kernel, the kernel with φ's work hoisted and the log CDF:
// log mass 0 at 0 with partials (−1, 0), the limit of small means'; −Inf
// above with zero partials; draws 0.
func TestNegBinomialZeroMean(t *testing.T) {
	u, _ := LookupUnivariate("NegBinomial")
	hs := make([]float64, u.Hoisted.StateLen())
	for _, phi := range []float64{0.3, 4, 1e3} {
		u.Hoisted.Prepare([]float64{0, phi}, hs)
		evals := map[string]func(k float64, dp []float64) float64{
			"kernel": func(k float64, dp []float64) float64 {
				lp, _ := u.Kernel(k, []float64{0, phi}, dp)
				return lp
			},
			"hoisted": func(k float64, dp []float64) float64 {
				lp, _ := u.Hoisted.Eval(k, []float64{0, phi}, hs, dp)
				return lp
			},
		}
		for name, eval := range evals {
			dp := []float64{math.NaN(), math.NaN()}
			if lp := eval(0, dp); lp != 0 || dp[0] != -1 || dp[1] != 0 {
				t.Errorf("NegBinomial(0, %v) %s at 0: %v, partials %v, want 0, [-1 0]", phi, name, lp, dp)
			}
			small := make([]float64, 2)
			u.Kernel(0, []float64{1e-12, phi}, small)
			if math.Abs(small[0]+1) > 1e-9 || math.Abs(small[1]) > 1e-9 {
				t.Errorf("NegBinomial(1e-12, %v) at 0: partials %v, not near mean 0's [-1 0]", phi, small)
			}
			for _, k := range []float64{1, 30} {
				dp[0], dp[1] = math.NaN(), math.NaN()
				if lp := eval(k, dp); !math.IsInf(lp, -1) || dp[0] != 0 || dp[1] != 0 {
					t.Errorf("NegBinomial(0, %v) %s at %v: %v, partials %v, want -Inf, [0 0]", phi, name, k, lp, dp)
				}
			}
		}
		for _, c := range []struct {
			x      float64
			upper  bool
			lp, d0 float64
		}{{0, false, 0, -1}, {0.5, false, 0, -1}, {3, false, 0, 0}, {0, true, math.Inf(-1), 0}, {3, true, math.Inf(-1), 0}} {
			k, _ := LogCDF("NegBinomial", c.upper)
			dp := []float64{math.NaN(), math.NaN()}
			if lp, _ := k(c.x, []float64{0, phi}, dp); lp != c.lp || dp[0] != c.d0 || dp[1] != 0 {
				t.Errorf("NegBinomial(0, %v) at %v, upper %v: %v, partials %v, want %v, [%v 0]", phi, c.x, c.upper, lp, dp, c.lp, c.d0)
			}
		}
	}
	if lp, _ := u.Kernel(0, []float64{-1e-300, 1}, make([]float64, 2)); !math.IsNaN(lp) {
		t.Errorf("NegBinomial(-1e-300, 1) at 0: %v, want NaN", lp)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100 {
		if v := (NegBinomial{0, 2}).Rand(rng); v != 0 {
			t.Fatalf("NegBinomial(0, 2) drew %v", v)
		}
	}
}
