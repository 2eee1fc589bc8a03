package sgvb

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gpplang/gpp/dist"
	"github.com/gpplang/gpp/lang/ast"
)

// Tolerances of the conjugate tests (gamma_numerics §4.5, never loosened).
const (
	relTol  = 0.05 // fitted parameters vs exact posterior
	klTol   = 1e-3 // KL(q ‖ posterior), nats
	elboTol = 0.02 // |ELBO − log p(y)|, nats
)

// The Gamma–Poisson cases of gamma_numerics §4.5.
var gpCases = []struct {
	name   string
	y      []float64
	a0, b0 float64
	logp   float64 // log p(y), mpmath
}{
	{"A", []float64{3, 1, 4, 1, 5, 9, 2, 6}, 1, 1, -22.050493836453272},
	{"B", []float64{0}, 0.01, 0.01, -0.046151205168412595},
	{"C", []float64{0, 0, 0, 0, 0}, 0.1, 1, -0.17917594692280551},
}

func TestGammaPoissonEvidence(t *testing.T) {
	for _, c := range gpCases {
		gp := newGammaPoisson(c.y, c.a0, c.b0)
		if got := gp.logEvidence(); math.Abs(got-c.logp) > 1e-12 {
			t.Errorf("case %s: log p(y) = %.17g, want %.17g", c.name, got, c.logp)
		}
	}
}

// conjugateSettings are the engine settings of the conjugate tests: the
// defaults with a fixed number of iterations (the ELBO is flat along the
// shape–rate ridge, so an ELBO-change rule stops early) and 10⁴ final draws
// for the ELBO, as §4.5 asks.
func conjugateSettings() Settings {
	return Settings{Seed: 1, Tol: -1, MaxIter: 20000, PSISDraws: 10000}
}

func TestGammaPoissonConjugate(t *testing.T) {
	for _, c := range gpCases {
		gp := newGammaPoisson(c.y, c.a0, c.b0)
		pa, pb := gp.posterior()
		r, err := Fit(context.Background(), gp, gp.latents(), conjugateSettings())
		if err != nil {
			t.Fatal(err)
		}
		f := r.Factors[0]
		if f.Family != FamilyGamma {
			t.Fatalf("family %v", f.Family)
		}
		a, b := f.Params[0][0], f.Params[1][0]
		kl := klGamma(a, b, pa, pb)
		t.Logf("case %s: q = Gamma(%.6g, %.6g), exact (%.6g, %.6g); KL = %.3g; ELBO = %.6f ± %.2g, log p(y) = %.6f (gap %.2g); k̂ = %.2f",
			c.name, a, b, pa, pb, kl, r.ELBO, r.ELBOSE, c.logp, c.logp-r.ELBO, r.ParetoK)
		if math.Abs(a/pa-1) > relTol || math.Abs(b/pb-1) > relTol {
			t.Errorf("case %s: q = Gamma(%g, %g), want within %g of (%g, %g)", c.name, a, b, relTol, pa, pb)
		}
		if kl > klTol {
			t.Errorf("case %s: KL = %g > %g", c.name, kl, klTol)
		}
		if math.Abs(r.ELBO-c.logp) > elboTol {
			t.Errorf("case %s: ELBO %g, log p(y) %g", c.name, r.ELBO, c.logp)
		}
		if !(r.ParetoK < 0.5) {
			t.Errorf("case %s: k̂ = %g, want < 0.5", c.name, r.ParetoK)
		}
	}
}

// TestGammaLogMeanShape fits the Gamma–Poisson cases with gamma factors
// parameterised by log shape and log mean, in a quarter of the steps the
// softplus parameterisation gets above, to the same tolerances.
func TestGammaLogMeanShape(t *testing.T) {
	for _, c := range gpCases {
		gp := newGammaPoisson(c.y, c.a0, c.b0)
		pa, pb := gp.posterior()
		s := conjugateSettings()
		s.MaxIter, s.StepSize, s.GammaParam = 5000, 0.3, GammaLogMeanShape
		r, err := Fit(context.Background(), gp, gp.latents(), s)
		if err != nil {
			t.Fatal(err)
		}
		a, b := r.Factors[0].Params[0][0], r.Factors[0].Params[1][0]
		kl := klGamma(a, b, pa, pb)
		t.Logf("case %s: q = Gamma(%.6g, %.6g), exact (%.6g, %.6g); KL = %.3g; ELBO gap %.2g", c.name, a, b, pa, pb, kl, c.logp-r.ELBO)
		if !(math.Abs(a/pa-1) <= relTol && math.Abs(b/pb-1) <= relTol && kl <= klTol && math.Abs(r.ELBO-c.logp) <= elboTol) {
			t.Errorf("case %s: q = Gamma(%g, %g), exact (%g, %g), KL %g, ELBO %g vs %g", c.name, a, b, pa, pb, kl, r.ELBO, c.logp)
		}
	}
}

// TestNaturalRateCap fits a Poisson rate from five counts near 10⁶ under
// a vague Gamma(1, 0.001) prior: the posterior Gamma(4999964, 5.001) has
// shape 5·10⁶, so the ELBO's curvature along the log mean is about 5·10⁶,
// which AdaDelta's rate, scaled by the gradients' size and not by
// curvature, overshoots: without the natural-gradient cap of optim.update,
// q ended at shapes 4.1·10⁶ to 5.4·10⁶ by seed and estimator (q's sd
// 10–20 % off) after thousands of steps. With it the STL estimators, whose gradient vanishes
// at q = posterior, land on the posterior itself.
func TestNaturalRateCap(t *testing.T) {
	gp := newGammaPoisson([]float64{1000123, 999532, 1001021, 998876, 1000411}, 1, 0.001)
	pa, pb := gp.posterior()
	for _, est := range []Estimator{STL, STLCV} {
		for seed := uint64(1); seed <= 3; seed++ {
			s := Settings{Seed: seed, Estimator: est, PSISDraws: -1}
			r, err := Fit(context.Background(), gp, gp.latents(), s)
			if err != nil {
				t.Fatal(err)
			}
			a, b := r.Factors[0].Params[0][0], r.Factors[0].Params[1][0]
			t.Logf("%v, seed %d: q = Gamma(%.10g, %.10g), exact (%.10g, %.10g), %d iterations, converged %v",
				est, seed, a, b, pa, pb, r.Iterations, r.Converged)
			if !(math.Abs(a/pa-1) < 1e-6 && math.Abs(b/pb-1) < 1e-6) || !r.Converged {
				t.Errorf("%v, seed %d: q = Gamma(%g, %g), want Gamma(%g, %g) to 1e-6 and converged (%v in %d steps)",
					est, seed, a, b, pa, pb, r.Converged, r.Iterations)
			}
		}
	}
}

// TestShapeCap fits a posterior Gamma(10¹⁰ + 1, 2), far tighter than
// maxShape allows: the shape stops at the cap, where every draw's
// derivative still converges, with no bad step.
func TestShapeCap(t *testing.T) {
	gp := newGammaPoisson([]float64{1e10}, 1, 1)
	for _, gparam := range []GammaParam{GammaSoftplus, GammaLogMeanShape} {
		s := Settings{Seed: 1, Tol: -1, MaxIter: 10000, PSISDraws: -1, GammaParam: gparam}
		r, err := Fit(context.Background(), gp, gp.latents(), s)
		if err != nil {
			t.Fatal(err)
		}
		f := r.Factors[0]
		a, m := f.Params[0][0], f.Mean()[0]
		t.Logf("%v: shape %.4g, mean %.6g (exact 5e9), %d bad steps", gparam, a, m, r.BadSteps)
		if !(a <= maxShape) || r.BadSteps != 0 {
			t.Errorf("%v: shape %g above the cap %g, or %d bad steps", gparam, a, float64(maxShape), r.BadSteps)
		}
		// log-mean-shape reaches the cap's decade (the step noise of the
		// log mean moves the mean by ~1 % at this point)
		if gparam == GammaLogMeanShape && !(a >= maxShape/10 && math.Abs(m/5e9-1) < 0.05) {
			t.Errorf("%v: Gamma shape %g, mean %g; want ≥ %g and 5e9", gparam, a, m, float64(maxShape/10))
		}
		// q is far wider than the posterior in both coordinates, and says
		// so: at the shape cap, or (softplus) with the rate at its floor
		want := map[GammaParam]string{GammaLogMeanShape: "shapes of its gamma factor are at or near the cap", GammaSoftplus: "rates of its gamma factor are at or near the floor"}[gparam]
		if !strings.Contains(strings.Join(r.Warnings, "\n"), want) {
			t.Errorf("%v: warnings %q lack %q", gparam, r.Warnings, want)
		}
	}
}

// TestSDFloor fits Gaussian posteriors of sd 10⁻¹⁰ on the latent's scale
// (a real latent's value or a positive one's log), narrower than the
// floor 10⁻⁸ that keeps a normal, lognormal or full-rank factor's sds
// positive: the sds stop at the floor, and the fit says so. At sd 10⁻⁴
// it does not.
func TestSDFloor(t *testing.T) {
	for _, sd := range []float64{1e-10, 1e-4} {
		for _, c := range []struct {
			pos bool
			fam Family
		}{{false, FamilyAuto}, {true, FamilyLognormal}, {false, FamilyFullRank}} {
			sigma := mat.NewSymDense(2, []float64{sd * sd, 0, 0, sd * sd})
			tg := newMVGauss([]float64{0.5, -1}, sigma, c.pos)
			s := Settings{Seed: 2, Tol: -1, MaxIter: 3000, PSISDraws: -1, Family: c.fam}
			if c.fam == FamilyFullRank {
				s.Family, s.Families = FamilyAuto, map[string]Family{"beta": FamilyFullRank}
			}
			// started at the posterior mean: AdaDelta's steps (about
			// η·√ε = 0.01 at least) would take the mean-field factors far
			// longer to reach it at this scale than the sds
			lat := tg.latents()
			lat[0].Init = []float64{0.5, -1}
			if c.pos {
				lat[0].Init = []float64{math.Exp(0.5), math.Exp(-1)}
			}
			r, err := Fit(context.Background(), tg, lat, s)
			if err != nil {
				t.Fatal(err)
			}
			f := r.Factors[0]
			warned := strings.Contains(strings.Join(r.Warnings, "\n"), "sds of its "+f.Family.String()+" factor are at or near the floor")
			t.Logf("sd %g, %v: floor warning %v, %d sds at the floor", sd, f.Family, warned, floorSDs(f))
			if warned != (sd < minParam) {
				t.Errorf("sd %g, %v factor: floor warning %v, want %v (warnings %q)", sd, f.Family, warned, sd < minParam, r.Warnings)
			}
		}
	}
}

// TestGammaPoissonPaperEstimator runs the paper's estimator (analytic
// entropy, no control variate) on case A, with 10 draws per step and
// iterate averaging (the default), and reports what it reaches.
func TestGammaPoissonPaperEstimator(t *testing.T) {
	c := gpCases[0]
	gp := newGammaPoisson(c.y, c.a0, c.b0)
	pa, pb := gp.posterior()
	s := conjugateSettings()
	s.Estimator = Entropy
	s.DrawsPerStep = 10 // q is the iterate average (the default)
	r, err := Fit(context.Background(), gp, gp.latents(), s)
	if err != nil {
		t.Fatal(err)
	}
	a, b := r.Factors[0].Params[0][0], r.Factors[0].Params[1][0]
	kl := klGamma(a, b, pa, pb)
	t.Logf("entropy estimator, case A: q = Gamma(%.5g, %.5g); KL = %.3g; ELBO gap %.3g", a, b, kl, c.logp-r.ELBO)
	if math.Abs(a/pa-1) > relTol || math.Abs(b/pb-1) > relTol || kl > klTol || math.Abs(r.ELBO-c.logp) > elboTol {
		t.Errorf("case A with the paper's estimator: Gamma(%g, %g), KL %g, ELBO %g", a, b, kl, r.ELBO)
	}
}

// expectedGrad is the exact gradient of the ELBO of the Gamma–Poisson
// model at q = Gamma(a, b) (gamma_numerics §4.5).
func expectedGrad(gp *gammaPoisson, a, b float64) (float64, float64) {
	k := gp.s + gp.a0 - 1
	m := gp.n + gp.b0
	t1 := dist.Trigamma(a)
	return k*t1 - m/b + 1 + (1-a)*t1, -k/b + m*a/(b*b) - 1/b
}

func TestExpectedGradient(t *testing.T) {
	rows := []struct {
		c          int
		a, b       float64
		dA, dB     float64 // §4.5
		n          int
		cvA, cvSTL float64 // fixed control-variate coefficients: E[h] at (a, b)
	}{
		{0, 1, 1, 42.992956072295, -23, 20000, 22, 23},
		{0, 16, 4.5, 0.0319005344518, 0, 20000, -1, 0},
		{1, 0.02, 1.0, -25.0259811819, 0.0102, 20000, -1.01, -0.0102},
		{1, 0.005, 1.01, 200.008164971, -0.004950495, 20000, -1, 0.005},
	}
	for _, row := range rows {
		c := gpCases[row.c]
		gp := newGammaPoisson(c.y, c.a0, c.b0)
		ea, eb := expectedGrad(gp, row.a, row.b)
		if math.Abs(ea-row.dA) > 1e-9*math.Max(1, math.Abs(ea)) || math.Abs(eb-row.dB) > 1e-9 {
			t.Errorf("exact gradient at (%g, %g) = (%.12g, %.12g), §4.5 says (%.12g, %.12g)", row.a, row.b, ea, eb, row.dA, row.dB)
		}
		for _, gparam := range []GammaParam{GammaSoftplus, GammaLogMeanShape} {
			for _, est := range []Estimator{Entropy, EntropyCV, STL, STLCV} {
				s := Settings{Seed: 7, Estimator: est, GammaParam: gparam}.withDefaults()
				e, err := newEngine(gp, gp.latents(), &s)
				if err != nil {
					t.Fatal(err)
				}
				e.blocks[0].thetaFrom([][]float64{{row.a}, {row.b}}, e.theta)
				// the exact gradient with respect to θ, through the Jacobian
				var e1, e2 float64
				if gparam == GammaSoftplus {
					e1, e2 = ea*sigmoid(e.theta[0]), eb*sigmoid(e.theta[1])
				} else { // a = e^θ₁, b = e^(θ₁−θ₂)
					e1, e2 = row.a*ea+row.b*eb, -row.b*eb
				}
				if e.cv != nil { // any fixed coefficient keeps the estimate unbiased
					e.cv[0] = row.cvA
					if est == STLCV {
						e.cv[0] = row.cvSTL
					}
					e.cvSet = true
				}
				var m1, m2, v1, v2 float64
				for i := 0; i < row.n; i++ {
					if ok, err := e.gradient(streamStep, i); !ok {
						t.Fatal("non-finite gradient", err)
					}
					g1, g2 := e.grad[0], e.grad[1]
					d1, d2 := g1-m1, g2-m2
					m1 += d1 / float64(i+1)
					m2 += d2 / float64(i+1)
					v1 += d1 * (g1 - m1)
					v2 += d2 * (g2 - m2)
				}
				n := float64(row.n)
				se1, se2 := math.Sqrt(v1/(n-1)/n), math.Sqrt(v2/(n-1)/n)
				t.Logf("(%g, %g) %v %-10v: ∂θ₁ %.6g ± %.2g (exact %.6g), ∂θ₂ %.6g ± %.2g (exact %.6g)", row.a, row.b, gparam, est, m1, se1, e1, m2, se2, e2)
				// written so that a NaN mean fails
				if !(math.Abs(m1-e1) <= 5*se1+1e-9*math.Abs(e1)) || !(math.Abs(m2-e2) <= 5*se2+1e-9*math.Abs(e2)) {
					t.Errorf("(%g, %g) %v %v: mean gradient (%g ± %g, %g ± %g), exact (%g, %g)", row.a, row.b, gparam, est, m1, se1, m2, se2, e1, e2)
				}
			}
		}
	}
}

func TestNormalNormal(t *testing.T) {
	nn := &normalNormal{y: []float64{1.2, 0.3, 2.5, 1.9, 0.7}, sigma: 1, m0: 0, s0: 10}
	pm, ps := nn.posterior()
	lat := []Latent{{Name: "mu", Size: 1, Support: dist.Real}}
	r, err := Fit(context.Background(), nn, lat, Settings{Seed: 3, Tol: -1, MaxIter: 5000, PSISDraws: 10000})
	if err != nil {
		t.Fatal(err)
	}
	m, s := r.Factors[0].Params[0][0], r.Factors[0].Params[1][0]
	t.Logf("normal–normal: q = N(%.6g, %.6g²), exact N(%.6g, %.6g²); sd ratio %.5f; ELBO %.5f ± %.2g",
		m, s, pm, ps, s/ps, r.ELBO, r.ELBOSE)
	// STL has zero variance at the exact posterior, so only optimisation
	// error remains; 1 % of the posterior sd is far above it.
	if math.Abs(m-pm) > 0.01*ps || math.Abs(s/ps-1) > 0.01 {
		t.Errorf("q = N(%g, %g), want N(%g, %g)", m, s, pm, ps)
	}
}

func klBeta(a1, b1, a2, b2 float64) float64 {
	return dist.LogBeta(a2, b2) - dist.LogBeta(a1, b1) + (a1-a2)*dist.Digamma(a1) + (b1-b2)*dist.Digamma(b1) +
		(a2-a1+b2-b1)*dist.Digamma(a1+b1)
}

func TestBetaBernoulli(t *testing.T) {
	bb := &betaBernoulli{a: 2 + 7, b: 3 + 3} // Beta(2, 3) prior, 7 of 10
	lat := []Latent{{Name: "theta", Size: 1, Support: dist.Unit}}
	r, err := Fit(context.Background(), bb, lat, conjugateSettings())
	if err != nil {
		t.Fatal(err)
	}
	f := r.Factors[0]
	a, b := f.Params[0][0], f.Params[1][0]
	kl := klBeta(a, b, bb.a, bb.b)
	t.Logf("beta–Bernoulli: q = Beta(%.5g, %.5g), exact (%g, %g); KL %.3g; ELBO %.5f (log p = 0); k̂ %.2f", a, b, bb.a, bb.b, kl, r.ELBO, r.ParetoK)
	if f.Family != FamilyBeta || math.Abs(a/bb.a-1) > relTol || math.Abs(b/bb.b-1) > relTol || kl > klTol || math.Abs(r.ELBO) > elboTol {
		t.Errorf("q = %v(%g, %g), KL %g, ELBO %g", f.Family, a, b, kl, r.ELBO)
	}
}

// TestTightConcentrations fits beta and Dirichlet posteriors of many
// observations with the default settings, as gpp fit does: their
// concentrations must travel from 2 (or k) to hundreds. Behind softplus
// links (before log concentrations) the beta ended at Beta(34, 71) after
// 10⁴ steps, and the Dirichlet stopped by the ELBO rule with q's sds 31 %
// too wide. (Not Converged: these targets are normalised, so the ELBO is
// near 0 and the relative rule asks |ΔELBO| < 10⁻⁴ of noisy estimates.)
func TestTightConcentrations(t *testing.T) {
	bb := &betaBernoulli{a: 1 + 194, b: 1 + 406} // Beta(1, 1), 194 of 600
	dc := &dirichletCounts{alpha: []float64{121, 46, 31, 6}, k: 4}
	for _, c := range []struct {
		name  string
		tg    Target
		lat   Latent
		exact []float64
		kl    func(q []float64) float64
	}{
		{"beta", bb, Latent{Name: "theta", Size: 1, Support: dist.Unit}, []float64{bb.a, bb.b},
			func(q []float64) float64 { return klBeta(q[0], q[1], bb.a, bb.b) }},
		{"dirichlet", dc, Latent{Name: "theta", Size: 4, Shape: []int{4}, Support: dist.Simplex}, dc.alpha,
			func(q []float64) float64 { return klDirichlet(q, dc.alpha) }},
	} {
		r, err := Fit(context.Background(), c.tg, []Latent{c.lat}, Settings{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		var q []float64
		for _, p := range r.Factors[0].Params {
			q = append(q, p...)
		}
		kl := c.kl(q)
		t.Logf("%s: q %.4g, exact %g; KL %.3g; converged %v at %d", c.name, q, c.exact, kl, r.Converged, r.Iterations)
		for i, v := range q {
			if math.Abs(v/c.exact[i]-1) > relTol {
				t.Errorf("%s: concentration %d = %g, want within %g of %g", c.name, i, v, relTol, c.exact[i])
			}
		}
		// (10× klTol: the beta's KL is 2.6e-3 after 10⁴ steps at the default
		// decaying step; behind softplus it was 1.49 nats)
		if kl > 10*klTol {
			t.Errorf("%s: KL %g", c.name, kl)
		}
	}
}

func klDirichlet(a1, a2 []float64) float64 {
	var s1, s2, kl float64
	for i := range a1 {
		s1 += a1[i]
		s2 += a2[i]
		kl += lgamma(a2[i]) - lgamma(a1[i])
	}
	kl += lgamma(s1) - lgamma(s2)
	for i := range a1 {
		kl += (a1[i] - a2[i]) * (dist.Digamma(a1[i]) - dist.Digamma(s1))
	}
	return kl
}

func TestDirichletCounts(t *testing.T) {
	// two independent simplices: priors (1, 2, 3) and (0.5, 0.5, 1), counts
	// (5, 0, 10) and (1, 0.2·0, 2) — posteriors below
	dc := &dirichletCounts{alpha: []float64{6, 2, 13, 1.5, 0.5, 3}, k: 3}
	lat := []Latent{{Name: "theta", Size: 6, Shape: []int{2, 3}, Support: dist.Simplex}}
	r, err := Fit(context.Background(), dc, lat, conjugateSettings())
	if err != nil {
		t.Fatal(err)
	}
	f := r.Factors[0]
	got := f.Params[0]
	kl := klDirichlet(got[:3], dc.alpha[:3]) + klDirichlet(got[3:], dc.alpha[3:])
	t.Logf("Dirichlet: q = %.4g, exact %g; KL %.3g; ELBO %.5f (log p = 0); k̂ %.2f", got, dc.alpha, kl, r.ELBO, r.ParetoK)
	for i, a := range got {
		if math.Abs(a/dc.alpha[i]-1) > relTol {
			t.Errorf("alpha[%d] = %g, want %g", i, a, dc.alpha[i])
		}
	}
	if f.Family != FamilyDirichlet || kl > klTol || math.Abs(r.ELBO) > elboTol {
		t.Errorf("KL %g, ELBO %g", kl, r.ELBO)
	}
	// draws of q: sample means agree with Mean within 5 SE
	mean, sd := r.Mean(), r.SD()
	rng := rand.New(rand.NewPCG(1, 2))
	z := make([]float64, r.Dim)
	n := 20000
	acc := make([]float64, r.Dim)
	for i := 0; i < n; i++ {
		lq := r.Sample(rng, z)
		if math.IsNaN(lq) || math.IsInf(lq, 0) {
			t.Fatal("log q not finite")
		}
		sum := 0.0
		for j := 0; j < 3; j++ {
			sum += z[j]
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Fatalf("draw not on the simplex: %v", z)
		}
		for j := range acc {
			acc[j] += z[j]
		}
	}
	for j := range acc {
		if m := acc[j] / float64(n); math.Abs(m-mean[j]) > 5*sd[j]/math.Sqrt(float64(n)) {
			t.Errorf("sample mean[%d] = %g, Mean %g", j, m, mean[j])
		}
	}
}

func TestLognormalOverride(t *testing.T) {
	c := gpCases[0]
	gp := newGammaPoisson(c.y, c.a0, c.b0)
	s := conjugateSettings()
	s.Family = FamilyLognormal
	// q is the iterate average (the default): the optimum is not the
	// posterior, so STL keeps its noise
	r, err := Fit(context.Background(), gp, gp.latents(), s)
	if err != nil {
		t.Fatal(err)
	}
	f := r.Factors[0]
	mu, sd := f.Params[0][0], f.Params[1][0]
	// The optimum of the ELBO over normals on log λ for the posterior
	// Gamma(α, β): σ² = 1/α, μ = log(α/β) − σ²/2, so E_q[λ] = α/β exactly.
	pa, pb := gp.posterior()
	sd0 := 1 / math.Sqrt(pa)
	mu0 := math.Log(pa/pb) - sd0*sd0/2
	m := gp.n + gp.b0
	elbo0 := (gp.s+gp.a0)*mu0 - m*math.Exp(mu0+sd0*sd0/2) + 0.5*math.Log(2*math.Pi*math.E*sd0*sd0) + gp.cnst
	t.Logf("lognormal: q = logN(%.6g, %.6g), optimum (%.6g, %.6g); mean %.5g (posterior %.5g); ELBO %.5f ± %.2g, optimum %.5f, log p(y) %.5f (KL gap %.4f); k̂ %.2f",
		mu, sd, mu0, sd0, f.Mean()[0], pa/pb, r.ELBO, r.ELBOSE, elbo0, c.logp, c.logp-elbo0, r.ParetoK)
	// the iterate average keeps some noise of the non-zero-variance STL
	// gradient: 2 % of σ in μ, 3 % in σ, 0.002 nats in the ELBO
	if f.Family != FamilyLognormal || math.Abs(mu-mu0) > 0.02*sd0 || math.Abs(sd/sd0-1) > 0.03 {
		t.Errorf("q = logN(%g, %g), want (%g, %g)", mu, sd, mu0, sd0)
	}
	if math.Abs(r.ELBO-elbo0) > 0.002 {
		t.Errorf("ELBO %g, optimum %g", r.ELBO, elbo0)
	}
}

func TestMAP(t *testing.T) {
	c := gpCases[0]
	gp := newGammaPoisson(c.y, c.a0, c.b0)
	r, err := Fit(context.Background(), gp, gp.latents(), Settings{Method: MAP})
	if err != nil {
		t.Fatal(err)
	}
	pa, pb := gp.posterior()
	mode := (pa - 1) / pb
	f := r.Factors[0]
	t.Logf("MAP: %.15g, mode %.15g, %d iterations, converged %v", f.Params[0][0], mode, r.Iterations, r.Converged)
	if f.Family != FamilyPoint || math.Abs(f.Params[0][0]/mode-1) > 1e-8 || !r.Converged {
		t.Errorf("MAP %v = %g (converged %v), want %g", f.Family, f.Params[0][0], r.Converged, mode)
	}
	if f.SD()[0] != 0 || f.Mean()[0] != f.Params[0][0] {
		t.Error("point summaries")
	}
}

// TestMAPUnbounded: a log joint without a mode sends L-BFGS towards −∞,
// where its line search fails; the result is the best finite point it
// evaluated, never a non-finite parameter or the start. For a positive
// latent that is its edge, 0, and the fit says there may be no mode.
func TestMAPUnbounded(t *testing.T) {
	r, _ := Fit(context.Background(), unbounded{}, []Latent{{Name: "x", Size: 1, Support: dist.Real}}, Settings{Method: MAP})
	if r == nil {
		t.Fatal("no result")
	}
	v := r.Factors[0].Params[0][0]
	t.Logf("x = %g after %d iterations; warnings %q", v, r.Iterations, r.Warnings)
	if math.IsNaN(v) || math.IsInf(v, 0) || !(v < 0) {
		t.Errorf("MAP x = %g, want the best finite point evaluated (below the start, 0)", v)
	}
	// a real latent has no edge; a positive one (x its log) goes to 0
	edge := "went to the edge of its support"
	if strings.Contains(strings.Join(r.Warnings, "\n"), edge) {
		t.Errorf("real x: warnings %q", r.Warnings)
	}
	r, _ = Fit(context.Background(), unbounded{}, []Latent{{Name: "s", Size: 1, Support: dist.Positive}}, Settings{Method: MAP})
	if r == nil || !strings.Contains(strings.Join(r.Warnings, "\n"), "MAP: s "+edge) {
		t.Errorf("positive s: no warning of the edge")
	}
}

// singularAtZero is log p(x) = −x²/2 + log(x²): −∞ at the default start
// x = 0, modes at ±√2.
type singularAtZero struct{}

func (singularAtZero) LogJoint(x, grad []float64) (float64, error) {
	grad[0] = -x[0] + 2/x[0]
	return -x[0]*x[0]/2 + math.Log(x[0]*x[0]), nil
}
func (singularAtZero) Clone() Target { return singularAtZero{} }

// nowhereFinite is a log joint that is NaN everywhere.
type nowhereFinite struct{}

func (nowhereFinite) LogJoint(x, grad []float64) (float64, error) { return math.NaN(), nil }
func (nowhereFinite) Clone() Target                               { return nowhereFinite{} }

// TestMAPFallbackStart: where the log joint is not finite at the default
// start, MAP starts from the first of up to MAPStartTries points around it
// that is finite, as Stan's optimizer does; when none is, it fails.
func TestMAPFallbackStart(t *testing.T) {
	lat := []Latent{{Name: "x", Size: 1, Support: dist.Real}}
	r, err := Fit(context.Background(), singularAtZero{}, lat, Settings{Method: MAP, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if v := r.Factors[0].Params[0][0]; math.Abs(math.Abs(v)-math.Sqrt2) > 1e-6 || !r.Converged {
		t.Errorf("MAP x = %v (converged %v), want ±√2", v, r.Converged)
	}
	if len(r.Warnings) == 0 || !strings.Contains(r.Warnings[0], "started from a point moved by U(−2, 2)") {
		t.Errorf("warnings %q", r.Warnings)
	}
	if _, err := Fit(context.Background(), nowhereFinite{}, lat, Settings{Method: MAP}); err == nil {
		t.Error("a log joint finite nowhere: no error")
	}
}

// symMixture is the log posterior of the means of an equal-weight mixture
// of two unit normals over y, with N(0, 3²) priors: symmetric under
// swapping the means, so its gradient at mu1 = mu2 never separates them.
type symMixture struct{ y []float64 }

func (m symMixture) LogJoint(x, grad []float64) (float64, error) {
	lp := 0.0
	grad[0], grad[1] = -x[0]/9, -x[1]/9
	lp -= (x[0]*x[0] + x[1]*x[1]) / 18
	for _, y := range m.y {
		a, b := -0.5*(y-x[0])*(y-x[0]), -0.5*(y-x[1])*(y-x[1])
		l := dist.LogAddExp(a, b)
		wa := math.Exp(a - l)
		lp += l
		grad[0] += wa * (y - x[0])
		grad[1] += (1 - wa) * (y - x[1])
	}
	return lp, nil
}

func (m symMixture) Clone() Target { return m }

// TestMAPSaddle: from the default start (both means 0) L-BFGS stops where
// the means coincide, a saddle; MAP's saddle test leaves it for the mode,
// and says so. A unimodal target's MAP is not moved and has no warning.
func TestMAPSaddle(t *testing.T) {
	tg := symMixture{y: []float64{-2.1, -1.8, -1.5, 1.9, 2.2, 2.4, 2.0, 1.7}}
	lat := []Latent{{Name: "mu", Size: 2, Shape: []int{2}, Support: dist.Real}}
	r, err := Fit(context.Background(), tg, lat, Settings{Method: MAP, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	mu := r.Factors[0].Params[0]
	t.Logf("MAP mu %v, log joint %.6g, %d iterations, warnings %q", mu, r.ELBO, r.Iterations, r.Warnings)
	if !r.Converged || math.Abs(mu[0]-mu[1]) < 3 {
		t.Errorf("MAP mu = %v (converged %v): still at the saddle mu1 = mu2", mu, r.Converged)
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "a stationary point that is not a mode") {
		t.Errorf("warnings %q", r.Warnings)
	}
	// the trace (elbo.csv) ends at the restarts' mode, not at the saddle
	if n := len(r.Trace); n == 0 || r.Trace[n-1].Iter != r.Iterations || r.Trace[n-1].ELBO != r.ELBO {
		t.Errorf("trace ends at %+v, want iteration %d, log joint %g", r.Trace[max(n-1, 0):], r.Iterations, r.ELBO)
	}
	c := gpCases[0]
	gp := newGammaPoisson(c.y, c.a0, c.b0)
	r, err = Fit(context.Background(), gp, gp.latents(), Settings{Method: MAP, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	pa, pb := gp.posterior()
	if v := r.Factors[0].Params[0][0]; !r.Converged || len(r.Warnings) > 0 || math.Abs(v-(pa-1)/pb) > 1e-6*v {
		t.Errorf("Gamma–Poisson MAP %v (converged %v, warnings %q), want the mode %v", v, r.Converged, r.Warnings, (pa-1)/pb)
	}
}

func TestMAPSimplexAndUnit(t *testing.T) {
	// Dirichlet(6, 2, 13) and Beta(9, 6): modes (α−1)/(Σα−K)
	dc := &dirichletCounts{alpha: []float64{6, 2, 13}, k: 3}
	r, err := Fit(context.Background(), dc, []Latent{{Name: "w", Size: 3, Shape: []int{3}, Support: dist.Simplex}}, Settings{Method: MAP})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range r.Factors[0].Params[0] {
		if want := (dc.alpha[i] - 1) / 18; math.Abs(v-want) > 1e-7 {
			t.Errorf("simplex MAP[%d] = %g, want %g", i, v, want)
		}
	}
	bb := &betaBernoulli{a: 9, b: 6}
	r, err = Fit(context.Background(), bb, []Latent{{Name: "p", Size: 1, Support: dist.Unit}}, Settings{Method: MAP})
	if err != nil {
		t.Fatal(err)
	}
	if v := r.Factors[0].Params[0][0]; math.Abs(v-8.0/13) > 1e-8 {
		t.Errorf("unit MAP %g, want %g", v, 8.0/13)
	}
}

// TestOptimizers runs every optimizer with its default step size on the
// normal–normal model for 5000 steps (seed 5) and checks the result each
// one reaches (measured, with margin).
func TestOptimizers(t *testing.T) {
	nn := &normalNormal{y: []float64{1.2, 0.3, 2.5, 1.9, 0.7}, sigma: 1, m0: 0, s0: 10}
	pm, ps := nn.posterior()
	lat := []Latent{{Name: "mu", Size: 1, Support: dist.Real}}
	tols := map[Optimizer]float64{ // error of mean and sd, in units of the posterior sd
		AdaDeltaMomentum: 0.01, AdaDelta: 0.01, Adam: 0.01, AdaGrad: 0.01,
		RMSprop: 0.05, Momentum: 0.1, SGD: 0.1, // η = 0.001: still approaching
	}
	for o := AdaDeltaMomentum; o <= SGD; o++ {
		// the iterate itself, not an average that lags behind the slow rules
		r, err := Fit(context.Background(), nn, lat, Settings{Seed: 5, Optimizer: o, Tol: -1, MaxIter: 5000, PSISDraws: -1, LastIterate: true})
		if err != nil {
			t.Fatal(err)
		}
		m, s := r.Factors[0].Params[0][0], r.Factors[0].Params[1][0]
		t.Logf("%-18v η=%g: mean %.6g (exact %.6g), sd %.6g (exact %.6g)", o, r.StepSize, m, pm, s, ps)
		if math.Abs(m-pm) > tols[o]*ps || math.Abs(s-ps) > tols[o]*ps {
			t.Errorf("%v: N(%g, %g), want N(%g, %g) within %g sd", o, m, s, pm, ps, tols[o])
		}
	}
}

func TestStepSizeSearch(t *testing.T) {
	nn := &normalNormal{y: []float64{1.2, 0.3, 2.5, 1.9, 0.7}, sigma: 1, m0: 0, s0: 10}
	pm, ps := nn.posterior()
	lat := []Latent{{Name: "mu", Size: 1, Support: dist.Real}}
	r, err := Fit(context.Background(), nn, lat, Settings{Seed: 5, Optimizer: Adam, SearchStepSize: true, Tol: -1, MaxIter: 2000, PSISDraws: -1})
	if err != nil {
		t.Fatal(err)
	}
	m, s := r.Factors[0].Params[0][0], r.Factors[0].Params[1][0]
	t.Logf("search chose η = %g; N(%.5g, %.5g)", r.StepSize, m, s)
	found := false
	for _, eta := range searchEtas {
		found = found || eta == r.StepSize
	}
	if !found || math.Abs(m-pm) > 0.01*ps || math.Abs(s-ps) > 0.01*ps {
		t.Errorf("η %g, N(%g, %g)", r.StepSize, m, s)
	}
}

func TestWarmStart(t *testing.T) {
	c := gpCases[0]
	gp := newGammaPoisson(c.y, c.a0, c.b0)
	r1, err := Fit(context.Background(), gp, gp.latents(), conjugateSettings())
	if err != nil {
		t.Fatal(err)
	}
	r2, err := Fit(context.Background(), gp, gp.latents(), Settings{Seed: 2, Init: r1, Tol: -1, MaxIter: 100, PSISDraws: -1})
	if err != nil {
		t.Fatal(err)
	}
	if first := r2.Trace[0].ELBO; math.Abs(first-c.logp) > elboTol {
		t.Errorf("warm start: first ELBO %g, want near %g", first, c.logp)
	}
	// from a result of another family (MAP): its mean becomes the initial mean
	rm, _ := Fit(context.Background(), gp, gp.latents(), Settings{Method: MAP})
	e, err := newEngine(gp, gp.latents(), &Settings{Init: rm})
	if err != nil {
		t.Fatal(err)
	}
	// the paper's initialisation: shape = the mean, rate = 1
	if p := e.blocks[0].params(e.theta); math.Abs(p[0][0]-rm.Factors[0].Params[0][0]) > 1e-12 || math.Abs(p[1][0]-1) > 1e-12 {
		t.Errorf("warm start from MAP: Gamma(%g, %g), want Gamma(%g, 1)", p[0][0], p[1][0], rm.Factors[0].Params[0][0])
	}
	// from a lognormal fit: its mean and sd too, so that the gamma factor
	// starts as tight as the fit it came from (from the mean alone,
	// Gamma(3.56, 1), sd 1.9, against the lognormal's sd 0.63)
	s := conjugateSettings()
	s.Families = map[string]Family{"lambda": FamilyLognormal}
	rl, err := Fit(context.Background(), gp, gp.latents(), s)
	if err != nil {
		t.Fatal(err)
	}
	e, err = newEngine(gp, gp.latents(), &Settings{Init: rl})
	if err != nil {
		t.Fatal(err)
	}
	mean, sd := make([]float64, 1), make([]float64, 1)
	rl.Factors[0].moments(mean, sd)
	p := e.blocks[0].params(e.theta)
	if a, b := p[0][0], p[1][0]; math.Abs(a/b-mean[0]) > 1e-9*mean[0] || math.Abs(math.Sqrt(a)/b-sd[0]) > 1e-9*sd[0] {
		t.Errorf("warm start from lognormal: Gamma(%g, %g) of mean %g, sd %g, want mean %g, sd %g", a, b, a/b, math.Sqrt(a)/b, mean[0], sd[0])
	}
	r3, err := Fit(context.Background(), gp, gp.latents(), Settings{Seed: 2, Init: rl, Tol: -1, MaxIter: 100, PSISDraws: -1})
	if err != nil {
		t.Fatal(err)
	}
	if first := r3.Trace[0].ELBO; math.Abs(first-c.logp) > 0.05 {
		t.Errorf("warm start from lognormal: first ELBO %g, want within 0.05 of %g", first, c.logp)
	}
}

func sameResult(t *testing.T, a, b *Result) {
	t.Helper()
	for i := range a.Factors {
		for j := range a.Factors[i].Params {
			for k, v := range a.Factors[i].Params[j] {
				if w := b.Factors[i].Params[j][k]; math.Float64bits(v) != math.Float64bits(w) {
					t.Fatalf("factor %d param %d[%d]: %v vs %v", i, j, k, v, w)
				}
			}
		}
	}
	if len(a.Trace) != len(b.Trace) {
		t.Fatalf("trace lengths %d, %d", len(a.Trace), len(b.Trace))
	}
	for i := range a.Trace {
		if a.Trace[i].ELBO != b.Trace[i].ELBO || a.Trace[i].SE != b.Trace[i].SE {
			t.Fatalf("trace %d differs", i)
		}
	}
	if math.Float64bits(a.ParetoK) != math.Float64bits(b.ParetoK) || a.ELBO != b.ELBO {
		t.Fatalf("k̂ %v vs %v, ELBO %v vs %v", a.ParetoK, b.ParetoK, a.ELBO, b.ELBO)
	}
}

func TestDeterminism(t *testing.T) {
	pg, lat := newPoissonGamma(20, 0.1, 1)
	lat = append(lat, Latent{Name: "w", Offset: 20, Size: 3, Shape: []int{3}, Support: dist.Simplex})
	tg := &composite{pg: pg, dc: &dirichletCounts{alpha: []float64{2, 3, 4}, k: 3}}
	var runs []*Result
	for _, w := range []int{1, 2, 3, 1} {
		r, err := Fit(context.Background(), tg, lat, Settings{Seed: 42, Workers: w, DrawsPerStep: 4, MaxIter: 300, Tol: -1, PSISDraws: 200})
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	for _, r := range runs[1:] {
		sameResult(t, runs[0], r)
	}
	r, _ := Fit(context.Background(), tg, lat, Settings{Seed: 43, DrawsPerStep: 4, MaxIter: 300, Tol: -1, PSISDraws: 200})
	if r.Factors[0].Params[0][0] == runs[0].Factors[0].Params[0][0] {
		t.Error("another seed gave the same result")
	}

	// one draw per step: the workers share the draw's segments, its
	// gradient and the optimizer step (1200 gamma elements make five; 1203
	// coordinates are above splitMin); one worker takes the unshared path.
	pg, lat = newPoissonGamma(1200, 0.1, 1)
	lat = append(lat, Latent{Name: "w", Offset: 1200, Size: 3, Shape: []int{3}, Support: dist.Simplex})
	tg = &composite{pg: pg, dc: &dirichletCounts{alpha: []float64{2, 3, 4}, k: 3}}
	for _, v := range []Settings{
		{},
		{Estimator: Entropy, Optimizer: Adam},
		{Estimator: STL, GammaParam: GammaLogMeanShape, Optimizer: RMSprop},
		{Families: map[string]Family{"lambda": FamilyLognormal}, Optimizer: AdaGrad},
	} {
		runs = runs[:0]
		for _, w := range []int{1, 2, 3} {
			s := v
			s.Seed, s.Workers, s.MaxIter, s.Tol, s.PSISDraws = 42, w, 300, -1, 200
			r, err := Fit(context.Background(), tg, lat, s)
			if err != nil {
				t.Fatal(err)
			}
			runs = append(runs, r)
		}
		for _, r := range runs[1:] {
			sameResult(t, runs[0], r)
		}
	}
}

// composite joins a poissonGamma over x[:n] and a dirichletCounts after it.
type composite struct {
	pg *poissonGamma
	dc *dirichletCounts
}

func (c *composite) LogJoint(x, grad []float64) (float64, error) {
	n := len(c.pg.y)
	a, _ := c.pg.LogJoint(x[:n], grad[:n])
	b, _ := c.dc.LogJoint(x[n:], grad[n:])
	return a + b, nil
}

func (c *composite) Clone() Target {
	return &composite{pg: c.pg.Clone().(*poissonGamma), dc: c.dc.Clone().(*dirichletCounts)}
}

func TestCancel(t *testing.T) {
	c := gpCases[0]
	gp := newGammaPoisson(c.y, c.a0, c.b0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := Settings{Seed: 1, Tol: -1, Progress: func(p Progress) {
		if p.Iter == 200 {
			cancel()
		}
	}}
	r, err := Fit(ctx, gp, gp.latents(), s)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Interrupted || r.Iterations != 200 || len(r.Factors) != 1 {
		t.Fatalf("interrupted %v at %d", r.Interrupted, r.Iterations)
	}
	// the returned q is the one reached after 200 steps
	r2, _ := Fit(context.Background(), gp, gp.latents(), Settings{Seed: 1, Tol: -1, MaxIter: 200, PSISDraws: -1})
	sameParams(t, r, r2)
}

// cancelAfter cancels its context at its limit-th log joint.
type cancelAfter struct {
	Target
	calls  *atomic.Int64
	limit  int64
	cancel func()
}

func (c *cancelAfter) LogJoint(x, grad []float64) (float64, error) {
	if c.calls.Add(1) == c.limit {
		c.cancel()
	}
	return c.Target.LogJoint(x, grad)
}

func (c *cancelAfter) Clone() Target { d := *c; d.Target = c.Target.Clone(); return &d }

// TestCancelELBO interrupts fits between evaluations, early while q still
// moves fast: the ELBO reported is that of the q returned (log p(y) −
// KL(q ‖ posterior), exact here), not the last evaluation's.
func TestCancelELBO(t *testing.T) {
	c := gpCases[0]
	pa, pb := newGammaPoisson(c.y, c.a0, c.b0).posterior()
	for _, limit := range []int64{130, 1270} {
		for _, lastIt := range []bool{false, true} {
			ctx, cancel := context.WithCancel(context.Background())
			tg := &cancelAfter{Target: newGammaPoisson(c.y, c.a0, c.b0), calls: new(atomic.Int64), limit: limit, cancel: cancel}
			lat := tg.Target.(*gammaPoisson).latents()
			s := Settings{Seed: 1, Tol: -1, GammaParam: GammaSoftplus, Workers: 1, LastIterate: lastIt}
			r, err := Fit(ctx, tg, lat, s)
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			f := r.Factors[0]
			want := c.logp - klGamma(f.Params[0][0], f.Params[1][0], pa, pb)
			last := r.Trace[len(r.Trace)-1]
			t.Logf("cancelled at log joint %d (iteration %d), last iterate %v: ELBO %.5g ± %.2g, exact %.5g; last evaluation %.5g at %d",
				limit, r.Iterations, lastIt, r.ELBO, r.ELBOSE, want, last.ELBO, last.Iter)
			if !r.Interrupted || math.Abs(r.ELBO-want) > 4*r.ELBOSE+1e-3 {
				t.Errorf("cancelled at %d, last iterate %v: interrupted %v, ELBO %v ± %v, exact %v", limit, lastIt, r.Interrupted, r.ELBO, r.ELBOSE, want)
			}
		}
	}
}

func sameParams(t *testing.T, a, b *Result) {
	t.Helper()
	for i := range a.Factors {
		for j := range a.Factors[i].Params {
			for k, v := range a.Factors[i].Params[j] {
				if w := b.Factors[i].Params[j][k]; v != w {
					t.Fatalf("factor %d param %d[%d]: %v vs %v", i, j, k, v, w)
				}
			}
		}
	}
}

// flaky returns NaN for about 5 % of the draws and, once broken, always
// fails with a positioned error.
type flaky struct {
	*gammaPoisson
	broken bool
}

var errShape = ast.Errorf(ast.Pos{File: "model.gpp", Line: 7, Col: 14}, "Gamma: shape must be > 0 (got -0.31)")

func (f *flaky) LogJoint(x, grad []float64) (float64, error) {
	if f.broken {
		return math.NaN(), errShape
	}
	lp, err := f.gammaPoisson.LogJoint(x, grad)
	if u := math.Abs(x[0]) * 1e4; u-math.Floor(u) < 0.05 {
		return math.NaN(), nil
	}
	return lp, err
}

func (f *flaky) Clone() Target { c := *f; return &c }

func TestNonFiniteDrawsSurvived(t *testing.T) {
	c := gpCases[0]
	tg := &flaky{gammaPoisson: newGammaPoisson(c.y, c.a0, c.b0)}
	pa, pb := tg.posterior()
	r, err := Fit(context.Background(), tg, tg.latents(), conjugateSettings())
	if err != nil {
		t.Fatal(err)
	}
	a, b := r.Factors[0].Params[0][0], r.Factors[0].Params[1][0]
	t.Logf("NaN on ~5%% of draws: %d steps skipped; q = Gamma(%.5g, %.5g); KL %.3g; warnings %q", r.BadSteps, a, b, klGamma(a, b, pa, pb), r.Warnings)
	if r.BadSteps == 0 || math.Abs(a/pa-1) > relTol || math.Abs(b/pb-1) > relTol {
		t.Errorf("bad steps %d, q = Gamma(%g, %g)", r.BadSteps, a, b)
	}
}

func TestBrokenTargetStops(t *testing.T) {
	c := gpCases[0]
	tg := &flaky{gammaPoisson: newGammaPoisson(c.y, c.a0, c.b0)}
	// the last iterate as q, so that the q kept at step 200 is the iterate
	s := Settings{Seed: 1, Tol: -1, LastIterate: true, Progress: func(p Progress) {
		if p.Iter == 200 {
			tg.broken = true
		}
	}}
	r, err := Fit(context.Background(), tg, tg.latents(), s)
	var pe *ast.Error
	if !errors.As(err, &pe) || pe != errShape {
		t.Fatalf("error %v, want the Target's positioned error", err)
	}
	// each run of MaxBadSteps bad steps goes back to the best q (the one
	// kept at step 200), MaxRollbacks times; the next one stops the fit
	if r == nil || r.Iterations != 200+(defaultMaxRollbacks+1)*defaultMaxBad || r.Rollbacks != defaultMaxRollbacks || r.Converged {
		t.Fatalf("result %+v", r)
	}
	t.Logf("stopped: %v; warnings %q", err, r.Warnings)
	// q is the best one: the iterate kept at step 200
	tg.broken = false
	r2, _ := Fit(context.Background(), tg, tg.latents(), Settings{Seed: 1, Tol: -1, MaxIter: 200, PSISDraws: -1, LastIterate: true})
	sameParams(t, r, r2)
	// always broken from the start: the initial q comes back
	tg.broken = true
	r3, err := Fit(context.Background(), tg, tg.latents(), Settings{Seed: 1})
	if err != errShape || r3.Factors[0].Params[0][0] != 1 || r3.Factors[0].Params[1][0] != 1 {
		t.Errorf("always broken: %v, q %v", err, r3.Factors[0].Params)
	}
}

func normLogPdf(x, sd float64) float64 { return -halfLog2Pi - math.Log(sd) - 0.5*x*x/(sd*sd) }

func TestParetoK(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n = 4000
	lw := make([]float64, n)
	for _, c := range []struct {
		sdq    float64
		lo, hi float64
	}{
		{1, math.Inf(-1), math.Inf(-1)},        // q = p: flat weights
		{1 - 1e-9, math.Inf(-1), math.Inf(-1)}, // q = p but for noise: flat
		{1 - 1e-4, -1, 0.5},                    // close, but the tail is fitted
		{1.5, math.Inf(-1), 0.5},               // q wider than p: bounded weights
		{0.3, 0.7, 1.2},                        // q much narrower: k = 0.91 in theory
	} {
		for i := range lw {
			x := c.sdq * rng.NormFloat64()
			lw[i] = normLogPdf(x, 1) - normLogPdf(x, c.sdq)
		}
		k := ParetoK(lw)
		t.Logf("sd(q)/sd(p) = %g: k̂ = %.3f (%s)", c.sdq, k, ParetoReading(k))
		if math.IsInf(c.lo, -1) && math.IsInf(c.hi, -1) {
			if !math.IsInf(k, -1) {
				t.Errorf("q = p: k̂ = %g", k)
			}
			continue
		}
		if !(k > c.lo && k < c.hi) {
			t.Errorf("sd(q) %g: k̂ = %g, want in (%g, %g)", c.sdq, k, c.lo, c.hi)
		}
	}
	if ParetoReading(0.3) != "good" || ParetoReading(0.6) != "ok" || ParetoReading(0.8) != "unreliable" {
		t.Error("readings")
	}
}

func TestSettingsErrors(t *testing.T) {
	gp := newGammaPoisson([]float64{1}, 1, 1)
	bad := [][]Latent{
		nil,
		{{Name: "a", Size: 0, Support: dist.Positive}},
		{{Name: "a", Size: 2, Support: dist.Positive}, {Name: "b", Offset: 1, Size: 1, Support: dist.Real}},
		{{Name: "a", Size: 1, Support: dist.Count}},
		{{Name: "a", Size: 4, Shape: []int{4}, Support: dist.Simplex}, {Name: "b", Offset: 4, Size: 3, Shape: []int{3, 1}, Support: dist.Simplex}},
	}
	for i, lat := range bad {
		if _, err := Fit(context.Background(), gp, lat, Settings{}); err == nil {
			t.Errorf("case %d: no error", i)
		}
	}
	for i, s := range []Settings{
		{Family: FamilyBeta},
		{Families: map[string]Family{"nope": FamilyLognormal}},
		{Families: map[string]Family{"lambda": FamilyNormal}},
	} {
		if _, err := Fit(context.Background(), gp, gp.latents(), s); err == nil {
			t.Errorf("settings %d accepted", i)
		}
	}
	if _, err := Fit(context.Background(), gp, gp.latents(), Settings{Families: map[string]Family{"lambda": FamilyLognormal}, MaxIter: 10, PSISDraws: -1}); err != nil {
		t.Error(err)
	}
}

func TestZeroAllocStep(t *testing.T) {
	for _, w := range []int{1, 2} {
		tg, lat := newPoissonGamma(500, 0.1, 1)
		s := Settings{Seed: 1, Workers: w, DrawsPerStep: w}.withDefaults()
		e, err := newEngine(tg, lat, &s)
		if err != nil {
			t.Fatal(err)
		}
		checkZeroAllocs(t, e, fmt.Sprintf("workers %d", w))
		e.close()
	}
}

// A split step (one draw shared by two workers) with deferred gamma work
// (deferred.go) and, for EntropyCV, the control variate moved by ranges
// (splitUpdate) allocates nothing either.
func TestZeroAllocSplitStep(t *testing.T) {
	for _, est := range []Estimator{STL, EntropyCV} {
		tg, lat := newPoissonGamma(500, 0.1, 1)
		s := Settings{Seed: 1, Workers: 2, Estimator: est}.withDefaults()
		e, err := newEngine(tg, lat, &s)
		if err != nil {
			t.Fatal(err)
		}
		if !e.split() || len(e.dfr.chunks) == 0 {
			t.Fatalf("%v: split %v with %d deferred chunks, want a split step with some", est, e.split(), len(e.dfr.chunks))
		}
		checkZeroAllocs(t, e, est.String())
		e.close()
	}
}

// checkZeroAllocs fails the test when a step or an ELBO evaluation of e
// allocates.
func checkZeroAllocs(t *testing.T, e *engine, label string) {
	t.Helper()
	it := 0
	step := func() {
		if ok, _ := e.step(streamStep, it, e.s.StepSize); !ok {
			t.Fatal("bad step")
		}
		it++
	}
	step()
	if a := testing.AllocsPerRun(50, step); a != 0 {
		t.Errorf("%s: %v allocations per step", label, a)
	}
	eval := func() { e.eval(streamEval, it, e.s.ELBODraws) }
	if a := testing.AllocsPerRun(5, eval); a != 0 {
		t.Errorf("%s: %v allocations per ELBO evaluation", label, a)
	}
}

func benchStep(b *testing.B, workers, draws int) {
	tg, lat := newPoissonGamma(500, 0.1, 1)
	s := Settings{Seed: 1, Workers: workers, DrawsPerStep: draws}.withDefaults()
	e, err := newEngine(tg, lat, &s)
	if err != nil {
		b.Fatal(err)
	}
	defer e.close()
	e.step(streamStep, 0, s.StepSize)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.step(streamStep, i+1, s.StepSize)
	}
}

// BenchmarkStep is one SGVB step on 500 positive latents with gamma
// factors (synthetic Poisson–gamma target, shapes around 0.1–3).
func BenchmarkStep(b *testing.B)            { benchStep(b, 1, 1) }
func BenchmarkStep4Draws(b *testing.B)      { benchStep(b, 1, 4) }
func BenchmarkStep4Draws2Work(b *testing.B) { benchStep(b, 2, 4) }

// TestPaperGammaGradient fits cases A and C with the paper's gamma gradient
// scheme (inverse CDF with a finite-difference shape derivative).
func TestPaperGammaGradient(t *testing.T) {
	for _, ci := range []int{0, 2} {
		c := gpCases[ci]
		gp := newGammaPoisson(c.y, c.a0, c.b0)
		pa, pb := gp.posterior()
		s := conjugateSettings()
		s.Gamma = dist.Paper{}
		r, err := Fit(context.Background(), gp, gp.latents(), s)
		if err != nil {
			t.Fatal(err)
		}
		a, b := r.Factors[0].Params[0][0], r.Factors[0].Params[1][0]
		kl := klGamma(a, b, pa, pb)
		t.Logf("dist.Paper, case %s: q = Gamma(%.5g, %.5g); KL %.3g; ELBO gap %.3g", c.name, a, b, kl, c.logp-r.ELBO)
		if math.Abs(a/pa-1) > relTol || math.Abs(b/pb-1) > relTol || kl > klTol || math.Abs(r.ELBO-c.logp) > elboTol {
			t.Errorf("case %s with dist.Paper: Gamma(%g, %g), KL %g, ELBO %g", c.name, a, b, kl, r.ELBO)
		}
	}
}
