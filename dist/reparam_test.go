package dist

import (
	"math"
	"math/rand/v2"
	"testing"
)

// jacobianTol bounds the Dirichlet Jacobian against finite differences of
// the quantile path (step 1e-6·α).
const jacobianTol = 1e-7

// TestSampleBeta checks the Beta draw's reparameterisation gradients through
// d/da E[x] = b/(a+b)² and d/db E[x] = −a/(a+b)², and the draw's mean.
func TestSampleBeta(t *testing.T) {
	const n = 100000
	rng := rand.New(rand.NewPCG(41, 42))
	x, da, db := make([]float64, n), make([]float64, n), make([]float64, n)
	for _, c := range []struct{ a, b float64 }{{0.3, 2}, {2, 5}, {0.05, 0.5}, {40, 3}} {
		for i := range x {
			x[i], da[i], db[i] = SampleBeta(c.a, c.b, Implicit{}, rng)
		}
		s := c.a + c.b
		name := "Beta(" + ftoa(c.a) + ", " + ftoa(c.b) + ")"
		checkMean(t, name+" E[x]", x, c.a/s)
		checkMean(t, name+" E[dx/da]", da, c.b/(s*s))
		checkMean(t, name+" E[dx/db]", db, -c.a/(s*s))
	}
	// The logit form gives the same draw.
	r1, r2 := rand.New(rand.NewPCG(1, 9)), rand.New(rand.NewPCG(1, 9))
	for range 100 {
		l, dla, dlb := SampleBetaLogit(0.4, 0.7, Implicit{}, r1)
		x, dxa, dxb := SampleBeta(0.4, 0.7, Implicit{}, r2)
		w := InvLogit(l) * InvLogit(-l)
		if x != InvLogit(l) || math.Abs(dxa-w*dla) > 1e-14*math.Abs(dxa) || math.Abs(dxb-w*dlb) > 1e-14*math.Abs(dxb) {
			t.Fatalf("SampleBeta and SampleBetaLogit disagree")
		}
	}
}

// dirichletAt returns log z for z = softmax of the gamma log-quantiles at
// levels u: a deterministic path in alpha along which the reparameterisation
// Jacobian can be finite-differenced.
func dirichletAt(alpha, u []float64) []float64 {
	lz := make([]float64, len(alpha))
	m := math.Inf(-1)
	for k, a := range alpha {
		lz[k] = GammaLogQuantile(a, u[k])
		m = math.Max(m, lz[k])
	}
	var s float64
	for _, l := range lz {
		s += math.Exp(l - m)
	}
	for k := range lz {
		lz[k] -= m + math.Log(s)
	}
	return lz
}

// TestDirichletJacobian checks DirichletVJP and DirichletLogVJP, column by
// column, against central differences of z(α) and log z(α) along the
// quantile path.
func TestDirichletJacobian(t *testing.T) {
	alpha := []float64{0.05, 0.7, 3, 12}
	u := []float64{0.3, 0.9, 0.5, 0.01}
	k := len(alpha)
	lz := dirichletAt(alpha, u)
	z, g := make([]float64, k), make([]float64, k)
	for i := range z {
		z[i] = math.Exp(lz[i])
		g[i] = GammaDLogXDA(alpha[i], GammaLogQuantile(alpha[i], u[i]))
	}
	row, rowLog := make([]float64, k), make([]float64, k)
	e := make([]float64, k)
	for j := 0; j < k; j++ { // output component j
		clear(e)
		e[j] = 1
		DirichletVJP(row, e, z, g)       // row[k] = ∂z_j/∂α_k
		DirichletLogVJP(rowLog, e, z, g) // rowLog[k] = ∂log z_j/∂α_k
		for c := 0; c < k; c++ {
			h := 1e-6 * alpha[c]
			ap := append([]float64(nil), alpha...)
			am := append([]float64(nil), alpha...)
			ap[c] += h
			am[c] -= h
			lp, lm := dirichletAt(ap, u), dirichletAt(am, u)
			fdLog := (lp[j] - lm[j]) / (2 * h)
			fdZ := (math.Exp(lp[j]) - math.Exp(lm[j])) / (2 * h)
			if d := math.Abs(rowLog[c]-fdLog) / math.Max(1, math.Abs(fdLog)); d > jacobianTol {
				t.Errorf("∂log z_%d/∂α_%d = %.10g, finite difference %.10g", j, c, rowLog[c], fdLog)
			}
			if d := math.Abs(row[c]-fdZ) / math.Max(1, math.Abs(fdZ)); d > jacobianTol {
				t.Errorf("∂z_%d/∂α_%d = %.10g, finite difference %.10g", j, c, row[c], fdZ)
			}
		}
	}
}

// TestSampleDirichletMonteCarlo: E[∂z_j/∂α_k] = (δ_jk·α₀ − α_j)/α₀² and
// E[∂log z_j/∂α_k] = δ_jk·ψ₁(α_j) − ψ₁(α₀), including a small shape whose
// components underflow.
func TestSampleDirichletMonteCarlo(t *testing.T) {
	const n = 60000
	alpha := []float64{0.02, 0.5, 2}
	a0 := 2.52
	k := len(alpha)
	rng := rand.New(rand.NewPCG(43, 44))
	jz := make([][]float64, k*k)
	jl := make([][]float64, k*k)
	for i := range jz {
		jz[i], jl[i] = make([]float64, n), make([]float64, n)
	}
	z, logz, g := make([]float64, k), make([]float64, k), make([]float64, k)
	row, e := make([]float64, k), make([]float64, k)
	for s := range n {
		SampleDirichletLog(logz, g, alpha, Implicit{}, rng)
		var sum float64
		for i, l := range logz {
			z[i] = math.Exp(l)
			sum += z[i]
		}
		if math.Abs(sum-1) > 1e-14 {
			t.Fatalf("draw sums to %v", sum)
		}
		for j := 0; j < k; j++ {
			clear(e)
			e[j] = 1
			DirichletVJP(row, e, z, g)
			for c := range row {
				jz[j*k+c][s] = row[c]
			}
			DirichletLogVJP(row, e, z, g)
			for c := range row {
				jl[j*k+c][s] = row[c]
			}
		}
	}
	for j := 0; j < k; j++ {
		for c := 0; c < k; c++ {
			var dz, dl float64
			if j == c {
				dz, dl = a0/(a0*a0), Trigamma(alpha[j])
			}
			dz -= alpha[j] / (a0 * a0)
			dl -= Trigamma(a0)
			checkMean(t, "E[∂z_j/∂α_k] j="+ftoa(float64(j))+" k="+ftoa(float64(c)), jz[j*k+c], dz)
			checkMean(t, "E[∂log z_j/∂α_k] j="+ftoa(float64(j))+" k="+ftoa(float64(c)), jl[j*k+c], dl)
		}
	}
}

func TestSampleDirichletNoAllocs(t *testing.T) {
	alpha := []float64{0.1, 1, 10}
	z, g, dst, w := make([]float64, 3), make([]float64, 3), make([]float64, 3), []float64{1, -2, 0.5}
	rng := rand.New(rand.NewPCG(45, 46))
	if n := testing.AllocsPerRun(100, func() {
		SampleDirichlet(z, g, alpha, Implicit{}, rng)
		DirichletVJP(dst, w, z, g)
		DirichletLogVJP(dst, w, z, g)
	}); n != 0 {
		t.Errorf("SampleDirichlet and its VJPs: %v allocations", n)
	}
	defer func() {
		if r := recover(); r != errLength {
			t.Errorf("recovered %v, want %q", r, errLength)
		}
	}()
	SampleDirichlet(z[:2], g, alpha, Implicit{}, rng)
}
