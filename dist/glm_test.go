package dist

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
)

// Tolerances of the PoissonLog and BinomialLogit tests.
const (
	// glmRefUlps bounds the log mass against mpmath in units of eps times
	// 1 + |log p| + |∂ log p/∂η|: the last term is what the rounding of
	// e^η or σ(η) to float64 (a relative ulp, as an ulp of error in η
	// would) moves it by. It is the whole error at η = 50 and k = e^50,
	// where e^η itself is off by 4e5.
	glmRefUlps = 8
	// glmPartialUlps bounds the partial k − mean against mpmath in units of
	// eps times k + mean, the size of its two terms.
	glmPartialUlps = 4
	// glmFDTol is the agreement of the partial with central differences
	// at large |η|, relative to max(1, |partial|).
	glmFDTol = 1e-7
)

// TestGLMReference checks PoissonLog and BinomialLogit, log mass and η
// partial, against testdata/glm.csv: mpmath at 100 digits, the partial by a
// high-precision central difference (see glm.py), at |η| up to 800 where
// exp(η) overflows or underflows and inv_logit(η) rounds to 0 or 1, and at
// counts up to 1e21 (PoissonLog) and n up to 1e15 (BinomialLogit) where the
// terms of the textbook form cancel.
func TestGLMReference(t *testing.T) {
	rows := readRefCSV(t, "testdata/glm.csv", 6)
	if len(rows) < 40 {
		t.Fatalf("%d reference rows, want at least 40", len(rows))
	}
	worst := [2]float64{}
	for _, r := range rows {
		n, eta, k, wantLP, wantD := r[1], r[2], r[3], r[4], r[5]
		var d interface {
			LogProb(float64) float64
			Score([]float64, float64) []float64
			Mean() float64
		}
		name := "PoissonLog"
		if r[0] == 0 {
			d = PoissonLog{eta}
		} else {
			d, name = BinomialLogit{n, eta}, "BinomialLogit"
		}
		mean := d.Mean()
		s := d.Score(nil, k)
		lp, dEta := d.LogProb(k), s[len(s)-1]
		e := math.Abs(lp-wantLP) / (eps * (1 + math.Abs(wantLP) + math.Abs(wantD)))
		worst[0] = math.Max(worst[0], e)
		if !(e <= glmRefUlps) {
			t.Errorf("%s(n %v, η %v) at %v: log p = %.17g, mpmath %.17g (%.3g eps·scale)", name, n, eta, k, lp, wantLP, e)
		}
		e = math.Abs(dEta-wantD) / (eps * (k + mean))
		if k+mean == 0 {
			e = math.Abs(dEta - wantD)
		}
		worst[1] = math.Max(worst[1], e)
		if !(e <= glmPartialUlps) {
			t.Errorf("%s(n %v, η %v) at %v: ∂/∂η = %.17g, mpmath %.17g (%.3g eps·scale)", name, n, eta, k, dEta, wantD, e)
		}
	}
	t.Logf("worst error / (eps·scale): log mass %.3g, partial %.3g", worst[0], worst[1])
}

// TestGLMAgainstMeanScale checks that the linear-predictor families are the
// mean-scale ones at moderate η, and equal BernoulliLogit for one trial.
func TestGLMAgainstMeanScale(t *testing.T) {
	for _, eta := range []float64{-6, -1.3, 0, 0.4, 2.2, 5} {
		for _, k := range []float64{0, 1, 2, 7, 30} {
			if a, b := (PoissonLog{eta}).LogProb(k), (Poisson{math.Exp(eta)}).LogProb(k); !close(a, b, 1e-13) {
				t.Errorf("PoissonLog(%v) at %v: %.17g, Poisson(exp) %.17g", eta, k, a, b)
			}
			if a, b := (BinomialLogit{30, eta}).LogProb(k), (Binomial{30, InvLogit(eta)}).LogProb(k); !close(a, b, 1e-12) {
				t.Errorf("BinomialLogit(30, %v) at %v: %.17g, Binomial(30, inv_logit) %.17g", eta, k, a, b)
			}
		}
		for _, k := range []float64{0, 1} {
			a, b := BinomialLogit{1, eta}.Score(nil, k), BernoulliLogit{eta}.Score(nil, k)
			if la, lb := (BinomialLogit{1, eta}).LogProb(k), (BernoulliLogit{eta}).LogProb(k); la != lb || !close(a[1], b[0], 1e-15) {
				t.Errorf("BinomialLogit(1, %v) at %v: (%v, %v), BernoulliLogit (%v, %v)", eta, k, la, a[1], lb, b[0])
			}
		}
	}
}

// TestGLMPartialsLargeEta checks the η partials against central finite
// differences where the mean-scale families fail: η = ±50 and ±700.
func TestGLMPartialsLargeEta(t *testing.T) {
	for _, c := range []struct {
		name    string
		n, k    float64
		etas    []float64
		logProb func(n, eta, k float64) float64
		score   func(n, eta, k float64) float64
	}{
		{"PoissonLog", 0, 3, []float64{-700, -50, 50},
			func(_, eta, k float64) float64 { return PoissonLog{eta}.LogProb(k) },
			func(_, eta, k float64) float64 { return PoissonLog{eta}.Score(nil, k)[0] }},
		{"BinomialLogit", 20, 7, []float64{-700, -50, 50, 700},
			func(n, eta, k float64) float64 { return BinomialLogit{n, eta}.LogProb(k) },
			func(n, eta, k float64) float64 { return BinomialLogit{n, eta}.Score(nil, k)[1] }},
	} {
		for _, eta := range c.etas {
			f := func(e float64) float64 { return c.logProb(c.n, e, c.k) }
			want := fd.Derivative(f, eta, &fd.Settings{Formula: fd.Central, Step: 1e-4})
			got := c.score(c.n, eta, c.k)
			if e := math.Abs(got-want) / math.Max(1, math.Abs(got)); !(e <= glmFDTol) {
				t.Errorf("%s(η %v) at %v: ∂/∂η = %.10g, finite difference %.10g", c.name, eta, c.k, got, want)
			}
		}
	}
}

// TestGLMSamplers: PoissonLog with an η whose rate overflows draws NaN, as
// Poisson does at an infinite rate; BinomialLogit draws the rare outcome
// with its exact probability σ(−|η|), where Binomial(n, inv_logit(η))
// would see a probability rounded to within an ulp of 1.
func TestGLMSamplers(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	if v, w := (PoissonLog{710}).Rand(rng), (Poisson{math.Inf(1)}).Rand(rng); !math.IsNaN(v) || !math.IsNaN(w) {
		t.Errorf("PoissonLog(710) draws %v, Poisson(+Inf) %v; want NaN", v, w)
	}
	if v := (PoissonLog{-800}).Rand(rng); v != 0 {
		t.Errorf("PoissonLog(-800) draws %v, want 0", v)
	}
	const n = 1 << 53 // n − k is exact
	for _, eta := range []float64{35, -35} {
		z := make([]float64, momentDraws)
		d := BinomialLogit{n, eta}
		for i := range z {
			z[i] = d.Rand(rng)
			if eta > 0 {
				z[i] = n - z[i] // the failures
			}
		}
		m := n * InvLogit(-math.Abs(eta)) // 5.7; 1 − inv_logit(35) is 6.7e-16, not 6.3e-16
		checkMean(t, "BinomialLogit(2^53, "+ftoa(eta)+") rare outcomes", z, m)
		checkVariance(t, "BinomialLogit(2^53, "+ftoa(eta)+") rare outcomes", z, m)
	}
}
