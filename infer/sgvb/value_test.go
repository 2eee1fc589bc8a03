package sgvb

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpplang/gpp/dist"
)

// countingTarget counts the calls of a ValueTarget's two methods.
type countingTarget struct {
	*gammaPoisson
	grads, values *int
}

func (c countingTarget) LogJoint(x, grad []float64) (float64, error) {
	*c.grads++
	return c.gammaPoisson.LogJoint(x, grad)
}

func (c countingTarget) LogJointValue(x []float64) (float64, error) {
	*c.values++
	g := make([]float64, len(x))
	return c.gammaPoisson.LogJoint(x, g)
}

func (c countingTarget) Clone() Target { return c }

// A fit asks a ValueTarget for a gradient at its steps alone: the start's
// estimate, the ELBO monitor, the final estimate and k̂, and a mixture's
// estimate take values.
func TestFitGradientsAtStepsOnly(t *testing.T) {
	var grads, values int
	tg := countingTarget{newGammaPoisson([]float64{3, 1, 4, 1, 5}, 1, 1), &grads, &values}
	s := Settings{Seed: 2, MaxIter: 300, Tol: -1, EvalEvery: 100, ELBODraws: 40, PSISDraws: 250, Workers: 1}
	r, err := Fit(context.Background(), tg, tg.latents(), s)
	if err != nil {
		t.Fatal(err)
	}
	if r.BadSteps != 0 {
		t.Fatalf("%d bad steps", r.BadSteps)
	}
	if grads != r.Iterations {
		t.Errorf("%d gradients in a fit of %d steps, want one per step", grads, r.Iterations)
	}
	// the guard's start, three monitor estimates, the last iterate's
	// against the average's (the fit ends at MaxIter), the final estimate
	if want := guardDraws + 4*40 + 250; values != want {
		t.Errorf("%d values, want %d", values, want)
	}
	grads, values = 0, 0
	m, err := FitRestarts(context.Background(), tg, tg.latents(), s, Restarts{N: 2, Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	if steps := m.Components[0].Iterations + m.Components[1].Iterations; grads != steps {
		t.Errorf("restarts: %d gradients in %d steps", grads, steps)
	}
	grads = 0
	Resample(tg, r, r.Dim, 100, 10, 1, 1)
	if grads != 0 {
		t.Errorf("Resample took %d gradients", grads)
	}
}

// An ELBO estimate's gamma draws, which skip the shape derivative, are a
// step's draws bit for bit, at shapes from 10⁻³ to 10⁶ (both branches of
// the sampler), and their log q with its draw-free part computed once per
// estimate (logq0) is logq's.
func TestEvalDrawsAreStepDraws(t *testing.T) {
	shapes := []float64{1e-3, 0.2, 0.9, 1, 3, 40, 1e3, 1e6}
	n := len(shapes)
	b := block{name: "z", fam: FamilyGamma, support: dist.Positive, n: n, k: 1, logMS: true}
	c := newStepCache(2*n, true)
	theta := make([]float64, 2*n)
	for i, a := range shapes {
		theta[i], theta[n+i] = math.Log(a), math.Log(2)
	}
	c.fill([]block{b}, theta)
	x1, x2 := make([]float64, n), make([]float64, n)
	aux := make([]float64, 2*n)
	lq0 := make([]float64, 2*n)
	b.logq0(&c, lq0)
	for d := range 200 {
		r1, r2 := rand.New(rand.NewPCG(uint64(d), 5)), rand.New(rand.NewPCG(uint64(d), 5))
		b.sampleSpan(&c, dist.Implicit{}, r1, x1, aux, 0, n, false)
		b.sampleSpan(&c, dist.Implicit{}, r2, x2, aux, 0, n, true)
		for i := range x1 {
			if math.Float64bits(x1[i]) != math.Float64bits(x2[i]) {
				t.Fatalf("draw %d, shape %v: %v with the derivative, %v without", d, shapes[i], x1[i], x2[i])
			}
		}
		if l1, l2 := b.logq(&c, x1, aux), b.logqWith(&c, x1, aux, lq0); math.Float64bits(l1) != math.Float64bits(l2) {
			t.Fatalf("draw %d: log q %v, with logq0 %v", d, l1, l2)
		}
	}
}

// studentTarget is a product of independent Student-t(ν) densities
// (unnormalised): heavier-tailed than any normal q, so that k̂ sits near
// 0.7 for moderate ν.
type studentTarget struct{ nu float64 }

func (s studentTarget) LogJoint(x, grad []float64) (float64, error) {
	lp := 0.0
	for i, v := range x {
		lp += -(s.nu + 1) / 2 * math.Log1p(v*v/s.nu)
		grad[i] = -(s.nu + 1) * v / (s.nu + v*v)
	}
	return lp, nil
}

func (s studentTarget) Clone() Target { return s }

// Where the final 1000 draws give k̂ in [KBandLow, KBandHigh], a fit
// estimates k̂ again from ParetoKDraws draws, whose first 1000 are the
// same; its ELBO stays the 1000 draws'. Outside the band k̂ stays that of
// the 1000 draws. So for a mixture of restarts.
func TestParetoKBand(t *testing.T) {
	ctx := context.Background()
	tg := studentTarget{8}
	lat := []Latent{{Name: "x", Size: 3, Shape: []int{3}, Support: dist.Real}}
	s := Settings{Seed: 1, Workers: 2, ParetoKDraws: -1}
	r1, err := Fit(ctx, tg, lat, s)
	if err != nil {
		t.Fatal(err)
	}
	if !(r1.ParetoK >= KBandLow && r1.ParetoK <= KBandHigh) || r1.ParetoKDraws != 1000 {
		t.Fatalf("k̂ %v from %d draws; the test wants a fit whose 1000 draws give one in the band", r1.ParetoK, r1.ParetoKDraws)
	}
	s.ParetoKDraws = 0 // the default, 10 000
	r2, err := Fit(ctx, tg, lat, s)
	if err != nil {
		t.Fatal(err)
	}
	s.ParetoKDraws, s.PSISDraws = -1, 10000
	r3, err := Fit(ctx, tg, lat, s)
	if err != nil {
		t.Fatal(err)
	}
	if r2.ParetoKDraws != 10000 || !sameBits(r2.ParetoK, r3.ParetoK) {
		t.Errorf("k̂ %v from %d draws; 10 000 final draws give %v", r2.ParetoK, r2.ParetoKDraws, r3.ParetoK)
	}
	if !sameBits(r2.ELBO, r1.ELBO) || !sameBits(r2.ELBOSE, r1.ELBOSE) {
		t.Errorf("ELBO %v ± %v, without the second estimate %v ± %v", r2.ELBO, r2.ELBOSE, r1.ELBO, r1.ELBOSE)
	}
	t.Logf("k̂ %.3f from 1000 draws, %.3f from 10 000", r1.ParetoK, r2.ParetoK)

	// outside the band: the conjugate Gamma–Poisson's q is its posterior
	gp := newGammaPoisson([]float64{3, 1, 4, 1, 5}, 1, 1)
	r4, err := Fit(ctx, gp, gp.latents(), Settings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r4.ParetoK >= KBandLow || r4.ParetoKDraws != 1000 {
		t.Errorf("Gamma–Poisson: k̂ %v from %d draws, want one below %v from 1000", r4.ParetoK, r4.ParetoKDraws, KBandLow)
	}

	s = Settings{Seed: 2, Workers: 2, ParetoKDraws: -1}
	rs := Restarts{N: 2, Parallel: 1}
	m1, err := FitRestarts(ctx, tg, lat, s, rs)
	if err != nil {
		t.Fatal(err)
	}
	if !(m1.ParetoK >= KBandLow && m1.ParetoK <= KBandHigh) || m1.ParetoKDraws != 1000 {
		t.Fatalf("mixture: k̂ %v from %d draws; the test wants one in the band from 1000", m1.ParetoK, m1.ParetoKDraws)
	}
	s.ParetoKDraws = 0
	m2, err := FitRestarts(ctx, tg, lat, s, rs)
	if err != nil {
		t.Fatal(err)
	}
	if want, ess := m2.paretoK(tg, 10000, s.Seed, 1); m2.ParetoKDraws != 10000 || !sameBits(m2.ParetoK, want) || !sameBits(m2.ParetoRelESS, ess) {
		t.Errorf("mixture: k̂ %v (relative ESS %v) from %d draws; its 10 000 draws give %v (%v)", m2.ParetoK, m2.ParetoRelESS, m2.ParetoKDraws, want, ess)
	}
	if !sameBits(m2.ELBO, m1.ELBO) {
		t.Errorf("mixture: ELBO %v, without the second estimate %v", m2.ELBO, m1.ELBO)
	}
	t.Logf("mixture: k̂ %.3f from 1000 draws, %.3f from 10 000", m1.ParetoK, m2.ParetoK)
}

// Pathfinder's ELBO draws take values of a ValueTarget, not gradients:
// its gradients are the L-BFGS path's alone, as many whatever the draws
// an iterate, and its values are the draws, PathfinderDraws a scored
// normal. LogDensityValue is LogDensity's value bit for bit.
func TestPathfinderDrawsTakeValues(t *testing.T) {
	var grads, values int
	tg := countingTarget{newGammaPoisson([]float64{3, 1, 4, 1, 5}, 1, 1), &grads, &values}
	var pathGrads []int
	for _, draws := range []int{25, 50} {
		grads, values = 0, 0
		r, err := Fit(context.Background(), tg, tg.latents(), Settings{Method: Pathfinder, Seed: 2, PSISDraws: -1, Workers: 1, PathfinderDraws: draws})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Trace) == 0 || values != draws*len(r.Trace) {
			t.Errorf("%d draws an iterate: %d values for %d scored normals, want %d", draws, values, len(r.Trace), draws*len(r.Trace))
		}
		pathGrads = append(pathGrads, grads)
	}
	if pathGrads[0] != pathGrads[1] {
		t.Errorf("gradients %v with 25 and 50 draws an iterate: the draws took gradients", pathGrads)
	}

	ud, err := NewUnconstrained(tg, tg.latents())
	if err != nil {
		t.Fatal(err)
	}
	g := newRegressionP(40, 3)
	udr, err := NewUnconstrained(g, []Latent{{Name: "beta", Offset: 0, Size: 3, Shape: []int{3}, Support: dist.Real}})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, d := range []*Unconstrained{ud, udr} {
		u, grad := make([]float64, d.Dim()), make([]float64, d.Dim())
		for range 20 {
			for i := range u {
				u[i] = 4*rng.Float64() - 2
			}
			want, errG := d.LogDensity(u, grad)
			got, errV := d.LogDensityValue(u)
			if math.Float64bits(got) != math.Float64bits(want) || (errG == nil) != (errV == nil) {
				t.Fatalf("u %v: LogDensityValue %v (%v), LogDensity %v (%v)", u, got, errV, want, errG)
			}
		}
	}
}

// estimateKAgain asks for k̂ from more draws only near 0.7 and only where
// the first draws' weights are not degenerate: then q is unreliable
// whatever k̂ says, and the draws (a log joint each) would be wasted.
func TestEstimateKAgain(t *testing.T) {
	for _, c := range []struct {
		k, relESS float64
		n, N      int
		want      bool
	}{
		{0.6, 0.3, 1000, 10000, true},
		{0.6, 1.0 / 1000, 1000, 10000, false}, // an ESS of 1: one draw holds the weight
		{0.9, 1.9 / 1000, 1000, 10000, false},
		{0.9, 2.1 / 1000, 1000, 10000, true},
		{0.4, 0.3, 1000, 10000, false},
		{1.2, 0.3, 1000, 10000, false},
		{0.6, 0.3, 1000, 1000, false},
		{0.6, 0.3, 1000, -1, false},
	} {
		if got := estimateKAgain(c.k, c.relESS, c.n, c.N); got != c.want {
			t.Errorf("k̂ %v, relative ESS %v of %d draws, %d more: again %v, want %v", c.k, c.relESS, c.n, c.N, got, c.want)
		}
	}
}

// TestParetoKCap: with Settings.ParetoKCost, k̂'s estimate again takes
// at most that many times the fit's gradient draws beyond PSISDraws
// (rounded down to a multiple of PSISDraws, none below 2·PSISDraws, at
// least ParetoKFree), says so in ParetoKCapped, and is the uncapped k̂ of
// as many draws: the same stream's first draws.
func TestParetoKCap(t *testing.T) {
	ctx := context.Background()
	tg := studentTarget{8}
	lat := []Latent{{Name: "x", Size: 3, Shape: []int{3}, Support: dist.Real}}
	base := Settings{Seed: 1, Workers: 2}
	r0, err := Fit(ctx, tg, lat, base)
	if err != nil {
		t.Fatal(err)
	}
	if r0.ParetoKDraws != 10000 || r0.ParetoKCapped != 0 {
		t.Fatalf("uncapped: k̂ from %d draws, capped %d; the test wants a fit that estimates it again", r0.ParetoKDraws, r0.ParetoKCapped)
	}
	work := float64(r0.Iterations) // one draw a step
	for _, c := range []struct {
		cost float64
		free int
		want int
	}{
		{1e6, 0, 10000},                  // does not bind
		{3500 / work, 0, 4000},           // 1000 + 3500 → 4000
		{900 / work, 0, 1000},            // fewer than 1000 more: none
		{900 / work, 5000, 6000},         // the free draws
		{0, 0, 10000},                    // no cap
		{float64(9000) / work, 0, 10000}, // exactly the extra draws
		{float64(8999) / work, 0, 9000},  // one short
	} {
		s := base
		s.ParetoKCost, s.ParetoKFree = c.cost, c.free
		r, err := Fit(ctx, tg, lat, s)
		if err != nil {
			t.Fatal(err)
		}
		wantCapped := 0
		if c.want < 10000 {
			wantCapped = 10000
		}
		if r.ParetoKDraws != c.want || r.ParetoKCapped != wantCapped {
			t.Errorf("cost %g, free %d: k̂ from %d draws, capped %d; want %d, %d", c.cost, c.free, r.ParetoKDraws, r.ParetoKCapped, c.want, wantCapped)
			continue
		}
		u := base
		u.ParetoKDraws = c.want
		if c.want == 1000 {
			u.ParetoKDraws = -1
		}
		ru, err := Fit(ctx, tg, lat, u)
		if err != nil {
			t.Fatal(err)
		}
		if !sameBits(r.ParetoK, ru.ParetoK) || !sameBits(r.ELBO, r0.ELBO) {
			t.Errorf("cost %g: k̂ %v, ParetoKDraws %d's %v; ELBO %v, uncapped %v", c.cost, r.ParetoK, c.want, ru.ParetoK, r.ELBO, r0.ELBO)
		}
	}
}

// A minibatch draw counts as its batch's share of a log joint.
func TestParetoKCapShare(t *testing.T) {
	e := &engine{s: &Settings{DrawsPerStep: 2, Minibatch: shareTarget{0.01}}}
	if w := e.fitWork(&Result{Iterations: 5000}); w != 100 {
		t.Errorf("5000 steps of 2 draws at 1 %%: %v log joints, want 100", w)
	}
	e.s.Minibatch = nil
	if w := e.fitWork(&Result{Iterations: 5000}); w != 10000 {
		t.Errorf("5000 steps of 2 draws: %v log joints, want 10000", w)
	}
}

type shareTarget struct{ share float64 }

func (shareTarget) LogJoint(x, grad []float64) (float64, error) { return 0, nil }
func (t shareTarget) Clone() Target                             { return t }
func (shareTarget) SetBatch(hi, lo uint64)                      {}
func (t shareTarget) BatchShare() float64                       { return t.share }
