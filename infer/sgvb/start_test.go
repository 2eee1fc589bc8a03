package sgvb

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/dist"
	"gonum.org/v1/gonum/floats"
)

// groupMeans is y_jk ~ Normal(μ_j, σ) for J groups of K, μ_j ~ Normal(0, 1),
// σ ~ HalfNormal(s0): coordinates μ_1…μ_J, log σ.
type groupMeans struct {
	y     [][]float64
	s0    float64
	sigma float64
}

func newGroupMeans(J, K int, sigma, s0 float64, seed uint64) *groupMeans {
	rng := rand.New(rand.NewPCG(seed, 0))
	g := &groupMeans{s0: s0, sigma: sigma}
	for range J {
		mu := rng.NormFloat64()
		row := make([]float64, K)
		for k := range row {
			row[k] = mu + sigma*rng.NormFloat64()
		}
		g.y = append(g.y, row)
	}
	return g
}

func (g *groupMeans) LogJoint(x, grad []float64) (float64, error) {
	J := len(g.y)
	l := x[J]
	v := math.Exp(2 * l)
	lp := -0.5 * v / (g.s0 * g.s0)
	grad[J] = -v / (g.s0 * g.s0)
	for j, row := range g.y {
		mu := x[j]
		lp -= 0.5 * mu * mu
		grad[j] = -mu
		for _, y := range row {
			r := y - mu
			lp -= l + 0.5*r*r/v
			grad[j] += r / v
			grad[J] += -1 + r*r/v
		}
	}
	return lp, nil
}

func (g *groupMeans) Clone() Target { return g }

// latents returns the latents of g: μ real, σ positive with its
// prior mean as Init (as the compiler gives it).
func (g *groupMeans) latents() []Latent {
	J := len(g.y)
	return []Latent{{Name: "mu", Size: J, Shape: []int{J}, Support: dist.Real},
		{Name: "sigma", Offset: J, Size: 1, Shape: []int{}, Support: dist.Positive, Init: []float64{g.s0 * math.Sqrt(2/math.Pi)}}}
}

// A noise scale sharply determined by the data (σ = 0.02 from 1000
// observations: the posterior's gamma shape is about 2000) under a tight
// HalfNormal(0.1) prior, whose mean 0.08 is σ's Init. The paper's start,
// Gamma(0.08, 1), drew log σ down to −60, where the log joint was −10⁵³;
// its gradients froze AdaDelta, and seed 3 ended at shape 26 after a
// rollback. From Gamma(minStartShape, minStartShape/0.08) every seed ends
// at the posterior.
func TestSmallMeanGammaStart(t *testing.T) {
	g := newGroupMeans(50, 20, 0.02, 0.1, 3)
	lat := g.latents()
	ss, n := 0.0, 0
	for _, row := range g.y {
		m := floats.Sum(row) / float64(len(row))
		for _, y := range row {
			ss += (y - m) * (y - m)
		}
		n += len(row) - 1
	}
	ref := math.Sqrt(ss / float64(n))   // σ's estimate, about its posterior mean
	sd := ref / math.Sqrt(float64(2*n)) // and sd
	for seed := uint64(1); seed <= 3; seed++ {
		r, err := Fit(context.Background(), g, lat, Settings{Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		f := r.Factors[1]
		a, b := f.Params[0][0], f.Params[1][0]
		t.Logf("seed %d: q(σ) = Gamma(%.4g, %.4g), mean %.5g; ELBO %.6g, k̂ %.3g, %d iterations, warnings %q", seed, a, b, a/b, r.ELBO, r.ParetoK, r.Iterations, r.Warnings)
		if !(a > 1000 && a < 4000) || math.Abs(a/b-ref) > 2*sd {
			t.Errorf("seed %d: q(σ) = Gamma(%.4g, %.4g) of mean %.5g, want a shape near 2000 and a mean within 2 sds (%.2g) of %.5g", seed, a, b, a/b, sd, ref)
		}
		if !r.Converged || r.Rollbacks > 0 || len(r.Warnings) > 0 {
			t.Errorf("seed %d: converged %v, %d rollbacks, warnings %q", seed, r.Converged, r.Rollbacks, r.Warnings)
		}
	}
}

// An ELBO estimate is a mean of log p − log q over q's draws, and must lie
// within their range. At a gamma factor of shape 0.08 (the paper's start of
// σ above) the draws' log p reach −10⁶⁰ and below, and the control
// variate's coefficient, fitted to that tail, put 4 of 200 estimates from
// 20 draws above every draw, by up to 10⁶⁷ (in the random walk this test
// stands for, the start's estimate was +1.7·10⁵⁰, and the guard took every
// later evaluation for a divergence).
func TestELBOEstimateHeavyTail(t *testing.T) {
	g := newGroupMeans(50, 20, 0.02, 0.1, 3)
	s := Settings{Seed: 1}.withDefaults()
	e, err := newEngine(g, g.latents(), &s)
	if err != nil {
		t.Fatal(err)
	}
	defer e.close()
	b := &e.blocks[e.latBlock[1]]
	th := e.theta[b.poff : b.poff+b.np()]
	a, m := 0.08, 0.08
	if b.logMS {
		th[0], th[1] = math.Log(a), math.Log(m)
	} else {
		th[0], th[1] = softplusInv(a), softplusInv(a/m)
	}
	for it := range 200 {
		n := guardDraws
		elbo, _, _ := e.eval(streamEval, it, n)
		lo, hi := math.Inf(1), math.Inf(-1)
		for d := range n {
			if e.ok[d] {
				lo, hi = min(lo, e.lp[d]-e.lq[d]), max(hi, e.lp[d]-e.lq[d])
			}
		}
		if !(elbo >= lo && elbo <= hi) {
			t.Errorf("iteration %d: estimate %.4g outside the draws' log p − log q, [%.4g, %.4g]", it, elbo, lo, hi)
		}
	}
}

// farCliff is a standard normal whose density drops by e⁻¹⁰¹² past at:
// a region too rare for the evaluations' draws of q ≈ N(0, 1), which the
// final estimate's 1000 draws reach.
type farCliff struct{ at float64 }

func (c farCliff) LogJoint(x, grad []float64) (float64, error) {
	grad[0] = -x[0]
	lp := -0.5 * x[0] * x[0]
	if x[0] > c.at {
		lp -= 1e12
	}
	return lp, nil
}

func (c farCliff) Clone() Target { return c }

// A fit whose evaluations settled while its final estimate collapsed is
// Converged and Collapsed (the CLI's status line says both); with the
// cliff out of q's reach it is Converged alone.
func TestCollapsedResult(t *testing.T) {
	lat := []Latent{{Name: "x", Size: 1, Shape: []int{}, Support: dist.Real}}
	for _, c := range []struct {
		at        float64
		collapsed bool
	}{{3, true}, {10, false}} {
		r, err := Fit(context.Background(), farCliff{c.at}, lat, Settings{Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		last := r.Trace[len(r.Trace)-1].ELBO
		if !r.Converged || r.Collapsed != c.collapsed {
			t.Errorf("cliff at %g: converged %v, collapsed %v (want %v); final ELBO %.4g, last evaluation %.4g; warnings %q", c.at, r.Converged, r.Collapsed, c.collapsed, r.ELBO, last, r.Warnings)
		}
	}
}

// TestGammaStartShape: a gamma factor whose initial mean is below
// minStartShape starts at that shape with the mean kept, and at shape =
// mean, rate 1 with paperStart (Settings.PaperStart, the paper's code),
// in both parameterisations; a mean above it starts as the paper's.
func TestGammaStartShape(t *testing.T) {
	for _, c := range []struct {
		mean            float64
		shape, rate     float64
		paperStartShape float64
		paperStartRate  float64
	}{
		{mean: 0.08, shape: minStartShape, rate: minStartShape / 0.08, paperStartShape: 0.08, paperStartRate: 1},
		{mean: 2, shape: 2, rate: 1, paperStartShape: 2, paperStartRate: 1},
	} {
		for _, logMS := range []bool{false, true} {
			for _, paper := range []bool{false, true} {
				b := block{fam: FamilyGamma, n: 1, logMS: logMS, paperStart: paper}
				th := make([]float64, 2)
				b.initTheta(&Latent{Init: []float64{c.mean}}, th)
				shape, rate := softplus(th[0]), softplus(th[1])
				if logMS {
					shape, rate = math.Exp(th[0]), math.Exp(th[0])/math.Exp(th[1])
				}
				wantShape, wantRate := c.shape, c.rate
				if paper {
					wantShape, wantRate = c.paperStartShape, c.paperStartRate
				}
				if math.Abs(shape-wantShape) > 1e-12*wantShape || math.Abs(rate-wantRate) > 1e-12*wantRate {
					t.Errorf("mean %v, log-mean-shape %v, paper %v: shape %v rate %v, want %v and %v", c.mean, logMS, paper, shape, rate, wantShape, wantRate)
				}
			}
		}
	}
}
