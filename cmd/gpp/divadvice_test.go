package main

import (
	"strings"
	"testing"

	"github.com/gpplang/gpp/infer/nuts"
)

// nowcastHead is a reporting-triangle nowcast's head (user trial t68),
// before its log-intensity walk.
const nowcastHead = "data n: int[T, D]\nparam sig: positive ~ HalfNormal(0.5)\n"

// nowcastTail is its delay and likelihood, after the walk.
const nowcastTail = "param p: simplex[D] ~ Dirichlet(1)\nparam phi: positive ~ Exponential(0.05)\nn ~ NegBinomial(outer(exp(loglam), p), phi)\n"

// TestDivergenceWalkAdvice: gpp sample's divergence warning on a model
// with a random walk names the walk and its other form (centred <->
// non-centred, as gpp fit's hints write them), and leaves out a density's
// edge where no support moves with the params; E-BFMI points to the walk
// too. Before, a nowcast's walk (2 divergences centred, 17 non-centred)
// got "Uniform(0, theta)" and "a scale over few groups" only.
func TestDivergenceWalkAdvice(t *testing.T) {
	const n = 10
	sd := &sampleDraws{n: n, chains: 1, divergent: make([]bool, n), depth: make([]int, n), energy: make([]float64, n)}
	sd.divergent[3] = true
	for i := range sd.energy { // E-BFMI far below 0.3: a slow drift
		sd.energy[i] = float64(i)
	}
	s := nuts.Settings{MaxDepth: 10, Delta: 0.8}
	centred := nowcastHead + "param loglam: real[T]\nloglam[0] ~ Normal(3, 2)\nloglam[1:] ~ Normal(loglam[:T-1], sig)\n" + nowcastTail
	nonCentred := nowcastHead + "param l0: real ~ Normal(3, 2)\nparam z: real[T - 1] ~ Normal(0, 1)\nlet loglam = l0 + append_row(0, cumsum(sig * z))\n" + nowcastTail
	for _, c := range []struct {
		name, src string
		want      []string
	}{
		{"centred", centred, []string{
			"marks them): a centred random walk's funnel between its step sd and its steps (loglam[1:] ~ Normal(loglam[:T - 1], sig) at 5:1, where the data say little about each step) by its non-centred form, " +
				"param loglam_0: real ~ Normal(3, 2), param loglam_z: real[T - 1] ~ Normal(0, 1) and let loglam = loglam_0 + append_row(0, cumsum(sig * loglam_z)) in place of param loglam and the statements at 4:1 and 5:1 (loglam's uses unchanged); or, where they sit at extreme values",
			"try reparameterising the model (the random walk's other form, in the divergence warning)",
		}},
		{"non-centred", nonCentred, []string{
			"marks them): a non-centred random walk's curved ridge (sig * z in the let loglam at 5:1, where the data pin each state down) by its centred form, " +
				"param loglam: real[T] with loglam[0] ~ Normal(3, 2) and loglam[1:] ~ Normal(loglam[:T-1], sig) in place of param z, param l0 and the let at 5:1 (loglam's uses unchanged); or,",
		}},
	} {
		file, info := checkedSrc(t, c.src)
		w := strings.Join(samplerWarnings(sd, s, modelDivAdvice(file, info)), "\n")
		for _, want := range c.want {
			if !strings.Contains(w, want) {
				t.Errorf("%s: want %q in\n%s", c.name, want, w)
			}
		}
		if strings.Contains(w, "Uniform(0, theta)") || strings.Contains(w, "non-centring") {
			t.Errorf("%s: a density's edge or a hierarchy's funnel, which the model has none of:\n%s", c.name, w)
		}
	}
	// no divergence: E-BFMI gives the form itself
	sd.divergent[3] = false
	file, info := checkedSrc(t, centred)
	if w := strings.Join(samplerWarnings(sd, s, modelDivAdvice(file, info)), "\n"); !strings.Contains(w, "try reparameterising the model: a centred random walk's funnel") {
		t.Errorf("E-BFMI alone: %s", w)
	}
}

// TestMovingSupport: a support moves with the params where an edge
// argument (Uniform's, Pareto's y_min, Wiener's tau) or a truncation
// bound reads a param, not where they are data or constants.
func TestMovingSupport(t *testing.T) {
	for _, c := range []struct {
		src  string
		want bool
	}{
		{"param theta: positive ~ Exponential(1)\ny ~ Uniform(0, theta)\n", true},
		{"param a: positive ~ Exponential(1)\ny ~ Pareto(a, 2)\n", true},
		{"param mu: real ~ Normal(0, 1)\ny ~ Normal(mu, 1) T[mu, ]\n", true},
		{"param mu: real ~ Normal(0, 1)\ny ~ Normal(mu, 1) T[0, ]\n", false},
		{"param a: positive ~ Exponential(1)\ny ~ Pareto(0.5, a)\n", false},
		// the registry's ends (dist.Univariate.Ends): Wiener's tau, GEV's all
		{"param tau: positive ~ Exponential(10)\ny ~ Wiener(1, tau, 0.5, 0)\n", true},
		{"param d: real ~ Normal(0, 1)\ny ~ Wiener(1, 0.1, 0.5, d)\n", false},
		{"param xi: real ~ Normal(0, 0.2)\ny ~ GEV(0, 1, xi)\n", true},
		{"param theta: positive ~ Exponential(1)\ny ~ Uniform(0, 10)\ny ~ Normal(0, theta)\n", false},
		// Stan's target += uniform_lpdf(y | 0, theta), and a censored term
		{"param theta: positive ~ Exponential(1)\ntarget += sum(logpdf(y, Uniform(0, theta)))\n", true},
		{"param theta: positive ~ Exponential(1)\ntarget += sum(logccdf(y, Pareto(theta, 2)))\n", true},
		{"param theta: positive ~ Exponential(1)\ntarget += sum(logpdf(y, Normal(0, theta)))\n", false},
		// an output's density is no part of the fit's
		{"param theta: positive ~ Exponential(1)\ny ~ Normal(0, theta)\noutput lp = logpdf(y, Uniform(0, theta))\n", false},
	} {
		file, info := checkedSrc(t, "data y: positive[3]\n"+c.src)
		if got := movingSupport(file, info); got != c.want {
			t.Errorf("%q: %v, want %v", c.src, got, c.want)
		}
	}
}
