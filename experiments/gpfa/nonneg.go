package gpfa

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
)

// NonnegFactorML fits the covariance family of examples/gpfa.gpp,
// Σ = W Wᵀ + s·I with W ≥ 0 (D×k) and s > 0, by maximum likelihood to the
// ML scatter matrix S (per row): it minimises ½[log det Σ + tr(Σ⁻¹S)] over
// W = exp(V), s = exp(t) with gonum's L-BFGS from a random start (seeded
// PCG). It is no Bayesian fit: it is the reference for what the model's
// covariances can achieve at all, the model's ceiling at large n.
func NonnegFactorML(S mat.Symmetric, k int, seed uint64) *mat.SymDense {
	d := S.SymmetricDim()
	rng := rand.New(rand.NewPCG(seed, 0x4e4e))
	tr := 0.0
	for i := 0; i < d; i++ {
		tr += S.At(i, i)
	}
	scale := math.Sqrt(tr / float64(d) / float64(k))
	x0 := make([]float64, d*k+1)
	for i := range x0[:d*k] {
		x0[i] = math.Log(scale * (0.2 + rng.Float64()))
	}
	x0[d*k] = math.Log(0.1 * tr / float64(d))
	build := func(x []float64) (*mat.Dense, float64, *mat.SymDense) {
		w := mat.NewDense(d, k, nil)
		raw := w.RawMatrix().Data
		for i := range raw {
			raw[i] = math.Exp(x[i])
		}
		s := math.Exp(x[d*k])
		sig := mat.NewSymDense(d, nil)
		sig.SymOuterK(1, w)
		for i := 0; i < d; i++ {
			sig.SetSym(i, i, sig.At(i, i)+s)
		}
		return w, s, sig
	}
	// inverse returns Σ⁻¹ and log det Σ, or false.
	inverse := func(sig *mat.SymDense) (*mat.SymDense, float64, bool) {
		var ch mat.Cholesky
		if !ch.Factorize(sig) {
			return nil, 0, false
		}
		var inv mat.SymDense
		if err := ch.InverseTo(&inv); err != nil {
			return nil, 0, false
		}
		return &inv, ch.LogDet(), true
	}
	f := func(x []float64) float64 {
		_, _, sig := build(x)
		inv, ld, ok := inverse(sig)
		if !ok {
			return math.Inf(1)
		}
		t := 0.0
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				t += inv.At(i, j) * S.At(j, i)
			}
		}
		return 0.5 * (ld + t)
	}
	g := func(grad, x []float64) {
		w, s, sig := build(x)
		inv, _, ok := inverse(sig)
		if !ok {
			for i := range grad {
				grad[i] = 0
			}
			return
		}
		// ∂/∂Σ = ½(Σ⁻¹ − Σ⁻¹SΣ⁻¹) = ½G; ∂/∂W = G W; chain through exp.
		var a, gm mat.Dense
		a.Mul(inv, S)
		gm.Mul(&a, inv)
		gm.Sub(inv, &gm)
		var gw mat.Dense
		gw.Mul(&gm, w)
		graw, wraw := gw.RawMatrix().Data, w.RawMatrix().Data
		for i := range wraw {
			grad[i] = graw[i] * wraw[i]
		}
		t := 0.0
		for i := 0; i < d; i++ {
			t += gm.At(i, i)
		}
		grad[d*k] = 0.5 * t * s
	}
	res, err := optimize.Minimize(optimize.Problem{Func: f, Grad: g}, x0, &optimize.Settings{MajorIterations: 5000}, &optimize.LBFGS{})
	x := x0
	if res != nil && (err == nil || !math.IsInf(res.F, 0)) {
		x = res.X
	}
	_, _, sig := build(x)
	return sig
}

// negativeCovariances counts the negative off-diagonal entries of S (upper
// triangle) and returns the most negative correlation.
func negativeCovariances(S mat.Symmetric) (neg, total int, minCorr float64) {
	d := S.SymmetricDim()
	for i := 0; i < d; i++ {
		for j := i + 1; j < d; j++ {
			total++
			if v := S.At(i, j); v < 0 {
				neg++
				minCorr = math.Min(minCorr, v/math.Sqrt(S.At(i, i)*S.At(j, j)))
			}
		}
	}
	return neg, total, minCorr
}
