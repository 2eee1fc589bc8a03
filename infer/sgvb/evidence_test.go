package sgvb

import (
	"context"
	"math"
	"testing"
)

// TestEvidenceFrom checks the estimate and its standard error on weights
// worked by hand: 1, 3 and two zeros (a failed draw, one outside the
// support) have mean 1 and sample variance (0 + 4 + 1 + 1)/3 = 2.
func TestEvidenceFrom(t *testing.T) {
	ev := evidenceFrom([]float64{math.Log(1) - 700, math.Log(3) - 700, math.NaN(), math.Inf(-1)})
	if math.Abs(ev.LogZ-(-700)) > 1e-12 || math.Abs(ev.SE-math.Sqrt(0.5)) > 1e-12 || ev.Zero != 2 || ev.Draws != 4 {
		t.Errorf("log Z %.15g (want −700), se %.15g (want √½), zero %d, draws %d", ev.LogZ, ev.SE, ev.Zero, ev.Draws)
	}
	ev = evidenceFrom([]float64{2.5, 2.5, 2.5})
	if ev.LogZ != 2.5 || ev.SE != 0 {
		t.Errorf("equal weights: log Z %v, se %v", ev.LogZ, ev.SE)
	}
	if ev := evidenceFrom([]float64{math.NaN(), math.Inf(-1)}); !math.IsInf(ev.LogZ, -1) || ev.Zero != 2 {
		t.Errorf("no finite weight: log Z %v, zero %d", ev.LogZ, ev.Zero)
	}
}

// TestEvidenceMeanField estimates the log evidence of the Gaussian
// posterior whose a and b are correlated 0.9 from a mean-field q, whose
// ELBO is ½ log(1 − 0.9²) = −0.83 nats short of it: importance sampling
// from ½q + ½g recovers log Z within its standard error, on b's values
// (a gamma factor) and on its logs, and the estimate does not depend on
// the number of goroutines. The weights' relative ESS is about 0.12 (q is
// too narrow across the correlation), so the standard error of 10 000
// draws is about √(1/0.12 − 1)/100 = 0.027.
func TestEvidenceMeanField(t *testing.T) {
	for _, pos := range []bool{false, true} {
		tg := newJointGauss(pos)
		logZ := tg.logZ()
		r, err := Fit(context.Background(), tg, tg.latents(), conjugateSettings())
		if err != nil {
			t.Fatal(err)
		}
		ev, err := EstimateEvidence(tg, r, EvidenceDraws, 7, 2)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("b positive %v: ELBO %.4f, evidence %.4f ± %.4f (k̂ %.2f, rel. ESS %.2f), log Z %.4f", pos, r.ELBO, ev.LogZ, ev.SE, ev.K, ev.RelESS, logZ)
		if !(math.Abs(ev.LogZ-logZ) < 4*ev.SE && ev.SE < 0.04 && ev.K < 0.5 && ev.Zero == 0) {
			t.Errorf("b positive %v: evidence %.4f ± %.4f (k̂ %.2f, %d zero), want log Z %.4f within 4 se", pos, ev.LogZ, ev.SE, ev.K, ev.Zero, logZ)
		}
		if !(r.ELBO < logZ-0.7) {
			t.Errorf("b positive %v: the mean-field ELBO %.4f is not short of log Z %.4f: the test shows nothing", pos, r.ELBO, logZ)
		}
		ev1, _ := EstimateEvidence(tg, r, EvidenceDraws, 7, 1)
		if ev1.LogZ != ev.LogZ || ev1.SE != ev.SE || ev1.K != ev.K {
			t.Errorf("b positive %v: one goroutine gives %v ± %v, two %v ± %v", pos, ev1.LogZ, ev1.SE, ev.LogZ, ev.SE)
		}
	}
}

// TestEvidenceConjugate estimates log p(y) of the Gamma–Poisson cases,
// whose q is exact, to within 4 standard errors of the closed form.
func TestEvidenceConjugate(t *testing.T) {
	for _, c := range gpCases {
		gp := newGammaPoisson(c.y, c.a0, c.b0)
		r, err := Fit(context.Background(), gp, gp.latents(), conjugateSettings())
		if err != nil {
			t.Fatal(err)
		}
		ev, err := EstimateEvidence(gp, r, 4000, 1, 2)
		if err != nil {
			t.Fatal(err)
		}
		if !(math.Abs(ev.LogZ-c.logp) < 4*ev.SE && ev.SE < 0.01) {
			t.Errorf("case %s: evidence %.5f ± %.2g, log p(y) %.5f", c.name, ev.LogZ, ev.SE, c.logp)
		}
	}
}

// TestEvidenceRestarts estimates it from a mixture of restarts (of their
// defensive mixtures ½q_r + ½g_r), and a MAP point is refused.
func TestEvidenceRestarts(t *testing.T) {
	tg := newJointGauss(false)
	s := conjugateSettings()
	s.MaxIter = 3000
	m, err := FitRestarts(context.Background(), tg, tg.latents(), s, Restarts{N: 2, Jitter: 1})
	if err != nil {
		t.Fatal(err)
	}
	ev := m.EstimateEvidence(tg, EvidenceDraws, 3, 2)
	if !(math.Abs(ev.LogZ-tg.logZ()) < 4*ev.SE && ev.SE < 0.15) || ev.Proposal != "the restarts' ½q + ½g" {
		t.Errorf("restarts: evidence %.4f ± %.4f (%s), log Z %.4f", ev.LogZ, ev.SE, ev.Proposal, tg.logZ())
	}
	s.Method = MAP
	r, err := Fit(context.Background(), tg, tg.latents(), s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := EstimateEvidence(tg, r, 100, 1, 1); err == nil {
		t.Error("a MAP point gave an evidence")
	}
}

// noisyTail is a Gamma(0.05, 1) density (no data: the posterior is the
// prior, log Z = 0) whose log joint is rounding noise, +10²⁵⁰, beyond
// log z = 60, as a model's can be far out in a right tail (the EPM's
// −½Σr(s² − ΣW²) at W = e^344 came out +1.4·10²⁵¹).
type noisyTail struct{ *gammaPoisson }

func (t noisyTail) LogJoint(x, grad []float64) (float64, error) {
	if x[0] > 60 {
		return 1e250, nil
	}
	return t.gammaPoisson.LogJoint(x, grad)
}

func (t noisyTail) Clone() Target { return noisyTail{t.gammaPoisson.Clone().(*gammaPoisson)} }

// TestEvidenceNoisyTail: the evidence's g widens a gamma factor of small
// shape as a gamma (shape a/4), whose log has no long right tail, so no
// draw reaches log z = 60 and the estimate is log Z = 0 within its se. A
// Student-t on log z scaled by its sd (about 1/a = 20), LOO's g, put 2–3 %
// of its draws beyond 60, and the estimate at 10²⁵⁰.
func TestEvidenceNoisyTail(t *testing.T) {
	gp := newGammaPoisson(nil, 0.05, 1)
	tg := noisyTail{gp}
	r, err := Fit(context.Background(), tg, gp.latents(), conjugateSettings())
	if err != nil {
		t.Fatal(err)
	}
	ev, err := EstimateEvidence(tg, r, EvidenceDraws, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("q = Gamma(%.4g, %.4g): evidence %.4f ± %.2g (k̂ %.2f), exact 0", r.Factors[0].Params[0][0], r.Factors[0].Params[1][0], ev.LogZ, ev.SE, ev.K)
	if !(math.Abs(ev.LogZ) < 4*ev.SE && ev.SE < 0.05) {
		t.Errorf("evidence %.4g ± %.2g (k̂ %.2f), want 0", ev.LogZ, ev.SE, ev.K)
	}
}
